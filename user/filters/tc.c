// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tc on the bridge's ports, which the bypass would skip: on a port's
 * ingress, the filters and actions of an ingress or clsact qdisc (tcx
 * runs first, and the TC stage's redirect ends the frame's way there);
 * on its egress, a qdisc of its own and clsact egress filters, which a TC
 * redirect into the port passes through (dev_queue_xmit) and an XDP
 * redirect skips. libvirt's <bandwidth> is one of each: a police filter
 * on the tap's ingress, an HTB on its egress. Qdiscs the kernel attaches
 * by itself (handle 0: noqueue, pfifo_fast, fq_codel, mq and its
 * children) are the device's default and count as none. Programs on a
 * port's tcx egress are like clsact egress filters (xdpnet never hooks
 * there); its tcx ingress is for datapath/hooks.c, which keeps the XDP stage
 * off a port with other programs there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "xdpnet.h"
#include "lib/nl.h"
#include "lib/tcx.h"
#include "filters/internal.h"

/* Appends "WHAT KIND" to the list in buf, once. */
static void add(char *buf, size_t len, const char *what, const char *kind)
{
	size_t l = strlen(buf);
	char item[64];

	snprintf(item, sizeof(item), "%s %s", what, kind);
	if (!strstr(buf, item))
		snprintf(buf + l, len - l, "%s%s", l ? ", " : "", item);
}

/* xdpnet's own filter, where it hooks through clsact. */
static int ours(const struct xn_tc_obj *f)
{
	return !strcmp(f->kind, "bpf") && f->handle == XDPNET_CLSACT_HANDLE &&
	       f->prio == XDPNET_CLSACT_PRIO;
}

void xn_filt_tc_filters(const struct xn_tc_obj *f, int n, char *buf, size_t len,
			const char *what)
{
	int i;

	/* Handle 0: the classifier of a priority and protocol itself, which
	 * a dump lists before its filters (tc shows it as a line without a
	 * handle); it does nothing by itself. */
	for (i = 0; i < n; i++)
		if (f[i].kind[0] && f[i].handle && !ours(&f[i]))
			add(buf, len, what, f[i].kind);
}

void xn_filt_tc_qdiscs(struct xn_filt_port_id *p, const struct xn_tc_obj *q,
		       int nq, int *ingress, int *clsact)
{
	int j;

	*ingress = *clsact = 0;
	for (j = 0; j < nq; j++) {
		if ((int)q[j].ifindex != p->ifindex)
			continue;
		if (q[j].parent == TC_H_INGRESS) {
			*ingress = 1;
			*clsact = !strcmp(q[j].kind, "clsact");
		} else if (q[j].handle) {
			add(p->tc_out, sizeof(p->tc_out), "qdisc", q[j].kind);
		}
	}
}

/* The filters at parent into buf; 0, or -1 when they cannot be read. A
 * qdisc that went away in between (or a port) has none. */
static int filters(const struct xn_filt_port_id *p, __u32 parent, char *buf,
		   size_t len, const char *what)
{
	struct xn_tc_obj *f = NULL;
	int n = 0, err;

	err = xn_dump_tfilters(p->ifindex, parent, &f, &n);
	if (err == -ENOENT || err == -ENODEV || err == -EINVAL)
		return 0;
	if (err)
		return -1;
	xn_filt_tc_filters(f, n, buf, len, what);
	free(f);
	return 0;
}

/* The programs on the port's tcx egress into p->tc_out; 0 or -1. */
static int tcx_egress(struct xn_filt_port_id *p)
{
	__u32 ids[16];
	char name[32];
	int n, i;

	n = xn_tcx_progs((__u32)p->ifindex, 1, ids, 16);
	if (n < 0)
		return n == -ENODEV || n == -ENOENT ? 0 : -1;
	for (i = 0; i < n; i++) {
		xn_prog_name(ids[i], name, sizeof(name));
		add(p->tc_out, sizeof(p->tc_out), "tcx program", name);
	}
	return 0;
}

void xn_filt_read_tc(struct xn_filt_port_id *ports, int n, char *unknown,
		     size_t len)
{
	struct xn_tc_obj *q = NULL;
	int nq = 0, i;

	if (xn_dump_qdiscs(&q, &nq)) {
		xf_note(unknown, len,
			"cannot read the tc qdiscs of the bridge's ports");
		return;
	}
	for (i = 0; i < n; i++) {
		struct xn_filt_port_id *p = &ports[i];
		int ingress = 0, clsact = 0;

		p->tc_in[0] = p->tc_out[0] = 0;
		xn_filt_tc_qdiscs(p, q, nq, &ingress, &clsact);
		if (ingress &&
		    filters(p, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
			    p->tc_in, sizeof(p->tc_in), "filter"))
			xf_note(unknown, len,
				"cannot read the tc ingress filters of %s",
				p->name);
		if (clsact &&
		    filters(p, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS),
			    p->tc_out, sizeof(p->tc_out), "egress filter"))
			xf_note(unknown, len,
				"cannot read the tc egress filters of %s",
				p->name);
		if (tcx_egress(p))
			xf_note(unknown, len,
				"cannot read the tcx egress programs of %s",
				p->name);
	}
	free(q);
}
