// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netlink message parsers (lib/nl.h's xn_parse_*): one per kind of
 * message, strict about sizes, fed by lib/nl.c's queries and by the unit
 * tests with recorded messages.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include "lib/nl.h"

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
	[IFLA_PROMISCUITY] = { .type = NLA_U32 },
	[IFLA_LINK] = { .type = NLA_U32 },
	[IFLA_LINK_NETNSID] = { .type = NLA_S32 },
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
	[IFLA_BR_STP_STATE] = { .type = NLA_U32 },
	[IFLA_BR_VLAN_PROTOCOL] = { .type = NLA_U16 },
	[IFLA_BR_FORWARD_DELAY] = { .type = NLA_U32 },
	[IFLA_BR_MULTI_BOOLOPT] = { .minlen = sizeof(struct br_boolopt_multi) },
	[IFLA_BR_NF_CALL_IPTABLES] = { .type = NLA_U8 },
	[IFLA_BR_NF_CALL_IP6TABLES] = { .type = NLA_U8 },
	[IFLA_BR_NF_CALL_ARPTABLES] = { .type = NLA_U8 },
};

/* Newer than some installed headers (Linux 6.8): a port whose neighbour
 * suppression is per VLAN. */
#define XN_BRPORT_NEIGH_VLAN_SUPPRESS 43
#define XN_BRPORT_MAX                                    \
	(IFLA_BRPORT_MAX > XN_BRPORT_NEIGH_VLAN_SUPPRESS \
		 ? IFLA_BRPORT_MAX                       \
		 : XN_BRPORT_NEIGH_VLAN_SUPPRESS)

static struct nla_policy brport_policy[XN_BRPORT_MAX + 1] = {
	[IFLA_BRPORT_STATE] = { .type = NLA_U8 },
	[IFLA_BRPORT_LEARNING] = { .type = NLA_U8 },
	[IFLA_BRPORT_ISOLATED] = { .type = NLA_U8 },
	[IFLA_BRPORT_LOCKED] = { .type = NLA_U8 },
	[IFLA_BRPORT_BACKUP_PORT] = { .type = NLA_U32 },
	[IFLA_BRPORT_VLAN_TUNNEL] = { .type = NLA_U8 },
	[IFLA_BRPORT_PROXYARP] = { .type = NLA_U8 },
	[IFLA_BRPORT_PROXYARP_WIFI] = { .type = NLA_U8 },
	[IFLA_BRPORT_NEIGH_SUPPRESS] = { .type = NLA_U8 },
	[XN_BRPORT_NEIGH_VLAN_SUPPRESS] = { .type = NLA_U8 },
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
	if (tb[IFLA_PROMISCUITY])
		out->promiscuity = nla_get_u32(tb[IFLA_PROMISCUITY]);
	if (tb[IFLA_LINK] && !tb[IFLA_LINK_NETNSID])
		out->link = nla_get_u32(tb[IFLA_LINK]);
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
		if (br[IFLA_BR_VLAN_PROTOCOL])
			out->vlan_protocol =
				ntohs(nla_get_u16(br[IFLA_BR_VLAN_PROTOCOL]));
		if (br[IFLA_BR_STP_STATE])
			out->br_stp = nla_get_u32(br[IFLA_BR_STP_STATE]);
		if (br[IFLA_BR_FORWARD_DELAY])
			out->forward_delay_cs =
				nla_get_u32(br[IFLA_BR_FORWARD_DELAY]);
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
		static const int neigh[] = { IFLA_BRPORT_PROXYARP,
					     IFLA_BRPORT_PROXYARP_WIFI,
					     IFLA_BRPORT_NEIGH_SUPPRESS,
					     XN_BRPORT_NEIGH_VLAN_SUPPRESS };
		struct nlattr *bp[XN_BRPORT_MAX + 1];
		unsigned int i;

		if (parse_nested(bp, XN_BRPORT_MAX, li[IFLA_INFO_SLAVE_DATA],
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
		if (bp[IFLA_BRPORT_VLAN_TUNNEL])
			out->vlan_tunnel =
				nla_get_u8(bp[IFLA_BRPORT_VLAN_TUNNEL]);
		if (bp[IFLA_BRPORT_BACKUP_PORT])
			out->backup_port =
				nla_get_u32(bp[IFLA_BRPORT_BACKUP_PORT]);
		for (i = 0; i < sizeof(neigh) / sizeof(neigh[0]); i++)
			if (bp[neigh[i]] && nla_get_u8(bp[neigh[i]]))
				out->neigh_proxy = 1;
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
	if (tb[NDA_FDB_EXT_ATTRS]) {
		struct nlattr *ext[NFEA_MAX + 1];

		if (parse_nested(ext, NFEA_MAX, tb[NDA_FDB_EXT_ATTRS], NULL))
			return -EINVAL;
		if (ext[NFEA_ACTIVITY_NOTIFY] &&
		    nla_len(ext[NFEA_ACTIVITY_NOTIFY]) >= 1 &&
		    (nla_get_u8(ext[NFEA_ACTIVITY_NOTIFY]) & FDB_NOTIFY_BIT))
			out->notify = 1;
	}
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
			out[n].state = BR_STATE_FORWARDING;
			n++;
		}
		begin = 0;
	}
	return n;
}

static struct nla_policy vlandb_policy[BRIDGE_VLANDB_ENTRY_MAX + 1] = {
	[BRIDGE_VLANDB_ENTRY_INFO] = { .minlen = sizeof(
					       struct bridge_vlan_info) },
	[BRIDGE_VLANDB_ENTRY_RANGE] = { .type = NLA_U16 },
	[BRIDGE_VLANDB_ENTRY_STATE] = { .type = NLA_U8 },
};

int xn_parse_vlandb(const struct nlmsghdr *cnlh, struct xn_vlan *out, int max)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)cnlh;
	struct nlattr *tb[BRIDGE_VLANDB_MAX + 1], *a;
	struct br_vlan_msg *bvm;
	int n = 0, rem;

	if (nlh->nlmsg_type != RTM_NEWVLAN)
		return -EINVAL;
	if (parse_msg(nlh, sizeof(*bvm), tb, BRIDGE_VLANDB_MAX, NULL))
		return -EINVAL;
	bvm = nlmsg_data(nlh);
	nla_for_each_attr (a, nlmsg_attrdata(nlh, sizeof(*bvm)),
			   nlmsg_attrlen(nlh, sizeof(*bvm)), rem) {
		struct nlattr *e[BRIDGE_VLANDB_ENTRY_MAX + 1];
		struct bridge_vlan_info *vi;
		__u16 vid, last;
		__u8 state = BR_STATE_FORWARDING;

		if (nla_type(a) != BRIDGE_VLANDB_ENTRY)
			continue;
		if (parse_nested(e, BRIDGE_VLANDB_ENTRY_MAX, a,
				 vlandb_policy) ||
		    !e[BRIDGE_VLANDB_ENTRY_INFO])
			return -EINVAL;
		vi = nla_data(e[BRIDGE_VLANDB_ENTRY_INFO]);
		last = e[BRIDGE_VLANDB_ENTRY_RANGE]
			       ? nla_get_u16(e[BRIDGE_VLANDB_ENTRY_RANGE])
			       : vi->vid;
		if (e[BRIDGE_VLANDB_ENTRY_STATE])
			state = nla_get_u8(e[BRIDGE_VLANDB_ENTRY_STATE]);
		if (vi->vid == 0 || last < vi->vid || last >= 4095)
			return -EINVAL;
		for (vid = vi->vid; vid <= last; vid++) {
			if (n >= max)
				return n;
			out[n].ifindex = bvm->ifindex;
			out[n].vid = vid;
			out[n].flags = vi->flags & (BRIDGE_VLAN_INFO_PVID |
						    BRIDGE_VLAN_INFO_UNTAGGED);
			out[n].state = state;
			n++;
		}
	}
	return n;
}

static struct nla_policy tc_policy[TCA_MAX + 1] = {
	[TCA_KIND] = { .type = NLA_STRING },
};

int xn_parse_tc(const struct nlmsghdr *cnlh, struct xn_tc_obj *out)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)cnlh;
	struct nlattr *tb[TCA_MAX + 1];
	struct tcmsg *t;

	if (nlh->nlmsg_type != RTM_NEWQDISC &&
	    nlh->nlmsg_type != RTM_NEWTFILTER)
		return 1;
	if (parse_msg(nlh, sizeof(*t), tb, TCA_MAX, tc_policy))
		return -EINVAL;
	t = nlmsg_data(nlh);
	memset(out, 0, sizeof(*out));
	out->ifindex = t->tcm_ifindex;
	out->handle = t->tcm_handle;
	out->parent = t->tcm_parent;
	if (nlh->nlmsg_type == RTM_NEWTFILTER) {
		out->prio = TC_H_MAJ(t->tcm_info) >> 16;
		out->proto = TC_H_MIN(t->tcm_info);
	}
	copy_str(out->kind, sizeof(out->kind), tb[TCA_KIND]);
	return 0;
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
