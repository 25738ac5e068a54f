// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnt_tcdrop: a tc program (direct action) that drops every frame, for
 * tests/integration/semantics.sh: the filter or policer a host puts on a
 * VM's port ("tc filter add dev P ingress bpf da obj ... sec tc"). The
 * development kernel has no act_gact or act_police, so no 'action drop'.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_SHOT 2

SEC("tc")
int xnt_tcdrop(struct __sk_buff *skb)
{
	(void)skb;
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
