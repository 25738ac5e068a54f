#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet with real guests (root; `make check-vm`).
#
# Boots three small QEMU guests (Debian cloud kernel, busybox initramfs,
# virtio-net) on taps enslaved to bridge xnvbr0 inside namespace xnv-sw,
# once with the guests' default offloads (checksum offload and TSO on) and
# once with virtio-net-pci,csum=off. For each boot, four paths in turn:
#   bridge    the plain Linux bridge
#   tc        xdpnet attach --mode tc
#   xdp       xdpnet attach --mode xdp
#   detached  after xdpnet detach: the bridge forwards again
# and in each, from inside the guests: ping between every pair (also 1400
# and 3000 byte pings), TCP transfers of random data both ways checked by
# sha256, a UDP echo of datagrams of every size (content compared, IP
# fragments included), and an iperf3 run. With xdpnet attached, its
# counters must show that the traffic took the bypass (the fast path
# carried at least the payload moved, and at least 99% of the bytes).
# The guests' own TCP/UDP checksum error counters must stay at zero, and a
# third guest must not see the flows between the other two (no flooding).
# Then, once, "xdpnet attach --follow" while a guest stops, its tap is
# deleted and a new one created, and the guest boots again (what a libvirt
# VM restart does): the follower must re-attach the port and traffic to it
# must take the bypass.
#
# The XDP stage's share tells the two boots apart: guests with checksum
# offload send bulk TCP as GSO super-frames, which the XDP stage hands to
# the TC stage (still a bypass), so TC carries most bytes (the XDP stage
# completes the partial checksums of the other frames, ACKs and small
# segments); with csum=off, frames are MTU-sized with complete checksums
# and the XDP stage must carry at least half of the bytes (it carries
# ~99.8%; IP fragments go to TC).
#
# Accelerator: KVM where /dev/kvm is usable and a guest boots with it (the
# first guest is the probe; QEMU aborts or hangs where the host's KVM cannot
# run stock kernels), TCG otherwise. A failed probe is remembered in the
# cache (per host kernel, QEMU and guest kernel). vhost=on only with KVM
# and a usable /dev/vhost-net (QEMU aborts without it).
#
# Needs: tests/vm/deps.sh (QEMU and friends), build/xdpnet; downloads the
# guest kernel and busybox-static once (tests/vm/guest.sh).
#
# Output: "ok N - ..." / "not ok N - ..." per check, a table per run, then
# "P passed, F failed". The guests' serial logs, their control channel
# transcripts, QEMU's messages and the counters are kept on failure.
#
# Environment:
#   XNV_SPEED_REF_MS=520      the guest's reference work (timed at boot) on the
#                             machine the limits were set on; a slower guest
#                             gets proportionally longer limits
#   XNV_ACCEL=auto|kvm|tcg    accelerator (default auto)
#   XNV_OFFLOADS="on off"     guest offload settings to boot
#   XNV_PATHS="bridge tc xdp detached"
#   XNV_FOLLOW=1              the attach --follow scenario (after the paths
#                             of the first offload setting)
#   XNV_MIB=8                 MiB per TCP transfer (one each way)
#   XNV_IPERF_SECS=3          iperf3 duration
#   XNV_UDP_COUNT=300         datagrams in the UDP echo check
#   XNV_DEADLINE=540          seconds: start nothing new after that (a
#                             failing run ends in bounded time)
#   XNV_KEEP=1                keep the logs even when everything passed
#   XNV_CACHE=/var/cache/xdpnet-vm   guest kernel cache
set -u
set -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
XDPNET=${XDPNET:-$ROOT/build/xdpnet}
CACHE=${XNV_CACHE:-/var/cache/xdpnet-vm}
ACCEL=${XNV_ACCEL:-auto}
OFFLOADS=${XNV_OFFLOADS:-on off}
PATHS=${XNV_PATHS:-bridge tc xdp detached}
MIB=${XNV_MIB:-8}
IPERF_SECS=${XNV_IPERF_SECS:-3}
UDP_COUNT=${XNV_UDP_COUNT:-300}
QEMU=${QEMU:-qemu-system-x86_64}
DEADLINE=${XNV_DEADLINE:-540}

SW=xnv-sw
BR=xnvbr0
PIN=/sys/fs/bpf/xdpnet/$BR
GUESTS="g1 g2 g3"
NET=10.97.0
MB=$((1024 * 1024))
MEM=256

T_NUM=0 T_PASS=0 T_FAIL=0
BOOTS=0
FOLLOW_PID=
FAILED=()
ROWS=()
START=$SECONDS
W=$(mktemp -d /tmp/xnv-vm.XXXXXX)
declare -A QPID CIN COUT SEQ READY PART

g_idx() { echo "${1#g}"; }
g_ip() { echo "$NET.$(g_idx "$1")"; }
g_tap() { echo "xnvt$(g_idx "$1")"; }
g_mac() { echo "52:54:00:97:00:0$(g_idx "$1")"; }

elapsed() { echo "$((SECONDS - START)) s"; }
# over_time WHAT: past the deadline, WHAT is not started (and fails).
over_time() {
	[ $((SECONDS - START)) -ge "$DEADLINE" ] || return 1
	result 1 "$1: not started, past XNV_DEADLINE ($DEADLINE s)"
	return 0
}
note() { echo "# $*"; }

# ---------------------------------------------------------------- results

# result RC DESC [DETAIL...]: one TAP line; on failure the detail lines.
result() {
	local rc=$1 desc=$2
	shift 2
	T_NUM=$((T_NUM + 1))
	if [ "$rc" = 0 ]; then
		T_PASS=$((T_PASS + 1))
		echo "ok $T_NUM - $desc"
	else
		T_FAIL=$((T_FAIL + 1))
		FAILED+=("$T_NUM - $desc")
		echo "not ok $T_NUM - $desc"
		local l
		for l in "$@"; do [ -n "$l" ] && printf '%s\n' "$l" | sed 's/^/#   /'; done
	fi
	echo "$([ "$rc" = 0 ] && echo ok || echo FAIL) $desc" >>"$W/results.txt"
	return "$rc"
}

# ---------------------------------------------------------------- cleanup

# After a failure, before the guests go: what each guest's kernel says,
# its interface and protocol counters, into $W/G.diag.log.
DIAG_AT=-1
collect_diag() {
	local g
	[ "$T_FAIL" -gt 0 ] && [ "$DIAG_AT" != "$BOOTS" ] || return 0
	DIAG_AT=$BOOTS
	for g in $GUESTS; do
		[ -n "${QPID[$g]:-}" ] && kill -0 "${QPID[$g]}" 2>/dev/null || continue
		{
			echo "=== $(date +%T) boot $BOOTS"
			gx "$g" 15 'dmesg; ip -s -s link show eth0; cat /proc/net/snmp; cat /proc/net/netstat; ps'
			echo "$OUT"
		} >>"$W/$g.diag.log" 2>&1
	done
}

CLEANED=0
cleanup() {
	local g p left=""
	[ "$CLEANED" = 1 ] && return 0
	CLEANED=1
	trap - EXIT INT TERM
	collect_diag
	for g in $GUESTS; do guest_stop "$g" 0 2>/dev/null; done
	if [ -n "$FOLLOW_PID" ]; then
		kill -TERM "$FOLLOW_PID" 2>/dev/null
		wait "$FOLLOW_PID" 2>/dev/null
	fi
	if [ -e "$PIN" ] && [ -e /run/netns/$SW ] && [ -x "$XDPNET" ]; then
		xn detach $BR >/dev/null 2>&1
	fi
	rm -f /run/xdpnet/$BR.lock /run/xdpnet/$BR.follow /run/xdpnet/$BR.log
	ip netns del $SW 2>/dev/null
	if [ -e "$PIN" ]; then
		note "cleanup: $PIN was left behind; removing it"
		rm -rf "$PIN"
	fi
	rmdir /sys/fs/bpf/xdpnet 2>/dev/null
	# Verify.
	ip netns list 2>/dev/null | grep -q "^$SW\b" && left="$left namespace $SW;"
	[ -e "$PIN" ] && left="$left $PIN;"
	for g in $GUESTS; do
		p=${QPID[$g]:-}
		[ -n "$p" ] && kill -0 "$p" 2>/dev/null && left="$left qemu $p;"
	done
	if [ -n "$left" ]; then
		note "cleanup: LEFT BEHIND:$left"
		T_FAIL=$((T_FAIL + 1))
		FAILED+=("cleanup:$left")
	else
		note "cleanup: guests stopped, $SW and its taps removed, no pins left"
	fi
	rm -f "$W"/guest/initramfs.cpio "$W"/guest/vmlinuz
	rm -f "$W"/*.ctl.in "$W"/*.ctl.out
	if [ "${XNV_KEEP:-0}" = 1 ] || [ "$T_FAIL" -gt 0 ]; then
		note "logs kept in $W (serial consoles *.console.log, control channels *.ctl.log, guests' dmesg and counters after a failure *.diag.log, QEMU *.qemu.log, xdpnet status *.json)"
	else
		rm -rf "$W"
	fi
}

summary() {
	if [ "${#ROWS[@]}" -gt 0 ]; then
		echo "#"
		echo "# | guests' offloads | path | TCP 2x${MIB} MiB sha256 | UDP echo | iperf3 g2->g1 | fast path share (bytes / frames) | of it XDP / TC (bytes) | to bridge (frames) |"
		echo "# |---|---|---|---|---|---|---|---|"
		printf '# %s\n' "${ROWS[@]}"
	fi
	echo "# total time $(elapsed)"
	if [ "$T_FAIL" -gt 0 ]; then
		echo "# failed:"
		printf '#   %s\n' "${FAILED[@]}"
	fi
	echo "$T_PASS passed, $T_FAIL failed"
}

finish() {
	cleanup
	summary
	[ "$T_FAIL" = 0 ] && exit 0
	exit 1
}
trap finish EXIT
trap 'echo "# interrupted"; T_FAIL=$((T_FAIL + 1)); FAILED+=("interrupted"); finish' INT TERM

# ---------------------------------------------------------------- xdpnet

# The CLI in the switch's namespace. nsenter, not "ip netns exec": the
# latter remounts /sys and hides the host's bpffs.
xn() { timeout -k 5 60 nsenter --net=/run/netns/$SW "$XDPNET" "$@"; }

# ctr_load ARRAY_PREFIX FILE: totals over all ports of each counter into
# ${PREFIX}_P[name] / ${PREFIX}_B[name].
declare -A B_P B_B A_P A_B
ctr_snapshot() { # FILE
	xn status $BR --json >"$1" 2>>"$W/xdpnet.log"
}
ctr_load() { # before|after FILE
	local name p b
	if [ "$1" = before ]; then B_P=() B_B=(); else A_P=() A_B=(); fi
	while read -r name p b; do
		if [ "$1" = before ]; then B_P[$name]=$p B_B[$name]=$b; else A_P[$name]=$p A_B[$name]=$b; fi
	done < <(jq -r --arg br $BR '.bridges[] | select(.bridge == $br) |
		[.ports[].counters | to_entries[]] | group_by(.key)[] |
		"\(.[0].key) \(map(.value.packets) | add) \(map(.value.bytes) | add)"' "$2")
}
# d_p / d_b NAME-PREFIX: packets / bytes of every counter whose name starts
# with it, after minus before.
d_p() {
	local k s=0
	for k in "${!A_P[@]}"; do
		case $k in "$1"*) s=$((s + A_P[$k] - ${B_P[$k]:-0})) ;; esac
	done
	echo $s
}
d_b() {
	local k s=0
	for k in "${!A_B[@]}"; do
		case $k in "$1"*) s=$((s + A_B[$k] - ${B_B[$k]:-0})) ;; esac
	done
	echo $s
}
# The counters (by name) that moved, for the log line.
d_list() { # PREFIX
	local k v out=""
	for k in $(printf '%s\n' "${!A_P[@]}" | sort); do
		case $k in "$1"*) ;; *) continue ;; esac
		v=$((A_P[$k] - ${B_P[$k]:-0}))
		[ "$v" -gt 0 ] && out="$out ${k#"$1"} $v,"
	done
	out=${out%,}
	echo "${out:- none}"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", 100 * a / b; else printf "n/a" }'; }
mib() { awk -v a="$1" 'BEGIN { printf "%.1f", a / 1048576 }'; }

# ---------------------------------------------------------------- guests

# guest_start G OFFLOAD ACCEL
guest_start() {
	local g=$1 off=$2 acc=$3 dev machine netdev
	rm -f "$W/$g.ctl.in" "$W/$g.ctl.out"
	mkfifo "$W/$g.ctl.in" "$W/$g.ctl.out" || return 1
	dev="virtio-net-pci,netdev=n0,mac=$(g_mac "$g"),romfile="
	[ "$off" = off ] && dev="$dev,csum=off"
	netdev="tap,id=n0,ifname=$(g_tap "$g"),script=no,downscript=no"
	[ "$VHOST" = on ] && [ "$acc" = kvm ] && netdev="$netdev,vhost=on"
	if [ "$acc" = kvm ]; then machine="-machine pc,accel=kvm -cpu host"; else machine="-machine pc,accel=tcg"; fi
	echo "=== boot $(date +%T): offloads $off, $acc" >>"$W/$g.console.log"
	# setpriv --pdeathsig: the guest dies with this script, however it ends.
	# shellcheck disable=SC2086
	nsenter --net=/run/netns/$SW setpriv --pdeathsig KILL \
		"$QEMU" -name "xnv-$g" -nodefaults -no-user-config -display none \
		$machine -smp 1 -m $MEM -no-reboot \
		-kernel "$W/guest/vmlinuz" -initrd "$W/guest/initramfs.cpio" \
		-append "console=ttyS0 loglevel=4 panic=-1 ipv6.disable=1 xnv.name=$g xnv.ip=$(g_ip "$g")/24" \
		-chardev "file,id=con,path=$W/$g.console.log,append=on" -serial chardev:con \
		-chardev "pipe,id=ctl,path=$W/$g.ctl" -serial chardev:ctl \
		-netdev "$netdev" -device "$dev" \
		</dev/null >>"$W/$g.qemu.log" 2>&1 &
	QPID[$g]=$!
	exec {fd}<>"$W/$g.ctl.in"
	CIN[$g]=$fd
	exec {fd}<>"$W/$g.ctl.out"
	COUT[$g]=$fd
	SEQ[$g]=0 PART[$g]=''
	echo "=== boot $(date +%T): offloads $off, $acc, pid ${QPID[$g]}" >>"$W/$g.ctl.log"
}

# ctl_line G: read one line from G's control channel into LINE, waiting
# at most a second. 0: a line; 1: none yet. A line can arrive in pieces
# (a serial port, a guest slowed down by TCG): when the second runs out
# mid-line, "read -t" returns what it got so far and fails; that part is
# kept in PART[G] and the next call completes the line. (Dropping it lost
# the start of a line: "sha256=..." of "sha256=... bytes=...".) IFS= keeps
# the pieces' spaces.
LINE=
ctl_line() {
	local g=$1 got
	if IFS= read -r -t 1 -u "${COUT[$g]}" got; then
		LINE=${PART[$g]:-}$got
		PART[$g]=''
		echo "$LINE" >>"$W/$g.ctl.log"
		return 0
	fi
	if [ -n "$got" ]; then
		PART[$g]=${PART[$g]:-}$got
		echo "<<< (a line in pieces: ${#got} bytes before read's timeout)" >>"$W/$g.ctl.log"
	fi
	return 1
}

# The first guest's speed (its init times a fixed piece of work): the
# limits of every command in a guest (gx) grow by how much slower it is
# than on the machine the limits were set on (XNV_SPEED_REF_MS for that
# work there), never shrink. SLOW: that factor in percent.
SPEED_MS=
SLOW=100
XNV_SPEED_REF_MS=${XNV_SPEED_REF_MS:-520}
guest_speed() { # MS
	[[ $1 =~ ^[0-9]+$ ]] || return 0
	SPEED_MS=$1
	SLOW=$((SPEED_MS * 100 / XNV_SPEED_REF_MS))
	[ "$SLOW" -ge 100 ] || SLOW=100
	note "guest speed: $SPEED_MS ms for the reference work ($XNV_SPEED_REF_MS ms where the limits were set): limits x$(awk -v s=$SLOW 'BEGIN { printf "%.2f", s / 100 }')"
}

# guest_wait_ready G SECS: 0 ready, 1 timed out, 2 QEMU exited.
guest_wait_ready() {
	local g=$1 until=$((SECONDS + $2))
	while [ $SECONDS -lt $until ]; do
		kill -0 "${QPID[$g]}" 2>/dev/null || return 2
		if ctl_line "$g"; then
			case $LINE in
			XNV-READY*)
				READY[$g]=1
				[ -n "$SPEED_MS" ] || guest_speed "${LINE##*speed=}"
				return 0
				;;
			XNV-FAILED*) return 1 ;;
			esac
		fi
	done
	return 1
}

guest_stop() { # G GRACEFUL(1/0)
	local g=$1 p=${QPID[$1]:-} fd
	[ -n "$p" ] || return 0
	if [ "${2:-1}" = 1 ] && kill -0 "$p" 2>/dev/null; then
		{ printf 'halt 10 11 poweroff -f\n' >&"${CIN[$g]}"; } 2>/dev/null
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	fi
	if kill -0 "$p" 2>/dev/null; then
		kill -TERM "$p" 2>/dev/null
		for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	fi
	wait "$p" 2>/dev/null
	QPID[$g]='' READY[$g]=''
	fd=${CIN[$g]:-}
	[ -n "$fd" ] && exec {fd}>&-
	fd=${COUT[$g]:-}
	[ -n "$fd" ] && exec {fd}<&-
	CIN[$g]='' COUT[$g]=''
	return 0
}

# gx G SECS COMMAND...: run COMMAND in guest G; its output in $OUT. The
# guest kills COMMAND after SECS seconds; we wait a little longer.
OUT=
gx() {
	local g=$1 secs=$((($2 * SLOW + 99) / 100)) id until cmd bad=0
	shift 2
	SEQ[$g]=$((SEQ[$g] + 1))
	id=${SEQ[$g]}
	OUT=
	cmd="$*"
	echo ">>> $(date +%T) [$id] $cmd" >>"$W/$g.ctl.log"
	printf '%s %s %s %s\n' "$id" "$secs" "${#cmd}" "$cmd" >&"${CIN[$g]}" || return 125
	until=$((SECONDS + secs + 5))
	while :; do
		if [ $SECONDS -ge $until ]; then
			echo "<<< timed out after $secs s" >>"$W/$g.ctl.log"
			OUT="${OUT}(timed out after $secs s in $g)"
			return 124
		fi
		if ! ctl_line "$g"; then
			if ! kill -0 "${QPID[$g]}" 2>/dev/null; then
				OUT="${OUT}($g: QEMU exited)"
				return 125
			fi
			continue
		fi
		case $LINE in
		"XNV-END $id "*)
			OUT=${OUT%$'\n'}
			return "${LINE##* }"
			;;
		XNV-END*) ;; # a command that timed out earlier
		XNV-BAD*)
			# The guest got the line garbled and ran nothing: again.
			bad=$((bad + 1))
			echo "<<< garbled on the way in ($bad): sent again" >>"$W/$g.ctl.log"
			[ "$bad" -le 3 ] || { OUT="${OUT}($g: the command line arrived garbled 4 times)"; return 125; }
			printf '%s %s %s %s\n' "$id" "$secs" "${#cmd}" "$cmd" >&"${CIN[$g]}" || return 125
			until=$((SECONDS + secs + 5))
			;;
		*) OUT="$OUT$LINE"$'\n' ;;
		esac
	done
}

kv() { # KEY TEXT: value of KEY=value in TEXT
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}

# ---------------------------------------------------------------- preflight

preflight() {
	local t st=0
	[ "$(id -u)" = 0 ] || { echo "must run as root (sudo make check-vm)"; return 1; }
	for t in "$QEMU" ip jq nsenter setpriv timeout iperf3 gcc apt-get dpkg-deb; do
		command -v "$t" >/dev/null || { echo "missing: $t (tests/vm/deps.sh)"; st=1; }
	done
	[ -x "$XDPNET" ] || { echo "missing $XDPNET (make all)"; st=1; }
	[ -c /dev/net/tun ] || { echo "no /dev/net/tun"; st=1; }
	return $st
}
# (No bpffs here: the CLI mounts /sys/fs/bpf itself where it is missing.)
pre=$(preflight 2>&1)
result $? "preflight: root, QEMU, tools, $XDPNET, /dev/net/tun" "$pre" || exit 1

# What an earlier run that was killed left (only our own names).
if ip netns list | grep -q "^$SW\b"; then
	note "removing stale namespace $SW"
	ip netns del $SW
fi
if [ -e "$PIN" ]; then
	note "removing stale $PIN"
	rm -rf "$PIN"
fi

# ---------------------------------------------------------------- guest image

t0=$SECONDS
"$HERE/guest.sh" "$W/guest" >"$W/guest.log" 2>&1
rc=$?
sed 's/^/  /' "$W/guest.log" | grep -v '^  $' | sed 's/^  # guest: /# guest: /'
GINFO=$(cat "$W/guest/guest.info" 2>/dev/null)
result $rc "guest image: $(kv kernel "$GINFO") $(kv kernel_version "$GINFO"), initramfs $(mib "$(kv initramfs_bytes "$GINFO")") MiB ($((SECONDS - t0)) s)" \
	"$(tail -n 5 "$W/guest.log")" || exit 1

# ---------------------------------------------------------------- accelerator

QEMU_VER=$("$QEMU" --version | head -n1 | awk '{print $4}')
KEY="host $(uname -r) qemu $QEMU_VER guest $(kv kernel "$GINFO")"
PROBE_FILE=$CACHE/kvm-probe
KVM_NOTE=
kvm_usable() {
	[ -c /dev/kvm ] || { KVM_NOTE="no /dev/kvm"; return 1; }
	if ! : 2>/dev/null <>/dev/kvm; then KVM_NOTE="/dev/kvm not accessible"; return 1; fi
	if [ -f "$PROBE_FILE" ] && [ "$(head -n1 "$PROBE_FILE")" = "$KEY" ]; then
		KVM_NOTE="$(sed -n 2p "$PROBE_FILE") (cached probe; rm $PROBE_FILE to probe again)"
		return 1
	fi
	return 0
}
case $ACCEL in
tcg) KVM_NOTE="XNV_ACCEL=tcg" ;;
kvm) ;;
auto) kvm_usable && ACCEL=probe || ACCEL=tcg ;;
*) result 1 "XNV_ACCEL=$ACCEL: want auto, kvm or tcg"; exit 1 ;;
esac
if [ -c /dev/vhost-net ] && : 2>/dev/null <>/dev/vhost-net; then VHOST=on; else VHOST=off; fi

# ---------------------------------------------------------------- topology

topo() {
	local g
	ip netns add $SW || return 1
	ip -n $SW link set lo up
	# The switch has no addresses: keep it quiet.
	ip netns exec $SW sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n $SW link add $BR type bridge stp_state 0 forward_delay 0 || return 1
	ip -n $SW link set $BR up
	for g in $GUESTS; do
		ip -n $SW tuntap add mode tap name "$(g_tap "$g")" || return 1
		ip -n $SW link set "$(g_tap "$g")" master $BR up || return 1
	done
}
out=$(topo 2>&1)
result $? "topology: bridge $BR in namespace $SW, taps $(for g in $GUESTS; do printf '%s ' "$(g_tap $g)"; done| sed 's/ $//')" "$out" || exit 1

# ---------------------------------------------------------------- boot

# kvm_probe OFFLOAD: the first guest is the probe: KVM works here if it
# boots with it (it stays up then). Sets ACCEL and KVM_NOTE.
kvm_probe() {
	local rc why
	guest_start g1 "$1" kvm
	guest_wait_ready g1 20
	rc=$?
	if [ $rc = 0 ]; then
		ACCEL=kvm
		KVM_NOTE="probe booted a guest"
		return 0
	fi
	if [ $rc = 2 ]; then
		why="QEMU exited: $(grep -v '^$' "$W/g1.qemu.log" | tail -n1)"
	else
		why="no guest within 20 s"
	fi
	guest_stop g1 0
	ACCEL=tcg
	KVM_NOTE="KVM probe failed: $why"
	printf '%s\n%s\n' "$KEY" "KVM probe failed: $why" >"$PROBE_FILE"
	mv "$W/g1.qemu.log" "$W/g1.kvm-probe.log"
}

# boot OFFLOAD: start all guests and wait until each serves commands.
boot() {
	local off=$1 g rc t0=$SECONDS acc=$ACCEL why
	# (stderr: bash would report the probe's QEMU aborting.)
	[ "$acc" = probe ] && kvm_probe "$off" 2>/dev/null
	[ "$BOOTS" = 0 ] && note "accelerator: $ACCEL ($KVM_NOTE)"
	BOOTS=$((BOOTS + 1))
	for g in $GUESTS; do
		[ -n "${QPID[$g]:-}" ] || guest_start "$g" "$off" "$ACCEL"
	done
	for g in $GUESTS; do
		[ "${READY[$g]:-}" = 1 ] && continue
		guest_wait_ready "$g" "$([ "$ACCEL" = kvm ] && echo 60 || echo 180)"
		rc=$?
		if [ $rc != 0 ]; then
			BOOT_ERR="$g did not come up ($([ $rc = 2 ] && echo "QEMU exited" || echo "timed out")); console: $(tail -n 3 "$W/$g.console.log" | tr '\n' ' ')"
			return 1
		fi
	done
	BOOT_SECS=$((SECONDS - t0))
}

# ---------------------------------------------------------------- one path

# tcp_xfer FROM TO PORT: FROM serves MIB MiB of random data, TO fetches it;
# sha256 and length compared. Sets XFER_RATE (Mbit/s) or XFER_ERR.
XFER_RATE='' XFER_ERR=''
PORT_NEXT=5000
tcp_xfer() {
	local from=$1 to=$2 port=$3 sha bytes
	XFER_RATE='' XFER_ERR=''
	if ! gx "$from" 60 xnv tcp-serve "$port" "$MIB"; then
		XFER_ERR="$from tcp-serve: $OUT"
		return 1
	fi
	sha=$(kv sha256 "$OUT")
	bytes=$(kv bytes "$OUT")
	if ! gx "$to" 70 xnv tcp-get "$(g_ip "$from")" "$port" 60; then
		XFER_ERR="$from->$to: tcp-get failed: $OUT"
		return 1
	fi
	if [ "$(kv sha256 "$OUT")" != "$sha" ] || [ "$(kv bytes "$OUT")" != "$bytes" ] ||
		[ "$bytes" != $((MIB * MB)) ]; then
		XFER_ERR="$from->$to: sent $bytes bytes sha256 $sha, received $(kv bytes "$OUT") bytes sha256 $(kv sha256 "$OUT")"
		return 1
	fi
	XFER_RATE=$(awk -v b="$bytes" -v s="$(kv secs "$OUT")" \
		'BEGIN { if (s > 0) printf "%.0f", b * 8 / s / 1e6; else print "?" }')
}

P_ROW=
# run_path OFFLOAD PATH: attach/detach as PATH says, move traffic, check.
run_path() {
	local off=$1 path=$2 tag="offloads $1 / $2" rc g t0=$SECONDS
	local out st ok details rate1 rate2 udp_line iperf_line
	local payload=0 tcp_res="FAIL" udp_res="FAIL" ip_res="FAIL" share="-" split="-" bridge_frames="-"
	declare -A S0 S1

	# Attach / detach.
	case $path in
	tc | xdp)
		out=$(xn attach $BR --mode "$path" 2>&1)
		rc=$?
		if [ $rc = 0 ]; then
			ctr_snapshot "$W/$off-$path.attach.json"
			out="$out"$'\n'"$(jq -c '.bridges[0] | {mode, ports: [.ports[] | {name, xdp, tc_reason}]}' "$W/$off-$path.attach.json" 2>&1)"
			st=$(jq -r --arg m "$path" '.bridges[0] | (.mode == $m) and (.ports | length == 3) and
				(.ports | all(.xdp == ($m == "xdp")))' "$W/$off-$path.attach.json" 2>/dev/null)
			[ "$st" = true ] || rc=1
		fi
		result $rc "$tag: xdpnet attach $BR --mode $path: 3 tap ports, $([ "$path" = xdp ] && echo "native XDP on each" || echo "tcx on each")" "$out" ||
			return 1
		ctr_snapshot "$W/$off-$path.before.json"
		;;
	detached)
		out=$(xn detach $BR 2>&1)
		rc=$?
		st=$(xn status $BR --json 2>&1)
		local st_rc=$?
		[ $st_rc = 7 ] || { rc=1; out="$out"$'\n'"status after detach: rc $st_rc: $st"; }
		[ -e "$PIN" ] && { rc=1; out="$out"$'\n'"$PIN still there"; }
		for g in $GUESTS; do
			if ip -n $SW -d link show "$(g_tap "$g")" | grep -q 'prog/xdp'; then
				rc=1
				out="$out"$'\n'"$(g_tap "$g") still has an XDP program"
			fi
		done
		result $rc "$tag: xdpnet detach $BR: status says not attached, no pins, no XDP on the taps" "$out"
		;;
	esac

	# Checksum error counters before (a failed read fails the check below:
	# two empty readings must not compare equal).
	local stats_err=""
	for g in $GUESTS; do
		gx "$g" 10 xnv stats || stats_err="$stats_err$g: xnv stats failed: $OUT"$'\n'
		S0[$g]=$OUT
	done

	# Ping between every pair, also with frames near the MTU and fragments.
	ok=0 details=""
	for pair in "g1 g2" "g2 g3" "g3 g1" "g2 g1" "g3 g2" "g1 g3"; do
		set -- $pair
		if ! gx "$1" 20 ping -c 2 -i 0.2 -W 5 "$(g_ip "$2")"; then
			ok=1
			details="$details$1->$2: $(echo "$OUT" | tail -n 2 | tr '\n' ' ')"$'\n'
		fi
	done
	for sz in 1400 3000; do
		if ! gx g1 20 ping -c 2 -i 0.2 -W 5 -s $sz "$(g_ip g2)"; then
			ok=1
			details="${details}g1->g2 -s $sz: $(echo "$OUT" | tail -n 2 | tr '\n' ' ')"$'\n'
		fi
	done
	result $ok "$tag: ping between every pair, and 1400/3000 byte pings g1->g2" "$details"

	# Flood witness: what the third guest's tap transmits while g1 and g2 talk.
	local w0 w1
	w0=$(ip -n $SW -s -j link show "$(g_tap g3)" | jq -e '.[0].stats64.tx.bytes') || w0=x

	# TCP: MIB MiB of random data each way, sha256 compared.
	ok=0 details="" rate1="" rate2=""
	# Fresh ports for every path: a server left behind by a failed path
	# cannot get in the way.
	PORT_NEXT=$((PORT_NEXT + 2))
	for pair in "g1 g2 $PORT_NEXT" "g2 g1 $((PORT_NEXT + 1))"; do
		set -- $pair
		if tcp_xfer "$1" "$2" "$3"; then
			payload=$((payload + MIB * MB))
			if [ "$1" = g1 ]; then rate1=$XFER_RATE; else rate2=$XFER_RATE; fi
		else
			ok=1
			details="$details$XFER_ERR"$'\n'
		fi
	done
	w1=$(ip -n $SW -s -j link show "$(g_tap g3)" | jq -e '.[0].stats64.tx.bytes') || w1=x
	if [ $ok = 0 ]; then tcp_res="ok ${rate1}/${rate2} Mbit/s"; fi
	result $ok "$tag: TCP ${MIB} MiB g1->g2 and g2->g1 (busybox nc), sha256 match (${rate1:-?} and ${rate2:-?} Mbit/s)" "$details"

	# UDP echo g3 -> g1: every size, content compared.
	gx g3 110 xnv udp "$(g_ip g1)" "$UDP_COUNT"
	rc=$?
	udp_line=$(echo "$OUT" | grep '^udp:' | head -n1)
	if [ $rc = 0 ]; then
		udp_res="ok $UDP_COUNT/$UDP_COUNT"
		payload=$((payload + 2 * $(echo "$udp_line" | awk '{print $6}')))
	fi
	result $rc "$tag: UDP echo g3<->g1, $UDP_COUNT datagrams of 4..3972 bytes compared byte for byte: ${udp_line#udp: }" "$OUT"

	# iperf3 g2 -> g1.
	gx g2 $((IPERF_SECS + 25)) xnv iperf "$(g_ip g1)" "$IPERF_SECS"
	rc=$?
	iperf_line=$(echo "$OUT" | grep receiver | head -n1)
	local ip_mbit ip_mbytes
	ip_mbit=$(echo "$iperf_line" | awk '{ for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1) }')
	ip_mbytes=$(echo "$iperf_line" | awk '{ for (i = 1; i <= NF; i++) if ($i == "MBytes") print $(i - 1) }')
	if [ $rc = 0 ] && [ -n "$ip_mbit" ]; then
		ip_res="$ip_mbit Mbit/s"
		# The receiver's count, rounded to 3 digits: count 98% of it.
		payload=$((payload + $(awk -v m="$ip_mbytes" 'BEGIN { printf "%.0f", m * 1048576 * 0.98 }')))
	else
		rc=1
	fi
	result $rc "$tag: iperf3 g2->g1 ${IPERF_SECS} s: ${ip_mbit:-?} Mbit/s" "$OUT"

	# The guests' checksum error counters must not have moved: a frame
	# whose checksum a bypass broke is counted there and dropped.
	ok=0 details=""
	for g in $GUESTS; do
		gx "$g" 10 xnv stats || stats_err="$stats_err$g: xnv stats failed: $OUT"$'\n'
		S1[$g]=$OUT
		for k in tcp_csum_errors udp_csum_errors; do
			if ! [[ $(kv $k "${S0[$g]}") =~ ^[0-9]+$ && $(kv $k "${S1[$g]}") =~ ^[0-9]+$ ]]; then
				ok=1
				details="$details$g $k: not read ('$(kv $k "${S0[$g]}")', '$(kv $k "${S1[$g]}")')"$'\n'
			elif [ "$(kv $k "${S1[$g]}")" != "$(kv $k "${S0[$g]}")" ]; then
				ok=1
				details="$details$g $k: $(kv $k "${S0[$g]}") -> $(kv $k "${S1[$g]}")"$'\n'
			fi
		done
	done
	[ -z "$stats_err" ] || { ok=1; details="$details$stats_err"; }
	local flood=-1
	if [[ $w0 =~ ^[0-9]+$ && $w1 =~ ^[0-9]+$ ]]; then
		flood=$((w1 - w0))
	else
		ok=1
		details="${details}g3's tap counters not read ($w0, $w1)"$'\n'
	fi
	if [ "$flood" -gt $MB ]; then
		ok=1
		details="${details}g3's tap transmitted $flood bytes during the g1<->g2 transfers: flooded"$'\n'
	fi
	result $ok "$tag: no checksum errors in the guests; g3 saw $((flood / 1024)) KiB of the g1<->g2 transfers (no flooding)" "$details"

	# Counters: the fast path carried the traffic.
	if [ "$path" = tc ] || [ "$path" = xdp ]; then
		ctr_snapshot "$W/$off-$path.after.json"
		ctr_load before "$W/$off-$path.before.json"
		ctr_load after "$W/$off-$path.after.json"
		local xb tb fb fp pp pb defer msg
		xb=$(d_b xdp_redirect) tb=$(d_b tc_redirect)
		fb=$((xb + tb))
		fp=$(($(d_p xdp_redirect) + $(d_p tc_redirect)))
		pp=$(d_p pass_) pb=$(d_b pass_)
		# The keep-alive: a frame a second of each bypassed source takes
		# the bridge by design (up to 64 KB under GSO), however long the
		# traffic runs: not a frame the fast path failed to carry.
		local kb
		kb=$(d_b pass_refresh)
		defer=$(d_list xdp_defer_)
		# Shares of the frames that entered the guests' ports and got a
		# final verdict there: bypassed or handed to the bridge. (drop_*
		# come from host-wide tracepoints and are reported apart.)
		share="$(pct $fb $((fb + pb - kb)))% / $(pct $fp $((fp + pp)))%"
		split="$(pct "$xb" "$fb")% / $(pct "$tb" "$fb")%"
		bridge_frames=$pp
		ok=0 details=""
		[ "$payload" -gt 0 ] || { ok=1; details="${details}no transfer succeeded: nothing to account for"$'\n'; }
		[ $((fb + kb)) -ge "$payload" ] || { ok=1; details="${details}fast path carried $fb bytes (and keep-alive frames $kb), less than the $payload payload bytes moved"$'\n'; }
		[ "$(awk -v a=$fb -v b=$((fb + pb - kb)) 'BEGIN { print (b > 0 && a / b >= 0.99) }')" = 1 ] ||
			{ ok=1; details="${details}fast path share of bytes (keep-alive frames aside) under 99%"$'\n'; }
		if [ "$path" = tc ]; then
			[ "$xb" = 0 ] || { ok=1; details="${details}XDP redirects in tc mode: $xb bytes"$'\n'; }
		else
			[ "$(d_p xdp_redirect)" -gt 0 ] || { ok=1; details="${details}the XDP stage redirected nothing"$'\n'; }
			if [ "$off" = off ] && [ "$xb" -lt $((fb / 2)) ]; then
				ok=1
				details="${details}checksum offload off: the XDP stage carried only $xb of $fb bytes"$'\n'
			fi
		fi
		msg="fast path $(mib $fb) MiB (+ keep-alive $(mib $kb) MiB) >= payload $(mib $payload) MiB; share $share (bytes without keep-alive / frames); XDP $(mib $xb) MiB ($(d_p xdp_redirect) frames), TC $(mib $tb) MiB ($(d_p tc_redirect) frames); to bridge $pp frames ($(d_list pass_ | sed 's/^ //'))"
		result $ok "$tag: counters: $msg" "$details"
		note "$tag: xdp->tc deferrals:$defer; drop counters (tracepoints):$(d_list drop_)"
	fi
	P_ROW="| $off | $path | $tcp_res | $udp_res | $ip_res | $share | $split | $bridge_frames |"
	ROWS+=("$P_ROW")
	note "$tag: $((SECONDS - t0)) s ($(elapsed) so far)"
}

# ---------------------------------------------------------------- follow

# Ports as the CLI sees them: "name:ifindex ..." sorted.
ports_of() {
	xn status $BR --json 2>/dev/null |
		jq -r '.bridges[0].ports[] | "\(.name):\(.ifindex)"' 2>/dev/null | sort | tr '\n' ' '
}
# wait_ports WANT SECS: until ports_of prints WANT (trailing space included).
wait_ports() {
	local until=$((SECONDS + $2))
	while [ $SECONDS -lt $until ]; do
		[ "$(ports_of)" = "$1" ] && return 0
		sleep 0.2
	done
	return 1
}
# port_bytes FILE GUEST COUNTER: bytes of a counter on a guest's port.
port_bytes() {
	jq --arg p "$(g_tap "$2")" --arg c "$3" \
		'[.bridges[0].ports[] | select(.name == $p) | .counters[$c].bytes // 0] | add // 0' "$1"
}
tap_ifindex() { ip -n $SW -j link show "$1" 2>/dev/null | jq '.[0].ifindex'; }

# run_follow OFFLOAD: "xdpnet attach --follow" while a guest goes away with
# its tap and comes back on a new one, as a libvirt VM does on restart.
run_follow() {
	local off=$1 tag="offloads $1 / follow" rc out want old new t1 g
	local t0=$SECONDS
	out=$(xn detach $BR 2>&1) # whatever the paths left
	nsenter --net=/run/netns/$SW setpriv --pdeathsig KILL \
		"$XDPNET" attach $BR --follow >"$W/follow.log" 2>&1 &
	FOLLOW_PID=$!
	want="$(for g in $GUESTS; do printf '%s:%s\n' "$(g_tap "$g")" "$(tap_ifindex "$(g_tap "$g")")"; done | sort | tr '\n' ' ')"
	wait_ports "$want" 15
	result $? "$tag: xdpnet attach $BR --follow: running, 3 ports" "$(cat "$W/follow.log")" "ports: $(ports_of)" ||
		return 1

	# g3's VM stops and its tap goes away.
	old=$(tap_ifindex "$(g_tap g3)")
	guest_stop g3
	ip -n $SW tuntap del mode tap name "$(g_tap g3)"
	want="$(for g in g1 g2; do printf '%s:%s\n' "$(g_tap "$g")" "$(tap_ifindex "$(g_tap "$g")")"; done | sort | tr '\n' ' ')"
	t1=$SECONDS
	wait_ports "$want" 15
	rc=$?
	# It comes back on a new tap.
	ip -n $SW tuntap add mode tap name "$(g_tap g3)" &&
		ip -n $SW link set "$(g_tap g3)" master $BR up || rc=1
	new=$(tap_ifindex "$(g_tap g3)")
	want="$(for g in $GUESTS; do printf '%s:%s\n' "$(g_tap "$g")" "$(tap_ifindex "$(g_tap "$g")")"; done | sort | tr '\n' ' ')"
	wait_ports "$want" 15 || rc=1
	result $rc "$tag: g3 stopped and its tap deleted, then a new tap (ifindex $old -> $new): the follower dropped and re-attached the port ($((SECONDS - t1)) s)" \
		"want: $want" "ports: $(ports_of)" "$(tail -n 5 "$W/follow.log")"
	guest_start g3 "$off" "$ACCEL"
	guest_wait_ready g3 "$([ "$ACCEL" = kvm ] && echo 60 || echo 180)"
	result $? "$tag: g3 booted again on the new tap" "$(tail -n 3 "$W/g3.console.log")" || return 1

	# Traffic to the rebooted guest takes the bypass.
	ctr_snapshot "$W/$off-follow.before.json"
	gx g3 20 ping -c 2 -i 0.2 -W 5 "$(g_ip g1)"
	rc=$?
	out=$OUT
	PORT_NEXT=$((PORT_NEXT + 2))
	if tcp_xfer g1 g3 $PORT_NEXT; then :; else rc=1; out="$out"$'\n'"$XFER_ERR"; fi
	ctr_snapshot "$W/$off-follow.after.json"
	ctr_load before "$W/$off-follow.before.json"
	ctr_load after "$W/$off-follow.after.json"
	local into fb pb ka
	into=$(jq --arg p "$(g_tap g3)" '[.bridges[0].ports[] | select(.name == $p) | .counters.rx_redirected.bytes] | add // 0' \
		"$W/$off-follow.after.json")
	# g1's keep-alive: one frame a second of the flow takes the bridge
	# so that it refreshes g1's entry (a GSO frame of up to 64 KB).
	ka=$(($(port_bytes "$W/$off-follow.after.json" g1 pass_refresh) -
		$(port_bytes "$W/$off-follow.before.json" g1 pass_refresh)))
	fb=$(($(d_b xdp_redirect) + $(d_b tc_redirect)))
	pb=$(d_b pass_)
	[ $((into + ka)) -ge $((MIB * MB)) ] ||
		{ rc=1; out="$out"$'\n'"only $into bytes redirected into $(g_tap g3), and $ka bytes of g1's keep-alive frames took the bridge"; }
	result $rc "$tag: ping g3->g1 and TCP ${MIB} MiB g1->g3 over the new tap, sha256 match (${XFER_RATE:-?} Mbit/s); $(mib "$into") MiB redirected into $(g_tap g3) (+ $(mib "$ka") MiB keep-alive), fast path share $(pct "$fb" $((fb + pb)))% of bytes" \
		"$out"

	# Stopping the follower leaves the bypass in place; detach removes it.
	kill -TERM "$FOLLOW_PID" 2>/dev/null
	wait "$FOLLOW_PID" 2>/dev/null
	rc=$?
	FOLLOW_PID=
	out=$(xn status $BR 2>&1)
	local st=$?
	[ $rc = 0 ] && [ $st = 0 ] || rc=1
	xn detach $BR >/dev/null 2>&1 || rc=1
	[ -e "$PIN" ] && rc=1
	gx g1 20 ping -c 2 -i 0.2 -W 5 "$(g_ip g3)" || rc=1
	result $rc "$tag: SIGTERM stops the follower (bypass still attached), detach removes it, g1 still reaches g3" \
		"follower exit: $rc, status rc $st" "$out" "$OUT"
	note "$tag: $((SECONDS - t0)) s ($(elapsed) so far)"
}

# ---------------------------------------------------------------- main

for off in $OFFLOADS; do
	over_time "offloads $off" && break
	echo "# --- guests with offloads $off$([ "$off" = off ] && echo " (virtio-net-pci,csum=off)") ($(elapsed))"
	BOOT_ERR='' BOOT_SECS=''
	boot "$off"
	rc=$?
	info=""
	want=$off
	if [ $rc = 0 ]; then
		# What the guests negotiated must be what was asked for.
		for g in $GUESTS; do
			gx "$g" 10 xnv info
			info="$info$g: $(echo "$OUT" | tr '\n' ' ')"$'\n'
			[ "$(kv tx_csum "$OUT")" = "$want" ] || { rc=1; BOOT_ERR="$g tx-checksumming is $(kv tx_csum "$OUT"), want $want"; }
			[ "$(kv tso "$OUT")" = "$want" ] || { rc=1; BOOT_ERR="$g TSO is $(kv tso "$OUT"), want $want"; }
		done
	fi
	result $rc "offloads $off: 3 guests up in ${BOOT_SECS:-?} s ($ACCEL, vhost-net $VHOST$([ "$VHOST" = off ] && echo ": no /dev/vhost-net")); tx-checksumming $want, TSO $want" \
		"$BOOT_ERR" "$info" || break
	note "$(echo "$info" | head -n1)"
	# Let the bridge learn everyone before the first path.
	gx g1 20 ping -c 1 -W 5 "$(g_ip g2)"
	gx g2 20 ping -c 1 -W 5 "$(g_ip g3)"
	gx g3 20 ping -c 1 -W 5 "$(g_ip g1)"
	for path in $PATHS; do
		over_time "offloads $off / $path" && break
		run_path "$off" "$path" || break
	done
	# The follower, once (first offload setting).
	if [ "${XNV_FOLLOW:-1}" = 1 ] && [ "$off" = "${OFFLOADS%% *}" ] &&
		! over_time "offloads $off / follow"; then
		run_follow "$off"
	fi
	# Leave nothing attached for the next boot.
	collect_diag
	[ -e "$PIN" ] && xn detach $BR >/dev/null 2>&1
	for g in $GUESTS; do guest_stop "$g"; done
done
finish
