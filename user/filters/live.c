// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads what user/filters.c judges from the running system, in the caller's
 * network namespace: the bridge's ports, their tc (filters/tc.c) and
 * addresses, br_netfilter's
 * switches, and the rule sets as the save tools and `nft -j list ruleset`
 * print them. Tools for the IP layers are only run when bridged frames
 * reach those layers. A tool that is missing or fails is named in
 * live->unknown; nothing is printed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/nl.h"
#include "lib/proc.h"
#include "filters/internal.h"

#define NTEXTS 12

/* An executable named name on PATH or in the sbin directories. */
static int find_tool(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[1024], *d, *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/local/sbin",
		 path ? path : "");
	for (d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (!access(out, X_OK))
			return 0;
	}
	return -1;
}

static void tool(struct xn_filt_live *L, enum xn_filt_src src, const char *name,
		 int json)
{
	char path[512], *out;
	char *argv[5] = { path, NULL };
	int st, k = 1, i = L->in.ntexts;

	if (i >= NTEXTS)
		return;
	if (find_tool(name, path, sizeof(path))) {
		xf_note(L->unknown, sizeof(L->unknown), "%s not found", name);
		return;
	}
	if (!strcmp(name, "nft")) {
		if (json)
			argv[k++] = "-j";
		argv[k++] = "list";
		argv[k++] = "ruleset";
	}
	st = xn_run(argv, &out, 1);
	if (!out || st) {
		free(out);
		xf_note(L->unknown, sizeof(L->unknown), "%s failed", name);
		return;
	}
	L->bufs[i] = out;
	L->texts[i].src = src;
	L->texts[i].text = out;
	L->in.ntexts++;
}

static int has_tool(const char *name)
{
	char p[512];

	return !find_tool(name, p, sizeof(p));
}

/* Legacy (x_tables) tables of this namespace exist. */
static int legacy_tables(const char *procfile)
{
	FILE *f = fopen(procfile, "r");
	int c = EOF;

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c != EOF;
}

/* One family's save tools: the nft-based one, and the legacy one when the
 * kernel holds legacy tables. */
static void save_tools(struct xn_filt_live *L, enum xn_filt_src src,
		       const char *base, const char *procfile)
{
	char nft[64], legacy[64], plain[64];

	snprintf(nft, sizeof(nft), "%s-nft-save", base);
	snprintf(legacy, sizeof(legacy), "%s-legacy-save", base);
	snprintf(plain, sizeof(plain), "%s-save", base);
	tool(L, src, has_tool(nft) ? nft : plain, 0);
	if ((procfile && legacy_tables(procfile)) ||
	    (!procfile && has_tool(legacy)))
		tool(L, src, legacy, 0);
}

static int read_int(const char *fmt, const char *a)
{
	char path[256];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), fmt, a);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* br_netfilter's sysctl (/proc/sys/net is this process's network
 * namespace's), or the bridge's own nf_call_* option (from netlink: /sys
 * may show another namespace, e.g. under a bare nsenter --net). */
static int nf_call(const char *which, int own)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/net/bridge/bridge-nf-call-%s",
		 which);
	if (read_int("%s", path) < 0)
		return 0; /* br_netfilter is not loaded */
	return read_int("%s", path) > 0 || own;
}

static void add_net(struct xn_filt_live *L, int fam, const void *addr,
		    const void *mask)
{
	const unsigned char *a = addr, *m = mask;
	unsigned char net[16];
	char buf[INET6_ADDRSTRLEN];
	int n = fam == AF_INET ? 4 : 16, len = 0, i;
	size_t l = strlen(L->nets);

	for (i = 0; i < n; i++) {
		net[i] = a[i] & m[i];
		len += __builtin_popcount(m[i]);
	}
	if (fam == AF_INET6 && (net[0] == 0xfe && (net[1] & 0xc0) == 0x80))
		return; /* link-local: always assumed */
	inet_ntop(fam, net, buf, sizeof(buf));
	snprintf(L->nets + l, sizeof(L->nets) - l, "%s%s/%d", l ? " " : "", buf,
		 len);
}

static void read_nets(struct xn_filt_live *L, const char *bridge)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		return;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_netmask ||
		    strcmp(i->ifa_name, bridge))
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			add_net(L, AF_INET,
				&((struct sockaddr_in *)i->ifa_addr)->sin_addr,
				&((struct sockaddr_in *)i->ifa_netmask)
					 ->sin_addr);
		else if (i->ifa_addr->sa_family == AF_INET6)
			add_net(L, AF_INET6,
				&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
				&((struct sockaddr_in6 *)i->ifa_netmask)
					 ->sin6_addr);
	}
	freeifaddrs(ifa);
}

int xn_filt_ports_tc(unsigned int bridge_ifindex, struct xn_filt_port_id **out,
		     int *n, char *unknown, size_t len)
{
	struct xn_link *ports = NULL;
	int i;

	*n = 0;
	if (xn_list_ports(bridge_ifindex, &ports, n))
		return -1;
	*out = calloc(*n ? *n : 1, sizeof(**out));
	if (!*out) {
		free(ports);
		return -1;
	}
	for (i = 0; i < *n; i++) {
		memcpy((*out)[i].name, ports[i].name, IF_NAMESIZE);
		(*out)[i].ifindex = ports[i].ifindex;
	}
	free(ports);
	xn_filt_read_tc(*out, *n, unknown, len);
	return 0;
}

static int read_ports(struct xn_filt_live *L, __u32 bridge_ifindex)
{
	if (xn_filt_ports_tc(bridge_ifindex, &L->ports, &L->in.nports,
			     L->unknown, sizeof(L->unknown)))
		return -1;
	L->in.ports = L->ports;
	return 0;
}

int xn_filt_read_live(unsigned int bridge_ifindex, int assume_nf,
		      struct xn_filt_live *L)
{
	struct xn_link br;

	memset(L, 0, sizeof(*L));
	if (xn_get_link_by_index(bridge_ifindex, &br) ||
	    strcmp(br.kind, "bridge") || read_ports(L, br.ifindex))
		return -1;
	memcpy(L->name, br.name, sizeof(L->name));
	L->in.bridge = L->name;
	L->in.texts = L->texts;
	L->in.vm_nets = L->nets;
	L->in.unknown = L->unknown;
	L->in.call_iptables = nf_call("iptables", br.nf_call_iptables);
	L->in.call_ip6tables = nf_call("ip6tables", br.nf_call_ip6tables);
	L->in.call_arptables = nf_call("arptables", br.nf_call_arptables);
	L->in.filter_vlan_tagged = read_int("%s",
					    "/proc/sys/net/bridge/"
					    "bridge-nf-filter-vlan-tagged") > 0;
	L->in.filter_pppoe_tagged =
		read_int("%s", "/proc/sys/net/bridge/"
			       "bridge-nf-filter-pppoe-tagged") > 0;
	if (assume_nf) /* it may be switched on with nobody to see it */
		L->in.call_iptables = L->in.call_ip6tables =
			L->in.call_arptables = L->in.filter_vlan_tagged =
				L->in.filter_pppoe_tagged = 1;
	read_nets(L, L->name);
	save_tools(L, XN_FILT_EBT, "ebtables", NULL);
	if (L->in.call_iptables)
		save_tools(L, XN_FILT_IPT4, "iptables",
			   "/proc/net/ip_tables_names");
	if (L->in.call_ip6tables)
		save_tools(L, XN_FILT_IPT6, "ip6tables",
			   "/proc/net/ip6_tables_names");
	if (L->in.call_arptables)
		save_tools(L, XN_FILT_ARPT, "arptables",
			   "/proc/net/arp_tables_names");
	tool(L, XN_FILT_NFT, "nft", 1);
	/* nft -j before 1.0.7 leaves out the devices of ingress chains */
	if (L->in.ntexts && L->texts[L->in.ntexts - 1].src == XN_FILT_NFT &&
	    (strstr(L->texts[L->in.ntexts - 1].text, "\"ingress\"") ||
	     strstr(L->texts[L->in.ntexts - 1].text, "\"egress\"")))
		tool(L, XN_FILT_NFT_TEXT, "nft", 0);
	return 0;
}

void xn_filt_live_free(struct xn_filt_live *L)
{
	int i;

	for (i = 0; i < NTEXTS; i++)
		free(L->bufs[i]);
	free(L->ports);
	memset(L, 0, sizeof(*L));
}
