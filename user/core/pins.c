// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pinned state of an attached bridge, and loading this build's programs
 * into it.
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
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "xdpnet.skel.h"
#include "xdpnet_live.skel.h"
#include "lib/util.h"
#include "core/pins.h"

static const char *const map_pins[XM_N] = {
	[XM_CFG] = "cfg",	    [XM_META] = "meta",
	[XM_FDB] = "fdb",	    [XM_FDB_STATIC] = "fdb_static",
	[XM_FDB_EV] = "fdb_ev",	    [XM_PORTS] = "ports",
	[XM_PORT_IDX] = "port_idx", [XM_VLANS] = "vlans",
	[XM_TX] = "tx_ports",	    [XM_STATS] = "stats",
	[XM_LAT_CTL] = "lat_ctl",   [XM_LAT_CPU] = "lat_cpu",
};

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
#define N_TRACES (sizeof(traces) / sizeof(traces[0]))

const char *xn_map_pin(enum xn_map_id id)
{
	return id < XM_N ? map_pins[id] : NULL;
}

int xn_pin_exists(const char *bridge, const char *leaf)
{
	char path[256];

	return !xn_pin_path(path, sizeof(path), bridge, leaf) &&
	       !access(path, F_OK);
}

int xn_pin_obj(int fd, const char *bridge, const char *leaf)
{
	char path[256];

	if (xn_pin_path(path, sizeof(path), bridge, leaf))
		return -ENAMETOOLONG;
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

void xn_pin_unlink(const char *bridge, const char *leaf)
{
	char path[256];

	if (!xn_pin_path(path, sizeof(path), bridge, leaf))
		unlink(path);
}

/* Pin fd as leaf, atomically replacing whatever is pinned there. */
static int pin_replace(int fd, const char *bridge, const char *leaf)
{
	char tmp[64], a[256], b[256];
	int err;

	snprintf(tmp, sizeof(tmp), "new_%s", leaf);
	xn_pin_unlink(bridge, tmp);
	err = xn_pin_obj(fd, bridge, tmp);
	if (err)
		return err;
	if (xn_pin_path(a, sizeof(a), bridge, tmp) ||
	    xn_pin_path(b, sizeof(b), bridge, leaf) || rename(a, b)) {
		err = -errno;
		xn_pin_unlink(bridge, tmp);
		return err;
	}
	return 0;
}

void xn_state_init(struct xn_state *s, const char *bridge)
{
	char name[IF_NAMESIZE];
	int i;

	snprintf(name, sizeof(name), "%s", bridge); /* may be s->bridge */
	memset(s, 0, sizeof(*s));
	memcpy(s->bridge, name, sizeof(name));
	for (i = 0; i < XM_N; i++)
		s->fd[i] = -1;
	s->prog_tc = s->prog_xdp = s->prog_jiffies = -1;
}

void xn_state_close(struct xn_state *s)
{
	int i;

	for (i = 0; i < XM_N; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	if (s->prog_tc >= 0)
		close(s->prog_tc);
	if (s->prog_xdp >= 0)
		close(s->prog_xdp);
	if (s->prog_jiffies >= 0)
		close(s->prog_jiffies);
	for (i = 0; i < XM_N; i++)
		s->fd[i] = -1;
	s->prog_tc = s->prog_xdp = s->prog_jiffies = -1;
}

static __u32 map_value_size(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.value_size;
}

/* The meta of a pinned state: 0, -ENOENT (none, or never written),
 * -EPROTO (another layout: *abi says which, 1 for xdpnet 0.1). */
static int meta_read(const char *bridge, struct xdpnet_meta *m, __u32 *abi)
{
	int fd = xn_pin_get(bridge, "meta"), err = 0;
	__u32 zero = 0, vs;

	*abi = 0;
	if (fd < 0)
		return -ENOENT;
	vs = map_value_size(fd);
	memset(m, 0, sizeof(*m));
	if (vs != sizeof(*m)) {
		*abi = 1; /* xdpnet 0.1: a 48-byte meta without abi */
		err = -EPROTO;
	} else if (bpf_map_lookup_elem(fd, &zero, m) || !m->abi) {
		/* A zeroed meta: an attach that died before it wrote it
		 * (meta is written last); nothing was committed. */
		err = -ENOENT;
	} else if (m->abi != XDPNET_ABI) {
		*abi = m->abi;
		err = -EPROTO;
	}
	close(fd);
	return err;
}

/* A name xdpnet pins under a bridge's directory (or renames into one). */
static int pin_is_ours(const char *name)
{
	static const char *const prefix[] = { "prog_", "trace_", "lat_",
					      "xdp_",  "tc_",	 "." };
	unsigned int i;

	for (i = 0; i < XM_N; i++)
		if (map_pins[i] &&
		    !strncmp(name, map_pins[i], strlen(map_pins[i])))
			return 1;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* Without a meta: XN_PINNED_NONE (nothing), _HALF (only names of ours)
 * or _FOREIGN (*foreign, when given, names the first stranger). */
static enum xn_pinned pins_scan(const char *bridge, char *foreign, size_t n)
{
	enum xn_pinned p = XN_PINNED_NONE;
	struct dirent *de;
	char dir[256];
	DIR *d;

	if (xn_pin_path(dir, sizeof(dir), bridge, NULL))
		return p;
	d = opendir(dir);
	if (!d)
		return p;
	while ((de = readdir(d)) && p != XN_PINNED_FOREIGN) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = XN_PINNED_HALF;
		if (!pin_is_ours(de->d_name)) {
			p = XN_PINNED_FOREIGN;
			if (foreign)
				snprintf(foreign, n, "%s", de->d_name);
		}
	}
	closedir(d);
	return p;
}

enum xn_pinned xn_pinned(const char *bridge)
{
	struct xdpnet_meta m;
	__u32 abi;
	int err;

	err = meta_read(bridge, &m, &abi);
	if (!err)
		return m.netns_ino && m.netns_ino != xn_netns_ino()
			       ? XN_PINNED_OTHER_NS
			       : XN_PINNED_OURS;
	if (err == -EPROTO)
		return XN_PINNED_LAYOUT;
	return pins_scan(bridge, NULL, 0);
}

int xn_pinned_refuse(const char *bridge, enum xn_pinned p)
{
	char dir[256], foreign[256] = "?";
	struct xdpnet_meta m;
	__u32 abi = 0;

	xn_pin_path(dir, sizeof(dir), bridge, NULL);
	if (p == XN_PINNED_OTHER_NS) {
		xn_err("%s belongs to a bridge named %s in another network "
		       "namespace; use it from there",
		       dir, bridge);
	} else if (p == XN_PINNED_LAYOUT) {
		meta_read(bridge, &m, &abi);
		xn_err("%s holds state of another xdpnet version (layout %u, "
		       "this one reads %u); run 'xdpnet detach %s', then "
		       "attach again",
		       dir, abi, XDPNET_ABI, bridge);
	} else {
		pins_scan(bridge, foreign, sizeof(foreign));
		xn_err("%s holds pins xdpnet does not make (%s): remove "
		       "them, or give the bridge another name",
		       dir, foreign);
	}
	return XN_ERR;
}

int xn_state_open(struct xn_state *s, const char *bridge)
{
	__u32 abi;
	int i, err;

	xn_state_init(s, bridge);
	err = meta_read(bridge, &s->meta, &abi);
	if (err == -ENOENT)
		return XN_ENOTATTACHED;
	if (err == -EPROTO)
		return xn_pinned_refuse(bridge, XN_PINNED_LAYOUT);
	if (s->meta.netns_ino && s->meta.netns_ino != xn_netns_ino())
		return XN_ENOTATTACHED;
	for (i = 0; i < XM_N; i++) {
		s->fd[i] = xn_pin_get(bridge, map_pins[i]);
		if (s->fd[i] < 0) {
			s->fd[i] = -1;
			xn_state_close(s);
			return XN_ENOTATTACHED;
		}
	}
	s->prog_tc = xn_pin_get(bridge, "prog_tc");
	s->prog_xdp = xn_pin_get(bridge, "prog_xdp");
	s->prog_jiffies = xn_pin_get(bridge, "prog_jiffies");
	if (s->prog_tc < 0 || s->prog_xdp < 0 || s->prog_jiffies < 0) {
		xn_state_close(s);
		return XN_ENOTATTACHED;
	}
	return 0;
}

int xn_cfg_read(const struct xn_state *s, struct xdpnet_cfg *c)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(s->fd[XM_CFG], &zero, c) ? -errno : 0;
}

int xn_cfg_write(const struct xn_state *s, const struct xdpnet_cfg *c)
{
	__u32 zero = 0;

	return bpf_map_update_elem(s->fd[XM_CFG], &zero, c, 0) ? -errno : 0;
}

int xn_meta_write(const struct xn_state *s)
{
	__u32 zero = 0;

	return bpf_map_update_elem(s->fd[XM_META], &zero, &s->meta, 0) ? -errno
								       : 0;
}

int xn_jiffies(const struct xn_state *s, __u32 *j)
{
	DECLARE_LIBBPF_OPTS(bpf_test_run_opts, o);

	if (bpf_prog_test_run_opts(s->prog_jiffies, &o))
		return -errno;
	*j = o.retval;
	return 0;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__u32 xn_measure_hz(const struct xn_state *s)
{
	static const __u32 known[] = { 100, 250, 300, 1000 };
	struct timespec d = { 0, 100 * 1000 * 1000 };
	__u32 j0 = 0, j1 = 0, best = 0;
	double t0, t1, hz;
	unsigned int i;

	t0 = mono_s();
	if (xn_jiffies(s, &j0))
		return 0;
	nanosleep(&d, NULL);
	t1 = mono_s();
	if (xn_jiffies(s, &j1) || t1 <= t0)
		return 0;
	hz = (__u32)(j1 - j0) / (t1 - t0);
	/* Within a jiffy of 100 ms: the nearest value Linux allows. */
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!best || (hz > known[i] ? hz - known[i] : known[i] - hz) <
				     (hz > best ? hz - best : best - hz))
			best = known[i];
	xn_debug("jiffies: %.0f per second measured, HZ=%u", hz, best);
	return best;
}

/* ----------------------------------------------------------- build id */

static void fnv(__u64 *h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		*h = (*h ^ *c++) * 0x100000001b3ULL;
}

const char *xn_build_id(void)
{
	static char id[32];
	__u64 h = 0xcbf29ce484222325ULL;
	const void *b;
	size_t n;

	if (id[0])
		return id;
	b = xdpnet_bpf__elf_bytes(&n);
	fnv(&h, b, n);
	b = xdpnet_live_bpf__elf_bytes(&n);
	fnv(&h, b, n);
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

		if (id == XM_CFG ? (l >= 9 && !strcmp(n + l - 9, ".data.cfg"))
				 : !strcmp(n, map_pins[id]))
			return m;
	}
	return NULL;
}

/* Does a pinned map have the layout this build's map has? */
static int map_fits(int fd, const struct bpf_map *m)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.type == bpf_map__type(m) &&
	       info.key_size == bpf_map__key_size(m) &&
	       info.value_size == bpf_map__value_size(m) &&
	       info.max_entries == bpf_map__max_entries(m) &&
	       info.map_flags == bpf_map__map_flags(m);
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
		c->pinned[i] = xn_pin_get(s->bridge, map_pins[i]);
		if (c->pinned[i] < 0) {
			c->pinned[i] = -1;
			continue;
		}
		if (map_fits(c->pinned[i], m)) {
			err = bpf_map__reuse_fd(m, c->pinned[i]);
			if (err)
				return err;
			c->reuse[i] = 1;
		} else if (i == XM_STATS &&
			   !stats_migratable(c->pinned[i], m)) {
			return -EPROTO;
		}
	}
	if (v == V_MAP_NOTRACE)
		for (i = 0; i < N_TRACES; i++)
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

	for (i = 0; i < N_TRACES; i++) {
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
		err = pin_replace(bpf_link__fd(k), s->bridge, traces[i].pin);
		bpf_link__destroy(k); /* the pin holds it */
		if (err)
			return err;
	}
	if (!fdb_trace)
		for (i = 0; i < N_TRACES; i++)
			if (traces[i].fdb)
				xn_pin_unlink(s->bridge, traces[i].pin);
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

	l->fresh = meta_read(s->bridge, &old, &abi) == -ENOENT;
	if (!l->fresh && abi)
		return xn_pinned_refuse(s->bridge, XN_PINNED_LAYOUT);
	if (xn_pin_path(dir, sizeof(dir), s->bridge, NULL) ||
	    (mkdir(XDPNET_PIN_ROOT, 0700) && errno != EEXIST) ||
	    (mkdir(dir, 0700) && errno != EEXIST)) {
		xn_err("cannot create %s: %s", dir, strerror(errno));
		return XN_ERR;
	}
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
			       dir, s->bridge);
			return XN_ERR;
		}
		if (!err)
			break;
		load_ctx_free(&c);
	}
	if (v == V_N) {
		xn_err("the kernel refused the BPF programs; needs BPF, BTF and "
		       "tc/XDP support (-vv shows the verifier log)");
		return XN_ENOBPF;
	}
	l->remade = 0;
	err = 0;
	for (i = 0; i < XM_N && !err; i++) {
		struct bpf_map *m = obj_map(c.obj, i);

		if (c.reuse[i])
			continue;
		if (i == XM_STATS && c.pinned[i] >= 0) {
			err = stats_migrate(c.pinned[i], bpf_map__fd(m),
					    map_value_size(c.pinned[i]));
			xn_info("  counters carried over to a new layout");
		}
		if (c.pinned[i] >= 0)
			l->remade = 1;
		if (!err)
			err = pin_replace(bpf_map__fd(m), s->bridge,
					  map_pins[i]);
	}
	if (!err)
		err = pin_replace(
			bpf_program__fd(bpf_object__find_program_by_name(
				c.obj, "xdpnet_tc")),
			s->bridge, "prog_tc");
	if (!err)
		err = pin_replace(
			bpf_program__fd(bpf_object__find_program_by_name(
				c.obj, "xdpnet_xdp")),
			s->bridge, "prog_xdp");
	if (!err)
		err = pin_replace(
			bpf_program__fd(bpf_object__find_program_by_name(
				c.obj, "xdpnet_jiffies")),
			s->bridge, "prog_jiffies");
	if (!err)
		err = attach_traces(s, c.obj, l->fdb_trace);
	if (err) {
		xn_err("cannot pin under %s: %s", dir, strerror(-err));
		load_ctx_free(&c);
		return XN_ERR;
	}
	load_ctx_free(&c);

	snprintf(l->build, sizeof(l->build), "%s", xn_build_id());
	l->upgraded = !l->fresh && strcmp(old.build, l->build);
	/* Open what is pinned now (meta is not valid yet on a fresh load). */
	xn_state_close(s);
	xn_state_init(s, s->bridge);
	for (i = 0; i < XM_N; i++)
		s->fd[i] = xn_pin_get(s->bridge, map_pins[i]);
	s->prog_tc = xn_pin_get(s->bridge, "prog_tc");
	s->prog_xdp = xn_pin_get(s->bridge, "prog_xdp");
	s->prog_jiffies = xn_pin_get(s->bridge, "prog_jiffies");
	for (i = 0; i < XM_N; i++)
		if (s->fd[i] < 0)
			err = s->fd[i];
	if (err || s->prog_tc < 0 || s->prog_xdp < 0 || s->prog_jiffies < 0) {
		xn_state_close(s);
		xn_err("cannot open what was pinned under %s", dir);
		return XN_ERR;
	}
	if (l->fresh) {
		memset(&s->meta, 0, sizeof(s->meta));
		s->meta.attached_at = time(NULL);
	} else {
		s->meta = old;
	}
	s->meta.abi = XDPNET_ABI;
	s->meta.bridge_ifindex = l->bridge_ifindex;
	s->meta.netns_ino = xn_netns_ino();
	s->meta.live = l->live;
	s->meta.fdb_trace = l->fdb_trace;
	/* The build id goes in with the rest of meta, by the caller, once
	 * the ports are reconciled: until then this load is redone. */
	return 0;
}

void xn_state_remove(const char *bridge)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *d;
	int pass;

	if (xn_pin_path(dir, sizeof(dir), bridge, NULL))
		return;
	/* Links first (their hooks go), then everything else. */
	for (pass = 0; pass < 2; pass++) {
		d = opendir(dir);
		if (!d)
			return;
		while ((de = readdir(d))) {
			int link = !strncmp(de->d_name, "xdp_", 4) ||
				   !strncmp(de->d_name, "tc_", 3) ||
				   !strncmp(de->d_name, "trace_", 6) ||
				   !strncmp(de->d_name, "lat_", 4);

			if (de->d_name[0] == '.' || (pass == 0 && !link))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (link) {
				/* Detach even if somebody holds an fd. */
				int fd = bpf_obj_get(path);

				if (fd >= 0) {
					bpf_link_detach(fd); /* maps: no-op */
					close(fd);
				}
			}
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	rmdir(XDPNET_PIN_ROOT); /* only if empty */
}
