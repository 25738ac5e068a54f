// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats as JSON (schema "xdpnet-stats/1"): see stats.h. */
#include <math.h>
#include <stdio.h>
#include "xdpnet.h"
#include "lib/json_writer.h"
#include "datapath/names.h"
#include "observe/histogram.h"
#include "observe/stats_view.h"
#include "render/stats.h"

/* A rate or a mean: "%.3f", null when not valid (or not finite). */
static void num(struct xn_jw *w, const char *key, double v, int valid)
{
	xn_jw_key(w, key);
	if (!valid || isnan(v) || isinf(v))
		xn_jw_null(w);
	else
		xn_jw_fixed(w, v, 3);
}

static void flow(struct xn_jw *w, const char *key, const struct xn_flow *fl)
{
	xn_jw_kobj(w, key);
	xn_jw_kuint(w, "packets", fl->packets);
	xn_jw_kuint(w, "bytes", fl->bytes);
	num(w, "pps", fl->pps, fl->rated);
	num(w, "bps", fl->bps, fl->rated);
	xn_jw_obj_end(w);
}

/* A share (0 to 1): "%.6f", null when undefined (< 0). */
static void share(struct xn_jw *w, const char *key, double v)
{
	xn_jw_key(w, key);
	if (v < 0)
		xn_jw_null(w);
	else
		xn_jw_fixed(w, v, 6);
}

static void view(struct xn_jw *w, const struct xn_port_view *pv)
{
	unsigned int i;

	flow(w, "rx", &pv->rx);
	flow(w, "tx", &pv->tx);
	xn_jw_kuint(w, "rx_dropped", pv->rx_dropped);
	xn_jw_kuint(w, "tx_dropped", pv->tx_dropped);
	xn_jw_kobj(w, "paths");
	for (i = 0; i < XN_PATH_MAX; i++)
		flow(w, xn_path_name(i), &pv->path[i]);
	xn_jw_obj_end(w);
	flow(w, "bypass_in", &pv->bypass_in);
	xn_jw_kobj(w, "counters");
	for (i = 0; i < XDPNET_C_MAX; i++)
		flow(w, xn_ctr_name(i), &pv->ctr[i]);
	xn_jw_obj_end(w);
	share(w, "fast_path_share", pv->share);
	share(w, "fast_path_share_interval", pv->share_iv);
}

static void latency(struct xn_jw *w, const struct xn_stats_sample *s)
{
	unsigned int b;
	int i;

	xn_jw_kobj(w, "latency");
	xn_jw_kstr(w, "probe", s->latency_on ? "on" : "off");
	xn_jw_karr(w, "pairs");
	for (i = 0; i < s->nlat; i++) {
		const struct xn_lat_row *r = &s->lat[i];
		const struct xdpnet_lat_hist *h = &r->h;
		double q;

		xn_jw_obj(w);
		xn_jw_kstr(w, "in", r->in);
		xn_jw_kstr(w, "out", r->out);
		xn_jw_kuint(w, "in_ifindex", r->key.in_ifindex);
		xn_jw_kuint(w, "out_ifindex", r->key.out_ifindex);
		xn_jw_kstr(w, "path", xn_lat_path_name(r->key.path));
		xn_jw_kuint(w, "count", h->count);
		xn_jw_kuint(w, "sum_ns", h->sum_ns);
		num(w, "avg_ns", h->count ? (double)h->sum_ns / h->count : 0,
		    h->count > 0);
		q = xn_lat_quantile(h, 0.5);
		num(w, "p50_ns", q, q >= 0);
		q = xn_lat_quantile(h, 0.9);
		num(w, "p90_ns", q, q >= 0);
		q = xn_lat_quantile(h, 0.99);
		num(w, "p99_ns", q, q >= 0);
		xn_jw_karr(w, "buckets");
		for (b = 0; b < XDPNET_LAT_BUCKETS; b++) {
			if (!h->bucket[b])
				continue;
			xn_jw_obj(w);
			xn_jw_kuint(w, "lo_ns", xn_lat_bucket_lo(b));
			xn_jw_key(w, "hi_ns");
			if (b + 1 >= XDPNET_LAT_BUCKETS)
				xn_jw_null(w);
			else
				xn_jw_uint(w, xn_lat_bucket_hi(b));
			xn_jw_kuint(w, "count", h->bucket[b]);
			xn_jw_obj_end(w);
		}
		xn_jw_arr_end(w);
		xn_jw_obj_end(w);
	}
	xn_jw_arr_end(w);
	xn_jw_obj_end(w);
}

void xn_stats_print_json(FILE *f, const struct xn_stats_sample *s,
			 const struct xn_stats_view *v, unsigned long seq)
{
	struct xn_jw w;
	int i;

	xn_jw_init(&w, f);
	xn_jw_obj(&w);
	xn_jw_kstr(&w, "schema", XN_STATS_SCHEMA);
	xn_jw_kuint(&w, "seq", seq);
	xn_jw_kstr(&w, "bridge", s->bridge);
	xn_jw_kuint(&w, "ifindex", s->bridge_ifindex);
	xn_jw_key(&w, "time");
	xn_jw_fixed(&w, s->wall, 3);
	num(&w, "interval_s", v->interval_s, v->interval_s > 0);
	xn_jw_kbool(&w, "attached", s->attached);
	xn_jw_key(&w, "mode");
	if (s->attached)
		xn_jw_str(&w, xn_mode_name(s->mode));
	else
		xn_jw_null(&w);
	xn_jw_karr(&w, "ports");
	for (i = 0; i < v->nports; i++) {
		const struct xn_port_view *pv = &v->ports[i];

		xn_jw_obj(&w);
		xn_jw_kstr(&w, "name", pv->p->name);
		xn_jw_kuint(&w, "ifindex", pv->p->ifindex);
		xn_jw_kstr(&w, "kind", xn_port_kind(pv->p));
		xn_jw_kbool(&w, "attached", pv->p->attached);
		xn_jw_kstr(&w, "stage", xn_port_stage(pv->p));
		xn_jw_kbool(&w, "new", pv->is_new && v->interval_s > 0);
		view(&w, pv);
		xn_jw_obj_end(&w);
	}
	xn_jw_arr_end(&w);
	xn_jw_kobj(&w, "total");
	xn_jw_kint(&w, "ports", v->nports);
	view(&w, &v->total);
	xn_jw_obj_end(&w);
	latency(&w, s);
	xn_jw_obj_end(&w);
	xn_jw_end(&w);
}
