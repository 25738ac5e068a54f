# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): attach and detach while a paced TCP
# transfer runs; the transfer must arrive intact.

# mid_xfer ACTION MODE: attach/detach MODE while a paced TCP transfer runs:
# MID / 5 bytes before it, and MID / 5 more after it returned. The client
# sends until told to stop (XFER_UNTIL), so that the action falls inside
# the transfer however long it takes on a busy host (a transfer of a fixed
# 150 MB, 5 s, was over before an attach beside three suites and a CPU hog
# returned).
MID_RESULT=
mid_progress_ge() { [ "$(cat "$WORK/progress" 2>/dev/null || echo 0)" -ge "$1" ] 2>/dev/null; }
mid_xfer() {
	local action=$1 mode=$2 rc at before after prog=$WORK/progress f0=$WORK/mid0.json
	local stop=$WORK/mid.stop cap=$((8192 * MB))
	rm -f "$prog" "$stop"
	[ "$action" = detach ] && { do_attach "$mode" || return 1; status_json "$f0"; }
	XFER_UNTIL=$stop tcp_start "$(g_ns 1)" "$(g_ns 2)" "$(g_ip4 2)" "$cap" "$MID_RATE" 120 "$prog" || return 1
	wait_until 10 mid_progress_ge $((MID / 5))
	before=$(cat "$prog" 2>/dev/null || echo 0)
	echo "progress before $action: $before"
	if [ "$action" = attach ]; then do_attach "$mode"; else do_detach; fi
	rc=$?
	at=$(cat "$prog" 2>/dev/null || echo 0)
	echo "progress after $action returned: $at"
	wait_until 10 mid_progress_ge $((at + MID / 5))
	after=$(cat "$prog" 2>/dev/null || echo 0)
	echo "progress $((MID / 5 / MB)) MB later: $after"
	touch "$stop"
	tcp_finish
	MID_RESULT=$?
	[ "$rc" = 0 ] || { echo "FAIL: $action failed"; return 1; }
	[ "$before" -gt 0 ] 2>/dev/null || { echo "FAIL: the transfer had not started before $action"; return 1; }
	[ "$after" -ge $((at + MID / 5)) ] 2>/dev/null ||
		{ echo "FAIL: the transfer did not go on after $action returned"; return 1; }
	if [ "$action" = attach ]; then
		status_json "$WORK/mid1.json"
		echo "tc_redirect on $(g_port 1): $(ctr "$WORK/mid1.json" "$(g_port 1)" tc_redirect) xdp_redirect: $(ctr "$WORK/mid1.json" "$(g_port 1)" xdp_redirect)"
		[ $(($(ctr "$WORK/mid1.json" "$(g_port 1)" tc_redirect) + $(ctr "$WORK/mid1.json" "$(g_port 1)" xdp_redirect))) -gt 100 ] ||
			{ echo "FAIL: the rest of the transfer did not take the bypass"; return 1; }
	fi
	return 0
}
mid_result() { echo "transfer rc=$MID_RESULT"; [ "$MID_RESULT" = 0 ]; }
