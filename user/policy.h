/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the host's filters mean for a bridge's datapath (struct xn_policy,
 * reconcile.h): ports under per-port filters stay on the bridge, and
 * filters that apply between ports stop the bypass unless the operator
 * accepted bypassing them (attach --bypass-filters).
 */
#ifndef XN_POLICY_H
#define XN_POLICY_H

#include <stdio.h>
#include "nl.h"
#include "reconcile.h"

/* Read the host's filters for br. 0, or an xn_exit code after a one-line
 * error. */
int xn_policy_read(const struct xn_link *br, int bypass_filters,
		   struct xn_policy *pol);
void xn_policy_free(struct xn_policy *pol);

#endif
