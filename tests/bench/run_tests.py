#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Runs the harness's tests (tests/bench/test_*.py) and ends with one line
"N passed, M failed". The smoke run (test_smoke.py) needs root and a
built tree; it is skipped otherwise, or fails with XNB_BENCH_SMOKE=require
(make check-bench)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv):
    pattern = argv[1] if len(argv) > 1 else "test_*.py"
    suite = unittest.defaultTestLoader.discover(HERE, pattern=pattern,
                                                top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(
        suite)
    failed = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses)
    # A class whose setUpClass failed counts as failed but ran no test.
    ran_failed = failed - sum(
        1 for t, _ in result.failures + result.errors
        if type(t).__name__ == "_ErrorHolder")
    skipped = len(result.skipped)
    # A class skipped in setUpClass counts as a skip but ran no test.
    ran_skipped = sum(1 for t, _ in result.skipped
                      if type(t).__name__ != "_ErrorHolder")
    passed = result.testsRun - ran_failed - ran_skipped
    if skipped:
        print("# %d skipped" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
