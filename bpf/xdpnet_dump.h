/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The frame dump (xdpnet dump, user/observe/dump.c): both stages copy the
 * frames they decide on, with the decision, into dump_rb while
 * xdpnet_dump.on says a dump runs. A full ring loses the record, counted
 * in xdpnet_dump.lost, never the frame.
 */
#ifndef XDPNET_DUMP_H
#define XDPNET_DUMP_H

#include "xdpnet_maps.h"

static __always_inline __u32 dump_path(__u32 verdict)
{
	return verdict == XDPNET_C_XDP_REDIRECT	 ? XDPNET_DUMP_XDP
	       : verdict == XDPNET_C_TC_REDIRECT ? XDPNET_DUMP_TC
						 : XDPNET_DUMP_BRIDGE;
}

/* One size class of record: N bytes of room for the frame (the ring takes
 * reservations of constant size only). */
#define DUMP_CLASS(N)                                                   \
	if (cap <= N) {                                                 \
		struct {                                                \
			struct xdpnet_dump_rec h;                       \
			__u8 d[N];                                      \
		} *r = bpf_ringbuf_reserve(&dump_rb, sizeof(*r), 0);    \
                                                                        \
		if (!r)                                                 \
			goto lost;                                      \
		/* 1 to N, as the verifier can see (N: a power of 2) */ \
		n = ((cap - 1) & (N - 1)) + 1;                          \
		if ((xdp ? bpf_xdp_load_bytes(ctx, 0, r->d, n)          \
			 : bpf_skb_load_bytes(ctx, 0, r->d, n))) {      \
			bpf_ringbuf_discard(r, 0);                      \
			return;                                         \
		}                                                       \
		r->h.ts_ns = bpf_ktime_get_ns();                        \
		r->h.ifindex = ifindex;                                 \
		r->h.target = target;                                   \
		r->h.len = len;                                         \
		r->h.caplen = n;                                        \
		r->h.stage = xdp ? XDPNET_STAGE_XDP : XDPNET_STAGE_TC;  \
		r->h.verdict = verdict;                                 \
		bpf_ringbuf_submit(r, 0);                               \
		return;                                                 \
	}

/* The frame of ctx (an xdp_md when xdp, else an __sk_buff) arrived on
 * ifindex, len bytes, and got verdict (to target when redirected). */
static __always_inline void dump_frame(void *ctx, const int xdp, __u32 ifindex,
				       __u32 len, __u32 verdict, __u32 target)
{
	__u32 cap = xdpnet_dump.snaplen, want = xdpnet_dump.ifindex;
	__u32 paths = xdpnet_dump.paths, n;

	if (want && want != ifindex && want != target)
		return;
	if (paths && !(paths & dump_path(verdict)))
		return;
	if (cap > len)
		cap = len;
	DUMP_CLASS(128)
	DUMP_CLASS(512)
	if (cap > XDPNET_DUMP_MAX)
		cap = XDPNET_DUMP_MAX;
	DUMP_CLASS(XDPNET_DUMP_MAX)
	return;
lost:
	__sync_fetch_and_add(&xdpnet_dump.lost, 1);
}

/* The switch: one load of a global per frame while no dump runs.
 * XDPNET_NO_DUMP (BPF_EXTRA): a build without it, for the benchmark of its
 * cost (tests/integration/dump.sh --cost). */
#ifdef XDPNET_NO_DUMP
#define DUMP(ctx, xdp, ifindex, len, verdict, target) \
	do {                                          \
	} while (0)
#else
#define DUMP(ctx, xdp, ifindex, len, verdict, target)                        \
	do {                                                                 \
		if (xdpnet_dump.on)                                          \
			dump_frame(ctx, xdp, ifindex, len, verdict, target); \
	} while (0)
#endif

#endif
