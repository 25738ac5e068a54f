# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Shrink a diverging scenario to a minimal one, and write it as a script.

Greedy: drop the steps after the divergence, then chunks of steps, single
frames and set-up commands, keeping each cut while the same variant still
diverges from the plain bridge; every try is a whole run of two worlds.
"""
import copy
import json
import os
import shlex

import runner
from world import ROOT


def diverges(scn, variant):
    return runner.run(scn, ["bridge", variant])[0]


def cut_steps(scn, keep):
    """scn with only the steps whose index is in keep (attach_at moved)."""
    s = copy.deepcopy(scn)
    s["steps"] = [st for i, st in enumerate(scn["steps"]) if i in keep]
    s["attach_at"] = sum(1 for i in keep if i < scn["attach_at"])
    return s


def shrink(scn, d, log=print):
    v = d["variant"]
    scn = cut_steps(scn, set(range(d["step"] + 1)))
    if not diverges(scn, v):
        log("  did not diverge again: not shrunk")
        return None
    n = len(scn["steps"])
    chunk = max(1, n // 2)
    while chunk >= 1:
        i = 0
        while i < len(scn["steps"]) - 1:  # the last step shows the divergence
            keep = set(range(len(scn["steps"]))) - set(range(i, min(i + chunk, len(scn["steps"]) - 1)))
            t = cut_steps(scn, keep)
            if diverges(t, v):
                scn = t
                log(f"  {len(scn['steps'])} steps")
            else:
                i += chunk
        chunk //= 2
    for si, st in enumerate(scn["steps"]):
        j = 0
        while len(st.get("frames", [])) > 1 and j < len(st["frames"]):
            t = copy.deepcopy(scn)
            del t["steps"][si]["frames"][j]
            if diverges(t, v):
                scn, st = t, t["steps"][si]
            else:
                j += 1
    j = 0
    while j < len(scn["setup"]):
        t = copy.deepcopy(scn)
        del t["setup"][j]
        if diverges(t, v):
            scn = t
        else:
            j += 1
    scn["variants"] = v
    return scn


def describe(scn):
    """The scenario as the commands and frames it is made of."""
    ports = ", ".join(f"xnxp{i} ({p['kind']})" for i, p in enumerate(scn["ports"], 1))
    out = [f"ports: {ports}"]
    out += [f"  {t} {line}" for t, line in scn["setup"]]
    for i, st in enumerate(scn["steps"]):
        if i == scn["attach_at"]:
            out.append("xdpnet attach {br} (the attached run only)")
        for t, line in st.get("do", []):
            out.append(f"  {t} {line}")
        if "sleep" in st:
            out.append(f"  sleep {st['sleep']}")
        for f in st.get("frames", []):
            extra = " ".join(k for k in ("partial", "mangle", "tags", "mss") if k in f)
            out.append(f"  frame {f['fid']}: port {f['port']} sends {f['cls']} {f['src']} -> "
                       f"{f['dst']}, {f['pay']} bytes of payload {extra}".rstrip())
    return out


def script(scn, d, path):
    """A shell script that runs the minimal scenario plain and attached."""
    body = "\n".join(["#!/bin/bash",
                      f"# Minimal scenario (from seed {scn.get('seed')}): {scn['variants']} diverges",
                      f"# from the plain bridge: {d['what']} at step {d['step']}.",
                      "# Every world runs these (\"{br}\": its bridge; gip: ip in the guests'",
                      "# namespace):"] +
                     [f"#   {line}" for line in describe(scn)] +
                     ["# Run as root (under xn-heavy): the scenario on the plain bridge and attached;",
                      "# exit 1 and where each frame landed while they differ.",
                      f"cd {shlex.quote(ROOT)} || exit 2",
                      "exec python3 tests/fuzz/fuzz.py replay /dev/stdin <<'EOF'",
                      json.dumps(scn, indent=1), "EOF", ""])
    with open(path, "w") as f:
        f.write(body)
    os.chmod(path, 0o755)
