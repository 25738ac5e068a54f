// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats as JSON (schema "xdpnet-stats/1"): see stats.h. */
#include <math.h>
#include <stdio.h>
#include "xdpnet.h"
#include "lib/json_writer.h"
#include "core/names.h"
#include "core/histogram.h"
#include "core/stats_view.h"
#include "out/stats.h"

static void json_num(FILE *f, double v, int valid)
{
	if (!valid || isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.3f", v);
}

static void json_flow(FILE *f, const struct xn_flow *fl)
{
	fprintf(f, "{\"packets\":%llu,\"bytes\":%llu,\"pps\":",
		(unsigned long long)fl->packets, (unsigned long long)fl->bytes);
	json_num(f, fl->pps, fl->rated);
	fputs(",\"bps\":", f);
	json_num(f, fl->bps, fl->rated);
	fputc('}', f);
}

static void json_share(FILE *f, const char *key, double v)
{
	fprintf(f, ",\"%s\":", key);
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%.6f", v);
}

static void json_view(FILE *f, const struct xn_port_view *pv)
{
	unsigned int i;

	fputs("\"rx\":", f);
	json_flow(f, &pv->rx);
	fputs(",\"tx\":", f);
	json_flow(f, &pv->tx);
	fprintf(f, ",\"rx_dropped\":%llu,\"tx_dropped\":%llu,\"paths\":{",
		(unsigned long long)pv->rx_dropped,
		(unsigned long long)pv->tx_dropped);
	for (i = 0; i < XN_PATH_MAX; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", xn_path_name(i));
		json_flow(f, &pv->path[i]);
	}
	fputs("},\"bypass_in\":", f);
	json_flow(f, &pv->bypass_in);
	fputs(",\"counters\":{", f);
	for (i = 0; i < XDPNET_C_MAX; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", xn_ctr_name(i));
		json_flow(f, &pv->ctr[i]);
	}
	fputc('}', f);
	json_share(f, "fast_path_share", pv->share);
	json_share(f, "fast_path_share_interval", pv->share_iv);
}

static void json_latency(FILE *f, const struct xn_stats_sample *s)
{
	int i, first;
	unsigned int b;

	fprintf(f, "\"latency\":{\"probe\":\"%s\",\"pairs\":[",
		s->latency_on ? "on" : "off");
	for (i = 0; i < s->nlat; i++) {
		const struct xn_lat_row *r = &s->lat[i];
		const struct xdpnet_lat_hist *h = &r->h;
		double q;

		fprintf(f, "%s{\"in\":", i ? "," : "");
		xn_json_str(f, r->in);
		fputs(",\"out\":", f);
		xn_json_str(f, r->out);
		fprintf(f,
			",\"in_ifindex\":%u,\"out_ifindex\":%u,\"path\":\"%s\","
			"\"count\":%llu,\"sum_ns\":%llu,\"avg_ns\":",
			r->key.in_ifindex, r->key.out_ifindex,
			xn_lat_path_name(r->key.path),
			(unsigned long long)h->count,
			(unsigned long long)h->sum_ns);
		json_num(f, h->count ? (double)h->sum_ns / h->count : 0,
			 h->count > 0);
		q = xn_lat_quantile(h, 0.5);
		fputs(",\"p50_ns\":", f);
		json_num(f, q, q >= 0);
		q = xn_lat_quantile(h, 0.9);
		fputs(",\"p90_ns\":", f);
		json_num(f, q, q >= 0);
		q = xn_lat_quantile(h, 0.99);
		fputs(",\"p99_ns\":", f);
		json_num(f, q, q >= 0);
		fputs(",\"buckets\":[", f);
		for (b = 0, first = 1; b < XDPNET_LAT_BUCKETS; b++) {
			if (!h->bucket[b])
				continue;
			fprintf(f, "%s{\"lo_ns\":%llu,\"hi_ns\":",
				first ? "" : ",",
				(unsigned long long)xn_lat_bucket_lo(b));
			if (b + 1 >= XDPNET_LAT_BUCKETS)
				fputs("null", f);
			else
				fprintf(f, "%llu",
					(unsigned long long)xn_lat_bucket_hi(
						b));
			fprintf(f, ",\"count\":%llu}",
				(unsigned long long)h->bucket[b]);
			first = 0;
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

void xn_stats_print_json(FILE *f, const struct xn_stats_sample *s,
			 const struct xn_stats_view *v, unsigned long seq)
{
	int i;

	fprintf(f,
		"{\"schema\":\"%s\",\"seq\":%lu,\"bridge\":", XN_STATS_SCHEMA,
		seq);
	xn_json_str(f, s->bridge);
	fprintf(f, ",\"ifindex\":%u,\"time\":%.3f,\"interval_s\":",
		s->bridge_ifindex, s->wall);
	json_num(f, v->interval_s, v->interval_s > 0);
	fprintf(f,
		",\"attached\":%s,\"mode\":", s->attached ? "true" : "false");
	if (s->attached)
		fprintf(f, "\"%s\"", xn_mode_name(s->mode));
	else
		fputs("null", f);
	fputs(",\"ports\":[", f);
	for (i = 0; i < v->nports; i++) {
		const struct xn_port_view *pv = &v->ports[i];

		fprintf(f, "%s{\"name\":", i ? "," : "");
		xn_json_str(f, pv->p->name);
		fprintf(f,
			",\"ifindex\":%u,\"kind\":\"%s\",\"attached\":%s,"
			"\"stage\":\"%s\",\"new\":%s,",
			pv->p->ifindex, xn_port_kind(pv->p),
			pv->p->attached ? "true" : "false",
			xn_port_stage(pv->p),
			pv->is_new && v->interval_s > 0 ? "true" : "false");
		json_view(f, pv);
		fputc('}', f);
	}
	fprintf(f, "],\"total\":{\"ports\":%d,", v->nports);
	json_view(f, &v->total);
	fputs("},", f);
	json_latency(f, s);
	fputs("}\n", f);
}
