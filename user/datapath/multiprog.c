// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* XDP through libxdp's dispatcher: see multiprog.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/file.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "xdpnet.h"
#include "xdpnet_probe.skel.h"
#include "lib/log.h"
#include "lib/util.h"
#include "lib/nl.h"
#include "datapath/load.h"
#include "state/paths.h"
#include "datapath/multiprog.h"

#define PIN_LEAF XN_PIN_XDP_MULTI
/* The XDP stage as the dispatcher's extension. It calls no helper that
 * may change packet data, which the kernel would refuse in a dispatcher
 * slot that does not (Linux 6.12.26 and 6.13 check, and libxdp before 1.5
 * does not mark its slots). */
#define PROG_NAME "xdpnet_xdp"
/* Ours in a dispatcher: that program, and the variant builds before 0.4
 * put there (for an upgrade's or a detach's sake). */
static const char *const prog_names[] = { PROG_NAME, "xdpnet_xdp_mp" };

/* Load the probe's main program, then its extension in place of the
 * slot, and link it: 0 when all three work. */
static int probe(void)
{
	struct xdpnet_probe_bpf *m, *x = NULL;
	struct bpf_link *k = NULL;
	int err;

	m = xdpnet_probe_bpf__open();
	if (!m)
		return -errno;
	bpf_program__set_autoload(m->progs.xdpnet_probe_ext, false);
	err = xdpnet_probe_bpf__load(m);
	if (!err) {
		x = xdpnet_probe_bpf__open();
		err = x ? 0 : -errno;
	}
	if (!err) {
		bpf_program__set_autoload(x->progs.xdpnet_probe_main, false);
		err = bpf_program__set_attach_target(
			x->progs.xdpnet_probe_ext,
			bpf_program__fd(m->progs.xdpnet_probe_main),
			"xdpnet_probe_slot");
	}
	if (!err)
		err = xdpnet_probe_bpf__load(x);
	if (!err) {
		k = bpf_program__attach_freplace(
			x->progs.xdpnet_probe_ext,
			bpf_program__fd(m->progs.xdpnet_probe_main),
			"xdpnet_probe_slot");
		err = k ? 0 : -errno;
	}
	bpf_link__destroy(k);
	xdpnet_probe_bpf__destroy(x);
	xdpnet_probe_bpf__destroy(m);
	return err;
}

/* On where the kernel runs it, unless XDPNET_XDP_DISPATCHER=0 (direct
 * links, as before 0.3). */
static int dispatcher_off(void)
{
	const char *e = getenv("XDPNET_XDP_DISPATCHER");

	return e && !strcmp(e, "0");
}

int xn_mp_available(const char **why)
{
	static int state = -1;
	static char text[160];
	int err;

	if (state < 0) {
		err = dispatcher_off() ? -ECANCELED : probe();
		state = !err;
		if (err == -ECANCELED)
			snprintf(text, sizeof(text),
				 "libxdp's dispatcher is off "
				 "(XDPNET_XDP_DISPATCHER=0)");
		else if (err)
			snprintf(text, sizeof(text),
				 "the kernel does not run libxdp's dispatcher: "
				 "freplace programs do not load or link here "
				 "(%s; they need BPF trampolines)",
				 strerror(-err));
		xn_debug("libxdp dispatcher: %s", state ? "available" : text);
	}
	if (why)
		*why = state ? "" : text;
	return state;
}

__u32 xn_mp_prog_id(const struct xn_bridge *bridge)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = xn_pin_get(bridge, PIN_LEAF);

	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

/* A program's id and name (name: 16 bytes); 0 or -errno. */
static int prog_info(int fd, __u32 *id, char *name)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*id = info.id;
	memcpy(name, info.name, sizeof(info.name));
	return 0;
}

static int is_xdpnet(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prog_names); i++)
		if (!strcmp(name, prog_names[i]))
			return 1;
	return 0;
}

/*
 * The programs in the port's dispatcher, opened (at most max): their
 * number; -1 when the port's XDP program is not a dispatcher of libxdp's
 * (-2: it has none). Read from libxdp's own pins,
 * PIN/xdp/dispatch-IFINDEX-ID/progN-prog (N < 10, its limit), not
 * through libxdp: libxdp 1.3 leaves a descriptor open for each program
 * it reads that way, and the follower reads every port on each resync.
 */
static int dispatcher_progs(__u32 ifindex, int *fds, int max)
{
	char dir[96], path[128];
	struct xn_link l;
	int n = 0, i, fd;

	if (xn_get_link_by_index(ifindex, &l) || !l.xdp_prog_id)
		return -2;
	if (xn_libxdp_dispatch_dir(dir, sizeof(dir), ifindex, l.xdp_prog_id) ||
	    access(dir, F_OK))
		return -1;
	for (i = 0; i < 10 && n < max; i++) {
		snprintf(path, sizeof(path), "%s/prog%d-prog", dir, i);
		fd = bpf_obj_get(path);
		if (fd >= 0)
			fds[n++] = fd;
	}
	return n;
}

enum xn_mp_seen xn_mp_seen(struct xn_state *s, __u32 ifindex)
{
	enum xn_mp_seen seen = XN_MP_OTHERS;
	int fds[10], n, i;
	__u32 own, id = 0;
	char name[16];

	n = dispatcher_progs(ifindex, fds, 10);
	if (n < 0)
		return n == -1 ? XN_MP_LEGACY : XN_MP_NONE;
	own = xn_mp_prog_id(s->bridge);
	for (i = 0; i < n; i++) {
		if (own && !prog_info(fds[i], &id, name) && id == own)
			seen = XN_MP_OURS;
		close(fds[i]);
	}
	return seen;
}

/* This build's program for libxdp from the pin, or NULL. */
static struct xdp_program *pinned_prog(struct xn_state *s)
{
	struct xdp_program *p;
	int fd = xn_pin_get(s->bridge, PIN_LEAF);

	if (fd < 0)
		return NULL;
	p = xdp_program__from_fd(fd);
	close(fd);
	return libxdp_get_error(p) ? NULL : p;
}

/* The XDP stage in an object of its own, for libxdp to load (*obj). */
static struct xdp_program *new_prog(struct xn_state *s, struct bpf_object **obj)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, o, .prog_name = PROG_NAME);
	struct xdp_program *p;

	*obj = xn_xdp_object(s, PROG_NAME);
	if (!*obj)
		return NULL;
	o.obj = *obj;
	p = xdp_program__create(&o);
	if (libxdp_get_error(p)) {
		bpf_object__close(*obj);
		*obj = NULL;
		return NULL;
	}
	return p;
}

/* Take out of the port's dispatcher the xdpnet programs other than keep
 * (0: all of them). Each detach rebuilds the dispatcher; a program is
 * found in the new one by its id. */
static void detach_others(__u32 ifindex, __u32 keep)
{
	struct xdp_program *q;
	int fds[10], n, i, err;
	char name[16];
	__u32 id = 0;

	n = dispatcher_progs(ifindex, fds, 10);
	for (i = 0; i < n; i++) {
		if (!prog_info(fds[i], &id, name) && is_xdpnet(name) &&
		    id != keep) {
			q = xdp_program__from_fd(fds[i]);
			err = libxdp_get_error(q);
			if (!err)
				err = xdp_program__detach(q, (int)ifindex,
							  XDP_MODE_NATIVE, 0);
			if (err)
				xn_debug("ifindex %u: cannot take program %u "
					 "out of its dispatcher: %s",
					 ifindex, id, strerror(-err));
			xdp_program__close(q);
		}
		close(fds[i]);
	}
}

int xn_mp_attach(struct xn_state *s, __u32 ifindex)
{
	struct bpf_object *obj = NULL;
	struct xdp_program *p;
	int err;

	p = pinned_prog(s);
	if (p) {
		err = xdp_program__attach(p, (int)ifindex, XDP_MODE_NATIVE, 0);
	} else {
		/* Loaded here, by libxdp, in its first dispatcher. */
		p = new_prog(s, &obj);
		err = p ? xdp_program__attach(p, (int)ifindex, XDP_MODE_NATIVE,
					      0)
			: -(errno ?: EINVAL);
		if (err)
			xn_debug(PROG_NAME " into the dispatcher: %s",
				 strerror(-err));
		/* Pinned for the other ports and processes. */
		if (!err) {
			err = xn_pin_replace(xdp_program__fd(p), s->bridge,
					     PIN_LEAF);
			if (err)
				xdp_program__detach(p, (int)ifindex,
						    XDP_MODE_NATIVE, 0);
		}
	}
	if (!err)
		detach_others(ifindex, xdp_program__id(p));
	xdp_program__close(p);
	bpf_object__close(obj);
	return err;
}

void xn_mp_detach(__u32 ifindex)
{
	detach_others(ifindex, 0);
}

/* Does the dispatcher pinned in dir run program id? */
static int dir_holds(const char *dir, __u32 id)
{
	char path[PATH_MAX + 16], name[16];
	int i, fd, found = 0;
	__u32 got = 0;

	for (i = 0; i < 10 && !found; i++) {
		snprintf(path, sizeof(path), "%s/prog%d-prog", dir, i);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		found = !prog_info(fd, &got, name) && got == id;
		close(fd);
	}
	return found;
}

static void dir_remove(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type != DT_DIR) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	if (rmdir(dir))
		xn_debug("cannot remove %s: %s", dir, strerror(errno));
}

void xn_mp_sweep(const struct xn_bridge *bridge)
{
	__u32 own = xn_mp_prog_id(bridge), id;
	char dir[PATH_MAX];
	struct xn_link l;
	struct dirent *e;
	int lk, ifindex;
	DIR *d;

	if (!own)
		return;
	lk = open(XN_LIBXDP_DIR, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (lk < 0)
		return;
	/* libxdp's lock: no dispatcher is being built meanwhile. */
	if (flock(lk, LOCK_EX)) {
		close(lk);
		return;
	}
	d = opendir(XN_LIBXDP_DIR);
	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR ||
		    sscanf(e->d_name, "dispatch-%d-%u", &ifindex, &id) != 2)
			continue;
		/* Still the XDP program of its device here: alive. */
		if (!xn_get_link_by_index((__u32)ifindex, &l) &&
		    l.xdp_prog_id == id)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", XN_LIBXDP_DIR, e->d_name);
		if (!dir_holds(dir, own))
			continue;
		xn_debug("removing %s: its device is gone, it held program %u",
			 dir, own);
		dir_remove(dir);
	}
	if (d)
		closedir(d);
	flock(lk, LOCK_UN);
	close(lk);
}
