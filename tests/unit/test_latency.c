// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the latency histograms' math (user/observe/histogram.c):
 * bucket bounds, quantiles interpolated in their bucket, sums over CPUs,
 * and the path names. No root needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "xdpnet.h"
#include "datapath/names.h"
#include "observe/histogram.h"

static void test_bounds(void **state)
{
	unsigned int b;

	(void)state;
	assert_int_equal(xn_lat_bucket_lo(0), 0);
	assert_int_equal(xn_lat_bucket_hi(0), 2);
	assert_int_equal(xn_lat_bucket_lo(1), 2);
	assert_int_equal(xn_lat_bucket_hi(1), 4);
	assert_int_equal(xn_lat_bucket_lo(10), 1024);
	/* Contiguous, doubling; the last one open. */
	for (b = 1; b + 1 < XDPNET_LAT_BUCKETS; b++) {
		assert_int_equal(xn_lat_bucket_hi(b - 1), xn_lat_bucket_lo(b));
		assert_int_equal(xn_lat_bucket_hi(b), 2 * xn_lat_bucket_lo(b));
	}
	assert_true(xn_lat_bucket_hi(XDPNET_LAT_BUCKETS - 1) == UINT64_MAX);
}

static void test_quantile(void **state)
{
	struct xdpnet_lat_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	/* Empty, or q out of (0, 1]: no estimate. */
	assert_true(xn_lat_quantile(&h, 0.5) < 0);
	h.bucket[10] = 4; /* [1024, 2048) */
	assert_true(xn_lat_quantile(&h, 0) < 0);
	assert_true(xn_lat_quantile(&h, 1.5) < 0);
	/* Linear inside the bucket: rank q * 4 of 4. */
	assert_float_equal(xn_lat_quantile(&h, 0.25), 1024 + 256, 1e-9);
	assert_float_equal(xn_lat_quantile(&h, 0.5), 1536, 1e-9);
	assert_float_equal(xn_lat_quantile(&h, 1), 2048, 1e-9);
	/* Two buckets: the median at the top of the first. */
	h.bucket[12] = 4; /* [4096, 8192) */
	assert_float_equal(xn_lat_quantile(&h, 0.5), 2048, 1e-9);
	assert_float_equal(xn_lat_quantile(&h, 0.75), 4096 + 2048, 1e-9);
	assert_float_equal(xn_lat_quantile(&h, 0.99),
			   4096 + 4096 * (7.92 - 4) / 4, 1e-6);
	/* The open last bucket is taken as [lo, 2 lo). */
	memset(&h, 0, sizeof(h));
	h.bucket[XDPNET_LAT_BUCKETS - 1] = 2;
	assert_float_equal(xn_lat_quantile(&h, 1),
			   2.0 * xn_lat_bucket_lo(XDPNET_LAT_BUCKETS - 1),
			   1e-3);
}

static void test_sum(void **state)
{
	struct xdpnet_lat_hist pc[3], out;
	int c;

	(void)state;
	memset(pc, 0, sizeof(pc));
	for (c = 0; c < 3; c++) {
		pc[c].count = c + 1;
		pc[c].sum_ns = 1000 * (c + 1);
		pc[c].bucket[c] = 1;
		pc[c].bucket[5] = c;
	}
	memset(&out, 0xff, sizeof(out));
	xn_lat_sum(pc, 3, &out);
	assert_int_equal(out.count, 6);
	assert_int_equal(out.sum_ns, 6000);
	assert_int_equal(out.bucket[0], 1);
	assert_int_equal(out.bucket[1], 1);
	assert_int_equal(out.bucket[2], 1);
	assert_int_equal(out.bucket[5], 3);
	assert_int_equal(out.bucket[6], 0);
	xn_lat_sum(pc, 0, &out);
	assert_int_equal(out.count, 0);
}

static void test_path_names(void **state)
{
	(void)state;
	assert_string_equal(xn_lat_path_name(XDPNET_LAT_BRIDGE), "bridge");
	assert_string_equal(xn_lat_path_name(XDPNET_LAT_TC), "tc");
	assert_string_equal(xn_lat_path_name(XDPNET_LAT_XDP), "xdp");
	assert_string_equal(xn_lat_path_name(99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_sum),
		cmocka_unit_test(test_path_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
