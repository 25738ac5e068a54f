# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): a fourth port added to an attached
# bridge, picked up by attach, and removed again.

add_port_test() { # LABEL (veth, attached)
	local L=$1
	check "$L: a 4th stand-in joins the bridge while attached" veth_guest_add 4
	GUESTS+=(xnt-v4)
	PORTS+=(xntv4)
	witness_rules >/dev/null
	check "$L: attach again picks up xntv4" attach_pick_up
	check "$L: tcp ipv4 $((CELL / MB)) MB sha256 1->4" tcp_measured 1 4 "$(g_ip4 4)" "$CELL"
	check "$L: tcp 1->4 took the bypass" expect_bypass
}

attach_pick_up() {
	local rc
	xn attach "$BR" --mode "$ATTACHED_MODE"
	rc=$?
	echo "exit $rc"
	xn status "$BR" --json | jq -c '.bridges[0].ports[] | [.name, .ifindex, .tc_prog_id]'
	[ "$rc" = 0 ] && xn status "$BR" --json |
		jq -e '[.bridges[0].ports[] | select(.name == "xntv4" and .tc_prog_id > 0)] | length == 1' >/dev/null
}

remove_4th() {
	ns_del xnt-v4
	GUESTS=("${GUESTS[@]:0:3}")
	PORTS=("${PORTS[@]:0:3}")
	witness_rules >/dev/null
}
