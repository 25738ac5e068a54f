/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The follower (xdpnet follow BRIDGE) and starting/stopping it. */
#ifndef XN_FOLLOWER_H
#define XN_FOLLOWER_H

#include <sys/types.h>
#include "lib/nl.h"

/* Run the follower for br in the foreground until a signal, or until the
 * bridge is deleted. Returns an xn_exit code. */
int xn_follow_run(const char *bridge, struct xn_link *br);

/* Start one unless one is running: the systemd unit where systemd runs it
 * (asked for without waiting), a daemon otherwise (waited for until it
 * holds its lock). 0 or an xn_exit code after a one-line error. *how says
 * which ("systemd", "daemon", "running"). */
int xn_follower_start(const char *bridge, const char **how);
/* Stop it, if one runs. 0, or XN_ERR after a one-line error. */
int xn_follower_stop(const char *bridge);

#endif
