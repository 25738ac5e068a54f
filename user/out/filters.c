// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Text and JSON output of a filter report (user/filters.h). */
#include <stdio.h>
#include "filters/filters.h"
#include "lib/json_writer.h"

static void print_json(FILE *f, const char *bridge,
		       const struct xn_filt_report *r)
{
	int i;

	fputs("{\"bridge\":", f);
	xn_json_str(f, bridge);
	fputs(",\"verdict\":", f);
	xn_json_str(f, xn_filt_verdict_name(r->verdict));
	fputs(",\"unknown\":", f);
	xn_json_str(f, r->unknown);
	fputs(",\"ports\":[", f);
	for (i = 0; i < r->nports; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		xn_json_str(f, r->ports[i].name);
		fprintf(f, ",\"ifindex\":%d,\"filtered\":%s,\"reason\":",
			r->ports[i].ifindex,
			r->ports[i].filtered ? "true" : "false");
		xn_json_str(f, r->ports[i].reason);
		fputc('}', f);
	}
	fputs("],\"rules\":[", f);
	for (i = 0; i < r->nrules; i++) {
		fprintf(f, "%s{\"rule\":", i ? "," : "");
		xn_json_str(f, r->rules[i].text);
		fputs(",\"why\":", f);
		xn_json_str(f, r->rules[i].why);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

/* Text: "verdict V", "unknown WHY", "port NAME filtered|bypassable
 * [REASON]", "rule TEXT" then "  why: WHY". */
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
	for (i = 0; i < r->nports; i++)
		fprintf(f, "port %s %s%s%s\n", r->ports[i].name,
			r->ports[i].filtered ? "filtered" : "bypassable",
			r->ports[i].filtered ? ": " : "", r->ports[i].reason);
	for (i = 0; i < r->nrules; i++)
		fprintf(f, "rule %s\n  why: %s\n", r->rules[i].text,
			r->rules[i].why);
}
