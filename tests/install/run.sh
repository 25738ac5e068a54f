#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make install` into scratch DESTDIRs (no root needed): exactly the
# expected files, modes and paths, for PREFIX=/usr/local (the default) and
# PREFIX=/usr (units where systemd's pkg-config says); the man page's
# FILES name the installed paths; the unit passes systemd-analyze verify;
# `make uninstall` removes every file and every folder it made. Needs build/xdpnet (make check-install builds it).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d /tmp/xninst.XXXXXX)
trap 'rm -rf "$D"' EXIT
. "$ROOT/tests/install/checks.sh"

# files DIR: every file and link under DIR, as "MODE /path".
files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%m /%P\n' | sort -k2); }

for prefix in /usr/local /usr; do
	dest=$D/${prefix//\//_}
	if ! make -s -C "$ROOT" install DESTDIR="$dest" PREFIX="$prefix" >"$D/make.log" 2>&1; then
		nok "make install PREFIX=$prefix"
		cat "$D/make.log"
		continue
	fi
	# The unit directory as systemd's pkg-config gives it for this
	# prefix (the Makefile's rule), else PREFIX/lib/systemd/system.
	if [ "$prefix" = /usr ]; then
		ulib=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
	else
		ulib=$(pkg-config --define-variable=prefix="$prefix" \
			--define-variable=root_prefix="$prefix" \
			--variable=systemdsystemunitdir systemd 2>/dev/null)
	fi
	ulib=${ulib:-$prefix/lib/systemd/system}
	echo "# PREFIX=$prefix: units in $ulib"
	expected="755 /etc/libvirt/hooks/network.d/xdpnet
755 /etc/libvirt/hooks/qemu.d/xdpnet
644 $ulib/xdpnet-exporter.service
644 $ulib/xdpnet@.service
755 $prefix/sbin/xdpnet
644 $prefix/share/bash-completion/completions/xdpnet
644 $prefix/share/man/man8/xdpnet.8"
	got=$(files "$dest")
	if [ "$got" = "$(echo "$expected" | sort -k2)" ]; then
		ok "PREFIX=$prefix installs exactly the seven files, with their modes"
	else
		nok "PREFIX=$prefix installs exactly the seven files, with their modes"
		diff <(echo "$expected" | sort -k2) <(echo "$got") | sed 's/^/#   /'
	fi
	check "PREFIX=$prefix: no @SBINDIR@ left" \
		bash -c "! grep -rq @SBINDIR@ '$dest'"
	check "PREFIX=$prefix: the unit runs $prefix/sbin/xdpnet attach --follow %i" \
		grep -qx "ExecStart=$prefix/sbin/xdpnet attach --follow %i" "$dest$ulib/xdpnet@.service"
	check "PREFIX=$prefix: the exporter's unit runs $prefix/sbin/xdpnet exporter" \
		grep -qx "ExecStart=$prefix/sbin/xdpnet exporter --listen 127.0.0.1:9435" \
		"$dest$ulib/xdpnet-exporter.service"
	for h in qemu.d network.d; do
		check "PREFIX=$prefix: the $h hook calls $prefix/sbin/xdpnet" \
			grep -q "^XDPNET=\${XDPNET:-$prefix/sbin/xdpnet}" \
			"$dest/etc/libvirt/hooks/$h/xdpnet"
		check "PREFIX=$prefix: the $h hook is valid sh" sh -n "$dest/etc/libvirt/hooks/$h/xdpnet"
	done
	# The man page's FILES name this install's paths.
	man=$dest$prefix/share/man/man8/xdpnet.8
	for f in "$prefix/sbin/xdpnet" "$ulib/xdpnet@.service" "$ulib/xdpnet-exporter.service" \
		"$prefix/share/bash-completion/completions/xdpnet"; do
		check "PREFIX=$prefix: the man page's FILES name $f" \
			grep -qxF ".I $f" "$man"
	done
	if [ "$prefix" != /usr/local ]; then
		check "PREFIX=$prefix: the man page names no /usr/local path" \
			bash -c "! grep -n /usr/local '$man'"
	fi
	check "PREFIX=$prefix: the completion is valid bash" \
		bash -n "$dest$prefix/share/bash-completion/completions/xdpnet"
	check "PREFIX=$prefix: the installed binary runs" \
		"$dest$prefix/sbin/xdpnet" version
	if command -v systemd-analyze >/dev/null; then
		# An instance of the template, with its man page; verify prints
		# nothing at all for a unit without problems (it exits 0 even
		# for unknown settings, hence the check of its output).
		cp "$dest$ulib/xdpnet@.service" "$D/xdpnet@br0.service"
		cp "$dest$ulib/xdpnet-exporter.service" "$D/xdpnet-exporter.service"
		sed -i "s|^ExecStart=$prefix/sbin/xdpnet|ExecStart=$dest$prefix/sbin/xdpnet|" \
			"$D/xdpnet@br0.service" "$D/xdpnet-exporter.service"
		if out=$(MANPATH=$dest$prefix/share/man systemd-analyze verify \
			"$D/xdpnet@br0.service" "$D/xdpnet-exporter.service" 2>&1) && [ -z "$out" ]; then
			ok "PREFIX=$prefix: systemd-analyze verify of both units: clean"
		else
			nok "PREFIX=$prefix: systemd-analyze verify of both units: clean"
			echo "$out" | sed 's/^/#   /'
		fi
	else
		echo "# systemd-analyze not installed: unit not verified"
	fi
	make -s -C "$ROOT" uninstall DESTDIR="$dest" PREFIX="$prefix" >"$D/make.log" 2>&1
	left=$(files "$dest")
	if [ -z "$left" ]; then
		ok "PREFIX=$prefix: make uninstall removes every file"
	else
		nok "PREFIX=$prefix: make uninstall removes every file"
		echo "$left" | sed 's/^/#   left: /'
	fi
	# No folder is left but the prefix's own (FHS) ones, which a system
	# has anyway.
	keep=" /etc /usr $prefix $prefix/bin $prefix/sbin $prefix/lib $prefix/share $prefix/share/man $prefix/etc "
	left=$(cd "$dest" && find . -mindepth 1 -type d -printf '/%P\n' |
		while read -r d; do case $keep in *" $d "*) ;; *) echo "$d" ;; esac; done)
	if [ -z "$left" ]; then
		ok "PREFIX=$prefix: make uninstall leaves no folder of its own"
	else
		nok "PREFIX=$prefix: make uninstall leaves no folder of its own"
		echo "$left" | sed 's/^/#   left: /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
