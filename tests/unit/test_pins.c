// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the names derived from a bridge (user/state/paths.c) and
 * the ownership verdict on what is pinned under one (user/state/owner.c),
 * on a fake pin directory under a scratch directory (plain files: they
 * are no BPF objects, so no meta is ever read, as for an attach that died
 * before it wrote meta). No root needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "xdpnet.h"
#include "state/paths.h"
#include "lib/log.h"
#include "state/pins.h"
#include "state/owner.h"
#include "handle.h"

static char tmp[64];
static char pins[128], run[128];

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/xn_test_pins.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(pins, sizeof(pins), "%s/xdpnet", tmp);
	snprintf(run, sizeof(run), "%s/run", tmp);
	xn_paths_set_root(pins, run);
	return mkdir(pins, 0700);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	xn_paths_set_root(XDPNET_PIN_ROOT, XDPNET_RUN_DIR);
	return system(cmd) ? -1 : 0;
}

static void touch(const char *bridge, const char *leaf)
{
	char path[256];
	FILE *f;

	assert_int_equal(xn_pin_path(path, sizeof(path), B(bridge), NULL), 0);
	mkdir(path, 0700);
	assert_int_equal(xn_pin_path(path, sizeof(path), B(bridge), leaf), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static void test_names(void **state)
{
	static const char *const bad[] = { "",	   ".",	   "..",
					   "a/b",  "a b",  "a:b",
					   "a\tb", "a\nb", "sixteen-chars-xx" };
	char buf[256], want[256];
	unsigned int i;

	struct xn_bridge br;
	char longroot[300];

	(void)state;
	xn_paths_set_root(XDPNET_PIN_ROOT, XDPNET_RUN_DIR);
	assert_int_equal(xn_pin_path(buf, sizeof(buf), B("virbr0"), NULL), 0);
	assert_string_equal(buf, "/sys/fs/bpf/xdpnet/virbr0");
	assert_int_equal(xn_pin_path(buf, sizeof(buf), B("virbr0"), "fdb"), 0);
	assert_string_equal(buf, "/sys/fs/bpf/xdpnet/virbr0/fdb");
	assert_string_equal(B("br0")->path.run[XN_RUN_LOCK],
			    "/run/xdpnet/br0.lock");
	assert_string_equal(B("br0")->path.run[XN_RUN_FOLLOW],
			    "/run/xdpnet/br0.follow");
	assert_string_equal(B("br0")->path.run[XN_RUN_PID],
			    "/run/xdpnet/br0.pid");
	assert_string_equal(B("br0")->path.run[XN_RUN_LOG],
			    "/run/xdpnet/br0.log");
	assert_string_equal(B("br0")->path.run[XN_RUN_DUMP],
			    "/run/xdpnet/br0.dump");
	assert_int_equal(xn_port_leaf(buf, sizeof(buf), XN_PORT_TC, 17), 0);
	assert_string_equal(buf, "tc_17");
	assert_int_equal(xn_port_leaf(buf, sizeof(buf), XN_PORT_XDP, 4), 0);
	assert_string_equal(buf, "xdp_4");

	/* systemd-escape: '-' and anything unusual as \xNN, a leading '.'
	 * too, '_' and inner dots as they are. */
	assert_string_equal(B("virbr0")->path.unit, "xdpnet@virbr0.service");
	assert_string_equal(B("br-lan_1.5")->path.unit,
			    "xdpnet@br\\x2dlan_1.5.service");
	assert_string_equal(B(".x@")->path.unit, "xdpnet@\\x2ex\\x40.service");
	/* Too small a buffer is an error, not a truncated name. */
	assert_int_equal(xn_pin_path(buf, 20, B("virbr0"), "fdb"), -1);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(xn_valid_ifname(bad[i]));
		assert_int_equal(xn_bridge_open(&br, bad[i], 0), -EINVAL);
		assert_int_equal(xn_paths_of(bad[i], &br.path), -1);
	}
	assert_true(xn_valid_ifname("fifteen-chars-x"));

	/* Moved roots move every path; one too long for them is refused. */
	xn_paths_set_root(pins, run);
	assert_int_equal(xn_pin_path(buf, sizeof(buf), B("br0"), "meta"), 0);
	snprintf(want, sizeof(want), "%s/br0/meta", pins);
	assert_string_equal(buf, want);
	snprintf(want, sizeof(want), "%s/br0.lock", run);
	assert_string_equal(B("br0")->path.run[XN_RUN_LOCK], want);
	memset(longroot, 'x', sizeof(longroot) - 1);
	longroot[0] = '/';
	longroot[sizeof(longroot) - 1] = 0;
	xn_paths_set_root(NULL, longroot);
	assert_int_equal(xn_bridge_open(&br, "br0", 0), -ENAMETOOLONG);
	xn_paths_set_root(pins, run);
}

static void test_verdict(void **state)
{
	char dir[256];

	(void)state;
	/* Nothing, and an empty directory. */
	assert_int_equal(xn_pinned(B("nobr")), XN_PINNED_NONE);
	assert_int_equal(xn_pin_path(dir, sizeof(dir), B("empty"), NULL), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(xn_pinned(B("empty")), XN_PINNED_NONE);

	/* Only names xdpnet pins (maps, programs, links, renames in
	 * flight): an attach that died before it wrote meta. */
	touch("half", "fdb");
	touch("half", "prog_tc");
	touch("half", "tc_12");
	touch("half", "xdp_12");
	touch("half", "trace_fdb_update");
	touch("half", "lat_hist");
	touch("half", ".new_fdb");
	assert_int_equal(xn_pinned(B("half")), XN_PINNED_HALF);
	assert_true(xn_pin_exists(B("half"), "prog_tc"));
	assert_false(xn_pin_exists(B("half"), "prog_xdp"));

	/* One stranger makes them foreign, and the state is not opened. */
	touch("foreign", "fdb");
	touch("foreign", "somebody_else");
	assert_int_equal(xn_pinned(B("foreign")), XN_PINNED_FOREIGN);
	{
		struct xn_state s;

		assert_int_equal(xn_state_open(&s, B("foreign")),
				 -XN_NOT_ATTACHED);
	}

	/* A name that is no interface name has no handle, and so no
	 * directory. */
	{
		struct xn_bridge br;

		assert_int_equal(xn_bridge_open(&br, "../etc", 0), -EINVAL);
	}
}

static void test_pin_dirs(void **state)
{
	char(*names)[IF_NAMESIZE];
	char path[256];
	int n, i, seen = 0;

	(void)state;
	touch("dirs0", "fdb");
	touch("dirs1", "fdb");
	snprintf(path, sizeof(path), "%s/not a name", pins);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.hidden", pins);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(xn_pin_dirs(&names, &n), 0);
	for (i = 0; i < n; i++) {
		assert_true(xn_valid_ifname(names[i]));
		seen += !strcmp(names[i], "dirs0") + !strcmp(names[i], "dirs1");
	}
	assert_int_equal(seen, 2);
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_pin_dirs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
