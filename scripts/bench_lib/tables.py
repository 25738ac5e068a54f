# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Markdown tables and the terminal summary, from report.aggregate()'s
groups. Pure functions."""

import collections

from . import matrix, parse, report, stats
from .report import GroupKey, fmt


def fmt_ratio(r, bold=True):
    """'1.23x (1.10–1.30)': the median paired ratio and its min–max; in
    bold when its confidence interval excludes 1.0."""
    if not r or r.get("ratio") is None:
        return "–"
    s = "%.2fx" % r["ratio"]
    if bold and report.significant(r):
        s = "**%s**" % s
    if r.get("n", 0) > 1:
        s += " (%.2f–%.2f)" % (r["min"], r["max"])
    return s


def fmt_summary(sm, metric=None):
    if not sm or sm.get("median") is None:
        return "–"
    s = fmt(sm["median"], metric)
    if sm["n"] > 1:
        s += " [%s–%s]" % (fmt(sm["min"], metric), fmt(sm["max"], metric))
    return s


def _md(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def values_table(groups, paths, metric_for=None, rows=None):
    """One row per (setting, item), a column per path: median [min–max]
    of the valid repeats, and how many were invalid or failed."""
    rows = rows or report._items_in_order(groups)
    out = []
    for row in rows:
        test = row[3]
        metric = (metric_for or {}).get(test) or matrix.TESTS[test]["metric"]
        key0 = GroupKey(*row, path="bridge")
        cols = [report._label(row), "%s (%s)" % (
            metric, matrix.UNITS.get(metric, ""))]
        any_val = False
        for p in paths:
            g = groups.get(key0._replace(path=p))
            if g is None:
                cols.append("")
                continue
            sm = g["metrics"].get(metric)
            cell = fmt_summary(sm, metric)
            any_val = any_val or bool(sm)
            if g["invalid"] or g["error"]:
                cell += " (%d invalid, %d failed)" % (g["invalid"],
                                                     g["error"])
            cols.append(cell)
        if any_val:
            out.append(cols)
    return _md(["setting: test", "metric"] + list(paths), out)


def ratio_table(groups, paths, plan_settings, metric_for=None, rows=None):
    """One row per (setting, item) and compared path; a column per
    reference: the median paired ratio (min–max), bold when its interval
    excludes 1.0; and the fast-path share of the path's cells."""
    rows = rows or report._items_in_order(groups)
    refs = [r for r in matrix.REFS if r in paths]
    out = []
    for row in rows:
        test = row[3]
        metric = (metric_for or {}).get(test) or matrix.TESTS[test]["metric"]
        key0 = GroupKey(*row, path="bridge")
        for p in paths:
            k = key0._replace(path=p)
            g = groups.get(k)
            rs = report.ratios(groups, k, metric, plan_settings)
            if not rs:
                continue
            cols = [report._label(row), p]
            cols += [fmt_ratio(rs.get(ref)) for ref in refs]
            if g and g["fastpath"]:
                txt = "%.1f%%" % (min(g["fastpath"]) * 100)
                if p.startswith("xdpnet-xdp") and g["xdp_share"]:
                    txt += " (XDP %.0f%%)" % (max(g["xdp_share"]) * 100)
                cols.append(txt)
            else:
                cols.append("host" if g and g["host"] else "–")
            out.append(cols)
    if not out:
        return ""
    return _md(["setting: test", "path"] + ["÷ %s" % r for r in refs] +
               ["fast path (min)"], out)


def seeds_table(groups, paths, test="tcp_stream", variant="tx"):
    """The seeds' form (minikube vmnet-shared benchmark): a row per path,
    a column per setting and direction (host→vm, vm→host, vm→vm);
    median, and the median paired ratio to the bridge."""
    settings = []
    for k in groups:
        if k.test == test and str(k.variant) == variant and \
                k.direction != "vm-vm":
            s = (k.standin, k.offloads, k.mtu)
            if s not in settings:
                settings.append(s)
    if not settings:
        return ""
    unit = matrix.TESTS[test]["unit"]
    metric = matrix.TESTS[test]["metric"]
    head = ["path"]
    for s in settings:
        for d in ("host-vm", "vm-host", "vm-vm"):
            head.append("%s offl. %s, %s" % (s[0], s[1], matrix.ARROW[d]))
    out = []
    for p in paths:
        cols = [p]
        any_val = False
        for s in settings:
            for d in ("host-vm", "vm-host", "vm-vm"):
                k = GroupKey(*s, test, variant, d, p)
                g = groups.get(k)
                sm = g["metrics"].get(metric) if g else None
                if not sm:
                    cols.append("n/a")
                    continue
                any_val = True
                cell = "%s %s" % (fmt(sm["median"], metric), unit)
                r = report.ratios(groups, k, metric, []).get("bridge")
                if r and p != "bridge":
                    cell += " (%s)" % fmt_ratio(r).split(" (")[0]
                cols.append(cell)
        if any_val:
            out.append(cols)
    return _md(head, out)


def targets_table(rows):
    head = ["target", "cell", "path", "value", "reference", "paired ratio "
            "(min–max)", "95% interval", "threshold", "verdict"]
    out = []
    for r in rows:
        k = r["key"]
        p = r["paired"] or {}
        ci = "–"
        if p.get("ci_lo") is not None:
            ci = "%.2f–%.2f" % (p["ci_lo"], p["ci_hi"])
        status = r["status"] + (" – " + r["note"] if r["note"] else "")
        out.append([
            r["target"], report._label((k.standin, k.offloads, k.mtu,
                                        k.test, k.variant, k.direction)),
            k.path, "%s %s" % (fmt(r["value"], r["metric"]),
                               matrix.UNITS.get(r["metric"], "")),
            "%s: %s" % (r["reference"], fmt(r["ref_value"], r["metric"])),
            fmt_ratio(p, bold=False), ci, "%s %s" % (r["op"],
                                                     r["threshold"]),
            status])
    return _md(head, out)


def targets_summary(rows):
    by = collections.OrderedDict()
    for r in rows:
        t = by.setdefault(r["target"], {"description": r["description"],
                                        "met": 0, "missed": 0,
                                        "inconclusive": 0, "na": 0})
        key = {"met": "met", "MISSED": "missed",
               "inconclusive": "inconclusive"}.get(r["status"], "na")
        t[key] += 1
    return by


def _short(p):
    return p.replace("xdpnet-", "").replace("tc-minimal", "min")


def terminal_summary(groups, paths, plan_settings):
    """A compact plain-text table: medians per path, then the median
    paired ratios of the compared paths (* when the interval excludes
    1.0)."""
    rows = report._items_in_order(groups)
    cmp_paths = [p for p in paths if matrix.is_bpf(p)]
    ratio_cols = []
    for p in cmp_paths:
        ratio_cols.append((p, "bridge"))
        if matrix.is_xdpnet(p) and "tc-minimal" in paths:
            ratio_cols.append((p, "tc-minimal"))
    head = ["setting: test", "metric"] + list(paths) + \
        ["%s/%s" % (_short(p), _short(r).replace("bridge", "br"))
         for p, r in ratio_cols]
    table_rows = []
    for row in rows:
        test = row[3]
        metrics = [matrix.TESTS[test]["metric"]]
        if any(groups.get(GroupKey(*row, path=p), {}).get("metrics", {})
               .get("prog_ns") for p in cmp_paths):
            metrics.append("prog_ns")
        for metric in metrics:
            key0 = GroupKey(*row, path="bridge")
            cols = [report._label(row) if metric == metrics[0] else "",
                    metric]
            for p in paths:
                g = groups.get(key0._replace(path=p))
                sm = g["metrics"].get(metric) if g else None
                cols.append(fmt(sm["median"], metric) if sm else "-")
            for p, ref in ratio_cols:
                r = report.ratios(groups, key0._replace(path=p), metric,
                                  plan_settings).get(ref)
                cols.append("%.2f%s" % (r["ratio"], "*" if
                                        report.significant(r) else "")
                            if r and r["ratio"] is not None else "-")
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
    out.append("ratios: medians of the per-repeat paired ratios; * = the "
               "%d%% interval of the median excludes 1.0 (needs >= 6 "
               "repeats)" % round(100 * stats.CI_LEVEL))
    return "\n".join(out)


def _fmt_diff(r):
    """'12 (8–15)': a paired difference's median and min–max, ns."""
    if not r or r.get("ratio") is None:
        return "–"
    s = "%.0f" % r["ratio"]
    if r.get("n", 0) > 1:
        s += " (%.0f–%.0f)" % (r["min"], r["max"])
    return s


def breakdown_table(rows):
    """report.breakdown() as markdown: a row per cell."""
    if not rows:
        return ""
    head = ["setting: test", "tc-minimal ns", "xdpnet-tc ns",
            "÷ tc-minimal"] + \
        ["− %s" % v for v in matrix.TC_VARIANTS] + ["bare − tc-minimal"]
    out = []
    for b in rows:
        out.append([report._label(b["row"]),
                    fmt_summary(b["minimal"], "prog_ns"),
                    fmt_summary(b["xdpnet"], "prog_ns"),
                    fmt_ratio(b["ratio"])] +
                   [_fmt_diff(b["saved"][v]) for v in matrix.TC_VARIANTS] +
                   [_fmt_diff(b["bare_minus_minimal"])])
    return _md(head, out)


def breakdown_xdp_table(rows):
    """report.breakdown_xdp() as markdown: a row per cell."""
    if not rows:
        return ""
    head = ["setting: test", "xdp-minimal XDP ns", "xdpnet-xdp XDP ns",
            "÷ xdp-minimal"] + \
        ["prog ns %s" % p for p in ("tc-minimal", "xdpnet-tc",
                                    "xdpnet-xdp")] + \
        ["− %s" % v for v in matrix.XDP_VARIANTS]
    out = []
    for b in rows:
        out.append([report._label(b["row"]),
                    fmt_summary(b["minimal"], "xdp_ns"),
                    fmt_summary(b["xdpnet"], "xdp_ns"),
                    fmt_ratio(b["ratio"])] +
                   [fmt_summary(v, "prog_ns") for v in b["prog"].values()] +
                   [_fmt_diff(b["saved"][v]) for v in matrix.XDP_VARIANTS])
    return _md(head, out)


def _pct(v):
    return "–" if v is None else "%.1f%%" % (100.0 * v)


def shares_table(rows):
    """report.stage_share_rows() as markdown: a row per cell and path,
    a column per stage and per reason a frame went to the bridge (those
    that occurred in any row); the XDP stage's hand-overs to TC by reason
    in the last column."""
    if not rows:
        return ""
    bridge = parse.reason_order({k for r in rows for k in r["bridge"]},
                                parse.PASS_REASONS)
    head = ["setting: test", "path", "repeats", "frames", "XDP redirect",
            "TC redirect"] + ["bridge: %s" % k[5:] for k in bridge] + \
        ["XDP → TC stage (of all frames)"]
    out = []
    for r in rows:
        defer = ", ".join("%s %s" % (k[len("xdp_defer_"):], _pct(v))
                          for k, v in r["xdp_defer"].items() if v)
        out.append([report._label(r["row"]), r["path"], str(r["n"]),
                    fmt(r["total"]), _pct(r["xdp_redirect"]),
                    _pct(r["tc_redirect"])] +
                   [_pct(r["bridge"].get(k, 0.0)) for k in bridge] +
                   [defer or "–"])
    return _md(head, out)
