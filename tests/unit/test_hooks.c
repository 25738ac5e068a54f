// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the choices of user/datapath/hooks.c that need no kernel:
 * which TC hook a port gets, and what the XDP stage does on a port given
 * what is there. No root needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "xdpnet.h"
#include "lib/nl.h"
#include "datapath/hooks.h"
#include "datapath/multiprog.h"

static void test_tc_hook_kind(void **state)
{
	(void)state;
	assert_int_equal(xn_tc_hook_kind(NULL), XDPNET_HOOK_TCX);
	assert_int_equal(xn_tc_hook_kind(""), XDPNET_HOOK_TCX);
	assert_int_equal(xn_tc_hook_kind("tcx"), XDPNET_HOOK_TCX);
	assert_int_equal(xn_tc_hook_kind("clsact"), XDPNET_HOOK_CLSACT);
	assert_int_equal(xn_tc_hook_kind("CLSACT"), XDPNET_HOOK_TCX);
	assert_int_equal(xn_tc_hook_kind("clsact "), XDPNET_HOOK_TCX);
}

static void test_xdp_choose(void **state)
{
	enum {
		N = XN_MP_NONE,
		L = XN_MP_LEGACY,
		O = XN_MP_OURS,
		X = XN_MP_OTHERS
	};
	static const struct {
		struct xn_xdp_seen w;
		enum xn_xdp_choice want;
	} t[] = {
		/* flags, xdp_id, link, tcx, mp, mp_ok */
		/* A veth never gets XDP, whatever is there. */
		{ { XDPNET_PORT_VETH, 0, 0, 0, N, 1 }, XN_XDP_VETH },
		{ { XDPNET_PORT_VETH, 0, 1, 0, N, 0 }, XN_XDP_VETH },
		{ { XDPNET_PORT_VETH, 7, -5, 1, X, 1 }, XN_XDP_VETH },
		/* Direct links (no dispatcher here): ours kept, another
		 * program left alone, else ours. */
		{ { 0, 0, 1, 0, N, 0 }, XN_XDP_OURS },
		{ { 0, 7, 1, 0, N, 0 }, XN_XDP_OURS },
		{ { 0, 7, 0, 0, L, 0 }, XN_XDP_FOREIGN },
		{ { 0, 7, 0, 0, N, 0 }, XN_XDP_FOREIGN },
		{ { 0, 0, 0, 0, N, 0 }, XN_XDP_NEW },
		{ { 0, 0, -22, 0, N, 0 }, XN_XDP_FAILED },
		{ { XDPNET_PORT_XDP_TARGET, 9, -1, 0, N, 0 }, XN_XDP_FAILED },
		/* Other programs on its tcx ingress: no XDP of ours (an XDP
		 * redirect would skip them), however ours stands; another
		 * XDP program keeps the port either way. */
		{ { 0, 0, 1, 1, N, 0 }, XN_XDP_TCX },
		{ { 0, 0, 0, 1, N, 1 }, XN_XDP_TCX },
		{ { 0, 0, -22, 1, N, 0 }, XN_XDP_TCX },
		{ { 0, 7, 0, 1, L, 1 }, XN_XDP_FOREIGN },
		{ { 0, 7, 0, 1, O, 1 }, XN_XDP_TCX },
		/* The dispatcher where the kernel runs it: created where
		 * nothing is, joined where one is, ours found in it. */
		{ { 0, 0, 0, 0, N, 1 }, XN_XDP_MP_JOIN },
		{ { 0, 7, 0, 0, X, 1 }, XN_XDP_MP_JOIN },
		{ { 0, 7, 0, 0, O, 1 }, XN_XDP_MP_OURS },
		/* A program outside a dispatcher is still theirs. */
		{ { 0, 7, 0, 0, L, 1 }, XN_XDP_FOREIGN },
		/* A dispatcher this kernel cannot extend (probe failed). */
		{ { 0, 7, 0, 0, X, 0 }, XN_XDP_FOREIGN },
		/* Our direct link stays ours (an older xdpnet hooked it). */
		{ { 0, 7, 1, 0, N, 1 }, XN_XDP_OURS },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (xn_xdp_choose(&t[i].w) != t[i].want)
			fail_msg("case %u: %d, want %d", i,
				 xn_xdp_choose(&t[i].w), t[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tc_hook_kind),
		cmocka_unit_test(test_xdp_choose),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
