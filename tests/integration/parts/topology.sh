# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh, sections veth and tap (sourced): one topology
# through the plain bridge, then attached in each mode: traffic, the
# offload matrix, a new port, detach; then keep-alive and attach/detach
# during a transfer.

section_topology() { # veth|tap
	local T=$1 mode L ids
	section "$T topology"
	if ! check "$T: topology up (switch $SW, bridge $BR, 3 stand-ins)" topo_up "$T"; then
		topo_down
		return
	fi
	check "$T: topology as expected" topo_check
	check "$T bridge: ping ipv4 all pairs" ping_all
	check "$T bridge: tcp ipv4 $((BIG / MB)) MB sha256 1->2" tcp_measured 1 2 "$(g_ip4 2)" "$BIG"
	check "$T bridge: witness sees the bridge forward it all (>= 90%)" expect_bridged
	check "$T bridge: udp ipv6 ULA 2->3" udp_xfer "$(g_ns 2)" "$(g_ns 3)" "$(g_ip6 3)"
	[ "$NO_CLI" = 1 ] && { topo_down; return; }

	for mode in $MODES; do
		L="$T $mode"
		section "$L"
		if ! check "$L: attach" do_attach "$mode"; then
			continue
		fi
		check "$L: status --json describes the attachment" status_check "$mode"
		check "$L: attach again changes nothing and says so" attach_again "$mode"
		pairs_tests "$L"
		check "$L: fdb --json maps each guest to its port" fdb_check
		if [ "$T" = veth ]; then
			matrix "$L" $FULL_CELLS
		else
			matrix "$L [virtio csum+tso]" $FULL_CELLS
			if check "$L: relays restarted --no-tso, attach picks up the new taps" relays_variant --no-tso; then
				matrix "$L [virtio --no-tso]" $NOTSO_CELLS
			fi
			if check "$L: relays restarted --no-csum, attach picks up the new taps" relays_variant --no-csum; then
				matrix "$L [virtio --no-csum]" $NOCSUM_CELLS
			fi
			check "$L: relays restarted with full offloads" relays_variant
		fi
		[ "$T" = veth ] && [ "$mode" = tc ] && [ "$CORE" = 0 ] && add_port_test "$L"
		ids=$(prog_ids)
		check "$L: detach" do_detach
		check "$L: detach left nothing (pins, XDP, tc, programs $(echo $ids))" nothing_left $ids
		check "$L: after detach: ping ipv4 all pairs" ping_all
		check "$L: after detach: tcp ipv4 $((CELL / MB)) MB sha256 1->2" tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
		check "$L: after detach: witness sees the bridge forward it all again" expect_bridged
		[ -e /run/netns/xnt-v4 ] && remove_4th
	done

	for mode in $MODES; do
		[ "$CORE" = 1 ] && break
		L="$T $mode"
		section "$L keep-alive"
		check "$L keep-alive: bridge FDB keeps the guests through ${KA_SECS} s of bypassed traffic (ageing 5 s)" \
			keepalive "$L" "$mode"
		keepalive_restore

		section "$L during a transfer"
		check "$L: attach during a paced transfer ($((MID_RATE / MB)) MB/s)" mid_xfer attach "$mode"
		check "$L: transfer across the attach intact (sha256)" mid_result
		check "$L: detach during a paced transfer ($((MID_RATE / MB)) MB/s)" mid_xfer detach "$mode"
		check "$L: transfer across the detach intact (sha256)" mid_result
		[ -n "$ATTACHED_MODE" ] && do_detach >/dev/null
	done
	topo_down
}
