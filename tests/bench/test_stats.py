# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Median, min-max, ratios."""
import unittest

import benchpath  # noqa: F401
from bench_lib import stats


class Median(unittest.TestCase):
    def test_odd_even_empty(self):
        self.assertEqual(stats.median([3, 1, 2]), 2.0)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(stats.median([7]), 7.0)
        self.assertIsNone(stats.median([]))
        self.assertEqual(stats.median([None, 5, None, 1, 3]), 3.0)

    def test_summarize(self):
        s = stats.summarize([5.0, 1.0, 9.0, None, 3.0, 7.0])
        self.assertEqual(s["n"], 5)
        self.assertEqual(s["median"], 5.0)
        self.assertEqual((s["min"], s["max"]), (1.0, 9.0))
        e = stats.summarize([])
        self.assertEqual(e["n"], 0)
        self.assertIsNone(e["median"])

    def test_ratio(self):
        self.assertAlmostEqual(stats.ratio(3.0, 2.0), 1.5)
        self.assertIsNone(stats.ratio(None, 2.0))
        self.assertIsNone(stats.ratio(1.0, None))
        self.assertIsNone(stats.ratio(1.0, 0.0))
        self.assertIsNone(stats.ratio(1.0, -1.0))
        self.assertEqual(stats.ratio(0.0, 2.0), 0.0)

    def test_percentile_nearest_rank(self):
        xs = list(range(1, 101))
        self.assertEqual(stats.percentile(xs, 50), 50)
        self.assertEqual(stats.percentile(xs, 99), 99)
        self.assertEqual(stats.percentile(xs, 100), 100)
        self.assertEqual(stats.percentile([5], 99), 5)
        self.assertIsNone(stats.percentile([], 50))

    def test_better(self):
        self.assertTrue(stats.better("higher", 2, 1))
        self.assertFalse(stats.better("lower", 2, 1))
        self.assertIsNone(stats.better("lower", None, 1))


class Paired(unittest.TestCase):
    def test_quantile(self):
        self.assertEqual(stats.quantile([1, 2, 3, 4, 5], 0.25), 2.0)
        self.assertEqual(stats.quantile([1, 2, 3, 4], 0.5), 2.5)
        self.assertEqual(stats.quantile([7], 0.75), 7)
        self.assertIsNone(stats.quantile([], 0.5))

    def test_interval_needs_six(self):
        for n in (1, 3, 5):
            lo, hi, cov = stats.median_ci(range(n))
            self.assertIsNone(lo)
            self.assertLess(cov, 0.95)
        # 6-8 values: min-max (coverage 1 - 2^(1-n)); 9: 2nd to 8th.
        self.assertEqual(stats.median_ci(range(7))[:2], (0, 6))
        self.assertAlmostEqual(stats.median_ci(range(7))[2], 1 - 2 ** -6)
        self.assertEqual(stats.median_ci(range(9))[:2], (1, 7))
        self.assertEqual(stats.median_ci(range(20))[:2], (5, 14))

    def test_paired_summary(self):
        p = stats.paired([1.0, 0.9, 1.1, 0.95, 1.05, 1.02, 0.98])
        self.assertEqual(p["n"], 7)
        self.assertEqual(p["ratio"], 1.0)
        self.assertEqual((p["min"], p["max"]), (0.9, 1.1))
        self.assertAlmostEqual(p["q1"], 0.965)
        self.assertEqual((p["ci_lo"], p["ci_hi"]), (0.9, 1.1))

    def test_real_loss_of_five_percent_shows(self):
        # Seven repeats where the path lost 5% with +-2% of noise.
        loss = stats.paired([0.95, 0.93, 0.97, 0.94, 0.96, 0.95, 0.96])
        self.assertEqual(stats.verdict(loss, ">=", 1.0), "MISSED")
        # The same spread around 1.0 is noise, not a loss.
        noise = stats.paired([1.0, 0.98, 1.02, 0.99, 1.01, 1.0, 1.01])
        self.assertEqual(stats.verdict(noise, ">=", 1.0), "inconclusive")

    def test_verdict_rules(self):
        high = stats.paired([1.5, 1.4, 1.6, 1.45, 1.55, 1.5, 1.52])
        self.assertEqual(stats.verdict(high, ">=", 1.3), "met")
        self.assertEqual(stats.verdict(high, ">=", 2.0), "MISSED")
        self.assertEqual(stats.verdict(high, "<=", 2.0), "met")
        self.assertEqual(stats.verdict(high, "<=", 1.0), "MISSED")
        self.assertEqual(stats.verdict(high, ">=", 1.5), "inconclusive")
        # Three repeats never make a verdict, however clear they look.
        three = stats.paired([0.5, 0.5, 0.5])
        self.assertEqual(stats.verdict(three, ">=", 1.0), "n/a")
        self.assertEqual(stats.verdict(None, ">=", 1.0), "n/a")


if __name__ == "__main__":
    unittest.main()
