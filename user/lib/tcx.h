/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A device's tcx chains (Linux 6.6 and later): the programs on its ingress
 * or egress, in the order they run, and the attach flags that place a new
 * one. Debian 12's UAPI headers (6.1) have none of these names.
 */
#ifndef XN_TCX_H
#define XN_TCX_H

#include <stddef.h>
#include <linux/types.h>

#define XN_TCX_INGRESS 46     /* BPF_TCX_INGRESS */
#define XN_TCX_EGRESS 47      /* BPF_TCX_EGRESS */
#define XN_F_BEFORE (1U << 3) /* BPF_F_BEFORE: no relative one: first */
#define XN_F_AFTER (1U << 4)  /* BPF_F_AFTER: no relative one: last */

/* The ids of the programs on ifindex's tcx ingress (egress: its egress),
 * first to run first, at most max of them: their number (0 also where the
 * kernel has no tcx), or -errno. */
int xn_tcx_progs(__u32 ifindex, int egress, __u32 *ids, __u32 max);

/* A program's name by id into buf ("?" when it cannot be read). */
void xn_prog_name(__u32 id, char *buf, size_t len);

#endif
