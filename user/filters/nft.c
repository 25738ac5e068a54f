// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `nft -j list ruleset` (libnftables-json(5)). JSON rather than the text
 * listing: it is nft's documented machine interface, each rule comes with
 * its family, table and chain, names are quoted and escaped, and it does not
 * change with nft's pretty-printing between versions. Tables that a save
 * tool printed already (iptables-nft and ebtables-nft keep theirs in nft)
 * are skipped: their rules were judged from the save format.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "filters/internal.h"
#include "lib/json_reader.h"

struct nv {
	const struct xf_ctx *x;
	struct xf_set *s;
	enum xf_layer layer;
	char text[512]; /* the rule, rendered */
};

static void cat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

/* Renders a value: "x", 5, 10.0.0.0/8, { a, b }. */
static void render(char *b, size_t n, const struct xn_json *v)
{
	const struct xn_json *p;
	int i;

	if (!v)
		return;
	switch (v->type) {
	case XN_JSTR:
	case XN_JNUM:
		cat(b, n, "%s", v->str);
		return;
	case XN_JARR:
		cat(b, n, "{ ");
		for (i = 0; i < v->n; i++) {
			render(b, n, v->items[i]);
			cat(b, n, i + 1 < v->n ? ", " : " ");
		}
		cat(b, n, "}");
		return;
	case XN_JOBJ:
		if ((p = xn_json_get(v, "prefix"))) {
			render(b, n, xn_json_get(p, "addr"));
			cat(b, n, "/");
			render(b, n, xn_json_get(p, "len"));
		} else if ((p = xn_json_get(v, "set"))) {
			render(b, n, p);
		} else if ((p = xn_json_get(v, "payload"))) {
			cat(b, n, "%s %s", xn_json_str_of(p, "protocol") ?: "?",
			    xn_json_str_of(p, "field") ?: "?");
		} else if (v->n == 1) {
			cat(b, n, "%s", v->keys[0]);
			p = xn_json_get(v->items[0], "key");
			if (p)
				cat(b, n, " %s", p->str ? p->str : "");
			else if (v->items[0]->type == XN_JSTR ||
				 v->items[0]->type == XN_JNUM)
				cat(b, n, " %s", v->items[0]->str);
		} else {
			cat(b, n, "...");
		}
		return;
	default:
		cat(b, n, "%s",
		    v->type == XN_JBOOL ? (v->b ? "true" : "false") : "null");
	}
}

/* The strings of v (a string, or a set / list of strings); n <= max. */
static int strings(const struct xn_json *v, const char **out, int max)
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
	int n = strings(right, v, 32), i, j;

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

static void match(struct nv *v, struct xf_cond *c, const struct xn_json *m)
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
			n = strings(r, names, 64);
			if (n < 0)
				c->maybe = 1;
			else
				xf_cond_devs(v->x, c,
					     !port ? XF_DEV_BRIDGE
					     : in  ? XF_DEV_IN
						   : XF_DEV_OUT,
					     names, n, neg, 1);
		} else if (!strcmp(key, "ibrname") || !strcmp(key, "obrname")) {
			n = strings(r, names, 64);
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
	render(v->text, sizeof(v->text), l);
	cat(v->text, sizeof(v->text), " %s ", op);
	render(v->text, sizeof(v->text), r);
	cat(v->text, sizeof(v->text), " ");
}

/* A verdict object ({"accept": null}, {"jump": {"target": "x"}}), or -1. */
static int verdict(const struct xn_json *e, struct xf_rule *r)
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

static int is_verdict(const struct xn_json *e)
{
	struct xf_rule r = { 0 };
	int rc = verdict(e, &r);

	free(r.target);
	free(r.vwhy);
	return !rc;
}

static struct xf_rule *new_rule(struct nv *v, struct xf_chain *ch,
				const struct xf_cond *c, const char *head)
{
	struct xf_rule *r = xf_rule_add(ch);

	if (!r)
		return NULL;
	r->c = *c;
	r->text = xf_printf("%s%s", head, v->text);
	return r->text ? r : NULL;
}

static const char *const effects[] = {
	"log",	    "mangle",  "snat",	    "dnat",	  "masquerade",
	"redirect", "notrack", "ct helper", "ct timeout", "ct expectation",
	"dup",	    "fwd",     "tproxy",    "synproxy",	  "flow",
	"set",	    "map",     "xt",	    "secmark",	  "meter",
	NULL
};

/* A verdict map: one rule per element (key == element, verdict); a side
 * effect before it gets a rule of its own. Takes effect. */
static int vmap(struct nv *v, struct xf_chain *ch, const struct xf_cond *c,
		const struct xn_json *vm, const char *head, char *effect)
{
	const struct xn_json *set = xn_json_get(xn_json_get(vm, "data"), "set");
	size_t l = strlen(v->text);
	struct xf_rule *r;
	int j;

	if (effect) {
		r = new_rule(v, ch, c, head);
		if (!r) {
			free(effect);
			return -1;
		}
		r->effect = effect;
	}
	if (!set || set->type != XN_JARR) { /* a named map: may do anything */
		r = new_rule(v, ch, c, head);
		if (!r)
			return -1;
		r->c.maybe = 1;
		r->effect = xf_strdup("a verdict map");
		return r->effect ? 0 : -1;
	}
	for (j = 0; j < set->n; j++) {
		const struct xn_json *el = set->items[j];
		const char *keys[2] = { "left", "right" };
		struct xn_json *items[2];
		struct xn_json m = { .type = XN_JOBJ, .n = 2 };
		struct xf_cond ec = *c;

		if (el->type != XN_JARR || el->n != 2 ||
		    el->items[1]->type != XN_JOBJ || el->items[1]->n != 1)
			return -1;
		items[0] = (struct xn_json *)xn_json_get(vm, "key");
		items[1] = el->items[0];
		m.keys = (char **)keys;
		m.items = items;
		v->text[l] = 0;
		match(v, &ec, &m);
		cat(v->text, sizeof(v->text), ": %s ", el->items[1]->keys[0]);
		render(v->text, sizeof(v->text),
		       xn_json_get(el->items[1]->items[0], "target"));
		r = new_rule(v, ch, &ec, head);
		if (!r || verdict(el->items[1], r))
			return -1;
	}
	return 0;
}

static int parse_rule(struct nv *v, const struct xn_json *o, const char *head,
		      struct xf_chain *ch)
{
	const struct xn_json *ex = xn_json_get(o, "expr"), *e, *vm;
	struct xf_cond c;
	struct xf_rule *r;
	char *effect = NULL;
	int i, j;

	xf_cond_init(v->x, &c);
	v->text[0] = 0;
	if (!ex || ex->type != XN_JARR)
		return -1;
	for (i = 0; i < ex->n; i++) {
		e = ex->items[i];
		if (e->type != XN_JOBJ || e->n != 1) {
			free(effect);
			return -1;
		}
		if (!strcmp(e->keys[0], "match")) {
			match(v, &c, e->items[0]);
			continue;
		}
		if ((vm = xn_json_get(e, "vmap")))
			return vmap(v, ch, &c, vm, head, effect);
		if (is_verdict(e)) {
			cat(v->text, sizeof(v->text), "%s ", e->keys[0]);
			render(v->text, sizeof(v->text),
			       xn_json_get(e->items[0], "target"));
			r = new_rule(v, ch, &c, head);
			if (!r || verdict(e, r)) {
				free(effect);
				return -1;
			}
			r->effect = effect;
			return 0;
		}
		for (j = 0; effects[j]; j++)
			if (!strcmp(e->keys[0], effects[j]))
				break;
		if (!strcmp(e->keys[0], "xt"))
			c.maybe = 1;
		if (effects[j] || (strcmp(e->keys[0], "counter") &&
				   strcmp(e->keys[0], "limit") &&
				   strcmp(e->keys[0], "quota"))) {
			if (!effect)
				effect = xf_printf("statement %s", e->keys[0]);
			if (!strcmp(e->keys[0], "snat") ||
			    !strcmp(e->keys[0], "dnat") ||
			    !strcmp(e->keys[0], "masquerade") ||
			    !strcmp(e->keys[0], "redirect"))
				break; /* ends the nat chain */
		} else if (strcmp(e->keys[0], "counter")) {
			c.maybe = 1; /* limit, quota */
		}
		cat(v->text, sizeof(v->text), "%s ", e->keys[0]);
	}
	r = new_rule(v, ch, &c, head);
	if (!r) {
		free(effect);
		return -1;
	}
	r->effect = effect;
	if (effect && i < ex->n)
		r->v = XF_V_ACCEPT; /* NAT: the chain ends here */
	return 0;
}

static int skipped(const struct xf_set *s, const char *fam, const char *table)
{
	char key[128];
	int i;

	snprintf(key, sizeof(key), "%s %s", fam, table);
	for (i = 0; i < s->nskip; i++)
		if (!strcmp(s->skip[i], key))
			return 1;
	return 0;
}

static void layer_hook(struct xf_chain *ch, const char *fam, const char *hook)
{
	static const char *const hooks[] = { "prerouting",  "forward",
					     "postrouting", "ingress",
					     "egress",	    NULL };
	static const enum xf_hook hs[] = { XF_H_PRE, XF_H_FWD, XF_H_POST,
					   XF_H_INGRESS, XF_H_EGRESS };
	int i;

	ch->layer = !strcmp(fam, "bridge") ? XF_L_BRIDGE
		    : !strcmp(fam, "ip")   ? XF_L_IP4
		    : !strcmp(fam, "ip6")  ? XF_L_IP6
		    : !strcmp(fam, "inet") ? XF_L_INET
		    : !strcmp(fam, "arp")  ? XF_L_ARP
					   : XF_L_NETDEV;
	ch->hook = XF_H_NONE;
	for (i = 0; hook && hooks[i]; i++)
		if (!strcmp(hook, hooks[i]))
			ch->hook = hs[i];
	/* arp has no forward hook; ingress chains sit on devices */
	if (ch->layer == XF_L_ARP)
		ch->hook = XF_H_NONE;
	if (ch->hook == XF_H_INGRESS || ch->hook == XF_H_EGRESS)
		ch->layer = XF_L_NETDEV;
	else if (ch->layer == XF_L_NETDEV)
		ch->hook = XF_H_NONE;
}

static int add_chain(struct nv *v, const struct xn_json *o)
{
	const char *fam = xn_json_str_of(o, "family") ?: "";
	const char *table = xn_json_str_of(o, "table") ?: "";
	const char *name = xn_json_str_of(o, "name") ?: "";
	const char *hook = xn_json_str_of(o, "hook");
	const char *pol = xn_json_str_of(o, "policy");
	const struct xn_json *dev = xn_json_get(o, "dev");
	const char *devs[64];
	char key[160];
	struct xf_chain *ch;
	int n, i;

	if (skipped(v->s, fam, table))
		return 0;
	snprintf(key, sizeof(key), "nft %s %s", fam, table);
	ch = xf_chain_add(v->s, key, name);
	if (!ch)
		return -1;
	layer_hook(ch, fam, hook);
	if (!hook)
		return 0;
	ch->policy = pol && !strcmp(pol, "drop") ? XF_V_DROP : XF_V_ACCEPT;
	ch->policy_text = xf_printf("nft %s %s chain %s: hook %s policy %s",
				    fam, table, name, hook, pol ?: "accept");
	if (!ch->policy_text)
		return -1;
	n = dev ? strings(dev, devs, 64) : 0;
	if (n < 0)
		n = 0;
	ch->devices = calloc(n + 1, sizeof(char *));
	if (!ch->devices)
		return -1;
	for (i = 0; i < n; i++)
		if (!(ch->devices[ch->ndevices++] = xf_strdup(devs[i])))
			return -1;
	return 0;
}

static int add_rule(struct nv *v, const struct xn_json *o)
{
	const char *fam = xn_json_str_of(o, "family") ?: "";
	const char *table = xn_json_str_of(o, "table") ?: "";
	const char *chain = xn_json_str_of(o, "chain") ?: "";
	const struct xn_json *h = xn_json_get(o, "handle");
	const char *comment = xn_json_str_of(o, "comment");
	struct xf_chain *ch;
	char key[160], head[256];

	if (skipped(v->s, fam, table))
		return 0;
	snprintf(key, sizeof(key), "nft %s %s", fam, table);
	ch = xf_chain_find(v->s, key, chain);
	if (!ch) {
		snprintf(v->s->err, sizeof(v->s->err),
			 "nft: a rule of a chain not listed: %s %s", key,
			 chain);
		return -1;
	}
	v->layer = ch->layer;
	snprintf(head, sizeof(head), "nft %s %s chain %s handle %lld: %s%s%s",
		 fam, table, chain, h ? h->num : -1LL, comment ? "/* " : "",
		 comment ?: "", comment ? " */ " : "");
	if (parse_rule(v, o, head, ch)) {
		if (!v->s->err[0])
			snprintf(v->s->err, sizeof(v->s->err),
				 "nft: a rule not understood in %s %s", key,
				 chain);
		return -1;
	}
	return 0;
}

int xf_parse_nft(const struct xf_ctx *x, struct xf_set *s, const char *text)
{
	struct nv v = { .x = x, .s = s };
	const struct xn_json *list;
	struct xn_json *root;
	int i, pass, rc = 0;

	root = xn_json_parse(text, s->err, sizeof(s->err));
	if (!root)
		return -1;
	list = xn_json_get(root, "nftables");
	if (!list || list->type != XN_JARR) {
		snprintf(s->err, sizeof(s->err), "nft: no \"nftables\" array");
		rc = -1;
	}
	for (pass = 0; pass < 2 && !rc; pass++) {
		for (i = 0; i < list->n && !rc; i++) {
			const struct xn_json *o = list->items[i];

			if (pass == 0 && xn_json_get(o, "chain"))
				rc = add_chain(&v, xn_json_get(o, "chain"));
			else if (pass == 1 && xn_json_get(o, "rule"))
				rc = add_rule(&v, xn_json_get(o, "rule"));
		}
	}
	xn_json_free(root);
	return rc;
}

/* Adds to a chain the devices named in one line of nft's text listing:
 * `device "eth0"` or `devices = { "a", b }`. */
static int line_devices(struct xf_chain *ch, const char *l)
{
	const char *p = strstr(l, "device");
	char name[IF_NAMESIZE + 2];
	char **d;
	int n;

	if (!p)
		return 0;
	p += strlen("device");
	if (*p == 's')
		p++;
	for (;;) {
		p += strspn(p, " ={,\"");
		n = strcspn(p, " ,}\";");
		if (!n || *p == 'p' /* priority */ || n > IF_NAMESIZE)
			return 0;
		snprintf(name, sizeof(name), "%.*s", n, p);
		d = realloc(ch->devices, (ch->ndevices + 2) * sizeof(*d));
		if (!d)
			return -1;
		ch->devices = d;
		if (!(d[ch->ndevices++] = xf_strdup(name)))
			return -1;
		p += n;
		if (*p == '"')
			p++;
		if (*p != ',')
			return 0;
	}
}

int xf_nft_text_devices(struct xf_set *s, const char *text)
{
	char table[160] = "", fam[32], tname[64], cname[64], line[512];
	struct xf_chain *ch = NULL;
	const char *p = text, *nl;

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		if (sscanf(line, " table %31s %63s {", fam, tname) == 2) {
			snprintf(table, sizeof(table), "nft %s %s", fam, tname);
			ch = NULL;
		} else if (sscanf(line, " chain %63s {", cname) == 1) {
			ch = xf_chain_find(s, table, cname);
		} else if (ch && !ch->ndevices &&
			   (ch->hook == XF_H_INGRESS ||
			    ch->hook == XF_H_EGRESS) &&
			   strstr(line, " hook ")) {
			if (line_devices(ch, line))
				return -1;
		}
	}
	return 0;
}
