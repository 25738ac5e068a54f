# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): the offload matrix (sender tx
# checksum, TSO, GSO; receiver tx checksum), its cells, and the tap relays
# restarted with fewer virtio offloads.

set_offloads() { # NS tx tso gso
	echo "+ $1: ethtool -K eth0 tx $2 tso $3 gso $4"
	nsx "$1" ethtool -K eth0 tx "$2" tso "$3" gso "$4" 2>&1 | grep -v '^Actual changes' | sed 's/^/  /'
	nsx "$1" ethtool -k eth0 | grep -E '^(tx-checksumming|tcp-segmentation-offload|generic-segmentation-offload):'
}

cell_xfer() { # S_TX S_TSO S_GSO R_TX
	set_offloads "$(g_ns 1)" "$1" "$2" "$3"
	set_offloads "$(g_ns 2)" "$4" on on
	tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
}

# matrix LABEL CELLS...: cells are "s_tx,s_tso,s_gso,r_tx".
matrix() {
	local L=$1 c s_tx s_tso s_gso r_tx name xdp
	shift
	for c in "$@"; do
		IFS=, read -r s_tx s_tso s_gso r_tx <<<"$c"
		name="$L: offloads sender tx=$s_tx tso=$s_tso gso=$s_gso, receiver tx=$r_tx"
		check "$name: tcp $((CELL / MB)) MB sha256 1->2" cell_xfer "$s_tx" "$s_tso" "$s_gso" "$r_tx"
		xdp=
		[ "$ATTACHED_MODE" = xdp ] && [ "$TOPO" = tap ] && [ "$s_tx" = off ] && xdp=xdp
		if [ -n "$xdp" ]; then
			check "$name: took the bypass, xdp_redirect > 0" expect_bypass xdp
		else
			check "$name: took the bypass" expect_bypass
		fi
	done
	set_offloads "$(g_ns 1)" on on on >/dev/null 2>&1
	set_offloads "$(g_ns 2)" on on on >/dev/null 2>&1
}

FULL_CELLS="on,on,on,on on,on,on,off on,off,on,on on,off,on,off on,on,off,on on,off,off,off off,off,on,on off,off,on,off off,off,off,on off,off,off,off on,off,off,on on,on,off,off"
NOTSO_CELLS="on,off,on,on on,off,off,off off,off,on,on off,off,off,off"
NOCSUM_CELLS="off,off,on,off off,off,off,off"
if [ "$QUICK" = 1 ]; then
	FULL_CELLS="on,on,on,on on,off,off,off off,off,on,on off,off,off,off"
	NOTSO_CELLS="on,off,on,on off,off,on,off"
	NOCSUM_CELLS="off,off,on,off"
fi

relays_variant() { # FLAGS...
	relays_restart "$@" || return 1
	echo "+ xdpnet attach $BR --mode $ATTACHED_MODE (picks up the new taps)"
	xn attach "$BR" --mode "$ATTACHED_MODE" || return 1
	xn status "$BR" --json | jq -c '.bridges[0].ports[] | [.name, .ifindex, .xdp, .tc_prog_id, .xdp_prog_id]'
	local p ifi
	for p in "${PORTS[@]}"; do
		ifi=$(ip -n "$SW" -j link show "$p" | jq '.[0].ifindex')
		xn status "$BR" --json | jq -e --arg p "$p" --argjson ifi "$ifi" \
			'[.bridges[0].ports[] | select(.name == $p and .ifindex == $ifi and .tc_prog_id > 0)] | length == 1' >/dev/null ||
			{ echo "FAIL: $p (ifindex $ifi) not attached"; return 1; }
	done
	# The vanished taps are no longer listed.
	xn status "$BR" --json | jq -e --argjson n "${#PORTS[@]}" '.bridges[0].ports | length == $n' >/dev/null ||
		{ echo "FAIL: status lists more than the ${#PORTS[@]} live taps"; return 1; }
	ping_all
}
