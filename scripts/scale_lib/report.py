# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scale.json into scale.md (tables, growth laws, the targets met or
missed) and plots/*.png."""

import os
import statistics

# The targets (issue 17), each checked against a run's figures.
ATTACH_MS_PER_PORT = 5.0
CONV_P99_MAX_MS = 100.0
CONV_P99_MAX_RATIO = 1.5
FRAME_FLAT = 1.1
MEM_256_MAX = 4 * 1024 * 1024
SCRAPE_MAX_S = 0.1


def fit(xs, ys):
    """Least squares y = a + b x: (a, b), or None with fewer than 2."""
    pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
    if len(pts) < 2:
        return None
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if not sxx:
        return None
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    return (my - b * mx, b)


def ratio(xs):
    """max / min of the figures that are there."""
    v = [x for x in xs if x]
    return max(v) / min(v) if v else None


def _f(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def targets(r):
    """(name, target, measured, met) rows."""
    rows = []
    ports = r["ports"]
    pts = sorted(ports, key=lambda p: p["ports"])
    ab = fit([p["ports"] for p in pts],
             [p["attach"]["cold_s"] * 1e3 for p in pts])
    if ab:
        rows.append(("attach, cold, per port",
                     "<= %.0f ms" % ATTACH_MS_PER_PORT,
                     "%.2f ms per port (+ %.0f ms)" % (ab[1], ab[0]),
                     ab[1] <= ATTACH_MS_PER_PORT))
    small, big = pts[0], pts[-1]
    for kind in ("port_add", "port_remove", "fdb_move"):
        a = small["convergence"][kind]["p99_ms"]
        b = big["convergence"][kind]["p99_ms"]
        if a is None or b is None:
            rows.append(("convergence p99, %s" % kind, "-", "not measured",
                         False))
            continue
        # A ratio of figures below the polling resolution means nothing:
        # compare with at least 1 ms.
        rr = b / max(a, 1.0)
        rows.append(("convergence p99, %s, %d vs %d ports" % (
            kind, big["ports"], small["ports"]),
            "<= %.1fx and <= %.0f ms" % (CONV_P99_MAX_RATIO,
                                         CONV_P99_MAX_MS),
            "%.1f vs %.1f ms (%.2fx)" % (b, a, rr),
            rr <= CONV_P99_MAX_RATIO and b <= CONV_P99_MAX_MS))
    fr = ratio([p["frame"]["ns_per_frame"] for p in pts])
    rows.append(("per-frame cost, %d to %d ports" % (small["ports"],
                                                    big["ports"]),
                 "<= %.1fx" % FRAME_FLAT, _f(fr, "%.2fx"),
                 fr is not None and fr <= FRAME_FLAT))
    occ = r["occupancy"]
    fo = ratio([o["frame"]["ns_per_frame"] for o in occ])
    rows.append(("per-frame cost, %d to %d learned MACs" % (
        occ[0]["macs"], occ[-1]["macs"]), "<= %.1fx" % FRAME_FLAT,
        _f(fo, "%.2fx"), fo is not None and fo <= FRAME_FLAT))
    m = big["memory"]["total"]
    rows.append(("pinned map memory, %d-port bridge, %d CPUs" % (
        big["ports"], r["env"]["cpus"]), "<= 4 MiB",
        "%.2f MiB" % (m / 1048576.0), m <= MEM_256_MAX))
    s = big["scrape"]["s"]
    rows.append(("exporter scrape, %d ports" % big["ports"], "< 100 ms",
                 "%.1f ms" % (s * 1e3), s < SCRAPE_MAX_S))
    ag = r["aggregate"]
    if ag.get("xdpnet") and ag.get("bridge"):
        x, b = ag["xdpnet"]["delivered_pps"], ag["bridge"]["delivered_pps"]
        rows.append(("aggregate of %d flows vs the bridge" % ag["flows"],
                     ">= 1.0x", "%.0f vs %.0f pps (%.2fx)" % (x, b, x / b),
                     x >= b))
    return rows


def _ratios(ag):
    """', paired ratios xdpnet/bridge: median (min-max)' when recorded."""
    rs = sorted(ag.get("ratios") or [])
    if not rs:
        return ""
    return "; xdpnet/bridge by repeat: median %.2fx (%.2f-%.2f)" % (
        statistics.median(rs), rs[0], rs[-1])


def memory_formula(r):
    """bytes = C + e_f F + e_s S + e_v V + cpus * P, from the run."""
    mf = r.get("memory_formula")
    if not mf:
        return None
    return ("memory = %.0f + %.1f x fdb_size + %.1f x static_size + "
            "%.1f x vlan_size + CPUs x %.0f bytes" % (
                mf["fixed"], mf["per_fdb"], mf["per_static"],
                mf["per_vlan"], mf["per_cpu"]))


def markdown(r):
    L = ["# xdpnet at scale: one run", ""]
    e = r["env"]
    L += ["%s, %d CPUs, Linux %s, %s datapath, profile %s, %d repeats "
          "(medians). Command: `%s`." % (e["cpu_model"], e["cpus"],
                                          e["kernel"], e["datapath"],
                                          r["profile"], r["repeats"],
                                          r["command"]), ""]
    L += ["CLI start (`nsenter ... xdpnet version`, in every CLI time "
          "below): %.1f ms." % (r["cli_baseline_s"] * 1e3), ""]
    L += ["## Targets", "", "| figure | target | measured | met |",
          "|---|---|---|---|"]
    for name, tgt, got, met in targets(r):
        L.append("| %s | %s | %s | %s |" % (name, tgt, got,
                                            "yes" if met else "**no**"))
    L += [""]
    L += ["## Ports per bridge", "",
          "| ports (taps) | attach cold ms | again ms | resync ms | "
          "add p50/p99 ms | remove p50/p99 ms | FDB move p50/p99 ms | "
          "ns/frame | delivered kpps | map memory KiB | status ms | "
          "scrape ms | scrape KiB | series |",
          "|" + "---|" * 14]
    for p in sorted(r["ports"], key=lambda p: p["ports"]):
        c = p["convergence"]
        L.append("| %d (%d) | %s | %s | %s | %s/%s | %s/%s | %s/%s | %s | "
                 "%s | %.0f | %s | %s | %.0f | %d |" % (
                     p["ports"], p["taps"], _f(p["attach"]["cold_s"] * 1e3),
                     _f(p["attach"]["warm_s"] * 1e3),
                     _f(p["resync"]["p50_ms"]),
                     _f(c["port_add"]["p50_ms"]), _f(c["port_add"]["p99_ms"]),
                     _f(c["port_remove"]["p50_ms"]),
                     _f(c["port_remove"]["p99_ms"]),
                     _f(c["fdb_move"]["p50_ms"], "%.2f"),
                     _f(c["fdb_move"]["p99_ms"], "%.2f"),
                     _f(p["frame"]["ns_per_frame"]),
                     _f(p["frame"]["delivered_pps"] / 1e3),
                     p["memory"]["total"] / 1024.0,
                     _f(p["cli"]["status"]["s"] * 1e3),
                     _f(p["scrape"]["s"] * 1e3),
                     p["scrape"]["bytes"] / 1024.0, p["scrape"]["series"]))
    L += ["", "## Learned MACs (the %d-port bridge)" % r["occupancy_ports"],
          "", "| learned MACs | in the copy | ns/frame | delivered kpps |",
          "|---|---|---|---|"]
    for o in r["occupancy"]:
        L.append("| %d | %d | %s | %s |" % (
            o["macs"], o["copy"], _f(o["frame"]["ns_per_frame"]),
            _f(o["frame"]["delivered_pps"] / 1e3)))
    L += ["", "## Attached bridges (%d ports each)" % r["bridges_ports"], "",
          "| bridges | last attach ms | map memory MiB (all) | "
          "status --json (all) ms | scrape ms | scrape KiB | series |",
          "|---|---|---|---|---|---|---|"]
    for b in r["bridges"]:
        L.append("| %d | %s | %.2f | %s | %s | %.0f | %d |" % (
            b["bridges"], _f(b["attach_s"] * 1e3),
            b["memory"] / 1048576.0, _f(b["status_all_s"] * 1e3),
            _f(b["scrape"]["s"] * 1e3), b["scrape"]["bytes"] / 1024.0,
            b["scrape"]["series"]))
    ag = r["aggregate"]
    if ag.get("xdpnet"):
        L += ["", "## Many flows at once (the %d-port bridge)" % ag["ports"],
              "", "%d generators, each as fast as it can, for %.1f s: "
              "delivered %s kpps through xdpnet (TC stage), %s kpps through "
              "the bridge (medians of %d interleaved repeats%s)." % (
                  ag["flows"], ag["secs"],
                  _f(ag["xdpnet"]["delivered_pps"] / 1e3),
                  _f(ag["bridge"]["delivered_pps"] / 1e3),
                  ag.get("repeats", r["repeats"]), _ratios(ag))]
    f = memory_formula(r)
    if f:
        L += ["", "## Memory", "", f + " (from --fdb-size, --static-size "
              "and --vlan-size changed one at a time on one bridge; the "
              "per-CPU part is the per-CPU maps' share and the decision cache, "
              "sized per CPU). Ports do not "
              "appear: the port maps are sized for 1,024 ports."]
    L += ["", "Plots: plots/*.png.", ""]
    return "\n".join(L)


def plots(r, d):
    """Curves against ports, learned MACs and bridges, if matplotlib is
    there; the paths written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    os.makedirs(d, exist_ok=True)
    out = []
    pts = sorted(r["ports"], key=lambda p: p["ports"])
    xs = [p["ports"] for p in pts]

    def save(fig, name):
        path = os.path.join(d, name)
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        plt.close(fig)
        out.append(path)

    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    ax[0].plot(xs, [p["attach"]["cold_s"] * 1e3 for p in pts], "o-",
               label="cold")
    ax[0].plot(xs, [p["attach"]["warm_s"] * 1e3 for p in pts], "s-",
               label="again")
    ax[0].plot(xs, [p["resync"]["p50_ms"] for p in pts], "^-",
               label="follower resync")
    ax[0].set(xlabel="ports", ylabel="ms", title="attach")
    ax[0].legend()
    for k, m in (("port_add", "o-"), ("port_remove", "s-"),
                 ("fdb_move", "^-")):
        ax[1].plot(xs, [p["convergence"][k]["p99_ms"] for p in pts], m,
                   label=k + " p99")
    ax[1].set(xlabel="ports", ylabel="ms", title="convergence")
    ax[1].legend()
    ax[2].plot(xs, [p["frame"]["ns_per_frame"] for p in pts], "o-")
    ax[2].set(xlabel="ports", ylabel="ns per frame", title="TC stage",
              ylim=(0, None))
    for a in ax:
        a.set_xscale("log", base=2)
    save(fig, "ports.png")

    occ = r["occupancy"]
    fig, ax = plt.subplots(figsize=(4.5, 3.6))
    ax.plot([o["macs"] for o in occ],
            [o["frame"]["ns_per_frame"] for o in occ], "o-")
    ax.set(xscale="log", xlabel="learned MACs", ylabel="ns per frame",
           title="FDB occupancy", ylim=(0, None))
    save(fig, "occupancy.png")

    br = r["bridges"]
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.6))
    ax[0].plot([b["bridges"] for b in br],
               [b["memory"] / 1048576.0 for b in br], "o-")
    ax[0].set(xlabel="bridges", ylabel="MiB", title="pinned map memory")
    ax[1].plot([b["bridges"] for b in br],
               [b["scrape"]["s"] * 1e3 for b in br], "o-", label="scrape")
    ax[1].plot([b["bridges"] for b in br],
               [b["status_all_s"] * 1e3 for b in br], "s-",
               label="status --json")
    ax[1].set(xlabel="bridges", ylabel="ms", title="outputs")
    ax[1].legend()
    save(fig, "bridges.png")
    return out


# ------------------------------------------------------- --attach (issue 45)

def _curve(r):
    """[(ports, {label: {cold_ms, again_ms, detach_ms: medians}})], by
    ports (JSON keeps the ports as text)."""
    out = []
    for n, cells in sorted(r["curve"].items(), key=lambda kv: int(kv[0])):
        out.append((int(n), {lab: {k: statistics.median(v)
                                   for k, v in c.items() if v}
                             for lab, c in cells.items()}))
    return out


def attach_targets(r):
    """(label, ms per port at the biggest bridge, slope ms per port,
    fixed ms, met): X6, at most ATTACH_MS_PER_PORT per port there."""
    cv = _curve(r)
    n, big = cv[-1]
    rows = []
    for lab in r["builds"]:
        ab = fit([p for p, _ in cv], [c[lab]["cold_ms"] for _, c in cv])
        per = big[lab]["cold_ms"] / n
        rows.append((lab, per, ab[1] if ab else None,
                     ab[0] if ab else None, per <= ATTACH_MS_PER_PORT))
    return rows


def attach_markdown(r):
    e, k = r["env"], r["kernel"]
    cv = _curve(r)
    labs = list(r["builds"])
    L = ["# xdpnet attach time: one run", "",
         "%s, %d CPUs, Linux %s, /sys/kernel/rcu_expedited %s, %d repeats "
         "(medians), the builds in turn. Command: `%s`." % (
             e["cpu_model"], e["cpus"], e["kernel"],
             k.get("rcu_expedited"), r["repeats"], r["command"]), ""]
    L += ["Builds: " + ", ".join("%s `%s`" % kv for kv in
                                 r["builds"].items()) + ".", ""]
    one, mb1 = k["links"][0], k["membarrier"][0]
    L += ["## The kernel alone", "",
          "A pass-through program linked to the tcx ingress of each of the "
          "%d veth peers of the biggest bridge, the links spread over "
          "several threads at once (wall time of all, per link), the links "
          "closed again, and as many `membarrier(MEMBARRIER_CMD_GLOBAL)` "
          "calls (one RCU grace period each, `synchronize_rcu()`, without "
          "RTNL) spread the same way. Speed-up: %d-thread time over this "
          "row's; 1.0 where the calls take turns:" % (
              one["links"], one["threads"]), "",
          "| threads | links s | ms per link | speed-up | ms per close "
          "| membarrier s | ms per call | speed-up |",
          "|---|---|---|---|---|---|---|---|"]
    for ln, mb in zip(k["links"], k["membarrier"]):
        L.append("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
            ln["threads"], ln["ms_per_link"] * ln["links"] / 1e3,
            ln["ms_per_link"], one["ms_per_link"] / ln["ms_per_link"],
            ln["ms_per_close"], mb["ms_per_call"] * mb["calls"] / 1e3,
            mb["ms_per_call"], mb1["ms_per_call"] / mb["ms_per_call"]))
    L += ["", "## Attach, cold (detached before), per build", "",
          "| ports (taps) | " + " | ".join(
              "%s ms (per port)" % lab for lab in labs) + " | " +
          " | ".join("%s again ms" % lab for lab in labs) + " | " +
          " | ".join("%s detach ms" % lab for lab in labs) + " |",
          "|" + "---|" * (1 + 3 * len(labs))]
    for n, c in cv:
        L.append("| %d (%d) | " % (n, r["taps"][str(n)]) +
                 " | ".join("%.0f (%.2f)" % (c[lab]["cold_ms"],
                                             c[lab]["cold_ms"] / n)
                            for lab in labs) + " | " +
                 " | ".join("%.0f" % c[lab]["again_ms"] for lab in labs) +
                 " | " + " | ".join("%.0f" % c[lab]["detach_ms"]
                                    for lab in labs) + " |")
    sp = r.get("split")
    if sp:
        L += ["", "## Where a cold attach goes (one more attach each, under "
              "`strace -f -T -e trace=bpf`)", "",
              "The time in `bpf(BPF_LINK_CREATE)` (count: all, tcx) "
              "against the rest of the attach (wall time under strace "
              "less that), per port:", "",
              "| ports | " + " | ".join(
                  "%s: links (tcx) | link ms | rest ms | rest ms per port"
                  % lab for lab in labs) + " |",
              "|" + "---|" * (1 + 4 * len(labs))]
        for n, c in sorted(sp.items(), key=lambda kv: int(kv[0])):
            n = int(n)
            L.append("| %d | " % n + " | ".join(
                "%d (%d) | %.0f | %.0f | %.2f" % (
                    c[lab]["links"], c[lab]["tcx_links"], c[lab]["link_ms"],
                    c[lab]["wall_ms"] - c[lab]["link_ms"],
                    (c[lab]["wall_ms"] - c[lab]["link_ms"]) / n)
                for lab in labs) + " |")
    L += ["", "## X6: attach of %d ports at most %.0f ms per port" % (
        cv[-1][0], ATTACH_MS_PER_PORT), "",
        "| build | ms per port at %d | slope ms per port (+ fixed ms) | met |"
        % cv[-1][0], "|---|---|---|---|"]
    for lab, per, b, a, met in attach_targets(r):
        L.append("| %s | %.2f | %s (+ %s) | %s |" % (
            lab, per, _f(b, "%.2f"), _f(a, "%.0f"),
            "yes" if met else "**no**"))
    L += ["", "CLI start (`nsenter ... xdpnet version`, in every time "
          "above): %.1f ms. Plot: plots/attach.png." % (
              r["cli_baseline_s"] * 1e3), ""]
    return "\n".join(L)


def attach_plot(r, d):
    """ms per port against ports, one curve per build: the path, if
    matplotlib is there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    os.makedirs(d, exist_ok=True)
    cv = _curve(r)
    xs = [n for n, _ in cv]
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for lab, m in zip(r["builds"], ("o-", "s-", "^-", "v-")):
        ax.plot(xs, [c[lab]["cold_ms"] / n for n, c in cv], m, label=lab)
    ax.axhline(ATTACH_MS_PER_PORT, color="grey", ls=":", label="X6")
    ax.set(xscale="log", xlabel="ports", ylabel="ms per port",
           title="attach, cold", ylim=(0, None))
    ax.set_xscale("log", base=2)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(d, "attach.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
