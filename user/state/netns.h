/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* This process's network namespace: which it is (read once), and whether
 * anything but this process holds it. */
#ifndef XN_NETNS_H
#define XN_NETNS_H

#include <sys/types.h>

struct xn_netns {
	dev_t dev;
	unsigned long long ino; /* 0: unknown */
};

/* This process's network namespace (pins are global, bridges are not:
 * a state records whose it is). Read on the first call. */
const struct xn_netns *xn_netns_self(void);

/* 1: PID 1 is in it, another process is, or a mount of this mount
 * namespace names it ('ip netns add', a container runtime's bind mount);
 * 0: nothing but this process (its namespace was deleted under it: 'ip
 * netns del'); -1: cannot tell (/proc unreadable). An open descriptor of
 * the namespace held by another process is not seen. */
int xn_netns_held(void);
/* 1: this process is in PID 1's network namespace; 0: not, or PID 1's
 * cannot be read (then nobody can tell). */
int xn_netns_is_init(void);

#endif
