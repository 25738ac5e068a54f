/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* xdpnet trace's output: the checks each stage made and the verdict, as
 * text or JSON. */
#ifndef XN_OUT_TRACE_H
#define XN_OUT_TRACE_H

#include <stdio.h>
#include "observe/trace.h"

void xn_trace_print(FILE *f, const char *bridge, const char *in,
		    const struct xn_trace *t, int json);

#endif
