/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A bridge's pinned state under /sys/fs/bpf/xdpnet/BRIDGE/ (the paths are
 * state/paths.c's): the maps, the programs, the links, and reading and
 * writing the maps that configure the datapath (cfg, meta). Whose the
 * state is, and opening it, is state/owner.c's; loading this build's
 * programs into it datapath/load.c's.
 */
#ifndef XN_PINS_H
#define XN_PINS_H

#include <stddef.h>
#include <net/if.h>
#include "xdpnet.h"
#include "state/bridge.h"

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
	/* Since 0.3: a state pinned by an older build has none (opened as
	 * -1; the next attach adds them). */
	XM_DUMP,    /* the dump's switch (.data.dump) */
	XM_DUMP_RB, /* the dump's ring buffer */
	/* Since 0.3.1: */
	XM_RT,	  /* the datapath's own state (.data.rt): the generation */
	XM_FLOWS, /* the decision cache */
	XM_N,
};
#define XM_REQUIRED XM_DUMP /* maps before it are in every state */

/* The pin name of a map ("fdb", "ports", ...). */
const char *xn_map_pin(enum xn_map_id id);

struct xn_state {
	const struct xn_bridge *bridge;
	int fd[XM_N]; /* -1 when not open */
	int prog_tc, prog_xdp, prog_jiffies;
	int prog_bump; /* -1: an older build's state (it caches nothing) */
	struct xdpnet_meta meta;
};

/* The programs a state pins: each one's name in the datapath's object,
 * its pin, and its descriptor in struct xn_state (off). */
struct xn_prog_pin {
	const char *prog, *pin;
	size_t off;
};
#define XN_PROGS 4
extern const struct xn_prog_pin xn_prog_pins[XN_PROGS];
/* s's descriptor of xn_prog_pins[i]. */
static inline int *xn_state_prog(struct xn_state *s, unsigned int i)
{
	return (int *)((char *)s + xn_prog_pins[i].off);
}

/* Pin helpers: PIN_ROOT/bridge/leaf. */
/* The path of the bridge's pin leaf (NULL: its folder): 0, or -1 (too
 * long). */
int xn_pin_path(char *buf, size_t len, const struct xn_bridge *bridge,
		const char *leaf);
int xn_pin_exists(const struct xn_bridge *bridge, const char *leaf);
/* The XDP program in libxdp's dispatchers (datapath/multiprog.c); every load
 * of programs removes it: it is of the programs and maps replaced. */
#define XN_PIN_XDP_MULTI "prog_xdp_multi"

int xn_pin_obj(int fd, const struct xn_bridge *bridge,
	       const char *leaf); /* 0
				     or
				     -errno
				   */
/* Pin fd as leaf, atomically replacing whatever is pinned there. */
int xn_pin_replace(int fd, const struct xn_bridge *bridge, const char *leaf);
void xn_pin_unlink(const struct xn_bridge *bridge, const char *leaf);
/* bpf_obj_get() of PIN_ROOT/bridge/leaf: an fd or a negative errno. */
int xn_pin_get(const struct xn_bridge *bridge, const char *leaf);
/* Create PIN_ROOT/bridge (its path into dir): 0, or -1 after a one-line
 * error. */
int xn_pin_mkdir(const struct xn_bridge *bridge, char *dir, size_t len);

/* A map's value size (0 if unknown). */
__u32 xn_map_value_size(int fd);

void xn_state_init(struct xn_state *s, const struct xn_bridge *bridge);
/* Open every map and program pinned under s->bridge's name (-1 where
 * there is none: what must be there is the caller's to say). */
void xn_state_get(struct xn_state *s);
void xn_state_close(struct xn_state *s);

int xn_cfg_read(const struct xn_state *s, struct xdpnet_cfg *c);
int xn_cfg_write(const struct xn_state *s, const struct xdpnet_cfg *c);

/* The maps a cached decision rests on changed (include/xdpnet.h, struct
 * xdpnet_rt): every decision cached before is made anew. Call it after
 * the change, never before. xn_cfg_write() calls it. */
void xn_gen_bump(const struct xn_state *s);
int xn_meta_write(const struct xn_state *s);

/* Remove every pin of a bridge (links first, so hooks go before maps). */
void xn_state_remove(const struct xn_bridge *bridge);

#endif
