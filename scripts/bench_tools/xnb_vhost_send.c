// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost send: frames of stamped records. */
#include "xnb_vhost.h"

uint64_t tx_drain(void)
{
	double end = now_s() + 2;
	uint64_t left;
	unsigned int i;

	for (;;) {
		for (i = 0, left = 0; i < o.queues; i++) {
			tx_reap(&qps[i]);
			left += qps[i].tx.r.num - qps[i].tx.r.num_free;
		}
		if (!left || now_s() >= end)
			return left;
		wait_calls(ms_until(end));
	}
}

int run_send(void)
{
	double t0 = now_s(), end = o.duration ? t0 + o.duration : 0, t, el;
	uint64_t budget, n, left;
	unsigned int i;
	int progress;

	while (!stop && !(o.count && st.sent >= o.count)) {
		t = now_s();
		if (end && t >= end)
			break;
		budget = o.count ? o.count - st.sent : UINT64_MAX;
		if (o.rate) {
			double due = (double)(uint64_t)((t - t0) * o.rate) + 1 -
				     (double)st.sent;

			if (due < 1) {
				struct timespec ts;
				double w = t0 + st.sent / o.rate - t;

				ts.tv_sec = (time_t)w;
				ts.tv_nsec = (long)((w - ts.tv_sec) * 1e9);
				nanosleep(&ts, NULL);
				continue;
			}
			if (due < budget)
				budget = (uint64_t)due;
		}
		progress = 0;
		for (i = 0; i < o.queues && budget; i++) {
			struct qp *q = &qps[i];

			tx_reap(q);
			for (n = 0; n < 64 && budget && q->tx.r.num_free;
			     n++, budget--)
				tx_stamped(q);
			if (n) {
				xv_publish(&q->tx.r);
				kick(&q->tx);
				progress = 1;
			}
		}
		if (o.acks)
			ack_poll();
		if (!progress)
			wait_calls(100);
	}
	left = tx_drain();
	el = now_s() - t0;
	if (o.acks)
		ack_drain();
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"send\",\"ok\":%s,"
		       "\"frames\":%llu,\"records\":%llu,\"bytes\":%llu,"
		       "\"incomplete\":%llu,\"seconds\":%.3f,\"pps\":%.0f%s%s}\n",
		       left || acks_bad() ? "false" : "true",
		       (unsigned long long)st.sent,
		       (unsigned long long)st.sent_records,
		       (unsigned long long)st.bytes, (unsigned long long)left,
		       el, el > 0 ? st.sent / el : 0, cpu_json(), ack_json());
	else
		printf("send %s: %llu frames, %llu records, %llu bytes, "
		       "%llu incomplete, %.3f s, %.0f pps\n",
		       left || acks_bad() ? "FAILED" : "ok",
		       (unsigned long long)st.sent,
		       (unsigned long long)st.sent_records,
		       (unsigned long long)st.bytes, (unsigned long long)left,
		       el, el > 0 ? st.sent / el : 0);
	return left || acks_bad() ? EXIT_CHECK : 0;
}
