# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench with no arguments prints the --quick plan and how to start
it, and runs nothing (no results; suites beside it make namespaces, so
those are not compared)."""
import os
import subprocess
import unittest

from benchpath import ROOT


class NoArguments(unittest.TestCase):
    def test_prints_plan_runs_nothing(self):
        results = os.path.join(ROOT, "results")
        before = set(os.listdir(results)) if os.path.isdir(results) else set()
        cp = subprocess.run(
            ["/usr/bin/python3", os.path.join(ROOT, "scripts", "bench")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=60)
        self.assertEqual(cp.returncode, 0, cp.stdout)
        self.assertIn("tcp_stream", cp.stdout)
        self.assertIn("Nothing was run", cp.stdout)
        self.assertIn("sudo scripts/bench --quick", cp.stdout)
        after = set(os.listdir(results)) if os.path.isdir(results) else set()
        self.assertEqual(after, before)


if __name__ == "__main__":
    unittest.main()
