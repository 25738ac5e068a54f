// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Whose is what is pinned under a bridge's name (see owner.h): meta says
 * the layout and the network namespace; without one, the names of the
 * pins tell a half-done attach from pins xdpnet does not make.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/paths.h"
#include "state/pins.h"
#include "state/owner.h"

/* The meta of a pinned state: 0, -ENOENT (none, or never written),
 * -EPROTO (another layout: *abi says which, 1 for xdpnet 0.1). */
int xn_meta_read(const struct xn_bridge *bridge, struct xdpnet_meta *m,
		 __u32 *abi)
{
	int fd = xn_pin_get(bridge, "meta"), err = 0;
	__u32 zero = 0, vs;

	*abi = 0;
	if (fd < 0)
		return -ENOENT;
	vs = xn_map_value_size(fd);
	memset(m, 0, sizeof(*m));
	if (vs != sizeof(*m)) {
		*abi = 1; /* xdpnet 0.1: a 48-byte meta without abi */
		err = -EPROTO;
	} else if (bpf_map_lookup_elem(fd, &zero, m) || !m->abi) {
		/* A zeroed meta: an attach that died before it wrote it
		 * (meta is written last); nothing was committed. */
		err = -ENOENT;
	} else if (m->abi != XDPNET_ABI) {
		*abi = m->abi;
		err = -EPROTO;
	}
	close(fd);
	return err;
}

/* A name xdpnet pins under a bridge's directory (or renames into one). */
static int pin_is_ours(const char *name)
{
	static const char *const prefix[] = { "prog_", "trace_", "lat_",
					      "xdp_",  "tc_",	 "." };
	unsigned int i;

	for (i = 0; i < XM_N; i++)
		if (xn_map_pin(i) &&
		    !strncmp(name, xn_map_pin(i), strlen(xn_map_pin(i))))
			return 1;
	for (i = 0; i < ARRAY_SIZE(prefix); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* Without a meta: XN_PINNED_NONE (nothing), _HALF (only names of ours)
 * or _FOREIGN (*foreign, when given, names the first stranger). */
static enum xn_pinned pins_scan(const struct xn_bridge *bridge, char *foreign,
				size_t n)
{
	enum xn_pinned p = XN_PINNED_NONE;
	struct dirent *de;
	char dir[256];
	DIR *d;

	if (xn_pin_path(dir, sizeof(dir), bridge, NULL))
		return p;
	d = opendir(dir);
	if (!d)
		return p;
	while ((de = readdir(d)) && p != XN_PINNED_FOREIGN) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = XN_PINNED_HALF;
		if (!pin_is_ours(de->d_name)) {
			p = XN_PINNED_FOREIGN;
			if (foreign)
				snprintf(foreign, n, "%s", de->d_name);
		}
	}
	closedir(d);
	return p;
}

enum xn_pinned xn_pinned(const struct xn_bridge *bridge)
{
	struct xdpnet_meta m;
	__u32 abi;
	int err;

	err = xn_meta_read(bridge, &m, &abi);
	if (!err)
		return m.netns_ino && m.netns_ino != bridge->ns.ino
			       ? XN_PINNED_OTHER_NS
			       : XN_PINNED_OURS;
	if (err == -EPROTO)
		return XN_PINNED_LAYOUT;
	return pins_scan(bridge, NULL, 0);
}

int xn_pinned_refuse(const struct xn_bridge *bridge, enum xn_pinned p)
{
	char dir[256], foreign[256] = "?";
	struct xdpnet_meta m;
	__u32 abi = 0;

	xn_pin_path(dir, sizeof(dir), bridge, NULL);
	if (p == XN_PINNED_OTHER_NS) {
		xn_err("%s belongs to a bridge named %s in another network "
		       "namespace; use it from there",
		       dir, bridge->name);
	} else if (p == XN_PINNED_LAYOUT) {
		xn_meta_read(bridge, &m, &abi);
		xn_err("%s holds state of another xdpnet version (layout %u, "
		       "this one reads %u); run 'xdpnet detach %s', then "
		       "attach again",
		       dir, abi, XDPNET_ABI, bridge->name);
	} else {
		pins_scan(bridge, foreign, sizeof(foreign));
		xn_err("%s holds pins xdpnet does not make (%s): remove "
		       "them, or give the bridge another name",
		       dir, foreign);
	}
	return -XN_FAILED;
}

int xn_state_open(struct xn_state *s, const struct xn_bridge *bridge)
{
	__u32 abi;
	int i, err;

	xn_state_init(s, bridge);
	err = xn_meta_read(bridge, &s->meta, &abi);
	if (err == -ENOENT)
		return -XN_NOT_ATTACHED;
	if (err == -EPROTO)
		return xn_pinned_refuse(bridge, XN_PINNED_LAYOUT);
	if (s->meta.netns_ino && s->meta.netns_ino != bridge->ns.ino)
		return -XN_NOT_ATTACHED;
	/* The maps since 0.3 and prog_bump may be missing: an older
	 * build's state. */
	xn_state_get(s);
	for (i = 0; i < XM_REQUIRED; i++)
		err |= s->fd[i] < 0;
	if (err || s->prog_tc < 0 || s->prog_xdp < 0 || s->prog_jiffies < 0) {
		xn_state_close(s);
		return -XN_NOT_ATTACHED;
	}
	return 0;
}
