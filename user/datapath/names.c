// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names and text of the datapath's enums: see names.h. */
#include <stdio.h>
#include <string.h>
#include "lib/util.h"
#include "datapath/names.h"

static const char *const ctr_names[XDPNET_C_MAX] = {
	[XDPNET_C_XDP_REDIRECT] = "xdp_redirect",
	[XDPNET_C_TC_REDIRECT] = "tc_redirect",
	[XDPNET_C_RX_REDIRECTED] = "rx_redirected",
	[XDPNET_C_PASS_MCAST] = "pass_mcast",
	[XDPNET_C_PASS_UNKNOWN] = "pass_unknown",
	[XDPNET_C_PASS_LOCAL] = "pass_local",
	[XDPNET_C_PASS_HAIRPIN] = "pass_hairpin",
	[XDPNET_C_PASS_NOT_ATTACHED] = "pass_not_attached",
	[XDPNET_C_PASS_VLAN] = "pass_vlan",
	[XDPNET_C_PASS_ISOLATED] = "pass_isolated",
	[XDPNET_C_PASS_REFRESH] = "pass_refresh",
	[XDPNET_C_PASS_SRC] = "pass_src",
	[XDPNET_C_PASS_STATE] = "pass_state",
	[XDPNET_C_PASS_MTU] = "pass_mtu",
	[XDPNET_C_PASS_HUB] = "pass_hub",
	[XDPNET_C_PASS_MALFORMED] = "pass_malformed",
	[XDPNET_C_XDP_DEFER_CSUM] = "xdp_defer_csum",
	[XDPNET_C_XDP_DEFER_SIZE] = "xdp_defer_size",
	[XDPNET_C_XDP_DEFER_TARGET] = "xdp_defer_target",
	[XDPNET_C_XDP_DEFER_PROTO] = "xdp_defer_proto",
	[XDPNET_C_XDP_DEFER_REFRESH] = "xdp_defer_refresh",
	[XDPNET_C_DROP_REDIRECT_ERR] = "drop_redirect_err",
	[XDPNET_C_DROP_XMIT_ERR] = "drop_xmit_err",
	[XDPNET_C_XDP_DEFER_UDP0] = "xdp_defer_udp0",
	[XDPNET_C_PASS_NF] = "pass_nf",
};

const char *xn_ctr_name(unsigned int ctr)
{
	return XN_NAME(ctr_names, ctr, NULL);
}

int xn_ctr_from_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < XDPNET_C_MAX; i++)
		if (ctr_names[i] && !strcmp(ctr_names[i], name))
			return i;
	return -1;
}

static const char *const modes[] = {
	[XDPNET_MODE_TC] = "tc",
	[XDPNET_MODE_XDP] = "xdp",
};

const char *xn_mode_name(__u32 mode)
{
	return XN_NAME(modes, mode, "?");
}

static const char *const tc_reasons[] = {
	[XDPNET_TCR_NONE] = "",
	[XDPNET_TCR_MODE] = "mode tc",
	[XDPNET_TCR_FOREIGN_XDP] = "another XDP program is attached",
	[XDPNET_TCR_XDP_FAILED] = "native XDP refused by the driver",
	[XDPNET_TCR_VETH] = "veth: native XDP would strip its peer's GSO",
	[XDPNET_TCR_FOREIGN_TCX] = "other programs on its tcx ingress",
};

const char *xn_tc_reason_text(__u8 reason)
{
	return XN_NAME(tc_reasons, reason, "?");
}

static const char *const hooks[] = {
	[XDPNET_HOOK_TCX] = "tcx",
	[XDPNET_HOOK_CLSACT] = "clsact",
};

const char *xn_hook_name(__u8 hook)
{
	return XN_NAME(hooks, hook, "?");
}

static const char *const holds[][2] = {
	[XDPNET_HOLD_NONE] = { "", "" },
	[XDPNET_HOLD_STATE] = { "state", "STP state not forwarding" },
	[XDPNET_HOLD_DOWN] = { "down", "down or without carrier" },
	[XDPNET_HOLD_LOCKED] = { "locked", "a locked port" },
	[XDPNET_HOLD_FILTER] = { "filter", "under a per-port filter" },
	[XDPNET_HOLD_BRIDGE] = { "bridge", "the bridge bypasses nothing" },
	[XDPNET_HOLD_TC] = { "tc", "tc filters or actions on its ingress" },
	[XDPNET_HOLD_BACKUP] = { "backup",
				 "a backup port (the bridge sends frames for "
				 "it there when its carrier drops)" },
	[XDPNET_HOLD_VLAN_DEV] = { "vlan_dev",
				   "a VLAN device on it (takes that VLAN's "
				   "frames before the bridge)" },
	[XDPNET_HOLD_VLAN_TUNNEL] = { "vlan_tunnel",
				      "vlan_tunnel on (the bridge pops the "
				      "tag of a tunnel's VLAN on egress)" },
};

const char *xn_hold_text(__u32 hold)
{
	return hold < ARRAY_SIZE(holds) ? holds[hold][1] : "?";
}

const char *xn_hold_name(__u32 hold)
{
	return hold < ARRAY_SIZE(holds) ? holds[hold][0] : "?";
}

static const char *const bholds[][2] = {
	[XDPNET_BHOLD_NONE] = { "", "off" }, /* bypass 0 without a hold:
						detaching */
	[XDPNET_BHOLD_HUB] = { "hub", "off: hub mode (ageing_time 0)" },
	[XDPNET_BHOLD_MST] = { "mst", "off: per-VLAN port states (MST)" },
	[XDPNET_BHOLD_FILTERS] = { "filters",
				   "off: host filters apply between ports "
				   "('xdpnet attach' lists them; "
				   "--bypass-filters to bypass them)" },
	[XDPNET_BHOLD_UNKNOWN] = { "unknown",
				   "off: the host's filters could not be read "
				   "('xdpnet attach' says why)" },
	[XDPNET_BHOLD_PROMISC] = { "promisc",
				   "off: the bridge is promiscuous (tcpdump, "
				   "a macvlan or 'ip link set promisc on' on "
				   "it), so it hands every frame to the host "
				   "too" },
	[XDPNET_BHOLD_AGEING] = { "ageing",
				  "off: ageing_time under 1.6 s, too short "
				  "for the keep-alive frames to keep active "
				  "sources in the bridge's FDB" },
	[XDPNET_BHOLD_NEIGH] = { "neigh",
				 "off: a port has proxy_arp, proxy_arp_wifi or "
				 "neigh_suppress on, so the bridge answers "
				 "ARP or ND requests itself" },
};

const char *xn_bridge_hold_text(__u32 hold)
{
	return hold < ARRAY_SIZE(bholds) ? bholds[hold][1] : "off";
}

const char *xn_bridge_hold_name(__u32 hold)
{
	return hold < ARRAY_SIZE(bholds) ? bholds[hold][0] : "?";
}

static const char *const lat_paths[] = {
	[XDPNET_LAT_BRIDGE] = "bridge",
	[XDPNET_LAT_TC] = "tc",
	[XDPNET_LAT_XDP] = "xdp",
};

const char *xn_lat_path_name(unsigned int path)
{
	return XN_NAME(lat_paths, path, "?");
}

/* Each check: its name, what holds when it passes, and what held when it
 * failed. */
static const struct {
	const char *name, *text, *fail;
} checks[XDPNET_CK_N] = {
	[XDPNET_CK_FRAME] = { "frame", "a whole Ethernet header (and tag)",
			      "the frame ends inside its Ethernet header or "
			      "tag" },
	[XDPNET_CK_TAG_PROTO] = { "tag_proto",
				  "one tag at most, of the bridge's VLAN "
				  "protocol",
				  "a tag of another protocol than the "
				  "bridge's, or a tag inside a tag" },
	[XDPNET_CK_IN_PORT] = { "in_port", "the ingress port is carried",
				"the ingress port is not carried" },
	[XDPNET_CK_IN_LIVE] = { "in_live",
				"still a port of the bridge, bridge not "
				"promiscuous (read from the kernel)",
				"no longer a port of the bridge, or the bridge "
				"is promiscuous (read from the kernel)" },
	[XDPNET_CK_BYPASS] = { "bypass", "the bridge lets frames be bypassed",
			       "the bridge bypasses nothing" },
	[XDPNET_CK_UNICAST] = { "unicast", "unicast destination",
				"multicast or broadcast destination" },
	[XDPNET_CK_IN_FWD] = { "in_forwarding",
			       "ingress port forwarding, not held",
			       "ingress port not forwarding, or held" },
	[XDPNET_CK_IN_UNLOCKED] = { "in_unlocked", "ingress port not locked",
				    "ingress port locked" },
	[XDPNET_CK_IN_VLAN] = { "in_vlan", "the VLAN allowed on ingress",
				"the VLAN not allowed on ingress" },
	[XDPNET_CK_SRC_VALID] = { "src_valid", "source neither group nor zero",
				  "a group or zero source" },
	[XDPNET_CK_SRC_KNOWN] = { "src_known",
				  "the bridge has the source on this port",
				  "the bridge does not have the source on this "
				  "port" },
	[XDPNET_CK_KEEPALIVE] = { "keepalive",
				  "the source's entry needs no keep-alive "
				  "frame yet",
				  "the source's entry is due a keep-alive "
				  "frame: this one" },
	[XDPNET_CK_DST_KNOWN] = { "dst_known", "destination in the FDB",
				  "destination not in the FDB" },
	[XDPNET_CK_DST_REMOTE] = { "dst_remote",
				   "destination not the host's own",
				   "destination is the host's own" },
	[XDPNET_CK_DST_UNLOCKED] = { "dst_unlocked",
				     "destination entry not locked",
				     "destination entry locked" },
	[XDPNET_CK_NOT_HAIRPIN] = { "not_hairpin",
				    "destination behind another port",
				    "destination behind the ingress port" },
	[XDPNET_CK_OUT_PORT] = { "out_port", "the egress port is carried",
				 "the egress port is not carried" },
	[XDPNET_CK_OUT_FWD] = { "out_forwarding",
				"egress port forwarding, not held",
				"egress port not forwarding, or held" },
	[XDPNET_CK_ISOLATION] = { "isolation",
				  "not both isolated, egress not locked",
				  "both ports isolated, or egress locked" },
	[XDPNET_CK_OUT_VLAN] = { "out_vlan",
				 "egress a member of the VLAN, tagged alike",
				 "egress not a member of the VLAN, or tagged "
				 "otherwise" },
	[XDPNET_CK_NF] = { "nf", "br_netfilter passes it as it is",
			   "br_netfilter would drop, trim or reassemble it" },
	[XDPNET_CK_XDP_TARGET] = { "xdp_target",
				   "egress port takes XDP redirects",
				   "egress port takes no XDP redirects (a "
				   "veth, or tc on its egress)" },
	[XDPNET_CK_MTU] = { "mtu", "within the egress port's MTU",
			    "over the egress port's MTU" },
	[XDPNET_CK_XDP_CSUM] = { "xdp_csum",
				 "size, protocol and checksum fit an XDP "
				 "redirect",
				 "size, protocol or checksum unfit for an XDP "
				 "redirect" },
};

const char *xn_check_name(unsigned int ck)
{
	return ck < XDPNET_CK_N ? checks[ck].name : NULL;
}

const char *xn_check_text(unsigned int ck)
{
	return ck < XDPNET_CK_N ? checks[ck].text : NULL;
}

const char *xn_check_fail_text(unsigned int ck)
{
	return ck < XDPNET_CK_N ? checks[ck].fail : NULL;
}
