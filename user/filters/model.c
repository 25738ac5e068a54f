// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The model user/filters.c walks: conditions judged against one bridge
 * (ports, the machines' subnets, marks), and chains of rules. Used by the
 * parsers (user/filters_ipt.c, user/filters_nft.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filters/internal.h"

char *xf_strdup(const char *s)
{
	return strdup(s ? s : "");
}

void xf_note(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l && l + 2 < len)
		l += snprintf(buf + l, len - l, "; ");
	if (l >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

char *xf_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* ---------------------------------------------------------------- ports */

int xf_port_match(const char *pattern, const char *name, char wild)
{
	size_t l = strlen(pattern);

	if (wild && l && pattern[l - 1] == wild)
		return !strncmp(pattern, name, l - 1);
	return !strcmp(pattern, name);
}

void xf_cond_init(const struct xf_ctx *x, struct xf_cond *c)
{
	memset(c, 0, sizeof(*c));
	c->in = x->all;
	c->out = x->all;
}

void xf_cond_devs(const struct xf_ctx *x, struct xf_cond *c,
		  enum xf_devkind kind, const char *const *pats, int n, int neg,
		  int star)
{
	char wild = star ? '*' : '+';
	struct xf_pset s = { 0 };
	int i, j, hit, exact = !neg;

	for (j = 0; j < n; j++)
		if (strchr(pats[j], wild))
			exact = 0;
	if (kind == XF_DEV_BRIDGE) {
		for (hit = 0, j = 0; j < n; j++)
			hit |= xf_port_match(pats[j], x->in->bridge, wild);
		if (hit == neg)
			c->never = 1;
		return;
	}
	for (i = 0; i < x->in->nports; i++) {
		for (hit = 0, j = 0; j < n; j++)
			hit |= xf_port_match(pats[j], x->in->ports[i].name,
					     wild);
		if (hit != neg)
			pset_set(&s, i);
	}
	if (kind == XF_DEV_IN) {
		pset_and(&c->in, &s);
		c->in_named |= exact;
		if (pset_empty(&c->in))
			c->never = 1;
	} else {
		/* No output device at prerouting: a positive match fails
		 * there, a negated one holds. */
		if (!neg)
			c->out_req = 1;
		pset_and(&c->out, &s);
		c->out_named |= exact;
		if (pset_empty(&c->out) && !neg)
			c->never = 1;
	}
}

void xf_cond_dev(const struct xf_ctx *x, struct xf_cond *c,
		 enum xf_devkind kind, const char *pattern, int neg, int star)
{
	xf_cond_devs(x, c, kind, &pattern, 1, neg, star);
}

/* ------------------------------------------------------------- addresses */

static int prefix_parse(const char *s, int family, uint8_t a[16], int *len)
{
	char buf[64], *slash, *end;
	int max = family == 4 ? 32 : 128;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	*len = max;
	if (slash) {
		*slash++ = 0;
		if (strchr(slash, '.') || strchr(slash, ':'))
			return -1; /* a mask: not seen in save output */
		*len = strtol(slash, &end, 10);
		if (*end || *len < 0 || *len > max)
			return -1;
	}
	memset(a, 0, 16);
	return inet_pton(family == 4 ? AF_INET : AF_INET6, buf, a) == 1 ? 0
									: -1;
}

/* Is b/lb inside a/la? */
static int prefix_in(const uint8_t *a, int la, const uint8_t *b, int lb)
{
	int i;

	if (lb < la)
		return 0;
	for (i = 0; i < la; i++)
		if (((a[i / 8] ^ b[i / 8]) >> (7 - i % 8)) & 1)
			return 0;
	return 1;
}

int xf_cond_addr(const struct xf_ctx *x, struct xf_cond *c, int family,
		 const char *addr, int neg)
{
	int n = family == 4 ? x->n4 : x->n6, i, len, all = 1, none = 1;
	uint8_t a[16];

	if (prefix_parse(addr, family, a, &len))
		return -1;
	if (!n) {
		c->maybe = 1;
		return 0;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *na = family == 4 ? x->net4[i].a : x->net6[i].a;
		int nl = family == 4 ? x->net4[i].len : x->net6[i].len;

		if (!prefix_in(a, len, na, nl))
			all = 0;
		if (prefix_in(a, len, na, nl) || prefix_in(na, nl, a, len))
			none = 0;
	}
	if (neg ? all : none)
		c->never = 1;
	else if (!(neg ? none : all))
		c->maybe = 1;
	return 0;
}

void xf_cond_mark(struct xf_cond *c, uint32_t value, uint32_t mask, int neg)
{
	if (((value & mask) == 0) == neg)
		c->never = 1;
}

int xf_ctx_init(struct xf_ctx *x, const struct xn_filt_input *in, char *err,
		size_t errlen)
{
	char buf[512], *tok, *save = NULL;
	int i;

	memset(x, 0, sizeof(*x));
	x->in = in;
	if (in->nports > XF_MAX_PORTS) {
		snprintf(err, errlen, "more than %d ports", XF_MAX_PORTS);
		return -1;
	}
	for (i = 0; i < in->nports; i++)
		pset_set(&x->all, i);
	snprintf(buf, sizeof(buf), "%s", in->vm_nets ? in->vm_nets : "");
	for (tok = strtok_r(buf, " \t,", &save); tok;
	     tok = strtok_r(NULL, " \t,", &save)) {
		int v6 = !!strchr(tok, ':');
		int *n = v6 ? &x->n6 : &x->n4;

		if (*n >= 15 ||
		    prefix_parse(tok, v6 ? 6 : 4,
				 v6 ? x->net6[*n].a : x->net4[*n].a,
				 v6 ? &x->net6[*n].len : &x->net4[*n].len)) {
			snprintf(err, errlen, "bad vm_nets entry '%s'", tok);
			return -1;
		}
		(*n)++;
	}
	if (x->n6) { /* link-local addresses are always in use */
		prefix_parse("fe80::/10", 6, x->net6[x->n6].a,
			     &x->net6[x->n6].len);
		x->n6++;
	}
	return 0;
}

/* ---------------------------------------------------------------- chains */

struct xf_chain *xf_chain_find(struct xf_set *s, const char *table,
			       const char *name)
{
	int i;

	for (i = 0; i < s->nchains; i++)
		if (!strcmp(s->chains[i].name, name) &&
		    !strcmp(s->chains[i].table, table))
			return &s->chains[i];
	return NULL;
}

struct xf_chain *xf_chain_add(struct xf_set *s, const char *table,
			      const char *name)
{
	struct xf_chain *c = xf_chain_find(s, table, name);

	if (c)
		return c;
	c = realloc(s->chains, (s->nchains + 1) * sizeof(*c));
	if (!c)
		return NULL;
	s->chains = c;
	c = &c[s->nchains];
	memset(c, 0, sizeof(*c));
	c->name = xf_strdup(name);
	c->table = xf_strdup(table);
	if (!c->name || !c->table) {
		free(c->name);
		free(c->table);
		return NULL;
	}
	s->nchains++;
	return c;
}

struct xf_rule *xf_rule_add(struct xf_chain *ch)
{
	struct xf_rule *r = realloc(ch->rules, (ch->nrules + 1) * sizeof(*r));

	if (!r)
		return NULL;
	ch->rules = r;
	r = &r[ch->nrules++];
	memset(r, 0, sizeof(*r));
	return r;
}

int xf_skip_add(struct xf_set *s, const char *family, const char *table)
{
	char **k = realloc(s->skip, (s->nskip + 1) * sizeof(*k));

	if (!k)
		return -1;
	s->skip = k;
	k[s->nskip] = xf_printf("%s %s", family, table);
	return k[s->nskip] ? (s->nskip++, 0) : -1;
}

void xf_set_free(struct xf_set *s)
{
	int i, j;

	for (i = 0; i < s->nchains; i++) {
		struct xf_chain *c = &s->chains[i];

		for (j = 0; j < c->nrules; j++) {
			free(c->rules[j].target);
			free(c->rules[j].effect);
			free(c->rules[j].vwhy);
			free(c->rules[j].text);
		}
		for (j = 0; j < c->ndevices; j++)
			free(c->devices[j]);
		free(c->devices);
		free(c->rules);
		free(c->name);
		free(c->table);
		free(c->policy_text);
	}
	for (i = 0; i < s->nskip; i++)
		free(s->skip[i]);
	free(s->skip);
	free(s->chains);
}
