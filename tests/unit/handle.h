/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The tests' bridge handles (state/bridge.h), for a test that needs one by
 * name: not looked up, a few live at a time. Include after cmocka.h. */
#ifndef XN_TEST_HANDLE_H
#define XN_TEST_HANDLE_H

#include "state/bridge.h"

/* The handle of bridge name, not looked up: a few live at a time. */
static const struct xn_bridge *B(const char *name)
{
	static struct xn_bridge ring[8];
	static unsigned int next;
	struct xn_bridge *br = &ring[next++ % 8];

	assert_int_equal(xn_bridge_open(br, name, 0), 0);
	return br;
}

#endif
