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
#include "core/names.h"
#include "out/trace.h"

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

/* The checks of a stage, in the order the decision made them: ok (1),
 * failed (0), skipped (-1: learning off, the source is not needed). */
struct check {
	unsigned int ck;
	int ok;
};

static int checks(const struct xdpnet_trace_rec *r, struct check *c)
{
	unsigned int ck;
	int n = 0;

	for (ck = 0; ck < XDPNET_CK_N; ck++) {
		if (ck == XDPNET_CK_SRC_KNOWN && !(r->seen & 1U << ck) &&
		    (r->seen & 1U << XDPNET_CK_SRC_VALID) &&
		    r->at != XDPNET_CK_SRC_VALID &&
		    !(r->in_flags & XDPNET_PORT_LEARNING)) {
			c[n].ck = ck;
			c[n++].ok = -1;
			continue;
		}
		if (!(r->seen & 1U << ck))
			continue;
		c[n].ck = ck;
		c[n++].ok = ck != r->at;
	}
	return n;
}

static const char *stage_name(const struct xn_trace_stage *st)
{
	return st->rec.stage == XDPNET_STAGE_XDP ? "xdp" : "tc";
}

/* Where the frame goes, all stages considered. */
static const char *path_of(const struct xn_trace *t)
{
	if (t->xdp.ran && t->xdp.rec.verdict == XDPNET_C_XDP_REDIRECT)
		return "xdp";
	if (t->tc.ran && t->tc.rec.verdict == XDPNET_C_TC_REDIRECT)
		return "tc";
	return "bridge";
}

static const struct xn_trace_stage *last(const struct xn_trace *t)
{
	return t->tc.ran ? &t->tc : &t->xdp;
}

static void text_stage(FILE *f, const struct xn_trace *t,
		       const struct xn_trace_stage *st)
{
	const struct xdpnet_trace_rec *r = &st->rec;
	struct check c[XDPNET_CK_N];
	char d[160], a[NAMEBUF];
	int i, n = checks(r, c);

	fprintf(f, "%s stage%s:\n", stage_name(st),
		st->multi ? " (in libxdp's dispatcher)" : "");
	for (i = 0; i < n; i++) {
		detail(c[i].ck, c[i].ok, t, r, d, sizeof(d));
		if (c[i].ok < 0)
			snprintf(d, sizeof(d), "the port does not learn");
		fprintf(f, "  %-4s  %-14s %s%s%s%s\n",
			c[i].ok > 0   ? "ok"
			: c[i].ok < 0 ? "skip"
				      : "no",
			xn_check_name(c[i].ck), xn_check_text(c[i].ck),
			d[0] ? " (" : "", d, d[0] ? ")" : "");
	}
	if (r->verdict == XDPNET_C_XDP_REDIRECT ||
	    r->verdict == XDPNET_C_TC_REDIRECT)
		fprintf(f, "  => %s: redirected to %s\n",
			xn_ctr_name(r->verdict), ifname(r->target, a));
	else if (st->rec.stage == XDPNET_STAGE_XDP)
		fprintf(f, "  => %s: on to the tc stage%s\n",
			xn_ctr_name(r->verdict),
			XDPNET_CTR_IS_DEFER(r->verdict)
				? ""
				: " (the xdp stage counts only its own "
				  "xdp_defer_* reasons)");
	else
		fprintf(f, "  => %s: on to the bridge\n",
			xn_ctr_name(r->verdict));
}

static void text(FILE *f, const char *bridge, const char *in,
		 const struct xn_trace *t)
{
	const struct xn_trace_stage *st = last(t);
	char kind[64], s[18], d[18], a[NAMEBUF];
	const char *path = path_of(t);

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
			ifname(st->rec.target, a));
	else
		fprintf(f, "verdict: to the bridge (%s)",
			xn_ctr_name(st->rec.verdict));
	if (t->in.ifindex)
		fprintf(f, ", counted as %s on %s\n",
			xn_ctr_name(st->rec.verdict), in);
	else
		fputs(", not counted\n", f);
}

static void json_stage(struct xn_jw *w, const struct xn_trace *t,
		       const struct xn_trace_stage *st)
{
	const struct xdpnet_trace_rec *r = &st->rec;
	struct check c[XDPNET_CK_N];
	char d[160], a[NAMEBUF];
	int i, n = checks(r, c);

	xn_jw_obj(w);
	xn_jw_kstr(w, "stage", stage_name(st));
	xn_jw_kbool(w, "dispatcher", st->multi);
	xn_jw_kstr(w, "verdict", xn_ctr_name(r->verdict));
	xn_jw_kstr(w, "action",
		   st->retval == XDP_REDIRECT && r->stage == XDPNET_STAGE_XDP
			   ? "redirect"
		   : r->verdict == XDPNET_C_TC_REDIRECT ? "redirect"
							: "pass");
	kstr_or_null(w, "target", r->target ? ifname(r->target, a) : NULL);
	xn_jw_karr(w, "checks");
	for (i = 0; i < n; i++) {
		detail(c[i].ck, c[i].ok, t, r, d, sizeof(d));
		xn_jw_obj(w);
		xn_jw_kstr(w, "check", xn_check_name(c[i].ck));
		xn_jw_kstr(w, "result",
			   c[i].ok > 0	 ? "ok"
			   : c[i].ok < 0 ? "skip"
					 : "no");
		xn_jw_kstr(w, "detail", d);
		xn_jw_obj_end(w);
	}
	xn_jw_arr_end(w);
	xn_jw_obj_end(w);
}

static void json(FILE *f, const char *bridge, const char *in,
		 const struct xn_trace *t)
{
	const struct xn_trace_stage *st = last(t);
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
	xn_jw_kstr(&w, "verdict", xn_ctr_name(st->rec.verdict));
	kstr_or_null(&w, "target",
		     st->rec.target ? ifname(st->rec.target, a) : NULL);
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
