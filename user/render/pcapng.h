/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A pcapng writer, just what xdpnet dump writes: a section header, one
 * interface (Ethernet, nanosecond timestamps) per port, enhanced packet
 * blocks with a direction flag and a comment, and interface statistics.
 * Host byte order, as pcapng allows.
 */
#ifndef XN_OUT_PCAPNG_H
#define XN_OUT_PCAPNG_H

#include <stdio.h>
#include <linux/types.h>

enum xn_pcapng_dir { XN_PCAPNG_IN = 1, XN_PCAPNG_OUT = 2 };

/* 0, or -1 when f fails. */
int xn_pcapng_header(FILE *f, const char *app);
int xn_pcapng_interface(FILE *f, const char *name, const char *descr,
			__u32 snaplen);
int xn_pcapng_packet(FILE *f, __u32 ifid, __u64 ts_ns, const void *data,
		     __u32 caplen, __u32 len, enum xn_pcapng_dir dir,
		     const char *comment);
/* isb_osdrop: records lost before they were written. */
int xn_pcapng_stats(FILE *f, __u32 ifid, __u64 ts_ns, __u64 recv, __u64 osdrop);

#endif
