/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the host's filters mean for a bridge's datapath (struct xn_policy,
 * reconcile.h), from user/filters.h: ports under per-port filters stay on
 * the bridge; filters that apply between ports, or filters that could not
 * be read, stop the bypass unless the operator accepted bypassing them
 * (attach --bypass-filters).
 */
#ifndef XN_POLICY_H
#define XN_POLICY_H

#include "lib/log.h"
#include "lib/nl.h"
#include "state/bridge.h"
#include "sync/desired.h"

/* Read and judge the host's filters for br. Always fills pol (free with
 * xn_policy_free); returns 0, or -XN_FAILED when the bridge vanished.
 * assume_nf: judge them as if br_netfilter handed bridged frames to
 * iptables, ip6tables and arptables (a bridge with no follower to see it
 * switched on: its sysctls and the bridge's nf_call_* raise no event). */
int xn_policy_read(const struct xn_link *br, int bypass_filters, int assume_nf,
		   struct xn_policy *pol);
/* attach: when pol holds the whole bridge, print why (the rules, on
 * stdout) and a one-line error, and return -XN_FILTERED; else 0. */
int xn_policy_refuse(const struct xn_policy *pol,
		     const struct xn_bridge *bridge);
/* One line for the follower's log: what pol holds, "" when nothing. */
const char *xn_policy_summary(const struct xn_policy *pol);
/* Did the policy change what the datapath does? */
int xn_policy_differs(const struct xn_policy *a, const struct xn_policy *b);
void xn_policy_free(struct xn_policy *pol);
/* tc changed: pol, plus the ports of br whose ingress has tc filters or
 * actions now, and those whose egress has tc of its own (no XDP redirects
 * into them), read over netlink alone (quick), in *held; free
 * held->tc_in and held->no_xdp with free() when this returns more than 0.
 * Returns how many entries that adds (0: held is pol). */
int xn_policy_tc_now(const struct xn_link *br, const struct xn_policy *pol,
		     struct xn_policy *held);

#endif
