// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdpnet detach BRIDGE: stop the follower, unhook every port (XDP, then
 * TC: each frame is bypassed or bridged), remove the pins. Works on the
 * state of another xdpnet version too (it only needs the pins' names).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "core/pins.h"
#include "core/lock.h"
#include "core/hooks.h"
#include "core/reconcile.h"
#include "core/follower.h"
#include "cmd/cmd.h"

#define TC_CLSACT_HANDLE 1
#define TC_CLSACT_PRIO 0xfe58

/* A clsact filter of xdpnet's on a port of the bridge, from any version
 * (the handle and priority never changed). */
static void unhook_clsact_any(__u32 bridge_ifindex)
{
	struct xn_link *ports = NULL;
	int n = 0, i;

	if (xn_list_ports(bridge_ifindex, &ports, &n))
		return;
	for (i = 0; i < n; i++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook,
				    .ifindex = ports[i].ifindex,
				    .attach_point = BPF_TC_INGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, q, .handle = TC_CLSACT_HANDLE,
				    .priority = TC_CLSACT_PRIO);

		if (!bpf_tc_query(&hook, &q)) {
			q.prog_id = q.prog_fd = q.flags = 0;
			bpf_tc_detach(&hook, &q);
		}
	}
	free(ports);
}

int xn_detach(const struct xn_opts *o)
{
	struct xn_state s;
	struct xn_link br;
	char dir[256], path[256];
	int err, lk, have_br;

	err = xn_cmd_prepare();
	if (err)
		return err;
	have_br = xn_get_link(o->bridge, &br) == 0;
	if (xn_pin_path(dir, sizeof(dir), o->bridge, NULL) ||
	    access(dir, F_OK)) {
		/* Nothing pinned: an unknown name is an error, as for
		 * attach; a bridge we are not on is fine. */
		if (!have_br) {
			xn_err("no such device '%s'", o->bridge);
			return XN_ENOBRIDGE;
		}
		if (strcmp(br.kind, "bridge"))
			return xn_find_bridge(o->bridge, &br);
		xn_follower_stop(o->bridge);
		xn_info("xdpnet: %s is not attached; nothing to do", o->bridge);
		return XN_OK;
	}
	lk = xn_lock(o->bridge, 30);
	if (lk < 0)
		return XN_EBUSY;
	{
		/* Another version's state goes (as documented); another
		 * namespace's, or pins that are not ours, stay. */
		enum xn_pinned p = xn_pinned(o->bridge);

		if (p == XN_PINNED_OTHER_NS || p == XN_PINNED_FOREIGN) {
			xn_unlock(lk);
			return xn_pinned_refuse(o->bridge, p);
		}
	}
	err = xn_state_open(&s, o->bridge);
	xn_follower_stop(o->bridge);
	if (!err) {
		xn_reconcile_clear(&s);
		if (have_br && s.meta.bridge_ifindex == br.ifindex)
			unhook_clsact_any(br.ifindex);
		xn_state_close(&s);
	} else if (have_br) {
		/* Another version's state: its links go with the pins;
		 * its clsact filters by name. */
		unhook_clsact_any(br.ifindex);
	}
	xn_state_remove(o->bridge);
	xn_unlock(lk);
	if (!access(dir, F_OK)) {
		xn_err("could not remove everything under %s", dir);
		return XN_ERR;
	}
	if (!xn_run_path(path, sizeof(path), o->bridge, "pid"))
		unlink(path);
	xn_info("xdpnet: detached from %s; the bridge forwards everything "
		"again",
		o->bridge);
	return XN_OK;
}
