/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Status of attached bridges as text or JSON ('xdpnet status'). Pure. */
#ifndef XN_OUT_STATUS_H
#define XN_OUT_STATUS_H

#include <stdio.h>
#include "observe/status.h"

/* Text status lists every non-zero counter when set (default). */
extern int xn_verbose_counters;

void xn_print_status(FILE *f, const struct xn_bridge_status *b, int n,
		     int json);

#endif
