# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash disable=SC2034
# Shared by tests/libvirt/hook.sh and live.sh: TAP-style results, stub
# commands, and running contrib/libvirt-hook exactly as libvirtd does.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HOOK=$ROOT/contrib/libvirt-hook
XML=$ROOT/tests/libvirt/xml
pass=0 fail=0

ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
check() { # DESCRIPTION COMMAND...: returns the command's status
	local what=$1 rc
	shift
	"$@"
	rc=$?
	if [ "$rc" = 0 ]; then ok "$what"; else nok "$what"; fi
	return "$rc"
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# helps ERE: xdpnet's help (the overview and attach's options: since 0.3
# the overview lists commands only) matches ERE. The help is read whole
# first: under pipefail, "help | grep -q" fails at random when grep exits
# at the first match and xdpnet's later writes get SIGPIPE.
helps() {
	local text
	text=$("$XDPNET_BIN" help 2>&1; "$XDPNET_BIN" attach --help 2>&1)
	grep -qE -- "$1" <<<"$text"
}

# stubs DIR: DIR/bin/logger appends "EPOCH_NS MESSAGE" to DIR/log;
# DIR/bin/systemctl appends its arguments to DIR/systemctl and says
# "enabled" for the units listed in DIR/enabled.
stubs() {
	mkdir -p "$1/bin"
	cat >"$1/bin/logger" <<-STUB
		#!/bin/sh
		while [ \$# -gt 0 ] && [ "\$1" != -- ]; do shift; done
		shift
		echo "\$(date +%s%N) \$*" >>"$1/log"
	STUB
	cat >"$1/bin/systemctl" <<-STUB
		#!/bin/sh
		echo "\$*" >>"$1/systemctl"
		case "\$*" in
		"-q is-enabled "*) grep -qx "\$3" "$1/enabled" 2>/dev/null ;;
		esac
	STUB
	chmod +x "$1/bin/logger" "$1/bin/systemctl"
	: >"$1/log"
}

# hookdir DIR: DIR/qemu.d/xdpnet and DIR/network.d/xdpnet, the hook as
# libvirt finds it (a link to the file under test).
hookdir() {
	mkdir -p "$1/qemu.d" "$1/network.d"
	ln -sf "$HOOK" "$1/qemu.d/xdpnet"
	ln -sf "$HOOK" "$1/network.d/xdpnet"
}

# run_hook DIR DRIVER ARGS... < XML: runs DIR/DRIVER.d/xdpnet ARGS the way
# libvirtd does (virCommandAddEnvPassCommon: a clean environment with
# LC_ALL=C, PATH, HOME, USER, LOGNAME and TMPDIR; here also the HOOK_ENV
# settings), XML on stdin. Sets RC, OUT (stdout) and MS (wall time).
HOOK_ENV=()
run_hook() {
	local dir=$1 driver=$2 t0
	shift 2
	t0=$(now_ms)
	OUT=$(env -i LC_ALL=C PATH="$HOOK_PATH" HOME=/root USER=root LOGNAME=root \
		"${HOOK_ENV[@]}" "$dir/$driver.d/xdpnet" "$@")
	RC=$?
	MS=$(($(now_ms) - t0))
}
