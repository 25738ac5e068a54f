// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loading this build's programs into a bridge's pinned state.
 *
 * Loading tries the live datapath first (xdpnet_live.bpf.o: reads the
 * ingress port's bridge state from the kernel), then the portable one
 * (xdpnet.bpf.o), then the portable one without its tracing programs
 * (no in-kernel FDB mirror: the follower mirrors the FDB instead). Each
 * pinned map is reused when its layout fits this build's (an upgrade keeps
 * FDB and counters); one that does not is created anew and refilled by
 * reconcile, except the counters, which are migrated when the new layout
 * only appends counters, and otherwise make the load refuse.
 *
 * New objects are pinned under a temporary name and renamed over the old
 * pin, so that a kill at any moment leaves either the old or the new
 * object pinned, never none. meta (with this build's id) is written last:
 * until it is, the next attach or follower start redoes the load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "xdpnet.skel.h"
#include "xdpnet_live.skel.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/pins.h"
#include "state/owner.h"
#include "datapath/load.h"
#include "state/sizes.h"
#include "datapath/counters.h"

/* The tracing programs and the pins of their links. */
static const struct {
	const char *prog, *pin;
	int fdb; /* part of the FDB mirror */
} traces[] = {
	{ "xdpnet_fdb_update", "trace_fdb_update", 1 },
	{ "xdpnet_fdb_delete", "trace_fdb_delete", 1 },
	{ "xdpnet_fdb_add", "trace_fdb_add", 1 },
	{ "xdpnet_fdb_ext_learn", "trace_fdb_ext_learn", 1 },
	{ "xdpnet_redirect_err", "trace_redirect_err", 0 },
	{ "xdpnet_devmap_xmit", "trace_devmap_xmit", 0 },
};

/* ----------------------------------------------------------- build id */

const char *xn_build_id(void)
{
	static char id[32];
	__u64 h = XN_FNV_OFFSET;
	const void *b;
	size_t n;

	if (id[0])
		return id;
	b = xdpnet_bpf__elf_bytes(&n);
	h = xn_fnv1a(h, b, n);
	b = xdpnet_live_bpf__elf_bytes(&n);
	h = xn_fnv1a(h, b, n);
	snprintf(id, sizeof(id), "%s-%016llx", XDPNET_VERSION_STR,
		 (unsigned long long)h);
	return id;
}

/* ------------------------------------------------------------- loading */

enum variant { V_LIVE, V_MAP, V_MAP_NOTRACE, V_N };

static struct bpf_map *obj_map(struct bpf_object *obj, enum xn_map_id id)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
	{
		const char *n = bpf_map__name(m);
		size_t l = strlen(n);

		/* Globals: libbpf names them OBJ.SECTION, OBJ shortened. */
		const char *sec = id == XM_CFG	  ? ".data.cfg"
				  : id == XM_DUMP ? ".data.dump"
				  : id == XM_RT	  ? ".data.rt"
						  : NULL;

		if (sec ? (l >= strlen(sec) &&
			   !strcmp(n + l - strlen(sec), sec))
			: !strcmp(n, xn_map_pin(id)))
			return m;
	}
	return NULL;
}

/* Does a pinned map have the layout this build's map has (and, with
 * size, its max_entries)? */
static int layout_fits(int fd, const struct bpf_map *m, int size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.type == bpf_map__type(m) &&
	       info.key_size == bpf_map__key_size(m) &&
	       info.value_size == bpf_map__value_size(m) &&
	       (!size || info.max_entries == bpf_map__max_entries(m)) &&
	       info.map_flags == bpf_map__map_flags(m);
}

static int map_fits(int fd, const struct bpf_map *m)
{
	return layout_fits(fd, m, 1);
}

/* A map whose size an operator chooses (state/sizes.h): the size asked for,
 * else the pinned map's, else this build's. */
static int size_map(const struct xn_load *l, enum xn_map_id id, int pinned,
		    struct bpf_map *m)
{
	const struct xn_size_def *sz = xn_size_of_map(id);
	__u32 want;

	if (!sz)
		return 0;
	want = l->size[sz - xn_sizes];
	if (!want && pinned >= 0 && layout_fits(pinned, m, 0))
		want = xn_map_max_entries(pinned);
	return want ? bpf_map__set_max_entries(m, want) : 0;
}

/* The decision cache: its entries for every possible CPU. */
static int flows_size(struct bpf_map *m)
{
	int ncpu = libbpf_num_possible_cpus();

	return ncpu < 0 ? ncpu
			: bpf_map__set_max_entries(m,
						   ncpu * XDPNET_FLOW_ENTRIES);
}

/* Entries of a map of another size but the same layout into its new map
 * (not per-CPU): how many went in. */
static int map_carry(int from, int to, __u32 key_size, __u32 value_size)
{
	char *k = calloc(1, key_size), *nk = calloc(1, key_size);
	char *v = calloc(1, value_size);
	int n = 0, err;

	for (err = !k || !nk || !v ? -ENOMEM
				   : bpf_map_get_next_key(from, NULL, k);
	     !err;
	     err = bpf_map_get_next_key(from, k, nk), memcpy(k, nk, key_size))
		if (!bpf_map_lookup_elem(from, k, v) &&
		    !bpf_map_update_elem(to, k, v, BPF_NOEXIST))
			n++;
	free(k);
	free(nk);
	free(v);
	return n;
}

/* Counters whose new layout appends counters to the old one can be
 * carried over; anything else cannot. */
static int stats_migratable(int fd, const struct bpf_map *m)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.type == bpf_map__type(m) && info.key_size == 4 &&
	       info.max_entries == bpf_map__max_entries(m) &&
	       info.value_size < bpf_map__value_size(m) &&
	       info.value_size % sizeof(struct xdpnet_ctr_val) == 0;
}

static int stats_migrate(int from, int to, __u32 old_vs)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	size_t new_vs = sizeof(struct xdpnet_stats);
	char *a, *b;
	__u32 k;

	if (ncpu < 0)
		return ncpu;
	/* Per-CPU values come 8-byte aligned, one per possible CPU. */
	old_vs = (old_vs + 7) & ~7U;
	a = calloc(ncpu, old_vs);
	b = calloc(ncpu, new_vs);
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (k = 0; k < XDPNET_MAX_PORTS; k++) {
		if (bpf_map_lookup_elem(from, &k, a))
			continue;
		memset(b, 0, ncpu * new_vs);
		for (c = 0; c < ncpu; c++)
			memcpy(b + c * new_vs, a + c * old_vs, old_vs);
		bpf_map_update_elem(to, &k, b, 0);
	}
	free(a);
	free(b);
	return 0;
}

struct load_ctx {
	struct bpf_object *obj;
	int pinned[XM_N]; /* the old pinned maps, -1 if none */
	int reuse[XM_N];  /* 1: reused as they are */
};

static void load_ctx_free(struct load_ctx *c)
{
	int i;

	for (i = 0; i < XM_N; i++)
		if (c->pinned[i] >= 0)
			close(c->pinned[i]);
	bpf_object__close(c->obj);
}

static int try_load(struct xn_state *s, enum variant v, struct load_ctx *c,
		    struct xn_load *l)
{
	DECLARE_LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "xdpnet");
	const void *bytes;
	unsigned int i;
	size_t n;
	int err;

	bytes = v == V_LIVE ? xdpnet_live_bpf__elf_bytes(&n)
			    : xdpnet_bpf__elf_bytes(&n);
	memset(c, 0, sizeof(*c));
	for (i = 0; i < XM_N; i++)
		c->pinned[i] = -1;
	c->obj = bpf_object__open_mem(bytes, n, &oo);
	if (!c->obj) {
		err = -errno;
		xn_debug("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	for (i = 0; i < XM_N; i++) {
		struct bpf_map *m = obj_map(c->obj, i);

		if (!m)
			return -ENOENT;
		c->pinned[i] = xn_pin_get(s->bridge, xn_map_pin(i));
		if (c->pinned[i] < 0)
			c->pinned[i] = -1;
		err = i == XM_FLOWS ? flows_size(m)
				    : size_map(l, i, c->pinned[i], m);
		if (err)
			return err;
		if (c->pinned[i] < 0)
			continue;
		/* The decision cache starts empty with every load: another
		 * build may have changed the maps meanwhile without a bump. */
		if (i != XM_FLOWS && map_fits(c->pinned[i], m)) {
			err = bpf_map__reuse_fd(m, c->pinned[i]);
			if (err)
				return err;
			c->reuse[i] = 1;
		} else if (i == XM_STATS &&
			   !stats_migratable(c->pinned[i], m)) {
			return -EPROTO;
		}
	}
	/* The trace variants load with "xdpnet trace" (xn_trace_object). */
	{
		struct bpf_program *p;

		bpf_object__for_each_program(
			p, c->obj) if (!strncmp(bpf_program__name(p),
						"xdpnet_trace_", 13))
			bpf_program__set_autoload(p, false);
	}
	if (v == V_MAP_NOTRACE)
		for (i = 0; i < ARRAY_SIZE(traces); i++)
			bpf_program__set_autoload(
				bpf_object__find_program_by_name(
					c->obj, traces[i].prog),
				false);
	err = bpf_object__load(c->obj);
	if (err)
		xn_debug("%s datapath not loaded: %s",
			 v == V_LIVE  ? "live"
			 : v == V_MAP ? "portable"
				      : "portable (no tracing)",
			 strerror(-err));
	l->live = v == V_LIVE;
	l->fdb_trace = v != V_MAP_NOTRACE;
	return err;
}

static int attach_traces(struct xn_state *s, struct bpf_object *obj,
			 int fdb_trace)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(traces); i++) {
		struct bpf_program *p;
		struct bpf_link *k;

		if (traces[i].fdb && !fdb_trace)
			continue;
		p = bpf_object__find_program_by_name(obj, traces[i].prog);
		k = p ? bpf_program__attach(p) : NULL;
		if (!k) {
			if (traces[i].fdb)
				return -errno ?: -ENOENT;
			/* Optional: only redirect errors go uncounted. */
			xn_debug("%s not attached: redirect errors after the "
				 "XDP program returns are not counted",
				 traces[i].prog);
			xn_pin_unlink(s->bridge, traces[i].pin);
			continue;
		}
		err = xn_pin_replace(bpf_link__fd(k), s->bridge, traces[i].pin);
		bpf_link__destroy(k); /* the pin holds it */
		if (err)
			return err;
	}
	if (!fdb_trace)
		for (i = 0; i < ARRAY_SIZE(traces); i++)
			if (traces[i].fdb)
				xn_pin_unlink(s->bridge, traces[i].pin);
	return 0;
}

/* s's datapath object, opened on s's pinned maps, with only the programs
 * whose names start with prefix (all of it when exact is 0) to load. */
static struct bpf_object *state_object(const struct xn_state *s,
				       const char *prefix, int exact)
{
	DECLARE_LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "xdpnet");
	struct bpf_object *obj;
	struct bpf_program *p;
	const void *bytes;
	unsigned int i;
	size_t n;
	int err = 0;

	bytes = s->meta.live ? xdpnet_live_bpf__elf_bytes(&n)
			     : xdpnet_bpf__elf_bytes(&n);
	obj = bpf_object__open_mem(bytes, n, &oo);
	if (!obj)
		return NULL;
	for (i = 0; i < XM_N && !err; i++) {
		struct bpf_map *m = obj_map(obj, i);

		/* A map an older build did not pin: this program's own. (Not
		 * the generation and the cache: a private pair would never
		 * see a bump. This build's loads pin both.) */
		if (m && s->fd[i] < 0 && i >= XM_REQUIRED && i != XM_RT &&
		    i != XM_FLOWS)
			continue;
		err = m && s->fd[i] >= 0 ? bpf_map__reuse_fd(m, s->fd[i])
					 : -ENOENT;
	}
	bpf_object__for_each_program(p, obj)
	{
		const char *name = bpf_program__name(p);

		bpf_program__set_autoload(p, exact ? !strcmp(name, prefix)
						   : !strncmp(name, prefix,
							      strlen(prefix)));
	}
	if (err) {
		bpf_object__close(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

struct bpf_object *xn_xdp_object(const struct xn_state *s, const char *prog)
{
	return state_object(s, prog, 1);
}

struct bpf_object *xn_trace_object(const struct xn_state *s)
{
	return state_object(s, "xdpnet_trace_", 0);
}

/* A size asked for that the entries pinned now would not fit in: 1 after a
 * one-line error. (Carried over, they would be dropped.) */
static int sizes_refuse(const struct xn_bridge *bridge, const struct xn_load *l)
{
	unsigned int k;

	for (k = 0; k < XN_SIZE_N; k++) {
		int fd, n;

		if (!l->size[k])
			continue;
		fd = xn_pin_get(bridge, xn_map_pin(xn_sizes[k].map));
		if (fd < 0)
			continue;
		n = xn_map_count_keys(fd);
		close(fd);
		if (n > 0 && (__u32)n > l->size[k]) {
			xn_err("--%s %u is below the %d %s xdpnet's copy of %s "
			       "holds now: give at least %d (a copy never "
			       "drops an entry), or detach first",
			       xn_sizes[k].opt, l->size[k], n, xn_sizes[k].what,
			       bridge->name, n);
			return 1;
		}
	}
	return 0;
}

int xn_state_load(struct xn_state *s, struct xn_load *l)
{
	struct load_ctx c = {};
	struct xdpnet_meta old;
	enum variant v;
	char dir[256];
	unsigned int i;
	__u32 abi;
	int err;

	l->fresh = xn_meta_read(s->bridge, &old, &abi) == -ENOENT;
	if (!l->fresh && abi)
		return xn_pinned_refuse(s->bridge, XN_PINNED_LAYOUT);
	if (xn_pin_mkdir(s->bridge, dir, sizeof(dir)))
		return -XN_FAILED;
	if (!l->fresh && sizes_refuse(s->bridge, l))
		return -XN_FAILED;
	/* XDPNET_DATAPATH=portable: tests run the portable datapath where
	 * the live one would load. */
	v = getenv("XDPNET_DATAPATH") &&
			    !strcmp(getenv("XDPNET_DATAPATH"), "portable")
		    ? V_MAP
		    : V_LIVE;
	for (; v < V_N; v++) {
		err = try_load(s, v, &c, l);
		if (err == -EPROTO) {
			load_ctx_free(&c);
			xn_err("the counters pinned in %s have a layout this "
			       "build cannot carry over; run 'xdpnet detach "
			       "%s', then attach again (counters restart)",
			       dir, s->bridge->name);
			return -XN_FAILED;
		}
		if (!err)
			break;
		load_ctx_free(&c);
	}
	if (v == V_N) {
		xn_err("the kernel refused the BPF programs; needs BPF, BTF and "
		       "tc/XDP support (-vv shows the verifier log)");
		return -XN_BPF_REFUSED;
	}
	l->remade = 0;
	err = 0;
	for (i = 0; i < XM_N && !err; i++) {
		struct bpf_map *m = obj_map(c.obj, i);

		if (c.reuse[i])
			continue;
		if (i == XM_STATS && c.pinned[i] >= 0) {
			err = stats_migrate(c.pinned[i], bpf_map__fd(m),
					    xn_map_value_size(c.pinned[i]));
			xn_info("  counters carried over to a new layout");
		}
		if (xn_size_of_map(i) && c.pinned[i] >= 0 &&
		    layout_fits(c.pinned[i], m, 0)) {
			int n = map_carry(c.pinned[i], bpf_map__fd(m),
					  bpf_map__key_size(m),
					  bpf_map__value_size(m));

			xn_info("  %s: room for %u instead of %u, %d carried "
				"over",
				xn_size_of_map(i)->what,
				bpf_map__max_entries(m),
				xn_map_max_entries(c.pinned[i]), n);
		}
		if (c.pinned[i] >= 0 && i != XM_FLOWS)
			l->remade = 1;
		if (!err)
			err = xn_pin_replace(bpf_map__fd(m), s->bridge,
					     xn_map_pin(i));
	}
	for (i = 0; i < XN_PROGS && !err; i++)
		err = xn_pin_replace(
			bpf_program__fd(bpf_object__find_program_by_name(
				c.obj, xn_prog_pins[i].prog)),
			s->bridge, xn_prog_pins[i].pin);
	if (!err)
		err = attach_traces(s, c.obj, l->fdb_trace);
	/* The dispatchers' program is of the old programs and maps. */
	xn_pin_unlink(s->bridge, XN_PIN_XDP_MULTI);
	if (err) {
		xn_err("cannot pin under %s: %s", dir, strerror(-err));
		load_ctx_free(&c);
		return -XN_FAILED;
	}
	load_ctx_free(&c);

	snprintf(l->build, sizeof(l->build), "%s", xn_build_id());
	l->upgraded = !l->fresh && strcmp(old.build, l->build);
	/* Open what is pinned now (meta is not valid yet on a fresh load). */
	xn_state_close(s);
	xn_state_get(s);
	for (i = 0; i < XM_N; i++)
		err |= s->fd[i] < 0;
	for (i = 0; i < XN_PROGS; i++)
		err |= *xn_state_prog(s, i) < 0;
	if (err) {
		xn_state_close(s);
		xn_err("cannot open what was pinned under %s", dir);
		return -XN_FAILED;
	}
	if (l->fresh) {
		memset(&s->meta, 0, sizeof(s->meta));
		s->meta.attached_at = time(NULL);
	} else {
		s->meta = old;
	}
	s->meta.abi = XDPNET_ABI;
	s->meta.bridge_ifindex = l->bridge_ifindex;
	s->meta.netns_ino = s->bridge->ns.ino;
	s->meta.live = l->live;
	s->meta.fdb_trace = l->fdb_trace;
	/* The build id goes in with the rest of meta, by the caller, once
	 * the ports are reconciled: until then this load is redone. */
	return 0;
}
