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
#include "lib/util.h"
#include "core/hooks.h"

/* Not in the 6.1 UAPI headers that Debian 12 ships. */
#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#endif

#define TC_CLSACT_HANDLE 1
#define TC_CLSACT_PRIO 0xfe58

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

__u32 xn_link_prog_id(const char *bridge, const char *leaf)
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

static int tc_hook_kind(void)
{
	const char *env = getenv("XDPNET_TC_HOOK"); /* tests: force clsact */

	return env && !strcmp(env, "clsact") ? XDPNET_HOOK_CLSACT
					     : XDPNET_HOOK_TCX;
}

static int hook_clsact(struct xn_state *s, struct xdpnet_port *port)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = port->ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, q, .handle = TC_CLSACT_HANDLE,
			    .priority = TC_CLSACT_PRIO);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = TC_CLSACT_HANDLE,
			    .priority = TC_CLSACT_PRIO, .prog_fd = s->prog_tc,
			    .flags = BPF_TC_F_REPLACE);
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
	snprintf(leaf, sizeof(leaf), "tc_%u", port->ifindex);
	err = link_converge(s, leaf, port->ifindex, s->prog_tc);
	if (err) {
		if (err > 0)
			port->hook = XDPNET_HOOK_TCX;
		return err < 0 ? err : 0;
	}
	if (tc_hook_kind() == XDPNET_HOOK_TCX) {
		fd = bpf_link_create(s->prog_tc, port->ifindex, BPF_TCX_INGRESS,
				     NULL);
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

void xn_unhook_tc(struct xn_state *s, const struct xdpnet_port *port)
{
	char leaf[32];
	int fd;

	if (port->hook == XDPNET_HOOK_CLSACT) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = port->ifindex,
				    .attach_point = BPF_TC_INGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts,
				    .handle = TC_CLSACT_HANDLE,
				    .priority = TC_CLSACT_PRIO);

		bpf_tc_detach(&hook, &opts);
		if (port->flags & XDPNET_PORT_OWN_CLSACT) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
		return;
	}
	snprintf(leaf, sizeof(leaf), "tc_%u", port->ifindex);
	fd = xn_pin_get(s->bridge, leaf);
	if (fd >= 0) {
		bpf_link_detach(fd); /* fails harmlessly if the port is gone */
		close(fd);
	}
	xn_pin_unlink(s->bridge, leaf);
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

void xn_hook_xdp(struct xn_state *s, const struct xn_link *l,
		 struct xdpnet_port *port)
{
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts,
			    .flags = XDP_FLAGS_DRV_MODE);
	char leaf[32];
	int fd, err;

	port->flags &= ~XDPNET_PORT_XDP;
	if (port->flags & XDPNET_PORT_VETH) {
		/* Native XDP on a veth strips GSO from its peer. */
		xn_unhook_xdp(s, port->ifindex);
		port->tc_reason = XDPNET_TCR_VETH;
		return;
	}
	snprintf(leaf, sizeof(leaf), "xdp_%u", port->ifindex);
	err = link_converge(s, leaf, port->ifindex, s->prog_xdp);
	if (err > 0) {
		port->flags |= XDPNET_PORT_XDP;
		port->tc_reason = XDPNET_TCR_NONE;
		return;
	}
	if (!err && l->xdp_prog_id) {
		if (port->tc_reason != XDPNET_TCR_FOREIGN_XDP ||
		    port->foreign_prog_id != l->xdp_prog_id)
			describe_foreign_xdp(l);
		port->tc_reason = XDPNET_TCR_FOREIGN_XDP;
		port->foreign_prog_id = l->xdp_prog_id;
		return;
	}
	fd = err < 0 ? err
		     : bpf_link_create(s->prog_xdp, port->ifindex, BPF_XDP,
				       &opts);
	if (fd < 0 || xn_pin_obj(fd, s->bridge, leaf)) {
		if (fd >= 0)
			close(fd);
		if (port->tc_reason != XDPNET_TCR_XDP_FAILED)
			xn_info("  %s: native XDP refused (%s); xdpnet uses the "
				"TC stage here",
				l->name, strerror(fd < 0 ? -fd : errno));
		port->tc_reason = XDPNET_TCR_XDP_FAILED;
		return;
	}
	close(fd);
	port->flags |= XDPNET_PORT_XDP;
	port->tc_reason = XDPNET_TCR_NONE;
}

void xn_unhook_xdp(struct xn_state *s, __u32 ifindex)
{
	char leaf[32];
	int fd;

	snprintf(leaf, sizeof(leaf), "xdp_%u", ifindex);
	fd = xn_pin_get(s->bridge, leaf);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	xn_pin_unlink(s->bridge, leaf);
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
