# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Makes scripts/bench_lib importable from the tests; SAMPLES: recorded
tool outputs."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(HERE, "samples")
if os.path.join(ROOT, "scripts") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "scripts"))


def sample(name):
    with open(os.path.join(SAMPLES, name)) as f:
        return f.read()
