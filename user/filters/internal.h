/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internal model of user/filters*.c: rule sets of every syntax become
 * chains of rules whose match is already judged against one bridge (see
 * struct xf_cond); user/filters.c walks them from the hooks a bridged frame
 * passes.
 */
#ifndef XN_FILTERS_INT_H
#define XN_FILTERS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "filters/filters.h"

#define XF_MAX_PORTS 256

/* Which ports a match allows, as a bitmap over the input's ports. */
struct xf_pset {
	uint64_t w[XF_MAX_PORTS / 64];
};

static inline void pset_set(struct xf_pset *p, int i)
{
	p->w[i / 64] |= 1ULL << (i % 64);
}

static inline int pset_has(const struct xf_pset *p, int i)
{
	return !!(p->w[i / 64] & (1ULL << (i % 64)));
}

static inline void pset_and(struct xf_pset *a, const struct xf_pset *b)
{
	unsigned int i;

	for (i = 0; i < XF_MAX_PORTS / 64; i++)
		a->w[i] &= b->w[i];
}

static inline int pset_empty(const struct xf_pset *p)
{
	unsigned int i;

	for (i = 0; i < XF_MAX_PORTS / 64; i++)
		if (p->w[i])
			return 0;
	return 1;
}

static inline int pset_eq(const struct xf_pset *a, const struct xf_pset *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* What a rule's match can do for a unicast frame forwarded by the bridge
 * from one of its ports (in) to another (out). */
struct xf_cond {
	int never;		/* cannot match such a frame */
	int maybe;		/* more is tested than ports (addresses, ...) */
	struct xf_pset in, out; /* ports it allows */
	int in_named, out_named; /* a port named exactly, positively */
	int out_req;		 /* needs an output port (not at prerouting) */
	int no_out_req;		 /* needs no output port (prerouting only) */
};

/* Layers: which hooks a chain sits on, and what its -i/-o mean. */
enum xf_layer {
	XF_L_BRIDGE, /* ebtables, nft bridge: devices are ports */
	XF_L_IP4,    /* iptables, nft ip: devices are the bridge */
	XF_L_IP6,
	XF_L_INET,   /* nft inet: both */
	XF_L_ARP,    /* arptables FORWARD (br_netfilter): devices are ports */
	XF_L_NETDEV, /* nft netdev (and ingress hooks): on devices */
};

enum xf_hook {
	XF_H_NONE, /* not a base chain, or a hook bridged frames never see */
	XF_H_BROUTE,
	XF_H_PRE,
	XF_H_FWD,
	XF_H_POST,
	XF_H_INGRESS,
	XF_H_EGRESS,
};

enum xf_verdict {
	XF_V_NONE, /* no verdict: the next rule follows */
	XF_V_ACCEPT,
	XF_V_DROP, /* drop, reject, queue */
	XF_V_RETURN,
	XF_V_JUMP,
	XF_V_GOTO,
};

struct xf_rule {
	struct xf_cond c;
	enum xf_verdict v;
	char *target; /* chain of a jump or goto */
	char *effect; /* a side effect that matters ("MASQUERADE"), or NULL */
	char *vwhy;   /* words for the verdict ("rejects"), or NULL */
	char *text;   /* "iptables filter: -A FORWARD -j DROP" */
};

struct xf_chain {
	char *name;
	char *table;
	int family_ok; /* its layer is seen by bridged frames */
	enum xf_layer layer;
	enum xf_hook hook;
	enum xf_verdict policy; /* ACCEPT, DROP, RETURN (user chains), NONE */
	char *policy_text;	/* as a rule, for the report */
	struct xf_rule *rules;
	int nrules;
	char **devices; /* netdev/ingress base chains */
	int ndevices;
	int visiting; /* walk: loop guard */
};

struct xf_ctx {
	const struct xn_filt_input *in;
	struct xf_pset all; /* every port */
	/* vm_nets, parsed */
	int n4, n6;
	struct {
		uint8_t a[16];
		int len;
	} net4[16], net6[16];
};

struct xf_set {
	struct xf_chain *chains;
	int nchains;
	/* nft tables that a save tool printed already ("ip filter"). */
	char **skip;
	int nskip;
	char err[256]; /* a parse error: the result is unknown */
};

/* filters_model.c: building conditions and chains. */
int xf_ctx_init(struct xf_ctx *x, const struct xn_filt_input *in, char *err,
		size_t errlen);
void xf_set_free(struct xf_set *s);
void xf_cond_init(const struct xf_ctx *x, struct xf_cond *c);
enum xf_devkind { XF_DEV_IN, XF_DEV_OUT, XF_DEV_BRIDGE };
/* A device match: pattern is an ifname, "+" (iptables) or "*" (nft)
 * at the end a wildcard. */
void xf_cond_dev(const struct xf_ctx *x, struct xf_cond *c,
		 enum xf_devkind kind, const char *pattern, int neg, int star);
void xf_cond_devs(const struct xf_ctx *x, struct xf_cond *c,
		  enum xf_devkind kind, const char *const *pats, int n, int neg,
		  int star);
/* An address match ("10.0.0.0/8", "fe80::1"); family 4 or 6.
 * Returns -1 if addr is not an address. */
int xf_cond_addr(const struct xf_ctx *x, struct xf_cond *c, int family,
		 const char *addr, int neg);
/* A mark (packet or conntrack) test: bypassed frames carry mark 0. */
void xf_cond_mark(struct xf_cond *c, uint32_t value, uint32_t mask, int neg);
int xf_port_match(const char *pattern, const char *name, char wild);

struct xf_chain *xf_chain_add(struct xf_set *s, const char *table,
			      const char *name);
struct xf_chain *xf_chain_find(struct xf_set *s, const char *table,
			       const char *name);
struct xf_rule *xf_rule_add(struct xf_chain *ch);
int xf_skip_add(struct xf_set *s, const char *family, const char *table);
char *xf_strdup(const char *s);
char *xf_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends to the "; "-separated list in buf (len bytes): what could not be
 * read, for xn_filt_input.unknown. */
void xf_note(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* filters_ipt.c: iptables-save, ip6tables-save, ebtables-save,
 * arptables-save. 0, or -1 with s->err set. */
int xf_parse_save(const struct xf_ctx *x, struct xf_set *s,
		  enum xn_filt_src src, const char *text);
/* filters_nft.c: nft -j list ruleset. */
int xf_parse_nft(const struct xf_ctx *x, struct xf_set *s, const char *text);
/* filters_nft.c: the devices of ingress/egress chains from nft's text. */
int xf_nft_text_devices(struct xf_set *s, const char *text);

#endif
