#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make check-deb: what `make deb` built, without installing it (no root
# needed): exactly the expected files with their modes and owner (docs/
# with its layout, so that the README's links hold), the control fields
# (version, architecture, Depends, Suggests), the conffiles, maintainer
# scripts that start and enable nothing, and the unpacked contents: units
# and hooks that name /usr/sbin/xdpnet, a binary that runs and tells its
# version and git description.
# Usage: tests/install/deb.sh [PACKAGE.deb] (build/xdpnet_*.deb by default).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEB=${1:-}
if [ -z "$DEB" ]; then
	DEB=$(ls "$ROOT"/build/xdpnet_*.deb 2>/dev/null | head -n 1)
fi
[ -n "$DEB" ] && [ -f "$DEB" ] || {
	echo "tests/install/deb.sh: no package (make deb builds build/xdpnet_*.deb)" >&2
	exit 1
}
D=$(mktemp -d /tmp/xndeb.XXXXXX)
trap 'rm -rf "$D"' EXIT
. "$ROOT/tests/install/checks.sh"
field() { dpkg-deb -f "$DEB" "$1"; }

# Every file and link (not directories) as "MODE OWNER /path".
got=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print $1, $2, p }' | sort -k3)
# The unit directory: systemd's, as the build saw it.
ulib=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
ulib=${ulib:-/lib/systemd/system}
# docs/ keeps its layout, uncompressed where links name the files (.md,
# .json, .csv, the man page's source; dh_compress leaves .png alone).
docs=$(cd "$ROOT" && find docs -type f | sort | while IFS= read -r f; do
	echo "-rw-r--r-- root/root /usr/share/doc/xdpnet/$f"
done)
expected="-rwxr-xr-x root/root /etc/libvirt/hooks/network.d/xdpnet
-rwxr-xr-x root/root /etc/libvirt/hooks/qemu.d/xdpnet
-rw-r--r-- root/root $ulib/xdpnet-exporter.service
-rw-r--r-- root/root $ulib/xdpnet@.service
-rwxr-xr-x root/root /usr/sbin/xdpnet
-rw-r--r-- root/root /usr/share/bash-completion/completions/xdpnet
-rw-r--r-- root/root /usr/share/doc/xdpnet/NEWS.gz
-rw-r--r-- root/root /usr/share/doc/xdpnet/README.Debian
-rw-r--r-- root/root /usr/share/doc/xdpnet/README.md
-rw-r--r-- root/root /usr/share/doc/xdpnet/changelog.Debian.gz
-rw-r--r-- root/root /usr/share/doc/xdpnet/copyright
-rw-r--r-- root/root /usr/share/doc/xdpnet/examples/xdpnet.rules.yml
$docs
-rw-r--r-- root/root /usr/share/lintian/overrides/xdpnet
-rw-r--r-- root/root /usr/share/man/man8/xdpnet.8.gz"
if [ "$got" = "$(echo "$expected" | sort -k3)" ]; then
	ok "dpkg-deb -c: exactly the $(echo "$expected" | wc -l) expected files, modes and owner"
else
	nok "dpkg-deb -c: exactly the $(echo "$expected" | wc -l) expected files, modes and owner"
	diff <(echo "$expected" | sort -k3) <(echo "$got") | sed 's/^/#   /'
fi

version=$(sed -n 's/^#define XDPNET_VERSION_STR "\(.*\)"$/\1/p' "$ROOT/include/xdpnet.h")
check "Package: xdpnet" [ "$(field Package)" = xdpnet ]
check "Version: $version-REV (include/xdpnet.h)" \
	bash -c "[[ '$(field Version)' == '$version'-* ]]"
check "Section: net, Priority: optional" \
	[ "$(field Section) $(field Priority)" = "net optional" ]
check "Architecture: amd64 (vmlinux.h is x86-64's)" [ "$(field Architecture)" = amd64 ]
check "Homepage: set" [ -n "$(field Homepage)" ]
depends=$(field Depends)
echo "# Depends: $depends"
for p in iptables nftables libbpf1 libxdp1 libnl-3-200 libnl-route-3-200 libmicrohttpd12 libc6; do
	check "Depends names $p" grep -Eq "(^|, )$p( |,|$)" <<<"$depends"
done
suggests=$(field Suggests)
for p in libvirt-daemon prometheus; do
	check "Suggests names $p" grep -Eq "(^|, )$p( |,|$)" <<<"$suggests"
done

dpkg-deb -e "$DEB" "$D/control"
check "conffiles: the two libvirt hooks" [ "$(sort "$D/control/conffiles")" = \
	"$(printf '%s\n' /etc/libvirt/hooks/network.d/xdpnet /etc/libvirt/hooks/qemu.d/xdpnet)" ]
for s in preinst postinst prerm postrm; do
	[ -e "$D/control/$s" ] || continue
	check "$s is valid sh" sh -n "$D/control/$s"
done
# Nothing starts or enables at install: no start, no enable but the
# re-enable of what the admin had enabled before (deb-systemd-helper's
# was-enabled), no restart but try-restart (only what runs).
check "postinst starts nothing" \
	bash -c "! grep -Eq 'deb-systemd-invoke +(start|restart)|systemctl +[^ ]*(start|enable)|invoke-rc.d' '$D/control/postinst'"
check "postinst enables only what was enabled" \
	bash -c "[ \"\$(grep -c 'deb-systemd-helper enable' '$D/control/postinst')\" = \"\$(grep -c 'was-enabled' '$D/control/postinst')\" ]"
check "prerm stops the exporter and the followers on removal" \
	grep -q "deb-systemd-invoke stop xdpnet-exporter.service 'xdpnet@\*.service'" "$D/control/prerm"
check "postrm cleans up on purge" grep -q 'rm -rf "\$RUN_DIR"' "$D/control/postrm"

dpkg-deb -x "$DEB" "$D/root"
check "the follower's unit runs /usr/sbin/xdpnet attach --follow %i" \
	grep -qx "ExecStart=/usr/sbin/xdpnet attach --follow %i" "$D/root$ulib/xdpnet@.service"
check "the exporter's unit runs /usr/sbin/xdpnet exporter" \
	grep -qx "ExecStart=/usr/sbin/xdpnet exporter --listen 127.0.0.1:9435" \
	"$D/root$ulib/xdpnet-exporter.service"
check "no @SBINDIR@ left" bash -c "! grep -rq @SBINDIR@ '$D/root'"
for h in qemu.d network.d; do
	check "the $h hook calls /usr/sbin/xdpnet" \
		grep -q '^XDPNET=${XDPNET:-/usr/sbin/xdpnet}' "$D/root/etc/libvirt/hooks/$h/xdpnet"
done
check "the man page is xdpnet(8)" bash -c "zcat '$D/root/usr/share/man/man8/xdpnet.8.gz' | grep -q '^\.TH XDPNET 8'"
check "the man page's FILES name $ulib/xdpnet@.service, no /usr/local path" \
	bash -c "zcat '$D/root/usr/share/man/man8/xdpnet.8.gz' | grep -qx '.I $ulib/xdpnet@.service' &&
		! zcat '$D/root/usr/share/man/man8/xdpnet.8.gz' | grep -q /usr/local"
# The README's links to docs/ lead to files of the package.
missing=$(grep -o '](docs/[^)#]*' "$ROOT/README.md" | sed 's/^](//' | sort -u | while IFS= read -r f; do
	[ -e "$D/root/usr/share/doc/xdpnet/$f" ] || echo "$f"
done)
check "every docs/ file the README links is in /usr/share/doc/xdpnet${missing:+ (missing: $missing)}" [ -z "$missing" ]
if out=$("$D/root/usr/sbin/xdpnet" version 2>&1); then
	ok "the packaged binary runs: $(echo "$out" | head -n 1)"
	check "it says version $version" grep -q "$version" <<<"$out"
	if [ -e "$ROOT/.git" ] && command -v git >/dev/null; then
		check "it carries the tree's git description, not 'unknown'" \
			bash -c "! grep -qw unknown <<<'$out'"
	fi
else
	nok "the packaged binary runs: $out"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
