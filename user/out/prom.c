// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet stats in the Prometheus text format: see stats.h. */
#include <stdio.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "core/names.h"
#include "core/histogram.h"
#include "core/stats_view.h"
#include "out/stats.h"

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

void xn_stats_print_prom(FILE *f, const struct xn_stats_sample *s, int n)
{
	unsigned int i, c, b;
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

		prom_head(
			f, name, "counter",
			bytes ? "Bytes that arrived on the port, by the path "
				"they took."
			      : "Frames that arrived on the port, by the path "
				"they took.");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				__u64 pk[XN_PATH_MAX], by[XN_PATH_MAX];

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

		prom_head(f, name, "counter",
			  "xdpnet's per-port counters by verdict (see "
			  "xdpnet(8)).");
		for (k = 0; k < n; k++)
			for (j = 0; j < s[k].nports; j++) {
				const struct xn_stats_port *p = &s[k].ports[j];

				if (!p->attached)
					continue;
				for (c = 0; c < XDPNET_C_MAX; c++) {
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
	prom_head(f, "xdpnet_forward_latency_seconds", "histogram",
		  "Time from a frame's arrival on in_port to its hand-off to "
		  "out_port, by path (xdpnet latency BRIDGE on).");
	for (k = 0; k < n; k++)
		for (j = 0; j < s[k].nlat; j++) {
			const struct xn_lat_row *r = &s[k].lat[j];
			__u64 cum = 0;

			for (b = 0; b < XDPNET_LAT_BUCKETS; b++) {
				cum += r->h.bucket[b];
				fputs("xdpnet_forward_latency_seconds_bucket{"
				      "bridge=",
				      f);
				prom_str(f, s[k].bridge);
				fputs(",in_port=", f);
				prom_str(f, r->in);
				fputs(",out_port=", f);
				prom_str(f, r->out);
				fprintf(f, ",path=\"%s\",le=",
					xn_lat_path_name(r->key.path));
				if (b + 1 >= XDPNET_LAT_BUCKETS)
					fputs("\"+Inf\"", f);
				else
					fprintf(f, "\"%.9g\"",
						xn_lat_bucket_hi(b) / 1e9);
				fprintf(f, "} %llu\n", (unsigned long long)cum);
			}
			fputs("xdpnet_forward_latency_seconds_sum{bridge=", f);
			prom_str(f, s[k].bridge);
			fputs(",in_port=", f);
			prom_str(f, r->in);
			fputs(",out_port=", f);
			prom_str(f, r->out);
			fprintf(f, ",path=\"%s\"} %.9f\n",
				xn_lat_path_name(r->key.path),
				r->h.sum_ns / 1e9);
			fputs("xdpnet_forward_latency_seconds_count{bridge=",
			      f);
			prom_str(f, s[k].bridge);
			fputs(",in_port=", f);
			prom_str(f, r->in);
			fputs(",out_port=", f);
			prom_str(f, r->out);
			fprintf(f, ",path=\"%s\"} %llu\n",
				xn_lat_path_name(r->key.path),
				(unsigned long long)cum);
		}
}
