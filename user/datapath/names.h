/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Stable names and human text of include/xdpnet.h's enums, used in the
 * text, JSON and Prometheus output and in messages. Pure functions. */
#ifndef XN_NAMES_H
#define XN_NAMES_H

#include <linux/types.h>
#include "xdpnet.h"

/* Stable names of enum xdpnet_ctr ("xdp_redirect", ...); NULL if out of
 * range. */
const char *xn_ctr_name(unsigned int ctr);
/* -1 if unknown. */
int xn_ctr_from_name(const char *name);

const char *xn_mode_name(__u32 mode);	    /* "tc", "xdp", "?" */
const char *xn_tc_reason_text(__u8 reason); /* human text */
const char *xn_hook_name(__u8 hook);	    /* "tcx", "clsact", "?" */
const char *xn_hold_text(__u32 hold);	    /* why not bypassed, "" */
const char *xn_hold_name(__u32 hold);	    /* "state", "down", ..., "" */
/* Why a bridge bypasses nothing: "off: hub mode (ageing_time 0)", ... */
const char *xn_bridge_hold_text(__u32 hold);
const char *xn_bridge_hold_name(__u32 hold);	 /* "hub", "mst", ... "" */
const char *xn_lat_path_name(unsigned int path); /* "bridge", "tc", "xdp" */
/* enum xdpnet_check: "src_known", ...; what holds when it passes; what
 * held when it failed; NULL if out of range. */
const char *xn_check_name(unsigned int ck);
const char *xn_check_text(unsigned int ck);
const char *xn_check_fail_text(unsigned int ck);

#endif
