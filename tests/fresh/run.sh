#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check-fresh: the README's two commands, `make demo` and `make check`,
# each in a root that has never seen this project, the Debian package
# (deb: tests/fresh/deb.sh builds it with `make deb` from `make dist`'s
# tarball, installs, attaches, removes, purges, and runs its autopkgtest),
# and the build as a normal user (user: tests/fresh/user.sh) (root; not
# part of `make check`).
#
# A debootstrap of Debian 12 (bookworm, minbase, plus make: the README's
# commands start with it) is made once and cached as a tarball in
# /var/cache/xdpnet-fresh. Each command then gets a root of its own,
# unpacked anew from that tarball under /var/tmp, with a clean clone of this
# checkout's HEAD (what CI gets: uncommitted changes are not in it), the
# host's apt sources and resolv.conf, /proc, /sys and /dev from the host,
# and a tmpfs on /run. Nothing is pre-installed or pre-mounted there: no
# bpffs, no tracefs, no iperf3, no libvirt user, no caches of earlier runs;
# scripts/deps.sh and every suite's deps.sh must install what they need
# from nothing. The chroot shares the host's kernel, network namespace
# and mount namespace (xdpnet mounts bpffs only in the host's); its mounts
# are private, so a bpffs or tracefs mounted inside stays inside and goes
# with it.
#
# Usage: tests/fresh/run.sh [demo] [check] [deb] [user] [base]  (demo,
# check, deb and user, in that order, by default; base only makes the
# cached base root). XNF_CACHE moves the cache, XNF_KEEP=1 keeps each root
# for a look afterwards (under /var/tmp/xnfresh.*; remove it by hand).
# Prints one line per command with its wall time, the log's last lines on
# failure, and a closing "N passed, N failed" line (one per command).
set -u
set -o pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${XNF_CACHE:-/var/cache/xdpnet-fresh}
SUITE=bookworm
BASE=$CACHE/$SUITE-minbase.tar
CMDS=("$@")
[ ${#CMDS[@]} -gt 0 ] || CMDS=(demo check deb user)
for c in "${CMDS[@]}"; do
	case $c in
	demo | check | deb | user | base) ;;
	*)
		echo "tests/fresh/run.sh: unknown command '$c' (demo, check, deb, user, base)" >&2
		exit 2
		;;
	esac
done
[ "$(id -u)" = 0 ] || {
	echo "tests/fresh/run.sh: needs root (it runs debootstrap and chroot)" >&2
	exit 4
}
command -v debootstrap >/dev/null || {
	echo "tests/fresh/run.sh: debootstrap missing (make check-fresh installs it)" >&2
	exit 1
}

# The mirror the host's apt uses for bookworm (a fresh machine of this kind
# reaches only that one).
mirror() { "$ROOT/scripts/debian-mirror"; }

make_base() {
	local t0 tmp
	[ -s "$BASE" ] && return 0
	mkdir -p "$CACHE"
	tmp=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
	t0=$(date +%s)
	echo "# debootstrap $SUITE (minbase + make) from $(mirror), once"
	if ! debootstrap --variant=minbase --include=make "$SUITE" "$tmp" "$(mirror)" \
		>"$CACHE/debootstrap.log" 2>&1; then
		echo "tests/fresh/run.sh: debootstrap failed: $(tail -n 1 "$CACHE/debootstrap.log")" >&2
		rm -rf "$tmp"
		return 1
	fi
	# The apt lists and packages of the bootstrap itself go: a new root
	# starts with none.
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
	tar -C "$tmp" -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE"
	rm -rf "$tmp"
	echo "# base root made in $(($(date +%s) - t0)) s: $BASE ($(du -h "$BASE" | cut -f1))"
}

R= # the root of the command that runs
unmount_root() {
	local p m
	[ -n "$R" ] && [ -d "$R" ] || return 0
	# Processes the command left running inside (a daemon, a follower):
	# only those whose root is this one, which we started.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	# Deepest mounts first.
	for m in $(awk -v r="$R" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		umount -l "$m" 2>/dev/null
	done
}
cleanup() {
	unmount_root
	if [ -n "$R" ] && [ "${XNF_KEEP:-0}" != 1 ]; then
		rm -rf --one-file-system "${R%/root}"
	fi
	R=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass=0 fail=0
run_one() { # demo|check|deb|user
	local cmd=$1 top t0 rc secs log head what
	# deb: the package's own test (make deb, install, attach, remove,
	# purge, autopkgtest), user: the build as a normal user; not make
	# targets.
	what="make $cmd"
	case $cmd in
	deb | user) what=tests/fresh/$cmd.sh ;;
	esac
	top=$(mktemp -d /var/tmp/xnfresh.XXXXXX)
	R=$top/root
	mkdir -p "$R"
	tar -C "$R" -xf "$BASE" || return 1
	# A root directory as a machine's (the cached tarball's top came
	# from mktemp -d, 0700: apt's sandbox user and mandb could not enter).
	chmod 755 "$R"
	cp /etc/resolv.conf "$R/etc/resolv.conf"
	# The host's apt sources replace debootstrap's one-line sources.list.
	if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
		rm -f "$R/etc/apt/sources.list"
		cp /etc/apt/sources.list.d/*.sources "$R/etc/apt/sources.list.d/"
	else
		cp /etc/apt/sources.list "$R/etc/apt/sources.list"
	fi
	git clone -q --no-hardlinks "$ROOT" "$R/root/xdpnet" || return 1
	head=$(git -C "$R/root/xdpnet" log -1 --format='%h %s' | cut -c1-70)
	# / is a mount point on a real machine, and `ip netns add` relies on
	# it (mount --make-rslave /): the root becomes one.
	mount --bind "$R" "$R" && mount --make-private "$R"
	mount -t proc proc "$R/proc"
	mount --bind /sys "$R/sys" && mount --make-private "$R/sys"
	mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev"
	mount -t tmpfs -o mode=0755 tmpfs "$R/run"
	mkdir -p "$R/run/lock"
	log=$top/$cmd.log
	echo "# fresh root $R: $what on $head (log: $log)"
	t0=$(date +%s)
	env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI=true \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		chroot "$R" /bin/bash -c "cd /root/xdpnet && $what" </dev/null >"$log" 2>&1 &
	# In the background, so that a signal reaches our trap at once.
	wait $!
	rc=$?
	secs=$(($(date +%s) - t0))
	if [ "$rc" = 0 ]; then
		echo "ok - $what in a fresh root ($secs s)"
		pass=$((pass + 1))
	else
		echo "not ok - $what in a fresh root: exit $rc after $secs s; its last lines:"
		tail -n 30 "$log" | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
	# Per-target times of make check (scripts/timed prints them).
	grep '^== make .* took ' "$log" | sed 's/^/# /'
	if [ "${XNF_KEEP:-0}" = 1 ]; then
		cp "$log" "$CACHE/last-$cmd.log"
		unmount_root
		echo "# kept: $R"
		R=
	else
		cp "$log" "$CACHE/last-$cmd.log"
		cleanup
	fi
	echo "# log kept as $CACHE/last-$cmd.log"
}

make_base || exit 1
for c in "${CMDS[@]}"; do
	[ "$c" = base ] || run_one "$c"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
