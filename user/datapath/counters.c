// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-CPU counters, summed: see counters.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "state/pins.h"
#include "datapath/counters.h"

void xn_sum_stats(const struct xdpnet_stats *percpu, int ncpu,
		  struct xdpnet_stats *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpu; cpu++)
		for (i = 0; i < XDPNET_C_MAX; i++) {
			out->c[i].packets += percpu[cpu].c[i].packets;
			out->c[i].bytes += percpu[cpu].c[i].bytes;
		}
}

int xn_fdb_ev_read(const struct xn_state *s, __u64 out[XDPNET_FE_MAX])
{
	int ncpu = libbpf_num_possible_cpus(), c;
	__u64 *v;
	__u32 k;

	memset(out, 0, sizeof(__u64) * XDPNET_FE_MAX);
	if (ncpu < 0)
		return ncpu;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < XDPNET_FE_MAX; k++)
		if (!bpf_map_lookup_elem(s->fd[XM_FDB_EV], &k, v))
			for (c = 0; c < ncpu; c++)
				out[k] += v[c];
	free(v);
	return 0;
}

int xn_map_count_keys(int fd)
{
	__u8 k[64], nk[64];
	int n = 0, err;

	for (err = bpf_map_get_next_key(fd, NULL, k); !err;
	     err = bpf_map_get_next_key(fd, k, nk), memcpy(k, nk, sizeof(k)))
		n++;
	return n;
}
