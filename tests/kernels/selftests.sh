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
#   caches it). TEST: forwarding/bridge_*.sh names (default: every
#   bridge_*.sh in DIR).
#
# Each test runs twice, in a work copy of DIR (a tmpfs):
#   - on the plain bridge: its subtests ("TEST: ... [ OK ]") as they are;
#     a subtest that fails there is reported with its reason and left out;
#   - with xdpnet: forwarding/lib.sh gets a hook (appended) that, once the
#     test's setup_wait returns and again as tests_run starts, attaches
#     xdpnet (tc mode, with its follower) to every bridge the test built
#     and not yet attached, and once tests_run returns (or in pre_cleanup)
#     reads how many frames each bridge's datapath bypassed, then detaches.
# Every subtest that passed on the plain bridge must pass with xdpnet; an
# attach that fails is a failure. The output names, per test, the frames
# xdpnet bypassed (0: the test sends no unicast xdpnet could carry, which
# proves nothing about it, and is said).
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
	for t in "$SRC"/forwarding/bridge_*.sh; do TESTS+=("$(basename "$t")"); done
fi
W=$(mktemp -d /tmp/xnst.XXXXXX)
LOGS=${XNST_LOGS:-$W/logs}
mkdir -p "$LOGS"
N=0 PASS=0 FAIL=0
ok() { N=$((N + 1)); PASS=$((PASS + 1)); echo "ok $N - $*"; }
notok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
cleanup() {
	local b
	# A test that died half-way may have left its bridges attached.
	for b in $(sort -u "$W"/bridges.* 2>/dev/null); do
		[ -e "/sys/fs/bpf/xdpnet/$b" ] && "$XDPNET" detach "$b" >/dev/null 2>&1
	done
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
if [[ -n "${XNST_RUN:-}" ]]; then
	# Attach to every bridge of the test not yet attached in this run.
	xnst_attach()
	{
		local b
		for b in $(ip -j link show type bridge | jq -r '.[].ifname'); do
			grep -qxF "$b" "$XNST_RUN.bridges" 2>/dev/null && continue
			if "$XNST_XDPNET" attach "$b" >>"$XNST_RUN.attach" 2>&1; then
				echo "$b" >>"$XNST_RUN.bridges"
			else
				echo "xnst: attach $b failed" >>"$XNST_RUN.attach"
				echo "$b" >>"$XNST_RUN.failed"
			fi
		done
	}
	# Count what each attached bridge's datapath bypassed, then detach.
	xnst_detach()
	{
		local b
		for b in $(sort -u "$XNST_RUN.bridges" 2>/dev/null); do
			grep -qxF "$b" "$XNST_RUN.detached" 2>/dev/null && continue
			"$XNST_XDPNET" status "$b" --json 2>>"$XNST_RUN.attach" |
				jq --arg b "$b" '[.bridges[0].ports[].counters |
					.tc_redirect.packets + .xdp_redirect.packets] | add // 0 |
					"\($b) \(.)"' -r >>"$XNST_RUN.bypassed"
			"$XNST_XDPNET" detach "$b" >>"$XNST_RUN.attach" 2>&1
			echo "$b" >>"$XNST_RUN.detached"
		done
	}
	# Most tests call setup_wait once their topology is up; all of them
	# run their subtests through tests_run (bridge_mdb_port_down has no
	# setup_wait), and most end in pre_cleanup.
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
		timeout -k 10 "${XNST_TIMEOUT:-900}" bash "./$t"
	) >"$run.out" 2>&1 </dev/null
	RC=$?
	cp "$run".* "$LOGS/" 2>/dev/null
}

# subtests FILE VERDICT: the names of the subtests with that verdict
# ("OK", "FAIL", "SKIP", "XFAIL"), one a line.
subtests() {
	sed -n "s/^TEST: \(.*[^ ]\) *\[ *$2 *\]\$/\1/p" "$1" | sed 's/ *$//'
}

echo "# kernel selftests from $SRC ($(cat "$SRC/package" 2>/dev/null || echo "unknown package")), Linux $(uname -r)"
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
		why=$(grep -m1 -i 'skip' "$plain" | cut -c1-160)
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
		echo "#   left out (fails on the plain bridge): $s: $(grep -A1 -F "TEST: $s" "$plain" | sed -n '2s/^\t*//p' | cut -c1-120)"
	done
	t0=$SECONDS
	run "$t" xdpnet
	with=$W/$name.xdpnet.out
	subtests "$plain" OK | sort >"$W/$name.plain.ok"
	subtests "$with" OK | sort >"$W/$name.xdpnet.ok"
	lost=$(comm -23 "$W/$name.plain.ok" "$W/$name.xdpnet.ok") || lost="(cannot compare the subtests)"
	bypassed=$(awk '{ n += $2 } END { print n + 0 }' "$W/$name.xdpnet.bypassed" 2>/dev/null)
	bridges=$(sort -u "$W/$name.xdpnet.bridges" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
	what="$name with xdpnet on ${bridges:-no bridge}: $n_ok subtests as on the plain bridge"
	if [ -s "$W/$name.xdpnet.failed" ]; then
		notok "$name with xdpnet: attach failed: $(grep -m1 'xdpnet:' "$W/$name.xdpnet.attach")"
	elif [ -z "$bridges" ]; then
		notok "$name with xdpnet: the hook attached to nothing"
	elif [ -n "$lost" ]; then
		notok "$name with xdpnet: passed on the plain bridge, not with xdpnet: $(echo "$lost" | tr '\n' ';')"
		echo "$lost" | while read -r s; do
			grep -A2 -F "TEST: $s" "$with" | sed 's/^/#   /'
		done
	elif [ "$bypassed" = 0 ]; then
		ok "$what; 0 frames bypassed: the test sends no unicast xdpnet carries ($((SECONDS - t0)) s)"
	else
		ok "$what; $bypassed frames bypassed ($((SECONDS - t0)) s)"
	fi
done
[ "$FAIL" = 0 ] || echo "# logs: $LOGS"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
