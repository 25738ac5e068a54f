// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The datapath, reading the ingress port's bridge state live from the
 * kernel (see bpf/xdpnet_live.h). The loader falls back to xdpnet.bpf.o
 * where the kernel refuses this one. */
#define XDPNET_LIVE 1
#include "xdpnet.bpf.c"
