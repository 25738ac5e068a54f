#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A follower whose network namespace is deleted under it ('ip netns del'
# without 'xdpnet detach'): it alone would keep the namespace, its devices
# and the pins alive. (root; run by make check, or on its own.)
#
#   - attach (nsenter, as an operator would) to a bridge of two veth
#     stand-ins in namespace SW;
#   - 'ip netns del SW' while another process still runs in SW: the
#     namespace is held, the follower stays (5 s: more than two of its
#     2-second looks);
#   - that process ends: the follower removes every hook and pin and
#     exits, and the namespace goes (the stand-ins' veth ends vanish).
#
# Names: namespaces xng-*, bridge xngbr0, ports xngv1/xngv2 (prefix xng: no other suite has it).
# Output: "ok N - ..." / "not ok N - ...", then "P passed, F failed".
set -u
. "$(dirname "$0")/lib.sh"
SW=xng-sw
BR=xngbr0
PIN=$PIN_ROOT/$BR
FPID= MINE=0

parse_args "[--keep] [-v]" "$@"
# What is ours, once our attach made it (MINE): the follower (by pid),
# its pins and run files. A preflight that found them already there
# touches nothing.
suite_cleanup() {
	[ "$MINE" = 1 ] || return 0
	[ -n "$FPID" ] && alive && is_follower "$FPID" && kill -TERM "$FPID"
	[ -e "/run/netns/$SW" ] && [ -e "$PIN" ] && xn detach "$BR" >/dev/null 2>&1
	[ -e "$PIN" ] && rm -rf "$PIN"
	cat "/run/xdpnet/$BR.log" >>"$LOGDIR/follower-$BR.log" 2>/dev/null
	runfiles_rm "$BR"
}
traps_install

preflight() {
	local t
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	for t in ip bridge nsenter flock; do
		command -v "$t" >/dev/null || { echo "missing tool: $t"; return 1; }
	done
	[ -x "$XDPNET" ] || { echo "missing $XDPNET (make all)"; return 1; }
	[ ! -e "$PIN" ] || { echo "$PIN exists: another run, or a leftover"; return 1; }
	ensure_bpffs
}

topo() {
	local i
	ns_add "$SW" || return 1
	ip -n "$SW" link add "$BR" type bridge stp_state 0 || return 1
	ip -n "$SW" link set "$BR" up || return 1
	for i in 1 2; do
		ns_add "xng-v$i" || return 1
		ip -n "$SW" link add "xngv$i" type veth peer name eth0 netns "xng-v$i" || return 1
		ip -n "$SW" link set "xngv$i" master "$BR" up || return 1
		ip -n "xng-v$i" link set eth0 up || return 1
	done
}

attached() {
	MINE=1
	xn attach "$BR" || return 1
	wait_until 10 follower_pid >/dev/null || { echo "no follower runs"; return 1; }
	FPID=$(follower_pid)
	echo "follower pid $FPID"
	is_follower "$FPID" || { echo "pid $FPID is not the follower of $BR"; return 1; }
	[ -e "$PIN" ] || { echo "no $PIN"; return 1; }
}

alive() { kill -0 "$FPID" 2>/dev/null; }
follower_gone() { ! alive; }

# The name goes, SW's anchor (a process in it) stays: held.
held_stays() {
	local i
	ip netns del "$SW" || return 1
	echo "ip netns del $SW; its anchor (pid ${NS_ANCHOR[$SW]}) still runs in it"
	for i in $(seq 50); do
		alive || { echo "FAIL: the follower exited while a process was in $SW"; return 1; }
		sleep 0.1
	done
	[ -e "$PIN" ] || { echo "FAIL: $PIN went while $SW was held"; return 1; }
	echo "the follower runs, $PIN is there, 5 s on"
}

# The last holder but the follower ends.
orphan_ends() {
	local t0 st=0
	t0=$EPOCHREALTIME
	anchor_stop "$SW"
	if wait_until 15 follower_gone; then
		echo "the follower exited $(since "$t0") s after the last other process in $SW"
	else
		echo "FAIL: the follower (pid $FPID) still runs 15 s after"
		return 1
	fi
	[ ! -e "$PIN" ] || { echo "FAIL: $PIN left behind"; st=1; }
	[ ! -e "/run/xdpnet/$BR.pid" ] || { echo "FAIL: /run/xdpnet/$BR.pid left behind"; st=1; }
	# The namespace itself went: the stand-ins' veth ends with it.
	wait_until 10 sh -c '! ip -n xng-v1 link show eth0 >/dev/null 2>&1' ||
		{ echo "FAIL: xng-v1's eth0 is still there: $SW lives on"; st=1; }
	grep -h 'network namespace was deleted' "/run/xdpnet/$BR.log" 2>/dev/null
	return $st
}

check "nsgone preflight: root, tools, $XDPNET, no $PIN" preflight || finish
check "nsgone topology: $BR in $SW, two veth stand-ins" topo || finish
check "nsgone: attach from outside (nsenter): a follower runs in $SW" attached || finish
check "nsgone: ip netns del $SW while a process is in it: the follower stays" held_stays || finish
check "nsgone: the last other process in $SW ends: the follower removes its pins and exits, $SW goes" orphan_ends
finish
