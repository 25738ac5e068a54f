// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tcx chains: see tcx.h. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "lib/tcx.h"

int xn_tcx_progs(__u32 ifindex, int egress, __u32 *ids, __u32 max)
{
	DECLARE_LIBBPF_OPTS(bpf_prog_query_opts, q, .prog_ids = ids,
			    .prog_cnt = max);
	int err;

	/* target_fd is the device's ifindex for tcx (the same field). */
	err = bpf_prog_query_opts((int)ifindex,
				  egress ? XN_TCX_EGRESS : XN_TCX_INGRESS, &q);
	if (err == -EINVAL || err == -EOPNOTSUPP)
		return 0; /* no tcx here */
	if (err == -ENOSPC)
		return (int)max; /* more than max: the first max */
	if (err)
		return err;
	return (int)(q.prog_cnt < max ? q.prog_cnt : max);
}

void xn_prog_name(__u32 id, char *buf, size_t len)
{
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	snprintf(buf, len, "?");
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &ilen) && info.name[0])
		snprintf(buf, len, "%s", info.name);
	close(fd);
}
