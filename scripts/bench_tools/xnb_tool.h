/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers the scripts/bench tools (scripts/bench_tools/xnb_*.c) share.
 * Each tool is one .c file (xnb_vhost: one per mode, xnb_vhost.h); this
 * header is all they have in common.
 */
#ifndef XNB_TOOL_H
#define XNB_TOOL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* One-line error "TOOL: message" on stderr, exit status status. */
static inline void __attribute__((noreturn, format(printf, 2, 3)))
die_status(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* die_status() with exit status 2. */
#define die(...) die_status(2, __VA_ARGS__)

/* "02:00:00:00:00:01" -> 6 bytes. 0 or -1. */
static inline int parse_mac(const char *s, unsigned char *mac)
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = b[i];
	}
	return 0;
}

#endif
