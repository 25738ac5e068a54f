// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One rule of `nft -j list ruleset` taken apart: its match expressions as
 * conditions on the frames between two ports (devices, addresses, marks,
 * protocols), its verdict, and the rule rendered as text for reports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "filters/nft.h"
#include "lib/json_reader.h"

void xf_nft_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

void xf_nft_render(char *b, size_t n, const struct xn_json *v)
{
	const struct xn_json *p;
	int i;

	if (!v)
		return;
	switch (v->type) {
	case XN_JSTR:
	case XN_JNUM:
		xf_nft_cat(b, n, "%s", v->str);
		return;
	case XN_JARR:
		xf_nft_cat(b, n, "{ ");
		for (i = 0; i < v->n; i++) {
			xf_nft_render(b, n, v->items[i]);
			xf_nft_cat(b, n, i + 1 < v->n ? ", " : " ");
		}
		xf_nft_cat(b, n, "}");
		return;
	case XN_JOBJ:
		if ((p = xn_json_get(v, "prefix"))) {
			xf_nft_render(b, n, xn_json_get(p, "addr"));
			xf_nft_cat(b, n, "/");
			xf_nft_render(b, n, xn_json_get(p, "len"));
		} else if ((p = xn_json_get(v, "set"))) {
			xf_nft_render(b, n, p);
		} else if ((p = xn_json_get(v, "payload"))) {
			xf_nft_cat(b, n, "%s %s",
				   xn_json_str_of(p, "protocol") ?: "?",
				   xn_json_str_of(p, "field") ?: "?");
		} else if (v->n == 1) {
			xf_nft_cat(b, n, "%s", v->keys[0]);
			p = xn_json_get(v->items[0], "key");
			if (p)
				xf_nft_cat(b, n, " %s", p->str ? p->str : "");
			else if (v->items[0]->type == XN_JSTR ||
				 v->items[0]->type == XN_JNUM)
				xf_nft_cat(b, n, " %s", v->items[0]->str);
		} else {
			xf_nft_cat(b, n, "...");
		}
		return;
	default:
		xf_nft_cat(b, n, "%s",
			   v->type == XN_JBOOL ? (v->b ? "true" : "false")
					       : "null");
	}
}

int xf_nft_strings(const struct xn_json *v, const char **out, int max)
{
	const struct xn_json *set = xn_json_get(v, "set");
	int i, n = 0;

	if (v && v->type == XN_JSTR) {
		out[0] = v->str;
		return v->str[0] == '@' ? -1 : 1;
	}
	if (set)
		v = set;
	if (!v || v->type != XN_JARR || v->n > max)
		return -1;
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->type != XN_JSTR)
			return -1;
		out[n++] = v->items[i]->str;
	}
	return n;
}

static void never_unless(struct xf_cond *c, int cannot, int neg)
{
	if (!cannot)
		c->maybe = 1;
	else if (!neg)
		c->never = 1;
}

/* All values of right are among list. */
static int all_in(const struct xn_json *right, const char *const *list)
{
	const char *v[32];
	int n = xf_nft_strings(right, v, 32), i, j;

	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		for (j = 0; list[j] && strcmp(v[i], list[j]); j++)
			;
		if (!list[j])
			return 0;
	}
	return 1;
}

static void addr_match(struct nv *v, struct xf_cond *c, int fam,
		       const struct xn_json *right, int neg)
{
	const struct xn_json *p = xn_json_get(right, "prefix");
	char buf[80];

	if (right && right->type == XN_JSTR) {
		if (xf_cond_addr(v->x, c, fam, right->str, neg))
			c->maybe = 1;
	} else if (p && xn_json_str_of(p, "addr") && xn_json_get(p, "len")) {
		snprintf(buf, sizeof(buf), "%s/%lld", xn_json_str_of(p, "addr"),
			 xn_json_get(p, "len")->num);
		if (xf_cond_addr(v->x, c, fam, buf, neg))
			c->maybe = 1;
	} else {
		c->maybe = 1; /* sets, ranges: may match */
	}
}

static const char *const group_pkt[] = { "broadcast", "multicast", NULL };
static const char *const not_vm_dst[] = { "local",	 "broadcast",
					  "multicast",	 "blackhole",
					  "unreachable", "prohibit",
					  NULL };

void xf_nft_match(struct nv *v, struct xf_cond *c, const struct xn_json *m)
{
	const struct xn_json *l = xn_json_get(m, "left");
	const struct xn_json *r = xn_json_get(m, "right"), *k;
	const char *op = xn_json_str_of(m, "op") ?: "==";
	const char *key, *names[64];
	int neg = !strcmp(op, "!="), n;

	if (strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "in")) {
		c->maybe = 1;
		return;
	}
	if ((k = xn_json_get(l, "meta")) && (key = xn_json_str_of(k, "key"))) {
		int in = !strcmp(key, "iifname") || !strcmp(key, "iif");
		int out = !strcmp(key, "oifname") || !strcmp(key, "oif");
		int port = v->layer == XF_L_BRIDGE || v->layer == XF_L_NETDEV;

		if (in || out) {
			n = xf_nft_strings(r, names, 64);
			if (n < 0)
				c->maybe = 1;
			else
				xf_cond_devs(v->x, c,
					     !port ? XF_DEV_BRIDGE
					     : in  ? XF_DEV_IN
						   : XF_DEV_OUT,
					     names, n, neg, 1);
		} else if (!strcmp(key, "ibrname") || !strcmp(key, "obrname")) {
			n = xf_nft_strings(r, names, 64);
			if (n < 0)
				c->maybe = 1;
			else
				xf_cond_devs(v->x, c, XF_DEV_BRIDGE, names, n,
					     neg, 1);
		} else if (!strcmp(key, "mark") && r && r->type == XN_JNUM) {
			xf_cond_mark(c, r->num, 0xffffffff, neg);
		} else if (!strcmp(key, "pkttype")) {
			never_unless(c, all_in(r, group_pkt), neg);
		} else {
			c->maybe = 1;
		}
	} else if ((k = xn_json_get(l, "payload"))) {
		const char *proto = xn_json_str_of(k, "protocol") ?: "";
		const char *field = xn_json_str_of(k, "field") ?: "";
		int addr = !strcmp(field, "saddr") || !strcmp(field, "daddr");

		if (addr && !strcmp(proto, "ip"))
			addr_match(v, c, 4, r, neg);
		else if (addr && !strcmp(proto, "ip6"))
			addr_match(v, c, 6, r, neg);
		else if (!strcmp(proto, "ether") && !strcmp(field, "daddr") &&
			 r && r->type == XN_JSTR)
			never_unless(c,
				     !strcasecmp(r->str, "ff:ff:ff:ff:ff:ff"),
				     neg);
		else
			c->maybe = 1;
	} else if ((k = xn_json_get(l, "ct")) &&
		   !strcmp(xn_json_str_of(k, "key") ?: "", "mark") && r &&
		   r->type == XN_JNUM) {
		xf_cond_mark(c, r->num, 0xffffffff, neg);
	} else if ((k = xn_json_get(l, "fib")) &&
		   !strcmp(xn_json_str_of(k, "result") ?: "", "type")) {
		never_unless(c, all_in(r, not_vm_dst), neg);
	} else {
		c->maybe = 1;
	}
	xf_nft_render(v->text, sizeof(v->text), l);
	xf_nft_cat(v->text, sizeof(v->text), " %s ", op);
	xf_nft_render(v->text, sizeof(v->text), r);
	xf_nft_cat(v->text, sizeof(v->text), " ");
}

int xf_nft_verdict(const struct xn_json *e, struct xf_rule *r)
{
	static const char *const names[] = { "accept", "drop",	   "reject",
					     "queue",  "return",   "jump",
					     "goto",   "continue", NULL };
	static const enum xf_verdict vs[] = { XF_V_ACCEPT, XF_V_DROP,
					      XF_V_DROP,   XF_V_DROP,
					      XF_V_RETURN, XF_V_JUMP,
					      XF_V_GOTO,   XF_V_NONE };
	int i;

	if (!e || e->type != XN_JOBJ || e->n != 1)
		return -1;
	for (i = 0; names[i]; i++)
		if (!strcmp(e->keys[0], names[i]))
			break;
	if (!names[i])
		return -1;
	r->v = vs[i];
	if (i == 2 || i == 3)
		r->vwhy =
			xf_strdup(i == 2 ? "rejects" : "queues to user space");
	if (r->v == XF_V_JUMP || r->v == XF_V_GOTO) {
		r->target = xf_strdup(xn_json_str_of(e->items[0], "target"));
		if (!r->target || !r->target[0])
			return -1;
	}
	return 0;
}

int xf_nft_is_verdict(const struct xn_json *e)
{
	struct xf_rule r = { 0 };
	int rc = xf_nft_verdict(e, &r);

	free(r.target);
	free(r.vwhy);
	return !rc;
}
