#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A real Prometheus server scrapes xdpnet (root; issue 15's metrics that
# keep their meaning). Debian's server (scripts/promtool --server), run by
# hand on the loopback of the switch's namespace, scrapes two exporters,
# `xdpnet exporter` (every bridge of that namespace) and `xdpnet exporter
# xnpbr0`, once a second while one VM
# stand-in pings another at 50 a second, across: not attached, attach,
# detach, attach again, `stats --reset`. Before the server starts, 20,000
# pings give the ports a device lifetime count far above anything a window
# of the run may see (a counter that changed source on detach would jump by
# it). Over the server's HTTP API, for the whole run:
#   - no rate() over 10 s of any xdpnet_*_total series exceeds what the
#     stand-ins sent (1.5 x 50 frames a second per port, bytes likewise),
#     and no sum by port of the paths or of the verdicts does either;
#   - the traffic was seen: the device rate and the bypass while attached;
#   - xdpnet_attached{bridge} reads 0 through each detached phase, 1
#     through each attached one; the server never lost the target.
# Namespaces xnp-*: switch xnp-sw with bridge xnpbr0, veth stand-ins
# xnp-v1/2 (ports xnpv1/2). The exporters listen on 127.0.0.1:9436 and
# :9438, the server on 127.0.0.1:9437 of xnp-sw: nothing outside it sees
# them.
# Output: "ok N - ...", then "P passed, F failed". Options: --keep, -v.
set -u
. "$(dirname "$0")/lib.sh"

SW=xnp-sw
BR=xnpbr0
# shellcheck disable=SC2034 # lib.sh's: stand-ins' prefix, our pins
XNP=xnp PIN=$PIN_ROOT/$BR
# shellcheck disable=SC2034 # take_lock's (lib.sh)
LOCK=/run/lock/xnp-prometheus.pid
PROMTOOL=$ROOT/scripts/promtool
EXP=127.0.0.1:9436  # xdpnet exporter: every bridge of the namespace
EXP1=127.0.0.1:9438 # xdpnet exporter xnpbr0
SRV=127.0.0.1:9437
RATE=50         # pings a second, each way
FRAME=98        # an echo of 56 bytes: 14 + 20 + 8 + 56
PHASE_SCRAPES=15
parse_args "[--keep] [-v]" "$@"
traps_install

p_up() {
	local i
	remove_stale
	switch_up || return 1
	TOPO=veth
	for i in 1 2; do veth_guest_add "$i" || return 1; done
	# shellcheck disable=SC2034 # wait_ports_up's (lib.sh)
	PORTS=(xnpv1 xnpv2)
	wait_ports_up
}

# A device lifetime count far above the run's: on the bridge, before the
# server starts.
p_history() {
	local rx
	nsx xnp-v1 ping -q -f -c 20000 -W 1 10.99.1.2 >"$WORK/flood" 2>&1
	tail -n 2 "$WORK/flood"
	rx=$(ip -n "$SW" -s -j link show xnpv1 | jq '.[0].stats64.rx.packets')
	expect_ge "xnpv1 rx" "$rx" 20000
}

# exporter_start ADDR [BRIDGE]
exporter_start() {
	local f=$WORK/exp.$1
	nsenter --net="/run/netns/$SW" "$XDPNET" exporter ${2:+"$2"} --listen "$1" >"$f.out" 2>"$f.err" &
	track "$!"
	wait_until 5 grep -q listening "$f.out" || { cat "$f.err"; return 1; }
}

server_start() {
	cat >"$WORK/prom.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}
scrape_configs:
  - job_name: xdpnet
    static_configs: [{targets: ['$EXP', '$EXP1']}]
EOF
	"$PROMTOOL" check config "$WORK/prom.yml" || return 1
	ip netns exec "$SW" "$PROMTOOL" --server --config.file="$WORK/prom.yml" \
		--storage.tsdb.path="$WORK/tsdb" --web.listen-address="$SRV" \
		--log.level=warn >"$WORK/server.log" 2>&1 &
	SRV_PID=$!
	track "$SRV_PID"
	wait_until 20 api_ok /-/ready || { tail -n 20 "$WORK/server.log"; return 1; }
	"$PROMTOOL" --server --version | head -n 1
}

api_ok() { nsx "$SW" curl -sf -o /dev/null "http://$SRV$1"; }

# q PROMQL: an instant query now; the result's JSON.
q() { nsx "$SW" curl -sfG "http://$SRV/api/v1/query" --data-urlencode "query=$1"; }
# qr PROMQL START END: a range query at 1 s steps.
qr() {
	nsx "$SW" curl -sfG "http://$SRV/api/v1/query_range" --data-urlencode "query=$1" \
		--data-urlencode "start=$2" --data-urlencode "end=$3" --data-urlencode step=1
}

# The latest scrape of both targets (the older one's time), 0 before both.
last_scrape() {
	q 'timestamp(up{job="xdpnet"})' |
		jq -r 'if (.data.result | length) < 2 then 0 else [.data.result[].value[1] | tonumber] | min | floor end'
}
scraped_by() { [ "$(last_scrape)" -ge "$1" ]; }

traffic_start() {
	ip netns exec xnp-v1 ping -q -i "$(awk -v r=$RATE 'BEGIN { print 1 / r }')" 10.99.1.2 >"$WORK/ping" 2>&1 &
	PING=$!
	track "$PING"
}

# phase NAME CMD...: run CMD, then let the server scrape PHASE_SCRAPES
# times; the phase's span (PHASES) is from the second scrape after CMD to
# the one before the last.
PHASES=()
phase() {
	local name=$1 t0 t1
	shift
	"$@" || return 1
	wait_until 10 scraped_by 1 || { echo "the server never scraped"; return 1; }
	t0=$(($(last_scrape) + 2))
	wait_until $((PHASE_SCRAPES * 3)) scraped_by $((t0 + PHASE_SCRAPES)) ||
		{ echo "the server stopped scraping"; return 1; }
	t1=$(($(last_scrape) - 1))
	PHASES+=("$name $t0 $t1")
	echo "phase $name: $t0 .. $t1"
}

do_attach() { xn attach "$BR" >/dev/null; }
do_detach() { xn detach "$BR" >/dev/null; }
do_reset() { xn stats "$BR" --reset; }
nothing() { :; }

# max_rate PROMQL START END: the largest value of the range query, per
# series, as "value labels" lines, largest first.
max_rate() {
	qr "$1" "$2" "$3" >"$WORK/q.json" || { echo "query failed: $1"; return 1; }
	jq -r '.data.result[] | "\([.values[][1] | tonumber] | max) \(.metric | del(.job) | tostring)"' \
		"$WORK/q.json" | sort -gr
}

# within PROMQL BOUND: every series of PROMQL stays at or below BOUND over
# the run; prints the largest.
within() {
	local out
	if ! out=$(max_rate "$1" "$RUN0" "$RUN1"); then
		echo "$out"
		return 1
	fi
	[ -n "$out" ] || { echo "no series for $1"; return 1; }
	echo "$1: largest $(echo "$out" | head -n 1) (bound $2, $(echo "$out" | wc -l) series)"
	echo "$out" | awk -v b="$2" '$1 + 0 > b + 0 { print "FAIL: above " b ": " $0; bad = 1 } END { exit bad }'
}

# Every counter the server has of xdpnet's (rate() drops the name: one
# query a name).
counters() {
	q_names | jq -r '.data[] | select(test("^xdpnet_.*_total$"))'
}
q_names() { nsx "$SW" curl -sf "http://$SRV/api/v1/label/__name__/values"; }

rates_bounded() {
	local st=0 pk=$((RATE * 3 / 2)) by=$((RATE * FRAME * 3 / 2)) m n=0
	RUN0=${PHASES[0]#* } RUN0=${RUN0%% *}
	RUN1=${PHASES[-1]##* }
	for m in $(counters); do
		n=$((n + 1))
		case $m in
		*_bytes_total) within "rate($m[10s])" "$by" || st=1 ;;
		*) within "rate($m[10s])" "$pk" || st=1 ;;
		esac
	done
	expect_ge "xdpnet counters the server has" "$n" 14 || st=1
	within 'sum by (instance, bridge, port) (rate(xdpnet_packets_total[10s]))' "$pk" || st=1
	within 'sum by (instance, bridge, port) (rate(xdpnet_verdict_packets_total[10s]))' "$pk" || st=1
	return $st
}

# least PROMQL START END MIN: every step's value at or above MIN.
least() {
	local lo
	qr "$1" "$2" "$3" >"$WORK/q.json" || return 1
	lo=$(jq -r '[.data.result[].values[][1] | tonumber] | min // -1' "$WORK/q.json")
	echo "$1 over $2..$3: at least $lo (want >= $4)"
	awk -v a="$lo" -v b="$4" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

traffic_seen() {
	local p st=0 name t0 t1
	for p in "${PHASES[@]}"; do
		read -r name t0 t1 <<<"$p"
		least 'rate(xdpnet_rx_packets_total{port="xnpv1"}[10s])' "$((t0 + 10))" "$t1" $((RATE / 2)) || st=1
		case $name in
		attach*)
			least 'rate(xdpnet_packets_total{port="xnpv1",path="tc"}[10s])' "$((t0 + 10))" "$t1" $((RATE / 2)) || st=1
			;;
		esac
	done
	return $st
}

attached_reads() {
	local p name t0 t1 want vals n up st=0
	for p in "${PHASES[@]}"; do
		read -r name t0 t1 <<<"$p"
		case $name in attach* | reset) want=1 ;; *) want=0 ;; esac
		qr "xdpnet_attached{bridge=\"$BR\"}" "$t0" "$t1" >"$WORK/q.json" || return 1
		vals=$(jq -c '[.data.result[].values[][1]] | unique' "$WORK/q.json")
		n=$(jq '[.data.result[].values[]] | length' "$WORK/q.json")
		up=$(qr 'up{job="xdpnet"}' "$t0" "$t1" | jq '[.data.result[].values[]] | length')
		echo "phase $name: xdpnet_attached $vals at $n of $up steps (want [\"$want\"] at all)"
		[ "$vals" = "[\"$want\"]" ] || st=1
		# the series never went missing (stale) while the target was up
		[ "$n" = "$up" ] && [ "$up" -ge $((t1 - t0)) ] || { echo "FAIL: xdpnet_attached went missing"; st=1; }
	done
	return $st
}

target_up() {
	local n
	n=$(q "min(min_over_time(up{job=\"xdpnet\"}[$((RUN1 - RUN0 + 5))s]))" | jq -r '.data.result[0].value[1]')
	echo "min up over the run: $n"
	[ "$n" = 1 ]
}

check "preflight: root, tools, built CLI, the server" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$XDPNET"'" ] &&
	command -v curl jq >/dev/null && "'"$PROMTOOL"'" --server --version >/dev/null' || finish
check "preflight: no other prometheus.sh" take_lock || finish
check "prometheus: topology up (2 veth stand-ins)" p_up || finish
check "prometheus: 20,000 pings first (the devices' lifetime counts)" p_history || finish
check "prometheus: exporter of the namespace on $EXP" exporter_start "$EXP" || finish
check "prometheus: exporter of $BR on $EXP1" exporter_start "$EXP1" "$BR" || finish
check "prometheus: server on $SRV, scraping every second" server_start || finish
check "prometheus: pings at $RATE a second" traffic_start || finish
check "prometheus: not attached" phase detached0 nothing || finish
check "prometheus: attach" phase attach1 do_attach || finish
check "prometheus: detach" phase detached1 do_detach || finish
check "prometheus: attach again" phase attach2 do_attach || finish
check "prometheus: stats --reset" phase reset do_reset || finish
check "prometheus: no rate() above what was sent, per series and per port" rates_bounded
check "prometheus: the traffic was seen, on the bypass while attached" traffic_seen
check "prometheus: xdpnet_attached 0 while detached, 1 while attached" attached_reads
check "prometheus: the target stayed up" target_up
check "prometheus: detach" do_detach
finish
