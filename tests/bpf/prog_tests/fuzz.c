// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fuzz run: random and mutated frames (runts, bogus EtherTypes,
 * stacked 802.1Q/802.1ad tags, truncated IPv4/IPv6/TCP/UDP headers, random
 * bytes, valid frames with one bit flipped) through both entry points,
 * each checked against the independent model (model.c) from the same map
 * contents: the return code, every counter of every slot, and the frame,
 * which must come back byte for byte unchanged unless the XDP stage
 * redirected it (it may complete a partial checksum in place, as the model
 * says).
 *
 * The run goes through four settings in turn (plain, VLAN filtering, hub,
 * ports held or locked, with the kernel's view of some ports differing
 * from the maps'). Frame i depends only on the seed and i: a failure is
 * reproduced with the same --seed and --fuzz.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "harness.h"
#include "model.h"

#define NR_PHASES 5
#define REFRESH_J 100000   /* jiffies: nothing becomes due during a run */
#define MAX_KINDS 16	   /* kinds of mismatch told apart */
#define REPORTS_PER_KIND 2 /* frames reported in full, per kind */

/* ---- a small deterministic generator (splitmix64) */

struct rng {
	__u64 s;
};

static __u64 next(struct rng *r)
{
	__u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u32 below(struct rng *r, __u32 n)
{
	return n ? next(r) % n : 0;
}

/* true with probability pct/100 */
static bool chance(struct rng *r, __u32 pct)
{
	return below(r, 100) < pct;
}

/* ---- the settings of each phase */

#define FWD XDPNET_PORT_FWD
#define LRN XDPNET_PORT_LEARNING
#define VETH XDPNET_PORT_VETH
#define TGT XDPNET_PORT_XDP_TARGET
#define ISO XDPNET_PORT_ISOLATED
#define LCK XDPNET_PORT_LOCKED

static const struct phase {
	const char *name;
	__u8 vlan_filtering, hub;
	__u32 flags[XT_NR_PORTS];
	struct xt_kport k[XT_NR_PORTS]; /* the kernel's view */
} phases[NR_PHASES] = {
	{ "plain",
	  0,
	  0,
	  { FWD | LRN | VETH | TGT, FWD | LRN | TGT,
	    FWD | LRN | VETH | TGT | ISO, FWD | VETH | ISO },
	  { { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 1, 0 },
	    { 1, 3, 0, 1, 0 },
	    { 1, 3, 1, 0, 0 } } },
	{ "vlan filtering",
	  1,
	  0,
	  { FWD | LRN | VETH | TGT, FWD | LRN | TGT, FWD | LRN | VETH | TGT,
	    FWD | VETH | TGT },
	  { { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 0, 0, 0 },
	    { 1, 3, 1, 0, 0 } } },
	{ "vlan filtering 802.1ad",
	  XDPNET_VF_8021AD,
	  0,
	  { FWD | LRN | VETH | TGT, FWD | LRN | TGT, FWD | LRN | VETH | TGT,
	    FWD | VETH | TGT },
	  { { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 0, 0, 0 },
	    { 1, 3, 1, 0, 0 } } },
	{ "hub",
	  0,
	  1,
	  { FWD | LRN | VETH | TGT, FWD | LRN | TGT, FWD | LRN | VETH | TGT,
	    FWD | VETH },
	  { { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 3, 0, 0, 0 },
	    { 1, 3, 1, 0, 0 } } },
	/* A locked; B held by user space (the kernel forwards); C
	 * listening in the kernel only; D learns in the map only and has
	 * left the bridge in the kernel. */
	{ "held",
	  0,
	  0,
	  { FWD | LRN | VETH | TGT | LCK, LRN | TGT, FWD | LRN | VETH | TGT,
	    FWD | LRN | VETH | TGT },
	  { { 1, 3, 1, 0, 1 },
	    { 1, 3, 1, 0, 0 },
	    { 1, 1, 1, 0, 0 },
	    { 0, 0, 0, 0, 0 },
	    { 1, 3, 1, 0, 0 } } },
};

/* VLAN membership in the VLAN phases: A, B untagged in 10 (pvid), tagged
 * in 20; C tagged in 10 and 20, pvid 30 (no member); D tagged in 20, and
 * tagged but not forwarding in 10. */
static const struct xt_vlan_def vlans[] = {
	{ P_A, 10, XDPNET_VLAN_UNTAGGED },
	{ P_A, 20, 0 },
	{ P_B, 10, XDPNET_VLAN_UNTAGGED },
	{ P_B, 20, 0 },
	{ P_D, 10, XDPNET_VLAN_HELD },
	{ P_C, 10, 0 },
	{ P_C, 20, 0 },
	{ P_D, 20, 0 },
};
static const __u16 pvids[XT_NR_PORTS] = { 10, 10, 30, 0, 10 };

/* ---- the FDB of a phase, and the MACs frames pick from */

static struct {
	__u8 mac[XM_FDB + 16][ETH_ALEN];
	int n;
} pool;

static void pool_add(const __u8 *mac)
{
	int i;

	for (i = 0; i < pool.n; i++)
		if (!memcmp(pool.mac[i], mac, ETH_ALEN))
			return;
	if (pool.n < (int)ARRAY_SIZE(pool.mac))
		memcpy(pool.mac[pool.n++], mac, ETH_ALEN);
}

static void fdb_add(struct xm_state *m, const __u8 *mac, __u16 vid,
		    __u32 ifindex, __u16 slot, __u16 gen, __u32 flags,
		    __u32 bridge_j)
{
	struct xm_fdb *e = &m->fdb[m->nr_fdb++];

	memcpy(e->key.mac, mac, ETH_ALEN);
	e->key.vid = vid;
	e->val = (struct xdpnet_fdb_val){ ifindex, slot, gen, flags, bridge_j };
	e->is_static = flags & (XDPNET_FDB_STATIC | XDPNET_FDB_LOCAL);
	pool_add(mac);
}

/* The model's maps for a phase: ports, devices, FDB, VLANs. */
static void build_state(struct xm_state *m, int ph, struct rng *r)
{
	const struct phase *p = &phases[ph];
	__u16 vids[2] = { 0, 0 };
	int nv = 1, port, i, v;
	__u32 now = xt_jiffies();

	memset(m, 0, sizeof(*m));
	pool.n = 0;
	m->live = xt_b->live;
	m->now = now;
	m->cfg = (struct xdpnet_cfg){
		.bridge_ifindex = xt_env.bridge_ifindex,
		.port_gen = XT_PORT_GEN,
		.vlan_filtering = p->vlan_filtering,
		.bypass = !p->hub,
		.netns_ino = xt_env.netns_ino,
		.refresh_j = REFRESH_J,
		.hz = 250,
	};
	if (p->vlan_filtering) {
		vids[0] = 10;
		vids[1] = 20;
		nv = 2;
	}
	for (port = 0; port < XT_NR_PORTS; port++) {
		const struct xt_port_def *d = &xt_ports[port];
		struct xm_dev *dev = &m->devs[m->nr_devs++];

		dev->ifindex = xt_env.ifindex[port];
		dev->mtu = d->mtu;
		dev->port = p->k[port].master;
		dev->fwd = p->k[port].state == 3;
		dev->learning = p->k[port].learning;
		dev->isolated = p->k[port].isolated;
		dev->locked = p->k[port].locked;
		if (!d->slot)
			continue;
		m->ports[d->slot] = (struct xdpnet_port){
			.ifindex = dev->ifindex,
			.flags = p->flags[port],
			.mtu = d->mtu,
			.pvid = p->vlan_filtering ? pvids[port] : 0,
		};
		m->port_idx[m->nr_port_idx][0] = dev->ifindex;
		m->port_idx[m->nr_port_idx++][1] = d->slot;
		m->tx[d->slot] = p->flags[port] & TGT;
	}
	if (p->vlan_filtering)
		for (i = 0; i < (int)ARRAY_SIZE(vlans); i++) {
			m->vlan_key[m->nr_vlans].ifindex =
				xt_ifindex(vlans[i].port);
			m->vlan_key[m->nr_vlans].vid = vlans[i].vid;
			m->vlan_flags[m->nr_vlans++] = vlans[i].flags;
		}

	/* Three learned MACs per port and VLAN: a right slot hint, a hint
	 * to be looked up again (or trusted: slot 0 at this generation),
	 * and one due for the bridge's keep-alive. In the second VLAN the
	 * same MACs live one port further. */
	for (v = 0; v < nv; v++)
		for (port = 0; port < XT_NR_PORTS; port++)
			for (i = 0; i < 3; i++) {
				int at = (port + v) % XT_NR_PORTS;
				__u8 mac[ETH_ALEN] = { 0x02,	 0xf0,
						       (__u8)ph, (__u8)port,
						       (__u8)i,	 0 };
				__u16 slot = xt_ports[at].slot,
				      gen = XT_PORT_GEN;

				if (i == 1) {
					static const __u16 s[] = { 0, 3, 5, 0 };
					int k = below(r, 4);

					slot = s[k];
					gen = k == 3 ? XT_PORT_GEN
						     : XT_PORT_GEN - 1 - k;
				}
				fdb_add(m, mac, vids[v], xt_env.ifindex[at],
					slot, gen, 0,
					i == 2 ? now - 4 * REFRESH_J : now);
			}
	for (v = 0; v < nv; v++) {
		static const __u8 gone[] = { 0x02, 0xf1, 0, 0, 0, 1 },
				  st_a[] = { 0x02, 0xf1, 0, 0, 0, 2 },
				  st_b[] = { 0x02, 0xf1, 0, 0, 0, 3 },
				  st_e[] = { 0x02, 0xf1, 0, 0, 0, 4 },
				  lk_b[] = { 0x02, 0xf1, 0, 0, 0, 5 };
		__u32 stat = XDPNET_FDB_STATIC | XDPNET_FDB_SEEDED,
		      local = XDPNET_FDB_LOCAL | XDPNET_FDB_SEEDED;

		fdb_add(m, gone, vids[v], XT_GONE_IFINDEX, 0, XT_PORT_GEN - 1,
			0, now);
		fdb_add(m, st_a, vids[v], xt_env.ifindex[P_A], 3, XT_PORT_GEN,
			stat, 0);
		fdb_add(m, st_b, vids[v], xt_env.ifindex[P_B], 0, 0, stat, 0);
		fdb_add(m, st_e, vids[v], xt_env.ifindex[P_E], 0, XT_PORT_GEN,
			stat, 0);
		fdb_add(m, xt_macs[M_LOCAL], vids[v], xt_env.bridge_ifindex, 0,
			XT_PORT_GEN, local, 0);
		fdb_add(m, xt_macs[M_A_OWN], vids[v], xt_env.ifindex[P_A], 3,
			XT_PORT_GEN, local, 0);
		fdb_add(m, lk_b, vids[v], xt_env.ifindex[P_B], 7, XT_PORT_GEN,
			XDPNET_FDB_LOCKED, now);
	}
}

/* Write the model's maps into the build's, and the kernel's view. */
static bool apply_state(const struct xm_state *m, int ph)
{
	const struct xdpnet_port zero = {};
	__u32 slot;
	int i, port;

	if (!xt_cfg_put(&m->cfg) || !xt_map_clear(XT_M_PORT_IDX) ||
	    !xt_map_clear(XT_M_FDB) || !xt_map_clear(XT_M_FDB_STATIC) ||
	    !xt_map_clear(XT_M_VLANS) || !xt_stats_zero())
		return false;
	for (slot = 0; slot < XT_SLOTS; slot++) {
		struct bpf_devmap_val dv = { .ifindex =
						     m->ports[slot].ifindex };

		if (bpf_map_update_elem(
			    xt_b->map[XT_M_PORTS], &slot,
			    slot < XM_SLOTS ? &m->ports[slot] : &zero, BPF_ANY))
			return CHECK(false, "cannot write ports");
		bpf_map_delete_elem(xt_b->map[XT_M_TX], &slot);
		if (m->tx[slot] && bpf_map_update_elem(xt_b->map[XT_M_TX],
						       &slot, &dv, BPF_ANY))
			return CHECK(false, "cannot write tx_ports: %s",
				     strerror(errno));
	}
	for (i = 0; i < m->nr_port_idx; i++)
		if (bpf_map_update_elem(xt_b->map[XT_M_PORT_IDX],
					&m->port_idx[i][0], &m->port_idx[i][1],
					BPF_ANY))
			return CHECK(false, "cannot write port_idx");
	for (i = 0; i < m->nr_fdb; i++)
		if (bpf_map_update_elem(
			    xt_b->map[m->fdb[i].is_static ? XT_M_FDB_STATIC
							  : XT_M_FDB],
			    &m->fdb[i].key, &m->fdb[i].val, BPF_ANY))
			return CHECK(false, "cannot write the FDB");
	for (i = 0; i < m->nr_vlans; i++) {
		struct xdpnet_vlan_val vv = { m->vlan_flags[i] };

		if (bpf_map_update_elem(xt_b->map[XT_M_VLANS], &m->vlan_key[i],
					&vv, BPF_ANY))
			return CHECK(false, "cannot write vlans");
	}
	for (port = 0; port < XT_NR_PORTS; port++)
		xt_kwant[port] = phases[ph].k[port];
	return xt_bump() && xt_kports_sync();
}

/* ---- frames */

static void random_mac(struct rng *r, __u8 *mac, bool group)
{
	__u64 x = next(r);

	memcpy(mac, &x, ETH_ALEN);
	mac[0] = group ? (mac[0] | 1) : (mac[0] & ~1);
}

static void pick_mac(struct rng *r, __u8 *mac, bool src, int in, int ph)
{
	__u32 k = below(r, 100);

	if (k < 60 && pool.n) {
		/* src: mostly one learned on the ingress port */
		if (src && chance(r, 60)) {
			__u8 m[ETH_ALEN] = { 0x02,
					     0xf0,
					     (__u8)ph,
					     (__u8)in,
					     (__u8)below(r, 3),
					     0 };

			memcpy(mac, m, ETH_ALEN);
			return;
		}
		memcpy(mac, pool.mac[below(r, pool.n)], ETH_ALEN);
	} else if (k < 72) {
		static const __u8 bc[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

		if (chance(r, 30))
			memcpy(mac, bc, ETH_ALEN);
		else
			random_mac(r, mac, true);
	} else if (k < 80) {
		memcpy(mac, xt_macs[chance(r, 50) ? M_LOCAL : M_A_OWN],
		       ETH_ALEN);
	} else {
		random_mac(r, mac, false);
	}
}

static const __u16 tpids[] = { ETH_P_8021Q, ETH_P_8021AD };
static const __u16 vids_pick[] = { 0, 10, 20, 30, 4095 };

/* One frame: a well-formed one (frame.c), then maybe a mutation. */
static size_t make_frame(struct rng *r, __u8 *buf, int *in, int ph)
{
	static const int ins[] = { P_A, P_A, P_A, P_B, P_B,
				   P_C, P_C, P_D, P_D, P_E };
	struct xt_frame f = {};
	size_t len, i;
	__u32 k;

	*in = ins[below(r, ARRAY_SIZE(ins))];
	k = below(r, 100);
	if (k >= 60) {
		f.tpid = k < 88 ? ETH_P_8021Q : ETH_P_8021AD;
		f.vid = k < 80 ? vids_pick[below(r, ARRAY_SIZE(vids_pick))]
			       : below(r, 4096);
		if (chance(r, 25))
			f.tpid2 = tpids[below(r, 2)];
	}
	k = below(r, 100);
	f.l3 = k < 45 ? L3_IPV4 : k < 75 ? L3_IPV6 : k < 85 ? L3_ARP : L3_RAW;
	f.l4 = below(r, 3);
	f.csum = below(r, 4);
	if (chance(r, 10))
		f.frag_off = below(r, 0x10000);
	f.ip_opts = chance(r, 10);
	f.hop_by_hop = chance(r, 10);
	k = below(r, 100);
	f.l4len = k < 50   ? 8 + below(r, 93)
		  : k < 85 ? 100 + below(r, 1400)
			   : 1500 + below(r, 1900);
	if (f.l4 == L4_TCP && f.l4len < 20)
		f.l4len = 20;
	f.pad = chance(r, 20);
	len = xt_build_frame(&f, buf);
	pick_mac(r, buf, false, *in, ph);
	pick_mac(r, buf + ETH_ALEN, true, *in, ph);
	if (f.l3 == L3_RAW && chance(r, 70)) /* a bogus EtherType */
		xt_put16(buf + 12 + (f.tpid ? 4 : 0) + (f.tpid2 ? 4 : 0),
			 below(r, 0x10000));

	k = below(r, 100);
	if (k < 12) { /* truncated anywhere, a runt a third of the time */
		len = chance(r, 33) ? below(r, ETH_HLEN) : below(r, len + 1);
	} else if (k < 25) { /* one bit flipped */
		i = below(r, len * 8);
		buf[i / 8] ^= 1 << (i % 8);
	} else if (k < 30) { /* a stretch of random bytes */
		size_t at = below(r, len), n = 1 + below(r, 32);

		for (i = at; i < at + n && i < len; i++)
			buf[i] = next(r);
	} else if (k < 34) { /* random bytes only */
		len = below(r, 200);
		for (i = 0; i < len; i++)
			buf[i] = next(r);
	}
	return len;
}

/* ---- checking one run against the model */

static struct {
	unsigned long frames, runs, refused, mismatches;
	/* Mismatches by kind: the stage, the model's verdict, what went
	 * wrong and the return code seen. */
	struct {
		bool xdp;
		int ctr, what;
		__u32 retval;
		unsigned long n, first;
	} kind[MAX_KINDS];
	int nr_kinds;
	unsigned long verdicts[2][XDPNET_C_MAX + 1]; /* [xdp][ctr + 1] */
	struct xdpnet_ctr_val want[XT_SLOTS][XDPNET_C_MAX];
} st;

static void hexdump(const __u8 *p, size_t len, char *out, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < len && i < 64 && o + 3 < n; i++)
		o += snprintf(out + o, n - o, "%02x", p[i]);
	if (len > 64 && o + 4 < n)
		snprintf(out + o, n - o, "...");
}

static bool counters_ok(char *why, size_t n)
{
	struct xt_snap s;
	__u32 slot;
	int c;

	if (!xt_snap(&s))
		return false;
	for (slot = 0; slot < XT_SLOTS; slot++)
		for (c = 0; c < XDPNET_C_MAX; c++)
			if (s.c[slot][c].packets != st.want[slot][c].packets ||
			    s.c[slot][c].bytes != st.want[slot][c].bytes) {
				snprintf(
					why, n,
					"slot %u %s: %llu packets %llu bytes, "
					"want %llu %llu",
					slot, xt_ctr_name(c),
					(unsigned long long)s.c[slot][c].packets,
					(unsigned long long)s.c[slot][c].bytes,
					(unsigned long long)st.want[slot][c]
						.packets,
					(unsigned long long)st.want[slot][c]
						.bytes);
				return false;
			}
	return true;
}

static void count(int slot, int ctr, size_t len)
{
	if (slot < 0 || slot >= XT_SLOTS || ctr < 0)
		return;
	st.want[slot][ctr].packets++;
	st.want[slot][ctr].bytes += len;
}

/* The entries of the frame's source and destination (the slot hints the
 * datapath mends, the keep-alive stamp) as the model has them. */
static bool entries_agree(struct xm_state *m, const __u8 *frame, size_t len,
			  __u16 vid, char *why, size_t n)
{
	int i, st_;

	for (i = 0; i < 2 && len >= 12; i++)
		for (st_ = 0; st_ < 2; st_++) {
			const __u8 *mac = frame + i * ETH_ALEN;
			struct xm_fdb *e = xm_fdb_find(m, mac, vid, st_);
			struct xdpnet_fdb_val v;

			if (!e)
				continue;
			if (!xt_fdb_get_raw(
				    xt_b->map[st_ ? XT_M_FDB_STATIC : XT_M_FDB],
				    mac, vid, &v)) {
				snprintf(why, n, "the %s entry is gone",
					 i ? "source's" : "destination's");
				return false;
			}
			if (v.slot != e->val.slot || v.gen != e->val.gen ||
			    (__u32)abs((__s32)(v.bridge_j - e->val.bridge_j)) >
				    1000) {
				snprintf(
					why, n,
					"the %s entry: slot %u gen %u bridge_j "
					"%u, model slot %u gen %u bridge_j %u",
					i ? "source's" : "destination's",
					v.slot, v.gen, v.bridge_j, e->val.slot,
					e->val.gen, e->val.bridge_j);
				return false;
			}
		}
	return true;
}

static bool has_tag(const __u8 *f, size_t len)
{
	return len >= ETH_HLEN && (xt_get16(f + 12) == ETH_P_8021Q ||
				   xt_get16(f + 12) == ETH_P_8021AD);
}

/* Returns false on a mismatch (reported). */
static bool one_run(struct xm_state *m, unsigned long idx, int ph, bool xdp,
		    const __u8 *frame, size_t len, int in, bool native)
{
	static __u8 want[XT_MAX_FRAME];
	struct xt_run run = {
		.xdp = xdp,
		.ifindex = xt_ifindex(in),
		.native = native,
		.frame = frame,
		.len = len,
	};
	struct xt_run tr = run;
	struct xm_verdict v = { .ctr = -1, .out_slot = -1 };
	char why[256] = "", hex[160];
	struct xdpnet_trace_rec t;
	int what = 0, k;
	__u32 zero = 0;

	/* xdpnet trace first: it must count nothing, and name the model's
	 * verdict (a TC run of a frame with a tag in it is left out: see
	 * check_trace() in run.c). */
	tr.trace = true;
	xt_test_run(&tr);
	if (!tr.err && !counters_ok(why, sizeof(why)))
		what = 4;
	else if (!tr.err &&
		 bpf_map_lookup_elem(xt_b->map[XT_M_TRACE_OUT], &zero, &t))
		tr.err = -errno;
	st.runs++;
	xt_test_run(&run);
	if (run.err == -EINVAL && xt_kernel_refuses(xdp, frame, len)) {
		st.refused++; /* never ran: the model does not run it either */
		return true;
	}
	memcpy(want, frame, len);
	if (xdp)
		xm_xdp(m, want, len, run.ifindex, !native, &v);
	else
		xm_tc(m, want, len, run.ifindex, &v);
	if (!v.completed)
		memcpy(want, frame, len);
	st.verdicts[xdp][v.ctr + 1]++;
	count(v.in_slot, v.ctr, len);
	count(v.out_slot, v.out_slot >= 0 ? XDPNET_C_RX_REDIRECTED : -1, len);
	if (what == 4)
		; /* why says */
	else if (run.err || tr.err != run.err)
		snprintf(why, sizeof(why), "BPF_PROG_TEST_RUN: %s (trace: %s)",
			 strerror(-run.err), strerror(-tr.err));
	else if ((xdp || !has_tag(frame, len)) &&
		 (tr.retval != v.retval ||
		  (v.ctr >= 0 ? t.verdict != (__u32)v.ctr
			      : !XDPNET_CTR_IS_PASS(t.verdict)))) {
		snprintf(why, sizeof(why),
			 "trace returned %d and names %s, want %d (%s)",
			 (int)tr.retval, xt_ctr_name(t.verdict), (int)v.retval,
			 xt_ctr_name(v.ctr));
		what = 5;
	} else if (run.err)
		snprintf(why, sizeof(why), "BPF_PROG_TEST_RUN: %s",
			 strerror(-run.err));
	else if (run.retval != v.retval)
		snprintf(why, sizeof(why), "returned %d, want %d (%s)",
			 (int)run.retval, (int)v.retval, xt_ctr_name(v.ctr));
	else if (!counters_ok(why, sizeof(why)))
		what = 1; /* why says */
	else if (run.out_len != len || memcmp(run.out, want, len)) {
		snprintf(why, sizeof(why), "frame changed (%s)",
			 v.completed ? "want the checksum completed"
				     : "want it unchanged");
		what = 2;
	} else if (!entries_agree(m, frame, len, v.vid, why, sizeof(why))) {
		what = 3;
	}
	if (!why[0])
		return true;
	st.mismatches++;
	for (k = 0; k < st.nr_kinds; k++)
		if (st.kind[k].xdp == xdp && st.kind[k].ctr == v.ctr &&
		    st.kind[k].what == what && st.kind[k].retval == run.retval)
			break;
	if (k == st.nr_kinds && k < MAX_KINDS) {
		st.kind[k].xdp = xdp;
		st.kind[k].ctr = v.ctr;
		st.kind[k].what = what;
		st.kind[k].retval = run.retval;
		st.kind[k].first = idx;
		st.nr_kinds++;
	}
	if (k < MAX_KINDS && st.kind[k].n++ < REPORTS_PER_KIND) {
		hexdump(frame, len, hex, sizeof(hex));
		CHECK(false,
		      "frame %lu (phase %s, %s%s, in port %s, %zu bytes): %s "
		      "[model: %s, in slot %u, out slot %d]; frame %s",
		      idx, phases[ph].name, xdp ? "xdp" : "tc",
		      xdp ? (native ? " native" : " generic") : "",
		      xt_port_name(in), len, why, xt_ctr_name(v.ctr), v.in_slot,
		      v.out_slot, hex);
	}
	return false;
}

/* The FDB as the datapath left it equals the model's (hints mended, keep
 * alive stamps within a second of the model's). */
static void fdb_agrees(const struct xm_state *m, int ph)
{
	int i, bad = 0;

	for (i = 0; i < m->nr_fdb; i++) {
		const struct xm_fdb *e = &m->fdb[i];
		struct xdpnet_fdb_val v;

		if (!xt_fdb_get_raw(
			    xt_b->map[e->is_static ? XT_M_FDB_STATIC : XT_M_FDB],
			    e->key.mac, e->key.vid, &v)) {
			bad++;
			continue;
		}
		if (v.ifindex != e->val.ifindex || v.slot != e->val.slot ||
		    v.gen != e->val.gen || v.flags != e->val.flags ||
		    (__u32)abs((__s32)(v.bridge_j - e->val.bridge_j)) > 1000) {
			if (!bad)
				CHECK(false,
				      "phase %s: FDB entry %d: slot %u gen %u "
				      "bridge_j %u, model slot %u gen %u "
				      "bridge_j %u",
				      phases[ph].name, i, v.slot, v.gen,
				      v.bridge_j, e->val.slot, e->val.gen,
				      e->val.bridge_j);
			bad++;
		}
	}
	CHECK(!bad, "phase %s: %d FDB entries differ from the model",
	      phases[ph].name, bad);
}

static void report(double secs)
{
	static const char *const stage[2] = { "tc", "xdp" };
	int x, c;

	xt_note("seed 0x%llx, %lu frames, %lu runs (%lu the kernel does not "
		"test-run: runts, truncated IP headers for tc), %.1f s",
		xt_opts.seed, st.frames, st.runs, st.refused, secs);
	for (x = 0; x < 2; x++) {
		char line[1024];
		size_t n = 0;

		for (c = -1; c < XDPNET_C_MAX; c++)
			if (st.verdicts[x][c + 1] && n < sizeof(line))
				n += snprintf(
					line + n, sizeof(line) - n, " %s %lu",
					c < 0 ? "uncounted" : xt_ctr_name(c),
					st.verdicts[x][c + 1]);
		xt_note("%s verdicts:%s", stage[x], line);
	}
}

/* Every verdict a test run can produce was produced (a run long enough
 * to say so). */
static void coverage(void)
{
	static const int tc[] = {
		XDPNET_C_TC_REDIRECT,  XDPNET_C_PASS_MCAST,
		XDPNET_C_PASS_UNKNOWN, XDPNET_C_PASS_LOCAL,
		XDPNET_C_PASS_HAIRPIN, XDPNET_C_PASS_NOT_ATTACHED,
		XDPNET_C_PASS_VLAN,    XDPNET_C_PASS_ISOLATED,
		XDPNET_C_PASS_REFRESH, XDPNET_C_PASS_SRC,
		XDPNET_C_PASS_STATE,   XDPNET_C_PASS_MTU,
		XDPNET_C_PASS_HUB,
	};
	static const int xdp[] = {
		XDPNET_C_XDP_REDIRECT,	  XDPNET_C_XDP_DEFER_CSUM,
		XDPNET_C_XDP_DEFER_SIZE,  XDPNET_C_XDP_DEFER_TARGET,
		XDPNET_C_XDP_DEFER_PROTO, XDPNET_C_XDP_DEFER_REFRESH,
		XDPNET_C_XDP_DEFER_UDP0,  -1, /* passed on uncounted */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tc); i++)
		CHECK(st.verdicts[0][tc[i] + 1],
		      "the fuzz run never produced tc %s", xt_ctr_name(tc[i]));
	for (i = 0; i < ARRAY_SIZE(xdp); i++)
		CHECK(st.verdicts[1][xdp[i] + 1],
		      "the fuzz run never produced xdp %s",
		      xdp[i] < 0 ? "uncounted" : xt_ctr_name(xdp[i]));
}

static const char *const what_names[] = {
	"return code differs", "counters differ",   "frame differs",
	"FDB entry differs",   "the trace counted", "the trace differs",
};

static bool reset_phase(struct xm_state *m, int ph)
{
	struct rng r = { xt_opts.seed + ph };

	build_state(m, ph, &r);
	memset(st.want, 0, sizeof(st.want));
	return apply_state(m, ph);
}

void test_fuzz(void)
{
	static struct xm_state m;
	static __u8 frame[XT_MAX_FRAME];
	struct timespec t0, t1;
	unsigned long i, n = xt_opts.fuzz;
	int ph = -1, k, x;

	if (!n || !xt_begin("%lu frames, seed 0x%llx", n, xt_opts.seed))
		return;
	memset(&st, 0, sizeof(st));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		struct rng r = { xt_opts.seed ^ (i * 0xd1b54a32d192ed03ULL) };
		int in, want_ph = i * NR_PHASES / n;
		bool native;
		size_t len;

		if (want_ph != ph) {
			if (ph >= 0)
				fdb_agrees(&m, ph);
			ph = want_ph;
			if (!reset_phase(&m, ph))
				return;
		}
		len = make_frame(&r, frame, &in, ph);
		native = chance(&r, 50);
		st.frames++;
		m.now = xt_jiffies();
		/* Both runs, each judged on its own: after a mismatch the
		 * phase starts afresh (maps and model). */
		for (x = 1; x >= 0; x--)
			if (!one_run(&m, i, ph, x, frame, len, in,
				     x && native) &&
			    !reset_phase(&m, ph))
				return;
	}
	fdb_agrees(&m, ph);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	report((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (k = 0; k < st.nr_kinds; k++)
		CHECK(false,
		      "%lu runs (first: frame %lu): %s, model %s, the program "
		      "returned %d, %s",
		      st.kind[k].n, st.kind[k].first,
		      st.kind[k].xdp ? "xdp" : "tc",
		      xt_ctr_name(st.kind[k].ctr), (int)st.kind[k].retval,
		      what_names[st.kind[k].what]);
	CHECK(!st.mismatches, "%lu of %lu runs differ from the model",
	      st.mismatches, st.runs);
	if (n >= 20000)
		coverage();
}
