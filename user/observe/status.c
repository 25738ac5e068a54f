// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What 'xdpnet status' shows: see status.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "state/paths.h"
#include "state/pins.h"
#include "state/owner.h"
#include "state/lock.h"
#include "datapath/counters.h"
#include "datapath/hooks.h"
#include "datapath/multiprog.h"
#include "observe/latency.h"
#include "observe/status.h"

#define MAX_BRIDGES 64

/* Why a port's XDP stage is a direct link. */
static const char *link_why(void)
{
	const char *why;

	return xn_mp_available(&why) ? "hooked so by an older xdpnet (detach "
				       "and attach again for the dispatcher)"
				     : why;
}

static int status_one(const struct xn_bridge *bridge,
		      struct xn_bridge_status *s, int quiet)
{
	int ncpu = libbpf_num_possible_cpus(), n = 0, err;
	struct xdpnet_stats *pc;
	struct xn_state st;
	struct xn_link l;
	__u32 slot;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	if (ncpu < 0)
		return -XN_FAILED;
	xn_set_quiet(quiet);
	err = xn_state_open(&st, bridge);
	xn_set_quiet(0);
	if (err)
		return err;
	snprintf(s->name, sizeof(s->name), "%s", bridge->name);
	s->meta = st.meta;
	xn_cfg_read(&st, &s->cfg);
	s->fdb_entries = xn_map_count_keys(st.fd[XM_FDB]);
	s->fdb_static = xn_map_count_keys(st.fd[XM_FDB_STATIC]);
	for (slot = 0; slot < XN_SIZE_N; slot++)
		s->size[slot] = xn_map_max_entries(st.fd[xn_sizes[slot].map]);
	xn_fdb_ev_read(&st, s->fdb_ev);
	xn_flows_read(&st, &s->flows);
	s->note_set = !xn_pin_exists(bridge, "trace_redirect_err");
	s->gone = xn_get_link_by_index(st.meta.bridge_ifindex, &l) ||
		  strcmp(l.name, bridge->name);
	s->follower = xn_follower_alive(bridge, &pid);
	s->follower_pid = pid;
	pc = calloc(ncpu, sizeof(*pc));
	s->ports = calloc(XDPNET_MAX_PORTS, sizeof(*s->ports));
	if (!pc || !s->ports) {
		free(pc);
		xn_state_close(&st);
		return -XN_FAILED;
	}
	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++) {
		struct xn_port_row *p = &s->ports[n];
		char leaf[32];

		if (bpf_map_lookup_elem(st.fd[XM_PORTS], &slot, &p->port) ||
		    !p->port.ifindex)
			continue;
		if (!if_indextoname(p->port.ifindex, p->name))
			snprintf(p->name, sizeof(p->name), "(gone)");
		xn_port_leaf(leaf, sizeof(leaf), XN_PORT_TC, p->port.ifindex);
		p->tc_prog_id = p->port.hook == XDPNET_HOOK_CLSACT
					? xn_prog_id(st.prog_tc)
					: xn_link_prog_id(bridge, leaf);
		xn_port_leaf(leaf, sizeof(leaf), XN_PORT_XDP, p->port.ifindex);
		if (p->port.flags & XDPNET_PORT_XDP_MULTI) {
			p->xdp_prog_id = xn_mp_prog_id(bridge);
		} else {
			p->xdp_prog_id = xn_link_prog_id(bridge, leaf);
			if (p->port.flags & XDPNET_PORT_XDP)
				s->xdp_link_why = link_why();
		}
		if (!bpf_map_lookup_elem(st.fd[XM_STATS], &slot, pc))
			xn_sum_stats(pc, ncpu, &p->st);
		n++;
	}
	s->nports = n;
	free(pc);
	xn_state_close(&st);
	return 0;
}

/* A bridge that is not attached, whose latency probe pinned maps (it runs
 * on a bridge alone too): say where, and what removes them. */
static void lat_pins(const struct xn_bridge *bridge, const char *what)
{
	xn_err("%s is %s; its latency probe is %s, its maps are pinned "
	       "under %s ('xdpnet detach %s' removes them)",
	       bridge->name, what, xn_lat_is_on(bridge) ? "on" : "off",
	       bridge->path.pins, bridge->name);
}

static int unattached(const struct xn_bridge *bridge)
{
	if (!xn_lat_ours(bridge))
		return xn_bridge_unattached(bridge,
					    "%s is not attached (try 'xdpnet "
					    "attach %s')",
					    bridge->name, bridge->name);
	/* A deleted bridge's probe pins most of all. */
	if (bridge->err) {
		lat_pins(bridge, "no longer a device");
		return -XN_NO_BRIDGE;
	}
	lat_pins(bridge, "not attached");
	return -XN_NOT_ATTACHED;
}

static int cmp_port(const void *a, const void *b)
{
	return strcmp(((const struct xn_port_row *)a)->name,
		      ((const struct xn_port_row *)b)->name);
}

int xn_status_read(const struct xn_bridge *br, int quiet,
		   struct xn_bridge_status **out, int *n)
{
	struct xn_bridge_status *s = calloc(MAX_BRIDGES, sizeof(*s));
	char(*names)[IF_NAMESIZE];
	struct xn_bridge one;
	int i, err = 0, nnames;

	*out = NULL;
	*n = 0;
	if (!s)
		return -XN_FAILED;
	if (br) {
		err = status_one(br, &s[0], 0);
		if (err == -XN_NOT_ATTACHED)
			err = unattached(br);
		*n = !err;
	} else if (!xn_pin_dirs(&names, &nnames)) {
		for (i = 0; i < nnames && *n < MAX_BRIDGES; i++) {
			if (xn_bridge_open(&one, names[i], 0))
				continue;
			err = status_one(&one, &s[*n], 1);
			if (!err)
				(*n)++;
			else if (err == -XN_NOT_ATTACHED && !quiet &&
				 xn_lat_ours(&one))
				lat_pins(&one, "not attached");
		}
		err = 0;
		free(names);
	}
	for (i = 0; i < *n; i++)
		qsort(s[i].ports, s[i].nports, sizeof(*s[i].ports), cmp_port);
	*out = s;
	return err;
}

void xn_status_free(struct xn_bridge_status *s, int n)
{
	int i;

	for (i = 0; s && i < n; i++)
		free(s[i].ports);
	free(s);
}
