/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One frame of a capture: pcap (tcpdump -w) or pcapng (xdpnet dump -w,
 * tshark, Wireshark), Ethernet frames only. */
#ifndef XN_PCAP_READ_H
#define XN_PCAP_READ_H

#include <stddef.h>
#include <linux/types.h>

struct xn_pcap_frame {
	__u8 *buf;	 /* in: room for the frame ... */
	size_t cap;	 /* ... this many bytes */
	size_t len;	 /* out: its length */
	char ifname[32]; /* pcapng: its interface's name, "" if none */
	int outbound;	 /* pcapng: the frame left that interface */
	char from[32];	 /* xdpnet dump: the port an outbound frame came
			  * in on, "" if not said */
};

/* Frame n (from 1) of the capture at path ("-": standard input). 0, or -1
 * after a one-line error (unreadable, not a capture, not Ethernet, fewer
 * frames, a frame cut short by the capture's snap length, too long). */
int xn_pcap_read(const char *path, unsigned long n, struct xn_pcap_frame *f);

#endif
