// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Status as text or JSON: see status.h. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "datapath/names.h"
#include "state/sizes.h"
#include "lib/json_writer.h"
#include "render/status.h"

int xn_verbose_counters = 1;

/* How the XDP stage is hooked: in libxdp's dispatcher, by a link of
 * xdpnet's own, or not at all (""). */
static const char *xdp_via(const struct xdpnet_port *p)
{
	if (!(p->flags & XDPNET_PORT_XDP))
		return "";
	return p->flags & XDPNET_PORT_XDP_MULTI ? "dispatcher" : "link";
}

static void port_json(struct xn_jw *w, const struct xn_port_row *p)
{
	unsigned int i;

	xn_jw_obj(w);
	xn_jw_kstr(w, "name", p->name);
	xn_jw_kuint(w, "ifindex", p->port.ifindex);
	xn_jw_kstr(w, "kind",
		   p->port.flags & XDPNET_PORT_VETH ? "veth" : "tap");
	xn_jw_kbool(w, "xdp", p->port.flags & XDPNET_PORT_XDP);
	xn_jw_kstr(w, "xdp_via", xdp_via(&p->port));
	xn_jw_kstr(w, "tc_reason", xn_tc_reason_text(p->port.tc_reason));
	xn_jw_kbool(w, "xdp_target", p->port.flags & XDPNET_PORT_XDP_TARGET);
	xn_jw_kbool(w, "tc_egress", p->port.flags & XDPNET_PORT_TC_EGRESS);
	xn_jw_kstr(w, "hook", xn_hook_name(p->port.hook));
	xn_jw_kuint(w, "tc_prog_id", p->tc_prog_id);
	xn_jw_kuint(w, "xdp_prog_id", p->xdp_prog_id);
	xn_jw_kuint(w, "foreign_xdp_prog_id", p->port.foreign_prog_id);
	xn_jw_kbool(w, "bypassed", p->port.flags & XDPNET_PORT_FWD);
	xn_jw_kstr(w, "hold", xn_hold_name(p->port.hold));
	xn_jw_kobj(w, "counters");
	for (i = 0; i < XDPNET_C_MAX; i++) {
		xn_jw_kobj(w, xn_ctr_name(i));
		xn_jw_kuint(w, "packets", p->st.c[i].packets);
		xn_jw_kuint(w, "bytes", p->st.c[i].bytes);
		xn_jw_obj_end(w);
	}
	xn_jw_obj_end(w);
	xn_jw_obj_end(w);
}

enum ctr_group { PASS, DEFER, DROP };

/* Packets of one group of counters (XDPNET_CTR_IS_*). */
static __u64 sum_group(const struct xdpnet_stats *st, enum ctr_group g)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < XDPNET_C_MAX; i++)
		if (g == PASS	 ? XDPNET_CTR_IS_PASS(i)
		    : g == DEFER ? XDPNET_CTR_IS_DEFER(i)
				 : XDPNET_CTR_IS_DROP(i))
			n += st->c[i].packets;
	return n;
}

static void print_port_text(FILE *f, const struct xn_port_row *p)
{
	const struct xdpnet_stats *st = &p->st;
	const char *why = xn_tc_reason_text(p->port.tc_reason);
	char stage[96];
	unsigned int i;

	if (p->port.flags & XDPNET_PORT_XDP)
		snprintf(stage, sizeof(stage), "xdp (%s)+tc",
			 xdp_via(&p->port));
	else
		snprintf(stage, sizeof(stage), "tc (%s)", why);
	fprintf(f, "  %-15s ifindex %-5u %-4s %s, %s prog %u", p->name,
		p->port.ifindex,
		p->port.flags & XDPNET_PORT_VETH ? "veth" : "tap", stage,
		xn_hook_name(p->port.hook), p->tc_prog_id);
	if (p->xdp_prog_id)
		fprintf(f, ", xdp prog %u", p->xdp_prog_id);
	if (p->port.foreign_prog_id)
		fprintf(f, ", foreign xdp prog %u", p->port.foreign_prog_id);
	if (p->port.hold)
		fprintf(f, "\n    held on the bridge: %s",
			xn_hold_text(p->port.hold));
	if (p->port.flags & XDPNET_PORT_TC_EGRESS)
		fprintf(f, "\n    no XDP redirects into it: tc on its egress "
			   "(a qdisc, filters or tcx programs; TC redirects "
			   "pass through them)");
	fprintf(f,
		"\n    bypass: xdp %llu pkts, tc %llu pkts; into port %llu pkts;"
		" to bridge %llu pkts; xdp->tc %llu; drops %llu\n",
		(unsigned long long)st->c[XDPNET_C_XDP_REDIRECT].packets,
		(unsigned long long)st->c[XDPNET_C_TC_REDIRECT].packets,
		(unsigned long long)st->c[XDPNET_C_RX_REDIRECTED].packets,
		(unsigned long long)sum_group(st, PASS),
		(unsigned long long)sum_group(st, DEFER),
		(unsigned long long)sum_group(st, DROP));
	if (!xn_verbose_counters)
		return;
	for (i = 0; i < XDPNET_C_MAX; i++)
		if (st->c[i].packets)
			fprintf(f, "    %-18s %12llu pkts %14llu bytes\n",
				xn_ctr_name(i),
				(unsigned long long)st->c[i].packets,
				(unsigned long long)st->c[i].bytes);
}

static const char *const fdb_ev_names[XDPNET_FE_MAX] = {
	[XDPNET_FE_LEARN] = "learned",
	[XDPNET_FE_DELETE] = "deleted",
	[XDPNET_FE_FULL] = "full",
	[XDPNET_FE_USER] = "user",
};

static void bridge_json(struct xn_jw *w, const struct xn_bridge_status *s)
{
	int j;

	xn_jw_obj(w);
	xn_jw_kstr(w, "bridge", s->name);
	xn_jw_kuint(w, "ifindex", s->meta.bridge_ifindex);
	xn_jw_kstr(w, "mode", xn_mode_name(s->meta.mode));
	xn_jw_kstr(w, "datapath", s->meta.live ? "live" : "portable");
	xn_jw_kstr(w, "fdb_mirror", s->meta.fdb_trace ? "kernel" : "follower");
	xn_jw_kbool(w, "bypass", s->cfg.bypass);
	xn_jw_kstr(w, "bypass_hold", xn_bridge_hold_name(s->cfg.hold));
	xn_jw_kbool(w, "vlan_filtering", s->cfg.vlan_filtering);
	xn_jw_kstr(w, "vlan_protocol",
		   s->cfg.vlan_filtering == XDPNET_VF_8021AD ? "802.1ad"
		   : s->cfg.vlan_filtering		     ? "802.1Q"
							     : "");
	xn_jw_kuint(w, "refresh_ms",
		    s->cfg.hz ? (__u64)s->cfg.refresh_j * 1000 / s->cfg.hz : 0);
	xn_jw_kuint(w, "attached_at", s->meta.attached_at);
	xn_jw_kstr(w, "build", s->meta.build);
	xn_jw_kstr(w, "xdp_link_why", s->xdp_link_why ? s->xdp_link_why : "");
	xn_jw_kobj(w, "follower");
	xn_jw_kbool(w, "running", s->follower);
	xn_jw_kint(w, "pid", s->follower_pid);
	xn_jw_kbool(w, "wanted", !s->meta.no_follow);
	xn_jw_obj_end(w);
	xn_jw_kint(w, "fdb_entries", s->fdb_entries);
	xn_jw_kint(w, "fdb_static", s->fdb_static);
	for (j = 0; j < XN_SIZE_N; j++)
		xn_jw_kuint(w, xn_sizes[j].json, s->size[j]);
	xn_jw_kobj(w, "decision_cache");
	xn_jw_kuint(w, "entries_per_cpu", s->flows.per_cpu);
	xn_jw_kuint(w, "cpus", s->flows.cpus);
	xn_jw_kuint(w, "cached", s->flows.cached);
	xn_jw_kuint(w, "generation", s->flows.gen);
	xn_jw_obj_end(w);
	xn_jw_kobj(w, "fdb_events");
	for (j = 0; j < XDPNET_FE_MAX; j++)
		xn_jw_kuint(w, fdb_ev_names[j], s->fdb_ev[j]);
	xn_jw_obj_end(w);
	xn_jw_kbool(w, "tracing", !s->note_set);
	xn_jw_kbool(w, "bridge_gone", s->gone);
	xn_jw_karr(w, "ports");
	for (j = 0; j < s->nports; j++)
		port_json(w, &s->ports[j]);
	xn_jw_arr_end(w);
	xn_jw_obj_end(w);
}

static void print_bridge_text(FILE *f, const struct xn_bridge_status *s)
{
	int j;

	fprintf(f,
		"%s: mode %s, %s datapath, %d port%s, fdb %d/%u learned + "
		"%d/%u static/local (mirrored %s), vlan filtering %s, bridge "
		"fdb keep-alive every %llu ms\n",
		s->name, xn_mode_name(s->meta.mode),
		s->meta.live ? "live" : "portable", s->nports,
		s->nports == 1 ? "" : "s", s->fdb_entries, s->size[XN_SIZE_FDB],
		s->fdb_static, s->size[XN_SIZE_STATIC],
		s->meta.fdb_trace ? "in the kernel" : "by the follower",
		s->cfg.vlan_filtering == XDPNET_VF_8021AD ? "on (802.1ad)"
		: s->cfg.vlan_filtering			  ? "on"
							  : "off",
		(unsigned long long)(s->cfg.hz ? (__u64)s->cfg.refresh_j *
							 1000 / s->cfg.hz
					       : 0));
	if (s->follower)
		fprintf(f, "  follower: running (pid %d)\n", s->follower_pid);
	else if (s->meta.no_follow)
		fprintf(f, "  follower: none (--no-follow): bridge changes are "
			   "not followed\n");
	else
		fprintf(f,
			"  WARNING: no follower is running for %s: new ports, "
			"port and bridge settings%s are not followed; "
			"'xdpnet attach %s' starts one\n",
			s->name, s->meta.fdb_trace ? "" : " and the FDB",
			s->name);
	if (!s->cfg.bypass && s->cfg.hold == XDPNET_BHOLD_NONE)
		fputs("  bypass off: the bridge forwards everything\n", f);
	else if (!s->cfg.bypass)
		fprintf(f, "  bypass %s; the bridge forwards everything\n",
			xn_bridge_hold_text(s->cfg.hold));
	if (s->flows.per_cpu)
		fprintf(f,
			"  decision cache: %u of %u x %u CPU%s hold a decision "
			"(generation %u)\n",
			s->flows.cached, s->flows.per_cpu, s->flows.cpus,
			s->flows.cpus == 1 ? "" : "s", s->flows.gen);
	if (s->fdb_ev[XDPNET_FE_FULL])
		fprintf(f,
			"  fdb copy was full %llu times: those MACs take the "
			"bridge\n",
			(unsigned long long)s->fdb_ev[XDPNET_FE_FULL]);
	if (s->gone)
		fprintf(f,
			"  gone: the bridge was deleted; 'xdpnet detach %s' "
			"removes what is left\n",
			s->name);
	if (s->xdp_link_why && s->xdp_link_why[0])
		fprintf(f, "  xdp: direct links, not libxdp's dispatcher: %s\n",
			s->xdp_link_why);
	if (s->note_set)
		fputs("  note: redirect-error tracepoints are not attached; XDP "
		      "transmit drops are not counted\n",
		      f);
	for (j = 0; j < s->nports; j++)
		print_port_text(f, &s->ports[j]);
}

void xn_print_status(FILE *f, const struct xn_bridge_status *b, int n, int json)
{
	struct xn_jw w;
	int i;

	if (!json) {
		for (i = 0; i < n; i++)
			print_bridge_text(f, &b[i]);
		return;
	}
	xn_jw_init(&w, f);
	xn_jw_obj(&w);
	xn_jw_karr(&w, "bridges");
	for (i = 0; i < n; i++)
		bridge_json(&w, &b[i]);
	xn_jw_arr_end(&w);
	xn_jw_obj_end(&w);
	xn_jw_end(&w);
}
