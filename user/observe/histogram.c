// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Latency histograms: see histogram.h. Pure functions. */
#include <stdint.h>
#include <string.h>
#include "xdpnet.h"
#include "observe/histogram.h"

__u64 xn_lat_bucket_lo(unsigned int b)
{
	return b ? 1ULL << b : 0;
}

__u64 xn_lat_bucket_hi(unsigned int b)
{
	return b + 1 >= XDPNET_LAT_BUCKETS ? UINT64_MAX : 1ULL << (b + 1);
}

double xn_lat_quantile(const struct xdpnet_lat_hist *h, double q)
{
	__u64 total = 0, cum = 0;
	double rank;
	unsigned int b;

	for (b = 0; b < XDPNET_LAT_BUCKETS; b++)
		total += h->bucket[b];
	if (!total || q <= 0 || q > 1)
		return -1;
	rank = q * total;
	for (b = 0; b < XDPNET_LAT_BUCKETS; b++) {
		double lo, hi;

		if (!h->bucket[b] || cum + h->bucket[b] < rank) {
			cum += h->bucket[b];
			continue;
		}
		lo = xn_lat_bucket_lo(b);
		hi = b + 1 >= XDPNET_LAT_BUCKETS ? 2 * lo : xn_lat_bucket_hi(b);
		return lo + (hi - lo) * (rank - cum) / h->bucket[b];
	}
	return xn_lat_bucket_lo(XDPNET_LAT_BUCKETS - 1);
}

void xn_lat_sum(const struct xdpnet_lat_hist *percpu, int ncpu,
		struct xdpnet_lat_hist *out)
{
	int cpu, b;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpu; cpu++) {
		out->count += percpu[cpu].count;
		out->sum_ns += percpu[cpu].sum_ns;
		for (b = 0; b < XDPNET_LAT_BUCKETS; b++)
			out->bucket[b] += percpu[cpu].bucket[b];
	}
}
