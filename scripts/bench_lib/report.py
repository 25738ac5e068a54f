# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""From cell records to groups (median, min-max), ratios, targets, and the
CSV and markdown files. Pure functions except the writers."""

import collections
import csv
import io

from . import matrix, stats

METRICS = ["gbps", "sent_gbps", "retransmits", "rx_kpps", "tx_kpps",
           "loss_pct", "p50_us", "p90_us", "p99_us", "mean_us", "tps",
           "fwd_kpps", "delivered_kpps", "offered_kpps", "switch_ns",
           "recv_ns", "total_ns", "errors"]

REFS = ("bridge", "bridge-nf", "direct")

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
                                  "fastpath": [], "xdp_share": []})
        g["cells"].append(r["cell"])
        v = r.get("validity", "valid")
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
        g["by_rep"][r["rep"]] = r.get("metrics") or {}
        fp = r.get("fastpath")
        if fp and fp.get("share") is not None:
            g["fastpath"].append(fp["share"])
            g["xdp_share"].append(fp.get("xdp_share") or 0.0)
    for g in groups.values():
        g["metrics"] = {}
        for m in METRICS:
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


def ratios(groups, key, metric, plan_settings):
    """{ref: {'ratio': median/median, 'min', 'max' (per-repeat paired
    ratios)}} for the group at key."""
    g = groups.get(key)
    res = {}
    if not g or metric not in g["metrics"]:
        return res
    for ref in REFS:
        if ref == key.path:
            continue
        rk = reference_key(key, ref, plan_settings)
        rg = groups.get(rk)
        if not rg or metric not in rg["metrics"]:
            continue
        r = stats.ratio(g["metrics"][metric]["median"],
                        rg["metrics"][metric]["median"])
        paired = []
        for rep, m in g["by_rep"].items():
            rm = rg["by_rep"].get(rep)
            if rm and m.get(metric) is not None:
                pr = stats.ratio(m[metric], rm.get(metric))
                if pr is not None:
                    paired.append(pr)
        res[ref] = {"ratio": r,
                    "min": min(paired) if paired else None,
                    "max": max(paired) if paired else None}
    return res


# ------------------------------------------------------------------ targets

# (id, description, selector, metric, reference, op, threshold)
TARGETS = [
    ("T1", "TCP stream, offloads off: xdpnet >= 0.95x direct veth",
     lambda k: k.test == "tcp_stream" and k.offloads == "off" and
     k.direction == "vm-vm", "gbps", "direct", ">=", 0.95),
    ("T2", "TCP stream, offloads off, realistic host: xdpnet >= 3.5x "
     "bridge (br_netfilter + N rules)",
     lambda k: k.test == "tcp_stream" and k.offloads == "off" and
     k.direction == "vm-vm", "gbps", "bridge-nf", ">=", 3.5),
    ("T3a", "RR latency 64 B: p50 <= 0.95x plain bridge",
     lambda k: k.test in ("tcp_rr", "udp_rr") and k.direction == "vm-vm",
     "p50_us", "bridge", "<=", 0.95),
    ("T3b", "RR latency 64 B: p50 <= 0.8x realistic bridge",
     lambda k: k.test in ("tcp_rr", "udp_rr") and k.direction == "vm-vm",
     "p50_us", "bridge-nf", "<=", 0.8),
    ("T3c", "RR latency 64 B: p99 never worse than the plain bridge",
     lambda k: k.test in ("tcp_rr", "udp_rr") and k.direction == "vm-vm",
     "p99_us", "bridge", "<=", 1.0),
    ("T4", "TCP stream, offloads on: no cell below 1.0x plain bridge",
     lambda k: k.test == "tcp_stream" and k.offloads == "on", "gbps",
     "bridge", ">=", 1.0),
    ("T5", "64 B forwarding, XDP mode: switch CPU per forwarded packet "
     "<= 0.5x bridge",
     lambda k: k.test == "fwd64" and k.path.startswith("xdpnet-xdp"),
     "switch_ns", "bridge", "<=", 0.5),
]


def evaluate_targets(groups, plan_settings):
    """Every cell each target covers: met, missed, or not measurable."""
    rows = []
    for tid, desc, sel, metric, ref, op, thr in TARGETS:
        for key, g in groups.items():
            if not matrix.is_xdpnet(key.path) or not sel(key):
                continue
            r = ratios(groups, key, metric, plan_settings).get(ref)
            val = g["metrics"].get(metric, {}).get("median")
            rg = groups.get(reference_key(key, ref, plan_settings))
            refval = (rg or {}).get("metrics", {}).get(metric, {}) \
                .get("median")
            if r is None or r["ratio"] is None:
                status = "n/a"
                why = ("no valid cells" if g["valid"] + g["host"] == 0
                       else "no reference")
            else:
                ok = r["ratio"] >= thr if op == ">=" else r["ratio"] <= thr
                status = "met" if ok else "MISSED"
                why = ""
            if g["invalid"] and not g["valid"]:
                why = "invalid: " + "; ".join(sorted(set(g["reasons"])))
            rows.append({
                "target": tid, "description": desc, "key": key,
                "metric": metric, "reference": ref, "op": op,
                "threshold": thr, "value": val, "ref_value": refval,
                "ratio": r["ratio"] if r else None,
                "ratio_min": r["min"] if r else None,
                "ratio_max": r["max"] if r else None,
                "status": status, "note": why,
                "host_traffic": key.direction != "vm-vm" and
                key.test != "fwd64",
            })
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


def fmt_ratio(r):
    if not r or r.get("ratio") is None:
        return "–"
    s = "%.2fx" % r["ratio"]
    if r.get("min") is not None and r.get("max") is not None and \
            r["min"] != r["max"]:
        s += " (%.2f–%.2f)" % (r["min"], r["max"])
    return s


def fmt_summary(sm, metric=None):
    if not sm or sm.get("median") is None:
        return "–"
    s = fmt(sm["median"], metric)
    if sm["n"] > 1:
        s += " [%s–%s]" % (fmt(sm["min"], metric), fmt(sm["max"], metric))
    return s


CELL_FIELDS = ["cell", "standin", "offloads", "mtu", "test", "variant",
               "direction", "path", "rep", "validity", "validity_reason",
               "fastpath_share", "xdp_share", "nf_forward_packets",
               "error"] + METRICS


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
                  "n_error", "median", "min", "max", "vs_bridge",
                  "vs_bridge_nf", "vs_direct", "fastpath_share_min"]


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
                "vs_bridge": (rs.get("bridge") or {}).get("ratio"),
                "vs_bridge_nf": (rs.get("bridge-nf") or {}).get("ratio"),
                "vs_direct": (rs.get("direct") or {}).get("ratio"),
                "fastpath_share_min": min(g["fastpath"]) if g["fastpath"]
                else None})
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
    v = "" if test in ("tcp_rr", "udp_rr", "tcp_crr") else " " + variant
    if test == "udp":
        v = " %s B" % variant
    return "%s, offloads %s, MTU %d: %s%s %s" % (
        standin, offloads, mtu, test, v,
        matrix.ARROW.get(direction, direction))


def table(groups, paths, plan_settings, metric_for=None, rows=None):
    """A markdown table: one row per (setting, item), a column per path
    (median [min–max]), then each xdpnet path's ratios and fast-path
    share."""
    rows = rows or _items_in_order(groups)
    xpaths = [p for p in paths if matrix.is_xdpnet(p)]
    head = ["setting: test", "metric"] + paths
    for p in xpaths:
        head += ["%s ÷ bridge" % p, "%s ÷ bridge-nf" % p,
                 "%s ÷ direct" % p, "%s fast path" % p]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for row in rows:
        test = row[3]
        metric = (metric_for or {}).get(test) or matrix.TESTS[test]["metric"]
        key0 = GroupKey(*row, path="bridge")
        cols = [_label(row), "%s (%s)" % (metric, matrix.UNITS.get(metric,
                                                                    ""))]
        any_val = False
        for p in paths:
            g = groups.get(key0._replace(path=p))
            if g is None:
                cols.append("")
                continue
            sm = g["metrics"].get(metric)
            cell = fmt_summary(sm, metric)
            if sm:
                any_val = True
            if g["invalid"] or g["error"]:
                cell += " (%d invalid, %d failed)" % (g["invalid"],
                                                     g["error"])
            cols.append(cell)
        if not any_val:
            continue
        for p in xpaths:
            k = key0._replace(path=p)
            rs = ratios(groups, k, metric, plan_settings)
            g = groups.get(k)
            cols += [fmt_ratio(rs.get("bridge")),
                     fmt_ratio(rs.get("bridge-nf")),
                     fmt_ratio(rs.get("direct"))]
            if g and g["fastpath"]:
                share = min(g["fastpath"]) * 100
                xs = max(g["xdp_share"]) * 100 if g["xdp_share"] else 0
                txt = "%.1f%%" % share
                if p.startswith("xdpnet-xdp"):
                    txt += " (XDP %.0f%%)" % xs
                if g["host"]:
                    txt += " host"
                cols.append(txt)
            else:
                cols.append("–")
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines)


def targets_table(rows):
    head = ["target", "cell", "xdpnet", "reference", "ratio (paired "
            "min–max)", "threshold", "status"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        k = r["key"]
        cell = _label((k.standin, k.offloads, k.mtu, k.test, k.variant,
                       k.direction)) + " – " + k.path
        if r["host_traffic"]:
            cell += " (host traffic: not bypassed)"
        ratio = fmt_ratio({"ratio": r["ratio"], "min": r["ratio_min"],
                           "max": r["ratio_max"]})
        status = r["status"] + (" – " + r["note"] if r["note"] else "")
        lines.append("| %s | %s | %s %s | %s: %s | %s | %s %s | %s |" % (
            r["target"], cell, fmt(r["value"], r["metric"]),
            matrix.UNITS.get(r["metric"], ""), r["reference"],
            fmt(r["ref_value"], r["metric"]), ratio, r["op"],
            r["threshold"], status))
    return "\n".join(lines)


def targets_summary(rows):
    by = collections.OrderedDict()
    for r in rows:
        t = by.setdefault(r["target"], {"description": r["description"],
                                        "met": 0, "missed": 0, "na": 0})
        if r["status"] == "met":
            t["met"] += 1
        elif r["status"] == "MISSED":
            t["missed"] += 1
        else:
            t["na"] += 1
    return by


def terminal_summary(groups, paths, plan_settings):
    """A compact plain-text table for the terminal."""
    rows = _items_in_order(groups)
    shown = [p for p in paths]
    xpaths = [p for p in paths if matrix.is_xdpnet(p)]
    head = ["setting: test", "metric"] + shown + \
        ["%s/br" % p.replace("xdpnet-", "") for p in xpaths] + \
        ["%s/direct" % p.replace("xdpnet-", "") for p in xpaths]
    table_rows = []
    for row in rows:
        test = row[3]
        metric = matrix.TESTS[test]["metric"]
        key0 = GroupKey(*row, path="bridge")
        cols = [_label(row), metric]
        for p in shown:
            g = groups.get(key0._replace(path=p))
            sm = g["metrics"].get(metric) if g else None
            cols.append(fmt(sm["median"], metric) if sm else "-")
        for refname in ("bridge", "direct"):
            for p in xpaths:
                rs = ratios(groups, key0._replace(path=p), metric,
                            plan_settings)
                r = rs.get(refname)
                cols.append("%.2f" % r["ratio"] if r and r["ratio"]
                            is not None else "-")
        table_rows.append(cols)
    widths = [max(len(str(r[i])) for r in [head] + table_rows)
              for i in range(len(head))]
    out = []
    for r in [head] + table_rows:
        out.append("  ".join(str(c).ljust(widths[i]) if i < 2 else
                             str(c).rjust(widths[i])
                             for i, c in enumerate(r)))
        if r is head:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)
