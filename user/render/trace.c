// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet trace's output: see trace.h. */
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include "xdpnet.h"
#include "lib/frame.h"
#include "lib/json_writer.h"
#include "lib/util.h"
#include "datapath/names.h"
#include "render/trace.h"

#define NAMEBUF 24 /* an interface name, or "ifindexN" */

static const char *ifname(__u32 ifindex, char *buf)
{
	if (!ifindex)
		return "none";
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, NAMEBUF, "ifindex%u", ifindex);
	return buf;
}

/* A string, or null. */
static void kstr_or_null(struct xn_jw *w, const char *key, const char *s)
{
	if (s) {
		xn_jw_kstr(w, key, s);
	} else {
		xn_jw_key(w, key);
		xn_jw_null(w);
	}
}

static unsigned long ms(__u32 jiffies, __u32 hz)
{
	return hz ? (unsigned long)jiffies * 1000UL / hz : 0;
}

/* What one check found, for the text and the JSON alike ("" if nothing
 * to add). */
static void detail(unsigned int ck, int ok, const struct xn_trace *t,
		   const struct xdpnet_trace_rec *r, char *buf, size_t n)
{
	char a[NAMEBUF], b[NAMEBUF];

	buf[0] = 0;
	switch (ck) {
	case XDPNET_CK_IN_PORT:
		if (ok)
			snprintf(buf, n, "slot %u", r->in_slot);
		else
			snprintf(buf, n, "xdpnet has no program on it");
		break;
	case XDPNET_CK_BYPASS:
		if (!ok)
			snprintf(buf, n, "%s",
				 xn_bridge_hold_text(t->cfg.hold));
		break;
	case XDPNET_CK_IN_FWD:
		if (!ok)
			snprintf(buf, n, "%s",
				 t->in.hold ? xn_hold_text(t->in.hold)
					    : "the bridge's port state");
		break;
	case XDPNET_CK_SRC_KNOWN:
		if (r->src_ifindex)
			snprintf(buf, n, "the FDB has it on %s%s%s",
				 ifname(r->src_ifindex, a),
				 r->src_flags & XDPNET_FDB_LOCAL ? " (local)"
				 : r->src_flags & XDPNET_FDB_STATIC
					 ? " (static)"
					 : "",
				 r->src_flags & XDPNET_FDB_LOCKED ? ", locked"
								  : "");
		else
			snprintf(buf, n,
				 "not in the FDB: the bridge would "
				 "learn it from this frame");
		break;
	case XDPNET_CK_KEEPALIVE:
		snprintf(buf, n,
			 "the bridge saw it %lu ms ago; it sees one frame "
			 "every %lu ms",
			 ms(r->src_age_j, t->cfg.hz),
			 ms(r->refresh_j, t->cfg.hz));
		break;
	case XDPNET_CK_DST_KNOWN:
		if (ok)
			snprintf(buf, n, "behind %s%s",
				 ifname(r->dst_ifindex, a),
				 r->dst_flags & XDPNET_FDB_LOCAL ? " (local)"
				 : r->dst_flags & XDPNET_FDB_STATIC
					 ? " (static)"
					 : "");
		else
			snprintf(buf, n, "the bridge floods it");
		break;
	case XDPNET_CK_OUT_PORT:
		if (!ok)
			snprintf(buf, n, "%s is not carried",
				 ifname(r->dst_ifindex, a));
		break;
	case XDPNET_CK_OUT_FWD:
		if (!ok)
			snprintf(buf, n, "%s: %s", ifname(r->dst_ifindex, a),
				 t->dst.hold ? xn_hold_text(t->dst.hold)
					     : "the bridge's port state");
		break;
	case XDPNET_CK_MTU:
		snprintf(buf, n, "%u bytes to %s, MTU %u", r->len,
			 ifname(r->dst_ifindex, b), t->dst.mtu);
		break;
	}
}

/* A stage's decision for the flow: where the source's keep-alive was due,
 * what the decision found beyond it (the flow's other frames); else this
 * frame's. */
static __u32 steady_verdict(const struct xdpnet_trace_rec *r)
{
	return r->refresh_due ? r->steady_verdict : r->verdict;
}

static __u32 steady_target(const struct xdpnet_trace_rec *r)
{
	return r->refresh_due ? r->steady_target : r->target;
}

static int is_redirect(__u32 verdict)
{
	return verdict == XDPNET_C_XDP_REDIRECT ||
	       verdict == XDPNET_C_TC_REDIRECT;
}

/* The checks of a stage, in the order the decision made them. */
enum { CK_SKIP = -1, CK_NO, CK_OK, CK_DUE };
struct check {
	unsigned int ck;
	int ok; /* CK_*: skipped (learning off: the source is not needed),
		 * failed, passed, or the keep-alive due (this frame) */
};

static int checks(const struct xdpnet_trace_rec *r, struct check *c)
{
	__u32 at = r->refresh_due ? r->steady_at : r->at;
	unsigned int ck;
	int n = 0;

	for (ck = 0; ck < XDPNET_CK_N; ck++) {
		if (ck == XDPNET_CK_SRC_KNOWN && !(r->seen & 1U << ck) &&
		    (r->seen & 1U << XDPNET_CK_SRC_VALID) &&
		    at != XDPNET_CK_SRC_VALID &&
		    !(r->in_flags & XDPNET_PORT_LEARNING)) {
			c[n].ck = ck;
			c[n++].ok = CK_SKIP;
			continue;
		}
		if (!(r->seen & 1U << ck))
			continue;
		c[n].ck = ck;
		c[n++].ok = ck == XDPNET_CK_KEEPALIVE && r->refresh_due ? CK_DUE
			    : ck == at					? CK_NO
									: CK_OK;
	}
	return n;
}

static const char *result_name(int ok)
{
	return ok == CK_OK     ? "ok"
	       : ok == CK_SKIP ? "skip"
	       : ok == CK_DUE  ? "due"
			       : "no";
}

/* What held: the passing condition, or the failing one. */
static const char *condition(const struct check *c)
{
	return c->ok == CK_OK || c->ok == CK_SKIP ? xn_check_text(c->ck)
						  : xn_check_fail_text(c->ck);
}

static const char *stage_name(const struct xn_trace_stage *st)
{
	return st->rec.stage == XDPNET_STAGE_XDP ? "xdp" : "tc";
}

/* Where this frame goes, all stages considered. */
static const char *frame_path(const struct xn_trace *t)
{
	if (t->xdp.ran && t->xdp.rec.verdict == XDPNET_C_XDP_REDIRECT)
		return "xdp";
	if (t->tc.ran && t->tc.rec.verdict == XDPNET_C_TC_REDIRECT)
		return "tc";
	return "bridge";
}

/* Where the flow's frames go (this one too, unless it is the keep-alive). */
static const char *path_of(const struct xn_trace *t)
{
	if (t->xdp.ran && steady_verdict(&t->xdp.rec) == XDPNET_C_XDP_REDIRECT)
		return "xdp";
	if (t->tc.ran && steady_verdict(&t->tc.rec) == XDPNET_C_TC_REDIRECT)
		return "tc";
	return "bridge";
}

/* The stage that decides this frame, and the one that decides the flow's. */
static const struct xn_trace_stage *last(const struct xn_trace *t)
{
	return t->tc.ran ? &t->tc : &t->xdp;
}

static const struct xn_trace_stage *steady_last(const struct xn_trace *t)
{
	return t->xdp.ran && steady_verdict(&t->xdp.rec) ==
				       XDPNET_C_XDP_REDIRECT
		       ? &t->xdp
		       : last(t);
}

/* Do the flow's frames reach stage st? Not the tc stage where the xdp one
 * redirects them (this frame, the keep-alive, reaches it). */
static int flow_reaches(const struct xn_trace *t,
			const struct xn_trace_stage *st)
{
	return st != &t->tc || !t->xdp.ran ||
	       steady_verdict(&t->xdp.rec) != XDPNET_C_XDP_REDIRECT;
}

static int keepalive_due(const struct xn_trace *t)
{
	return (t->xdp.ran && t->xdp.rec.refresh_due) ||
	       (t->tc.ran && t->tc.rec.refresh_due);
}

static void text_stage(FILE *f, const struct xn_trace *t,
		       const struct xn_trace_stage *st)
{
	const struct xdpnet_trace_rec *r = &st->rec;
	__u32 v = steady_verdict(r);
	struct check c[XDPNET_CK_N];
	char d[160], a[NAMEBUF], now[96] = "";
	int i, n = checks(r, c);

	fprintf(f, "%s stage%s%s:\n", stage_name(st),
		st->multi ? " (in libxdp's dispatcher)" : "",
		flow_reaches(t, st) ? ""
				    : " (this frame only: the xdp stage "
				      "redirects the flow's other frames)");
	for (i = 0; i < n; i++) {
		detail(c[i].ck, c[i].ok, t, r, d, sizeof(d));
		if (c[i].ok == CK_SKIP)
			snprintf(d, sizeof(d), "the port does not learn");
		fprintf(f, "  %-4s  %-14s %s%s%s%s\n", result_name(c[i].ok),
			xn_check_name(c[i].ck), condition(&c[i]),
			d[0] ? " (" : "", d, d[0] ? ")" : "");
	}
	if (r->refresh_due)
		snprintf(now, sizeof(now), " (this frame: %s, on to %s)",
			 xn_ctr_name(r->verdict),
			 r->stage == XDPNET_STAGE_XDP ? "the tc stage"
						      : "the bridge");
	if (is_redirect(v))
		fprintf(f, "  => %s: redirected to %s%s\n", xn_ctr_name(v),
			ifname(steady_target(r), a), now);
	else if (st->rec.stage == XDPNET_STAGE_XDP)
		fprintf(f, "  => %s: on to the tc stage%s%s\n", xn_ctr_name(v),
			XDPNET_CTR_IS_DEFER(v)
				? ""
				: " (the xdp stage counts only its own "
				  "xdp_defer_* reasons)",
			now);
	else
		fprintf(f, "  => %s: on to the bridge%s\n", xn_ctr_name(v),
			now);
}

/* This frame is its source's keep-alive: say so, apart from the flow's
 * verdict. */
static void text_keepalive(FILE *f, const char *in, const struct xn_trace *t)
{
	const struct xdpnet_trace_rec *r =
		t->tc.ran && t->tc.rec.refresh_due ? &t->tc.rec : &t->xdp.rec;

	fprintf(f,
		"this frame: its source's keep-alive (the bridge saw the "
		"source %lu ms ago, and gets one of its frames every %lu "
		"ms): to the bridge, counted as %s%s on %s\n",
		ms(r->src_age_j, t->cfg.hz), ms(r->refresh_j, t->cfg.hz),
		t->xdp.ran && t->xdp.rec.refresh_due ? "xdp_defer_refresh and "
						     : "",
		xn_ctr_name(last(t)->rec.verdict), in);
}

static void text(FILE *f, const char *bridge, const char *in,
		 const struct xn_trace *t)
{
	const struct xn_trace_stage *st = steady_last(t);
	char kind[64], s[18], d[18], a[NAMEBUF];
	const char *path = path_of(t);
	__u32 v = steady_verdict(&st->rec);

	xn_frame_describe(t->frame, t->len, kind, sizeof(kind));
	xn_format_mac(t->frame + 6, s);
	xn_format_mac(t->frame, d);
	fprintf(f, "trace of a frame into %s on %s (%s datapath)\n", in, bridge,
		t->live ? "live" : "portable");
	fprintf(f, "  %s > %s, %s, %zu bytes\n", s, d, kind, t->len);
	if (t->in.ifindex)
		fprintf(f, "  %s: carried, stages %s\n", in,
			t->in.flags & XDPNET_PORT_XDP ? "xdp and tc" : "tc");
	else
		fprintf(f,
			"  %s: not carried: every frame from it takes the "
			"bridge\n",
			in);
	if (t->xdp.ran)
		text_stage(f, t, &t->xdp);
	if (t->tc.ran)
		text_stage(f, t, &t->tc);
	if (strcmp(path, "bridge"))
		fprintf(f, "verdict: bypassed by the %s stage to %s", path,
			ifname(steady_target(&st->rec), a));
	else
		fprintf(f, "verdict: to the bridge (%s)", xn_ctr_name(v));
	if (t->in.ifindex)
		fprintf(f, ", counted as %s on %s\n", xn_ctr_name(v), in);
	else
		fputs(", not counted\n", f);
	if (keepalive_due(t))
		text_keepalive(f, in, t);
}

static void json_stage(struct xn_jw *w, const struct xn_trace *t,
		       const struct xn_trace_stage *st)
{
	const struct xdpnet_trace_rec *r = &st->rec;
	__u32 v = steady_verdict(r), target = steady_target(r);
	struct check c[XDPNET_CK_N];
	char d[160], a[NAMEBUF];
	int i, n = checks(r, c);

	xn_jw_obj(w);
	xn_jw_kstr(w, "stage", stage_name(st));
	xn_jw_kbool(w, "dispatcher", st->multi);
	xn_jw_kstr(w, "verdict", xn_ctr_name(v));
	xn_jw_kstr(w, "action", is_redirect(v) ? "redirect" : "pass");
	kstr_or_null(w, "target", target ? ifname(target, a) : NULL);
	xn_jw_kbool(w, "flow", flow_reaches(t, st));
	xn_jw_kbool(w, "keepalive_due", !!r->refresh_due);
	xn_jw_kstr(w, "frame_verdict", xn_ctr_name(r->verdict));
	xn_jw_karr(w, "checks");
	for (i = 0; i < n; i++) {
		detail(c[i].ck, c[i].ok, t, r, d, sizeof(d));
		xn_jw_obj(w);
		xn_jw_kstr(w, "check", xn_check_name(c[i].ck));
		xn_jw_kstr(w, "result", result_name(c[i].ok));
		xn_jw_kstr(w, "condition", condition(&c[i]));
		xn_jw_kstr(w, "detail", d);
		xn_jw_obj_end(w);
	}
	xn_jw_arr_end(w);
	xn_jw_obj_end(w);
}

static void json(FILE *f, const char *bridge, const char *in,
		 const struct xn_trace *t)
{
	const struct xn_trace_stage *st = steady_last(t);
	__u32 target = steady_target(&st->rec);
	char kind[64], mac[18], a[NAMEBUF];
	struct xn_jw w;

	xn_jw_init(&w, f);
	xn_jw_obj(&w);
	xn_jw_kstr(&w, "bridge", bridge);
	xn_jw_kstr(&w, "in", in);
	xn_jw_kstr(&w, "datapath", t->live ? "live" : "portable");
	xn_jw_kbool(&w, "carried", !!t->in.ifindex);
	xn_jw_kobj(&w, "frame");
	xn_format_mac(t->frame + 6, mac);
	xn_jw_kstr(&w, "src", mac);
	xn_format_mac(t->frame, mac);
	xn_jw_kstr(&w, "dst", mac);
	xn_frame_describe(t->frame, t->len, kind, sizeof(kind));
	xn_jw_kstr(&w, "kind", kind);
	xn_jw_kuint(&w, "len", t->len);
	xn_jw_obj_end(&w);
	xn_jw_karr(&w, "stages");
	if (t->xdp.ran)
		json_stage(&w, t, &t->xdp);
	if (t->tc.ran)
		json_stage(&w, t, &t->tc);
	xn_jw_arr_end(&w);
	xn_jw_kstr(&w, "path", path_of(t));
	xn_jw_kstr(&w, "verdict", xn_ctr_name(steady_verdict(&st->rec)));
	kstr_or_null(&w, "target", target ? ifname(target, a) : NULL);
	xn_jw_kbool(&w, "keepalive_due", keepalive_due(t));
	xn_jw_kstr(&w, "frame_path", frame_path(t));
	xn_jw_kstr(&w, "frame_verdict", xn_ctr_name(last(t)->rec.verdict));
	kstr_or_null(&w, "counted_on", t->in.ifindex ? in : NULL);
	xn_jw_obj_end(&w);
	xn_jw_end(&w);
}

void xn_trace_print(FILE *f, const char *bridge, const char *in,
		    const struct xn_trace *t, int as_json)
{
	if (as_json)
		json(f, bridge, in, t);
	else
		text(f, bridge, in, t);
}
