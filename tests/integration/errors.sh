#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Bad input to every command (issue 9), root. Each must refuse with one
# line on stderr and an exit code from the README, and leave the network
# as it was (ip -d link, tc filters and qdiscs, bpftool net, our pins and
# the tcx links on our devices, in every namespace of this test):
#   - a missing bridge argument, no such device, a device that is not a
#     bridge;
#   - a foreign pin directory: the state of a bridge of the same name in
#     another network namespace (which must stay intact), a directory
#     whose meta is of another layout, a directory of pins xdpnet did not
#     make;
#   - a follower already running (follow, attach --follow);
#   - the CLI's conventions: help CMD and CMD --help give that command's
#     usage, -V the version and build id, no such bridge is 3 for every
#     command with one line, a refused option is named, -jp is pretty
#     JSON.
#
# Namespaces xne-sw (bridge xnebr0, a veth stand-in xne-v1 on port xnev1,
# a veth xnebad that is no bridge) and xne-sw2 (another bridge xnebr0, the
# "other namespace", stand-in xne-w1 on xnew1). Output: "ok N - ...", then
# "P passed, F failed". Options: --keep, -v.
set -u
. "$(dirname "$0")/lib.sh"

SW=xne-sw
SW2=xne-sw2
BR=xnebr0
XNP=xne
PIN=$PIN_ROOT/$BR
# shellcheck disable=SC2034 # take_lock's (lib.sh)
LOCK=/run/lock/xne-errors.pid
parse_args "[--keep] [-v]" "$@"

# ns2's state: detached from ns2 (cleanup() only knows $SW).
suite_cleanup() {
	if [ -e "/run/netns/$SW2" ] && [ -e "$PIN" ]; then SW=$SW2 xn detach "$BR" >/dev/null 2>&1; fi
	# bridge_deleted's, should its follower have left anything
	if [ -e "$PIN_ROOT/$GBR" ] && [ -e "/run/netns/$SW" ]; then xn detach "$GBR" >/dev/null 2>&1; fi
	runfiles_rm "$GBR"
}
GBR=xnegbr
traps_install

e_up() {
	remove_stale
	switch_up || return 1
	TOPO=veth
	veth_guest_add 1 || return 1
	ip -n "$SW" link add xnebad type veth peer name xnebad1 || return 1
	ip -n "$SW" link set xnebad up && ip -n "$SW" link set xnebad1 up
	# The other namespace: a bridge of the same name, with a port.
	ns_add "$SW2" || return 1
	ns_add xne-w1 || return 1
	ip -n "$SW2" link add "$BR" type bridge stp_state 0 && ip -n "$SW2" link set "$BR" up || return 1
	ip -n "$SW2" link add xnew1 type veth peer name eth0 netns xne-w1 || return 1
	ip -n "$SW2" link set xnew1 master "$BR" up && ip -n xne-w1 link set eth0 up || return 1
	# Wait until the links settle (a bridge goes from UNKNOWN to UP).
	local i n
	for i in $(seq 100); do
		n=0
		for ns in "$SW" "$SW2"; do
			[ "$(ip -n "$ns" -j link show "$BR" | jq -r '.[0].operstate')" = UP ] && n=$((n + 1))
		done
		[ $n = 2 ] && return 0
		sleep 0.1
	done
	echo "bridges not UP"; return 1
}

# Everything both namespaces hold that a command could change, and the
# tcx links on their devices (tc and bpftool net do not show those): the
# links of the port programs pinned for a bridge of this name, in either
# namespace (both bridges' pins would be $PIN; a link outlives its command
# only pinned, and other suites running beside this one have programs of
# their own).
state() {
	local f ids=
	echo "== $SW"; sw_state
	echo "== $SW2"; SW=$SW2 sw_state
	echo "== links of the port programs pinned in $PIN"
	for f in "$PIN"/prog_tc "$PIN"/prog_xdp; do
		[ -e "$f" ] && ids="$ids $(bpftool prog show pinned "$f" -j | jq .id)"
	done
	bpftool link show -j 2>/dev/null | jq -c --argjson p "[$(echo $ids | tr ' ' ',')]" \
		'[.[] | select(.prog_id as $i | $p | index($i)) | {id, type, prog_id}] | sort_by(.id)'
	echo "== $PIN"
	ls -la "$PIN" 2>/dev/null | awk '{print $1, $NF}'
}

same_state() { # REF
	state >"$WORK/state.now"
	diff -u "$1" "$WORK/state.now" || { echo "FAIL: the network changed"; return 1; }
}

# bad DESC WANT ARGS...: one check for the refusal, one for the state.
bad() {
	local desc=$1 want=$2
	shift 2
	state >"$WORK/state.ref"
	check "errors: $desc: xdpnet $* exits $want, one line on stderr" err_exit "$want" "$@"
	check "errors: $desc: xdpnet $*: nothing changed" same_state "$WORK/state.ref"
}

# A command that only reports (stats): refusing is fine, and so is saying
# that the bridge is not attached (exit 0, nothing on stderr).
refuse_or_not_attached() {
	local want=$1
	shift
	err_exit "$want" "$@" && return 0
	echo "(or: exit 0, nothing on stderr, 'not attached' on stdout)"
	xn "$@" >"$WORK/err.out" 2>"$WORK/err.err" && [ ! -s "$WORK/err.err" ] &&
		grep -q 'not attached' "$WORK/err.out"
}
bad_report() {
	local desc=$1 want=$2
	shift 2
	state >"$WORK/state.ref"
	check "errors: $desc: xdpnet $* refuses ($want) or says 'not attached'" refuse_or_not_attached "$want" "$@"
	check "errors: $desc: xdpnet $*: nothing changed" same_state "$WORK/state.ref"
}

# ---------------------------------------------------------------- cases

missing_and_wrong() {
	local c
	for c in attach follow detach fdb stats latency; do
		bad "no bridge given" 2 "$c"
	done
	for c in attach follow stats latency; do
		bad "no such device" 3 "$c" xnenosuch
		bad "not a bridge" 3 "$c" xnebad
	done
	# Commands on state: no such bridge is 3 there too (it was 7, "not
	# attached"); nothing done (0) is not an answer.
	for c in detach fdb status; do
		bad "no such device" 3 "$c" xnenosuch
		bad "not a bridge" 3 "$c" xnebad
	done
	bad "not a bridge (xdp)" 3 attach xnebad --mode xdp
	bad "bad mode" 2 attach "$BR" --mode bogus
	bad "name with a slash" "2|3" attach ../xnebr0
	bad "name too long" "2|3" attach xnebr0xxxxxxxxxxxxxxxxx
}

# ---------------------------------------------------------------- CLI conventions

# out_is WANT_ERE NOT_ERE ARGS...: xdpnet ARGS exits 0, nothing on stderr,
# stdout matches WANT_ERE and, unless NOT_ERE is empty, not NOT_ERE.
out_is() {
	local want=$1 not=$2 rc
	shift 2
	echo "+ xdpnet $*"
	xn "$@" >"$WORK/cli.out" 2>"$WORK/cli.err"
	rc=$?
	cat "$WORK/cli.out"
	echo "stderr:"; cat "$WORK/cli.err"
	expect_eq "exit code" "$rc" 0 || return 1
	[ ! -s "$WORK/cli.err" ] || { echo "FAIL: something on stderr"; return 1; }
	grep -qE -- "$want" "$WORK/cli.out" || { echo "FAIL: stdout lacks /$want/"; return 1; }
	[ -z "$not" ] || ! grep -qE -- "$not" "$WORK/cli.out" || { echo "FAIL: stdout has /$not/"; return 1; }
}

# err_is WANT ERE NOT_ERE ARGS...: err_exit WANT, its one line matching
# ERE and, unless NOT_ERE is empty, not NOT_ERE.
err_is() {
	local want=$1 re=$2 not=$3
	shift 3
	err_exit "$want" "$@" || return 1
	grep -qE -- "$re" "$WORK/err.err" || { echo "FAIL: stderr lacks /$re/"; return 1; }
	[ -z "$not" ] || ! grep -qE -- "$not" "$WORK/err.err" || { echo "FAIL: stderr has /$not/"; return 1; }
}

cli_conventions() {
	local c
	check "errors: help attach exits 0 with attach's options, --vlan-size among them" \
		out_is '^usage: xdpnet attach .*--mode' '' help attach
	check "errors: help attach names --vlan-size, --static-size and --follow" \
		sh -c "grep -q -- '--vlan-size N' '$WORK/cli.out' && grep -q -- '--static-size N' '$WORK/cli.out' && grep -q -- '--follow' '$WORK/cli.out'"
	check "errors: attach --help prints attach's usage alone (no --snaplen, no other command)" \
		out_is '^usage: xdpnet attach ' '--snaplen|^  (dump|stats|trace) ' attach --help
	check "errors: attach -h is attach --help" out_is '^usage: xdpnet attach ' '--snaplen' attach -h
	check "errors: help (the overview) lists the commands, one line each, and where the options are" \
		out_is 'xdpnet help CMD' '--snaplen|--vlan-size' help
	check "errors: -V prints 0.3.0, a build id and the git description" \
		out_is '^build 0\.3\.0-[0-9a-f]{16}$' '' -V
	check "errors: -V's first line is xdpnet 0.3.0" grep -qx 'xdpnet 0.3.0' "$WORK/cli.out"
	check "errors: version prints what -V prints" out_is '^git .+' '' version
	for c in status fdb; do
		check "errors: $c xnenosuch exits 3, one line, one prefix, no advice to attach" \
			err_is 3 'xnenosuch' 'xdpnet: xdpnet|attach' "$c" xnenosuch
	done
	check "errors: status $BR (a bridge, not attached) exits 7, one prefix" \
		err_is 7 "$BR is not attached" 'xdpnet: xdpnet' status "$BR"
	check "errors: status --follow names the option" \
		err_is 2 '^xdpnet status: --follow is not an option of status' '' status "$BR" --follow
	check "errors: attach -n (no short form: iproute2's netns) names -n" \
		err_is 2 "'-n'" '' attach "$BR" -n
	check "errors: attach -s (dump's --snaplen) names it" \
		err_is 2 '-s \(--snaplen\) is not an option of attach' '' attach "$BR" -s
	check "errors: stats --prom -p refused, naming both" \
		err_is 2 '--pretty and --prom' '' stats "$BR" --prom -p
	check "errors: help bogus exits 2, names it" err_is 2 "'bogus'" '' help bogus
}

# stats BR -jp on an attached bridge: valid JSON, indented (more than one
# line); -j the same document on one line.
stats_pretty() {
	xn stats "$BR" -jp >"$WORK/stats.json" 2>"$WORK/stats.err" || { cat "$WORK/stats.err"; return 1; }
	head -n 20 "$WORK/stats.json"
	jq -e '.bridge' "$WORK/stats.json" >/dev/null || { echo "FAIL: not JSON with .bridge"; return 1; }
	expect_ge "lines of -jp" "$(wc -l <"$WORK/stats.json")" 10 || return 1
	xn stats "$BR" -j >"$WORK/stats1.json" || return 1
	expect_eq "lines of -j" "$(wc -l <"$WORK/stats1.json")" 1 || return 1
	jq -e . "$WORK/stats1.json" >/dev/null
}

# Both namespaces' leftovers of a case gone; $SW2's bridge attached afresh.
other_reset() {
	local n
	for n in "$SW" "$SW2"; do SW=$n xn detach "$BR" >/dev/null 2>&1; done
	stop_follower
	rm -rf "$PIN"
	in_other attach "$BR" --no-follow >/dev/null || return 1
	SW=$SW2 sw_state >"$WORK/other.ref"
}
in_other() { SW=$SW2 xn "$@"; }
other_intact() { SW=$SW2 sw_state | diff -u "$WORK/other.ref" -; }

# The same name in another namespace: $SW2's bridge is attached. Each
# case starts afresh, so that one failure does not hide the next.
other_netns() {
	local c
	for c in "attach $BR" "attach $BR --mode xdp" "detach $BR" "follow $BR" \
		"fdb $BR" "latency $BR on" "status $BR"; do
		check "errors: $SW2 attached afresh" other_reset || return 1
		bad "state of $BR in another namespace" "1|7" $c
		check "errors: $SW2's datapath intact after 'xdpnet $c' in $SW" other_intact
	done
	check "errors: $SW2 attached afresh" other_reset || return 1
	bad_report "state of $BR in another namespace" "1|7" stats "$BR"
	check "errors: status $BR in $SW says nothing of $SW2's pins (its probe never switched on)" status_not_ours
	check "errors: status (all bridges) in $SW does not list $SW2's" status_all_empty
	check "errors: detach in $SW2" in_other detach "$BR"
	check "errors: nothing pinned for $BR" sh -c "[ ! -e '$PIN' ]"
}

# A bridge attached in another namespace: its pins are not "a latency
# probe's pins left behind" here, nor for 'status' of all bridges.
status_not_ours() {
	xn status "$BR" >"$WORK/st.out" 2>"$WORK/st.err"
	cat "$WORK/st.out" "$WORK/st.err"
	! grep -q 'latency probe' "$WORK/st.err" || return 1
	xn status >"$WORK/st.out" 2>"$WORK/st.err"
	cat "$WORK/st.out" "$WORK/st.err"
	! grep -q 'latency probe' "$WORK/st.err"
}

status_all_empty() {
	local out
	out=$(xn status --json) || return 1
	echo "$out"
	echo "$out" | jq -e '[.bridges[] | select(.bridge == "'"$BR"'")] | length == 0' >/dev/null
}

# Pin directories xdpnet cannot read: a meta of another layout (an older
# or newer xdpnet; detach removes it, as documented, so it is not tried
# here), and pins xdpnet did not make (nothing may remove or join them).
# A follower an earlier case started (by a wrong attach) would answer
# "already running" for the next: stop it (TERM, by its pid file).
stop_follower() {
	local p i
	p=$(cat "/run/xdpnet/$BR.pid" 2>/dev/null)
	[ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "follow $BR" || return 0
	kill -TERM "$p"
	for i in $(seq 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}
junk_meta() {
	stop_follower
	rm -rf "$PIN" && mkdir -p "$PIN" &&
		bpftool map create "$PIN/meta" type array key 4 value 4 entries 1 name meta
}
junk_other() {
	stop_follower
	rm -rf "$PIN" && mkdir -p "$PIN" &&
		bpftool map create "$PIN/notours" type hash key 4 value 4 entries 8 name notours
}
junk() {
	local j c
	for j in junk_meta junk_other; do
		for c in "attach $BR" "follow $BR" "fdb $BR" "status $BR" \
			"latency $BR on" "detach $BR"; do
			[ $j = junk_meta ] && [ "$c" = "detach $BR" ] && continue
			check "errors: $j: $PIN made" $j || return 1
			bad "$j" "1|7" $c
		done
		check "errors: $j: $PIN made" $j || return 1
		bad_report "$j" "1|7" stats "$BR"
	done
	rm -rf "$PIN"
}

follower_alive() {
	local p
	p=$(cat "/run/xdpnet/$BR.pid" 2>/dev/null)
	echo "pid file: $p"
	[ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "follow $BR"
}

# After a detach nothing of the bridge's stays in /run/xdpnet (ls shows
# what did).
no_run_files() {
	local f st=0
	for f in lock follow pid log dump; do
		[ ! -e "/run/xdpnet/$BR.$f" ] || { echo "FAIL: /run/xdpnet/$BR.$f is still there"; st=1; }
	done
	ls -la /run/xdpnet 2>&1
	return $st
}

follower_running() {
	check "errors: attach $BR (a follower starts)" xn attach "$BR"
	check "errors: a follower runs" follower_alive
	bad "a follower already runs" 8 follow "$BR"
	bad "a follower already runs" 8 attach "$BR" --follow
	check "errors: stats $BR -jp (attached) is valid, indented JSON" stats_pretty
	check "errors: detach $BR" xn detach "$BR"
	check "errors: detach removed /run/xdpnet/$BR.{lock,follow,pid,log,dump}" no_run_files
	check "errors: attach --follow (the unit's ExecStart) logs each line as it happens, into a pipe" follow_lines
}

# attach --follow into a pipe, as systemd runs it: "following" must come
# through while it runs (its stdout was once fully buffered there: the
# journal saw nothing until the buffer filled).
follow_lines() {
	local pid st=0
	nsenter --net="/run/netns/$SW" "$XDPNET" attach "$BR" --follow > >(cat >"$WORK/follow.out") 2>&1 &
	pid=$! # xdpnet itself (nsenter execs into it)
	track "$pid"
	wait_until 10 grep -q "following $BR" "$WORK/follow.out" || { echo "FAIL: no 'following' line within 10 s"; st=1; }
	cat "$WORK/follow.out"
	stop_pid "$pid"
	untrack "$pid"
	xn detach "$BR" || st=1
	return $st
}

# A bridge deleted under its follower, as it starts (right after attach)
# or once it follows: the follower removes every hook and pin, its run
# files too, and exits.
bridge_deleted() { # now|later
	local pid st=0 f
	ip -n "$SW" link add "$GBR" type bridge stp_state 0 &&
		ip -n "$SW" link add xnega type veth peer name xnegb &&
		ip -n "$SW" link set xnega master "$GBR" up &&
		ip -n "$SW" link set xnegb up && ip -n "$SW" link set "$GBR" up || return 1
	xn attach "$GBR" || return 1
	wait_until 10 test -s "/run/xdpnet/$GBR.pid" || { echo "FAIL: no pid file"; return 1; }
	read -r pid <"/run/xdpnet/$GBR.pid" || return 1
	[ "$1" = now ] || wait_until 10 grep -q "following $GBR" "/run/xdpnet/$GBR.log" ||
		{ echo "FAIL: the follower did not start following"; st=1; }
	echo "follower $pid; deleting $GBR"
	ip -n "$SW" link del "$GBR" || return 1
	wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" || { echo "FAIL: the follower still runs"; st=1; }
	[ ! -e "$PIN_ROOT/$GBR" ] || { echo "FAIL: $PIN_ROOT/$GBR is still there"; st=1; }
	for f in lock follow pid log dump; do
		[ ! -e "/run/xdpnet/$GBR.$f" ] || { echo "FAIL: /run/xdpnet/$GBR.$f is still there"; st=1; }
	done
	ip -n "$SW" link del xnega
	return $st
}

# ---------------------------------------------------------------- main

check "preflight: root, tools, built CLI" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$XDPNET"'" ] && command -v bpftool jq >/dev/null' || finish
check "preflight: no other errors.sh" take_lock || finish
ensure_bpffs
check "errors: namespaces $SW and $SW2 up" e_up || finish
missing_and_wrong
cli_conventions
other_netns
junk
follower_running
check "errors: a bridge deleted as its follower starts: every pin and run file goes, the follower exits" bridge_deleted now
check "errors: a bridge deleted under its running follower: every pin and run file goes, the follower exits" bridge_deleted later
finish
