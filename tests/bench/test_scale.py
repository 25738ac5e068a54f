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
from scale_lib import measure, report

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


class AttachLaws(unittest.TestCase):
    """--attach's X6 rows and its markdown, on made-up figures."""

    def _run(self, per_port):
        """Two builds: "a" 12 ms per port, "b" per_port (+ 200 ms)."""
        curve = {}
        for n in (2, 16, 256):
            curve[str(n)] = {
                "a": {"cold_ms": [200 + 12 * n], "again_ms": [30],
                      "detach_ms": [11 * n]},
                "b": {"cold_ms": [190 + per_port * n, 210 + per_port * n],
                      "again_ms": [20], "detach_ms": [11 * n]}}
        return {"builds": {"a": "/a/xdpnet", "b": "/b/xdpnet"},
                "curve": curve, "taps": {"2": 0, "16": 2, "256": 2},
                "env": {"cpu_model": "x", "cpus": 2, "kernel": "6.18"},
                "repeats": 2, "command": "bench_scale --attach",
                "cli_baseline_s": 0.005,
                "split": {"256": {
                    lab: {"links": 258, "tcx_links": 258, "link_ms": 2800.0,
                          "wall_ms": 3312.0} for lab in ("a", "b")}},
                "kernel": {"rcu_expedited": 0, "links": [
                    {"threads": 1, "links": 254, "ms_per_link": 11.0,
                     "ms_per_close": 11.0}], "membarrier": [
                    {"threads": 1, "calls": 254, "ms_per_call": 10.0}]}}

    def test_met_and_missed(self):
        rows = {r[0]: r for r in report.attach_targets(self._run(1.5))}
        self.assertFalse(rows["a"][4])
        self.assertAlmostEqual(rows["a"][1], 12 + 200 / 256.0)
        self.assertAlmostEqual(rows["a"][2], 12)
        self.assertTrue(rows["b"][4])
        self.assertAlmostEqual(rows["b"][2], 1.5)
        rows = {r[0]: r for r in report.attach_targets(self._run(5.0))}
        # 5 ms per port + 200 ms over 256 ports is 5.8 ms per port.
        self.assertFalse(rows["b"][4])

    def test_markdown(self):
        md = report.attach_markdown(self._run(1.5))
        self.assertIn("| 256 (2) | 3272 (12.78) | 584 (2.28) |", md)
        self.assertIn("| b | 2.28 | 1.50 (+ 200) | yes |", md)
        self.assertIn("| 1 | 2.79 | 11.00 | 1.00 | 11.00 | 2.54 | 10.00 "
                      "| 1.00 |", md)
        self.assertIn("| 256 | 258 (258) | 2800 | 512 | 2.00 |", md)


class StraceLinks(unittest.TestCase):
    def test_count(self):
        lines = [
            "7 bpf(BPF_LINK_CREATE, {link_create={prog_fd=5, target_ifindex"
            "=7, attach_type=BPF_TCX_INGRESS, flags=0}}, 64) = 9 <0.011>\n",
            "8 bpf(BPF_LINK_CREATE, {link_create={prog_fd=5, target_ifindex"
            "=8, attach_type=0x2f /* BPF_??? */, flags=0}}, 64 "
            "<unfinished ...>\n",
            "7 bpf(BPF_MAP_UPDATE_ELEM, {map_fd=3}, 32) = 0 <0.001>\n",
            "8 <... bpf resumed>) = 10 <0.012>\n",
            "7 bpf(BPF_LINK_CREATE, {link_create={prog_fd=6, target_ifindex"
            "=9, attach_type=BPF_XDP, flags=0}}, 64) = 11 <0.002>\n"]
        c = measure.strace_links(lines)
        self.assertEqual((c["links"], c["tcx_links"]), (3, 2))
        self.assertAlmostEqual(c["link_ms"], 25.0)


class SmokeRun:
    """A bench_scale run of ARGS in setUpClass (root, a built tree): it
    exits 0 and writes FILES, not empty."""
    ARGS = []
    FILES = []
    out = None
    proc = None

    @classmethod
    def setUpClass(cls):
        benchpath.precondition(TOOLS, REQUIRE, " ".join(cls.ARGS) + " run")
        cls.out = tempfile.mkdtemp(prefix="xns-smoke.")
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
            else sys.executable
        cls.proc = subprocess.run(
            [py, os.path.join(ROOT, "scripts", "bench_scale")] + cls.ARGS +
            ["--out", cls.out], cwd=ROOT, stdout=subprocess.PIPE,
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
        for f in self.FILES:
            p = os.path.join(self.out, f)
            self.assertTrue(os.path.isfile(p), f)
            self.assertGreater(os.path.getsize(p), 0, f)

    def test_left_nothing(self):
        self.assertFalse(os.path.exists("/run/netns/xns-sw"))
        pins = "/sys/fs/bpf/xdpnet"
        left = [d for d in (os.listdir(pins) if os.path.isdir(pins) else [])
                if d.startswith("xnsb")]
        self.assertEqual(left, [])


class Smoke(SmokeRun, unittest.TestCase):
    ARGS = ["--smoke"]
    FILES = ["scale.json", "scale.md", "plots/ports.png",
             "plots/occupancy.png", "plots/bridges.png"]

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


class AttachSmoke(SmokeRun, unittest.TestCase):
    """--attach --smoke: every figure there and positive (nothing about
    speed)."""
    ARGS = ["--attach", "--smoke"]
    FILES = ["attach.json", "attach.md", "plots/attach.png"]

    def test_figures(self):
        with open(os.path.join(self.out, "attach.json")) as f:
            r = json.load(f)
        self.assertEqual(sorted(int(n) for n in r["curve"]), [2, 4])
        for cells in r["curve"].values():
            for k in ("cold_ms", "again_ms", "detach_ms"):
                self.assertGreater(min(cells["this"][k]), 0, k)
        k = r["kernel"]
        self.assertEqual([x["threads"] for x in k["links"]], [1, 2])
        for x in k["links"]:
            self.assertEqual(x["links"], 3)  # the 4-port bridge's peers
            self.assertGreater(x["ms_per_link"], 0)
            self.assertGreater(x["ms_per_close"], 0)
        for x in k["membarrier"]:
            self.assertGreater(x["ms_per_call"], 0)
        # One tcx link at least per port, each under strace.
        for n, cells in r["split"].items():
            c = cells["this"]
            self.assertGreaterEqual(c["tcx_links"], int(n), c)
            self.assertGreater(c["link_ms"], 0, c)
            self.assertGreater(c["wall_ms"], c["link_ms"], c)


if __name__ == "__main__":
    unittest.main()
