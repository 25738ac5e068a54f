// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netlink with libnl: dumps go through one helper (xn_nl_dump) and every
 * message through a parser of its own (xn_parse_*), which the unit tests
 * feed with recorded messages.
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

/*
 * libnl's parser stops quietly at the first attribute that does not fit
 * and, without a policy, trusts every attribute's size. Check both: every
 * byte belongs to a whole attribute (an unpadded last one is fine), and
 * the policies below give the minimum payload of everything we read.
 */
static int parse_attrs(struct nlattr **tb, int max, struct nlattr *head,
		       int len, struct nla_policy *policy)
{
	struct nlattr *a;
	int rem;

	nla_for_each_attr (a, head, len, rem)
		;
	if (rem > 0)
		return -EINVAL;
	return nla_parse(tb, max, head, len, policy) < 0 ? -EINVAL : 0;
}

static int parse_nested(struct nlattr **tb, int max, struct nlattr *nest,
			struct nla_policy *policy)
{
	return parse_attrs(tb, max, nla_data(nest), nla_len(nest), policy);
}

static int parse_msg(const struct nlmsghdr *cnlh, int hdrlen,
		     struct nlattr **tb, int max, struct nla_policy *policy)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)cnlh;

	if (!nlmsg_valid_hdr(nlh, hdrlen))
		return -EINVAL;
	return parse_attrs(tb, max, nlmsg_attrdata(nlh, hdrlen),
			   nlmsg_attrlen(nlh, hdrlen), policy);
}

static struct nla_policy link_policy[IFLA_MAX + 1] = {
	[IFLA_IFNAME] = { .type = NLA_STRING },
	[IFLA_MASTER] = { .type = NLA_U32 },
	[IFLA_MTU] = { .type = NLA_U32 },
	[IFLA_LINKINFO] = { .type = NLA_NESTED },
	[IFLA_XDP] = { .type = NLA_NESTED },
	[IFLA_AF_SPEC] = { .type = NLA_NESTED },
};

static struct nla_policy xdp_policy[IFLA_XDP_MAX + 1] = {
	[IFLA_XDP_PROG_ID] = { .type = NLA_U32 },
};

static struct nla_policy info_policy[IFLA_INFO_MAX + 1] = {
	[IFLA_INFO_KIND] = { .type = NLA_STRING },
	[IFLA_INFO_SLAVE_KIND] = { .type = NLA_STRING },
	[IFLA_INFO_DATA] = { .type = NLA_NESTED },
	[IFLA_INFO_SLAVE_DATA] = { .type = NLA_NESTED },
};

static struct nla_policy br_policy[IFLA_BR_MAX + 1] = {
	[IFLA_BR_VLAN_FILTERING] = { .type = NLA_U8 },
	[IFLA_BR_AGEING_TIME] = { .type = NLA_U32 },
	[IFLA_BR_MULTI_BOOLOPT] = { .minlen = sizeof(struct br_boolopt_multi) },
	[IFLA_BR_NF_CALL_IPTABLES] = { .type = NLA_U8 },
	[IFLA_BR_NF_CALL_IP6TABLES] = { .type = NLA_U8 },
	[IFLA_BR_NF_CALL_ARPTABLES] = { .type = NLA_U8 },
};

static struct nla_policy brport_policy[IFLA_BRPORT_MAX + 1] = {
	[IFLA_BRPORT_STATE] = { .type = NLA_U8 },
	[IFLA_BRPORT_LEARNING] = { .type = NLA_U8 },
	[IFLA_BRPORT_ISOLATED] = { .type = NLA_U8 },
	[IFLA_BRPORT_LOCKED] = { .type = NLA_U8 },
};

static struct nla_policy neigh_policy[NDA_MAX + 1] = {
	[NDA_VLAN] = { .type = NLA_U16 },
	[NDA_MASTER] = { .type = NLA_U32 },
};

static void copy_str(char *dst, size_t len, struct nlattr *a)
{
	if (!a)
		return;
	nla_strlcpy(dst, a, len);
}

int xn_parse_link(const struct nlmsghdr *cnlh, struct xn_link *out)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)cnlh;
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];
	struct ifinfomsg *ifi;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 1;
	if (parse_msg(nlh, sizeof(*ifi), tb, IFLA_MAX, link_policy))
		return -EINVAL;
	ifi = nlmsg_data(nlh);
	memset(out, 0, sizeof(*out));
	out->ifindex = ifi->ifi_index;
	out->flags = ifi->ifi_flags;
	copy_str(out->name, sizeof(out->name), tb[IFLA_IFNAME]);
	if (tb[IFLA_MASTER])
		out->master = nla_get_u32(tb[IFLA_MASTER]);
	if (tb[IFLA_MTU])
		out->mtu = nla_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_ADDRESS] && nla_len(tb[IFLA_ADDRESS]) == 6)
		memcpy(out->mac, nla_data(tb[IFLA_ADDRESS]), 6);
	if (tb[IFLA_XDP]) {
		struct nlattr *xdp[IFLA_XDP_MAX + 1];

		if (parse_nested(xdp, IFLA_XDP_MAX, tb[IFLA_XDP], xdp_policy))
			return -EINVAL;
		if (xdp[IFLA_XDP_PROG_ID])
			out->xdp_prog_id = nla_get_u32(xdp[IFLA_XDP_PROG_ID]);
	}
	if (!tb[IFLA_LINKINFO])
		return 0;
	if (parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], info_policy))
		return -EINVAL;
	copy_str(out->kind, sizeof(out->kind), li[IFLA_INFO_KIND]);
	if (!strcmp(out->kind, "bridge") && li[IFLA_INFO_DATA]) {
		struct nlattr *br[IFLA_BR_MAX + 1];

		if (parse_nested(br, IFLA_BR_MAX, li[IFLA_INFO_DATA],
				 br_policy))
			return -EINVAL;
		if (br[IFLA_BR_VLAN_FILTERING])
			out->vlan_filtering =
				nla_get_u8(br[IFLA_BR_VLAN_FILTERING]);
		if (br[IFLA_BR_AGEING_TIME])
			out->ageing_time_cs =
				nla_get_u32(br[IFLA_BR_AGEING_TIME]);
		if (br[IFLA_BR_NF_CALL_IPTABLES])
			out->nf_call_iptables =
				nla_get_u8(br[IFLA_BR_NF_CALL_IPTABLES]);
		if (br[IFLA_BR_NF_CALL_IP6TABLES])
			out->nf_call_ip6tables =
				nla_get_u8(br[IFLA_BR_NF_CALL_IP6TABLES]);
		if (br[IFLA_BR_NF_CALL_ARPTABLES])
			out->nf_call_arptables =
				nla_get_u8(br[IFLA_BR_NF_CALL_ARPTABLES]);
		if (br[IFLA_BR_MULTI_BOOLOPT]) {
			struct br_boolopt_multi *bm =
				nla_data(br[IFLA_BR_MULTI_BOOLOPT]);

			out->mst =
				!!(bm->optval & (1U << BR_BOOLOPT_MST_ENABLE));
		}
	}
	if (li[IFLA_INFO_SLAVE_KIND] && li[IFLA_INFO_SLAVE_DATA] &&
	    !strcmp(nla_get_string(li[IFLA_INFO_SLAVE_KIND]), "bridge")) {
		struct nlattr *bp[IFLA_BRPORT_MAX + 1];

		if (parse_nested(bp, IFLA_BRPORT_MAX, li[IFLA_INFO_SLAVE_DATA],
				 brport_policy))
			return -EINVAL;
		out->is_port = 1;
		if (bp[IFLA_BRPORT_STATE])
			out->stp_state = nla_get_u8(bp[IFLA_BRPORT_STATE]);
		if (bp[IFLA_BRPORT_LEARNING])
			out->learning = nla_get_u8(bp[IFLA_BRPORT_LEARNING]);
		if (bp[IFLA_BRPORT_ISOLATED])
			out->isolated = nla_get_u8(bp[IFLA_BRPORT_ISOLATED]);
		if (bp[IFLA_BRPORT_LOCKED])
			out->locked = nla_get_u8(bp[IFLA_BRPORT_LOCKED]);
	}
	return 0;
}

int xn_parse_fdb(const struct nlmsghdr *cnlh, struct xn_fdb_entry *out)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)cnlh;
	struct nlattr *tb[NDA_MAX + 1];
	struct ndmsg *ndm;

	if (nlh->nlmsg_type != RTM_NEWNEIGH)
		return 1;
	if (parse_msg(nlh, sizeof(*ndm), tb, NDA_MAX, neigh_policy))
		return -EINVAL;
	ndm = nlmsg_data(nlh);
	if (ndm->ndm_family != AF_BRIDGE)
		return 1;
	if (!tb[NDA_LLADDR] || nla_len(tb[NDA_LLADDR]) != 6)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->mac, nla_data(tb[NDA_LLADDR]), 6);
	out->ifindex = ndm->ndm_ifindex;
	out->state = ndm->ndm_state;
	out->flags = ndm->ndm_flags;
	if (tb[NDA_VLAN])
		out->vid = nla_get_u16(tb[NDA_VLAN]);
	if (tb[NDA_MASTER])
		out->master = nla_get_u32(tb[NDA_MASTER]);
	return 0;
}

int xn_parse_vlans(const struct nlmsghdr *cnlh, struct xn_vlan *out, int max)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)cnlh;
	struct nlattr *tb[IFLA_MAX + 1], *a;
	struct ifinfomsg *ifi;
	int n = 0, rem;
	__u16 begin = 0;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return -EINVAL;
	if (parse_msg(nlh, sizeof(*ifi), tb, IFLA_MAX, link_policy))
		return -EINVAL;
	ifi = nlmsg_data(nlh);
	if (ifi->ifi_family != AF_BRIDGE)
		return 0; /* bridge VLANs only come in AF_BRIDGE messages */
	if (!tb[IFLA_AF_SPEC])
		return 0;
	nla_for_each_nested (a, tb[IFLA_AF_SPEC], rem) {
		struct bridge_vlan_info *vi;
		__u16 vid;

		if (nla_type(a) != IFLA_BRIDGE_VLAN_INFO)
			continue;
		if (nla_len(a) < (int)sizeof(*vi))
			return -EINVAL;
		vi = nla_data(a);
		if (vi->flags & BRIDGE_VLAN_INFO_RANGE_BEGIN) {
			begin = vi->vid;
			continue;
		}
		vid = (vi->flags & BRIDGE_VLAN_INFO_RANGE_END) ? begin
							       : vi->vid;
		if (vid == 0 || vid > vi->vid || vi->vid >= 4095)
			return -EINVAL;
		for (; vid <= vi->vid; vid++) {
			if (n >= max)
				return n;
			out[n].ifindex = ifi->ifi_index;
			out[n].vid = vid;
			out[n].flags = vi->flags & (BRIDGE_VLAN_INFO_PVID |
						    BRIDGE_VLAN_INFO_UNTAGGED);
			n++;
		}
		begin = 0;
	}
	return n;
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

/*
 * One request and its answer. family/type select the dump; ifindex != 0
 * asks for one link (RTM_GETLINK) instead of a dump; extmask adds
 * IFLA_EXT_MASK.
 */
static int xn_nl_dump(int type, int family, __u32 ifindex, __u32 extmask,
		      int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	struct dump_ctx d = { .cb = cb, .arg = arg };
	struct nl_sock *sk;
	struct nl_msg *msg;
	int err;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0)
		goto out_sock;
	msg = nlmsg_alloc_simple(type, ifindex ? 0 : NLM_F_DUMP);
	if (!msg) {
		err = -ENOMEM;
		goto out_sock;
	}
	if (type == RTM_GETNEIGH) {
		struct ndmsg ndm = { .ndm_family = family };

		err = nlmsg_append(msg, &ndm, sizeof(ndm), NLMSG_ALIGNTO);
	} else {
		struct ifinfomsg ifi = { .ifi_family = family,
					 .ifi_index = ifindex };

		err = nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
		if (!err && extmask)
			err = nla_put_u32(msg, IFLA_EXT_MASK, extmask);
	}
	if (err < 0)
		goto out_msg;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, dump_valid, &d);
	err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	if (err < 0)
		err = nle_errno(err);
	else
		err = d.err;
out_msg:
	nlmsg_free(msg);
out_sock:
	nl_socket_free(sk);
	return err;
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
	int err = xn_nl_dump(type, family, ifindex, extmask, cb, &v);

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

int xn_get_link_by_index(__u32 ifindex, struct xn_link *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	err = xn_nl_dump(RTM_GETLINK, AF_UNSPEC, ifindex, 0, link_one, out);
	if (err)
		return err;
	return out->ifindex ? 0 : -ENODEV;
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
	return dump_vec(RTM_GETLINK, AF_UNSPEC, 0, 0, port_cb,
			sizeof(struct xn_link), bridge_ifindex, (void **)out,
			n);
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

int xn_dump_vlans(__u32 bridge_ifindex, struct xn_vlan **out, int *n)
{
	return dump_vec(RTM_GETLINK, AF_BRIDGE, 0,
			RTEXT_FILTER_BRVLAN_COMPRESSED, vlan_cb,
			sizeof(struct xn_vlan), bridge_ifindex, (void **)out,
			n);
}

int xn_port_vlans(__u32 ifindex, struct xn_vlan **out, int *n)
{
	/* The port's master is whatever it is: filter by ifindex instead. */
	return dump_vec(RTM_GETLINK, AF_BRIDGE, ifindex,
			RTEXT_FILTER_BRVLAN_COMPRESSED, port_vlan_cb,
			sizeof(struct xn_vlan), 0, (void **)out, n);
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
			     (1U << (RTNLGRP_NEIGH - 1)),
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

static struct nla_policy stats_policy[IFLA_MAX + 1] = {
	[IFLA_STATS64] = { .minlen = sizeof(struct xn_link_stats) },
};

int xn_parse_link_stats(const struct nlmsghdr *nlh, struct xn_link_stats *out)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct rtnl_link_stats64 st;
	int len;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 1;
	if (parse_msg(nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX,
		      stats_policy))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!tb[IFLA_STATS64])
		return 1;
	/* Older kernels send fewer fields, newer ones more; the attribute
	 * need not be 8-byte aligned. */
	len = nla_len(tb[IFLA_STATS64]);
	if (len < (int)sizeof(*out))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	memcpy(&st, nla_data(tb[IFLA_STATS64]),
	       len < (int)sizeof(st) ? len : (int)sizeof(st));
	out->rx_packets = st.rx_packets;
	out->tx_packets = st.tx_packets;
	out->rx_bytes = st.rx_bytes;
	out->tx_bytes = st.tx_bytes;
	out->rx_errors = st.rx_errors;
	out->tx_errors = st.tx_errors;
	out->rx_dropped = st.rx_dropped;
	out->tx_dropped = st.tx_dropped;
	return 0;
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
