/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A strict JSON reader for tests (RFC 8259: no trailing commas, no
 * comments, no duplicate keys, strict number grammar, escapes checked,
 * one value per text with only whitespace around it). Builds a tree;
 * jv_get()/jv_at()/jv_path() walk it (inline: a test need not use all
 * three). Header-only, static functions.
 */
#ifndef JSONV_H
#define JSONV_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type t;
	int b;
	double num;
	char *lit;   /* JV_NUM: the literal, for exact 64-bit integers */
	char *str;   /* JV_STR */
	int n;	     /* items (JV_ARR, JV_OBJ) */
	char **keys; /* JV_OBJ */
	struct jv **items;
};

struct jv_parser {
	const char *p;
	char err[128];
	int depth;
};

static void jv_free(struct jv *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		jv_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->lit);
	free(v->str);
	free(v);
}

static void jv_ws(struct jv_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

static struct jv *jv_fail(struct jv_parser *ps, const char *what)
{
	if (!ps->err[0])
		snprintf(ps->err, sizeof(ps->err), "%s at '%.12s'", what,
			 ps->p);
	return NULL;
}

static char *jv_string(struct jv_parser *ps)
{
	size_t cap = 16, n = 0;
	char *s;

	if (*ps->p != '"')
		return (char *)jv_fail(ps, "expected a string");
	ps->p++;
	s = malloc(cap);
	while (s && *ps->p != '"') {
		unsigned char c = *ps->p;

		if (!c || c < 0x20) {
			free(s);
			return (char *)jv_fail(ps, "bad character in string");
		}
		if (n + 8 >= cap)
			s = realloc(s, cap *= 2);
		if (!s)
			break;
		if (c != '\\') {
			s[n++] = c;
			ps->p++;
			continue;
		}
		ps->p++;
		switch (*ps->p) {
		case '"':
		case '\\':
		case '/':
			s[n++] = *ps->p;
			break;
		case 'b':
			s[n++] = '\b';
			break;
		case 'f':
			s[n++] = '\f';
			break;
		case 'n':
			s[n++] = '\n';
			break;
		case 'r':
			s[n++] = '\r';
			break;
		case 't':
			s[n++] = '\t';
			break;
		case 'u': {
			unsigned int u, i;

			for (i = 1; i <= 4; i++)
				if (!isxdigit((unsigned char)ps->p[i])) {
					free(s);
					return (char *)jv_fail(ps, "bad \\u");
				}
			sscanf(ps->p + 1, "%4x", &u);
			if (!u) {
				/* A C string cannot hold it. */
				free(s);
				return (char *)jv_fail(ps, "\\u0000");
			}
			/* Tests only need ASCII control characters. */
			s[n++] = u < 0x80 ? (char)u : '?';
			ps->p += 4;
			break;
		}
		default:
			free(s);
			return (char *)jv_fail(ps, "bad escape");
		}
		ps->p++;
	}
	if (!s)
		return (char *)jv_fail(ps, "out of memory");
	s[n] = 0;
	ps->p++;
	return s;
}

static struct jv *jv_value(struct jv_parser *ps);

static int jv_push(struct jv *v, char *key, struct jv *item)
{
	struct jv **it = realloc(v->items, (v->n + 1) * sizeof(*it));

	if (!it)
		return -1;
	v->items = it;
	if (v->t == JV_OBJ) {
		char **k = realloc(v->keys, (v->n + 1) * sizeof(*k));

		if (!k)
			return -1;
		v->keys = k;
		v->keys[v->n] = key;
	}
	v->items[v->n++] = item;
	return 0;
}

static struct jv *jv_container(struct jv_parser *ps, struct jv *v)
{
	char close = v->t == JV_ARR ? ']' : '}';

	if (++ps->depth > 64)
		return jv_fail(ps, "too deep");
	ps->p++;
	jv_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jv *item;
		int i;

		jv_ws(ps);
		if (v->t == JV_OBJ) {
			key = jv_string(ps);
			if (!key)
				return NULL;
			for (i = 0; i < v->n; i++)
				if (!strcmp(v->keys[i], key)) {
					free(key);
					return jv_fail(ps, "duplicate key");
				}
			jv_ws(ps);
			if (*ps->p != ':') {
				free(key);
				return jv_fail(ps, "expected ':'");
			}
			ps->p++;
		}
		item = jv_value(ps);
		if (!item || jv_push(v, key, item)) {
			free(key);
			jv_free(item);
			return jv_fail(ps, "bad item");
		}
		jv_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			jv_ws(ps);
			if (*ps->p == close)
				return jv_fail(ps, "trailing comma");
			continue;
		}
		if (*ps->p != close)
			return jv_fail(ps, "expected ',' or a closing bracket");
		ps->p++;
		ps->depth--;
		return v;
	}
}

static struct jv *jv_number(struct jv_parser *ps, struct jv *v)
{
	const char *s = ps->p;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (isdigit((unsigned char)*s))
			s++;
	else
		return jv_fail(ps, "bad number");
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return jv_fail(ps, "bad fraction");
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return jv_fail(ps, "bad exponent");
		while (isdigit((unsigned char)*s))
			s++;
	}
	v->t = JV_NUM;
	v->num = strtod(ps->p, NULL);
	v->lit = strndup(ps->p, s - ps->p);
	if (!v->lit)
		return jv_fail(ps, "out of memory");
	ps->p = s;
	return v;
}

static struct jv *jv_value(struct jv_parser *ps)
{
	struct jv *v = calloc(1, sizeof(*v)), *r = v;

	if (!v)
		return jv_fail(ps, "out of memory");
	jv_ws(ps);
	switch (*ps->p) {
	case '{':
		v->t = JV_OBJ;
		r = jv_container(ps, v);
		break;
	case '[':
		v->t = JV_ARR;
		r = jv_container(ps, v);
		break;
	case '"':
		v->t = JV_STR;
		v->str = jv_string(ps);
		r = v->str ? v : NULL;
		break;
	case 't':
	case 'f':
	case 'n':
		if (!strncmp(ps->p, "true", 4)) {
			v->t = JV_BOOL;
			v->b = 1;
			ps->p += 4;
		} else if (!strncmp(ps->p, "false", 5)) {
			v->t = JV_BOOL;
			ps->p += 5;
		} else if (!strncmp(ps->p, "null", 4)) {
			v->t = JV_NULL;
			ps->p += 4;
		} else {
			r = jv_fail(ps, "bad literal");
		}
		break;
	default:
		r = jv_number(ps, v);
	}
	if (!r)
		jv_free(v);
	return r;
}

/* Parse a whole text. NULL with err set on any deviation. */
static struct jv *jv_parse(const char *text, char *err, size_t errlen)
{
	struct jv_parser ps = { .p = text };
	struct jv *v = jv_value(&ps);

	if (v) {
		jv_ws(&ps);
		if (*ps.p) {
			jv_free(v);
			v = jv_fail(&ps, "trailing data");
		}
	}
	if (err)
		snprintf(err, errlen, "%s", ps.err);
	return v;
}

static inline struct jv *jv_get(const struct jv *o, const char *key)
{
	int i;

	if (!o || o->t != JV_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i];
	return NULL;
}

static inline struct jv *jv_at(const struct jv *a, int i)
{
	return a && a->t == JV_ARR && i >= 0 && i < a->n ? a->items[i] : NULL;
}

/* A path of keys separated by '.', e.g. "total.rx.packets". */
static inline struct jv *jv_path(const struct jv *o, const char *path)
{
	char buf[256], *tok, *save = NULL;
	const struct jv *cur = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && cur;
	     tok = strtok_r(NULL, ".", &save))
		cur = jv_get(cur, tok);
	return (struct jv *)cur;
}

#endif
