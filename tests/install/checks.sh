# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# The checks of the install tests (sourced by tests/install/run.sh,
# tests/install/deb.sh and tests/fresh/deb.sh): "ok - ..." / "not ok - ..."
# lines, counted in pass and fail for the suite's "P passed, F failed".
pass=0 fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else nok "$what"; fi
}
