/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Netlink (libnl-3, libnl-route-3): bridges, ports, VLANs, the bridge FDB. */
#ifndef XN_NL_H
#define XN_NL_H

#include <linux/types.h>
#include <net/if.h>
#include <linux/netlink.h>

struct xn_link {
	__u32 ifindex;
	char name[IF_NAMESIZE];
	char kind[16]; /* IFLA_INFO_KIND: "bridge", "tun", "veth", ... */
	__u32 master;  /* IFLA_MASTER, 0 if none */
	/* IFLA_LINK: the lower device of a VLAN device (0 if none, or in
	 * another namespace: IFLA_LINK_NETNSID) */
	__u32 link;
	__u32 mtu;
	__u32 flags; /* IFF_* */
	__u8 mac[6];
	__u32 xdp_prog_id; /* IFLA_XDP_PROG_ID, 0 if none */
	/* IFLA_PROMISCUITY: > 0 while the device is promiscuous, whoever
	 * asked (ifi_flags shows IFF_PROMISC only when 'ip link' set it) */
	__u32 promiscuity;
	/* bridge device (kind "bridge") */
	__u32 vlan_filtering;
	__u32 ageing_time_cs; /* IFLA_BR_AGEING_TIME, centiseconds */
	__u32 br_stp; /* IFLA_BR_STP_STATE: 0 off, 1 kernel, 2 user STP */
	__u16 vlan_protocol; /* IFLA_BR_VLAN_PROTOCOL, host order (0x8100) */
	/* IFLA_BR_FORWARD_DELAY, centiseconds: the one in use (the root
	 * bridge's, with STP on) */
	__u32 forward_delay_cs;
	__u8 mst; /* multiple spanning trees (per-VLAN states) */
	__u8 nf_call_iptables, nf_call_ip6tables, nf_call_arptables;
	/* bridge port (IFLA_INFO_SLAVE_KIND "bridge") */
	int is_port;
	__u8 stp_state; /* BR_STATE_* */
	__u8 learning;
	__u8 isolated;
	__u8 locked;
	__u32 backup_port; /* IFLA_BRPORT_BACKUP_PORT: ifindex, 0 if none */
	/* proxy_arp, proxy_arp_wifi, neigh_suppress or neigh_vlan_suppress:
	 * the bridge answers ARP or ND requests itself */
	__u8 neigh_proxy;
	__u8 vlan_tunnel; /* IFLA_BRPORT_VLAN_TUNNEL */
	/* A VLAN device on this device: its VLAN's frames go to it before
	 * the bridge sees them (xn_list_ports() and xn_get_link_by_index()
	 * fill it in) */
	__u8 vlan_upper;
};

struct xn_fdb_entry {
	__u8 mac[6];
	__u16 vid;     /* NDA_VLAN, 0 if absent */
	__u32 ifindex; /* ndm_ifindex: the port */
	__u32 master;  /* NDA_MASTER, 0 if absent */
	__u16 state; /* ndm_state: NUD_PERMANENT (local), NUD_NOARP (static) */
	__u8 flags;  /* ndm_flags: NTF_SELF, NTF_MASTER, ... */
	/* NFEA_ACTIVITY_NOTIFY (FDB_NOTIFY_BIT): the bridge tells when the
	 * entry's source falls silent for an ageing time, and again when it
	 * talks (FRR's EVPN multihoming sets it) */
	__u8 notify;
};

struct xn_vlan {
	__u32 ifindex;
	__u16 vid;
	__u16 flags; /* BRIDGE_VLAN_INFO_PVID | BRIDGE_VLAN_INFO_UNTAGGED */
	__u8 state;  /* the port's STP state in this VLAN (BR_STATE_*) */
};

/* Parsers for single messages: 0 on success, -EINVAL if malformed, 1 if
 * the message is of another kind (not to be used). */
int xn_parse_link(const struct nlmsghdr *nlh, struct xn_link *out);
int xn_parse_fdb(const struct nlmsghdr *nlh, struct xn_fdb_entry *out);
/* AF_BRIDGE RTM_NEWLINK with IFLA_AF_SPEC (RTEXT_FILTER_BRVLAN): up to max
 * entries into out (ranges expanded); returns the count or -EINVAL. */
int xn_parse_vlans(const struct nlmsghdr *nlh, struct xn_vlan *out, int max);
/* RTM_NEWVLAN of the VLAN database (RTM_GETVLAN, Linux 5.10): a port's
 * VLANs with their per-VLAN state (forwarding where it says none); up to
 * max entries, ranges expanded; the count, or -EINVAL. */
int xn_parse_vlandb(const struct nlmsghdr *nlh, struct xn_vlan *out, int max);

/* A qdisc (RTM_NEWQDISC) or a tc filter (RTM_NEWTFILTER) of a device. */
struct xn_tc_obj {
	__u32 ifindex;
	__u32 handle;  /* qdisc 8001:0 (0: one the kernel made), filter's */
	__u32 parent;  /* TC_H_ROOT, TC_H_INGRESS, a class, or a block */
	__u16 prio;    /* filters: priority */
	__u16 proto;   /* filters: protocol (network order) */
	char kind[16]; /* TCA_KIND: "htb", "clsact", "u32", "bpf", ... */
};

/* RTM_NEWQDISC / RTM_NEWTFILTER: 0, -EINVAL if malformed, 1 if another
 * kind of message. */
int xn_parse_tc(const struct nlmsghdr *nlh, struct xn_tc_obj *out);

/* Device counters of a link (IFLA_STATS64). */
struct xn_link_stats {
	__u64 rx_packets;
	__u64 tx_packets;
	__u64 rx_bytes;
	__u64 tx_bytes;
	__u64 rx_errors;
	__u64 tx_errors;
	__u64 rx_dropped;
	__u64 tx_dropped;
};

/* RTM_NEWLINK's IFLA_STATS64: 0 on success, -EINVAL if malformed or
 * shorter than the eight counters above, 1 if not a link message or
 * without IFLA_STATS64. */
int xn_parse_link_stats(const struct nlmsghdr *nlh, struct xn_link_stats *out);

struct xn_port_stats {
	struct xn_link link;
	struct xn_link_stats st;
};

/* Kernel queries. Return 0 or a negative errno. */
int xn_get_link(const char *name, struct xn_link *out); /* -ENODEV */
int xn_get_link_by_index(__u32 ifindex, struct xn_link *out);
/* All ports of a bridge; *out is malloc'ed. */
int xn_list_ports(__u32 bridge_ifindex, struct xn_link **out, int *n);
/* Every bridge of this network namespace. */
int xn_list_bridges(struct xn_link **out, int *n);
int xn_dump_fdb(__u32 bridge_ifindex, struct xn_fdb_entry **out, int *n);
int xn_dump_vlans(__u32 bridge_ifindex, struct xn_vlan **out, int *n);
/* One entry of a bridge's FDB, as the bridge has it now: 0, -ENOENT. */
int xn_fdb_get(__u32 bridge_ifindex, const __u8 *mac, __u16 vid,
	       struct xn_fdb_entry *out);
/* The VLANs of one port. */
int xn_port_vlans(__u32 ifindex, struct xn_vlan **out, int *n);
/* Every qdisc of this network namespace. */
int xn_dump_qdiscs(struct xn_tc_obj **out, int *n);
/* The filters of a device's block at parent: TC_H_MAKE(TC_H_CLSACT,
 * TC_H_MIN_INGRESS) (ingress or clsact qdisc) or ..._EGRESS (clsact). */
int xn_dump_tfilters(__u32 ifindex, __u32 parent, struct xn_tc_obj **out,
		     int *n);

/*
 * Netlink notifications (RTNLGRP_LINK, RTNLGRP_NEIGH, RTNLGRP_TC and
 * RTNLGRP_BRVLAN): a socket to poll, and a reader that hands each message to
 * cb. xn_events_read returns 0, -ENOBUFS when the kernel dropped notifications
 * (the caller must re-read everything), or another negative errno.
 */
int xn_events_open(void);
int xn_events_read(int fd, int (*cb)(const struct nlmsghdr *nlh, void *arg),
		   void *arg);
/* Every port of a bridge with its device counters; *out is malloc'ed. */
int xn_list_port_stats(__u32 bridge_ifindex, struct xn_port_stats **out,
		       int *n);

#endif
