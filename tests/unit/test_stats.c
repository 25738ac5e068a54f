// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for xdpnet stats (user/stats.c, user/exporter.c's address
 * parsing, the stats options of user/cli.c, nl.c's IFLA_STATS64 parser):
 * rate computation (wraps, resets, ports that come and go), latency
 * quantiles, the JSON schema (checked with a strict JSON reader) and the
 * Prometheus text format (checked with promtool, the linter Prometheus
 * users run, and with a stricter exposition checker, promlint.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include "xdpnet.h"
#include "datapath/names.h"
#include "cmd/cmd.h"
#include "lib/nl.h"
#include "observe/histogram.h"
#include "observe/stats_view.h"
#include "render/stats.h"
#include "lib/addr.h"
#include "jsonv.h"
#include "promlint.h"

/* ------------------------------------------------------------ helpers */

static struct xn_stats_port mkport(__u32 ifindex, const char *name,
				   int attached)
{
	struct xn_stats_port p;

	memset(&p, 0, sizeof(p));
	p.ifindex = ifindex;
	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.kind, sizeof(p.kind), "veth");
	p.attached = attached;
	return p;
}

static void mksample(struct xn_stats_sample *s, double t_s,
		     struct xn_stats_port *ports, int n)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->bridge, sizeof(s->bridge), "br0");
	s->bridge_ifindex = 1;
	s->mono_ns = (__u64)(t_s * 1e9);
	s->wall = 1700000000.0 + t_s;
	s->attached = 1;
	s->mode = XDPNET_MODE_TC;
	s->ports = ports;
	s->nports = n;
}

static char *render(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

/* ------------------------------------------------------- counter delta */

static void test_ctr_delta(void **state)
{
	(void)state;
	assert_int_equal(xn_ctr_delta(10, 25), 15);
	assert_int_equal(xn_ctr_delta(7, 7), 0);
	/* 64-bit wrap */
	assert_int_equal(xn_ctr_delta(UINT64_MAX - 5, 10), 16);
	assert_int_equal(xn_ctr_delta(UINT64_MAX, 0), 1);
	/* 32-bit counter in a 64-bit field */
	assert_int_equal(xn_ctr_delta(0xfffffff0ULL, 0x10), 0x20);
	/* reset: counted up again from zero */
	assert_int_equal(xn_ctr_delta(1000, 7), 7);
	assert_int_equal(xn_ctr_delta(100, 0), 0);
	assert_int_equal(xn_ctr_delta(1ULL << 40, 5), 5);
}

/* --------------------------------------------------------------- rates */

static void test_rates_basic(void **state)
{
	struct xn_stats_port a[1], b[1];
	struct xn_stats_sample p, c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 1);
	a[0].dev.rx_packets = 1000;
	a[0].dev.rx_bytes = 100000;
	a[0].dev.tx_packets = 50;
	a[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 900;
	a[0].ctr.c[XDPNET_C_TC_REDIRECT].bytes = 90000;
	a[0].ctr.c[XDPNET_C_PASS_MCAST].packets = 100;
	b[0] = a[0];
	b[0].dev.rx_packets = 3000;
	b[0].dev.rx_bytes = 300000;
	b[0].dev.tx_packets = 50;
	b[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 2800;
	b[0].ctr.c[XDPNET_C_TC_REDIRECT].bytes = 280000;
	b[0].ctr.c[XDPNET_C_PASS_MCAST].packets = 200;
	mksample(&p, 10, a, 1);
	mksample(&c, 12, b, 1);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	assert_true(fabs(v.interval_s - 2) < 1e-9);
	assert_int_equal(v.nports, 1);
	assert_true(v.ports[0].rx.rated);
	assert_true(fabs(v.ports[0].rx.pps - 1000) < 1e-6);
	assert_true(fabs(v.ports[0].rx.bps - 800000) < 1e-6);
	assert_true(fabs(v.ports[0].tx.pps) < 1e-9);
	assert_true(fabs(v.ports[0].path[XN_PATH_TC].pps - 950) < 1e-6);
	assert_true(fabs(v.ports[0].path[XN_PATH_TC].bps - 760000) < 1e-6);
	assert_true(fabs(v.ports[0].path[XN_PATH_BRIDGE].pps - 50) < 1e-6);
	assert_int_equal(v.ports[0].path[XN_PATH_TC].packets, 2800);
	/* share: bypass / (bypass + refresh/vlan/isolated/redirect_err);
	 * multicast is not unicast between ports */
	assert_true(fabs(v.ports[0].share - 1.0) < 1e-9);
	assert_true(fabs(v.ports[0].share_iv - 1.0) < 1e-9);
	assert_true(fabs(v.total.rx.pps - 1000) < 1e-6);
	assert_int_equal(v.gone, 0);
	xn_stats_view_free(&v);
}

static void test_rates_first_sample(void **state)
{
	struct xn_stats_port a[1];
	struct xn_stats_sample c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 1);
	a[0].dev.rx_packets = 5;
	mksample(&c, 1, a, 1);
	assert_int_equal(xn_stats_view(NULL, &c, &v), 0);
	assert_true(v.interval_s == 0);
	assert_false(v.ports[0].rx.rated);
	assert_false(v.total.rx.rated);
	assert_int_equal(v.ports[0].rx.packets, 5);
	assert_int_equal(v.total.rx.packets, 5);
	xn_stats_view_free(&v);
}

static void test_rates_wrap(void **state)
{
	struct xn_stats_port a[1], b[1];
	struct xn_stats_sample p, c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 0);
	a[0].dev.rx_packets = UINT64_MAX - 99;
	a[0].dev.rx_bytes = 0xffffff00ULL; /* a 32-bit byte counter */
	b[0] = a[0];
	b[0].dev.rx_packets = 100; /* +200 across the 64-bit wrap */
	b[0].dev.rx_bytes = 0x100; /* +0x200 across the 32-bit wrap */
	mksample(&p, 0, a, 1);
	mksample(&c, 1, b, 1);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	assert_true(fabs(v.ports[0].rx.pps - 200) < 1e-6);
	assert_true(fabs(v.ports[0].rx.bps - 0x200 * 8) < 1e-6);
	/* not attached: every frame it received went to the bridge */
	assert_true(fabs(v.ports[0].path[XN_PATH_BRIDGE].pps - 200) < 1e-6);
	assert_true(v.ports[0].share < 0);
	xn_stats_view_free(&v);
}

static void test_rates_reset(void **state)
{
	struct xn_stats_port a[1], b[1];
	struct xn_stats_sample p, c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 1);
	a[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 1000000;
	b[0] = a[0];
	b[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 40; /* --reset, then 40 */
	mksample(&p, 0, a, 1);
	mksample(&c, 2, b, 1);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	assert_true(fabs(v.ports[0].path[XN_PATH_TC].pps - 20) < 1e-6);
	xn_stats_view_free(&v);
}

static void test_rates_port_appears(void **state)
{
	struct xn_stats_port a[1], b[2];
	struct xn_stats_sample p, c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 1);
	a[0].dev.rx_packets = 100;
	b[0] = a[0];
	b[0].dev.rx_packets = 300;
	b[1] = mkport(9, "vm2", 1);
	b[1].dev.rx_packets = 1000000; /* a newcomer's whole history */
	mksample(&p, 0, a, 1);
	mksample(&c, 1, b, 2);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	assert_false(v.ports[0].is_new);
	assert_true(v.ports[1].is_new);
	assert_false(v.ports[1].rx.rated);
	assert_true(fabs(v.ports[0].rx.pps - 200) < 1e-6);
	/* the total counts it but does not take its history as a rate */
	assert_true(v.total.rx.rated);
	assert_true(fabs(v.total.rx.pps - 200) < 1e-6);
	assert_int_equal(v.total.rx.packets, 1000300);
	xn_stats_view_free(&v);

	/* Same ifindex, another name: another device. */
	snprintf(b[1].name, sizeof(b[1].name), "vm1x");
	b[1].ifindex = 3;
	mksample(&c, 1, &b[1], 1);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	assert_true(v.ports[0].is_new);
	assert_int_equal(v.gone, 1);
	xn_stats_view_free(&v);
}

static void test_rates_port_disappears(void **state)
{
	struct xn_stats_port a[2], b[1];
	struct xn_stats_sample p, c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 1);
	a[0].dev.rx_packets = 100;
	a[1] = mkport(4, "vm2", 1);
	a[1].dev.rx_packets = 5000000;
	b[0] = a[0];
	b[0].dev.rx_packets = 400;
	mksample(&p, 0, a, 2);
	mksample(&c, 3, b, 1);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	assert_int_equal(v.nports, 1);
	assert_int_equal(v.gone, 1);
	/* no negative total from the counts that went away */
	assert_true(fabs(v.total.rx.pps - 100) < 1e-6);
	assert_int_equal(v.total.rx.packets, 400);
	xn_stats_view_free(&v);
}

static void test_rates_attach_between(void **state)
{
	struct xn_stats_port a[1], b[1];
	struct xn_stats_sample p, c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 0);
	a[0].dev.rx_packets = 100000;
	b[0] = mkport(3, "vm1", 1);
	b[0].dev.rx_packets = 100100;
	b[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 90;
	b[0].ctr.c[XDPNET_C_PASS_REFRESH].packets = 10;
	mksample(&p, 0, a, 1);
	p.attached = 0;
	mksample(&c, 1, b, 1);
	assert_int_equal(xn_stats_view(&p, &c, &v), 0);
	/* the bridge path switched from device rx to xdpnet's verdicts */
	assert_true(v.ports[0].is_new);
	assert_false(v.ports[0].path[XN_PATH_BRIDGE].rated);
	assert_true(fabs(v.ports[0].share - 0.9) < 1e-9);
	assert_true(v.ports[0].share_iv < 0);
	xn_stats_view_free(&v);
}

static void test_share_paths(void **state)
{
	struct xn_stats_port a[2];
	struct xn_stats_sample c;
	struct xn_stats_view v;

	(void)state;
	a[0] = mkport(3, "vm1", 1);
	a[0].xdp = 1;
	a[0].ctr.c[XDPNET_C_XDP_REDIRECT].packets = 60;
	a[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 20;
	a[0].ctr.c[XDPNET_C_PASS_VLAN].packets = 10;
	a[0].ctr.c[XDPNET_C_PASS_ISOLATED].packets = 5;
	a[0].ctr.c[XDPNET_C_DROP_REDIRECT_ERR].packets = 5;
	a[0].ctr.c[XDPNET_C_PASS_UNKNOWN].packets = 1000; /* not eligible */
	a[0].ctr.c[XDPNET_C_PASS_LOCAL].packets = 1000;	  /* not eligible */
	a[0].ctr.c[XDPNET_C_DROP_XMIT_ERR].packets = 3;
	a[0].ctr.c[XDPNET_C_RX_REDIRECTED].packets = 77;
	a[1] = mkport(4, "vm2", 1);
	a[1].ctr.c[XDPNET_C_TC_REDIRECT].packets = 100;
	mksample(&c, 0, a, 2);
	assert_int_equal(xn_stats_view(NULL, &c, &v), 0);
	assert_true(fabs(v.ports[0].share - 0.8) < 1e-9);
	assert_int_equal(v.ports[0].path[XN_PATH_XDP].packets, 60);
	assert_int_equal(v.ports[0].path[XN_PATH_BRIDGE].packets, 2015);
	assert_int_equal(v.ports[0].path[XN_PATH_REDIRECT_ERR].packets, 5);
	assert_int_equal(v.ports[0].path[XN_PATH_XMIT_DROP].packets, 3);
	assert_int_equal(v.ports[0].bypass_in.packets, 77);
	assert_true(fabs(v.ports[1].share - 1.0) < 1e-9);
	assert_true(fabs(v.total.share - 180.0 / 200.0) < 1e-9);
	xn_stats_view_free(&v);
}

/* ------------------------------------------------------------- latency */

static void test_lat_buckets(void **state)
{
	struct xdpnet_lat_hist h;

	(void)state;
	assert_int_equal(xn_lat_bucket_lo(0), 0);
	assert_int_equal(xn_lat_bucket_hi(0), 2);
	assert_int_equal(xn_lat_bucket_lo(10), 1024);
	assert_int_equal(xn_lat_bucket_hi(10), 2048);
	assert_true(xn_lat_bucket_hi(XDPNET_LAT_BUCKETS - 1) == UINT64_MAX);

	memset(&h, 0, sizeof(h));
	assert_true(xn_lat_quantile(&h, 0.5) < 0);
	/* 100 frames in [1024, 2048): quantiles interpolate inside it */
	h.bucket[10] = 100;
	h.count = 100;
	assert_true(fabs(xn_lat_quantile(&h, 0.5) - 1536) < 1e-6);
	assert_true(fabs(xn_lat_quantile(&h, 1.0) - 2048) < 1e-6);
	/* 90 fast, 10 slow: p50 fast, p99 slow */
	h.bucket[10] = 90;
	h.bucket[20] = 10;
	assert_true(xn_lat_quantile(&h, 0.5) < 2048);
	assert_true(xn_lat_quantile(&h, 0.9) <= 2048);
	assert_true(xn_lat_quantile(&h, 0.99) >= (1 << 20));
	assert_true(xn_lat_quantile(&h, 0.99) < (1 << 21));
	assert_true(xn_lat_quantile(&h, 0) < 0);
}

static void test_lat_sum(void **state)
{
	struct xdpnet_lat_hist pc[3], out;

	(void)state;
	memset(pc, 0, sizeof(pc));
	pc[0].count = 1;
	pc[0].sum_ns = 100;
	pc[0].bucket[6] = 1;
	pc[2].count = 2;
	pc[2].sum_ns = 300;
	pc[2].bucket[6] = 1;
	pc[2].bucket[7] = 1;
	xn_lat_sum(pc, 3, &out);
	assert_int_equal(out.count, 3);
	assert_int_equal(out.sum_ns, 400);
	assert_int_equal(out.bucket[6], 2);
	assert_int_equal(out.bucket[7], 1);
}

/* ---------------------------------------------------------------- JSON */

struct fixture {
	struct xn_stats_port p0[3], p1[3];
	struct xn_lat_row lat[3];
	struct xn_stats_sample prev, cur;
	struct xn_stats_view v;
};

static void fixture_init(struct fixture *x)
{
	memset(x, 0, sizeof(*x));
	x->p0[0] = mkport(3, "vm1", 1);
	x->p0[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 10;
	x->p0[0].ctr.c[XDPNET_C_TC_REDIRECT].bytes = 1000;
	x->p0[0].dev.rx_packets = 12;
	x->p0[0].dev.rx_bytes = 1200;
	x->p0[1] = mkport(4, "vm\"2\\", 1);
	x->p0[1].xdp = 1;
	x->p0[2] = mkport(5, "eth0", 0);
	snprintf(x->p0[2].kind, sizeof(x->p0[2].kind), "%s", "");
	memcpy(x->p1, x->p0, sizeof(x->p1));
	x->p1[0].ctr.c[XDPNET_C_TC_REDIRECT].packets = 10010;
	x->p1[0].ctr.c[XDPNET_C_TC_REDIRECT].bytes = 1001000;
	x->p1[0].dev.rx_packets = 10012;
	x->p1[0].dev.rx_bytes = 1001200;
	x->p1[1].dev.tx_packets = 10000;
	x->p1[1].dev.tx_bytes = 1000000;
	x->p1[1].ctr.c[XDPNET_C_RX_REDIRECTED].packets = 10000;
	x->p1[2].dev.rx_packets = 3;
	mksample(&x->prev, 100, x->p0, 3);
	mksample(&x->cur, 101, x->p1, 3);
	x->cur.latency_on = 1;
	x->cur.latency_maps = 1;
	x->lat[0].key = (struct xdpnet_lat_key){ 3, 4, XDPNET_LAT_BRIDGE };
	snprintf(x->lat[0].in, IF_NAMESIZE, "vm1");
	snprintf(x->lat[0].out, IF_NAMESIZE, "vm\"2\\");
	x->lat[0].h.count = 4;
	x->lat[0].h.sum_ns = 4 * 20000;
	x->lat[0].h.bucket[14] = 4;
	x->lat[1] = x->lat[0];
	x->lat[1].key.path = XDPNET_LAT_TC;
	x->lat[1].h.bucket[14] = 0;
	x->lat[1].h.bucket[11] = 3;
	x->lat[1].h.bucket[12] = 1;
	x->lat[1].h.sum_ns = 3 * 3000 + 5000;
	x->lat[2] = x->lat[1];
	x->lat[2].key.path = XDPNET_LAT_XDP;
	memset(&x->lat[2].h, 0, sizeof(x->lat[2].h));
	x->lat[2].h.count = 1;
	x->lat[2].h.bucket[XDPNET_LAT_BUCKETS - 1] = 1;
	x->cur.lat = x->lat;
	x->cur.nlat = 3;
	assert_int_equal(xn_stats_view(&x->prev, &x->cur, &x->v), 0);
}

static void print_json_cb(FILE *f, void *arg)
{
	struct fixture *x = arg;

	xn_stats_print_json(f, &x->cur, &x->v, 7);
}

static int is_num_or_null(const struct jv *v)
{
	return v && (v->t == JV_NUM || v->t == JV_NULL);
}

static void check_flow(const struct jv *fl, int rated)
{
	assert_non_null(fl);
	assert_int_equal(fl->t, JV_OBJ);
	assert_int_equal(fl->n, 4);
	assert_int_equal(jv_get(fl, "packets")->t, JV_NUM);
	assert_int_equal(jv_get(fl, "bytes")->t, JV_NUM);
	assert_int_equal(jv_get(fl, "pps")->t, rated ? JV_NUM : JV_NULL);
	assert_int_equal(jv_get(fl, "bps")->t, rated ? JV_NUM : JV_NULL);
}

static void check_view(const struct jv *o, int rated)
{
	static const char *const paths[] = { "xdp", "tc", "bridge",
					     "redirect_err", "xmit_drop" };
	const struct jv *pa, *ct;
	unsigned int i;

	check_flow(jv_get(o, "rx"), rated);
	check_flow(jv_get(o, "tx"), rated);
	assert_int_equal(jv_get(o, "rx_dropped")->t, JV_NUM);
	assert_int_equal(jv_get(o, "tx_dropped")->t, JV_NUM);
	pa = jv_get(o, "paths");
	assert_int_equal(pa->n, 5);
	for (i = 0; i < 5; i++)
		check_flow(jv_get(pa, paths[i]), rated);
	check_flow(jv_get(o, "bypass_in"), rated);
	ct = jv_get(o, "counters");
	assert_int_equal(ct->n, XDPNET_C_MAX);
	for (i = 0; i < XDPNET_C_MAX; i++)
		check_flow(jv_get(ct, xn_ctr_name(i)), rated);
	assert_true(is_num_or_null(jv_get(o, "fast_path_share")));
	assert_true(is_num_or_null(jv_get(o, "fast_path_share_interval")));
}

static void test_json_schema(void **state)
{
	static const char *const port_keys[] = {
		"name",
		"ifindex",
		"kind",
		"attached",
		"stage",
		"new",
		"rx",
		"tx",
		"rx_dropped",
		"tx_dropped",
		"paths",
		"bypass_in",
		"counters",
		"fast_path_share",
		"fast_path_share_interval",
	};
	struct fixture x;
	const struct jv *ports, *p, *lat, *pair, *b;
	char err[128], *out;
	struct jv *root;
	unsigned int i;
	int k;

	(void)state;
	fixture_init(&x);
	out = render(print_json_cb, &x);
	/* one object per line */
	assert_non_null(strchr(out, '\n'));
	assert_true(strchr(out, '\n') == out + strlen(out) - 1);
	root = jv_parse(out, err, sizeof(err));
	if (!root)
		fail_msg("invalid JSON (%s): %s", err, out);
	assert_int_equal(root->t, JV_OBJ);
	assert_string_equal(jv_get(root, "schema")->str, "xdpnet-stats/1");
	assert_int_equal((int)jv_get(root, "seq")->num, 7);
	assert_string_equal(jv_get(root, "bridge")->str, "br0");
	assert_int_equal(jv_get(root, "ifindex")->t, JV_NUM);
	assert_true(jv_get(root, "time")->num > 1.7e9);
	assert_true(fabs(jv_get(root, "interval_s")->num - 1) < 1e-6);
	assert_int_equal(jv_get(root, "attached")->t, JV_BOOL);
	assert_string_equal(jv_get(root, "mode")->str, "tc");
	ports = jv_get(root, "ports");
	assert_int_equal(ports->t, JV_ARR);
	assert_int_equal(ports->n, 3);
	for (k = 0; k < ports->n; k++) {
		p = jv_at(ports, k);
		assert_int_equal(
			p->n, (int)(sizeof(port_keys) / sizeof(port_keys[0])));
		for (i = 0; i < sizeof(port_keys) / sizeof(port_keys[0]); i++)
			if (!jv_get(p, port_keys[i]))
				fail_msg("port lacks %s", port_keys[i]);
		check_view(p, 1);
	}
	p = jv_at(ports, 0);
	assert_string_equal(jv_get(p, "stage")->str, "tc");
	assert_true(fabs(jv_path(p, "paths.tc.pps")->num - 10000) < 1e-3);
	assert_true(fabs(jv_path(p, "paths.tc.bps")->num - 8000000) < 1e-3);
	assert_true(fabs(jv_path(p, "counters.tc_redirect.packets")->num -
			 10010) < 1e-9);
	assert_true(fabs(jv_get(p, "fast_path_share")->num - 1) < 1e-9);
	p = jv_at(ports, 1);
	assert_string_equal(jv_get(p, "name")->str, "vm\"2\\");
	assert_string_equal(jv_get(p, "stage")->str, "xdp");
	assert_true(fabs(jv_path(p, "bypass_in.pps")->num - 10000) < 1e-3);
	assert_int_equal(jv_get(p, "fast_path_share")->t, JV_NULL);
	p = jv_at(ports, 2);
	assert_string_equal(jv_get(p, "kind")->str, "physical");
	assert_string_equal(jv_get(p, "stage")->str, "bridge");
	assert_false(jv_get(p, "attached")->b);
	assert_true(fabs(jv_path(p, "paths.bridge.pps")->num - 3) < 1e-9);

	p = jv_get(root, "total");
	assert_int_equal((int)jv_get(p, "ports")->num, 3);
	check_view(p, 1);
	assert_true(fabs(jv_path(p, "rx.pps")->num - 10003) < 1e-3);

	lat = jv_get(root, "latency");
	assert_string_equal(jv_get(lat, "probe")->str, "on");
	assert_int_equal(jv_get(lat, "pairs")->n, 3);
	pair = jv_at(jv_get(lat, "pairs"), 1);
	assert_string_equal(jv_get(pair, "in")->str, "vm1");
	assert_string_equal(jv_get(pair, "path")->str, "tc");
	assert_int_equal((int)jv_get(pair, "count")->num, 4);
	assert_true(jv_get(pair, "p50_ns")->num >= 2048);
	assert_true(jv_get(pair, "p50_ns")->num < 4096);
	assert_true(jv_get(pair, "p99_ns")->num >= 4096);
	assert_true(fabs(jv_get(pair, "avg_ns")->num - 3500) < 1e-6);
	b = jv_get(pair, "buckets");
	assert_int_equal(b->n, 2);
	assert_int_equal((int)jv_get(jv_at(b, 0), "lo_ns")->num, 2048);
	assert_int_equal((int)jv_get(jv_at(b, 0), "hi_ns")->num, 4096);
	assert_int_equal((int)jv_get(jv_at(b, 0), "count")->num, 3);
	/* the open-ended last bucket */
	pair = jv_at(jv_get(lat, "pairs"), 2);
	b = jv_at(jv_get(pair, "buckets"), 0);
	assert_int_equal(jv_get(b, "hi_ns")->t, JV_NULL);
	jv_free(root);
	free(out);
	xn_stats_view_free(&x.v);

	/* First sample: no rates, interval null; no latency. */
	fixture_init(&x);
	xn_stats_view_free(&x.v);
	assert_int_equal(xn_stats_view(NULL, &x.cur, &x.v), 0);
	x.cur.nlat = 0;
	x.cur.latency_on = 0;
	out = render(print_json_cb, &x);
	root = jv_parse(out, err, sizeof(err));
	if (!root)
		fail_msg("invalid JSON (%s): %s", err, out);
	assert_int_equal(jv_get(root, "interval_s")->t, JV_NULL);
	for (k = 0; k < 3; k++) {
		check_view(jv_at(jv_get(root, "ports"), k), 0);
		assert_false(jv_get(jv_at(jv_get(root, "ports"), k), "new")->b);
	}
	check_view(jv_get(root, "total"), 0);
	assert_string_equal(jv_path(root, "latency.probe")->str, "off");
	assert_int_equal(jv_path(root, "latency.pairs")->n, 0);
	jv_free(root);
	free(out);
	xn_stats_view_free(&x.v);
}

static void test_json_reader_strict(void **state)
{
	static const char *const bad[] = {
		"{\"a\":1,}", "{\"a\":1,\"a\":2}",
		"[01]",	      "[1.]",
		"{a:1}",      "[\"\t\"]",
		"[1] [2]",    "[nul]",
		"[\"\\x\"]",  "",
	};
	unsigned int i;
	char err[128];

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jv *v = jv_parse(bad[i], err, sizeof(err));

		if (v)
			fail_msg("accepted %s", bad[i]);
	}
	assert_non_null(
		jv_parse("{\"a\":[1,-2.5e3,null,true]}\n", err, sizeof(err)));
}

/* ---------------------------------------------------------- Prometheus */

struct prom_arg {
	struct xn_stats_sample *s;
	int n;
	unsigned int flags;
};

/* How many times needle occurs in hay. */
static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* `promtool check metrics` on text: its exit status (0: valid). The tool:
 * $PROMTOOL, else scripts/promtool (run from the top of the tree). */
static int promtool(const char *text)
{
	const char *tool = getenv("PROMTOOL");
	char path[] = "/tmp/xn-prom.XXXXXX", cmd[512];
	int fd, rc;
	FILE *f;

	if (!tool)
		tool = "scripts/promtool";
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "%s check metrics <%s", tool, path);
	rc = system(cmd);
	unlink(path);
	assert_true(rc != -1 && WIFEXITED(rc));
	/* 127: not there (scripts/deps.sh fetches it). */
	if (WEXITSTATUS(rc) == 127)
		fail_msg("%s not found: run scripts/deps.sh as root", tool);
	return WEXITSTATUS(rc);
}

static void print_prom_cb(FILE *f, void *arg)
{
	struct prom_arg *a = arg;

	xn_stats_print_prom(f, a->s, a->n, a->flags);
}

static void test_prom_format(void **state)
{
	struct fixture x, y;
	struct xn_stats_sample two[2];
	struct xn_lat_row lat[4];
	struct prom_arg a = { two, 2, 0 };
	struct pl_result r;
	char *out;
	int n;

	(void)state;
	fixture_init(&x);
	fixture_init(&y);
	/* and vm1 -> eth0 by tc: 2 frames in [512, 1024) ns */
	memcpy(lat, x.lat, sizeof(x.lat));
	lat[3] = lat[1];
	lat[3].key.out_ifindex = 9;
	snprintf(lat[3].out, IF_NAMESIZE, "eth0");
	memset(&lat[3].h, 0, sizeof(lat[3].h));
	lat[3].h.count = 2;
	lat[3].h.sum_ns = 1400;
	lat[3].h.bucket[9] = 2;
	x.cur.lat = lat;
	x.cur.nlat = 4;
	x.cur.follower = 0;
	x.cur.follower_wanted = 1;
	x.cur.bypass = 0;
	x.cur.hold = XDPNET_BHOLD_HUB;
	x.cur.fdb_entries = 5;
	x.cur.fdb_max = 16384;
	x.cur.fdb_full = 2;
	two[0] = x.cur;
	two[1] = y.cur;
	snprintf(two[1].bridge, sizeof(two[1].bridge), "br1");
	two[1].attached = 0;
	out = render(print_prom_cb, &a);
	n = prom_lint(out, &r);
	if (n < 0)
		fail_msg("invalid exposition: %s\n%s", r.err, out);
	if (promtool(out))
		fail_msg("promtool check metrics rejects:\n%s", out);
	assert_true(n > 100);
	assert_true(prom_find(&r, "xdpnet_attached", "bridge=\"br0\"") == 1);
	assert_true(prom_find(&r, "xdpnet_attached", "bridge=\"br1\"") == 0);
	assert_true(prom_find(&r, "xdpnet_packets_total",
			      "bridge=\"br0\",port=\"vm1\",path=\"tc\"") ==
		    10010);
	assert_true(prom_find(&r, "xdpnet_bytes_total",
			      "bridge=\"br0\",port=\"vm1\",path=\"tc\"") ==
		    1001000);
	assert_true(prom_find(&r, "xdpnet_rx_packets_total",
			      "bridge=\"br0\",port=\"vm1\"") == 10012);
	assert_true(prom_find(&r, "xdpnet_tx_bytes_total",
			      "bridge=\"br0\",port=\"vm\\\"2\\\\\"") ==
		    1000000);
	/* a port the datapath does not carry: no path series (its device's
	 * rx is not xdpnet's count), its device's counters are there */
	assert_true(isnan(prom_find(&r, "xdpnet_packets_total",
				    "bridge=\"br0\",port=\"eth0\","
				    "path=\"bridge\"")));
	assert_true(prom_find(&r, "xdpnet_rx_packets_total",
			      "bridge=\"br0\",port=\"eth0\"") == 3);
	assert_true(prom_find(&r, "xdpnet_verdict_packets_total",
			      "bridge=\"br0\",port=\"vm1\","
			      "verdict=\"tc_redirect\"") == 10010);
	assert_true(isnan(prom_find(&r, "xdpnet_verdict_packets_total",
				    "bridge=\"br0\",port=\"eth0\","
				    "verdict=\"tc_redirect\"")));
	/* health, of attached bridges only */
	assert_true(prom_find(&r, "xdpnet_follower_running",
			      "bridge=\"br0\"") == 0);
	assert_true(prom_find(&r, "xdpnet_follower_wanted", "bridge=\"br0\"") ==
		    1);
	assert_true(prom_find(&r, "xdpnet_bypass_on", "bridge=\"br0\"") == 0);
	assert_true(prom_find(&r, "xdpnet_bypass_held_info",
			      "bridge=\"br0\",reason=\"hub\"") == 1);
	assert_true(prom_find(&r, "xdpnet_fdb_entries", "bridge=\"br0\"") == 5);
	assert_true(prom_find(&r, "xdpnet_fdb_capacity", "bridge=\"br0\"") ==
		    16384);
	assert_true(prom_find(&r, "xdpnet_fdb_full_total", "bridge=\"br0\"") ==
		    2);
	assert_true(isnan(
		prom_find(&r, "xdpnet_follower_running", "bridge=\"br1\"")));
	assert_true(
		isnan(prom_find(&r, "xdpnet_fdb_entries", "bridge=\"br1\"")));
	assert_true(prom_find(&r, "xdpnet_fast_path_eligible_packets_total",
			      "bridge=\"br0\",port=\"vm1\"") == 10010);
	/* deliveries into a port are not verdicts */
	assert_int_equal(count_str(out, "verdict=\"rx_redirected\""), 0);
	assert_int_equal(count_str(out, "xdpnet_bypass_in_packets_total{"), 6);
	assert_true(prom_find(&r, "xdpnet_fast_path_share",
			      "bridge=\"br0\",port=\"vm1\"") == 1);
	/* latency per (port, path): vm1's tc sums both out ports */
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_count",
			      "bridge=\"br0\",port=\"vm1\",path=\"tc\"") == 6);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_bucket",
			      "bridge=\"br0\",port=\"vm1\",path=\"tc\","
			      "le=\"0.000004096\"") == 5);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_bucket",
			      "bridge=\"br0\",port=\"vm1\",path=\"tc\","
			      "le=\"0.000001024\"") == 2);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_bucket",
			      "bridge=\"br0\",port=\"vm1\",path=\"tc\","
			      "le=\"0.000000512\"") == 0);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_bucket",
			      "bridge=\"br0\",port=\"vm1\",path=\"xdp\","
			      "le=\"0.004194304\"") == 0);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_bucket",
			      "bridge=\"br0\",port=\"vm1\",path=\"xdp\","
			      "le=\"+Inf\"") == 1);
	assert_true(fabs(prom_find(&r, "xdpnet_forward_latency_seconds_sum",
				   "bridge=\"br0\",port=\"vm1\","
				   "path=\"bridge\"") -
			 80e-6) < 1e-12);
	/* 16 buckets a histogram, from 256 ns; 3 histograms on br0, 3 on br1 */
	assert_int_equal(count_str(out,
				   "xdpnet_forward_latency_seconds_bucket{"
				   "bridge=\"br0\",port=\"vm1\",path=\"tc\","),
			 16);
	assert_int_equal(count_str(out, "_bucket{"), 6 * 16);
	assert_int_equal(count_str(out, "le=\"0.000000256\""), 6);
	assert_int_equal(count_str(out, "in_port="), 0);
	pl_free(&r);
	free(out);

	/* --latency-pairs: per (in, out, path), the same buckets */
	a.flags = XN_PROM_LAT_PAIRS;
	out = render(print_prom_cb, &a);
	if (prom_lint(out, &r) < 0)
		fail_msg("invalid exposition: %s\n%s", r.err, out);
	assert_int_equal(promtool(out), 0);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_count",
			      "bridge=\"br0\",in_port=\"vm1\","
			      "out_port=\"vm\\\"2\\\\\",path=\"tc\"") == 4);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_bucket",
			      "bridge=\"br0\",in_port=\"vm1\","
			      "out_port=\"vm\\\"2\\\\\",path=\"tc\","
			      "le=\"0.000004096\"") == 3);
	assert_true(prom_find(&r, "xdpnet_forward_latency_seconds_count",
			      "bridge=\"br0\",in_port=\"vm1\","
			      "out_port=\"eth0\",path=\"tc\"") == 2);
	assert_int_equal(count_str(out, "_bucket{"), 7 * 16);
	pl_free(&r);
	free(out);
	xn_stats_view_free(&x.v);
	xn_stats_view_free(&y.v);

	/* No bridge at all: families only, still valid. */
	a.n = 0;
	out = render(print_prom_cb, &a);
	assert_int_equal(prom_lint(out, &r), 0);
	assert_int_equal(promtool(out), 0);
	pl_free(&r);
	free(out);
}

/* promtool can fail here: it rejects a counter without the _total suffix
 * or HELP (a lint problem, exit 3) and text it cannot parse (exit 1). */
static void test_promtool_rejects(void **state)
{
	(void)state;
	assert_int_equal(promtool("# TYPE a counter\na 1\n"), 3);
	assert_int_equal(promtool("# HELP a x\n# TYPE a gauge\na one\n"), 1);
	assert_int_equal(promtool("# HELP a x\n# TYPE a gauge\na 1\n"), 0);
}

/* The checker itself must reject what Prometheus would, and what
 * promtool lets through (see promlint.h). */
static void test_prom_lint_rejects(void **state)
{
	static const char *const bad[] = {
		"a_total 1", /* no newline */
		"# TYPE a_total counter\na_total 1\na_total 2\n",
		"# TYPE a counter\na 1\n",
		"# TYPE a_total counter\na_total -1\n",
		"a 1\n# TYPE a gauge\n",
		"# TYPE a gauge\n# TYPE a gauge\na 1\n",
		"a{x=\"1\"} 1\nb 1\na{x=\"2\"} 1\n",
		"a{x=\"1\",} 1\n",
		"a{x=\"\\t\"} 1\n",
		"a{x=\"1\",x=\"2\"} 1\n",
		"a{1x=\"1\"} 1\n",
		"a one\n",
		"\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} "
		"1\nh_count 1\nh_sum 1\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\nh_sum 1\n",
		"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 1\n",
		"# TYPE h histogram\nh 1\n",
		"# TYPE h histogram\nh_sum{le=\"1\"} 1\n",
	};
	struct pl_result r;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (prom_lint(bad[i], &r) >= 0)
			fail_msg("accepted: %s", bad[i]);
		pl_free(&r);
	}
	assert_int_equal(
		prom_lint("# HELP h x\n# TYPE h histogram\nh_bucket{a=\"1\","
			  "le=\"1\"} 1\nh_bucket{a=\"1\",le=\"+Inf\"} 2\n"
			  "h_sum{a=\"1\"} 3\nh_count{a=\"1\"} 2\n",
			  &r),
		4);
	pl_free(&r);
}

/* ---------------------------------------------------------- rendering */

static void print_table_cb(FILE *f, void *arg)
{
	struct fixture *x = arg;

	xn_stats_print_table(f, &x->cur, &x->v, 1, 1);
}

static void test_table(void **state)
{
	struct fixture x;
	char *out;

	(void)state;
	fixture_init(&x);
	out = render(print_table_cb, &x);
	assert_non_null(strstr(out, "rates over 1.00 s"));
	assert_non_null(strstr(out, "vm1"));
	assert_non_null(strstr(out, "eth0"));
	assert_non_null(strstr(out, "total"));
	assert_non_null(strstr(out, "10.0k")); /* vm1's tc/s */
	assert_non_null(strstr(out, "tc_redirect"));
	assert_non_null(strstr(out, "forwarding latency"));
	assert_non_null(strstr(out, "vm1 -> vm\"2\\"));
	assert_non_null(strstr(out, "[2.05us, 4.1us)"));
	free(out);
	xn_stats_view_free(&x.v);
}

/* ------------------------------------------------------ CLI, listen */

#define COM(o) ((const struct xn_opts *)(o).opts)
#define STA(o) ((const struct xn_stats_args *)(o).opts)
#define EXP(o) ((const struct xn_exporter_args *)(o).opts)

/* The line into cli (what it held before freed). */
static int parse(struct xn_cli *cli, char *err, ...)
{
	char *argv[16] = { "xdpnet" };
	int argc = 1;
	va_list ap;
	char *a;

	va_start(ap, err);
	while ((a = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = a;
	va_end(ap);
	xn_cli_free(cli);
	return xn_parse_args(argc, argv, cli, err, 160);
}

static void test_cli_stats(void **state)
{
	struct xn_cli o = { 0 };
	char err[160];

	(void)state;
	assert_int_equal(parse(&o, err, "stats", "br0", NULL), 0);
	assert_ptr_equal(o.cmd, &xn_cmd_stats);
	assert_string_equal(COM(o)->bridge, "br0");
	assert_true(STA(o)->interval == 0);
	assert_int_equal(parse(&o, err, "stats", "br0", "--interval", "0.5",
			       "--count", "3", "--json", "--latency", NULL),
			 0);
	assert_true(STA(o)->interval == 0.5);
	assert_int_equal(STA(o)->count, 3);
	assert_true(COM(o)->json && STA(o)->latency);
	assert_int_equal(parse(&o, err, "stats", "-i", "2", "-l", "br0", NULL),
			 0);
	assert_true(STA(o)->interval == 2 && STA(o)->latency);
	/* --count alone samples every second */
	assert_int_equal(parse(&o, err, "stats", "br0", "-c", "2", NULL), 0);
	assert_true(STA(o)->interval == 1);
	assert_int_equal(parse(&o, err, "stats", "br0", "--reset", NULL), 0);
	assert_true(STA(o)->reset);
	assert_int_equal(parse(&o, err, "stats", "br0", "--prom", NULL), 0);
	assert_true(STA(o)->prom);
	assert_false(STA(o)->lat_pairs);
	assert_int_equal(parse(&o, err, "stats", "br0", "--prom",
			       "--latency-pairs", NULL),
			 0);
	assert_true(STA(o)->lat_pairs);
	assert_int_equal(parse(&o, err, "stats", "br0", "-P", NULL), XN_EUSAGE);
	assert_non_null(strstr(err, "--prom"));

	assert_int_equal(parse(&o, err, "stats", NULL), XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "-i", "0", NULL),
			 XN_EUSAGE);
	assert_non_null(strstr(err, "--interval"));
	assert_int_equal(parse(&o, err, "stats", "br0", "-i", "x", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "-c", "0", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "-c", "5x", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "--json", "--prom",
			       NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "--prom", "-i", "1",
			       NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "--mode", "tc", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "status", "--latency", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "stats", "br0", "on", NULL), XN_EUSAGE);

	assert_int_equal(parse(&o, err, "latency", "br0", "on", NULL), 0);
	assert_ptr_equal(o.cmd, &xn_cmd_latency);
	assert_string_equal(COM(o)->arg, "on");
	assert_int_equal(parse(&o, err, "latency", "br0", "off", NULL), 0);
	assert_string_equal(COM(o)->arg, "off");
	assert_int_equal(parse(&o, err, "latency", "br0", NULL), 0);
	assert_null(COM(o)->arg);
	assert_int_equal(parse(&o, err, "latency", "br0", "maybe", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "latency", "br0", "on", "x", NULL),
			 XN_EUSAGE);
	assert_int_equal(parse(&o, err, "latency", NULL), XN_EUSAGE);

	assert_int_equal(parse(&o, err, "exporter", NULL), 0);
	assert_ptr_equal(o.cmd, &xn_cmd_exporter);
	assert_null(COM(o)->bridge);
	assert_null(EXP(o)->listen);
	assert_int_equal(parse(&o, err, "exporter", "br0", "--listen",
			       "127.0.0.1:9500", NULL),
			 0);
	assert_string_equal(EXP(o)->listen, "127.0.0.1:9500");
	assert_int_equal(parse(&o, err, "exporter", "-P", NULL), 0);
	assert_true(EXP(o)->lat_pairs);
	assert_int_equal(parse(&o, err, "status", "-P", NULL), XN_EUSAGE);
	assert_int_equal(parse(&o, err, "exporter", "--json", NULL), XN_EUSAGE);
	xn_cli_free(&o);
}

static void test_parse_listen(void **state)
{
	static const char *const bad[] = {
		"",
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:0",
		"127.0.0.1:65536",
		"127.0.0.1:80x",
		"localhost:80",
		"::1:80",
		"[::1]80",
		"[::1]:",
		"[zz]:80",
		"1.2.3.4.5:80",
	};
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	unsigned int i;

	(void)state;
	assert_int_equal(xn_parse_listen("127.0.0.1:9435", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(in4->sin_port), 9435);
	assert_int_equal(ntohl(in4->sin_addr.s_addr), 0x7f000001);
	assert_int_equal(len, sizeof(*in4));
	assert_int_equal(xn_parse_listen(":80", &ss, &len), 0);
	assert_int_equal(ntohl(in4->sin_addr.s_addr), 0x7f000001);
	assert_int_equal(xn_parse_listen("[::1]:9100", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 9100);
	assert_true(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
	assert_int_equal(xn_parse_listen(XN_EXPORTER_DEFAULT, &ss, &len), 0);
	assert_int_equal(ntohl(in4->sin_addr.s_addr), 0x7f000001);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!xn_parse_listen(bad[i], &ss, &len))
			fail_msg("accepted '%s'", bad[i]);
}

/* ------------------------------------------------------ IFLA_STATS64 */

static struct nl_msg *link_msg(int type, int stats_len)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 7 };
	struct rtnl_link_stats64 st;
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);

	memset(&st, 0, sizeof(st));
	st.rx_packets = 10000;
	st.tx_packets = 9999;
	st.rx_bytes = 5000000000ULL;
	st.tx_bytes = 42;
	st.rx_dropped = 3;
	st.tx_dropped = 4;
	st.rx_errors = 5;
	st.tx_errors = 6;
	assert_non_null(m);
	assert_int_equal(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	nla_put_string(m, IFLA_IFNAME, "vm1");
	if (stats_len)
		nla_put(m, IFLA_STATS64, stats_len, &st);
	return m;
}

static void test_parse_link_stats(void **state)
{
	struct xn_link_stats st;
	struct nl_msg *m;

	(void)state;
	m = link_msg(RTM_NEWLINK, sizeof(struct rtnl_link_stats64));
	assert_int_equal(xn_parse_link_stats(nlmsg_hdr(m), &st), 0);
	assert_int_equal(st.rx_packets, 10000);
	assert_int_equal(st.tx_packets, 9999);
	assert_true(st.rx_bytes == 5000000000ULL);
	assert_int_equal(st.tx_bytes, 42);
	assert_int_equal(st.rx_dropped, 3);
	assert_int_equal(st.tx_dropped, 4);
	assert_int_equal(st.rx_errors, 5);
	assert_int_equal(st.tx_errors, 6);
	nlmsg_free(m);
	/* an older kernel's shorter struct: the first 24 counters */
	m = link_msg(RTM_NEWLINK, 24 * 8);
	assert_int_equal(xn_parse_link_stats(nlmsg_hdr(m), &st), 0);
	assert_int_equal(st.tx_dropped, 4);
	nlmsg_free(m);
	/* too short for the counters we read */
	m = link_msg(RTM_NEWLINK, 40);
	assert_int_equal(xn_parse_link_stats(nlmsg_hdr(m), &st), -EINVAL);
	nlmsg_free(m);
	m = link_msg(RTM_NEWLINK, 0);
	assert_int_equal(xn_parse_link_stats(nlmsg_hdr(m), &st), 1);
	assert_int_equal(st.rx_packets, 0);
	nlmsg_free(m);
	m = link_msg(RTM_DELLINK, sizeof(struct rtnl_link_stats64));
	assert_int_equal(xn_parse_link_stats(nlmsg_hdr(m), &st), 1);
	nlmsg_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctr_delta),
		cmocka_unit_test(test_rates_basic),
		cmocka_unit_test(test_rates_first_sample),
		cmocka_unit_test(test_rates_wrap),
		cmocka_unit_test(test_rates_reset),
		cmocka_unit_test(test_rates_port_appears),
		cmocka_unit_test(test_rates_port_disappears),
		cmocka_unit_test(test_rates_attach_between),
		cmocka_unit_test(test_share_paths),
		cmocka_unit_test(test_lat_buckets),
		cmocka_unit_test(test_lat_sum),
		cmocka_unit_test(test_json_schema),
		cmocka_unit_test(test_json_reader_strict),
		cmocka_unit_test(test_prom_format),
		cmocka_unit_test(test_promtool_rejects),
		cmocka_unit_test(test_prom_lint_rejects),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_cli_stats),
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_parse_link_stats),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
