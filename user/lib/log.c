// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Messages: see log.h. */
#include <stdio.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "lib/log.h"

int xn_verbose;
static int quiet;
static char last_err[512];

void xn_set_quiet(int q)
{
	quiet = q;
}

void xn_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	fputs("xdpnet: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *xn_err_last(void)
{
	return last_err;
}

void xn_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void xn_debug(const char *fmt, ...)
{
	va_list ap;

	if (!xn_verbose)
		return;
	fputs("xdpnet: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int lib_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!xn_verbose || (level == LIBBPF_DEBUG && xn_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int xdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	if (!xn_verbose || (level == LIBXDP_DEBUG && xn_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void xn_setup_libbpf_logging(void)
{
	libbpf_set_print(lib_print);
	libxdp_set_print(xdp_print);
}
