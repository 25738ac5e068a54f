// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fuzz run's model of the forwarding decision (see model.h). The rules,
 * in the order the datapath applies them, each first match decides:
 *
 *  0. XDP entry: an outer 802.1Q/802.1ad tag is parsed; a truncated one,
 *     or 802.1ad on a bridge that filters VLANs, is passed on uncounted.
 *  1. shorter than an Ethernet header: MALFORMED
 *  2. ingress port not carried: NOT_ATTACHED
 *  3. live build: ingress device not a port of this bridge: STATE; its
 *     flags are the kernel's (FWD only if the map's FWD too)
 *  4. cfg.bypass 0: HUB
 *  5. group destination: MCAST
 *  6. ingress port not FWD: STATE;  locked: ISOLATED
 *  7. VLAN filtering: no VID (tag, else pvid) or no membership: VLAN
 *  8. a source that is no valid address (group, zero), which the bridge
 *     drops: SRC. Port learns: the source must be learned on it (not
 *     locked), or be static (not local, not locked) on it: else SRC; a
 *     learned source whose bridge_j is older than refresh_j: REFRESH (TC
 *     stamps it; XDP: XDP_DEFER_REFRESH).
 *  9. destination (learned, else static) unknown: UNKNOWN; local: LOCAL;
 *     locked: ISOLATED; behind the ingress port: HAIRPIN
 * 10. its port not carried (slot hint, see below): NOT_ATTACHED; not FWD:
 *     STATE; locked, or both isolated: ISOLATED
 * 11. VLAN filtering: egress no member, or tagging differs: VLAN
 * 12. TC: longer than the egress MTU + 14: MTU; else TC_REDIRECT.
 *     XDP: egress no XDP target: DEFER_TARGET; longer than the egress
 *     device's MTU + 14 or than XDPNET_XDP_MAX_FRAME: DEFER_SIZE; the L4
 *     checksum not provably right: DEFER_PROTO / DEFER_CSUM; else
 *     XDP_REDIRECT. XDP counts only its own reasons.
 *
 * Slot hints: an FDB value names its port's slot as of a port generation.
 * A slot that holds the entry's ifindex is used; slot 0 at the current
 * generation means "not carried"; anything else is looked up again by
 * ifindex and the hint rewritten. A source entry on the ingress port with
 * a wrong hint is rewritten too.
 */
#include <string.h>
#include <linux/bpf.h>

#include "model.h"

#define ETH_HLEN 14
#define TC_REDIRECT_RET 7
#define TC_UNSPEC_RET 0xffffffffu
#define P_8021Q 0x8100
#define P_8021AD 0x88a8
#define P_IP 0x0800
#define P_IPV6 0x86dd
#define P_ARP 0x0806

static __u16 be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* ---- the maps, as the model holds them */

static struct xdpnet_port *port_at(struct xm_state *m, __u32 slot)
{
	return slot < XM_SLOTS ? &m->ports[slot] : NULL;
}

/* The carried port with this ifindex (port_idx, checked against ports). */
static __u32 slot_by_ifindex(struct xm_state *m, __u32 ifindex)
{
	int i;

	for (i = 0; i < m->nr_port_idx; i++) {
		__u32 slot = m->port_idx[i][1];

		if (m->port_idx[i][0] == ifindex && port_at(m, slot) &&
		    port_at(m, slot)->ifindex == ifindex)
			return slot;
	}
	return 0;
}

struct xm_fdb *xm_fdb_find(struct xm_state *m, const __u8 *mac, __u16 vid,
			   bool is_static)
{
	int i;

	for (i = 0; i < m->nr_fdb; i++)
		if (m->fdb[i].is_static == is_static &&
		    m->fdb[i].key.vid == vid &&
		    !memcmp(m->fdb[i].key.mac, mac, 6))
			return &m->fdb[i];
	return NULL;
}

static const __u32 *vlan_find(struct xm_state *m, __u32 ifindex, __u16 vid)
{
	int i;

	for (i = 0; i < m->nr_vlans; i++)
		if (m->vlan_key[i].ifindex == ifindex &&
		    m->vlan_key[i].vid == vid)
			return &m->vlan_flags[i];
	return NULL;
}

static const struct xm_dev *dev_find(struct xm_state *m, __u32 ifindex)
{
	int i;

	for (i = 0; i < m->nr_devs; i++)
		if (m->devs[i].ifindex == ifindex)
			return &m->devs[i];
	return NULL;
}

/* The egress slot of a destination entry (rule 10's hint). */
static __u32 out_slot(struct xm_state *m, struct xm_fdb *d)
{
	struct xdpnet_port *p = port_at(m, d->val.slot);

	if (d->val.slot && p && p->ifindex == d->val.ifindex)
		return d->val.slot;
	if (!d->val.slot && d->val.gen == m->cfg.port_gen)
		return 0;
	d->val.slot = slot_by_ifindex(m, d->val.ifindex);
	d->val.gen = m->cfg.port_gen;
	return d->val.slot;
}

/* ---- the XDP stage's checksum proof (rule 12) */

static __u32 sum16(const __u8 *p, size_t len)
{
	__u32 s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += be16(p + i);
	if (len & 1)
		s += p[len - 1] << 8;
	return s;
}

static __u16 fold(__u64 s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* 0: safe (maybe completed into *v), else the XDP_DEFER_* reason. */
static int l4_safe(__u8 *f, size_t len, size_t off, __u32 l4len, __u8 proto,
		   __u64 pseudo, bool v4, bool may_complete,
		   struct xm_verdict *v)
{
	size_t field, hlen;
	__u16 fixed;
	bool partial;
	__u64 s;

	switch (proto) {
	case 6: /* TCP */
		field = 16, hlen = 20;
		break;
	case 17: /* UDP */
		field = 6, hlen = 8;
		break;
	case 1:	 /* ICMP */
	case 58: /* ICMPv6 */
		field = 2, hlen = 4;
		break;
	default:
		return XDPNET_C_XDP_DEFER_PROTO;
	}
	if (l4len < hlen || off + hlen > len)
		return XDPNET_C_XDP_DEFER_PROTO;
	if (proto == 17 && !be16(f + off + field))
		/* UDP without a checksum: the payload (a tunnel) may need
		 * one (IPv6: or it is simply bad) */
		return v4 ? XDPNET_C_XDP_DEFER_UDP0 : XDPNET_C_XDP_DEFER_CSUM;
	/* A field equal to the pseudo-header sum looks partial: where the
	 * redirect keeps the checksum state, the TC stage takes it, no sum
	 * taken. */
	partial = proto != 1 && be16(f + off + field) == fold(pseudo);
	if (partial && !may_complete)
		return XDPNET_C_XDP_DEFER_CSUM;
	if (off + l4len > len)
		return XDPNET_C_XDP_DEFER_PROTO;
	s = sum16(f + off, l4len);
	if (fold(s + pseudo) == 0xffff)
		return 0; /* valid as it stands */
	if (!partial)
		return XDPNET_C_XDP_DEFER_CSUM;
	/* A partial checksum: completed as the kernel would. */
	fixed = ~fold(s);
	if (proto == 17 && !fixed)
		fixed = 0xffff;
	f[off + field] = fixed >> 8;
	f[off + field + 1] = fixed;
	v->completed = true;
	return 0;
}

static int xdp_safe(__u8 *f, size_t len, size_t l3, __u16 proto,
		    bool may_complete, struct xm_verdict *v)
{
	if (len > XDPNET_XDP_MAX_FRAME)
		return XDPNET_C_XDP_DEFER_SIZE;
	if (proto == P_ARP)
		return 0;
	if (proto == P_IP) {
		__u32 ihl, tot;
		__u64 pseudo = 0;

		if (l3 + 20 > len)
			return XDPNET_C_XDP_DEFER_PROTO;
		ihl = (f[l3] & 0xf) * 4;
		tot = be16(f + l3 + 2);
		if (ihl < 20 || f[l3] >> 4 != 4 ||
		    (be16(f + l3 + 6) & 0x3fff) || tot < ihl ||
		    tot - ihl > XDPNET_XDP_MAX_FRAME)
			return XDPNET_C_XDP_DEFER_PROTO;
		if (f[l3 + 9] != 1)
			pseudo = sum16(f + l3 + 12, 8) + f[l3 + 9] + tot - ihl;
		return l4_safe(f, len, l3 + ihl, tot - ihl, f[l3 + 9], pseudo,
			       true, may_complete, v);
	}
	if (proto == P_IPV6) {
		__u8 nh;
		__u32 plen;

		if (l3 + 40 > len)
			return XDPNET_C_XDP_DEFER_PROTO;
		nh = f[l3 + 6];
		plen = be16(f + l3 + 4);
		if ((nh != 6 && nh != 17 && nh != 58) ||
		    plen > XDPNET_XDP_MAX_FRAME)
			return XDPNET_C_XDP_DEFER_PROTO;
		return l4_safe(f, len, l3 + 40, plen, nh,
			       sum16(f + l3 + 8, 32) + nh + plen, false,
			       may_complete, v);
	}
	return XDPNET_C_XDP_DEFER_PROTO;
}

/* ---- the decision (rules 1-12) */

struct frame {
	__u8 *f;
	size_t len;
	__u32 ifindex;
	bool xdp, tagged, skb_backed;
	__u16 vid, proto;
	size_t l3;
};

static int decide(struct xm_state *m, struct frame *fr, struct xm_verdict *v)
{
	const __u8 *dmac = fr->f, *smac = fr->f + 6;
	struct xm_fdb *src = NULL, *dst, *st;
	struct xdpnet_port *in, *out;
	__u32 in_flags, slot;
	__u16 vid = 0;
	int why;

	v->in_slot = slot_by_ifindex(m, fr->ifindex);
	if (fr->len < ETH_HLEN)
		return XDPNET_C_PASS_MALFORMED;
	if (!m->cfg.vlan_filtering) {
		src = xm_fdb_find(m, smac, 0, false);
		/* a wrong hint on the ingress port's own entry is mended */
		if (src && src->val.ifindex == fr->ifindex && v->in_slot &&
		    !(port_at(m, src->val.slot) &&
		      port_at(m, src->val.slot)->ifindex == fr->ifindex)) {
			src->val.slot = v->in_slot;
			src->val.gen = m->cfg.port_gen;
		}
	}
	if (!v->in_slot)
		return XDPNET_C_PASS_NOT_ATTACHED;
	in = port_at(m, v->in_slot);
	in_flags = in->flags;
	if (m->live) {
		const struct xm_dev *d = dev_find(m, fr->ifindex);

		if (!d || !d->port)
			return XDPNET_C_PASS_STATE;
		in_flags = (d->fwd ? XDPNET_PORT_FWD : 0) |
			   (d->learning ? XDPNET_PORT_LEARNING : 0) |
			   (d->isolated ? XDPNET_PORT_ISOLATED : 0) |
			   (d->locked ? XDPNET_PORT_LOCKED : 0);
		if (!(in->flags & XDPNET_PORT_FWD))
			in_flags &= ~XDPNET_PORT_FWD;
	}
	if (!m->cfg.bypass)
		return XDPNET_C_PASS_HUB;
	if (dmac[0] & 1)
		return XDPNET_C_PASS_MCAST;
	if (!(in_flags & XDPNET_PORT_FWD))
		return XDPNET_C_PASS_STATE;
	if (in_flags & XDPNET_PORT_LOCKED)
		return XDPNET_C_PASS_ISOLATED;
	if (m->cfg.vlan_filtering) {
		vid = fr->tagged ? fr->vid : in->pvid;
		v->vid = vid;
		if (!vid || !vlan_find(m, fr->ifindex, vid))
			return XDPNET_C_PASS_VLAN;
		if (*vlan_find(m, fr->ifindex, vid) & XDPNET_VLAN_HELD)
			return XDPNET_C_PASS_STATE;
		src = xm_fdb_find(m, smac, vid, false);
	}
	if ((smac[0] & 1) || !memcmp(smac, "\0\0\0\0\0\0", 6))
		return XDPNET_C_PASS_SRC;
	if (in_flags & XDPNET_PORT_LEARNING) {
		bool here = src && src->val.ifindex == fr->ifindex;

		st = xm_fdb_find(m, smac, vid, true);
		if (!(here && !(src->val.flags & XDPNET_FDB_LOCKED)) &&
		    !(st && st->val.ifindex == fr->ifindex &&
		      !(st->val.flags & (XDPNET_FDB_LOCAL | XDPNET_FDB_LOCKED))))
			return XDPNET_C_PASS_SRC;
		if (here && (__s32)(m->now - src->val.bridge_j) >
				    (__s32)m->cfg.refresh_j) {
			if (fr->xdp)
				return XDPNET_C_XDP_DEFER_REFRESH;
			src->val.bridge_j = m->now;
			return XDPNET_C_PASS_REFRESH;
		}
	}
	dst = xm_fdb_find(m, dmac, vid, false);
	if (!dst)
		dst = xm_fdb_find(m, dmac, vid, true);
	if (!dst)
		return XDPNET_C_PASS_UNKNOWN;
	if (dst->val.flags & XDPNET_FDB_LOCAL)
		return XDPNET_C_PASS_LOCAL;
	if (dst->val.flags & XDPNET_FDB_LOCKED)
		return XDPNET_C_PASS_ISOLATED;
	if (dst->val.ifindex == fr->ifindex)
		return XDPNET_C_PASS_HAIRPIN;
	slot = out_slot(m, dst);
	if (!slot)
		return XDPNET_C_PASS_NOT_ATTACHED;
	out = port_at(m, slot);
	if (!(out->flags & XDPNET_PORT_FWD))
		return XDPNET_C_PASS_STATE;
	if ((out->flags & XDPNET_PORT_LOCKED) ||
	    (in_flags & out->flags & XDPNET_PORT_ISOLATED))
		return XDPNET_C_PASS_ISOLATED;
	if (m->cfg.vlan_filtering) {
		const __u32 *vf = vlan_find(m, dst->val.ifindex, vid);

		if (!vf || !!(*vf & XDPNET_VLAN_UNTAGGED) == fr->tagged)
			return XDPNET_C_PASS_VLAN;
		if (*vf & XDPNET_VLAN_HELD)
			return XDPNET_C_PASS_STATE;
	}
	v->out_slot = slot;
	if (!fr->xdp)
		return fr->len > out->mtu + 14 ? XDPNET_C_PASS_MTU
					       : XDPNET_C_TC_REDIRECT;
	if (!(out->flags & XDPNET_PORT_XDP_TARGET))
		return XDPNET_C_XDP_DEFER_TARGET;
	{
		const struct xm_dev *d = dev_find(m, dst->val.ifindex);

		if (!d || fr->len > d->mtu + ETH_HLEN)
			return XDPNET_C_XDP_DEFER_SIZE;
	}
	why = xdp_safe(fr->f, fr->len, fr->l3, fr->proto, !fr->skb_backed, v);
	return why ? why : XDPNET_C_XDP_REDIRECT;
}

static void verdict_init(struct xm_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->ctr = -1;
	v->out_slot = -1;
}

void xm_tc(struct xm_state *m, const __u8 *frame, size_t len, __u32 ifindex,
	   struct xm_verdict *v)
{
	struct frame fr = { .f = (__u8 *)frame,
			    .len = len,
			    .ifindex = ifindex };
	int why;

	verdict_init(v);
	why = decide(m, &fr, v);
	v->ctr = why;
	if (why == XDPNET_C_TC_REDIRECT) {
		v->retval = TC_REDIRECT_RET;
	} else {
		v->retval = TC_UNSPEC_RET;
		v->out_slot = -1;
	}
}

/* frame: a copy the model may complete a checksum in. */
void xm_xdp(struct xm_state *m, const __u8 *frame, size_t len, __u32 ifindex,
	    bool skb_backed, struct xm_verdict *v)
{
	struct frame fr = {
		.f = (__u8 *)frame, .len = len, .ifindex = ifindex, .xdp = true
	};
	int why;

	verdict_init(v);
	fr.skb_backed = skb_backed;
	fr.l3 = ETH_HLEN;
	if (len >= ETH_HLEN) {
		fr.proto = be16(frame + 12);
		if (fr.proto == P_8021Q || fr.proto == P_8021AD) {
			if (len < ETH_HLEN + 4 ||
			    (m->cfg.vlan_filtering &&
			     fr.proto !=
				     (m->cfg.vlan_filtering == XDPNET_VF_8021AD
					      ? P_8021AD
					      : P_8021Q))) {
				v->retval = XDP_PASS;
				return; /* rule 0: nothing counted */
			}
			fr.tagged = true;
			fr.vid = be16(frame + 14) & 0xfff;
			fr.proto = be16(frame + 16);
			fr.l3 = ETH_HLEN + 4;
		}
	}
	why = decide(m, &fr, v);
	if (why == XDPNET_C_XDP_REDIRECT) {
		if (m->tx[v->out_slot]) {
			v->retval = XDP_REDIRECT;
			v->ctr = why;
			return;
		}
		/* No target to redirect to: handed on, untouched. */
		why = XDPNET_C_XDP_DEFER_TARGET;
	}
	v->retval = XDP_PASS;
	v->out_slot = -1;
	v->completed = false;
	if (XDPNET_CTR_IS_DEFER(why))
		v->ctr = why;
}
