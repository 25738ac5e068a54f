/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The datapath's per-CPU counters, summed. */
#ifndef XN_COUNTERS_H
#define XN_COUNTERS_H

#include <linux/types.h>
#include "xdpnet.h"
#include "state/pins.h"

/* Sum a per-CPU array of ncpu values into out. */
void xn_sum_stats(const struct xdpnet_stats *percpu, int ncpu,
		  struct xdpnet_stats *out);

/* The FDB copy's events (fdb_ev), summed over CPUs, into out (zeroed
 * first). 0 or -errno. */
int xn_fdb_ev_read(const struct xn_state *s, __u64 out[XDPNET_FE_MAX]);

/* Keys in a hash map (a walk: one syscall per key). */
int xn_map_count_keys(int fd);

#endif
