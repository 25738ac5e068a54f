# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench_converge: how fast the datapath follows the bridge.

Modules:
  nsutil   sockets in other network namespaces, the xdpnet CLI wrapper
  nlmon    the kernel's link and neighbour notifications, timestamped
  probe    numbered frames between stand-ins, marked by the bridge's path
  topo     namespaces, the bridge, stand-ins, the path marker
  measure  convergence of one event from the frames it saw (pure)
  bpfmap   a pinned map's value as raw bytes (when did it change?)
  runner   runs one change and measures it
  kinds    the kinds of change and their cycles
  report   percentiles, JSON and the markdown table (pure)
"""
