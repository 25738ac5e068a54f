// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats as a table: see stats.h. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "datapath/names.h"
#include "observe/histogram.h"
#include "observe/stats_view.h"
#include "render/stats.h"

/* 1234567 -> "1.23M" (SI, 3 significant digits). */
static const char *si(char *buf, size_t len, double v)
{
	static const char units[] = " kMGTP";
	int u = 0;

	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*f%c",
			 v < 9.995   ? 2
			 : v < 99.95 ? 1
				     : 0,
			 v, units[u]);
	return buf;
}

/* Nanoseconds, human: "850ns", "12.3us", "1.20ms", "2.00s". */
static const char *fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", ns / 1e9);
	return buf;
}

static void fmt_share(char *buf, size_t len, double share)
{
	if (share < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", share * 100);
}

/* A flow's frames and bytes, or its rates (frames and bits a second). */
static double frames(const struct xn_flow *f, int rates)
{
	return rates ? f->pps : f->packets;
}

static double amount(const struct xn_flow *f, int rates)
{
	return rates ? f->bps : f->bytes;
}

static void table_row(FILE *f, const char *name, const char *stage,
		      const struct xn_port_view *pv, int rates)
{
	const struct xn_flow *p = pv->path;
	const struct xn_flow *err = &p[XN_PATH_REDIRECT_ERR],
			     *drop = &p[XN_PATH_XMIT_DROP];
	double v[8] = {
		frames(&pv->rx, rates),
		amount(&pv->rx, rates),
		frames(&pv->tx, rates),
		amount(&pv->tx, rates),
		frames(&p[XN_PATH_XDP], rates),
		frames(&p[XN_PATH_TC], rates),
		frames(&p[XN_PATH_BRIDGE], rates),
		rates ? err->pps + drop->pps
		      : (double)(err->packets + drop->packets),
	};
	char c[8][16], s[16];
	unsigned int i;

	fmt_share(s, sizeof(s), rates ? pv->share_iv : pv->share);
	for (i = 0; i < 8; i++)
		if (rates && !pv->rx.rated)
			snprintf(c[i], sizeof(c[i]), "%s", i ? "-" : "new");
		else
			si(c[i], sizeof(c[i]), v[i]);
	fprintf(f, "%-15s %-6s %9s %9s %9s %9s %8s %8s %8s %7s %9s\n", name,
		stage, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], s);
}

/* "-- text -----" over width columns. */
static void group(FILE *f, int width, const char *text)
{
	int n = fprintf(f, "-- %s ", text);

	for (; n < width; n++)
		fputc('-', f);
}

void xn_stats_print_table(FILE *f, const struct xn_stats_sample *s,
			  const struct xn_stats_view *v, int latency,
			  int verbose)
{
	int rates = v->interval_s > 0, i;
	unsigned int c;

	fprintf(f, "%s: %s", s->bridge,
		s->attached ? "attached"
			    : "not attached (the bridge forwards "
			      "everything)");
	if (s->attached)
		fprintf(f, ", mode %s", xn_mode_name(s->mode));
	fprintf(f, "; latency probe %s", s->latency_on ? "on" : "off");
	if (rates)
		fprintf(f, "; rates over %.2f s", v->interval_s);
	fputc('\n', f);
	if (!rates) {
		/* Two clocks side by side: the devices' counters run from
		 * their creation, xdpnet's from attach or --reset. */
		fprintf(f, "%-23s", "");
		group(f, 39, "the device's own, lifetime");
		fputc(' ', f);
		group(f, 44, "xdpnet's, since attach or --reset");
		fputc('\n', f);
	}
	if (rates)
		fprintf(f, "%-15s %-6s %9s %9s %9s %9s %8s %8s %8s %7s %9s\n",
			"port", "stage", "rx pkt/s", "rx bit/s", "tx pkt/s",
			"tx bit/s", "xdp/s", "tc/s", "bridge/s", "err/s",
			"fast path");
	else
		fprintf(f, "%-15s %-6s %9s %9s %9s %9s %8s %8s %8s %7s %9s\n",
			"port", "stage", "rx pkts", "rx bytes", "tx pkts",
			"tx bytes", "xdp", "tc", "bridge", "errors",
			"fast path");
	for (i = 0; i < v->nports; i++) {
		const struct xn_port_view *pv = &v->ports[i];

		table_row(f, pv->p->name, xn_port_stage(pv->p), pv, rates);
		if (!verbose)
			continue;
		for (c = 0; c < XDPNET_C_MAX; c++)
			if (pv->ctr[c].packets)
				fprintf(f,
					"    %-18s %12llu pkts %14llu bytes\n",
					xn_ctr_name(c),
					(unsigned long long)pv->ctr[c].packets,
					(unsigned long long)pv->ctr[c].bytes);
		if (pv->rx_dropped || pv->tx_dropped)
			fprintf(f, "    device drops: rx %llu, tx %llu\n",
				(unsigned long long)pv->rx_dropped,
				(unsigned long long)pv->tx_dropped);
	}
	table_row(f, "total", "", &v->total, rates);
	if (v->gone)
		fprintf(f,
			"(%d port%s left the bridge since the last sample)\n",
			v->gone, v->gone == 1 ? "" : "s");
	if (latency)
		xn_stats_print_latency(f, s);
}

/* Rows of one (in, out) pair: rows[0..n) share in and out. */
static int pair_len(const struct xn_stats_sample *s, int i)
{
	int n = 1;

	while (i + n < s->nlat &&
	       s->lat[i + n].key.in_ifindex == s->lat[i].key.in_ifindex &&
	       s->lat[i + n].key.out_ifindex == s->lat[i].key.out_ifindex)
		n++;
	return n;
}

void xn_stats_print_latency(FILE *f, const struct xn_stats_sample *s)
{
	char pair[40], a[16], b[16], c[16], d[16];
	int i, j, n;

	fprintf(f,
		"\nforwarding latency: arrival on IN to hand-off to OUT, "
		"since 'latency on' or --reset; probe %s\n",
		s->latency_on	  ? "on"
		: s->latency_maps ? "off (histograms of an earlier run)"
				  : "off (xdpnet latency BRIDGE on)");
	if (!s->nlat) {
		fputs("  no frames measured yet\n", f);
		return;
	}
	fprintf(f, "%-34s %-6s %10s %9s %9s %9s %9s\n", "in -> out", "path",
		"count", "avg", "p50", "p90", "p99");
	for (i = 0; i < s->nlat; i++) {
		const struct xn_lat_row *r = &s->lat[i];

		snprintf(pair, sizeof(pair), "%s -> %s", r->in, r->out);
		fprintf(f, "%-34s %-6s %10llu %9s %9s %9s %9s\n",
			i && r->key.in_ifindex == r[-1].key.in_ifindex &&
					r->key.out_ifindex ==
						r[-1].key.out_ifindex
				? ""
				: pair,
			xn_lat_path_name(r->key.path),
			(unsigned long long)r->h.count,
			fmt_ns(a, sizeof(a),
			       r->h.count ? (double)r->h.sum_ns / r->h.count
					  : -1),
			fmt_ns(b, sizeof(b), xn_lat_quantile(&r->h, 0.5)),
			fmt_ns(c, sizeof(c), xn_lat_quantile(&r->h, 0.9)),
			fmt_ns(d, sizeof(d), xn_lat_quantile(&r->h, 0.99)));
	}
	/* The buckets, the paths of each pair side by side. */
	for (i = 0; i < s->nlat; i += n) {
		const struct xn_lat_row *r = &s->lat[i];
		int lo = XDPNET_LAT_BUCKETS, hi = -1, bk;

		n = pair_len(s, i);
		for (j = 0; j < n; j++)
			for (bk = 0; bk < XDPNET_LAT_BUCKETS; bk++)
				if (r[j].h.bucket[bk]) {
					lo = bk < lo ? bk : lo;
					hi = bk > hi ? bk : hi;
				}
		if (hi < 0)
			continue;
		snprintf(pair, sizeof(pair), "%s -> %s", r->in, r->out);
		fprintf(f, "\n%-24s", pair);
		for (j = 0; j < n; j++)
			fprintf(f, " %10s", xn_lat_path_name(r[j].key.path));
		fputc('\n', f);
		for (bk = lo; bk <= hi; bk++) {
			fmt_ns(a, sizeof(a), xn_lat_bucket_lo(bk));
			if (bk + 1 >= XDPNET_LAT_BUCKETS)
				snprintf(b, sizeof(b), "inf");
			else
				fmt_ns(b, sizeof(b), xn_lat_bucket_hi(bk));
			snprintf(pair, sizeof(pair), "  [%s, %s)", a, b);
			fprintf(f, "%-24s", pair);
			for (j = 0; j < n; j++)
				fprintf(f, " %10llu",
					(unsigned long long)r[j].h.bucket[bk]);
			fputc('\n', f);
		}
	}
}
