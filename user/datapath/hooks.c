// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Port hooks: see hooks.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "lib/log.h"
#include "lib/tcx.h"
#include "lib/util.h"
#include "state/paths.h"
#include "state/pins.h"
#include "datapath/hooks.h"
#include "datapath/multiprog.h"

__u32 xn_prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id
								   : 0;
}

/* A link's program and device (XDP and tcx links report the ifindex at
 * the same place; 0 once the device is gone). */
static int link_info(int fd, __u32 *prog_id, __u32 *ifindex)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*prog_id = info.prog_id;
	*ifindex = info.xdp.ifindex;
	return 0;
}

__u32 xn_link_prog_id(const struct xn_bridge *bridge, const char *leaf)
{
	int fd = xn_pin_get(bridge, leaf);
	__u32 id = 0, ifindex = 0;

	if (fd < 0)
		return 0;
	if (link_info(fd, &id, &ifindex) || !ifindex)
		id = 0;
	close(fd);
	return id;
}

/*
 * Make the pinned link leaf on ifindex run prog: 1 when it does (updated
 * in place if it ran another program: atomic, no frame misses the hook),
 * 0 when there is no live link (a stale pin is removed), -errno.
 */
static int link_converge(struct xn_state *s, const char *leaf, __u32 ifindex,
			 int prog)
{
	__u32 pid = 0, lif = 0;
	int fd, err = 1;

	fd = xn_pin_get(s->bridge, leaf);
	if (fd < 0)
		return 0;
	if (link_info(fd, &pid, &lif) || lif != ifindex) {
		close(fd);
		xn_pin_unlink(s->bridge, leaf);
		return 0;
	}
	if (pid != xn_prog_id(prog) && bpf_link_update(fd, prog, NULL))
		err = -errno;
	close(fd);
	return err;
}

int xn_tc_hook_kind(const char *env)
{
	return env && !strcmp(env, "clsact") ? XDPNET_HOOK_CLSACT
					     : XDPNET_HOOK_TCX;
}

enum xn_xdp_choice xn_xdp_choose(const struct xn_xdp_seen *w)
{
	if (w->flags & XDPNET_PORT_VETH)
		return XN_XDP_VETH;
	/* Somebody else's program, not in a dispatcher (or in one this
	 * kernel cannot extend): theirs. */
	if (w->link == 0 && w->xdp_id && w->mp != XN_MP_OURS &&
	    (w->mp == XN_MP_LEGACY || w->mp == XN_MP_NONE || !w->mp_ok))
		return XN_XDP_FOREIGN;
	if (w->tcx)
		return XN_XDP_TCX;
	if (w->link < 0)
		return XN_XDP_FAILED;
	if (w->link > 0)
		return XN_XDP_OURS;
	if (w->mp == XN_MP_OURS)
		return XN_XDP_MP_OURS;
	return w->mp_ok ? XN_XDP_MP_JOIN : XN_XDP_NEW;
}

static int hook_clsact(struct xn_state *s, struct xdpnet_port *port)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = port->ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, q, .handle = XDPNET_CLSACT_HANDLE,
			    .priority = XDPNET_CLSACT_PRIO);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = XDPNET_CLSACT_HANDLE,
			    .priority = XDPNET_CLSACT_PRIO,
			    .prog_fd = s->prog_tc, .flags = BPF_TC_F_REPLACE);
	int err;

	/* Already there with the current program? */
	if (!bpf_tc_query(&hook, &q) && q.prog_id == xn_prog_id(s->prog_tc)) {
		port->hook = XDPNET_HOOK_CLSACT;
		return 0;
	}
	err = bpf_tc_hook_create(&hook);
	if (!err)
		port->flags |= XDPNET_PORT_OWN_CLSACT;
	else if (err != -EEXIST)
		return err;
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		return err;
	port->hook = XDPNET_HOOK_CLSACT;
	return 0;
}

int xn_hook_tc(struct xn_state *s, struct xdpnet_port *port)
{
	char leaf[32];
	int fd, err;

	if (port->hook == XDPNET_HOOK_CLSACT)
		return hook_clsact(s, port);
	xn_port_leaf(leaf, sizeof(leaf), XN_PORT_TC, port->ifindex);
	err = link_converge(s, leaf, port->ifindex, s->prog_tc);
	if (err) {
		if (err > 0)
			port->hook = XDPNET_HOOK_TCX;
		return err < 0 ? err : 0;
	}
	/* XDPNET_TC_HOOK=clsact: tests force the clsact filter. */
	if (xn_tc_hook_kind(getenv("XDPNET_TC_HOOK")) == XDPNET_HOOK_TCX) {
		/* Last in the chain: programs attached before see every
		 * frame first; ones attached later (appended) see what the
		 * TC stage passes on (TC_ACT_UNSPEC is tcx's "next"). An
		 * upgrade updates the link in place, keeping its place. */
		DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts,
				    .flags = XN_F_AFTER);

		fd = bpf_link_create(s->prog_tc, port->ifindex, XN_TCX_INGRESS,
				     &opts);
		if (fd >= 0) {
			err = xn_pin_obj(fd, s->bridge, leaf);
			close(fd);
			if (!err)
				port->hook = XDPNET_HOOK_TCX;
			return err;
		}
		if (fd != -EINVAL && fd != -EOPNOTSUPP)
			return fd;
		xn_debug("no tcx on this kernel, using a clsact filter");
	}
	return hook_clsact(s, port);
}

void xn_unhook_clsact(__u32 ifindex, int destroy)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, q, .handle = XDPNET_CLSACT_HANDLE,
			    .priority = XDPNET_CLSACT_PRIO);

	if (!bpf_tc_query(&hook, &q)) {
		q.prog_id = q.prog_fd = q.flags = 0;
		bpf_tc_detach(&hook, &q);
	}
	if (destroy) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
}

void xn_unhook_clsact_ports(__u32 bridge_ifindex)
{
	struct xn_link *ports = NULL;
	int n = 0, i;

	if (xn_list_ports(bridge_ifindex, &ports, &n))
		return;
	for (i = 0; i < n; i++)
		xn_unhook_clsact(ports[i].ifindex, 0);
	free(ports);
}

/* Detach the pinned link leaf (even if somebody holds an fd) and unpin it;
 * harmless when the port is gone. */
static void link_remove(struct xn_state *s, const char *leaf)
{
	int fd = xn_pin_get(s->bridge, leaf);

	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	xn_pin_unlink(s->bridge, leaf);
}

void xn_unhook_tcx(struct xn_state *s, __u32 ifindex)
{
	char leaf[32];

	xn_port_leaf(leaf, sizeof(leaf), XN_PORT_TC, ifindex);
	link_remove(s, leaf);
}

void xn_unhook_tc(struct xn_state *s, const struct xdpnet_port *port)
{
	if (port->hook == XDPNET_HOOK_CLSACT)
		xn_unhook_clsact(port->ifindex,
				 !!(port->flags & XDPNET_PORT_OWN_CLSACT));
	else
		xn_unhook_tcx(s, port->ifindex);
}

/* Describe whoever owns XDP on a port, with libxdp (it knows dispatchers). */
static void describe_foreign_xdp(const struct xn_link *l)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(l->ifindex);

	if (!mp || libxdp_get_error(mp)) {
		xn_info("  %s: XDP program %u already attached; leaving XDP "
			"to it, xdpnet uses the TC stage here",
			l->name, l->xdp_prog_id);
		return;
	}
	if (xdp_multiprog__is_legacy(mp)) {
		struct xdp_program *p = xdp_multiprog__main_prog(mp);

		xn_info("  %s: XDP program '%s' (id %u) already attached; "
			"xdpnet uses the TC stage here",
			l->name, p ? xdp_program__name(p) : "?",
			l->xdp_prog_id);
	} else {
		xn_info("  %s: a libxdp dispatcher (id %u) holds XDP; xdpnet "
			"uses the TC stage here",
			l->name, l->xdp_prog_id);
	}
	xdp_multiprog__close(mp);
}

/* Programs other than xdpnet's on the port's tcx ingress: they run
 * before the TC stage, or after it on what it passes, but an XDP redirect
 * would skip them. Unreadable counts as some. */
static int foreign_tcx(struct xn_state *s, __u32 ifindex)
{
	__u32 ids[64], own;
	char leaf[32];
	int n, i;

	n = xn_tcx_progs(ifindex, 0, ids, ARRAY_SIZE(ids));
	if (n < 0)
		return 1;
	xn_port_leaf(leaf, sizeof(leaf), XN_PORT_TC, ifindex);
	own = xn_link_prog_id(s->bridge, leaf);
	for (i = 0; i < n; i++)
		if (ids[i] != own)
			return 1;
	return 0;
}

/* XDP refused on a port: the TC stage carries it (said once). */
static void xdp_refused(const struct xn_link *l, struct xdpnet_port *port,
			int err)
{
	if (port->tc_reason != XDPNET_TCR_XDP_FAILED)
		xn_info("  %s: native XDP refused (%s); xdpnet uses the TC "
			"stage here",
			l->name, strerror(-err));
	port->tc_reason = XDPNET_TCR_XDP_FAILED;
}

void xn_hook_xdp(struct xn_state *s, const struct xn_link *l,
		 struct xdpnet_port *port)
{
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts,
			    .flags = XDP_FLAGS_DRV_MODE);
	struct xn_xdp_seen w = { .flags = port->flags,
				 .xdp_id = l->xdp_prog_id };
	int fd, err;
	char leaf[32];

	port->flags &= ~(XDPNET_PORT_XDP | XDPNET_PORT_XDP_MULTI);
	xn_port_leaf(leaf, sizeof(leaf), XN_PORT_XDP, port->ifindex);
	if (!(port->flags & XDPNET_PORT_VETH)) {
		w.link = link_converge(s, leaf, port->ifindex, s->prog_xdp);
		w.tcx = foreign_tcx(s, port->ifindex);
		w.mp = !w.link && l->xdp_prog_id ? xn_mp_seen(s, port->ifindex)
						 : XN_MP_NONE;
		w.mp_ok = xn_mp_available(NULL);
	}
	switch (xn_xdp_choose(&w)) {
	case XN_XDP_VETH:
		/* Native XDP on a veth strips GSO from its peer. */
		xn_unhook_xdp(s, port->ifindex);
		port->tc_reason = XDPNET_TCR_VETH;
		return;
	case XN_XDP_TCX:
		if (port->tc_reason != XDPNET_TCR_FOREIGN_TCX)
			xn_info("  %s: other programs on its tcx ingress; "
				"xdpnet uses the TC stage here, after them",
				l->name);
		xn_unhook_xdp(s, port->ifindex);
		port->tc_reason = XDPNET_TCR_FOREIGN_TCX;
		return;
	case XN_XDP_OURS:
		port->flags |= XDPNET_PORT_XDP;
		port->tc_reason = XDPNET_TCR_NONE;
		return;
	case XN_XDP_MP_OURS:
		port->flags |= XDPNET_PORT_XDP | XDPNET_PORT_XDP_MULTI;
		port->tc_reason = XDPNET_TCR_NONE;
		return;
	case XN_XDP_FOREIGN:
		if (port->tc_reason != XDPNET_TCR_FOREIGN_XDP ||
		    port->foreign_prog_id != l->xdp_prog_id)
			describe_foreign_xdp(l);
		port->tc_reason = XDPNET_TCR_FOREIGN_XDP;
		port->foreign_prog_id = l->xdp_prog_id;
		return;
	case XN_XDP_FAILED:
		xdp_refused(l, port, w.link);
		return;
	case XN_XDP_MP_JOIN:
		err = xn_mp_attach(s, port->ifindex);
		if (err) {
			xdp_refused(l, port, err);
			return;
		}
		port->flags |= XDPNET_PORT_XDP | XDPNET_PORT_XDP_MULTI;
		port->tc_reason = XDPNET_TCR_NONE;
		return;
	case XN_XDP_NEW:
	default:
		break;
	}
	fd = bpf_link_create(s->prog_xdp, port->ifindex, BPF_XDP, &opts);
	if (fd < 0 || xn_pin_obj(fd, s->bridge, leaf)) {
		err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		xdp_refused(l, port, err);
		return;
	}
	close(fd);
	port->flags |= XDPNET_PORT_XDP;
	port->tc_reason = XDPNET_TCR_NONE;
}

void xn_unhook_xdp(struct xn_state *s, __u32 ifindex)
{
	char leaf[32];

	xn_port_leaf(leaf, sizeof(leaf), XN_PORT_XDP, ifindex);
	link_remove(s, leaf);
	/* Whether or not this process would use the dispatcher: another
	 * attach (without XDPNET_XDP_DISPATCHER=0) may have put ours there. */
	xn_mp_detach(ifindex);
	/* A port that is gone may have left its dispatcher pinned. */
	xn_mp_sweep(s->bridge);
}

void xn_unhook_all(struct xn_state *s)
{
	struct xdpnet_port p;
	__u32 slot;

	/* XDP first, then TC: each frame is bypassed or bridged. */
	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++)
		if (!bpf_map_lookup_elem(s->fd[XM_PORTS], &slot, &p) &&
		    p.ifindex)
			xn_unhook_xdp(s, p.ifindex);
	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++)
		if (!bpf_map_lookup_elem(s->fd[XM_PORTS], &slot, &p) &&
		    p.ifindex)
			xn_unhook_tc(s, &p);
}

__u64 xn_tcx_fingerprint(struct xn_state *s)
{
	__u64 h = XN_FNV_OFFSET;
	struct xdpnet_port p;
	__u32 slot, ids[64];
	int side, n;

	for (slot = 1; slot < XDPNET_MAX_PORTS; slot++) {
		if (bpf_map_lookup_elem(s->fd[XM_PORTS], &slot, &p) ||
		    !p.ifindex)
			continue;
		for (side = 0; side < 2; side++) {
			n = xn_tcx_progs(p.ifindex, side, ids, ARRAY_SIZE(ids));
			h = xn_fnv1a(h, &p.ifindex, sizeof(p.ifindex));
			h = xn_fnv1a(h, &n, sizeof(n));
			if (n > 0)
				h = xn_fnv1a(h, ids, n * sizeof(ids[0]));
		}
	}
	return h;
}
