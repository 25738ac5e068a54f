// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the follower hears: see follow_events.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include "lib/util.h"
#include "sync/follow_events.h"

static void batch_link(struct xn_batch *b, __u32 ifindex)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->link[i] == ifindex)
			return;
	if (b->n == XN_MAX_BATCH)
		b->full = 1;
	else
		b->link[b->n++] = ifindex;
}

int xn_batch_event(const struct nlmsghdr *nlh, void *arg)
{
	struct xn_batch *b = arg;
	struct xn_fdb_entry e;
	struct ifinfomsg *ifi;
	int parsed, mine;
	struct xn_link l;
	__u32 slot;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			return 0;
		ifi = NLMSG_DATA(nlh);
		if ((__u32)ifi->ifi_index == b->bridge) {
			if (nlh->nlmsg_type == RTM_DELLINK &&
			    ifi->ifi_family != AF_BRIDGE)
				b->gone = 1;
			else /* the bridge's settings, its nf_call_* too */
				b->full = b->tc = 1;
			return 0;
		}
		/* A port we have (it may be leaving: IFLA_MASTER absent, or
		 * another bridge's), or one that names our bridge (joining):
		 * re-read it. Not the host's other links: addrconf alone
		 * sends a few messages per link, without IFLA_MASTER, and a
		 * re-read reads every port's entry. */
		parsed = xn_parse_link(nlh, &l) == 0;
		mine = !bpf_map_lookup_elem(b->port_idx, &ifi->ifi_index,
					    &slot);
		if (nlh->nlmsg_type == RTM_DELLINK || mine ||
		    (parsed && l.master == b->bridge) ||
		    (!parsed && ifi->ifi_family == AF_BRIDGE))
			batch_link(b, ifi->ifi_index);
		/* A VLAN device coming onto a port we have, or going. */
		if (parsed && l.link && !strcmp(l.kind, "vlan") &&
		    !bpf_map_lookup_elem(b->port_idx, &l.link, &slot))
			batch_link(b, l.link);
		if (nlh->nlmsg_type == RTM_NEWLINK && parsed &&
		    l.master == b->bridge && !mine)
			b->newcomer = 1;
		return 0;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		if (xn_parse_fdb(nlh, &e) ||
		    (e.master != b->bridge && e.ifindex != b->bridge))
			return 0;
		if (b->nfdb == XN_MAX_BATCH) {
			b->full = 1;
			return 0;
		}
		b->fdb[b->nfdb].e = e;
		b->fdb[b->nfdb++].deleted = nlh->nlmsg_type == RTM_DELNEIGH;
		return 0;
	case RTM_NEWQDISC:
	case RTM_DELQDISC:
	case RTM_NEWTFILTER:
	case RTM_DELTFILTER:
		/* tc of the bridge or of one of its ports (held or carried),
		 * or of a device gone already (it may have been one): read
		 * the filters again. Not for other devices: that read runs
		 * the host's filter tools, and a host (or a test) that
		 * changes tc elsewhere would keep the follower busy. */
		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct tcmsg))) {
			int dev =
				((struct tcmsg *)NLMSG_DATA(nlh))->tcm_ifindex;

			if (dev > 0 && (__u32)dev != b->bridge &&
			    !xn_get_link_by_index((__u32)dev, &l) &&
			    l.master != b->bridge)
				return 0;
		}
		b->tc = 1;
		return 0;
	case RTM_NEWVLAN:
	case RTM_DELVLAN:
		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct br_vlan_msg)))
			batch_link(b, ((struct br_vlan_msg *)NLMSG_DATA(nlh))
					      ->ifindex);
		return 0;
	default:
		return 0;
	}
}

int xn_nft_events_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = 1U << (NFNLGRP_NFTABLES - 1) };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_NETFILTER);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int xn_nft_events_drain(int fd)
{
	char buf[8192];
	int any = 0;

	while (fd >= 0 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) != -1)
		any = 1;
	return any || (fd >= 0 && errno == ENOBUFS);
}

unsigned int xn_nf_switches(void)
{
	static const char *const which[] = { "call-iptables", "call-ip6tables",
					     "call-arptables",
					     "filter-vlan-tagged",
					     "filter-pppoe-tagged" };
	unsigned int i, v = 0;
	char path[64], c;
	int fd;

	for (i = 0; i < ARRAY_SIZE(which); i++) {
		snprintf(path, sizeof(path),
			 "/proc/sys/net/bridge/bridge-nf-%s", which[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 1U << 31;
		if (read(fd, &c, 1) == 1 && c != '0')
			v |= 1U << i;
		close(fd);
	}
	return v;
}

unsigned int xn_nf_on_now(const struct xn_link *br)
{
	unsigned int v = xn_nf_switches();
	struct xn_link now;

	if (v & 1U << 31)
		return 0;
	if (!xn_get_link_by_index(br->ifindex, &now))
		v |= (now.nf_call_iptables ? 1U : 0) |
		     (now.nf_call_ip6tables ? 2U : 0) |
		     (now.nf_call_arptables ? 4U : 0);
	return v & 7 ? v : 0;
}
