/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loading this build's programs into a bridge's pinned state: the live
 * datapath where the kernel takes it, else the portable one, reusing the
 * pinned maps that fit (upgrades keep the FDB and the counters).
 */
#ifndef XN_LOAD_H
#define XN_LOAD_H

#include <linux/types.h>
#include "state/pins.h"
#include "state/sizes.h"

struct xn_load {
	/* in */
	__u32 bridge_ifindex;
	__u32 size[XN_SIZE_N]; /* attach --fdb-size ... (0: as pinned) */
	/* out */
	int live;      /* the live datapath loaded */
	int fdb_trace; /* the FDB mirror tracepoints are attached */
	int upgraded;  /* programs of another build were replaced */
	int fresh;     /* no state was pinned before */
	int remade;    /* maps created anew (their contents must be refilled) */
	__u32 mode;    /* the mode in force (attach fills it in) */
	int no_follow; /* ... and whether a follower is wanted */
	char build[32];
};

/*
 * Put this build's programs in place for s->bridge: load (the live datapath
 * where the kernel takes it), reuse every pinned map whose layout fits,
 * create (or, for counters, migrate) the others, pin maps and programs and
 * attach the FDB mirror. Existing port hooks are moved to the new programs
 * atomically (hooks.c). Leaves s open on the result. Returns 0 or -errno
 * (lib/log.h) after a one-line error.
 */
int xn_state_load(struct xn_state *s, struct xn_load *l);

/*
 * The XDP program prog (xdpnet_xdp) of s's datapath (live
 * or portable, as s->meta says) in an object of its own, opened, not
 * loaded, its maps s's pinned ones and every other program off: for
 * libxdp, which loads it as the dispatcher's extension (datapath/multiprog.c).
 * NULL and errno set when it cannot.
 */
struct bpf_object *xn_xdp_object(const struct xn_state *s, const char *prog);

/*
 * The trace variants of s's stages (xdpnet_trace_*: no side effects, see
 * bpf/xdpnet_trace.h) in an object of their own, opened, not loaded, on
 * s's pinned maps; its trace_out map is its own. NULL and errno set when
 * it cannot.
 */
struct bpf_object *xn_trace_object(const struct xn_state *s);

/* This build's id (a hash of its BPF objects). */
const char *xn_build_id(void);

#endif
