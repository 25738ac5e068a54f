#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The kernel's own bridge tests as the judge (root; run by
# tests/kernels/inguest.sh inside a Debian guest, whose kernel has VRF,
# VLAN filtering and the rest; any kernel where they can run).
#
# Usage: tests/kernels/selftests.sh DIR [TEST...]
#   DIR: a copy of the guest kernel's tools/testing/selftests/net (its
#   forwarding/ folder, and lib.sh where forwarding/lib.sh sources it),
#   from the Debian package linux-source-X.Y (tests/kernels/run.sh
#   caches it). TEST: forwarding/*.sh names (default: every test there
#   that builds a bridge, `grep -l 'type bridge'`, but the libraries the
#   tests source, which are not executable).
#
# Each test runs twice, in a work copy of DIR (a tmpfs):
#   - on the plain bridge: its subtests ("TEST: ... [ OK ]") as they are;
#     a subtest that fails there is reported with its reason and left out;
#   - with xdpnet: forwarding/lib.sh gets a hook (appended) that, once the
#     test's setup_wait returns, as tests_run starts and as each capture
#     (tcpdump_start) starts, attaches xdpnet (tc mode, with its follower)
#     to every bridge the test built in the root namespace and not yet
#     attached, and once tests_run returns (or in pre_cleanup) reads how
#     many frames each bridge's datapath bypassed, then detaches. A bridge
#     the test deletes on its own is counted as each capture stops.
#     Bridges a test builds inside its own namespaces are counted and
#     named, not attached.
# Every subtest that passed on the plain bridge must pass with xdpnet; an
# attach that fails is a failure. The output names, per test, the frames
# xdpnet bypassed (0: the test sends no unicast xdpnet could carry, which
# proves nothing about it, and is said).
#
# A verdict must not be luck: when a subtest passes on one side and fails
# on the other, the test runs XNST_REPEAT (default 3) more times on each
# side, interleaved, and each such subtest gets its pass rate on both. It
# fails the run when xdpnet's rate is below the plain bridge's by more
# than chance (Fisher's exact test, one-sided, p < 0.05), or when it never
# passed with xdpnet and passed at least twice plain. The other way round
# fails it too: xdpnet's rate above the plain bridge's by more than chance,
# or never passed plain and at least twice with xdpnet (xdpnet changed
# where frames go: what the bridge drops arrived, say). Otherwise it is
# reported as timing-bound, with both rates.
#
# Each run of a test has XNST_TIMEOUT seconds (default 2400: under TCG,
# no_forwarding alone took 904 s on the plain bridge in the 6.1 guest).
#
# br_netfilter: the tests expect bridged frames not to meet iptables (a
# host without it; its header checks drop, say, the IPv4 headers that
# pedit rewrites without fixing their checksum). Where it is loaded (the
# Debian guests preload it for xdpnet's own tests), its bridge-nf-call-*
# sysctls are 0 while the tests run (in the namespaces a test makes too,
# from its setup_wait on) and restored after; XNST_BR_NETFILTER=on
# leaves them as they are (then xdpnet's own br_netfilter checks are judged
# too). The header line says which.
#
# Output: "ok N - ..." / "not ok N - ..." per test and run, then
# "P passed, F failed". Logs: $XNST_LOGS (default a folder under /tmp),
# kept when something failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
XDPNET=${XDPNET:-$ROOT/build/xdpnet}
SRC=${1:?usage: $0 DIR [TEST...]}
shift
[ -d "$SRC/forwarding" ] || { echo "not ok 1 - no forwarding/ in $SRC"; echo "0 passed, 1 failed"; exit 1; }
TESTS=("$@")
if [ ${#TESTS[@]} = 0 ]; then
	while read -r t; do
		[ -x "$t" ] && TESTS+=("$(basename "$t")")
	done < <(grep -l 'type bridge' "$SRC"/forwarding/*.sh)
fi
W=$(mktemp -d /tmp/xnst.XXXXXX)
LOGS=${XNST_LOGS:-$W/logs}
mkdir -p "$LOGS"
N=0 PASS=0 FAIL=0
ok() { N=$((N + 1)); PASS=$((PASS + 1)); echo "ok $N - $*"; }
notok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
NF_SAVED=
cleanup() {
	local b
	# A test that died half-way may have left its bridges attached.
	for b in $(sed 's/@.*//' "$W"/*.bridges 2>/dev/null | sort -u); do
		[ -e "/sys/fs/bpf/xdpnet/$b" ] && "$XDPNET" detach "$b" >/dev/null 2>&1
	done
	[ -n "$NF_SAVED" ] && sysctl -qw $NF_SAVED
	[ "$FAIL" = 0 ] && rm -rf "$W"
}
trap cleanup EXIT

# The hook: appended to the work copy's forwarding/lib.sh, active when
# XNST_RUN names a file prefix for this run.
cp -a "$SRC" "$W/net"
# Before 6.8, lib.sh has no interfaces of its own: the tests take them from
# forwarding.config (the sample creates veth pairs). Debian 12 has no ping6.
if ! grep -q '^declare -A NETIFS=(' "$W/net/forwarding/lib.sh" &&
	[ ! -f "$W/net/forwarding/forwarding.config" ]; then
	cp "$W/net/forwarding/forwarding.config.sample" "$W/net/forwarding/forwarding.config"
	command -v ping6 >/dev/null || echo 'PING6="ping -6"' >>"$W/net/forwarding/forwarding.config"
fi
cat >>"$W/net/forwarding/lib.sh" <<'EOF'

# ---- xdpnet's hook (tests/kernels/selftests.sh)
# br_netfilter off in the namespaces the test made too (each new one
# starts with bridge-nf-call-* 1), once its topology is up.
if [[ "${XNST_NF_OFF:-}" = 1 ]]; then
	xnst_nf_off()
	{
		local n
		for n in $(ip netns list | cut -d' ' -f1); do
			ip netns exec "$n" sysctl -qw net.bridge.bridge-nf-call-iptables=0 \
				net.bridge.bridge-nf-call-ip6tables=0 \
				net.bridge.bridge-nf-call-arptables=0 2>/dev/null
		done
	}
	eval "xnst_nf_setup_wait() $(declare -f setup_wait | tail -n +2)"
	setup_wait()
	{
		xnst_nf_off
		xnst_nf_setup_wait "$@"
	}
fi
if [[ -n "${XNST_RUN:-}" ]]; then
	# A bridge is known by NAME@IFINDEX: a test may delete a bridge and
	# build another of the same name (no_forwarding).
	xnst_root_bridges()
	{
		ip -j link show type bridge | jq -r '.[] | "\(.ifname)@\(.ifindex)"'
	}
	# Attach to every bridge of the test not yet attached in this run.
	xnst_attach()
	{
		local b n i
		touch "$XNST_RUN.ran"
		for n in $(ip netns list | cut -d' ' -f1); do
			ip -n "$n" -j link show type bridge | jq -r --arg n "$n" '.[] | "\($n)/\(.ifname)"'
		done >>"$XNST_RUN.nsbridges" 2>/dev/null
		for b in $(xnst_root_bridges); do
			grep -qxF "$b" "$XNST_RUN.bridges" 2>/dev/null && continue
			# An earlier bridge of this name was deleted: its follower
			# removes its pins as it exits (poll, 30 s at most).
			for i in $(seq 300); do
				[ -e "/sys/fs/bpf/xdpnet/${b%@*}" ] || break
				sleep 0.1
			done
			if "$XNST_XDPNET" attach "${b%@*}" >>"$XNST_RUN.attach" 2>&1; then
				echo "$b" >>"$XNST_RUN.bridges"
			else
				echo "xnst: attach $b failed" >>"$XNST_RUN.attach"
				echo "$b" >>"$XNST_RUN.failed"
			fi
		done
	}
	# Record what each attached bridge that still exists has bypassed so
	# far ("NAME@IFINDEX N"; the last line of a bridge counts).
	xnst_count()
	{
		local b live
		live=$(xnst_root_bridges)
		for b in $(sort -u "$XNST_RUN.bridges" 2>/dev/null); do
			grep -qxF "$b" "$XNST_RUN.detached" 2>/dev/null && continue
			grep -qxF "$b" <<<"$live" || continue
			"$XNST_XDPNET" status "${b%@*}" --json 2>>"$XNST_RUN.attach" |
				jq --arg b "$b" '[.bridges[0].ports[].counters |
					.tc_redirect.packets + .xdp_redirect.packets] | add // 0 |
					"\($b) \(.)"' -r >>"$XNST_RUN.bypassed"
		done
	}
	# Count, then detach every attached bridge that still exists (the
	# follower of a deleted one has removed its hooks and pins itself).
	xnst_detach()
	{
		local b live
		xnst_count
		live=$(xnst_root_bridges)
		for b in $(sort -u "$XNST_RUN.bridges" 2>/dev/null); do
			grep -qxF "$b" "$XNST_RUN.detached" 2>/dev/null && continue
			grep -qxF "$b" <<<"$live" &&
				"$XNST_XDPNET" detach "${b%@*}" >>"$XNST_RUN.attach" 2>&1
			echo "$b" >>"$XNST_RUN.detached"
		done
	}
	# Most tests call setup_wait once their topology is up; all of them
	# run their subtests through tests_run (bridge_mdb_port_down has no
	# setup_wait), and most end in pre_cleanup. no_forwarding builds its
	# bridges inside its subtests and deletes them after: there the
	# capture's start attaches them and its stop counts them.
	eval "xnst_setup_wait() $(declare -f setup_wait | tail -n +2)"
	setup_wait()
	{
		xnst_setup_wait "$@"
		xnst_attach
	}
	eval "xnst_tests_run() $(declare -f tests_run | tail -n +2)"
	tests_run()
	{
		xnst_attach
		xnst_tests_run "$@"
		xnst_detach
	}
	eval "xnst_tcpdump_start() $(declare -f tcpdump_start | tail -n +2)"
	tcpdump_start()
	{
		xnst_attach
		xnst_tcpdump_start "$@"
	}
	eval "xnst_tcpdump_stop() $(declare -f tcpdump_stop | tail -n +2)"
	tcpdump_stop()
	{
		xnst_tcpdump_stop "$@"
		xnst_count
	}
	eval "xnst_pre_cleanup() $(declare -f pre_cleanup | tail -n +2)"
	pre_cleanup()
	{
		xnst_detach
		xnst_pre_cleanup "$@"
	}
fi
EOF

# run TEST plain|xdpnet: the test's output in $W/TEST.MODE.out, its exit
# status in RC.
run() {
	local t=$1 mode=$2 run=$W/${1%.sh}.$2
	rm -f "$run".*
	(
		cd "$W/net/forwarding" || exit 1
		if [ "$mode" = xdpnet ]; then
			export XNST_RUN=$run XNST_XDPNET=$XDPNET
		fi
		[ -n "$NF_SAVED" ] && export XNST_NF_OFF=1
		timeout -k 10 "${XNST_TIMEOUT:-2400}" bash "./$t"
	) >"$run.out" 2>&1 </dev/null
	RC=$?
	cp "$run".* "$LOGS/" 2>/dev/null
}

# subtests FILE VERDICT: the names of the subtests with that verdict
# ("OK", "FAIL", "SKIP", "XFAIL"), one a line.
subtests() {
	sed -n "s/^TEST: \(.*[^ ]\) *\[ *$2 *\]\$/\1/p" "$1" | sed 's/ *$//'
}

# rates TEST SUBTESTS: run TEST XNST_REPEAT more times on each side,
# interleaved, and write $W/NAME.rates: per subtest (one a line in
# SUBTESTS), "NAME<TAB>plain-passes<TAB>runs<TAB>xdpnet-passes<TAB>runs<TAB>
# lost|gained|timing". The first run of each side counts.
rates() {
	local t=$1 name=${1%.sh} i s mode
	printf '%s\n' "$2" >"$W/$name.flips"
	cp "$W/ok.$name.plain" "$W/all.$name.plain"
	cp "$W/ok.$name.xdpnet" "$W/all.$name.xdpnet"
	for i in $(seq "${XNST_REPEAT:-3}"); do
		for mode in plain xdpnet; do
			run "$t" "$mode"
			for s in "$W/$name.$mode".*; do cp "$s" "$LOGS/$(basename "$s").$i" 2>/dev/null; done
			subtests "$W/$name.$mode.out" OK >>"$W/all.$name.$mode"
		done
	done
	while read -r s; do
		python3 - "$s" "$W/all.$name.plain" "$W/all.$name.xdpnet" "$((${XNST_REPEAT:-3} + 1))" <<'PY'
import math, sys
s, pf, xf, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
p = sum(1 for l in open(pf) if l.rstrip("\n") == s)
x = sum(1 for l in open(xf) if l.rstrip("\n") == s)
# One-sided Fisher's exact test: the chance of xdpnet passing x or fewer
# (more) of its n runs when the p + x passes fall on the 2n runs at random.
tot = p + x
def pr(k):
    return math.comb(n, k) * math.comb(n, tot - k) / math.comb(2 * n, tot) if 0 <= tot - k <= n else 0
lost = x < p and (sum(pr(k) for k in range(0, x + 1)) < 0.05 or (x == 0 and p >= 2))
gained = x > p and (sum(pr(k) for k in range(x, n + 1)) < 0.05 or (p == 0 and x >= 2))
print(f"{s}\t{p}\t{n}\t{x}\t{n}\t{'lost' if lost else 'gained' if gained else 'timing'}")
PY
	done <"$W/$name.flips" >"$W/$name.rates"
}

NF_STATE="br_netfilter not loaded"
if [ -d /proc/sys/net/bridge ]; then
	for k in iptables ip6tables arptables; do
		NF_SAVED="$NF_SAVED net.bridge.bridge-nf-call-$k=$(cat /proc/sys/net/bridge/bridge-nf-call-$k)"
	done
	if [ "${XNST_BR_NETFILTER:-off}" = on ]; then
		NF_STATE="br_netfilter loaded, as it is:$NF_SAVED"
		NF_SAVED=
	else
		sysctl -qw net.bridge.bridge-nf-call-iptables=0 net.bridge.bridge-nf-call-ip6tables=0 \
			net.bridge.bridge-nf-call-arptables=0 || { notok "cannot switch br_netfilter's sysctls off"; exit 1; }
		NF_STATE="br_netfilter loaded, bridge-nf-call-* 0 while the tests run (XNST_BR_NETFILTER=on keeps them)"
	fi
fi
echo "# kernel selftests from $SRC ($(cat "$SRC/package" 2>/dev/null || echo "unknown package")), Linux $(uname -r), $(ip -V); $NF_STATE"
for t in "${TESTS[@]}"; do
	name=${t%.sh}
	if [ ! -f "$SRC/forwarding/$t" ]; then
		notok "$name: not in $SRC/forwarding"
		continue
	fi
	t0=$SECONDS
	run "$t" plain
	plain=$W/$name.plain.out
	n_ok=$(subtests "$plain" OK | grep -c .)
	n_fail=$(subtests "$plain" FAIL | grep -c .)
	if [ "$RC" = 4 ] && [ "$n_ok" = 0 ]; then
		why=$(grep -a -m1 -i skip "$plain" | cut -c1-160)
		# A skip for want of a tool or kernel feature is the test's; any
		# other (no interfaces, say) is the runner's failure.
		if echo "$why" | grep -qiE "too old|not supported|unsupported|support|lacks|missing|not installed|not found|could not|required|needs"; then
			ok "$name # SKIP the test skips here: $why"
		else
			notok "$name: skips for a reason that is not a missing feature: $why"
		fi
		continue
	fi
	if [ "$n_ok" = 0 ]; then
		echo "# $name on the plain bridge: exit $RC, no subtest passed; left out:"
		tail -n 5 "$plain" | sed 's/^/#   /'
		ok "$name # SKIP fails on the plain bridge here ($((SECONDS - t0)) s)"
		continue
	fi
	echo "# $name on the plain bridge: $n_ok passed, $n_fail failed ($((SECONDS - t0)) s)"
	subtests "$plain" FAIL | while read -r s; do
		echo "#   left out (fails on the plain bridge): $s: $(grep -a -A1 -F "TEST: $s" "$plain" | sed -n '2s/^\t*//p' | cut -c1-120)"
	done
	t0=$SECONDS
	run "$t" xdpnet
	with=$W/$name.xdpnet.out
	subtests "$plain" OK | sort >"$W/ok.$name.plain"
	subtests "$with" OK | sort >"$W/ok.$name.xdpnet"
	bypassed=$(awk '{ n[$1] = $2 } END { for (b in n) s += n[b]; print s + 0 }' "$W/$name.xdpnet.bypassed" 2>/dev/null)
	bridges=$(sed 's/@.*//' "$W/$name.xdpnet.bridges" 2>/dev/null | sort -u | tr '\n' ' ' | sed 's/ $//')
	nsb=$(sort -u "$W/$name.xdpnet.nsbridges" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
	[ -n "$nsb" ] && echo "# $name: bridges in the test's own namespaces, not attached: $nsb"
	# Subtests that passed on one side only: measured again on both.
	flips=$(comm -3 "$W/ok.$name.plain" "$W/ok.$name.xdpnet" | sed 's/^\t//')
	lost='' gained='' timing=''
	if [ -n "$flips" ]; then
		rates "$t" "$flips"
		lost=$(awk -F'\t' '$6 == "lost" { print $1 ": plain " $2 "/" $3 ", xdpnet " $4 "/" $5 }' "$W/$name.rates")
		gained=$(awk -F'\t' '$6 == "gained" { print $1 ": plain " $2 "/" $3 ", xdpnet " $4 "/" $5 }' "$W/$name.rates")
		timing=$(awk -F'\t' '$6 == "timing" { print $1 ": plain " $2 "/" $3 ", xdpnet " $4 "/" $5 }' "$W/$name.rates")
	fi
	n_ok=$(grep -c . "$W/ok.$name.plain")
	what="$name with xdpnet on ${bridges:-no bridge}: $n_ok subtests as on the plain bridge"
	[ -n "$timing" ] && what="$what; timing-bound (pass rates): $(echo "$timing" | tr '\n' ';' | sed 's/;$//')"
	if [ -s "$W/$name.xdpnet.failed" ]; then
		notok "$name with xdpnet: attach failed: $(grep -m1 'xdpnet:' "$W/$name.xdpnet.attach")"
	elif [ ! -e "$W/$name.xdpnet.ran" ]; then
		notok "$name with xdpnet: the hook never ran (the test calls neither setup_wait nor tests_run)"
	elif [ -n "$gained" ]; then
		notok "$name with xdpnet: passed with xdpnet, not on the plain bridge: $(echo "$gained" | tr '\n' ';')"
		awk -F'\t' '$6 == "gained" { print $1 }' "$W/$name.rates" | while read -r s; do
			grep -a -A2 -F "TEST: $s" "$plain" | sed 's/^/#   plain: /'
		done
	elif [ -n "$lost" ]; then
		notok "$name with xdpnet: passed on the plain bridge, not with xdpnet: $(echo "$lost" | tr '\n' ';')"
		awk -F'\t' '$6 == "lost" { print $1 }' "$W/$name.rates" | while read -r s; do
			grep -a -A2 -F "TEST: $s" "$with" | sed 's/^/#   /'
		done
	elif [ -z "$bridges" ]; then
		ok "$what; it builds no bridge in the root namespace: nothing attached ($((SECONDS - t0)) s)"
	elif [ "$bypassed" = 0 ]; then
		ok "$what; 0 frames bypassed: the test sends no unicast xdpnet carries ($((SECONDS - t0)) s)"
	else
		ok "$what; $bypassed frames bypassed ($((SECONDS - t0)) s)"
	fi
done
[ "$FAIL" = 0 ] || echo "# logs: $LOGS"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
