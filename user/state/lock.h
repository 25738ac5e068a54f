/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Serialising xdpnet's processes per bridge: the CLI, the follower and the
 * libvirt hook take /run/xdpnet/BRIDGE.lock around every change to a
 * bridge's datapath. The follower also holds /run/xdpnet/BRIDGE.follow for
 * its whole life: that is how "a follower is running" is told, race-free.
 * The paths are state/paths.c's.
 */
#ifndef XN_LOCK_H
#define XN_LOCK_H

#include <sys/types.h>
#include "state/bridge.h"

/* Blocking exclusive lock on /run/xdpnet/BRIDGE.lock (waits at most
 * timeout_s). Returns an fd to pass to xn_unlock, or -1 after a one-line
 * error. */
int xn_lock(const struct xn_bridge *bridge, int timeout_s);
void xn_unlock(int fd);

/* The follower's lifetime lock: an fd, -EBUSY (one runs: *pid if known),
 * or another -errno. */
int xn_follow_lock(const struct xn_bridge *bridge, pid_t *pid);
/* Is a follower running for bridge? 1 (and its pid), or 0. */
int xn_follower_alive(const struct xn_bridge *bridge, pid_t *pid);

/* A dump's lock (/run/xdpnet/BRIDGE.dump): an fd, or -EBUSY (another dump
 * runs) or another -errno. */
int xn_dump_lock(const struct xn_bridge *bridge);
/* Does a dump run for bridge? */
int xn_dump_alive(const struct xn_bridge *bridge);
/* Release a dump's lock; detached: its bridge was detached meanwhile,
 * and the dump removes its lock file (detach left it to the dump). */
void xn_dump_unlock(const struct xn_bridge *bridge, int fd, int detached);

/* Detach's end: remove bridge's run files (its lock, the follower's lock,
 * pid and log, the dump's lock; those of a process still running stay),
 * and /run/xdpnet when it is empty. Call while holding xn_lock's fd, as
 * the last thing before xn_unlock: once the lock's file is gone, another
 * process may lock a new one (xn_lock and the other locks open the path
 * anew when the file they locked was removed meanwhile). */
void xn_run_remove(const struct xn_bridge *bridge);
/* The same, by the follower of a bridge that was deleted: it holds the
 * follower lock (follow_fd) and the bridge lock. */
void xn_run_remove_follower(const struct xn_bridge *bridge, int follow_fd);

#endif
