#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libxdp's dispatcher and what xdpnet leaves loaded (run in a guest whose
# kernel runs the dispatcher; the share part of tests/kernels/inguest.sh):
#   - attach --mode xdp and detach, twice: every xdpnet program gone
#     within 2 s of detach;
#   - a tap deleted while in a dispatcher (its VM stopped): libxdp leaves
#     the dispatcher's pins behind (xdp/dispatch-IFINDEX-ID), and with
#     them the dispatcher, xdpnet's program and its maps; the follower
#     must remove them (within 5 s), and after the tap comes back and
#     xdpnet detaches, nothing of xdpnet's is loaded.
# Who holds a program that stays (fdinfo prog_id, links, libxdp's pins)
# is printed. Alone:
#   XNK_SUITE=trixie XNK_PARTS=none XNK_SCRIPT=tests/kernels/mp-detach.sh \
#     tests/kernels/run.sh
# Output: "ok N - ..." per check, then "P passed, F failed".
set -u
. "$(dirname "$0")/../integration/lib.sh"
SW=xnm-sw BR=xnmbr0
# shellcheck disable=SC2034
XNP=xnm PIN=$PIN_ROOT/$BR
traps_install
holders() { # PROG_ID
	local f p
	for f in /proc/[0-9]*/fdinfo/*; do
		grep -qx "prog_id:	$1" "$f" 2>/dev/null || continue
		p=${f#/proc/}; p=${p%%/*}
		echo "  held by pid $p ($(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)) fd ${f##*/}"
	done
	bpftool link -j 2>/dev/null | jq -c --argjson id "$1" '.[] | select(.prog_id == $id)'
	ls -R /sys/fs/bpf/xdp 2>/dev/null
}
xdpnet_progs() {
	bpftool prog show -j | jq -r '.[] | select(.name == "xdpnet_xdp" or .name == "xdpnet_xdp_mp") | .id' | tr '\n' ' '
}
# gone_within SECS IDS: every program of IDS unloaded within SECS.
gone_within() {
	local secs=$1 id i st=0
	shift
	for id in "$@"; do
		for i in $(seq $((secs * 10))); do
			bpftool prog show id "$id" >/dev/null 2>&1 || break
			sleep 0.1
		done
		if bpftool prog show id "$id" >/dev/null 2>&1; then
			echo "FAIL: program $id still loaded $secs s after detach:"
			holders "$id"; st=1
		else
			echo "program $id: gone after $(((i - 1) / 10)).$(((i - 1) % 10)) s"
		fi
	done
	return $st
}
in_dispatcher() {
	xn status "$BR" --json | jq -e '[.bridges[0].ports[] | select(.xdp_via == "dispatcher")] | length == 2' >/dev/null
}
round() {
	local ext
	xn attach "$BR" --mode xdp || return 1
	in_dispatcher || { echo "FAIL: not in libxdp's dispatcher"; xn status "$BR"; return 1; }
	ext=$(xdpnet_progs)
	echo "xdpnet programs: $ext"
	xn detach "$BR" || return 1
	# shellcheck disable=SC2086
	gone_within 2 $ext
}
stale_dirs() { # IFINDEX: libxdp's pin directories of that ifindex
	find /sys/fs/bpf/xdp -maxdepth 1 -name "dispatch-$1-*" 2>/dev/null
}
tap_deleted() {
	local ifi ext
	xn attach "$BR" --mode xdp || return 1
	in_dispatcher || { echo "FAIL: not in libxdp's dispatcher"; return 1; }
	ext=$(xdpnet_progs)
	ifi=$(ip -n "$SW" -j link show xnmt1 | jq '.[0].ifindex')
	echo "xnmt1 (ifindex $ifi): $(stale_dirs "$ifi")"
	[ -n "$(stale_dirs "$ifi")" ] || { echo "FAIL: no dispatcher pinned for xnmt1"; return 1; }
	relay_stop 1
	wait_until 5 sh -c "! ip -n $SW link show xnmt1 >/dev/null 2>&1" || { echo "FAIL: xnmt1 still there"; return 1; }
	wait_until 5 sh -c "[ -z \"\$(find /sys/fs/bpf/xdp -maxdepth 1 -name 'dispatch-$ifi-*')\" ]" ||
		{ echo "FAIL: xnmt1's dispatcher still pinned 5 s after the tap went:"; stale_dirs "$ifi"; return 1; }
	echo "xnmt1's dispatcher pins removed"
	relay_start 1 --no-csum || return 1
	wait_ports_up || return 1
	xn attach "$BR" --mode xdp || return 1
	in_dispatcher || { echo "FAIL: the new xnmt1 not in a dispatcher"; return 1; }
	xn detach "$BR" || return 1
	# shellcheck disable=SC2086
	gone_within 2 $ext $(xdpnet_progs)
}
mp_up() {
	switch_up || return 1
	TOPO=tap
	relay_start 1 --no-csum && relay_start 2 --no-csum || return 1
	PORTS=(xnmt1 xnmt2)
	wait_ports_up
}
check "preflight: root, tools" sh -c '[ "$(id -u)" = 0 ] && command -v bpftool jq >/dev/null' || finish
ensure_bpffs
check "mp: topology up (2 tap stand-ins)" mp_up || finish
check "mp: attach, detach: nothing of xdpnet's loaded 2 s later" round
check "mp: again" round
check "mp: a tap deleted in a dispatcher: its pins removed, nothing left after detach" tap_deleted
finish
