// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netlink with libnl: dumps go through one helper (xn_nl_dump) and every
 * message through a parser of its own (xn_parse_*, lib/nl_parse.c), which
 * the unit tests feed with recorded messages; lists through dump_vec().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/route/link.h>
#include "lib/nl.h"

/* libnl's own error codes, as errno values. */
static int nle_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_PERM:
		return -EPERM;
	case NLE_NODEV:
	case NLE_OBJ_NOTFOUND:
		return -ENODEV;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

struct dump_ctx {
	int (*cb)(const struct nlmsghdr *nlh, void *arg);
	void *arg;
	int err;
};

static int dump_valid(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *d = arg;
	int err;

	if (d->err)
		return NL_SKIP;
	err = d->cb(nlmsg_hdr(msg), d->arg);
	if (err < 0)
		d->err = err;
	return NL_OK;
}

/* Sends msg (and frees it), hands each message of the answer to cb. */
static int nl_exchange(struct nl_msg *msg,
		       int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	struct dump_ctx d = { .cb = cb, .arg = arg };
	struct nl_sock *sk;
	int err;

	sk = nl_socket_alloc();
	if (!sk) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0)
		goto out;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, dump_valid, &d);
	err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	if (err < 0)
		err = nle_errno(err);
	else
		err = d.err;
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	return err;
}

/*
 * One request and its answer. family/type select the dump; ifindex != 0
 * asks for one link (RTM_GETLINK) instead of a dump; extmask adds
 * IFLA_EXT_MASK. tc dumps (RTM_GETQDISC, RTM_GETTFILTER): ifindex is the
 * device (0: all, qdiscs only), extmask the filters' parent. RTM_GETVLAN:
 * the VLAN database of one port (ifindex) or of all.
 */
/* master: for a dump of links (RTM_GETLINK, AF_UNSPEC), only the ports of
 * this bridge (IFLA_MASTER: the kernel skips the others, so a dump costs
 * the bridge's ports, not the namespace's links; a kernel that ignores it
 * sends all, which the callbacks filter anyway). 0: no filter. */
static int nl_dump_master(int type, int family, __u32 ifindex, __u32 extmask,
			  __u32 master,
			  int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	int tc = type == RTM_GETQDISC || type == RTM_GETTFILTER;
	int dump = tc || type == RTM_GETVLAN || !ifindex;
	struct nl_msg *msg;
	int err;

	msg = nlmsg_alloc_simple(type, dump ? NLM_F_DUMP : 0);
	if (!msg)
		return -ENOMEM;
	if (type == RTM_GETNEIGH) {
		struct ndmsg ndm = { .ndm_family = family };

		err = nlmsg_append(msg, &ndm, sizeof(ndm), NLMSG_ALIGNTO);
	} else if (type == RTM_GETVLAN) {
		struct br_vlan_msg bvm = { .family = AF_BRIDGE,
					   .ifindex = ifindex };

		err = nlmsg_append(msg, &bvm, sizeof(bvm), NLMSG_ALIGNTO);
	} else if (tc) {
		struct tcmsg t = { .tcm_family = family,
				   .tcm_ifindex = ifindex,
				   .tcm_parent = extmask };

		err = nlmsg_append(msg, &t, sizeof(t), NLMSG_ALIGNTO);
	} else {
		struct ifinfomsg ifi = { .ifi_family = family,
					 .ifi_index = ifindex };

		err = nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
		if (!err && extmask)
			err = nla_put_u32(msg, IFLA_EXT_MASK, extmask);
		if (!err && master && dump && family == AF_UNSPEC)
			err = nla_put_u32(msg, IFLA_MASTER, master);
	}
	if (err < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return nl_exchange(msg, cb, arg);
}

static int xn_nl_dump(int type, int family, __u32 ifindex, __u32 extmask,
		      int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	return nl_dump_master(type, family, ifindex, extmask, 0, cb, arg);
}

struct vec {
	void *items;
	int n, cap;
	size_t size;
	__u32 filter; /* bridge ifindex */
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 16;
		void *p = realloc(v->items, cap * v->size);

		if (!p)
			return NULL;
		v->items = p;
		v->cap = cap;
	}
	return (char *)v->items + v->size * v->n++;
}

/* A dump into a vector: cb pushes items of size bytes (filter: the bridge
 * ifindex it keeps); *out is malloc'ed. 0 or a negative errno. */
static int dump_vec(int type, int family, __u32 ifindex, __u32 extmask,
		    int (*cb)(const struct nlmsghdr *, void *), size_t size,
		    __u32 filter, void **out, int *n)
{
	struct vec v = { .size = size, .filter = filter };
	int err = nl_dump_master(type, family, ifindex, extmask,
				 type == RTM_GETLINK ? filter : 0, cb, &v);

	if (err) {
		free(v.items);
		return err;
	}
	*out = v.items;
	*n = v.n;
	return 0;
}

static int link_one(const struct nlmsghdr *nlh, void *arg)
{
	struct xn_link *l = arg;

	return xn_parse_link(nlh, l) < 0 ? -EINVAL : 0;
}

struct uppers {
	struct xn_link *l;
	int n;
};

static int upper_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct uppers *u = arg;
	struct xn_link l;
	int i;

	if (xn_parse_link(nlh, &l) || !l.link || strcmp(l.kind, "vlan"))
		return 0;
	for (i = 0; i < u->n; i++)
		if (u->l[i].ifindex == l.link)
			u->l[i].vlan_upper = 1;
	return 0;
}

/* Mark the links of l that have a VLAN device on them. */
static int mark_vlan_uppers(struct xn_link *l, int n)
{
	struct uppers u = { l, n };

	return n ? xn_nl_dump(RTM_GETLINK, AF_UNSPEC, 0, 0, upper_cb, &u) : 0;
}

int xn_get_link_by_index(__u32 ifindex, struct xn_link *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	err = xn_nl_dump(RTM_GETLINK, AF_UNSPEC, ifindex, 0, link_one, out);
	if (err)
		return err;
	if (!out->ifindex)
		return -ENODEV;
	return out->is_port ? mark_vlan_uppers(out, 1) : 0;
}

int xn_get_link(const char *name, struct xn_link *out)
{
	struct rtnl_link *link = NULL;
	struct nl_sock *sk;
	int err, ifindex = 0;

	/* libnl-route resolves the name; our parser reads the details. */
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (!err)
		err = rtnl_link_get_kernel(sk, 0, name, &link);
	if (!err) {
		ifindex = rtnl_link_get_ifindex(link);
		rtnl_link_put(link);
	}
	nl_socket_free(sk);
	if (err < 0)
		return nle_errno(err);
	return xn_get_link_by_index(ifindex, out);
}

static int port_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_link l, *p;

	if (xn_parse_link(nlh, &l))
		return 0;
	if (!l.is_port || l.master != v->filter)
		return 0;
	p = vec_push(v);
	if (!p)
		return -ENOMEM;
	*p = l;
	return 0;
}

int xn_list_ports(__u32 bridge_ifindex, struct xn_link **out, int *n)
{
	int err = dump_vec(RTM_GETLINK, AF_UNSPEC, 0, 0, port_cb,
			   sizeof(struct xn_link), bridge_ifindex, (void **)out,
			   n);

	if (!err)
		err = mark_vlan_uppers(*out, *n);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

static int bridge_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_link l, *p;

	if (xn_parse_link(nlh, &l) || strcmp(l.kind, "bridge"))
		return 0;
	p = vec_push(v);
	if (!p)
		return -ENOMEM;
	*p = l;
	return 0;
}

int xn_list_bridges(struct xn_link **out, int *n)
{
	return dump_vec(RTM_GETLINK, AF_UNSPEC, 0, 0, bridge_cb,
			sizeof(struct xn_link), 0, (void **)out, n);
}

static int fdb_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_fdb_entry e, *p;

	if (xn_parse_fdb(nlh, &e))
		return 0;
	/* Entries of the bridge: on the bridge itself, or with it as master. */
	if (e.ifindex != v->filter && e.master != v->filter)
		return 0;
	p = vec_push(v);
	if (!p)
		return -ENOMEM;
	*p = e;
	return 0;
}

int xn_dump_fdb(__u32 bridge_ifindex, struct xn_fdb_entry **out, int *n)
{
	return dump_vec(RTM_GETNEIGH, AF_BRIDGE, 0, 0, fdb_cb,
			sizeof(struct xn_fdb_entry), bridge_ifindex,
			(void **)out, n);
}

static int port_vlan_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_vlan tmp[64];
	int n, i;

	n = xn_parse_vlans(nlh, tmp, 64);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		struct xn_vlan *p = vec_push(v);

		if (!p)
			return -ENOMEM;
		*p = tmp[i];
	}
	return 0;
}

static int vlan_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_link l;

	/* AF_BRIDGE link dumps carry IFLA_MASTER for ports, and for the
	 * bridge itself, which is not a port. */
	if (xn_parse_link(nlh, &l) || l.master != v->filter ||
	    l.ifindex == v->filter)
		return 0;
	return port_vlan_cb(nlh, arg);
}

/* Per-VLAN port states (the VLAN database) into the entries of v. */
struct vstates {
	struct xn_vlan *v;
	int n;
};

static int vstate_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vstates *s = arg;
	struct xn_vlan tmp[64];
	int n, i, j;

	n = xn_parse_vlandb(nlh, tmp, 64);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		for (j = 0; j < s->n; j++)
			if (s->v[j].ifindex == tmp[i].ifindex &&
			    s->v[j].vid == tmp[i].vid)
				s->v[j].state = tmp[i].state;
	return 0;
}

/* Kernels before 5.10 have no VLAN database, nor per-VLAN states: every
 * entry stays forwarding there. */
static int vlan_states(__u32 ifindex, struct xn_vlan *v, int n)
{
	struct vstates s = { v, n };
	int err;

	if (!n)
		return 0;
	err = xn_nl_dump(RTM_GETVLAN, AF_BRIDGE, ifindex, 0, vstate_cb, &s);
	return err == -EOPNOTSUPP || err == -EINVAL ? 0 : err;
}

int xn_dump_vlans(__u32 bridge_ifindex, struct xn_vlan **out, int *n)
{
	int err = dump_vec(RTM_GETLINK, AF_BRIDGE, 0,
			   RTEXT_FILTER_BRVLAN_COMPRESSED, vlan_cb,
			   sizeof(struct xn_vlan), bridge_ifindex, (void **)out,
			   n);

	if (!err && (err = vlan_states(0, *out, *n)))
		free(*out);
	return err;
}

int xn_port_vlans(__u32 ifindex, struct xn_vlan **out, int *n)
{
	/* The port's master is whatever it is: filter by ifindex instead. */
	int err = dump_vec(RTM_GETLINK, AF_BRIDGE, ifindex,
			   RTEXT_FILTER_BRVLAN_COMPRESSED, port_vlan_cb,
			   sizeof(struct xn_vlan), 0, (void **)out, n);

	if (!err && (err = vlan_states(ifindex, *out, *n)))
		free(*out);
	return err;
}

static int fdb_one(const struct nlmsghdr *nlh, void *arg)
{
	return xn_parse_fdb(nlh, arg) < 0 ? -EINVAL : 0;
}

int xn_fdb_get(__u32 bridge_ifindex, const __u8 *mac, __u16 vid,
	       struct xn_fdb_entry *out)
{
	struct ndmsg ndm = { .ndm_family = AF_BRIDGE };
	struct dump_ctx d = { .cb = fdb_one, .arg = out };
	struct nl_sock *sk;
	struct nl_msg *msg;
	int err;

	memset(out, 0, sizeof(*out));
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0)
		goto out_sock;
	msg = nlmsg_alloc_simple(RTM_GETNEIGH, 0);
	if (!msg) {
		err = -NLE_NOMEM;
		goto out_sock;
	}
	err = nlmsg_append(msg, &ndm, sizeof(ndm), NLMSG_ALIGNTO);
	if (!err)
		err = nla_put(msg, NDA_LLADDR, 6, mac);
	if (!err)
		err = nla_put_u32(msg, NDA_MASTER, bridge_ifindex);
	if (!err && vid)
		err = nla_put_u16(msg, NDA_VLAN, vid);
	if (!err) {
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, dump_valid,
				    &d);
		err = nl_send_auto(sk, msg);
		if (err >= 0)
			err = nl_recvmsgs_default(sk);
	}
	nlmsg_free(msg);
out_sock:
	nl_socket_free(sk);
	if (err == -NLE_OBJ_NOTFOUND || err == -NLE_NOADDR)
		return -ENOENT;
	if (err < 0)
		return nle_errno(err) == -ENODEV ? -ENOENT : nle_errno(err);
	return d.err ? d.err : (out->ifindex ? 0 : -ENOENT);
}

int xn_events_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = (1U << (RTNLGRP_LINK - 1)) |
			     (1U << (RTNLGRP_NEIGH - 1)) |
			     (1U << (RTNLGRP_TC - 1)),
	};
	int fd, sz = 8 << 20;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	/* A flood of learned MACs is a burst of RTM_NEWNEIGH: room for it.
	 * (SO_RCVBUFFORCE as root, SO_RCVBUF's cap otherwise.) */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* The VLAN database (per-VLAN port state: 'bridge vlan set ...
	 * state' raises nothing else); a group past 32, so not in
	 * nl_groups. Kernels before 5.10 have none: nothing to follow. */
	{
		int g = RTNLGRP_BRVLAN;

		setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
			   sizeof(g));
	}
	return fd;
}

int xn_events_read(int fd, int (*cb)(const struct nlmsghdr *nlh, void *arg),
		   void *arg)
{
	static char buf[64 << 10] __attribute__((aligned(8)));

	for (;;) {
		struct nlmsghdr *nlh;
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		int err;

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -errno; /* -ENOBUFS: we lost some */
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, (size_t)len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type == NLMSG_DONE ||
			    nlh->nlmsg_type == NLMSG_ERROR)
				continue;
			err = cb(nlh, arg);
			if (err)
				return err;
		}
	}
}

static int tc_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_tc_obj o, *p;
	int rc = xn_parse_tc(nlh, &o);

	if (rc)
		return rc < 0 ? rc : 0;
	p = vec_push(v);
	if (!p)
		return -ENOMEM;
	*p = o;
	return 0;
}

int xn_dump_qdiscs(struct xn_tc_obj **out, int *n)
{
	return dump_vec(RTM_GETQDISC, AF_UNSPEC, 0, 0, tc_cb, sizeof(**out), 0,
			(void **)out, n);
}

int xn_dump_tfilters(__u32 ifindex, __u32 parent, struct xn_tc_obj **out,
		     int *n)
{
	return dump_vec(RTM_GETTFILTER, AF_UNSPEC, ifindex, parent, tc_cb,
			sizeof(**out), 0, (void **)out, n);
}

static int port_stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct vec *v = arg;
	struct xn_port_stats ps, *p;

	if (xn_parse_link(nlh, &ps.link))
		return 0;
	if (!ps.link.is_port || ps.link.master != v->filter)
		return 0;
	if (xn_parse_link_stats(nlh, &ps.st) < 0)
		return -EINVAL;
	p = vec_push(v);
	if (!p)
		return -ENOMEM;
	*p = ps;
	return 0;
}

int xn_list_port_stats(__u32 bridge_ifindex, struct xn_port_stats **out, int *n)
{
	return dump_vec(RTM_GETLINK, AF_UNSPEC, 0, 0, port_stats_cb,
			sizeof(struct xn_port_stats), bridge_ifindex,
			(void **)out, n);
}
