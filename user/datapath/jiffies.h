/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The datapath's clock (jiffies), read by running its prog_jiffies. */
#ifndef XN_JIFFIES_H
#define XN_JIFFIES_H

#include "state/pins.h"

/* The datapath's clock now (jiffies, low 32 bits): 0 or -errno. */
int xn_jiffies(const struct xn_state *s, __u32 *j);
/* Jiffies per second, measured against CLOCK_MONOTONIC (about 100 ms the
 * first time; cached in xdpnet_cfg.hz by reconcile). 0 if unknown. */
__u32 xn_measure_hz(const struct xn_state *s);

#endif
