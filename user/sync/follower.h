/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The follower (xdpnet follow BRIDGE): keeps the datapath in step with the
 * bridge. Starting and stopping it is sync/daemon.c's. */
#ifndef XN_FOLLOWER_H
#define XN_FOLLOWER_H

#include "state/bridge.h"

/* Run the follower for bridge (looked up) in the foreground until a signal, or
 * until the bridge is deleted. Returns an xn_exit code. */
int xn_follow_run(const struct xn_bridge *bridge);

#endif
