/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one JSON writer of the CLI: compact output (no spaces, one value per
 * document, a newline after it; indented with xn_jw_pretty), commas placed by
 * the writer. Objects and arrays nest up to XN_JW_DEPTH. Strings are escaped:
 * '"' and '\' with a backslash, control characters as \u00XX; other bytes
 * (UTF-8) as they are. Numbers are written as given: integers in full,
 * fixed-point with a stated number of decimals.
 */
#ifndef XN_JSON_WRITER_H
#define XN_JSON_WRITER_H

#include <stdio.h>

#define XN_JW_DEPTH 16

/* Indented output (bpftool's -p): members one a line, four spaces a
 * level, ": " after a key. Every writer made after it is set. */
extern int xn_jw_pretty;

struct xn_jw {
	FILE *f;
	int pretty; /* xn_jw_pretty when made */
	int depth;
	int key;		/* a key was written: its value follows */
	char some[XN_JW_DEPTH]; /* the open container has a member */
};

void xn_jw_init(struct xn_jw *w, FILE *f);
/* After the top-level value: the newline that ends the document. */
void xn_jw_end(struct xn_jw *w);

void xn_jw_obj(struct xn_jw *w);
void xn_jw_obj_end(struct xn_jw *w);
void xn_jw_arr(struct xn_jw *w);
void xn_jw_arr_end(struct xn_jw *w);
/* A member's name; the next value is its value. */
void xn_jw_key(struct xn_jw *w, const char *key);

void xn_jw_str(struct xn_jw *w, const char *s);
void xn_jw_uint(struct xn_jw *w, unsigned long long v);
void xn_jw_int(struct xn_jw *w, long long v);
void xn_jw_bool(struct xn_jw *w, int b);
void xn_jw_null(struct xn_jw *w);
/* "%.*f" of v. */
void xn_jw_fixed(struct xn_jw *w, double v, int decimals);

/* Members: key and value in one call. */
void xn_jw_kstr(struct xn_jw *w, const char *key, const char *s);
void xn_jw_kuint(struct xn_jw *w, const char *key, unsigned long long v);
void xn_jw_kint(struct xn_jw *w, const char *key, long long v);
void xn_jw_kbool(struct xn_jw *w, const char *key, int b);
void xn_jw_kobj(struct xn_jw *w, const char *key);
void xn_jw_karr(struct xn_jw *w, const char *key);

/* A string, quoted and escaped as above, alone. */
void xn_json_str(FILE *f, const char *s);

#endif
