// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The bridge a command is given: see bridge.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "state/bridge.h"

static int paths(struct xn_bridge *br, const char *name)
{
	memset(br, 0, sizeof(*br));
	br->err = XN_BR_UNKNOWN;
	br->ns = *xn_netns_self();
	if (!xn_valid_ifname(name))
		return -EINVAL;
	snprintf(br->name, sizeof(br->name), "%s", name);
	return xn_paths_of(name, &br->path) ? -ENAMETOOLONG : 0;
}

int xn_bridge_open(struct xn_bridge *br, const char *name, int lookup)
{
	int err = paths(br, name);

	if (!err && lookup)
		br->err = xn_get_link(name, &br->link);
	return err;
}

int xn_bridge_of_link(struct xn_bridge *br, const struct xn_link *l)
{
	int err = paths(br, l->name);

	if (!err) {
		br->err = 0;
		br->link = *l;
	}
	return err;
}

/* The verdict on a lookup's err and link. */
static int verdict(const char *name, int err, const struct xn_link *l)
{
	if (err == -ENODEV) {
		xn_err("no such device '%s'", name);
		return -XN_NO_BRIDGE;
	}
	if (err) {
		xn_err("cannot look up '%s': %s", name, strerror(-err));
		return err == -EPERM ? -XN_NOT_PERMITTED : -XN_FAILED;
	}
	if (strcmp(l->kind, "bridge")) {
		xn_err("'%s' is not a bridge (it is a %s device); give the "
		       "bridge its VMs' taps are enslaved to, e.g. virbr0",
		       name, l->kind[0] ? l->kind : "physical");
		return -XN_NO_BRIDGE;
	}
	return 0;
}

int xn_bridge_check(const struct xn_bridge *br)
{
	return verdict(br->name, br->err, &br->link);
}

int xn_bridge_still(const struct xn_bridge *br)
{
	struct xn_link now;
	int err = xn_bridge_check(br);

	if (err)
		return err;
	err = xn_get_link_by_index(br->link.ifindex, &now);
	if (!err && strcmp(now.name, br->name))
		err = -ENODEV; /* renamed, or its ifindex taken by another */
	return verdict(br->name, err, &now);
}

int xn_bridge_unattached(const struct xn_bridge *br, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int err = xn_bridge_check(br);

	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	xn_err("%s", msg);
	return -XN_NOT_ATTACHED;
}
