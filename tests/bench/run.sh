#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make check-bench: the harness's unit tests and the --smoke run (root).
set -eu
cd "$(dirname "$0")/../.."
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
XNB_BENCH_SMOKE=${XNB_BENCH_SMOKE:-require} exec "$PY" tests/bench/run_tests.py "$@"
