// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost rr: request/response against echo. */
#include "xnb_vhost.h"

static uint32_t rr_want;
static int rr_got;

/* The reply may come on any queue (the tap picks one per flow). */
static void on_reply(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	struct xv_rec rec;
	uint8_t *f = accept_frame(buf, len, o.flow.sport, &h, &p);
	int rc;

	(void)q;
	if (!f)
		return;
	st.frames++;
	st.ck[xv_verify(f, &h, &p)]++;
	rc = xv_rec_get(f + p.payload, p.plen, &rec);
	if (rc == XV_REC_DIGEST)
		st.corrupt++;
	else if (rc)
		st.format++;
	else if (rec.tag != qps[0].tag || rec.seq != rr_want)
		st.stale++;
	else
		rr_got = 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int run_rr(void)
{
	struct qp *q = &qps[0];
	double t0 = now_s(), stop_at = o.duration ? t0 + o.duration : 0;
	double *rtt = NULL, t, end, sum = 0;
	uint64_t i, got = 0, bad_ck = 0, cap = 0;
	int k, ok;

	for (i = 0; (!o.count || i < o.count) && !stop; i++) {
		if (stop_at && now_s() >= stop_at)
			break;
		if (got == cap) {
			cap = cap ? 2 * cap : 4096;
			rtt = realloc(rtt, cap * sizeof(*rtt));
			if (!rtt)
				die("out of memory");
		}
		tx_reap(q);
		if (!q->tx.r.num_free) {
			wait_calls(100);
			tx_reap(q);
			if (!q->tx.r.num_free)
				die("tx ring full: vhost completes no frame");
		}
		rr_want = q->seq;
		rr_got = 0;
		tx_stamped(q);
		xv_publish(&q->tx.r);
		t = now_s();
		kick(&q->tx);
		end = t + o.timeout;
		while (!rr_got && !stop) {
			unsigned int j, n = 0;

			for (j = 0; j < o.queues; j++)
				n += rx_poll(&qps[j], on_reply);
			if (!n) {
				if (now_s() >= end)
					break;
				wait_calls(ms_until(end));
			}
		}
		if (rr_got) {
			rtt[got] = (now_s() - t) * 1e6;
			sum += rtt[got++];
		}
	}
	qsort(rtt, got, sizeof(*rtt), cmp_double);
	for (k = XV_CK_BAD_L3; k <= XV_CK_BAD_PARTIAL; k++)
		bad_ck += st.ck[k];
	ok = got == i && !bad_ck && !st.corrupt && !st.format;
#define PCT(x) (got ? rtt[(size_t)((got - 1) * (x))] : 0)
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"rr\",\"ok\":%s,"
		       "\"requests\":%llu,\"answered\":%llu,\"stale\":%llu,"
		       "\"corrupt\":%llu,\"csum_bad\":%llu,\"rtt_us\":{"
		       "\"min\":%.1f,\"mean\":%.1f,\"p50\":%.1f,\"p99\":%.1f,"
		       "\"max\":%.1f},\"seconds\":%.3f%s}\n",
		       ok ? "true" : "false", (unsigned long long)i,
		       (unsigned long long)got, (unsigned long long)st.stale,
		       (unsigned long long)(st.corrupt + st.format),
		       (unsigned long long)bad_ck, PCT(0), got ? sum / got : 0,
		       PCT(0.5), PCT(0.99), PCT(1), now_s() - t0, cpu_json());
	else
		printf("rr %s: %llu requests, %llu answered, rtt us min %.1f "
		       "p50 %.1f p99 %.1f max %.1f\n",
		       ok ? "ok" : "FAILED", (unsigned long long)i,
		       (unsigned long long)got, PCT(0), PCT(0.5), PCT(0.99),
		       PCT(1));
#undef PCT
	free(rtt);
	return ok ? 0 : EXIT_CHECK;
}
