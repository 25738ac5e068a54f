#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet trace, end to end (root; issue 15 part 2). A bridge xnybr0 in
# namespace xny-sw with three veth stand-ins (xny-v1..3, ports xnyv1..3:
# the TC stage), two tap stand-ins behind vnet_relay (xny-t1/2, ports
# xnyt1/2: the XDP stage) and a VXLAN port xnyx0 that xdpnet does not
# carry, attached in xdp mode. Checks:
#   - for each verdict a real bridge can produce here, set up on the real
#     bridge (port state, isolation, MTU, hub mode, a host address, a MAC
#     behind the VXLAN port, ...): trace names a verdict, then three real frames
#     of that description cross the bridge, and the counters that moved on
#     the ingress port are exactly those trace named (the XDP stage's own
#     reason, and the final one), the target's rx_redirected too. Each row
#     also names the verdict it sets out to reach, so that a setup that
#     goes wrong shows. (Every verdict row of tests/bpf, the ones a real
#     bridge cannot show here among them, is checked there: the trace
#     programs' verdict against the programs' counted one, and no map
#     changed.)
#   - --pcap: the bytes a stand-in sent (its own tcpdump, pcap) and a frame
#     of "xdpnet dump" (pcapng, --in from its interface) trace the same;
#   - trace changes nothing: 40 traces of two flows, and the counters and the
#     FDB are what they were; the flow's frames are bypassed as before;
#   - refusals, one line and the README's exit code each.
# Output: "ok N - ...", then "P passed, F failed". Options: --keep, -v.
set -u
. "$(dirname "$0")/lib.sh"

SW=xny-sw
BR=xnybr0
# shellcheck disable=SC2034 # lib.sh's: stand-ins' prefix, our pins
XNP=xny PIN=$PIN_ROOT/$BR
# shellcheck disable=SC2034 # take_lock's (lib.sh)
LOCK=/run/lock/xny-trace.pid
FR=$ROOT/build/tests/xnt_frames
N=3
M_V1=02:99:01:00:00:01 M_V2=02:99:01:00:00:02 M_V3=02:99:01:00:00:03
M_T1=02:99:02:00:00:01 M_T2=02:99:02:00:00:02
M_NEW=02:99:0a:0a:0a:0a     # known nowhere
M_HP=02:99:0b:0b:0b:0b      # learned behind xnyv1 (a second MAC of v1)
M_VXLAN=02:99:0d:0d:0d:0d   # static behind the VXLAN port port
parse_args "[--keep] [-v]" "$@"
traps_install

t_up() {
	local i
	remove_stale
	switch_up || return 1
	TOPO=veth
	for i in 1 2 3; do veth_guest_add "$i" || return 1; done
	TOPO=tap
	for i in 1 2; do relay_start "$i" --no-csum || return 1; done
	ip -n "$SW" link add xnyx0 type vxlan id 7 dstport 4789 || return 1
	ip -n "$SW" link set xnyx0 master "$BR" up || return 1
	bridge -n "$SW" fdb add "$M_VXLAN" dev xnyx0 master static || return 1
	# shellcheck disable=SC2034 # wait_ports_up's (lib.sh)
	PORTS=(xnyv1 xnyv2 xnyv3 xnyt1 xnyt2)
	wait_ports_up || return 1
	# The bridge learns every stand-in, and v1's second MAC.
	for i in 1 2 3; do send "$XNP-v$i" "02:99:01:00:00:0$i" ff:ff:ff:ff:ff:ff 1 || return 1; done
	for i in 1 2; do send "$XNP-t$i" "02:99:02:00:00:0$i" ff:ff:ff:ff:ff:ff 1 || return 1; done
	send "$XNP-v1" "$M_HP" ff:ff:ff:ff:ff:ff 1
}

# send NS SRC DST N [xnt_frames args]: N frames from a stand-in's eth0.
send() {
	local ns=$1 src=$2 dst=$3 n=$4
	shift 4
	nsx "$ns" "$FR" send eth0 --src "$src" --dst "$dst" --count "$n" "$@" >/dev/null
}

# trace_fails WANT_RC ARGS...: one line on stderr, exit WANT_RC.
trace_fails() {
	local want=$1 rc lines
	shift
	xn trace "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
	rc=$?
	lines=$(wc -l <"$WORK/err")
	echo "xdpnet trace $*: exit $rc, stderr: $(cat "$WORK/err")"
	[ "$rc" = "$want" ] && [ "$lines" = 1 ] && ! [ -s "$WORK/out" ]
}

# The final verdict trace names (ARGS: trace's), "" on an error.
final() { xn trace "$BR" "$@" -j 2>/dev/null | jq -r .verdict; }
final_is() { # WANT ARGS...
	local want=$1
	shift
	[ "$(final "$@")" = "$want" ]
}

# The source's keep-alive: at most one frame a second per source goes to
# the bridge (pass_refresh); trace names the flow's verdict all the same
# (and this frame's apart: keepalive_row). fresh_trace NS PORT SRC DST
# WANT OUT [ARGS]: trace's JSON into OUT.
fresh_trace() {
	local port=$2 src=$3 dst=$4 out=$6
	shift 6
	xn trace "$BR" --in "$port" --src "$src" --dst "$dst" "$@" -j >"$out" 2>/dev/null
}
fresh_final_is() { # WANT NS PORT SRC DST [ARGS]
	local want=$1 ns=$2 port=$3 src=$4 dst=$5
	shift 5
	fresh_trace "$ns" "$port" "$src" "$dst" "$want" "$WORK/final.json" "$@" &&
		[ "$(jq -r .verdict "$WORK/final.json")" = "$want" ]
}

# row NAME WANT IN_NS IN_PORT SRC DST [--len L]: trace the frame, then
# send N of it for real; the counters that moved must be trace's, but
# for one keep-alive frame at most (a second may pass meanwhile).
row() {
	local name=$1 want=$2 ns=$3 port=$4 src=$5 dst=$6
	shift 6
	local tj=$WORK/$name.trace.json s0=$WORK/$name.s0 s1=$WORK/$name.s1
	local counted target c d deltas bad cs ka=0 n
	# poll: the follower may still be applying the setup
	wait_until 10 fresh_final_is "$want" "$ns" "$port" "$src" "$dst" "$@" ||
		echo "trace still says $(jq -r .verdict "$WORK/final.json"), want $want"
	xn trace "$BR" --in "$port" --src "$src" --dst "$dst" "$@"
	wait_until 10 fresh_trace "$ns" "$port" "$src" "$dst" "$want" "$tj" "$@" || return 1
	# what the flow's frames count: the XDP stage its own reasons, the
	# TC stage (where they reach it) the final verdict
	counted=$(jq -r '.stages[] | select(.flow) | select(.stage == "tc" or (.verdict | startswith("xdp_"))) | .verdict' "$tj" | sort)
	target=$(jq -r '.target // empty' "$tj")
	status_json "$s0" || return 1
	send "$ns" "$src" "$dst" "$N" "$@" || return 1
	# the counters move as the frames cross: poll for the last one
	wait_until 10 counted_at_least "$s0" "$s1" "$port" "$N" "$(echo "$counted" | tail -1)" pass_refresh ||
		echo "$(echo "$counted" | tail -1) and pass_refresh did not reach +$N"
	status_json "$s1" || return 1
	mapfile -t cs < <(jq -r --arg p "$port" '.bridges[0].ports[] | select(.name == $p) | .counters | keys[]' "$s1")
	deltas=$(ctr_deltas "$s0" "$s1" "$port" "${cs[@]}")
	echo "trace: $(echo "$counted" | tr '\n' ' ')target ${target:-none}; counted on $port: $(echo "$deltas" | grep -v '=0$' | tr '\n' ' ')"
	bad=0
	if ! echo "$counted" | grep -qx pass_refresh; then
		ka=$(echo "$deltas" | sed -n "s/^pass_refresh=//p")
		[ "${ka:-0}" -le 1 ] || { echo "$ka keep-alive frames of $N"; bad=1; }
	fi
	n=$((N - ${ka:-0}))
	for c in "${cs[@]}"; do
		d=$(echo "$deltas" | sed -n "s/^$c=//p")
		if echo "$counted" | grep -qx "$c"; then
			# background multicast (MLD, ND) adds to pass_mcast only
			if [ "$c" = pass_mcast ]; then [ "$d" -ge "$n" ] || bad=1; else [ "$d" = "$n" ] || bad=1; fi
		elif [ "$c" = pass_refresh ]; then
			[ "$d" = "${ka:-0}" ] || bad=1
		elif [ "$c" = xdp_defer_refresh ]; then
			# where the XDP stage saw it first
			[ "$d" = 0 ] || [ "$d" = "${ka:-0}" ] || bad=1
		elif [ "$c" != pass_mcast ] && [ "$c" != rx_redirected ] && [ "$d" != 0 ]; then
			bad=1
		fi
	done
	if [ -n "$target" ]; then
		d=$(ctr_deltas "$s0" "$s1" "$target" rx_redirected | sed 's/.*=//')
		[ "$d" = "$n" ] || { echo "rx_redirected on $target: +$d, want +$n"; bad=1; }
	fi
	[ "$bad" = 0 ] || { echo "the frames counted otherwise than trace said"; return 1; }
	# the row reached what it set out to
	expect_eq "$name: final verdict" "$(jq -r .verdict "$tj")" "$want"
}

# counted_at_least S0 S1 PORT N CTR...: re-read S1 until the CTRs moved
# by N together (a counter named twice counts once).
counted_at_least() {
	local s0=$1 s1=$2 port=$3 n=$4
	shift 4
	status_json "$s1" || return 1
	[ "$(ctr_sum "$s0" "$s1" "$port" $(printf '%s\n' "$@" | sort -u))" -ge "$n" ]
}

br_mac() { ip -n "$SW" link show "$BR" | awk '/link\/ether/ { print $2 }'; }

# ------------------------------------------------------------------ rows
tc_rows() {
	row tc_redirect tc_redirect "$XNP-v1" xnyv1 "$M_V1" "$M_V2" &&
		row pass_mcast pass_mcast "$XNP-v1" xnyv1 "$M_V1" ff:ff:ff:ff:ff:ff &&
		row pass_unknown pass_unknown "$XNP-v1" xnyv1 "$M_V1" 02:99:09:09:09:09 &&
		row pass_local pass_local "$XNP-v1" xnyv1 "$M_V1" "$(br_mac)" &&
		row pass_hairpin pass_hairpin "$XNP-v1" xnyv1 "$M_V1" "$M_HP" &&
		row pass_not_attached pass_not_attached "$XNP-v1" xnyv1 "$M_V1" "$M_VXLAN" &&
		# the first frame teaches the bridge the source: one frame
		N=1 row pass_src pass_src "$XNP-v1" xnyv1 "$M_NEW" "$M_V2"
}
# Listening (1): with STP off the kernel keeps it for the forward delay
# (blocking it does not keep at all: semantics.sh).
state_row() {
	ip -n "$SW" link set "$BR" type bridge forward_delay 6000 &&
		bridge -n "$SW" link set dev xnyv2 state 1 || return 1
	row pass_state pass_state "$XNP-v1" xnyv1 "$M_V1" "$M_V2"
	local rc=$?
	bridge -n "$SW" link set dev xnyv2 state 3
	ip -n "$SW" link set "$BR" type bridge forward_delay 1500
	return $rc
}
isolated_row() {
	bridge -n "$SW" link set dev xnyv1 isolated on &&
		bridge -n "$SW" link set dev xnyv2 isolated on || return 1
	row pass_isolated pass_isolated "$XNP-v1" xnyv1 "$M_V1" "$M_V2"
	local rc=$?
	bridge -n "$SW" link set dev xnyv1 isolated off
	bridge -n "$SW" link set dev xnyv2 isolated off
	return $rc
}
mtu_row() {
	ip -n "$SW" link set xnyv3 mtu 1280 || return 1
	row pass_mtu pass_mtu "$XNP-v1" xnyv1 "$M_V1" "$M_V3" --len 1400
	local rc=$?
	ip -n "$SW" link set xnyv3 mtu 1500
	return $rc
}
xdp_rows() {
	row xdp_redirect xdp_redirect "$XNP-t1" xnyt1 "$M_T1" "$M_T2" &&
		# a veth takes no XDP frames: the XDP stage defers, TC redirects
		row xdp_defer_target tc_redirect "$XNP-t1" xnyt1 "$M_T1" "$M_V2" || return 1
	ip -n "$SW" link set xnyt2 mtu 1280 || return 1
	row xdp_defer_size pass_mtu "$XNP-t1" xnyt1 "$M_T1" "$M_T2" --len 1400
	local rc=$?
	ip -n "$SW" link set xnyt2 mtu 1500
	return $rc
}
# Last: hub mode ages every entry out.
hub_row() {
	ip -n "$SW" link set "$BR" type bridge ageing_time 0 || return 1
	N=1 row pass_hub pass_hub "$XNP-v1" xnyv1 "$M_V1" "$M_V2"
	local rc=$?
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	return $rc
}
vlan_probe() {
	ip -n "$SW" link add xnyvf0 type bridge vlan_filtering 1 2>"$WORK/vf.err" || return 1
	ip -n "$SW" link del xnyvf0
}

# A bypassed flow idle past its keep-alive interval (at most a second):
# trace gives the flow's verdict (tc_redirect to xnyv2) and says apart
# that this frame is its source's keep-alive (pass_refresh, to the
# bridge); two real frames back to back then count one of each.
ka_due() {
	xn trace "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" -j >"$WORK/ka.json" 2>/dev/null &&
		[ "$(jq -r .keepalive_due "$WORK/ka.json")" = true ]
}
keepalive_row() {
	local st=0 s0=$WORK/ka.s0 s1=$WORK/ka.s1
	wait_until 5 ka_due || { echo "FAIL: trace never said the keep-alive is due"; return 1; }
	jq -c . "$WORK/ka.json"
	expect_eq "the flow's verdict" "$(jq -r '[.path, .verdict, .target] | join(" ")' "$WORK/ka.json")" "tc tc_redirect xnyv2" || st=1
	expect_eq "this frame" "$(jq -r '[.frame_path, .frame_verdict] | join(" ")' "$WORK/ka.json")" "bridge pass_refresh" || st=1
	expect_eq "the tc stage" "$(jq -r '.stages[-1] | [.verdict, .frame_verdict, (.checks[] | select(.check == "keepalive") | .result)] | join(" ")' "$WORK/ka.json")" \
		"tc_redirect pass_refresh due" || st=1
	xn trace "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" >"$WORK/ka.txt" || st=1
	cat "$WORK/ka.txt"
	grep -q '^verdict: bypassed by the tc stage to xnyv2, counted as tc_redirect on xnyv1$' "$WORK/ka.txt" ||
		{ echo "FAIL: the text's verdict is not the flow's"; st=1; }
	grep -q "^this frame: its source's keep-alive .*: to the bridge, counted as pass_refresh on xnyv1$" "$WORK/ka.txt" ||
		{ echo "FAIL: the text does not say this frame is the keep-alive"; st=1; }
	grep -Eq "^  due +keepalive +the source's entry is due a keep-alive frame" "$WORK/ka.txt" ||
		{ echo "FAIL: the keepalive check is not shown as due"; st=1; }
	status_json "$s0" || return 1
	send "$XNP-v1" "$M_V1" "$M_V2" 2 || return 1
	wait_until 5 counted_at_least "$s0" "$s1" xnyv1 2 pass_refresh tc_redirect ||
		{ echo "FAIL: the two real frames were not counted"; st=1; }
	expect_eq "the first real frame: the keep-alive" "$(ctr_deltas "$s0" "$s1" xnyv1 pass_refresh)" pass_refresh=1 || st=1
	expect_eq "the second: bypassed" "$(ctr_deltas "$s0" "$s1" xnyv1 tc_redirect)" tc_redirect=1 || st=1
	return $st
}

# A failed check prints the condition that failed (and the finding).
fail_text() {
	xn trace "$BR" --in xnyv1 --src "$M_V1" --dst 02:99:09:09:09:09 >"$WORK/ft.txt" || return 1
	cat "$WORK/ft.txt"
	grep -Eq '^  no +dst_known +destination not in the FDB \(the bridge floods it\)$' "$WORK/ft.txt" &&
		[ "$(xn trace "$BR" --in xnyv1 --src "$M_V1" --dst 02:99:09:09:09:09 -j |
			jq -r '.stages[-1].checks[] | select(.result == "no") | .condition')" = "destination not in the FDB" ]
}

# ------------------------------------------------------------------ pcap
pcap_stand_in() {
	local f=$WORK/v1.pcap a b
	: >"$f.log"
	nsx "$XNP-v1" tcpdump -Z root -i eth0 -nn -U -c 1 -w "$f" "ether src $M_V1 and ether dst $M_V2" 2>"$f.log" &
	local pid=$!
	track "$pid"
	wait_until 10 grep -q "listening on" "$f.log" || return 1
	send "$XNP-v1" "$M_V1" "$M_V2" 1 --len 200 || return 1
	wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" || { stop_pid "$pid"; return 1; }
	untrack "$pid"
	wait_until 10 pcap_stand_in_traces "$f"
}
pcap_stand_in_traces() { # FILE
	local a b
	a=$(xn trace "$BR" --in xnyv1 --pcap "$1" -j | jq -c '[.verdict, .target, .frame.len]')
	b=$(xn trace "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" --len 200 -j | jq -c '[.verdict, .target, .frame.len]')
	echo "from the capture: $a; from fields: $b"
	[ "$a" = '["tc_redirect","xnyv2",200]' ] && [ "$a" = "$b" ]
}
dump_took_one() {
	kill -0 "$DUMP_PID" 2>/dev/null || return 0
	send "$XNP-v1" "$M_V1" "$M_V2" 1 >/dev/null
	! kill -0 "$DUMP_PID" 2>/dev/null
}
pcap_dump() {
	pcap_dump_one in && pcap_dump_one out --port xnyv2
}
# pcap_dump_one NAME [--port xnyv2]: a dump of one TC frame xnyv1 ->
# xnyv2, inbound on xnyv1, or (--port xnyv2) outbound on xnyv2 with a
# comment that says from=xnyv1: trace takes the port from the file.
pcap_dump_one() {
	local f=$WORK/d-$1.pcapng pid
	shift
	nsenter --net="/run/netns/$SW" "$XDPNET" dump "$BR" --path tc -c 1 "$@" -w "$f" 2>"$f.err" &
	pid=$!
	track "$pid"
	wait_until 10 is_on || { echo "FAIL: the dump did not switch on"; cat "$f.err"; return 1; }
	# A frame a second of the flow is its keep-alive and takes the bridge
	# (--path tc leaves it out): send until the dump has its frame.
	DUMP_PID=$pid
	wait_until 10 dump_took_one ||
		{ echo "FAIL: the dump recorded no TC frame in 10 s"; cat "$f.err"; stop_pid "$pid"; return 1; }
	wait "$pid"
	untrack "$pid"
	tcpdump -r "$f" -nn -e 2>/dev/null
	wait_until 10 pcap_dump_trace "$f" 1 || return 1
	trace_fails 2 "$BR" --pcap "$f" --frame 2
}
pcap_dump_trace() { # FILE N
	local a
	a=$(xn trace "$BR" --pcap "$1" --frame "$2" -j | jq -c '[.in, .verdict, .target]')
	echo "frame $2 of the dump: $a"
	[ "$a" = '["xnyv1","tc_redirect","xnyv2"]' ]
}

# ------------------------------------------------------- changes nothing
snapshot() { # DIR
	mkdir -p "$1"
	xn status "$BR" --json | jq -S '[.bridges[0].ports[] | {name, counters}]' >"$1/counters" &&
		xn fdb "$BR" --json | jq -S '[.. | objects | select(has("mac")) | del(.age_ms)]' >"$1/fdb"
}
no_change() {
	local i
	snapshot "$WORK/nc0" || return 1
	for i in $(seq 20); do
		xn trace "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" >/dev/null || return 1
		xn trace "$BR" --in xnyt1 --src "$M_T1" --dst "$M_T2" >/dev/null || return 1
	done
	snapshot "$WORK/nc1" || return 1
	diff "$WORK/nc0/counters" "$WORK/nc1/counters" && diff "$WORK/nc0/fdb" "$WORK/nc1/fdb" || return 1
	echo "counters and FDB unchanged after 40 traces ($(jq length "$WORK/nc1/fdb") FDB entries)"
	# and the flow is bypassed as before
	row after_traces tc_redirect "$XNP-v1" xnyv1 "$M_V1" "$M_V2"
}

# -------------------------------------------------------------- refusals
refusals() {
	trace_fails 3 nobr0 --in xnyv1 --src "$M_V1" --dst "$M_V2" &&
		trace_fails 7 "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2"
}
refusals_attached() {
	printf 'not a capture\n' >"$WORK/garbage"
	trace_fails 2 "$BR" --in lo --src "$M_V1" --dst "$M_V2" &&
		trace_fails 2 "$BR" --in xnynone --src "$M_V1" --dst "$M_V2" &&
		trace_fails 2 "$BR" --in xnyv1 --src 02:99:zz:00:00:01 --dst "$M_V2" &&
		trace_fails 2 "$BR" --in xnyv1 --src "$M_V1" &&
		trace_fails 2 "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" --len 10 &&
		trace_fails 2 "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" --tcp --len 40 &&
		trace_fails 2 "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" --tcp --udp &&
		trace_fails 2 "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" --vlan 4095 &&
		trace_fails 2 "$BR" --in xnyv1 --src "$M_V1" --dst "$M_V2" --ip6 --saddr 10.0.0.1 &&
		trace_fails 2 "$BR" --in xnyv1 --pcap "$WORK/garbage" &&
		trace_fails 2 "$BR" --in xnyv1 --pcap "$WORK/nonexistent.pcap" &&
		trace_fails 2 "$BR" --in xnyv1 --pcap "$WORK/v1.pcap" --src "$M_V1" &&
		trace_fails 2 "$BR" --in xnyv1 --pcap "$WORK/v1.pcap" --frame 2
}

check "preflight: root, tools, built CLI" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$XDPNET"'" ] && [ -x "'"$FR"'" ] &&
	command -v tcpdump bpftool jq >/dev/null' || finish
check "preflight: no other trace.sh" take_lock || finish
check "trace: topology up (3 veth, 2 tap stand-ins, a VXLAN port)" t_up || finish
check "trace: refuses a missing bridge (3) and one not attached (7), one line" refusals
check "trace: attach --mode xdp" xn attach "$BR" --mode xdp || finish
check "trace: TC stage: each verdict trace names is the one counted" tc_rows
check "trace: a flow due its keep-alive: the flow's verdict (tc_redirect), and this frame the keep-alive (pass_refresh)" keepalive_row
check "trace: a failed check prints the failed condition" fail_text
check "trace: an egress port listening: pass_state, as counted" state_row
check "trace: an isolated pair: pass_isolated, as counted" isolated_row
check "trace: over the egress MTU: pass_mtu, as counted" mtu_row
check "trace: XDP stage between taps: xdp_redirect, xdp_defer_target, xdp_defer_size, as counted" xdp_rows
check "trace: --pcap: the stand-in's own capture traces as its fields" pcap_stand_in
check "trace: --pcap of a dump: --in from the pcapng, for an inbound frame and (dump --port) an outbound one" pcap_dump
check "trace: 40 traces change no counter and no FDB entry" no_change
check "trace: refuses bad ports, frames and captures (2), one line" refusals_attached
check "trace: hub mode (ageing_time 0): pass_hub, as counted" hub_row
if vlan_probe; then
	note "VLAN filtering rows: tests/bpf's (pass_vlan by the programs' test run)"
else
	note "skip pass_vlan on a real bridge: the kernel lacks bridge VLAN filtering ($(head -1 "$WORK/vf.err"))"
fi
check "trace: detach" xn detach "$BR"
finish
