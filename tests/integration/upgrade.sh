#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Upgrades in place (issue 9 part 4), root. Builds other xdpnet builds
# into build/upgrade/ with BPF_EXTRA (bpf/ has small hooks for them):
#   v1   -DXDPNET_TEST_VARIANT=1: programs that differ, same map layouts
#   fdb  -DXDPNET_TEST_MAX_FDB=8192: an fdb map of another size
# and, with XDP on two taps and TC on two veths, during TCP transfers
# (byte-exact, tests/integration/xfer.py) and pings every 2 ms:
#   - `attach` with v1 and back: every tcx and XDP link keeps its id and
#     runs the new program (bpf_link_update), the fdb and stats maps are
#     the same maps, no counter goes down, a follower of the new build
#     takes over;
#   - `xdpnet follow` of v1 started where a follower of the old build ran
#     (a unit restarted with a newer binary): the same;
#   - the fdb build (another default size): the pinned fdb map and its
#     size are kept; `attach --fdb-size` (same build, then across builds)
#     makes the map anew in the size asked for, carries every entry over
#     and refills it from the bridge, counters kept; a size below the
#     entries held is refused with one line, nothing changed;
#   - counters pinned in a layout no build can carry over: attach refuses
#     with one line that says what to do, and changes nothing;
#   - zero lost connections, zero corrupt bytes, the pings' loss.
# Where the kernel has tcx, another party's tcx programs sit on xnuv1's
# ingress, one before xdpnet's and one after (tests/tools/xnt_tcx): every
# upgrade keeps that order.
# Where the kernel runs libxdp's dispatcher, the taps' XDP stage is in a
# dispatcher, not a link: the upgrade puts the new build's program in and
# takes the old one out (a new program id, one for both taps). With
# --xdp-filter, xdp-filter (xdp-tools) runs on xnut1 throughout (loaded
# before the first attach, denying an address nobody uses): it stays
# loaded through every upgrade, in the dispatcher beside xdpnet where the
# kernel runs one (else xnut1 keeps the TC stage).
#
# Namespaces xnu-*: switch xnu-sw with bridge xnubr0, veth stand-ins
# xnu-v1/2 (ports xnuv1/2), tap stand-ins xnu-t1/2 (xnut1/2). Output:
# "ok N - ...", then "P passed, F failed". Options: --keep, -v.
set -u
. "$(dirname "$0")/lib.sh"

SW=xnu-sw
BR=xnubr0
XNP=xnu
PIN=$PIN_ROOT/$BR
B0=$XDPNET
VDIR=$ROOT/build/upgrade
B1=$VDIR/v1/xdpnet
BF=$VDIR/fdb/xdpnet
# shellcheck disable=SC2034 # take_lock's (lib.sh)
LOCK=/run/lock/xnu-upgrade.pid
XDP_FILTER=0
# shellcheck disable=SC2034 # OPT_SHIFT: parse_args's (lib.sh)
suite_opt() {
	case $1 in
	--xdp-filter) XDP_FILTER=1 ;;
	*) return 1 ;;
	esac
}
parse_args "[--xdp-filter] [--keep] [-v]" "$@"
traps_install

# xb BUILD ARGS...: the CLI of another build.
xb() { local b=$1; shift; XDPNET=$b xn "$@"; }

build_variants() {
	make -C "$ROOT" -s OUT="$VDIR/v1" BPF_EXTRA=-DXDPNET_TEST_VARIANT=1 "$VDIR/v1/xdpnet" &&
		make -C "$ROOT" -s OUT="$VDIR/fdb" BPF_EXTRA=-DXDPNET_TEST_MAX_FDB=8192 "$VDIR/fdb/xdpnet" || return 1
	local a b
	a=$(cmp -s "$ROOT/build/xdpnet.bpf.o" "$VDIR/v1/xdpnet.bpf.o" && echo same || echo differ)
	b=$(cmp -s "$ROOT/build/xdpnet_live.bpf.o" "$VDIR/v1/xdpnet_live.bpf.o" && echo same || echo differ)
	echo "v1's BPF objects: portable $a, live $b"
	[ "$a" = differ ] && [ "$b" = differ ]
}

u_up() {
	local i j
	remove_stale
	switch_up || return 1
	GUESTS=() PORTS=()
	TOPO=veth
	for i in 1 2; do veth_guest_add "$i" || return 1; done
	TOPO=tap
	for i in 1 2; do relay_start "$i" || return 1; done
	# Addresses: veths 10.99.1.i, taps 10.99.2.i (one /16 would do; two
	# /24s with a route keep lib.sh's numbering).
	for i in 1 2; do
		ip -n "xnu-v$i" route add 10.99.2.0/24 dev eth0 || return 1
		ip -n "xnu-t$i" route add 10.99.1.0/24 dev eth0 || return 1
	done
	PORTS=(xnuv1 xnuv2 xnut1 xnut2)
	wait_ports_up
}

# ---------------------------------------------------------------- traffic

traffic_start() {
	# At 6 MB/s until traffic_finish, however long the upgrades take (a
	# TCG guest takes minutes: a fixed size ran out, and the time limit
	# killed the server, whose close reset the connection); the pings
	# run until stopped (every 2 ms: a flood took a core from the suites
	# beside this one).
	rm -f "$WORK/xfer.stop"
	XFER_UNTIL=$WORK/xfer.stop tcp_start xnu-v1 xnu-t1 10.99.2.1 $((8192 * MB)) $((6 * MB)) 3000 || return 1
	T1=("$X_CPID" "$X_SPID" "$X_PORT")
	XFER_UNTIL=$WORK/xfer.stop tcp_start xnu-t2 xnu-v2 10.99.1.2 $((8192 * MB)) $((6 * MB)) 3000 || return 1
	T2=("$X_CPID" "$X_SPID" "$X_PORT")
	ip netns exec xnu-v2 ping -q -i 0.002 -s 300 10.99.2.2 >"$WORK/flood" 2>&1 &
	FLOOD=$!
	track "$FLOOD"
}
MB=$((1024 * 1024))

traffic_finish() {
	local st=0 t
	: >"$WORK/xfer.stop"
	for t in T1 T2; do
		eval "X_CPID=\${$t[0]} X_SPID=\${$t[1]} X_PORT=\${$t[2]}"
		tcp_finish || st=1
	done
	kill -INT "$FLOOD" 2>/dev/null; wait "$FLOOD"; untrack "$FLOOD"
	grep -E 'packets transmitted' "$WORK/flood"
	FLOOD_LINE=$(grep 'packets transmitted' "$WORK/flood")
	return $st
}

# The transfers are still running (an upgrade must not end them).
transfers_alive() {
	kill -0 "${T1[0]}" && kill -0 "${T2[0]}" || { echo "FAIL: a transfer ended early"; return 1; }
}

# ---------------------------------------------------------------- snapshots
#
# snap FILE: for every link pin: link id, program id; map ids of fdb and
# stats; per port counters; the follower's pid and binary; the build id.
snap() {
	local f=$1 p
	{
		echo "{"
		echo "\"links\": ["
		local first=1
		for p in $(ls "$PIN" | grep -E '^(tc|xdp)_[0-9]+$'); do
			[ $first = 1 ] || echo ","
			first=0
			bpftool link show pinned "$PIN/$p" -j | jq -c --arg pin "$p" '{pin: $pin, id, prog_id}'
		done
		echo "],"
		echo "\"fdb_map\": $(bpftool map show pinned "$PIN/fdb" -j | jq -c '{id, max_entries}'),"
		echo "\"stats_map\": $(bpftool map show pinned "$PIN/stats" -j | jq -c '{id, max_entries}'),"
		echo "\"status\": $(xn status "$BR" --json | jq -c '.bridges[0] | {build, datapath, mode, follower, fdb_entries, ports: [.ports[] | {name, ifindex, hook, xdp, xdp_via, tc_reason, tc_prog_id, xdp_prog_id, counters: (.counters | map_values(.packets))}]}'),"
		p=$(cat "/run/xdpnet/$BR.pid" 2>/dev/null)
		echo "\"follower_exe\": \"$(readlink "/proc/$p/exe" 2>/dev/null)\""
		echo "}"
	} >"$f"
	jq -e . "$f" >/dev/null || { cat "$f"; return 1; }
}

# Kernel view of XDP on the taps: the program id ip link shows.
xdp_kernel_ids() {
	local p
	for p in xnut1 xnut2; do
		ip -n "$SW" -d link show "$p" | grep -o 'prog/xdp id [0-9]*' | awk '{print $3}'
	done | tr '\n' ' '
}

# compare OLD NEW MODE: MODE same|new-progs|new-fdb|resized (new-fdb, same
# build)
compare() {
	local a=$1 b=$2 mode=$3 st=0
	jq -c '.links' "$a"; jq -c '.links' "$b"
	# The same links (ids), every one there before and after.
	[ "$(jq -c '[.links[] | [.pin, .id]] | sort' "$a")" = "$(jq -c '[.links[] | [.pin, .id]] | sort' "$b")" ] ||
		{ echo "FAIL: link ids changed (a link was re-created, not updated)"; st=1; }
	# The taps' XDP stage: links, or programs in libxdp's dispatchers
	# (the kernel runs them); xnut1 has none where xdp-filter holds it
	# outside a dispatcher.
	local nlink ndisp want=2
	nlink=$(jq '[.status.ports[] | select(.xdp_via == "link")] | length' "$b")
	ndisp=$(jq '[.status.ports[] | select(.xdp_via == "dispatcher")] | length' "$b")
	[ "$XDP_FILTER" = 1 ] && [ "$ndisp" = 0 ] && want=1
	echo "XDP stage: $nlink by links, $ndisp in dispatchers"
	[ $((nlink + ndisp)) = "$want" ] || { echo "FAIL: want $want taps with the XDP stage"; st=1; }
	[ "$(jq '[.links[] | select(.pin | startswith("xdp_"))] | length' "$b")" = "$nlink" ] ||
		{ echo "FAIL: want $nlink XDP links"; st=1; }
	if [ "$ndisp" -gt 0 ]; then
		local da db
		da=$(jq -c '[.status.ports[] | select(.xdp_via == "dispatcher") | .xdp_prog_id] | unique' "$a")
		db=$(jq -c '[.status.ports[] | select(.xdp_via == "dispatcher") | .xdp_prog_id] | unique' "$b")
		echo "dispatcher programs: $da -> $db"
		[ "$(echo "$db" | jq length)" = 1 ] || { echo "FAIL: the taps' dispatchers run different xdpnet programs"; st=1; }
		if [ "$mode" = same ]; then
			[ "$da" = "$db" ] || { echo "FAIL: the dispatcher program changed"; st=1; }
		else
			[ "$da" != "$db" ] || { echo "FAIL: the dispatchers still run the old program"; st=1; }
		fi
		dispatchers_hold "$db" || st=1
	fi
	# The TC stage: tcx links, or clsact filters where the kernel has no
	# tcx (Linux 6.1), on all four ports.
	local ntcx
	ntcx=$(jq '[.status.ports[] | select(.hook == "tcx")] | length' "$b")
	[ "$(jq '[.status.ports[] | select(.hook == "tcx" or .hook == "clsact")] | length' "$b")" = 4 ] ||
		{ echo "FAIL: want the TC stage on 4 ports"; st=1; }
	[ "$(jq '[.links[] | select(.pin | startswith("tc_"))] | length' "$b")" = "$ntcx" ] ||
		{ echo "FAIL: want $ntcx tcx links"; st=1; }
	if [ "$mode" = same ]; then
		[ "$(jq -c '[.links[] | .prog_id] | sort' "$a")" = "$(jq -c '[.links[] | .prog_id] | sort' "$b")" ] ||
			{ echo "FAIL: programs changed"; st=1; }
	else
		# Every link runs a program it did not run before, one per stage.
		jq -e --slurpfile o "$a" '[.links[] | .prog_id] as $n | [$o[0].links[] | .prog_id] as $p |
			($n | map(select(. as $x | $p | index($x))) | length) == 0' "$b" >/dev/null ||
			{ echo "FAIL: a link still runs an old program"; st=1; }
		[ "$(jq '[.links[] | select(.pin | startswith("tc_")) | .prog_id] | unique | length' "$b")" -le 1 ] &&
			[ "$(jq '[.links[] | select(.pin | startswith("xdp_")) | .prog_id] | unique | length' "$b")" -le 1 ] ||
			{ echo "FAIL: links run different programs"; st=1; }
		# Every port's TC stage runs one new program (tcx or clsact).
		jq -e --slurpfile o "$a" '[.status.ports[] | .tc_prog_id] as $n |
			[$o[0].status.ports[] | .tc_prog_id] as $p |
			($n | unique | length) == 1 and ($n | map(select(. as $x | $p | index($x))) | length) == 0' \
			"$b" >/dev/null || { echo "FAIL: the TC stage does not run one new program everywhere"; st=1; }
		[ "$mode" = resized ] || [ "$(jq -r .status.build "$a")" != "$(jq -r .status.build "$b")" ] ||
			{ echo "FAIL: status shows the same build"; st=1; }
	fi
	# Counters kept: no counter of any port went down.
	jq -e --slurpfile o "$a" '[.status.ports[] as $p | $o[0].status.ports[] | select(.ifindex == $p.ifindex) |
		.counters | to_entries[] | select(.value > $p.counters[.key])] | length == 0' "$b" >/dev/null ||
		{ echo "FAIL: a counter went down (reset):"; jq -c '.status.ports[] | [.name, .counters.tc_redirect, .counters.xdp_redirect]' "$a" "$b"; st=1; }
	[ "$(jq .stats_map.id "$a")" = "$(jq .stats_map.id "$b")" ] || { echo "FAIL: the stats map was replaced"; st=1; }
	if [ "$mode" = new-fdb ] || [ "$mode" = resized ]; then
		[ "$(jq .fdb_map.id "$a")" != "$(jq .fdb_map.id "$b")" ] || { echo "FAIL: the fdb map was not re-created"; st=1; }
	else
		[ "$(jq .fdb_map.id "$a")" = "$(jq .fdb_map.id "$b")" ] || { echo "FAIL: the fdb map was replaced"; st=1; }
	fi
	# The kernel agrees on XDP.
	local k
	k=$(xdp_kernel_ids)
	echo "kernel xdp ids: $k; links: $(jq -c '[.links[] | select(.pin | startswith("xdp_")) | .prog_id]' "$b")"
	for p in $k; do
		jq -e --argjson id "$p" '[.links[] | .prog_id] | index($id)' "$b" >/dev/null ||
			[ "$ndisp" -gt 0 ] || [ "$XDP_FILTER" = 1 ] ||
			{ echo "FAIL: the kernel runs XDP program $p, no link of ours does"; st=1; }
	done
	return $st
}

# dispatchers_hold ID_JSON: libxdp lists xdpnet's program ID in each tap's
# dispatcher, after xdp-filter's on xnut1 (--xdp-filter), and nothing else
# of xdpnet's.
dispatchers_hold() {
	local id p list
	id=$(echo "$1" | jq '.[0]')
	for p in xnut1 xnut2; do
		list=$(nsenter --net="/run/netns/$SW" xdp-loader status "$p" |
			awk '$0 ~ /xdpfilt|xdpnet/ { for (i = 1; i <= NF; i++) if ($i ~ /^(xdpfilt|xdpnet)/) printf "%s:%s ", $i, $(i + 1) }')
		echo "$p: $list"
		case "$p:$XDP_FILTER" in
		xnut1:1) [[ "$list" =~ ^xdpfilt_[a-z_]+:[0-9]+\ xdpnet_xdp(_mp)?:$id\ $ ]] ;;
		*) [[ "$list" =~ ^xdpnet_xdp(_mp)?:$id\ $ ]] ;;
		esac || { echo "FAIL: $p's dispatcher does not hold what it should"; return 1; }
	done
}

# The bypass goes on: redirect counters grow on the taps (XDP or TC).
bypass_grows() {
	local a b
	a=$(xn status "$BR" --json | jq '[.bridges[0].ports[] | .counters.tc_redirect.packets + .counters.xdp_redirect.packets] | add')
	sleep 1
	b=$(xn status "$BR" --json | jq '[.bridges[0].ports[] | .counters.tc_redirect.packets + .counters.xdp_redirect.packets] | add')
	echo "redirected: $a -> $b"
	[ "$b" -gt $((a + 100)) ]
}

follower_is() { # BINARY
	local p i
	for i in $(seq 50); do
		p=$(cat "/run/xdpnet/$BR.pid" 2>/dev/null)
		[ -n "$p" ] && [ "$(readlink "/proc/$p/exe")" = "$1" ] && { echo "follower $p runs $1"; return 0; }
		sleep 0.1
	done
	echo "FAIL: no follower runs $1 (pid file: $p, exe: $(readlink "/proc/$p/exe" 2>/dev/null))"
	return 1
}

# upgrade_to BIN MODE [ATTACH ARGS]: attach with BIN under traffic; compare.
upgrade_to() {
	local bin=$1 mode=$2 out rc
	shift 2
	snap "$WORK/before.json" || return 1
	out=$(xb "$bin" attach "$BR" "$@" 2>&1)
	rc=$?
	echo "$out"
	echo "exit $rc"
	[ "$rc" = 0 ] || return 1
	if [ "$mode" = resized ]; then
		echo "$out" | grep -q "learned FDB entries: room for" || { echo "FAIL: attach does not say the copy was resized"; return 1; }
	else
		echo "$out" | grep -q upgraded || { echo "FAIL: attach does not say it upgraded"; return 1; }
	fi
	follower_is "$bin" || return 1
	snap "$WORK/after.json" || return 1
	compare "$WORK/before.json" "$WORK/after.json" "$mode" || return 1
	[ "$(jq -r .status.build "$WORK/after.json")" != "" ] || return 1
	tcx_order_kept && transfers_alive && bypass_grows
}

# Attach with the build that owns the state: nothing is replaced.
upgrade_same() {
	local out
	snap "$WORK/before.json" || return 1
	out=$(xn attach "$BR" 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	snap "$WORK/after.json" || return 1
	compare "$WORK/before.json" "$WORK/after.json" same
}

# A unit restarted with another binary: the running follower stops
# (SIGTERM, as systemd does), BIN's `xdpnet follow` starts in the
# foreground and takes over.
follow_takeover() {
	local bin=$1 fpid i p
	snap "$WORK/before.json" || return 1
	p=$(cat "/run/xdpnet/$BR.pid" 2>/dev/null)
	if [ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "follow $BR"; then
		kill -TERM "$p"
		for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
	fi
	XDPNET=$bin xn_bg follow "$BR" >"$WORK/follow.log" 2>&1
	fpid=$BG
	track "$fpid"
	for i in $(seq 100); do grep -q 'following' "$WORK/follow.log" && break; sleep 0.05; done
	cat "$WORK/follow.log"
	if ! grep -q 'taking over the datapath of build' "$WORK/follow.log"; then
		echo "FAIL: follow did not take over"; stop_pid "$fpid"; return 1
	fi
	snap "$WORK/after.json"
	stop_pid "$fpid"
	compare "$WORK/before.json" "$WORK/after.json" new-progs || return 1
	tcx_order_kept && transfers_alive && bypass_grows
}

attach_default() { xn attach "$BR" && follower_is "$B0"; }

# fdb_refilled [SIZE]: every stand-in's MAC in the fdb map (of SIZE
# entries, as the map and status say).
fdb_refilled() {
	local f=$WORK/fdb.json n m max size
	xn fdb "$BR" --json >"$f" || return 1
	n=$(jq '.entries | length' "$f")
	max=$(bpftool map show pinned "$PIN/fdb" -j | jq .max_entries)
	size=$(xn status "$BR" --json | jq .bridges[0].fdb_size)
	echo "fdb: $n entries; max_entries $max, status fdb_size $size"
	if [ -n "${1:-}" ]; then
		[ "$max" = "$1" ] && [ "$size" = "$1" ] || { echo "FAIL: want $1 entries of room"; return 1; }
	fi
	for m in 02:99:01:00:00:01 02:99:01:00:00:02 02:99:02:00:00:01 02:99:02:00:00:02; do
		jq -e --arg m "$m" '[.entries[] | select(.mac == $m)] | length >= 1' "$f" >/dev/null ||
			{ echo "FAIL: $m not in the new fdb map"; return 1; }
	done
}

# Counters pinned in a layout no build carries over (8 bytes a slot, as
# if from another version): attach with another build refuses, says what
# to do, and leaves everything as it was. The real map is pinned back.
refuse_counters() {
	local sid rc lines
	sid=$(bpftool map show pinned "$PIN/stats" -j | jq .id)
	snap "$WORK/before.json" || return 1
	# Swapped under the bridge's lock: a follower that looked in between
	# would find no counters, take the bridge for detached, and stop.
	flock "/run/xdpnet/$BR.lock" sh -c "rm '$PIN/stats' &&
		bpftool map create '$PIN/stats' type percpu_array key 4 value 8 entries 1024 name stats" || return 1
	xb "$B1" attach "$BR" >"$WORK/ref.out" 2>"$WORK/ref.err"
	rc=$?
	echo "exit $rc"; cat "$WORK/ref.out" "$WORK/ref.err"
	flock "/run/xdpnet/$BR.lock" sh -c "rm '$PIN/stats' && bpftool map pin id '$sid' '$PIN/stats'" ||
		{ echo "FAIL: cannot pin the counters back"; return 1; }
	lines=$(wc -l <"$WORK/ref.err")
	[ "$rc" != 0 ] || { echo "FAIL: attach accepted counters it cannot carry over"; return 1; }
	[ "$lines" = 1 ] || { echo "FAIL: $lines lines on stderr"; return 1; }
	grep -q 'detach' "$WORK/ref.err" || { echo "FAIL: the error does not say what to do"; return 1; }
	snap "$WORK/after.json"
	compare "$WORK/before.json" "$WORK/after.json" same || return 1
	jq -e .status.follower.running "$WORK/after.json" >/dev/null ||
		{ echo "FAIL: the refused attach left no follower running"; return 1; }
	follower_is "$B0" && transfers_alive && bypass_grows
}

# A size below what the copy holds: refused, one line, nothing changed.
refuse_size() {
	local rc lines
	snap "$WORK/before.json" || return 1
	xn attach "$BR" --fdb-size 2 >"$WORK/ref.out" 2>"$WORK/ref.err"
	rc=$?
	echo "exit $rc"; cat "$WORK/ref.out" "$WORK/ref.err"
	lines=$(wc -l <"$WORK/ref.err")
	[ "$rc" = 1 ] || { echo "FAIL: want exit 1"; return 1; }
	[ "$lines" = 1 ] || { echo "FAIL: $lines lines on stderr"; return 1; }
	grep -q 'give at least' "$WORK/ref.err" || { echo "FAIL: the error does not say what to do"; return 1; }
	snap "$WORK/after.json"
	compare "$WORK/before.json" "$WORK/after.json" same || return 1
	follower_is "$B0" && transfers_alive && bypass_grows
}

# ---------------------------------------------------------------- main

check "preflight: root, tools, built CLI" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$B0"'" ] && [ -x "'"$RELAY"'" ] && command -v bpftool jq make >/dev/null' || finish
check "preflight: no other upgrade.sh" take_lock || finish
ensure_bpffs
check "upgrade: build v1 (programs differ) and fdb (fdb layout) into build/upgrade" build_variants || finish
check "upgrade: topology up (2 veth, 2 tap stand-ins)" u_up || finish
# Another party's tcx programs on xnuv1, before and after xdpnet's.
TCX=$ROOT/build/tests/xnt_tcx
TCXPIN=/sys/fs/bpf/xnu_tcx
TCX_ON=0
tcx_up() {
	nsenter --net="/run/netns/$SW" "$TCX" attach ingress xnuv1 \
		"$ROOT/build/tests/xnt_tcxcount.bpf.o" "${TCXPIN}_a" first 2>/dev/null ||
		{ note "no tcx here: the tcx order is not checked"; return 0; }
	TCX_ON=1
	nsenter --net="/run/netns/$SW" "$TCX" attach ingress xnuv1 \
		"$ROOT/build/tests/xnt_tcxcount.bpf.o" "${TCXPIN}_b"
}
tcx_down() {
	local p
	for p in a b; do "$TCX" detach "${TCXPIN}_$p"; done
}
tcx_order_kept() {
	local o
	[ "$TCX_ON" = 1 ] || return 0
	o=$(nsenter --net="/run/netns/$SW" "$TCX" query ingress xnuv1)
	echo "xnuv1's tcx ingress: $o"
	[ "$o" = "xnt_tcxcount xdpnet_tc xnt_tcxcount" ] || { echo "FAIL: the tcx order changed"; return 1; }
}

# xdp-filter on xnut1 (--xdp-filter), denying an address nobody uses.
xf_start() {
	command -v xdp-filter >/dev/null || { echo "no xdp-filter (xdp-tools)"; return 1; }
	xf_lock || return 1
	[ -e /sys/fs/bpf/xdp-filter ] && { echo "xdp-filter is in use on this host: unload it first"; xf_unlock; return 1; }
	[ -d /sys/fs/bpf/xdp ] || XF_MKDIR=1
	XF_OURS=1
	nsenter --net="/run/netns/$SW" xdp-filter load -m native xnut1 &&
		nsenter --net="/run/netns/$SW" xdp-filter ip 10.99.9.9 -m dst
}
xf_stop() {
	[ "${XF_OURS:-0}" = 1 ] || return 0
	nsenter --net="/run/netns/$SW" xdp-filter unload xnut1 >/dev/null 2>&1
	rm -rf /sys/fs/bpf/xdp-filter
	[ "${XF_MKDIR:-0}" = 1 ] && rmdir /sys/fs/bpf/xdp 2>/dev/null
	XF_OURS=0
	xf_unlock
}
suite_cleanup() {
	tcx_down
	[ -e "/run/netns/$SW" ] && xf_stop
}
[ "$XDP_FILTER" = 1 ] && { check "upgrade: xdp-filter on xnut1" xf_start || finish; }
check "upgrade: attach --mode xdp (the default build)" xn attach "$BR" --mode xdp --bypass-filters || finish
check "upgrade: follower of the default build" follower_is "$B0"
tcx_setup() { tcx_up && tcx_order_kept; }
check "upgrade: other tcx programs before and after xdpnet's on xnuv1" tcx_setup
check "upgrade: two TCP transfers and pings every 2 ms start" traffic_start || finish
sleep 2
check "upgrade: attach with v1: links updated in place, maps and counters kept, v1's follower" upgrade_to "$B1" new-progs
check "upgrade: attach with the default build again: the same" upgrade_to "$B0" new-progs
check "upgrade: attach with the same build replaces nothing" upgrade_same
check "upgrade: follow of v1 where the old follower ran: takes over, links updated" follow_takeover "$B1"
check "upgrade: follow of the default build: takes over back" follow_takeover "$B0"
check "upgrade: attach brings the default build's follower back" attach_default
check "upgrade: attach with the fdb build (another default size): the fdb map and its size kept" upgrade_to "$BF" new-progs
check "upgrade: the fdb map still has room for 16384" fdb_refilled 16384
check "upgrade: attach --fdb-size 8192 (same build): fdb map made anew, entries carried, counters kept" upgrade_to "$BF" resized --fdb-size 8192
check "upgrade: the new fdb map has room for 8192 and every entry" fdb_refilled 8192
check "upgrade: attach with the default build: the size 8192 stays" upgrade_to "$B0" new-progs
check "upgrade: the fdb map still has room for 8192" fdb_refilled 8192
check "upgrade: attach --fdb-size 16384: made anew again" upgrade_to "$B0" resized --fdb-size 16384
check "upgrade: the fdb map has room for 16384 and every entry" fdb_refilled 16384
check "upgrade: attach --fdb-size below the entries held: refused, one line, nothing changed" refuse_size
check "upgrade: counters of a layout no build carries over: refused, one line, nothing changed" refuse_counters
check "upgrade: transfers intact (sha256), none lost; the pings" traffic_finish
note "pings: ${FLOOD_LINE:-?}"
[ "$XDP_FILTER" = 1 ] && check "upgrade: xdp-filter still on xnut1" sh -c "nsenter --net=/run/netns/$SW xdp-loader status xnut1 | grep -q xdpfilt_"
check "upgrade: detach" xn detach "$BR"
check "upgrade: nothing left" sh -c "[ ! -e '$PIN' ]"
finish
