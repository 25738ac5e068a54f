// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The datapath's maps as a test sets them: settings, ports by slot,
 * ifindex -> slot, XDP targets, the FDB mirror and its static part, VLANs,
 * and the per-slot counters it reads back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include "harness.h"

/* clang-format off */
const __u8 xt_macs[XT_NR_MACS][ETH_ALEN] = {
	[M_A] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0a },
	[M_A2] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0xa2 },
	[M_B] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0b },
	[M_C] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0c },
	[M_D] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0d },
	[M_E] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x0e },
	[M_GONE] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x99 },
	[M_LOCAL] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x01 }, /* env.c */
	[M_A_OWN] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0xaa }, /* env.c */
	[M_STATIC_B] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0xb5 },
	[M_LOCKED_B] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0xb1 },
	[M_X] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x55 },
	[M_UNKNOWN] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x77 },
	[M_NEW] = { 0x02, 0x00, 0x5e, 0x10, 0x00, 0x88 },
	[M_BCAST] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	[M_MCAST4] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb },
	[M_MCAST6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
	[M_ZERO] = { 0 },
};
/* clang-format on */

static const char *const ctr_names[XDPNET_C_MAX] = {
	[XDPNET_C_XDP_REDIRECT] = "XDP_REDIRECT",
	[XDPNET_C_TC_REDIRECT] = "TC_REDIRECT",
	[XDPNET_C_RX_REDIRECTED] = "RX_REDIRECTED",
	[XDPNET_C_PASS_MCAST] = "PASS_MCAST",
	[XDPNET_C_PASS_UNKNOWN] = "PASS_UNKNOWN",
	[XDPNET_C_PASS_LOCAL] = "PASS_LOCAL",
	[XDPNET_C_PASS_HAIRPIN] = "PASS_HAIRPIN",
	[XDPNET_C_PASS_NOT_ATTACHED] = "PASS_NOT_ATTACHED",
	[XDPNET_C_PASS_VLAN] = "PASS_VLAN",
	[XDPNET_C_PASS_ISOLATED] = "PASS_ISOLATED",
	[XDPNET_C_PASS_REFRESH] = "PASS_REFRESH",
	[XDPNET_C_PASS_SRC] = "PASS_SRC",
	[XDPNET_C_PASS_STATE] = "PASS_STATE",
	[XDPNET_C_PASS_MTU] = "PASS_MTU",
	[XDPNET_C_PASS_HUB] = "PASS_HUB",
	[XDPNET_C_PASS_MALFORMED] = "PASS_MALFORMED",
	[XDPNET_C_XDP_DEFER_CSUM] = "XDP_DEFER_CSUM",
	[XDPNET_C_XDP_DEFER_SIZE] = "XDP_DEFER_SIZE",
	[XDPNET_C_XDP_DEFER_TARGET] = "XDP_DEFER_TARGET",
	[XDPNET_C_XDP_DEFER_PROTO] = "XDP_DEFER_PROTO",
	[XDPNET_C_XDP_DEFER_REFRESH] = "XDP_DEFER_REFRESH",
	[XDPNET_C_DROP_REDIRECT_ERR] = "DROP_REDIRECT_ERR",
	[XDPNET_C_DROP_XMIT_ERR] = "DROP_XMIT_ERR",
	[XDPNET_C_XDP_DEFER_UDP0] = "XDP_DEFER_UDP0",
	[XDPNET_C_PASS_NF] = "PASS_NF",
};

const char *xt_ctr_name(int c)
{
	if (c == NO_CTR)
		return "none";
	if (c < 0 || c >= XDPNET_C_MAX || !ctr_names[c])
		return "?";
	return ctr_names[c];
}

int xt_port_of_slot(__u32 slot)
{
	int p;

	for (p = 0; slot && p < XT_NR_PORTS; p++)
		if (xt_ports[p].slot == slot)
			return p;
	return P_NONE;
}

static int fd(enum xt_map m)
{
	return xt_b->map[m];
}

__u32 xt_jiffies(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);

	if (bpf_prog_test_run_opts(xt_b->jiffies, &o))
		return 0;
	return o.retval;
}

/* The generation (include/xdpnet.h, struct xdpnet_rt), bumped as user
 * space does after each change to the maps: without it, decisions cached
 * before a test's change would stand (prog_tests/cache.c shows it). */
bool xt_bump(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);

	return CHECK(!bpf_prog_test_run_opts(xt_b->bump, &o),
		     "cannot bump the generation: %s", strerror(errno));
}

__u32 xt_gen(void)
{
	struct xdpnet_rt rt = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(fd(XT_M_RT), &zero, &rt);
	return rt.gen;
}

/* A mappable array (the decision cache) in one go: its memory. */
static bool mmap_digest(int mfd, const struct bpf_map_info *info, __u64 *h)
{
	size_t len = (size_t)info->value_size * info->max_entries, i;
	const __u64 *w;

	w = mmap(NULL, len, PROT_READ, MAP_SHARED, mfd, 0);
	if (!CHECK(w != MAP_FAILED, "cannot map %s: %s", info->name,
		   strerror(errno)))
		return false;
	for (i = 0; i < len / 8; i++)
		*h = (*h ^ w[i]) * 0x100000001b3ULL;
	munmap((void *)w, len);
	return true;
}

/* FNV-1a over every key and value of one map. */
static bool map_digest(int mfd, __u64 *h)
{
	static __u8 key[64], next[64], val[65536];
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	size_t vlen, i;
	void *prev = NULL;

	if (!CHECK(!bpf_obj_get_info_by_fd(mfd, &info, &ilen), "map info: %s",
		   strerror(errno)))
		return false;
	if (info.map_flags & BPF_F_MMAPABLE)
		return mmap_digest(mfd, &info, h);
	vlen = info.value_size;
	if (info.type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	    info.type == BPF_MAP_TYPE_PERCPU_HASH)
		vlen = ((vlen + 7) & ~7UL) * xt_env.nr_cpus;
	if (!CHECK(info.key_size <= sizeof(key) && vlen <= sizeof(val),
		   "map %s too large to digest", info.name))
		return false;
	while (!bpf_map_get_next_key(mfd, prev, next)) {
		memcpy(key, next, info.key_size);
		prev = key;
		if (bpf_map_lookup_elem(mfd, key, val))
			continue;
		for (i = 0; i < info.key_size; i++)
			*h = (*h ^ key[i]) * 0x100000001b3ULL;
		for (i = 0; i < vlen; i++)
			*h = (*h ^ val[i]) * 0x100000001b3ULL;
	}
	return true;
}

bool xt_maps_digest(__u64 *h)
{
	int m;

	*h = 0xcbf29ce484222325ULL;
	for (m = 0; m < XT_NR_MAPS; m++)
		if (m != XT_M_STATS && m != XT_M_TRACE_OUT && m != XT_M_KDEV &&
		    !map_digest(fd(m), h))
			return false;
	return true;
}

bool xt_map_clear(enum xt_map m)
{
	__u8 key[64];

	while (!bpf_map_get_next_key(fd(m), NULL, key))
		if (!CHECK(!bpf_map_delete_elem(fd(m), key),
			   "cannot empty a map: %s", strerror(errno)))
			return false;
	return xt_bump();
}

static __u32 slot_of(int port)
{
	return port >= 0 && port < XT_NR_PORTS ? xt_ports[port].slot : 0;
}

bool xt_cfg_get(struct xdpnet_cfg *c)
{
	__u32 zero = 0;

	return CHECK(!bpf_map_lookup_elem(fd(XT_M_CFG), &zero, c),
		     "cannot read cfg: %s", strerror(errno));
}

bool xt_cfg_put(const struct xdpnet_cfg *c)
{
	__u32 zero = 0;

	return CHECK(!bpf_map_update_elem(fd(XT_M_CFG), &zero, c, BPF_ANY),
		     "cannot write cfg: %s", strerror(errno)) &&
	       xt_bump();
}

bool xt_refresh_every(__u32 r)
{
	struct xdpnet_cfg c;

	if (!xt_cfg_get(&c))
		return false;
	c.refresh_j = r;
	return xt_cfg_put(&c);
}

bool xt_port_get(int port, struct xdpnet_port *v)
{
	__u32 slot = slot_of(port);

	return CHECK(slot && !bpf_map_lookup_elem(fd(XT_M_PORTS), &slot, v),
		     "port %s has no slot", xt_port_name(port));
}

bool xt_port_put(int port, const struct xdpnet_port *v)
{
	__u32 slot = slot_of(port);

	return CHECK(slot && !bpf_map_update_elem(fd(XT_M_PORTS), &slot, v,
						  BPF_ANY),
		     "cannot write port %s: %s", xt_port_name(port),
		     strerror(errno)) &&
	       xt_bump();
}

bool xt_port_flags(int port, __u32 set, __u32 clear)
{
	struct xdpnet_port v;

	if (!xt_port_get(port, &v))
		return false;
	v.flags = (v.flags | set) & ~clear;
	xt_kwant[port].learning = v.flags & XDPNET_PORT_LEARNING;
	xt_kwant[port].isolated = v.flags & XDPNET_PORT_ISOLATED;
	xt_kwant[port].locked = v.flags & XDPNET_PORT_LOCKED;
	return xt_port_put(port, &v);
}

bool xt_vlan_flags(int port, __u16 vid, __u32 set)
{
	struct xdpnet_vlan_key k = { .ifindex = xt_ifindex(port), .vid = vid };
	struct xdpnet_vlan_val v;

	if (!CHECK(!bpf_map_lookup_elem(fd(XT_M_VLANS), &k, &v),
		   "port %s has no entry for VLAN %u", xt_port_name(port), vid))
		return false;
	v.flags |= set;
	return CHECK(!bpf_map_update_elem(fd(XT_M_VLANS), &k, &v, BPF_EXIST),
		     "cannot write vlans: %s", strerror(errno)) &&
	       xt_bump();
}

bool xt_tx_del(int port)
{
	__u32 slot = slot_of(port);

	return CHECK(!bpf_map_delete_elem(fd(XT_M_TX), &slot),
		     "cannot delete port %s from tx_ports: %s",
		     xt_port_name(port), strerror(errno)) &&
	       xt_bump();
}

static int fdb_map_for(__u32 flags)
{
	return flags & (XDPNET_FDB_STATIC | XDPNET_FDB_LOCAL)
		       ? fd(XT_M_FDB_STATIC)
		       : fd(XT_M_FDB);
}

bool xt_fdb_put(enum xt_mac mac, __u16 vid, int port, __u32 flags,
		__u32 bridge_j)
{
	struct xdpnet_fdb_key k = { .vid = vid };
	struct xdpnet_fdb_val v = {
		.ifindex = xt_ifindex(port),
		.slot = slot_of(port),
		.gen = XT_PORT_GEN,
		.flags = flags,
		.bridge_j = bridge_j,
	};

	memcpy(k.mac, xt_macs[mac], ETH_ALEN);
	return CHECK(!bpf_map_update_elem(fdb_map_for(flags), &k, &v, BPF_ANY),
		     "cannot write an FDB entry: %s", strerror(errno)) &&
	       xt_bump();
}

bool xt_fdb_get_raw(int map, const __u8 *mac, __u16 vid,
		    struct xdpnet_fdb_val *v)
{
	struct xdpnet_fdb_key k = { .vid = vid };

	memcpy(k.mac, mac, ETH_ALEN);
	return !bpf_map_lookup_elem(map, &k, v);
}

bool xt_fdb_get(enum xt_mac mac, __u16 vid, struct xdpnet_fdb_val *v)
{
	return xt_fdb_get_raw(fd(XT_M_FDB), xt_macs[mac], vid, v) ||
	       xt_fdb_get_raw(fd(XT_M_FDB_STATIC), xt_macs[mac], vid, v);
}

bool xt_fdb_set_hint(enum xt_mac mac, __u16 vid, __u16 slot, __u16 gen)
{
	struct xdpnet_fdb_key k = { .vid = vid };
	struct xdpnet_fdb_val v;
	int map = fd(XT_M_FDB);

	memcpy(k.mac, xt_macs[mac], ETH_ALEN);
	if (bpf_map_lookup_elem(map, &k, &v)) {
		map = fd(XT_M_FDB_STATIC);
		if (!CHECK(!bpf_map_lookup_elem(map, &k, &v),
			   "no FDB entry to change"))
			return false;
	}
	v.slot = slot;
	v.gen = gen;
	return CHECK(!bpf_map_update_elem(map, &k, &v, BPF_EXIST),
		     "cannot write an FDB entry: %s", strerror(errno)) &&
	       xt_bump();
}

bool xt_fdb_del(enum xt_mac mac, __u16 vid)
{
	struct xdpnet_fdb_key k = { .vid = vid };

	bool gone;

	memcpy(k.mac, xt_macs[mac], ETH_ALEN);
	gone = !bpf_map_delete_elem(fd(XT_M_FDB), &k) ||
	       !bpf_map_delete_elem(fd(XT_M_FDB_STATIC), &k);
	return xt_bump() && gone;
}

__u64 xt_fdb_ev(enum xdpnet_fdb_ev ev)
{
	__u64 v[64] = {}, sum = 0;
	__u32 key = ev;
	int c;

	if (xt_env.nr_cpus > 64 ||
	    bpf_map_lookup_elem(fd(XT_M_FDB_EV), &key, v))
		return ~0ULL;
	for (c = 0; c < xt_env.nr_cpus; c++)
		sum += v[c];
	return sum;
}

static size_t percpu_size(void)
{
	return (sizeof(struct xdpnet_stats) + 7) / 8 * 8;
}

bool xt_snap(struct xt_snap *s)
{
	static void *buf;
	__u32 slot;
	int cpu, c;

	if (!buf)
		buf = calloc(xt_env.nr_cpus, percpu_size());
	if (!CHECK(buf, "out of memory"))
		return false;
	memset(s, 0, sizeof(*s));
	for (slot = 0; slot < XT_SLOTS; slot++) {
		if (!CHECK(!bpf_map_lookup_elem(fd(XT_M_STATS), &slot, buf),
			   "cannot read the counters: %s", strerror(errno)))
			return false;
		for (cpu = 0; cpu < xt_env.nr_cpus; cpu++) {
			const struct xdpnet_stats *st =
				(void *)((char *)buf + cpu * percpu_size());

			for (c = 0; c < XDPNET_C_MAX; c++) {
				s->c[slot][c].packets += st->c[c].packets;
				s->c[slot][c].bytes += st->c[c].bytes;
			}
		}
	}
	return true;
}

bool xt_stats_zero(void)
{
	static void *zero;
	__u32 slot;

	if (!zero)
		zero = calloc(xt_env.nr_cpus, percpu_size());
	for (slot = 0; slot < XT_SLOTS; slot++)
		if (!CHECK(zero && !bpf_map_update_elem(fd(XT_M_STATS), &slot,
							zero, BPF_ANY),
			   "cannot zero the counters"))
			return false;
	return true;
}

bool xt_maps_reset(const struct xt_settings *s, const struct xt_topology *t)
{
	struct xdpnet_cfg cfg = {
		.bridge_ifindex = xt_env.bridge_ifindex,
		.port_gen = XT_PORT_GEN,
		.vlan_filtering = s->vlan_filtering,
		.bypass = !s->hub,
		.netns_ino = xt_env.netns_ino,
		.refresh_j = 1U << 30, /* never due unless a row says so */
		.hz = 250,
	};
	struct xdpnet_port zero = {};
	__u32 slot, now;
	size_t i;
	int p;

	/* No port's device known: the live build reads the egress port
	 * from the maps until a frame comes in through it. */
	if (fd(XT_M_KDEV) >= 0) {
		static const struct xdpnet_kport none[XDPNET_MAX_PORTS];
		__u32 zero = 0;

		if (!CHECK(!bpf_map_update_elem(fd(XT_M_KDEV), &zero, none,
						BPF_ANY),
			   "cannot clear .data.kdev: %s", strerror(errno)))
			return false;
	}
	if (!xt_cfg_put(&cfg) || !xt_map_clear(XT_M_PORT_IDX) ||
	    !xt_map_clear(XT_M_FDB) || !xt_map_clear(XT_M_FDB_STATIC) ||
	    !xt_map_clear(XT_M_VLANS) || !xt_stats_zero())
		return false;
	for (slot = 0; slot < XT_SLOTS; slot++) {
		if (!CHECK(!bpf_map_update_elem(fd(XT_M_PORTS), &slot, &zero,
						BPF_ANY),
			   "cannot write ports"))
			return false;
		bpf_map_delete_elem(fd(XT_M_TX), &slot);
	}
	for (p = 0; p < XT_NR_PORTS; p++) {
		const struct xt_port_def *d = &xt_ports[p];
		struct xdpnet_port v = {
			.ifindex = xt_env.ifindex[p],
			.flags = d->flags,
			.mtu = d->mtu,
			.pvid = t->pvid[p],
		};
		struct bpf_devmap_val dv = { .ifindex = v.ifindex };

		xt_kwant_promisc = false;
		xt_kwant_mtu[p] = 0;
		xt_kwant[p] = (struct xt_kport){
			.master = true,
			.state = 3,
			.learning = !d->slot ||
				    (d->flags & XDPNET_PORT_LEARNING),
			.isolated = d->flags & XDPNET_PORT_ISOLATED,
			.locked = d->flags & XDPNET_PORT_LOCKED,
		};
		if (!d->slot)
			continue;
		slot = d->slot;
		if (!xt_port_put(p, &v) ||
		    !CHECK(!bpf_map_update_elem(fd(XT_M_PORT_IDX), &v.ifindex,
						&slot, BPF_ANY),
			   "cannot write port_idx"))
			return false;
		if ((d->flags & XDPNET_PORT_XDP_TARGET) &&
		    !CHECK(!bpf_map_update_elem(fd(XT_M_TX), &slot, &dv,
						BPF_ANY),
			   "cannot write tx_ports: %s", strerror(errno)))
			return false;
	}
	now = xt_jiffies();
	for (i = 0; i < t->nr_fdb; i++)
		if (!xt_fdb_put(t->fdb[i].mac, t->fdb[i].vid, t->fdb[i].port,
				t->fdb[i].flags, now))
			return false;
	for (i = 0; i < t->nr_vlans; i++) {
		struct xdpnet_vlan_key k = {
			.ifindex = xt_ifindex(t->vlans[i].port),
			.vid = t->vlans[i].vid,
		};
		struct xdpnet_vlan_val v = { .flags = t->vlans[i].flags };

		if (!CHECK(!bpf_map_update_elem(fd(XT_M_VLANS), &k, &v,
						BPF_ANY),
			   "cannot write vlans"))
			return false;
	}
	return xt_bump();
}
