# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Percentiles per build and kind, and the markdown report. Pure."""

import math

from bench_lib.stats import percentile

TARGET_MS = 100.0


def _q(xs):
    """p50, p90, p99, max of latencies in ms; None entries (did not
    converge within the window) count as infinite."""
    v = sorted(math.inf if x is None else x for x in xs)
    if not v:
        return None, None, None, None
    return (percentile(v, 50), percentile(v, 90), percentile(v, 99), v[-1])


def summarize(records):
    """{build: {kind: {...}}} from step records (each with 'build')."""
    out = {}
    for r in records:
        k = out.setdefault(r["build"], {}).setdefault(
            r["kind"], {"lat": [], "flows": {}, "follower_first": [],
                        "observed": []})
        k["lat"].append(r["latency_ms"])
        for f, fr in r["flows"].items():
            k["flows"].setdefault(f, []).append(
                None if fr["latency_ns"] is None else fr["latency_ns"] / 1e6)
        fl = [float(t) for t, _ in r.get("follower_log", [])
              if float(t) >= 0]
        if fl:
            k["follower_first"].append(min(fl))
        if r.get("follower_exit_ms") is not None:
            k["observed"].append(r["follower_exit_ms"])
    res = {}
    for b, kinds in out.items():
        res[b] = {}
        for kind, k in kinds.items():
            p50, p90, p99, mx = _q(k["lat"])
            e = {"events": len(k["lat"]),
                 "converged": sum(1 for x in k["lat"] if x is not None),
                 "p50_ms": p50, "p90_ms": p90, "p99_ms": p99, "max_ms": mx,
                 "meets_target": p99 is not None and p99 <= TARGET_MS,
                 "flows": {}}
            for f, xs in sorted(k["flows"].items()):
                fq = _q(xs)
                e["flows"][f] = {"p50_ms": fq[0], "p99_ms": fq[2],
                                 "max_ms": fq[3]}
            if k["follower_first"]:
                e["follower_first_log_p50_ms"] = percentile(
                    sorted(k["follower_first"]), 50)
            if k["observed"]:
                q = _q(k["observed"])
                e["hooks_gone_p50_ms"], e["hooks_gone_p99_ms"], \
                    e["hooks_gone_max_ms"] = q[0], q[2], q[3]
            res[b][kind] = e
    return res


def jsonable(x):
    """inf -> None, recursively (JSON has no infinity)."""
    if isinstance(x, float) and math.isinf(x):
        return None
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [jsonable(v) for v in x]
    return x


def fmt(ms, window_ms=None):
    if ms is None:
        return "-"
    if math.isinf(ms):
        return "> %.0f" % window_ms if window_ms else "inf"
    return "%.1f" % ms


def markdown(summary, kinds, meta):
    w = meta.get("window_ms")
    lines = ["# Convergence: from the kernel's event to the datapath "
             "behaving as the bridge does", ""]
    for k in ("kernel", "date", "events_per_kind", "period_ms", "window_ms"):
        if k in meta:
            lines.append("- %s: %s" % (k.replace("_", " "), meta[k]))
    lines.append("- target: p99 <= %.0f ms per kind" % TARGET_MS)
    lines.append("")
    builds = list(summary)
    lines.append("| kind | " + " | ".join(
        "%s: n | p50 | p90 | p99 | max | ok" % b for b in builds) + " |")
    lines.append("|---|" + "---|---|---|---|---|---|" * len(builds))
    for kind in kinds:
        row = ["`%s`" % kind]
        seen = False
        for b in builds:
            e = summary[b].get(kind)
            if not e:
                row += ["-"] * 6
                continue
            seen = True
            n = "%d" % e["events"]
            if e["converged"] != e["events"]:
                n += " (%d unconverged)" % (e["events"] - e["converged"])
            row += [n, fmt(e["p50_ms"], w), fmt(e["p90_ms"], w),
                    fmt(e["p99_ms"], w), fmt(e["max_ms"], w),
                    "yes" if e["meets_target"] else "**no**"]
        if seen:
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Per direction (p50 / p99 / max, ms), and the follower's "
                 "first log line after the event (p50, ms):")
    lines.append("")
    lines.append("| kind | build | flows | follower logs |")
    lines.append("|---|---|---|---|")
    for kind in kinds:
        for b in builds:
            e = summary[b].get(kind)
            if not e:
                continue
            fl = ", ".join("%s %s/%s/%s" % (f, fmt(v["p50_ms"], w),
                                            fmt(v["p99_ms"], w),
                                            fmt(v["max_ms"], w))
                           for f, v in e["flows"].items()) or "-"
            extra = fmt(e.get("follower_first_log_p50_ms"))
            if "hooks_gone_p99_ms" in e:
                extra += "; follower exited (hooks gone) p50 %s p99 %s " \
                         "max %s" % (fmt(e["hooks_gone_p50_ms"], w),
                                     fmt(e["hooks_gone_p99_ms"], w),
                                     fmt(e["hooks_gone_max_ms"], w))
            lines.append("| `%s` | %s | %s | %s |" % (kind, b, fl, extra))
    for note in meta.get("notes", []):
        lines += ["", note]
    return "\n".join(lines) + "\n"
