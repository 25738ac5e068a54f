// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xnb_vhost recv: verify the frames sent to --dport. */
#include "xnb_vhost.h"

void on_recv(struct qp *q, uint8_t *buf, size_t len)
{
	struct xv_pkt p;
	struct xv_hdr h;
	struct xv_rec rec;
	uint8_t *f = accept_frame(buf, len, o.flow.dport, &h, &p);
	size_t off;
	int rc;

	(void)q;
	if (!f)
		return;
	st.frames++;
	st.bytes += len - XV_HDR_LEN;
	if (h.gso_type)
		st.gso++;
	st.ck[xv_verify(f, &h, &p)]++;
	for (off = 0; off < p.plen; off += rec.len) {
		rc = xv_rec_get(f + p.payload + off, p.plen - off, &rec);
		if (rc) {
			if (rc == XV_REC_DIGEST)
				st.corrupt++;
			else
				st.format++;
			break;
		}
		st.records++;
		if (rec.tag >= MAX_TAGS) {
			st.bad_tag++;
			continue;
		}
		xv_seq_note(&st.seq[rec.tag], rec.seq);
	}
	if (o.ack_every)
		ack_note(q, f, &p);
}

static uint64_t sum_seq(size_t field)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < MAX_TAGS; i++)
		s += *(uint64_t *)((char *)&st.seq[i] + field);
	return s;
}

#define SEQ_SUM(f) sum_seq(offsetof(struct xv_seq, f))

int run_recv(void)
{
	double t0 = now_s(), end = o.timeout ? t0 + o.timeout : 0, el;
	uint64_t bad_ck, uniq;
	unsigned int i, n;
	int ok, k;

	while (!stop && !(o.expect && SEQ_SUM(uniq) >= o.expect)) {
		if (end && now_s() >= end)
			break;
		if (o.packet) {
			struct pollfd p = { .fd = pkt_fd, .events = POLLIN };

			if (!pkt_poll())
				poll(&p, 1, end ? ms_until(end) : 1000);
			continue;
		}
		for (i = n = 0; i < o.queues; i++)
			n += rx_poll(&qps[i], on_recv);
		ack_flush();
		if (!n)
			wait_calls(end ? ms_until(end) : 1000);
	}
	el = now_s() - t0;
	for (k = XV_CK_BAD_L3, bad_ck = 0; k <= XV_CK_BAD_PARTIAL; k++)
		bad_ck += st.ck[k];
	uniq = SEQ_SUM(uniq);
	ok = !bad_ck && !st.bad_hdr && !st.malformed && !st.corrupt &&
	     !st.format && !st.bad_tag && !SEQ_SUM(missing) && !SEQ_SUM(dups) &&
	     (o.any_order || !SEQ_SUM(late)) && !SEQ_SUM(old) &&
	     uniq >= o.expect;
	if (o.json)
		printf("{\"tool\":\"xnb_vhost\",\"mode\":\"recv\",\"ok\":%s,"
		       "\"frames\":%llu,\"bytes\":%llu,\"records\":%llu,"
		       "\"unique\":%llu,\"expect\":%llu,\"missing\":%llu,"
		       "\"dups\":%llu,\"reordered\":%llu,\"old\":%llu,"
		       "\"corrupt\":%llu,\"format\":%llu,\"bad_tag\":%llu,"
		       "\"gso\":%llu,\"csum_full\":%llu,\"csum_partial\":%llu,"
		       "\"csum_valid\":%llu,\"csum_none\":%llu,"
		       "\"csum_bad\":%llu,\"bad_hdr\":%llu,\"malformed\":%llu,"
		       "\"ignored\":%llu,\"seconds\":%.3f%s%s}\n",
		       ok ? "true" : "false", (unsigned long long)st.frames,
		       (unsigned long long)st.bytes,
		       (unsigned long long)st.records, (unsigned long long)uniq,
		       (unsigned long long)o.expect,
		       (unsigned long long)SEQ_SUM(missing),
		       (unsigned long long)SEQ_SUM(dups),
		       (unsigned long long)SEQ_SUM(late),
		       (unsigned long long)SEQ_SUM(old),
		       (unsigned long long)st.corrupt,
		       (unsigned long long)st.format,
		       (unsigned long long)st.bad_tag,
		       (unsigned long long)st.gso,
		       (unsigned long long)st.ck[XV_CK_FULL],
		       (unsigned long long)st.ck[XV_CK_PARTIAL],
		       (unsigned long long)st.ck[XV_CK_VALID],
		       (unsigned long long)st.ck[XV_CK_NONE],
		       (unsigned long long)bad_ck,
		       (unsigned long long)st.bad_hdr,
		       (unsigned long long)st.malformed,
		       (unsigned long long)st.ignored, el, cpu_json(),
		       ack_json());
	else
		printf("recv %s: %llu frames (%llu gso), %llu records, "
		       "%llu/%llu unique, missing %llu, dups %llu, "
		       "reordered %llu, corrupt %llu, csum full %llu partial "
		       "%llu valid %llu bad %llu, ignored %llu, %.3f s\n",
		       ok ? "ok" : "FAILED", (unsigned long long)st.frames,
		       (unsigned long long)st.gso,
		       (unsigned long long)st.records, (unsigned long long)uniq,
		       (unsigned long long)o.expect,
		       (unsigned long long)SEQ_SUM(missing),
		       (unsigned long long)(SEQ_SUM(dups) + SEQ_SUM(old)),
		       (unsigned long long)SEQ_SUM(late),
		       (unsigned long long)(st.corrupt + st.format +
					    st.bad_tag + st.bad_hdr +
					    st.malformed),
		       (unsigned long long)st.ck[XV_CK_FULL],
		       (unsigned long long)st.ck[XV_CK_PARTIAL],
		       (unsigned long long)st.ck[XV_CK_VALID],
		       (unsigned long long)bad_ck,
		       (unsigned long long)st.ignored, el);
	return ok ? 0 : EXIT_CHECK;
}

/* Waits up to 2 s for vhost to complete every queued tx frame. */
