# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Median, min-max and ratios. Pure functions, no I/O."""


def median(values):
    """Median of a non-empty sequence of numbers (mean of the middle two
    for an even count). None for an empty one."""
    xs = sorted(v for v in values if v is not None)
    n = len(xs)
    if not n:
        return None
    mid = n // 2
    if n % 2:
        return float(xs[mid])
    return (xs[mid - 1] + xs[mid]) / 2.0


def summarize(values):
    """{'n', 'median', 'min', 'max', 'values'} of the numbers in values
    (None entries are ignored)."""
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return {"n": 0, "median": None, "min": None, "max": None,
                "values": []}
    return {"n": len(xs), "median": median(xs), "min": min(xs),
            "max": max(xs), "values": xs}


def ratio(value, reference):
    """value / reference, or None when either is missing or the reference
    is not positive."""
    if value is None or reference is None:
        return None
    if reference <= 0:
        return None
    return value / reference


def percentile(sorted_values, p):
    """Nearest-rank percentile of an already sorted list (p in 0..100)."""
    n = len(sorted_values)
    if not n:
        return None
    import math
    k = max(1, min(n, int(math.ceil(p / 100.0 * n))))
    return sorted_values[k - 1]


def better(metric_dir, value, reference):
    """True when value is at least as good as reference for a metric whose
    better direction is 'higher' or 'lower'."""
    if value is None or reference is None:
        return None
    if metric_dir == "higher":
        return value >= reference
    return value <= reference
