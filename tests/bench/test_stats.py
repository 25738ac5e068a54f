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


if __name__ == "__main__":
    unittest.main()
