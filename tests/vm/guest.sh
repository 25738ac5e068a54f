#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build what the tests/vm guests boot: a Debian cloud kernel and a busybox
# initramfs with the kernel's virtio-net modules, iperf3, ethtool and
# xnv_udp. The kernel and busybox-static come from Debian's packages with
# apt-get download (tests/vm/fetch.sh): cached, never installed on this
# host.
#
#   tests/vm/guest.sh OUTDIR
#	writes OUTDIR/vmlinuz (a link into the cache), OUTDIR/initramfs.cpio
#	and OUTDIR/guest.info
#
# The cache ($XNV_CACHE, default /var/cache/xdpnet-vm) keeps only the
# kernel image, the eight modules and busybox (about 16 MB); the .debs and
# their extractions are removed. Remove the folder to download afresh.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: guest.sh OUTDIR}
KERNEL_META=linux-image-cloud-amd64
MODS="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev
virtio_pci failover net_failover virtio_net"

say() { echo "# guest: $*"; }
die() { echo "guest.sh: $*" >&2; exit 1; }
. "$HERE/fetch.sh"

kernel_ok() {
	local m
	[ -s "$CACHE/kernel/vmlinuz" ] || return 1
	for m in $MODS; do [ -s "$CACHE/kernel/$m.ko" ] || return 1; done
}

# fetch_kernel's KEEP: the image and the eight modules.
keep_kernel() { # X VERSION K
	local m f
	cp "$1/boot/vmlinuz-$2" "$3/vmlinuz" || return 1
	for m in $MODS; do
		f=$(find "$1/lib/modules/$2" -name "$m.ko" -print -quit)
		[ -n "$f" ] || { echo "no $m.ko" >&2; return 1; }
		cp "$f" "$3/" || return 1
	done
}

mkdir -p "$OUT"
if kernel_ok; then
	say "kernel from the cache: $(cat "$CACHE/kernel/package")"
else
	fetch_kernel "$KERNEL_META" kernel keep_kernel
	say "kernel: $(cat "$CACHE/kernel/package")"
fi
busybox_ready
ln -sf "$CACHE/kernel/vmlinuz" "$OUT/vmlinuz"

# ------------------------------------------------------------ initramfs
ROOTFS=$(mktemp -d "$OUT/rootfs.XXXXXX")
trap 'rm -rf "$ROOTFS"' EXIT
mkdir -p "$ROOTFS"/{bin,sbin,lib/modules,proc,sys,dev,tmp,run,etc,root}

BUSYBOX=$CACHE/busybox/busybox
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -s busybox "$ROOTFS/bin/$a"
done

# A dynamically linked program and the libraries it loads, at the same
# paths as on this host (Debian 12, like the guest's userland would be).
copy_prog() { # PATH
	local lib
	install -D -m 0755 "$1" "$ROOTFS/bin/$(basename "$1")"
	for lib in $(ldd "$1" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
		[ -e "$ROOTFS$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$ROOTFS$lib"
	done
}
copy_prog "$(command -v iperf3)"
if command -v ethtool >/dev/null; then copy_prog "$(command -v ethtool)"; fi
# ld.so looks in /lib64 for the loader on x86-64.
[ -e "$ROOTFS/lib64" ] || ln -s lib "$ROOTFS/lib64"
[ -e "$ROOTFS/lib/x86_64-linux-gnu" ] || mkdir -p "$ROOTFS/lib/x86_64-linux-gnu"

${CC:-gcc} -O2 -Wall -Wextra -Werror -static -o "$ROOTFS/bin/xnv_udp" "$HERE/xnv_udp.c"
install -m 0755 "$HERE/init" "$ROOTFS/init"
install -m 0755 "$HERE/xnv" "$ROOTFS/bin/xnv"
for m in $MODS; do cp "$CACHE/kernel/$m.ko" "$ROOTFS/lib/modules/"; done
echo "root:x:0:0:root:/root:/bin/sh" >"$ROOTFS/etc/passwd"
echo "127.0.0.1 localhost" >"$ROOTFS/etc/hosts"

(cd "$ROOTFS" && find . | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc 2>/dev/null) \
	>"$OUT/initramfs.cpio"
{
	echo "kernel=$(cut -d' ' -f1 "$CACHE/kernel/package")"
	echo "kernel_version=$(cut -d' ' -f2 "$CACHE/kernel/package")"
	echo "busybox=$(cut -d' ' -f2 "$CACHE/busybox/package")"
	echo "initramfs_bytes=$(stat -c %s "$OUT/initramfs.cpio")"
} >"$OUT/guest.info"
say "initramfs: $(($(stat -c %s "$OUT/initramfs.cpio") / 1024)) KiB"
