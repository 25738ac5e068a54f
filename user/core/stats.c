// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet stats: see stats.h. Sampling reads the devices' counters over
 * netlink (IFLA_STATS64) and xdpnet's from the pinned maps, so counters
 * outlive the CLI and work for a bridge that is not attached (then every
 * frame takes the bridge).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "out/format.h"
#include "lib/nl.h"
#include "core/latency.h"
#include "core/stats.h"
#include "core/pins.h"
#include "cmd/cmd.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------ pure functions */

static const char *const path_names[XN_PATH_MAX] = {
	[XN_PATH_XDP] = "xdp",
	[XN_PATH_TC] = "tc",
	[XN_PATH_BRIDGE] = "bridge",
	[XN_PATH_REDIRECT_ERR] = "redirect_err",
	[XN_PATH_XMIT_DROP] = "xmit_drop",
};

const char *xn_path_name(unsigned int path)
{
	return path < XN_PATH_MAX ? path_names[path] : NULL;
}

const char *xn_lat_path_name(unsigned int path)
{
	switch (path) {
	case XDPNET_LAT_BRIDGE:
		return "bridge";
	case XDPNET_LAT_TC:
		return "tc";
	case XDPNET_LAT_XDP:
		return "xdp";
	default:
		return "?";
	}
}

__u64 xn_ctr_delta(__u64 prev, __u64 cur)
{
	if (cur >= prev)
		return cur - prev;
	if (prev > UINT64_MAX - (1ULL << 48))
		return cur - prev; /* 64-bit wrap: modular difference */
	if (prev <= UINT32_MAX && prev > (1ULL << 31))
		return (__u32)(cur - prev); /* 32-bit wrap */
	return cur; /* reset: it counted up from zero since */
}

/* Frames that arrived on the port, by path. */
static void port_paths(const struct xn_stats_port *p, __u64 pk[XN_PATH_MAX],
		       __u64 by[XN_PATH_MAX])
{
	const struct xdpnet_ctr_val *c = p->ctr.c;
	int i;

	memset(pk, 0, sizeof(__u64) * XN_PATH_MAX);
	memset(by, 0, sizeof(__u64) * XN_PATH_MAX);
	if (!p->attached) {
		pk[XN_PATH_BRIDGE] = p->dev.rx_packets;
		by[XN_PATH_BRIDGE] = p->dev.rx_bytes;
		return;
	}
	pk[XN_PATH_XDP] = c[XDPNET_C_XDP_REDIRECT].packets;
	by[XN_PATH_XDP] = c[XDPNET_C_XDP_REDIRECT].bytes;
	pk[XN_PATH_TC] = c[XDPNET_C_TC_REDIRECT].packets;
	by[XN_PATH_TC] = c[XDPNET_C_TC_REDIRECT].bytes;
	for (i = XDPNET_C_PASS_MCAST; i <= XDPNET_C_PASS_MALFORMED; i++) {
		pk[XN_PATH_BRIDGE] += c[i].packets;
		by[XN_PATH_BRIDGE] += c[i].bytes;
	}
	pk[XN_PATH_REDIRECT_ERR] = c[XDPNET_C_DROP_REDIRECT_ERR].packets;
	by[XN_PATH_REDIRECT_ERR] = c[XDPNET_C_DROP_REDIRECT_ERR].bytes;
	pk[XN_PATH_XMIT_DROP] = c[XDPNET_C_DROP_XMIT_ERR].packets;
	by[XN_PATH_XMIT_DROP] = c[XDPNET_C_DROP_XMIT_ERR].bytes;
}

/* Unicast between two attached ports: what was bypassed, and what could
 * have been (the bypass plus frames the datapath handed to the bridge or
 * lost although both ends are attached ports). */
static void port_share(const struct xn_stats_port *p, __u64 *bypass,
		       __u64 *eligible)
{
	const struct xdpnet_ctr_val *c = p->ctr.c;

	*bypass = c[XDPNET_C_XDP_REDIRECT].packets +
		  c[XDPNET_C_TC_REDIRECT].packets;
	*eligible =
		*bypass + c[XDPNET_C_PASS_REFRESH].packets +
		c[XDPNET_C_PASS_SRC].packets + c[XDPNET_C_PASS_VLAN].packets +
		c[XDPNET_C_PASS_ISOLATED].packets +
		c[XDPNET_C_PASS_STATE].packets + c[XDPNET_C_PASS_MTU].packets +
		c[XDPNET_C_DROP_REDIRECT_ERR].packets;
}

static void flow_set(struct xn_flow *f, __u64 pk, __u64 by, __u64 ppk,
		     __u64 pby, double dt, int rated)
{
	f->packets = pk;
	f->bytes = by;
	f->rated = rated && dt > 0;
	f->pps = f->rated ? xn_ctr_delta(ppk, pk) / dt : 0;
	f->bps = f->rated ? xn_ctr_delta(pby, by) * 8.0 / dt : 0;
}

static void flow_add(struct xn_flow *t, const struct xn_flow *f)
{
	t->packets += f->packets;
	t->bytes += f->bytes;
	if (f->rated) {
		t->pps += f->pps;
		t->bps += f->bps;
	}
}

static const struct xn_stats_port *find_port(const struct xn_stats_sample *s,
					     const struct xn_stats_port *p)
{
	int i;

	for (i = 0; s && i < s->nports; i++)
		if (s->ports[i].ifindex == p->ifindex &&
		    !strcmp(s->ports[i].name, p->name))
			return &s->ports[i];
	return NULL;
}

static void view_port(struct xn_port_view *v, const struct xn_stats_port *p,
		      const struct xn_stats_port *q, double dt)
{
	static const struct xn_stats_port none;
	__u64 pk[XN_PATH_MAX], by[XN_PATH_MAX], qpk[XN_PATH_MAX],
		qby[XN_PATH_MAX], bp, el, qbp, qel;
	int rated = q && dt > 0, i;

	memset(v, 0, sizeof(*v));
	v->p = p;
	/* A port that came, or changed hands between the bridge and the
	 * datapath, has no comparable earlier reading. */
	if (q && q->attached != p->attached)
		rated = 0;
	v->is_new = !q || q->attached != p->attached;
	if (!q)
		q = &none;
	flow_set(&v->rx, p->dev.rx_packets, p->dev.rx_bytes, q->dev.rx_packets,
		 q->dev.rx_bytes, dt, rated);
	flow_set(&v->tx, p->dev.tx_packets, p->dev.tx_bytes, q->dev.tx_packets,
		 q->dev.tx_bytes, dt, rated);
	v->rx_dropped = p->dev.rx_dropped;
	v->tx_dropped = p->dev.tx_dropped;
	port_paths(p, pk, by);
	port_paths(q, qpk, qby);
	for (i = 0; i < XN_PATH_MAX; i++)
		flow_set(&v->path[i], pk[i], by[i], qpk[i], qby[i], dt, rated);
	for (i = 0; i < XDPNET_C_MAX; i++)
		flow_set(&v->ctr[i], p->ctr.c[i].packets, p->ctr.c[i].bytes,
			 q->ctr.c[i].packets, q->ctr.c[i].bytes, dt, rated);
	flow_set(&v->bypass_in, p->ctr.c[XDPNET_C_RX_REDIRECTED].packets,
		 p->ctr.c[XDPNET_C_RX_REDIRECTED].bytes,
		 q->ctr.c[XDPNET_C_RX_REDIRECTED].packets,
		 q->ctr.c[XDPNET_C_RX_REDIRECTED].bytes, dt, rated);
	port_share(p, &bp, &el);
	port_share(q, &qbp, &qel);
	v->share = p->attached && el ? (double)bp / el : -1;
	v->share_iv = -1;
	if (p->attached && rated && xn_ctr_delta(qel, el))
		v->share_iv =
			(double)xn_ctr_delta(qbp, bp) / xn_ctr_delta(qel, el);
}

int xn_stats_view(const struct xn_stats_sample *prev,
		  const struct xn_stats_sample *cur, struct xn_stats_view *v)
{
	__u64 bp = 0, el = 0, bpi = 0, eli = 0;
	int i, j, rated_any = 0;
	double dt = 0;

	memset(v, 0, sizeof(*v));
	if (prev && cur->mono_ns > prev->mono_ns)
		dt = (cur->mono_ns - prev->mono_ns) / 1e9;
	v->interval_s = dt;
	v->nports = cur->nports;
	v->ports = calloc(cur->nports ? cur->nports : 1, sizeof(*v->ports));
	if (!v->ports)
		return -ENOMEM;
	for (i = 0; i < cur->nports; i++) {
		const struct xn_stats_port *p = &cur->ports[i];
		const struct xn_stats_port *q = prev ? find_port(prev, p)
						     : NULL;
		struct xn_port_view *pv = &v->ports[i];
		__u64 b, e;

		view_port(pv, p, q, dt);
		flow_add(&v->total.rx, &pv->rx);
		flow_add(&v->total.tx, &pv->tx);
		v->total.rx_dropped += pv->rx_dropped;
		v->total.tx_dropped += pv->tx_dropped;
		for (j = 0; j < XN_PATH_MAX; j++)
			flow_add(&v->total.path[j], &pv->path[j]);
		for (j = 0; j < XDPNET_C_MAX; j++)
			flow_add(&v->total.ctr[j], &pv->ctr[j]);
		flow_add(&v->total.bypass_in, &pv->bypass_in);
		if (p->attached) {
			port_share(p, &b, &e);
			bp += b;
			el += e;
			if (pv->rx.rated) {
				__u64 qb, qe;

				port_share(q, &qb, &qe);
				bpi += xn_ctr_delta(qb, b);
				eli += xn_ctr_delta(qe, e);
			}
		}
		rated_any |= pv->rx.rated;
	}
	/* Totals are rated whenever there was an interval: the sum of the
	 * ports that can be compared (a new port adds nothing yet, a port
	 * that left takes nothing away). */
	if (dt > 0) {
		v->total.rx.rated = v->total.tx.rated = 1;
		v->total.bypass_in.rated = 1;
		for (j = 0; j < XN_PATH_MAX; j++)
			v->total.path[j].rated = 1;
		for (j = 0; j < XDPNET_C_MAX; j++)
			v->total.ctr[j].rated = 1;
	}
	v->total.share = el ? (double)bp / el : -1;
	v->total.share_iv = rated_any && eli ? (double)bpi / eli : -1;
	for (i = 0; prev && i < prev->nports; i++)
		if (!find_port(cur, &prev->ports[i]))
			v->gone++;
	return 0;
}

void xn_stats_view_free(struct xn_stats_view *v)
{
	free(v->ports);
	v->ports = NULL;
}

__u64 xn_lat_bucket_lo(unsigned int b)
{
	return b ? 1ULL << b : 0;
}

__u64 xn_lat_bucket_hi(unsigned int b)
{
	return b + 1 >= XDPNET_LAT_BUCKETS ? UINT64_MAX : 1ULL << (b + 1);
}

double xn_lat_quantile(const struct xdpnet_lat_hist *h, double q)
{
	__u64 total = 0, cum = 0;
	double rank;
	unsigned int b;

	for (b = 0; b < XDPNET_LAT_BUCKETS; b++)
		total += h->bucket[b];
	if (!total || q <= 0 || q > 1)
		return -1;
	rank = q * total;
	for (b = 0; b < XDPNET_LAT_BUCKETS; b++) {
		double lo, hi;

		if (!h->bucket[b] || cum + h->bucket[b] < rank) {
			cum += h->bucket[b];
			continue;
		}
		lo = xn_lat_bucket_lo(b);
		hi = b + 1 >= XDPNET_LAT_BUCKETS ? 2 * lo : xn_lat_bucket_hi(b);
		return lo + (hi - lo) * (rank - cum) / h->bucket[b];
	}
	return xn_lat_bucket_lo(XDPNET_LAT_BUCKETS - 1);
}

void xn_lat_sum(const struct xdpnet_lat_hist *percpu, int ncpu,
		struct xdpnet_lat_hist *out)
{
	int cpu, b;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpu; cpu++) {
		out->count += percpu[cpu].count;
		out->sum_ns += percpu[cpu].sum_ns;
		for (b = 0; b < XDPNET_LAT_BUCKETS; b++)
			out->bucket[b] += percpu[cpu].bucket[b];
	}
}

/* ----------------------------------------------------------- rendering */

static const char *port_kind(const struct xn_stats_port *p)
{
	if (!strcmp(p->kind, "tun"))
		return "tap";
	return p->kind[0] ? p->kind : "physical";
}

static const char *port_stage(const struct xn_stats_port *p)
{
	if (!p->attached)
		return "bridge";
	return p->xdp ? "xdp" : "tc";
}

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

static void table_row(FILE *f, const char *name, const char *stage,
		      const struct xn_port_view *pv, int rates)
{
	char a[16], b[16], c[16], d[16], e[16], g[16], h[16], k[16], s[16];
	const struct xn_flow *p = pv->path;

	if (rates) {
		fmt_share(s, sizeof(s), pv->share_iv);
		if (!pv->rx.rated) {
			fprintf(f,
				"%-15s %-6s %9s %9s %9s %9s %8s %8s %8s %7s %9s\n",
				name, stage, "new", "-", "-", "-", "-", "-",
				"-", "-", s);
			return;
		}
		fprintf(f, "%-15s %-6s %9s %9s %9s %9s %8s %8s %8s %7s %9s\n",
			name, stage, si(a, sizeof(a), pv->rx.pps),
			si(b, sizeof(b), pv->rx.bps),
			si(c, sizeof(c), pv->tx.pps),
			si(d, sizeof(d), pv->tx.bps),
			si(e, sizeof(e), p[XN_PATH_XDP].pps),
			si(g, sizeof(g), p[XN_PATH_TC].pps),
			si(h, sizeof(h), p[XN_PATH_BRIDGE].pps),
			si(k, sizeof(k),
			   p[XN_PATH_REDIRECT_ERR].pps +
				   p[XN_PATH_XMIT_DROP].pps),
			s);
		return;
	}
	fmt_share(s, sizeof(s), pv->share);
	fprintf(f, "%-15s %-6s %9s %9s %9s %9s %8s %8s %8s %7s %9s\n", name,
		stage, si(a, sizeof(a), pv->rx.packets),
		si(b, sizeof(b), pv->rx.bytes),
		si(c, sizeof(c), pv->tx.packets),
		si(d, sizeof(d), pv->tx.bytes),
		si(e, sizeof(e), p[XN_PATH_XDP].packets),
		si(g, sizeof(g), p[XN_PATH_TC].packets),
		si(h, sizeof(h), p[XN_PATH_BRIDGE].packets),
		si(k, sizeof(k),
		   p[XN_PATH_REDIRECT_ERR].packets +
			   p[XN_PATH_XMIT_DROP].packets),
		s);
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
	else
		fputs("; counts since attach or --reset", f);
	fputc('\n', f);
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

		table_row(f, pv->p->name, port_stage(pv->p), pv, rates);
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
			pv->p->ifindex, port_kind(pv->p),
			pv->p->attached ? "true" : "false", port_stage(pv->p),
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

/* --------------------------------------------------------- Prometheus */

static void prom_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void prom_head(FILE *f, const char *name, const char *type,
		      const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_port(FILE *f, const char *name, const char *bridge,
		      const char *port)
{
	fprintf(f, "%s{bridge=", name);
	prom_str(f, bridge);
	fputs(",port=", f);
	prom_str(f, port);
}

enum { DEV_RXP, DEV_RXB, DEV_TXP, DEV_TXB, DEV_RXD, DEV_TXD };

static const struct {
	const char *name, *help;
} dev_families[] = {
	[DEV_RXP] = { "xdpnet_rx_packets_total",
		      "Frames the port's device received (from the VM)." },
	[DEV_RXB] = { "xdpnet_rx_bytes_total",
		      "Bytes the port's device received (from the VM)." },
	[DEV_TXP] = { "xdpnet_tx_packets_total",
		      "Frames the port's device sent (to the VM)." },
	[DEV_TXB] = { "xdpnet_tx_bytes_total",
		      "Bytes the port's device sent (to the VM)." },
	[DEV_RXD] = { "xdpnet_rx_dropped_total",
		      "Frames the port's device dropped on receive." },
	[DEV_TXD] = { "xdpnet_tx_dropped_total",
		      "Frames the port's device dropped on transmit." },
};

static __u64 dev_val(const struct xn_link_stats *d, unsigned int i)
{
	switch (i) {
	case DEV_RXP:
		return d->rx_packets;
	case DEV_RXB:
		return d->rx_bytes;
	case DEV_TXP:
		return d->tx_packets;
	case DEV_TXB:
		return d->tx_bytes;
	case DEV_RXD:
		return d->rx_dropped;
	default:
		return d->tx_dropped;
	}
}

void xn_stats_print_prom(FILE *f, const struct xn_stats_sample *s, int n)
{
	unsigned int i, c, b;
	int k, j, bytes;

	prom_head(f, "xdpnet_attached", "gauge",
		  "1 if xdpnet's datapath is attached to the bridge.");
	for (k = 0; k < n; k++) {
		fputs("xdpnet_attached{bridge=", f);
		prom_str(f, s[k].bridge);
		fprintf(f, "} %d\n", s[k].attached);
	}
	prom_head(f, "xdpnet_latency_probe", "gauge",
		  "1 if the forwarding-latency probe is on.");
	for (k = 0; k < n; k++) {
		fputs("xdpnet_latency_probe{bridge=", f);
		prom_str(f, s[k].bridge);
		fprintf(f, "} %d\n", s[k].latency_on);
	}
	prom_head(f, "xdpnet_port_info", "gauge",
		  "Ports of the bridge; stage is xdp, tc or bridge (not "
		  "attached).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nports; j++) {
			const struct xn_stats_port *p = &s[k].ports[j];

			prom_port(f, "xdpnet_port_info", s[k].bridge, p->name);
			fprintf(f,
				",ifindex=\"%u\",kind=\"%s\",stage=\"%s\"} 1\n",
				p->ifindex, port_kind(p), port_stage(p));
		}
	for (i = 0; i < ARRAY_SIZE(dev_families); i++) {
		prom_head(f, dev_families[i].name, "counter",
			  dev_families[i].help);
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				prom_port(f, dev_families[i].name, s[k].bridge,
					  s[k].ports[j].name);
				fprintf(f, "} %llu\n",
					(unsigned long long)dev_val(
						&s[k].ports[j].dev, i));
			}
	}
	for (bytes = 0; bytes < 2; bytes++) {
		const char *name = bytes ? "xdpnet_bytes_total"
					 : "xdpnet_packets_total";

		prom_head(
			f, name, "counter",
			bytes ? "Bytes that arrived on the port, by the path "
				"they took."
			      : "Frames that arrived on the port, by the path "
				"they took.");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				__u64 pk[XN_PATH_MAX], by[XN_PATH_MAX];

				port_paths(&s[k].ports[j], pk, by);
				for (i = 0; i < XN_PATH_MAX; i++) {
					prom_port(f, name, s[k].bridge,
						  s[k].ports[j].name);
					fprintf(f, ",path=\"%s\"} %llu\n",
						xn_path_name(i),
						(unsigned long long)(bytes ? by[i]
									   : pk[i]));
				}
			}
	}
	for (bytes = 0; bytes < 2; bytes++) {
		const char *name = bytes ? "xdpnet_bypass_in_bytes_total"
					 : "xdpnet_bypass_in_packets_total";

		prom_head(
			f, name, "counter",
			"Bypassed frames the datapath delivered to the port.");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				const struct xdpnet_ctr_val *v =
					&s[k].ports[j]
						 .ctr.c[XDPNET_C_RX_REDIRECTED];

				prom_port(f, name, s[k].bridge,
					  s[k].ports[j].name);
				fprintf(f, "} %llu\n",
					(unsigned long long)(bytes ? v->bytes
								   : v->packets));
			}
	}
	for (bytes = 0; bytes < 2; bytes++) {
		const char *name = bytes ? "xdpnet_verdict_bytes_total"
					 : "xdpnet_verdict_packets_total";

		prom_head(f, name, "counter",
			  "xdpnet's per-port counters by verdict (see "
			  "xdpnet(8)).");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				const struct xn_stats_port *p = &s[k].ports[j];

				if (!p->attached)
					continue;
				for (c = 0; c < XDPNET_C_MAX; c++) {
					prom_port(f, name, s[k].bridge,
						  p->name);
					fprintf(f, ",verdict=\"%s\"} %llu\n",
						xn_ctr_name(c),
						(unsigned long long)(bytes ? p->ctr.c[c]
										     .bytes
									   : p->ctr.c[c]
										     .packets));
				}
			}
	}
	prom_head(f, "xdpnet_fast_path_share", "gauge",
		  "Bypassed share of the unicast between attached ports since "
		  "the counters were reset (0 to 1).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nports; j++) {
			const struct xn_stats_port *p = &s[k].ports[j];
			__u64 bp, el;

			port_share(p, &bp, &el);
			if (!p->attached || !el)
				continue;
			prom_port(f, "xdpnet_fast_path_share", s[k].bridge,
				  p->name);
			fprintf(f, "} %.6f\n", (double)bp / el);
		}
	prom_head(f, "xdpnet_forward_latency_seconds", "histogram",
		  "Time from a frame's arrival on in_port to its hand-off to "
		  "out_port, by path (xdpnet latency BRIDGE on).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nlat; j++) {
			const struct xn_lat_row *r = &s[k].lat[j];
			__u64 cum = 0;

			for (b = 0; b < XDPNET_LAT_BUCKETS; b++) {
				cum += r->h.bucket[b];
				fputs("xdpnet_forward_latency_seconds_bucket{"
				      "bridge=",
				      f);
				prom_str(f, s[k].bridge);
				fputs(",in_port=", f);
				prom_str(f, r->in);
				fputs(",out_port=", f);
				prom_str(f, r->out);
				fprintf(f, ",path=\"%s\",le=",
					xn_lat_path_name(r->key.path));
				if (b + 1 >= XDPNET_LAT_BUCKETS)
					fputs("\"+Inf\"", f);
				else
					fprintf(f, "\"%.9g\"",
						xn_lat_bucket_hi(b) / 1e9);
				fprintf(f, "} %llu\n", (unsigned long long)cum);
			}
			fputs("xdpnet_forward_latency_seconds_sum{bridge=", f);
			prom_str(f, s[k].bridge);
			fputs(",in_port=", f);
			prom_str(f, r->in);
			fputs(",out_port=", f);
			prom_str(f, r->out);
			fprintf(f, ",path=\"%s\"} %.9f\n",
				xn_lat_path_name(r->key.path),
				r->h.sum_ns / 1e9);
			fputs("xdpnet_forward_latency_seconds_count{bridge=",
			      f);
			prom_str(f, s[k].bridge);
			fputs(",in_port=", f);
			prom_str(f, r->in);
			fputs(",out_port=", f);
			prom_str(f, r->out);
			fprintf(f, ",path=\"%s\"} %llu\n",
				xn_lat_path_name(r->key.path),
				(unsigned long long)cum);
		}
}

/* --------------------------------------------------------- kernel side */

int xn_stats_pins_ours(const char *bridge)
{
	struct xdpnet_lat_ctl ctl = {};
	struct xn_state st;
	__u32 zero = 0;
	int fd;

	if (!xn_state_open(&st, bridge)) {
		xn_state_close(&st);
		return 1;
	}
	if (xn_pin_exists(bridge, "meta"))
		return 0; /* another namespace's (or version's) state */
	fd = xn_pin_get(bridge, "lat_ctl");
	if (fd >= 0) {
		int ok = bpf_map_lookup_elem(fd, &zero, &ctl) ||
			 !ctl.netns_ino || ctl.netns_ino == xn_netns_ino();

		close(fd);
		return ok;
	}
	return 1;
}

static int cmp_port(const void *a, const void *b)
{
	return strcmp(((const struct xn_stats_port *)a)->name,
		      ((const struct xn_stats_port *)b)->name);
}

void xn_stats_free(struct xn_stats_sample *s)
{
	free(s->ports);
	free(s->lat);
	s->ports = NULL;
	s->lat = NULL;
	s->nports = s->nlat = 0;
}

/* xdpnet's side of a sample: which ports the datapath carries, and its
 * counters. Leaves s->attached 0 when the bridge is not attached. */
static int collect_datapath(const char *bridge, struct xn_stats_sample *s)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct xdpnet_stats *pc;
	struct xn_state st;

	if (ncpu < 0)
		return ncpu;
	if (xn_state_open(&st, bridge))
		return 0;
	if (st.meta.bridge_ifindex != s->bridge_ifindex) {
		xn_state_close(&st);
		return 0;
	}
	pc = calloc(ncpu, sizeof(*pc));
	if (!pc) {
		xn_state_close(&st);
		return -ENOMEM;
	}
	s->attached = 1;
	s->mode = st.meta.mode;
	for (i = 0; i < s->nports; i++) {
		struct xn_stats_port *p = &s->ports[i];
		struct xdpnet_port port;
		__u32 slot;

		if (bpf_map_lookup_elem(st.fd[XM_PORT_IDX], &p->ifindex,
					&slot) ||
		    bpf_map_lookup_elem(st.fd[XM_PORTS], &slot, &port) ||
		    port.ifindex != p->ifindex)
			continue;
		p->attached = 1;
		p->xdp = !!(port.flags & XDPNET_PORT_XDP);
		if (!bpf_map_lookup_elem(st.fd[XM_STATS], &slot, pc))
			xn_sum_stats(pc, ncpu, &p->ctr);
	}
	free(pc);
	xn_state_close(&st);
	return 0;
}

int xn_stats_collect(const char *bridge, struct xn_stats_sample *s)
{
	struct xn_port_stats *ps = NULL;
	struct timespec mono, wall;
	struct xn_link br;
	int n = 0, i, err;

	memset(s, 0, sizeof(*s));
	err = xn_find_bridge(bridge, &br);
	if (err)
		return err;
	snprintf(s->bridge, sizeof(s->bridge), "%s", bridge);
	s->bridge_ifindex = br.ifindex;
	err = xn_list_port_stats(br.ifindex, &ps, &n);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	if (err) {
		xn_err("cannot read the ports of %s: %s", bridge,
		       strerror(-err));
		return XN_ERR;
	}
	s->mono_ns = (__u64)mono.tv_sec * 1000000000ULL + mono.tv_nsec;
	s->wall = wall.tv_sec + wall.tv_nsec / 1e9;
	s->ports = calloc(n ? n : 1, sizeof(*s->ports));
	if (!s->ports) {
		free(ps);
		return XN_ERR;
	}
	for (i = 0; i < n; i++) {
		struct xn_stats_port *p = &s->ports[i];

		p->ifindex = ps[i].link.ifindex;
		snprintf(p->name, sizeof(p->name), "%s", ps[i].link.name);
		snprintf(p->kind, sizeof(p->kind), "%s", ps[i].link.kind);
		p->dev = ps[i].st;
	}
	s->nports = n;
	free(ps);
	qsort(s->ports, s->nports, sizeof(*s->ports), cmp_port);
	err = collect_datapath(bridge, s);
	if (!err) {
		err = xn_lat_read(bridge, &s->lat, &s->nlat);
		s->latency_maps = !err;
		if (err == -ENOENT)
			err = 0;
	}
	if (err) {
		xn_err("cannot read xdpnet's maps for %s: %s", bridge,
		       strerror(-err));
		xn_stats_free(s);
		return XN_ERR;
	}
	s->latency_on = xn_lat_is_on(bridge);
	return 0;
}

int xn_stats_reset(const char *bridge)
{
	int ncpu = libbpf_num_possible_cpus(), did = 0;
	struct xdpnet_stats *zero;
	struct xn_state st;
	__u32 key;

	if (ncpu < 0)
		return XN_ERR;
	if (xn_pinned(bridge) >= XN_PINNED_OTHER_NS)
		return xn_pinned_refuse(bridge, xn_pinned(bridge));
	if (!xn_stats_pins_ours(bridge)) {
		xn_err("%s/%s belongs to a bridge named %s in another network "
		       "namespace",
		       XDPNET_PIN_ROOT, bridge, bridge);
		return XN_ERR;
	}
	if (!xn_state_open(&st, bridge)) {
		zero = calloc(ncpu, sizeof(*zero));
		if (!zero) {
			xn_state_close(&st);
			return XN_ERR;
		}
		for (key = 0; key < XDPNET_MAX_PORTS; key++)
			bpf_map_update_elem(st.fd[XM_STATS], &key, zero,
					    BPF_EXIST);
		free(zero);
		xn_state_close(&st);
		did = 1;
	}
	if (!xn_lat_reset(bridge))
		did = 1;
	if (!did) {
		xn_err("xdpnet keeps no counters for %s (not attached, latency "
		       "probe never on)",
		       bridge);
		return XN_ENOTATTACHED;
	}
	return XN_OK;
}

static volatile sig_atomic_t stop_stats;

static void on_signal(int sig)
{
	(void)sig;
	stop_stats = 1;
}

static void show(const struct xn_opts *o, const struct xn_stats_sample *prev,
		 const struct xn_stats_sample *cur, unsigned long seq, int live)
{
	struct xn_stats_view v;

	if (xn_stats_view(prev, cur, &v))
		return;
	if (o->json) {
		xn_stats_print_json(stdout, cur, &v, seq);
	} else {
		if (live)
			fputs("\033[H\033[2J", stdout);
		else if (seq > 1)
			fputc('\n', stdout);
		xn_stats_print_table(stdout, cur, &v, o->latency, o->verbose);
	}
	fflush(stdout);
	xn_stats_view_free(&v);
}

int xn_stats(const struct xn_opts *o)
{
	struct xn_stats_sample a, b, *prev = &a, *cur = &b, *t;
	struct timespec next;
	unsigned long seq = 0;
	int err, live;

	if (geteuid() != 0) {
		xn_err("must run as root (needs CAP_BPF and CAP_SYS_ADMIN to "
		       "read pinned maps)");
		return XN_EPERM;
	}
	err = xn_ensure_bpffs();
	if (err)
		return err;
	if (o->reset) {
		struct xn_link br;

		err = xn_find_bridge(o->bridge, &br);
		if (!err)
			err = xn_stats_reset(o->bridge);
		if (err)
			return err;
		if (!o->interval && !o->json && !o->prom && !o->latency) {
			xn_info("xdpnet: counters and histograms of %s reset "
				"(device counters are the kernel's and keep "
				"counting)",
				o->bridge);
			return XN_OK;
		}
	}
	if (xn_pinned(o->bridge) >= XN_PINNED_OTHER_NS)
		return xn_pinned_refuse(o->bridge, xn_pinned(o->bridge));
	if (!xn_stats_pins_ours(o->bridge)) {
		xn_err("%s/%s belongs to a bridge named %s in another network "
		       "namespace",
		       XDPNET_PIN_ROOT, o->bridge, o->bridge);
		return XN_ERR;
	}
	err = xn_stats_collect(o->bridge, cur);
	if (err)
		return err;
	if (o->prom) {
		xn_stats_print_prom(stdout, cur, 1);
		xn_stats_free(cur);
		return fflush(stdout) ? XN_ERR : XN_OK;
	}
	if (!o->interval) {
		show(o, NULL, cur, ++seq, 0);
		xn_stats_free(cur);
		return XN_OK;
	}
	live = !o->json && isatty(STDOUT_FILENO);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop_stats && (!o->count || seq < (unsigned long)o->count)) {
		__u64 ns = next.tv_nsec + (__u64)(o->interval * 1e9);

		next.tv_sec += ns / 1000000000ULL;
		next.tv_nsec = ns % 1000000000ULL;
		while (!stop_stats &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (stop_stats)
			break;
		t = prev;
		prev = cur;
		cur = t;
		err = xn_stats_collect(o->bridge, cur);
		if (err) {
			xn_stats_free(prev);
			return err;
		}
		show(o, prev, cur, ++seq, live);
		xn_stats_free(prev);
	}
	xn_stats_free(cur);
	return XN_OK;
}
