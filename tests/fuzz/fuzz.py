#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tests/fuzz/fuzz.py: the differential fuzzer (docs/testing.md, "The
differential fuzzer"). Root; under xn-heavy on a shared machine.

  fuzz.py run SEEDS [--time SECS] [--state FILE] [--out DIR] [--vlan]
      scenarios of these seeds ("1-100", "7,9,12") on the plain bridge and
      attached (--variants); stops after SECS. --state FILE: seeds already
      there are skipped, results are added (a long run in parts). A line
      per scenario, the table at the end; a divergence is shrunk and
      written to DIR/seed-S.sh; exit 1 on any.
  fuzz.py check SEEDS            make check's part: the regression cases
                                 (cases/*.json), then these seeds
  fuzz.py show SEED [--vlan]     a seed's scenario, as JSON
  fuzz.py replay FILE            a scenario from JSON, plain and attached
  fuzz.py table FILE             the table of a state file
"""
import argparse
import glob
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import runner  # noqa: E402
import shrink  # noqa: E402
import table  # noqa: E402


def seeds(spec):
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def vlan_missing():
    """Why VLAN scenarios cannot run here (a probe), or None."""
    import subprocess
    r = subprocess.run(["unshare", "-n", "ip", "link", "add", "xnxprobe", "type", "bridge",
                        "vlan_filtering", "1"], capture_output=True, text=True)
    return None if r.returncode == 0 else \
        "the kernel refuses vlan_filtering 1 (no CONFIG_BRIDGE_VLAN_FILTERING): " + r.stderr.strip()


def one(scn, variants, out, log):
    t0 = time.monotonic()
    d, r = runner.run(scn, variants)
    n, byp = r.frames, r.bypassed
    res = {"seed": scn["seed"], "vlan": scn["vlan"], "gen": gen.VERSION, "ok": d is None, "frames": n,
           "worlds": len(variants) - 1, "ports": len(scn["ports"]), "steps": len(scn["steps"]),
           "features": scn["features"], "bypassed": byp, "windows": r.windows, "probes": r.probes,
           "secs": round(time.monotonic() - t0, 1)}
    log(f"seed {scn['seed']}: {len(scn['ports'])} ports, {len(scn['steps'])} steps, {n} frames, "
        f"bypassed {sum(byp.values())}, {res['secs']} s: {'ok' if d is None else 'DIVERGES'}")
    if d:
        res["divergence"] = {k: d[k] for k in ("step", "variant", "what")}
        log("  " + json.dumps({k: v for k, v in d.items() if k != "log"}))
        for entry in d.get("log", {}).get(d["variant"], [])[-6:]:
            log(f"  log: {entry}")
        m = shrink.shrink(scn, d, log=lambda s: log(s)) if d["what"] != "left" else None
        if m and out:
            os.makedirs(out, exist_ok=True)
            path = os.path.join(out, f"seed-{scn['seed']}{'-vlan' if scn['vlan'] else ''}.sh")
            shrink.script(m, d, path)
            res["script"] = path
            log(f"  minimal scenario: {path}")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["run", "check", "show", "replay", "table"])
    ap.add_argument("arg")
    ap.add_argument("--variants", default=",".join(runner.DEFAULT[1:]))
    ap.add_argument("--time", type=float, default=0)
    ap.add_argument("--state")
    ap.add_argument("--out", default="/tmp/xnx-fuzz")
    ap.add_argument("--vlan", action="store_true")
    a = ap.parse_args()
    variants = ["bridge"] + [v for v in a.variants.split(",") if v != "bridge"]
    log = lambda s: print(s, flush=True)  # noqa: E731
    if a.cmd == "show":
        print(json.dumps(gen.scenario(int(a.arg), a.vlan), indent=1))
        return 0
    if a.cmd == "table":
        print(table.render(table.load(a.arg)))
        return 0
    if a.cmd == "replay":
        scn = json.load(open(a.arg))
        if "variants" in scn and a.variants == ",".join(runner.DEFAULT[1:]):
            variants = ["bridge"] + scn["variants"].split(",")
        d, r = runner.run(scn, variants)
        print(json.dumps(d, indent=1) if d else
              f"no divergence ({r.frames} frames per world; bypassed {r.bypassed})")
        return 1 if d else 0
    if a.vlan and vlan_missing():
        print(f"# SKIP the VLAN scenarios: {vlan_missing()}")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    done = set()
    if a.state and os.path.exists(a.state):
        done = {(r["seed"], r["vlan"]) for r in table.load(a.state) if r.get("gen", 1) == gen.VERSION}
    if a.cmd == "check":
        return check(a, variants, log)
    t0, results = time.monotonic(), []
    for s in seeds(a.arg):
        if a.time and time.monotonic() - t0 > a.time:
            log(f"# time is up ({a.time:.0f} s): stopped before seed {s}")
            break
        if (s, a.vlan) in done:
            continue
        res = one(gen.scenario(s, a.vlan), variants, a.out, log)
        results.append(res)
        if a.state:
            with open(a.state, "a") as f:
                f.write(json.dumps(res) + "\n")
    print(table.render(table.load(a.state) if a.state else results))
    return 0 if all(r["ok"] for r in results) else 1


def check(a, variants, log):
    """TAP-like lines for tests/suites.sh: every regression case, then
    every seed."""
    n = passed = 0
    for path in [] if a.vlan else sorted(glob.glob(os.path.join(HERE, "cases", "*.json"))):
        scn = json.load(open(path))
        vs = ["bridge"] + scn.get("variants", ",".join(variants[1:])).split(",")
        d, r = runner.run(scn, vs)
        n += 1
        passed += d is None
        log(f"{'ok' if d is None else 'not ok'} {n} - case {os.path.basename(path)}: {scn['doc']} "
            f"({r.frames} frames, bypassed {r.bypassed})")
        if d:
            log("#   FAIL: " + json.dumps({k: v for k, v in d.items() if k != "log"}))
    for s in seeds(a.arg):
        res = one(gen.scenario(s, a.vlan), variants, a.out, lambda x: log("# " + x))
        n += 1
        passed += res["ok"]
        log(f"{'ok' if res['ok'] else 'not ok'} {n} - seed {s}: {res['ports']} ports, "
            f"{res['steps']} steps, {res['frames']} frames, as on the plain bridge")
    log(f"{passed} passed, {n - passed} failed")
    return 0 if passed == n else 1


if __name__ == "__main__":
    sys.exit(main())
