# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench: the xdpnet performance experiment (see docs/performance.md).

Modules:
  stats    median, min-max, ratios (pure)
  parse    iperf3 / sockperf / xnb_* / xdpnet status parsers, fast-path share
  matrix   paths, tests, profiles (quick, full, smoke) and the run order
  topo     the netns topology (namespaces, bridge, stand-ins, paths)
  vmtopo   the vm topology's availability check
  cells    runs one measurement cell
  envinfo  what the machine and the topology look like
  report   aggregation, targets, CSV and markdown
  plots    PNG plots (matplotlib)
"""
