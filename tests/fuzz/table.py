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
                # a seed run again counts once (each generator's apart)
                out[(r["seed"], r["vlan"], r.get("gen", 1))] = r
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
    gens = ",".join(str(g) for g in sorted({r.get("gen", 1) for r in rs}))
    lines = ["| scenarios | seeds | generator | frames sent (per world) | frames compared | divergences | time |",
             "|---|---|---|---|---|---|---|",
             f"| {len(rs)} | {seeds[0]}-{seeds[-1]} | {gens} | {frames} | {compared} | {len(bad)} | "
             f"{sum(r['secs'] for r in rs) / 3600:.2f} h |", "",
             "| variant | frames bypassed |", "|---|---|"]
    lines += [f"| {v} | {n} |" for v, n in sorted(byp.items())]
    win = {}
    for r in rs:
        for kind, v, ms in r.get("windows", []):
            win.setdefault((kind, v), []).append(ms)
    if win:
        lines += ["", "Convergence windows: after a change, how long the datapath still did",
                  "otherwise than the plain bridge with a probe frame (ms; 0: never).", "",
                  "| change | variant | changes probed | diverged | max ms |", "|---|---|---|---|---|"]
        for (kind, v), ms in sorted(win.items()):
            hit = [m for m in ms if m is not None]
            lines.append(f"| {kind} | {v} | {len(ms)} | {len(hit)} | {max(hit) if hit else 0:.0f} |")
        lines += ["", f"Probe frames sent per world: {sum(r.get('probes', 0) for r in rs)}."]
    lines += ["", f"features covered: {len(feats)}", "", "| feature | scenarios |", "|---|---|"]
    lines += [f"| {f} | {n} |" for f, n in sorted(feats.items())]
    if bad:
        lines += ["", "| seed | variant | step | what | script |", "|---|---|---|---|---|"]
        lines += [f"| {r['seed']} | {r['divergence']['variant']} | {r['divergence']['step']} | "
                  f"{r['divergence']['what']} | {r.get('script', '-')} |" for r in bad]
    return "\n".join(lines)
