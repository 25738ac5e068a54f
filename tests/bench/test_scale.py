# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench_scale: its growth laws and targets on made-up figures,
and the --smoke run (tiny sizes, one repeat), which must finish and write
scale.json, scale.md and the plots with every figure present and
positive. It asserts nothing about speed.

The smoke run needs root and a built tree: skipped without them, unless
XNB_BENCH_SMOKE=require (make check-bench), where it fails instead."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import benchpath
from benchpath import ROOT
from scale_lib import report

REQUIRE = os.environ.get("XNB_BENCH_SMOKE") == "require"
TOOLS = ["build/xdpnet", "build/bench_tools/xnb_pktgen"]


class Laws(unittest.TestCase):
    def test_fit_line(self):
        a, b = report.fit([2, 16, 64, 256], [10 + 3 * x for x in
                                             (2, 16, 64, 256)])
        self.assertAlmostEqual(a, 10)
        self.assertAlmostEqual(b, 3)

    def test_fit_needs_two(self):
        self.assertIsNone(report.fit([2], [5]))
        self.assertIsNone(report.fit([2, 2], [5, 6]))
        self.assertIsNone(report.fit([2, 4], [5, None]))

    def test_ratio(self):
        self.assertAlmostEqual(report.ratio([50, 55, None, 52]), 1.1)
        self.assertIsNone(report.ratio([None, 0]))

    def _run(self, ns_small, ns_big, p99_small, p99_big, mem, agg):
        conv = {"port_add": {"p99_ms": p99_small},
                "port_remove": {"p99_ms": p99_small},
                "fdb_move": {"p99_ms": p99_small}}
        big = {"port_add": {"p99_ms": p99_big},
               "port_remove": {"p99_ms": p99_big},
               "fdb_move": {"p99_ms": p99_big}}
        return {"env": {"cpus": 2},
                "ports": [
                    {"ports": 2, "attach": {"cold_s": 0.2},
                     "convergence": conv, "frame": {"ns_per_frame": ns_small},
                     "memory": {"total": mem}, "scrape": {"s": 0.001}},
                    {"ports": 256, "attach": {"cold_s": 0.2 + 254 * 0.004},
                     "convergence": big, "frame": {"ns_per_frame": ns_big},
                     "memory": {"total": mem}, "scrape": {"s": 0.05}}],
                "occupancy": [{"macs": 16, "frame": {"ns_per_frame": 50}},
                              {"macs": 16000,
                               "frame": {"ns_per_frame": 54}}],
                "aggregate": {"flows": 16,
                              "xdpnet": {"delivered_pps": agg},
                              "bridge": {"delivered_pps": 1000}}}

    def test_targets_met(self):
        rows = report.targets(self._run(50, 52, 10, 14, 3 << 20, 1500))
        self.assertTrue(rows)
        self.assertTrue(all(r[3] for r in rows), rows)

    def test_targets_missed(self):
        rows = report.targets(self._run(50, 60, 10, 16, 5 << 20, 900))
        missed = [r[0] for r in rows if not r[3]]
        for want in ("per-frame cost, 2 to 256 ports",
                     "convergence p99, port_add",
                     "pinned map memory, 256-port bridge",
                     "aggregate of 16 flows vs the bridge"):
            self.assertTrue(any(m.startswith(want) for m in missed),
                            (want, missed))
        self.assertFalse(any(m.startswith("attach") for m in missed))

    def test_p99_below_resolution(self):
        # 0.2 ms against 0.5 ms is not a 2.5x regression: compared with
        # at least 1 ms.
        rows = report.targets(self._run(50, 50, 0.2, 0.5, 1 << 20, 1000))
        conv = [r for r in rows if r[0].startswith("convergence")]
        self.assertTrue(all(r[3] for r in conv), conv)


class Smoke(unittest.TestCase):
    out = None
    proc = None

    @classmethod
    def setUpClass(cls):
        benchpath.precondition(TOOLS, REQUIRE, "smoke run")
        cls.out = tempfile.mkdtemp(prefix="xns-smoke.")
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
            else sys.executable
        cls.proc = subprocess.run(
            [py, os.path.join(ROOT, "scripts", "bench_scale"), "--smoke",
             "--out", cls.out], cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, timeout=900)
        sys.stdout.write("".join("# " + ln + "\n" for ln in
                                 cls.proc.stdout.splitlines()[-15:]))

    @classmethod
    def tearDownClass(cls):
        if cls.out and not os.environ.get("XNB_BENCH_KEEP"):
            shutil.rmtree(cls.out, ignore_errors=True)

    def test_exit_status(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout[-2000:])

    def test_files(self):
        for f in ("scale.json", "scale.md", "plots/ports.png",
                  "plots/occupancy.png", "plots/bridges.png"):
            p = os.path.join(self.out, f)
            self.assertTrue(os.path.isfile(p), f)
            self.assertGreater(os.path.getsize(p), 0, f)

    def test_figures(self):
        with open(os.path.join(self.out, "scale.json")) as f:
            r = json.load(f)
        self.assertEqual([p["ports"] for p in r["ports"]], [2, 4])
        for p in r["ports"]:
            self.assertGreater(p["attach"]["cold_s"], 0)
            self.assertGreater(p["attach"]["warm_s"], 0)
            self.assertGreater(p["frame"]["ns_per_frame"], 0)
            self.assertGreater(p["frame"]["delivered_pps"], 0)
            self.assertGreater(p["memory"]["total"], 0)
            self.assertGreater(p["scrape"]["series"], 0)
            self.assertTrue(p["resync"]["all_ms"])
            for k in ("port_add", "port_remove", "fdb_move"):
                self.assertEqual(p["convergence"][k]["n"], 3, k)
            self.assertEqual(p["convergence"]["lost"], 0)
        self.assertEqual([o["macs"] for o in r["occupancy"]], [16, 100])
        # The copy holds what the bridge learned: the MACs and the ports'.
        self.assertGreaterEqual(r["occupancy"][1]["copy"], 100)
        self.assertEqual([b["bridges"] for b in r["bridges"]], [1, 2])
        self.assertGreater(r["bridges"][1]["memory"],
                           r["bridges"][0]["memory"])
        self.assertGreater(r["aggregate"]["xdpnet"]["delivered_pps"], 0)
        self.assertGreater(r["aggregate"]["bridge"]["delivered_pps"], 0)

    def test_left_nothing(self):
        self.assertFalse(os.path.exists("/run/netns/xns-sw"))
        pins = "/sys/fs/bpf/xdpnet"
        left = [d for d in (os.listdir(pins) if os.path.isdir(pins) else [])
                if d.startswith("xnsb")]
        self.assertEqual(left, [])


if __name__ == "__main__":
    unittest.main()
