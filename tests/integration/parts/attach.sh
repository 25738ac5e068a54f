# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): attach, detach and what they must leave
# behind: the TC hook this kernel gets, status --json, a second attach, the
# program ids of an attachment, and nothing left after detach.


# The TC hook the README promises on this kernel: tcx from Linux 6.6,
# clsact before (and where XDPNET_TC_HOOK=clsact asks for it).
expect_hook() {
	[ "${XDPNET_TC_HOOK:-}" = clsact ] && { echo clsact; return; }
	kernel_ge 6 6 && echo tcx || echo clsact
}

# status_check MODE: status --json describes this attachment.
status_check() {
	local mode=$1 f=$WORK/st.json p kind brif hook
	xn status "$BR" --json >"$f" || { cat "$f"; return 1; }
	jq . "$f"
	brif=$(ip -n "$SW" -j link show "$BR" | jq '.[0].ifindex')
	jq -e --arg br "$BR" --arg mode "$mode" --argjson brif "$brif" '
		(.bridges | length) == 1 and .bridges[0].bridge == $br and
		.bridges[0].ifindex == $brif and .bridges[0].mode == $mode and
		.bridges[0].vlan_filtering == false and .bridges[0].refresh_ms > 0' "$f" >/dev/null ||
		{ echo "FAIL: bridge fields"; return 1; }
	[ "$TOPO" = veth ] && kind=veth || kind=tap
	hook=$(expect_hook)
	echo "expected hook on Linux $(uname -r): $hook"
	for p in "${PORTS[@]}"; do
		local ifi
		ifi=$(ip -n "$SW" -j link show "$p" | jq '.[0].ifindex')
		jq -e --arg p "$p" --arg kind "$kind" --argjson ifi "$ifi" --arg hook "$hook" '
			[.bridges[0].ports[] | select(.name == $p)] | length == 1 and
			(.[0] | .ifindex == $ifi and .kind == $kind and .hook == $hook and
			 .tc_prog_id > 0 and (.counters | has("tc_redirect") and
			 has("xdp_redirect") and has("rx_redirected") and has("pass_mcast") and
			 has("pass_refresh") and has("xdp_defer_csum") and has("drop_xmit_err")))' \
			"$f" >/dev/null || { echo "FAIL: port $p"; return 1; }
		if [ "$mode" = tc ]; then
			jq -e --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | .xdp == false' "$f" >/dev/null ||
				{ echo "FAIL: $p: xdp should be false in tc mode"; return 1; }
		elif [ "$kind" = tap ]; then
			local xid
			xid=$(jq --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | if .xdp then .xdp_prog_id else 0 end' "$f")
			[ "$xid" -gt 0 ] || { echo "FAIL: $p: no XDP stage on a tap in xdp mode"; return 1; }
			if [ "$(jq -r --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | .xdp_via' "$f")" = dispatcher ]; then
				# In libxdp's dispatcher: the kernel shows the
				# dispatcher, libxdp our program in it.
				nsenter --net="/run/netns/$SW" xdp-loader status "$p" | grep -qE "xdpnet_xdp(_mp)? +$xid " ||
					{ echo "FAIL: $p: libxdp does not list xdp prog $xid"; nsenter --net="/run/netns/$SW" xdp-loader status "$p"; return 1; }
			else
				ip -n "$SW" -d link show "$p" | grep -q "prog/xdp id $xid" ||
					{ echo "FAIL: $p: kernel does not show xdp prog $xid"; ip -n "$SW" -d link show "$p"; return 1; }
			fi
		fi
	done
	# Nothing beyond our ports.
	jq -e --argjson n "${#PORTS[@]}" '.bridges[0].ports | length == $n' "$f" >/dev/null ||
		{ echo "FAIL: port count != ${#PORTS[@]}"; return 1; }
}

attach_again() {
	local mode=$1 before after out rc
	before=$(xn status "$BR" --json | jq -c '[.bridges[0].mode, (.bridges[0].ports[] | [.name, .ifindex, .tc_prog_id, .xdp_prog_id])]')
	echo "+ xdpnet attach $BR --mode $mode (again)"
	out=$(xn attach "$BR" --mode "$mode" 2>&1)
	rc=$?
	echo "$out"
	echo "exit $rc"
	after=$(xn status "$BR" --json | jq -c '[.bridges[0].mode, (.bridges[0].ports[] | [.name, .ifindex, .tc_prog_id, .xdp_prog_id])]')
	echo "before: $before"
	echo "after:  $after"
	[ "$rc" = 0 ] || return 1
	[ "$before" = "$after" ] || { echo "FAIL: state changed"; return 1; }
	# v2 says it as a summary: "synced BR (...): N ports carried, ... +0 -0 ~0".
	echo "$out" | grep -Eqi 'nothing|unchanged|already|no change|\+0 -0 ~0$' ||
		{ echo "FAIL: does not say that nothing changed"; return 1; }
}

do_attach() { # MODE [ARGS...]
	echo "+ xdpnet attach $BR --mode $*"
	xn attach "$BR" --mode "$@"
	local rc=$?
	echo "exit $rc"
	[ "$rc" = 0 ] && ATTACHED_MODE=$1
	[ "$rc" = 0 ] && [ -d "$PIN" ] && ls -la "$PIN"
}

# Program ids of the current attachment (to prove they are gone later).
prog_ids() {
	xn status "$BR" --json 2>/dev/null |
		jq -r '.bridges[0].ports[] | .tc_prog_id, .xdp_prog_id | select(. != null and . > 0)' | sort -u
}

do_detach() {
	echo "+ xdpnet detach $BR"
	xn detach "$BR"
	local rc=$?
	echo "exit $rc"
	[ "$rc" = 0 ] && ATTACHED_MODE=
	[ "$rc" = 0 ]
}

nothing_left() { # PROG_IDS...
	local p id st=0 i
	nsx "$SW" bpftool net show
	if nsx "$SW" bpftool net show -j | jq -e '.[0].xdp != [] or .[0].tc != []' >/dev/null; then
		echo "FAIL: bpftool net shows XDP or tc programs"; st=1
	fi
	for p in "${PORTS[@]}"; do
		if ip -n "$SW" -d link show "$p" | grep -q 'prog/xdp'; then
			echo "FAIL: $p still has an XDP program"; st=1
		fi
		if [ -n "$(nsx "$SW" tc filter show dev "$p" ingress)" ]; then
			echo "FAIL: $p has tc filters"; st=1
		fi
	done
	# tcx links are not listed by bpftool 7.1: the programs must be gone.
	for id in "$@"; do
		for i in $(seq 20); do
			bpftool prog show id "$id" >/dev/null 2>&1 || break
			sleep 0.1
		done
		if bpftool prog show id "$id" >/dev/null 2>&1; then
			echo "FAIL: program $id still loaded:"; bpftool prog show id "$id"; st=1
		fi
	done
	if [ -e "$PIN" ]; then echo "FAIL: $PIN still exists"; ls -R "$PIN"; st=1; fi
	if p=$(follower_pid); then echo "FAIL: the follower (pid $p) still runs"; st=1; fi
	return $st
}
