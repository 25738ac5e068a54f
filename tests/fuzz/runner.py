# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Run one scenario on the plain bridge and attached, side by side.

Every variant gets a world of its own (world.py), built alike; the worlds
go through the scenario step by step together: a change is made in every
world, then the run waits the change's bound (gen.BOUNDS) once; frames are
sent in each world in turn, and once they have all arrived the FDB is read.
What world 0 (the plain bridge) did is the oracle: any other world whose
frames landed elsewhere, or with other bytes, or whose FDB differs after a
step, diverges.
"""
import hashlib
import re
import time

import frames
from world import BRMAC, World, stale

HOSTMAC = frames.mac(BRMAC)

# Variants: mode, build, nf (--no-follow). "bridge": nothing attached.
VARIANTS = {
    "bridge": {},
    "tc/live": {"mode": "tc", "build": "live"},
    "xdp/live": {"mode": "xdp", "build": "live"},
    "tc/live/nf": {"mode": "tc", "build": "live", "nf": True},
    "xdp/portable": {"mode": "xdp", "build": "portable"},
    "tc/portable": {"mode": "tc", "build": "portable"},
    "xdp/live/nf": {"mode": "xdp", "build": "live", "nf": True},
}
DEFAULT = ["bridge", "tc/live", "xdp/live", "tc/live/nf", "xdp/portable"]


def digest(got):
    """A step's frames: {frame number or "?": sorted [(port, what)]}, what:
    the normalised bytes' hash, length and GSO (type, size)."""
    out = {}
    for port, lst in got.items():
        for vnet, f in lst:
            fid = frames.marker_of(f)
            if fid is not None and fid >= 0xFFFFFF00:
                continue  # a fence
            if fid is None and (f[:6] == bytes.fromhex("0180c2000000") or
                                f[6:12] == HOSTMAC and f[12:14] == b"\x08\x00" and f[23] == 2):
                continue  # the bridge's BPDUs, the host's IGMP reports: timers, not frames
            gso = (vnet[1], int.from_bytes(vnet[4:6], "little")) if vnet[1] else None
            what = (hashlib.sha1(f).hexdigest()[:12], len(f), gso)
            if fid is None:
                what += (f[:64].hex(),)
            out.setdefault(fid if fid is not None else "?", []).append((str(port), what))
    return {k: sorted(v) for k, v in out.items()}


class Run:
    def __init__(self, scn, variants=DEFAULT, log=None):
        self.scn, self.names = scn, list(variants)
        self.log = log or (lambda *a: None)
        self.worlds = []
        self.rec = {v: [] for v in self.names}  # per step: (frames digest, fdb)
        self.frames = 0  # the steps' frames, compared
        self.probes = 0  # probe frames of the windows, measured
        self.windows = []  # (kind, variant, ms) measured

    def __enter__(self):
        stale()
        try:
            for w, v in enumerate(self.names):
                self.worlds.append(World(w, VARIANTS[v], self.scn))
                self.worlds[-1].build()
        except Exception:
            self.__exit__()
            raise
        return self

    def __exit__(self, *a):
        self.left = [x for x in (w.teardown() for w in self.worlds) if x]
        self.worlds = []

    def attach(self):
        for w in self.worlds[1:]:
            w.attach()

    def ageing(self, cmds):
        for _, line in cmds:
            m = re.search(r"ageing_time (\d+)", line)
            if m:
                self.age = int(m.group(1))

    def go(self):
        """Run every step; returns the first divergence (or None)."""
        self.age = 30000
        self.ageing(self.scn["setup"])
        for w in self.worlds:
            w.do(self.scn["setup"])
        for i, st in enumerate(self.scn["steps"]):
            self.ageing(st.get("do", []))
            if i == self.scn["attach_at"]:
                self.attach()
            if "do" in st:
                t0 = time.monotonic()
                for w in self.worlds:
                    w.do(st["do"])
                    if w.v.get("nf") and w.attached and not st["nf_keep"]:
                        w.attach()  # no follower: the next attach (README)
                self.window(i, st, t0)
                left = st["bound"] / 1000 - (time.monotonic() - t0)
                if left > 0:
                    time.sleep(left)
            elif "sleep" in st:
                time.sleep(st["sleep"])
            for w, v in zip(self.worlds, self.names):
                got = w.run_frames(st.get("frames", []))
                fdb = w.fdb.dump()
                if self.age < 30000:  # learned entries age by the clock (hub mode too)
                    fdb = [e for e in fdb if not e[3].startswith("dynamic")]
                self.rec[v].append((digest(got), fdb))
            self.frames += len(st.get("frames", []))
            d = self.diverges(i)
            if d:
                return d
        return None

    def probe(self):
        """A frame that changes no FDB: from a port whose source the plain
        bridge has learned there, to a MAC it has learned on another."""
        learned = [e for e in self.rec["bridge"][-1][1] if e[3] == "dynamic" and e[2].startswith("xnxp")]
        for a in learned:
            for b in learned:
                if a[2] != b[2]:
                    return {"cls": "udp", "port": int(a[2][4:]), "src": a[0], "dst": b[0],
                            "fid": 0xFFFFFE00, "pay": 20}
        return None

    def window(self, i, st, t0):
        """How long after the change (ms) each attached world still did
        otherwise than the plain bridge with a probe frame, within the
        change's bound: the convergence window, measured (0: never)."""
        d = self.probe() if self.rec["bridge"] else None
        if d is None:
            return
        last = {v: None for v in self.names[1:] if self.worlds[self.names.index(v)].attached}
        while last and time.monotonic() - t0 < st["bound"] / 1000 * 0.8:
            t = (time.monotonic() - t0) * 1000
            base = digest(self.worlds[0].run_frames([d]))
            for v in last:
                if digest(self.worlds[self.names.index(v)].run_frames([d])) != base:
                    last[v] = t
            self.probes += 1
        for v, t in last.items():
            self.windows.append((st["kind"], v, t))

    def diverges(self, i):
        base, bfdb = self.rec["bridge"][i]
        for v in self.names[1:]:
            got, fdb = self.rec[v][i]
            if got != base:
                fids = sorted(set(got) | set(base), key=str)
                bad = [f for f in fids if got.get(f) != base.get(f)]
                return {"step": i, "variant": v, "what": "frames", "fids": bad,
                        "bridge": {str(f): base.get(f) for f in bad},
                        "attached": {str(f): got.get(f) for f in bad}}
            if fdb != bfdb:
                return {"step": i, "variant": v, "what": "fdb",
                        "bridge": sorted(set(bfdb) - set(fdb)), "attached": sorted(set(fdb) - set(bfdb))}
        return None


def run(scn, variants=DEFAULT, log=None):
    """(divergence or None, the run: .frames sent per world, .probes, .bypassed
    {variant: frames the datapath bypassed}, .windows [(kind, variant,
    ms or None)])."""
    with Run(scn, variants, log) as r:
        d = r.go()
        if d:
            d["log"] = {v: w.log[-12:] for v, w in zip(r.names, r.worlds) if v == d["variant"]}
        r.bypassed = {v: w.bypassed() for v, w in zip(r.names[1:], r.worlds[1:])}
    if r.left and not d:  # a detach that leaves its pins behind fails too
        d = {"step": len(scn["steps"]), "variant": "detach", "what": "left", "left": r.left}
    return d, r
