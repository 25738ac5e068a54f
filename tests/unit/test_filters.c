// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for user/filters*.c: recorded rule sets (tests/unit/samples/
 * filters: libvirt's default network and clean-traffic nwfilter, Docker
 * legacy/nft, Docker with libvirt, kube-proxy, libvirt's nftables backend,
 * nft syntax cases) and small inline rule sets, each with the verdict,
 * filtered ports and bridge-wide rules it must give. Also user/json.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/pkt_sched.h>
#include "xdpnet.h"
#include "lib/nl.h"
#include "filters/filters.h"
#include "lib/json_reader.h"

static const char *samples(void)
{
	return getenv("XN_SAMPLES") ?: "tests/unit/samples/filters";
}

static char *load(const char *name)
{
	char path[512];
	FILE *f;
	char *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/%s", samples(), name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", path);
	if (getdelim(&buf, &len, 0, f) < 0) { /* empty */
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

/* text without the lines that contain drop */
static char *without(char *text, const char *drop)
{
	char *out = calloc(1, strlen(text) + 1), *line, *save = NULL;

	assert_non_null(out);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strstr(line, drop))
			strcat(strcat(out, line), "\n");
	free(text);
	return out;
}

/* text with the first from replaced by to (no longer than from) */
static char *replace(char *text, const char *from, const char *to)
{
	char *p = strstr(text, from);

	assert_non_null(p);
	assert_true(strlen(to) <= strlen(from));
	memcpy(p, to, strlen(to));
	memmove(p + strlen(to), p + strlen(from), strlen(p + strlen(from)) + 1);
	return text;
}

struct run {
	struct xn_filt_port_id ports[8];
	struct xn_filt_text texts[8];
	struct xn_filt_input in;
	struct xn_filt_report r;
};

/* ports: "vnet0,vnet1"; call: "4", "46", "" */
static struct run *setup(const char *ports, const char *nets, const char *call)
{
	struct run *t = calloc(1, sizeof(*t));
	char buf[128], *p, *save = NULL;

	assert_non_null(t);
	snprintf(buf, sizeof(buf), "%s", ports);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		snprintf(t->ports[t->in.nports].name, IF_NAMESIZE, "%s", p);
		t->ports[t->in.nports].ifindex = 10 + t->in.nports;
		t->in.nports++;
	}
	t->in.bridge = "virbr0";
	t->in.ports = t->ports;
	t->in.texts = t->texts;
	t->in.vm_nets = nets;
	t->in.call_iptables = !!strchr(call, '4');
	t->in.call_ip6tables = !!strchr(call, '6');
	t->in.call_arptables = !!strstr(call, "a");
	return t;
}

static void add(struct run *t, enum xn_filt_src src, char *text)
{
	t->texts[t->in.ntexts].src = src;
	t->texts[t->in.ntexts].text = text;
	t->in.ntexts++;
}

static void analyse(struct run *t)
{
	assert_int_equal(xn_filt_analyse(&t->in, &t->r), 0);
	xn_filt_print(stderr, "virbr0", &t->r, 0);
}

static void done(struct run *t)
{
	int i;

	xn_filt_report_free(&t->r);
	for (i = 0; i < t->in.ntexts; i++)
		free((char *)t->texts[i].text);
	free(t);
}

static int has_rule(const struct run *t, const char *needle)
{
	int i;

	for (i = 0; i < t->r.nrules; i++)
		if (strstr(t->r.rules[i].text, needle))
			return 1;
	return 0;
}

static const struct xn_filt_port *port(const struct run *t, const char *n)
{
	int i;

	for (i = 0; i < t->r.nports; i++)
		if (!strcmp(t->r.ports[i].name, n))
			return &t->r.ports[i];
	fail_msg("no port %s", n);
	return NULL;
}

#define NETS "192.168.122.1/24"

static struct run *libvirt_default(const char *call, const char *nets,
				   const char *drop)
{
	struct run *t = setup("vnet0,vnet1", nets, call);

	add(t, XN_FILT_IPT4, without(load("libvirt-default.iptables"), drop));
	add(t, XN_FILT_IPT6, load("libvirt-default.ip6tables"));
	add(t, XN_FILT_EBT, load("libvirt-default.ebtables"));
	add(t, XN_FILT_NFT, load("libvirt-default.nft.json"));
	analyse(t);
	return t;
}

/* LIBVIRT_FWX (-i virbr0 -o virbr0 -j ACCEPT) matches every bridged frame
 * first: FWI's and FWO's REJECTs never see them. MASQUERADE only matches
 * frames leaving 192.168.122.0/24; CHECKSUM does not count. */
static void test_libvirt_default(void **state)
{
	struct run *t = libvirt_default("46", NETS, "\x01");

	(void)state;
	assert_int_equal(t->r.verdict, XN_FILT_CLEAN);
	assert_int_equal(t->r.nrules, 0);
	assert_false(port(t, "vnet0")->filtered);
	done(t);
}

/* Without FWX, FWI's "-o virbr0 -j REJECT" rejects every bridged frame
 * (br_netfilter gives -o = the bridge); FWO's is then never reached. */
static void test_libvirt_default_without_fwx(void **state)
{
	struct run *t = libvirt_default("4", NETS, "-j LIBVIRT_FWX");

	(void)state;
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_int_equal(t->r.nrules, 1);
	assert_true(has_rule(t, "-A LIBVIRT_FWI -o virbr0 -j REJECT"));
	assert_non_null(strstr(t->r.rules[0].why, "rejects; matches all"));
	done(t);
}

/* Without br_netfilter's call into iptables, none of it applies. */
static void test_libvirt_default_no_br_netfilter(void **state)
{
	struct run *t = libvirt_default("", NETS, "-j LIBVIRT_FWX");

	(void)state;
	assert_int_equal(t->r.verdict, XN_FILT_CLEAN);
	done(t);
}

/* Not knowing the machines' subnets, MASQUERADE may match frames that one
 * machine routes through another. */
static void test_libvirt_default_any_address(void **state)
{
	struct run *t = libvirt_default("4", "", "\x01");

	(void)state;
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_int_equal(t->r.nrules, 3);
	assert_true(has_rule(t, "-j MASQUERADE --to-ports 1024-65535"));
	assert_false(has_rule(t, "CHECKSUM"));
	done(t);
}

/* clean-traffic on vnet0: ebtables nat PREROUTING -i vnet0 and POSTROUTING
 * -o vnet0 jump to libvirt's per-tap chains, which drop. vnet0 stays on
 * the bridge, vnet1 does not. The same tables in nft's listing are
 * ebtables-nft's and are skipped. */
static void test_libvirt_clean_traffic(void **state)
{
	struct run *t = setup("vnet0,vnet1", NETS, "46");

	(void)state;
	add(t, XN_FILT_IPT4, load("libvirt-clean-traffic.iptables"));
	add(t, XN_FILT_IPT6, load("libvirt-clean-traffic.ip6tables"));
	add(t, XN_FILT_EBT, load("libvirt-clean-traffic.ebtables"));
	add(t, XN_FILT_NFT, load("libvirt-clean-traffic.nft.json"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_PORTS);
	assert_int_equal(t->r.nrules, 0);
	assert_true(port(t, "vnet0")->filtered);
	assert_non_null(strstr(port(t, "vnet0")->reason,
			       "ebtables nat: -A PREROUTING -i vnet0 -j "
			       "libvirt-I-vnet0"));
	assert_false(port(t, "vnet1")->filtered);
	done(t);
}

/* Read from nft alone (no ebtables-save), the same chains filter vnet0;
 * iptables-nft's tables then show "xt" expressions, which count. */
static void test_libvirt_clean_traffic_nft_only(void **state)
{
	struct run *t = setup("vnet0,vnet1", NETS, "");

	(void)state;
	add(t, XN_FILT_NFT, load("libvirt-clean-traffic.nft.json"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_PORTS);
	assert_true(port(t, "vnet0")->filtered);
	assert_non_null(strstr(port(t, "vnet0")->reason, "nft bridge nat"));
	assert_false(port(t, "vnet1")->filtered);
	done(t);
	t = setup("vnet0,vnet1", NETS, "4");
	add(t, XN_FILT_NFT, load("libvirt-clean-traffic.nft.json"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_true(has_rule(t, "nft ip mangle chain LIBVIRT_PRT"));
	done(t);
}

/* clean-traffic on vnet0 and a filter with TCP rules on vnet1: libvirt's
 * iptables chains (libvirt-in/-out/-in-post) select the tap with physdev
 * before anything counts; vnet2 has no filter. */
static void test_libvirt_nwfilter_iptables(void **state)
{
	struct run *t = setup("vnet0,vnet1,vnet2", NETS, "46");

	(void)state;
	add(t, XN_FILT_IPT4, load("libvirt-nwfilter-ipt.iptables"));
	add(t, XN_FILT_IPT6, load("libvirt-nwfilter-ipt.ip6tables"));
	add(t, XN_FILT_EBT, load("libvirt-nwfilter-ipt.ebtables"));
	add(t, XN_FILT_NFT, load("libvirt-nwfilter-ipt.nft.json"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_PORTS);
	assert_int_equal(t->r.nrules, 0);
	assert_true(port(t, "vnet0")->filtered);
	assert_true(port(t, "vnet1")->filtered);
	assert_false(port(t, "vnet2")->filtered);
	done(t);
}

/* Docker: every rule names docker0 or Docker's addresses, but its FORWARD
 * policy DROP drops what the bridge forwards between two machines. */
static void docker(const char *file, const char *nft)
{
	struct run *t = setup("vnet0,vnet1", NETS, "46");

	add(t, XN_FILT_IPT4, load(file));
	if (nft)
		add(t, XN_FILT_NFT, load(nft));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_int_equal(t->r.nrules, 1);
	assert_true(has_rule(t, "iptables filter: -P FORWARD DROP"));
	done(t);
}

static void test_docker_nft(void **state)
{
	(void)state;
	docker("docker-nft.iptables", "docker-nft.nft.json");
}

static void test_docker_legacy(void **state)
{
	(void)state;
	docker("docker-legacy.iptables", NULL);
}

/* With libvirt's network too, FWX accepts first: nothing applies. */
static void test_docker_with_libvirt(void **state)
{
	struct run *t = setup("vnet0,vnet1", NETS, "46");

	(void)state;
	add(t, XN_FILT_IPT4, load("docker-libvirt.iptables"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_CLEAN);
	done(t);
}

/* kube-proxy: services, node ports and MASQUERADE only match its own
 * addresses, marks and the host's addresses; its conntrack INVALID drop in
 * KUBE-FORWARD matches bridged frames. */
static void test_kube_proxy(void **state)
{
	struct run *t = setup("vnet0,vnet1", NETS, "46");

	(void)state;
	add(t, XN_FILT_IPT4, load("kube-proxy.iptables"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_int_equal(t->r.nrules, 1);
	assert_true(has_rule(t, "-A KUBE-FORWARD -m conntrack --ctstate "
				"INVALID -j DROP"));
	done(t);
	t = setup("vnet0,vnet1", NETS, "46");
	add(t, XN_FILT_IPT4,
	    without(load("kube-proxy.iptables"), "--ctstate INVALID"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_CLEAN);
	done(t);
}

static void test_libvirt_nft_backend(void **state)
{
	struct run *t = setup("vnet0,vnet1", NETS, "4");

	(void)state;
	add(t, XN_FILT_NFT, load("libvirt-nft.nft.json"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_CLEAN);
	done(t);
	t = setup("vnet0,vnet1", NETS, "4");
	add(t, XN_FILT_NFT,
	    replace(load("libvirt-nft.nft.json"),
		    "{\"jump\": {\"target\": \"guest_cross\"}}",
		    "{\"continue\": null}"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_true(has_rule(t, "chain guest_input"));
	done(t);
}

/* nft syntax: names, sets and verdict maps of ports; netdev ingress;
 * broadcast-only, other-device and host-address rules. */
static void test_nft_misc(void **state)
{
	struct run *t = setup("vnet0,vnet1,vnet2,vnet3", NETS, "4");

	(void)state;
	add(t, XN_FILT_NFT, load("nft-misc.nft.json"));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_MATCH);
	assert_true(port(t, "vnet0")->filtered);
	assert_true(port(t, "vnet1")->filtered);
	assert_non_null(strstr(port(t, "vnet1")->reason, "log"));
	assert_true(port(t, "vnet2")->filtered);
	assert_true(port(t, "vnet3")->filtered);
	assert_non_null(strstr(port(t, "vnet3")->reason, "netdev edge"));
	assert_int_equal(t->r.nrules, 1);
	assert_true(has_rule(t, "ip saddr == @blocked"));
	done(t);
	/* any address: the inet table's service range may be a machine's */
	t = setup("vnet0,vnet1,vnet2,vnet3", "", "4");
	add(t, XN_FILT_NFT, load("nft-misc.nft.json"));
	analyse(t);
	assert_int_equal(t->r.nrules, 2);
	assert_true(has_rule(t, "ip daddr == 10.96.0.0/12"));
	done(t);
}

/* nft -j of nft 1.0.6 leaves out which device an ingress chain is on: from
 * the JSON alone every port may be under it; nft's text names vnet3. */
static void test_nft_ingress_devices(void **state)
{
	struct run *t = setup("vnet3,vnet4", NETS, "4");

	(void)state;
	add(t, XN_FILT_NFT, load("nft-misc.nft.json"));
	analyse(t);
	assert_true(port(t, "vnet3")->filtered);
	assert_true(port(t, "vnet4")->filtered);
	done(t);
	t = setup("vnet3,vnet4", NETS, "4");
	add(t, XN_FILT_NFT, load("nft-misc.nft.json"));
	add(t, XN_FILT_NFT_TEXT, load("src/nft-misc.nft"));
	analyse(t);
	assert_true(port(t, "vnet3")->filtered);
	assert_false(port(t, "vnet4")->filtered);
	done(t);
}

struct inline_case {
	const char *name;
	enum xn_filt_src src;
	const char *text;
	enum xn_filt_verdict verdict;
	const char *filtered; /* "vnet0" or "" */
	const char *rule;     /* a bridge-wide rule, or NULL */
};

#define IPT(rules) "*filter\n:FORWARD ACCEPT [0:0]\n" rules "COMMIT\n"
#define EBT(rules) "*filter\n:FORWARD ACCEPT\n" rules

static const struct inline_case cases[] = {
	{ "accounting only", XN_FILT_IPT4,
	  IPT("-A FORWARD -i virbr0 -o virbr0\n"), XN_FILT_CLEAN, "", NULL },
	{ "another device", XN_FILT_IPT4,
	  IPT("-A FORWARD -i docker0 -j DROP\n-A FORWARD -o eth0 -j DROP\n"),
	  XN_FILT_CLEAN, "", NULL },
	{ "a port named with -i is not seen (-i is the bridge)", XN_FILT_IPT4,
	  IPT("-A FORWARD -i vnet0 -j DROP\n"), XN_FILT_CLEAN, "", NULL },
	{ "physdev-in a port", XN_FILT_IPT4,
	  IPT("-A FORWARD -m physdev --physdev-in vnet0 -j DROP\n"),
	  XN_FILT_PORTS, "vnet0", NULL },
	{ "physdev-out another bridge's port", XN_FILT_IPT4,
	  IPT("-A FORWARD -m physdev --physdev-out vnet7 -j DROP\n"),
	  XN_FILT_CLEAN, "", NULL },
	{ "physdev wildcard over every port", XN_FILT_IPT4,
	  IPT("-A FORWARD -m physdev --physdev-in vnet+ -j DROP\n"),
	  XN_FILT_MATCH, "", "--physdev-in vnet+" },
	{ "conntrack INVALID drop", XN_FILT_IPT4,
	  IPT("-A FORWARD -m conntrack --ctstate INVALID -j DROP\n"),
	  XN_FILT_MATCH, "", "INVALID" },
	{ "LOG counts", XN_FILT_IPT4, IPT("-A FORWARD -j LOG\n"), XN_FILT_MATCH,
	  "", "-j LOG" },
	{ "policy DROP behind an accept of bridged frames", XN_FILT_IPT4,
	  "*filter\n:FORWARD DROP [0:0]\n-A FORWARD -m physdev "
	  "--physdev-is-bridged -j ACCEPT\nCOMMIT\n",
	  XN_FILT_CLEAN, "", NULL },
	{ "policy DROP", XN_FILT_IPT4,
	  "*filter\n:FORWARD DROP [0:0]\n-A FORWARD -p tcp -j ACCEPT\n"
	  "COMMIT\n",
	  XN_FILT_MATCH, "", "-P FORWARD DROP" },
	{ "mark never set", XN_FILT_IPT4,
	  IPT("-A FORWARD -m mark --mark 0x1 -j DROP\n"), XN_FILT_CLEAN, "",
	  NULL },
	{ "mark not set", XN_FILT_IPT4,
	  IPT("-A FORWARD -m mark ! --mark 0x1/0x1 -j DROP\n"), XN_FILT_MATCH,
	  "", "--mark" },
	{ "jump to a chain that drops", XN_FILT_IPT4,
	  "*filter\n:FORWARD ACCEPT [0:0]\n:X - [0:0]\n-A FORWARD -p udp -j "
	  "X\n-A X -j DROP\nCOMMIT\n",
	  XN_FILT_MATCH, "", "-A X -j DROP" },
	{ "goto then return: the rest of the caller is skipped", XN_FILT_IPT4,
	  "*filter\n:FORWARD ACCEPT [0:0]\n:X - [0:0]\n-A FORWARD -g X\n"
	  "-A FORWARD -j DROP\n-A X -j RETURN\nCOMMIT\n",
	  XN_FILT_CLEAN, "", NULL },
	{ "INPUT is not seen", XN_FILT_IPT4,
	  "*filter\n:INPUT DROP [0:0]\n-A INPUT -j DROP\nCOMMIT\n",
	  XN_FILT_CLEAN, "", NULL },
	{ "nat PREROUTING to the host's addresses", XN_FILT_IPT4,
	  "*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -m addrtype "
	  "--dst-type LOCAL -j DNAT --to-destination 1.2.3.4\nCOMMIT\n",
	  XN_FILT_CLEAN, "", NULL },
	{ "raw notrack", XN_FILT_IPT4,
	  "*raw\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -j CT --notrack\n"
	  "COMMIT\n",
	  XN_FILT_MATCH, "", "CT --notrack" },
	{ "ip6tables of another subnet", XN_FILT_IPT6,
	  IPT("-A FORWARD -d 2001:db8:1::/48 -j DROP\n"), XN_FILT_CLEAN, "",
	  NULL },
	{ "ip6tables link-local", XN_FILT_IPT6,
	  IPT("-A FORWARD -s fe80::/10 -j DROP\n"), XN_FILT_MATCH, "",
	  "fe80::/10" },
	{ "ebtables broadcast only", XN_FILT_EBT,
	  EBT("-A FORWARD -d Broadcast -j DROP\n-A FORWARD -d "
	      "01:00:00:00:00:00/01:00:00:00:00:00 -j DROP\n"),
	  XN_FILT_CLEAN, "", NULL },
	{ "ebtables negated port", XN_FILT_EBT,
	  EBT("-A FORWARD -p ! IPv4 -i ! vnet0 -j DROP\n"), XN_FILT_PORTS,
	  "vnet1", NULL },
	{ "ebtables -o a port", XN_FILT_EBT,
	  EBT("-A FORWARD -o vnet1 -j DROP\n"), XN_FILT_PORTS, "vnet1", NULL },
	{ "ebtables -o at PREROUTING", XN_FILT_EBT,
	  "*nat\n:PREROUTING ACCEPT\n-A PREROUTING --logical-in virbr0 -j "
	  "DROP\n",
	  XN_FILT_MATCH, "", "--logical-in virbr0" },
	{ "ebtables user chain with policy DROP", XN_FILT_EBT,
	  EBT(":foo DROP\n-A FORWARD -j foo\n"), XN_FILT_MATCH, "",
	  "-P foo DROP" },
	{ "ebtables log watcher", XN_FILT_EBT,
	  EBT("-A FORWARD --log-level notice -j ACCEPT\n"), XN_FILT_MATCH, "",
	  "--log-level" },
	{ "arptables FORWARD", XN_FILT_ARPT,
	  "*filter\n:FORWARD ACCEPT\n-A FORWARD -i vnet0 -j DROP\n",
	  XN_FILT_PORTS, "vnet0", NULL },
	{ "garbage", XN_FILT_IPT4, "*filter\nwhat is this\n", XN_FILT_UNKNOWN,
	  "", NULL },
	{ "bad nft", XN_FILT_NFT, "{\"nftables\": [", XN_FILT_UNKNOWN, "",
	  NULL },
};

static void test_inline(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct inline_case *c = &cases[i];
		struct run *t =
			setup("vnet0,vnet1", NETS " 2001:db8::/64", "46a");

		fprintf(stderr, "== %s\n", c->name);
		add(t, c->src, strdup(c->text));
		analyse(t);
		if (t->r.verdict != c->verdict)
			fail_msg("%s: verdict %s", c->name,
				 xn_filt_verdict_name(t->r.verdict));
		if (c->filtered[0] && !port(t, c->filtered)->filtered)
			fail_msg("%s: %s not filtered", c->name, c->filtered);
		if (c->rule && !has_rule(t, c->rule))
			fail_msg("%s: no rule with %s", c->name, c->rule);
		done(t);
	}
}

/* A tool that could not run makes it unknown, whatever the rules say. */
static void test_unknown_tool(void **state)
{
	struct run *t = setup("vnet0,vnet1", NETS, "4");

	(void)state;
	t->in.unknown = "nft not found";
	add(t, XN_FILT_IPT4, strdup(IPT("")));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_UNKNOWN);
	assert_string_equal(t->r.unknown, "nft not found");
	done(t);
}

/* tc of a port's own: ingress filters hold the port (the verdict names
 * it), egress tc keeps XDP redirects out of it; neither is bridge-wide.
 * Another port's rules still decide for it. */
static void test_tc(void **state)
{
	struct run *t = setup("vnet0,vnet1,vnet2", NETS, "4");

	(void)state;
	snprintf(t->ports[0].tc_in, sizeof(t->ports[0].tc_in),
		 "filter matchall");
	snprintf(t->ports[1].tc_out, sizeof(t->ports[1].tc_out), "qdisc htb");
	add(t, XN_FILT_IPT4, strdup(IPT("")));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_PORTS);
	assert_int_equal(t->r.nrules, 0);
	assert_true(port(t, "vnet0")->filtered);
	assert_true(port(t, "vnet0")->tc_in);
	assert_non_null(strstr(port(t, "vnet0")->reason, "filter matchall"));
	assert_false(port(t, "vnet0")->no_xdp_in);
	assert_false(port(t, "vnet1")->filtered);
	assert_true(port(t, "vnet1")->no_xdp_in);
	assert_non_null(strstr(port(t, "vnet1")->no_xdp_why, "qdisc htb"));
	assert_false(port(t, "vnet2")->filtered);
	assert_false(port(t, "vnet2")->no_xdp_in);
	done(t);

	/* Egress tc alone leaves the verdict clean. */
	t = setup("vnet0,vnet1", NETS, "4");
	snprintf(t->ports[1].tc_out, sizeof(t->ports[1].tc_out),
		 "egress filter bpf");
	add(t, XN_FILT_IPT4, strdup(IPT("")));
	analyse(t);
	assert_int_equal(t->r.verdict, XN_FILT_CLEAN);
	assert_true(port(t, "vnet1")->no_xdp_in);
	done(t);
}

/* filters/tc.c's judgements on dumps: xdpnet's own clsact filter and a
 * classifier's head (handle 0) are no filters; anything else is, once per
 * kind. The kernel's default qdiscs (handle 0) are none of the port's. */
static void test_tc_dumps(void **state)
{
	static const struct xn_tc_obj f[] = {
		{ .handle = 0, .prio = XDPNET_CLSACT_PRIO, .kind = "bpf" },
		{ .handle = XDPNET_CLSACT_HANDLE,
		  .prio = XDPNET_CLSACT_PRIO,
		  .kind = "bpf" },
	};
	static const struct xn_tc_obj g[] = {
		{ .handle = 0, .prio = 49152, .kind = "u32" },
		{ .handle = 0x80000800, .prio = 49152, .kind = "u32" },
		{ .handle = 0x80000801, .prio = 49152, .kind = "u32" },
		{ .handle = 2, .prio = XDPNET_CLSACT_PRIO, .kind = "bpf" },
		{ .handle = XDPNET_CLSACT_HANDLE, .prio = 7, .kind = "bpf" },
	};
	static const struct xn_tc_obj q[] = {
		{ .ifindex = 5, .handle = 0, .parent = TC_H_ROOT, .kind = "mq" },
		{ .ifindex = 5,
		  .handle = 0,
		  .parent = 0x10001,
		  .kind = "fq_codel" },
		{ .ifindex = 5,
		  .handle = 0xffff0000,
		  .parent = TC_H_INGRESS,
		  .kind = "clsact" },
		{ .ifindex = 6,
		  .handle = 0x80010000,
		  .parent = TC_H_ROOT,
		  .kind = "htb" },
		{ .ifindex = 6,
		  .handle = 0xffff0000,
		  .parent = TC_H_INGRESS,
		  .kind = "ingress" },
	};
	struct xn_filt_port_id p5 = { .ifindex = 5 }, p6 = { .ifindex = 6 },
			       p7 = { .ifindex = 7 };
	char buf[96] = "";
	int in, cl;

	(void)state;
	xn_filt_tc_filters(f, 2, buf, sizeof(buf), "filter");
	assert_string_equal(buf, "");
	xn_filt_tc_filters(g, 5, buf, sizeof(buf), "filter");
	assert_string_equal(buf, "filter u32, filter bpf");
	xn_filt_tc_qdiscs(&p5, q, 5, &in, &cl);
	assert_true(in && cl);
	assert_string_equal(p5.tc_out, "");
	xn_filt_tc_qdiscs(&p6, q, 5, &in, &cl);
	assert_true(in && !cl);
	assert_string_equal(p6.tc_out, "qdisc htb");
	xn_filt_tc_qdiscs(&p7, q, 5, &in, &cl);
	assert_true(!in && !cl);
	assert_string_equal(p7.tc_out, "");
}

static void test_json(void **state)
{
	char err[128];
	struct xn_json *v;

	(void)state;
	v = xn_json_parse("{\"a\": [1, -2.5e3, \"x\\u00e9\\\"\", true, null],"
			  " \"b\": {}}",
			  err, sizeof(err));
	assert_non_null(v);
	assert_int_equal(xn_json_get(v, "a")->n, 5);
	assert_int_equal(xn_json_get(v, "a")->items[0]->num, 1);
	assert_string_equal(xn_json_get(v, "a")->items[2]->str, "x\xc3\xa9\"");
	assert_int_equal(xn_json_get(v, "b")->type, XN_JOBJ);
	assert_null(xn_json_get(v, "c"));
	xn_json_free(v);
	assert_null(xn_json_parse("{\"a\": 1,}", err, sizeof(err)));
	assert_non_null(strstr(err, "JSON"));
	assert_null(xn_json_parse("[1] 2", err, sizeof(err)));
	assert_null(xn_json_parse("\"a\\u0000\"", err, sizeof(err)));
	assert_null(xn_json_parse("01", err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libvirt_default),
		cmocka_unit_test(test_libvirt_default_without_fwx),
		cmocka_unit_test(test_libvirt_default_no_br_netfilter),
		cmocka_unit_test(test_libvirt_default_any_address),
		cmocka_unit_test(test_libvirt_clean_traffic),
		cmocka_unit_test(test_libvirt_clean_traffic_nft_only),
		cmocka_unit_test(test_libvirt_nwfilter_iptables),
		cmocka_unit_test(test_docker_nft),
		cmocka_unit_test(test_docker_legacy),
		cmocka_unit_test(test_docker_with_libvirt),
		cmocka_unit_test(test_kube_proxy),
		cmocka_unit_test(test_libvirt_nft_backend),
		cmocka_unit_test(test_nft_misc),
		cmocka_unit_test(test_nft_ingress_devices),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_unknown_tool),
		cmocka_unit_test(test_tc),
		cmocka_unit_test(test_tc_dumps),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
