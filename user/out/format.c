// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include "out/format.h"

static const char *const ctr_names[XDPNET_C_MAX] = {
	[XDPNET_C_XDP_REDIRECT] = "xdp_redirect",
	[XDPNET_C_TC_REDIRECT] = "tc_redirect",
	[XDPNET_C_RX_REDIRECTED] = "rx_redirected",
	[XDPNET_C_PASS_MCAST] = "pass_mcast",
	[XDPNET_C_PASS_UNKNOWN] = "pass_unknown",
	[XDPNET_C_PASS_LOCAL] = "pass_local",
	[XDPNET_C_PASS_HAIRPIN] = "pass_hairpin",
	[XDPNET_C_PASS_NOT_ATTACHED] = "pass_not_attached",
	[XDPNET_C_PASS_VLAN] = "pass_vlan",
	[XDPNET_C_PASS_ISOLATED] = "pass_isolated",
	[XDPNET_C_PASS_REFRESH] = "pass_refresh",
	[XDPNET_C_PASS_SRC] = "pass_src",
	[XDPNET_C_PASS_STATE] = "pass_state",
	[XDPNET_C_PASS_MTU] = "pass_mtu",
	[XDPNET_C_PASS_HUB] = "pass_hub",
	[XDPNET_C_PASS_MALFORMED] = "pass_malformed",
	[XDPNET_C_XDP_DEFER_CSUM] = "xdp_defer_csum",
	[XDPNET_C_XDP_DEFER_SIZE] = "xdp_defer_size",
	[XDPNET_C_XDP_DEFER_TARGET] = "xdp_defer_target",
	[XDPNET_C_XDP_DEFER_PROTO] = "xdp_defer_proto",
	[XDPNET_C_XDP_DEFER_REFRESH] = "xdp_defer_refresh",
	[XDPNET_C_DROP_REDIRECT_ERR] = "drop_redirect_err",
	[XDPNET_C_DROP_XMIT_ERR] = "drop_xmit_err",
};

const char *xn_ctr_name(unsigned int ctr)
{
	return ctr < XDPNET_C_MAX ? ctr_names[ctr] : NULL;
}

int xn_ctr_from_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < XDPNET_C_MAX; i++)
		if (ctr_names[i] && !strcmp(ctr_names[i], name))
			return i;
	return -1;
}

void xn_format_mac(const __u8 *m, char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly "xx:xx:xx:xx:xx:xx", hex digits only. */
int xn_parse_mac(const char *s, __u8 mac[6])
{
	__u8 out[6];
	int i;

	if (strlen(s) != 17)
		return -1;
	for (i = 0; i < 6; i++) {
		int hi = hexval(s[i * 3]), lo = hexval(s[i * 3 + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[i * 3 + 2] != ':'))
			return -1;
		out[i] = hi << 4 | lo;
	}
	memcpy(mac, out, 6);
	return 0;
}

void xn_sum_stats(const struct xdpnet_stats *percpu, int ncpu,
		  struct xdpnet_stats *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpu; cpu++)
		for (i = 0; i < XDPNET_C_MAX; i++) {
			out->c[i].packets += percpu[cpu].c[i].packets;
			out->c[i].bytes += percpu[cpu].c[i].bytes;
		}
}

const char *xn_mode_name(__u32 mode)
{
	switch (mode) {
	case XDPNET_MODE_TC:
		return "tc";
	case XDPNET_MODE_XDP:
		return "xdp";
	default:
		return "?";
	}
}

const char *xn_tc_reason_text(__u8 reason)
{
	switch (reason) {
	case XDPNET_TCR_NONE:
		return "";
	case XDPNET_TCR_MODE:
		return "mode tc";
	case XDPNET_TCR_FOREIGN_XDP:
		return "another XDP program is attached";
	case XDPNET_TCR_XDP_FAILED:
		return "native XDP refused by the driver";
	case XDPNET_TCR_VETH:
		return "veth: native XDP would strip its peer's GSO";
	default:
		return "?";
	}
}

const char *xn_hook_name(__u8 hook)
{
	switch (hook) {
	case XDPNET_HOOK_TCX:
		return "tcx";
	case XDPNET_HOOK_CLSACT:
		return "clsact";
	default:
		return "?";
	}
}

static const char *const holds[][2] = {
	[XDPNET_HOLD_NONE] = { "", "" },
	[XDPNET_HOLD_STATE] = { "state", "STP state not forwarding" },
	[XDPNET_HOLD_DOWN] = { "down", "down or without carrier" },
	[XDPNET_HOLD_LOCKED] = { "locked", "a locked port" },
	[XDPNET_HOLD_FILTER] = { "filter", "under a per-port filter" },
	[XDPNET_HOLD_BRIDGE] = { "bridge", "the bridge bypasses nothing" },
};

const char *xn_hold_text(__u32 hold)
{
	return hold < sizeof(holds) / sizeof(holds[0]) ? holds[hold][1] : "?";
}

const char *xn_hold_name(__u32 hold)
{
	return hold < sizeof(holds) / sizeof(holds[0]) ? holds[hold][0] : "?";
}

static const char *const bholds[][2] = {
	[XDPNET_BHOLD_NONE] = { "", "off" }, /* bypass 0 without a hold:
						detaching */
	[XDPNET_BHOLD_HUB] = { "hub", "off: hub mode (ageing_time 0)" },
	[XDPNET_BHOLD_MST] = { "mst", "off: per-VLAN port states (MST)" },
	[XDPNET_BHOLD_FILTERS] = { "filters",
				   "off: host filters apply between ports "
				   "('xdpnet attach' lists them; "
				   "--bypass-filters to bypass them)" },
	[XDPNET_BHOLD_UNKNOWN] = { "unknown",
				   "off: the host's filters could not be read "
				   "('xdpnet attach' says why)" },
};

const char *xn_bridge_hold_text(__u32 hold)
{
	return hold < sizeof(bholds) / sizeof(bholds[0]) ? bholds[hold][1]
							 : "off";
}

const char *xn_bridge_hold_name(__u32 hold)
{
	return hold < sizeof(bholds) / sizeof(bholds[0]) ? bholds[hold][0]
							 : "?";
}

void xn_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const struct {
	__u32 flag;
	const char *name;
} fdb_flags[] = {
	{ XDPNET_FDB_LOCAL, "local" },
	{ XDPNET_FDB_STATIC, "static" },
	{ XDPNET_FDB_LOCKED, "locked" },
	{ XDPNET_FDB_SEEDED, "seeded" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int xn_verbose_counters = 1;

static __u64 age_ms(__u32 now_j, __u32 seen_j, __u32 hz)
{
	__s32 d = (__s32)(now_j - seen_j);

	return seen_j && hz && d > 0 ? (__u64)d * 1000 / hz : 0;
}

void xn_print_fdb(FILE *f, const char *bridge, const struct xn_fdb_row *rows,
		  int n, __u32 now_j, __u32 hz, int json)
{
	char mac[18];
	unsigned int j;
	int i;

	if (json) {
		fputs("{\"bridge\":", f);
		xn_json_str(f, bridge);
		fputs(",\"entries\":[", f);
	} else {
		fprintf(f, "%-17s %4s %-15s %7s %10s %s\n", "mac", "vlan",
			"port", "ifindex", "age_ms", "flags");
	}
	for (i = 0; i < n; i++) {
		const struct xn_fdb_row *r = &rows[i];
		int first = 1;

		xn_format_mac(r->key.mac, mac);
		if (!json) {
			fprintf(f, "%-17s %4u %-15s %7u %10llu ", mac,
				r->key.vid, r->port[0] ? r->port : "-",
				r->val.ifindex,
				(unsigned long long)age_ms(
					now_j, r->val.bridge_j, hz));
			for (j = 0; j < ARRAY_SIZE(fdb_flags); j++)
				if (r->val.flags & fdb_flags[j].flag) {
					fprintf(f, "%s%s", first ? "" : ",",
						fdb_flags[j].name);
					first = 0;
				}
			fputc('\n', f);
			continue;
		}
		fprintf(f,
			"%s{\"mac\":\"%s\",\"vlan\":%u,\"port\":", i ? "," : "",
			mac, r->key.vid);
		xn_json_str(f, r->port);
		fprintf(f, ",\"ifindex\":%u,\"flags\":[", r->val.ifindex);
		for (j = 0; j < ARRAY_SIZE(fdb_flags); j++)
			if (r->val.flags & fdb_flags[j].flag) {
				fprintf(f, "%s\"%s\"", first ? "" : ",",
					fdb_flags[j].name);
				first = 0;
			}
		fprintf(f, "],\"age_ms\":%llu}",
			(unsigned long long)age_ms(now_j, r->val.bridge_j, hz));
	}
	if (json)
		fputs("]}\n", f);
}

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
