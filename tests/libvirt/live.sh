#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The libvirt hook under a real libvirtd (root; skips, saying why, where
# libvirtd, virsh or QEMU are missing: tests/libvirt/deps.sh installs them).
#
# libvirtd runs in private network and mount namespaces: its own sysfs,
# bpffs, /run, and private copies of /etc, /var/lib, /var/log and /var/cache
# (overlays), so it sees none of the host's libvirt configuration (no
# default network), and everything it creates (bridge, taps, firewall
# rules, pins, state) disappears with the namespaces. `make install` (into
# a scratch DESTDIR, binary path build/) provides the hooks, as
# hooks/qemu.d/xdpnet and hooks/network.d/xdpnet.
#
# An isolated libvirt network (bridge xnlvbr0, no addresses, no forwarding)
# and a transient TCG domain (<domain type='qemu'>, 64 MiB, no disk, two
# virtio NICs on that network) that sits in its BIOS. xdpnet is attached to
# xnlvbr0 before the domain exists. Then, LIVE_CYCLES times each:
#   hook only (no follower): virsh create; the domain's taps must be
#	bypassed when virsh returns (xdpnet status lists them), and the
#	hook's attach must have finished before QEMU started (it runs at
#	"start"); the time from the kernel enslaving the tap (ip monitor) to
#	the attach done is printed;
#   with a follower: virsh destroy; the taps must leave xdpnet's port
#	list within 1 s (without one, what the list shows is printed);
# and once: libvirtd restarts while the domain runs; its "reconnect" hook
# call runs xdpnet attach.
# Figures are printed as "# ..." lines.
set -u
set -o pipefail
. "$(dirname "$0")/lib.sh"
XDPNET_BIN=${XDPNET:-$ROOT/build/xdpnet}
CYCLES=${LIVE_CYCLES:-3}
BR=xnlvbr0
NET=xnlvnet
DOM=xnlvdom

skip() {
	echo "# skipped: $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

if [ "${1:-}" != --inside ]; then
	[ "$(id -u)" = 0 ] || skip "needs root"
	for c in libvirtd virsh qemu-system-x86_64 jq unshare; do
		command -v "$c" >/dev/null ||
			skip "$c is not installed (tests/libvirt/deps.sh installs it)"
	done
	[ -x "$XDPNET_BIN" ] || { nok "build/xdpnet exists (make)"; finish; exit; }
	T=$(mktemp -d /tmp/xnlv.XXXXXX)
	unshare --mount --net --propagation private "$0" --inside "$T"
	rc=$?
	rm -rf "$T"
	exit $rc
fi

T=$2
V="virsh -q -c qemu:///system"
PIDS=()
LIBVIRTD_LOG=/var/log/libvirt/libvirtd.log
libvirtd_pid() { # the running private libvirtd's pid, or nothing
	local p
	p=$(cat /run/xnlv-libvirtd.pid 2>/dev/null)
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"
}
cleanup() {
	local p qpid
	$V destroy "$DOM" >/dev/null 2>&1
	qpid=$(cat "/run/libvirt/qemu/$DOM.pid" 2>/dev/null)
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	$V net-destroy "$NET" >/dev/null 2>&1
	"$XDPNET_BIN" detach "$BR" >/dev/null 2>&1
	for p in "${PIDS[@]}" $(libvirtd_pid); do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap cleanup EXIT

# ------------------------------------------------------------ namespaces
mount -t tmpfs tmpfs /run || skip "cannot mount in a private namespace"
mount -t sysfs sysfs /sys
mount -t bpf bpf /sys/fs/bpf
for d in /etc /var/lib /var/log /var/cache; do
	mkdir -p "$T/ovl$d/up" "$T/ovl$d/work"
	mount -t overlay overlay \
		-o "lowerdir=$d,upperdir=$T/ovl$d/up,workdir=$T/ovl$d/work" "$d" ||
		skip "overlayfs unavailable"
done
rm -rf /etc/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt
mkdir -p /etc/libvirt/hooks /var/lib/libvirt /var/log/libvirt /var/cache/libvirt
ip link set lo up

# libvirtd's QEMU driver resolves its built-in user and group (Debian:
# libvirt-qemu) before it reads qemu.conf, and fails without them. That
# user comes from libvirt-daemon-system's maintainer scripts, which
# tests/libvirt/deps.sh does not install (the package would start a libvirtd
# service on the host). Create it here instead, in the private overlay of
# /etc: it is gone with the namespace, and the host's /etc is not touched.
qemu_user=libvirt-qemu
if ! getent passwd "$qemu_user" >/dev/null; then
	getent group "$qemu_user" >/dev/null || groupadd --system "$qemu_user" ||
		{ nok "group $qemu_user in the private /etc (groupadd)"; finish; exit; }
	useradd --system --gid "$qemu_user" --no-create-home --home-dir /var/lib/libvirt \
		--shell /usr/sbin/nologin "$qemu_user" ||
		{ nok "user $qemu_user in the private /etc (useradd)"; finish; exit; }
fi

# QEMU as root, no cgroups (the namespace hides them), no SELinux/AppArmor,
# no virtlogd.
cat >/etc/libvirt/qemu.conf <<'EOF'
user = "root"
group = "root"
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
stdio_handler = "file"
remember_owner = 0
EOF
echo 'log_outputs="3:file:/var/log/libvirt/libvirtd.log"' >/etc/libvirt/libvirtd.conf

# The hooks as `make install` installs them.
make -s -C "$ROOT" install DESTDIR="$T/inst" SBINDIR="$ROOT/build" >"$T/make.log" 2>&1 ||
	{ nok "make install"; cat "$T/make.log"; finish; exit; }
cp -a "$T/inst/etc/libvirt/hooks/." /etc/libvirt/hooks/
check "hooks installed: qemu.d/xdpnet and network.d/xdpnet" \
	test -x /etc/libvirt/hooks/qemu.d/xdpnet -a -x /etc/libvirt/hooks/network.d/xdpnet
stubs "$T" # logger: the hooks' log lines, with times

# Polls until libvirtd answers (0), or until the daemon it started has
# exited or 10 s have passed (1). A driver that fails to initialise makes
# the daemon exit after `libvirtd -d` has returned.
start_libvirtd() {
	local p seen=
	PATH=$T/bin:$PATH libvirtd -d --pid-file /run/xnlv-libvirtd.pid || return 1
	for _ in $(seq 100); do
		$V version >/dev/null 2>&1 && return 0
		p=$(libvirtd_pid)
		[ -n "$p" ] && seen=$p
		[ -n "$seen" ] && [ -z "$p" ] && return 1
		sleep 0.1
	done
	return 1
}
# Why libvirtd did not come up, in one line of its own log: the driver that
# failed to initialise (libvirtd logs harmless errors before it: no
# dnsmasq, no D-Bus, no DMI here), else its last error.
libvirtd_why() {
	local why
	why=$(grep -m 1 ' error : virStateInitialize:' "$LIBVIRTD_LOG" 2>/dev/null ||
		grep ' error : ' "$LIBVIRTD_LOG" 2>/dev/null | tail -n 1)
	why=$(printf '%s' "$why" | sed 's/^.* error : [A-Za-z]*:[0-9]* : //')
	echo "${why:-no error in $LIBVIRTD_LOG}"
}
if ! check "libvirtd $(libvirtd --version | awk '{ print $NF }') starts" start_libvirtd; then
	echo "# libvirtd did not start: $(libvirtd_why)"
	finish
	exit
fi

cat >"$T/net.xml" <<EOF
<network><name>$NET</name><bridge name='$BR' stp='off' delay='0'/></network>
EOF
check "isolated network $NET (bridge $BR) starts" $V net-create "$T/net.xml"
cat >"$T/dom.xml" <<EOF
<domain type='qemu'>
  <name>$DOM</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <devices>
    <interface type='network'><source network='$NET'/><model type='virtio'/><rom enabled='no'/></interface>
    <interface type='network'><source network='$NET'/><model type='virtio'/><rom enabled='no'/></interface>
  </devices>
</domain>
EOF

nofollow=
helps --no-follow && nofollow=--no-follow
check "operator: xdpnet attach $BR $nofollow" "$XDPNET_BIN" attach "$BR" $nofollow

taps() { # the ports of $BR that xdpnet lists, sorted
	"$XDPNET_BIN" status "$BR" --json 2>/dev/null |
		jq -r '.bridges[].ports[].name' | sort | xargs
}
ms_of_ts() { # an ip -ts timestamp [YYYY-MM-DDTHH:MM:SS.UUUUUU] in epoch ms
	echo $(($(date -d "${1//T/ }" +%s%N) / 1000000))
}

# One cycle: create, measure, destroy. $1: "hook" or "follower".
cycle() {
	local kind=$1 n=$2 t0 t1 tap_ms done_ms started_ms want got t_gone
	$V destroy "$DOM" >/dev/null 2>&1 # what a failed cycle left
	: >"$T/log"
	: >"$T/mon"
	ip -ts -o monitor link >"$T/mon" &
	local mon=$!
	PIDS+=("$mon")
	t0=$(now_ms)
	$V create "$T/dom.xml" >/dev/null || { nok "$kind $n: virsh create"; return; }
	t1=$(now_ms)
	want=$($V domiflist "$DOM" | awk '{ print $1 }' | sort | xargs)
	got=$(taps)
	check "$kind $n: $want bypassed when virsh create returns ($((t1 - t0)) ms)" \
		test "$got" = "$want"
	kill "$mon"
	wait "$mon" 2>/dev/null
	# The kernel's enslaving of the first tap, the hook's attach at
	# "start" finishing, and the "started" call (QEMU running).
	tap_ms=$(awk -v br="$BR" '$0 ~ " master " br " " { print substr($1, 2, 26); exit }' "$T/mon")
	done_ms=$(awk '/ start \(taps .*: ok in / { print substr($1, 1, length($1) - 6); exit }' "$T/log")
	started_ms=$(awk '/ started \(taps / { print substr($1, 1, length($1) - 6); exit }' "$T/log")
	if [ -n "$tap_ms" ] && [ -n "$done_ms" ]; then
		tap_ms=$(ms_of_ts "$tap_ms")
		echo "# $kind $n: tap enslaved -> hook's attach done: $((done_ms - tap_ms)) ms;" \
			"attach done -> QEMU started: $((${started_ms:-done_ms} - done_ms)) ms;" \
			"attach took $(sed -n 's/.* start (taps .*: ok in \([0-9]*\) ms.*/\1/p' "$T/log" | head -n 1) ms"
		# Order, not speed (the figures above are printed, not
		# judged): the hook's attach is done before QEMU runs, so the
		# guest sends nothing the bypass has not seen.
		check "$kind $n: the hook's attach was done before QEMU started" \
			test -n "$started_ms" -a "$done_ms" -le "${started_ms:-0}"
	else
		nok "$kind $n: timestamps (ip monitor '$tap_ms', hook log '$done_ms')"
		sed 's/^/#   log: /' "$T/log"
	fi
	t0=$(now_ms)
	$V destroy "$DOM" >/dev/null || nok "$kind $n: virsh destroy"
	t1=$(now_ms)
	t_gone=
	for _ in $(seq 150); do
		got=$(taps)
		case " $got " in
		*" vnet"* | *"(gone)"*) sleep 0.02 ;;
		*) t_gone=$(now_ms); break ;;
		esac
	done
	if [ "$kind" = follower ]; then
		check "$kind $n: taps released within 1 s of virsh destroy returning (${t_gone:+$((t_gone - t1)) ms})" \
			test -n "$t_gone" -a $((${t_gone:-t1} - t1)) -le 1000
	else
		echo "# $kind $n: after virsh destroy, xdpnet lists: ${got:-nothing}" \
			"${t_gone:+(released $((t_gone - t1)) ms after it returned)}"
	fi
}

for n in $(seq "$CYCLES"); do cycle hook "$n"; done

# The follower: "xdpnet follow" where it exists, else "attach --follow".
if helps '^ +follow '; then
	"$XDPNET_BIN" follow "$BR" >"$T/follower.log" 2>&1 &
else
	"$XDPNET_BIN" attach "$BR" --follow >"$T/follower.log" 2>&1 &
fi
FOLLOWER=$!
PIDS+=("$FOLLOWER")
for n in $(seq "$CYCLES"); do cycle follower "$n"; done
check "the follower ran throughout" kill "$FOLLOWER"
wait "$FOLLOWER" 2>/dev/null
sed 's/^/# follower: /' "$T/follower.log"

# libvirtd restarts under a running domain: "reconnect".
check "a domain runs again" $V create "$T/dom.xml" || { finish; exit; }
: >"$T/log"
lvpid=$(libvirtd_pid)
check "libvirtd runs before its restart (pid ${lvpid:-none})" test -n "$lvpid" ||
	{ finish; exit; }
kill "$lvpid"
for _ in $(seq 100); do
	kill -0 "$lvpid" 2>/dev/null || break
	sleep 0.1
done
if ! check "libvirtd restarts with the domain running" start_libvirtd; then
	echo "# libvirtd did not start again: $(libvirtd_why)"
	finish
	exit
fi
# libvirtd reconnects to running domains in threads of their own, after it
# answers: wait for the hook's line.
logged_reconnect() {
	for _ in $(seq 100); do
		grep -q " $DOM reconnect (taps vnet[0-9]* vnet[0-9]*): xdpnet attach $BR: ok" "$T/log" &&
			return 0
		sleep 0.1
	done
	return 1
}
check "reconnect: the hook ran xdpnet attach $BR" logged_reconnect
sed 's/^[0-9]* /# hook: /' "$T/log"
$V destroy "$DOM" >/dev/null
check "network $NET stops" $V net-destroy "$NET"
check "xdpnet detach $BR" "$XDPNET_BIN" detach "$BR"
check "libvirtd logged no hook failure" \
	bash -c "! grep -i 'hook.*fail' /var/log/libvirt/libvirtd.log"
finish
