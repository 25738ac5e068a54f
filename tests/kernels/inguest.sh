#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside the make check-kernels guest (tests/kernels/init runs it as root,
# chrooted into the host's userland over the guest's kernel):
#   - the BPF program tests (build/tests/bpf_prog_test: the rows that need
#     what the development kernel lacks, VLAN filtering, run here);
#   - the core of the integration suite, and what xdpnet must do on this
#     kernel (tests/kernels/degrade.sh, in the same run). ARGS: more
#     run.sh options; "--full ARGS": the whole suite, with ARGS, instead;
#   - semantics.sh's VLAN cases (VLAN filtering: membership, tagging,
#     pvid, per-VLAN state, 802.1ad, a VLAN change under traffic), each on
#     the plain bridge first; XNK_SEM_ARGS: more semantics.sh options;
#   - the differential fuzzer's VLAN-filtering scenarios (tests/fuzz:
#     seeds XNK_FUZZ_SEEDS, default 1-4, each plain and attached);
#   - the hook-sharing cases: semantics.sh's xdpfilter case on taps, with
#     the dispatcher (the default there; XNK_SHARE_ARGS: other semantics.sh options,
#     e.g. "--cases tcx,tcxegress,xdpfilter"), xdp-filter beside xdpnet in
#     libxdp's dispatcher, which these kernels run; tests/kernels/
#     mp-detach.sh (what detach and a deleted tap leave loaded); with
#     XNK_SHARE_UPGRADE=1, upgrade.sh --xdp-filter (in the dispatcher);
#   - vhost-net, the way a KVM guest's frames enter and leave its tap:
#     tests/integration/vhost.sh (xnb_vhost "VMs": checksums, digests,
#     GSO, multi-queue, the batched XDP path counted), then the core of
#     the integration suite and semantics.sh's tap rules (egress MTU,
#     GSO, tc on a port, VXLAN noudpcsum) with tap stand-ins whose relay
#     drives the host tap through vhost-net (RELAY=tests/tools/vhost_relay);
#   - bench: scripts/bench --topology vhost --smoke (tests/bench/
#     test_vhost_smoke.py: every path's cells valid, small frames through
#     tun_xdp_one(); its results in $XNK_OUT/bench-vhost);
#   - with XNK_SELFTESTS_DIR (make check-kernels-full), the kernel's own
#     tests that build a bridge, plain and with xdpnet (tests/kernels/
#     selftests.sh), with the iproute2 in XNK_SELFTESTS_PATH first in PATH.
# XNK_PARTS: only these of "bpf core vlan fuzz share vhost bench selftests" (default:
# all).
# The suites' logs go to $XNK_OUT/logs when a check failed. Exit 0 only
# when every part passed.
set -u
cd "$(dirname "$0")/../.." || exit 1
echo "# guest: Linux $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB"
st=0
PARTS=" ${XNK_PARTS:-bpf core vlan fuzz share vhost bench selftests} "
part() { [[ "$PARTS" == *" $1 "* ]] || { echo "# --- $2: not run (XNK_PARTS)"; return 1; }; }
if part bpf tests/bpf; then
	echo "# --- tests/bpf"
	build/tests/bpf_prog_test || st=1
fi
if [ "${1:-}" = --full ]; then
	shift # the whole suite, with ARGS
else
	set -- --core --also tests/kernels/degrade.sh "$@"
fi
if part core tests/integration/run.sh; then
	echo "# --- tests/integration/run.sh $*"
	tests/integration/run.sh "$@" || st=1
fi
if part vlan "semantics.sh's VLAN cases"; then
	echo "# --- tests/integration/semantics.sh (VLAN cases)"
	# shellcheck disable=SC2086
	tests/integration/semantics.sh --cases vlan,vlanstate,qinq,vtunnel,vlanchange,vlandev ${XNK_SEM_ARGS:-} || st=1
fi
if part fuzz "the differential fuzzer's VLAN scenarios"; then
	[ -n "${XNK_FUZZ_SEEDS:-}" ] || XNK_FUZZ_SEEDS=1-4
	echo "# --- tests/fuzz/fuzz.py check $XNK_FUZZ_SEEDS --vlan"
	/usr/bin/python3 tests/fuzz/fuzz.py check "$XNK_FUZZ_SEEDS" --vlan \
		--out "${XNK_OUT:-/tmp}/fuzz" || st=1
fi
if part share "the hook-sharing cases"; then
	echo "# --- tests/integration/semantics.sh ${XNK_SHARE_ARGS:=--cases xdpfilter --kinds tap}"
	# shellcheck disable=SC2086
	tests/integration/semantics.sh $XNK_SHARE_ARGS || st=1
	echo "# --- tests/kernels/mp-detach.sh"
	tests/kernels/mp-detach.sh || st=1
	if [ "${XNK_SHARE_UPGRADE:-0}" = 1 ]; then
		echo "# --- tests/integration/upgrade.sh --xdp-filter"
		tests/integration/upgrade.sh --xdp-filter || st=1
	fi
fi
if part vhost "the vhost-net part"; then
	echo "# --- tests/integration/vhost.sh"
	tests/integration/vhost.sh || st=1
	echo "# --- tests/integration/run.sh --core --only tap, tap stand-ins through vhost-net"
	RELAY=$PWD/tests/tools/vhost_relay tests/integration/run.sh --core --only tap \
		--also tests/kernels/degrade.sh || st=1
	echo "# --- tests/integration/semantics.sh, tap rules, tap stand-ins through vhost-net"
	RELAY=$PWD/tests/tools/vhost_relay tests/integration/semantics.sh --kinds tap \
		--cases mtu,gso,tc,tunnel || st=1
fi
if part bench "the vhost benchmark's smoke run"; then
	echo "# --- scripts/bench --topology vhost --smoke (under TCG: the paths work, no figure is performance)"
	XNB_BENCH_SMOKE=require XNB_BENCH_EMULATED=1 XNB_BENCH_OUT=${XNK_OUT:+$XNK_OUT/bench-vhost} \
		/usr/bin/python3 tests/bench/run_tests.py test_vhost_smoke.py || st=1
fi
if [ -n "${XNK_SELFTESTS_DIR:-}" ] && part selftests tests/kernels/selftests.sh; then
	echo "# --- tests/kernels/selftests.sh"
	# shellcheck disable=SC2086
	PATH=${XNK_SELFTESTS_PATH:+$XNK_SELFTESTS_PATH:}$PATH \
		XNST_LOGS=${XNK_OUT:+$XNK_OUT/logs/selftests} tests/kernels/selftests.sh "$XNK_SELFTESTS_DIR" \
		${XNK_SELFTESTS_ONLY:-} || st=1
fi
if [ -n "${XNK_SCRIPT:-}" ]; then
	echo "# --- $XNK_SCRIPT"
	bash "$XNK_SCRIPT" || st=1
fi
if [ "$st" != 0 ] && [ -n "${XNK_OUT:-}" ]; then
	mkdir -p "$XNK_OUT/logs"
	cp -r /tmp/xnt-integration.* "$XNK_OUT/logs/" 2>/dev/null
fi
exit "$st"
