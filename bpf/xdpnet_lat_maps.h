/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The two maps the datapath (xdpnet.bpf.c) and the latency probe
 * (xdpnet_lat.bpf.c) share; whoever loads first creates and pins them,
 * the other reuses them.
 */
#ifndef XDPNET_LAT_MAPS_H
#define XDPNET_LAT_MAPS_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpnet_lat_ctl);
} lat_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdpnet_lat_cpu);
} lat_cpu SEC(".maps");

#endif /* XDPNET_LAT_MAPS_H */
