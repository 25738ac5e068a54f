# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): attach and detach while a paced TCP
# transfer runs; the transfer must arrive intact.

# mid_xfer ACTION MODE: attach/detach MODE while a paced TCP transfer runs.
MID_RESULT=
mid_xfer() {
	local action=$1 mode=$2 rc at before i prog=$WORK/progress f0=$WORK/mid0.json
	rm -f "$prog"
	[ "$action" = detach ] && { do_attach "$mode" || return 1; status_json "$f0"; }
	tcp_start "$(g_ns 1)" "$(g_ns 2)" "$(g_ip4 2)" "$MID" "$MID_RATE" 60 "$prog" || return 1
	for i in $(seq 100); do
		[ "$(cat "$prog" 2>/dev/null || echo 0)" -ge $((MID / 5)) ] 2>/dev/null && break
		sleep 0.1
	done
	before=$(cat "$prog" 2>/dev/null || echo 0)
	echo "progress before $action: $before of $MID"
	if [ "$action" = attach ]; then do_attach "$mode"; else do_detach; fi
	rc=$?
	at=$(cat "$prog" 2>/dev/null || echo 0)
	echo "progress after $action returned: $at of $MID"
	tcp_finish
	MID_RESULT=$?
	[ "$rc" = 0 ] || { echo "FAIL: $action failed"; return 1; }
	[ "$before" -gt 0 ] 2>/dev/null || { echo "FAIL: the transfer had not started before $action"; return 1; }
	[ "$at" -lt "$MID" ] || { echo "FAIL: the transfer was over before $action returned"; return 1; }
	if [ "$action" = attach ]; then
		status_json "$WORK/mid1.json"
		echo "tc_redirect on $(g_port 1): $(ctr "$WORK/mid1.json" "$(g_port 1)" tc_redirect) xdp_redirect: $(ctr "$WORK/mid1.json" "$(g_port 1)" xdp_redirect)"
		[ $(($(ctr "$WORK/mid1.json" "$(g_port 1)" tc_redirect) + $(ctr "$WORK/mid1.json" "$(g_port 1)" xdp_redirect))) -gt 100 ] ||
			{ echo "FAIL: the rest of the transfer did not take the bypass"; return 1; }
	fi
	return 0
}
mid_result() { echo "transfer rc=$MID_RESULT"; [ "$MID_RESULT" = 0 ]; }
