// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats in the Prometheus text format: see stats.h. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "datapath/names.h"
#include "observe/histogram.h"
#include "observe/stats_view.h"
#include "render/stats.h"

static void prom_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void prom_head(FILE *f, const char *name, const char *type,
		      const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_port(FILE *f, const char *name, const char *bridge,
		      const char *port)
{
	fprintf(f, "%s{bridge=", name);
	prom_str(f, bridge);
	fputs(",port=", f);
	prom_str(f, port);
}

enum { DEV_RXP, DEV_RXB, DEV_TXP, DEV_TXB, DEV_RXD, DEV_TXD };

static const struct {
	const char *name, *help;
} dev_families[] = {
	[DEV_RXP] = { "xdpnet_rx_packets_total",
		      "Frames the port's device received (from the VM)." },
	[DEV_RXB] = { "xdpnet_rx_bytes_total",
		      "Bytes the port's device received (from the VM)." },
	[DEV_TXP] = { "xdpnet_tx_packets_total",
		      "Frames the port's device sent (to the VM)." },
	[DEV_TXB] = { "xdpnet_tx_bytes_total",
		      "Bytes the port's device sent (to the VM)." },
	[DEV_RXD] = { "xdpnet_rx_dropped_total",
		      "Frames the port's device dropped on receive." },
	[DEV_TXD] = { "xdpnet_tx_dropped_total",
		      "Frames the port's device dropped on transmit." },
};

static __u64 dev_val(const struct xn_link_stats *d, unsigned int i)
{
	switch (i) {
	case DEV_RXP:
		return d->rx_packets;
	case DEV_RXB:
		return d->rx_bytes;
	case DEV_TXP:
		return d->tx_packets;
	case DEV_TXB:
		return d->tx_bytes;
	case DEV_RXD:
		return d->rx_dropped;
	default:
		return d->tx_dropped;
	}
}

/* One gauge or counter of each attached bridge. */
struct bridge_family {
	const char *name, *type, *help;
	__u64 (*val)(const struct xn_stats_sample *s);
};

static __u64 v_follower(const struct xn_stats_sample *s)
{
	return s->follower;
}

static __u64 v_wanted(const struct xn_stats_sample *s)
{
	return s->follower_wanted;
}

static __u64 v_bypass(const struct xn_stats_sample *s)
{
	return s->bypass;
}

static __u64 v_fdb(const struct xn_stats_sample *s)
{
	return s->fdb_entries;
}

static __u64 v_fdb_max(const struct xn_stats_sample *s)
{
	return s->fdb_max;
}

static __u64 v_fdb_full(const struct xn_stats_sample *s)
{
	return s->fdb_full;
}

static const struct bridge_family bridge_families[] = {
	{ "xdpnet_follower_running", "gauge",
	  "1 if a follower keeps the datapath in step with the bridge.",
	  v_follower },
	{ "xdpnet_follower_wanted", "gauge",
	  "1 if the bridge was attached to be followed (not --no-follow).",
	  v_wanted },
	{ "xdpnet_bypass_on", "gauge",
	  "1 if the bypass is on; 0 when it is off or held (see "
	  "xdpnet_bypass_held_info).",
	  v_bypass },
	{ "xdpnet_fdb_entries", "gauge",
	  "Learned entries in the datapath's copy of the bridge's FDB.",
	  v_fdb },
	{ "xdpnet_fdb_capacity", "gauge",
	  "Learned entries the FDB copy can hold.", v_fdb_max },
	{ "xdpnet_fdb_full_total", "counter",
	  "MACs the FDB copy had no room for (their frames take the bridge).",
	  v_fdb_full },
};

static void prom_health(FILE *f, const struct xn_stats_sample *s, int n)
{
	unsigned int i;
	int k;

	for (i = 0; i < ARRAY_SIZE(bridge_families); i++) {
		const struct bridge_family *b = &bridge_families[i];

		prom_head(f, b->name, b->type, b->help);
		for (k = 0; k < n; k++) {
			if (!s[k].attached)
				continue;
			fprintf(f, "%s{bridge=", b->name);
			prom_str(f, s[k].bridge);
			fprintf(f, "} %llu\n",
				(unsigned long long)b->val(&s[k]));
		}
	}
	prom_head(f, "xdpnet_bypass_held_info", "gauge",
		  "1 while the bypass is held, with why (reason).");
	for (k = 0; k < n; k++) {
		if (!s[k].attached || s[k].bypass ||
		    s[k].hold == XDPNET_BHOLD_NONE)
			continue;
		fputs("xdpnet_bypass_held_info{bridge=", f);
		prom_str(f, s[k].bridge);
		fputs(",reason=", f);
		prom_str(f, xn_bridge_hold_name(s[k].hold));
		fputs("} 1\n", f);
	}
}

/* Seconds, exactly, for ns (an "le" value: 256 ns is "0.000000256"). */
static void prom_secs(FILE *f, __u64 ns)
{
	char frac[16];
	int e;

	snprintf(frac, sizeof(frac), "%09llu",
		 (unsigned long long)(ns % 1000000000ULL));
	for (e = 8; e > 0 && frac[e] == '0'; e--)
		frac[e] = 0;
	fprintf(f, "\"%llu.%s\"", (unsigned long long)(ns / 1000000000ULL),
		frac);
}

/* One histogram's series; out NULL: per in port (label "port"). */
static void prom_hist(FILE *f, const char *bridge, const char *in,
		      const char *out, __u32 path,
		      const struct xdpnet_lat_hist *h)
{
	static const char *const sfx[] = { "_bucket", "_sum", "_count" };
	__u64 cum = 0;
	unsigned int b, i, k;

	for (i = 0; i < ARRAY_SIZE(sfx); i++)
		for (k = i ? XN_PROM_LAT_BUCKETS - 1 : 0;
		     k < XN_PROM_LAT_BUCKETS; k++) {
			fprintf(f, "xdpnet_forward_latency_seconds%s{bridge=",
				sfx[i]);
			prom_str(f, bridge);
			fputs(out ? ",in_port=" : ",port=", f);
			prom_str(f, in);
			if (out) {
				fputs(",out_port=", f);
				prom_str(f, out);
			}
			fprintf(f, ",path=\"%s\"", xn_lat_path_name(path));
			if (i == 1) {
				fprintf(f, "} %.9f\n", h->sum_ns / 1e9);
				continue;
			}
			/* histogram buckets [2^b, 2^(b+1)) ns below le */
			for (cum = 0, b = 0; b < XDPNET_LAT_BUCKETS; b++)
				if (k + 1 >= XN_PROM_LAT_BUCKETS ||
				    xn_lat_bucket_hi(b) <= xn_prom_lat_le(k))
					cum += h->bucket[b];
			if (i == 0) {
				fputs(",le=", f);
				if (k + 1 >= XN_PROM_LAT_BUCKETS)
					fputs("\"+Inf\"", f);
				else
					prom_secs(f, xn_prom_lat_le(k));
			}
			fprintf(f, "} %llu\n", (unsigned long long)cum);
		}
}

/* The latency histograms, per (in port, path), or per (in port, out port,
 * path) with pairs. */
static void prom_latency(FILE *f, const struct xn_stats_sample *s, int n,
			 int pairs)
{
	int k, j, m;

	prom_head(f, "xdpnet_forward_latency_seconds", "histogram",
		  pairs ? "Time from a frame's arrival on in_port to its "
			  "hand-off to out_port, by path (xdpnet latency "
			  "BRIDGE on)."
			: "Time from a frame's arrival on the port to its "
			  "hand-off to another, by path (xdpnet latency "
			  "BRIDGE on).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nlat; j++) {
			const struct xn_lat_row *r = &s[k].lat[j];
			struct xdpnet_lat_hist h = r->h;
			unsigned int b;
			int seen = 0;

			if (pairs) {
				prom_hist(f, s[k].bridge, r->in, r->out,
					  r->key.path, &r->h);
				continue;
			}
			/* the first row of its (in, path): sums the rest */
			for (m = 0; m < j && !seen; m++)
				seen = s[k].lat[m].key.path == r->key.path &&
				       !strcmp(s[k].lat[m].in, r->in);
			if (seen)
				continue;
			for (m = j + 1; m < s[k].nlat; m++) {
				const struct xn_lat_row *q = &s[k].lat[m];

				if (q->key.path != r->key.path ||
				    strcmp(q->in, r->in))
					continue;
				h.count += q->h.count;
				h.sum_ns += q->h.sum_ns;
				for (b = 0; b < XDPNET_LAT_BUCKETS; b++)
					h.bucket[b] += q->h.bucket[b];
			}
			prom_hist(f, s[k].bridge, r->in, NULL, r->key.path, &h);
		}
}

void xn_stats_print_prom(FILE *f, const struct xn_stats_sample *s, int n,
			 unsigned int flags)
{
	unsigned int i, c;
	int k, j, bytes;

	prom_head(f, "xdpnet_attached", "gauge",
		  "1 if xdpnet's datapath is attached to the bridge.");
	for (k = 0; k < n; k++) {
		fputs("xdpnet_attached{bridge=", f);
		prom_str(f, s[k].bridge);
		fprintf(f, "} %d\n", s[k].attached);
	}
	prom_head(f, "xdpnet_latency_probe", "gauge",
		  "1 if the forwarding-latency probe is on.");
	for (k = 0; k < n; k++) {
		fputs("xdpnet_latency_probe{bridge=", f);
		prom_str(f, s[k].bridge);
		fprintf(f, "} %d\n", s[k].latency_on);
	}
	prom_health(f, s, n);
	prom_head(f, "xdpnet_port_info", "gauge",
		  "Ports of the bridge; stage is xdp, tc or bridge (not "
		  "attached).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nports; j++) {
			const struct xn_stats_port *p = &s[k].ports[j];

			prom_port(f, "xdpnet_port_info", s[k].bridge, p->name);
			fprintf(f,
				",ifindex=\"%u\",kind=\"%s\",stage=\"%s\"} 1\n",
				p->ifindex, xn_port_kind(p), xn_port_stage(p));
		}
	for (i = 0; i < ARRAY_SIZE(dev_families); i++) {
		prom_head(f, dev_families[i].name, "counter",
			  dev_families[i].help);
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				prom_port(f, dev_families[i].name, s[k].bridge,
					  s[k].ports[j].name);
				fprintf(f, "} %llu\n",
					(unsigned long long)dev_val(
						&s[k].ports[j].dev, i));
			}
	}
	for (bytes = 0; bytes < 2; bytes++) {
		const char *name = bytes ? "xdpnet_bytes_total"
					 : "xdpnet_packets_total";

		prom_head(f, name, "counter",
			  bytes ? "Bytes xdpnet's datapath saw arrive on the "
				  "port, by the path it gave them (bridge: "
				  "handed to the bridge)."
				: "Frames xdpnet's datapath saw arrive on the "
				  "port, by the path it gave them (bridge: "
				  "handed to the bridge).");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				__u64 pk[XN_PATH_MAX], by[XN_PATH_MAX];

				/* xdpnet's own counters only: a port the
				 * datapath does not carry has no series (its
				 * device's are xdpnet_rx_*). */
				if (!s[k].ports[j].attached)
					continue;
				xn_port_paths(&s[k].ports[j], pk, by);
				for (i = 0; i < XN_PATH_MAX; i++) {
					prom_port(f, name, s[k].bridge,
						  s[k].ports[j].name);
					fprintf(f, ",path=\"%s\"} %llu\n",
						xn_path_name(i),
						(unsigned long long)(bytes ? by[i]
									   : pk[i]));
				}
			}
	}
	for (bytes = 0; bytes < 2; bytes++) {
		const char *name = bytes ? "xdpnet_bypass_in_bytes_total"
					 : "xdpnet_bypass_in_packets_total";

		prom_head(
			f, name, "counter",
			"Bypassed frames the datapath delivered to the port.");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				const struct xdpnet_ctr_val *v =
					&s[k].ports[j]
						 .ctr.c[XDPNET_C_RX_REDIRECTED];

				prom_port(f, name, s[k].bridge,
					  s[k].ports[j].name);
				fprintf(f, "} %llu\n",
					(unsigned long long)(bytes ? v->bytes
								   : v->packets));
			}
	}
	for (bytes = 0; bytes < 2; bytes++) {
		const char *name = bytes ? "xdpnet_verdict_bytes_total"
					 : "xdpnet_verdict_packets_total";

		prom_head(
			f, name, "counter",
			"Frames that arrived on the port, by xdpnet's verdict "
			"on them (see xdpnet(8)).");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				const struct xn_stats_port *p = &s[k].ports[j];

				if (!p->attached)
					continue;
				for (c = 0; c < XDPNET_C_MAX; c++) {
					/* a delivery into the port, not a
					 * verdict on a frame from it:
					 * xdpnet_bypass_in_* */
					if (c == XDPNET_C_RX_REDIRECTED)
						continue;
					prom_port(f, name, s[k].bridge,
						  p->name);
					fprintf(f, ",verdict=\"%s\"} %llu\n",
						xn_ctr_name(c),
						(unsigned long long)(bytes ? p->ctr.c[c]
										     .bytes
									   : p->ctr.c[c]
										     .packets));
				}
			}
	}
	prom_head(f, "xdpnet_fast_path_eligible_packets_total", "counter",
		  "Unicast between two attached ports that the bypass could "
		  "carry (the share's denominator; the bypassed are "
		  "xdpnet_packets_total{path=~\"xdp|tc\"}).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nports; j++) {
			const struct xn_stats_port *p = &s[k].ports[j];
			__u64 bp, el;

			if (!p->attached)
				continue;
			xn_port_share(p, &bp, &el);
			prom_port(f, "xdpnet_fast_path_eligible_packets_total",
				  s[k].bridge, p->name);
			fprintf(f, "} %llu\n", (unsigned long long)el);
		}
	prom_head(f, "xdpnet_fast_path_share", "gauge",
		  "Bypassed share of the unicast between attached ports since "
		  "the counters were reset (0 to 1).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nports; j++) {
			const struct xn_stats_port *p = &s[k].ports[j];
			__u64 bp, el;

			xn_port_share(p, &bp, &el);
			if (!p->attached || !el)
				continue;
			prom_port(f, "xdpnet_fast_path_share", s[k].bridge,
				  p->name);
			fprintf(f, "} %.6f\n", (double)bp / el);
		}
	prom_latency(f, s, n, flags & XN_PROM_LAT_PAIRS);
}
