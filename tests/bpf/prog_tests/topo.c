// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The topologies the tables share. */
#include "harness.h"

#define STATIC (XDPNET_FDB_STATIC | XDPNET_FDB_SEEDED)
#define LOCAL (XDPNET_FDB_LOCAL | XDPNET_FDB_SEEDED)

/* No VLAN filtering: entries keyed by MAC alone. */
static const struct xt_fdb_def plain_fdb[] = {
	{ M_A, 0, P_A, 0 },
	{ M_A2, 0, P_A, STATIC },
	{ M_B, 0, P_B, 0 },
	{ M_C, 0, P_C, 0 },
	{ M_D, 0, P_D, 0 },
	{ M_E, 0, P_E, 0 },
	{ M_GONE, 0, P_GONE, 0 },
	{ M_LOCAL, 0, P_BRIDGE, LOCAL },
	{ M_A_OWN, 0, P_A, LOCAL },
	{ M_STATIC_B, 0, P_B, STATIC },
	{ M_LOCKED_B, 0, P_B, XDPNET_FDB_LOCKED },
};

const struct xt_topology xt_plain = {
	.fdb = plain_fdb,
	.nr_fdb = ARRAY_SIZE(plain_fdb),
};

/*
 * VLANs: A and B are untagged members of 10 (their pvid) and tagged
 * members of 20; C is a tagged member of 10 and 20, with a pvid (30) it is
 * no member of; D is a tagged member of 20 only, without a pvid.
 */
static const struct xt_fdb_def vlan_fdb[] = {
	{ M_A, 10, P_A, 0 },	   { M_A, 20, P_A, 0 },
	{ M_B, 10, P_B, 0 },	   { M_B, 20, P_B, 0 },
	{ M_C, 10, P_C, 0 },	   { M_C, 20, P_C, 0 },
	{ M_D, 10, P_D, 0 }, /* D is no member of VLAN 10 */
	{ M_D, 20, P_D, 0 },	   { M_X, 20, P_B, 0 },
	{ M_A2, 20, P_A, STATIC }, { M_LOCAL, 10, P_BRIDGE, LOCAL },
};

static const struct xt_vlan_def vlan_members[] = {
	{ P_A, 10, XDPNET_VLAN_UNTAGGED },
	{ P_A, 20, 0 },
	{ P_B, 10, XDPNET_VLAN_UNTAGGED },
	{ P_B, 20, 0 },
	{ P_C, 10, 0 },
	{ P_C, 20, 0 },
	{ P_D, 20, 0 },
};

const struct xt_topology xt_vlan = {
	.pvid = { [P_A] = 10, [P_B] = 10, [P_C] = 30 },
	.fdb = vlan_fdb,
	.nr_fdb = ARRAY_SIZE(vlan_fdb),
	.vlans = vlan_members,
	.nr_vlans = ARRAY_SIZE(vlan_members),
};
