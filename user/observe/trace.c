// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet trace's core: see trace.h. */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "lib/frame.h"
#include "lib/log.h"
#include "state/owner.h"
#include "state/pins.h"
#include "datapath/load.h"
#include "state/bridge.h"
#include "observe/trace.h"

/* A carried port's entry by ifindex (.ifindex 0 when not carried). */
static void port_of(const struct xn_state *s, __u32 ifindex,
		    struct xdpnet_port *p)
{
	__u32 slot;

	memset(p, 0, sizeof(*p));
	if (!ifindex ||
	    bpf_map_lookup_elem(s->fd[XM_PORT_IDX], &ifindex, &slot) ||
	    bpf_map_lookup_elem(s->fd[XM_PORTS], &slot, p) ||
	    p->ifindex != ifindex)
		memset(p, 0, sizeof(*p));
}

static int run(struct bpf_object *obj, const char *prog, int xdp,
	       const struct xn_trace *t, struct xn_trace_stage *st)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "trace_out");
	__u32 zero = 0;
	int err;

	if (!p || !m)
		return -ENOENT;
	err = xn_frame_run(bpf_program__fd(p), xdp, t->frame, t->len,
			   t->ifindex, 1, &st->retval, NULL);
	if (err)
		return err;
	st->ran = 1;
	return bpf_map_lookup_elem(bpf_map__fd(m), &zero, &st->rec) ? -errno
								    : 0;
}

static int trace(const struct xn_bridge *bridge, struct xn_state *s,
		 struct xn_trace *t)
{
	struct bpf_object *obj;
	int err;

	if (strcmp(s->meta.build, xn_build_id())) {
		xn_err("%s runs the datapath of xdpnet build %s, this is %s: "
		       "'xdpnet attach %s' upgrades it in place, then trace",
		       bridge->name, s->meta.build, xn_build_id(),
		       bridge->name);
		return -XN_FAILED;
	}
	if (xn_cfg_read(s, &t->cfg)) {
		xn_err("cannot read %s's settings: %s", bridge->name,
		       strerror(errno));
		return -XN_FAILED;
	}
	t->live = !!s->meta.live;
	port_of(s, t->ifindex, &t->in);
	obj = xn_trace_object(s);
	if (!obj) {
		xn_err("cannot open the trace programs: %s", strerror(errno));
		return -XN_FAILED;
	}
	err = bpf_object__load(obj);
	if (err) {
		bpf_object__close(obj);
		xn_err("the kernel refused the trace programs: %s (-vv shows "
		       "the verifier log)",
		       strerror(-err));
		return -XN_BPF_REFUSED;
	}
	if (t->in.flags & XDPNET_PORT_XDP) {
		t->xdp.multi = !!(t->in.flags & XDPNET_PORT_XDP_MULTI);
		err = run(obj, "xdpnet_trace_xdp", 1, t, &t->xdp);
	}
	if (!err && !(t->xdp.ran && t->xdp.retval == XDP_REDIRECT))
		err = run(obj, "xdpnet_trace_tc", 0, t, &t->tc);
	bpf_object__close(obj);
	if (err == -EINVAL) {
		xn_err("the kernel does not test-run this frame of %zu bytes "
		       "(BPF_PROG_TEST_RUN takes whole Ethernet frames, IP "
		       "headers complete, up to about %d bytes)",
		       t->len, XN_TRACE_MAX_FRAME);
		return -XN_BAD_INPUT;
	}
	if (err) {
		xn_err("BPF_PROG_TEST_RUN: %s", strerror(-err));
		return -XN_FAILED;
	}
	port_of(s, t->tc.ran ? t->tc.rec.dst_ifindex : t->xdp.rec.dst_ifindex,
		&t->dst);
	return 0;
}

int xn_trace_run(const struct xn_bridge *bridge, struct xn_trace *t)
{
	struct xn_state s;
	int err = xn_state_open(&s, bridge);

	if (err == -XN_NOT_ATTACHED)
		err = xn_bridge_unattached(bridge,
					   "%s is not attached: every frame "
					   "takes the bridge",
					   bridge->name);
	if (err)
		return err;
	err = trace(bridge, &s, t);
	xn_state_close(&s);
	return err;
}
