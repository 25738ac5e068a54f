#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install the Debian packages that tests/vm needs on top of scripts/deps.sh
# (make check-vm runs both). QEMU is about 85 MB installed, which is why
# this list is kept apart from scripts/deps.sh. The guests' kernel and
# busybox-static are not installed: tests/vm/guest.sh downloads them with
# apt-get download into /var/cache/xdpnet-vm. Idempotent: does nothing
# when everything is there.
set -eu

exec "$(dirname "$0")/../../scripts/deps.sh" qemu-system-x86 iperf3 ethtool \
	jq iproute2 util-linux gcc libc6-dev procps
