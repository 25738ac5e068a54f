#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install the Debian packages that tests/vm needs on top of scripts/deps.sh
# (make check-vm runs both). QEMU is about 85 MB installed, which is why
# this list is kept apart from scripts/deps.sh. The guests' kernel and
# busybox-static are not installed: tests/vm/guest.sh downloads them with
# apt-get download into /var/cache/xdpnet-vm. Idempotent: does nothing
# when everything is there.
set -eu

PKGS="qemu-system-x86 iperf3 ethtool jq iproute2 util-linux gcc libc6-dev
procps"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "tests/vm/deps.sh: missing packages:$missing; run as root (sudo make check-vm)" >&2
	exit 1
fi
echo "tests/vm/deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
