#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tests/fuzz/fuzz.py: the differential fuzzer (docs/testing.md, "The
differential fuzzer"). Run as root, under xn-heavy on a shared machine.

  fuzz.py run SEEDS [--variants LIST] [--time SECS] [--state FILE] [--vlan]
      scenarios of these seeds ("1-100", "7,9,12"), each on the plain
      bridge and attached; stops after SECS; with --state, seeds already
      in FILE are skipped and results added to it (a long run in parts).
      Progress per scenario; a summary table at the end; exit 1 on a
      divergence (each shrunk and printed as a script, under --out).
  fuzz.py show SEED [--vlan]     the scenario of a seed, as JSON
  fuzz.py replay FILE [--variants LIST]   run a scenario from a JSON file
  fuzz.py table FILE             the summary table of a state file
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import runner  # noqa: E402


def seeds(spec):
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd")
    ap.add_argument("arg")
    ap.add_argument("--variants", default=",".join(runner.DEFAULT))
    ap.add_argument("--time", type=float, default=0)
    ap.add_argument("--state")
    ap.add_argument("--vlan", action="store_true")
    a = ap.parse_args()
    variants = a.variants.split(",")
    if variants[0] != "bridge":
        variants.insert(0, "bridge")
    if a.cmd == "show":
        print(json.dumps(gen.scenario(int(a.arg), a.vlan), indent=1))
        return 0
    if a.cmd == "replay":
        scn = json.load(open(a.arg))
        if "variants" in scn and a.variants == ",".join(runner.DEFAULT):
            variants = ["bridge"] + scn["variants"].split(",")
        d, n = runner.run(scn, variants)
        print(json.dumps(d, indent=1) if d else f"no divergence ({n} frames per world)")
        return 1 if d else 0
    t0 = time.monotonic()
    bad = 0
    for s in seeds(a.arg):
        if a.time and time.monotonic() - t0 > a.time:
            break
        scn = gen.scenario(s, a.vlan)
        t1 = time.monotonic()
        d, n = runner.run(scn, variants)
        print(f"seed {s}: {len(scn['ports'])} ports, {len(scn['steps'])} steps, {n} frames, "
              f"{time.monotonic() - t1:.1f} s: {'DIVERGES' if d else 'ok'}", flush=True)
        if d:
            bad += 1
            print(json.dumps(d), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
