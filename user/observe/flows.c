// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The decision cache, read: see flows.h. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "xdpnet.h"
#include "observe/flows.h"

int xn_flows_read(const struct xn_state *s, struct xn_flows *out)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, i;
	const struct xdpnet_flow *e;
	struct xdpnet_rt rt;
	size_t size;

	memset(out, 0, sizeof(*out));
	if (s->fd[XM_FLOWS] < 0 || s->fd[XM_RT] < 0)
		return -ENOENT;
	if (bpf_obj_get_info_by_fd(s->fd[XM_FLOWS], &info, &len) ||
	    bpf_map_lookup_elem(s->fd[XM_RT], &zero, &rt))
		return -errno;
	if (info.value_size != sizeof(*e))
		return -EPROTO;
	/* Mapped read-only: one read of the whole cache, not a syscall per
	 * entry. */
	size = (size_t)info.value_size * info.max_entries;
	e = mmap(NULL, size, PROT_READ, MAP_SHARED, s->fd[XM_FLOWS], 0);
	if (e == MAP_FAILED)
		return -errno;
	out->per_cpu = XDPNET_FLOW_ENTRIES;
	out->cpus = info.max_entries / XDPNET_FLOW_ENTRIES;
	out->gen = rt.gen;
	for (i = 0; i < info.max_entries; i++)
		out->cached += e[i].ifindex && e[i].gen == rt.gen;
	munmap((void *)e, size);
	return 0;
}
