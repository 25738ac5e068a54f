// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A bridge's pin files and the state they hold: see pins.h. New objects
 * are pinned under a temporary name and renamed over the old pin, so that
 * a kill at any moment leaves either the old or the new object pinned,
 * never none.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/log.h"
#include "lib/util.h"
#include "state/paths.h"
#include "state/pins.h"

static const char *const map_pins[XM_N] = {
	[XM_CFG] = "cfg",
	[XM_META] = "meta",
	[XM_FDB] = "fdb",
	[XM_FDB_STATIC] = "fdb_static",
	[XM_FDB_EV] = "fdb_ev",
	[XM_PORTS] = "ports",
	[XM_PORT_IDX] = "port_idx",
	[XM_VLANS] = "vlans",
	[XM_TX] = "tx_ports",
	[XM_STATS] = "stats",
	[XM_LAT_CTL] = "lat_ctl",
	[XM_LAT_CPU] = "lat_cpu",
	[XM_DUMP] = "dump",
	[XM_DUMP_RB] = "dump_rb",
	[XM_RT] = "rt",
	[XM_FLOWS] = "flows",
};

const struct xn_prog_pin xn_prog_pins[XN_PROGS] = {
	{ "xdpnet_tc", "prog_tc", offsetof(struct xn_state, prog_tc) },
	{ "xdpnet_xdp", "prog_xdp", offsetof(struct xn_state, prog_xdp) },
	{ "xdpnet_jiffies", "prog_jiffies",
	  offsetof(struct xn_state, prog_jiffies) },
	{ "xdpnet_bump", "prog_bump", offsetof(struct xn_state, prog_bump) },
};

const char *xn_map_pin(enum xn_map_id id)
{
	return XN_NAME(map_pins, id, NULL);
}

int xn_pin_path(char *buf, size_t len, const struct xn_bridge *bridge,
		const char *leaf)
{
	int n = leaf ? snprintf(buf, len, "%s/%s", bridge->path.pins, leaf)
		     : snprintf(buf, len, "%s", bridge->path.pins);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int xn_pin_exists(const struct xn_bridge *bridge, const char *leaf)
{
	char path[256];

	return !xn_pin_path(path, sizeof(path), bridge, leaf) &&
	       !access(path, F_OK);
}

int xn_pin_obj(int fd, const struct xn_bridge *bridge, const char *leaf)
{
	char path[256];

	if (xn_pin_path(path, sizeof(path), bridge, leaf))
		return -ENAMETOOLONG;
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

void xn_pin_unlink(const struct xn_bridge *bridge, const char *leaf)
{
	char path[256];

	if (!xn_pin_path(path, sizeof(path), bridge, leaf))
		unlink(path);
}

/* Pin fd as leaf, atomically replacing whatever is pinned there. */
int xn_pin_replace(int fd, const struct xn_bridge *bridge, const char *leaf)
{
	char tmp[64], a[256], b[256];
	int err;

	snprintf(tmp, sizeof(tmp), "new_%s", leaf);
	xn_pin_unlink(bridge, tmp);
	err = xn_pin_obj(fd, bridge, tmp);
	if (err)
		return err;
	if (xn_pin_path(a, sizeof(a), bridge, tmp) ||
	    xn_pin_path(b, sizeof(b), bridge, leaf) || rename(a, b)) {
		err = -errno;
		xn_pin_unlink(bridge, tmp);
		return err;
	}
	return 0;
}

int xn_pin_get(const struct xn_bridge *bridge, const char *leaf)
{
	char path[256];

	if (xn_pin_path(path, sizeof(path), bridge, leaf))
		return -ENAMETOOLONG;
	return bpf_obj_get(path);
}

int xn_pin_mkdir(const struct xn_bridge *bridge, char *dir, size_t len)
{
	int tries;

	if (xn_pin_path(dir, len, bridge, NULL)) {
		xn_err("cannot create the pin folder of %s: %s", bridge->name,
		       strerror(ENAMETOOLONG));
		return -1;
	}
	/* The detach of another bridge removes the root once it is empty
	 * (xn_state_remove): it may do so between the two mkdirs. */
	for (tries = 0; tries < 10; tries++) {
		if (mkdir(xn_pin_root(), 0700) && errno != EEXIST)
			break;
		if (!mkdir(dir, 0700) || errno == EEXIST)
			return 0;
		if (errno != ENOENT)
			break;
	}
	xn_err("cannot create %s: %s", dir, strerror(errno));
	return -1;
}

void xn_state_init(struct xn_state *s, const struct xn_bridge *bridge)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->bridge = bridge;
	for (i = 0; i < XM_N; i++)
		s->fd[i] = -1;
	for (i = 0; i < XN_PROGS; i++)
		*xn_state_prog(s, i) = -1;
}

/* A pin's descriptor, or -1. */
static int get_or_none(const struct xn_bridge *bridge, const char *leaf)
{
	int fd = xn_pin_get(bridge, leaf);

	return fd < 0 ? -1 : fd;
}

void xn_state_get(struct xn_state *s)
{
	int i;

	for (i = 0; i < XM_N; i++)
		s->fd[i] = get_or_none(s->bridge, xn_map_pin(i));
	for (i = 0; i < XN_PROGS; i++)
		*xn_state_prog(s, i) =
			get_or_none(s->bridge, xn_prog_pins[i].pin);
}

void xn_state_close(struct xn_state *s)
{
	int i, *fd;

	for (i = 0; i < XM_N; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	for (i = 0; i < XN_PROGS; i++) {
		fd = xn_state_prog(s, i);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	for (i = 0; i < XM_N; i++)
		s->fd[i] = -1;
}

__u32 xn_map_value_size(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.value_size;
}

int xn_cfg_read(const struct xn_state *s, struct xdpnet_cfg *c)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(s->fd[XM_CFG], &zero, c) ? -errno : 0;
}

int xn_cfg_write(const struct xn_state *s, const struct xdpnet_cfg *c)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(s->fd[XM_CFG], &zero, c, 0))
		return -errno;
	xn_gen_bump(s);
	return 0;
}

void xn_gen_bump(const struct xn_state *s)
{
	DECLARE_LIBBPF_OPTS(bpf_test_run_opts, o);

	/* It cannot fail on a program that loaded; if it did, cached
	 * decisions would outlive the change: say so loudly. */
	if (s->prog_bump >= 0 && bpf_prog_test_run_opts(s->prog_bump, &o))
		xn_err("cannot bump the datapath's generation: %s; run 'xdpnet "
		       "attach %s' again",
		       strerror(errno), s->bridge->name);
}

int xn_meta_write(const struct xn_state *s)
{
	__u32 zero = 0;

	return bpf_map_update_elem(s->fd[XM_META], &zero, &s->meta, 0) ? -errno
								       : 0;
}

void xn_state_remove(const struct xn_bridge *bridge)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *d;
	int pass;

	if (xn_pin_path(dir, sizeof(dir), bridge, NULL))
		return;
	/* Links first (their hooks go), then everything else. */
	for (pass = 0; pass < 2; pass++) {
		d = opendir(dir);
		if (!d)
			return;
		while ((de = readdir(d))) {
			int link = !strncmp(de->d_name, "xdp_", 4) ||
				   !strncmp(de->d_name, "tc_", 3) ||
				   !strncmp(de->d_name, "trace_", 6) ||
				   !strncmp(de->d_name, "lat_", 4);

			if (de->d_name[0] == '.' || (pass == 0 && !link))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (link) {
				/* Detach even if somebody holds an fd. */
				int fd = bpf_obj_get(path);

				if (fd >= 0) {
					bpf_link_detach(fd); /* maps: no-op */
					close(fd);
				}
			}
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	rmdir(xn_pin_root()); /* only if empty */
}
