// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A small JSON reader: see json.h. Depth-limited recursive descent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json_reader.h"

#define MAX_DEPTH 64

struct jp {
	const char *s, *p;
	char *err;
	size_t errlen;
};

static void *jfail(struct jp *j, const char *what)
{
	if (!j->err[0])
		snprintf(j->err, j->errlen, "JSON: %s at offset %ld", what,
			 (long)(j->p - j->s));
	return NULL;
}

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int hex4(const char *p, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static void put_utf8(char **o, unsigned int cp)
{
	char *q = *o;

	if (cp < 0x80) {
		*q++ = cp;
	} else if (cp < 0x800) {
		*q++ = 0xc0 | (cp >> 6);
		*q++ = 0x80 | (cp & 0x3f);
	} else if (cp < 0x10000) {
		*q++ = 0xe0 | (cp >> 12);
		*q++ = 0x80 | ((cp >> 6) & 0x3f);
		*q++ = 0x80 | (cp & 0x3f);
	} else {
		*q++ = 0xf0 | (cp >> 18);
		*q++ = 0x80 | ((cp >> 12) & 0x3f);
		*q++ = 0x80 | ((cp >> 6) & 0x3f);
		*q++ = 0x80 | (cp & 0x3f);
	}
	*o = q;
}

/* At the opening quote. The decoded text is never longer than the source. */
static char *jstring(struct jp *j)
{
	const char *p = j->p + 1;
	char *out, *o;

	out = malloc(strlen(p) + 1);
	if (!out)
		return jfail(j, "out of memory");
	o = out;
	for (;;) {
		unsigned char c = *p;

		if (c == '"')
			break;
		if (c < 0x20) {
			free(out);
			j->p = p;
			return jfail(j, "bad character in string");
		}
		if (c != '\\') {
			*o++ = c;
			p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"':
		case '\\':
		case '/':
			*o++ = *p++;
			break;
		case 'b':
			*o++ = '\b';
			p++;
			break;
		case 'f':
			*o++ = '\f';
			p++;
			break;
		case 'n':
			*o++ = '\n';
			p++;
			break;
		case 'r':
			*o++ = '\r';
			p++;
			break;
		case 't':
			*o++ = '\t';
			p++;
			break;
		case 'u': {
			unsigned int cp, lo;

			if (hex4(p + 1, &cp))
				goto bad;
			p += 5;
			if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' &&
			    p[1] == 'u' && !hex4(p + 2, &lo) && lo >= 0xdc00 &&
			    lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				p += 6;
			}
			if (cp == 0)
				goto bad;
			put_utf8(&o, cp);
			break;
		}
		default:
			goto bad;
		}
	}
	*o = 0;
	j->p = p + 1;
	return out;
bad:
	free(out);
	j->p = p;
	return jfail(j, "bad escape in string");
}

static struct xn_json *jnew(struct jp *j, enum xn_jtype t)
{
	struct xn_json *v = calloc(1, sizeof(*v));

	if (!v)
		return jfail(j, "out of memory");
	v->type = t;
	return v;
}

static int jpush(struct jp *j, struct xn_json *c, struct xn_json *item,
		 char *key)
{
	struct xn_json **it = realloc(c->items, (c->n + 1) * sizeof(*it));
	char **k;

	if (!it)
		goto oom;
	c->items = it;
	if (c->type == XN_JOBJ) {
		k = realloc(c->keys, (c->n + 1) * sizeof(*k));
		if (!k)
			goto oom;
		c->keys = k;
		k[c->n] = key;
	}
	it[c->n++] = item;
	return 0;
oom:
	jfail(j, "out of memory");
	return -1;
}

static struct xn_json *jvalue(struct jp *j, int depth);

static struct xn_json *jcontainer(struct jp *j, int depth, int obj)
{
	struct xn_json *c = jnew(j, obj ? XN_JOBJ : XN_JARR), *item;
	char *key = NULL;

	if (!c)
		return NULL;
	j->p++;
	ws(j);
	if (*j->p == (obj ? '}' : ']')) {
		j->p++;
		return c;
	}
	for (;;) {
		ws(j);
		if (obj) {
			if (*j->p != '"' || !(key = jstring(j)))
				goto fail;
			ws(j);
			if (*j->p != ':')
				goto fail;
			j->p++;
		}
		item = jvalue(j, depth + 1);
		if (!item || jpush(j, c, item, key)) {
			xn_json_free(item);
			free(key);
			xn_json_free(c);
			return NULL;
		}
		key = NULL;
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == (obj ? '}' : ']')) {
			j->p++;
			return c;
		}
		goto fail;
	}
fail:
	free(key);
	xn_json_free(c);
	return jfail(j, obj ? "bad object" : "bad array");
}

static struct xn_json *jnumber(struct jp *j)
{
	const char *p = j->p;
	struct xn_json *v;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return jfail(j, "bad value");
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return jfail(j, "bad number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return jfail(j, "bad number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	v = jnew(j, XN_JNUM);
	if (!v)
		return NULL;
	v->str = strndup(j->p, p - j->p);
	if (!v->str) {
		free(v);
		return jfail(j, "out of memory");
	}
	v->num = strtoll(v->str, NULL, 10);
	j->p = p;
	return v;
}

static struct xn_json *jvalue(struct jp *j, int depth)
{
	struct xn_json *v;

	if (depth > MAX_DEPTH)
		return jfail(j, "nested too deep");
	ws(j);
	switch (*j->p) {
	case '{':
		return jcontainer(j, depth, 1);
	case '[':
		return jcontainer(j, depth, 0);
	case '"':
		v = jnew(j, XN_JSTR);
		if (v && !(v->str = jstring(j))) {
			free(v);
			v = NULL;
		}
		return v;
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };
		int i;

		for (i = 0; i < 3; i++) {
			size_t l = strlen(lit[i]);

			if (strncmp(j->p, lit[i], l))
				continue;
			v = jnew(j, i == 2 ? XN_JNULL : XN_JBOOL);
			if (v)
				v->b = i == 0;
			j->p += l;
			return v;
		}
		return jfail(j, "bad literal");
	}
	default:
		return jnumber(j);
	}
}

struct xn_json *xn_json_parse(const char *text, char *err, size_t errlen)
{
	struct jp j = { .s = text, .p = text, .err = err, .errlen = errlen };
	struct xn_json *v;

	err[0] = 0;
	v = jvalue(&j, 0);
	if (!v)
		return NULL;
	ws(&j);
	if (*j.p) {
		xn_json_free(v);
		return jfail(&j, "trailing text");
	}
	return v;
}

void xn_json_free(struct xn_json *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		xn_json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct xn_json *xn_json_get(const struct xn_json *v, const char *key)
{
	int i;

	if (!v || v->type != XN_JOBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

const char *xn_json_str_of(const struct xn_json *v, const char *key)
{
	const struct xn_json *m = xn_json_get(v, key);

	return m && m->type == XN_JSTR ? m->str : NULL;
}
