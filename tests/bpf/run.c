// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Running a row of a table: its frame through the stages it lists, each
 * time checking the return code, every counter of every slot (exactly the
 * expected counter on the ingress port's slot, and RX_REDIRECTED on the
 * target's, moved; nothing else), and the frame the program hands back:
 * unchanged, except that an XDP redirect may complete a partial checksum
 * in place. Whatever the XDP stage redirects must carry a valid L4
 * checksum (checked with our own code).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "harness.h"

bool xt_test_run(struct xt_run *r)
{
	static __u8 out[XT_MAX_FRAME];
	struct __sk_buff skb = { .ifindex = r->ifindex, .gso_size = r->gso };
	struct xdp_md md = { .ingress_ifindex = r->ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int fd;

	if (r->xdp) {
		fd = r->native ? (r->trace ? xt_b->trace_xdp_native
					   : xt_b->xdp_native)
			       : (r->trace ? xt_b->trace_xdp : xt_b->xdp);
		o.ctx_in = &md;
		o.ctx_size_in = sizeof(md);
	} else {
		fd = r->trace ? xt_b->trace_tc : xt_b->tc;
		o.ctx_in = &skb;
		o.ctx_size_in = sizeof(skb);
		if (r->gso)
			skb.gso_segs = 2;
	}
	md.data_end = r->len;
	o.data_in = r->frame;
	o.data_size_in = r->len;
	o.data_out = out;
	o.data_size_out = sizeof(out);
	r->err = bpf_prog_test_run_opts(fd, &o);
	r->retval = o.retval;
	r->out_len = 0;
	if (r->err)
		return false;
	r->out_len = o.data_size_out;
	if (r->out_len > sizeof(r->out))
		r->out_len = sizeof(r->out);
	memcpy(r->out, out, r->out_len);
	return true;
}

bool xt_kernel_refuses(bool xdp, const __u8 *f, size_t len)
{
	if (len < ETH_HLEN)
		return true;
	if (xdp)
		return false;
	switch (xt_get16(f + 12)) {
	case ETH_P_IP:
		return len < ETH_HLEN + 20;
	case ETH_P_IPV6:
		return len < ETH_HLEN + 40;
	default:
		return false;
	}
}

static const char *stage_name(enum xt_stage st)
{
	return st == ST_TC ? "tc" : "xdp";
}

static __u32 slot_of(int port)
{
	return port >= 0 && port < XT_NR_PORTS ? xt_ports[port].slot : 0;
}

static void check_counters(const struct xt_row *r, const struct xt_expect *e,
			   int step, const struct xt_snap *before,
			   const struct xt_snap *after, size_t len)
{
	__u32 in = slot_of(r->fr.in), slot;
	char msg[1024] = "";
	size_t n = 0;
	int c;

	for (slot = 0; slot < XT_SLOTS; slot++) {
		for (c = 0; c < XDPNET_C_MAX; c++) {
			__u64 want = 0, got, bytes;

			if ((slot == in && c == e->ctr) ||
			    (e->target != P_NONE &&
			     slot == slot_of(e->target) &&
			     c == XDPNET_C_RX_REDIRECTED))
				want++;
			got = after->c[slot][c].packets -
			      before->c[slot][c].packets;
			bytes = after->c[slot][c].bytes -
				before->c[slot][c].bytes;
			if ((got != want || bytes != want * len) &&
			    n < sizeof(msg))
				n += snprintf(
					msg + n, sizeof(msg) - n,
					" [slot %u (port %s) %s: +%llu "
					"(%llu bytes), want +%llu]",
					slot,
					xt_port_name(xt_port_of_slot(slot)),
					xt_ctr_name(c), (unsigned long long)got,
					(unsigned long long)bytes,
					(unsigned long long)want);
		}
	}
	CHECK(!n,
	      "step %d (%s): counters differ (want %s on the ingress port %s, "
	      "target %s):%s",
	      step, stage_name(e->stage), xt_ctr_name(e->ctr),
	      xt_port_name(r->fr.in), xt_port_name(e->target), msg);
}

static void check_data(const struct xt_run *run, int step, const __u8 *want,
		       bool completed)
{
	size_t i;

	if (!CHECK(run->out_len == run->len,
		   "step %d: frame came back with %zu bytes, sent %zu", step,
		   run->out_len, run->len))
		return;
	for (i = 0; i < run->len; i++)
		if (!CHECK(run->out[i] == want[i],
			   "step %d: frame byte %zu is 0x%02x, want 0x%02x (%s)",
			   step, i, run->out[i], want[i],
			   completed ? "checksum completed"
				     : "frame must be unchanged"))
			return;
}

/*
 * xdpnet trace's promise, checked on every step: the stage's trace
 * variant, run first on the same frame and state, names the verdict and
 * target that the real program then counts (run_step checks the count),
 * and changes nothing: no counter, no FDB entry (keep-alive stamp, slot
 * hints), no other map. A tagged frame's TC step is left out: the trace
 * variant models a real port, where the stack has moved the tag into skb
 * metadata, while the real program's test run sees it in the frame (see
 * prog_tests/vlan.c).
 */
static void check_trace(const struct xt_row *r, const struct xt_expect *e,
			int step, const __u8 *frame, size_t len)
{
	struct xt_run run = {
		.xdp = e->stage == ST_XDP,
		.trace = true,
		.ifindex = xt_ifindex(r->fr.in),
		.native = r->fr.native,
		.gso = r->fr.gso,
		.frame = frame,
		.len = len,
	};
	struct xt_snap before, after;
	struct xdpnet_trace_rec t;
	__u64 h0, h1;
	__u32 zero = 0;

	if (!run.xdp && r->fr.tpid)
		return;
	memset(&t, 0xff, sizeof(t)); /* so that a record left unwritten shows */
	if (!CHECK(!bpf_map_update_elem(xt_b->map[XT_M_TRACE_OUT], &zero, &t,
					BPF_ANY),
		   "cannot reset trace_out: %s", strerror(errno)) ||
	    !xt_snap(&before) || !xt_maps_digest(&h0))
		return;
	xt_test_run(&run);
	if (run.err == -EINVAL && xt_kernel_refuses(run.xdp, frame, len))
		return;
	if (!CHECK(!run.err, "step %d (%s trace): BPF_PROG_TEST_RUN: %s", step,
		   stage_name(e->stage), strerror(-run.err)) ||
	    !xt_snap(&after) || !xt_maps_digest(&h1))
		return;
	CHECK(!memcmp(&before, &after, sizeof(before)),
	      "step %d (%s trace): a counter moved", step,
	      stage_name(e->stage));
	CHECK(h0 == h1, "step %d (%s trace): a map of the datapath changed",
	      step, stage_name(e->stage));
	if (!CHECK(!bpf_map_lookup_elem(xt_b->map[XT_M_TRACE_OUT], &zero, &t),
		   "cannot read trace_out: %s", strerror(errno)))
		return;
	CHECK(run.retval == e->retval,
	      "step %d (%s trace): returned %d, the program must return %d",
	      step, stage_name(e->stage), (int)run.retval, (int)e->retval);
	CHECK(t.stage == (run.xdp ? XDPNET_STAGE_XDP : XDPNET_STAGE_TC),
	      "step %d (%s trace): recorded stage %u", step,
	      stage_name(e->stage), t.stage);
	if (e->ctr != NO_CTR)
		CHECK(t.verdict == (__u32)e->ctr,
		      "step %d (%s trace): names %s, the program must count %s",
		      step, stage_name(e->stage), xt_ctr_name(t.verdict),
		      xt_ctr_name(e->ctr));
	else
		CHECK(XDPNET_CTR_IS_PASS(t.verdict),
		      "step %d (%s trace): names %s for a frame the stage "
		      "passes on uncounted",
		      step, stage_name(e->stage), xt_ctr_name(t.verdict));
	if (e->target != P_NONE)
		CHECK(t.target == xt_ifindex(e->target) && t.at == XDPNET_CK_N,
		      "step %d (%s trace): target ifindex %u (check %u), want "
		      "%s",
		      step, stage_name(e->stage), t.target, t.at,
		      xt_port_name(e->target));
	else
		CHECK(t.at < XDPNET_CK_N && (t.seen & 1U << t.at) && !t.target,
		      "step %d (%s trace): deciding check %u (seen 0x%x), "
		      "target %u",
		      step, stage_name(e->stage), t.at, t.seen, t.target);
}

static void run_step(const struct xt_row *r, const struct xt_expect *e,
		     int step, const __u8 *frame, size_t len,
		     const __u8 *completed)
{
	struct xt_run run = {
		.xdp = e->stage == ST_XDP,
		.ifindex = xt_ifindex(r->fr.in),
		.native = r->fr.native,
		.gso = r->fr.gso,
		.frame = frame,
		.len = len,
	};
	bool done = r->out == OUT_CSUM_DONE && run.xdp &&
		    e->retval == XDP_REDIRECT;
	struct xt_snap before, after;

	check_trace(r, e, step, frame, len);
	if (!xt_snap(&before))
		return;
	xt_test_run(&run);
	if (run.err == -EINVAL && xt_kernel_refuses(run.xdp, frame, len)) {
		xt_note("step %d (%s): the kernel does not test-run this "
			"%zu-byte frame",
			step, stage_name(e->stage), len);
		return;
	}
	if (!CHECK(!run.err, "step %d (%s): BPF_PROG_TEST_RUN: %s", step,
		   stage_name(e->stage), strerror(-run.err)))
		return;
	if (!xt_snap(&after))
		return;
	/* Counters first: they say why, when the return code is wrong. */
	check_counters(r, e, step, &before, &after, len);
	CHECK(run.retval == e->retval, "step %d (%s): returned %d, want %d",
	      step, stage_name(e->stage), (int)run.retval, (int)e->retval);
	check_data(&run, step, done ? completed : frame, done);
	/* The safety property: nothing leaves through XDP with a broken L4
	 * checksum. */
	if (run.xdp && run.retval == XDP_REDIRECT)
		CHECK(xt_l4_csum_ok(run.out, run.out_len) != 0,
		      "step %d (xdp): redirected with an invalid L4 checksum",
		      step);
	if (done)
		CHECK(xt_l4_csum_ok(run.out, run.out_len) == 1,
		      "step %d (xdp): checksum not completed", step);
}

bool xt_row_prepare(const struct xt_table *t, bool (*setup)(void))
{
	if (!xt_maps_reset(&t->set, t->topo))
		return false;
	if (setup && !setup())
		return false;
	return xt_kports_sync();
}

static void run_row(const struct xt_table *t, const struct xt_row *r)
{
	static __u8 frame[XT_MAX_FRAME], completed[XT_MAX_FRAME];
	const struct xt_expect *exp = r->exp;
	struct xt_frame valid;
	size_t len;
	int i;

	if (!xt_row_prepare(t, r->setup)) {
		/* A setup that could not do its part, and said nothing. */
		if (!xt_skipped())
			CHECK(xt_failed(), "the row's setup failed");
		return;
	}
	if (xt_b->live && r->live[0].stage != ST_END)
		exp = r->live;
	len = xt_build_frame(&r->fr, frame);
	valid = r->fr;
	valid.csum = CS_VALID;
	xt_build_frame(&valid, completed);
	for (i = 0; i < MAX_STEPS && exp[i].stage != ST_END; i++)
		run_step(r, &exp[i], i, frame, len, completed);
	if (r->check && !xt_failed())
		r->check();
}

void xt_run_table(const struct xt_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_rows; i++) {
		const struct xt_row *r = &t->rows[i];

		if ((r->only == ONLY_LIVE && !xt_b->live) ||
		    (r->only == ONLY_PORTABLE && xt_b->live))
			continue;
		if (!xt_begin("%s: %s", t->name, r->name))
			continue;
		run_row(t, r);
	}
}
