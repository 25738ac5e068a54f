/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A bridge's pinned state under /sys/fs/bpf/xdpnet/BRIDGE/: the maps, the
 * programs, the links. Opening checks that the state is ours (this network
 * namespace) and of a layout this build reads; loading puts this build's
 * programs in place, reusing the pinned maps that fit (upgrades keep the
 * FDB and the counters).
 */
#ifndef XN_PINS_H
#define XN_PINS_H

#include <net/if.h>
#include "xdpnet.h"

enum xn_map_id {
	XM_CFG,
	XM_META,
	XM_FDB,
	XM_FDB_STATIC,
	XM_FDB_EV,
	XM_PORTS,
	XM_PORT_IDX,
	XM_VLANS,
	XM_TX,
	XM_STATS,
	XM_LAT_CTL,
	XM_LAT_CPU,
	XM_N,
};

/* The pin name of a map ("fdb", "ports", ...). */
const char *xn_map_pin(enum xn_map_id id);

struct xn_state {
	char bridge[IF_NAMESIZE];
	int fd[XM_N]; /* -1 when not open */
	int prog_tc, prog_xdp, prog_jiffies;
	struct xdpnet_meta meta;
};

/* Pin helpers: XDPNET_PIN_ROOT/bridge/leaf. */
int xn_pin_exists(const char *bridge, const char *leaf);

/* What is pinned under a bridge's name, as attach, detach, latency and
 * stats must know it before they touch anything. */
enum xn_pinned {
	XN_PINNED_NONE,	    /* nothing */
	XN_PINNED_HALF,	    /* an attach that died before it wrote meta */
	XN_PINNED_OURS,	    /* this build's layout, this namespace's bridge */
	XN_PINNED_OTHER_NS, /* a bridge of that name in another namespace */
	XN_PINNED_LAYOUT,   /* another xdpnet version's layout */
	XN_PINNED_FOREIGN,  /* pins xdpnet does not make */
};
enum xn_pinned xn_pinned(const char *bridge);
/* The one-line error for OTHER_NS, LAYOUT and FOREIGN; returns XN_ERR. */
int xn_pinned_refuse(const char *bridge, enum xn_pinned p);
int xn_pin_obj(int fd, const char *bridge, const char *leaf); /* 0 or -errno */
void xn_pin_unlink(const char *bridge, const char *leaf);

void xn_state_init(struct xn_state *s, const char *bridge);
/*
 * Open an attached bridge's state. Returns 0, XN_ENOTATTACHED (nothing, or
 * not this namespace's bridge of that name), or XN_ERR after a one-line
 * error when the state is of another layout (an older xdpnet): the error
 * says what to do.
 */
int xn_state_open(struct xn_state *s, const char *bridge);
void xn_state_close(struct xn_state *s);

int xn_cfg_read(const struct xn_state *s, struct xdpnet_cfg *c);
int xn_cfg_write(const struct xn_state *s, const struct xdpnet_cfg *c);
int xn_meta_write(const struct xn_state *s);

struct xn_load {
	/* in */
	__u32 bridge_ifindex;
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
 * atomically (hooks.c). Leaves s open on the result. Returns 0 or an
 * xn_exit code after a one-line error.
 */
int xn_state_load(struct xn_state *s, struct xn_load *l);

/* The datapath's clock now (jiffies, low 32 bits): 0 or -errno. */
int xn_jiffies(const struct xn_state *s, __u32 *j);
/* Jiffies per second, measured against CLOCK_MONOTONIC (about 100 ms the
 * first time; cached in xdpnet_cfg.hz by reconcile). 0 if unknown. */
__u32 xn_measure_hz(const struct xn_state *s);

/* This build's id (a hash of its BPF objects). */
const char *xn_build_id(void);

/* Remove every pin of a bridge (links first, so hooks go before maps). */
void xn_state_remove(const char *bridge);

#endif
