/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A strict checker for the Prometheus text exposition format (0.0.4), for
 * tests (tests/unit/test_stats.c, tests/tools/promlint.c). Rejects what
 * Prometheus would reject and some things it merely tolerates:
 *
 *  - every line ends in '\n', the text too; no blank lines;
 *  - "# HELP name text" at most once per family, "# TYPE name type" at
 *    most once, before the family's first sample; other comments allowed;
 *  - metric and label names per the data model; label values quoted with
 *    only \\, \" and \n escapes; no duplicate label names; no trailing
 *    comma; values parse as floats (NaN, +Inf, -Inf allowed);
 *  - samples of one family are contiguous, and no series appears twice;
 *  - counters are named *_total and are not negative;
 *  - histograms: only NAME_bucket (with le), NAME_sum and NAME_count;
 *    per series the le bounds rise, the counts never fall, there is an
 *    le="+Inf" bucket and it equals NAME_count.
 *
 * prom_lint() returns the number of samples, or -1 with a message naming
 * the line. Samples are kept for prom_find().
 *
 * The tests run `promtool check metrics` too (scripts/promtool), the
 * linter Prometheus users run; this checker stays because promtool 2.42
 * (Debian 12) accepts, exit 0, each of these (tried one by one, each text
 * with HELP and TYPE; test_prom_lint_rejects has them):
 *  - a series that appears twice (Prometheus drops the second sample of
 *    the scrape as a duplicate);
 *  - a family whose samples are not contiguous;
 *  - a negative counter;
 *  - a histogram whose le bounds do not rise, whose bucket counts fall,
 *    that has no le="+Inf" bucket or one that differs from NAME_count, a
 *    bare NAME sample, or le on NAME_sum (histogram_quantile() then
 *    answers nonsense or NaN);
 *  - blank lines and a trailing comma in a label set (Prometheus tolerates
 *    both; we do not write them).
 * It also reads values back (prom_find) for the tests to compare.
 */
#ifndef PROMLINT_H
#define PROMLINT_H

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_MAX_SAMPLES 20000
#define PL_MAX_FAMILIES 256

struct pl_sample {
	char name[128];
	char labels[512]; /* as written, without braces */
	char series[512]; /* labels without le (histograms) */
	double value;
	double le; /* histogram buckets */
	int family;
};

struct pl_family {
	char name[160];
	char type[16];
	int help, typed, samples, closed;
};

struct pl_result {
	int n, nf;
	struct pl_sample *s;
	struct pl_family f[PL_MAX_FAMILIES];
	char err[1200];
};

static int pl_name_ok(const char *s, size_t n, int label)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!(isalpha((unsigned char)c) || c == '_' ||
		      (!label && c == ':') || (i && isdigit((unsigned char)c))))
			return 0;
	}
	return 1;
}

static int pl_float(const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "NaN")) {
		*v = NAN;
		return 0;
	}
	if (!strcmp(s, "+Inf") || !strcmp(s, "Inf")) {
		*v = INFINITY;
		return 0;
	}
	if (!strcmp(s, "-Inf")) {
		*v = -INFINITY;
		return 0;
	}
	if (!*s || isspace((unsigned char)*s))
		return -1;
	*v = strtod(s, &end);
	if (*end || isnan(*v) || isinf(*v))
		return -1;
	return 0;
}

static int pl_fail(struct pl_result *r, int line, const char *what)
{
	snprintf(r->err, sizeof(r->err), "line %d: %s", line, what);
	return -1;
}

static int pl_family_of(struct pl_result *r, const char *name, int create)
{
	int i;

	for (i = 0; i < r->nf; i++)
		if (!strcmp(r->f[i].name, name))
			return i;
	if (!create || r->nf >= PL_MAX_FAMILIES)
		return -1;
	snprintf(r->f[r->nf].name, sizeof(r->f[r->nf].name), "%s", name);
	return r->nf++;
}

/* The family a sample name belongs to: a histogram's base name, else the
 * name itself. */
static int pl_sample_family(struct pl_result *r, const char *name)
{
	static const char *const suf[] = { "_bucket", "_sum", "_count" };
	size_t n = strlen(name), i;
	int f;

	for (i = 0; i < 3; i++) {
		size_t k = strlen(suf[i]);
		char base[128];

		if (n <= k || strcmp(name + n - k, suf[i]))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(n - k), name);
		f = pl_family_of(r, base, 0);
		if (f >= 0 && !strcmp(r->f[f].type, "histogram"))
			return f;
	}
	return pl_family_of(r, name, 1);
}

/* Labels "a=\"x\",b=\"y\"" into out (as written) and series (without
 * le); *le gets le's value. 0 or -1. */
static int pl_labels(const char **pp, char *out, size_t outlen, char *series,
		     size_t serieslen, double *le, int *has_le, char *err,
		     size_t errlen)
{
	const char *p = *pp;
	char names[16][64];
	int nn = 0, i;
	size_t o = 0, so = 0;

	*has_le = 0;
	out[0] = series[0] = 0;
	if (*p == '}') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		const char *ns = p, *vs;
		char val[256];
		size_t vn = 0, nl;
		int is_le;

		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		nl = p - ns;
		if (!pl_name_ok(ns, nl, 1) || nl >= 64) {
			snprintf(err, errlen, "bad label name");
			return -1;
		}
		for (i = 0; i < nn; i++)
			if (strlen(names[i]) == nl &&
			    !strncmp(names[i], ns, nl)) {
				snprintf(err, errlen, "duplicate label");
				return -1;
			}
		if (nn < 16)
			snprintf(names[nn++], 64, "%.*s", (int)nl, ns);
		if (p[0] != '=' || p[1] != '"') {
			snprintf(err, errlen, "expected =\" after label name");
			return -1;
		}
		p += 2;
		vs = p;
		while (*p != '"') {
			if (!*p || *p == '\n') {
				snprintf(err, errlen, "unterminated value");
				return -1;
			}
			if (*p == '\\') {
				if (p[1] != '\\' && p[1] != '"' &&
				    p[1] != 'n') {
					snprintf(err, errlen, "bad escape");
					return -1;
				}
				val[vn < 255 ? vn++ : vn] = p[1] == 'n' ? '\n'
									: p[1];
				p += 2;
				continue;
			}
			val[vn < 255 ? vn++ : vn] = *p++;
		}
		val[vn] = 0;
		p++;
		is_le = nl == 2 && !strncmp(ns, "le", 2);
		if (is_le) {
			*has_le = 1;
			if (pl_float(val, le)) {
				snprintf(err, errlen, "bad le value");
				return -1;
			}
		}
		o += snprintf(out + o, o < outlen ? outlen - o : 0, "%s%.*s",
			      o ? "," : "", (int)(p - ns), ns);
		if (!is_le)
			so += snprintf(series + so,
				       so < serieslen ? serieslen - so : 0,
				       "%s%.*s", so ? "," : "", (int)(p - ns),
				       ns);
		(void)vs;
		if (*p == ',') {
			p++;
			if (*p == '}') {
				snprintf(err, errlen, "trailing comma");
				return -1;
			}
			continue;
		}
		if (*p != '}') {
			snprintf(err, errlen, "expected , or }");
			return -1;
		}
		*pp = p + 1;
		return 0;
	}
}

static int pl_histograms(struct pl_result *r)
{
	int i, j;

	for (i = 0; i < r->n; i++) {
		struct pl_sample *b = &r->s[i];
		const struct pl_family *f = &r->f[b->family];
		size_t fl = strlen(f->name);
		double last_le = -INFINITY, last = 0, inf = -1;
		int first = 1, has_count = 0;
		double count = 0;

		if (strcmp(f->type, "histogram") ||
		    strcmp(b->name + fl, "_bucket"))
			continue;
		/* The first bucket of each series does the checking. */
		for (j = 0; j < i; j++)
			if (r->s[j].family == b->family &&
			    !strcmp(r->s[j].name, b->name) &&
			    !strcmp(r->s[j].series, b->series))
				break;
		if (j < i)
			continue;
		for (j = i; j < r->n; j++) {
			struct pl_sample *x = &r->s[j];

			if (x->family != b->family ||
			    strcmp(x->series, b->series))
				continue;
			if (!strcmp(x->name + fl, "_count")) {
				has_count = 1;
				count = x->value;
				continue;
			}
			if (strcmp(x->name + fl, "_bucket"))
				continue;
			if (!first && !(x->le > last_le)) {
				snprintf(r->err, sizeof(r->err),
					 "%s{%s}: le not rising", x->name,
					 x->labels);
				return -1;
			}
			if (!first && x->value < last) {
				snprintf(r->err, sizeof(r->err),
					 "%s{%s}: bucket count falls", x->name,
					 x->labels);
				return -1;
			}
			if (isinf(x->le))
				inf = x->value;
			last_le = x->le;
			last = x->value;
			first = 0;
		}
		if (inf < 0 || !has_count || inf != count) {
			snprintf(r->err, sizeof(r->err),
				 "%s{%s}: no +Inf bucket equal to _count",
				 b->name, b->series);
			return -1;
		}
	}
	return 0;
}

static void pl_free(struct pl_result *r)
{
	free(r->s);
	r->s = NULL;
}

static int prom_lint(const char *text, struct pl_result *r)
{
	const char *p = text;
	int line = 0, last_family = -1, i;

	memset(r, 0, sizeof(*r));
	r->s = calloc(PL_MAX_SAMPLES, sizeof(*r->s));
	if (!r->s)
		return pl_fail(r, 0, "out of memory");
	if (*text && text[strlen(text) - 1] != '\n')
		return pl_fail(r, 0, "text does not end with a newline");
	while (*p) {
		const char *eol = strchr(p, '\n');
		char buf[2048];
		size_t len = eol - p;

		line++;
		if (len >= sizeof(buf))
			return pl_fail(r, line, "line too long");
		memcpy(buf, p, len);
		buf[len] = 0;
		p = eol + 1;
		if (!len)
			return pl_fail(r, line, "blank line");
		if (buf[0] == '#') {
			char kw[8], name[160], rest[1024];
			int f, n;

			n = sscanf(buf, "# %7s %159s %1023[^\n]", kw, name,
				   rest);
			if (n < 1 || (strcmp(kw, "HELP") && strcmp(kw, "TYPE")))
				continue; /* a plain comment */
			if (n < 2 || !pl_name_ok(name, strlen(name), 0))
				return pl_fail(r, line,
					       "bad name in HELP/TYPE");
			if (strncmp(buf + 2, kw, 4) || buf[6] != ' ')
				return pl_fail(r, line, "malformed HELP/TYPE");
			f = pl_family_of(r, name, 1);
			if (f < 0)
				return pl_fail(r, line, "too many families");
			if (!strcmp(kw, "HELP")) {
				if (r->f[f].help++)
					return pl_fail(r, line, "second HELP");
				continue;
			}
			if (n != 3 ||
			    (strcmp(rest, "counter") && strcmp(rest, "gauge") &&
			     strcmp(rest, "histogram") &&
			     strcmp(rest, "summary") &&
			     strcmp(rest, "untyped")))
				return pl_fail(r, line, "bad TYPE");
			if (r->f[f].typed++)
				return pl_fail(r, line, "second TYPE");
			if (r->f[f].samples)
				return pl_fail(r, line, "TYPE after samples");
			snprintf(r->f[f].type, sizeof(r->f[f].type), "%.15s",
				 rest);
			if (!strcmp(rest, "counter") &&
			    (strlen(name) < 7 ||
			     strcmp(name + strlen(name) - 6, "_total")))
				return pl_fail(r, line,
					       "counter not named *_total");
			continue;
		}
		{
			struct pl_sample *s;
			const char *q = buf, *ns;
			char err[96], val[64], ts[32];
			int has_le = 0, f, n;
			size_t nl;

			if (r->n >= PL_MAX_SAMPLES)
				return pl_fail(r, line, "too many samples");
			s = &r->s[r->n];
			ns = q;
			while (isalnum((unsigned char)*q) || *q == '_' ||
			       *q == ':')
				q++;
			nl = q - ns;
			if (!pl_name_ok(ns, nl, 0) || nl >= sizeof(s->name))
				return pl_fail(r, line, "bad metric name");
			snprintf(s->name, sizeof(s->name), "%.*s", (int)nl, ns);
			s->le = NAN;
			if (*q == '{') {
				q++;
				if (pl_labels(&q, s->labels, sizeof(s->labels),
					      s->series, sizeof(s->series),
					      &s->le, &has_le, err,
					      sizeof(err)))
					return pl_fail(r, line, err);
			}
			if (*q != ' ')
				return pl_fail(r, line, "expected a space");
			n = sscanf(q, " %63s %31s", val, ts);
			if (n < 1 || pl_float(val, &s->value))
				return pl_fail(r, line, "bad value");
			if (n == 2) {
				char *end;

				strtoll(ts, &end, 10);
				if (*end)
					return pl_fail(r, line,
						       "bad timestamp");
			}
			f = pl_sample_family(r, s->name);
			if (f < 0)
				return pl_fail(r, line, "too many families");
			s->family = f;
			if (f != last_family) {
				if (r->f[f].closed)
					return pl_fail(r, line,
						       "family not contiguous");
				if (last_family >= 0)
					r->f[last_family].closed = 1;
				last_family = f;
			}
			r->f[f].samples++;
			if (!strcmp(r->f[f].type, "counter") && s->value < 0)
				return pl_fail(r, line, "negative counter");
			if (!strcmp(r->f[f].type, "histogram")) {
				const char *sfx =
					s->name + strlen(r->f[f].name);

				if (strcmp(sfx, "_bucket") &&
				    strcmp(sfx, "_sum") &&
				    strcmp(sfx, "_count"))
					return pl_fail(r, line,
						       "bad histogram sample");
				if ((strcmp(sfx, "_bucket") == 0) != has_le)
					return pl_fail(r, line,
						       "le only on _bucket");
			} else if (has_le) {
				snprintf(s->series, sizeof(s->series), "%s",
					 s->labels);
			}
			for (i = 0; i < r->n; i++)
				if (!strcmp(r->s[i].name, s->name) &&
				    !strcmp(r->s[i].labels, s->labels))
					return pl_fail(r, line,
						       "duplicate series");
			r->n++;
		}
	}
	if (pl_histograms(r))
		return -1;
	return r->n;
}

/* The value of name{labels} (labels exactly as written), or NAN. */
static double prom_find(const struct pl_result *r, const char *name,
			const char *labels)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->s[i].name, name) &&
		    !strcmp(r->s[i].labels, labels))
			return r->s[i].value;
	return NAN;
}

#endif
