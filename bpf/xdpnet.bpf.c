// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet datapath: redirect known-unicast frames between the ports of a
 * bridge, bypassing it, exactly where the bridge would forward them. Two
 * entry points share one decision (xdpnet_decide.h):
 *
 *  - xdpnet_tc, on every carried port's TC ingress: bpf_redirect() to the
 *    target port's transmit path, keeping GSO and checksum-offload state.
 *  - xdpnet_xdp, native XDP on taps (--mode xdp): redirects through the
 *    tx_ports devmap only frames it can prove safe (xdpnet_csum.h);
 *    everything else goes on (XDP_PASS) to the TC stage. The same
 *    program runs in libxdp's dispatcher.
 *
 * Whatever neither stage takes continues into the bridge unchanged. The
 * FDB the decision uses is a mirror of the bridge's (xdpnet_fdb.h).
 *
 * Built twice from this file (the Makefile): xdpnet.bpf.o reads the
 * bridge's port state from maps that user space keeps, xdpnet_live.bpf.o
 * (-DXDPNET_LIVE) also reads the ingress port's state from the kernel on
 * every frame (xdpnet_live.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <xdp/xdp_helpers.h>
#include "xdpnet.h"
#include "xdpnet_maps.h"
#include "xdpnet_dump.h"
#include "xdpnet_decide.h"
#include "xdpnet_fdb.h"

/* The FDB mirror (xdpnet_fdb.h): the bridge's own FDB events. */
SEC("tp_btf/br_fdb_update")
int BPF_PROG(xdpnet_fdb_update, struct net_bridge *br,
	     struct net_bridge_port *source, const unsigned char *addr,
	     __u16 vid, unsigned long flags)
{
	return fdb_update(br, source, addr, vid, flags);
}

SEC("tp_btf/fdb_delete")
int BPF_PROG(xdpnet_fdb_delete, struct net_bridge *br,
	     struct net_bridge_fdb_entry *f)
{
	return fdb_delete(br, f);
}

SEC("tp_btf/br_fdb_add")
int BPF_PROG(xdpnet_fdb_add, struct ndmsg *ndm, struct net_device *dev,
	     const unsigned char *addr, __u16 vid, __u16 nlh_flags)
{
	return fdb_add(dev, addr, vid);
}

SEC("tp_btf/br_fdb_external_learn_add")
int BPF_PROG(xdpnet_fdb_ext_learn, struct net_bridge *br,
	     struct net_bridge_port *p, const unsigned char *addr, __u16 vid)
{
	return fdb_ext_learn(br, addr, vid);
}

/* Not ours: let the next tc program, then the bridge, have it. */
#define TC_ACT_UNSPEC (-1)
#define TC_ACT_REDIRECT 7

/*
 * The latency probe (bpf/xdpnet_lat.bpf.c, loaded by "xdpnet latency on")
 * shares lat_cpu; xdpnet_cfg.lat_on says whether it is on, so while it is
 * off each stage pays one load of a global per frame.
 */
#include "xdpnet_lat_maps.h"

static __always_inline struct xdpnet_lat_cpu *lat_slot(void)
{
	__u32 zero = 0;

	if (!xdpnet_cfg.lat_on)
		return NULL;
	return bpf_map_lookup_elem(&lat_cpu, &zero);
}

/* XDP stage entry: the arrival time of a frame the XDP stage may redirect
 * (the probe's xdp_redirect tracepoint takes it from here). */
static __always_inline void lat_mark_xdp(__u32 ifindex)
{
	struct xdpnet_lat_cpu *c = lat_slot();

	if (!c)
		return;
	c->xdp_ts = bpf_ktime_get_ns();
	c->xdp_ifindex = ifindex;
}

/* TC stage redirected the frame the probe saw arrive last on this CPU: tell
 * the probe, for kernels whose bpf_redirect() does not set skb->redirected
 * (before Linux 6.4). */
static __always_inline void lat_mark_tc(__u32 ifindex, __u32 target)
{
	struct xdpnet_lat_cpu *c = lat_slot();

	if (!c || c->rx_ifindex != ifindex)
		return;
	c->tc_skb = c->rx_skb;
	c->tc_target = target;
}

static __always_inline void frame_l3(struct xdpnet_frame *f)
{
	struct ethhdr *eth = f->data;

	f->l3 = f->data + sizeof(*eth);
	f->proto = bpf_ntohs(eth->h_proto);
}

/* A trace run's end: what the stage decided, and on what. Where the
 * source's keep-alive was due, the decision went on: what it found is the
 * flow's steady verdict, and this frame goes to the bridge. Returns this
 * frame's verdict. */
static __always_inline __u32 trace_end(struct xdpnet_trace_rec *t,
				       const struct xdpnet_frame *f,
				       enum xdpnet_stage stage, __u32 verdict)
{
	int redirect = verdict == XDPNET_C_XDP_REDIRECT ||
		       verdict == XDPNET_C_TC_REDIRECT;

	t->stage = stage;
	t->in_slot = f->in_slot;
	if (t->refresh_due) {
		t->steady_verdict = verdict;
		t->steady_at = t->at;
		if (redirect) {
			t->steady_target = f->target;
			t->steady_out_slot = f->out_slot;
		}
		verdict = stage == XDPNET_STAGE_XDP ? XDPNET_C_XDP_DEFER_REFRESH
						    : XDPNET_C_PASS_REFRESH;
		t->at = XDPNET_CK_KEEPALIVE;
		redirect = 0;
	}
	t->verdict = verdict;
	if (redirect) {
		t->target = f->target;
		t->out_slot = f->out_slot;
	}
	t->len = f->len;
	t->tagged = f->tagged;
	if (f->tagged)
		t->vid = f->vid;
	return verdict;
}

/* The XDP stage; t: a trace run (xdpnet_trace.h), NULL for real frames. */
static __always_inline int xdp_stage(struct xdp_md *ctx,
				     struct xdpnet_trace_rec *t)
{
	struct xdpnet_frame f = {
		.ctx = ctx,
		.ifindex = ctx->ingress_ifindex,
	};
	__u32 verdict;
	int act;

	if (!t)
		lat_mark_xdp(f.ifindex);
	f.data = (void *)(long)ctx->data;
	f.data_end = (void *)(long)ctx->data_end;

	f.len = f.data_end - f.data;
	if (f.data + sizeof(struct ethhdr) <= f.data_end) {
		frame_l3(&f);
		if (f.proto == ETH_P_8021Q || f.proto == ETH_P_8021AD) {
			struct vlan_hdr *vh = f.l3;

			/* A truncated tag, or a tag of the other protocol on
			 * a bridge that filters VLANs (an 802.1Q tag is
			 * untagged for an 802.1ad bridge, and the reverse):
			 * leave it to the TC stage. */
			if ((void *)(vh + 1) > f.data_end) {
				if (t) {
					XN_AT(t, XDPNET_CK_FRAME);
					trace_end(t, &f, XDPNET_STAGE_XDP,
						  XDPNET_C_PASS_MALFORMED);
				}
				return XDP_PASS;
			}
			if (xdpnet_cfg.vlan_filtering &&
			    f.proto !=
				    XDPNET_VF_TPID(xdpnet_cfg.vlan_filtering)) {
				if (t) {
					XN_AT(t, XDPNET_CK_TAG_PROTO);
					trace_end(t, &f, XDPNET_STAGE_XDP,
						  XDPNET_C_PASS_VLAN);
				}
				return XDP_PASS;
			}
			f.tagged = 1;
			f.vid = bpf_ntohs(vh->h_vlan_TCI) & VLAN_VID_MASK;
			f.proto = bpf_ntohs(vh->h_vlan_encapsulated_proto);
			f.l3 = vh + 1;
		}
	}

	verdict = xdpnet_decide(&f, XDPNET_STAGE_XDP, t);
	if (t) {
		verdict = trace_end(t, &f, XDPNET_STAGE_XDP, verdict);
		return verdict == XDPNET_C_XDP_REDIRECT ? XDP_REDIRECT
							: XDP_PASS;
	}
	if (verdict != XDPNET_C_XDP_REDIRECT) {
		/* Counted here only when the XDP stage's reason is its own;
		 * the TC stage counts the final verdict. */
		if (XDPNET_CTR_IS_DEFER(verdict))
			xdpnet_count(f.in_slot, verdict, f.len);
		return XDP_PASS;
	}
	act = bpf_redirect_map(&tx_ports, f.out_slot, XDP_PASS);
	if (act != XDP_REDIRECT) {
		/* The target left the devmap after the decision: the frame
		 * goes on to the TC stage as it came, its checksum as the
		 * sender left it (the TC stage keeps its offload state). */
		if (f.csum_fix.off) {
			__u16 *field = f.data + (f.csum_fix.off & 0xfff);

			if ((void *)(field + 1) <= f.data_end)
				*field = f.csum_fix.old;
		}
		xdpnet_count(f.in_slot, XDPNET_C_XDP_DEFER_TARGET, f.len);
		return XDP_PASS;
	}
	xdpnet_count(f.in_slot, XDPNET_C_XDP_REDIRECT, f.len);
	xdpnet_count(f.out_slot, XDPNET_C_RX_REDIRECTED, f.len);
	if (!f.cached)
		DUMP(ctx, 1, f.ifindex, f.len, XDPNET_C_XDP_REDIRECT, f.target);
	return act;
}

/* Read by libxdp where the XDP stage joins its dispatcher: the run
 * priority, and XDP_PASS chains on (BTF only: libbpf leaves the section
 * alone). */
struct {
	__uint(priority, XDPNET_XDP_RUN_PRIO);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(xdpnet_xdp);

SEC("xdp")
int xdpnet_xdp(struct xdp_md *ctx)
{
	return xdp_stage(ctx, NULL);
}

/* A tag of the other protocol (802.1ad on a bridge that filters 802.1Q,
 * or the reverse): the bridge takes the frame as untagged. */
static __always_inline int tc_other_tpid(__u16 tpid)
{
	return xdpnet_cfg.vlan_filtering &&
	       tpid != bpf_htons(XDPNET_VF_TPID(xdpnet_cfg.vlan_filtering));
}

static __always_inline int tc_pass_vlan(struct __sk_buff *skb,
					struct xdpnet_frame *f,
					struct xdpnet_trace_rec *t)
{
	in_port(f, NULL, t);
	if (t) {
		XN_AT(t, XDPNET_CK_TAG_PROTO);
		trace_end(t, f, XDPNET_STAGE_TC, XDPNET_C_PASS_VLAN);
		return TC_ACT_UNSPEC;
	}
	xdpnet_count(f->in_slot, XDPNET_C_PASS_VLAN, f->len);
	DUMP(skb, 0, f->ifindex, f->len, XDPNET_C_PASS_VLAN, 0);
	return TC_ACT_UNSPEC;
}

/* The TC stage; t as for xdp_stage(). */
static __always_inline int tc_stage(struct __sk_buff *skb,
				    struct xdpnet_trace_rec *t)
{
	struct xdpnet_frame f = {
		.ctx = skb,
		.data = (void *)(long)skb->data,
		.data_end = (void *)(long)skb->data_end,
		.ifindex = skb->ifindex,
		.len = skb->len,
		.gso = skb->gso_size,
	};
	__u32 verdict;

	/* The stack has already moved an outer VLAN tag into skb metadata.
	 * BPF_PROG_TEST_RUN does not: a trace run takes the tag out of the
	 * frame's length as the stack would out of the frame. */
	if (skb->vlan_present) {
		f.tagged = 1;
		f.vid = skb->vlan_tci & VLAN_VID_MASK;
		if (tc_other_tpid(skb->vlan_proto))
			return tc_pass_vlan(skb, &f, t);
	} else if (t) {
		struct ethhdr *eth = f.data;
		struct vlan_hdr *vh = (void *)(eth + 1);

		if ((void *)(vh + 1) <= f.data_end &&
		    (eth->h_proto == bpf_htons(ETH_P_8021Q) ||
		     eth->h_proto == bpf_htons(ETH_P_8021AD))) {
			f.tagged = 1;
			f.vid = bpf_ntohs(vh->h_vlan_TCI) & VLAN_VID_MASK;
			f.len -= sizeof(*vh);
			if (tc_other_tpid(eth->h_proto))
				return tc_pass_vlan(skb, &f, t);
		}
	}
	if (f.data + sizeof(struct ethhdr) <= f.data_end) {
		frame_l3(&f);
		/* A trace run's tag: past it, as the stack would be. */
		if (f.tagged && !skb->vlan_present) {
			struct vlan_hdr *vh = f.l3;

			if ((void *)(vh + 1) > f.data_end)
				return TC_ACT_UNSPEC;
			f.proto = bpf_ntohs(vh->h_vlan_encapsulated_proto);
			f.l3 = vh + 1;
		}
		/* A tag left in the frame under the one the stack took
		 * out. Where the sender left the checksum to the device
		 * (CHECKSUM_PARTIAL), the bridge sets the network header
		 * past all the tags, or drops the frame where they do not
		 * parse (br_dev_queue_push_xmit()). A TC program sees
		 * neither that state nor can it do either: the bridge takes
		 * them all. */
		if (f.tagged &&
		    (f.proto == ETH_P_8021Q || f.proto == ETH_P_8021AD))
			return tc_pass_vlan(skb, &f, t);
	}

	verdict = xdpnet_decide(&f, XDPNET_STAGE_TC, t);
	if (t) {
		verdict = trace_end(t, &f, XDPNET_STAGE_TC, verdict);
		return verdict == XDPNET_C_TC_REDIRECT ? TC_ACT_REDIRECT
						       : TC_ACT_UNSPEC;
	}
	if (verdict == XDPNET_C_TC_REDIRECT &&
	    bpf_redirect(f.target, 0) != TC_ACT_REDIRECT)
		verdict = XDPNET_C_DROP_REDIRECT_ERR;
	xdpnet_count(f.in_slot, verdict, f.len);
	if (verdict != XDPNET_C_TC_REDIRECT) {
		DUMP(skb, 0, f.ifindex, f.len, verdict, 0);
		return TC_ACT_UNSPEC;
	}
	xdpnet_count(f.out_slot, XDPNET_C_RX_REDIRECTED, f.len);
	/* A cached decision implies neither a dump nor the probe runs. */
	if (!f.cached) {
		lat_mark_tc(f.ifindex, f.target);
		DUMP(skb, 0, f.ifindex, f.len, verdict, f.target);
	}
	return TC_ACT_REDIRECT;
}

SEC("tc")
int xdpnet_tc(struct __sk_buff *skb)
{
	return tc_stage(skb, NULL);
}

/* The trace variants (xdpnet trace; user/observe/trace.c loads them on
 * demand, never at attach): the same stages, no side effects. */
SEC("tc")
int xdpnet_trace_tc(struct __sk_buff *skb)
{
	struct xdpnet_trace_rec *t = trace_rec();

	return t ? tc_stage(skb, t) : TC_ACT_UNSPEC;
}

SEC("xdp")
int xdpnet_trace_xdp(struct xdp_md *ctx)
{
	struct xdpnet_trace_rec *t = trace_rec();

	return t ? xdp_stage(ctx, t) : XDP_PASS;
}

/*
 * Redirect failures happen after our program returned; the xdp
 * tracepoints see them. They fire for every XDP user on the host: count
 * only those that concern our ports.
 */
static __always_inline int our_port(const struct net_device *dev, __u32 *slot)
{
	__u32 ifindex = BPF_CORE_READ(dev, ifindex);

	return BPF_CORE_READ(dev, nd_net.net, ns.inum) ==
		       xdpnet_cfg.netns_ino &&
	       port_by_ifindex(ifindex, slot);
}

SEC("tp_btf/xdp_redirect_err")
int BPF_PROG(xdpnet_redirect_err, const struct net_device *dev,
	     const struct bpf_prog *xdp, const void *tgt, int err,
	     enum bpf_map_type map_type, __u32 map_id, __u32 index)
{
	__u32 slot;

	if (our_port(dev, &slot))
		xdpnet_count(slot, XDPNET_C_DROP_REDIRECT_ERR, 0);
	return 0;
}

SEC("tp_btf/xdp_devmap_xmit")
int BPF_PROG(xdpnet_devmap_xmit, const struct net_device *from_dev,
	     const struct net_device *to_dev, int sent, int drops, int err)
{
	struct xdpnet_stats *s;
	__u32 slot;

	if (drops <= 0 || !our_port(to_dev, &slot))
		return 0;
	s = bpf_map_lookup_elem(&stats, &slot);
	if (s)
		s->c[XDPNET_C_DROP_XMIT_ERR].packets += drops;
	return 0;
}

/* User space's way to bump the generation (include/xdpnet.h, struct
 * xdpnet_rt) after it changed the datapath's maps: BPF_PROG_TEST_RUN.
 * The bridge's address is checked again too (cfg may name another). */
SEC("syscall")
int xdpnet_bump(void *ctx)
{
	xdpnet_rt.br = 0;
	xdpnet_gen_bump();
	return 0;
}

/* User space's clock for the FDB copy: jiffies, as the datapath reads
 * them (BPF_PROG_TEST_RUN; the low 32 bits are enough). */
SEC("syscall")
int xdpnet_jiffies(void *ctx)
{
	return (int)bpf_jiffies64();
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
