/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Samples of a bridge's counters from the kernel (netlink and the pinned
 * maps), and zeroing xdpnet's. */
#ifndef XN_STATS_COLLECT_H
#define XN_STATS_COLLECT_H

#include "lib/log.h"
#include "observe/stats_view.h"
#include "state/bridge.h"

/* Kernel side. Each returns 0 or -errno (lib/log.h), after a one-line
 * error. */
/* 1 if the pins under XDPNET_PIN_ROOT/bridge belong to this namespace's
 * bridge (or there are none), 0 otherwise. */
int xn_stats_pins_ours(const struct xn_bridge *bridge);
int xn_stats_collect(const struct xn_bridge *bridge, struct xn_stats_sample *s);
void xn_stats_free(struct xn_stats_sample *s);
int xn_stats_reset(const struct xn_bridge *bridge);
/* What is pinned under the bridge's name is this namespace's to read
 * (or nothing): 0, or a -errno (lib/log.h) after a one-line error. */
int xn_stats_ready(const struct xn_bridge *bridge);

/* Samples, one after the other. */
struct xn_stats_watch {
	double interval; /* seconds between samples; 0: one sample */
	int count;	 /* samples shown at most; 0: until SIGINT, SIGTERM */
	/* Each sample shown, with the one before it (NULL: the first of
	 * one) and its number from 1. */
	void (*show)(const struct xn_stats_sample *prev,
		     const struct xn_stats_sample *cur, unsigned long seq,
		     void *arg);
	void *arg;
};

/* Sample bridge as w says: with an interval, the first sample is the
 * base of the first rates, shown after the first interval. 0 or -errno,
 * after a one-line error. */
int xn_stats_watch(const struct xn_bridge *bridge,
		   const struct xn_stats_watch *w);
/* "PIN_ROOT/BRIDGE belongs to a bridge named BRIDGE in another network
 * namespace"; returns -XN_FAILED. */
int xn_stats_refuse_other_ns(const struct xn_bridge *bridge);

#endif
