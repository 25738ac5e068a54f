// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A bridge is looked up by its name once per process (issue 46): every
 * command, run whole from its command line, and the follower's start
 * (xdpnet follow, what attach starts) ask netlink for the bridge by name
 * at most once. Netlink's answer is a stand-in (xn_get_link is wrapped,
 * -Wl,--wrap: the Makefile), as are the privilege checks; the pins and run
 * files live in a scratch folder, where nothing is attached, so each
 * command goes as far as a bridge that is not attached lets it. No root,
 * no device.
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
#include "lib/nl.h"
#include "state/bridge.h"
#include "state/paths.h"
#include "state/system.h"
#include "sync/attach.h"
#include "cmd/cmd.h"

#define BRIDGE "xnlk0"
#define BR_IFINDEX 4242
#define PORT "xnlk0p1"
#define PORT_IFINDEX 4243

static unsigned int lookups; /* of BRIDGE by its name */
static unsigned int attaches;

static void fake_link(struct xn_link *l, const char *name, __u32 ifindex,
		      const char *kind, __u32 master)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = ifindex;
	snprintf(l->name, sizeof(l->name), "%s", name);
	snprintf(l->kind, sizeof(l->kind), "%s", kind);
	l->master = master;
	l->mtu = 1500;
	l->flags = 1; /* IFF_UP */
	l->mac[0] = 2;
	l->mac[5] = (__u8)ifindex;
}

/* Netlink, as it would answer for a bridge with one port. */
int __wrap_xn_get_link(const char *name, struct xn_link *out);
int __wrap_xn_get_link(const char *name, struct xn_link *out)
{
	if (!strcmp(name, BRIDGE)) {
		lookups++;
		fake_link(out, BRIDGE, BR_IFINDEX, "bridge", 0);
		return 0;
	}
	if (!strcmp(name, PORT)) {
		fake_link(out, PORT, PORT_IFINDEX, "veth", BR_IFINDEX);
		return 0;
	}
	return -ENODEV;
}

int __wrap_xn_get_link_by_index(__u32 ifindex, struct xn_link *out);
int __wrap_xn_get_link_by_index(__u32 ifindex, struct xn_link *out)
{
	if (ifindex == BR_IFINDEX)
		fake_link(out, BRIDGE, BR_IFINDEX, "bridge", 0);
	else if (ifindex == PORT_IFINDEX)
		fake_link(out, PORT, PORT_IFINDEX, "veth", BR_IFINDEX);
	else
		return -ENODEV;
	return 0;
}

/* As root, with bpffs mounted (the scratch folder stands for it). */
int __wrap_xn_require_root(const char *caps);
int __wrap_xn_require_root(const char *caps)
{
	(void)caps;
	return 0;
}

int __wrap_xn_prepare_for(const char *caps, const struct xn_bridge *br);
int __wrap_xn_prepare_for(const char *caps, const struct xn_bridge *br)
{
	(void)caps;
	return br ? xn_bridge_check(br) : 0;
}

int __wrap_xn_prepare(void);
int __wrap_xn_prepare(void)
{
	return 0;
}

/* attach's sequence loads and hooks programs: it gets the handle. */
int __wrap_xn_attach_bridge(const struct xn_bridge *br,
			    const struct xn_attach_req *rq);
int __wrap_xn_attach_bridge(const struct xn_bridge *br,
			    const struct xn_attach_req *rq)
{
	(void)rq;
	attaches++;
	assert_string_equal(br->name, BRIDGE);
	assert_int_equal(br->link.ifindex, BR_IFINDEX);
	return 0;
}

static char scratch[] = "/tmp/xn-lookups.XXXXXX";

static int setup(void **state)
{
	static char pins[128], run[128]; /* kept by xn_paths_set_root */

	(void)state;
	if (!mkdtemp(scratch))
		return -1;
	snprintf(pins, sizeof(pins), "%s/pins", scratch);
	snprintf(run, sizeof(run), "%s/run", scratch);
	if (mkdir(pins, 0700) || mkdir(run, 0700))
		return -1;
	xn_paths_set_root(pins, run);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) ? -1 : 0;
}

/* Run one command line (argv[0] "xdpnet" added): its exit code. */
static int run_line(const char *const *args)
{
	char *argv[24] = { "xdpnet" }, err[256];
	struct xn_cli cli;
	int argc = 1, rc;

	while (args[argc - 1])
		argv[argc] = (char *)args[argc - 1], argc++;
	rc = xn_parse_args(argc, argv, &cli, err, sizeof(err));
	if (rc)
		fail_msg("'%s': %s", args[0], err);
	rc = xn_cmd_run(&cli);
	xn_cli_free(&cli);
	return rc;
}

#define L(...)                    \
	{                         \
		__VA_ARGS__, NULL \
	}

static void test_one_lookup_per_command(void **state)
{
	static const char *const lines[][16] = {
		/* the follower's start: what attach runs as a daemon */
		L("follow", BRIDGE),
		L("attach", BRIDGE, "--no-follow"),
		L("attach", BRIDGE, "--mode", "xdp"),
		L("detach", BRIDGE),
		L("status", BRIDGE),
		L("status", BRIDGE, "--json"),
		L("fdb", BRIDGE),
		L("stats", BRIDGE),
		L("stats", BRIDGE, "--reset"),
		L("stats", BRIDGE, "--prom"),
		L("latency", BRIDGE),
		L("dump", BRIDGE, "-w", "/dev/null", "--port", PORT),
		L("trace", BRIDGE, "--in", PORT, "--src", "02:00:00:00:00:01",
		  "--dst", "02:00:00:00:00:02"),
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int rc;

		lookups = 0;
		rc = run_line(lines[i]);
		printf("# xdpnet %s %s...: exit %d, %u lookup(s) of %s by "
		       "name\n",
		       lines[i][0], lines[i][1], rc, lookups, BRIDGE);
		if (lookups != 1)
			fail_msg("xdpnet %s %s: %u lookups of the bridge by "
				 "name, want one",
				 lines[i][0], lines[i][1], lookups);
	}
	assert_int_equal(attaches, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_lookup_per_command),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
