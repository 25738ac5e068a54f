# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench_scale's parts: topo (a stand-in host of many bridges,
ports and MACs in one namespace), bpf (the kernel's view of xdpnet's maps
and programs), measure (each figure), report (scale.json, scale.md,
plots)."""
