#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet dump, end to end (root; issue 15 part 1). A bridge xnzbr0 in
# namespace xnz-sw with two veth stand-ins (xnz-v1/2, ports xnzv1/2: the TC
# stage) and two tap stand-ins behind vnet_relay (xnz-t1/2, ports xnzt1/2:
# the XDP stage), attached in xdp mode. Checks:
#   - refusals, one line and the README's exit code each: a missing bridge,
#     a bridge not attached, a port not on the bridge, a bad --path or
#     --snaplen, a second dump of the same bridge while one runs;
#   - tcpdump and tshark read what dump writes; the TC path (no --port):
#     each frame once, inbound on the port it came from; the XDP path
#     with --port the receiver: outbound on it; either with its path and
#     verdict in the comment, byte for byte what the receiving stand-in
#     got (its own tcpdump);
#   - --path bridge (broadcast ARP: pass_mcast), --port, -c, --snaplen;
#   - the dump changes nothing for the frames: every ping is answered and
#     the datapath's counters count them as without a dump; a full ring
#     (the reader stopped with SIGSTOP) loses records, never frames, and
#     the dump says how many;
#   - the switch is off after a dump, and after a dump killed with -9 the
#     follower switches it off.
# Output: "ok N - ...", then "P passed, F failed". Options: --keep, -v.
#
# --cost [--rounds N]: the benchmark of what the dump costs the TC stage
# instead (no checks): per-frame program time (kernel.bpf_stats_enabled)
# of 20,000 frames xnzv1 -> xnzv2, interleaved rounds of three builds in
# place: without the dump at all (build/nodump, BPF_EXTRA=-DXDPNET_NO_DUMP),
# with the dump off, with a dump running (to /dev/null); medians and
# ratios.
set -u
. "$(dirname "$0")/lib.sh"

SW=xnz-sw
BR=xnzbr0
# shellcheck disable=SC2034 # lib.sh's: stand-ins' prefix, our pins
XNP=xnz PIN=$PIN_ROOT/$BR
# shellcheck disable=SC2034 # take_lock's (lib.sh)
LOCK=/run/lock/xnz-dump.pid
N=20
COST=0
ROUNDS=7
# shellcheck disable=SC2034 # OPT_SHIFT: parse_args's (lib.sh)
suite_opt() {
	case $1 in
	--cost) COST=1 ;;
	--rounds) ROUNDS=${2-}; OPT_SHIFT=2 ;;
	*) return 1 ;;
	esac
}
parse_args "[--keep] [-v] [--cost [--rounds N]]" "$@"
traps_install

d_up() {
	local i
	remove_stale
	switch_up || return 1
	TOPO=veth
	for i in 1 2; do veth_guest_add "$i" || return 1; done
	TOPO=tap
	# No checksum offload in the tap stand-ins: the XDP stage takes their
	# frames (tests/integration/stats.sh does the same).
	for i in 1 2; do relay_start "$i" --no-csum || return 1; done
	# shellcheck disable=SC2034 # wait_ports_up's (lib.sh)
	PORTS=(xnzv1 xnzv2 xnzt1 xnzt2)
	wait_ports_up
}

# dump_fails WANT_RC ARGS...: one line on stderr, exit WANT_RC.
dump_fails() {
	local want=$1 rc lines
	shift
	xn dump "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
	rc=$?
	lines=$(wc -l <"$WORK/err")
	echo "xdpnet dump $*: exit $rc, stderr: $(cat "$WORK/err")"
	[ "$rc" = "$want" ] && [ "$lines" = 1 ]
}

refusals() {
	dump_fails 3 nobr0 -w "$WORK/x.pcapng" &&
		dump_fails 7 "$BR" -w "$WORK/x.pcapng" &&
		! [ -s "$WORK/x.pcapng" ]
}

refusals_attached() {
	dump_fails 2 "$BR" --port lo -w "$WORK/x.pcapng" &&
		dump_fails 2 "$BR" --path fast -w "$WORK/x.pcapng" &&
		dump_fails 2 "$BR" -s 0 -w "$WORK/x.pcapng" &&
		dump_fails 2 "$BR" -s 4000 -w "$WORK/x.pcapng"
}

# The dump's switch, from its pinned map: 1 while a dump runs.
is_off() { [ "$(dump_on)" = 0 ]; }

# dump_start FILE ARGS...: a dump in the background (DUMP_PID), once its
# switch is on.
dump_start() {
	local f=$1
	shift
	nsenter --net="/run/netns/$SW" "$XDPNET" dump "$BR" -w "$f" "$@" 2>"$WORK/$(basename "$f").err" &
	DUMP_PID=$!
	track "$DUMP_PID"
	wait_until 10 is_on || { echo "the dump never switched on"; cat "$WORK/$(basename "$f").err"; return 1; }
}

dump_wait() {
	local rc
	wait "$DUMP_PID"
	rc=$?
	untrack "$DUMP_PID"
	cat "$WORK/$(basename "$1").err"
	return $rc
}

# cap_start NS FILE FILTER: tcpdump in a stand-in, once it listens.
cap_start() {
	: >"$2.log"
	ip netns exec "$1" tcpdump -Z root -i eth0 -nn -U -w "$2" "$3" 2>"$2.log" &
	CAP_PID=$!
	track "$CAP_PID"
	wait_until 10 grep -q "listening on" "$2.log"
}
# cap_stop FILE N: once FILE holds N frames (tcpdump writes what it has
# read; the last ones may still be in its socket).
cap_has() { [ "$(tcpdump -r "$1" -nn 2>/dev/null | grep -c .)" -ge "$2" ]; }
cap_stop() {
	wait_until 10 cap_has "$1" "$2" || echo "the receiver's capture has fewer than $2 frames"
	stop_pid "$CAP_PID"
}

# hexes PCAP [FILTER]: each frame as one line of hex, no timestamps.
hexes() {
	tcpdump -r "$1" -nn -t -xx ${2:+"$2"} 2>/dev/null |
		awk '/^[^ \t]/ { if (h != "") print h; h = "" ; next } { $1 = ""; h = h $0 } END { if (h != "") print h }' |
		tr -d ' '
}

# tshark_pick DUMP FILTER OUT: the frames of DUMP that FILTER selects, as
# pcap (read by tshark), and their comments.
tshark_pick() {
	tshark -r "$1" -Y "$2" -w "$3" -F pcap 2>/dev/null &&
		tshark -r "$1" -Y "$2" -T fields -e frame.comment 2>/dev/null >"$3.comments"
}

# path_check NAME FROM TO SRC_NS DST_NS ADDR PATH STAGE [--port TO]: N
# pings FROM -> TO during a dump of PATH, captured in DST_NS too. Each
# request is in the dump once: inbound on FROM, or with --port TO outbound
# on TO.
path_check() {
	local name=$1 from=$2 to=$3 src=$4 dst=$5 addr=$6 path=$7 stage=$8
	local f=$WORK/$name.pcapng a b n c0 c1 ctr k0 k1 ka on dir note
	shift 8
	ctr=$([ "$path" = xdp ] && echo xdp_redirect || echo tc_redirect)
	if [ $# -gt 0 ]; then on=$to dir=2 note="from=$from"; else on=$from dir=1 note="to=$to"; fi
	ip netns exec "$src" ping -c 1 -W 2 "$addr" >/dev/null || return 1
	cap_start "$dst" "$WORK/$name.rx.pcap" 'icmp[icmptype] == 8' || return 1
	c0=$(ctr "$from" "$ctr")
	k0=$(ctr "$from" pass_refresh)
	dump_start "$f" --path "$path" "$@" || return 1
	ip netns exec "$src" ping -c "$N" -i 0.05 -W 2 -p 7864706e6574 "$addr" >"$WORK/ping" || { cat "$WORK/ping"; return 1; }
	kill -INT "$DUMP_PID"
	dump_wait "$f" || return 1
	c1=$(ctr "$from" "$ctr")
	k1=$(ctr "$from" pass_refresh)
	cap_stop "$WORK/$name.rx.pcap" "$N"
	is_off || { echo "the switch stayed on"; return 1; }
	# tcpdump reads it all; tshark picks the requests on their port.
	tcpdump -r "$f" -nn >/dev/null 2>"$WORK/tcpdump.err" || { cat "$WORK/tcpdump.err"; return 1; }
	tshark_pick "$f" "frame.interface_name == \"$on\" && frame.packet_flags_direction == $dir && icmp.type == 8" "$WORK/$name.req.pcap" || return 1
	a=$(hexes "$WORK/$name.req.pcap")
	b=$(hexes "$WORK/$name.rx.pcap")
	n=$(echo "$a" | grep -c .)
	# The source's keep-alive (at most one a second) takes the bridge:
	# that request is delivered, but not on this path.
	ka=$((k1 - k0))
	echo "keep-alive frames from $from during the dump: $ka"
	[ "$ka" -le 2 ] || { echo "more keep-alive frames than 1 s of pings can have"; return 1; }
	expect_eq "$name: requests into $to in the dump" "$n" "$((N - ka))" || return 1
	expect_eq "$name: each request once (tcpdump -r)" "$(tcpdump -r "$f" -nn 'icmp[icmptype] == 8' 2>/dev/null | grep -c .)" "$n" || return 1
	expect_eq "$name: requests $dst received" "$(echo "$b" | grep -c .)" "$N" || return 1
	expect_eq "$name: the same bytes as $dst received" "$(echo "$a" | grep -Fvxf <(echo "$b") | grep -c .)" 0 || { diff <(echo "$a") <(echo "$b") | head; return 1; }
	sort -u "$WORK/$name.req.pcap.comments"
	[ "$(sort -u "$WORK/$name.req.pcap.comments")" = "xdpnet path=$path verdict=$ctr stage=$stage $note" ] || return 1
	# only that path, and the datapath counted every frame as ever
	expect_eq "$name: paths in the dump" "$(tshark -r "$f" -T fields -e frame.comment 2>/dev/null | grep -vc "path=$path ")" 0 || return 1
	expect_ge "$name: $ctr of $from during the dump" $((c1 - c0)) "$((N - ka))"
}

ctr() { xn status "$BR" --json | jq --arg p "$1" --arg c "$2" '.bridges[0].ports[] | select(.name == $p) | .counters[$c].packets'; }

tc_path() { path_check tc xnzv1 xnzv2 xnz-v1 xnz-v2 10.99.1.2 tc tc; }
xdp_path() { path_check xdp xnzt1 xnzt2 xnz-t1 xnz-t2 10.99.2.2 xdp xdp --port xnzt2; }

bridge_path() {
	local f=$WORK/bridge.pcapng
	dump_start "$f" --path bridge --port xnzv2 -c 1 -s 20 || return 1
	# a broadcast ARP from xnz-v2 for an address nobody has
	ip netns exec xnz-v2 ping -c 1 -W 1 10.99.1.77 >/dev/null
	wait_until 10 sh -c "! kill -0 $DUMP_PID 2>/dev/null" || { kill -INT "$DUMP_PID"; dump_wait "$f"; return 1; }
	dump_wait "$f" || return 1
	tshark -r "$f" -T fields -e frame.interface_name -e frame.cap_len -e frame.len -e frame.comment 2>/dev/null | tee "$WORK/bridge.txt"
	expect_eq "frames (-c 1)" "$(grep -c . "$WORK/bridge.txt")" 1 || return 1
	read -r ifn cap len rest <"$WORK/bridge.txt"
	expect_eq "interface" "$ifn" xnzv2 && expect_eq "caplen (-s 20)" "$cap" 20 &&
		expect_eq "length" "$len" 42 && [ "$rest" = "xdpnet path=bridge verdict=pass_mcast stage=tc" ] &&
		# --port xnzv2: one interface in the file
		expect_eq "interfaces" "$(tshark -r "$f" -T fields -e frame.interface_id 2>/dev/null | sort -u)" 0
}

second_dump() {
	local rc
	dump_start "$WORK/one.pcapng" || return 1
	dump_fails 8 "$BR" -w "$WORK/two.pcapng"
	rc=$?
	kill -INT "$DUMP_PID"
	dump_wait "$WORK/one.pcapng" && [ "$rc" = 0 ]
}

# A reader that stops reading: the ring fills, frames go on.
full_ring() {
	local f=$WORK/full.pcapng lost
	dump_start "$f" --path tc || return 1
	kill -STOP "$DUMP_PID"
	ip netns exec xnz-v1 ping -q -f -c 5000 -W 2 10.99.1.2 >"$WORK/flood" 2>&1
	kill -CONT "$DUMP_PID"
	kill -INT "$DUMP_PID"
	dump_wait "$f" >"$WORK/full.err" || return 1
	cat "$WORK/flood" "$WORK/full.err"
	grep -q " 0% packet loss" "$WORK/flood" || { echo "frames were lost"; return 1; }
	lost=$(sed -n 's/.* \([0-9]*\) records lost.*/\1/p' "$WORK/full.err")
	expect_ge "records lost" "${lost:-0}" 1 || return 1
	# the pcapng says so too (isb_osdrop)
	tshark -r "$f" -q -z io,stat,0 >/dev/null 2>&1
	tcpdump -r "$f" -nn 2>/dev/null | grep -c . | xargs echo "frames in the file:"
}

killed_dump() {
	local n0
	n0=$(grep -c "a dump's reader died" "/run/xdpnet/$BR.log" 2>/dev/null)
	dump_start "$WORK/k.pcapng" || return 1
	kill -KILL "$DUMP_PID"
	wait "$DUMP_PID" 2>/dev/null
	untrack "$DUMP_PID"
	# A dump killed with -9 cannot switch its copy off: the follower does,
	# once a second (it may already have, by the time this looks: what
	# tells is its log).
	wait_until 10 is_off || { echo "FAIL: the copy stayed on"; return 1; }
	wait_until 5 sh -c "[ \"\$(grep -c \"a dump's reader died\" /run/xdpnet/$BR.log)\" -gt ${n0:-0} ]" ||
		{ echo "FAIL: the follower did not say it switched the copy off"; cat "/run/xdpnet/$BR.log"; return 1; }
}

# A running dump (and one waiting for -c frames) across a detach: it ends
# within 2 s, exit 7, one line; the file it wrote is still readable; its
# lock file goes with it.
detached_dump() {
	local rc i lines
	dump_start "$WORK/d.pcapng" -c 1000 || return 1
	xn detach "$BR" || return 1
	for ((i = 0; i < 40; i++)); do kill -0 "$DUMP_PID" 2>/dev/null || break; sleep 0.05; done
	if kill -0 "$DUMP_PID" 2>/dev/null; then
		echo "FAIL: the dump still runs 2 s after the detach"
		return 1
	fi
	wait "$DUMP_PID"
	rc=$?
	untrack "$DUMP_PID"
	cat "$WORK/d.pcapng.err"
	lines=$(wc -l <"$WORK/d.pcapng.err")
	expect_eq "dump's exit" "$rc" 7 || return 1
	expect_eq "lines on stderr" "$lines" 1 || return 1
	tcpdump -r "$WORK/d.pcapng" -nn >/dev/null || { echo "FAIL: tcpdump cannot read what it wrote"; return 1; }
	# detach left the dump's lock file to the dump, which took it along
	[ ! -e "/run/xdpnet/$BR.dump" ] || { echo "FAIL: /run/xdpnet/$BR.dump outlived the dump"; return 1; }
}

# ------------------------------------------------------------- --cost

# tc_runs: "calls ns" of the TC program the ports run now.
tc_runs() {
	local id
	id=$(xn status "$BR" --json | jq '.bridges[0].ports[] | select(.name == "xnzv1") | .tc_prog_id')
	bpftool prog show id "$id" -j | jq -r '"\(.run_cnt // 0) \(.run_time_ns // 0)"'
}

# cost_round: ns per frame of the TC program over 20,000 frames.
cost_round() {
	local c0 t0 c1 t1
	ip netns exec xnz-v1 ping -c 1 -W 1 10.99.1.2 >/dev/null
	read -r c0 t0 < <(tc_runs)
	ip netns exec xnz-v1 ping -q -f -c 20000 -W 1 10.99.1.2 >/dev/null
	read -r c1 t1 < <(tc_runs)
	echo $(((t1 - t0) / ((c1 - c0) > 0 ? (c1 - c0) : 1)))
}

cost() {
	local r mode ns stats_was nodump=$ROOT/build/nodump/xdpnet
	make -C "$ROOT" -s OUT="$ROOT/build/nodump" BPF_EXTRA=-DXDPNET_NO_DUMP "$nodump" || return 1
	stats_was=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	: >"$WORK/cost"
	for r in $(seq "$ROUNDS"); do
		for mode in nodump off on; do
			if [ "$mode" = nodump ]; then
				XDPNET=$nodump xn attach "$BR" >/dev/null || return 1
			else
				xn attach "$BR" >/dev/null || return 1
			fi
			[ "$mode" = on ] && { dump_start /dev/null || return 1; }
			ns=$(cost_round)
			[ "$mode" = on ] && { kill -INT "$DUMP_PID"; dump_wait /dev/null >/dev/null; }
			echo "round $r: $mode $ns ns per frame"
			echo "$mode $ns" >>"$WORK/cost"
		done
	done
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	awk 'function med(a, n,   i, j, t) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
		{ v[$1, c[$1]++] = $2 }
		END { for (m in c) { for (i = 0; i < c[m]; i++) x[i] = v[m, i]; r[m] = med(x, c[m]) }
			printf "# medians over %d interleaved rounds: no dump in the build %d ns, dump off %d ns (%.2fx), dump running %d ns (%.2fx)\n",
				c["nodump"], r["nodump"], r["off"], r["off"] / r["nodump"], r["on"], r["on"] / r["nodump"] }' "$WORK/cost"
}

check "preflight: root, tools, built CLI" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$XDPNET"'" ] &&
	command -v tcpdump tshark bpftool jq >/dev/null' || finish
check "preflight: no other dump.sh" take_lock || finish
check "dump: topology up (2 veth, 2 tap stand-ins)" d_up || finish
if [ "$COST" = 1 ]; then
	cost
	xn detach "$BR" >/dev/null
	finish
fi
check "dump: refuses a missing bridge (3) and one not attached (7), one line" refusals
check "dump: attach --mode xdp" xn attach "$BR" --mode xdp
check "dump: refuses a port not on it, a bad --path, --snaplen 0 and 4000 (2)" refusals_attached
check "dump: TC path: each frame once, inbound; read by tcpdump and tshark, the bytes the receiver got" tc_path
check "dump: XDP path between taps, --port the receiver: outbound on it, the same" xdp_path
check "dump: --path bridge --port -c 1 -s 20: a broadcast ARP, pass_mcast" bridge_path
check "dump: a second dump of the bridge is refused (8)" second_dump
check "dump: a full ring loses records, never frames, and says how many" full_ring
check "dump: killed with -9: the follower switches the copy off" killed_dump
check "dump: a running dump ends when the bridge is detached (7, one line)" detached_dump
finish
