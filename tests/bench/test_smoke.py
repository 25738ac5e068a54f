# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench --smoke: one short cell of every test on every path.
Asserts that the run completes and writes its files with the expected
columns and positive values; it asserts nothing about speed.

Needs root and a built tree (make all): skipped without them, unless
XNB_BENCH_SMOKE=require (make check-bench), where it fails instead. A
benchmark already running on the machine is waited for, up to
XNB_BENCH_WAIT seconds (900)."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import benchpath
from benchpath import ROOT
from bench_lib import matrix, report

REQUIRE = os.environ.get("XNB_BENCH_SMOKE") == "require"
# A benchmark already running on the machine (one at a time): wait for it
# this long before giving up.
WAIT = int(os.environ.get("XNB_BENCH_WAIT", "900"))
TOOLS = ["build/xdpnet", "build/tests/vnet_relay",
         "build/bench_tools/xnb_pktgen", "build/bench_tools/xnb_tapsink",
         "build/bench_tools/xnb_crr", "build/bench_tools/xnb_minimal"]


def why_not():
    reason = benchpath.why_not(TOOLS)
    if reason:
        return reason
    for tool in ("iperf3", "sockperf"):
        if not shutil.which(tool):
            return "%s is not installed (scripts/deps.sh)" % tool
    return None


class Smoke(unittest.TestCase):
    out = None
    proc = None

    @classmethod
    def setUpClass(cls):
        reason = why_not()
        if reason:
            if REQUIRE:
                raise AssertionError("smoke run impossible: " + reason)
            raise unittest.SkipTest(reason)
        cls.out = tempfile.mkdtemp(prefix="xnb-smoke.")
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
            else sys.executable
        cls.proc = subprocess.run(
            [py, os.path.join(ROOT, "scripts", "bench"), "--smoke", "-q",
             "--wait", str(WAIT), "--out", cls.out], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=WAIT + 170)
        sys.stdout.write("".join("# " + ln + "\n" for ln in
                                 cls.proc.stdout.splitlines()[-25:]))

    @classmethod
    def tearDownClass(cls):
        if cls.out and not os.environ.get("XNB_BENCH_KEEP"):
            shutil.rmtree(cls.out, ignore_errors=True)

    def test_exit_status(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout[-2000:])

    def test_files(self):
        for f in ("raw.json", "cells.csv", "summary.csv", "report.md",
                  "run.log"):
            p = os.path.join(self.out, f)
            self.assertTrue(os.path.isfile(p), f)
            self.assertGreater(os.path.getsize(p), 0, f)
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return
        pngs = os.listdir(os.path.join(self.out, "plots"))
        self.assertNotIn("ratios.png", pngs)
        for f in ("stream.png", "udp.png", "rr.png", "crr.png", "fwd64.png",
                  "cpu.png"):
            self.assertIn(f, pngs)
            with open(os.path.join(self.out, "plots", f), "rb") as fh:
                self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")

    def test_cells_csv(self):
        with open(os.path.join(self.out, "cells.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(self.out, "raw.json")) as f:
            raw = {c["cell"]: c.get("raw") or {} for c in json.load(f)["cells"]}
        self.assertEqual(list(rows[0].keys()), report.CELL_FIELDS)
        seen = {(r["path"], r["test"]) for r in rows}
        for p in matrix.DEFAULT_PATHS:
            for t in matrix.TESTS:
                if matrix.is_vhost_test(t):
                    continue  # --topology vhost (test_vhost_smoke.py)
                if p == "direct" and t == "fwd64_tap":
                    continue  # no direct equivalent of a tap source
                self.assertIn((p, t), seen)
        for r in rows:
            self.assertEqual(r["error"], "", r)
            metric = matrix.TESTS[r["test"]]["metric"]
            self.assertGreater(float(r[metric]), 0, r)
            bpf = matrix.is_bpf(r["path"])
            if bpf:
                # Program CPU per frame on every BPF path, vm-vm or not.
                self.assertGreater(float(r["prog_ns"]), 0, r)
                self.assertGreater(int(r["prog_frames"]), 0, r)
            if bpf and r["direction"] == "vm-vm":
                self.assertNotEqual(r["fastpath_share"], "", r)
                self.assertEqual(r["validity"], "valid", r)
            elif bpf:
                self.assertEqual(r["validity"], "host", r)
            if r["test"] in ("tcp_rr", "udp_rr"):
                for m in ("p50_us", "p90_us", "p99_us", "mean_us"):
                    self.assertGreater(float(r[m]), 0, r)
            if r["test"] in matrix.FWD_TESTS:
                # The switch path's CPU is the port's NAPI thread's only
                # with live frames (xnb_pktgen, where the kernel has them).
                gen = raw.get(int(r["cell"]), {}).get("generator")
                for m in ("switch_ns", "fwd_kpps", "offered_kpps"):
                    if m == "switch_ns" and gen == "af_packet":
                        continue
                    self.assertGreater(float(r[m]), 0, r)
            if r["path"] == "bridge-nf" and r["direction"] == "vm-vm":
                # Bridged frames walk FORWARD; host traffic does not.
                self.assertGreater(int(r["nf_forward_packets"]), 0, r)

    def test_xdp_minimal_in_xdp(self):
        """xdp-minimal on the netns topology: the cells whose frames enter
        a tap with full checksums, carried by its XDP program (what it
        passes on runs tc-minimal: few frames)."""
        with open(os.path.join(self.out, "raw.json")) as f:
            cells = [c for c in json.load(f)["cells"]
                     if c["path"] == "xdp-minimal"]
        self.assertEqual({(c["setting"]["standin"], c["test"])
                          for c in cells},
                         {("tap", "tcp_stream"), ("veth", "fwd64_tap")})
        for c in cells:
            self.assertEqual(c["validity"], "valid", c["validity_reason"])
            runs = {}
            for p in c["prog"]["progs"].values():
                runs[p["hook"] == "xdp"] = runs.get(p["hook"] == "xdp",
                                                    0) + p["runs"]
            self.assertGreater(runs.get(True, 0), 0, c["test"])
            self.assertLess(runs.get(False, 0), 0.1 * runs[True], c["test"])
            self.assertGreater(c["prog"]["xdp_ns"], 0)

    def test_stage_shares(self):
        """Every xdpnet cell says who carried its frames; the XDP stage
        carries the tap frames with full checksums."""
        with open(os.path.join(self.out, "raw.json")) as f:
            cells = [c for c in json.load(f)["cells"]
                     if matrix.counts(c["path"])]
        self.assertTrue(cells)
        for c in cells:
            sh = c["stage_shares"]
            name = "%s %s %s" % (c["path"], c["test"], c["direction"])
            self.assertAlmostEqual(sh["xdp_redirect"] + sh["tc_redirect"] +
                                   sum(sh["bridge"].values()), 1.0,
                                   msg=name)
            if c["direction"] != "vm-vm":
                self.assertGreater(sum(sh["bridge"].values()), 0.9, name)
            if c["path"] == "xdpnet-tc":
                self.assertEqual(sh["xdp_redirect"], 0.0, name)
            if c["path"] == "xdpnet-xdp" and c["test"] == "fwd64_tap":
                self.assertGreater(sh["xdp_redirect"], 0.9, name)

    def test_summary_csv_ratios(self):
        with open(os.path.join(self.out, "summary.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(rows[0].keys()), report.SUMMARY_FIELDS)
        x = [r for r in rows if r["path"].startswith("xdpnet") and
             r["metric"] == matrix.TESTS[r["test"]]["metric"]]
        self.assertTrue(x)
        for r in x:
            self.assertGreater(float(r["vs_bridge"]), 0, r)
            self.assertGreater(float(r["vs_bridge_nf"]), 0, r)
            if r["test"] != "fwd64_tap":
                self.assertGreater(float(r["vs_direct"]), 0, r)
            self.assertGreater(float(r["vs_tc_minimal"]), 0, r)

    def test_raw_json(self):
        with open(os.path.join(self.out, "raw.json")) as f:
            doc = json.load(f)
        env = doc["env"]
        for k in ("kernel", "cpu_model", "cpus", "iperf3", "sockperf",
                  "iptables", "loadavg_start"):
            self.assertIn(k, env)
        self.assertEqual(doc["rules_measured"], 300)
        hr = doc["topology_info"]["host_rules"]
        self.assertEqual(hr["filter_rules"] + hr["nat_rules"], 300)
        self.assertTrue(doc["prog_stats"])
        self.assertTrue(doc["offloads"])
        for snap in doc["offloads"].values():
            self.assertTrue(any(k.endswith(":eth0") for k in snap))
        ports = doc["topology_info"]["ports"]
        self.assertIn("sndbuf", ports["xnbt1"])
        self.assertIn("queues", ports["xnbv1"])
        for c in doc["cells"]:
            if c["path"].startswith("xdpnet"):
                self.assertIn("counters_delta", c)

    def test_report_md(self):
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        for h in ("## Environment", "## Targets", "## Results",
                  "## Invalid and failed cells"):
            self.assertIn(h, md)
        self.assertIn("| T2 |", md)
        self.assertIn("the seeds' table", md)
        self.assertIn("÷ tc-minimal", md)
        self.assertIn("### Who carried the frames", md)
        self.assertIn("| XDP redirect | TC redirect |", md)

    def test_cleaned_up(self):
        self.assertEqual(benchpath.bench_leftovers(), [])


if __name__ == "__main__":
    unittest.main()
