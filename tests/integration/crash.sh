#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Crash safety (issue 9 part 3), root. Under running traffic, kill -9 the
# follower at random moments, many times, while ports join and leave the
# bridge in a loop (so that many kills land mid-sync), and kill -9 the CLI
# at random moments of `xdpnet attach` (fresh, and re-attach with pending
# changes). After each kill:
#   - the datapath keeps forwarding (the TC stage's redirect counter grows);
#   - `xdpnet status` says loudly that no follower runs (text and JSON);
#   - the next `xdpnet attach` succeeds and brings a follower back, and the
#     state is whole: every tap/veth port of the bridge carried and hooked
#     with the current program, no hook and no pin on a port that left,
#     ports and port_idx maps agree (bpftool), no temporary pins left.
# Throughout: TCP transfers between stand-ins, back to back, each checked
# byte for byte (tests/integration/xfer.py), and pings every 2 ms (a ping
# flood took a core for the whole suite, from the suite beside it). Zero lost
# connections and zero corrupt bytes; the counts are printed at the end.
#
# Namespaces xnk-*: switch xnk-sw with bridge xnkbr0, veth stand-ins
# xnk-v1..3 (ports xnkv1..3), churned ports xnkcN (veth pairs inside
# xnk-sw). Output: "ok N - ...", then "P passed, F failed".
# Options: --rounds N (kills of each kind, default 20), --keep, -v.
set -u
. "$(dirname "$0")/lib.sh"

SW=xnk-sw
BR=xnkbr0
XNP=xnk
PIN=$PIN_ROOT/$BR
TOPO=veth
ROUNDS=20
# Our own names: this suite may run next to run.sh's.
# shellcheck disable=SC2034 # take_lock's (lib.sh)
LOCK=/run/lock/xnk-crash.pid
# shellcheck disable=SC2034 # OPT_SHIFT: parse_args's (lib.sh)
suite_opt() {
	case $1 in
	--rounds) ROUNDS=${2-}; OPT_SHIFT=2 ;;
	*) return 1 ;;
	esac
}
parse_args "[--rounds N] [--keep] [-v]" "$@"
traps_install

# ---------------------------------------------------------------- topology

k_up() {
	local i j
	switch_up || return 1
	GUESTS=() PORTS=()
	for i in 1 2 3; do
		veth_guest_add "$i" || return 1
		GUESTS+=("xnk-v$i") PORTS+=("xnkv$i")
	done
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] || ip -n "xnk-v$i" neigh replace "$(g_ip4 $j)" lladdr "$(g_mac $j)" dev eth0 nud permanent
	done; done
	wait_ports_up
}

# ---------------------------------------------------------------- traffic

# driver NAME SRC DST ADDR PORT: TCP transfers back to back until $WORK/stop;
# one line per connection in $WORK/traffic.NAME ("ok" or "FAIL ...").
driver() {
	local name=$1 src=$2 dst=$3 addr=$4 port=$5 spid cpid rc src_rc n=0
	trap 'kill $spid $cpid 2>/dev/null; exit 0' TERM
	while [ ! -e "$WORK/stop" ]; do
		n=$((n + 1))
		ip netns exec "$dst" timeout -k 2 60 "$PY" "$XFER" tcp-server --port "$port" \
			--timeout 20 >"$WORK/srv.$name" 2>&1 &
		spid=$!
		wait_line "$WORK/srv.$name" LISTENING 5 || { echo "FAIL $n: server did not start" >>"$WORK/traffic.$name"; kill $spid; wait $spid; sleep 0.2; continue; }
		ip netns exec "$src" timeout -k 2 60 "$PY" "$XFER" tcp-client --to "$addr" --port "$port" \
			--bytes $((24 * 1024 * 1024)) --rate $((6 * 1024 * 1024)) --timeout 20 >"$WORK/cli.$name" 2>&1 &
		cpid=$!
		wait $cpid; src_rc=$?
		wait $spid; rc=$?
		if [ $src_rc = 0 ] && [ $rc = 0 ]; then
			echo "ok $n $(grep -o 'OK .*' "$WORK/cli.$name")" >>"$WORK/traffic.$name"
		else
			echo "FAIL $n client=$src_rc server=$rc: $(tr '\n' ' ' <"$WORK/cli.$name") $(tr '\n' ' ' <"$WORK/srv.$name")" >>"$WORK/traffic.$name"
		fi
	done
}

traffic_start() {
	rm -f "$WORK/stop" "$WORK"/traffic.*
	driver a xnk-v1 xnk-v2 "$(g_ip4 2)" 21001 & track $!; DRV_A=$!
	driver b xnk-v2 xnk-v3 "$(g_ip4 3)" 21002 & track $!; DRV_B=$!
	ip netns exec xnk-v3 ping -q -i 0.002 -s 200 "$(g_ip4 1)" >"$WORK/flood" 2>&1 & track $!; FLOOD=$!
	echo "drivers $DRV_A $DRV_B, pings $FLOOD"
}

traffic_stop() {
	local i
	touch "$WORK/stop"
	kill -INT "$FLOOD" 2>/dev/null
	for i in $(seq 300); do
		kill -0 "$DRV_A" 2>/dev/null || kill -0 "$DRV_B" 2>/dev/null || break
		sleep 0.1
	done
	wait "$DRV_A" "$DRV_B" "$FLOOD" 2>/dev/null
	untrack "$DRV_A"; untrack "$DRV_B"; untrack "$FLOOD"
}

traffic_result() {
	local ok fail mism
	cat "$WORK"/traffic.* "$WORK/flood" | grep -v '^\.*$' | tail -n 60
	ok=$(cat "$WORK"/traffic.* | grep -c '^ok')
	fail=$(cat "$WORK"/traffic.* | grep -c '^FAIL')
	mism=$(cat "$WORK"/traffic.* | grep -c 'MISMATCH')
	FLOOD_LINE=$(grep 'packets transmitted' "$WORK/flood")
	echo "TCP connections: $ok intact, $fail failed ($mism with corrupt bytes); pings: $FLOOD_LINE"
	TCP_OK=$ok
	[ "$fail" = 0 ] && [ "$ok" -gt 0 ]
}

# ---------------------------------------------------------------- churn
#
# Ports xnkcN (veth pairs inside xnk-sw) join and leave the bridge in
# bursts: a batch of 4 joins, then some leave (nomaster or deleted).
# Paused while the test checks the state ($WORK/pause; it answers in
# $WORK/paused).

churn() {
	local n=0 k i
	trap 'exit 0' TERM
	while [ ! -e "$WORK/stop" ]; do
		# (No process but ip: this loop runs for the whole suite.)
		if [ -e "$WORK/pause" ]; then : >"$WORK/paused"; sleep 0.05; continue; fi
		[ -e "$WORK/paused" ] && rm -f "$WORK/paused"
		echo "$n" >"$WORK/burst" # kill_follower aims at what follows
		{
			for i in 1 2 3 4; do
				n=$((n + 1)); k=$((n % 12))
				echo "link del xnkc$k"
				echo "link add xnkc$k type veth peer name xnkd$k"
				echo "link set xnkc$k master $BR up"
				echo "link set xnkd$k up"
			done
		} | ip -n "$SW" -force -batch - >/dev/null 2>&1
		sleep 0.0$((RANDOM % 10))
		{
			echo "link set xnkc$(((n - 1) % 12)) nomaster"
			echo "link del xnkc$(((n - 2) % 12))"
		} | ip -n "$SW" -force -batch - >/dev/null 2>&1
		sleep 0.0$((RANDOM % 10))
	done
}

churn_pause() {
	local i
	touch "$WORK/pause"
	for ((i = 0; i < 100; i++)); do [ -e "$WORK/paused" ] && return 0; sleep 0.05; done
	echo "churn did not pause"; return 1
}
churn_resume() { rm -f "$WORK/pause" "$WORK/paused"; }

# ---------------------------------------------------------------- checks

follower_pid() {
	local p
	p=$(cat "/run/xdpnet/$BR.pid" 2>/dev/null)
	[ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "follow $BR" && echo "$p"
}

tc_redirects() { # total tc_redirect over the stand-ins' ports
	xn status "$BR" --json 2>/dev/null | jq '[.bridges[0].ports[] | select(.name | test("^xnkv")) | .counters.tc_redirect.packets] | add // 0'
}

# The datapath keeps forwarding: the stand-ins' bypass counter grows.
still_forwarding() {
	local a b i
	a=$(tc_redirects)
	for i in $(seq 40); do
		sleep 0.05
		b=$(tc_redirects)
		[ "$b" -gt $((a + 50)) ] 2>/dev/null && { echo "tc_redirect $a -> $b"; return 0; }
	done
	echo "FAIL: tc_redirect $a -> $b: the bypass stopped"
	return 1
}

# status says loudly that no follower runs.
says_no_follower() {
	local t j
	t=$(xn status "$BR" 2>&1)
	j=$(xn status "$BR" --json 2>/dev/null | jq -c '.bridges[0].follower')
	echo "$t" | head -3
	echo "json follower: $j"
	echo "$t" | grep -q 'WARNING: no follower is running' || { echo "FAIL: status does not warn"; return 1; }
	[ "$(echo "$j" | jq .running)" = false ] || { echo "FAIL: json says running"; return 1; }
}

# The state is whole (after an attach, churn paused).
consistent() {
	local f=$WORK/cons.json want got pid n links pins idx bad
	xn status "$BR" --json >"$f" || { echo "status failed"; return 1; }
	want=$(ip -n "$SW" -j -d link show master "$BR" | jq -r '.[] | select(.linkinfo.info_kind == "veth" or .linkinfo.info_kind == "tun") | .ifindex' | sort -n | tr '\n' ' ')
	got=$(jq -r '.bridges[0].ports[].ifindex' "$f" | sort -n | tr '\n' ' ')
	echo "bridge's ports: $want"
	echo "carried:        $got"
	[ "$want" = "$got" ] || { echo "FAIL: carried ports differ from the bridge's"; return 1; }
	jq -e '.bridges[0].follower.running' "$f" >/dev/null || { echo "FAIL: no follower"; return 1; }
	pid=$(jq '[.bridges[0].ports[].tc_prog_id] | unique' "$f")
	echo "tc programs: $pid"
	jq -e '.bridges[0].ports | all(.hook == "tcx" and .tc_prog_id > 0)' "$f" >/dev/null &&
		[ "$(echo "$pid" | jq length)" = 1 ] || { echo "FAIL: a port without the current hook"; return 1; }
	pid=$(echo "$pid" | jq '.[0]')
	n=$(echo "$want" | wc -w)
	links=$(bpftool link show -j | jq --argjson p "$pid" '[.[] | select(.prog_id == $p)] | length')
	pins=$(ls "$PIN" | grep '^tc_' | sed 's/^tc_//' | sort -n | tr '\n' ' ')
	echo "links running $pid: $links; tc pins: $pins"
	[ "$links" = "$n" ] || { echo "FAIL: $links links run the TC program, $n ports"; return 1; }
	[ "$pins" = "$want" ] || { echo "FAIL: tc pins differ from the ports"; return 1; }
	if ls "$PIN" | grep -q '^new_'; then echo "FAIL: temporary pins left: $(ls "$PIN" | grep '^new_' | tr '\n' ' ')"; return 1; fi
	idx=$(bpftool map dump pinned "$PIN/port_idx" -j | jq -c '[.[] | .formatted | [.key, .value]] | sort')
	echo "port_idx: $idx"
	[ "$(echo "$idx" | jq -r '[.[][0]] | sort | map(tostring) | join(" ")')" = "$(echo $want)" ] ||
		{ echo "FAIL: port_idx keys differ from the ports"; return 1; }
	bad=$(bpftool map dump pinned "$PIN/ports" -j | jq --argjson idx "$idx" '
		[.[] | .formatted | select(.value.ifindex != 0) | [.value.ifindex, .key]] | sort as $slots |
		if $slots == $idx then 0 else {slots: $slots, idx: $idx} end')
	[ "$bad" = 0 ] || { echo "FAIL: ports map disagrees with port_idx: $bad"; return 1; }
}

# ---------------------------------------------------------------- rounds

K_F=0 K_F_SYNC=0 K_C_HALF=0 K_C=0 K_C_HIT=0 K_C_FRESH=0 RESTART_FAIL=0

# One follower kill: at a random moment (0-40 ms) after a churn burst
# starts, when the follower is likely busy with it.
kill_follower() {
	local pid t b0 i
	pid=$(follower_pid)
	[ -n "$pid" ] || { echo "FAIL: no follower to kill"; return 1; }
	local b=
	read -r b0 2>/dev/null <"$WORK/burst"
	for ((i = 0; i < 300; i++)); do
		read -r b 2>/dev/null <"$WORK/burst"
		[ "$b" != "$b0" ] && break
		sleep 0.01
	done
	t=$((RANDOM % 40))
	sleep "$(printf '0.%03d' $t)"
	kill -KILL "$pid" || return 1
	K_F=$((K_F + 1))
	echo "killed follower $pid after ${t} ms; log tail: $(tail -n 2 "/run/xdpnet/$BR.log" | tr '\n' '|')"
	for ((t = 0; t < 50; t++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
}

# Right after a kill (churn paused): did it leave a port half-done? A
# device that is still there, in the ports map without its hook, or
# hooked without being in the map. (Ports that changed after the kill are
# merely not followed yet: not counted.)
half_done() {
	local f=$WORK/half.json devs
	xn status "$BR" --json >"$f" 2>/dev/null || return 1
	devs=$(ip -n "$SW" -j link show | jq -c '[.[].ifindex]')
	jq -r --argjson d "$devs" '.bridges[0].ports[] | select(.ifindex as $i | $d | index($i)) |
		select(.tc_prog_id == 0) | "in the map, not hooked: \(.name)"' "$f"
	ls "$PIN" | grep '^tc_' | sed 's/^tc_//' | while read -r i; do
		echo "$devs" | jq -e --argjson i "$i" 'index($i)' >/dev/null || continue
		jq -e --argjson i "$i" '[.bridges[0].ports[].ifindex] | index($i)' "$f" >/dev/null ||
			echo "hooked, not in the map: ifindex $i"
	done
}

# attach again (churn paused); a follower must be back.
reattach() {
	local rc
	xn attach "$BR"
	rc=$?
	echo "attach exit $rc"
	[ "$rc" = 0 ] || { RESTART_FAIL=$((RESTART_FAIL + 1)); return 1; }
	for ((rc = 0; rc < 50; rc++)); do [ -n "$(follower_pid)" ] && break; sleep 0.05; done
	echo "follower: $(follower_pid)"
	[ -n "$(follower_pid)" ] || { echo "FAIL: no follower after attach"; RESTART_FAIL=$((RESTART_FAIL + 1)); return 1; }
}

# A follower to kill (after a round that failed, there may be none).
ensure_follower() {
	[ -n "$(follower_pid)" ] && return 0
	echo "no follower before the round (an earlier failure): attach"
	churn_pause && xn attach "$BR" >/dev/null
	churn_resume
	[ -n "$(follower_pid)" ]
}

follower_round() {
	local h
	ensure_follower || return 1
	kill_follower || return 1
	churn_pause || return 1
	h=$(half_done)
	[ -n "$h" ] && { K_F_SYNC=$((K_F_SYNC + 1)); echo "left half-done: $h"; }
	says_no_follower || return 1
	still_forwarding || return 1
	reattach || return 1
	consistent || return 1
	churn_resume
}

# One CLI kill: fresh attach (after detach) or re-attach with work to do.
cli_round() { # fresh|sync
	local how=$1 t pid st h
	churn_pause || return 1
	pid=$(follower_pid)
	if [ "$how" = fresh ]; then
		xn detach "$BR" || return 1
		K_C_FRESH=$((K_C_FRESH + 1))
	else
		# Stop the follower (kill it) and change ports, so attach has
		# work: ports to hook, ports to drop.
		[ -n "$pid" ] && kill -KILL "$pid"
		churn_resume; sleep 0.3; churn_pause || return 1
	fi
	# A random moment of the attach: up to its duration (measured once
	# per kind; the exec chain before xdpnet takes a few ms).
	t=$((RANDOM % ${ATTACH_MS[$how]:-300}))
	xn_bg attach "$BR"
	sleep "$(printf '0.%03d' $t)"
	st=$(cat "/proc/$BG/comm" 2>/dev/null)
	if kill -KILL "$BG" 2>/dev/null && [ "$st" = xdpnet ]; then
		K_C_HIT=$((K_C_HIT + 1))
		echo "killed attach ($how) after $t ms"
	else
		echo "attach ($how) was over (or not yet xdpnet) at $t ms: $st"
	fi
	wait "$BG" 2>/dev/null
	K_C=$((K_C + 1))
	h=$(half_done)
	[ -n "$h" ] && { K_C_HALF=$((K_C_HALF + 1)); echo "left half-done: $h"; }
	still_forwarding_or_bridged || return 1
	reattach || return 1
	consistent || return 1
	churn_resume
}

# How long an attach of each kind takes here (ms), unkilled.
declare -A ATTACH_MS
time_attach() { # fresh|sync
	local t0 t1
	churn_pause || return 1
	if [ "$1" = fresh ]; then
		xn detach "$BR" >/dev/null || return 1
	else
		kill -KILL "$(follower_pid)" 2>/dev/null
		churn_resume; sleep 0.3; churn_pause || return 1
	fi
	t0=$(date +%s%N)
	xn attach "$BR" || return 1
	t1=$(date +%s%N)
	ATTACH_MS[$1]=$(((t1 - t0) / 1000000 + 1))
	echo "attach ($1) took ${ATTACH_MS[$1]} ms"
}

# The state a kill leaves between pinning the maps of a fresh attach and
# writing meta (a window too short to hit often at random): meta all
# zero. The next attach must finish the job, not call it another
# version's state.
meta_zero() {
	local vs
	churn_pause || return 1
	vs=$(bpftool map show pinned "$PIN/meta" -j | jq .bytes_value)
	echo "meta: $vs bytes, zeroed"
	bpftool map update pinned "$PIN/meta" key 0 0 0 0 value $(printf '0 %.0s' $(seq "$vs")) || return 1
	kill -KILL "$(follower_pid)" 2>/dev/null
	xn attach "$BR" 2>"$WORK/mz.err"
	echo "attach exit $?; stderr:"; cat "$WORK/mz.err"
	[ ! -s "$WORK/mz.err" ] || { echo "FAIL: attach complained"; return 1; }
	reattach && consistent
}

# After a killed attach the stand-ins still reach each other (bypassed or
# bridged: the driver's transfers check the bytes).
still_forwarding_or_bridged() {
	nsx xnk-v1 ping -c 3 -i 0.05 -W 1 "$(g_ip4 2)" | tail -n 2
}

# round FN ARGS...: one round; the churn goes on afterwards, whatever
# the round found.
round() {
	local rc
	"$@"
	rc=$?
	churn_resume
	return $rc
}

# ---------------------------------------------------------------- main

if ! check "preflight: root, tools, built CLI" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$XDPNET"'" ] && command -v bpftool jq nsenter >/dev/null'; then finish; fi
check "preflight: no other crash.sh" take_lock || finish
remove_stale
ensure_bpffs
check "crash: topology up (xnk-sw, bridge $BR, 3 veth stand-ins)" k_up || finish
check "crash: attach (a follower starts)" reattach || finish
check "crash: state whole after attach" consistent
check "crash: TCP transfers and pings every 2 ms start" traffic_start
churn & track $!; CHURN=$!

for r in $(seq "$ROUNDS"); do
	check "crash: kill -9 follower #$r under churn; status warns, forwarding goes on, attach restores a whole state" round follower_round
done
check "crash: time a fresh attach" round time_attach fresh
check "crash: time an attach with work to do" round time_attach sync
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then how=sync; else how=fresh; fi
	check "crash: kill -9 of 'xdpnet attach' ($how) #$r; attach again restores a whole state" round cli_round "$how"
done

check "crash: attach after a kill between pinning a fresh attach's maps and writing meta" round meta_zero

touch "$WORK/stop"; wait "$CHURN"; untrack "$CHURN"
traffic_stop
check "crash: every TCP connection intact (sha256), none lost" traffic_result
check "crash: final state whole" consistent
note "follower kills: $K_F ($K_F_SYNC left a port half-done); attach kills: $K_C ($K_C_HIT hit a running xdpnet, $K_C_FRESH fresh attaches, $K_C_HALF left a port half-done); failed restarts: $RESTART_FAIL; TCP connections intact: ${TCP_OK:-0}; pings: ${FLOOD_LINE:-?}"
check "crash: detach" xn detach "$BR"
check "crash: detach left no pins" sh -c "[ ! -e '$PIN' ]"
finish
