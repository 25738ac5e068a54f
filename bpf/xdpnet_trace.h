/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The trace variants of the stages (xdpnet trace; types in
 * include/xdpnet.h). The stages and the decision take a struct
 * xdpnet_trace_rec pointer: NULL in the real programs, where every use
 * below folds away (they are inlined with it constant), the entry of
 * trace_out in the trace programs, which then record what they check and
 * skip every side effect.
 */
#ifndef XDPNET_TRACE_H
#define XDPNET_TRACE_H

/* Never pinned: each "xdpnet trace" loads the trace programs afresh, and
 * this map with them. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpnet_trace_rec);
} trace_out SEC(".maps");

/* The decision is about to make check ck. */
#define XN_AT(t, ck)                             \
	do {                                     \
		if (t) {                         \
			(t)->seen |= 1U << (ck); \
			(t)->at = (ck);          \
		}                                \
	} while (0)

/* Record a finding: XN_NOTE(t, src_ifindex, v->ifindex). */
#define XN_NOTE(t, field, val)              \
	do {                                \
		if (t)                      \
			(t)->field = (val); \
	} while (0)

static __always_inline struct xdpnet_trace_rec *trace_rec(void)
{
	__u32 zero = 0;
	struct xdpnet_trace_rec *t = bpf_map_lookup_elem(&trace_out, &zero);

	if (t)
		__builtin_memset(t, 0, sizeof(*t));
	return t;
}

#endif /* XDPNET_TRACE_H */
