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


def quantile(values, q):
    """Linearly interpolated quantile (q in 0..1) of the numbers in values;
    None for none."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _binom_cdf_half(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    import math
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2.0 ** n


# Least coverage of the interval a verdict rests on.
CI_LEVEL = 0.95


def median_ci(values, level=CI_LEVEL):
    """Distribution-free confidence interval of the median: the order
    statistics (x_(k), x_(n+1-k)) with the largest k whose coverage,
    1 - 2 P(Binomial(n, 1/2) <= k - 1), is at least level. Returns (lo,
    hi, coverage), or (None, None, best coverage) when n values cannot
    give that level (n < 6 for 95%: even min-max covers only 1 - 2^(1-n))."""
    xs = sorted(v for v in values if v is not None)
    n = len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        cov = 1.0 - 2.0 * _binom_cdf_half(k - 1, n)
        if cov >= level:
            best = (k, cov)
        else:
            break
    if best is None:
        cov = 1.0 - 2.0 * _binom_cdf_half(0, n) if n else 0.0
        return None, None, cov
    k, cov = best
    return xs[k - 1], xs[n - k], cov


def paired(values, level=CI_LEVEL):
    """Summary of per-repeat paired ratios: n, median, min, max, q1, q3
    (the spread) and the confidence interval of the median that verdicts
    rest on (ci_lo, ci_hi, ci_level; None when too few)."""
    xs = [float(v) for v in values if v is not None]
    lo, hi, cov = median_ci(xs, level)
    return {"n": len(xs), "ratio": median(xs),
            "min": min(xs) if xs else None, "max": max(xs) if xs else None,
            "q1": quantile(xs, 0.25), "q3": quantile(xs, 0.75),
            "ci_lo": lo, "ci_hi": hi, "ci_level": cov, "values": xs}


def verdict(summary, op, threshold):
    """A target's verdict from a paired() summary, such that noise never
    becomes one: 'met' when the whole confidence interval of the median
    ratio is on the good side of threshold, 'MISSED' when it is all on
    the bad side, 'inconclusive' when it straddles threshold, 'n/a' when
    there is no interval (too few paired repeats)."""
    if not summary or summary.get("ci_lo") is None:
        return "n/a"
    lo, hi = summary["ci_lo"], summary["ci_hi"]
    if op == ">=":
        good, bad = lo >= threshold, hi < threshold
    else:
        good, bad = hi <= threshold, lo > threshold
    if good:
        return "met"
    if bad:
        return "MISSED"
    return "inconclusive"
