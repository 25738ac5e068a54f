#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet mounts bpffs itself on a bare host, and refuses under
# 'ip netns exec' (root; run by run.sh, or on its own).
#
# A bare host, without disturbing this one: the checks run in a private
# mount and PID namespace (unshare --mount --pid --fork --mount-proc) in
# which /sys/fs/bpf is unmounted; the host's bpffs and everybody's pins
# stay. Its PID 1 stands for the host's init; the checks run twice below
# it:
#   pid1-unreadable  without CAP_SYS_PTRACE and CAP_WAKE_ALARM, which PID
#                    1 has (not a subset of ours, and no right to trace),
#                    so that /proc/1/ns/mnt cannot be read: as on hosts
#                    that deny it even to root (the ancestors decide);
#   pid1-readable    with all of root's capabilities.
# Each time:
#   - 'ip netns exec SW xdpnet attach BR', and the same from a script run
#     by 'ip netns exec' (there the grandparent tells), exit 6 with one
#     line that names nsenter; nothing is mounted;
#   - (pid1-unreadable) a CLI that can read neither PID 1 nor any ancestor
#     cannot tell: exit 6, nothing mounted;
#   - 'nsenter --net=/run/netns/SW xdpnet attach BR' mounts bpffs at
#     /sys/fs/bpf, pins, hooks both ports; pings take the bypass;
#   - detach leaves no pin.
# Finally the host's /sys/fs/bpf is as it was, without our pins.
#
# Names: namespaces xnm-*, bridge xnmbr0, ports xnmv1/xnmv2, 10.94.0.0/24.
# Output: "ok N - ..." / "not ok N - ...", then "P passed, F failed".
set -u
. "$(dirname "$0")/lib.sh"
SW=xnm-sw
BR=xnmbr0
PIN=$PIN_ROOT/$BR
SELF=$HERE/bpffs.sh
# PID 1 and the checks below it write into the host run's folder.
if [ -n "${XNM_WORK:-}" ]; then
	rm -rf "$WORK"
	# shellcheck disable=SC2034 # lib.sh's
	WORK=$XNM_WORK LOGDIR=$XNM_WORK/logs
fi

bpffs_here() { [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ]; }
not_mounted() { ! bpffs_here || { echo "/sys/fs/bpf is bpffs here"; return 1; }; }
xnm_ip() { echo "10.94.0.$1"; }
xnm_mac() { echo "02:94:00:00:00:0$1"; }

# ------------------------------------------------------ checks (below PID 1)

# refused DESC-OF-RUN WANT_TEXT CMD...: exit 6, one line containing
# WANT_TEXT, nothing mounted here.
refused() {
	local want=$1 rc lines
	shift
	echo "+ $*"
	"$@" >"$WORK/r.out" 2>"$WORK/r.err"
	rc=$?
	echo "exit $rc"
	cat "$WORK/r.out" "$WORK/r.err"
	lines=$(wc -l <"$WORK/r.err")
	expect_eq "exit code" "$rc" 6 || return 1
	expect_eq "lines on stderr" "$lines" 1 || return 1
	grep -qF -- "$want" "$WORK/r.err" || { echo "stderr lacks '$want'"; return 1; }
	not_mounted
}

state_here() { # MODE
	local r=no
	ls -l /proc/1/ns/mnt >/dev/null 2>&1 && r=yes
	echo "/sys/fs/bpf: $(stat -f -c %T /sys/fs/bpf); /proc/1/ns/mnt readable: $r"
	not_mounted || return 1
	if [ "$1" = pid1-unreadable ]; then
		expect_eq "/proc/1/ns/mnt readable" "$r" no || return 1
	else
		expect_eq "/proc/1/ns/mnt readable" "$r" yes
	fi
}

ctr_of() { # FILE PORT COUNTER
	jq -r --arg p "$2" --arg c "$3" \
		'[.bridges[0].ports[] | select(.name == $p) | .counters[$c].packets // 0] | add // 0' "$1"
}

attach_mounts() {
	local f=$WORK/st.json n r0 r1
	xn attach "$BR" || return 1
	bpffs_here || { echo "/sys/fs/bpf is not bpffs after attach"; return 1; }
	grep ' /sys/fs/bpf ' /proc/self/mountinfo
	[ -e "$PIN/meta" ] || { echo "no $PIN/meta"; ls -la "$PIN"; return 1; }
	xn status "$BR" --json >"$f" || { cat "$f"; return 1; }
	n=$(jq '[.bridges[0].ports[] | select(.tc_prog_id > 0)] | length' "$f")
	expect_eq "ports hooked" "$n" 2 || return 1
	r0=$(ctr_of "$f" xnmv1 tc_redirect)
	nsx xnm-v1 ping -c 5 -i 0.2 -W 2 "$(xnm_ip 2)" || return 1
	xn status "$BR" --json >"$f" || return 1
	r1=$(ctr_of "$f" xnmv1 tc_redirect)
	# 5 echo requests; the keep-alive may hand one frame to the bridge.
	expect_ge "tc_redirect on xnmv1 for 5 pings" $((r1 - r0)) 4
}

detach_clean() {
	xn detach "$BR" || return 1
	[ ! -e "$PIN" ] || { echo "$PIN still there"; ls -la "$PIN"; return 1; }
}

# body MODE: the checks, numbered from XNM_T0 on; counts to $WORK/res.MODE.
body() {
	local m=$1
	T_NUM=$XNM_T0
	check "[$m] a bare host: /sys/fs/bpf not mounted" state_here "$m"
	check "[$m] ip netns exec $SW xdpnet attach: exit 6, one line naming nsenter, nothing mounted" \
		refused "nsenter --net=/run/netns/NAME" ip netns exec "$SW" "$XDPNET" attach "$BR"
	# shellcheck disable=SC2016 # bash -c's own $0 and $1
	check "[$m] a script under ip netns exec runs xdpnet attach: exit 6, nothing mounted" \
		refused "nsenter --net=/run/netns/NAME" ip netns exec "$SW" bash -c '"$0" attach "$1"; exit $?' "$XDPNET" "$BR"
	if [ "$m" = pid1-unreadable ]; then
		# One capability less than its parent: no ancestor is readable.
		check "[$m] no ancestor readable: exit 6 (cannot tell), nothing mounted" \
			refused "cannot be told" nsenter --net="/run/netns/$SW" \
			setpriv --bounding-set -block_suspend "$XDPNET" attach "$BR"
	fi
	check "[$m] nsenter --net xdpnet attach mounts bpffs, pins, hooks, pings take the bypass" attach_mounts
	check "[$m] detach leaves no pin" detach_clean
	[ -e "$PIN" ] && xn detach "$BR" >/dev/null 2>&1
	{ echo "$T_NUM $T_PASS $T_FAIL"; printf '%s\n' "${FAILED[@]}"; } >"$WORK/res.$m"
}

# PID 1 of the private namespaces: unmount bpffs before each run.
pid1() {
	local m
	export XNM_T0=$1
	for m in pid1-unreadable pid1-readable; do
		while bpffs_here; do umount /sys/fs/bpf || exit 1; done
		if [ "$m" = pid1-unreadable ]; then
			setpriv --bounding-set -sys_ptrace,-wake_alarm bash "$SELF" --body "$m"
		else
			bash "$SELF" --body "$m"
		fi
		read -r XNM_T0 _ _ <"$WORK/res.$m" || exit 1
	done
}

case ${1:-} in
--pid1) pid1 "$2"; exit ;;
--body) body "$2"; exit ;;
esac

# ------------------------------------------------------------ on the host

parse_args "[--keep] [-v]" "$@"
# xdpnet's run files of our bridge (nothing else of cleanup's is ours).
suite_cleanup() { runfiles_rm "$BR"; }
traps_install

preflight() {
	local t
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	for t in ip jq unshare setpriv nsenter ping; do
		command -v "$t" >/dev/null || { echo "missing tool: $t"; return 1; }
	done
	[ -x "$XDPNET" ] || { echo "missing $XDPNET (make all)"; return 1; }
	for t in $(ip netns list | awk '{print $1}' | grep '^xnm-'); do ip netns del "$t"; done
}

topo() {
	local i j
	ns_add "$SW" || return 1
	ip -n "$SW" link add "$BR" type bridge stp_state 0 || return 1
	ip -n "$SW" link set "$BR" up || return 1
	for i in 1 2; do
		ns_add "xnm-v$i" || return 1
		nsx "xnm-v$i" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		ip -n "$SW" link add "xnmv$i" type veth peer name eth0 netns "xnm-v$i" || return 1
		ip -n "$SW" link set "xnmv$i" master "$BR" up || return 1
		ip -n "xnm-v$i" link set eth0 address "$(xnm_mac "$i")" up || return 1
		ip -n "xnm-v$i" addr add "$(xnm_ip "$i")/24" dev eth0 || return 1
		j=$((3 - i))
		ip -n "xnm-v$i" neigh replace "$(xnm_ip "$j")" lladdr "$(xnm_mac "$j")" dev eth0 nud permanent || return 1
		bridge -n "$SW" fdb replace "$(xnm_mac "$i")" dev "xnmv$i" master static || return 1
	done
	wait_until 5 sh -c "ip -n $SW -d link show xnmv1 | grep -q 'state forwarding' &&
		ip -n $SW -d link show xnmv2 | grep -q 'state forwarding'"
}

host_before=
host_untouched() {
	local now
	now=$(stat -f -c %T /sys/fs/bpf 2>/dev/null)
	expect_eq "host /sys/fs/bpf" "$now" "$host_before" || return 1
	[ ! -e "$PIN" ] || { echo "$PIN on the host"; return 1; }
}

check "bpffs preflight: root, tools, $XDPNET" preflight || finish
check "bpffs topology: $BR in $SW, two veth stand-ins" topo || finish
host_before=$(stat -f -c %T /sys/fs/bpf 2>/dev/null)
export XNM_WORK=$WORK
unshare --mount --propagation private --pid --fork --mount-proc \
	bash "$SELF" --pid1 "$T_NUM"
rc=$?
for m in pid1-unreadable pid1-readable; do
	if [ -s "$WORK/res.$m" ]; then
		{ read -r T_NUM p f; mapfile -t lines; } <"$WORK/res.$m"
		T_PASS=$((T_PASS + p)) T_FAIL=$((T_FAIL + f))
		for l in "${lines[@]}"; do [ -n "$l" ] && FAILED+=("$l"); done
	else
		fail_now "[$m] the checks in a private mount namespace ran" "unshare exited $rc"
	fi
done
check "the host's /sys/fs/bpf ($host_before) untouched, no $PIN there" host_untouched
finish
