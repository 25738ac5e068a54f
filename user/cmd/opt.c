// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An option's value into a command's options, by its type: see cli.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "state/paths.h"
#include "cmd/cli.h"

int xn_usage_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return XN_EUSAGE;
}

/* "--NAME must be MUST, not 'ARG'" (MUST: the option's words, or its
 * range). */
static int must_be(const struct xn_opt *p, const char *arg, char *err,
		   size_t len)
{
	if (p->must)
		xn_usage_err(err, len, "--%s must be %s, not '%s'", p->name,
			     p->must, arg);
	else
		xn_usage_err(err, len, "--%s must be %ld to %ld, not '%s'",
			     p->name, p->min, p->max, arg);
	return -1;
}

/* A whole decimal number of min to max into *out. */
static int decimal(const char *arg, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	return end == arg || *end || errno || *out < min || *out > max ? -1 : 0;
}

/* v into an integer field of size bytes. */
static void put_int(void *field, size_t size, unsigned long long v)
{
	if (size == sizeof(__u64))
		*(__u64 *)field = v;
	else
		*(__u32 *)field = (__u32)v;
}

int xn_opt_set(const struct xn_opt *p, const char *arg, void *opts, char *err,
	       size_t len)
{
	void *field = (char *)opts + p->off;
	const struct xn_word *w;
	struct xn_opts *c = opts;
	char *end;
	double d;
	long n;

	switch (p->type) {
	case XN_OPT_CONST:
		put_int(field, p->size, p->val);
		return 0;
	case XN_OPT_COUNT:
		(*(int *)field)++;
		return 0;
	case XN_OPT_PRETTY: /* implies --json, as bpftool's -p does */
		c->json = c->pretty = 1;
		return 0;
	case XN_OPT_UINT:
		if (decimal(arg, p->min, p->max, &n))
			return must_be(p, arg, err, len);
		put_int(field, p->size, (unsigned long long)n);
		return 0;
	case XN_OPT_SECONDS:
		d = strtod(arg, &end);
		if (end == arg || *end || !(d >= p->dmin) || d > p->dmax)
			return must_be(p, arg, err, len);
		*(double *)field = d;
		return 0;
	case XN_OPT_ENUM:
		for (w = p->words; w->word; w++)
			if (!strcmp(arg, w->word)) {
				*(unsigned int *)field = w->val;
				return 0;
			}
		return must_be(p, arg, err, len);
	case XN_OPT_IFNAME:
		if (!xn_valid_ifname(arg)) {
			xn_usage_err(err, len,
				     "--%s: '%s' is not a valid interface name",
				     p->name, arg);
			return -1;
		}
		/* fall through */
	case XN_OPT_STRING:
		*(const char **)field = arg;
		return 0;
	case XN_OPT_FUNC:
		return p->parse(p, arg, opts, err, len);
	case XN_OPT_HELP:
	case XN_OPT_VERSION:
		return 0;
	}
	return 0;
}
