/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The forwarding-latency probe: "xdpnet latency BRIDGE on|off" loads or
 * removes bpf/xdpnet_lat.bpf.c's tracepoint programs (pinned links lat_rx,
 * lat_tx, lat_xdp under /sys/fs/bpf/xdpnet/BRIDGE/), without touching the
 * datapath; the histograms (lat_hist) stay until reset or detach.
 */
#ifndef XN_LATENCY_H
#define XN_LATENCY_H

#include "state/bridge.h"
#include "observe/histogram.h"

/* 'xdpnet latency BRIDGE on|off': switch the probe on for br (looked up)
 * or off, where what is pinned under its name is ours; a -errno (lib/log.h),
 * after a line saying what was done or a one-line error. */
int xn_lat_set(const struct xn_bridge *br, int on);
/* 'xdpnet latency BRIDGE': whether the probe is on (*on), where what is
 * pinned is ours; a -errno (lib/log.h), after a one-line error. */
int xn_lat_get(const struct xn_bridge *br, int *on);
/* The same switches, without the checks. */
int xn_lat_on(const struct xn_bridge *bridge);
int xn_lat_off(const struct xn_bridge *bridge);

/* The probe's pins belong to this namespace's bridge? (Pins are global.) */
int xn_lat_ours(const struct xn_bridge *bridge);

/* Whether the probe's links are in place for this bridge. */
int xn_lat_is_on(const struct xn_bridge *bridge);

/* Read the bridge's histograms (summed over CPUs, ports named, sorted by
 * in, out, path). Returns 0 (*rows may be NULL with *n == 0), -ENOENT if
 * the probe never ran for this bridge (in this namespace), or -errno. */
int xn_lat_read(const struct xn_bridge *bridge, struct xn_lat_row **rows,
		int *n);

/* Delete every histogram. 0, -ENOENT (none), or -errno. */
int xn_lat_reset(const struct xn_bridge *bridge);

#endif
