// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Status as text or JSON: see status.h. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "core/names.h"
#include "lib/json_writer.h"
#include "out/status.h"

int xn_verbose_counters = 1;

static void print_port_json(FILE *f, const struct xn_port_row *p)
{
	unsigned int i;

	fputs("{\"name\":", f);
	xn_json_str(f, p->name);
	fprintf(f, ",\"ifindex\":%u,\"kind\":\"%s\",\"xdp\":%s,\"tc_reason\":",
		p->port.ifindex,
		p->port.flags & XDPNET_PORT_VETH ? "veth" : "tap",
		p->port.flags & XDPNET_PORT_XDP ? "true" : "false");
	xn_json_str(f, xn_tc_reason_text(p->port.tc_reason));
	fprintf(f,
		",\"xdp_target\":%s,\"hook\":\"%s\",\"tc_prog_id\":%u,"
		"\"xdp_prog_id\":%u,\"foreign_xdp_prog_id\":%u,"
		"\"bypassed\":%s,\"hold\":\"%s\",\"counters\":{",
		p->port.flags & XDPNET_PORT_XDP_TARGET ? "true" : "false",
		xn_hook_name(p->port.hook), p->tc_prog_id, p->xdp_prog_id,
		p->port.foreign_prog_id,
		p->port.flags & XDPNET_PORT_FWD ? "true" : "false",
		xn_hold_name(p->port.hold));
	for (i = 0; i < XDPNET_C_MAX; i++)
		fprintf(f, "%s\"%s\":{\"packets\":%llu,\"bytes\":%llu}",
			i ? "," : "", xn_ctr_name(i),
			(unsigned long long)p->st.c[i].packets,
			(unsigned long long)p->st.c[i].bytes);
	fputs("}}", f);
}

static __u64 sum_range(const struct xdpnet_stats *st, int from, int to)
{
	__u64 n = 0;
	int i;

	for (i = from; i <= to; i++)
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
		snprintf(stage, sizeof(stage), "xdp+tc");
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
	fprintf(f,
		"\n    bypass: xdp %llu pkts, tc %llu pkts; into port %llu pkts;"
		" to bridge %llu pkts; xdp->tc %llu; drops %llu\n",
		(unsigned long long)st->c[XDPNET_C_XDP_REDIRECT].packets,
		(unsigned long long)st->c[XDPNET_C_TC_REDIRECT].packets,
		(unsigned long long)st->c[XDPNET_C_RX_REDIRECTED].packets,
		(unsigned long long)sum_range(st, XDPNET_C_PASS_MCAST,
					      XDPNET_C_PASS_MALFORMED),
		(unsigned long long)sum_range(st, XDPNET_C_XDP_DEFER_CSUM,
					      XDPNET_C_XDP_DEFER_REFRESH),
		(unsigned long long)sum_range(st, XDPNET_C_DROP_REDIRECT_ERR,
					      XDPNET_C_DROP_XMIT_ERR));
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

static void print_bridge_json(FILE *f, const struct xn_bridge_status *s)
{
	int j;

	fputs("{\"bridge\":", f);
	xn_json_str(f, s->name);
	fprintf(f,
		",\"ifindex\":%u,\"mode\":\"%s\",\"datapath\":\"%s\","
		"\"fdb_mirror\":\"%s\",\"bypass\":%s,\"bypass_hold\":\"%s\","
		"\"vlan_filtering\":%s,\"refresh_ms\":%llu,"
		"\"attached_at\":%llu,\"build\":",
		s->meta.bridge_ifindex, xn_mode_name(s->meta.mode),
		s->meta.live ? "live" : "portable",
		s->meta.fdb_trace ? "kernel" : "follower",
		s->cfg.bypass ? "true" : "false",
		xn_bridge_hold_name(s->cfg.hold),
		s->cfg.vlan_filtering ? "true" : "false",
		(unsigned long long)(s->cfg.hz ? (__u64)s->cfg.refresh_j *
							 1000 / s->cfg.hz
					       : 0),
		(unsigned long long)s->meta.attached_at);
	xn_json_str(f, s->meta.build);
	fprintf(f,
		",\"follower\":{\"running\":%s,\"pid\":%d,\"wanted\":%s},"
		"\"fdb_entries\":%d,\"fdb_static\":%d,\"fdb_events\":{",
		s->follower ? "true" : "false", s->follower_pid,
		s->meta.no_follow ? "false" : "true", s->fdb_entries,
		s->fdb_static);
	for (j = 0; j < XDPNET_FE_MAX; j++)
		fprintf(f, "%s\"%s\":%llu", j ? "," : "", fdb_ev_names[j],
			(unsigned long long)s->fdb_ev[j]);
	fprintf(f, "},\"tracing\":%s,\"bridge_gone\":%s,\"ports\":[",
		s->note_set ? "false" : "true", s->gone ? "true" : "false");
	for (j = 0; j < s->nports; j++) {
		if (j)
			fputc(',', f);
		print_port_json(f, &s->ports[j]);
	}
	fputs("]}", f);
}

static void print_bridge_text(FILE *f, const struct xn_bridge_status *s)
{
	int j;

	fprintf(f,
		"%s: mode %s, %s datapath, %d port%s, fdb %d learned + %d "
		"static/local (mirrored %s), vlan filtering %s, bridge fdb "
		"keep-alive every %llu ms\n",
		s->name, xn_mode_name(s->meta.mode),
		s->meta.live ? "live" : "portable", s->nports,
		s->nports == 1 ? "" : "s", s->fdb_entries, s->fdb_static,
		s->meta.fdb_trace ? "in the kernel" : "by the follower",
		s->cfg.vlan_filtering ? "on" : "off",
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
	if (s->note_set)
		fputs("  note: redirect-error tracepoints are not attached; XDP "
		      "transmit drops are not counted\n",
		      f);
	for (j = 0; j < s->nports; j++)
		print_port_text(f, &s->ports[j]);
}

void xn_print_status(FILE *f, const struct xn_bridge_status *b, int n, int json)
{
	int i;

	if (json)
		fputs("{\"bridges\":[", f);
	for (i = 0; i < n; i++) {
		if (json) {
			if (i)
				fputc(',', f);
			print_bridge_json(f, &b[i]);
		} else {
			print_bridge_text(f, &b[i]);
		}
	}
	if (json)
		fputs("]}\n", f);
}
