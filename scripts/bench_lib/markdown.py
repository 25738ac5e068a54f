# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""report.md: a run's document, from its raw.json document and
report.aggregate()'s groups."""

from . import matrix, report, stats, tables, util

# Report sections: (title, tests, extra figures shown).
FAMILIES = [
    ("TCP stream (iperf3)", ("tcp_stream",), ["retransmits"]),
    ("UDP flood (iperf3 -u -b 0), frames received", ("udp",),
     ["loss_pct"]),
    ("Request/response, 64 B (sockperf ping-pong)", ("tcp_rr", "udp_rr"),
     ["p99_us"]),
    ("TCP connect/request/response, 64 B (xnb_crr)", ("tcp_crr",),
     ["p50_us"]),
    ("64 B forwarding (xnb_pktgen -> tap; from a veth port, and from a "
     "tap port)", ("fwd64", "fwd64_tap"),
     ["delivered_kpps", "switch_ns"]),
]


def _environment(doc, L):
    env = doc["env"]
    L.append("## Environment")
    L.append("")
    L.append("| item | value |")
    L.append("|---|---|")
    for k in ("kernel", "kernel_version", "cpu_model", "cpus", "hypervisor",
              "memory", "iperf3", "sockperf", "iptables", "xdpnet", "git",
              "vhost_net", "kvm", "clocksource"):
        L.append("| %s | %s |" % (k, env.get(k)))
    t = doc.get("topology_info", {})
    L.append("| realistic host's iptables rules | %s asked, %s in the "
             "filter and nat tables (measured), with `%s` |" % (
                 doc["rules"], doc.get("rules_measured"),
                 doc.get("iptables", "iptables")))
    L.append("| BPF program statistics | %s |" % (
        "on for the whole run (BPF_ENABLE_STATS): every program run pays "
        "two clock reads" if t.get("prog_stats") else "off"))
    L.append("| TC hook of xdpnet and tc-minimal | %s |" % t.get("tc_hook"))
    if t.get("xdpnet_attach"):
        L.append("| xdpnet attach | `xdpnet %s`%s |" % (
            t["xdpnet_attach"], " (--bypass-filters asked for on the "
            "command line)" if doc.get("bypass_filters") else ""))
    L.append("| bridge | %s in %s, ageing %s cs, STP %s |" % (
        t.get("bridge"), t.get("host_namespace"), t.get("ageing_time"),
        t.get("stp")))
    for port, p in sorted((t.get("ports") or {}).items()):
        L.append("| port %s | %s |" % (port, ", ".join(
            "%s=%s" % (k, v) for k, v in sorted(p.items()))))
    L.append("")
    hr = t.get("host_rules")
    if hr:
        L.append("**The realistic host** (paths bridge-nf, tc-minimal, "
                 "xdpnet-*): br_netfilter on, and the iptables rules of a "
                 "host running Docker and a kube-proxy-style service proxy "
                 "next to its VMs (scripts/bench_lib/hostrules.py): %d "
                 "Docker networks with %d published ports (DOCKER-USER, "
                 "DOCKER-FORWARD, DOCKER-CT, DOCKER-ISOLATION-STAGE-1/2, "
                 "DOCKER-BRIDGE, DOCKER; nat DNAT and MASQUERADE) and %d "
                 "services without endpoints (KUBE-SERVICES, "
                 "KUBE-EXTERNAL-SERVICES): %d filter and %d nat rules. None "
                 "can match a frame between two VMs on the bridge: Docker's "
                 "rules name Docker bridges in -i/-o, kube-proxy's match "
                 "ClusterIPs (10.96.0.0/12) or local destinations, "
                 "DOCKER-USER only returns. A VM-to-VM frame is still "
                 "tested against %d rules (%d for a connection's first), "
                 "and conntrack tracks it." % (
                     hr["networks"], hr["published_ports"], hr["services"],
                     hr["filter_rules"], hr["nat_rules"],
                     hr["walk_established"], hr["walk_new"]))
        if hr.get("kind") == "docker":
            L.append("")
            L.append("(`--host-rules docker`: no kube-proxy rules; their "
                     "share is published ports in the DOCKER chain.)")
        L.append("")
    L.append("Offloads (ethtool -k, both ends) per setting, as measured "
             "before its first cell:")
    L.append("")
    for sname, snap in (doc.get("offloads") or {}).items():
        L.append("- `%s`: %s" % (sname, "; ".join(
            "%s %s" % (dev, v if isinstance(v, str) else ",".join(
                "%s=%s" % kv for kv in sorted(v.items())))
            for dev, v in sorted(snap.items()))))
    L.append("")
    if doc.get("offloads_attached"):
        L.append("The stand-ins' own offloads with xdpnet attached (a "
                 "native XDP program on a veth port takes GSO/TSO away from "
                 "its peer):")
        L.append("")
        for k, snap in doc["offloads_attached"].items():
            L.append("- `%s`: %s" % (k, "; ".join(
                "%s %s" % (dev, ",".join("%s=%s" % kv for kv in
                                         sorted(v.items())))
                for dev, v in sorted(snap.items()))))
        L.append("")


def _method(doc, L):
    L.append("## Paths and method")
    L.append("")
    for p in doc["paths"]:
        L.append("- **%s**: %s" % (p, matrix.PATHS[p]["label"].replace(
            "N ", "%s " % doc["rules"])))
    L.append("")
    blind = [p for p in doc["paths"] if matrix.PATHS[p].get("csum_blind")]
    if blind:
        L.append("%s %s every checksum as valid: a frame with a partial "
                 "checksum (the sender left it to offload, as a default "
                 "guest does) would arrive broken after an XDP redirect. "
                 "%s ran only cells whose frames carry full checksums "
                 "(offloads off, 64 B frames from the generator, vhost "
                 "cells with full checksums or GSO frames only)." % (
                     " and ".join(blind), "take" if len(blind) > 1 else
                     "takes", "They" if len(blind) > 1 else "It"))
        L.append("")
    lvl = round(100 * stats.CI_LEVEL)
    L.append(
        "Paths are interleaved: for each setting, each repeat runs every "
        "path in turn. Figures are medians of the valid repeats, [min–max] "
        "across them. A ratio is the median of the per-repeat paired "
        "ratios (the path over the reference in the same repeat), with "
        "their min–max in parentheses; it is in **bold** when the %d%% "
        "confidence interval of that median (order statistics: min–max "
        "for 6-8 repeats, the 2nd lowest to 2nd highest for 9-11) excludes "
        "1.0, i.e. when the difference is not noise. Fewer than 6 paired "
        "repeats give no interval, so no bold and no verdict. A target is "
        "met when its whole interval is on the good side of the "
        "threshold, missed when all of it is on the bad side, and "
        "inconclusive otherwise ('no cell below 1.0x': a cell counts as "
        "below only when its whole interval is). This run: %d repeats." % (
            lvl, doc["repeats"]))
    L.append("")
    L.append(
        "An xdpnet cell where under %.0f%% of the test's frames took the "
        "bypass is invalid and left out; for tc-minimal, the frames that "
        "went through br_netfilter's FORWARD chain are the ones it did not "
        "redirect. Host traffic (host→vm, vm→host, with the bridge's own "
        "address as the host) takes the bridge by design. Program CPU per "
        "frame (prog_ns) is the run time of the BPF programs on the test's "
        "ports over the frames they saw (kernel run-time statistics, "
        "run_time_ns / run_cnt), measured the same way for every BPF "
        "path." % (100 * doc["threshold"]))
    L.append("")


def _results(doc, groups, plan_settings, L):
    paths = doc["paths"]
    L.append("## Results")
    seeds = tables.seeds_table(groups, paths)
    if seeds:
        L.append("")
        L.append("### TCP stream by direction (the seeds' table)")
        L.append("")
        L.append("Medians, Gbit/s; in parentheses the median paired ratio "
                 "to the bridge. The host is the bridge's own address.")
        L.append("")
        L.append(seeds)
    order = report._items_in_order(groups)
    for title, tests, extra in FAMILIES:
        rows = [r for r in order if r[3] in tests]
        if not rows:
            continue
        L.append("")
        L.append("### " + title)
        L.append("")
        metric = matrix.TESTS[tests[0]]["metric"]
        L.append(tables.values_table(groups, paths, rows=rows))
        L.append("")
        rt = tables.ratio_table(groups, paths, plan_settings, rows=rows)
        if rt:
            L.append("Paired ratios of %s (%s):" % (
                metric, "higher is better" if matrix.BETTER[metric] ==
                "higher" else "lower is better"))
            L.append("")
            L.append(rt)
            L.append("")
        for m in extra:
            mf = {t: m for t in tests}
            L.append(tables.values_table(groups, paths, metric_for=mf,
                                         rows=rows))
            L.append("")
        if "fwd64" in tests:
            mf = {t: "delivered_kpps" for t in matrix.FWD_TESTS}
            rt = tables.ratio_table(groups, paths, plan_settings,
                                    metric_for=mf, rows=rows)
            if rt:
                L.append("Paired ratios of delivered_kpps:")
                L.append("")
                L.append(rt)
                L.append("")
    bpf = [p for p in paths if matrix.is_bpf(p)]
    rows = [r for r in order if any(
        groups.get(report.GroupKey(*r, path=p), {}).get("metrics", {})
        .get("prog_ns") for p in bpf)]
    if rows:
        L.append("")
        L.append("### BPF program CPU per frame")
        L.append("")
        L.append("ns per frame, all programs on the test's ports "
                 "(run_time_ns / run_cnt):")
        L.append("")
        mf = {t: "prog_ns" for t in matrix.TESTS}
        L.append(tables.values_table(groups, bpf, metric_for=mf, rows=rows))
        L.append("")
        rt = tables.ratio_table(groups, bpf, plan_settings, metric_for=mf,
                                rows=rows)
        if rt:
            L.append("Paired ratios (lower is better):")
            L.append("")
            L.append(rt)
            L.append("")
    sh = report.stage_share_rows(groups, paths)
    if sh:
        L.append("")
        L.append("### Who carried the frames")
        L.append("")
        L.append("Per xdpnet cell, of the frames that entered the test's "
                 "ports (xdpnet's counters, before and after the cell): "
                 "the share the XDP stage redirected, the share the TC "
                 "stage redirected, and the share handed to the bridge, "
                 "by reason (the pass_* counters); medians over the "
                 "repeats, invalid ones included (where the frames went "
                 "is why they are invalid). The last column: the frames "
                 "the XDP stage handed to the TC stage, by reason "
                 "(xdp_defer_*), as shares of the same total; the TC "
                 "stage's verdict on them is in the columns before.")
        L.append("")
        L.append(tables.shares_table(sh))
        L.append("")
    bd = report.breakdown(groups)
    if bd and any(matrix.PATHS[p].get("variant") and
                  matrix.PATHS[p]["xdpnet"] == "tc" for p in paths):
        L.append("### What the TC stage's CPU per frame is made of")
        L.append("")
        L.append("Program ns per frame of tc-minimal and xdpnet-tc (median "
                 "[min–max]), their paired ratio, and for each build with "
                 "one component out the ns per frame it saves: xdpnet-tc "
                 "minus that build, paired by repeat, median (min–max). "
                 "The components:")
        L.append("")
        _components(matrix.TC_VARIANTS, L)
        L.append("The last column is what is left against tc-minimal "
                 "when the counters, the clock, the live reads and the MTU "
                 "check are out (xdpnet-tc-bare minus tc-minimal).")
        L.append("")
        L.append(tables.breakdown_table(bd))
        L.append("")
    bx = report.breakdown_xdp(groups)
    if bx and any(matrix.PATHS[p].get("variant") and
                  matrix.PATHS[p]["xdpnet"] == "xdp" for p in paths):
        _breakdown_xdp(bx, L)


def _components(variants, L):
    """The breakdown builds' list: what each takes out, and how."""
    for v in variants:
        spec = matrix.VARIANTS[v]
        L.append("- **%s**: %s%s" % (v, spec["what"], (
            " (`BPF_EXTRA=%s`)" % spec["extra"]) if spec["extra"] else ""))
    L.append("")


def _breakdown_xdp(rows, L):
    L.append("### What the XDP stage's program time per frame is made of")
    L.append("")
    L.append("The XDP program's ns per run (xdp_ns: run time over runs of "
             "the XDP programs on the test's ports) of xdp-minimal and "
             "xdpnet-xdp (median [min–max]) and their paired ratio; the "
             "CPU per frame of every program on the ports (prog_ns: a "
             "frame the XDP stage hands on pays for both stages) of "
             "tc-minimal, xdpnet-tc and xdpnet-xdp; and for each build "
             "with one component out the XDP ns per run it saves: "
             "xdpnet-xdp minus that build, paired by repeat, median "
             "(min–max). xdp-minimal and the nocsum build take every "
             "checksum as valid, so a partial one would arrive broken: "
             "they ran only in cells whose frames carry full checksums "
             "(offloads off, and the generator's frames of fwd64_tap); "
             "'–' elsewhere. The components:")
    L.append("")
    _components(matrix.XDP_VARIANTS, L)
    L.append(tables.breakdown_xdp_table(rows))
    L.append("")


VHOST_METHOD = (
    "**vhost topology.** Two user-space vhost-net \"VMs\" "
    "(scripts/bench_tools/xnb_vhost: a guest's virtio-net driver without the "
    "guest) on taps of one bridge: their frames enter the host through "
    "vhost-net's handle_tx, in batches of XDP buffers through tun_xdp_one() "
    "where a frame fits a page, and leave through handle_rx, as a KVM "
    "guest's do. Every frame is a stamped record the receiver verifies "
    "(checksum, digest, sequence); a damaged frame fails its cell. "
    "vhost_pps: UDP frames of 64 or 1,518 B on the wire with full "
    "checksums (a guest with tx checksumming off), flat out, delivered per "
    "second; vhost_pps_partial: the same with partial checksums "
    "(NEEDS_CSUM, as a default guest sends them); vhost_gso: TCP GSO frames "
    "of 64 KB (partial checksums); vhost_tcp: TCP as a default guest sends "
    "it, TSO frames of 64 KB (tso) or 1,518 B segments (notso, TSO off), "
    "partial checksums, every frame answered by a 54 B ACK with a partial "
    "checksum whose checksum the sender verifies; vhost_rr and "
    "vhost_rr_partial: one 64 B request at a time, answered by an echo, "
    "with full or partial checksums. xdp-minimal takes every checksum as "
    "valid and runs only the cells without partial checksums in XDP "
    "(vhost_pps, vhost_gso, vhost_rr). cpu_ns: CPU time of both processes "
    "and their "
    "vhost workers per delivered frame (per request and per reply for RR); "
    "vhost_ns: the workers' share; machine_ns: the whole machine's busy "
    "time per frame. tun_msg_ptr_frames in raw.json: frames vhost-net "
    "handed over as XDP buffers, counted by a kprobe on tun_sendmsg.")


def markdown(doc, groups, targets, made, plan_settings):
    env = doc["env"]
    L = []
    L.append("# xdpnet benchmark: %s topology, %s profile" % (
        doc["topology"], doc["profile"]))
    L.append("")
    if doc.get("vm_accel") == "tcg":
        L.append("**TCG plumbing check.** The guests ran under QEMU's "
                 "instruction emulator (no usable KVM here): every guest "
                 "figure below measures the emulator, not the network "
                 "path. No target is evaluated.")
        L.append("")
    if doc.get("emulated"):
        L.append("**Emulated host.** This run's machine is itself emulated "
                 "(QEMU TCG, `--emulated`): its figures show that every "
                 "path works and which way it took, not how fast it is. "
                 "No target is evaluated.")
        L.append("")
    if doc.get("topology") == "vhost":
        L.append(VHOST_METHOD)
        L.append("")
    if doc.get("vm_reasons"):
        L.append("VM topology: " + "; ".join(doc["vm_reasons"]) + ".")
        L.append("")
    L.append("Run %s – %s (%s). Command: `%s`." % (
        doc["started_at"], doc.get("finished_at", "?"),
        util.fmt_secs(doc.get("elapsed_s", 0)), doc["command"]))
    L.append("")
    u = doc.get("cpu_usage") or {}
    L.append("Machine: %s, %s CPUs, kernel %s; load average at start %s, "
             "at end %s; during the run the machine was %.0f%% busy "
             "(all processes, ours included) with %.1f%% steal." % (
                 env["cpu_model"], env["cpus"], env["kernel"],
                 env.get("loadavg_start"), doc.get("loadavg_end"),
                 u.get("busy_pct", 0), u.get("steal_pct", 0)))
    L.append("")
    _environment(doc, L)
    _method(doc, L)
    L.append("## Targets")
    L.append("")
    for tid, s in tables.targets_summary(targets).items():
        L.append("- **%s** %s: %d met, %d missed, %d inconclusive, %d "
                 "without a verdict" % (tid, s["description"], s["met"],
                                        s["missed"], s["inconclusive"],
                                        s["na"]))
    L.append("")
    if targets:
        L.append(tables.targets_table(targets))
        L.append("")
    _results(doc, groups, plan_settings, L)
    bad = [r for r in doc["cells"] if r.get("validity") in ("invalid",
                                                           "error")]
    L.append("## Invalid and failed cells")
    L.append("")
    if not bad:
        L.append("None.")
    for r in bad:
        L.append("- cell %d (%s, %s %s %s, %s, repeat %d): %s – %s" % (
            r["cell"], matrix.setting_name(matrix.Setting(**r["setting"])),
            r["test"], r["variant"], r["direction"], r["path"], r["rep"],
            r["validity"], r.get("validity_reason", "")))
    L.append("")
    if made:
        L.append("## Plots")
        L.append("")
        for fn, cap in made:
            L.append("![%s](plots/%s)" % (cap, fn))
            L.append("")
    L.append("Raw data: `raw.json` (every cell, with the tools' own output, "
             "xdpnet's counter deltas and the programs' run-time "
             "statistics); `cells.csv` (one row per cell); `summary.csv` "
             "(one row per group and figure, with every paired ratio, its "
             "min–max and interval).")
    L.append("")
    return "\n".join(L)
