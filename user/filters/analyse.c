// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Filters xdpnet would bypass (issue 9, part 5). What the bypass skips for a
 * unicast frame from port P to port Q of bridge B (TC or XDP redirect on P's
 * ingress):
 *   - nft netdev ingress on P and egress on Q (TC ingress runs before the
 *     netfilter ingress hook, and a redirect from TC ingress skips the
 *     netfilter egress hook): such chains make P (or Q) a filtered port;
 *   - the bridge's hooks: ebtables broute/nat/filter, nft bridge family
 *     (prerouting, forward, postrouting): -i/iifname name P, -o/oifname Q;
 *   - with br_netfilter and bridge-nf-call-iptables/-ip6tables (or the
 *     bridge's nf_call_* option): iptables/ip6tables and nft ip/ip6/inet
 *     PREROUTING (raw, mangle, nat), FORWARD (mangle, filter, security) and
 *     POSTROUTING (mangle, nat), where -i and -o are B itself and
 *     --physdev-in/out are P and Q; arptables FORWARD with -i/-o = P/Q.
 * Each base chain is walked from its hook; a rule counts when it can match
 * and does something the bypass would not do: drop or reject, a side effect
 * (NAT, marks, logging, notrack...), a reachable DROP policy. ACCEPT,
 * RETURN, jumps, rules without a target (accounting), and CHECKSUM (it only
 * completes checksums of DHCP replies) do not count by themselves. A rule
 * that only matches frames from or to named ports makes those ports
 * "filtered": they stay on the bridge. Any other rule that counts is
 * bridge-wide: attach refuses. A rule that matches every frame that reaches
 * it and accepts (libvirt's "-i virbr0 -o virbr0 -j ACCEPT") ends the walk
 * of its chain: what follows cannot see the frame.
 *
 * tc of a port's own (filters/tc.c): filters on its ingress make it a
 * filtered port; a qdisc or filters on its egress keep XDP redirects out
 * of it (TC redirects pass through them).
 *
 * Judged without looking at the frame: ports; addresses against the
 * bridge's subnets (vm_nets); marks (bypassed frames carry mark 0: a rule
 * that sets one counts itself); "addrtype LOCAL" or "fib daddr type local"
 * (frames between two machines are not addressed to the host); broadcast
 * and multicast (only unicast frames are bypassed). Anything else
 * (protocols, ports, conntrack state, sets, unknown matches) may match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/util.h"
#include "filters/internal.h"

/* ------------------------------------------------------------------ walk */

enum { W_FALL, W_TERM };

struct walk {
	const struct xf_ctx *x;
	struct xf_set *s;
	struct xn_filt_report *r;
	const char *where; /* "iptables filter FORWARD (br_netfilter)" */
	int oom;
};

/* The frames a walk stands for: from ports in to ports out. */
struct wc {
	struct xf_pset in, out;
	int in_named, out_named, has_out;
	const char *via; /* the rule that singled the ports out */
};

static void add_port_reason(struct walk *w, int i, const char *rule,
			    const char *what)
{
	struct xn_filt_port *p = &w->r->ports[i];

	if (p->filtered)
		return;
	p->filtered = 1;
	snprintf(p->reason, sizeof(p->reason), "%s (%s)", rule, what);
}

static void finding(struct walk *w, const struct wc *c, const char *text,
		    const char *what, int every)
{
	int port_in = c->in_named || !pset_eq(&c->in, &w->x->all);
	int port_out = c->has_out &&
		       (c->out_named || !pset_eq(&c->out, &w->x->all));
	struct xn_filt_rule *nr;
	int i;

	if (port_in || port_out) {
		const struct xf_pset *p = port_in ? &c->in : &c->out;

		for (i = 0; i < w->x->in->nports; i++)
			if (pset_has(p, i))
				add_port_reason(w, i, c->via ? c->via : text,
						what);
		return;
	}
	for (i = 0; i < w->r->nrules; i++)
		if (!strcmp(w->r->rules[i].text, text))
			return;
	nr = realloc(w->r->rules, (w->r->nrules + 1) * sizeof(*nr));
	if (!nr) {
		w->oom = 1;
		return;
	}
	w->r->rules = nr;
	nr = &nr[w->r->nrules];
	nr->text = xf_strdup(text);
	nr->why = xf_printf("%s; matches %s frames forwarded between two "
			    "ports; reached from %s",
			    what, every ? "all" : "some", w->where);
	if (!nr->text || !nr->why) {
		free(nr->text);
		free(nr->why);
		w->oom = 1;
		return;
	}
	w->r->nrules++;
}

static int walk_chain(struct walk *w, struct xf_chain *ch, const struct wc *c,
		      int depth)
{
	int i, ret = W_FALL;

	if (ch->visiting || depth > 64) {
		finding(w, c, ch->name, "jumps in a loop, or too deep", 0);
		return W_FALL;
	}
	ch->visiting = 1;
	for (i = 0; i < ch->nrules; i++) {
		const struct xf_rule *r = &ch->rules[i];
		struct xf_chain *t;
		struct wc rc = *c;
		int every, res;

		if (r->c.never || (!c->has_out && r->c.out_req) ||
		    (c->has_out && r->c.no_out_req))
			continue;
		pset_and(&rc.in, &r->c.in);
		if (c->has_out)
			pset_and(&rc.out, &r->c.out);
		if (pset_empty(&rc.in) || pset_empty(&rc.out))
			continue;
		rc.in_named |= r->c.in_named;
		rc.out_named |= c->has_out && r->c.out_named;
		if (!rc.via &&
		    (rc.in_named != c->in_named ||
		     rc.out_named != c->out_named || !pset_eq(&rc.in, &c->in) ||
		     !pset_eq(&rc.out, &c->out)))
			rc.via = r->text;
		every = !r->c.maybe && pset_eq(&rc.in, &c->in) &&
			pset_eq(&rc.out, &c->out);
		if (r->effect)
			finding(w, &rc, r->text, r->effect, every);
		switch (r->v) {
		case XF_V_NONE:
			break;
		case XF_V_ACCEPT:
			if (every) {
				ret = W_TERM;
				goto out;
			}
			break;
		case XF_V_DROP:
			finding(w, &rc, r->text, r->vwhy ? r->vwhy : "drops",
				every);
			if (every) {
				ret = W_TERM;
				goto out;
			}
			break;
		case XF_V_RETURN:
			if (every)
				goto out;
			break;
		case XF_V_JUMP:
		case XF_V_GOTO:
			t = xf_chain_find(w->s, ch->table, r->target);
			if (!t) {
				finding(w, &rc, r->text,
					"jumps to a missing chain", every);
				break;
			}
			res = walk_chain(w, t, &rc, depth + 1);
			if (every && (r->v == XF_V_GOTO || res == W_TERM)) {
				ret = res;
				goto out;
			}
			break;
		}
	}
	if (ch->policy == XF_V_ACCEPT) {
		ret = W_TERM;
	} else if (ch->policy == XF_V_DROP) {
		finding(w, c, ch->policy_text ? ch->policy_text : ch->name,
			"drops (policy)", 1);
		ret = W_TERM;
	}
out:
	ch->visiting = 0;
	return ret;
}

static const char *const hook_names[] = {
	[XF_H_NONE] = "-",	     [XF_H_BROUTE] = "BROUTING",
	[XF_H_PRE] = "PREROUTING",   [XF_H_FWD] = "FORWARD",
	[XF_H_POST] = "POSTROUTING", [XF_H_INGRESS] = "ingress",
	[XF_H_EGRESS] = "egress",
};

static void walk_base(struct walk *w, struct xf_chain *ch)
{
	char where[160];
	struct wc c = { .in = w->x->all, .out = w->x->all };
	int i, j;

	snprintf(where, sizeof(where), "%s %s%s%s%s", ch->table, ch->name,
		 strcmp(ch->name, hook_names[ch->hook]) ? " hook " : "",
		 strcmp(ch->name, hook_names[ch->hook]) ? hook_names[ch->hook]
							: "",
		 ch->layer == XF_L_BRIDGE || ch->layer == XF_L_NETDEV
			 ? ""
			 : " (br_netfilter: bridged frames pass the IP hooks)");
	w->where = where;
	c.has_out = ch->hook == XF_H_FWD || ch->hook == XF_H_POST;
	if (ch->hook != XF_H_INGRESS && ch->hook != XF_H_EGRESS) {
		walk_chain(w, ch, &c, 0);
		return;
	}
	/* A netfilter ingress/egress chain on a port: bypassed frames skip
	 * it, so the port is filtered when the chain does anything. */
	for (i = 0; i < w->x->in->nports; i++) {
		for (j = 0; j < ch->ndevices; j++)
			if (!strcmp(ch->devices[j], w->x->in->ports[i].name))
				break;
		/* no device known (nft -j before 1.0.7): maybe any port */
		if (ch->ndevices && j == ch->ndevices)
			continue;
		memset(&c, 0, sizeof(c));
		c.in = c.out = w->x->all;
		c.has_out = ch->hook == XF_H_EGRESS;
		if (c.has_out) {
			memset(&c.out, 0, sizeof(c.out));
			pset_set(&c.out, i);
			c.out_named = 1;
		} else {
			memset(&c.in, 0, sizeof(c.in));
			pset_set(&c.in, i);
			c.in_named = 1;
		}
		walk_chain(w, ch, &c, 0);
	}
}

/* -------------------------------------------------------------- analysis */

static const char *const verdicts[] = {
	[XN_FILT_CLEAN] = "clean",
	[XN_FILT_PORTS] = "ports",
	[XN_FILT_MATCH] = "match",
};

const char *xn_filt_verdict_name(enum xn_filt_verdict v)
{
	return XN_NAME(verdicts, v, "unknown");
}

static int layer_seen(const struct xn_filt_input *in, enum xf_layer l)
{
	switch (l) {
	case XF_L_IP4:
		return in->call_iptables;
	case XF_L_IP6:
		return in->call_ip6tables;
	case XF_L_INET:
		return in->call_iptables || in->call_ip6tables;
	case XF_L_ARP:
		return in->call_arptables;
	default:
		return 1;
	}
}

static void unknown(struct xn_filt_report *r, const char *what)
{
	size_t l = strlen(r->unknown);

	r->verdict = XN_FILT_UNKNOWN;
	snprintf(r->unknown + l, sizeof(r->unknown) - l, "%s%s", l ? "; " : "",
		 what);
}

int xn_filt_analyse(const struct xn_filt_input *in, struct xn_filt_report *r)
{
	struct xf_set s = { 0 };
	struct xf_ctx x;
	struct walk w = { .x = &x, .s = &s, .r = r };
	int i, pass, any = 0;

	memset(r, 0, sizeof(*r));
	r->nports = in->nports;
	r->ports = calloc(in->nports + 1, sizeof(*r->ports));
	if (!r->ports)
		return -1;
	for (i = 0; i < in->nports; i++) {
		snprintf(r->ports[i].name, sizeof(r->ports[i].name), "%s",
			 in->ports[i].name);
		r->ports[i].ifindex = in->ports[i].ifindex;
	}
	for (i = 0; i < in->nports; i++) {
		const struct xn_filt_port_id *p = &in->ports[i];
		struct xn_filt_port *o = &r->ports[i];

		if (p->tc_in[0]) {
			o->filtered = o->tc_in = 1;
			snprintf(o->reason, sizeof(o->reason),
				 "tc on its ingress (%s): a bypass from it "
				 "would skip them",
				 p->tc_in);
		}
		if (p->tc_out[0]) {
			o->no_xdp_in = 1;
			snprintf(o->no_xdp_why, sizeof(o->no_xdp_why),
				 "tc on its egress (%s): an XDP redirect into "
				 "it would skip them",
				 p->tc_out);
		}
	}
	if (in->unknown && in->unknown[0])
		unknown(r, in->unknown);
	if (xf_ctx_init(&x, in, s.err, sizeof(s.err))) {
		unknown(r, s.err);
		return 0;
	}
	/* Save formats first: they say which nft tables they print; nft's
	 * text only adds devices to chains from its JSON. */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < in->ntexts; i++) {
			const struct xn_filt_text *t = &in->texts[i];
			int rc;

			if (!t->text || pass != (t->src == XN_FILT_NFT_TEXT ? 2
						 : t->src == XN_FILT_NFT    ? 1
									 : 0))
				continue;
			s.err[0] = 0;
			rc = pass == 2 ? xf_nft_text_devices(&s, t->text)
			     : pass == 1
				     ? xf_parse_nft(&x, &s, t->text)
				     : xf_parse_save(&x, &s, t->src, t->text);
			if (rc)
				unknown(r, s.err[0] ? s.err : "out of memory");
		}
	}
	for (i = 0; i < s.nchains && !w.oom; i++) {
		struct xf_chain *ch = &s.chains[i];

		if (ch->hook != XF_H_NONE && layer_seen(in, ch->layer))
			walk_base(&w, ch);
	}
	xf_set_free(&s);
	if (w.oom)
		return -1;
	for (i = 0; i < in->nports; i++)
		any |= r->ports[i].filtered;
	if (r->verdict != XN_FILT_UNKNOWN)
		r->verdict = r->nrules ? XN_FILT_MATCH
			     : any     ? XN_FILT_PORTS
				       : XN_FILT_CLEAN;
	return 0;
}

void xn_filt_report_free(struct xn_filt_report *r)
{
	int i;

	for (i = 0; i < r->nrules; i++) {
		free(r->rules[i].text);
		free(r->rules[i].why);
	}
	free(r->rules);
	free(r->ports);
	memset(r, 0, sizeof(*r));
}
