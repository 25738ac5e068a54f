// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The test's own network namespace: a bridge (XT_BRIDGE) and veth ports,
 * and the kernel's view of each port (STP state, learning, isolated,
 * locked, membership), which the live build reads. Everything goes with
 * the process: the namespace dies with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>

#include "harness.h"
#include "lib/nl.h"
#include "lib/tcx.h"
#include "lib/util.h"
#include "state/netns.h"

#define BR_STATE_FORWARDING 3

/* clang-format off */
#define PF_VETH (XDPNET_PORT_FWD | XDPNET_PORT_LEARNING | XDPNET_PORT_XDP | \
		 XDPNET_PORT_VETH)
const struct xt_port_def xt_ports[XT_NR_PORTS] = {
	[P_A] = { "xbtA", "xbtAp", 3, PF_VETH | XDPNET_PORT_XDP_TARGET, 1500 },
	[P_B] = { "xbtB", "xbtBp", 7, XDPNET_PORT_FWD | XDPNET_PORT_LEARNING |
			XDPNET_PORT_XDP | XDPNET_PORT_XDP_TARGET, 9000 },
	[P_C] = { "xbtC", "xbtCp", 1, PF_VETH | XDPNET_PORT_XDP_TARGET, 1280 },
	[P_D] = { "xbtD", "xbtDp", 2, PF_VETH, 1500 },
	[P_E] = { "xbtE", "xbtEp", 0, 0, 1500 },
};
/* clang-format on */

struct xt_env xt_env;
struct xt_kport xt_kwant[XT_NR_PORTS];
bool xt_kwant_promisc;
static bool khave_promisc;
__u32 xt_kwant_mtu[XT_NR_PORTS];
static __u32 khave_mtu[XT_NR_PORTS]; /* 0: the port's own (xt_ports) */
static struct xt_kport khave[XT_NR_PORTS];

__u32 xt_ifindex(int port)
{
	if (port == P_GONE)
		return XT_GONE_IFINDEX;
	if (port == P_BRIDGE)
		return xt_env.bridge_ifindex;
	if (port < 0 || port >= XT_NR_PORTS)
		return 0;
	return xt_env.ifindex[port];
}

const char *xt_port_name(int port)
{
	static const char *const names[] = { "A", "B", "C", "D", "E" };

	if (port == P_NONE)
		return "none";
	if (port == P_GONE)
		return "gone";
	if (port == P_BRIDGE)
		return "bridge";
	if (port < 0 || port >= XT_NR_PORTS)
		return "?";
	return names[port];
}

char xt_sh_out[256];

int xt_sh(const char *fmt, ...)
{
	char cmd[600];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(cmd) - 8)
		return -1;
	if (xt_verbose)
		fprintf(stderr, "+ %s\n", cmd);
	strcat(cmd, " 2>&1");
	xt_sh_out[0] = 0;
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* Keep the first line of what it said, for messages. */
	while (fgets(xt_sh_out + n, sizeof(xt_sh_out) - n, p))
		if (!n)
			n = strcspn(xt_sh_out, "\n");
	xt_sh_out[n] = 0;
	return pclose(p);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

bool xt_kport_read_ifindex(__u32 ifindex, struct xt_kport *out)
{
	struct xn_link l;

	if (xn_get_link_by_index(ifindex, &l))
		return false;
	out->master = l.is_port && l.master == xt_env.bridge_ifindex;
	out->state = out->master ? l.stp_state : 0;
	out->learning = out->master && l.learning;
	out->isolated = out->master && l.isolated;
	out->locked = out->master && l.locked;
	return true;
}

bool xt_kport_read(int port, struct xt_kport *out)
{
	return xt_kport_read_ifindex(xt_env.ifindex[port], out);
}

static bool kport_equal(const struct xt_kport *a, const struct xt_kport *b)
{
	if (a->master != b->master)
		return false;
	if (!a->master)
		return true;
	return a->state == b->state && a->learning == b->learning &&
	       a->isolated == b->isolated && a->locked == b->locked;
}

/* Poll (2 s at most) until the kernel has what we asked for: enslaving
 * and carrier changes take effect asynchronously. */
static bool kport_wait(int port, const struct xt_kport *want)
{
	struct xt_kport k = {};
	int i;

	for (i = 0; i < 2000; i++) {
		if (xt_kport_read(port, &k) && kport_equal(&k, want)) {
			khave[port] = k;
			return true;
		}
		sleep_ms(1);
	}
	CHECK(false,
	      "port %s: kernel has master %d state %u learning %d isolated "
	      "%d locked %d, want %d %u %d %d %d",
	      xt_port_name(port), k.master, k.state, k.learning, k.isolated,
	      k.locked, want->master, want->state, want->learning,
	      want->isolated, want->locked);
	return false;
}

static const char *onoff(bool b)
{
	return b ? "on" : "off";
}

bool xt_kports_sync(void)
{
	int p;

	if (xt_kwant_promisc != khave_promisc) {
		if (!CHECK(!xt_sh("ip link set " XT_BRIDGE " promisc %s",
				  onoff(xt_kwant_promisc)),
			   "cannot set the bridge's promisc: %s", xt_sh_out))
			return false;
		khave_promisc = xt_kwant_promisc;
	}

	for (p = 0; p < XT_NR_PORTS; p++) {
		__u32 want = xt_kwant_mtu[p] ? xt_kwant_mtu[p]
					     : xt_ports[p].mtu,
		      have = khave_mtu[p] ? khave_mtu[p] : xt_ports[p].mtu;

		if (want == have)
			continue;
		if (!CHECK(!xt_sh("ip link set dev %s mtu %u", xt_ports[p].dev,
				  want),
			   "port %s: cannot set its MTU: %s", xt_port_name(p),
			   xt_sh_out))
			return false;
		khave_mtu[p] = want;
	}
	for (p = 0; p < XT_NR_PORTS; p++) {
		const struct xt_kport *w = &xt_kwant[p];
		const char *dev = xt_ports[p].dev;

		if (kport_equal(&khave[p], w))
			continue;
		if (w->master != khave[p].master) {
			if (!CHECK(!xt_sh("ip link set dev %s %s", dev,
					  w->master ? "master " XT_BRIDGE
						    : "nomaster"),
				   "port %s: cannot change its master: %s",
				   xt_port_name(p), xt_sh_out))
				return false;
			if (!w->master) {
				if (!kport_wait(p, w))
					return false;
				continue;
			}
			/* A new port: forwarding once its carrier is seen. */
			{
				struct xt_kport fresh = { true,
							  BR_STATE_FORWARDING,
							  true, false, false };

				if (!kport_wait(p, &fresh))
					return false;
			}
			if (kport_equal(&khave[p], w))
				continue;
		}
		if (!CHECK(!xt_sh("bridge link set dev %s state %u learning %s "
				  "isolated %s locked %s",
				  dev, w->state, onoff(w->learning),
				  onoff(w->isolated), onoff(w->locked)),
			   "port %s: 'bridge link set' failed: %s",
			   xt_port_name(p), xt_sh_out))
			return false;
		if (!kport_wait(p, w))
			return false;
	}
	return true;
}

static const char *make_port(int p)
{
	const struct xt_port_def *d = &xt_ports[p];
	static const struct xt_kport fwd = { true, BR_STATE_FORWARDING, true,
					     false, false };

	if (xt_sh("ip link add %s mtu %u type veth peer name %s mtu %u", d->dev,
		  d->mtu, d->peer, d->mtu) ||
	    xt_sh("ip link set %s master " XT_BRIDGE, d->dev) ||
	    xt_sh("ip link set %s up && ip link set %s up", d->dev, d->peer))
		return "cannot create the veth ports";
	if (p == P_A &&
	    xt_sh("ip link set %s address 02:00:5e:10:00:aa", d->dev))
		return "cannot set port A's address";
	xt_env.ifindex[p] = if_nametoindex(d->dev);
	xt_env.peer_ifindex[p] = if_nametoindex(d->peer);
	if (!xt_env.ifindex[p] || !xt_env.peer_ifindex[p])
		return "a veth device vanished";
	xt_kwant[p] = fwd;
	return NULL;
}

static cpu_set_t cpus_at_start;

int xt_pin(int cpu)
{
	cpu_set_t one;

	if (cpu < 0)
		cpu = sched_getcpu() < 0 ? 0 : sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -1 : cpu;
}

void xt_unpin(void)
{
	sched_setaffinity(0, sizeof(cpus_at_start), &cpus_at_start);
}

const char *xt_env_setup(void)
{
	const char *why;
	int p;

	sched_getaffinity(0, sizeof(cpus_at_start), &cpus_at_start);
	if (unshare(CLONE_NEWNET))
		return "cannot create a network namespace (unshare)";
	xt_env.netns_ino = xn_netns_self()->ino;
	/* Quiet ports: no IPv6 autoconfiguration, DAD or MLD, whose frames
	 * would teach the bridge addresses behind our backs. */
	if (write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1") ||
	    write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1"))
		xt_note("IPv6 could not be disabled in the test namespace");
	if (xt_sh("ip link add " XT_BRIDGE " type bridge stp_state 0") ||
	    xt_sh("ip link set " XT_BRIDGE " address 02:00:5e:10:00:01") ||
	    xt_sh("ip link set " XT_BRIDGE " up"))
		return "cannot create a bridge";
	xt_env.bridge_ifindex = if_nametoindex(XT_BRIDGE);
	for (p = 0; p < XT_NR_PORTS; p++) {
		why = make_port(p);
		if (why)
			return why;
	}
	/* Every port forwarding before anything runs. */
	for (p = 0; p < XT_NR_PORTS; p++)
		if (!kport_wait(p, &xt_kwant[p]))
			return "a port of the test bridge never forwarded";
	xt_env.nr_cpus = libbpf_num_possible_cpus();
	if (xt_env.nr_cpus <= 0)
		return "cannot count CPUs";
	return NULL;
}

/* A clsact qdisc on dev, with a filter on side ("ingress", "egress") or
 * none (NULL). */
static bool clsact(const char *dev, const char *side)
{
	if (!CHECK(!xt_sh("tc qdisc add dev %s clsact", dev),
		   "cannot add a clsact qdisc to %s: %s", dev, xt_sh_out))
		return false;
	/* u32 without an action: this kernel has no matchall, no gact. */
	return !side ||
	       CHECK(!xt_sh("tc filter add dev %s %s pref 1 u32 match u32 0 0 "
			    "classid 1:1",
			    dev, side),
		     "cannot add a tc filter to %s: %s", dev, xt_sh_out);
}

bool xt_tc_ingress(int port, bool on, bool filter)
{
	const char *dev = xt_ports[port].dev;

	/* (A failed row may have left one: its check does not run.) */
	xt_sh("tc qdisc del dev %s clsact 2>/dev/null", dev);
	return !on || clsact(dev, filter ? "ingress" : NULL);
}

bool xt_tc_egress(int port, enum xt_tc_out what)
{
	const char *dev = xt_ports[port].dev;
	static int link = -1;

	if (link >= 0)
		close(link);
	link = -1;
	xt_sh("tc qdisc del dev %s root 2>/dev/null", dev);
	xt_sh("tc qdisc del dev %s clsact 2>/dev/null", dev);
	switch (what) {
	case XT_TC_NONE:
		return true;
	case XT_TC_ROOT_QDISC:
		return CHECK(
			!xt_sh("tc qdisc add dev %s root handle 7: pfifo", dev),
			"cannot add a root qdisc to %s: %s", dev, xt_sh_out);
	case XT_TC_TCX_PROG:
		link = bpf_link_create(xt_b->tc, xt_ifindex(port),
				       XN_TCX_EGRESS, NULL);
		return CHECK(link >= 0, "cannot attach a tcx program to %s: %s",
			     dev, strerror(errno));
	default:
		return clsact(dev, what == XT_TC_CLSACT ? NULL : "egress");
	}
}
