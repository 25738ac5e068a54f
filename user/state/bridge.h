/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The bridge a command is given, resolved once per process into one
 * handle: its name, what netlink said of it then, the network namespace
 * this process runs in, and every path derived from its name. Everything
 * below cmd/ takes the handle, never a name; xn_bridge_open is the one
 * place that looks a bridge up by its name.
 */
#ifndef XN_BRIDGE_H
#define XN_BRIDGE_H

#include "lib/log.h"
#include "lib/nl.h"
#include "state/netns.h"
#include "state/paths.h"

struct xn_bridge {
	char name[IF_NAMESIZE];
	/* The lookup's result: 0 (link is the bridge's, as it was then),
	 * -ENODEV (no such device), another -errno, or XN_BR_UNKNOWN (not
	 * looked up). */
	int err;
	struct xn_link link;
	struct xn_netns ns;   /* this process's network namespace */
	struct xn_paths path; /* pins, run files, the follower's unit */
};
#define XN_BR_UNKNOWN 1

/* Open the handle of bridge name: its paths, and with lookup its link
 * (looked up by name: the one lookup). Prints nothing: what the lookup
 * found is judged where the command needs it (xn_bridge_check). 0, or
 * -EINVAL (not an interface name) or -ENAMETOOLONG. */
int xn_bridge_open(struct xn_bridge *br, const char *name, int lookup);

/* The handle of a bridge already listed (no lookup). */
int xn_bridge_of_link(struct xn_bridge *br, const struct xn_link *l);

/* Is it a bridge of this namespace? 0, or a -errno (lib/log.h) after a one-line
 * error (no such device, not a bridge, the lookup failed). */
int xn_bridge_check(const struct xn_bridge *br);

/* The same, asked of the kernel now by the bridge's ifindex (a command
 * that runs on, as stats -i does): a bridge deleted since is no such
 * device. */
int xn_bridge_still(const struct xn_bridge *br);

/* For a command that found no state of ours under the bridge's name:
 * xn_bridge_check's -errno and line when it is no bridge here, else
 * -XN_NOT_ATTACHED after one line of fmt (what not being attached means
 * for the command). */
int xn_bridge_unattached(const struct xn_bridge *br, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
