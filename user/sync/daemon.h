/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Starting and stopping the follower: the systemd unit where systemd runs
 * it, a daemon otherwise. */
#ifndef XN_DAEMON_H
#define XN_DAEMON_H

#include "lib/log.h"
#include "state/bridge.h"

/* Start one unless one is running: the systemd unit where systemd runs it
 * (asked for without waiting), a daemon otherwise (waited for until it
 * holds its lock). 0 or a -errno (lib/log.h) after a one-line error. *how says
 * which ("systemd", "daemon", "running"). */
int xn_follower_start(const struct xn_bridge *bridge, const char **how);
/* Stop it, if one runs. 0, or -XN_FAILED after a one-line error. */
int xn_follower_stop(const struct xn_bridge *bridge);

#endif
