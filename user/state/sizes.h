/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The capacities an operator chooses at attach (--fdb-size, --static-size,
 * --vlan-size): the maps whose size limits what a bridge can carry. A
 * pinned map keeps its size across attaches, upgrades and builds of other
 * defaults until a size is given again; then it is made anew and its
 * entries carried over (datapath/load.c), or the attach is refused where they
 * would not fit. (Ports need no size: a bridge has at most 1024, and so
 * does the ports map.)
 */
#ifndef XN_SIZES_H
#define XN_SIZES_H

#include <linux/types.h>
#include "state/pins.h"

enum xn_size_id { XN_SIZE_FDB, XN_SIZE_STATIC, XN_SIZE_VLANS, XN_SIZE_N };

/* The largest sizes: preallocated hash maps of about 100 bytes an entry
 * (about 100 MiB for the largest FDB copy). */
#define XN_SIZE_FDB_MAX (1U << 20)
#define XN_SIZE_STATIC_MAX (1U << 16)
#define XN_SIZE_VLANS_MAX (1U << 20)

struct xn_size_def {
	const char *opt;  /* attach's option without "--" */
	const char *json; /* status --json's key */
	enum xn_map_id map;
	__u32 max;	  /* the largest size taken (the smallest is 1) */
	const char *what; /* "learned FDB entries" */
};

extern const struct xn_size_def xn_sizes[XN_SIZE_N];

/* The size that map id is chosen by, or NULL. */
const struct xn_size_def *xn_size_of_map(enum xn_map_id id);

/* A map's max_entries (0 if it cannot be read). */
__u32 xn_map_max_entries(int fd);

#endif
