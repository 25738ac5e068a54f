/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private to nft.c (chains and rules of `nft -j list ruleset`) and
 * nft_expr.c (one rule's expressions and verdict).
 */
#ifndef XF_NFT_H
#define XF_NFT_H

#include <stddef.h>
#include "filters/internal.h"

struct xn_json;

/* The rule being read. */
struct nv {
	const struct xf_ctx *x;
	struct xf_set *s;
	enum xf_layer layer;
	char text[512]; /* the rule, rendered */
};

/* Appends to the string in buf (len bytes), truncating. */
void xf_nft_cat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends a JSON value as nft prints it: "x", 5, 10.0.0.0/8, { a, b }. */
void xf_nft_render(char *b, size_t n, const struct xn_json *v);
/* The strings of v (a string, or a set / list of strings), at most max;
 * -1 when v is something else or names a set (@name). */
int xf_nft_strings(const struct xn_json *v, const char **out, int max);
/* Narrows c by one {"match": ...} expression m and renders it into v. */
void xf_nft_match(struct nv *v, struct xf_cond *c, const struct xn_json *m);
/* A verdict object ({"accept": null}, {"jump": {"target": "x"}}) into r,
 * or -1. */
int xf_nft_verdict(const struct xn_json *e, struct xf_rule *r);
/* Whether e is a verdict object. */
int xf_nft_is_verdict(const struct xn_json *e);

#endif
