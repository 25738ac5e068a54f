# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Figures and report.md from a recorded run (samples/run_smoke.json: a
--smoke run's raw.json without the tools' raw output): one figure per test
family, the CPU figure with the BPF paths only, and scripts/bench --report
rebuilding everything from raw.json."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from benchpath import ROOT, SAMPLES
from bench_lib import matrix, plots, report

RUN = os.path.join(SAMPLES, "run_smoke.json")
PNG = b"\x89PNG\r\n\x1a\n"


def load():
    with open(RUN) as f:
        return json.load(f)


class Panels(unittest.TestCase):
    def test_panels_per_family(self):
        doc = load()
        groups = report.aggregate(doc["cells"])
        p = plots.panels(groups, doc["paths"], ("tcp_stream",), "gbps")
        # veth on vm->vm and host->vm, tap off vm->vm.
        self.assertEqual(len(p), 3)
        row, bars = p[0]
        self.assertEqual(row[3], "tcp_stream")
        self.assertEqual([b[0] for b in bars], doc["paths"])
        for _, med, lo, hi in bars:
            self.assertLessEqual(lo, med)
            self.assertLessEqual(med, hi)
        bpf = [x for x in doc["paths"] if matrix.is_bpf(x)]
        cpu = plots.panels(groups, bpf, tuple(matrix.TESTS), "prog_ns")
        self.assertTrue(cpu)
        for _, bars in cpu:
            self.assertEqual({b[0] for b in bars}, set(bpf))


@unittest.skipUnless(plots.available(), "python3-matplotlib not installed")
class Figures(unittest.TestCase):
    def test_make_all(self):
        doc = load()
        groups = report.aggregate(doc["cells"])
        out = tempfile.mkdtemp(prefix="xnb-plots.")
        try:
            made = plots.make_all(groups, doc["paths"], [], out)
            names = [m[0] for m in made]
            self.assertEqual(names, ["stream.png", "udp.png", "rr.png",
                                     "crr.png", "fwd64.png", "cpu.png"])
            for n in names:
                with open(os.path.join(out, n), "rb") as f:
                    self.assertEqual(f.read(8), PNG)
            self.assertNotIn("ratios.png", os.listdir(out))
        finally:
            shutil.rmtree(out)

    def test_report_rebuilt_from_raw_json(self):
        out = tempfile.mkdtemp(prefix="xnb-report.")
        try:
            shutil.copy(RUN, os.path.join(out, "raw.json"))
            cp = subprocess.run(
                ["/usr/bin/python3", os.path.join(ROOT, "scripts", "bench"),
                 "--report", out], stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, timeout=120)
            self.assertEqual(cp.returncode, 0, cp.stdout)
            self.assertIn("min/br", cp.stdout)
            with open(os.path.join(out, "report.md")) as f:
                md = f.read()
            for h in ("## Targets", "the seeds' table",
                      "### BPF program CPU per frame", "**The realistic "
                      "host**", "![TCP stream", "| T2 |", "÷ tc-minimal"):
                self.assertIn(h, md)
            for f in ("cells.csv", "summary.csv", "plots/stream.png"):
                self.assertTrue(os.path.exists(os.path.join(out, f)), f)
        finally:
            shutil.rmtree(out)


if __name__ == "__main__":
    unittest.main()
