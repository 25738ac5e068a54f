// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The stats view model: see stats_view.h. Pure functions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "observe/stats_view.h"

static const char *const path_names[XN_PATH_MAX] = {
	[XN_PATH_XDP] = "xdp",
	[XN_PATH_TC] = "tc",
	[XN_PATH_BRIDGE] = "bridge",
	[XN_PATH_REDIRECT_ERR] = "redirect_err",
	[XN_PATH_XMIT_DROP] = "xmit_drop",
};

const char *xn_path_name(unsigned int path)
{
	return XN_NAME(path_names, path, NULL);
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
void xn_port_paths(const struct xn_stats_port *p, __u64 pk[XN_PATH_MAX],
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
	for (i = 0; i < XDPNET_C_MAX; i++) {
		if (!XDPNET_CTR_IS_PASS(i))
			continue;
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
void xn_port_share(const struct xn_stats_port *p, __u64 *bypass,
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
	xn_port_paths(p, pk, by);
	xn_port_paths(q, qpk, qby);
	for (i = 0; i < XN_PATH_MAX; i++)
		flow_set(&v->path[i], pk[i], by[i], qpk[i], qby[i], dt, rated);
	for (i = 0; i < XDPNET_C_MAX; i++)
		flow_set(&v->ctr[i], p->ctr.c[i].packets, p->ctr.c[i].bytes,
			 q->ctr.c[i].packets, q->ctr.c[i].bytes, dt, rated);
	flow_set(&v->bypass_in, p->ctr.c[XDPNET_C_RX_REDIRECTED].packets,
		 p->ctr.c[XDPNET_C_RX_REDIRECTED].bytes,
		 q->ctr.c[XDPNET_C_RX_REDIRECTED].packets,
		 q->ctr.c[XDPNET_C_RX_REDIRECTED].bytes, dt, rated);
	xn_port_share(p, &bp, &el);
	xn_port_share(q, &qbp, &qel);
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
			xn_port_share(p, &b, &e);
			bp += b;
			el += e;
			if (pv->rx.rated) {
				__u64 qb, qe;

				xn_port_share(q, &qb, &qe);
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

const char *xn_port_kind(const struct xn_stats_port *p)
{
	if (!strcmp(p->kind, "tun"))
		return "tap";
	return p->kind[0] ? p->kind : "physical";
}

const char *xn_port_stage(const struct xn_stats_port *p)
{
	if (!p->attached)
		return "bridge";
	return p->xdp ? "xdp" : "tc";
}
