// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `nft -j list ruleset` (libnftables-json(5)). JSON rather than the text
 * listing: it is nft's documented machine interface, each rule comes with
 * its family, table and chain, names are quoted and escaped, and it does not
 * change with nft's pretty-printing between versions. Tables that a save
 * tool printed already (iptables-nft and ebtables-nft keep theirs in nft)
 * are skipped: their rules were judged from the save format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "filters/nft.h"
#include "lib/json_reader.h"

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
		xf_nft_match(v, &ec, &m);
		xf_nft_cat(v->text, sizeof(v->text), ": %s ",
			   el->items[1]->keys[0]);
		xf_nft_render(v->text, sizeof(v->text),
			      xn_json_get(el->items[1]->items[0], "target"));
		r = new_rule(v, ch, &ec, head);
		if (!r || xf_nft_verdict(el->items[1], r))
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
			xf_nft_match(v, &c, e->items[0]);
			continue;
		}
		if ((vm = xn_json_get(e, "vmap")))
			return vmap(v, ch, &c, vm, head, effect);
		if (xf_nft_is_verdict(e)) {
			xf_nft_cat(v->text, sizeof(v->text), "%s ", e->keys[0]);
			xf_nft_render(v->text, sizeof(v->text),
				      xn_json_get(e->items[0], "target"));
			r = new_rule(v, ch, &c, head);
			if (!r || xf_nft_verdict(e, r)) {
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
		xf_nft_cat(v->text, sizeof(v->text), "%s ", e->keys[0]);
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
	n = dev ? xf_nft_strings(dev, devs, 64) : 0;
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
