// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Text and JSON output of a filter report (user/filters.h). */
#include <stdio.h>
#include "filters/filters.h"
#include "lib/json_writer.h"

static void print_json(FILE *f, const char *bridge,
		       const struct xn_filt_report *r)
{
	struct xn_jw w;
	int i;

	xn_jw_init(&w, f);
	xn_jw_obj(&w);
	xn_jw_kstr(&w, "bridge", bridge);
	xn_jw_kstr(&w, "verdict", xn_filt_verdict_name(r->verdict));
	xn_jw_kstr(&w, "unknown", r->unknown);
	xn_jw_karr(&w, "ports");
	for (i = 0; i < r->nports; i++) {
		xn_jw_obj(&w);
		xn_jw_kstr(&w, "name", r->ports[i].name);
		xn_jw_kint(&w, "ifindex", r->ports[i].ifindex);
		xn_jw_kbool(&w, "filtered", r->ports[i].filtered);
		xn_jw_kstr(&w, "reason", r->ports[i].reason);
		xn_jw_kbool(&w, "no_xdp_in", r->ports[i].no_xdp_in);
		xn_jw_kstr(&w, "no_xdp_why", r->ports[i].no_xdp_why);
		xn_jw_obj_end(&w);
	}
	xn_jw_arr_end(&w);
	xn_jw_karr(&w, "rules");
	for (i = 0; i < r->nrules; i++) {
		xn_jw_obj(&w);
		xn_jw_kstr(&w, "rule", r->rules[i].text);
		xn_jw_kstr(&w, "why", r->rules[i].why);
		xn_jw_obj_end(&w);
	}
	xn_jw_arr_end(&w);
	xn_jw_obj_end(&w);
	xn_jw_end(&w);
}

/* Text: "verdict V", "unknown WHY", "port NAME filtered|bypassable
 * [REASON]" (and "port NAME no XDP redirects in: WHY"), "rule TEXT" then
 * "  why: WHY". */
void xn_filt_print(FILE *f, const char *bridge, const struct xn_filt_report *r,
		   int json)
{
	int i;

	if (json) {
		print_json(f, bridge, r);
		return;
	}
	fprintf(f, "bridge %s verdict %s\n", bridge,
		xn_filt_verdict_name(r->verdict));
	if (r->unknown[0])
		fprintf(f, "unknown %s\n", r->unknown);
	for (i = 0; i < r->nports; i++) {
		fprintf(f, "port %s %s%s%s\n", r->ports[i].name,
			r->ports[i].filtered ? "filtered" : "bypassable",
			r->ports[i].filtered ? ": " : "", r->ports[i].reason);
		if (r->ports[i].no_xdp_in)
			fprintf(f, "port %s no XDP redirects in: %s\n",
				r->ports[i].name, r->ports[i].no_xdp_why);
	}
	for (i = 0; i < r->nrules; i++)
		fprintf(f, "rule %s\n  why: %s\n", r->rules[i].text,
			r->rules[i].why);
}
