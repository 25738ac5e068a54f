// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost: TCP ACKs, sent by recv --ack and taken by send --acks. */
#include "xnb_vhost.h"

/*
 * TCP ACKs, as a default Linux guest's receiver sends them. recv --ack N
 * answers every N frames it took (a GSO frame counts once, as a receiver
 * with GRO gets it in one piece) with an ACK of the headers alone: 54 B,
 * unpadded as virtio-net sends it (a padded frame is one br_netfilter
 * trims), from the flow reversed, acknowledging the highest sequence seen.
 * Its checksum is partial (NEEDS_CSUM), as a guest with checksum offload
 * leaves it, or full with --csum full or off. send --acks takes them from
 * its rx ring and verifies their checksums as their vnet header says.
 */
static struct {
	/* recv --ack: the reply's flow (o.flow reversed), the next byte the
	 * receiver expects, the queues with ACKs queued but not published,
	 * frames since the last ACK, ACKs sent and dropped (a full ring). */
	struct xv_flow flow;
	int ready;
	uint32_t ack_seq, pending;
	uint64_t since, sent, drops;
	/* send --acks: ACKs taken, by what their checksums were. */
	uint64_t got, ck[XV_CK_BAD_PARTIAL + 1];
} ack;

static void ack_init(void)
{
	ack.flow = o.flow;
	memcpy(ack.flow.smac, o.flow.dmac, 6);
	memcpy(ack.flow.dmac, o.flow.smac, 6);
	memcpy(ack.flow.saddr, o.flow.daddr, 16);
	memcpy(ack.flow.daddr, o.flow.saddr, 16);
	ack.flow.sport = o.flow.dport;
	ack.flow.dport = o.flow.sport;
	ack.flow.tcp_seq = 1;
	ack.ready = 1;
}

/* Queues one ACK on q's tx ring (published by ack_flush()). */
static void ack_queue(struct qp *q)
{
	struct xv_buf vb;
	struct xv_hdr h;
	uint8_t *b;
	long len;

	tx_reap(q);
	if (!q->tx.r.num_free) {
		ack.drops++;
		return;
	}
	b = q->tx.bufs + (size_t)xv_next_head(&q->tx.r) * q->tx.slot;
	len = xv_build_ack(b + XV_HDR_LEN, &ack.flow, ack.ack_seq,
			   o.csum == C_PARTIAL, &h);
	if (len < 0 || XV_HDR_LEN + (size_t)len > q->tx.slot)
		die("cannot build an ACK");
	xv_hdr_put(b, &h);
	vb = (struct xv_buf){ .addr = (uintptr_t)b,
			      .len = (uint32_t)(XV_HDR_LEN + len) };
	xv_add(&q->tx.r, &vb, 1, 0);
	ack.pending |= 1u << (q - qps);
	ack.sent++;
}

/* recv: a frame of the flow taken; every --ack frames, an ACK. */
void ack_note(struct qp *q, const uint8_t *f, const struct xv_pkt *p)
{
	const uint8_t *th = f + p->l4;
	uint32_t end = ((uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 |
			(uint32_t)th[6] << 8 | th[7]) +
		       (uint32_t)p->plen;

	if (!ack.ready) {
		ack_init();
		ack.ack_seq = end;
	} else if ((int32_t)(end - ack.ack_seq) > 0) {
		ack.ack_seq = end;
	}
	if (++ack.since >= o.ack_every) {
		ack.since = 0;
		ack_queue(q);
	}
}

/* recv: publishes the ACKs queued since the last call, one kick each. */
void ack_flush(void)
{
	unsigned int i;

	for (i = 0; ack.pending; i++) {
		if (!(ack.pending & 1u << i))
			continue;
		ack.pending &= ~(1u << i);
		xv_publish(&qps[i].tx.r);
		kick(&qps[i].tx);
	}
}

/* send --acks: one ACK taken, its checksum verified. */
static void on_ack(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	uint8_t *f = accept_frame(buf, len, o.flow.sport, &h, &p);

	(void)q;
	if (!f)
		return;
	ack.got++;
	ack.ck[xv_verify(f, &h, &p)]++;
}

/* send --acks: the ACKs every queue holds now. */
unsigned int ack_poll(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < o.queues; i++)
		n += rx_poll(&qps[i], on_ack);
	return n;
}

/* send --acks, at the end: the ACKs still on their way, until none has
 * come for 100 ms (1 s at most). */
void ack_drain(void)
{
	double end = now_s() + 1, quiet = now_s() + 0.1;

	while (!stop && now_s() < end && now_s() < quiet) {
		if (ack_poll())
			quiet = now_s() + 0.1;
		else
			wait_calls(ms_until(quiet));
	}
}

uint64_t acks_bad(void)
{
	uint64_t n = 0;
	int k;

	for (k = XV_CK_BAD_L3; k <= XV_CK_BAD_PARTIAL; k++)
		n += ack.ck[k];
	return n;
}

/* The JSON members of the ACKs (after a comma), or "" without them. */
const char *ack_json(void)
{
	static char buf[160];

	if (o.ack_every)
		snprintf(buf, sizeof(buf),
			 ",\"acks_sent\":%llu,\"ack_drops\":%llu",
			 (unsigned long long)ack.sent,
			 (unsigned long long)ack.drops);
	else if (o.acks)
		snprintf(buf, sizeof(buf),
			 ",\"acks\":%llu,\"acks_partial\":%llu,"
			 "\"acks_full\":%llu,\"acks_bad\":%llu",
			 (unsigned long long)ack.got,
			 (unsigned long long)ack.ck[XV_CK_PARTIAL],
			 (unsigned long long)ack.ck[XV_CK_FULL],
			 (unsigned long long)acks_bad());
	else
		buf[0] = '\0';
	return buf;
}
