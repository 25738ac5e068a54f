/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Filters xdpnet would bypass: which iptables/ip6tables/arptables (through
 * br_netfilter), nftables, ebtables and libvirt nwfilter rules can see a
 * unicast frame that the bridge forwards between two of its ports.
 *
 * xn_filt_analyse() is a pure function of the rule sets as text (the output
 * of iptables-save, ip6tables-save, ebtables-save, arptables-save and
 * `nft -j list ruleset`) and of the bridge's ports; xn_filt_read_live()
 * gathers that text by running those tools in the caller's network
 * namespace. See docs in user/filters.c for what counts and why.
 */
#ifndef XN_FILTERS_H
#define XN_FILTERS_H

#include <net/if.h>
#include <stdio.h>

/* Where a rule set came from; the save formats are told apart by this. */
enum xn_filt_src {
	XN_FILT_IPT4, /* iptables-save (legacy or nft; see its header) */
	XN_FILT_IPT6, /* ip6tables-save */
	XN_FILT_EBT,  /* ebtables-save */
	XN_FILT_ARPT, /* arptables-save */
	XN_FILT_NFT,  /* nft -j list ruleset */
	/* nft list ruleset (text): only the devices of ingress/egress chains,
	 * which nft before 1.0.7 leaves out of its JSON */
	XN_FILT_NFT_TEXT,
};

struct xn_filt_text {
	enum xn_filt_src src;
	const char *text;
};

struct xn_filt_port_id {
	char name[IF_NAMESIZE];
	int ifindex;
	/* tc of the port's own (filters/tc.c; "" none): its ingress filters
	 * ("u32, matchall"), which a bypass from it would skip; and what its
	 * egress has ("qdisc htb, egress filters bpf"), which the TC stage's
	 * redirect into it passes through and an XDP redirect skips. */
	char tc_in[96];
	char tc_out[96];
};

struct xn_filt_input {
	const char *bridge;
	const struct xn_filt_port_id *ports;
	int nports;
	/* Subnets the machines on this bridge use, space separated
	 * ("192.168.122.0/24 2001:db8::/64"): frames between two of them are
	 * taken to carry addresses from these (and fe80::/10), never one of
	 * the host's own. A family with none listed: any address. */
	const char *vm_nets;
	/* Whether bridged frames reach the IP layer's hooks (br_netfilter
	 * loaded and bridge-nf-call-* = 1, or the bridge's own nf_call_*). */
	int call_iptables, call_ip6tables, call_arptables;
	/* ... VLAN-tagged frames too, IP in PPPoE sessions too
	 * (bridge-nf-filter-vlan-tagged, -pppoe-tagged). */
	int filter_vlan_tagged, filter_pppoe_tagged;
	const struct xn_filt_text *texts;
	int ntexts;
	/* Set by xn_filt_read_live(): what could not be read ("" if all). */
	const char *unknown;
};

enum xn_filt_verdict {
	XN_FILT_CLEAN,	 /* nothing the bypass would skip */
	XN_FILT_PORTS,	 /* only per-port filters: keep those ports off */
	XN_FILT_MATCH,	 /* rules that can match frames between two ports */
	XN_FILT_UNKNOWN, /* a rule set could not be read or parsed */
};

struct xn_filt_port {
	char name[IF_NAMESIZE];
	int ifindex;
	int filtered;	  /* under a per-port filter: keep on the bridge */
	int tc_in;	  /* ... which is tc on its ingress */
	char reason[256]; /* for status: the rule that names the port */
	int no_xdp_in;	  /* tc on its egress: no XDP redirect into it */
	char no_xdp_why[160];
};

struct xn_filt_rule {
	char *text; /* "iptables filter: -A FORWARD ... -j DROP" */
	char *why;  /* "drops; matches all frames ...; reached from ..." */
};

struct xn_filt_report {
	enum xn_filt_verdict verdict;
	char unknown[512]; /* why XN_FILT_UNKNOWN */
	int nports;
	struct xn_filt_port *ports; /* in the input's order */
	int nrules;
	struct xn_filt_rule *rules; /* bridge-wide: attach refuses */
};

/* Fills r (free with xn_filt_report_free). Returns 0, or -1 when out of
 * memory. Parse errors make the verdict XN_FILT_UNKNOWN. */
int xn_filt_analyse(const struct xn_filt_input *in, struct xn_filt_report *r);
void xn_filt_report_free(struct xn_filt_report *r);
const char *xn_filt_verdict_name(enum xn_filt_verdict v);

/* Text (one item a line: "bridge B verdict V", "unknown WHY",
 * "port P filtered: REASON" or "port P bypassable", "port P no XDP
 * redirects in: WHY", "rule TEXT" and "  why: WHY") or one JSON object. */
void xn_filt_print(FILE *f, const char *bridge, const struct xn_filt_report *r,
		   int json);

/* The live system, in the caller's network namespace. */
struct xn_filt_live {
	struct xn_filt_input in;
	char name[IF_NAMESIZE]; /* the bridge's, as its ifindex has it now */
	struct xn_filt_port_id *ports;
	struct xn_filt_text texts[12];
	char *bufs[12];
	char nets[512];
	char unknown[512];
};

/* tc on each of in->ports (tc_in, tc_out), through netlink. A dump that
 * fails is named in unknown (len bytes), appended. */
void xn_filt_read_tc(struct xn_filt_port_id *ports, int n, char *unknown,
		     size_t len);
/* Its two judgements, pure: the qdiscs of a namespace for port p (an
 * ingress or clsact qdisc; a qdisc of its own into p->tc_out), and the
 * filters of one block, but xdpnet's own, into buf ("WHAT KIND, ..."). */
struct xn_tc_obj;
void xn_filt_tc_qdiscs(struct xn_filt_port_id *p, const struct xn_tc_obj *q,
		       int nq, int *ingress, int *clsact);
void xn_filt_tc_filters(const struct xn_tc_obj *f, int n, char *buf, size_t len,
			const char *what);

/* The ports of the bridge, each with its tc (xn_filt_read_tc), in *out
 * (free()); 0, or -1 when they cannot be listed. */
int xn_filt_ports_tc(unsigned int bridge_ifindex, struct xn_filt_port_id **out,
		     int *n, char *unknown, size_t len);
/* Reads ports (the bridge's tap/veth and other ports) and their tc, the
 * br_netfilter sysctls and the bridge's nf_call_* options, its addresses
 * (vm_nets), and runs the save tools. A tool that is missing or fails is named
 * in live->unknown (the analysis then says XN_FILT_UNKNOWN). assume_nf: as if
 * br_netfilter handed bridged frames to every table (all its sysctls on),
 * whatever they say now. Returns 0, or -1 if the bridge (by its ifindex)
 * does not exist. */
int xn_filt_read_live(unsigned int bridge_ifindex, int assume_nf,
		      struct xn_filt_live *live);
void xn_filt_live_free(struct xn_filt_live *live);

#endif
