#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside the make check-kernels guest (tests/kernels/init runs it as root,
# chrooted into the host's userland over the guest's kernel): the core of
# the integration suite, and what xdpnet must do on this kernel
# (tests/kernels/degrade.sh, in the same run). ARGS: more run.sh options;
# "--full ARGS": the whole suite, with ARGS, instead.
# The suite's logs go to $XNK_OUT/logs when a check failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
echo "# guest: Linux $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB"
if [ "${1:-}" = --full ]; then
	shift # the whole suite, with ARGS
else
	set -- --core --also tests/kernels/degrade.sh "$@"
fi
tests/integration/run.sh "$@"
rc=$?
if [ "$rc" != 0 ] && [ -n "${XNK_OUT:-}" ]; then
	mkdir -p "$XNK_OUT/logs"
	cp -r /tmp/xnt-integration.* "$XNK_OUT/logs/" 2>/dev/null
fi
exit "$rc"
