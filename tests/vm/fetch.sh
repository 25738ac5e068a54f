# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Debian packages for the test guests (sourced, bash: tests/vm/guest.sh,
# tests/kernels/run.sh). Kernels and busybox-static are fetched with
# apt-get download into a cache and unpacked there, never installed on this
# host (a kernel package would install a kernel; busybox-static would
# replace a host's busybox). The .debs and their extractions are removed;
# the caller says what to keep.
#
#   CACHE                 the cache ($XNV_CACHE, default /var/cache/xdpnet-vm)
#   apt_suite SUITE       fetch from SUITE from now on: the host's own
#	(bookworm) through its apt as it is; another (trixie) through a
#	private apt configuration in $CACHE/apt-SUITE (its own sources list,
#	package lists and caches, from the host's mirror), which leaves the
#	host's apt untouched
#   fetch_kernel META DEST KEEP
#	download the kernel package META (linux-image-cloud-amd64,
#	linux-image-amd64) depends on today and unpack it into X; then
#	"KEEP X VERSION K" copies what to keep into the empty folder K, which
#	becomes $CACHE/DEST, with K/package = "PACKAGE DEBIAN-VERSION"
#   fetch_busybox         $CACHE/busybox/busybox (static) and its package line
#   fetch_selftests PKG DEST
#	the network selftests of the kernel source package PKG
#	(linux-source-6.1): its tools/testing/selftests/net/forwarding,
#	lib.sh and lib/ into $CACHE/DEST, with DEST/package (needs
#	$CACHE/busybox/busybox, for its xz)
#   fetch_iproute2 DEST
#	the current suite's iproute2 with the libraries it needs, its C
#	library too, unpacked into $CACHE/DEST (the host's C library may be
#	older than it needs): DEST/wrap/{ip,bridge,tc} start it through its
#	own dynamic loader (iproute2_wraps DEST writes them, in bash),
#	DEST/package names it
#
# The caller defines say MSG and die MSG. Remove the cache folder to
# download afresh.

CACHE=${XNV_CACHE:-/var/cache/xdpnet-vm}
XNV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$CACHE"
rm -rf "$CACHE"/.dl.* 2>/dev/null || true

APT_OPTS=()
UPDATED=0
apt_suite() {
	local d=$CACHE/apt-$1 host key=/usr/share/keyrings/debian-archive-keyring.gpg o=
	host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	APT_OPTS=()
	UPDATED=0
	[ "$1" = "$host" ] && return 0
	mkdir -p "$d"/etc/parts "$d"/lists/partial "$d"/cache/archives/partial
	[ -f "$key" ] && o="[signed-by=$key] "
	{
		echo "deb $o$("$XNV_ROOT/scripts/debian-mirror") $1 main"
		echo "deb $o$("$XNV_ROOT/scripts/debian-mirror" --security) $1-security main"
	} >"$d/etc/sources.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$d/etc/sources.list"
		-o "Dir::Etc::SourceParts=$d/etc/parts"
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
	# A private list starts empty: fetch it once.
	ls "$d"/lists/*_Packages* >/dev/null 2>&1 || apt_update
}

# The kernel package META points at today.
kernel_pkg() {
	apt-cache "${APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

apt_update() {
	[ "$UPDATED" = 1 ] && return 0
	say "apt-get update${APT_OPTS[*]:+ (private: ${APT_OPTS[1]#*=})}"
	apt-get "${APT_OPTS[@]}" update -qq
	UPDATED=1
}

# fetch_deb PKG DIR: download PKG and unpack it into DIR/x; DIR/pkg.deb.
fetch_deb() {
	chown _apt "$2" 2>/dev/null || true # _apt downloads where it may write
	if ! (cd "$2" && apt-get "${APT_OPTS[@]}" download -qq "$1" 2>"$2/apt.err"); then
		# An old package list may name a version the mirror no longer has.
		apt_update
		(cd "$2" && apt-get "${APT_OPTS[@]}" download -qq "$1") || return 1
	fi
	mv "$2"/*.deb "$2/pkg.deb"
	dpkg-deb -x "$2/pkg.deb" "$2/x"
}

deb_mib() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '/^Size:/ { printf "%d", $2 / 1048576; exit }'
}

fetch_kernel() { # META DEST KEEP
	local pkg dl
	pkg=$(kernel_pkg "$1")
	if [ -z "$pkg" ]; then
		apt_update
		pkg=$(kernel_pkg "$1")
	fi
	[ -n "$pkg" ] || die "no package list names $1"
	dl=$(mktemp -d "$CACHE/.dl.XXXXXX")
	say "downloading $pkg (about $(deb_mib "$pkg") MB, once)"
	fetch_deb "$pkg" "$dl" || { rm -rf "$dl"; die "cannot download $pkg"; }
	mkdir -p "$dl/k"
	"$3" "$dl/x" "${pkg#linux-image-}" "$dl/k" || { rm -rf "$dl"; die "$pkg: $3 failed"; }
	echo "$pkg $(dpkg-deb -f "$dl/pkg.deb" Version)" >"$dl/k/package"
	rm -rf "${CACHE:?}/$2"
	mv "$dl/k" "$CACHE/$2"
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

fetch_selftests() { # PKG DEST
	local dl v=${1#linux-source-} s
	dl=$(mktemp -d "$CACHE/.dl.XXXXXX")
	chown _apt "$dl" 2>/dev/null || true
	say "downloading $1 (about $(deb_mib "$1") MB, once; only its network selftests are kept)"
	if ! (cd "$dl" && apt-get "${APT_OPTS[@]}" download -qq "$1" 2>"$dl/apt.err"); then
		apt_update
		(cd "$dl" && apt-get "${APT_OPTS[@]}" download -qq "$1") || { rm -rf "$dl"; die "cannot download $1"; }
	fi
	mv "$dl"/*.deb "$dl/pkg.deb"
	s=linux-source-$v/tools/testing/selftests/net
	# net/lib.sh and net/lib/ exist from 6.8 on (6.1's forwarding/lib.sh
	# stands alone): tar's complaint about them is no error.
	dpkg-deb --fsys-tarfile "$dl/pkg.deb" | tar -xO "./usr/src/linux-source-$v.tar.xz" |
		"$CACHE/busybox/busybox" xzcat |
		tar -x -C "$dl" --wildcards "$s/forwarding" "$s/lib*" 2>"$dl/tar.err"
	[ -f "$dl/$s/forwarding/lib.sh" ] ||
		{ cat "$dl/tar.err"; rm -rf "$dl"; die "$1: no $s/forwarding in it"; }
	echo "$1 $(dpkg-deb -f "$dl/pkg.deb" Version)" >"$dl/$s/package"
	rm -rf "${CACHE:?}/$2"
	mv "$dl/$s" "$CACHE/$2"
	rm -rf "$dl"
}

# iproute2 and what its programs load (the C library, libbpf, libelf,
# libmnl, libcap, libselinux, libtirpc and Kerberos under it, libxtables,
# libdb), as named in Debian 13.
IPROUTE2_DEBS="iproute2 libc6 libbpf1 libcap2 libdb5.3t64 libelf1t64 zlib1g
libzstd1 libmnl0 libselinux1 libpcre2-8-0 libtirpc3t64 libgssapi-krb5-2
libkrb5-3 libk5crypto3 libcom-err2 libkrb5support0 libkeyutils1 libssl3t64
libxtables12"

# iproute2_wraps DEST: DEST/wrap/{ip,bridge,tc} run DEST's programs with
# DEST's libraries. In bash, not sh: dash drops the environment's exported
# bash functions (BASH_FUNC_name%%), and the selftests' in_ns runs
# "ip netns exec NS bash" on functions exported with export -f.
iproute2_wraps() {
	local t=$CACHE/$1 p l
	l="$t/usr/lib/x86_64-linux-gnu:$t/lib/x86_64-linux-gnu"
	mkdir -p "$t/wrap"
	# (Renamed into place: a run beside this one may be starting one.)
	for p in ip bridge tc; do
		printf '#!/bin/bash\nexec %s --library-path %s %s "$@"\n' \
			"$t/usr/lib64/ld-linux-x86-64.so.2" "$l" "$t/usr/sbin/$p" >"$t/wrap/.$p.$$"
		chmod +x "$t/wrap/.$p.$$"
		mv -f "$t/wrap/.$p.$$" "$t/wrap/$p"
	done
}

fetch_iproute2() { # DEST
	local dl p t l v
	dl=$(mktemp -d "$CACHE/.dl.XXXXXX")
	mkdir -p "$dl/t"
	say "downloading iproute2 and its libraries (about 10 MB, once)"
	for p in $IPROUTE2_DEBS; do
		mkdir -p "$dl/$p"
		fetch_deb "$p" "$dl/$p" || { rm -rf "$dl"; die "cannot download $p"; }
		cp -a "$dl/$p/x/." "$dl/t/"
		[ "$p" = iproute2 ] && v=$(dpkg-deb -f "$dl/$p/pkg.deb" Version)
		rm -rf "${dl:?}/$p"
	done
	t=$CACHE/$1
	l="$t/usr/lib/x86_64-linux-gnu:$t/lib/x86_64-linux-gnu"
	echo "iproute2 $v" >"$dl/t/package"
	rm -rf "${CACHE:?}/$1"
	mv "$dl/t" "$t"
	rm -rf "$dl"
	iproute2_wraps "$1"
	# Every library found, and the program runs.
	if "$t/usr/lib64/ld-linux-x86-64.so.2" --library-path "$l" --list "$t/usr/sbin/ip" | grep -q 'not found' ||
		! "$t/wrap/ip" -V >/dev/null; then
		rm -rf "${CACHE:?}/$1"
		die "$1: iproute2 $v does not run with the libraries fetched"
	fi
}

# busybox_ready: $CACHE/busybox/busybox, from the cache or fetched.
busybox_ready() {
	if [ -x "$CACHE/busybox/busybox" ]; then
		say "busybox from the cache: $(cat "$CACHE/busybox/package")"
	else
		fetch_busybox
		say "busybox: $(cat "$CACHE/busybox/package")"
	fi
}
