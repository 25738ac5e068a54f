# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Helpers for the suites of tests/integration (sourced, bash): output and
# checks, the frame every suite runs in (options, one run at a time,
# traps, cleanup: "a suite's frame" below), processes, namespaces,
# topologies, the witness, traffic and measuring.
#
# Everything run.sh and its suite files create carries the prefix "xnt":
# namespaces xnt-*, devices xnt*, the bridge xntbr0 inside namespace
# xnt-sw; the suites that run as processes of their own set names of
# their own (SW, BR, PIN, LOCK). Test traffic only flows between these
# namespaces; the root namespace is never configured.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
XDPNET=${XDPNET:-$ROOT/build/xdpnet}
RELAY=${RELAY:-$ROOT/build/tests/vnet_relay}
XFER=$HERE/xfer.py
if [ -x /usr/bin/python3 ]; then PY=${PY:-/usr/bin/python3}; else PY=${PY:-python3}; fi

SW=xnt-sw # the switch's namespace
BR=xntbr0
XNP=xnt   # stand-ins' prefix (crash.sh, upgrade.sh set their own)
PIN_ROOT=/sys/fs/bpf/xdpnet
PIN=$PIN_ROOT/$BR

T_NUM=0
T_PASS=0
T_FAIL=0
FAILED=()
CHECK_STACK=() # "DEPTH NUM LOG DESC" of each check still running
PIDS=()     # background processes this suite started
NSLIST=()   # namespaces this suite created
NEXT_PORT=20000
VERBOSE=${VERBOSE:-0}

# sleep without a process: a read that times out on a pipe nobody writes
# to (both ends held here). On a 2-core VM a fork and exec costs 10-20 ms
# of CPU, and the suites' polling loops sleep many times a second: with
# several suites side by side the machine spent half its time starting
# sleep and the commands it polls with.
exec {XN_SLEEP_FD}<> <(:)
sleep() { read -rt "$1" -u "$XN_SLEEP_FD" _; return 0; }

WORK=$(mktemp -d /tmp/xnt-integration.XXXXXX)
LOGDIR=$WORK/logs
mkdir -p "$LOGDIR"

# ---------------------------------------------------------------- output

say() { echo "$*"; }
note() { echo "# $*"; }
logv() { [ "$VERBOSE" = 1 ] && echo "# $*"; return 0; }

slug() { # (bash alone: once per check)
	local s=${1//[^A-Za-z0-9>.-]/_}_
	while [[ $s == *__* ]]; do s=${s//__/_}; done
	echo "${s:0:80}"
}

# check DESC CMD [ARGS...]: run CMD in this shell with its output in a log
# of its own; one "ok"/"not ok" line. CMD may set globals.
check() {
	local desc=$1 rc depth=${#FUNCNAME[@]}
	shift
	unwound "$depth"
	T_NUM=$((T_NUM + 1))
	CUR_LOG=$LOGDIR/$(printf '%03d' "$T_NUM")-$(slug "$desc").log
	echo "== $desc" >"$CUR_LOG"
	CHECK_STACK+=("$depth $T_NUM $CUR_LOG $desc")
	local t0=$EPOCHREALTIME
	"$@" >>"$CUR_LOG" 2>&1
	rc=$?
	unset 'CHECK_STACK[-1]'
	report "$rc" "$desc"
	# XN_TIMES=FILE: each check's seconds, suite and description (where
	# a suite's time goes: docs/testing.md).
	[ -z "${XN_TIMES:-}" ] || printf '%.1f\t%s\t%s\n' \
		"$(since "$t0")" "${0##*/}" "$desc" >>"$XN_TIMES"
	return "$rc"
}

# unwound DEPTH: fail the checks that never returned. A shell error such as
# bad arithmetic makes bash drop the whole top-level command it is in, so
# the suite goes on after it and skips the rest of that command's checks
# without a word. A check still on the stack at DEPTH or deeper, when the
# next one starts at DEPTH (or the suite ends: 0), is such a check.
unwound() {
	local top n f
	while [ ${#CHECK_STACK[@]} -gt 0 ]; do
		top=${CHECK_STACK[-1]}
		[ "${top%% *}" -ge "$1" ] || break
		unset 'CHECK_STACK[-1]'
		read -r _ n f top <<<"$top"
		T_FAIL=$((T_FAIL + 1))
		FAILED+=("$n - $top: stopped by a shell error")
		echo "not ok $n - $top: stopped by a shell error; the checks after it in its block did not run"
		echo "#   log: $f"
		tail -n 12 "$f" 2>/dev/null | sed 's/^/#   | /'
	done
}

# report RC DESC: record a result computed elsewhere (log: $CUR_LOG).
report() {
	local rc=$1 desc=$2
	if [ "$rc" -eq 0 ]; then
		T_PASS=$((T_PASS + 1))
		echo "ok $T_NUM - $desc"
		if [ "$VERBOSE" = 1 ]; then sed "s/^/#   /" "$CUR_LOG"; fi
	else
		T_FAIL=$((T_FAIL + 1))
		FAILED+=("$T_NUM - $desc")
		echo "not ok $T_NUM - $desc"
		echo "#   log: $CUR_LOG"
		tail -n 12 "$CUR_LOG" | sed 's/^/#   | /'
	fi
}

# skip DESC REASON: a check that could not run counts as a failure, but
# says why (e.g. the CLI is not built).
fail_now() {
	T_NUM=$((T_NUM + 1))
	CUR_LOG=$LOGDIR/$(printf '%03d' "$T_NUM")-$(slug "$1").log
	echo "$2" >"$CUR_LOG"
	report 1 "$1"
}

summary() {
	unwound 0
	echo "# logs: $LOGDIR"
	if [ "$T_FAIL" -gt 0 ]; then
		echo "# failed:"
		printf '#   %s\n' "${FAILED[@]}"
	fi
	echo "$T_PASS passed, $T_FAIL failed"
}

# Assertions for use inside check: print what was compared.
# A failed expectation's line starts with "FAIL: " (tests/suites.sh
# repeats those of failed checks at the end of its output).
expect_eq() { # WHAT GOT WANT
	[ "$2" = "$3" ] && { echo "$1: got '$2', want '$3'"; return 0; }
	echo "FAIL: $1: got '$2', want '$3'"
	return 1
}
expect_ge() { # WHAT GOT MIN
	[ "$2" -ge "$3" ] 2>/dev/null && { echo "$1: $2 >= $3"; return 0; }
	echo "FAIL: $1: $2 >= $3 ?"
	return 1
}
expect_le() { # WHAT GOT MAX
	[ "$2" -le "$3" ] 2>/dev/null && { echo "$1: $2 <= $3"; return 0; }
	echo "FAIL: $1: $2 <= $3 ?"
	return 1
}

# ---------------------------------------------------------------- processes

track() { PIDS+=("$1"); }
untrack() {
	local p out=()
	for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || out+=("$p"); done
	PIDS=("${out[@]}")
}

# stop PID: TERM, then KILL after 3 s; reaps it.
stop_pid() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for ((i = 0; i < 30; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	untrack "$pid"
}

# since T0: the seconds since T0 (an $EPOCHREALTIME), to 0.01 s, without a
# process (date and bc were two per check). cs_since T0: centiseconds.
cs_since() {
	local a=${EPOCHREALTIME//[!0-9]/} b=${1//[!0-9]/}
	echo $(((10#$a - 10#$b) / 10000))
}
since() {
	local a=${EPOCHREALTIME//[!0-9]/} b=${1//[!0-9]/} d
	d=$(((10#$a - 10#$b) / 10000))
	printf '%d.%02d\n' $((d / 100)) $((d % 100))
}

# wait_line FILE TEXT SECS: wait until FILE contains a line TEXT.
wait_line() {
	local i l
	for ((i = 0; i < $3 * 20; i++)); do
		if [ -r "$1" ]; then
			while IFS= read -r l; do [ "$l" = "$2" ] && return 0; done <"$1"
		fi
		sleep 0.05
	done
	return 1
}

# wait_until SECS CMD [ARGS...]: poll CMD (every 0.05 s) until it succeeds;
# 1 if it still fails after SECS seconds (whole seconds, measured from the
# call: $SECONDS counts whole seconds, and gave 1-2 s for "2"). For a state
# that a test expects to reach: never sleep for it.
wait_until() {
	local now=${EPOCHREALTIME//[!0-9]/} end
	end=$((10#$now + $1 * 1000000))
	shift
	until "$@"; do
		now=${EPOCHREALTIME//[!0-9]/}
		[ $((10#$now)) -lt "$end" ] || return 1
		sleep 0.05
	done
}

# ---------------------------------------------------------------- namespaces

# Every namespace a suite adds gets an anchor: a process inside it, for
# which `ip netns exec` mounted the namespace's sysfs. The suite reads
# /proc/ANCHOR/root/sys with bash's own read (ns_sys): a device's counter
# or a bridge's state without starting a process (a process costs 10-20
# ms of CPU here, and polling loops read many times a second). An anchor
# ends with the suite, however it ends (tail --pid).
declare -A NS_ANCHOR=()
ns_add() {
	ip netns del "$1" 2>/dev/null
	ip netns add "$1" || return 1
	NSLIST+=("$1")
	ip -n "$1" link set lo up || return 1
	ip netns exec "$1" tail --pid=$$ -f /dev/null </dev/null >/dev/null 2>&1 &
	NS_ANCHOR[$1]=$!
	track $!
}

ns_del() {
	local n out=()
	anchor_stop "$1"
	ip netns del "$1" 2>/dev/null
	for n in "${NSLIST[@]}"; do [ "$n" = "$1" ] || out+=("$n"); done
	NSLIST=("${out[@]}")
}
anchor_stop() {
	[ -n "${NS_ANCHOR[$1]-}" ] || return 0
	stop_pid "${NS_ANCHOR[$1]}"
	unset "NS_ANCHOR[$1]"
}

# ns_sys VAR NS PATH: VAR = the first line of /sys/PATH in namespace NS,
# read through its anchor (no process); 1 where NS has none or PATH
# cannot be read.
ns_sys() {
	local _nsa=${NS_ANCHOR[$2]-}
	[ -n "$_nsa" ] && IFS= read -r "$1" <"/proc/$_nsa/root/sys/$3"
} 2>/dev/null

nsx() { local n=$1; shift; ip netns exec "$n" "$@"; }

# ensure_bpffs: /sys/fs/bpf mounted, for suites that read pins with bpftool
# before their first attach (the CLI mounts it itself where it is missing).
ensure_bpffs() {
	[ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ] ||
		mount -t bpf bpf /sys/fs/bpf
}

# xn ARGS...: the CLI, run in the switch's namespace, as the README says:
# nsenter --net keeps this mount namespace and its /sys/fs/bpf ('ip netns
# exec' would give the CLI a private one). Where /sys/fs/bpf is not
# mounted, the CLI mounts it (tests/integration/bpffs.sh checks that).
# Before a detach (which removes the follower's log) the log joins the
# test's logs.
xn() {
	[ "${1-}" = detach ] && [ -n "${2-}" ] && [ -d "${LOGDIR-}" ] &&
		cat "/run/xdpnet/$2.log" >>"$LOGDIR/follower-$2.log" 2>/dev/null
	timeout -k 5 60 nsenter --net="/run/netns/$SW" "$XDPNET" "$@"
}

# xn_bg ARGS...: xn in the background, without its time limit; BG is the
# pid of xdpnet itself (nsenter execs into it), to signal or kill -9.
xn_bg() {
	nsenter --net="/run/netns/$SW" "$XDPNET" "$@" &
	BG=$!
}

# ---------------------------------------------------------------- a suite's frame
#
# Every suite, in this order:
#   . lib.sh; its names (SW, BR, PIN; LOCK when it takes one)
#   parse_args USAGE "$@"      --keep, -v and its own options (suite_opt)
#   traps_install              cleanup on exit, a failure on a signal
#   check "preflight: ..."; check "preflight: no other ..." take_lock
#   ... its checks ...
#   finish                     cleanup, "P passed, F failed", exit status
# A suite with more to remove than cleanup knows of defines suite_cleanup.

# parse_args USAGE ARGS...: the options of every suite, --keep (keep the
# logs even when everything passed) and -v (each check's log on success
# too). Any other option goes to the suite's suite_opt ARGS...: it sets
# what the option says and OPT_SHIFT to the words it took (1 unless it
# says otherwise), or fails for one it does not know. USAGE: the options,
# for the usage line (exit 2).
parse_args() {
	local usage=$1
	shift
	while [ $# -gt 0 ]; do
		OPT_SHIFT=1
		case $1 in
		--keep) KEEP_LOGS=1 ;;
		-v) VERBOSE=1 ;;
		*) declare -F suite_opt >/dev/null && suite_opt "$@" || OPT_SHIFT=0 ;;
		esac
		if [ "$OPT_SHIFT" -lt 1 ] || [ "$OPT_SHIFT" -gt $# ]; then
			echo "usage: $0 $usage" >&2
			rm -rf "$WORK"
			exit 2
		fi
		shift "$OPT_SHIFT"
	done
}

# traps_install: cleanup on exit; on SIGINT/SIGTERM, a failure on the
# original stdout/stderr (fds 3 and 4), cleanup, the summary, exit 130.
on_signal() {
	exec 1>&3 2>&4
	echo "# interrupted by SIG$1"
	T_FAIL=$((T_FAIL + 1))
	FAILED+=("interrupted by SIG$1")
	cleanup
	summary
	exit 130
}
traps_install() {
	exec 3>&1 4>&2
	trap cleanup EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
}

# runfiles_rm BRIDGE: xdpnet's run files of a test's own bridge (its lock,
# follower lock and log), once nothing of xdpnet runs for it.
runfiles_rm() { rm -f "/run/xdpnet/$1".{lock,follow,pid,log,dump}; }

# finish: the end of a suite (or of a preflight that failed).
finish() { cleanup; summary; [ "$T_FAIL" = 0 ]; exit; }

# Remove everything: the suite's own (suite_cleanup, where it defines
# one), started processes, namespaces, our pins.
CLEANED=0
cleanup() {
	local p n
	[ "$CLEANED" = 1 ] && return 0
	CLEANED=1
	unwound 0 # before the logs are kept or removed
	trap - EXIT INT TERM
	if declare -F suite_cleanup >/dev/null; then suite_cleanup; fi
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do stop_pid "$p"; done
	PIDS=()
	# Only the run holding the lock owns the switch and its pins.
	if [ "$HAVE_LOCK" = 1 ] && [ -e "$PIN" ] && [ -e "/run/netns/$SW" ] && [ -x "$XDPNET" ]; then
		xn detach "$BR" >/dev/null 2>&1
	fi
	# Our attach started it; detach should have stopped it.
	if [ "$HAVE_LOCK" = 1 ] && p=$(follower_pid); then
		echo "# cleanup: the follower of $BR (pid $p) outlived detach; stopping it"
		is_follower "$p" && kill -TERM "$p"
	fi
	for n in "${NSLIST[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	NSLIST=()
	if [ "$HAVE_LOCK" = 1 ] && [ -e "$PIN" ]; then
		echo "# cleanup: $PIN was left behind; removing it"
		rm -rf "$PIN"
	fi
	# xdpnet's run files for our bridge, where a detach did not remove
	# them (the follower's log goes with the test's logs).
	if [ "$HAVE_LOCK" = 1 ]; then
		cat "/run/xdpnet/$BR.log" >>"$LOGDIR/follower-$BR.log" 2>/dev/null
		runfiles_rm "$BR"
	fi
	[ "$HAVE_LOCK" = 1 ] && [ "$(cat "$LOCK" 2>/dev/null)" = $$ ] && rm -f "$LOCK"
	if [ "${KEEP_LOGS:-0}" = 1 ] || [ "$T_FAIL" -gt 0 ]; then
		echo "# logs kept in $LOGDIR"
	else
		rm -rf "$WORK"
	fi
}

# follower_pid: the pid of a running follower of $BR (the follower holds
# /run/xdpnet/$BR.follow locked while it runs), else fail.
follower_pid() {
	local f=/run/xdpnet/$BR.follow
	[ -e "$f" ] && ! flock -n -s "$f" true || return 1
	local pid
	read -r pid 2>/dev/null <"/run/xdpnet/$BR.pid"
	echo "${pid:-?}"
}
is_follower() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q " follow $BR"; }

# take_lock: one run of a suite at a time: a second one would tear down
# the first one's switch. LOCK is a pid file of the suite's own (not flock:
# every child would inherit the lock's descriptor); its holder counts while
# it runs and its command line names the suite (SUITE: this script's name
# unless the suite sets it), so that a pid reused by another process does
# not. The lock holder's cleanup owns the switch: it detaches $BR and
# removes its pins and xdpnet's run files.
LOCK=/run/lock/xnt-integration.pid
SUITE=
HAVE_LOCK=0
take_lock() {
	local pid suite=${SUITE:-$(basename "$0")}
	pid=$(cat "$LOCK" 2>/dev/null)
	if [ -n "$pid" ] && [ "$pid" != $$ ] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$suite"; then
		echo "another run of $suite (pid $pid) holds $LOCK"
		return 1
	fi
	echo $$ >"$LOCK" || return 1
	HAVE_LOCK=1
}

# xf_lock / xf_unlock: xdp-filter's maps and pins are global
# (/sys/fs/bpf/xdp-filter), so one suite at a time uses it, whatever runs
# beside it. A folder with the holder's pid (not flock: the followers a
# test starts would inherit its descriptor); a holder that is gone does
# not count. xf_lock waits up to 15 minutes.
XF_LOCK=/run/lock/xn-xdp-filter
xf_lock() {
	local i pid
	for ((i = 1; i <= 4500; i++)); do
		if mkdir "$XF_LOCK" 2>/dev/null; then
			echo $$ >"$XF_LOCK/pid"
			XF_LOCKED=1
			return 0
		fi
		pid=$(cat "$XF_LOCK/pid" 2>/dev/null)
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			rm -rf "$XF_LOCK"
			continue
		fi
		[ "$i" = 1 ] && echo "waiting for $XF_LOCK (pid ${pid:-?})"
		sleep 0.2
	done
	echo "$XF_LOCK still held (pid ${pid:-?})"
	return 1
}
xf_unlock() {
	[ "${XF_LOCKED:-0}" = 1 ] || return 0
	[ "$(cat "$XF_LOCK/pid" 2>/dev/null)" = $$ ] && rm -rf "$XF_LOCK"
	# What this suite put in place is gone with it: the next holder's.
	XF_LOCKED=0 XF_OURS=0 XF_MKDIR=0
}

# Namespaces (of this suite's prefix: the part of $SW before its first
# "-") and pins left by an earlier run that died.
remove_stale() {
	local n
	for n in $(ip netns list | awk '{print $1}' | grep "^${SW%%-*}-"); do
		echo "# removing stale namespace $n"
		ip netns del "$n"
	done
	if [ -e "$PIN" ]; then
		echo "# removing stale $PIN"
		rm -rf "$PIN"
	fi
}

# ---------------------------------------------------------------- topology
#
# Stand-in i of topology net N (veth: 1, tap: 2):
#   namespace xnt-vi / xnt-ti, device eth0, MAC 02:99:0N:00:00:0i,
#   10.99.N.i/24, fd99:N::i/64, fe80::i/64.
# Bridge ports in xnt-sw: xntvi (veth) / xntti (tap).

TOPO=
GUESTS=()  # guest namespaces, in order
PORTS=()   # their bridge ports, same order
declare -A RELAY_PID

topo_net() { [ "$TOPO" = veth ] && echo 1 || echo 2; }
g_ns() { echo "${GUESTS[$(($1 - 1))]}"; }
g_port() { echo "${PORTS[$(($1 - 1))]}"; }
g_mac() { echo "02:99:0$(topo_net):00:00:0$1"; }
g_ip4() { echo "10.99.$(topo_net).$1"; }
g_ip6() { echo "fd99:$(topo_net)::$1"; }
g_ll() { echo "fe80::$1%eth0"; }

switch_up() {
	ns_add "$SW" || return 1
	# The switch has no addresses of its own: keep it quiet.
	nsx "$SW" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$SW" link add "$BR" type bridge stp_state 0 || return 1
	ip -n "$SW" link set "$BR" up
}

# guest_conf NS I: address the stand-in's eth0 and bring it up.
guest_conf() {
	local ns=$1 i=$2
	ip -n "$ns" link set eth0 down
	# No router solicitations: they are multicast, the bridge would learn
	# the guest's MAC from them and the keep-alive test would prove nothing.
	nsx "$ns" sysctl -qw net.ipv6.conf.all.router_solicitations=0 \
		net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.eth0.router_solicitations=0
	ip -n "$ns" link set eth0 address "$(g_mac "$i")" addrgenmode none || return 1
	ip -n "$ns" addr add "$(g_ip4 "$i")/24" dev eth0 || return 1
	ip -n "$ns" addr add "$(g_ip6 "$i")/64" dev eth0 nodad || return 1
	ip -n "$ns" addr add "fe80::$i/64" dev eth0 nodad || return 1
	ip -n "$ns" link set eth0 up
}

veth_guest_add() { # I
	local i=$1 ns=$XNP-v$1 port=${XNP}v$1
	ns_add "$ns" || return 1
	ip -n "$SW" link add "$port" type veth peer name eth0 netns "$ns" || return 1
	ip -n "$SW" link set "$port" master "$BR" up || return 1
	guest_conf "$ns" "$i"
}

# relay_start I [RELAY FLAGS...]: stand-in I as a tap behind vnet_relay.
relay_start() {
	local i=$1 ns=$XNP-t$1 port=${XNP}t$1 pid
	shift
	[ -e "/run/netns/$ns" ] || ns_add "$ns" || return 1
	: >"$WORK/relay$i.out"
	ip netns exec "$SW" "$RELAY" --host-tap "$port" --guest-tap eth0 \
		--netns "$ns" "$@" >"$WORK/relay$i.out" 2>>"$WORK/relay$i.err" &
	pid=$!
	track "$pid"
	RELAY_PID[$i]=$pid
	if ! wait_line "$WORK/relay$i.out" READY 5; then
		echo "relay $i not ready"
		cat "$WORK/relay$i.err"
		return 1
	fi
	ip -n "$SW" link set "$port" master "$BR" up || return 1
	guest_conf "$ns" "$i"
}

relay_stop() {
	stop_pid "${RELAY_PID[$1]}"
	RELAY_PID[$1]=
	tail -n 2 "$WORK/relay$1.err" 2>/dev/null
}

# Restart all relays with other flags (a "VM" with other virtio features).
relays_restart() {
	local i
	for i in 1 2 3; do relay_stop "$i"; done
	for i in 1 2 3; do relay_start "$i" "$@" || return 1; done
	witness_rules
	wait_ports_up
}

# topo_up veth|tap: the switch plus three stand-ins.
topo_up() {
	local i
	TOPO=$1
	GUESTS=()
	PORTS=()
	switch_up || return 1
	for i in 1 2 3; do
		if [ "$TOPO" = veth ]; then
			veth_guest_add "$i" || return 1
			GUESTS+=("xnt-v$i")
			PORTS+=("xntv$i")
		else
			relay_start "$i" || return 1
			GUESTS+=("xnt-t$i")
			PORTS+=("xntt$i")
		fi
	done
	witness_rules || return 1
	wait_ports_up
}

topo_down() {
	local i n
	for i in "${!RELAY_PID[@]}"; do
		[ -n "${RELAY_PID[$i]}" ] && relay_stop "$i" >/dev/null
	done
	RELAY_PID=()
	if [ -e "$PIN" ] && [ -x "$XDPNET" ]; then xn detach "$BR" >/dev/null 2>&1; fi
	for n in "${GUESTS[@]}" xnt-v4 "$SW"; do ns_del "$n"; done
	GUESTS=()
	PORTS=()
}

wait_ports_up() {
	local i p st v
	for ((i = 1; i <= 50; i++)); do
		st=0
		for p in "${PORTS[@]}"; do # (BR_STATE_FORWARDING is 3)
			if ns_sys v "$SW" "class/net/$p/brport/state"; then
				[ "$v" = 3 ] || st=1
			else
				ip -n "$SW" -d link show "$p" | grep -q 'state forwarding' || st=1
			fi
		done
		[ $st = 0 ] && return 0
		sleep 0.1
	done
	echo "bridge ports not forwarding:"
	ip -n "$SW" -d link show
	return 1
}

# Check the topology is what we think it is.
topo_check() {
	local i p
	for p in "${PORTS[@]}"; do
		ip -n "$SW" link show "$p" | grep -q "master $BR" || { echo "$p not in $BR"; return 1; }
	done
	for i in 1 2 3; do
		ip -n "$(g_ns "$i")" addr show eth0
		ip -n "$(g_ns "$i")" addr show eth0 | grep -q "inet $(g_ip4 "$i")/" || return 1
	done
	bridge -n "$SW" link show
}

# ---------------------------------------------------------------- witness
#
# br_netfilter: bridged IPv4/IPv6 frames traverse iptables/ip6tables
# FORWARD; one counting rule per ordered pair of ports counts what the
# *bridge* forwarded. Frames the datapath redirects never reach it.

witness_rules() {
	local a b t
	nsx "$SW" sysctl -qw net.bridge.bridge-nf-call-iptables=1 \
		net.bridge.bridge-nf-call-ip6tables=1 || return 1
	for t in iptables ip6tables; do
		nsx "$SW" "$t" -w -F FORWARD || return 1
		for a in "${PORTS[@]}" ${EXTRA_PORTS:-}; do
			for b in "${PORTS[@]}" ${EXTRA_PORTS:-}; do
				[ "$a" = "$b" ] && continue
				nsx "$SW" "$t" -w -A FORWARD -m physdev \
					--physdev-in "$a" --physdev-out "$b" || return 1
			done
		done
	done
}

# witness IN OUT: packets the bridge forwarded from port IN to port OUT.
witness() {
	{
		nsx "$SW" iptables -w -nvxL FORWARD
		nsx "$SW" ip6tables -w -nvxL FORWARD
	} | awk -v i="$1" -v o="$2" '
		{ for (k = 1; k < NF; k++)
			if ($k == "--physdev-in" && $(k+1) == i && $(k+2) == "--physdev-out" && $(k+3) == o)
				s += $1 }
		END { print s + 0 }'
}

rx_packets() { # NS [DEV]
	rx_of "$1" "${2:-eth0}"
}

# rx_of NS DEV: the packets DEV received (through the namespace's anchor;
# else ip's JSON read by bash: no jq, which takes 40 ms to start here).
# rx_var VAR NS DEV: the same into VAR, without a subshell.
rx_var() {
	local _rxj
	ns_sys "$1" "$2" "class/net/$3/statistics/rx_packets" && return 0
	_rxj=$(ip -n "$2" -j -s link show "$3") || return 1
	[[ $_rxj =~ \"rx\":\{\"bytes\":[0-9]+,\"packets\":([0-9]+) ]] || return 1
	printf -v "$1" %s "${BASH_REMATCH[1]}"
}
rx_of() {
	local _rxv
	rx_var _rxv "$1" "$2" && echo "$_rxv"
}

# ---------------------------------------------------------------- CLI state

# err_exit WANT ARGS...: the CLI exits WANT (a code, or codes: "1|7")
# with one line on stderr.
err_exit() {
	local want=$1 rc lines
	shift
	echo "+ xdpnet $*"
	xn "$@" >"$WORK/err.out" 2>"$WORK/err.err"
	rc=$?
	echo "exit $rc"
	echo "stdout:"; cat "$WORK/err.out"
	echo "stderr:"; cat "$WORK/err.err"
	lines=$(wc -l <"$WORK/err.err")
	echo "exit code: got '$rc', want '$want'"
	case "|$want|" in *"|$rc|"*) ;; *) return 1 ;; esac
	expect_eq "lines on stderr" "$lines" 1 || return 1
	[ -s "$WORK/err.err" ]
}

# Everything in the switch namespace an attach could have touched.
sw_state() {
	local d
	ip -n "$SW" -d link show | sed -E 's/[a-z_]+_timer +[0-9.]+//g'
	for d in $(ip -n "$SW" -o link show | awk -F': ' '{print $2}' | cut -d@ -f1); do
		echo "tc $d:"
		nsx "$SW" tc filter show dev "$d" ingress
		nsx "$SW" tc qdisc show dev "$d"
	done
	nsx "$SW" bpftool net show
	echo "pins:"
	ls -R "$PIN_ROOT" 2>/dev/null | grep -E "^$PIN_ROOT/$XNP" || true
}


ATTACHED_MODE= # mode we attached with, empty when detached

# The dump switch of $PIN (pinned "dump" map): 1 while a dump runs.
dump_on() { bpftool map lookup pinned "$PIN/dump" key 0 0 0 0 -j | jq -r '.formatted.value[".data.dump"][0].xdpnet_dump.on'; }
is_on() { [ "$(dump_on)" = 1 ]; }

# kernel_ge MAJOR MINOR: the running kernel is MAJOR.MINOR or newer.
kernel_ge() { [ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -ge $(($1 * 1000 + $2)) ]; }

# xdp_knows_native: the XDP stage can tell tun's native buffers from
# generic-XDP skbs, so it completes partial checksums from taps itself
# (docs/design.md, "Checksums in the XDP stage"): by the rxq in the live
# datapath, by the metadata room before Linux 6.15. Only the portable
# datapath on 6.15 and later hands them to the TC stage.
xdp_knows_native() {
	[ "$(xn status "$BR" --json | jq -r '.bridges[0].datapath')" = live ] || ! kernel_ge 6 15
}

status_json() { # FILE
	rm -f "$1.flat"
	xn status "$BR" --json >"$1" 2>"$1.err"
}

# ctr FILE PORT COUNTER: a port's packet counter from a status JSON. jq
# (40 ms here) runs once per file: it writes FILE.flat ("PORT COUNTER
# PACKETS" lines), read again while it is newer than FILE.
ctr() {
	local flat=$1.flat p c n sum=0
	if ! [ "$flat" -nt "$1" ]; then
		jq -r '.bridges[0].ports[] | .name as $p | .counters | to_entries[] |
			"\($p) \(.key) \(.value.packets // 0)"' "$1" >"$flat" 2>/dev/null ||
			{ rm -f "$flat"; echo 0; return 0; }
	fi
	while read -r p c n; do
		[ "$p" = "$2" ] && [ "$c" = "$3" ] && sum=$((sum + n))
	done <"$flat"
	echo "$sum"
}

# ctr_deltas F0 F1 PORT COUNTER...: "COUNTER=DELTA" of a port's packet
# counters between two status JSONs, in one jq run.
ctr_deltas() {
	local f0=$1 f1=$2 p=$3
	shift 3
	jq -rn --slurpfile a "$f0" --slurpfile b "$f1" --arg p "$p" '
		def c(f; k): [f.bridges[0].ports[] | select(.name == $p) | .counters[k].packets // 0] | add // 0;
		$ARGS.positional[] as $k | "\($k)=\(c($b[0]; $k) - c($a[0]; $k))"' --args "$@" 2>/dev/null
}
# ctr_sum F0 F1 PORT CTR...: the growth of these packet counters together.
ctr_sum() {
	local sum=0 d
	for d in $(ctr_deltas "$@" | sed 's/.*=//'); do sum=$((sum + d)); done
	echo "$sum"
}

# ---------------------------------------------------------------- traffic

next_port() { NEXT_PORT=$((NEXT_PORT + 1)); }

ping_check() { # SRC_NS ADDR [ping args]
	local ns=$1 addr=$2
	shift 2
	nsx "$ns" timeout -k 2 10 ping -c 3 -i 0.2 -w 6 -s 1000 -p a55a0ff0 "$@" "$addr"
}

# tcp_xfer SRC_NS DST_NS ADDR BYTES [RATE] [SECS]: a content-checked transfer.
tcp_xfer() {
	tcp_start "$@" || return 1
	tcp_finish
}

# tcp_start SRC_NS DST_NS ADDR BYTES [RATE] [SECS] [PROGRESS_FILE]: start the
# server and the client in the background (tcp_finish waits for both).
# With XFER_UNTIL=FILE the client stops sending (BYTES at most) once FILE
# exists: a transfer as long as what it spans, however slow the machine.
# Started directly, not via nsx: a backgrounded function is a subshell, and
# $! would not be the process to stop.
tcp_start() {
	local src=$1 dst=$2 addr=$3 bytes=$4 rate=${5:-0} secs=${6:-30} prog=${7:-}
	next_port
	X_PORT=$NEXT_PORT
	ip netns exec "$dst" timeout -k 2 "$secs" "$PY" "$XFER" tcp-server --port "$X_PORT" \
		--timeout "$secs" >"$WORK/srv.$X_PORT" 2>&1 &
	X_SPID=$!
	track "$X_SPID"
	if ! wait_line "$WORK/srv.$X_PORT" LISTENING 5; then
		echo "server did not start"; cat "$WORK/srv.$X_PORT"; stop_pid "$X_SPID"; return 1
	fi
	echo "tcp $src -> $dst [$addr]:$X_PORT $bytes bytes rate=$rate"
	ip netns exec "$src" timeout -k 2 "$secs" "$PY" "$XFER" tcp-client --to "$addr" \
		--port "$X_PORT" --bytes "$bytes" --rate "$rate" --timeout "$secs" \
		${prog:+--progress "$prog"} ${XFER_UNTIL:+--until "$XFER_UNTIL"} >"$WORK/cli.$X_PORT" 2>&1 &
	X_CPID=$!
	track "$X_CPID"
}

tcp_finish() {
	local rc src_rc
	wait "$X_CPID"
	src_rc=$?
	untrack "$X_CPID"
	wait "$X_SPID"
	rc=$?
	untrack "$X_SPID"
	cat "$WORK/cli.$X_PORT" "$WORK/srv.$X_PORT"
	rm -f "$WORK/cli.$X_PORT" "$WORK/srv.$X_PORT"
	echo "client rc=$src_rc server rc=$rc"
	[ "$src_rc" = 0 ] && [ "$rc" = 0 ]
}

# udp_xfer SRC_NS DST_NS ADDR [COUNT] [SIZES]: stop-and-wait echo.
udp_xfer() {
	local src=$1 dst=$2 addr=$3 count=${4:-40} sizes=${5:-} port spid rc src_rc
	next_port
	port=$NEXT_PORT
	ip netns exec "$dst" timeout -k 2 30 "$PY" "$XFER" udp-server --port "$port" \
		--count "$count" --timeout 25 >"$WORK/srv.$port" 2>&1 &
	spid=$!
	track "$spid"
	if ! wait_line "$WORK/srv.$port" LISTENING 5; then
		echo "server did not start"; cat "$WORK/srv.$port"; stop_pid "$spid"; return 1
	fi
	echo "udp $src -> $dst [$addr]:$port $count datagrams"
	nsx "$src" timeout -k 2 30 "$PY" "$XFER" udp-client --to "$addr" \
		--port "$port" --count "$count" ${sizes:+--sizes "$sizes"}
	src_rc=$?
	wait "$spid"
	rc=$?
	untrack "$spid"
	cat "$WORK/srv.$port"
	rm -f "$WORK/srv.$port"
	echo "client rc=$src_rc server rc=$rc"
	[ "$src_rc" = 0 ] && [ "$rc" = 0 ]
}

# ---------------------------------------------------------------- measuring
#
# m_begin I J / m_end I J around traffic from stand-in I to stand-in J:
#   M_RX   frames J's eth0 received
#   M_WIT  frames the bridge forwarded from I's port to J's port (witness)
#   M_TC, M_XDP  tc_redirect / xdp_redirect on I's port (when attached)
#   M_DEFER  the XDP stage's defer counters on I's port, for the log

m_begin() {
	M_RX0=$(rx_packets "$(g_ns "$2")")
	M_WIT0=$(witness "$(g_port "$1")" "$(g_port "$2")")
	if [ -n "$ATTACHED_MODE" ]; then status_json "$WORK/m0.json"; fi
}

m_end() {
	local p
	p=$(g_port "$1")
	M_RX=$(($(rx_packets "$(g_ns "$2")") - M_RX0))
	M_WIT=$(($(witness "$p" "$(g_port "$2")") - M_WIT0))
	M_TC=0 M_XDP=0 M_DEFER=
	if [ -n "$ATTACHED_MODE" ]; then
		status_json "$WORK/m1.json"
		local kv
		for kv in $(ctr_deltas "$WORK/m0.json" "$WORK/m1.json" "$p" tc_redirect \
			xdp_redirect xdp_defer_csum xdp_defer_size xdp_defer_target \
			xdp_defer_proto xdp_defer_refresh pass_unknown pass_refresh \
			pass_not_attached drop_redirect_err drop_xmit_err); do
			case $kv in
			tc_redirect=*) M_TC=${kv#*=} ;;
			xdp_redirect=*) M_XDP=${kv#*=} ;;
			*) M_DEFER+=" $kv" ;;
			esac
		done
	fi
	echo "measured: rx=$M_RX bridge(witness)=$M_WIT tc_redirect=$M_TC xdp_redirect=$M_XDP;$M_DEFER"
}

# The frames took the bypass: redirects >= 90% of what J received, and the
# bridge forwarded at most 1% (+4: keep-alive frames).
expect_bypass() {
	echo "rx=$M_RX bridge(witness)=$M_WIT tc_redirect=$M_TC xdp_redirect=$M_XDP;$M_DEFER"
	local red=$((M_TC + M_XDP)) st=0
	if [ "$M_RX" -le 0 ]; then echo "receiver saw nothing"; return 1; fi
	if [ $((red * 10)) -lt $((M_RX * 9)) ]; then
		echo "FAIL: redirected $red < 90% of received $M_RX"; st=1
	fi
	if [ $((M_WIT * 100)) -gt $((M_RX + 400)) ]; then
		echo "FAIL: the bridge forwarded $M_WIT of $M_RX frames (> 1% + 4)"; st=1
	fi
	if [ "${1:-}" = xdp ] && [ "$M_XDP" -le 0 ]; then
		echo "FAIL: xdp_redirect did not grow"; st=1
	fi
	return $st
}

# Detached (or never attached): the bridge carried (nearly) everything.
expect_bridged() {
	echo "rx=$M_RX bridge(witness)=$M_WIT"
	[ "$M_RX" -gt 0 ] && [ $((M_WIT * 10)) -ge $((M_RX * 9)) ]
}
