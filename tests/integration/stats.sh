#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet stats / exporter / latency probe, end to end (root).
#
# A bridge xnsbr0 in namespace xns-ssw with two veth stand-ins (xns-sv1,
# xns-sv2 behind ports xnssv1, xnssv2) and two tap stand-ins behind
# build/tests/vnet_relay without checksum offload (xns-st1, xns-st2 behind
# xnsst1, xnsst2). The stand-ins have no IPv6, static ARP entries and the
# bridge static FDB entries, and drop their own ICMP, so the only frames
# are the test's: 10,000 UDP frames of 500 bytes at a time. Checks:
#
#   before attach: the device counters and the bridge path count them
#   exactly, the latency histogram fills for the bridge path;
#   after attach (tc): exactly 10,000 frames / 5,000,000 bytes on the TC
#   path and into the target port, fast-path share 1, the TC histogram
#   fills next to the bridge's; --interval/--count --json; the exporter on
#   127.0.0.1 answers with the same numbers (strict format check); the
#   probe's fallback for kernels without skb->redirected; XDP mode between
#   the taps; latency off keeps the histograms; --reset; detach leaves
#   nothing behind; error exits.
#
# Output: "ok N - ..." / "not ok N - ...", then "P passed, F failed".
# Options: --keep (keep the logs), -v, --overhead (measure the probe's cost
# instead; see README), --rounds N (overhead rounds, default 5).
set -u
# check, expect_*, xn, wait_until, wait_line, stop_pid, ns_add, WORK: lib.sh
. "$(dirname "$0")/lib.sh"
PROMLINT=${PROMLINT:-$ROOT/build/tests/promlint}
PROMTOOL=${PROMTOOL:-$ROOT/scripts/promtool}
SW=xns-ssw
BR=xnsbr0
PIN=/sys/fs/bpf/xdpnet/$BR
N=10000        # frames per transfer
PAYLOAD=458    # UDP payload: 458 + 8 + 20 + 14 = 500-byte frames
FRAME=500
PORT=9435
OVERHEAD=0
ROUNDS=5
# shellcheck disable=SC2034 # OPT_SHIFT: parse_args's (lib.sh)
suite_opt() {
	case $1 in
	--overhead) OVERHEAD=1 ;;
	--rounds) ROUNDS=${2-}; OPT_SHIFT=2 ;;
	*) return 1 ;;
	esac
}
parse_args "[--keep] [-v] [--overhead [--rounds N]]" "$@"

# ------------------------------------------------------------- plumbing

expect_le() { echo "$1: $2 <= $3 ?"; awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
expect_gt() { echo "$1: $2 > $3 ?"; awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 > b + 0) }'; }

# ns6_add NS: a namespace without IPv6 from the start: a device created
# later would otherwise send router solicitations and MLD reports that the
# bridge floods.
ns6_add() {
	ns_add "$1" || return 1
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
}

# lib.sh's cleanup detaches only for the run that holds its lock (run.sh);
# this suite owns its switch: detach it first.
suite_cleanup() {
	local p
	for p in "${PIDS[@]}"; do stop_pid "$p"; done
	if [ -e "$PIN" ] && [ -e "/run/netns/$SW" ]; then xn detach "$BR" >/dev/null 2>&1; fi
	[ -e "$PIN" ] && { echo "# cleanup: removing $PIN"; rm -rf "$PIN"; }
	rmdir /sys/fs/bpf/xdpnet 2>/dev/null
	runfiles_rm "$BR"
}
traps_install

mac() { echo "02:98:00:00:00:0$1"; }
ip4() { echo "10.98.0.$1"; }

# guest I NS DEV: configure a stand-in: fixed MAC and address, no IPv6, no
# ICMP of its own, static ARP for every other stand-in.
guest() {
	local i=$1 ns=$2 j
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 || return 1
	ip -n "$ns" link set eth0 address "$(mac "$i")" || return 1
	ip -n "$ns" addr add "$(ip4 "$i")/24" dev eth0 || return 1
	ip -n "$ns" link set eth0 up || return 1
	for j in 1 2 3 4; do
		[ "$j" = "$i" ] || ip -n "$ns" neigh replace "$(ip4 "$j")" \
			lladdr "$(mac "$j")" dev eth0 nud permanent || return 1
	done
	ip netns exec "$ns" iptables -w -A OUTPUT -p icmp -j DROP
}

# relay I: tap stand-in I (3 or 4) behind vnet_relay, checksums complete.
relay() {
	local i=$1 ns=xns-st$(($1 - 2)) port=xnsst$(($1 - 2))
	ns6_add "$ns" || return 1
	: >"$WORK/relay$i.out"
	ip netns exec "$SW" "$RELAY" --host-tap "$port" --guest-tap eth0 \
		--netns "$ns" --no-csum --no-tso >"$WORK/relay$i.out" \
		2>"$WORK/relay$i.err" &
	track "$!"
	wait_line "$WORK/relay$i.out" READY 5 || { cat "$WORK/relay$i.err"; return 1; }
	ip -n "$SW" link set "$port" master "$BR" up || return 1
	guest "$i" "$ns"
}

# Every port forwarding and every stand-in's eth0 up with a carrier (a
# tap's operstate stays UNKNOWN: look at the flags).
topo_ready() {
	local p ns
	for p in xnssv1 xnssv2 xnsst1 xnsst2; do
		ip -n "$SW" -d link show "$p" | grep -q 'state forwarding' || return 1
	done
	for ns in xns-sv1 xns-sv2 xns-st1 xns-st2; do
		ip -n "$ns" link show eth0 | grep -qE '<([^>]*,)?UP,([^>]*,)?LOWER_UP[,>]' || return 1
	done
}

topo_up() {
	local i
	ns6_add "$SW" || return 1
	# No multicast snooping: with it, the bridge joins the all-snoopers
	# groups (224.0.0.106) and its own stack sends IGMPv3 reports (54
	# bytes, flooded to every port) for up to a few seconds after it comes
	# up, which the exact counts below would see.
	ip -n "$SW" link add "$BR" type bridge stp_state 0 mcast_snooping 0 || return 1
	ip -n "$SW" link set "$BR" up
	for i in 1 2; do
		ns6_add "xns-sv$i" || return 1
		ip -n "$SW" link add "xnssv$i" type veth peer name eth0 \
			netns "xns-sv$i" || return 1
		ip -n "$SW" link set "xnssv$i" master "$BR" up || return 1
		guest "$i" "xns-sv$i" || return 1
	done
	relay 3 || return 1
	relay 4 || return 1
	for i in 1 2; do
		bridge -n "$SW" fdb replace "$(mac "$i")" dev "xnssv$i" master static || return 1
		bridge -n "$SW" fdb replace "$(mac $((i + 2)))" dev "xnsst$i" master static || return 1
	done
	wait_until 5 topo_ready || { echo "ports not forwarding / eth0 not up"; ip -n "$SW" -d link; return 1; }
	ip -n "$SW" -br link
}

# send NS DST COUNT: COUNT UDP frames of FRAME bytes, paced so that no
# queue on the way overflows.
send() {
	ip netns exec "$1" python3 - "$2" "$3" "$PAYLOAD" <<-'EOF'
	import socket, sys, time
	dst, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	data = b"x" * size
	for i in range(n):
	    s.sendto(data, (dst, 9))
	    if i % 64 == 63:
	        time.sleep(0.003)
	EOF
}

snap() { xn stats "$BR" --json >"$WORK/$1.json"; }
# pv SNAP PORT JQPATH: a port's value in a snapshot
pv() { jq -r --arg p "$2" ".ports[] | select(.name == \$p) | $3" "$WORK/$1.json"; }
# dpv A B PORT JQPATH: its increase from snapshot A to B
dpv() { echo $(($(pv "$2" "$3" "$4") - $(pv "$1" "$3" "$4"))); }
# lat SNAP IN OUT PATH FIELD
lat() {
	jq -r --arg i "$2" --arg o "$3" --arg p "$4" \
		"[.latency.pairs[] | select(.in == \$i and .out == \$o and .path == \$p) | .$5] | first // 0" \
		"$WORK/$1.json"
}

# grew A B PORT JQPATH WANT: the port's value rose by WANT or more from
# snapshot A to B.
grew() { [ "$(dpv "$1" "$2" "$3" "$4")" -ge "$5" ] 2>/dev/null; }
# lat_grew A B IN OUT PATH WANT: that histogram counted WANT or more.
# lat_in SNAP IN PATH: frames from IN by PATH, over every out port
lat_in() {
	jq -r --arg i "$2" --arg p "$3" \
		'[.latency.pairs[] | select(.in == $i and .path == $p) | .count] | add // 0' "$WORK/$1.json"
}
lat_grew() { [ $(($(lat "$2" "$3" "$4" "$5" count) - $(lat "$1" "$3" "$4" "$5" count))) -ge "$6" ] 2>/dev/null; }
# settle COND...: after sending, wait (5 s at most) until COND, which
# takes the snapshot it reads, holds: the counters have caught up with
# what was sent. The exact comparisons come after it (on a timeout, they
# show what was missing).
settle() { wait_until 5 "$@" || echo "not settled within 5 s: $*"; }

# pin_progs LEAF...: ids of the programs behind pinned links/programs
pin_progs() {
	local l
	for l in "$@"; do
		[ -e "$PIN/$l" ] || continue
		bpftool link show pinned "$PIN/$l" -j 2>/dev/null | jq -r '.prog_id // empty'
		bpftool prog show pinned "$PIN/$l" -j 2>/dev/null | jq -r '.id // empty'
	done | sort -u
}

# progs_gone ID...: those programs are unloaded (freeing is deferred: wait)
progs_gone() {
	local id k left
	for k in $(seq 40); do
		left=
		for id in "$@"; do
			bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "programs still loaded:$left"
	return 1
}

# ------------------------------------------------------------- the checks

preflight() {
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	local t
	for t in ip bridge jq python3 nsenter iptables curl; do
		command -v "$t" >/dev/null || { echo "missing $t"; return 1; }
	done
	[ -x "$XDPNET" ] && [ -x "$RELAY" ] && [ -x "$PROMLINT" ] || { echo "make all first"; return 1; }
	"$PROMTOOL" --version || { echo "no promtool: run scripts/deps.sh"; return 1; }
	for t in $(ip netns list | awk '{print $1}' | grep '^xns-s[svt]'); do ip netns del "$t"; done
	rm -rf "$PIN"
	return 0
}

latency_on_unattached() {
	xn latency "$BR" on || return 1
	ls "$PIN"
	for l in lat_rx lat_tx lat_xdp lat_hist lat_ctl lat_cpu lat_ports; do
		[ -e "$PIN/$l" ] || { echo "missing $PIN/$l"; return 1; }
	done
	[ ! -e "$PIN/meta" ] || { echo "latency on attached the datapath?"; return 1; }
	expect_eq "latency state" "$(xn latency "$BR")" "$BR: latency probe on"
}

bridge_arrived() { snap b1 && grew b0 b1 xnssv2 .tx.packets "$N" && lat_grew b0 b1 xnssv1 xnssv2 bridge "$N"; }
bridge_counts() {
	snap b0 || return 1
	send xns-sv1 "$(ip4 2)" "$N" || return 1
	settle bridge_arrived
	expect_eq attached "$(jq .attached "$WORK/b1.json")" false || return 1
	expect_eq "stage" "$(pv b1 xnssv1 .stage)" bridge || return 1
	expect_eq "xnssv1 rx packets" "$(dpv b0 b1 xnssv1 .rx.packets)" "$N" || return 1
	expect_eq "xnssv1 rx bytes" "$(dpv b0 b1 xnssv1 .rx.bytes)" $((N * FRAME)) || return 1
	expect_eq "xnssv1 bridge path" "$(dpv b0 b1 xnssv1 .paths.bridge.packets)" "$N" || return 1
	expect_eq "xnssv1 tc path" "$(dpv b0 b1 xnssv1 .paths.tc.packets)" 0 || return 1
	expect_eq "xnssv2 tx packets" "$(dpv b0 b1 xnssv2 .tx.packets)" "$N" || return 1
	expect_eq "xnssv2 tx bytes" "$(dpv b0 b1 xnssv2 .tx.bytes)" $((N * FRAME)) || return 1
	expect_eq "xnsst1 tx (other ports see nothing)" "$(dpv b0 b1 xnsst1 .tx.packets)" 0
}

# lat_fills A B IN OUT PATH WANT: WANT more frames in the histogram, with
# plausible quantiles (above 0, p50 below 1 ms).
lat_fills() {
	local c0 c1 p50 p99
	c0=$(lat "$1" "$3" "$4" "$5" count)
	c1=$(lat "$2" "$3" "$4" "$5" count)
	p50=$(lat "$2" "$3" "$4" "$5" p50_ns)
	p99=$(lat "$2" "$3" "$4" "$5" p99_ns)
	echo "$3 -> $4 $5: count $c0 -> $c1, p50 $p50 ns, p99 $p99 ns"
	expect_eq "frames measured" $((c1 - c0)) "$6" || return 1
	expect_gt "p50" "$p50" 0 || return 1
	expect_le "p50 (ns)" "$p50" 1000000
}

do_attach() { xn attach "$BR" "$@"; }

warm_arrived() {
	snap w1 && grew w0 w1 xnssv1 .tx.packets 1 && grew w0 w1 xnssv2 .tx.packets 1 &&
		grew w0 w1 xnsst1 .tx.packets 1 && grew w0 w1 xnsst2 .tx.packets 1
}
warmup() { # one frame each way, so that the keep-alive refresh is behind us
	snap w0 || return 1
	send xns-sv1 "$(ip4 2)" 1 && send xns-sv2 "$(ip4 1)" 1 &&
		send xns-st1 "$(ip4 4)" 1 && send xns-st2 "$(ip4 3)" 1 || return 1
	wait_until 5 warm_arrived || { echo "a warm-up frame did not arrive"; return 1; }
}

tc_arrived() { snap t1 && grew t0 t1 xnssv2 .tx.packets "$N" && lat_grew t0 t1 xnssv1 xnssv2 tc "$N"; }
tc_counts() {
	snap t0 || return 1
	send xns-sv1 "$(ip4 2)" "$N" || return 1
	settle tc_arrived
	expect_eq attached "$(jq .attached "$WORK/t1.json")" true || return 1
	expect_eq "stage" "$(pv t1 xnssv1 .stage)" tc || return 1
	expect_eq "xnssv1 tc packets" "$(dpv t0 t1 xnssv1 .paths.tc.packets)" "$N" || return 1
	expect_eq "xnssv1 tc bytes" "$(dpv t0 t1 xnssv1 .paths.tc.bytes)" $((N * FRAME)) || return 1
	expect_eq "xnssv1 counters.tc_redirect" "$(dpv t0 t1 xnssv1 .counters.tc_redirect.packets)" "$N" || return 1
	expect_eq "xnssv1 bridge path" "$(dpv t0 t1 xnssv1 .paths.bridge.packets)" 0 || return 1
	expect_eq "xnssv1 rx packets" "$(dpv t0 t1 xnssv1 .rx.packets)" "$N" || return 1
	expect_eq "xnssv1 rx bytes" "$(dpv t0 t1 xnssv1 .rx.bytes)" $((N * FRAME)) || return 1
	expect_eq "xnssv2 bypass_in" "$(dpv t0 t1 xnssv2 .bypass_in.packets)" "$N" || return 1
	expect_eq "xnssv2 bypass_in bytes" "$(dpv t0 t1 xnssv2 .bypass_in.bytes)" $((N * FRAME)) || return 1
	expect_eq "xnssv2 tx packets" "$(dpv t0 t1 xnssv2 .tx.packets)" "$N" || return 1
	# since attach: the warm-up's keep-alive frame went to the bridge
	expect_gt "xnssv1 fast path share" "$(pv t1 xnssv1 .fast_path_share)" 0.999 || return 1
	expect_eq "total tc" $(($(jq .total.paths.tc.packets "$WORK/t1.json") - $(jq .total.paths.tc.packets "$WORK/t0.json"))) "$N"
}

side_by_side() {
	xn stats "$BR" --latency | tee "$WORK/lat.txt" || return 1
	grep -q 'xnssv1 -> xnssv2' "$WORK/lat.txt" || return 1
	awk '/^xnssv1 -> xnssv2 +bridge +tc/ { found = 1 } END { exit !found }' "$WORK/lat.txt"
}

iv_started() { snap i1 && grew i0 i1 xnssv1 .paths.tc.packets 1; }
interval_json() {
	local lines pid rc
	snap i0 || return 1
	send xns-sv1 "$(ip4 2)" 20000 &
	pid=$!
	track "$pid"
	wait_until 5 iv_started || { echo "the traffic did not start"; return 1; }
	xn stats "$BR" --interval 0.3 --count 3 --json >"$WORK/iv.json" || return 1
	wait "$pid"
	rc=$?
	untrack "$pid"
	expect_eq "sender exit" "$rc" 0 || return 1
	cat "$WORK/iv.json"
	lines=$(wc -l <"$WORK/iv.json")
	expect_eq "objects" "$lines" 3 || return 1
	jq -e 'select(.schema == "xdpnet-stats/1" and .interval_s > 0.25 and .interval_s < 1)' "$WORK/iv.json" >/dev/null || return 1
	expect_eq "seq" "$(jq -s -c 'map(.seq)' "$WORK/iv.json")" "[1,2,3]" || return 1
	# traffic was flowing in at least one interval
	jq -e -s 'map(.ports[] | select(.name == "xnssv1") | .paths.tc.pps) | max > 100' "$WORK/iv.json"
}

exporter_start() {
	: >"$WORK/exp.out"
	nsenter --net="/run/netns/$SW" "$XDPNET" exporter "$BR" --listen "127.0.0.1:$PORT" \
		>"$WORK/exp.out" 2>"$WORK/exp.err" &
	EXP_PID=$!
	track "$EXP_PID"
	wait_until 5 grep -q listening "$WORK/exp.out"
	cat "$WORK/exp.out" "$WORK/exp.err"
	grep -q "listening on http://127.0.0.1:$PORT/metrics" "$WORK/exp.out"
}

scrape() { ip netns exec "$SW" curl -sS -o "$WORK/$1" -w '%{http_code} %{content_type}\n' "http://127.0.0.1:$PORT$2"; }

# promtool_ok FILE: what Prometheus users lint with. (promlint, the
# stricter checker of tests/unit/promlint.h, runs too: see there for what
# promtool lets through.)
promtool_ok() {
	"$PROMTOOL" check metrics <"$1" || { echo "promtool check metrics: $1"; return 1; }
}

exporter_values() {
	local got want code tcb brb l='bridge="xnsbr0",port="xnssv1"'
	local h='bridge="xnsbr0",port="xnssv1"'
	code=$(scrape metrics.txt /metrics) || return 1
	echo "$code"
	case $code in "200 text/plain; version=0.0.4"*) ;; *) return 1 ;; esac
	snap e0 || return 1
	promtool_ok "$WORK/metrics.txt" || return 1
	"$PROMLINT" "$WORK/metrics.txt" \
		xdpnet_packets_total "$l,path=\"tc\"" \
		xdpnet_bytes_total "$l,path=\"tc\"" \
		xdpnet_rx_packets_total "$l" \
		xdpnet_bypass_in_packets_total 'bridge="xnsbr0",port="xnssv2"' \
		xdpnet_attached 'bridge="xnsbr0"' \
		xdpnet_forward_latency_seconds_count "$h,path=\"tc\"" >"$WORK/vals" || return 1
	got=$(tr '\n' ' ' <"$WORK/vals")
	want="$(pv e0 xnssv1 .paths.tc.packets) $(pv e0 xnssv1 .paths.tc.bytes) $(pv e0 xnssv1 .rx.packets) $(pv e0 xnssv2 .bypass_in.packets) 1 $(lat_in e0 xnssv1 tc) "
	expect_eq "exporter vs stats --json" "$got" "$want" || return 1
	# Per port and path: 16 buckets each (le from 256 ns, exact), no
	# port pairs, no verdict that is a delivery.
	tcb=$(grep -c "^xdpnet_forward_latency_seconds_bucket{$h,path=\"tc\"" "$WORK/metrics.txt")
	brb=$(grep -c "^xdpnet_forward_latency_seconds_bucket{$h,path=\"bridge\"" "$WORK/metrics.txt")
	expect_eq "tc histogram buckets" "$tcb" 16 || return 1
	expect_eq "bridge histogram buckets" "$brb" 16 || return 1
	grep -q "^xdpnet_forward_latency_seconds_bucket{$h,path=\"tc\",le=\"0.000000256\"}" "$WORK/metrics.txt" ||
		{ echo "no le=\"0.000000256\" bucket"; return 1; }
	! grep -q 'in_port=\|verdict="rx_redirected"' "$WORK/metrics.txt" ||
		{ echo "pairs or rx_redirected in the default exposition"; return 1; }
	code=$(scrape nope.txt /nope)
	expect_eq "unknown path" "${code%% *}" 404 || return 1
	# the same text from the textfile-collector mode
	xn stats "$BR" --prom >"$WORK/prom.txt" || return 1
	promtool_ok "$WORK/prom.txt" || return 1
	"$PROMLINT" "$WORK/prom.txt" || return 1
	# --latency-pairs: per (in, out, path), the counts of stats --json
	xn stats "$BR" --prom --latency-pairs >"$WORK/pairs.txt" || return 1
	promtool_ok "$WORK/pairs.txt" || return 1
	"$PROMLINT" "$WORK/pairs.txt" xdpnet_forward_latency_seconds_count \
		'bridge="xnsbr0",in_port="xnssv1",out_port="xnssv2",path="tc"' >"$WORK/vals" || return 1
	snap e1 || return 1
	expect_eq "pairs count vs stats --json" "$(cat "$WORK/vals")" "$(lat e1 xnssv1 xnssv2 tc count)"
}

exporter_listens_loopback() {
	ip netns exec "$SW" ss -ltnH | tee "$WORK/ss" || return 1
	grep -q "127.0.0.1:$PORT " "$WORK/ss" || return 1
	! grep -q "0.0.0.0:$PORT \|\*:$PORT " "$WORK/ss"
}

exporter_stop() {
	kill -TERM "$EXP_PID" && wait "$EXP_PID"
	local rc=$?
	untrack "$EXP_PID"
	expect_eq "exporter exit" "$rc" 0
}

# After detach, the exporter of the whole namespace (no BRIDGE): the bridge
# reads xdpnet_attached 0, its device counters stay, and no series of
# xdpnet's own counters takes the devices' counts instead.
exporter_detached() {
	local code st=0
	: >"$WORK/exp.out"
	nsenter --net="/run/netns/$SW" "$XDPNET" exporter --listen "127.0.0.1:$PORT" \
		>"$WORK/exp.out" 2>"$WORK/exp.err" &
	EXP_PID=$!
	track "$EXP_PID"
	wait_until 5 grep -q listening "$WORK/exp.out" || { cat "$WORK/exp.err"; exporter_stop; return 1; }
	code=$(scrape detached.txt /metrics) || st=1
	exporter_stop || st=1
	[ "$st" = 0 ] && expect_eq "status" "${code%% *}" 200 || return 1
	promtool_ok "$WORK/detached.txt" || return 1
	"$PROMLINT" "$WORK/detached.txt" xdpnet_attached 'bridge="xnsbr0"' \
		xdpnet_rx_packets_total 'bridge="xnsbr0",port="xnssv1"' >"$WORK/vals" || return 1
	expect_eq "xdpnet_attached" "$(head -1 "$WORK/vals")" 0 || return 1
	expect_ge "the device's rx" "$(sed -n 2p "$WORK/vals")" "$N" || return 1
	! grep -E '^xdpnet_(packets|bytes|verdict_packets|verdict_bytes)_total\{bridge="xnsbr0"' "$WORK/detached.txt" ||
		{ echo "xdpnet's counters still exported for a detached bridge"; return 1; }
}

fallback_arrived() { snap f1 && grew f0 f1 xnssv1 .tx.packets 1000 && lat_grew f0 f1 xnssv2 xnssv1 tc 1000; }
fallback_mark() {
	xn latency "$BR" off || return 1
	XDPNET_LAT_NO_REDIRECTED=1 xn latency "$BR" on || return 1
	snap f0 || return 1
	send xns-sv2 "$(ip4 1)" 1000 || return 1
	settle fallback_arrived
	expect_eq "tc frames (datapath mark)" $(($(lat f1 xnssv2 xnssv1 tc count) - $(lat f0 xnssv2 xnssv1 tc count))) 1000 || return 1
	expect_eq "bridge frames" $(($(lat f1 xnssv2 xnssv1 bridge count) - $(lat f0 xnssv2 xnssv1 bridge count))) 0 || return 1
	xn latency "$BR" off && xn latency "$BR" on
}

# Sent or tail-dropped (see below), and measured.
xdp_arrived() {
	snap x1 && [ $(($(dpv x0 x1 xnsst2 .tx.packets) + $(dpv x0 x1 xnsst2 .tx_dropped))) -ge "$N" ] &&
		lat_grew x0 x1 xnsst1 xnsst2 xdp "$N"
}
xdp_counts() {
	xn status "$BR" | tee "$WORK/status.txt"
	snap x0 || return 1
	send xns-st1 "$(ip4 4)" "$N" || return 1
	settle xdp_arrived
	expect_eq "stage" "$(pv x1 xnsst1 .stage)" xdp || return 1
	expect_eq "xnsst1 xdp packets" "$(dpv x0 x1 xnsst1 .paths.xdp.packets)" "$N" || return 1
	expect_eq "xnsst1 xdp bytes" "$(dpv x0 x1 xnsst1 .paths.xdp.bytes)" $((N * FRAME)) || return 1
	expect_eq "xnsst1 tc packets" "$(dpv x0 x1 xnsst1 .paths.tc.packets)" 0 || return 1
	expect_eq "xnsst2 bypass_in" "$(dpv x0 x1 xnsst2 .bypass_in.packets)" "$N" || return 1
	# An XDP redirect into a tap has no backpressure: when the relay
	# falls behind (a loaded machine), tun_xdp_xmit() tail-drops. Every
	# frame is then either sent or counted, by the device and by us.
	local drop
	drop=$(dpv x0 x1 xnsst2 .tx_dropped)
	expect_eq "xnsst2 tx packets + tx_dropped" \
		$(($(dpv x0 x1 xnsst2 .tx.packets) + drop)) "$N" || return 1
	expect_eq "xnsst2 xmit_drop counted" \
		"$(dpv x0 x1 xnsst2 .paths.xmit_drop.packets)" "$drop" || return 1
	[ "$drop" -eq 0 ] || echo "note: $drop frames tail-dropped at the tap"
	expect_eq "errors" "$(dpv x0 x1 xnsst1 .paths.redirect_err.packets)" 0
}

grew_after() { snap "$2" && grew "$@"; } # A B PORT JQPATH WANT (takes B)
off_keeps() {
	local ids
	ids=$(pin_progs lat_rx lat_tx lat_xdp)
	echo "probe programs: $ids"
	[ -n "$ids" ] || return 1
	xn latency "$BR" off || return 1
	for l in lat_rx lat_tx lat_xdp; do
		[ ! -e "$PIN/$l" ] || { echo "$PIN/$l still there"; return 1; }
	done
	progs_gone $ids || return 1
	snap o0 || return 1
	expect_eq probe "$(jq -r .latency.probe "$WORK/o0.json")" off || return 1
	expect_gt "pairs kept" "$(jq '.latency.pairs | length' "$WORK/o0.json")" 0 || return 1
	send xns-sv1 "$(ip4 2)" 100 || return 1
	settle grew_after o0 o1 xnssv2 .tx.packets 100
	expect_eq "nothing measured while off" "$(lat o1 xnssv1 xnssv2 tc count)" "$(lat o0 xnssv1 xnssv2 tc count)"
}

# The table after --reset: the devices' counters (lifetime) and xdpnet's
# (since the reset) under heads of their own; xnssv1's tc column holds
# the 100 frames since, its rx column all it ever received.
table_heads() {
	local rx tc
	xn stats "$BR" >"$WORK/table.txt" || return 1
	cat "$WORK/table.txt"
	grep -q -- "-- the device's own, lifetime -.* -- xdpnet's, since attach or --reset -" "$WORK/table.txt" ||
		{ echo "FAIL: no separate heads for the two kinds of counters"; return 1; }
	read -r rx tc < <(awk '$1 == "xnssv1" { print $3, $8 }' "$WORK/table.txt")
	expect_eq "xnssv1 tc since the reset" "$tc" 100 || return 1
	[ "$rx" != 100 ] || { echo "FAIL: rx counts since the reset too?"; return 1; }
}

tc_now() { snap "$1" && [ "$(pv "$1" xnssv1 .paths.tc.packets)" -ge "$2" ] 2>/dev/null; }
reset_counts() {
	xn stats "$BR" --reset || return 1
	snap r0 || return 1
	expect_eq "tc after reset" "$(pv r0 xnssv1 .paths.tc.packets)" 0 || return 1
	expect_eq "bypass_in after reset" "$(pv r0 xnssv2 .bypass_in.packets)" 0 || return 1
	expect_eq "histograms after reset" "$(jq '.latency.pairs | length' "$WORK/r0.json")" 0 || return 1
	send xns-sv1 "$(ip4 2)" 100 || return 1
	settle tc_now r1 100
	expect_eq "tc counts again" "$(pv r1 xnssv1 .paths.tc.packets)" 100
}

errors() {
	local rc
	xn stats xnsnobr0 2>"$WORK/e1"; rc=$?
	cat "$WORK/e1"
	expect_eq "no such bridge" "$rc" 3 || return 1
	expect_eq "stderr lines" "$(wc -l <"$WORK/e1")" 1 || return 1
	xn latency xnssv1 on 2>"$WORK/e2"; rc=$?
	cat "$WORK/e2"
	expect_eq "not a bridge" "$rc" 3 || return 1
	expect_eq "stderr lines" "$(wc -l <"$WORK/e2")" 1 || return 1
	xn stats "$BR" --interval 0 2>"$WORK/e3"; rc=$?
	cat "$WORK/e3"
	expect_eq "bad interval" "$rc" 2 || return 1
	expect_eq "stderr lines" "$(wc -l <"$WORK/e3")" 1 || return 1
	xn exporter --listen 10.0.0.1 2>"$WORK/e4"; rc=$?
	cat "$WORK/e4"
	expect_eq "bad listen" "$rc" 2 || return 1
	expect_eq "stderr lines" "$(wc -l <"$WORK/e4")" 1
}

do_detach() {
	local ids
	xn latency "$BR" on >/dev/null || return 1
	ids=$(pin_progs prog_tc prog_xdp lat_rx lat_tx lat_xdp trace_redirect_err trace_devmap_xmit)
	echo "programs: $ids"
	xn detach "$BR" || return 1
	[ ! -e "$PIN" ] || { ls -la "$PIN"; return 1; }
	progs_gone $ids
}

# Before attach, with the probe on and the pins only the probe's: detach
# takes them too.
latency_only_detach() {
	local rc
	xn latency "$BR" on || return 1
	[ -e "$PIN/lat_rx" ] || return 1
	xn status "$BR" 2>"$WORK/st.err"
	rc=$?
	cat "$WORK/st.err"
	expect_eq "status $BR (latency pins, not attached) exit" "$rc" 7 || return 1
	grep -q "pinned under $PIN ('xdpnet detach $BR' removes them)" "$WORK/st.err" ||
		{ echo "FAIL: status does not name the pins"; return 1; }
	xn detach "$BR" || return 1
	[ ! -e "$PIN" ]
}

# ------------------------------------------------------------- overhead

# prog_runs ID: "run_cnt run_time_ns" of a program (kernel.bpf_stats_enabled)
prog_runs() {
	bpftool prog show id "$1" -j | jq -r '"\(.run_cnt // 0) \(.run_time_ns // 0)"'
}

# cost_of MODE IDS...: send N frames xnssv1 -> xnssv2 and print each
# program's calls and time per call over that transfer
cost_of() {
	local mode=$1 id
	shift
	for id in "$@"; do prog_runs "$id" >"$WORK/runs.$id"; done
	send xns-sv1 "$(ip4 2)" "$N"
	for id in "$@"; do
		read -r c0 t0 <"$WORK/runs.$id"
		read -r c1 t1 < <(prog_runs "$id")
		echo "#   $mode: $(bpftool prog show id "$id" -j | jq -r .name): $((c1 - c0)) calls, $(((t1 - t0) / ((c1 - c0) > 0 ? (c1 - c0) : 1))) ns per call"
	done
}

# One iperf3 UDP run of 64-byte datagrams between the veth stand-ins (a
# fresh one-off server each time); prints the datagrams per second that
# arrived.
iperf_pps() {
	local out
	local pid
	ip netns exec xns-sv2 iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
	pid=$!
	track "$pid"
	wait_until 5 sh -c 'ip netns exec xns-sv2 ss -ltnH | grep -q ":5299 "'
	out=$(ip netns exec xns-sv1 iperf3 -c "$(ip4 2)" -p 5299 -u -b 0 -l 64 -t "$1" -J 2>/dev/null)
	stop_pid "$pid"
	echo "$out" | jq '(.end.sum.packets - .end.sum.lost_packets) / .end.sum.seconds | floor' 2>/dev/null || echo 0
}

overhead() {
	local mode r on off ids id stats_was
	ip netns exec xns-sv1 iptables -w -F OUTPUT
	ip netns exec xns-sv2 iptables -w -F OUTPUT
	stats_was=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	echo "# cost per call of each program (kernel.bpf_stats_enabled), $N frames of $FRAME bytes xnssv1 -> xnssv2:"
	for mode in bridge tc; do
		[ "$mode" = tc ] && { do_attach --mode tc >/dev/null || return 1; warmup; }
		# the datapath with the probe off: what "off" costs it
		[ "$mode" = tc ] && cost_of "tc, probe off" $(pin_progs prog_tc)
		xn latency "$BR" on >/dev/null || return 1
		cost_of "$mode, probe on" $(pin_progs lat_rx lat_tx lat_xdp prog_tc)
		xn latency "$BR" off >/dev/null
	done
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	xn detach "$BR" >/dev/null
	: >"$WORK/overhead"
	for mode in bridge tc; do
		[ "$mode" = tc ] && { do_attach --mode tc >/dev/null || return 1; }
		for r in $(seq "$ROUNDS"); do
			xn latency "$BR" off >/dev/null
			off=$(iperf_pps 3)
			xn latency "$BR" on >/dev/null
			on=$(iperf_pps 3)
			echo "$mode round $r: probe off $off pps, on $on pps"
			echo "$mode $off $on" >>"$WORK/overhead"
		done
	done
	xn latency "$BR" off >/dev/null
	echo "# medians over $ROUNDS interleaved rounds (iperf3 -u -l 64 -b 0, 3 s each):"
	for mode in bridge tc; do
		awk -v m="$mode" 'BEGIN { n = 0 } $1 == m { off[n] = $2; on[n++] = $3 }
		function med(a, n,   i, j, t) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
		END { o = med(off, n); p = med(on, n); printf "# %-6s probe off %d pps, on %d pps: %.1f%% fewer\n", m, o, p, o ? (o - p) * 100 / o : 0 }' "$WORK/overhead"
	done
}

# ------------------------------------------------------------- run

if ! check "preflight: root, tools, built" preflight ||
	! check "topology: bridge, 2 veth and 2 tap stand-ins" topo_up; then
	finish
fi
if [ "$OVERHEAD" = 1 ]; then
	overhead
	exit
fi
check "latency on before attach: probe pins only, no datapath" latency_on_unattached
check "before attach: $N frames counted exactly on the bridge path" bridge_counts
check "before attach: bridge latency histogram fills, p50 < 1 ms" lat_fills b0 b1 xnssv1 xnssv2 bridge "$N"
check "attach (tc) with the probe already on" do_attach --mode tc
check "after attach (tc): a warm-up frame each way arrived" warmup
check "after attach: $N frames / $((N * FRAME)) bytes exactly on the TC path" tc_counts
check "after attach: TC latency histogram fills, p50 < 1 ms" lat_fills t0 t1 xnssv1 xnssv2 tc "$N"
check "after attach: no frame of the transfer on the bridge path" lat_fills t0 t1 xnssv1 xnssv2 bridge 0
check "stats --latency shows bridge and tc side by side" side_by_side
check "stats --interval 0.3 --count 3 --json: one object per interval, rates" interval_json
check "exporter starts on 127.0.0.1:$PORT" exporter_start
check "exporter listens on loopback only" exporter_listens_loopback
check "exporter: strict format, same values as stats --json, 404" exporter_values
check "exporter stops on SIGTERM" exporter_stop
check "probe fallback without skb->redirected: TC path still told apart" fallback_mark
check "attach --mode xdp" do_attach --mode xdp
check "after attach (xdp): a warm-up frame each way arrived" warmup
check "xdp mode: $N frames exactly on the XDP path between taps" xdp_counts
check "xdp mode: XDP latency histogram fills, p50 < 1 ms" lat_fills x0 x1 xnsst1 xnsst2 xdp "$N"
check "latency off: links and programs gone, histograms kept" off_keeps
check "stats --reset zeroes counters and histograms" reset_counts
check "stats table: the devices' lifetime counters and xdpnet's since --reset under separate heads" table_heads
check "error exits" errors
check "detach leaves no pin and no program" do_detach
check "latency-only pins: status names them, detach removes them" latency_only_detach
check "exporter of the namespace after detach: attached 0, no path series" exporter_detached
finish
