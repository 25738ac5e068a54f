// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the choices of user/core/hooks.c that need no kernel:
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
#include "core/hooks.h"

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
	static const struct {
		__u32 flags, foreign;
		int ours;
		enum xn_xdp_choice want;
	} t[] = {
		/* A veth never gets XDP, whatever is there. */
		{ XDPNET_PORT_VETH, 0, 0, XN_XDP_VETH },
		{ XDPNET_PORT_VETH, 0, 1, XN_XDP_VETH },
		{ XDPNET_PORT_VETH, 7, -5, XN_XDP_VETH },
		/* A tap: ours kept, another program left alone, else ours. */
		{ 0, 0, 1, XN_XDP_OURS },
		{ 0, 7, 1, XN_XDP_OURS },
		{ 0, 7, 0, XN_XDP_FOREIGN },
		{ 0, 0, 0, XN_XDP_NEW },
		{ 0, 0, -22, XN_XDP_FAILED },
		{ XDPNET_PORT_XDP_TARGET, 9, -1, XN_XDP_FAILED },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct xdpnet_port p;
		struct xn_link l;

		memset(&p, 0, sizeof(p));
		memset(&l, 0, sizeof(l));
		p.flags = t[i].flags;
		l.xdp_prog_id = t[i].foreign;
		if (xn_xdp_choose(&p, &l, t[i].ours) != t[i].want)
			fail_msg("case %u: %d, want %d", i,
				 xn_xdp_choose(&p, &l, t[i].ours), t[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tc_hook_kind),
		cmocka_unit_test(test_xdp_choose),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
