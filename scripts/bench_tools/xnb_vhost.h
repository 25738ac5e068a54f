/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What xnb_vhost's files share (xnb_vhost.c): the options, the queues and
 * their rings, the counters, and the functions of the device
 * (xnb_vhost_dev.c) and of the TCP ACKs (xnb_vhost_ack.c) that the modes
 * use; each mode in a file of its own (xnb_vhost_send.c, _recv.c,
 * _echo.c, _rr.c, _relay.c).
 */
#ifndef XNB_VHOST_H
#define XNB_VHOST_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xnb_tool.h"
#include "xnb_vring.h"
#include "xnb_vframe.h"
#include "xnb_vrec.h"

#define EXIT_CHECK 1
#define EXIT_MISSING 4

#define MAX_QUEUES 16
#define MAX_TAGS 64
#define RX_SLOT 4096
#define RING_ALIGN 4096
#define FRAME_MAX (XV_HDR_LEN + 65536 + 512)

#define USAGE                                                                 \
	"usage: xnb_vhost send|recv|echo|rr --tap NAME [--queues N] "         \
	"[--ring N] [--csum off|full|partial|on] [--tso on|off] [--gso MSS] " \
	"[--src-mac MAC] [--dst-mac MAC] [--src IP] [--dst IP] "              \
	"[--proto udp|tcp] [--sport N] [--dport N] [--size BYTES] "           \
	"[--rate PPS] [--count N] [--duration S] [--tag T] [--expect N] "     \
	"[--timeout S] [--ready FILE] [--any-order] [--ack N] [--acks] "      \
	"[--json]\n"                                                          \
	"       xnb_vhost relay --host-tap NAME --guest-tap NAME --netns NS " \
	"[--no-csum] [--no-tso] [--sndbuf N] [--pidfile PATH]"

enum mode { M_SEND, M_RECV, M_ECHO, M_RR, M_RELAY };
enum csum { C_OFF, C_FULL, C_PARTIAL };

struct opts {
	enum mode mode;
	const char *tap;
	unsigned int queues, ring;
	int mq, tso, json, any_order, acks;
	uint64_t ack_every;
	enum csum csum;
	uint16_t gso, tag;
	struct xv_flow flow;
	size_t size;
	double rate, duration, timeout;
	uint64_t count, expect;
	int sndbuf;
	const char *guest, *netns, *pidfile, *packet, *ready;
};

extern struct opts o;

struct vq {
	struct xv_ring r;
	uint8_t *bufs;
	size_t slot;
	int kick, call;
};

struct qp {
	int tap, vhost, backend;
	struct vq rx, tx;
	struct xv_mrg mrg;
	struct xv_flow flow;
	uint32_t seq;
	uint16_t tag;
};

struct stats {
	uint64_t frames, bytes, records, gso, ignored, bad_hdr, malformed;
	uint64_t ck[XV_CK_BAD_PARTIAL + 1], corrupt, format, bad_tag;
	uint64_t sent, sent_records, echoed, echo_drops, stale;
	struct xv_seq seq[MAX_TAGS];
};

extern struct qp qps[MAX_QUEUES];
extern int guest_fd;
extern int pkt_fd;
extern void *mem;
extern size_t mem_len;
extern volatile sig_atomic_t stop;
extern struct stats st;

typedef void (*rx_fn)(struct qp *q, uint8_t *buf, size_t len);
#define XIOCTL(fd, req, arg) xioctl(fd, req, arg, #req)

/* the device: xnb_vhost_dev.c */
void xioctl(int fd, unsigned long req, void *arg, const char *name);
void on_signal(int sig);
double now_s(void);
const char *cpu_json(void);
void teardown(void);
void kick(struct vq *v);
void wait_calls(int ms);
int ms_until(double t);
unsigned long tap_offloads(void);
void wait_link_ready(const char *dev);
unsigned int pkt_poll(void);
void setup(void);
void tx_reap(struct qp *q);
void tx_stamped(struct qp *q);
unsigned int rx_poll(struct qp *q, rx_fn fn);
uint8_t *accept_frame(uint8_t *buf, size_t len, uint16_t port, struct xv_hdr *h,
		      struct xv_pkt *p);

/* TCP ACKs: xnb_vhost_ack.c */
void ack_note(struct qp *q, const uint8_t *f, const struct xv_pkt *p);
void ack_flush(void);
unsigned int ack_poll(void);
void ack_drain(void);
uint64_t acks_bad(void);
const char *ack_json(void);

/* xnb_vhost_recv.c */
void on_recv(struct qp *q, uint8_t *buf, size_t len);
int run_recv(void);

/* xnb_vhost_send.c */
uint64_t tx_drain(void);
int run_send(void);

/* xnb_vhost_echo.c */
int run_echo(void);

/* xnb_vhost_relay.c */
int run_relay(void);

/* xnb_vhost_rr.c */
int run_rr(void);

#endif
