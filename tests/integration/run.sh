#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet integration suite (root; `make check-integration`).
#
# Builds a bridge inside namespace xnt-sw with three stand-in VMs, first as
# veth-backed namespaces, then as taps behind build/tests/vnet_relay (virtio
# headers, GSO, partial checksums), and checks, in tc and xdp mode:
#   traffic between every pair (ping, content-checked UDP, sha256-checked
#   TCP over IPv4/IPv6), the offload matrix, that frames took the bypass
#   (xdpnet counters, and br_netfilter/iptables as an independent witness),
#   the bridge FDB keep-alive, attach/detach during a transfer, clean detach,
#   and the CLI's error exits.
#
# Output: "ok N - ..." / "not ok N - ..." per check, then "P passed, F failed".
# Options:
#   --only LIST   sections, comma separated: errors,veth,tap,clsact,rollback,
#                 stats,bpffs,semantics,crash,upgrade (default: all; "errors"
#                 runs errors.sh too)
#   --modes LIST  attach modes (default: "tc,xdp")
#   --quick       smaller transfers, fewer matrix cells
#   --no-cli      only what needs no CLI (topologies, bridge traffic, witness)
#   --core        the core, for other kernels (tests/kernels): --quick, veth
#                 and tap, pair 2->3, the offload matrix (1->2), counters,
#                 witness, detach; no errors, 4th port, keep-alive, attach or
#                 detach during a transfer, stats
#   --also FILE   source FILE after the sections: more checks (lib.sh's and
#                 this file's helpers, same numbering and summary)
#   --keep        keep the logs even when everything passed
#   -v            more detail
set -u
. "$(dirname "$0")/lib.sh"

ONLY=errors,veth,tap,clsact,rollback,stats,bpffs,semantics,crash,upgrade
MODES=tc,xdp
QUICK=0
NO_CLI=0
CORE=0
ALSO=
PAIRS="1,2 1,3 2,1 2,3 3,1 3,2"
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=$2; shift ;;
	--modes) MODES=$2; shift ;;
	--quick) QUICK=1 ;;
	--no-cli) NO_CLI=1 ;;
	--core) CORE=1 QUICK=1 ONLY=veth,tap PAIRS="2,3" ;;
	--also) ALSO=$2; shift ;;
	--keep) KEEP_LOGS=1 ;;
	-v) VERBOSE=1 ;;
	*) echo "usage: $0 [--only errors,veth,tap,clsact,rollback,stats,bpffs,semantics,crash,upgrade] [--modes tc,xdp] [--quick] [--core] [--also FILE] [--no-cli] [--keep] [-v]" >&2; exit 2 ;;
	esac
	shift
done
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
MODES=${MODES//,/ }

MB=$((1024 * 1024))
BIG=$((20 * MB))  # the byte-for-byte check between every pair
CELL=$((4 * MB))  # per offload-matrix cell
MID=$((150 * MB)) # attach/detach during this transfer...
MID_RATE=$((30 * MB)) # ...paced to last about 5 s
KA_SECS=12        # keep-alive: traffic for > 2x ageing (5 s)
if [ "$QUICK" = 1 ]; then BIG=$((4 * MB)); CELL=$((2 * MB)); MID=$((60 * MB)); MID_RATE=$((20 * MB)); fi

# A signal's trap runs inside whatever check was running, with its output
# going to that check's log: restore the real stdout/stderr first.
traps_install

START=$(date +%s)
section() { echo "# --- $* ($(($(date +%s) - START)) s)"; }

# ---------------------------------------------------------------- preflight

preflight() {
	local t st=0
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	for t in ip bridge jq ethtool iptables ip6tables nsenter unshare ping timeout "$PY"; do
		command -v "$t" >/dev/null || { echo "missing tool: $t"; st=1; }
	done
	[ -x "$RELAY" ] || { echo "missing $RELAY (make all)"; st=1; }
	return $st
}
finish() { cleanup; summary; [ "$T_FAIL" = 0 ]; exit; }
if ! check "preflight: root, tools, vnet_relay" preflight; then
	finish
fi
if ! check "preflight: no other run of this suite" take_lock; then
	finish
fi
if [ "$NO_CLI" = 0 ] && [ ! -x "$XDPNET" ]; then
	fail_now "preflight: $XDPNET built" "missing $XDPNET: run make all"
	finish
fi
remove_stale

# ---------------------------------------------------------------- errors

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

# ---------------------------------------------------------------- attach

# kernel_ge MAJOR MINOR: the running kernel is MAJOR.MINOR or newer.
kernel_ge() { [ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -ge $(($1 * 1000 + $2)) ]; }

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
			ip -n "$SW" -d link show "$p" | grep -q "prog/xdp id $xid" ||
				{ echo "FAIL: $p: kernel does not show xdp prog $xid"; ip -n "$SW" -d link show "$p"; return 1; }
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

# ---------------------------------------------------------------- traffic checks

ping_all() { # [ping args]
	local i j st=0
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		ping_check "$(g_ns $i)" "$(g_ip4 $j)" "$@" || { echo "FAIL: ping $i->$j"; st=1; }
	done; done
	return $st
}

tcp_measured() { # I J ADDR BYTES
	local rc
	m_begin "$1" "$2"
	tcp_xfer "$(g_ns "$1")" "$(g_ns "$2")" "$3" "$4"
	rc=$?
	m_end "$1" "$2"
	return $rc
}

# Every ordered pair: ping v4/v6, UDP v4/v6, TCP v4 (BIG, counters and
# witness), TCP over the ULA.
pairs_tests() { # LABEL
	local L=$1 i j p
	for p in $PAIRS; do
		IFS=, read -r i j <<<"$p"
		check "$L: ping ipv4 $i->$j" ping_check "$(g_ns $i)" "$(g_ip4 $j)"
		check "$L: ping ipv6 link-local $i->$j" ping_check "$(g_ns $i)" "$(g_ll $j)"
		check "$L: udp ipv4 $i->$j (payload digests, echoed)" \
			udp_xfer "$(g_ns $i)" "$(g_ns $j)" "$(g_ip4 $j)"
		check "$L: udp ipv6 link-local $i->$j (payload digests, echoed)" \
			udp_xfer "$(g_ns $i)" "$(g_ns $j)" "$(g_ll $j)" 40 40,200,1000,1400,1452,3000,8000
		check "$L: tcp ipv4 $((BIG / MB)) MB sha256 $i->$j" \
			tcp_measured $i $j "$(g_ip4 $j)" "$BIG"
		check "$L: tcp ipv4 $i->$j took the bypass (counters, witness)" expect_bypass
		check "$L: tcp ipv6 ULA $((CELL / MB)) MB sha256 $i->$j" \
			tcp_xfer "$(g_ns $i)" "$(g_ns $j)" "$(g_ip6 $j)" "$CELL"
	done
}

fdb_check() {
	local f=$WORK/fdb.json i mac p
	xn fdb "$BR" --json >"$f" || { cat "$f"; return 1; }
	jq -c '.entries[]' "$f"
	jq -e --arg br "$BR" '.bridge == $br' "$f" >/dev/null || return 1
	for i in 1 2 3; do
		mac=$(g_mac $i)
		p=$(g_port $i)
		jq -e --arg m "$mac" --arg p "$p" '[.entries[] | select(.mac == $m)] |
			length >= 1 and (.[0] | .port == $p and .vlan == 0 and
			(.flags - ["seeded"] == []))' "$f" >/dev/null ||
			{ echo "FAIL: $mac not on $p"; return 1; }
	done
}

# ---------------------------------------------------------------- offload matrix

set_offloads() { # NS tx tso gso
	echo "+ $1: ethtool -K eth0 tx $2 tso $3 gso $4"
	nsx "$1" ethtool -K eth0 tx "$2" tso "$3" gso "$4" 2>&1 | grep -v '^Actual changes' | sed 's/^/  /'
	nsx "$1" ethtool -k eth0 | grep -E '^(tx-checksumming|tcp-segmentation-offload|generic-segmentation-offload):'
}

cell_xfer() { # S_TX S_TSO S_GSO R_TX
	set_offloads "$(g_ns 1)" "$1" "$2" "$3"
	set_offloads "$(g_ns 2)" "$4" on on
	tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
}

# matrix LABEL CELLS...: cells are "s_tx,s_tso,s_gso,r_tx".
matrix() {
	local L=$1 c s_tx s_tso s_gso r_tx name xdp
	shift
	for c in "$@"; do
		IFS=, read -r s_tx s_tso s_gso r_tx <<<"$c"
		name="$L: offloads sender tx=$s_tx tso=$s_tso gso=$s_gso, receiver tx=$r_tx"
		check "$name: tcp $((CELL / MB)) MB sha256 1->2" cell_xfer "$s_tx" "$s_tso" "$s_gso" "$r_tx"
		xdp=
		[ "$ATTACHED_MODE" = xdp ] && [ "$TOPO" = tap ] && [ "$s_tx" = off ] && xdp=xdp
		if [ -n "$xdp" ]; then
			check "$name: took the bypass, xdp_redirect > 0" expect_bypass xdp
		else
			check "$name: took the bypass" expect_bypass
		fi
	done
	set_offloads "$(g_ns 1)" on on on >/dev/null 2>&1
	set_offloads "$(g_ns 2)" on on on >/dev/null 2>&1
}

FULL_CELLS="on,on,on,on on,on,on,off on,off,on,on on,off,on,off on,on,off,on on,off,off,off off,off,on,on off,off,on,off off,off,off,on off,off,off,off on,off,off,on on,on,off,off"
NOTSO_CELLS="on,off,on,on on,off,off,off off,off,on,on off,off,off,off"
NOCSUM_CELLS="off,off,on,off off,off,off,off"
if [ "$QUICK" = 1 ]; then
	FULL_CELLS="on,on,on,on on,off,off,off off,off,on,on off,off,off,off"
	NOTSO_CELLS="on,off,on,on off,off,on,off"
	NOCSUM_CELLS="off,off,on,off"
fi

relays_variant() { # FLAGS...
	relays_restart "$@" || return 1
	echo "+ xdpnet attach $BR --mode $ATTACHED_MODE (picks up the new taps)"
	xn attach "$BR" --mode "$ATTACHED_MODE" || return 1
	xn status "$BR" --json | jq -c '.bridges[0].ports[] | [.name, .ifindex, .xdp, .tc_prog_id, .xdp_prog_id]'
	local p ifi
	for p in "${PORTS[@]}"; do
		ifi=$(ip -n "$SW" -j link show "$p" | jq '.[0].ifindex')
		xn status "$BR" --json | jq -e --arg p "$p" --argjson ifi "$ifi" \
			'[.bridges[0].ports[] | select(.name == $p and .ifindex == $ifi and .tc_prog_id > 0)] | length == 1' >/dev/null ||
			{ echo "FAIL: $p (ifindex $ifi) not attached"; return 1; }
	done
	# The vanished taps are no longer listed.
	xn status "$BR" --json | jq -e --argjson n "${#PORTS[@]}" '.bridges[0].ports | length == $n' >/dev/null ||
		{ echo "FAIL: status lists more than the ${#PORTS[@]} live taps"; return 1; }
	ping_all
}

# ---------------------------------------------------------------- add a port

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

# ---------------------------------------------------------------- keep-alive

ka_fdb_ok() { # print missing entries; 0 when all three are dynamic on their ports
	local i mac p line st=0
	for i in 1 2 3; do
		mac=$(g_mac $i)
		p=$(g_port $i)
		line=$(bridge -n "$SW" fdb show br "$BR" | grep -i "^$mac dev $p " | grep -v -E 'permanent|static' | head -1)
		[ -n "$line" ] || { echo "missing: $mac on $p"; st=1; }
	done
	return $st
}

keepalive() { # LABEL MODE
	local L=$1 mode=$2 i j pids=() t st=0 miss=0 ref f0=$WORK/ka0.json f1=$WORK/ka1.json
	echo "+ ageing_time 500 (5 s), static neighbours in the guests (no ARP during the test)"
	ip -n "$SW" link set "$BR" type bridge ageing_time 500 || return 1
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		ip -n "$(g_ns $i)" neigh replace "$(g_ip4 $j)" lladdr "$(g_mac $j)" dev eth0 nud permanent
	done; done
	do_attach "$mode" || return 1
	ref=$(xn status "$BR" --json | jq '.bridges[0].refresh_ms')
	echo "refresh_ms=$ref"
	[ "$ref" -gt 0 ] && [ "$ref" -lt 5000 ] || { echo "FAIL: refresh_ms must be below ageing (5000 ms)"; st=1; }
	status_json "$f0"
	local w0=0 w1=0
	for i in 1 2 3; do for j in 1 2 3; do [ $i = $j ] || w0=$((w0 + $(witness "$(g_port $i)" "$(g_port $j)"))); done; done
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		ip netns exec "$(g_ns $i)" timeout $((KA_SECS + 8)) ping -q -i 0.2 -c $((KA_SECS * 5)) -w $((KA_SECS + 5)) "$(g_ip4 $j)" \
			>"$WORK/ka-ping-$i$j" 2>&1 &
		pids+=($!)
		track $!
	done; done
	for t in $(seq "$KA_SECS"); do
		sleep 1
		if [ "$t" -ge 6 ]; then
			if ! ka_fdb_ok >"$WORK/ka-miss"; then
				echo "t=${t}s: $(cat "$WORK/ka-miss")"; miss=1
			fi
		fi
	done
	for t in "${pids[@]}"; do wait "$t"; untrack "$t"; done
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		grep -E 'packets transmitted' "$WORK/ka-ping-$i$j" | sed "s/^/ping $i->$j: /"
		grep -qE ' 0% packet loss| [1-4]% packet loss' "$WORK/ka-ping-$i$j" || { echo "FAIL: ping $i->$j lost > 4%"; st=1; }
	done; done
	bridge -n "$SW" -s fdb show br "$BR" | grep -i '02:99:'
	ka_fdb_ok || miss=1
	[ "$miss" = 0 ] || { echo "FAIL: the bridge forgot a guest while the bypass carried its traffic"; st=1; }
	status_json "$f1"
	# Control: without traffic the same entries do age out within ~5 s, so
	# what kept them above was the keep-alive.
	for t in $(seq 40); do
		[ "$(bridge -n "$SW" fdb show br "$BR" | grep -ci '^02:99:.* dev xnt' )" = 0 ] && break
		sleep 0.25
	done
	echo "control: guest entries gone $((t / 4)) s after the traffic stopped"
	if [ "$t" -ge 40 ]; then
		echo "FAIL: entries still there 10 s after the traffic stopped: ageing 5 s not in effect"
		bridge -n "$SW" fdb show br "$BR"; st=1
	fi
	for i in 1 2 3; do for j in 1 2 3; do [ $i = $j ] || w1=$((w1 + $(witness "$(g_port $i)" "$(g_port $j)"))); done; done
	local p red=0 refr mc
	for p in "${PORTS[@]}"; do
		refr=$(($(ctr "$f1" "$p" pass_refresh) - $(ctr "$f0" "$p" pass_refresh)))
		mc=$(($(ctr "$f1" "$p" pass_mcast) - $(ctr "$f0" "$p" pass_mcast)))
		red=$((red + $(ctr "$f1" "$p" tc_redirect) - $(ctr "$f0" "$p" tc_redirect) +
			$(ctr "$f1" "$p" xdp_redirect) - $(ctr "$f0" "$p" xdp_redirect)))
		echo "$p: pass_refresh +$refr (keep-alive frames), pass_mcast +$mc (multicast the bridge saw)"
		[ "$refr" -gt 0 ] || { echo "FAIL: $p: no keep-alive frame"; st=1; }
	done
	echo "redirected $red frames; bridge (witness) forwarded $((w1 - w0))"
	[ "$red" -ge $((KA_SECS * 5 * 6 * 2 * 8 / 10)) ] || { echo "FAIL: too few redirects"; st=1; }
	[ $((w1 - w0)) -le $((red / 10)) ] || { echo "FAIL: the bridge carried too much"; st=1; }
	return $st
}

keepalive_restore() {
	local i
	do_detach >/dev/null
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	for i in 1 2 3; do ip -n "$(g_ns $i)" neigh flush dev eth0 nud permanent; done
	return 0
}

# ---------------------------------------------------------------- during a transfer

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

# ---------------------------------------------------------------- a topology

section_topology() { # veth|tap
	local T=$1 mode L ids
	section "$T topology"
	if ! check "$T: topology up (switch $SW, bridge $BR, 3 stand-ins)" topo_up "$T"; then
		topo_down
		return
	fi
	check "$T: topology as expected" topo_check
	check "$T bridge: ping ipv4 all pairs" ping_all
	check "$T bridge: tcp ipv4 $((BIG / MB)) MB sha256 1->2" tcp_measured 1 2 "$(g_ip4 2)" "$BIG"
	check "$T bridge: witness sees the bridge forward it all (>= 90%)" expect_bridged
	check "$T bridge: udp ipv6 ULA 2->3" udp_xfer "$(g_ns 2)" "$(g_ns 3)" "$(g_ip6 3)"
	[ "$NO_CLI" = 1 ] && { topo_down; return; }

	for mode in $MODES; do
		L="$T $mode"
		section "$L"
		if ! check "$L: attach" do_attach "$mode"; then
			continue
		fi
		check "$L: status --json describes the attachment" status_check "$mode"
		check "$L: attach again changes nothing and says so" attach_again "$mode"
		pairs_tests "$L"
		check "$L: fdb --json maps each guest to its port" fdb_check
		if [ "$T" = veth ]; then
			matrix "$L" $FULL_CELLS
		else
			matrix "$L [virtio csum+tso]" $FULL_CELLS
			if check "$L: relays restarted --no-tso, attach picks up the new taps" relays_variant --no-tso; then
				matrix "$L [virtio --no-tso]" $NOTSO_CELLS
			fi
			if check "$L: relays restarted --no-csum, attach picks up the new taps" relays_variant --no-csum; then
				matrix "$L [virtio --no-csum]" $NOCSUM_CELLS
			fi
			check "$L: relays restarted with full offloads" relays_variant
		fi
		[ "$T" = veth ] && [ "$mode" = tc ] && [ "$CORE" = 0 ] && add_port_test "$L"
		ids=$(prog_ids)
		check "$L: detach" do_detach
		check "$L: detach left nothing (pins, XDP, tc, programs $(echo $ids))" nothing_left $ids
		check "$L: after detach: ping ipv4 all pairs" ping_all
		check "$L: after detach: tcp ipv4 $((CELL / MB)) MB sha256 1->2" tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
		check "$L: after detach: witness sees the bridge forward it all again" expect_bridged
		[ -e /run/netns/xnt-v4 ] && remove_4th
	done

	for mode in $MODES; do
		[ "$CORE" = 1 ] && break
		L="$T $mode"
		section "$L keep-alive"
		check "$L keep-alive: bridge FDB keeps the guests through ${KA_SECS} s of bypassed traffic (ageing 5 s)" \
			keepalive "$L" "$mode"
		keepalive_restore

		section "$L during a transfer"
		check "$L: attach during a $((MID / MB)) MB transfer" mid_xfer attach "$mode"
		check "$L: transfer across the attach intact (sha256)" mid_result
		check "$L: detach during a $((MID / MB)) MB transfer" mid_xfer detach "$mode"
		check "$L: transfer across the detach intact (sha256)" mid_result
		[ -n "$ATTACHED_MODE" ] && do_detach >/dev/null
	done
	topo_down
}

want errors && [ "$NO_CLI" = 0 ] && section_errors
want veth && section_topology veth
want tap && section_topology tap
. "$HERE/fallback.sh" # section_clsact, section_rollback
want clsact && [ "$NO_CLI" = 0 ] && section_clsact
want rollback && [ "$NO_CLI" = 0 ] && section_rollback
# Files of their own (own namespaces), their counts folded in: stats/exporter/
# latency probe, bpffs on a bare host, the bridge's rules tried by a VM, bad
# input, crash safety, upgrades.
sub_suite() { # NAME: tests/integration/NAME.sh
	local r
	section "$1.sh"
	"$HERE/$1.sh" 2>&1 | tee "$WORK/$1.out" | sed "s/^/# $1.sh: /"
	[[ $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$WORK/$1.out" | tail -n 1) =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] && r=("${BASH_REMATCH[@]}") || r=(x 0 1)
	T_PASS=$((T_PASS + r[1])); T_FAIL=$((T_FAIL + r[2]))
	[ "${r[2]}" = 0 ] || FAILED+=("$1.sh: ${r[2]} failed (see above)")
}
for s in stats bpffs semantics errors crash upgrade; do
	want $s && [ "$NO_CLI" = 0 ] && sub_suite $s
done

if [ -n "$ALSO" ]; then . "$ALSO"; fi

section done
finish
