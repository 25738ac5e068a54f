#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet on Debian's own kernels (root; `make check-kernels` runs it for
# Debian 12 and Debian 13).
#
# Boots one QEMU guest on the linux-image-amd64 of a Debian suite
# (XNK_SUITE: bookworm, Debian 12, Linux 6.1; trixie, Debian 13, Linux
# 6.12; the cloud kernels have no 9p) that runs this host's own userland: the host's /
# over 9p, read-only, under a tmpfs overlay, so xdpnet, libbpf, iproute2,
# python3 and the tests are the very binaries built and used here; the
# guest kernel's modules come from the package (tests/kernels/init). The
# kernel and busybox-static are downloaded once with apt-get download into
# /var/cache/xdpnet-vm (tests/vm/fetch.sh; a suite other than the host's
# through a private apt configuration there), never installed. Inside,
# tests/kernels/inguest.sh runs the core of the integration suite
# (tests/integration/run.sh --core: veth and tap stand-ins, tc and xdp
# modes, the offload matrix with sha256, per-path counters and the
# br_netfilter witness, detach) and tests/kernels/degrade.sh (the hook,
# clsact instead of tcx, and the XDP stage completing partial checksums of
# tap frames in place, asserted), and frames that enter and leave taps
# through vhost-net (tests/integration/vhost.sh; the core and the tap rules
# again with stand-ins relayed through vhost-net: part vhost).
#
# Time: about 8 minutes under TCG with 2 vCPUs on the 2-core development
# VM (471-498 s from boot to power-off, boot 7-9 s; under TCG every process
# start costs 0.1-0.5 s, and the suite starts many). KVM where /dev/kvm
# works (a guest that does not come up with it within 60 s falls back to
# TCG, and the failed probe is remembered in the cache).
#
# Output: the suite's "ok N - ..." / "not ok N - ..." lines as they come,
# then "P passed, F failed"; exit 0 only when the guest ran everything and
# all passed. The console log, the suite's logs (on failure) and QEMU's
# messages are kept on failure.
#
# Environment:
#   XNK_ARGS="..."          more run.sh options (e.g. "--only tap --modes xdp");
#                           "--full [OPTIONS]": the whole suite instead of the
#                           core (raise XNK_TIMEOUT: it takes far longer)
#   XNK_ACCEL=auto|kvm|tcg  accelerator (default auto)
#   XNK_SUITE=bookworm      the Debian suite of the guest's kernel (trixie)
#   XNK_META=linux-image-amd64   the guest kernel's meta-package
#   XNK_MEM=2048 XNK_SMP=2  guest memory (MiB) and vCPUs
#   XNK_TCG_THREAD=single   TCG's threading (multi: one host thread per
#                           vCPU; the 6.12 guest took an "Oops: int3" in
#                           __netif_receive_skb_core under it, a static key
#                           being patched while the other vCPU ran that code
#                           (2026-12-01); single is as fast here: tests/bpf
#                           67 s against 70)
#   XNK_TIMEOUT=3000        seconds before the guest is stopped (a failure),
#                           times how much slower the guest is than the
#                           reference (XNK_SPEED_REF_MS, the guest's init
#                           times a fixed piece of work at boot)
#   XNK_SEM_ARGS="..."      more semantics.sh options for its VLAN cases
#                           (e.g. "--kinds veth")
#   XNK_SELFTESTS=1         also the kernel's own tests that build a bridge,
#                           plain and with xdpnet (tests/kernels/selftests.sh),
#                           from the suite's linux-source package, with that
#                           suite's iproute2 (both cached; far longer)
#   XNK_SELFTESTS_ONLY="bridge_vlan_aware.sh ..."  only these selftests
#   XNK_PARTS="bpf core vlan fuzz share vhost bench selftests"  only these parts of the guest's run
#                           (default: all; selftests only with XNK_SELFTESTS=1)
#   XNK_SHARE_ARGS="..."    semantics.sh options for the hook-sharing part
#                           (default "--cases xdpfilter --kinds tap")
#   XNK_FUZZ_SEEDS=1-4      the fuzzer's VLAN scenarios of part fuzz
#   XNK_SHARE_UPGRADE=1     and upgrade.sh --xdp-filter there
#   XNK_SCRIPT=FILE         also run bash FILE in the guest, last (a look at
#                           something on that kernel; with XNK_PARTS=none,
#                           only that)
#   XNK_KEEP=1              keep the work folder even when everything passed
#   XNV_CACHE=/var/cache/xdpnet-vm
set -u
set -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
META=${XNK_META:-linux-image-amd64}
SUITE=${XNK_SUITE:-bookworm}
ACCEL=${XNK_ACCEL:-auto}
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${XNK_TIMEOUT:-3000}
# The modules the guest needs that nothing autoloads: tun (/dev/net/tun),
# br_netfilter (its sysctls), vhost_net (/dev/vhost-net: without udev,
# nothing makes its node before the module is in).
PRELOAD="tun br_netfilter vhost_net"
# What the guest's /init needs before it has a root: virtio, 9p, overlay.
EARLY="virtio_pci 9pnet_virtio 9p overlay"

say() { echo "# $*"; }
die() { echo "not ok - $*"; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root"
command -v "$QEMU" >/dev/null || die "no $QEMU (tests/vm/deps.sh installs it)"
for f in build/xdpnet build/tests/vnet_relay; do
	[ -x "$ROOT/$f" ] || die "missing $ROOT/$f (make all)"
done

. "$ROOT/tests/vm/fetch.sh"
# Debian 12's in $CACHE/META (as before there were others), another
# suite's in $CACHE/SUITE-META.
KDIR=$CACHE/$META
[ "$SUITE" = bookworm ] || KDIR=$CACHE/$SUITE-$META
BB=$CACHE/busybox/busybox

# fetch_kernel's KEEP: the image, its config, and the modules the tests can
# need (networking, 9p, overlay, virtio; no other drivers), with busybox's
# depmod indexes (this host need not have kmod).
keep_kernel() { # X VERSION K
	local x=$1/lib/modules/$2 k=$3/lib/modules/$2 d
	[ -d "$x" ] || x=$1/usr/lib/modules/$2 # merged /usr (Debian 13)
	cp "$1/boot/vmlinuz-$2" "$3/vmlinuz" && cp "$1/boot/config-$2" "$3/config" || return 1
	mkdir -p "$k/kernel/drivers/net"
	for d in net lib crypto arch fs/9p fs/overlayfs fs/netfs fs/fscache \
		drivers/virtio drivers/net/vxlan drivers/vhost; do
		[ -d "$x/kernel/$d" ] || continue
		mkdir -p "$k/kernel/$(dirname "$d")"
		cp -a "$x/kernel/$d" "$k/kernel/$d" || return 1
	done
	cp "$x"/kernel/drivers/net/*.ko* "$k/kernel/drivers/net/" || return 1
	rm -rf "$k"/kernel/net/{wireless,mac80211,bluetooth}
	# Compressed modules (Debian 13's are .ko.xz): plain ones, which
	# busybox's modprobe and depmod read.
	find "$k" -name '*.ko.xz' -exec "$BB" unxz {} + || return 1
	cp "$x"/modules.builtin* "$x"/modules.order "$k/" || return 1
	"$BB" depmod -b "$3" "$2"
}

busybox_ready
# A cache from before the guest needed vhost_net lacks it: fetch anew.
if [ -s "$KDIR/package" ] && ! grep -q '/vhost_net\.ko' "$KDIR"/lib/modules/*/modules.dep 2>/dev/null; then
	say "the cached kernel has no vhost_net: fetching it again"
	rm -rf "$KDIR"
fi
if [ -s "$KDIR/vmlinuz" ] && [ -s "$KDIR/package" ]; then
	say "kernel from the cache: $(cat "$KDIR/package")"
else
	apt_suite "$SUITE"
	fetch_kernel "$META" "${KDIR#"$CACHE"/}" keep_kernel
	say "kernel: $(cat "$KDIR/package")"
fi
KVER=$(cut -d' ' -f1 "$KDIR/package")
KVER=${KVER#linux-image-}
MODS=$KDIR/lib/modules/$KVER
[ -f "$MODS/modules.dep" ] || die "no $MODS/modules.dep (rm -r $KDIR to fetch again)"

# The kernel's network selftests, from the source package of the same
# version (linux-source-6.1 for 6.1.0-57-amd64).
STDIR= STIP=
if [ "${XNK_SELFTESTS:-0}" = 1 ]; then
	STPKG=linux-source-$(echo "$KVER" | cut -d. -f1,2)
	STDIR=$CACHE/$SUITE-selftests
	if [ -d "$STDIR/forwarding" ] && [ "$(cut -d' ' -f1 "$STDIR/package" 2>/dev/null)" = "$STPKG" ]; then
		say "selftests from the cache: $(cat "$STDIR/package")"
	else
		apt_suite "$SUITE"
		fetch_selftests "$STPKG" "$SUITE-selftests"
		say "selftests: $(cat "$STDIR/package")"
	fi
	# The guest runs this host's userland (Debian 12); another suite's
	# selftests get that suite's iproute2 (6.12's need iproute2 newer than
	# 6.1 for mdb flush, mcast_max_groups, fdb_max_learned).
	if [ "$SUITE" != bookworm ]; then
		IPDIR=$CACHE/$SUITE-iproute2
		if [ -x "$IPDIR/usr/sbin/ip" ] && [ -f "$IPDIR/package" ]; then
			iproute2_wraps "$SUITE-iproute2"
			say "iproute2 for the selftests from the cache: $(cat "$IPDIR/package")"
		else
			apt_suite "$SUITE"
			fetch_iproute2 "$SUITE-iproute2"
			say "iproute2 for the selftests: $(cat "$IPDIR/package")"
		fi
		STIP=$IPDIR/wrap
	fi
fi

W=$(mktemp -d /tmp/xnk.XXXXXX)
QPID=
RC=1
cleanup() {
	[ -n "$QPID" ] && kill -KILL "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	QPID=
	if [ "$RC" = 0 ] && [ "${XNK_KEEP:-0}" != 1 ]; then
		rm -rf "$W"
	else
		echo "# kept: $W (console.log, qemu.log, out/tests.out, out/logs)"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- initramfs

initramfs() {
	local r=$W/initramfs a m
	mkdir -p "$r"/{bin,sbin,proc,sys,dev,lib/modules/"$KVER"}
	cp "$BB" "$r/bin/busybox"
	for a in $("$BB" --list); do
		[ "$a" = busybox ] || ln -s busybox "$r/bin/$a"
	done
	ln -s ../bin/busybox "$r/sbin/modprobe"
	cp "$MODS"/modules.* "$r/lib/modules/$KVER/"
	# The early modules and everything they depend on (modules.dep lists
	# a module's dependencies in full).
	for m in $(for a in $EARLY; do
		grep -E "(^|/)$a\.ko(\.xz|\.zst|\.gz)?:" "$MODS/modules.dep" | tr -d : | tr ' ' '\n'
	done | sort -u); do
		install -D -m 0644 "$MODS/$m" "$r/lib/modules/$KVER/$m" || return 1
	done
	install -m 0755 "$HERE/init" "$r/init"
	(cd "$r" && find . | LC_ALL=C sort | "$BB" cpio -o -H newc 2>/dev/null) >"$W/initramfs.cpio"
}
initramfs || die "cannot build the initramfs"

mkdir -p "$W/out"
cat >"$W/out/job" <<EOF
REPO='$ROOT'
KDIR='$KDIR'
PRELOAD='$PRELOAD'
ARGS='${XNK_ARGS:-}'
SELFTESTS='$STDIR'
SEM_ARGS='${XNK_SEM_ARGS:-}'
SELFTESTS_ONLY='${XNK_SELFTESTS_ONLY:-}'
SELFTESTS_PATH='$STIP'
PARTS='${XNK_PARTS:-}'
SCRIPT='${XNK_SCRIPT:-}'
SHARE_ARGS='${XNK_SHARE_ARGS:-}'
SHARE_UPGRADE='${XNK_SHARE_UPGRADE:-}'
FUZZ_SEEDS='${XNK_FUZZ_SEEDS:-}'
EOF

# ---------------------------------------------------------------- boot

# boot ACCEL: start the guest in the background (QPID).
boot() {
	local machine
	# TCG: every CPU feature it emulates but 5-level paging (la57). With
	# it, the 6.12 guest once died of a double fault at the slab
	# allocator's cmpxchg16b, a garbage EFLAGS in its frame (3 suites and
	# a CPU hog beside it; not reproduced): most likely the emulator's.
	# 4-level paging is what the hosts this guest stands for run, and the
	# path the emulator runs most.
	if [ "$1" = kvm ]; then machine="-accel kvm -cpu host"; else machine="-accel tcg,thread=${XNK_TCG_THREAD:-single} -cpu max,la57=off"; fi
	rm -f "$W/out/booted" "$W/out/rc" "$W/out/tests.out"
	echo "=== boot $(date +%T): $1" >>"$W/console.log"
	# setpriv --pdeathsig: the guest dies with this script, however it ends.
	# shellcheck disable=SC2086
	setpriv --pdeathsig KILL "$QEMU" -name xnk -nodefaults -no-user-config \
		-display none -machine pc $machine -smp "${XNK_SMP:-2}" -m "${XNK_MEM:-2048}" \
		-no-reboot -kernel "$KDIR/vmlinuz" -initrd "$W/initramfs.cpio" \
		-append "console=ttyS0 loglevel=4 panic=-1" \
		-chardev "file,id=con,path=$W/console.log,append=on" -serial chardev:con \
		-virtfs local,path=/,mount_tag=hostroot,readonly=on,security_model=none,multidevs=remap \
		-virtfs "local,path=$W/out,mount_tag=xnkout,security_model=none" \
		</dev/null >>"$W/qemu.log" 2>&1 &
	QPID=$!
}

# wait_booted SECS: the guest's /init reached its work folder.
wait_booted() {
	for _ in $(seq $(($1 * 10))); do
		[ -e "$W/out/booted" ] && return 0
		kill -0 "$QPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

QEMU_VER=$("$QEMU" --version | head -n1 | awk '{print $4}')
KEY="host $(uname -r) qemu $QEMU_VER guest $KVER"
PROBE_FILE=$CACHE/kvm-probe-kernels
if [ "$ACCEL" = auto ]; then
	ACCEL=tcg
	if ! [ -c /dev/kvm ] || ! : 2>/dev/null <>/dev/kvm; then
		NOTE="no usable /dev/kvm"
	elif grep -qxF "$KEY" "$PROBE_FILE" 2>/dev/null; then
		# One pair of lines per guest kernel: its key, the probe's note.
		NOTE="$(grep -xF -A1 "$KEY" "$PROBE_FILE" | sed -n 2p) (cached; rm $PROBE_FILE to probe again)"
	else
		ACCEL=kvm-probe
	fi
fi
START=$SECONDS
if [ "$ACCEL" = kvm-probe ]; then
	boot kvm
	if wait_booted 60; then
		ACCEL=kvm NOTE="probe booted"
	else
		NOTE="KVM probe failed: $(grep -v '^$' "$W/qemu.log" | tail -n1)"
		kill -KILL "$QPID" 2>/dev/null
		wait "$QPID" 2>/dev/null
		printf '%s\n%s\n' "$KEY" "$NOTE" >>"$PROBE_FILE"
		ACCEL=tcg
	fi
fi
say "guest: $(cat "$KDIR/package"), $ACCEL${NOTE:+ ($NOTE)}, ${XNK_SMP:-2} vCPUs, ${XNK_MEM:-2048} MiB"
if [ "$ACCEL" != kvm ]; then
	boot "$ACCEL"
	wait_booted 120 || die "the guest did not come up: $(tail -n 3 "$W/console.log" | tr '\n' ' ')"
fi
say "booted in $((SECONDS - START)) s"
# The guest's speed (its init times a fixed piece of work): the deadline
# grows by how much slower it is than on the machine XNK_TIMEOUT was set
# on (XNK_SPEED_REF_MS for that work there), never shrinks.
for _ in $(seq 300); do [ -s "$W/out/speed" ] && break; sleep 0.1; done
SPEED_MS=$(cat "$W/out/speed" 2>/dev/null)
REF_MS=${XNK_SPEED_REF_MS:-310}
if [[ $SPEED_MS =~ ^[0-9]+$ ]] && [ "$SPEED_MS" -gt "$REF_MS" ]; then
	TIMEOUT=$((TIMEOUT * SPEED_MS / REF_MS))
fi
say "guest speed: ${SPEED_MS:-?} ms for the reference work ($REF_MS ms where XNK_TIMEOUT was set): deadline $TIMEOUT s"

# The suite's output as it comes, until QEMU exits (or the deadline).
touch "$W/out/tests.out"
timeout "$TIMEOUT" tail -n +1 -F --pid="$QPID" "$W/out/tests.out" 2>/dev/null
if kill -0 "$QPID" 2>/dev/null; then
	echo "not ok - the guest was still running after $TIMEOUT s (XNK_TIMEOUT)"
	exit 1
fi
wait "$QPID"
QPID=
ELAPSED=$((SECONDS - START))
grep -q 'Kernel panic\|BUG:\|Oops' "$W/console.log" &&
	{ echo "# guest kernel:"; grep -A 20 -m1 'Kernel panic\|BUG:\|Oops' "$W/console.log" | sed 's/^/#   /'; }
if [ ! -s "$W/out/rc" ]; then
	echo "not ok - the guest ended without a result; console:"
	tail -n 15 "$W/console.log" | sed 's/^/#   /'
	exit 1
fi
RC=$(cat "$W/out/rc")
say "guest $KVER ($ACCEL): $ELAPSED s, exit $RC"
[ "$RC" = 0 ]
