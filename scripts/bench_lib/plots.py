# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""PNG plots with matplotlib (Debian's python3-matplotlib, Agg backend):
one small figure per test family, a panel per (setting, test item) with a
bar per path (median) and min-max whiskers, each panel on its own linear
axis."""

import math
import os

from . import matrix, report

COLORS = {"direct": "#7f7f7f", "bridge": "#1f77b4", "bridge-nf": "#9467bd",
          "tc-minimal": "#ff7f0e", "tc-minimal-peer": "#ffbb78",
          "xdpnet-tc": "#2ca02c", "xdpnet-xdp": "#d62728",
          "xdpnet-tc-plain": "#98df8a", "xdpnet-xdp-plain": "#ff9896"}

# (file, caption, tests, metric, BPF paths only, reference of the
# ratios written over the bars)
FAMILIES = [
    ("stream.png", "TCP stream, Gbit/s (higher is better)", ("tcp_stream",),
     "gbps", False, "bridge"),
    ("udp.png", "UDP flood, kpps received (higher is better)", ("udp",),
     "rx_kpps", False, "bridge"),
    ("rr.png", "Request/response 64 B, p50 round trip in us (lower is "
     "better)", ("tcp_rr", "udp_rr"), "p50_us", False, "bridge"),
    ("crr.png", "TCP connect/request/response, transactions/s (higher is "
     "better)", ("tcp_crr",), "tps", False, "bridge"),
    ("fwd64.png", "64 B forwarding, kpps delivered to the tap (higher is "
     "better)", ("fwd64", "fwd64_tap"), "delivered_kpps", False, "bridge"),
    # --topology vhost.
    ("vhost_pps.png", "Through vhost-net: frames delivered, kpps (higher "
     "is better)", ("vhost_pps", "vhost_pps_partial"), "delivered_kpps",
     False, "bridge"),
    ("vhost_gso.png", "Through vhost-net: TCP bulk (GSO; as a guest sends "
     "it, with ACKs), Gbit/s (higher is better)", ("vhost_gso", "vhost_tcp"),
     "gbps", False, "bridge"),
    ("vhost_rr.png", "Through vhost-net: request/response 64 B, p50 in us "
     "(lower is better)", ("vhost_rr", "vhost_rr_partial"), "p50_us", False,
     "bridge"),
    ("vhost_cpu.png", "Through vhost-net: CPU per frame with the vhost "
     "workers, ns (lower is better)", matrix.VHOST_TESTS, "cpu_ns", False,
     "bridge"),
    ("cpu.png", "BPF program CPU per frame, ns (lower is better)",
     tuple(matrix.TESTS), "prog_ns", True, "tc-minimal"),
]


def available():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _title(row):
    standin, offloads, mtu, test, variant, direction = row
    what = {"tcp_stream": "stream %s" % variant, "udp": "udp %s B" % variant,
            "fwd64": "fwd64 %s B, veth port" % variant,
            "fwd64_tap": "fwd64 %s B, tap port" % variant,
            "vhost_pps": "vhost %s B, full csum" % variant,
            "vhost_pps_partial": "vhost %s B, partial csum" % variant,
            "vhost_tcp": "vhost tcp %s" % variant,
            "vhost_rr_partial": "vhost_rr, partial csum"}.get(test, test)
    return "%s offl. %s%s\n%s %s" % (
        standin, offloads, "" if mtu == 1500 else " MTU %d" % mtu, what,
        matrix.ARROW.get(direction, direction))


def panels(groups, paths, tests, metric):
    """[(row, [(path, median, min, max)])] for the family's rows that have
    the metric on any of paths."""
    out = []
    for row in report._items_in_order(groups):
        if row[3] not in tests:
            continue
        bars = []
        for p in paths:
            g = groups.get(report.GroupKey(*row, path=p))
            sm = g["metrics"].get(metric) if g else None
            if sm:
                bars.append((p, sm["median"], sm["min"], sm["max"]))
        if bars:
            out.append((row, bars))
    return out


def family(groups, paths, tests, metric, path_png, title, ref=None,
           plan_settings=()):
    """One figure: a panel per row, a bar per path with min-max whiskers,
    and over each bar its median paired ratio to ref. Returns path_png, or
    None when there is nothing to draw."""
    data = panels(groups, paths, tests, metric)
    if not data:
        return None
    plt = _plt()
    ncol = min(4, len(data))
    nrow = int(math.ceil(len(data) / float(ncol)))
    fig, axes = plt.subplots(nrow, ncol, figsize=(2.4 * ncol + 0.4,
                                                   2.3 * nrow + 0.9),
                             squeeze=False)
    shown = [p for p in paths if any(p == b[0] for _, bars in data
                                     for b in bars)]
    for i, (row, bars) in enumerate(data):
        ax = axes[i // ncol][i % ncol]
        xs = [shown.index(b[0]) for b in bars]
        ax.bar(xs, [b[1] for b in bars],
               color=[COLORS.get(b[0], "#333333") for b in bars],
               yerr=[[b[1] - b[2] for b in bars], [b[3] - b[1] for b in bars]],
               error_kw={"elinewidth": 0.8, "capsize": 2}, width=0.8)
        if ref:
            for x, b in zip(xs, bars):
                r = report.ratios(groups, report.GroupKey(*row, path=b[0]),
                                  metric, plan_settings).get(ref)
                if r and r["ratio"] is not None:
                    ax.annotate("%.2fx" % r["ratio"], (x, b[3]),
                                xytext=(0, 2), textcoords="offset points",
                                ha="center", fontsize=5.5,
                                weight="bold" if report.significant(r)
                                else "normal")
        ax.set_title(_title(row), fontsize=7)
        ax.set_xticks([])
        ax.tick_params(axis="y", labelsize=6)
        ax.grid(axis="y", alpha=0.3)
        ax.set_ylim(bottom=0, top=max(b[3] for b in bars) * 1.12)
    for j in range(len(data), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS.get(p, "#333333"))
               for p in shown]
    fig.legend(handles, shown, loc="upper center", ncol=min(len(shown), 6),
               fontsize=7, frameon=False, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle("%s; %s, median, whiskers min–max%s" % (
        title, matrix.UNITS.get(metric, metric),
        "; over the bars: median paired ratio to %s (bold: its 95%% "
        "interval excludes 1.0)" % ref if ref else ""), fontsize=8,
        y=0.02, va="bottom")
    fig.tight_layout(rect=(0, 0.05, 1, 0.95 if nrow > 1 else 0.9))
    # tight: a narrow figure's legend and caption are wider than its
    # panels.
    fig.savefig(path_png, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path_png


def make_all(groups, paths, plan_settings, outdir):
    """Write the figures; returns [(file name, caption)]."""
    os.makedirs(outdir, exist_ok=True)
    made = []
    for fn, cap, tests, metric, bpf_only, ref in FAMILIES:
        ps = [p for p in paths if matrix.is_bpf(p)] if bpf_only else paths
        try:
            p = family(groups, ps, tests, metric, os.path.join(outdir, fn),
                       cap, ref, plan_settings)
        except Exception as e:  # noqa: BLE001 - a plot never fails a run
            print("plot %s failed: %s" % (fn, e))
            continue
        if p:
            made.append((fn, cap))
    return made
