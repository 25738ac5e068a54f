# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh, section errors (sourced): the CLI's error exits
# on a switch that is not attached: a device that is not there, one that is
# not a bridge, a detach of what was never attached; none leaves pins or
# changes the switch.

detach_unattached() {
	local rc
	sw_state >"$WORK/state0"
	echo "+ xdpnet detach $BR"
	xn detach "$BR" >"$WORK/err.out" 2>"$WORK/err.err"
	rc=$?
	echo "exit $rc"; cat "$WORK/err.out" "$WORK/err.err"
	sw_state >"$WORK/state1"
	if ! diff -u "$WORK/state0" "$WORK/state1"; then
		echo "FAIL: detach changed the switch"
		return 1
	fi
	[ "$rc" = 0 ] || [ "$rc" = 7 ]
}

no_pins_for() {
	local n st=0
	for n in "$@"; do
		if [ -e "$PIN_ROOT/$n" ]; then echo "$PIN_ROOT/$n exists"; st=1; fi
	done
	return $st
}

section_errors() {
	section errors
	switch_up
	ip -n "$SW" link add xnterr0 type veth peer name xnterr1
	ip -n "$SW" link set xnterr0 up
	ip -n "$SW" link set xnterr1 up
	sw_state >"$WORK/state-before"
	check "errors: attach xntnosuch (no such device) exits 3, one line on stderr" \
		err_exit 3 attach xntnosuch
	check "errors: attach xnterr0 (a veth, not a bridge) exits 3, one line on stderr" \
		err_exit 3 attach xnterr0
	check "errors: attach xnterr0 --mode xdp exits 3" err_exit 3 attach xnterr0 --mode xdp
	check "errors: failed attaches left no pins" no_pins_for xntnosuch xnterr0
	check "errors: detach $BR (never attached) exits 0 or 7 and changes nothing" \
		detach_unattached
	sw_state >"$WORK/state-after"
	check "errors: the switch is unchanged after all of the above" \
		diff -u "$WORK/state-before" "$WORK/state-after"
	ns_del "$SW"
}
