// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The JSON writer: see json_writer.h. */
#include <stdio.h>
#include <string.h>
#include "lib/json_writer.h"

void xn_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int xn_jw_pretty;

void xn_jw_init(struct xn_jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = xn_jw_pretty;
}

/* Pretty: a new line, indented to the depth. */
static void newline(struct xn_jw *w)
{
	fprintf(w->f, "\n%*s", 4 * w->depth, "");
}

void xn_jw_end(struct xn_jw *w)
{
	fputc('\n', w->f);
}

/* Before a value or a key: the comma between members. */
static void sep(struct xn_jw *w)
{
	int i;

	if (w->key) {
		w->key = 0;
		return;
	}
	/* (Deeper than XN_JW_DEPTH, the deepest level keeps the count.) */
	i = (w->depth > XN_JW_DEPTH ? XN_JW_DEPTH : w->depth) - 1;
	if (i < 0)
		return;
	if (w->some[i])
		fputc(',', w->f);
	w->some[i] = 1;
	if (w->pretty)
		newline(w);
}

static void open_(struct xn_jw *w, char c)
{
	sep(w);
	fputc(c, w->f);
	if (w->depth < XN_JW_DEPTH)
		w->some[w->depth] = 0;
	w->depth++;
}

static void close_(struct xn_jw *w, char c)
{
	if (w->depth)
		w->depth--;
	if (w->pretty && w->depth < XN_JW_DEPTH && w->some[w->depth])
		newline(w);
	fputc(c, w->f);
}

void xn_jw_obj(struct xn_jw *w)
{
	open_(w, '{');
}

void xn_jw_obj_end(struct xn_jw *w)
{
	close_(w, '}');
}

void xn_jw_arr(struct xn_jw *w)
{
	open_(w, '[');
}

void xn_jw_arr_end(struct xn_jw *w)
{
	close_(w, ']');
}

void xn_jw_key(struct xn_jw *w, const char *key)
{
	sep(w);
	xn_json_str(w->f, key);
	fputs(w->pretty ? ": " : ":", w->f);
	w->key = 1;
}

void xn_jw_str(struct xn_jw *w, const char *s)
{
	sep(w);
	xn_json_str(w->f, s);
}

void xn_jw_uint(struct xn_jw *w, unsigned long long v)
{
	sep(w);
	fprintf(w->f, "%llu", v);
}

void xn_jw_int(struct xn_jw *w, long long v)
{
	sep(w);
	fprintf(w->f, "%lld", v);
}

void xn_jw_bool(struct xn_jw *w, int b)
{
	sep(w);
	fputs(b ? "true" : "false", w->f);
}

void xn_jw_null(struct xn_jw *w)
{
	sep(w);
	fputs("null", w->f);
}

void xn_jw_fixed(struct xn_jw *w, double v, int decimals)
{
	sep(w);
	fprintf(w->f, "%.*f", decimals, v);
}

void xn_jw_kstr(struct xn_jw *w, const char *key, const char *s)
{
	xn_jw_key(w, key);
	xn_jw_str(w, s);
}

void xn_jw_kuint(struct xn_jw *w, const char *key, unsigned long long v)
{
	xn_jw_key(w, key);
	xn_jw_uint(w, v);
}

void xn_jw_kint(struct xn_jw *w, const char *key, long long v)
{
	xn_jw_key(w, key);
	xn_jw_int(w, v);
}

void xn_jw_kbool(struct xn_jw *w, const char *key, int b)
{
	xn_jw_key(w, key);
	xn_jw_bool(w, b);
}

void xn_jw_kobj(struct xn_jw *w, const char *key)
{
	xn_jw_key(w, key);
	xn_jw_obj(w);
}

void xn_jw_karr(struct xn_jw *w, const char *key)
{
	xn_jw_key(w, key);
	xn_jw_arr(w);
}
