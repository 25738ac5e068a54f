#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build what the tests/vm guests boot: a Debian cloud kernel and a busybox
# initramfs with the kernel's virtio-net modules, iperf3, ethtool and
# xnv_udp. The kernel and busybox-static come from Debian's packages with
# apt-get download: cached, never installed on this host (a kernel package
# would install a kernel; busybox-static would replace a host's busybox).
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
CACHE=${XNV_CACHE:-/var/cache/xdpnet-vm}
OUT=${1:?usage: guest.sh OUTDIR}
KERNEL_META=linux-image-cloud-amd64
MODS="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev
virtio_pci failover net_failover virtio_net"

say() { echo "# guest: $*"; }
die() { echo "guest.sh: $*" >&2; exit 1; }

kernel_ok() {
	local m
	[ -s "$CACHE/kernel/vmlinuz" ] || return 1
	for m in $MODS; do [ -s "$CACHE/kernel/$m.ko" ] || return 1; done
}
busybox_ok() { [ -x "$CACHE/busybox/busybox" ]; }

# The kernel package the cloud meta-package points at today.
kernel_pkg() {
	apt-cache depends "$KERNEL_META" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

UPDATED=0
apt_update() {
	[ "$UPDATED" = 1 ] && return 0
	say "apt-get update"
	apt-get update -qq
	UPDATED=1
}

# fetch_deb PKG DIR: download PKG and unpack it into DIR/x; DIR/pkg.deb.
fetch_deb() {
	chown _apt "$2" 2>/dev/null || true # _apt downloads where it may write
	if ! (cd "$2" && apt-get download -qq "$1" 2>"$2/apt.err"); then
		# An old package list may name a version the mirror no longer has.
		apt_update
		(cd "$2" && apt-get download -qq "$1") || return 1
	fi
	mv "$2"/*.deb "$2/pkg.deb"
	dpkg-deb -x "$2/pkg.deb" "$2/x"
}

fetch_kernel() {
	local pkg dl ver m f
	pkg=$(kernel_pkg)
	if [ -z "$pkg" ]; then
		apt_update
		pkg=$(kernel_pkg)
	fi
	[ -n "$pkg" ] || die "no package list names $KERNEL_META"
	dl=$(mktemp -d "$CACHE/.dl.XXXXXX")
	say "downloading $pkg (about 27 MB, once)"
	fetch_deb "$pkg" "$dl" || { rm -rf "$dl"; die "cannot download $pkg"; }
	ver=${pkg#linux-image-}
	mkdir -p "$dl/k"
	cp "$dl/x/boot/vmlinuz-$ver" "$dl/k/vmlinuz"
	for m in $MODS; do
		f=$(find "$dl/x/lib/modules/$ver" -name "$m.ko" -print -quit)
		[ -n "$f" ] || { rm -rf "$dl"; die "$pkg has no $m.ko"; }
		cp "$f" "$dl/k/"
	done
	echo "$pkg $(dpkg-deb -f "$dl/pkg.deb" Version)" >"$dl/k/package"
	rm -rf "$CACHE/kernel"
	mv "$dl/k" "$CACHE/kernel"
	rm -rf "$dl"
}

fetch_busybox() {
	local dl
	dl=$(mktemp -d "$CACHE/.dl.XXXXXX")
	say "downloading busybox-static (about 1 MB, once)"
	fetch_deb busybox-static "$dl" || { rm -rf "$dl"; die "cannot download busybox-static"; }
	mkdir -p "$dl/b"
	cp "$dl/x/bin/busybox" "$dl/b/busybox"
	if ldd "$dl/b/busybox" >/dev/null 2>&1; then
		rm -rf "$dl"
		die "busybox-static's busybox is not static"
	fi
	echo "busybox-static $(dpkg-deb -f "$dl/pkg.deb" Version)" >"$dl/b/package"
	rm -rf "$CACHE/busybox"
	mv "$dl/b" "$CACHE/busybox"
	rm -rf "$dl"
}

mkdir -p "$CACHE" "$OUT"
rm -rf "$CACHE"/.dl.* 2>/dev/null || true
if kernel_ok; then
	say "kernel from the cache: $(cat "$CACHE/kernel/package")"
else
	fetch_kernel
	say "kernel: $(cat "$CACHE/kernel/package")"
fi
if busybox_ok; then
	say "busybox from the cache: $(cat "$CACHE/busybox/package")"
else
	fetch_busybox
	say "busybox: $(cat "$CACHE/busybox/package")"
fi
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
