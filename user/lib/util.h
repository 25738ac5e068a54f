/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small utilities: array size, enum names, FNV-1a, the monotonic clock,
 * MAC text. */
#ifndef XN_UTIL_H
#define XN_UTIL_H

#include <stddef.h>
#include <linux/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A macro's value as a string literal. */
#define XN_STR_(x) #x
#define XN_STR(x) XN_STR_(x)
/* The name at index i of a table of names (strings by an enum's values),
 * or def where the table has none. */
#define XN_NAME(table, i, def) \
	((size_t)(i) < ARRAY_SIZE(table) && (table)[i] ? (table)[i] : (def))

/* 64-bit FNV-1a: start with XN_FNV_OFFSET, fold in n bytes at p. */
#define XN_FNV_OFFSET 0xcbf29ce484222325ULL
__u64 xn_fnv1a(__u64 h, const void *p, size_t n);

/* CLOCK_MONOTONIC now, in seconds and in nanoseconds. */
double xn_mono_s(void);
__u64 xn_mono_ns(void);
__u64 xn_real_ns(void); /* CLOCK_REALTIME, ns since the epoch */

/* "aa:bb:cc:dd:ee:ff" (buf holds 18 bytes). */
void xn_format_mac(const __u8 *mac, char buf[18]);
/* Exactly "xx:xx:xx:xx:xx:xx", hex digits only: 0 or -1. */
int xn_parse_mac(const char *s, __u8 mac[6]);

#endif
