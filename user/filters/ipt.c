// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The save formats of iptables, ip6tables, ebtables and arptables (legacy
 * or nft; "(nf_tables)" in the header says the tables also appear in nft's
 * ruleset, where user/filters_nft.c then skips them). Each rule's matches
 * are judged here (see user/filters.c for the model); unknown matches may
 * match, unknown targets count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "filters/internal.h"

#define MAX_ARGS 256

struct sv {
	const struct xf_ctx *x;
	struct xf_set *s;
	enum xn_filt_src src;
	enum xf_layer layer;
	const char *tool;
	char table[64];
	char tkey[96];
	int nft;
	int lineno;
};

/* Splits a line into words; "..." quotes (with \" and \\) are one word. */
static int split(char *line, char **argv)
{
	int n = 0;
	char *p = line, *o;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == MAX_ARGS)
			return -1;
		argv[n++] = o = p;
		if (*p == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				*o++ = *p++;
			}
			if (!*p)
				return -1;
			p++;
		} else {
			while (*p && *p != ' ' && *p != '\t')
				*o++ = *p++;
		}
		if (*p)
			p++;
		*o = 0;
	}
}

static enum xf_hook hook_of(enum xf_layer l, const char *table,
			    const char *chain)
{
	if (l == XF_L_BRIDGE) {
		if (!strcmp(table, "broute") && !strcmp(chain, "BROUTING"))
			return XF_H_BROUTE;
		if (!strcmp(table, "nat") && !strcmp(chain, "PREROUTING"))
			return XF_H_PRE;
		if (!strcmp(table, "filter") && !strcmp(chain, "FORWARD"))
			return XF_H_FWD;
		if (!strcmp(table, "nat") && !strcmp(chain, "POSTROUTING"))
			return XF_H_POST;
		return XF_H_NONE;
	}
	if (l == XF_L_ARP)
		return !strcmp(chain, "FORWARD") ? XF_H_FWD : XF_H_NONE;
	if (!strcmp(chain, "PREROUTING"))
		return XF_H_PRE; /* raw, mangle, nat */
	if (!strcmp(chain, "FORWARD"))
		return XF_H_FWD; /* mangle, filter, security */
	if (!strcmp(chain, "POSTROUTING"))
		return XF_H_POST; /* mangle, nat */
	return XF_H_NONE;
}

static int in_list(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (!strcasecmp(v, *list))
			return 1;
	return 0;
}

/* Every comma-separated item of v is in list. */
static int all_in(const char *v, const char *const *list)
{
	char buf[128], *t, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", v);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!in_list(t, list))
			return 0;
	return 1;
}

static void never_unless(struct xf_cond *c, int cannot, int neg)
{
	if (!cannot)
		c->maybe = 1;
	else if (!neg)
		c->never = 1;
}

static const char *const not_vm_dst[] = { "LOCAL",	 "BROADCAST",
					  "MULTICAST",	 "BLACKHOLE",
					  "UNREACHABLE", "PROHIBIT",
					  NULL };
static const char *const local[] = { "LOCAL", NULL };
static const char *const natted[] = { "SNAT", "DNAT", NULL };
static const char *const bcast[] = { "broadcast", "multicast", NULL };
static const char *const nat_targets[] = { "DNAT",     "SNAT",	 "MASQUERADE",
					   "REDIRECT", "NETMAP", NULL };

static void mark_opt(struct xf_cond *c, const char *v, int neg)
{
	char *end;
	unsigned long val = strtoul(v, &end, 0), mask = 0xffffffffUL;

	if (*end == '/')
		mask = strtoul(end + 1, &end, 0);
	if (*end)
		c->maybe = 1;
	else
		xf_cond_mark(c, val, mask, neg);
}

/* A MAC destination only broadcast/multicast frames have. */
static int group_mac(const char *v)
{
	unsigned int b0;

	if (!strcasecmp(v, "Broadcast") || !strcasecmp(v, "Multicast") ||
	    !strcasecmp(v, "BGA"))
		return 1;
	/* 01:00:00:00:00:00/01:00:00:00:00:00, or a group address */
	if (sscanf(v, "%x:", &b0) != 1 || !(b0 & 1))
		return 0;
	v = strchr(v, '/');
	return !v || (sscanf(v + 1, "%x:", &b0) == 1 && (b0 & 1));
}

/* One option of an iptables rule, with its value (NULL if none). */
static void ipt_opt(struct sv *v, struct xf_cond *c, const char *mod,
		    const char *o, const char *val, int neg)
{
	int fam = v->layer == XF_L_IP6 ? 6 : 4;

	if (!strcmp(o, "-i") || !strcmp(o, "--in-interface") ||
	    !strcmp(o, "-o") || !strcmp(o, "--out-interface")) {
		xf_cond_dev(v->x, c, XF_DEV_BRIDGE, val, neg, 0);
	} else if (!strcmp(o, "-s") || !strcmp(o, "--source") ||
		   !strcmp(o, "-d") || !strcmp(o, "--destination")) {
		if (xf_cond_addr(v->x, c, fam, val, neg))
			c->maybe = 1;
	} else if (!strcmp(o, "--physdev-in")) {
		xf_cond_dev(v->x, c, XF_DEV_IN, val, neg, 0);
	} else if (!strcmp(o, "--physdev-out")) {
		xf_cond_dev(v->x, c, XF_DEV_OUT, val, neg, 0);
	} else if (!strcmp(o, "--physdev-is-in")) {
		if (neg)
			c->never = 1;
	} else if (!strcmp(o, "--physdev-is-out") ||
		   !strcmp(o, "--physdev-is-bridged")) {
		if (neg)
			c->no_out_req = 1;
		else
			c->out_req = 1;
	} else if (!strcmp(mod, "comment")) {
		/* nothing */
	} else if (!strcmp(o, "--dst-type") && !strcmp(mod, "addrtype")) {
		never_unless(c, all_in(val, not_vm_dst), neg);
	} else if (!strcmp(o, "--src-type") && !strcmp(mod, "addrtype")) {
		never_unless(c, all_in(val, local), neg);
	} else if (!strcmp(o, "--ctstate")) {
		never_unless(c, all_in(val, natted), neg);
	} else if (!strcmp(o, "--mark") &&
		   (!strcmp(mod, "mark") || !strcmp(mod, "connmark"))) {
		mark_opt(c, val, neg);
	} else if (!strcmp(o, "--pkt-type")) {
		never_unless(c, in_list(val, bcast), neg);
	} else if (strcmp(o, "-m") && strcmp(o, "--match")) {
		c->maybe = 1;
	}
}

static void ebt_opt(struct sv *v, struct xf_cond *c, const char *o,
		    const char *val, int neg, char **effect)
{
	if (!strcmp(o, "-i") || !strcmp(o, "--in-if") ||
	    !strcmp(o, "--in-interface")) {
		xf_cond_dev(v->x, c, XF_DEV_IN, val, neg, 0);
	} else if (!strcmp(o, "-o") || !strcmp(o, "--out-if") ||
		   !strcmp(o, "--out-interface")) {
		xf_cond_dev(v->x, c, XF_DEV_OUT, val, neg, 0);
	} else if (!strcmp(o, "--logical-in") || !strcmp(o, "--logical-out")) {
		xf_cond_dev(v->x, c, XF_DEV_BRIDGE, val, neg, 0);
	} else if (v->layer == XF_L_ARP) {
		c->maybe = 1;
	} else if (!strcmp(o, "-d") || !strcmp(o, "--dst") ||
		   !strcmp(o, "--destination")) {
		never_unless(c, group_mac(val), neg);
	} else if (!strcmp(o, "--ip-src") || !strcmp(o, "--ip-source") ||
		   !strcmp(o, "--ip-dst") || !strcmp(o, "--ip-destination") ||
		   !strcmp(o, "--ip6-src") || !strcmp(o, "--ip6-source") ||
		   !strcmp(o, "--ip6-dst") || !strcmp(o, "--ip6-destination")) {
		if (xf_cond_addr(v->x, c, strstr(o, "ip6") ? 6 : 4, val, neg))
			c->maybe = 1;
	} else if (!strcmp(o, "--pkttype-type")) {
		never_unless(c, in_list(val, bcast), neg);
	} else if (!strcmp(o, "--mark")) {
		mark_opt(c, val, neg);
	} else if (!strncmp(o, "--log", 5) || !strncmp(o, "--nflog", 7) ||
		   !strncmp(o, "--ulog", 6)) {
		if (!*effect)
			*effect = xf_strdup("logs (ebtables watcher)");
	} else {
		c->maybe = 1;
	}
}

/* Sets the rule's verdict from its target and the target's options. */
static int set_target(struct sv *v, struct xf_rule *r, int go, char **argv,
		      int argc)
{
	const char *t = argv[0];
	char buf[256] = "";
	int i;

	if (go || xf_chain_find(v->s, v->tkey, t)) {
		r->v = go ? XF_V_GOTO : XF_V_JUMP;
		r->target = xf_strdup(t);
		return r->target ? 0 : -1;
	}
	if (!strcmp(t, "ACCEPT")) {
		r->v = XF_V_ACCEPT;
	} else if (!strcmp(t, "DROP") || !strcmp(t, "REJECT") ||
		   !strcmp(t, "QUEUE") || !strcmp(t, "NFQUEUE")) {
		r->v = XF_V_DROP;
		if (t[0] != 'D')
			r->vwhy = xf_strdup(t[0] == 'R'
						    ? "rejects"
						    : "queues to user space");
	} else if (!strcmp(t, "RETURN")) {
		r->v = XF_V_RETURN;
	} else if (!strcmp(t, "CONTINUE") || !strcmp(t, "CHECKSUM")) {
		/* no verdict; CHECKSUM only completes a checksum */
	} else {
		for (i = 0; i < argc; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s%s", i ? " " : "", argv[i]);
		free(r->effect);
		r->effect = xf_printf("-j %s", buf);
		if (!r->effect)
			return -1;
		/* NAT targets end the nat chain */
		if (in_list(t, nat_targets))
			r->v = XF_V_ACCEPT;
	}
	return 0;
}

static int parse_rule(struct sv *v, char *line)
{
	char *argv[MAX_ARGS], *copy = xf_strdup(line);
	struct xf_chain *ch;
	struct xf_rule *r;
	const char *mod = "";
	int argc, i, neg = 0,
		     ebt = v->layer == XF_L_BRIDGE || v->layer == XF_L_ARP;

	if (!copy)
		return -1;
	argc = split(copy, argv);
	if (argc < 2 || !(ch = xf_chain_find(v->s, v->tkey, argv[1]))) {
		snprintf(v->s->err, sizeof(v->s->err),
			 "%s-save line %d: bad rule", v->tool, v->lineno);
		free(copy);
		return -1;
	}
	r = xf_rule_add(ch);
	if (!r || !(r->text = xf_printf("%s %s: %s", v->tool, v->table, line)))
		goto oom;
	xf_cond_init(v->x, &r->c);
	for (i = 2; i < argc; i++) {
		const char *o = argv[i], *val = NULL;

		if (!strcmp(o, "!")) {
			neg = 1;
			continue;
		}
		if (!strcmp(o, "-j") || !strcmp(o, "--jump") ||
		    !strcmp(o, "-g") || !strcmp(o, "--goto")) {
			if (i + 1 >= argc)
				break;
			if (set_target(v, r, o[1] == 'g' || o[2] == 'g',
				       &argv[i + 1], argc - i - 1))
				goto oom;
			/* ebtables watchers may follow the target */
			for (i += 2; ebt && i < argc; i++)
				if (!strncmp(argv[i], "--log", 5) ||
				    !strncmp(argv[i], "--nflog", 7) ||
				    !strncmp(argv[i], "--ulog", 6))
					ebt_opt(v, &r->c, argv[i], "", 0,
						&r->effect);
			break;
		}
		if (!strcmp(o, "-m") || !strcmp(o, "--match")) {
			mod = i + 1 < argc ? argv[++i] : "";
			continue;
		}
		/* A value follows unless the next word is an option; in
		 * ebtables and arptables a "!" may stand before it. */
		if (ebt && i + 1 < argc && !strcmp(argv[i + 1], "!")) {
			neg = 1;
			i++;
		}
		if (i + 1 < argc && argv[i + 1][0] != '-' &&
		    strcmp(argv[i + 1], "!"))
			val = argv[++i];
		/* further values (e.g. --reject-with x, --ctstate a b) */
		while (i + 1 < argc && argv[i + 1][0] != '-' &&
		       strcmp(argv[i + 1], "!"))
			i++;
		if (ebt)
			ebt_opt(v, &r->c, o, val ? val : "", neg, &r->effect);
		else
			ipt_opt(v, &r->c, mod, o, val ? val : "", neg);
		neg = 0;
	}
	free(copy);
	return 0;
oom:
	free(copy);
	return -1;
}

static int parse_chain(struct sv *v, char *line)
{
	char *argv[4], name[128], pol[16];
	struct xf_chain *ch;
	int argc = split(line, argv);

	if (argc < 2) {
		snprintf(v->s->err, sizeof(v->s->err),
			 "%s-save line %d: bad chain", v->tool, v->lineno);
		return -1;
	}
	snprintf(name, sizeof(name), "%s", argv[0] + 1);
	snprintf(pol, sizeof(pol), "%s", argv[1]);
	ch = xf_chain_add(v->s, v->tkey, name);
	if (!ch)
		return -1;
	ch->layer = v->layer;
	ch->hook = hook_of(v->layer, v->table, name);
	ch->policy = !strcmp(pol, "ACCEPT")   ? XF_V_ACCEPT
		     : !strcmp(pol, "DROP")   ? XF_V_DROP
		     : !strcmp(pol, "RETURN") ? XF_V_RETURN
					      : XF_V_NONE;
	if (ch->policy != XF_V_NONE) {
		ch->policy_text = xf_printf("%s %s: -P %s %s", v->tool,
					    v->table, name, pol);
		if (!ch->policy_text)
			return -1;
	}
	return 0;
}

int xf_parse_save(const struct xf_ctx *x, struct xf_set *s,
		  enum xn_filt_src src, const char *text)
{
	static const char *const tools[] = { "iptables", "ip6tables",
					     "ebtables", "arptables" };
	static const char *const fams[] = { "ip", "ip6", "bridge", "arp" };
	static const enum xf_layer layers[] = { XF_L_IP4, XF_L_IP6, XF_L_BRIDGE,
						XF_L_ARP };
	struct sv v = { .x = x, .s = s, .src = src };
	char *buf = xf_strdup(text), *line, *save = NULL;
	int rc = 0;

	if (!buf || src > XN_FILT_ARPT) {
		free(buf);
		return -1;
	}
	v.tool = tools[src];
	v.layer = layers[src];
	for (line = strtok_r(buf, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);

		v.lineno++;
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
			line[--l] = 0;
		if (!l)
			continue;
		if (line[0] == '#') {
			if (strstr(line, "(nf_tables)"))
				v.nft = 1;
		} else if (line[0] == '*') {
			snprintf(v.table, sizeof(v.table), "%s", line + 1);
			snprintf(v.tkey, sizeof(v.tkey), "%s %s", v.tool,
				 v.table);
			if (v.nft)
				rc = xf_skip_add(s, fams[src], v.table);
		} else if (line[0] == ':') {
			rc = v.table[0] ? parse_chain(&v, line) : -1;
		} else if (!strncmp(line, "-A ", 3)) {
			rc = v.table[0] ? parse_rule(&v, line) : -1;
		} else if (strcmp(line, "COMMIT")) {
			rc = -1;
		}
		if (rc && !s->err[0])
			snprintf(s->err, sizeof(s->err),
				 "%s-save line %d: not understood", v.tool,
				 v.lineno);
	}
	free(buf);
	return rc;
}
