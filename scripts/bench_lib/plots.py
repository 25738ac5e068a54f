# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""PNG plots with matplotlib (Debian's python3-matplotlib, Agg backend)."""

import os

from . import matrix, report

COLORS = {"direct": "#7f7f7f", "bridge": "#1f77b4", "bridge-nf": "#9467bd",
          "xdpnet-tc": "#2ca02c", "xdpnet-xdp": "#d62728",
          "xdpnet-tc-plain": "#98df8a", "xdpnet-xdp-plain": "#ff9896"}


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


def _short(row):
    standin, offloads, mtu, test, variant, direction = row
    off = "offl-on" if offloads == "on" else "offl-off"
    v = variant if test in ("tcp_stream",) else (
        "%s B" % variant if test == "udp" else "")
    return "%s %s %d\n%s %s" % (standin, off, mtu, v,
                                matrix.ARROW.get(direction, direction))


def bars(groups, paths, test, metric, path_png, title, log=False):
    """Horizontal grouped bars: one group per (setting, item), one bar per
    path (median), whiskers from min to max."""
    rows = [r for r in report._items_in_order(groups) if r[3] == test]
    rows = [r for r in rows
            if any(groups.get(report.GroupKey(*r, path=p), {})
                   .get("metrics", {}).get(metric) for p in paths)]
    if not rows:
        return None
    plt = _plt()
    n = len(paths)
    h = 0.8 / n
    fig_h = max(3.0, 0.25 * n * len(rows) + 1.5)
    fig, ax = plt.subplots(figsize=(9, fig_h))
    for j, p in enumerate(paths):
        ys, xs, lo, hi = [], [], [], []
        for i, r in enumerate(rows):
            g = groups.get(report.GroupKey(*r, path=p))
            sm = g["metrics"].get(metric) if g else None
            if not sm:
                continue
            ys.append(i + (j - (n - 1) / 2.0) * h)
            xs.append(sm["median"])
            lo.append(sm["median"] - sm["min"])
            hi.append(sm["max"] - sm["median"])
        if xs:
            ax.barh(ys, xs, height=h, color=COLORS.get(p), label=p,
                    xerr=[lo, hi], error_kw={"elinewidth": 0.8,
                                             "capsize": 2})
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_short(r) for r in rows], fontsize=7)
    ax.invert_yaxis()
    unit = matrix.UNITS.get(metric, "")
    ax.set_xlabel("%s (%s), median, whiskers min–max" % (metric, unit))
    if log:
        ax.set_xscale("log")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path_png, dpi=110)
    plt.close(fig)
    return path_png


def ratio_plot(groups, paths, plan_settings, path_png):
    """Every xdpnet headline figure as a ratio to the plain bridge, to the
    realistic bridge and to the direct pair, with 1.0 marked."""
    xpaths = [p for p in paths if matrix.is_xdpnet(p)]
    rows = []
    for key, g in groups.items():
        if key.path not in xpaths:
            continue
        metric = matrix.TESTS[key.test]["metric"]
        if key.test == "fwd64":
            metric = "switch_ns"
        rs = report.ratios(groups, key, metric, plan_settings)
        rows.append((key, metric, rs))
    if not rows:
        return None
    plt = _plt()
    refs = ["bridge", "bridge-nf", "direct"]
    colors = {"bridge": "#1f77b4", "bridge-nf": "#9467bd",
              "direct": "#7f7f7f"}
    fig_h = max(3.0, 0.22 * len(rows) * 1.0 + 1.5)
    fig, ax = plt.subplots(figsize=(9, fig_h))
    h = 0.27
    for j, ref in enumerate(refs):
        ys, xs = [], []
        for i, (key, metric, rs) in enumerate(rows):
            r = rs.get(ref)
            if r and r["ratio"] is not None:
                ys.append(i + (j - 1) * h)
                xs.append(r["ratio"])
        if xs:
            ax.barh(ys, xs, height=h, color=colors[ref],
                    label="÷ %s" % ref)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["%s | %s %s %s %s (%s)" % (
        k.path, k.standin, "on" if k.offloads == "on" else "off", k.mtu,
        "%s %s %s" % (k.test, k.variant, matrix.ARROW.get(k.direction, "")),
        m) for k, m, _ in rows], fontsize=6)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("xdpnet ÷ reference (medians; >1 is better for "
                  "throughput, <1 for latency and CPU)")
    ax.set_title("xdpnet as a ratio to the bridge, the realistic bridge and "
                 "the direct veth pair", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path_png, dpi=110)
    plt.close(fig)
    return path_png


def make_all(groups, paths, plan_settings, outdir):
    """Write the plots; returns [(file name, caption)]."""
    os.makedirs(outdir, exist_ok=True)
    made = []

    def add(fn, caption, f):
        try:
            p = f(os.path.join(outdir, fn))
        except Exception as e:  # noqa: BLE001 - a plot never fails a run
            print("plot %s failed: %s" % (fn, e))
            return
        if p:
            made.append((fn, caption))

    add("tcp_stream.png", "TCP stream throughput (iperf3), Gbit/s",
        lambda p: bars(groups, paths, "tcp_stream", "gbps", p,
                       "TCP stream, Gbit/s (higher is better)"))
    add("udp.png", "UDP flood, frames received, kpps",
        lambda p: bars(groups, paths, "udp", "rx_kpps", p,
                       "UDP flood, kpps received (higher is better)"))
    for t in ("tcp_rr", "udp_rr"):
        add("%s_p50.png" % t, "%s round trip p50, us" % t,
            lambda p, t=t: bars(groups, paths, t, "p50_us", p,
                                "%s 64 B, p50 round trip in us (lower is "
                                "better)" % t))
        add("%s_p99.png" % t, "%s round trip p99, us" % t,
            lambda p, t=t: bars(groups, paths, t, "p99_us", p,
                                "%s 64 B, p99 round trip in us (lower is "
                                "better)" % t))
    add("tcp_crr.png", "TCP connect/request/response, transactions/s",
        lambda p: bars(groups, paths, "tcp_crr", "tps", p,
                       "TCP_CRR 64 B, transactions/s (higher is better)"))
    add("fwd64_kpps.png", "64 B forwarding: frames forwarded, kpps",
        lambda p: bars(groups, paths, "fwd64", "fwd_kpps", p,
                       "64 B forwarding, kpps forwarded into the tap"))
    add("fwd64_cpu.png", "64 B forwarding: switch CPU ns per forwarded "
        "packet",
        lambda p: bars(groups, paths, "fwd64", "switch_ns", p,
                       "64 B forwarding, CPU ns per forwarded packet in "
                       "the switch path (lower is better)"))
    add("ratios.png", "every xdpnet figure as a ratio to the references",
        lambda p: ratio_plot(groups, paths, plan_settings, p))
    return made
