// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include "state/sizes.h"

const struct xn_size_def xn_sizes[XN_SIZE_N] = {
	[XN_SIZE_FDB] = { "fdb-size", "fdb_size", XM_FDB, XN_SIZE_FDB_MAX,
			  "learned FDB entries" },
	[XN_SIZE_STATIC] = { "static-size", "static_size", XM_FDB_STATIC,
			     XN_SIZE_STATIC_MAX,
			     "static and local FDB entries" },
	[XN_SIZE_VLANS] = { "vlan-size", "vlan_size", XM_VLANS,
			    XN_SIZE_VLANS_MAX, "VLAN memberships of ports" },
};

const struct xn_size_def *xn_size_of_map(enum xn_map_id id)
{
	unsigned int i;

	for (i = 0; i < XN_SIZE_N; i++)
		if (xn_sizes[i].map == id)
			return &xn_sizes[i];
	return NULL;
}

__u32 xn_map_max_entries(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len)
		       ? info.max_entries
		       : 0;
}
