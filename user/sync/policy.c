// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Host filters -> xn_policy: see policy.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "filters/filters.h"
#include "sync/policy.h"

enum which { FILTERED, TC_IN, NO_XDP_IN };

/* The ifindexes of the report's ports of one kind; malloc'ed, or NULL. */
static const __u32 *ports_where(const struct xn_filt_report *r, enum which w,
				int *n)
{
	__u32 *out = calloc(r->nports + 1, sizeof(*out));
	int i;

	*n = 0;
	for (i = 0; out && i < r->nports; i++) {
		const struct xn_filt_port *p = &r->ports[i];

		if (w == FILTERED ? p->filtered && !p->tc_in
		    : w == TC_IN  ? p->tc_in
				  : p->no_xdp_in)
			out[(*n)++] = p->ifindex;
	}
	return out;
}

/* What br_netfilter checks on bridged frames (enum xdpnet_nf): the
 * datapath hands it those it would drop, trim or reassemble. */
static __u32 nf_checks(const struct xn_filt_input *in)
{
	__u32 nf = (in->call_iptables ? XDPNET_NF_IP4 : 0) |
		   (in->call_ip6tables ? XDPNET_NF_IP6 : 0) |
		   (in->call_arptables ? XDPNET_NF_ARP : 0);

	if (nf && in->filter_vlan_tagged)
		nf |= XDPNET_NF_VLAN;
	if ((nf & (XDPNET_NF_IP4 | XDPNET_NF_IP6)) && in->filter_pppoe_tagged)
		nf |= XDPNET_NF_PPPOE;
	return nf;
}

int xn_policy_read(const struct xn_link *br, int bypass_filters, int assume_nf,
		   struct xn_policy *pol)
{
	struct xn_filt_report *r;
	struct xn_filt_live live;

	memset(pol, 0, sizeof(*pol));
	r = calloc(1, sizeof(*r));
	if (!r)
		return -XN_FAILED;
	if (xn_filt_read_live(br->ifindex, assume_nf, &live)) {
		free(r);
		return -XN_FAILED;
	}
	if (xn_filt_analyse(&live.in, r)) {
		xn_filt_live_free(&live);
		free(r);
		return -XN_FAILED;
	}
	pol->nf = nf_checks(&live.in);
	xn_filt_live_free(&live);
	pol->filtered = ports_where(r, FILTERED, &pol->nfiltered);
	pol->tc_in = ports_where(r, TC_IN, &pol->ntc_in);
	pol->no_xdp = ports_where(r, NO_XDP_IN, &pol->nno_xdp);
	if (!bypass_filters && r->verdict == XN_FILT_MATCH)
		pol->bridge_hold = XDPNET_BHOLD_FILTERS;
	else if (!bypass_filters && r->verdict == XN_FILT_UNKNOWN)
		pol->bridge_hold = XDPNET_BHOLD_UNKNOWN;
	pol->report = r;
	return 0;
}

int xn_policy_refuse(const struct xn_policy *pol,
		     const struct xn_bridge *bridge)
{
	const struct xn_filt_report *r = pol->report;
	int i;

	if (!pol->bridge_hold || !r)
		return 0;
	if (pol->bridge_hold == XDPNET_BHOLD_UNKNOWN) {
		xn_err("cannot tell which host filters apply to %s (%s); "
		       "attach --bypass-filters to bypass them anyway",
		       bridge->name, r->unknown);
		return -XN_FILTERED;
	}
	printf("xdpnet: these rules apply to frames between ports of %s, "
	       "and a bypass would skip them:\n",
	       bridge->name);
	for (i = 0; i < r->nrules; i++)
		printf("  %s\n    (%s)\n", r->rules[i].text, r->rules[i].why);
	fflush(stdout);
	xn_err("%d filter rule%s between ports of %s; not attached "
	       "(--bypass-filters attaches anyway)",
	       r->nrules, r->nrules == 1 ? " applies" : "s apply",
	       bridge->name);
	return -XN_FILTERED;
}

const char *xn_policy_summary(const struct xn_policy *pol)
{
	static char buf[512];
	const struct xn_filt_report *r = pol->report;
	int i, o = 0;

	buf[0] = 0;
	if (!r)
		return buf;
	if (pol->bridge_hold == XDPNET_BHOLD_FILTERS)
		o += snprintf(buf + o, sizeof(buf) - o,
			      "%d filter rules apply between ports; ",
			      r->nrules);
	else if (pol->bridge_hold == XDPNET_BHOLD_UNKNOWN)
		o += snprintf(buf + o, sizeof(buf) - o,
			      "filters unreadable (%s); ", r->unknown);
	for (i = 0; i < r->nports && o < (int)sizeof(buf) - 1; i++)
		if (r->ports[i].filtered)
			o += snprintf(buf + o, sizeof(buf) - o,
				      "%s filtered (%s); ", r->ports[i].name,
				      r->ports[i].reason);
	return buf;
}

static int lists_differ(const __u32 *a, int na, const __u32 *b, int nb)
{
	return na != nb || (na && memcmp(a, b, na * sizeof(*a)));
}

int xn_policy_differs(const struct xn_policy *a, const struct xn_policy *b)
{
	return a->bridge_hold != b->bridge_hold || a->nf != b->nf ||
	       lists_differ(a->filtered, a->nfiltered, b->filtered,
			    b->nfiltered) ||
	       lists_differ(a->tc_in, a->ntc_in, b->tc_in, b->ntc_in) ||
	       lists_differ(a->no_xdp, a->nno_xdp, b->no_xdp, b->nno_xdp);
}

void xn_policy_free(struct xn_policy *pol)
{
	if (pol->report) {
		xn_filt_report_free(pol->report);
		free(pol->report);
	}
	free((void *)pol->filtered);
	free((void *)pol->tc_in);
	free((void *)pol->no_xdp);
	memset(pol, 0, sizeof(*pol));
}

/* list (n entries, room for more) plus ifindex, if not in it: added? */
static int list_add(__u32 *list, int *n, __u32 ifindex)
{
	int j;

	for (j = 0; j < *n; j++)
		if (list[j] == ifindex)
			return 0;
	list[(*n)++] = ifindex;
	return 1;
}

int xn_policy_tc_now(const struct xn_link *br, const struct xn_policy *pol,
		     struct xn_policy *held)
{
	struct xn_filt_port_id *ids = NULL;
	char unknown[256] = "";
	__u32 *tc_in = NULL, *no_xdp = NULL;
	int np = 0, nin, nout, i, added = 0;

	*held = *pol;
	if (xn_filt_ports_tc(br->ifindex, &ids, &np, unknown,
			     sizeof(unknown)) ||
	    !np)
		goto out;
	tc_in = calloc(pol->ntc_in + np, sizeof(*tc_in));
	no_xdp = calloc(pol->nno_xdp + np, sizeof(*no_xdp));
	if (!tc_in || !no_xdp)
		goto out;
	if (pol->ntc_in)
		memcpy(tc_in, pol->tc_in, pol->ntc_in * sizeof(*tc_in));
	if (pol->nno_xdp)
		memcpy(no_xdp, pol->no_xdp, pol->nno_xdp * sizeof(*no_xdp));
	nin = pol->ntc_in;
	nout = pol->nno_xdp;
	for (i = 0; i < np; i++) {
		if (ids[i].tc_in[0])
			added += list_add(tc_in, &nin, (__u32)ids[i].ifindex);
		if (ids[i].tc_out[0])
			added += list_add(no_xdp, &nout, (__u32)ids[i].ifindex);
	}
	if (added) {
		held->tc_in = tc_in;
		held->ntc_in = nin;
		held->no_xdp = no_xdp;
		held->nno_xdp = nout;
		tc_in = no_xdp = NULL;
	}
out:
	free(tc_in);
	free(no_xdp);
	free(ids);
	return added;
}
