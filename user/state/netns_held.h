/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Is this process's network namespace held by anything but itself? */
#ifndef XN_NETNS_HELD_H
#define XN_NETNS_HELD_H

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
