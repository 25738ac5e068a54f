# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The fuzzer's summary table, from its state file (a JSON line per
scenario run)."""
import json
from collections import Counter


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                out[(r["seed"], r["vlan"])] = r  # a seed run again counts once
    return list(out.values())


def render(rs):
    if not rs:
        return "no scenarios"
    frames = sum(r["frames"] for r in rs)
    compared = sum(r["frames"] * r["worlds"] for r in rs)
    byp = Counter()
    for r in rs:
        byp.update(r["bypassed"])
    feats = Counter(f for r in rs for f in r["features"])
    bad = [r for r in rs if not r["ok"]]
    seeds = sorted(r["seed"] for r in rs)
    lines = ["| scenarios | seeds | frames sent (per world) | frames compared | divergences | time |",
             "|---|---|---|---|---|---|",
             f"| {len(rs)} | {seeds[0]}-{seeds[-1]} | {frames} | {compared} | {len(bad)} | "
             f"{sum(r['secs'] for r in rs) / 3600:.2f} h |", "",
             "| variant | frames bypassed |", "|---|---|"]
    lines += [f"| {v} | {n} |" for v, n in sorted(byp.items())]
    lines += ["", f"features covered: {len(feats)}", "", "| feature | scenarios |", "|---|---|"]
    lines += [f"| {f} | {n} |" for f, n in sorted(feats.items())]
    if bad:
        lines += ["", "| seed | variant | step | what | script |", "|---|---|---|---|---|"]
        lines += [f"| {r['seed']} | {r['divergence']['variant']} | {r['divergence']['step']} | "
                  f"{r['divergence']['what']} | {r.get('script', '-')} |" for r in bad]
    return "\n".join(lines)
