// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The bridge a command is given: see bridge.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lib/exit.h"
#include "lib/log.h"
#include "state/bridge.h"

int xn_bridge_check(const char *name, int err, const struct xn_link *l)
{
	if (err == -ENODEV) {
		xn_err("no such device '%s'", name);
		return XN_ENOBRIDGE;
	}
	if (err) {
		xn_err("cannot look up '%s': %s", name, strerror(-err));
		return err == -EPERM ? XN_EPERM : XN_ERR;
	}
	if (strcmp(l->kind, "bridge")) {
		xn_err("'%s' is not a bridge (it is a %s device); give the "
		       "bridge its VMs' taps are enslaved to, e.g. virbr0",
		       name, l->kind[0] ? l->kind : "physical");
		return XN_ENOBRIDGE;
	}
	return 0;
}

int xn_find_bridge(const char *name, struct xn_link *l)
{
	return xn_bridge_check(name, xn_get_link(name, l), l);
}

int xn_bridge_unattached(const char *name, const char *fmt, ...)
{
	struct xn_link l;
	char msg[256];
	va_list ap;
	int err = xn_find_bridge(name, &l);

	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	xn_err("%s", msg);
	return XN_ENOTATTACHED;
}
