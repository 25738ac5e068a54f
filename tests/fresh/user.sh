#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/fresh/run.sh user, inside the fresh root (root): the README's
# "make && sudo make install" as a normal user. Root installs the build
# packages alone (Debian puts bpftool in /usr/sbin, outside a user's PATH);
# a new user builds a copy of the tree with a user's PATH and environment,
# runs the binary and `make check-install` (no root needed); then root runs
# `make install` and `make uninstall` from the user's build.
# One "ok"/"not ok" line per check and "N passed, N failed" at the end.
set -u
cd "$(dirname "$0")/../.."
. tests/install/checks.sh
U=xnuser
HOME_U=/home/$U
# What the README's "from source" line installs.
BUILD_PKGS="make gcc clang llvm pkg-config bpftool libbpf-dev libxdp-dev
libnl-3-dev libnl-route-3-dev libmicrohttpd-dev"

# shellcheck disable=SC2086
scripts/deps.sh $BUILD_PKGS || { nok "installing the build packages"; exit 1; }
useradd -m -s /bin/bash $U || { nok "useradd $U"; exit 1; }
mkdir "$HOME_U/xdpnet"
tar --exclude=./build -cf - . | tar -xf - -C "$HOME_U/xdpnet"
chown -R $U: "$HOME_U/xdpnet"
# A user's login environment: no /usr/sbin, no /sbin on PATH.
as_user() {
	runuser -u $U -- env -i HOME=$HOME_U USER=$U LOGNAME=$U LANG=C.UTF-8 \
		PATH=/usr/local/bin:/usr/bin:/bin bash -c "cd $HOME_U/xdpnet && $*"
}
no_bpftool() { ! as_user 'command -v bpftool' >/dev/null 2>&1; }
check "the user's PATH has no bpftool (Debian's is /usr/sbin/bpftool)" no_bpftool
if as_user make >/tmp/xnuser-make.log 2>&1; then
	ok "make as $U"
else
	nok "make as $U; its last lines:"
	tail -n 20 /tmp/xnuser-make.log | sed 's/^/#   /'
fi
check "no warning in the build's output" bash -c "! grep -iE 'warning|skipping' /tmp/xnuser-make.log"
check "the user's build runs: xdpnet version" as_user build/xdpnet version
check "make check-install as $U" as_user make -s check-install
check "sudo make install from the user's build" make -s -C "$HOME_U/xdpnet" install
check "/usr/local/sbin/xdpnet runs" /usr/local/sbin/xdpnet version
check "sudo make uninstall" make -s -C "$HOME_U/xdpnet" uninstall
check "nothing of it left in /usr/local" bash -c "! find /usr/local /etc/libvirt -name 'xdpnet*' 2>/dev/null | grep -q ."
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
