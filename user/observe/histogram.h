/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Forwarding-latency histograms (bpf/xdpnet_lat.bpf.c's lat_hist): bucket
 * bounds, quantiles, sums over CPUs. Pure functions. */
#ifndef XN_HISTOGRAM_H
#define XN_HISTOGRAM_H

#include <net/if.h>
#include <linux/types.h>
#include "xdpnet.h"

/* One (in, out, path) latency histogram, summed over CPUs. */
struct xn_lat_row {
	struct xdpnet_lat_key key;
	char in[IF_NAMESIZE];
	char out[IF_NAMESIZE];
	struct xdpnet_lat_hist h;
};

/* Latency buckets: [lo, hi) ns; the last bucket has no upper bound. */
__u64 xn_lat_bucket_lo(unsigned int b);
__u64 xn_lat_bucket_hi(unsigned int b);
/* Estimate of the q-quantile (0 < q <= 1) in ns, interpolated linearly in
 * its bucket; < 0 when the histogram is empty. */
double xn_lat_quantile(const struct xdpnet_lat_hist *h, double q);
/* The Prometheus histogram's buckets: le 2^8 ns (256 ns) to 2^22 ns
 * (4.19 ms), then +Inf; XN_PROM_LAT_BUCKETS in all. */
#define XN_PROM_LAT_BUCKETS 16
#define XN_PROM_LAT_SHIFT 8
static inline __u64 xn_prom_lat_le(unsigned int k)
{
	return 1ULL << (XN_PROM_LAT_SHIFT + k);
}
void xn_lat_sum(const struct xdpnet_lat_hist *percpu, int ncpu,
		struct xdpnet_lat_hist *out);

#endif
