#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What tests/libvirt/live.sh needs on top of scripts/deps.sh: libvirtd with
# its QEMU driver, virsh and QEMU. Not libvirt-daemon-system: on a systemd
# host that would start libvirtd with its default NAT network; the test
# runs its own libvirtd in private namespaces instead.
set -eu
exec "$(dirname "$0")/../../scripts/deps.sh" libvirt-daemon \
	libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 jq iproute2
