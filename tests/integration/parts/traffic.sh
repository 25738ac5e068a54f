# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# tests/integration/run.sh (sourced): traffic between the stand-ins: ping,
# UDP and sha256-checked TCP between every ordered pair, counters and the
# witness, and the FDB the CLI shows.

ping_all() { # [ping args]
	local i j st=0
	for i in 1 2 3; do for j in 1 2 3; do
		[ $i = $j ] && continue
		ping_check "$(g_ns $i)" "$(g_ip4 $j)" "$@" || { echo "FAIL: ping $i->$j"; st=1; }
	done; done
	return $st
}

tcp_measured() { # I J ADDR BYTES
	local rc
	m_begin "$1" "$2"
	tcp_xfer "$(g_ns "$1")" "$(g_ns "$2")" "$3" "$4"
	rc=$?
	m_end "$1" "$2"
	return $rc
}

# Every ordered pair: ping v4/v6, UDP v4/v6, TCP v4 (BIG, counters and
# witness), TCP over the ULA.
pairs_tests() { # LABEL
	local L=$1 i j p
	for p in $PAIRS; do
		IFS=, read -r i j <<<"$p"
		check "$L: ping ipv4 $i->$j" ping_check "$(g_ns $i)" "$(g_ip4 $j)"
		check "$L: ping ipv6 link-local $i->$j" ping_check "$(g_ns $i)" "$(g_ll $j)"
		check "$L: udp ipv4 $i->$j (payload digests, echoed)" \
			udp_xfer "$(g_ns $i)" "$(g_ns $j)" "$(g_ip4 $j)"
		check "$L: udp ipv6 link-local $i->$j (payload digests, echoed)" \
			udp_xfer "$(g_ns $i)" "$(g_ns $j)" "$(g_ll $j)" 40 40,200,1000,1400,1452,3000,8000
		check "$L: tcp ipv4 $((BIG / MB)) MB sha256 $i->$j" \
			tcp_measured $i $j "$(g_ip4 $j)" "$BIG"
		check "$L: tcp ipv4 $i->$j took the bypass (counters, witness)" expect_bypass
		check "$L: tcp ipv6 ULA $((CELL / MB)) MB sha256 $i->$j" \
			tcp_xfer "$(g_ns $i)" "$(g_ns $j)" "$(g_ip6 $j)" "$CELL"
	done
}

fdb_check() {
	local f=$WORK/fdb.json i mac p
	xn fdb "$BR" --json >"$f" || { cat "$f"; return 1; }
	jq -c '.entries[]' "$f"
	jq -e --arg br "$BR" '.bridge == $br' "$f" >/dev/null || return 1
	for i in 1 2 3; do
		mac=$(g_mac $i)
		p=$(g_port $i)
		jq -e --arg m "$mac" --arg p "$p" '[.entries[] | select(.mac == $m)] |
			length >= 1 and (.[0] | .port == $p and .vlan == 0 and
			(.flags - ["seeded"] == []))' "$f" >/dev/null ||
			{ echo "FAIL: $mac not on $p"; return 1; }
	done
}
