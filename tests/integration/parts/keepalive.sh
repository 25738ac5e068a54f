# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): the bridge's FDB entries of bypassed
# guests stay dynamic and on their ports through more than twice the
# ageing time.

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
	# Every guest's entry fresh when the bypass starts: entries older
	# than 5 s age out at once, and a flow's first frames would then be
	# flooded (the earlier parts leave them of any age).
	ping_all -c 1 || return 1
	do_attach "$mode" || return 1
	ref=$(xn status "$BR" --json | jq '.bridges[0].refresh_ms')
	echo "refresh_ms=$ref"
	[ "$ref" -gt 0 ] && [ "$ref" -lt 5000 ] || { echo "FAIL: refresh_ms must be below ageing (5000 ms)"; st=1; }
	status_json "$f0"
	local w0=0 w1=0 ms0 ms1
	ms0=$(date +%s%3N)
	for i in 1 2 3; do for j in 1 2 3; do [ $i = $j ] || w0=$((w0 + $(witness "$(g_port $i)" "$(g_port $j)"))); done; done
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		ip netns exec "$(g_ns $i)" timeout $((KA_SECS + 8)) ping -q -i 0.2 -c $((KA_SECS * 5)) -w $((KA_SECS + 5)) "$(g_ip4 $j)" \
			>"$WORK/ka-ping-$i$j" 2>&1 &
		pids+=($!)
		track $!
	done; done
	# A sample a second from 6 s on, by the clock (on a loaded host a
	# sample takes a while, and a count of samples ran past the pings'
	# end: the entries then aged out as they should), and only while
	# every ping still runs: the traffic must be flowing when a sample
	# finds an entry missing.
	local s0=$EPOCHSECONDS alive
	while sleep 1; do
		t=$((EPOCHSECONDS - s0))
		[ "$t" -lt "$KA_SECS" ] || break
		alive=1
		for j in "${pids[@]}"; do kill -0 "$j" 2>/dev/null || alive=0; done
		[ "$alive" = 1 ] || { echo "t=${t}s: a ping ended; sampling stops"; break; }
		if [ "$t" -ge 6 ] && ! ka_fdb_ok >"$WORK/ka-miss"; then
			echo "t=${t}s: $(cat "$WORK/ka-miss")"; miss=1
		fi
	done
	[ "$t" -ge 8 ] || { echo "FAIL: sampled only ${t} s of the ${KA_SECS} s of traffic"; st=1; }
	echo "sampling ended at $(date +%T.%N), after ${t} s; ageing_time now: $(ip -n "$SW" -d link show "$BR" | grep -o 'ageing_time [0-9]*')"
	for t in "${pids[@]}"; do wait "$t"; untrack "$t"; done
	echo "pings ended at $(date +%T.%N)"
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		grep -E 'packets transmitted' "$WORK/ka-ping-$i$j" | sed "s/^/ping $i->$j: /"
		grep -qE ' 0% packet loss| [1-4]% packet loss' "$WORK/ka-ping-$i$j" || { echo "FAIL: ping $i->$j lost > 4%"; st=1; }
	done; done
	# (Only the samples above count: this one comes after the traffic,
	# and on a busy host seconds after it, when the entries may have aged
	# out as they should: seen beside three suites, a guest and a CPU hog.)
	echo "the bridge's FDB after the traffic, at $(date +%T.%N):"
	bridge -n "$SW" -s fdb show br "$BR" | grep -i '02:99:'
	[ "$miss" = 0 ] || { echo "FAIL: the bridge forgot a guest while the bypass carried its traffic"; st=1; }
	status_json "$f1"
	ms1=$(date +%s%3N)
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
	# At most one keep-alive per source per interval (+2 for the interval
	# boundaries at both ends of the window).
	local p red=0 refr flood other kas=0 kamax=$(( (ms1 - ms0) / ref + 2 )) fl=0 oth=0
	for p in "${PORTS[@]}"; do
		refr=$(($(ctr "$f1" "$p" pass_refresh) - $(ctr "$f0" "$p" pass_refresh)))
		flood=$(ctr_sum "$f0" "$f1" "$p" pass_mcast pass_unknown)
		other=$(ctr_sum "$f0" "$f1" "$p" $(jq -r --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | .counters
			| keys[] | select(test("^pass_") and (test("^pass_(refresh|mcast|unknown)$") | not))' "$f1"))
		red=$((red + $(ctr_sum "$f0" "$f1" "$p" tc_redirect xdp_redirect)))
		echo "$p: pass_refresh +$refr (keep-alive frames), pass_mcast/unknown +$flood (flooded), other pass_* +$other"
		[ "$refr" -gt 0 ] || { echo "FAIL: $p: no keep-alive frame"; st=1; }
		[ "$refr" -le "$kamax" ] || { echo "FAIL: $p: more than one keep-alive per ${ref} ms ($kamax in $((ms1 - ms0)) ms)"; st=1; }
		# A keep-alive frame goes to a guest the bridge has (warmed
		# up, then kept: ka_fdb_ok); any other frame passed may find
		# its destination aged there (pass_src is decided before the
		# destination is looked at) and be flooded to both others.
		kas=$((kas + refr + (other + flood) * 2))
		fl=$((fl + flood)); oth=$((oth + other))
	done
	echo "redirected $red frames; bridge (witness) forwarded $((w1 - w0))"
	[ "$red" -ge $((KA_SECS * 5 * 6 * 2 * 8 / 10)) ] || { echo "FAIL: too few redirects"; st=1; }
	# An entry may still age between the warm-up and the first
	# keep-alive: the first frames of a flow can go to the bridge
	# (unknown, or a source to learn again), at most one each way per flow.
	[ $((fl + oth)) -le 12 ] || { echo "FAIL: $((fl + oth)) frames passed for reasons other than keep-alive"; st=1; }
	# Static neighbours, so no ARP: all the bridge forwarded between the
	# guests are the frames xdpnet passed it (a flooded one reaches the two
	# other guests).
	[ $((w1 - w0)) -le "$kas" ] || { echo "FAIL: the bridge carried $((w1 - w0)) frames, more than the $kas xdpnet passed it"; st=1; }
	return $st
}

keepalive_restore() {
	local i
	do_detach >/dev/null
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	for i in 1 2 3; do ip -n "$(g_ns $i)" neigh flush dev eth0 nud permanent; done
	return 0
}
