/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A small JSON reader (RFC 8259) for machine output of other tools (nft -j).
 * Builds a tree; strings are decoded (\u escapes to UTF-8). */
#ifndef XN_JSON_H
#define XN_JSON_H

#include <stddef.h>

enum xn_jtype { XN_JNULL, XN_JBOOL, XN_JNUM, XN_JSTR, XN_JARR, XN_JOBJ };

struct xn_json {
	enum xn_jtype type;
	int b;	       /* XN_JBOOL */
	long long num; /* XN_JNUM (integer part) */
	char *str;     /* XN_JSTR, and XN_JNUM's literal */
	int n;	       /* items in XN_JARR / XN_JOBJ */
	struct xn_json **items;
	char **keys; /* XN_JOBJ */
};

/* NULL on error, with a one-line reason in err. */
struct xn_json *xn_json_parse(const char *text, char *err, size_t errlen);
void xn_json_free(struct xn_json *v);
/* Member of an object, or NULL (also when v is not an object). */
const struct xn_json *xn_json_get(const struct xn_json *v, const char *key);
/* The string of a member, or NULL if absent or not a string. */
const char *xn_json_str_of(const struct xn_json *v, const char *key);

#endif
