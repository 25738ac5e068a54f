/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The decision cache (bpf/xdpnet_cache.h) as user space sees it: read
 * only, never written (the datapath owns its entries). */
#ifndef XN_FLOWS_H
#define XN_FLOWS_H

#include <linux/types.h>
#include "state/pins.h"

struct xn_flows {
	__u32 per_cpu; /* entries per CPU (XDPNET_FLOW_ENTRIES) */
	__u32 cpus;    /* possible CPUs */
	__u32 cached;  /* entries holding a decision of this generation */
	__u32 gen;     /* the generation (xdpnet_rt.gen) */
};

/* 0, or -errno (-ENOENT: a state of a build without the cache). */
int xn_flows_read(const struct xn_state *s, struct xn_flows *out);

#endif
