/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* xdpnet stats rendered: a table, JSON (schema "xdpnet-stats/1",
 * docs/xdpnet.8) and the Prometheus text format. They take a sample and
 * its view (observe/stats_view.h) and only write to f. */
#ifndef XN_OUT_STATS_H
#define XN_OUT_STATS_H

#include <stdio.h>
#include "observe/stats_view.h"

/* Rendering. seq numbers JSON objects of one run (1, 2, ...). */
void xn_stats_print_table(FILE *f, const struct xn_stats_sample *s,
			  const struct xn_stats_view *v, int latency,
			  int verbose);
void xn_stats_print_latency(FILE *f, const struct xn_stats_sample *s);
void xn_stats_print_json(FILE *f, const struct xn_stats_sample *s,
			 const struct xn_stats_view *v, unsigned long seq);
/* n bridges in one exposition (each family once). flags: XN_PROM_*. */
#define XN_PROM_LAT_PAIRS 1 /* latency per port pair, not per port */
void xn_stats_print_prom(FILE *f, const struct xn_stats_sample *s, int n,
			 unsigned int flags);

#endif
