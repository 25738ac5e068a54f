// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost echo: reflect the frames sent to --dport. */
#include "xnb_vhost.h"

static void on_echo(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	uint8_t *f = accept_frame(buf, len, o.flow.dport, &h, &p), *b;
	struct xv_buf vb;

	if (!f)
		return;
	tx_reap(q);
	if (!q->tx.r.num_free || len > q->tx.slot) {
		st.echo_drops++;
		return;
	}
	xv_swap(f, &p);
	/* A partial checksum survives the swap; DATA_VALID or none is
	 * made full, as the frame may carry anything there. */
	h.flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h.num_buffers = 0;
	if (!h.flags)
		xv_fix_csums(f, &p);
	b = q->tx.bufs + (size_t)xv_next_head(&q->tx.r) * q->tx.slot;
	xv_hdr_put(buf, &h);
	memcpy(b, buf, len);
	vb = (struct xv_buf){ .addr = (uintptr_t)b, .len = (uint32_t)len };
	xv_add(&q->tx.r, &vb, 1, 0);
	xv_publish(&q->tx.r);
	kick(&q->tx);
	st.echoed++;
}

int run_echo(void)
{
	double t0 = now_s(), end = o.duration ? t0 + o.duration : 0;
	unsigned int i, n;

	while (!stop && !(o.count && st.echoed >= o.count)) {
		if (end && now_s() >= end)
			break;
		for (i = n = 0; i < o.queues; i++) {
			n += rx_poll(&qps[i], on_echo);
			tx_reap(&qps[i]);
		}
		if (!n)
			wait_calls(end ? ms_until(end) : 1000);
	}
	tx_drain();
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"echo\",\"echoed\":%llu,"
		       "\"drops\":%llu,\"ignored\":%llu,\"bad_hdr\":%llu,"
		       "\"malformed\":%llu,\"seconds\":%.3f%s}\n",
		       (unsigned long long)st.echoed,
		       (unsigned long long)st.echo_drops,
		       (unsigned long long)st.ignored,
		       (unsigned long long)st.bad_hdr,
		       (unsigned long long)st.malformed, now_s() - t0,
		       cpu_json());
	else
		printf("echo: %llu echoed, %llu dropped, %llu ignored, "
		       "%.3f s\n",
		       (unsigned long long)st.echoed,
		       (unsigned long long)st.echo_drops,
		       (unsigned long long)st.ignored, now_s() - t0);
	return 0;
}
