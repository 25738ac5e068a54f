# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""From cell records to groups (median, min-max), ratios, targets, and the
CSV and markdown files. Pure functions except the writers."""

import collections
import csv
import io

from . import matrix, parse, stats

METRICS = ["gbps", "sent_gbps", "retransmits", "rx_kpps", "tx_kpps",
           "loss_pct", "p50_us", "p90_us", "p99_us", "mean_us", "tps",
           "fwd_kpps", "delivered_kpps", "offered_kpps", "switch_ns",
           "recv_ns", "total_ns", "errors", "prog_ns", "sent_kpps",
           "cpu_ns", "vhost_ns", "machine_ns"]
# Each hook's program time per run (from the record's "prog"; in
# cells.csv as they are in every record).
HOOK_METRICS = ["xdp_ns", "tc_ns"]

REFS = matrix.REFS

GroupKey = collections.namedtuple(
    "GroupKey", "standin offloads mtu test variant direction path")


def group_key(rec):
    s = rec["setting"]
    return GroupKey(s["standin"], s["offloads"], int(s["mtu"]), rec["test"],
                    str(rec["variant"]), rec["direction"], rec["path"])


def aggregate(records):
    """{GroupKey: group}; a group has the per-metric summaries of its
    valid cells, the counts of invalid and failed ones, and per-repeat
    values (for paired ratios)."""
    groups = collections.OrderedDict()
    for r in records:
        k = group_key(r)
        g = groups.setdefault(k, {"key": k, "cells": [], "valid": 0,
                                  "invalid": 0, "host": 0, "error": 0,
                                  "reasons": [], "by_rep": {},
                                  "fastpath": [], "xdp_share": [],
                                  "shares": {}})
        g["cells"].append(r["cell"])
        v = r.get("validity", "valid")
        # Who carried the frames: from every cell with counters, an
        # invalid one too (where they went is why it is invalid).
        cd = r.get("counters_delta")
        if v != "error" and cd is not None:
            sh = parse.stage_shares(cd, r.get("ports") or list(cd))
            if sh:
                g["shares"][r["rep"]] = sh
        if v == "error":
            g["error"] += 1
            g["reasons"].append(r.get("validity_reason", ""))
            continue
        if v == "invalid":
            g["invalid"] += 1
            g["reasons"].append(r.get("validity_reason", ""))
            continue
        if v == "host":
            g["host"] += 1
        else:
            g["valid"] += 1
        m = dict(r.get("metrics") or {})
        # Each hook's program time per run (parse.prog_cost()).
        for h in ("xdp_ns", "tc_ns"):
            if m.get(h) is None and (r.get("prog") or {}).get(h) is not None:
                m[h] = r["prog"][h]
        g["by_rep"][r["rep"]] = m
        fp = r.get("fastpath")
        if fp and fp.get("share") is not None:
            g["fastpath"].append(fp["share"])
            g["xdp_share"].append(fp.get("xdp_share") or 0.0)
    for g in groups.values():
        g["metrics"] = {}
        for m in METRICS + HOOK_METRICS:
            vals = [rm.get(m) for rm in g["by_rep"].values()
                    if rm.get(m) is not None]
            if vals:
                g["metrics"][m] = stats.summarize(vals)
    return groups


def reference_key(key, ref, plan_settings):
    """The group a ratio compares key against: ref is 'bridge',
    'bridge-nf' or 'direct' (the direct pair of the same offloads and MTU,
    vm-vm; borrowed from the twin veth setting for tap settings)."""
    if ref != "direct":
        return key._replace(path=ref)
    s = matrix.direct_twin(matrix.Setting(key.standin, key.offloads,
                                          key.mtu), plan_settings)
    return key._replace(standin=s.standin, offloads=s.offloads, mtu=s.mtu,
                        direction="vm-vm", path="direct")


def refs_for(path):
    """The references a path's ratios are taken against: the bridge, the
    realistic bridge and the direct pair for every bridge path; the
    minimal TC redirect for xdpnet and the minimal variants."""
    out = []
    for ref in REFS:
        if ref == path or path == "direct":
            continue
        if ref in ("tc-minimal", "xdp-minimal") and not (
                matrix.is_xdpnet(path) or matrix.is_minimal(path)):
            continue
        if path == "bridge" and ref != "direct":
            continue
        if path == "bridge-nf" and ref not in ("bridge", "direct"):
            continue
        out.append(ref)
    return out


def ratios(groups, key, metric, plan_settings):
    """{ref: paired summary} for the group at key: the ratio of the two
    paths in each repeat where both have a valid cell (interleaved, so
    the pair ran minutes apart at most), and stats.paired() of those: the
    median ('ratio'), min, max, q1, q3 and the confidence interval of the
    median that verdicts rest on. 'of_medians': median / median."""
    g = groups.get(key)
    res = {}
    if not g or metric not in g["metrics"]:
        return res
    for ref in refs_for(key.path):
        rk = reference_key(key, ref, plan_settings)
        rg = groups.get(rk)
        r = paired_ratio(g, rg, metric)
        if r:
            res[ref] = r
    return res


def paired_ratio(g, rg, metric):
    """stats.paired() of group g's figure over group rg's, repeat by repeat
    (both valid), with 'of_medians'; None without a pair."""
    if not g or not rg or metric not in g["metrics"] or \
            metric not in rg["metrics"]:
        return None
    paired = []
    for rep, m in sorted(g["by_rep"].items()):
        rm = rg["by_rep"].get(rep)
        if rm and m.get(metric) is not None:
            pr = stats.ratio(m[metric], rm.get(metric))
            if pr is not None:
                paired.append(pr)
    if not paired:
        return None
    r = stats.paired(paired)
    r["of_medians"] = stats.ratio(g["metrics"][metric]["median"],
                                  rg["metrics"][metric]["median"])
    return r


def paired_diff(groups, key, other_path, metric="prog_ns"):
    """stats.paired() of key's figure minus other_path's, repeat by
    repeat (both valid), or None."""
    g, o = groups.get(key), groups.get(key._replace(path=other_path))
    if not g or not o:
        return None
    d = [m[metric] - o["by_rep"][rep][metric]
         for rep, m in sorted(g["by_rep"].items())
         if m.get(metric) is not None and rep in o["by_rep"] and
         o["by_rep"][rep].get(metric) is not None]
    return stats.paired(d) if d else None


def breakdown(groups):
    """What xdpnet-tc's program CPU per frame is made of, per (setting,
    item) it was measured in: tc-minimal's and its own figure, their
    paired ratio, and for each breakdown variant the ns per frame the
    variant saves (xdpnet-tc minus the variant, paired by repeat)."""
    out = []
    for row in _items_in_order(groups):
        key = GroupKey(*row, path="xdpnet-tc")
        g = groups.get(key)
        if not g or "prog_ns" not in g["metrics"]:
            continue
        ref = ratios(groups, key, "prog_ns", [])  # no 'direct' needed
        mk = key._replace(path="tc-minimal")
        saved = collections.OrderedDict()
        for v in matrix.TC_VARIANTS:
            saved[v] = paired_diff(groups, key, "xdpnet-tc-" + v)
        bare = key._replace(path="xdpnet-tc-bare")
        out.append({
            "row": row, "xdpnet": g["metrics"]["prog_ns"],
            "minimal": groups.get(mk, {}).get("metrics", {}).get("prog_ns"),
            "ratio": ref.get("tc-minimal"), "saved": saved,
            "bare_minus_minimal": paired_diff(groups, bare, "tc-minimal")})
    return out


def breakdown_xdp(groups):
    """What xdpnet-xdp's XDP program time per frame is made of, per
    (setting, item) it was measured in: its xdp_ns (parse.prog_cost())
    and xdp-minimal's, their paired ratio, the programs' CPU per frame
    of tc-minimal, xdpnet-tc and xdpnet-xdp (both stages), and for each
    XDP breakdown variant the XDP ns per frame the variant saves
    (xdpnet-xdp minus the variant, paired by repeat; None where it did
    not run)."""
    out = []
    for row in _items_in_order(groups):
        key = GroupKey(*row, path="xdpnet-xdp")
        g = groups.get(key)
        if not g or "xdp_ns" not in g["metrics"]:
            continue
        mk = key._replace(path="xdp-minimal")
        paired = []
        for rep, m in sorted(g["by_rep"].items()):
            rm = groups.get(mk, {}).get("by_rep", {}).get(rep) or {}
            pr = stats.ratio(m.get("xdp_ns"), rm.get("xdp_ns"))
            if pr is not None:
                paired.append(pr)

        def prog(path, metric="prog_ns"):
            return groups.get(key._replace(path=path), {}) \
                .get("metrics", {}).get(metric)

        out.append({
            "row": row, "xdpnet": g["metrics"]["xdp_ns"],
            "minimal": prog("xdp-minimal", "xdp_ns"),
            "ratio": stats.paired(paired) if paired else None,
            "prog": collections.OrderedDict(
                (p, prog(p)) for p in ("tc-minimal", "xdpnet-tc",
                                       "xdpnet-xdp")),
            "saved": collections.OrderedDict(
                (v, paired_diff(groups, key, "xdpnet-xdp-" + v, "xdp_ns"))
                for v in matrix.XDP_VARIANTS)})
    return out


def stage_share_rows(groups, paths=None):
    """Who carried each xdpnet cell's frames (parse.stage_shares()), one
    row per (setting, item) and xdpnet path with counters: the repeats
    counted, the median of the frames seen and of each share (a reason
    a repeat did not see counts 0 there)."""
    out = []
    for row in _items_in_order(groups):
        for p in paths or matrix.PATHS:
            g = groups.get(GroupKey(*row, path=p))
            if not g or not g["shares"]:
                continue
            reps = list(g["shares"].values())

            def med(get):
                return stats.median([get(s) for s in reps])

            bridge = {k for s in reps for k in s["bridge"]}
            defer = {k for s in reps for k in s["xdp_defer"]}
            out.append({
                "row": row, "path": p, "n": len(reps),
                "total": med(lambda s: s["total"]),
                "xdp_redirect": med(lambda s: s["xdp_redirect"]),
                "tc_redirect": med(lambda s: s["tc_redirect"]),
                "bridge": collections.OrderedDict(
                    (k, med(lambda s, k=k: s["bridge"].get(k, 0.0)))
                    for k in parse.reason_order(bridge,
                                                parse.PASS_REASONS)),
                "xdp_defer": collections.OrderedDict(
                    (k, med(lambda s, k=k: s["xdp_defer"].get(k, 0.0)))
                    for k in parse.reason_order(defer,
                                                parse.DEFER_REASONS))})
    return out


def significant(r):
    """True when the confidence interval of a paired ratio excludes 1.0:
    a difference, not noise."""
    return bool(r and r.get("ci_lo") is not None and
                (r["ci_lo"] > 1.0 or r["ci_hi"] < 1.0))


# ------------------------------------------------------------------ targets

def _vv(k):
    return k.direction == "vm-vm"


# Issue 11's targets. (id, description, paths, selector, metric,
# reference, op, threshold, rule). rule 'interval': met when the whole
# confidence interval of the median paired ratio is on the good side,
# missed when all of it is on the bad side, inconclusive otherwise.
# 'not-worse' ("no cell below"): a cell counts as below only when its
# whole interval is; else it is met.
X1_DESC = ("tap, offloads on: --mode xdp against --mode tc: throughput not "
           "below, RR p50 not slower, CPU per frame <= 1.1x")
TARGETS = [
    ("T1", "per-packet TCP (veth, offloads off): xdpnet-tc >= 0.97x "
     "tc-minimal", ("xdpnet-tc",),
     lambda k: k.test == "tcp_stream" and k.standin == "veth" and
     k.offloads == "off" and _vv(k), "gbps", "tc-minimal", ">=", 0.97,
     "interval"),
    ("T2", "program CPU per frame (bpf_stats): xdpnet-tc <= 1.5x "
     "tc-minimal", ("xdpnet-tc",), _vv, "prog_ns", "tc-minimal", "<=", 1.5,
     "interval"),
    ("T3", "offloads on: no cell below 1.0x the bridge", None,
     lambda k: k.offloads == "on" and _vv(k) and k.test in
     ("tcp_stream", "udp", "tcp_crr"), None, "bridge", ">=", 1.0,
     "not-worse"),
    ("T4a", "64 B forwarding: xdpnet-tc >= 1.3x the bridge, delivered",
     ("xdpnet-tc", "xdpnet-tc-plain"),
     lambda k: k.test in matrix.FWD_TESTS,
     "delivered_kpps", "bridge", ">=", 1.3, "interval"),
    # XDP from a tap: xdpnet's XDP stage runs on taps only.
    ("T4b", "64 B forwarding from a tap: XDP >= 2x the bridge, delivered",
     ("xdpnet-xdp", "xdpnet-xdp-plain"), lambda k: k.test == "fwd64_tap",
     "delivered_kpps", "bridge", ">=", 2.0, "interval"),
    ("T5", "realistic host (per-packet TCP, offloads off): >= 4x "
     "bridge-nf", None,
     lambda k: k.test == "tcp_stream" and k.offloads == "off" and _vv(k),
     "gbps", "bridge-nf", ">=", 4.0, "interval"),
    ("T6a", "RR 64 B p50 <= 0.95x the plain bridge", None,
     lambda k: k.test in ("tcp_rr", "udp_rr") and _vv(k), "p50_us",
     "bridge", "<=", 0.95, "interval"),
    ("T6b", "RR 64 B p50 <= 0.8x the realistic host", None,
     lambda k: k.test in ("tcp_rr", "udp_rr") and _vv(k), "p50_us",
     "bridge-nf", "<=", 0.8, "interval"),
    # --topology vhost (issue 31): frames through real vhost-net. V1-V3
    # on the full-checksum frames they were set for; V4 and V5 on every
    # cell of their kind, partial checksums too.
    # Issue 45: what default guests send. X1 on the tap cells with
    # offloads on (partial checksums), --mode xdp against --mode tc of
    # the same repeat; X3 and X4 the TC stage's CPU per frame against
    # tc-minimal, on the frames it redirects (vm-vm) and on those it
    # hands to the bridge (the host's own: host-vm, vm-host). X2 is
    # --progtime's (progtime.py), X6 bench_scale's.
    ("X1", X1_DESC, ("xdpnet-xdp",),
     lambda k: k.standin == "tap" and k.offloads == "on" and
     k.test in ("tcp_stream", "tcp_crr"), None, "xdpnet-tc", ">=", 1.0,
     "not-worse"),
    ("X1", X1_DESC,
     ("xdpnet-xdp",),
     lambda k: k.standin == "tap" and k.offloads == "on" and
     k.test in ("tcp_rr", "udp_rr"), "p50_us", "xdpnet-tc", "<=", 1.0,
     "not-worse"),
    ("X1", X1_DESC,
     ("xdpnet-xdp",),
     lambda k: k.standin == "tap" and k.offloads == "on" and _vv(k),
     "prog_ns", "xdpnet-tc", "<=", 1.1, "interval"),
    ("X3", "TC stage CPU per frame <= 1.2x tc-minimal (every cell; the "
     "median cell 1.1x)", ("xdpnet-tc",), _vv, "prog_ns", "tc-minimal",
     "<=", 1.2, "interval"),
    ("X4", "frames handed to the bridge (host-vm, vm-host): TC stage CPU "
     "per frame <= 1.2x tc-minimal's pass", ("xdpnet-tc",),
     lambda k: not _vv(k), "prog_ns", "tc-minimal", "<=", 1.2,
     "interval"),
    ("V1", "vhost 64 B: XDP stage >= 2x the bridge, delivered",
     ("xdpnet-xdp",), lambda k: k.test == "vhost_pps" and k.variant == "64",
     "delivered_kpps", "bridge", ">=", 2.0, "interval"),
    ("V2", "vhost 64 B: XDP stage CPU per frame (vhost workers included) "
     "<= 1.1x xdp-minimal", ("xdpnet-xdp",),
     lambda k: k.test == "vhost_pps" and k.variant == "64", "cpu_ns",
     "xdp-minimal", "<=", 1.1, "interval"),
    ("V3", "vhost 64 B: TC stage >= 1.3x the bridge, delivered",
     ("xdpnet-tc",), lambda k: k.test == "vhost_pps" and k.variant == "64",
     "delivered_kpps", "bridge", ">=", 1.3, "interval"),
    ("V4", "vhost: no cell below the bridge", None,
     lambda k: k.test in ("vhost_pps", "vhost_pps_partial", "vhost_gso",
                          "vhost_tcp"), None, "bridge", ">=",
     1.0, "not-worse"),
    ("V4", "vhost: no cell below the bridge", None,
     lambda k: k.test in ("vhost_rr", "vhost_rr_partial"), None, "bridge",
     "<=", 1.0, "not-worse"),
    ("V5", "vhost RR p50 <= 0.8x the bridge", None,
     lambda k: k.test in ("vhost_rr", "vhost_rr_partial"), "p50_us",
     "bridge", "<=", 0.8, "interval"),
]


def target_status(r, op, thr, rule):
    v = stats.verdict(r, op, thr)
    if rule == "not-worse" and v == "inconclusive":
        return "met"
    return v


def evaluate_targets(groups, plan_settings):
    """Every cell each target covers, with its paired ratio and verdict
    (met, MISSED, inconclusive, or n/a: too few paired repeats for an
    interval, or nothing to compare)."""
    rows = []
    for tid, desc, paths, sel, metric, ref, op, thr, rule in TARGETS:
        for key, g in groups.items():
            if not matrix.is_xdpnet(key.path) or not sel(key):
                continue
            if paths and key.path not in paths:
                continue
            m = metric or matrix.TESTS[key.test]["metric"]
            rg = groups.get(reference_key(key, ref, plan_settings))
            r = (ratios(groups, key, m, plan_settings).get(ref)
                 if ref in REFS else paired_ratio(g, rg, m))
            val = g["metrics"].get(m, {}).get("median")
            refval = (rg or {}).get("metrics", {}).get(m, {}).get("median")
            if m == "prog_ns" and val is None:
                continue  # statistics off, or a path without programs
            status = target_status(r, op, thr, rule)
            why = ""
            if r is None:
                why = ("no valid cells" if g["valid"] + g["host"] == 0
                       else "no reference")
            elif status == "n/a":
                why = "%d paired repeats: too few for a %d%% interval" % (
                    r["n"], round(100 * stats.CI_LEVEL))
            if g["invalid"] and not g["valid"]:
                why = "invalid: " + "; ".join(sorted(set(g["reasons"])))
            rows.append({
                "target": tid, "description": desc, "key": key,
                "metric": m, "reference": ref, "op": op, "threshold": thr,
                "rule": rule, "value": val, "ref_value": refval,
                "paired": r, "ratio": r["ratio"] if r else None,
                "status": status, "note": why})
    return rows


# ---------------------------------------------------------------- writers

def fmt(v, metric=None):
    if v is None:
        return "–"
    if isinstance(v, float):
        if metric in ("gbps", "sent_gbps"):
            return "%.2f" % v
        if abs(v) >= 100:
            return "%.0f" % v
        if abs(v) >= 10:
            return "%.1f" % v
        return "%.2f" % v
    return str(v)


CELL_FIELDS = ["cell", "standin", "offloads", "mtu", "test", "variant",
               "direction", "path", "rep", "validity", "validity_reason",
               "fastpath_share", "xdp_share", "nf_forward_packets",
               "prog_frames", "tc_ns", "xdp_ns", "error"] + METRICS


def cells_csv(records):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CELL_FIELDS, extrasaction="ignore")
    w.writeheader()
    for r in records:
        row = {"cell": r["cell"], "test": r["test"],
               "variant": r["variant"], "direction": r["direction"],
               "path": r["path"], "rep": r["rep"],
               "validity": r.get("validity"),
               "validity_reason": r.get("validity_reason", ""),
               "nf_forward_packets": r.get("nf_forward_packets", ""),
               "error": r.get("error") or ""}
        row.update(r["setting"])
        pc = r.get("prog") or {}
        row["prog_frames"] = pc.get("frames", "")
        for k in ("tc_ns", "xdp_ns"):
            row[k] = "" if pc.get(k) is None else "%.1f" % pc[k]
        fp = r.get("fastpath") or {}
        row["fastpath_share"] = "" if fp.get("share") is None else \
            "%.5f" % fp["share"]
        row["xdp_share"] = "" if fp.get("xdp_share") is None else \
            "%.5f" % fp["xdp_share"]
        for m in METRICS:
            v = (r.get("metrics") or {}).get(m)
            row[m] = "" if v is None else ("%.6g" % v)
        w.writerow(row)
    return buf.getvalue()


SUMMARY_FIELDS = ["standin", "offloads", "mtu", "test", "variant",
                  "direction", "path", "metric", "n_valid", "n_invalid",
                  "n_error", "median", "min", "max"] + [
    "vs_%s%s" % (r.replace("-", "_"), sfx) for r in REFS
    for sfx in ("", "_min", "_max", "_ci_lo", "_ci_hi")] + [
    "fastpath_share_min"]


def summary_rows(groups, plan_settings):
    rows = []
    for key, g in groups.items():
        t = matrix.TESTS[key.test]
        for metric in [t["metric"]] + t["extra"]:
            sm = g["metrics"].get(metric)
            if not sm:
                continue
            rs = ratios(groups, key, metric, plan_settings)
            row = dict(key._asdict())
            row.update({
                "metric": metric, "n_valid": g["valid"] + g["host"],
                "n_invalid": g["invalid"], "n_error": g["error"],
                "median": sm["median"], "min": sm["min"], "max": sm["max"],
                "fastpath_share_min": min(g["fastpath"]) if g["fastpath"]
                else None})
            for ref in REFS:
                r = rs.get(ref) or {}
                base = "vs_" + ref.replace("-", "_")
                row[base] = r.get("ratio")
                for k in ("min", "max", "ci_lo", "ci_hi"):
                    row["%s_%s" % (base, k)] = r.get(k)
            rows.append(row)
    return rows


def summary_csv(groups, plan_settings):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=SUMMARY_FIELDS)
    w.writeheader()
    for row in summary_rows(groups, plan_settings):
        out = {}
        for k, v in row.items():
            out[k] = ("%.6g" % v) if isinstance(v, float) else \
                ("" if v is None else v)
        w.writerow(out)
    return buf.getvalue()


def _items_in_order(groups):
    seen = collections.OrderedDict()
    for k in groups:
        seen.setdefault((k.standin, k.offloads, k.mtu, k.test, k.variant,
                         k.direction), None)
    return list(seen)


def _label(row):
    standin, offloads, mtu, test, variant, direction = row
    v = "" if test in matrix.RR_TESTS + ("tcp_crr",) else " " + variant
    if test in ("udp", "vhost_pps", "vhost_pps_partial"):
        v = " %s B" % variant
    return "%s, offloads %s, MTU %d: %s%s %s" % (
        standin, offloads, mtu, test, v,
        matrix.ARROW.get(direction, direction))
