# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench: the xdpnet performance experiment (see docs/performance.md).

Modules:
  stats     median, quantiles, paired ratios, interval of the median,
            verdicts (pure)
  parse     iperf3 / sockperf / xnb_* / xdpnet status parsers, fast-path
            share, program CPU per frame
  matrix    paths, tests, profiles (quick, targets, full, smoke), run order
  hostrules the realistic host's iptables rules (Docker, kube-proxy)
  topo      the netns topology (namespaces, bridge, stand-ins, paths)
  vmtopo    the vm topology (QEMU guests) and its availability check
  cells     runs one measurement cell
  envinfo   what the machine and the topology look like
  report    aggregation, paired ratios, targets, CSV
  tables    markdown tables and the terminal summary
  markdown  report.md
  plots     PNG figures, one per test family (matplotlib)
"""
