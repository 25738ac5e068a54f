/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The datapath's FDB copy as text or JSON ('xdpnet fdb'). Pure. */
#ifndef XN_OUT_FDB_H
#define XN_OUT_FDB_H

#include <stdio.h>
#include <linux/types.h>
#include "observe/fdb.h"

/* now_j: the datapath's jiffies now, hz: per second (ages of the bridge's
 * last sight of each MAC). Rows are printed in the given order. */
void xn_print_fdb(FILE *f, const char *bridge, const struct xn_fdb_row *rows,
		  int n, __u32 now_j, __u32 hz, int json);

#endif
