# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Where xdpnet must behave differently on an older kernel, checked against
# the README (sourced by tests/integration/run.sh --also FILE;
# tests/kernels/inguest.sh runs it in the Linux 6.1 guest of make
# check-kernels, and it runs on any kernel):
#   - the TC stage's hook: tcx from Linux 6.6, a clsact filter before. Seen
#     by status --json per port and, independently, by tc: a clsact port
#     has xdpnet's filter on its ingress, a tcx port no tc filter at all.
#   - the XDP stage and partial checksums from taps (guests with checksum
#     offload). Where the stage can tell tun's native buffers
#     (xdp_knows_native: the live datapath, or a kernel before 6.15) it
#     completes the checksum in place and redirects the frame; only the
#     portable datapath from 6.15 hands it to the TC stage. Two tap
#     stand-ins in xdp mode, TCP with sha256, offloads on, then checksum
#     offload on with TSO/GSO off (every data frame MTU-sized with a
#     partial checksum). The data must arrive intact, the receivers must
#     count no checksum errors, and the XDP stage's share must show in
#     xdp_redirect (> 0 with offloads on, >= 90% of the frames with TSO/GSO
#     off) with xdp_defer_csum below 10%; where it cannot tell,
#     xdp_defer_csum must take >= 50% of the frames with TSO/GSO off.

# csum_errors NS: TCP and UDP checksum errors the namespace's stack counted.
csum_errors() {
	nsx "$1" cat /proc/net/snmp | awk '
		/^Tcp:/ && !t { for (i = 1; i <= NF; i++) h[i] = $i; t = 1; next }
		/^Tcp:/ { for (i = 1; i <= NF; i++) if (h[i] == "InCsumErrors") s += $i }
		/^Udp:/ && !u { for (i = 1; i <= NF; i++) g[i] = $i; u = 1; next }
		/^Udp:/ { for (i = 1; i <= NF; i++) if (g[i] == "InCsumErrors") s += $i }
		END { print s + 0 }'
}

degrade_hook() {
	local want p got filt st=0
	want=$(expect_hook)
	echo "Linux $(uname -r): the README promises $want"
	for p in "${PORTS[@]}"; do
		got=$(xn status "$BR" --json | jq -r --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | .hook')
		filt=$(nsx "$SW" tc filter show dev "$p" ingress)
		echo "$p: status hook '$got'; tc filter show dev $p ingress: ${filt:-(none)}"
		[ "$got" = "$want" ] || { echo "FAIL: $p: hook '$got', want '$want'"; st=1; }
		if [ "$want" = clsact ]; then
			echo "$filt" | grep -q 'xdpnet_tc' || { echo "FAIL: $p: no xdpnet filter on clsact ingress"; st=1; }
		elif [ -n "$filt" ]; then
			echo "FAIL: $p: a tc filter on a tcx port"; st=1
		fi
	done
	return $st
}

# degrade_cell S_TX S_TSO S_GSO: TCP 1->2 between tap stand-ins, xdp mode.
D_CSUM0=0
degrade_cell() {
	D_CSUM0=$(($(csum_errors "$(g_ns 1)") + $(csum_errors "$(g_ns 2)")))
	cell_xfer "$1" "$2" "$3" on
}

# degrade_share MIN_PERCENT: the XDP stage's share of the last cell.
degrade_share() {
	local min=$1 csum defer st=0
	csum=$(($(csum_errors "$(g_ns 1)") + $(csum_errors "$(g_ns 2)") - D_CSUM0))
	defer=$(echo "$M_DEFER" | grep -o 'xdp_defer_csum=[0-9]*' | cut -d= -f2)
	defer=${defer:-0}
	echo "frames received $M_RX: xdp_redirect $M_XDP, tc_redirect $M_TC, xdp_defer_csum $defer; receivers' checksum errors +$csum"
	[ "$M_RX" -gt 0 ] || { echo "FAIL: nothing received"; return 1; }
	[ "$csum" = 0 ] || { echo "FAIL: checksum errors at the receivers"; st=1; }
	expect_bypass || st=1
	if xdp_knows_native; then
		[ "$M_XDP" -gt 0 ] && [ $((M_XDP * 100)) -ge $((M_RX * min)) ] ||
			{ echo "FAIL: xdp_redirect $M_XDP: not > 0 and >= $min% of $M_RX"; st=1; }
		[ $((defer * 10)) -lt "$M_RX" ] ||
			{ echo "FAIL: xdp_defer_csum $defer: partial checksums were handed to TC"; st=1; }
		echo "this kernel: the XDP stage completed the partial checksums ($((M_XDP * 100 / M_RX))% in xdp_redirect)"
	elif [ "$min" -gt 1 ] && [ $((defer * 2)) -lt "$M_RX" ]; then
		echo "FAIL: the portable datapath: xdp_defer_csum $defer below 50% of $M_RX"; st=1
	fi
	return $st
}

section_degrade() {
	local L="degrade ($(uname -r))"
	section "$L"
	if ! check "$L: tap topology up" topo_up tap; then
		topo_down
		return
	fi
	if check "$L: attach --mode xdp" do_attach xdp; then
		check "$L: TC stage hooked with $(expect_hook) on every port (status, tc)" degrade_hook
		check "$L: offloads on: tcp $((CELL / MB)) MB sha256 1->2" degrade_cell on on on
		check "$L: offloads on: XDP stage's share in xdp_redirect, no checksum errors" degrade_share 1
		note "offloads on: $(grep -m1 '^frames received' "$CUR_LOG")"
		check "$L: tx csum on, tso/gso off: tcp $((CELL / MB)) MB sha256 1->2" degrade_cell on off off
		check "$L: tx csum on, tso/gso off: the XDP stage completed the partial checksums (>= 90%), or TC took them where it cannot tell" degrade_share 90
		grep -E '^(frames received|this kernel)' "$CUR_LOG" | sed 's|^|# tso/gso off: |'
		set_offloads "$(g_ns 1)" on on on >/dev/null 2>&1
		check "$L: detach" do_detach
	fi
	topo_down
}

[ "$NO_CLI" = 0 ] && section_degrade
