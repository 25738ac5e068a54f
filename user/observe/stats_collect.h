/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Samples of a bridge's counters from the kernel (netlink and the pinned
 * maps), and zeroing xdpnet's. */
#ifndef XN_STATS_COLLECT_H
#define XN_STATS_COLLECT_H

#include "observe/stats_view.h"
#include "state/bridge.h"

/* Kernel side. Each returns an enum xn_exit code, with a one-line error. */
/* 1 if the pins under XDPNET_PIN_ROOT/bridge belong to this namespace's
 * bridge (or there are none), 0 otherwise. */
int xn_stats_pins_ours(const struct xn_bridge *bridge);
int xn_stats_collect(const struct xn_bridge *bridge, struct xn_stats_sample *s);
void xn_stats_free(struct xn_stats_sample *s);
int xn_stats_reset(const struct xn_bridge *bridge);
/* "PIN_ROOT/BRIDGE belongs to a bridge named BRIDGE in another network
 * namespace"; returns XN_ERR. */
int xn_stats_refuse_other_ns(const struct xn_bridge *bridge);

#endif
