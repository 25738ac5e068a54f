# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Makes scripts/bench_lib importable from the tests; SAMPLES: recorded
tool outputs."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(HERE, "samples")
if os.path.join(ROOT, "scripts") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "scripts"))


def sample(name):
    with open(os.path.join(SAMPLES, name)) as f:
        return f.read()


def why_not(tools):
    """Why a root run of a built tree cannot go here (not root, or one of
    tools, paths from the tree's top, not built), or None."""
    if os.geteuid() != 0:
        return "needs root"
    missing = [t for t in tools if not os.access(os.path.join(ROOT, t),
                                                 os.X_OK)]
    if missing:
        return "not built: " + ", ".join(missing)
    return None


def bench_leftovers():
    """What a finished scripts/bench run must not leave: its namespaces
    (xnb-*) and its bridge's pins."""
    left = ["netns " + ns for ns in os.listdir("/run/netns")
            if ns.startswith("xnb-")] if os.path.isdir("/run/netns") else []
    if os.path.exists("/sys/fs/bpf/xdpnet/xnbbr0"):
        left.append("/sys/fs/bpf/xdpnet/xnbbr0")
    return left


def precondition(tools, require, what):
    """In a setUpClass: skip (or, with require, fail) unless why_not()
    finds nothing."""
    reason = why_not(tools)
    if reason:
        if require:
            raise AssertionError("%s impossible: %s" % (what, reason))
        raise unittest.SkipTest(reason)
