#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Adversarial tests of the bridge's rules (issue 8): for every rule xdpnet
# honours, a VM tries to get around it, first on the plain bridge (the rule
# must hold) and then through xdpnet, in both modes and with both datapath
# builds (the live one, and XDPNET_DATAPATH=portable), on veth and on tap
# stand-ins (tests/tools/vnet_relay). The verdict is what arrives in which
# namespace (tests/tools/xnt_frames counts the test's frames there);
# xdpnet's counters are only shown.
#
# Cases (names for --cases):
#   flood     24,000 random source MACs from each CPU, then frames with the
#             host's MAC as source: the host stays reachable, no host-bound
#             frame reaches the attacker, a TCP flow between two other VMs
#             stays intact (sha256)
#   vxlan     a MAC moves to a VXLAN port (second namespace) while its old
#             port exists: after a gratuitous ARP, frames reach the new
#             place within 1 s, with no follower (--no-follow)
#   stp       STP states 0-2 (disabled, listening, learning) on three
#             ports, set before attach and changed after: no frame into or
#             out of them (the bridge's forward delay is long: with STP off
#             the kernel still advances such a state after it)
#   blocking  state 4 (blocking), which STP off does not keep: STP on and a
#             real loop, once (its links are veths whatever the stand-ins)
#   isolation isolated pair gets nothing, isolated to non-isolated works
#             (before and after attach)
#   backup    a port with a backup port loses its carrier: frames for its
#             static entry go to the backup, all of them (before attach,
#             with and without a follower, and after)
#   neigh     proxy_arp, proxy_arp_wifi, neigh_suppress: a unicast ARP
#             request gets the bridge's own reply besides the owner's
#             (before attach, with and without a follower, and after)
#   moved     a port moves straight to another bridge under bypassed
#             traffic: nothing passes between it and the bridge's VMs
#             (after attach; with and without a follower)
#   locked    a locked port passes only sources the bridge has on it (same)
#   learning  learning off: a VM sending with another's MAC steals nothing
#             (same)
#   static    a sticky static entry is not taken over; a plain static one
#             moves exactly as the bridge moves it
#   dynsticky a "dynamic sticky" entry under bypassed traffic for three
#             times a 3 s ageing: the bridge keeps it, sticky, all along;
#             then a VM sending with its MAC does not take it over
#   notify    a static entry with activity notification, under bypassed
#             traffic for three times a 3 s ageing: the bridge never
#             reports it inactive; silent, it does within 10 s
#   fdbrace   one MAC sent from two ports on both CPUs at once, with
#             `bridge fdb replace` between (a shared or migrating MAC):
#             after each round, frames to it from a third stand-in reach
#             the port the bridge's FDB names (xdpnet's copy has it
#             within 2 s), never the other
#   mtu       egress MTU 1280: 1400-byte DF frames (and 1299) never arrive;
#             with br_netfilter on, exactly what the bridge delivers
#   gso       TCP with offloads on: GSO frames whose segments fit the egress
#             MTU are bypassed, the others left to the bridge (which
#             forwards GSO frames whatever their segments)
#   ageing    ageing_time 2.5 s: a silent source ages out of the bridge and of
#             xdpnet's copy, and frames to it flood; an active one stays
#   silence   a source silent for 8.5 s of a 10 s ageing time is still
#             known to the bridge: frames to it never flood
#   nfswitch  br_netfilter switched on (bridge-nf-call-iptables=1) under a
#             bypassed flow, FORWARD DROP: from 1 s after, nothing passes
#   tcnow     a tc drop filter on a port's ingress, or a qdisc and a
#             filter on ports' egress, after attach, frames sent at once:
#             none gets through (live variants; tcx kernels)
#   nfcheck   br_netfilter on, no rule that drops: IPv4 frames with a
#             header checksum that does not add up (dropped), with bytes
#             beyond the packet (trimmed), a lone first fragment with
#             conntrack in use (never delivered): as on the bridge
#   shortage  ageing_time 10 cs and 2 cs, shorter than the keep-alive can
#             keep: xdpnet holds the bridge, nothing of a flow is bypassed
#   hub       ageing_time 0: every frame floods, nothing is bypassed
#   tc        tc on the ports: a filter dropping at one port's ingress, a
#             qdisc and a filter dropping at two ports' egress: nothing
#             gets through them (before and after attach)
#   promisc   a promiscuous bridge: the host sees a copy of every frame
#             the bridge forwards (before and after attach)
#   tunnel    VXLAN without outer UDP checksums, VXLAN and Geneve with them
#             (local checksum offload) between two stand-ins, TCP inside
#             with a partial checksum: arrives intact (sha256), no
#             checksum error at the receiver
#   xdprace   (taps) the target's devmap entry taken out and put back
#             in a loop under UDP with partial checksums, towards a port
#             without checksum offload: every datagram arrives, no
#             checksum error, some took the failed redirect
#   qtag      tags inside the outer tag, the checksum left to the device
#             (CHECKSUM_PARTIAL): where the tags do not parse (13 of
#             them) the bridge drops the frame, and so it stays; two, or
#             thirteen with a full checksum, arrive (veth stand-ins: a
#             packet socket with a virtio-net header)
#   tcn       STP on, a stand-in sends TCN BPDUs: during the topology
#             change (entries age after forward_delay) a bypassed flow
#             never floods to the others (before and after attach)
# Where the kernel has bridge VLAN filtering (a probe; skipped and named
# otherwise):
#   vlan      membership, tagging, pvid: frames stay in their VLAN, a VLAN
#             a port is no member of gets nothing (before and after attach)
#   vlanstate per-VLAN port state (learning, blocking): nothing in or out
#             of that VLAN there (before and after attach)
#   qinq      vlan_protocol 802.1ad: a C-tagged frame is untagged to the
#             bridge (its pvid), an S-tagged one is in its VLAN
#   vtunnel   vlan_tunnel on a port with tunnel_info for VLAN 20: frames
#             of VLAN 20 reach it untagged, as the bridge pops the tag
#             (before attach, and after)
#   vlanchange a port leaves a VLAN under traffic: frames sent once the
#             change is made (and, with xdpnet, seen: 2 s at most; the
#             time is printed) never reach the port; again with a static
#             entry for it, which the bridge keeps (it drops at egress)
# Where the kernel has 802.1Q VLAN devices (a probe; skipped and named
# otherwise):
#   vlandev   a VLAN device (VID 7) on stand-in 1's port: frames of VID 7
#             from it reach no stand-in (the device takes them), VID 8 and
#             untagged ones arrive (before attach, and after: how long the
#             follower took to hold the port is printed)
# Other programs on the ports' hooks (tests/integration/semshare.sh says
# more): tcx, tcxegress (where the kernel has tcx), xdpfilter (taps, where
# xdp-filter is installed).
#
# Output: "ok N - ..." / "not ok N - ...", then "P passed, F failed" and the
# time taken. Options:
#   --cases LIST     cases, comma separated (default: all)
#   --kinds LIST     stand-ins: veth,tap (default: both)
#   --variants LIST  attachments, MODE/BUILD[/nf] (nf: --no-follow), for
#                    every case (default: settings before attach with
#                    tc/live and xdp/portable, changes after attach with
#                    xdp/live, tc/portable and xdp/live/nf)
#   --full           all four MODE/BUILD everywhere, and tc/live/nf too
#   --keep, -v       keep the logs; more detail
# The same as environment variables: SEM_CASES, SEM_KINDS, SEM_VARIANTS.
# Every check's log ends with the time it took. Run it under xn-heavy.
set -u
. "$(dirname "$0")/lib.sh"
. "$HERE/semlib.sh"
. "$HERE/semshare.sh"

CASES=${SEM_CASES:-flood,vxlan,stp,blocking,isolation,backup,neigh,moved,locked,learning,static,dynsticky,notify,fdbrace,mtu,nfswitch,nfcheck,gso,ageing,silence,shortage,hub,tc,tcnow,promisc,tunnel,qtag,tcn,vlan,vlanstate,qinq,vtunnel,vlanchange,vlandev,tcx,tcxegress,xdpfilter}
KINDS=${SEM_KINDS:-veth,tap}
VARIANTS=${SEM_VARIANTS:-}
FULL=0
# shellcheck disable=SC2034 # OPT_SHIFT: parse_args's (lib.sh)
suite_opt() {
	case $1 in
	--cases) CASES=${2-}; OPT_SHIFT=2 ;;
	--kinds) KINDS=${2-}; OPT_SHIFT=2 ;;
	--variants) VARIANTS=${2-}; OPT_SHIFT=2 ;;
	--full) FULL=1 ;;
	*) return 1 ;;
	esac
}
parse_args "[--cases LIST] [--kinds veth,tap] [--variants LIST] [--full] [--keep] [-v]" "$@"
want() { case ",$CASES," in *",$1,"*) return 0 ;; esac; return 1; }
# Each build and each mode at least once per case: settings made before
# attach with tc/live and xdp/portable, changes after attach with xdp/live
# and tc/portable (both with the follower) and xdp/live without one (the
# live datapath must hold alone). --full: all four everywhere, and
# tc/live without a follower too.
ALL="tc/live xdp/live tc/portable xdp/portable"
BEFORE_VARIANTS="tc/live xdp/portable"
AFTER_VARIANTS="xdp/live tc/portable xdp/live/nf"
[ "$FULL" = 1 ] && BEFORE_VARIANTS=$ALL AFTER_VARIANTS="$ALL tc/live/nf xdp/live/nf"
if [ -n "$VARIANTS" ]; then
	BEFORE_VARIANTS=${VARIANTS//,/ }
	AFTER_VARIANTS=${VARIANTS//,/ }
fi
# After attach, where only a follower can tell the datapath (the egress
# port's MTU, STP state and isolation; the live build reads only the
# ingress port's): the variants with one.
AFTER_FOLLOW=$(echo "$AFTER_VARIANTS" | tr ' ' '\n' | grep -v /nf | tr '\n' ' ')
N=20 # frames per direction and check

traps_install

START=$SECONDS
elapsed() { echo $((SECONDS - START)); }
section() { echo "# --- $* ($(elapsed) s)"; }

# Where the kernel cannot load the live datapath (a probe: attach, and
# see which datapath status reports), its variants run with the portable
# one, and those without a follower (the live datapath alone) are left
# out.
LIVE_OK=
live_probe() {
	local d
	[ -n "$LIVE_OK" ] && return 0
	xn attach "$BR" --no-follow >/dev/null 2>&1 || return 1
	d=$(xn status "$BR" --json | jq -r '.bridges[0].datapath')
	xn detach "$BR" >/dev/null 2>&1
	if [ "$d" = live ]; then
		LIVE_OK=1
	else
		LIVE_OK=0
		LIVE_WHY=$(live_missing || echo "status says $d")
	fi
}
map_variants() {
	local v out=
	for v in $1; do
		if [ "$LIVE_OK" = 0 ]; then
			case $v in
			*/live/nf) continue ;;
			*/live) v=${v%/live}/portable ;;
			esac
		fi
		case " $out " in *" $v "*) ;; *) out="$out $v" ;; esac
	done
	echo "$out"
}

# run_case NAME DESC VARIANTS [ARGS]: case_NAME on the plain bridge, then
# attached as each variant says. NOBASE=1: not on the plain bridge (a
# change after attach: the same rule's "before attach" run did that).
run_case() {
	local name=$1 desc=$2 vs v t0 base=bridge
	vs=$(map_variants "$3")
	shift 3
	[ "${NOBASE:-0}" = 1 ] && base=
	for v in $base $vs; do
		t0=$EPOCHREALTIME
		check "$KIND $v: $desc" "case_$name" "$v" "$@"
		q_reset >>"$CUR_LOG" 2>&1
		echo "# took $(since "$t0") s" >>"$CUR_LOG"
	done
}

# warm VARIANT: frames 1<->2 take the bypass before a change after attach
# (so that the change is what the test exercises).
warm() {
	local v=$1 f0=$WORK/w0.json f1=$WORK/w1.json red
	[ "$v" = bridge ] && return 0
	status_json "$f0"
	tx 1 2 5 --tag 901 && tx 2 1 5 --tag 902 || return 1
	status_json "$f1"
	red=$(redirected "$v" "${VPORT[1]}" "$f0" "$f1")
	echo "warm: 1->2 redirected $red of 5"
	[ "$red" -ge 4 ] || { echo "FAIL: frames 1->2 did not take the bypass before the change"; return 1; }
}

# ---------------------------------------------------------------- stp

br_state() { # PORT STATE
	bridge -n "$SW" link set dev "$1" state "$2" || return 1
}

# States 0, 1, 2 on ports 2, 3, 4; frames 1 -> each and each -> 1.
case_stp() { # VARIANT pre|post
	local v=$1 when=$2 st=0 i
	learn_all || return 1
	if [ "$when" = pre ]; then
		br_state "${VPORT[2]}" 0 && br_state "${VPORT[3]}" 1 && br_state "${VPORT[4]}" 2 || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		br_state "${VPORT[2]}" 0 && br_state "${VPORT[3]}" 1 && br_state "${VPORT[4]}" 2 || return 1
		for i in 2 3 4; do v_settle "$v" "${VPORT[$i]}" flags "(x & PF_FWD) == 0" || st=1; done
	fi
	bridge -n "$SW" link show | grep "$Q"
	m_start || return 1
	for i in 2 3 4; do tx 1 "$i" "$N" && tx "$i" 1 "$N" || st=1; done
	m_end || st=1
	expect_eq "states of ports 2-4 after the frames" \
		"$(for i in 2 3 4; do bridge -n "$SW" -j link show dev "${VPORT[$i]}" | jq -r '.[0].state'; done | tr '\n' ' ')" \
		"disabled listening learning " || st=1
	for i in 2 3 4; do expect_at "1$i" "" && expect_at "${i}1" "" || st=1; done
	show_ctr "$v" "${VPORT[1]}" pass_state tc_redirect xdp_redirect
	show_ctr "$v" "${VPORT[2]}" pass_state tc_redirect xdp_redirect
	# Control: forwarding again, the same frames arrive.
	for i in 2 3 4; do br_state "${VPORT[$i]}" 3 || st=1; done
	for i in 2 3 4; do v_settle "$v" "${VPORT[$i]}" flags "(x & PF_FWD) != 0" || st=1; done
	learn_all
	m_start || return 1
	for i in 2 3 4; do tx 1 "$i" "$N" --tag "51$i" && tx "$i" 1 "$N" --tag "5${i}1" || st=1; done
	m_end || st=1
	echo "control, all ports forwarding:"
	for i in 2 3 4; do expect_at "51$i" "$i=$N" && expect_at "5${i}1" "1=$N" || st=1; done
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- isolation

br_flag() { # PORT FLAG on|off
	bridge -n "$SW" link set dev "$1" "$2" "$3"
}

case_isolation() { # VARIANT pre|post
	local v=$1 when=$2 st=0
	learn_all || return 1
	if [ "$when" = pre ]; then
		br_flag "${VPORT[1]}" isolated on && br_flag "${VPORT[2]}" isolated on || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		br_flag "${VPORT[1]}" isolated on && br_flag "${VPORT[2]}" isolated on || return 1
		v_settle "$v" "${VPORT[1]}" flags "(x & PF_ISOLATED) != 0" &&
			v_settle "$v" "${VPORT[2]}" flags "(x & PF_ISOLATED) != 0" || st=1
	fi
	m_start || return 1
	tx 1 2 "$N" && tx 2 1 "$N" && tx 1 3 "$N" && tx 3 1 "$N" && tx 2 3 "$N" && tx 3 2 "$N" || st=1
	m_end || st=1
	expect_at 12 "" && expect_at 21 "" || st=1
	expect_at 13 "3=$N" && expect_at 31 "1=$N" && expect_at 23 "3=$N" && expect_at 32 "2=$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_isolated tc_redirect xdp_redirect
	br_flag "${VPORT[1]}" isolated off
	br_flag "${VPORT[2]}" isolated off
	v_detach "$v" || st=1
	return $st
}

# --------------------------------------------------------------- backup

# Port 2 has port 3 for backup, and a static FDB entry for stand-in 2's
# MAC (as an MLAG setup has: the bridge flushes learned entries when the
# carrier drops, and keeps static ones). Stand-in 2's carrier drops (its
# eth0 down): from that moment the bridge sends frames for MAC 2 to port
# 3, and so must everything: 1 -> 2 reaches stand-in 3, all of it. With
# the carrier back, 1 -> 2 reaches stand-in 2 again.
carrier_is() { # PORT 0|1
	local c=
	ns_sys c "$SW" "class/net/$1/carrier"
	[ "$c" = "$2" ]
}
case_backup() { # VARIANT pre|post
	local v=$1 when=$2 st=0 i
	learn_all || return 1
	bridge -n "$SW" fdb replace "${VMAC[2]}" dev "${VPORT[2]}" master static || return 1
	STATIC_LEFT="${VMAC[2]} dev ${VPORT[2]}" # q_reset's, should we fail
	if [ "$when" = pre ]; then
		bridge -n "$SW" link set dev "${VPORT[2]}" backup_port "${VPORT[3]}" || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		bridge -n "$SW" link set dev "${VPORT[2]}" backup_port "${VPORT[3]}" || return 1
		v_settle "$v" "${VPORT[2]}" flags "(x & PF_FWD) == 0" || st=1
	fi
	bridge -n "$SW" -d link show dev "${VPORT[2]}" | grep -o "backup_port [^ ]*"
	ip -n "${VNS[2]}" link set eth0 down || return 1
	wait_until 5 carrier_is "${VPORT[2]}" 0 || { echo "FAIL: ${VPORT[2]} kept its carrier"; st=1; }
	M_SKIP=2 m_start || return 1
	tx 1 2 "$N" || st=1
	m_end || st=1
	for i in 1 3 4; do
		expect_eq "tag 12 at stand-in $i" "$(m_tag "$i" 12)" "$([ "$i" = 3 ] && echo "$N" || echo 0)" || st=1
	done
	show_ctr "$v" "${VPORT[1]}" pass_state tc_redirect xdp_redirect
	ip -n "${VNS[2]}" link set eth0 up || st=1
	wait_until 5 carrier_is "${VPORT[2]}" 1 || { echo "FAIL: ${VPORT[2]} has no carrier again"; st=1; }
	wait_until 5 ports_forwarding || st=1
	m_start || return 1
	tx 1 2 "$N" || st=1
	m_end || st=1
	expect_at 12 "2=$N" || st=1
	bridge -n "$SW" link set dev "${VPORT[2]}" nobackup_port
	bridge -n "$SW" fdb del "${VMAC[2]}" dev "${VPORT[2]}" master static && STATIC_LEFT=
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- neigh

# The bridge answers an ARP request itself where a port has proxy_arp
# (the requester's port), proxy_arp_wifi or neigh_suppress (the port of
# the address's owner) and the host knows the address (a neighbour entry
# on the bridge): it forwards a unicast request (a Linux neighbour probe)
# and sends its own reply too. Stand-in 1 asks stand-in 2's MAC for 2's
# address N times: the replies 1 gets are 2's and the bridge's, 2N with
# proxy_arp and proxy_arp_wifi; with neigh_suppress, what the plain
# bridge gives (this kernel may give no reply to a unicast request).
declare -A NEIGH_PLAIN
arp_asked() { # R1 R2: port 1 received N requests, port 2 N replies
	local a=0 b=0
	rx_var a "$SW" "${VPORT[1]}" && rx_var b "$SW" "${VPORT[2]}" &&
		[ "$a" -ge $(($1 + N)) ] && [ "$b" -ge $(($2 + N)) ]
}
case_neigh() { # VARIANT FLAG pre|post
	local v=$1 flag=$2 when=$3 st=0 port=${VPORT[2]} want got r1=0 r2=0
	[ "$flag" = proxy_arp ] && port=${VPORT[1]}
	learn_all || return 1
	ip -n "$SW" neigh replace "${VIP[2]}" lladdr "${VMAC[2]}" dev "$BR" nud permanent || return 1
	NEIGH_LEFT=${VIP[2]} # q_reset's, should we fail
	if [ "$when" = pre ]; then
		ip -n "$SW" link set dev "$port" type bridge_slave "$flag" on || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		ip -n "$SW" link set dev "$port" type bridge_slave "$flag" on || return 1
	fi
	if [ "$v" != bridge ]; then
		wait_until 2 bypass_hold_is neigh || { echo "FAIL: bypass_hold is not neigh"; st=1; }
	fi
	m_start "5 ${VNS[1]} eth0 ${VPORT[1]} --arp-op 2 --dst ${VMAC[1]}" || return 1
	rx_var r1 "$SW" "${VPORT[1]}" && rx_var r2 "$SW" "${VPORT[2]}" || return 1
	nsx "${VNS[1]}" "$FR" arp eth0 --src "${VMAC[1]}" --saddr "${VIP[1]}" \
		--dst "${VMAC[2]}" --daddr "${VIP[2]}" --count "$N" >/dev/null || st=1
	# the requests in (the bridge replies as it takes each), 2's replies
	# back in (forwarded as they come): then the fence
	wait_until 5 arp_asked "$r1" "$r2" || { echo "FAIL: requests or replies missing"; st=1; }
	m_end || st=1
	got=$(m_get 5 frames)
	if [ "$flag" = neigh_suppress ]; then
		[ "$v" = bridge ] && NEIGH_PLAIN[$KIND]=$got
		want=${NEIGH_PLAIN[$KIND]-}
		[ -n "$want" ] || { echo "FAIL: no run on the plain bridge to compare with"; st=1; }
		expect_ge "ARP replies at stand-in 1 (2's own)" "$got" "$N" || st=1
	else
		want=$((2 * N))
	fi
	expect_eq "ARP replies at stand-in 1" "$got" "$want" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_hub tc_redirect xdp_redirect
	ip -n "$SW" link set dev "$port" type bridge_slave "$flag" off || st=1
	ip -n "$SW" neigh del "${VIP[2]}" dev "$BR" && NEIGH_LEFT= || st=1
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- moved

# Stand-in 2's port moves straight to another bridge (xnqob, in the same
# namespace) while 1<->2 takes the bypass: from then on nothing passes
# between 2 and the bridge's VMs, either way (frames to 2's MAC flood to
# the others: the bridge no longer knows it).
case_moved() { # VARIANT
	local v=$1 st=0 i
	learn_all || return 1
	ip -n "$SW" link add ${Q}ob type bridge && ip -n "$SW" link set ${Q}ob up || return 1
	v_attach "$v" && warm "$v" || st=1
	echo "+ ip link set ${VPORT[2]} master ${Q}ob"
	ip -n "$SW" link set "${VPORT[2]}" master ${Q}ob || st=1
	if [ "$v" != bridge ] && ! v_nf "$v"; then
		for ((i = 1; i <= 40; i++)); do
			[ "$(port_field "${VPORT[2]}" ifindex)" = -1 ] && break
			sleep 0.05
		done
		echo "${VPORT[2]} in the datapath's ports: $(port_field "${VPORT[2]}" ifindex) (-1: not)"
	fi
	m_start || st=1
	tx 1 2 "$N" && tx 2 1 "$N" && tx 3 2 "$N" && tx 2 3 "$N" && tx 1 3 "$N" || st=1
	m_end || st=1
	# 2's MAC is unknown to the bridge now: 1's and 3's frames to it
	# flood to the others, never to 2.
	expect_at 21 "" && expect_at 23 "" && expect_at 13 "3=$N" || st=1
	for i in 12 32; do
		echo "tag $i at stand-in 2: got $(m_tag 2 $i), want 0"
		[ "$(m_tag 2 $i)" = 0 ] || st=1
	done
	show_ctr "$v" "${VPORT[2]}" tc_redirect xdp_redirect
	ip -n "$SW" link set "${VPORT[2]}" master "$BR" up || st=1
	ip -n "$SW" link del ${Q}ob
	v_detach "$v" || st=1
	wait_ports_up && learn_all || st=1
	return $st
}

# ---------------------------------------------------------------- locked

case_locked() { # VARIANT pre|post
	local v=$1 when=$2 st=0
	learn_all || return 1
	if [ "$when" = post ]; then v_attach "$v" && warm "$v" || return 1; fi
	br_flag "${VPORT[1]}" locked on || return 1
	bridge -n "$SW" fdb del "${VMAC[1]}" dev "${VPORT[1]}" master || return 1
	if [ "$when" = pre ]; then
		v_attach "$v" || return 1
	else
		v_settle "$v" "${VPORT[1]}" flags "(x & PF_LOCKED) != 0" || st=1
	fi
	m_start || return 1
	# Its own MAC (no FDB entry on the port), another VM's MAC.
	tx 1 3 "$N" && tx 1 3 "$N" --src "${VMAC[4]}" --tag 143 || st=1
	m_end || st=1
	expect_at 13 "" && expect_at 143 "" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_isolated pass_src tc_redirect xdp_redirect
	echo "+ bridge fdb add ${VMAC[1]} dev ${VPORT[1]} master static (authorised)"
	bridge -n "$SW" fdb add "${VMAC[1]}" dev "${VPORT[1]}" master static || st=1
	m_start || return 1
	tx 1 3 "$N" --tag 513 && tx 3 1 "$N" || st=1
	m_end || st=1
	expect_at 513 "3=$N" && expect_at 31 "1=$N" || st=1
	bridge -n "$SW" fdb del "${VMAC[1]}" dev "${VPORT[1]}" master static
	br_flag "${VPORT[1]}" locked off
	learn_all
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- learning

case_learning() { # VARIANT pre|post
	local v=$1 when=$2 st=0
	learn_all || return 1
	if [ "$when" = pre ]; then
		br_flag "${VPORT[1]}" learning off || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		br_flag "${VPORT[1]}" learning off || return 1
		v_settle "$v" "${VPORT[1]}" flags "(x & PF_LEARNING) == 0" || st=1
	fi
	m_start || return 1
	# Stand-in 1 sends with 2's MAC; then 3 sends to 2's MAC.
	tx 1 3 "$N" --src "${VMAC[2]}" --tag 123 && tx 3 2 "$N" || st=1
	m_end || st=1
	bridge -n "$SW" fdb show br "$BR" | grep -i "${VMAC[2]}"
	expect_at 123 "3=$N" || st=1
	expect_at 32 "2=$N" || st=1
	br_flag "${VPORT[1]}" learning on
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- static

fdb_port_of() { # MAC: the port the bridge has MAC on (master entries)
	bridge -n "$SW" -j fdb show br "$BR" |
		jq -r --arg m "$1" '[.[] | select(.mac == $m and .ifname != null)] | .[0].ifname // "-"'
}

# talk_2_1 N21 RATE21 N12 RATE12 T0 MSG CHECK...: stand-in 2 sends N21
# frames to 1 (tag 21) and 1 sends N12 to 2 (tag 12) at those rates; while
# 2's frames go, CHECK every 0.25 s; each time it fails, "t=SECS since T0:
# MSG". 1 when it ever failed.
talk_2_1() {
	local n21=$1 r21=$2 n12=$3 r12=$4 t0=$5 msg=$6 miss=0 i pids=()
	shift 6
	nsx "${VNS[2]}" "$FR" send eth0 --dst "${VMAC[1]}" --src "${VMAC[2]}" --count "$n21" --rate "$r21" --tag 21 >/dev/null &
	pids+=($!)
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[2]}" --src "${VMAC[1]}" --count "$n12" --rate "$r12" --tag 12 >/dev/null &
	pids+=($!)
	for i in "${pids[@]}"; do track "$i"; done
	while kill -0 "${pids[0]}" 2>/dev/null; do
		"$@" || { echo "t=$(since "$t0"): $msg"; miss=1; }
		sleep 0.25
	done
	for i in "${pids[@]}"; do wait "$i"; untrack "$i"; done
	return $miss
}

# A "dynamic sticky" entry (bridge fdb add ... dynamic sticky) ages like a
# learned one and never moves. Made before attach; then ageing 3 s:
# stand-in 2 behind it sends to 1 and 1 to 2 for 9 s (20 frames a second
# each way): the bridge keeps the
# entry, sticky, on 2's port all along (sampled four times a second).
# Then 3 sends with 2's MAC as source: frames from 1 to that MAC still
# reach 2 only.
sticky_ok() { # the bridge has VMAC[2] on VPORT[2], dynamic and sticky
	local l
	l=$(bridge -n "$SW" fdb show br "$BR" | grep -i "^${VMAC[2]} dev ${VPORT[2]} ")
	[[ $l == *sticky* ]] && [[ $l != *static* ]] && [[ $l != *permanent* ]]
}
# The end of a case with stand-in 2's entry made by hand and a 3 s
# ageing: its counters, then the entry gone and the ageing as before.
aged_end() { # VARIANT
	local st=0
	show_ctr "$1" "${VPORT[2]}" pass_refresh tc_redirect xdp_redirect
	bridge -n "$SW" fdb del "${VMAC[2]}" dev "${VPORT[2]}" master 2>/dev/null
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	learn_all || st=1
	v_detach "$1" || st=1
	return $st
}
case_dynsticky() { # VARIANT
	local v=$1 st=0 miss=0 t0
	learn_all || return 1
	bridge -n "$SW" fdb replace "${VMAC[2]}" dev "${VPORT[2]}" master dynamic sticky || return 1
	bridge -n "$SW" fdb show br "$BR" | grep -i "${VMAC[2]}"
	sticky_ok || { echo "the bridge did not take a dynamic sticky entry"; return 1; }
	v_attach "$v" || return 1
	m_start || return 1
	# Ageing 3 s only now (attach and the counters took over 3 s on a
	# busy host, and every entry had aged out before the first frame):
	# the entries made fresh by frames to the host, which take the
	# bridge, then the ageing, whose change runs the bridge's collection
	# at once.
	learn_all || return 1
	ip -n "$SW" link set "$BR" type bridge ageing_time 300 || return 1
	sticky_ok || { echo "FAIL: the bridge lost the sticky entry before the traffic"; st=1; }
	t0=$EPOCHREALTIME
	talk_2_1 180 20 180 20 "$t0" "the bridge has no dynamic sticky ${VMAC[2]} on ${VPORT[2]}" sticky_ok || miss=1
	[ "$miss" = 0 ] || { echo "FAIL: the bridge lost the sticky entry under traffic"; st=1; }
	tx 3 1 "$N" --src "${VMAC[2]}" --tag 31 || st=1
	tx 1 2 "$N" --tag 122 || st=1
	m_end || st=1
	bridge -n "$SW" fdb show br "$BR" | grep -i "${VMAC[2]}"
	expect_at 21 "1=180" && expect_at 12 "2=180" || st=1
	echo "after 3 sent with 2's MAC, frames from 1 to it:"
	expect_at 122 "2=$N" || st=1
	aged_end "$v" || st=1
	return $st
}

# A static entry with activity notification (FRR's EVPN multihoming sets
# it): the bridge says "inactive" once no frame from its source reached it
# for an ageing time. Made before attach; ageing 3 s; 2 and 1 talk for
# 9 s (20 frames a second each way): never inactive (sampled four times a
# second). Then silent: inactive within 10 s (the check can fail).
FDBN=$HERE/fdbnotify.py
notify_is() { # STATE
	[ "$(nsx "$SW" "$PY" "$FDBN" state "$BR" "${VMAC[2]}")" = "$1" ]
}
case_notify() { # VARIANT
	local v=$1 st=0 t0
	learn_all || return 1
	nsx "$SW" "$PY" "$FDBN" add "${VPORT[2]}" "${VMAC[2]}" static || return 1
	STATIC_LEFT="${VMAC[2]} dev ${VPORT[2]}" # q_reset's, should we fail
	v_attach "$v" || return 1
	m_start || return 1
	# (ageing 3 s only now: see case_dynsticky)
	learn_all || return 1
	ip -n "$SW" link set "$BR" type bridge ageing_time 300 || return 1
	wait_until 5 notify_is active || { echo "FAIL: the entry is not active before the traffic"; st=1; }
	t0=$EPOCHREALTIME
	talk_2_1 180 20 180 20 "$t0" "the bridge does not report ${VMAC[2]} active" notify_is active ||
		{ echo "FAIL: the bridge reported a talking source inactive"; st=1; }
	m_end || st=1
	expect_at 21 "1=180" && expect_at 12 "2=180" || st=1
	t0=$EPOCHREALTIME
	if wait_until 10 notify_is inactive; then
		echo "silent: inactive after $(since "$t0")"
	else
		echo "FAIL: silent for 10 s, the entry is still $(nsx "$SW" "$PY" "$FDBN" state "$BR" "${VMAC[2]}")"
		st=1
	fi
	aged_end "$v" || st=1
	return $st
}

declare -A BASE
case_static() { # VARIANT sticky|plain
	local v=$1 how=$2 st=0 where got i
	learn_all || return 1
	bridge -n "$SW" fdb replace "${VMAC[2]}" dev "${VPORT[2]}" master static \
		$([ "$how" = sticky ] && echo sticky) || return 1
	v_attach "$v" || return 1
	m_start || return 1
	tx 1 3 "$N" --src "${VMAC[2]}" --tag 123 && tx 3 2 "$N" || st=1
	m_end || st=1
	where=$(fdb_port_of "${VMAC[2]}")
	bridge -n "$SW" fdb show br "$BR" | grep -i "${VMAC[2]}"
	echo "the bridge has ${VMAC[2]} on $where"
	if [ "$how" = sticky ]; then
		expect_eq "port of ${VMAC[2]}" "$where" "${VPORT[2]}" || st=1
		expect_at 32 "2=$N" || st=1
	else
		got="$where"
		for ((i = 1; i <= NVM; i++)); do got+=" $i=$(m_tag "$i" 32)"; done
		if [ "$v" = bridge ]; then
			BASE[static.$KIND]=$got
			echo "plain bridge: $got (xdpnet must do the same)"
		else
			expect_eq "where the bridge has it, and where frames to it went" "$got" "${BASE[static.$KIND]:-no baseline}" || st=1
		fi
	fi
	bridge -n "$SW" fdb del "${VMAC[2]}" dev "$where" master static
	learn_all
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- mtu

case_mtu() { # VARIANT pre|post [nf]
	local v=$1 when=$2 nf=${3:-} st=0 got t
	learn_all || return 1
	[ -n "$nf" ] && { br_nf 1 || return 1; }
	[ "$when" = post ] && { v_attach "$v" && warm "$v" || return 1; }
	ip -n "$SW" link set "${VPORT[2]}" mtu 1280 || return 1
	if [ "$when" = pre ]; then
		v_attach "$v" || return 1
	else
		v_settle "$v" "${VPORT[2]}" mtu "x == 1280" || st=1
	fi
	m_start || return 1
	# Over MTU + 18 (is_skb_forwardable): 1400 with DF, 1299; within: 1298
	# (the bridge forwards it without br_netfilter; xdpnet hands frames
	# over MTU + 14 to the bridge), and 1294 (MTU + 14).
	tx 1 2 "$N" --len 1400 --df --tag 112 && tx 1 2 "$N" --len 1299 --df --tag 212 &&
		tx 1 2 "$N" --len 1298 --df --tag 312 && tx 1 2 "$N" --len 1294 --df --tag 412 || st=1
	m_end || st=1
	got=
	for t in 112 212 312 412; do got+="$t:$(m_tag 2 "$t") "; done
	if [ -z "$nf" ]; then
		expect_at 112 "" && expect_at 212 "" || st=1
		expect_at 312 "2=$N" && expect_at 412 "2=$N" || st=1
	elif [ "$v" = bridge ]; then
		BASE[mtu.$KIND.$when]=$got
		echo "with br_netfilter the bridge delivers (by tag): $got (xdpnet must do the same)"
	else
		expect_eq "delivered by tag" "$got" "${BASE[mtu.$KIND.$when]:-no baseline}" || st=1
	fi
	show_ctr "$v" "${VPORT[1]}" pass_mtu xdp_defer_size tc_redirect xdp_redirect
	ip -n "$SW" link set "${VPORT[2]}" mtu 1500
	[ -n "$nf" ] && br_nf 0
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- gso

# The bridge forwards a GSO frame whatever its segments (is_skb_forwardable),
# so both transfers arrive either way; xdpnet bypasses GSO frames whose
# segments fit the egress port and leaves the others to the bridge.
case_gso() { # VARIANT
	local v=$1 st=0 f0=$WORK/g0.json f1=$WORK/g1.json f2=$WORK/g2.json d
	learn_all || return 1
	ip -n "$SW" link set "${VPORT[2]}" mtu 1280 && ip -n "${VNS[2]}" link set eth0 mtu 1280 || return 1
	v_attach "$v" || return 1
	[ "$v" = bridge ] || status_json "$f0"
	echo "receiver at MTU 1280 like its port (segments fit):"
	tcp_xfer "${VNS[1]}" "${VNS[2]}" "${VIP[2]}" $((4 * 1024 * 1024)) || st=1
	if [ "$v" != bridge ]; then
		status_json "$f1"
		d=$(($(ctr "$f1" "${VPORT[1]}" tc_redirect) - $(ctr "$f0" "${VPORT[1]}" tc_redirect)))
		echo "tc_redirect on ${VPORT[1]}: +$d"
		[ "$d" -ge 50 ] || { echo "FAIL: GSO frames whose segments fit did not take the bypass"; st=1; }
	fi
	echo "receiver at MTU 1500 (MSS 1460), its port at 1280 (segments do not fit):"
	ip -n "${VNS[2]}" link set eth0 mtu 1500
	m_start "big ${VNS[2]} eth0 ${VPORT[2]} --over 1298" || return 1
	# Whether this transfer completes is up to the sender: the bridge
	# (and so xdpnet) drops its non-GSO full-size segments (over MTU +
	# 18), and how many of those there are varies from run to run (seen
	# on the plain bridge with taps). What must hold is what happens to
	# the GSO frames, below.
	tcp_xfer "${VNS[1]}" "${VNS[2]}" "${VIP[2]}" $((1024 * 1024)) 0 6 ||
		echo "(the transfer did not complete in 6 s: not asserted)"
	m_end || st=1
	echo "frames over 1298 bytes that reached ${VNS[2]}: $(m_get big over) (the bridge forwards GSO frames whatever their segments)"
	if [ "$v" = bridge ]; then
		BASE[gso.$KIND]=$(m_get big over)
	else
		[ "$(m_get big over)" -gt 0 ] || [ "${BASE[gso.$KIND]:-0}" = 0 ] ||
			{ echo "FAIL: the bridge delivered GSO frames here, xdpnet did not"; st=1; }
		status_json "$f2"
		d=$(($(ctr "$f2" "${VPORT[1]}" pass_mtu) - $(ctr "$f1" "${VPORT[1]}" pass_mtu)))
		echo "pass_mtu on ${VPORT[1]}: +$d; tc_redirect: +$(($(ctr "$f2" "${VPORT[1]}" tc_redirect) - $(ctr "$f1" "${VPORT[1]}" tc_redirect)))"
		[ "$d" -gt 0 ] || { echo "FAIL: counters do not show GSO frames left to the bridge (pass_mtu)"; st=1; }
	fi
	ip -n "$SW" link set "${VPORT[2]}" mtu 1500
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- ageing, hub

# fdb_has WHERE MAC: the bridge (WHERE=bridge) or xdpnet's copy (xdpnet)
# has MAC.
fdb_has() {
	if [ "$1" = bridge ]; then
		bridge -n "$SW" fdb show br "$BR" | grep -qi "^$2 dev $Q"
	else
		xn fdb "$BR" --json | jq -e --arg m "$2" '[.entries[] | select(.mac == $m)] | length > 0' >/dev/null
	fi
}

# A silent source ages out (bridge and copy) and frames to it flood; an
# active source stays (the bypass keeps the bridge's entry alive).
case_ageing() { # VARIANT
	local v=$1 st=0 i t0 gone_br= gone_xn= miss=0
	ip -n "$SW" link set "$BR" type bridge ageing_time 250 || return 1
	v_attach "$v" || return 1
	learn_all || return 1
	tx 1 2 5 --tag 912 || st=1
	t0=$EPOCHREALTIME
	echo "stand-in 2 silent; ageing_time 2.5 s"
	for ((i = 0; i < 75; i++)); do
		if [ -z "$gone_br" ] && ! fdb_has bridge "${VMAC[2]}"; then gone_br=$(cs_since "$t0"); fi
		if [ "$v" != bridge ] && [ -z "$gone_xn" ] && ! fdb_has xdpnet "${VMAC[2]}"; then
			gone_xn=$(cs_since "$t0")
		fi
		[ -n "$gone_br" ] && { [ "$v" = bridge ] || [ -n "$gone_xn" ]; } && break
		sleep 0.2
	done
	echo "gone from the bridge after ${gone_br:-never} cs, from xdpnet's copy after ${gone_xn:-never} cs"
	[ -n "$gone_br" ] || { echo "FAIL: the bridge kept a silent entry for 15 s"; return 1; }
	if [ "$v" != bridge ]; then
		[ -n "$gone_xn" ] && [ $((gone_xn - gone_br)) -le 100 ] ||
			{ echo "FAIL: xdpnet's copy kept it more than 1 s longer"; st=1; }
	fi
	m_start || return 1
	tx 1 2 "$N" || st=1
	m_end || st=1
	echo "frames to the aged-out MAC flood:"
	expect_at 12 "2=$N 3=$N 4=$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_unknown tc_redirect xdp_redirect

	echo "keep-alive: stand-in 2 sends to 1 for 4 s (50/s), 1 sends to 2 (20/s)"
	# the counters first: starting them can take over 2.5 s on a busy
	# host, and the entries must be fresh when the traffic starts
	m_start || return 1
	learn_all || st=1
	talk_2_1 200 50 80 20 "$t0" "the bridge lost ${VMAC[2]}" fdb_has bridge "${VMAC[2]}" || miss=1
	m_end || st=1
	[ "$miss" = 0 ] || { echo "FAIL: the bridge forgot an active source"; st=1; }
	expect_at 21 "1=200" && expect_at 12 "2=80" || st=1
	show_ctr "$v" "${VPORT[2]}" pass_refresh tc_redirect xdp_redirect
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	v_detach "$v" || st=1
	return $st
}

# A source that falls silent is forgotten no earlier than the bridge
# would forget it, give or take one keep-alive interval (include/xdpnet.h):
# ageing 10 s, keep-alive 625 ms. Everyone is learnt; at once stand-in 2
# sends 2 s of frames to 1 and then nothing, while 1 sends to 2 until
# 8.5 s after 2's last frame. On the plain bridge 2's entry lives 10 s
# past that frame; with xdpnet at least 10 - 0.625 s. A keep-alive of a
# quarter of the ageing (2.5 s, longer than the burst: 0.2 did that)
# handed the bridge none of the burst, and the bridge forgot 2 about 10 s
# after it was learnt: 1's last frames flooded to 3 and 4.
case_silence() { # VARIANT
	local v=$1 st=0 i pids=()
	ip -n "$SW" link set "$BR" type bridge ageing_time 1000 || return 1
	v_attach "$v" || return 1
	[ "$v" = bridge ] || echo "keep-alive: $(xn status "$BR" --json | jq '.bridges[0].refresh_ms') ms"
	m_start || return 1
	learn_all || return 1
	nsx "${VNS[2]}" "$FR" send eth0 --dst "${VMAC[1]}" --src "${VMAC[2]}" --count 40 --rate 20 --tag 21 >/dev/null &
	pids+=($!)
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[2]}" --src "${VMAC[1]}" --count 210 --rate 20 --tag 12 >/dev/null &
	pids+=($!)
	for i in "${pids[@]}"; do track "$i"; done
	for i in "${pids[@]}"; do wait "$i"; untrack "$i"; done
	m_end || st=1
	echo "stand-in 2 silent for the last 8.5 s of 1's frames; nothing of them floods:"
	expect_at 21 "1=40" && expect_at 12 "2=210" || st=1
	show_ctr "$v" "${VPORT[2]}" pass_refresh tc_redirect xdp_redirect
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	v_detach "$v" || st=1
	return $st
}

# br_netfilter switched on under a bypassed flow, with FORWARD set to DROP
# (what Docker does on a libvirt host: it loads br_netfilter, whose
# bridge-nf-call-iptables is 1 in every namespace, and drops forwarding).
# No event tells anybody: the follower reads the sysctls four times a
# second. The flow's frames sent from 1 s after the switch on reach
# nobody, as on the bridge, which drops them at once.
# (HOW bridge: the bridge's own nf_call_iptables option instead, which
# raises the bridge's RTM_NEWLINK.)
case_nfswitch() { # VARIANT sysctl|bridge
	local v=$1 how=$2 st=0 f0=$WORK/nf0.json f1=$WORK/nf1.json
	br_nf 0 || return 1
	nsx "$SW" iptables -w -P FORWARD DROP || return 1
	v_attach "$v" && warm "$v" || { nsx "$SW" iptables -w -P FORWARD ACCEPT; return 1; }
	m_start || st=1
	if [ "$how" = sysctl ]; then
		br_nf 1 || st=1
	else
		ip -n "$SW" link set "$BR" type bridge nf_call_iptables 1 || st=1
	fi
	echo "+ $how: bridged frames meet iptables from $(date +%T.%N)"
	# The bound under test: frames sent once it has passed.
	sleep 1
	[ "$v" = bridge ] || status_json "$f0"
	tx 1 2 50 --tag 12 --rate 100 || st=1
	[ "$v" = bridge ] || status_json "$f1"
	m_end || st=1
	expect_at 12 "" || st=1
	if [ "$v" != bridge ]; then
		echo "bypass_hold: $(jq -r '.bridges[0].bypass_hold' "$f1")"
		expect_eq "frames 1->2 bypassed after the switch" "$(redirected "$v" "${VPORT[1]}" "$f0" "$f1")" 0 || st=1
	fi
	nsx "$SW" iptables -w -P FORWARD ACCEPT
	br_nf 0
	ip -n "$SW" link set "$BR" type bridge nf_call_iptables 0
	v_detach "$v" || st=1
	return $st
}

# br_netfilter's own checks (its IP hooks on, no rule that drops): a VM
# sends stand-in 2 IPv4 frames that br_netfilter drops before any rule
# sees them (a header checksum that does not add up), that it trims (8
# bytes beyond the IP packet), or that it holds for reassembly and never
# delivers (a first fragment whose rest never comes; conntrack in use by an
# accepting rule). Stand-in 2 gets exactly what the bridge delivers: none
# of the first and last kind, the trimmed ones whole but 8 bytes shorter.
case_nfcheck() { # VARIANT ipcsum|trailer|fragment
	local v=$1 what=$2 st=0 n=40 len=100 f0=$WORK/nc0.json f1=$WORK/nc1.json
	learn_all && br_nf 1 || { br_nf 0; return 1; }
	if [ "$what" = fragment ]; then
		nsx "$SW" iptables -w -A FORWARD -m conntrack --ctstate INVALID -j ACCEPT || st=1
	fi
	v_attach "$v" && warm "$v" || st=1
	[ "$v" = bridge ] || status_json "$f0"
	m_start "9 ${VNS[2]} eth0 ${VPORT[2]} --tag 12 --over $((len - 8))" || st=1
	tx 1 2 "$n" --len "$len" --mangle "$what" || st=1
	m_end || st=1
	[ "$v" = bridge ] || status_json "$f1"
	if [ "$what" = trailer ]; then
		expect_at 12 "2=$n" || st=1
		expect_eq "frames at stand-in 2 longer than the IP packet (untrimmed)" "$(m_get 9 over)" 0 || st=1
	else
		expect_at 12 "" || st=1
	fi
	if [ "$v" != bridge ]; then
		expect_eq "frames 1->2 bypassed" "$(redirected "$v" "${VPORT[1]}" "$f0" "$f1")" 0 || st=1
	fi
	[ "$what" = fragment ] && nsx "$SW" iptables -w -D FORWARD -m conntrack --ctstate INVALID -j ACCEPT
	br_nf 0
	v_detach "$v" || st=1
	return $st
}

# An ageing time the keep-alive cannot keep up with (10 cs and 2 cs, set
# before or after attach): a flow between stand-ins 1 and 2, each way
# faster than the ageing (10 cs: 20 frames a second; 2 cs: 200). Keep-alive
# frames 100 ms apart would let the entries expire in between, and frames
# flood where the bridge would not flood them; so xdpnet holds the bridge
# (bypass_hold "ageing") and bypasses none of the flow: where every frame
# goes is the bridge's decision. The flooded frames are printed for both.
declare -A SHORT_BASE
bypass_hold_is() { [ "$(xn status "$BR" --json | jq -r '.bridges[0].bypass_hold')" = "$1" ]; }
case_shortage() { # VARIANT CS pre|post
	local v=$1 cs=$2 when=$3 st=0 i n rate t0 pids=() f0=$WORK/sh0.json f1=$WORK/sh1.json flood=0
	rate=$((cs >= 10 ? 20 : 200)) n=$((cs >= 10 ? 100 : 200))
	if [ "$when" = pre ]; then
		ip -n "$SW" link set "$BR" type bridge ageing_time "$cs" || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		ip -n "$SW" link set "$BR" type bridge ageing_time "$cs" || return 1
		if [ "$v" != bridge ] && ! v_nf "$v"; then
			t0=$EPOCHREALTIME
			if wait_until 2 bypass_hold_is ageing; then
				echo "the follower held the bridge after $(since "$t0") s"
			else
				echo "FAIL: the follower did not hold the bridge within 2 s"
				st=1
			fi
		fi
	fi
	[ "$v" = bridge ] || status_json "$f0"
	m_start || return 1
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[2]}" --src "${VMAC[1]}" --count "$n" --rate "$rate" --tag 12 >/dev/null &
	pids+=($!)
	nsx "${VNS[2]}" "$FR" send eth0 --dst "${VMAC[1]}" --src "${VMAC[2]}" --count "$n" --rate "$rate" --tag 21 >/dev/null &
	pids+=($!)
	for i in "${pids[@]}"; do track "$i"; done
	for i in "${pids[@]}"; do wait "$i"; untrack "$i"; done
	m_end || st=1
	expect_eq "tag 12 at stand-in 2" "$(m_tag 2 12)" "$n" || st=1
	expect_eq "tag 21 at stand-in 1" "$(m_tag 1 21)" "$n" || st=1
	for i in 3 4; do flood=$((flood + $(m_tag "$i" 12) + $(m_tag "$i" 21))); done
	if [ "$v" = bridge ]; then
		SHORT_BASE[$cs]=$flood
		echo "the plain bridge flooded $flood frames of the flow to stand-ins 3 and 4"
	else
		# The verdict: xdpnet bypassed none of it, so where every frame
		# went was the bridge's decision. (How many the bridge floods
		# at 2 cs depends on the host's load: 8 in one run, 46 in the
		# next with xdpnet holding. Without the hold xdpnet flooded
		# 64-72 where the bridge flooded 6-14, and bypassed 44-164.)
		echo "frames of the flow flooded to stand-ins 3 and 4: $flood (the plain bridge: ${SHORT_BASE[$cs]:-?})"
		status_json "$f1"
		expect_eq "bypass_hold" "$(jq -r '.bridges[0].bypass_hold' "$f1")" ageing || st=1
		if ! v_nf "$v" || [ "$when" = pre ]; then
			expect_eq "frames 1->2 bypassed" "$(redirected "$v" "${VPORT[1]}" "$f0" "$f1")" 0 || st=1
			expect_eq "frames 2->1 bypassed" "$(redirected "$v" "${VPORT[2]}" "$f0" "$f1")" 0 || st=1
		fi
	fi
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	v_detach "$v" || st=1
	return $st
}

# Hub mode (ageing_time 0): every frame floods to every port.
case_hub() { # VARIANT pre|post
	local v=$1 when=$2 st=0 f=$WORK/hub.json
	learn_all || return 1
	if [ "$when" = pre ]; then
		ip -n "$SW" link set "$BR" type bridge ageing_time 0 || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		ip -n "$SW" link set "$BR" type bridge ageing_time 0 || return 1
		if [ "$v" != bridge ] && ! v_nf "$v"; then
			for ((i = 1; i <= 40; i++)); do
				[ "$(xn status "$BR" --json | jq '.bridges[0].bypass')" = false ] && break
				sleep 0.05
			done
		fi
	fi
	m_start || return 1
	tx 1 2 "$N" && tx 3 4 "$N" || st=1
	m_end || st=1
	expect_at 12 "2=$N 3=$N 4=$N" && expect_at 34 "1=$N 2=$N 4=$N" || st=1
	if [ "$v" != bridge ]; then
		status_json "$f"
		echo "bypass: $(jq '.bridges[0].bypass' "$f")"
		show_ctr "$v" "${VPORT[1]}" pass_hub pass_unknown pass_src tc_redirect xdp_redirect
		# Without a follower nothing tells the datapath; the bridge's
		# own FDB empties, and frames take the bridge all the same.
		v_nf "$v" || [ "$(ctr "$f" "${VPORT[1]}" pass_hub)" -ge "$N" ] ||
			{ echo "FAIL: counters do not show pass_hub"; st=1; }
	fi
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- flood

# The flood: stand-in 1 sends 24,000 frames with random source MACs from
# each CPU (to its own MAC: the bridge learns every source and drops the
# frame), then frames with the host's MAC as source, while 3 sends to 4
# over TCP. Then: 2, 3 and 4 ping the host; nothing addressed to the host
# reaches 1. 24,000 from one CPU alone are more sources than xdpnet's FDB
# copy holds (XDPNET_MAX_FDB, 16,384) and 23 times what a CPU's decision
# cache holds (XDPNET_FLOW_ENTRIES): both overflow, on any host.
FLOOD=${SEM_FLOOD:-24000}
case_flood() { # VARIANT
	local v=$1 st=0 cpu ncpu t0 t1 prog=$WORK/flood.prog at i f0=$WORK/fl0.json f1=$WORK/fl1.json r0 want left flow secs
	ncpu=$(nproc)
	learn_all || return 1
	v_attach "$v" || return 1
	[ "$v" = bridge ] || status_json "$f0"
	m_start "atk ${VNS[1]} eth0 ${VPORT[1]} --dst $BRMAC" || return 1
	rm -f "$prog"
	# The flow outlasts the flood, however long the flood takes on this
	# host: it sends until the flood is over (XFER_UNTIL), 120 s at most.
	secs=120
	flow=$((secs * 8 * 1024 * 1024))
	rm -f "$WORK/flood.done"
	XFER_UNTIL=$WORK/flood.done tcp_start "${VNS[3]}" "${VNS[4]}" "${VIP[4]}" "$flow" $((8 * 1024 * 1024)) $((secs + 30)) "$prog" || return 1
	for ((i = 1; i <= 50; i++)); do [ -s "$prog" ] && break; sleep 0.1; done
	t0=$EPOCHREALTIME
	r0=$(sw_rx "${VPORT[1]}")
	for ((cpu = 0; cpu < ncpu; cpu++)); do
		[ "$KIND" = tap ] && taskset -a -p -c "$cpu" "${RPID[1]}" >/dev/null
		# A tap's queue drops what the relay cannot take: send until
		# the bridge port got them all (each pass loses a share of
		# what it sends: a third on a loaded host, where 10 passes
		# left 900 frames unsent).
		want=$(($(sw_rx "${VPORT[1]}") + FLOOD))
		for ((i = 1; i <= 40; i++)); do
			left=$((want - $(sw_rx "${VPORT[1]}")))
			[ "$left" -gt 0 ] || break
			nsx "${VNS[1]}" taskset -c "$cpu" "$FR" send eth0 --dst "${VMAC[1]}" --src random \
				--count "$left" --tag 911 || st=1
		done
	done
	[ "$KIND" = tap ] && taskset -a -p -c "0-$((ncpu - 1))" "${RPID[1]}" >/dev/null
	tx 1 2 "$N" --src "$BRMAC" --tag 912 || st=1
	t1=$(since "$t0")
	at=$(cat "$prog" 2>/dev/null || echo 0)
	kill -0 "$X_CPID" 2>/dev/null || at=$flow # it ended first
	: >"$WORK/flood.done"
	echo "flood: random sources from $ncpu CPUs in $t1 s; ${VPORT[1]} received $(($(sw_rx "${VPORT[1]}") - r0)); the TCP flow was at $at bytes"
	[ $(($(sw_rx "${VPORT[1]}") - r0)) -ge $((ncpu * FLOOD)) ] || { echo "FAIL: the bridge port did not receive $FLOOD frames per CPU"; st=1; }
	[ "$at" -lt "$flow" ] || { echo "FAIL: the flow ended before the flood did"; st=1; }
	echo "bridge FDB: $(bridge -n "$SW" fdb show br "$BR" | wc -l) entries; the host's MAC: $(bridge -n "$SW" fdb show br "$BR" | grep -i "^$BRMAC" | tr '\n' ';')"
	for i in 2 3 4; do
		nsx "${VNS[$i]}" ping -c 5 -i 0.2 -W 1 -q "$HOSTIP" | grep 'packets transmitted' | sed "s/^/ping host from $i: /"
		nsx "${VNS[$i]}" ping -c 5 -i 0.2 -W 1 -q "$HOSTIP" | grep -q ' 0% packet loss' ||
			{ echo "FAIL: stand-in $i lost pings to the host"; st=1; }
	done
	tcp_finish || { echo "FAIL: the TCP flow 3->4 did not arrive intact"; st=1; }
	m_end || st=1
	expect_eq "frames addressed to the host that reached the attacker" "$(m_get atk frames)" 0 || st=1
	echo "frames with the host's MAC as source, to stand-in 2 (as the bridge):"
	expect_at 912 "2=$N" || st=1
	if [ "$v" != bridge ]; then
		status_json "$f1"
		xn fdb "$BR" --json | jq -c --arg m "$BRMAC" '.entries[] | select(.mac == $m)'
		xn fdb "$BR" --json | jq -e --arg m "$BRMAC" --arg p "${VPORT[1]}" \
			'[.entries[] | select(.mac == $m and .port == $p)] | length == 0' >/dev/null ||
			{ echo "FAIL: xdpnet has the host's MAC on the attacker's port"; st=1; }
		jq -c '.bridges[0] | {fdb_entries, fdb_static, fdb_events}' "$f1"
		for i in pass_src tc_redirect xdp_redirect; do
			echo "${VPORT[1]} $i: +$(($(ctr "$f1" "${VPORT[1]}" $i) - $(ctr "$f0" "${VPORT[1]}" $i)))"
			echo "${VPORT[3]} $i: +$(($(ctr "$f1" "${VPORT[3]}" $i) - $(ctr "$f0" "${VPORT[3]}" $i)))"
		done
		[ $(($(ctr "$f1" "${VPORT[1]}" pass_src) - $(ctr "$f0" "${VPORT[1]}" pass_src))) -gt 0 ] ||
			{ echo "FAIL: counters do not show the flood's frames (pass_src)"; st=1; }
	fi
	ip -n "$SW" link set "${VPORT[1]}" type bridge_slave fdb_flush
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- vxlan

# A second namespace xnq-r behind a VXLAN port vx of the bridge (underlay
# veth xnqul0 10.97.0.1 <-> eth0 10.97.0.2 in xnq-r, where vxr is the
# VXLAN device, later with stand-in 1's MAC: the VM "migrated" there).
VXMAC0=02:98:00:00:00:0b
vx_up() {
	q_ns_add $Q-r || return 1
	ip -n "$SW" link add ${Q}ul0 type veth peer name eth0 netns $Q-r || return 1
	ip -n "$SW" addr add 10.97.0.1/24 dev ${Q}ul0 && ip -n "$SW" link set ${Q}ul0 up || return 1
	ip -n $Q-r addr add 10.97.0.2/24 dev eth0 && ip -n $Q-r link set eth0 up || return 1
	ip -n "$SW" link add ${Q}vx type vxlan id 42 local 10.97.0.1 remote 10.97.0.2 dstport 4789 dev ${Q}ul0 || return 1
	ip -n "$SW" link set ${Q}vx master "$BR" up || return 1
	ip -n $Q-r link add vxr address "$VXMAC0" type vxlan id 42 local 10.97.0.2 remote 10.97.0.1 dstport 4789 dev eth0 || return 1
	ip -n $Q-r link set vxr up
}

case_vxlan() { # VARIANT (--no-follow)
	local v=$1 st=0 f0=$WORK/vx0.json f1=$WORK/vx1.json red
	[ -e /run/netns/$Q-r ] || { vx_up || return 1; }
	ip -n $Q-r link set vxr address "$VXMAC0"
	learn_all || return 1
	v_attach "$v" || return 1
	[ "$v" = bridge ] || status_json "$f0"
	m_start || return 1
	tx 2 1 10 || st=1
	m_end || st=1
	expect_at 21 "1=10" || st=1
	if [ "$v" != bridge ]; then
		status_json "$f1"
		red=$(($(ctr "$f1" "${VPORT[2]}" tc_redirect) + $(ctr "$f1" "${VPORT[2]}" xdp_redirect) -
			$(ctr "$f0" "${VPORT[2]}" tc_redirect) - $(ctr "$f0" "${VPORT[2]}" xdp_redirect)))
		echo "before the move: 2->1 redirected $red of 10"
		[ "$red" -ge 9 ] || { echo "FAIL: 2->1 was not bypassed before the move"; st=1; }
	fi
	echo "+ ${VMAC[1]} moves behind ${Q}vx ($Q-r), its old port stays; gratuitous ARP from there"
	ip -n $Q-r link set vxr address "${VMAC[1]}" || return 1
	m_start "new $Q-r vxr ${Q}vx --tag 721 --seq-ge 100" "old ${VNS[1]} eth0 ${VPORT[1]} --tag 721 --seq-ge 100" || return 1
	nsx $Q-r "$FR" garp vxr --src "${VMAC[1]}" --saddr "${VIP[1]}" >/dev/null || st=1
	tx 2 1 200 --rate 100 --tag 721 || st=1
	m_end || st=1
	bridge -n "$SW" fdb show br "$BR" | grep -i "^${VMAC[1]}"
	echo "new place: $(m_get new frames) of 200, first seq $(m_get new first_seq); old port: $(m_get old frames)"
	expect_eq "frames sent 1 s or more after the ARP that reached the new place" "$(m_get new seq_ge)" 100 || st=1
	expect_eq "... that reached the old port" "$(m_get old seq_ge)" 0 || st=1
	v_detach "$v" || st=1
	ip -n $Q-r link set vxr address "$VXMAC0"
	return $st
}

# ---------------------------------------------------------------- blocking

# STP on, and a loop: xnqbr0 (stand-in 1 on xnqv1) and xnqb1 in xnq-s2
# (priority 0: the root) joined by two veth links xnql1-xnqm1 and
# xnql2-xnqm2; one of xnqbr0's link ports ends up blocking. A MAC X is
# static on the blocking port, Y on the forwarding one.
BL= FL=
blocking_up() {
	local i b f stp="stp_state 1 forward_delay 200 hello_time 100 max_age 600"
	KIND=veth NET=3 NVM=1
	VNS=("") VPORT=("") VMAC=("") VIP=("")
	BRMAC=02:98:03:00:00:fe
	q_ns_add "$SW" && q_ns_add $Q-s2 || return 1
	ip -n "$SW" link add "$BR" address "$BRMAC" type bridge $stp || return 1
	ip -n $Q-s2 link add ${Q}b1 type bridge $stp priority 0 || return 1
	ip -n "$SW" link set "$BR" up && ip -n $Q-s2 link set ${Q}b1 up || return 1
	for i in 1 2; do
		ip -n "$SW" link add "${Q}l$i" type veth peer name "${Q}m$i" netns $Q-s2 || return 1
		ip -n "$SW" link set "${Q}l$i" master "$BR" up && ip -n $Q-s2 link set "${Q}m$i" master ${Q}b1 up || return 1
	done
	vm_add 1 || return 1
	for ((i = 1; i <= 100; i++)); do
		b=$(bridge -n "$SW" -j link show | jq -r '.[] | select(.state == "blocking") | .ifname' | grep ${Q}l | head -1)
		f=$(bridge -n "$SW" -j link show | jq -r '.[] | select(.state == "forwarding") | .ifname' | grep -c "${Q}l\|${Q}v1")
		[ -n "$b" ] && [ "$f" = 2 ] && break
		sleep 0.2
	done
	bridge -n "$SW" link show
	[ -n "$b" ] && [ "$f" = 2 ] || { echo "STP did not converge to one blocking link in 20 s"; return 1; }
	BL=$b
	[ "$BL" = ${Q}l1 ] && FL=${Q}l2 || FL=${Q}l1
	echo "blocking: $BL, forwarding: $FL"
	bridge -n "$SW" fdb add 02:98:03:00:00:0b dev "$BL" master static &&
		bridge -n "$SW" fdb add 02:98:03:00:00:0c dev "$FL" master static || return 1
	learn_all
}

# tx_link LINK SRC DST N TAG: frames into the bridge from the far end of a
# link port (injected on its peer in xnq-s2).
tx_link() {
	local r0 i
	r0=$(sw_rx "$1")
	nsx $Q-s2 "$FR" send "${Q}m${1#${Q}l}" --src "$2" --dst "$3" --count "$4" --tag "$5" >/dev/null || return 1
	for ((i = 1; i <= 100; i++)); do
		[ "$(sw_rx "$1")" -ge $((r0 + $4)) ] && return 0
		sleep 0.05
	done
	return 1
}

case_blocking() { # VARIANT
	local v=$1 st=0 X=02:98:03:00:00:0b Y=02:98:03:00:00:0c
	v_attach "$v" || return 1
	[ "$v" = bridge ] || xn status "$BR" --json | jq -c '.bridges[0].ports[] | {name, bypassed, hold}'
	m_start "bl $Q-s2 ${Q}m${BL#${Q}l} $BL --tag 131" "fl $Q-s2 ${Q}m${FL#${Q}l} $FL --tag 132" || return 1
	tx 1 "$X" "$N" --tag 131 && tx 1 "$Y" "$N" --tag 132 || st=1
	tx_link "$BL" "$X" "${VMAC[1]}" "$N" 231 && tx_link "$FL" "$Y" "${VMAC[1]}" "$N" 232 || st=1
	m_end || st=1
	expect_eq "frames to a MAC behind the blocking port that left through it" "$(m_get bl frames)" 0 || st=1
	expect_eq "control: frames to a MAC behind the forwarding port" "$(m_get fl frames)" "$N" || st=1
	expect_eq "frames from the blocking port that reached stand-in 1" "$(m_tag 1 231)" 0 || st=1
	expect_eq "control: frames from the forwarding port" "$(m_tag 1 232)" "$N" || st=1
	show_ctr "$v" "$BL" pass_state tc_redirect
	show_ctr "$v" "${VPORT[1]}" pass_state tc_redirect
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- tc

# What hosts put on a VM's port with tc (libvirt's <bandwidth>: a police
# filter on the tap's ingress, an HTB on its egress), as drops the test
# can count: a filter that drops every frame (tests/tools/xnt_tcdrop, on a
# clsact qdisc; this kernel has no 'action drop'), or a root qdisc that
# drops every frame (pfifo limit 0).
TCDROP=${TCDROP:-$ROOT/build/tests/xnt_tcdrop.bpf.o}
tc_sw() { ip netns exec "$SW" tc "$@"; }
tc_put() { # PORT ingress|egress|qdisc
	case $2 in
	qdisc) tc_sw qdisc add dev "$1" root pfifo limit 0 ;;
	*)
		tc_sw qdisc show dev "$1" | grep -q clsact || tc_sw qdisc add dev "$1" clsact || return 1
		tc_sw filter add dev "$1" "$2" pref 7 bpf da obj "$TCDROP" sec tc
		;;
	esac
}
tc_clear() { # PORT...: the test's tc gone (xdpnet's own filter, if any, stays)
	local p
	for p in "$@"; do
		echo "filter del dev $p ingress pref 7"
		echo "filter del dev $p egress pref 7"
		echo "qdisc del dev $p root"
	done | tc -n "$SW" -force -batch - >/dev/null 2>&1
	return 0
}
HOLD_TC=6 PF_TC_EGRESS=256 # include/xdpnet.h

# Stand-in 1's port drops at its ingress, 2's egress qdisc and 3's egress
# filter drop everything: 1 -> 4, 4 -> 2 and 4 -> 3 arrive nowhere;
# 3 -> 4 arrives (3's ingress is not filtered).
case_tc() { # VARIANT pre|post
	local v=$1 when=$2 st=0 f=$WORK/tc.json
	learn_all || return 1
	if [ "$when" = post ]; then v_attach "$v" && warm "$v" || return 1; fi
	tc_put "${VPORT[1]}" ingress && tc_put "${VPORT[2]}" qdisc && tc_put "${VPORT[3]}" egress || return 1
	if [ "$when" = pre ]; then
		v_attach "$v" || return 1
	else
		v_settle "$v" "${VPORT[1]}" hold "x == HOLD_TC" &&
			v_settle "$v" "${VPORT[2]}" flags "(x & PF_TC_EGRESS) != 0" &&
			v_settle "$v" "${VPORT[3]}" flags "(x & PF_TC_EGRESS) != 0" || st=1
	fi
	for i in 1 2 3; do tc_sw -s qdisc show dev "${VPORT[$i]}" | sed "s/^/${VPORT[$i]}: /"; done
	m_start || return 1
	tx 1 4 "$N" && tx 4 2 "$N" && tx 4 3 "$N" && tx 3 4 "$N" || st=1
	m_end || st=1
	expect_at 14 "" && expect_at 42 "" && expect_at 43 "" || st=1
	expect_at 34 "4=$N" || st=1
	if [ "$v" != bridge ]; then
		status_json "$f"
		jq -c '.bridges[0].ports[] | select(.name | test("^'"$Q"'")) | {name, hold, tc_egress, xdp_target}' "$f"
		[ "$(jq -r --arg p "${VPORT[1]}" '.bridges[0].ports[] | select(.name == $p) | .hold' "$f")" = tc ] ||
			{ echo "FAIL: status does not hold ${VPORT[1]} for tc"; st=1; }
		show_ctr "$v" "${VPORT[4]}" tc_redirect xdp_redirect xdp_defer_target
	fi
	for i in 1 2 3; do tc_clear "${VPORT[$i]}"; done
	v_detach "$v" || st=1
	return $st
}

# tc that drops, put there after attach with frames sent at once (no
# waiting for the follower). in: a filter on stand-in 1's port ingress,
# which the kernel runs after tcx programs, so a redirect by the TC stage,
# or the XDP stage before it, would skip it: nothing of 1 -> 4 arrives.
# out: a qdisc on stand-in 2's port and a filter on 3's port egress, which
# an XDP redirect would skip (a TC redirect goes through them): nothing of
# 4 -> 2 or 4 -> 3 arrives. The live datapath reads both on every frame,
# from the first (live variants, where the TC stage is a tcx program).
case_tcnow() { # VARIANT in|out
	local v=$1 side=$2 st=0
	learn_all || return 1
	v_attach "$v" && warm "$v" || return 1
	# (The live datapath reads an egress port once a frame has come in
	# through it: 2's came in warm.)
	if [ "$side" = out ] && [ "$v" != bridge ]; then
		tx 3 4 2 || return 1
	fi
	m_start || return 1
	if [ "$side" = in ]; then
		tc_put "${VPORT[1]}" ingress || st=1
		tx 1 4 "$N" || st=1
	else
		tc_put "${VPORT[2]}" qdisc && tc_put "${VPORT[3]}" egress || st=1
		tx 4 2 "$N" && tx 4 3 "$N" || st=1
	fi
	m_end || st=1
	if [ "$side" = in ]; then
		expect_at 14 "" || st=1
		[ "$v" = bridge ] || show_ctr "$v" "${VPORT[1]}" tc_redirect xdp_redirect pass_state
	else
		expect_at 42 "" && expect_at 43 "" || st=1
		[ "$v" = bridge ] || show_ctr "$v" "${VPORT[4]}" tc_redirect xdp_redirect xdp_defer_target
	fi
	tc_clear "${VPORT[1]}" "${VPORT[2]}" "${VPORT[3]}"
	v_detach "$v" || st=1
	return $st
}
have_tcx() {
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "STRUCT 'tcx_entry'"
}

# ---------------------------------------------------------------- promisc

# A promiscuous bridge (tcpdump -i BR, a macvlan on it) hands the host a
# copy of every frame it forwards: BR's own counter (a packet socket on
# it, the host's view) sees 1 -> 2 and 3 -> 1 as well as their targets.
# Its fence: a broadcast from stand-in 4, after the frames.
case_promisc() { # VARIANT pre|post
	local v=$1 when=$2 st=0 i
	learn_all || return 1
	if [ "$when" = pre ]; then
		ip -n "$SW" link set "$BR" promisc on || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		ip -n "$SW" link set "$BR" promisc on || return 1
		if [ "$v" != bridge ] && ! v_nf "$v"; then
			for ((i = 1; i <= 40; i++)); do
				[ "$(xn status "$BR" --json | jq '.bridges[0].bypass')" = false ] && break
				sleep 0.05
			done
		fi
	fi
	m_start "b $SW $BR ${VPORT[4]}" || return 1
	tx 1 2 "$N" && tx 3 1 "$N" || st=1
	tx 4 ff:ff:ff:ff:ff:ff 1 --tag "$FENCE" || st=1
	m_end || st=1
	expect_at 12 "2=$N" && expect_at 31 "1=$N" || st=1
	expect_eq "frames 1->2 the host saw on $BR" "$(m_tag b 12)" "$N" || st=1
	expect_eq "frames 3->1 the host saw on $BR" "$(m_tag b 31)" "$N" || st=1
	[ "$v" = bridge ] || echo "bypass: $(xn status "$BR" --json | jq -c '.bridges[0] | {bypass, bypass_hold}')"
	show_ctr "$v" "${VPORT[1]}" pass_hub tc_redirect xdp_redirect
	ip -n "$SW" link set "$BR" promisc off
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- tunnel

# Stand-ins 1 and 2 run VXLAN over their links without outer UDP
# checksums (noudpcsum) and TCP inside it with checksum offload: the outer
# checksum is 0, the inner one partial. The transfer must arrive intact.
# csum_errors NS: the checksum errors NS's stack has counted (TCP, UDP).
csum_errors() {
	nsx "$1" nstat -asz 2>/dev/null |
		awk '$1 == "TcpInCsumErrors" || $1 == "UdpInCsumErrors" { n += $2 } END { print n + 0 }'
}

# KIND (vxlan0: VXLAN noudpcsum; vxlan: VXLAN with outer UDP checksums;
# geneve: Geneve with them), TCP inside from 1 to 2. The inner checksum
# stays partial (the guest offloads it); with outer checksums the kernel
# fills the outer one for the inner as completed (local checksum
# offload), so neither the outer checksum nor the inner one holds as the
# frame stands, and a redirect that dropped the offload state would leave
# the inner one broken.
case_tunnel() { # VARIANT KIND
	local v=$1 kind=$2 st=0 i j e0 e1 opt
	learn_all || return 1
	v_attach "$v" || return 1
	e0=$(csum_errors "${VNS[2]}")
	for i in 1 2; do
		j=$((3 - i))
		case $kind in
		vxlan0) opt="vxlan id 77 local ${VIP[$i]} remote ${VIP[$j]} dstport 4789 noudpcsum dev eth0" ;;
		vxlan) opt="vxlan id 77 local ${VIP[$i]} remote ${VIP[$j]} dstport 4789 udpcsum dev eth0" ;;
		geneve) opt="geneve id 77 remote ${VIP[$j]} udpcsum" ;;
		esac
		# shellcheck disable=SC2086
		ip -n "${VNS[$i]}" link add vx0 type $opt || return 1
		ip -n "${VNS[$i]}" addr add "10.96.$NET.$i/24" dev vx0 && ip -n "${VNS[$i]}" link set vx0 up || return 1
	done
	nsx "${VNS[1]}" ethtool -k vx0 | grep -E "^tx-checksumming|tcp-segmentation-offload"
	tcp_xfer "${VNS[1]}" "${VNS[2]}" "10.96.$NET.2" $((2 * 1024 * 1024)) 0 20 || st=1
	e1=$(csum_errors "${VNS[2]}")
	echo "checksum errors at ${VNS[2]}: +$((e1 - e0))"
	[ "$e1" = "$e0" ] || { echo "FAIL: the receiver counted checksum errors"; st=1; }
	show_ctr "$v" "${VPORT[1]}" xdp_defer_udp0 xdp_defer_csum xdp_redirect tc_redirect
	for i in 1 2; do ip -n "${VNS[$i]}" link del vx0; done
	v_detach "$v" || st=1
	return $st
}

# ------------------------------------------------------------- xdprace

# The XDP stage completes a partial checksum in place, then redirects
# through the devmap. Where the target's entry went between the decision
# and the redirect, the redirect fails at once and the frame goes on to
# the TC stage: with its checksum as the sender left it (partial), or the
# kernel would complete it a second time at an egress without checksum
# offload. Stand-in 2's port has none (tx off: the kernel completes every
# partial checksum it sends there), and a loop takes its devmap entry
# out and puts it back while 1 and 2 exchange UDP datagrams (1 sends with
# partial checksums). Every datagram must arrive, none with a checksum
# error; with xdpnet, some must have taken that failed redirect
# (xdp_defer_target on 1's port).
case_xdprace() { # VARIANT
	local v=$1 st=0 e0 e1 f0=$WORK/r0.json f1=$WORK/r1.json ifx slot key val tpid d
	learn_all || return 1
	ip netns exec "$SW" ethtool -K "${VPORT[2]}" tx off >/dev/null || return 1
	v_attach "$v" || return 1
	e0=$(csum_errors "${VNS[2]}")
	if [ "$v" != bridge ]; then
		status_json "$f0"
		ifx=$(ip -n "$SW" -j link show "${VPORT[2]}" | jq '.[0].ifindex')
		# Its slot: the tx_ports key whose entry names its ifindex.
		slot=$(bpftool -j map dump pinned "$PIN/tx_ports" | "$PY" -c '
import json, sys
le = lambda b: int.from_bytes(bytes(int(x, 16) for x in b), "little")
for e in json.load(sys.stdin):
    if isinstance(e["value"], list) and le(e["value"][:4]) == int(sys.argv[1]):
        print(le(e["key"]))' "$ifx" | head -1)
		[ -n "$slot" ] || { echo "no tx_ports entry for ${VPORT[2]} (ifindex $ifx)"; return 1; }
		key=$(printf '%d 0 0 0' "$slot")
		val=$(printf '%d %d %d %d 0 0 0 0' $((ifx & 255)) $((ifx >> 8 & 255)) $((ifx >> 16 & 255)) $((ifx >> 24)))
		echo "toggling tx_ports slot $slot (${VPORT[2]}, ifindex $ifx)"
		(while :; do
			bpftool map delete pinned "$PIN/tx_ports" key $key 2>/dev/null
			bpftool map update pinned "$PIN/tx_ports" key $key value $val 2>/dev/null
		done) &
		tpid=$!
		track "$tpid"
	fi
	# (1,000 stop-and-wait: within the echo server's 25 s on a busy
	# machine, with the loop beside it)
	udp_xfer "${VNS[1]}" "${VNS[2]}" "${VIP[2]}" 1000 40,200,1000,1400,1472 || st=1
	if [ "$v" != bridge ]; then
		stop_pid "$tpid"
		bpftool map update pinned "$PIN/tx_ports" key $key value $val
		status_json "$f1"
		d=$(($(ctr "$f1" "${VPORT[1]}" xdp_defer_target) - $(ctr "$f0" "${VPORT[1]}" xdp_defer_target)))
		echo "${VPORT[1]}: xdp_defer_target +$d, xdp_redirect +$(($(ctr "$f1" "${VPORT[1]}" xdp_redirect) - $(ctr "$f0" "${VPORT[1]}" xdp_redirect)))"
		[ "$d" -gt 0 ] || { echo "FAIL: no redirect failed after the decision: the test exercised nothing"; st=1; }
	fi
	e1=$(csum_errors "${VNS[2]}")
	echo "checksum errors at ${VNS[2]}: +$((e1 - e0))"
	[ "$e1" = "$e0" ] || { echo "FAIL: the receiver counted checksum errors"; st=1; }
	ip netns exec "$SW" ethtool -K "${VPORT[2]}" tx on >/dev/null
	v_detach "$v" || st=1
	return $st
}

# --------------------------------------------------------------- qtag

# Stand-in 1 sends to 2, each with a tag of its own: 1001 two tags,
# CHECKSUM_PARTIAL; 1002 thirteen tags, CHECKSUM_PARTIAL (the bridge
# drops it: br_dev_queue_push_xmit() cannot find the network header);
# 1003 thirteen tags, checksum complete. The counter at 2 reads under the
# tags the stack leaves in.
case_qtag() { # VARIANT
	local v=$1 st=0 i t13=()
	for ((i = 1; i <= 13; i++)); do t13+=(--vlan "$i"); done
	learn_all || return 1
	v_attach "$v" || return 1
	m_start "q2 ${VNS[2]} eth0 ${VPORT[2]} --inband" || return 1
	tx 1 2 "$N" --tag 1001 --vlan 5 --vlan 6 --partial || st=1
	tx 1 2 "$N" --tag 1002 "${t13[@]}" --partial || st=1
	tx 1 2 "$N" --tag 1003 "${t13[@]}" || st=1
	m_end || st=1
	expect_eq "two tags, partial checksum, at stand-in 2" "$(m_tag q2 1001)" "$N" || st=1
	expect_eq "13 tags, partial checksum, at stand-in 2" "$(m_tag q2 1002)" 0 || st=1
	expect_eq "13 tags, full checksum, at stand-in 2" "$(m_tag q2 1003)" "$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_vlan tc_redirect xdp_redirect xdp_defer_proto
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- tcn

# A TCN BPDU (802.1D topology change notification) from stand-in I.
tcn_send() {
	nsx "${VNS[$1]}" "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
llc = bytes([0x42, 0x42, 0x03, 0, 0, 0, 0x80])
f = bytes.fromhex("0180c2000000" + sys.argv[1].replace(":", "")) + len(llc).to_bytes(2, "big") + llc
s.send(f + bytes(60 - len(f)))
' "${VMAC[$1]}"
}
tc_active() { local v; ns_sys v "$SW" "class/net/$BR/bridge/topology_change" && [ "$v" = 1 ]; }
ports_forwarding() { # (BR_STATE_FORWARDING is 3)
	local i v
	for ((i = 1; i <= NVM; i++)); do
		ns_sys v "$SW" "class/net/${VPORT[$i]}/brport/state" && [ "$v" = 3 ] || return 1
	done
}

# STP on (forward delay 2 s), ageing 10 s (the bridge's garbage collector
# then runs at least every 10 s): stand-in 3 sends TCN BPDUs while 1 and 2
# talk both ways for 12 s. During the topology change the bridge ages its
# entries after 2 s, not 10; the bypass must keep them alive as the frames
# themselves would on the plain bridge: nothing of the flow floods to 3 or
# 4.
case_tcn() { # VARIANT pre|post
	local v=$1 when=$2 st=0 i pids=() seen=0
	if [ "$when" = post ]; then v_attach "$v" || return 1; fi
	ip -n "$SW" link set "$BR" type bridge stp_state 1 forward_delay 200 ageing_time 1000 || return 1
	wait_until 15 ports_forwarding || { echo "ports not forwarding with STP on"; bridge -n "$SW" link show; return 1; }
	learn_all || return 1
	if [ "$when" = pre ]; then v_attach "$v" || return 1; fi
	[ "$v" = bridge ] || echo "keep-alive: $(xn status "$BR" --json | jq '.bridges[0].refresh_ms') ms"
	# Learnt again: an attach on a loaded host may take longer than the
	# 10 s ageing, and the flow's first frame would then flood (on the
	# plain bridge as well, were it as slow).
	learn_all || return 1
	m_start || return 1
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[2]}" --src "${VMAC[1]}" --count 300 --rate 25 --tag 12 >/dev/null &
	pids+=($!)
	nsx "${VNS[2]}" "$FR" send eth0 --dst "${VMAC[1]}" --src "${VMAC[2]}" --count 300 --rate 25 --tag 21 >/dev/null &
	pids+=($!)
	for i in "${pids[@]}"; do track "$i"; done
	wait_until 5 fdb_has bridge "${VMAC[1]}" || st=1
	for i in 1 2 3; do tcn_send 3 || st=1; done
	while kill -0 "${pids[0]}" 2>/dev/null; do
		tc_active && seen=1
		sleep 0.2
	done
	for i in "${pids[@]}"; do wait "$i"; untrack "$i"; done
	m_end || st=1
	[ "$seen" = 1 ] || { echo "FAIL: the bridge never was in a topology change"; st=1; }
	expect_at 12 "2=300" && expect_at 21 "1=300" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_refresh pass_unknown tc_redirect xdp_redirect
	stp_off
	ip -n "$SW" link set "$BR" type bridge ageing_time 30000
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- fdbrace

# The bridge moves an FDB entry and traces the move afterwards, without a
# lock: two CPUs moving one MAC can trace in the other order than they
# moved it, and a copy that follows the traces keeps the older port. Each
# round: stand-ins 1 and 2 send with one MAC X as source, pinned to
# different CPUs, while `bridge fdb replace` moves X between their ports;
# then the port the bridge names for X, and (through xdpnet) its copy
# polled until it names the same port (2 s at most); then 3 sends to X:
# every frame reaches the stand-in behind that port, none the other.
FR_ROUNDS=${SEM_FDBRACE_ROUNDS:-8}
xn_port_of() { # MAC: the port xdpnet's copy names for MAC
	xn fdb "$BR" --json | jq -r --arg m "$1" '[.entries[] | select(.mac == $m) | .port][0] // ""'
}
case_fdbrace() { # VARIANT
	local v=$1 st=0 r i X=02:98:05:00:00:0a c1=0 c2=1 p q want pids
	[ "$(nproc)" -ge 2 ] || c2=0
	learn_all || return 1
	v_attach "$v" || return 1
	for ((r = 1; r <= FR_ROUNDS; r++)); do
		pids=()
		nsx "${VNS[1]}" taskset -c $c1 "$FR" send eth0 --dst "$BRMAC" --src "$X" --count 200 --tag 941 >/dev/null &
		pids+=($!)
		nsx "${VNS[2]}" taskset -c $c2 "$FR" send eth0 --dst "$BRMAC" --src "$X" --count 200 --tag 942 >/dev/null &
		pids+=($!)
		for i in 1 2 1 2; do
			bridge -n "$SW" fdb replace "$X" dev "${VPORT[$i]}" master dynamic
		done
		for i in "${pids[@]}"; do wait "$i"; done
		p=$(fdb_port_of "$X")
		case $p in
		"${VPORT[1]}") want=1 ;;
		"${VPORT[2]}") want=2 ;;
		*) echo "round $r: the bridge has $X on '$p'"; st=1; continue ;;
		esac
		if [ "$v" != bridge ]; then
			for ((i = 0; i < 40; i++)); do
				q=$(xn_port_of "$X")
				[ "$q" = "$p" ] && break
				sleep 0.05
			done
			[ "$q" = "$p" ] || echo "round $r: xdpnet's copy has $X on '$q' 2 s after, the bridge on $p"
		fi
		m_start || { st=1; break; }
		tx 3 "$X" "$N" --tag 943 || st=1
		m_end || st=1
		echo "round $r: the bridge has $X on $p (stand-in $want)"
		expect_at 943 "$want=$N" || st=1
	done
	bridge -n "$SW" fdb del "$X" dev "${VPORT[1]}" master 2>/dev/null
	bridge -n "$SW" fdb del "$X" dev "${VPORT[2]}" master 2>/dev/null
	show_ctr "$v" "${VPORT[3]}" pass_unknown tc_redirect xdp_redirect
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- vlan

rx_ge() { [ "$(sw_rx "$1")" -ge "$2" ]; }

# Bridge VLAN filtering (CONFIG_BRIDGE_VLAN_FILTERING; the development
# kernel lacks it, Debian's kernels in make check-kernels have it).
have_vlan_filtering() { # (the kernel's answer, asked once)
	if [ -z "${HAVE_VF:-}" ]; then
		HAVE_VF=1
		ip -n "$SW" link add ${Q}vp0 type bridge vlan_filtering 1 2>/dev/null &&
			ip -n "$SW" link del ${Q}vp0 && HAVE_VF=0
	fi
	return "$HAVE_VF"
}

# vlan_on [802.1Q|802.1ad]: filtering on, and (VLAN 1 gone everywhere)
#   stand-in 1, 2: VLAN 10 pvid untagged, VLAN 20 tagged;
#   stand-in 3:    VLAN 10 tagged, no pvid;
#   stand-in 4:    VLAN 20 pvid untagged.
vlan_on() {
	local i
	ip -n "$SW" link set "$BR" type bridge vlan_filtering 1 vlan_protocol "${1:-802.1Q}" || return 1
	for i in 1 2 3 4; do bridge -n "$SW" vlan del dev "${VPORT[$i]}" vid 1 || return 1; done
	for i in 1 2; do
		bridge -n "$SW" vlan add dev "${VPORT[$i]}" vid 10 pvid untagged &&
			bridge -n "$SW" vlan add dev "${VPORT[$i]}" vid 20 || return 1
	done
	bridge -n "$SW" vlan add dev "${VPORT[3]}" vid 10 &&
		bridge -n "$SW" vlan add dev "${VPORT[4]}" vid 20 pvid untagged || return 1
	bridge -n "$SW" vlan show
}
vlan_off() {
	local i
	ip -n "$SW" link set "$BR" type bridge vlan_filtering 0 vlan_protocol 802.1Q
	for ((i = 1; i <= NVM; i++)); do
		bridge -n "$SW" vlan del dev "${VPORT[$i]}" vid 10 2>/dev/null
		bridge -n "$SW" vlan del dev "${VPORT[$i]}" vid 20 2>/dev/null
		bridge -n "$SW" vlan add dev "${VPORT[$i]}" vid 1 pvid untagged 2>/dev/null
	done
	return 0
}
# Every stand-in known in its VLANs (3 only sends tagged: it has no pvid).
vlan_learn() {
	learn_all && tx 3 h 1 --tag 9 --vlan 10 && tx 1 h 1 --tag 9 --vlan 20 &&
		tx 2 h 1 --tag 9 --vlan 20
}
# With a follower, wait until the datapath filters VLANs as the bridge.
vlan_settle() { # VARIANT WANT(true|false)
	local i
	[ "$1" = bridge ] && return 0
	v_nf "$1" && return 0
	for ((i = 1; i <= 40; i++)); do
		[ "$(xn status "$BR" --json | jq '.bridges[0].vlan_filtering')" = "$2" ] && return 0
		sleep 0.05
	done
	echo "the follower did not take vlan_filtering $2"
	return 1
}

# Membership, tagging, pvid: frames stay in their VLAN, untagged frames
# take the pvid, a frame in a VLAN its port is no member of goes nowhere.
case_vlan() { # VARIANT pre|post
	local v=$1 when=$2 st=0
	if [ "$when" = pre ]; then
		vlan_on || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		vlan_on && vlan_settle "$v" true || return 1
	fi
	vlan_learn || return 1
	m_start || return 1
	tx 1 2 "$N" --tag 801 || st=1             # VLAN 10, untagged both sides
	tx 1 2 "$N" --tag 802 --vlan 20 || st=1   # VLAN 20, tagged both sides
	tx 1 3 "$N" --tag 803 || st=1             # VLAN 10, tagged out: the bridge tags
	tx 1 4 "$N" --tag 804 || st=1             # 4 is no member of 10: floods in 10
	tx 1 2 "$N" --tag 805 --vlan 30 || st=1   # VLAN 30: 1 is no member
	tx 3 1 "$N" --tag 806 || st=1             # untagged on a port without a pvid
	tx 4 1 "$N" --tag 807 || st=1             # VLAN 20: 1 is tagged there
	m_end || st=1
	expect_at 801 "2=$N" && expect_at 802 "2=$N" && expect_at 803 "3=$N" || st=1
	expect_at 804 "2=$N 3=$N" && expect_at 805 "" && expect_at 806 "" || st=1
	expect_at 807 "1=$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_vlan pass_unknown tc_redirect xdp_redirect
	vlan_off
	v_detach "$v" || st=1
	return $st
}

# Per-VLAN state ('bridge vlan set ... state', no MST): a port that is not
# forwarding in VLAN 10 gets nothing and sends nothing there; VLAN 20 is
# untouched.
case_vlanstate() { # VARIANT pre|post
	local v=$1 when=$2 st=0
	vlan_on || return 1
	if [ "$when" = post ]; then v_attach "$v" && vlan_settle "$v" true || return 1; fi
	vlan_learn || return 1
	bridge -n "$SW" vlan set dev "${VPORT[2]}" vid 10 state learning &&
		bridge -n "$SW" vlan set dev "${VPORT[3]}" vid 10 state blocking || return 1
	bridge -n "$SW" -d vlan show | grep -E "$Q|state"
	if [ "$when" = pre ]; then v_attach "$v" || return 1; fi
	m_start || return 1
	tx 1 2 "$N" --tag 811 || st=1            # into a port learning in 10
	tx 2 1 "$N" --tag 812 || st=1            # out of it
	tx 1 3 "$N" --tag 813 || st=1            # into a port blocking in 10
	tx 1 2 "$N" --tag 814 --vlan 20 || st=1  # control: VLAN 20
	m_end || st=1
	expect_at 811 "" && expect_at 812 "" && expect_at 813 "" || st=1
	expect_at 814 "2=$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_state tc_redirect xdp_redirect
	vlan_off
	v_detach "$v" || st=1
	return $st
}

# vlan_protocol 802.1ad: a C-tag (802.1Q) is payload of an untagged frame
# to the bridge. Stand-in 1 sends C-tagged 20 to stand-in 4, whose MAC the
# bridge knows in S-VLAN 20: for the bridge the frame is in VLAN 10 (1's
# pvid), where 4's MAC is unknown: it floods to 2 (untagged there) and 3
# (S-tagged 10), never to 4. An S-tagged 20 frame reaches 4.
case_qinq() { # VARIANT
	local v=$1 st=0
	vlan_on 802.1ad || return 1
	v_attach "$v" || return 1
	learn_all && tx 3 h 1 --tag 9 --vlan 10,ad && tx 1 h 1 --tag 9 --vlan 20,ad || return 1
	m_start || return 1
	tx 1 4 "$N" --tag 821 --vlan 20 || st=1
	tx 1 4 "$N" --tag 822 --vlan 20,ad || st=1
	m_end || st=1
	# 3 is a tagged member of S-VLAN 10: its frames come with the S-tag
	# over the C-tag, which the counter does not parse: counted as frames.
	expect_at 821 "2=$N" && expect_at 822 "4=$N" || st=1
	expect_eq "frames at stand-in 3 (S-tag 10 over the C-tag)" "$(m_get 3 frames)" "$N" || st=1
	[ "$v" = bridge ] || xn status "$BR" --json | jq -c '.bridges[0] | {vlan_filtering, vlan_protocol}'
	show_ctr "$v" "${VPORT[1]}" pass_vlan pass_unknown tc_redirect xdp_redirect
	vlan_off
	v_detach "$v" || st=1
	return $st
}

# vlan_tunnel on stand-in 2's port, VLAN 20 mapped to tunnel id 2020: the
# bridge pops the tag of VLAN 20 on the way out of that port (as for a
# VXLAN device in metadata mode). Stand-in 1 sends to 2 in VLAN 20
# (tagged): all of it arrives at 2, untagged.
case_vtunnel() { # VARIANT pre|post
	local v=$1 when=$2 st=0 t0
	vlan_on || return 1
	if [ "$when" = pre ]; then
		bridge -n "$SW" link set dev "${VPORT[2]}" vlan_tunnel on &&
			bridge -n "$SW" vlan add dev "${VPORT[2]}" vid 20 tunnel_info id 2020 || return 1
		v_attach "$v" && vlan_settle "$v" true || return 1
	else
		# (warm's frames go in VLAN 10: learnt there first)
		v_attach "$v" && vlan_settle "$v" true && vlan_learn && warm "$v" || return 1
		t0=$EPOCHREALTIME
		bridge -n "$SW" link set dev "${VPORT[2]}" vlan_tunnel on &&
			bridge -n "$SW" vlan add dev "${VPORT[2]}" vid 20 tunnel_info id 2020 || return 1
		v_settle "$v" "${VPORT[2]}" flags "(x & PF_FWD) == 0" || st=1
		v_nf "$v" || echo "held $(since "$t0") s after vlan_tunnel on"
	fi
	bridge -n "$SW" -d vlan tunnelshow dev "${VPORT[2]}"
	vlan_learn || return 1
	m_start "u2 ${VNS[2]} eth0 ${VPORT[2]} --untagged --tag 1220" || return 1
	tx 1 2 "$N" --tag 1220 --vlan 20 || st=1
	m_end || st=1
	expect_at 1220 "2=$N" || st=1
	expect_eq "untagged at stand-in 2" "$(m_tag u2 1220)" "$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_state tc_redirect xdp_redirect
	bridge -n "$SW" vlan del dev "${VPORT[2]}" vid 20 tunnel_info id 2020
	bridge -n "$SW" link set dev "${VPORT[2]}" vlan_tunnel off
	vlan_off
	v_detach "$v" || st=1
	return $st
}

# A VLAN device on stand-in 1's port (VID 7): __netif_receive_skb_core()
# hands it the frames of VID 7 after tc ingress and before the bridge.
# Stand-in 1 sends to 2 with VID 7 (none may arrive: the device takes
# them, and they are not for its MAC), VID 8 and untagged (all arrive).
have_8021q() {
	ip -n "$SW" link add link "${VPORT[1]}" name "${VPORT[1]}.9" type vlan id 9 2>/dev/null &&
		ip -n "$SW" link del "${VPORT[1]}.9"
}
case_vlandev() { # VARIANT pre|post
	local v=$1 when=$2 st=0 t0 dev=${VPORT[1]}.7
	learn_all || return 1
	if [ "$when" = pre ]; then
		ip -n "$SW" link add link "${VPORT[1]}" name "$dev" type vlan id 7 &&
			ip -n "$SW" link set "$dev" up || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		t0=$EPOCHREALTIME
		ip -n "$SW" link add link "${VPORT[1]}" name "$dev" type vlan id 7 &&
			ip -n "$SW" link set "$dev" up || return 1
		v_settle "$v" "${VPORT[1]}" flags "(x & PF_FWD) == 0" || st=1
		[ "$v" = bridge ] || v_nf "$v" || echo "held $(since "$t0") s after ip link add"
	fi
	m_start || return 1
	tx 1 2 "$N" --tag 171 --vlan 7 || st=1
	tx 1 2 "$N" --tag 172 --vlan 8 || st=1
	tx 1 2 "$N" --tag 173 || st=1
	m_end || st=1
	expect_at 171 "" && expect_at 172 "2=$N" && expect_at 173 "2=$N" || st=1
	show_ctr "$v" "${VPORT[1]}" pass_state tc_redirect xdp_redirect
	ip -n "$SW" link del "$dev" || st=1
	v_detach "$v" || st=1
	return $st
}

# A VLAN change under traffic: a flow 1 -> 2 in VLAN 10 (tag 831, 50
# frames/s) runs while stand-in 2 leaves VLAN 10. Once the bridge has made
# the change ("bridge vlan del" returned) and, with xdpnet, its decision
# for the flow's next frame is the bridge's (polled, 2 s at most), a second
# stream (tag 832) starts: none of it reaches stand-in 2, all of it floods
# in VLAN 10 to stand-in 3. The second stream is the clock: the first
# one's sequence numbers are none (its sender catches up after a stall,
# and on a slow guest the change itself can come seconds late).
flow_on_bridge() {
	[[ "$(xn trace "$BR" --in "${VPORT[1]}" --src "${VMAC[1]}" --dst "${VMAC[2]}" -j 2>/dev/null |
		jq -r .verdict)" == pass_* ]]
}
static_in_copy() {
	xn fdb "$BR" --json | jq -e --arg m "${VMAC[2]}" \
		'[.entries[] | select(.mac == $m and .vlan == 10 and (.flags | index("static")))] | length > 0' >/dev/null
}
case_vlanchange() { # VARIANT [static]
	local v=$1 static=${2:-} st=0 pid r0 t0 t1 f0=$WORK/vc0.json f1=$WORK/vc1.json
	vlan_on || return 1
	v_attach "$v" && vlan_settle "$v" true || return 1
	vlan_learn || return 1
	# static: stand-in 2's address pinned to its port in VLAN 10; the
	# bridge keeps the entry once the port leaves the VLAN, and drops
	# the frames at egress (br_allowed_egress()) instead of flooding.
	if [ -n "$static" ]; then
		bridge -n "$SW" fdb replace "${VMAC[2]}" dev "${VPORT[2]}" master static vlan 10 || return 1
		[ "$v" = bridge ] || wait_until 5 static_in_copy || { echo "the static entry never reached xdpnet's copy"; return 1; }
	fi
	m_start || return 1
	[ "$v" = bridge ] || status_json "$f0"
	r0=$(sw_rx "${VPORT[1]}")
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[2]}" --src "${VMAC[1]}" --count 250 --rate 50 --tag 831 >/dev/null &
	pid=$!
	track "$pid"
	wait_until 10 rx_ge "${VPORT[1]}" $((r0 + 50)) || st=1
	t0=$EPOCHREALTIME
	bridge -n "$SW" vlan del dev "${VPORT[2]}" vid 10 || st=1
	t1=$EPOCHREALTIME
	if [ "$v" != bridge ]; then
		if wait_until 2 flow_on_bridge; then
			echo "the flow to stand-in 2 takes the bridge $(since "$t1") s after bridge vlan del returned ($(since "$t0") s after it started)"
		else
			echo "2 s after the change xdpnet still bypasses the flow to stand-in 2"
			st=1
		fi
	fi
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[2]}" --src "${VMAC[1]}" --count 100 --rate 50 --tag 832 >/dev/null || st=1
	wait "$pid"
	untrack "$pid"
	[ "$v" = bridge ] || status_json "$f1"
	m_end || st=1
	echo "at 2: $(m_tag 2 831) of the first stream, $(m_tag 2 832) of the second"
	expect_eq "frames sent after the change that reached stand-in 2" "$(m_tag 2 832)" 0 || st=1
	if [ -n "$static" ]; then
		expect_eq "frames sent after the change that reached stand-in 3 (the static entry: no flood)" "$(m_tag 3 832)" 0 || st=1
		bridge -n "$SW" fdb del "${VMAC[2]}" dev "${VPORT[2]}" master vlan 10
	else
		expect_eq "frames sent after the change that flooded to stand-in 3 (VLAN 10)" "$(m_tag 3 832)" 100 || st=1
	fi
	expect_ge "frames of the first stream that reached stand-in 2 (before the change)" "$(m_tag 2 831)" 40 || st=1
	if [ "$v" != bridge ]; then
		expect_ge "frames of the flow xdpnet bypassed before the change" \
			"$(redirected "$v" "${VPORT[1]}" "$f0" "$f1")" 1 || st=1
	fi
	vlan_off
	v_detach "$v" || st=1
	return $st
}

# ---------------------------------------------------------------- run

preflight() {
	local t st=0
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	for t in ip bridge tc ethtool jq bpftool nsenter unshare ping timeout taskset bc "$PY"; do
		command -v "$t" >/dev/null || { echo "missing tool: $t"; st=1; }
	done
	for t in "$RELAY" "$FR" "$XDPNET" "$TCX"; do [ -x "$t" ] || { echo "missing $t (make all)"; st=1; }; done
	for t in "$TCDROP" "$TCXOBJ"; do [ -f "$t" ] || { echo "missing $t (make all)"; st=1; }; done
	ensure_bpffs || { echo "cannot mount bpffs"; st=1; }
	return $st
}
finish() { cleanup; summary; echo "# time: $(elapsed) s"; [ "$T_FAIL" = 0 ]; exit; }
# The other parties' programs, pinned outside xdpnet's folder.
suite_cleanup() { [ "$HAVE_LOCK" = 1 ] && tcx_clear && xf_clear; xf_unlock; }
check "preflight: root, tools, xnt_frames, vnet_relay, xdpnet, bpffs" preflight || finish
check "preflight: no other run of this suite" take_lock || finish
remove_stale

kind_cases() {
	want stp && {
		run_case stp "STP states 0/1/2 set before attach: no frame into or out of those ports" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case stp "STP states 0/1/2 set after attach: no frame into or out of those ports" "$AFTER_FOLLOW" post
	}
	want isolation && {
		run_case isolation "isolated before attach: the pair gets nothing, the rest works" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case isolation "isolated after attach: the pair gets nothing, the rest works" "$AFTER_FOLLOW" post
	}
	# (with no follower too: the bridge switches to the backup port
	# before anyone can be told)
	want backup && {
		run_case backup "a backup port set before attach, the carrier drops: every frame for the port goes to its backup" "$BEFORE_VARIANTS xdp/live/nf" pre
		NOBASE=1 run_case backup "a backup port set after attach, the carrier drops: every frame for the port goes to its backup" "$AFTER_FOLLOW" post
	}
	# (set before attach, with no follower too: attach reads it)
	want neigh && for f in proxy_arp proxy_arp_wifi neigh_suppress; do
		run_case neigh "$f before attach: a unicast ARP request gets the bridge's reply too" "$BEFORE_VARIANTS xdp/live/nf" "$f" pre
		NOBASE=1 run_case neigh "$f after attach: a unicast ARP request gets the bridge's reply too" "$AFTER_FOLLOW" "$f" post
	done
	want moved && run_case moved "a port moved straight to another bridge: nothing between it and the bridge's VMs" "$AFTER_VARIANTS"
	want locked && {
		run_case locked "locked before attach: unknown and foreign sources dropped, authorised pass" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case locked "locked after attach: unknown and foreign sources dropped, authorised pass" "$AFTER_VARIANTS" post
	}
	want learning && {
		run_case learning "learning off before attach: a VM with another's MAC steals nothing" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case learning "learning off after attach: a VM with another's MAC steals nothing" "$AFTER_VARIANTS" post
	}
	want static && {
		run_case static "sticky static entry: not taken over" "$BEFORE_VARIANTS" sticky
		run_case static "plain static entry: moves, frames follow, as on the bridge" "$BEFORE_VARIANTS" plain
	}
	want dynsticky && run_case dynsticky "a dynamic sticky entry under bypassed traffic: kept, sticky, for three ageing times; then not taken over" "$BEFORE_VARIANTS"
	want notify && run_case notify "a static entry with activity notification under bypassed traffic: never inactive; silent, inactive" "$BEFORE_VARIANTS"
	want fdbrace && run_case fdbrace "one MAC from two ports on both CPUs, fdb replace between: frames to it reach the bridge's port, every round" "$BEFORE_VARIANTS"
	want mtu && {
		run_case mtu "egress MTU 1280 set before attach: 1400/1299-byte frames never arrive, 1298 do" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case mtu "egress MTU 1280 set after attach: 1400/1299-byte frames never arrive, 1298 do" "$AFTER_FOLLOW" post
		if [ -d "/proc/sys/net/bridge" ]; then
			run_case mtu "egress MTU 1280, br_netfilter on: frames arrive exactly as on the bridge" "$BEFORE_VARIANTS" pre nf
		else
			note "br_netfilter not loaded: MTU with br_netfilter not tested"
		fi
	}
	want gso && run_case gso "GSO: frames whose segments fit are bypassed, the others take the bridge" "$BEFORE_VARIANTS"
	want ageing && run_case ageing "ageing 2.5 s: a silent MAC ages out and floods, an active one stays" "$BEFORE_VARIANTS"
	want silence && run_case silence "a source silent for 8.5 s of a 10 s ageing is still known: nothing floods" "$BEFORE_VARIANTS"
	if want nfswitch; then
		if [ -d /proc/sys/net/bridge ]; then
			run_case nfswitch "br_netfilter switched on under a bypassed flow, FORWARD DROP: nothing passes from 1 s after" "$AFTER_FOLLOW" sysctl
			run_case nfswitch "the bridge's nf_call_iptables switched on under a bypassed flow, FORWARD DROP: nothing passes from 1 s after" "$AFTER_FOLLOW" bridge
		else
			note "SKIP nfswitch: br_netfilter is not loaded (no /proc/sys/net/bridge)"
		fi
	fi
	if want nfcheck; then
		if [ -d /proc/sys/net/bridge ]; then
			run_case nfcheck "br_netfilter on: an IPv4 header checksum that does not add up is dropped, as by the bridge" "$BEFORE_VARIANTS" ipcsum
			run_case nfcheck "br_netfilter on: bytes beyond the IP packet are trimmed, as by the bridge" "$BEFORE_VARIANTS" trailer
			run_case nfcheck "br_netfilter on, conntrack in use: a fragment whose rest never comes is never delivered, as by the bridge" "$BEFORE_VARIANTS" fragment
		else
			note "SKIP nfcheck: br_netfilter is not loaded (no /proc/sys/net/bridge)"
		fi
	fi
	want shortage && {
		run_case shortage "ageing 10 cs set before attach: the bridge decides every frame (nothing bypassed)" "$BEFORE_VARIANTS" 10 pre
		run_case shortage "ageing 2 cs set before attach: the bridge decides every frame (nothing bypassed)" "$BEFORE_VARIANTS" 2 pre
		NOBASE=1 run_case shortage "ageing 10 cs set after attach: the bridge decides every frame (nothing bypassed)" "$AFTER_FOLLOW" 10 post
	}
	want hub && {
		run_case hub "hub mode (ageing 0) before attach: every frame floods" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case hub "hub mode (ageing 0) after attach: every frame floods" "$AFTER_VARIANTS" post
	}
	want vxlan && run_case vxlan "a MAC moves to a VXLAN port: frames follow within 1 s, no follower" \
		"$(echo " $BEFORE_VARIANTS" | sed 's,\([a-z]*/[a-z]*\),\1/nf,g')"
	want tc && {
		run_case tc "tc drops on ports (ingress filter, egress qdisc, egress filter) set before attach: nothing gets through" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case tc "tc drops on ports set after attach: nothing gets through" "$AFTER_FOLLOW" post
	}
	if want tcnow; then
		if ! have_tcx; then
			note "SKIP tcnow: no tcx in this kernel (struct tcx_entry, Linux 6.6)"
		elif [ "$LIVE_OK" = 0 ]; then
			note "SKIP tcnow: no live datapath here ($LIVE_WHY)"
		else
			run_case tcnow "tc drop filter on a port's ingress after attach, frames at once: none gets through (live)" \
				"$(echo "$AFTER_VARIANTS" | tr ' ' '\n' | grep /live | tr '\n' ' ')" in
			run_case tcnow "tc drop qdisc and filter on ports' egress after attach, frames at once: none gets through (live)" \
				"$(echo "$AFTER_VARIANTS" | tr ' ' '\n' | grep /live | tr '\n' ' ')" out
		fi
	fi
	want promisc && {
		run_case promisc "promiscuous bridge before attach: the host sees every forwarded frame" "$BEFORE_VARIANTS" pre
		NOBASE=1 run_case promisc "promiscuous bridge after attach: the host sees every forwarded frame" "$AFTER_VARIANTS" post
	}
	want tunnel && {
		run_case tunnel "VXLAN noudpcsum, TCP with a partial inner checksum: intact (sha256)" "$BEFORE_VARIANTS xdp/live" vxlan0
		# (Outer checksums: what the XDP stage must prove; the TC stage
		# keeps the offload state whatever the frame. Taps only.)
		[ "$KIND" = tap ] && run_case tunnel "VXLAN with outer UDP checksums (local checksum offload), TCP with a partial inner checksum: intact" "$BEFORE_VARIANTS xdp/live" vxlan
		if [ "$KIND" = tap ] && ip -n "$SW" link add gnvprobe type geneve id 1 remote 192.0.2.1 2>/dev/null; then
			ip -n "$SW" link del gnvprobe
			run_case tunnel "Geneve with outer UDP checksums, TCP with a partial inner checksum: intact" "xdp/live xdp/portable" geneve
		elif [ "$KIND" = tap ]; then
			note "SKIP tunnel geneve: the kernel lacks Geneve (CONFIG_GENEVE)"
		fi
	}
	[ "$KIND" = tap ] && want xdprace && run_case xdprace "the target leaves the devmap between the decision and the redirect, partial checksums, an egress without checksum offload: none arrives broken" "xdp/live"
	[ "$KIND" = veth ] && want qtag && run_case qtag "tags inside a tag, checksum left to the device: dropped where the bridge drops them, else delivered" "$BEFORE_VARIANTS"
	want tcn && {
		run_case tcn "STP topology change (TCN from a VM) before attach: a bypassed flow never floods" "$BEFORE_VARIANTS tc/portable/nf" pre
		NOBASE=1 run_case tcn "STP topology change after attach: a bypassed flow never floods" "$AFTER_VARIANTS" post
	}
	if want vlan || want vlanstate || want qinq || want vtunnel || want vlanchange; then
		if have_vlan_filtering; then
			want vlan && {
				run_case vlan "VLANs set before attach: membership, tagging, pvid as the bridge's" "$BEFORE_VARIANTS" pre
				NOBASE=1 run_case vlan "VLANs set after attach: membership, tagging, pvid as the bridge's" "$AFTER_FOLLOW" post
			}
			want vlanstate && {
				run_case vlanstate "per-VLAN state before attach: nothing in or out of that VLAN" "$BEFORE_VARIANTS" pre
				NOBASE=1 run_case vlanstate "per-VLAN state after attach: nothing in or out of that VLAN" "$AFTER_FOLLOW" post
			}
			want qinq && run_case qinq "802.1ad bridge: a C-tag is payload, an S-tag a VLAN" "$BEFORE_VARIANTS"
			want vtunnel && {
				run_case vtunnel "vlan_tunnel set before attach: the tunnel's VLAN leaves the port untagged" "$BEFORE_VARIANTS" pre
				NOBASE=1 run_case vtunnel "vlan_tunnel set after attach: the tunnel's VLAN leaves the port untagged" "$AFTER_FOLLOW" post
			}
			want vlanchange && {
				run_case vlanchange "a port leaves a VLAN under traffic: nothing sent after the change reaches it" "$AFTER_FOLLOW"
				run_case vlanchange "a port with a static entry leaves a VLAN under traffic: nothing sent after the change reaches it" "$AFTER_FOLLOW" static
			}
		else
			note "SKIP vlan, vlanstate, qinq, vtunnel, vlanchange: the kernel lacks bridge VLAN filtering (CONFIG_BRIDGE_VLAN_FILTERING)"
		fi
	fi
	if want vlandev; then
		if have_8021q; then
			run_case vlandev "a VLAN device on a port before attach: its VLAN's frames reach no stand-in" "$BEFORE_VARIANTS" pre
			NOBASE=1 run_case vlandev "a VLAN device on a port after attach: its VLAN's frames reach no stand-in" "$AFTER_FOLLOW" post
		else
			note "SKIP vlandev: the kernel lacks 802.1Q VLAN devices (CONFIG_VLAN_8021Q)"
		fi
	fi
	if want tcx || want tcxegress; then
		if have_tcx; then
			want tcx && {
				run_case tcx "another tcx program before xdpnet's: it sees every frame and its drops hold; one after sees what xdpnet passes" "$BEFORE_VARIANTS" pre
				NOBASE=1 run_case tcx "another tcx program placed first after attach: it sees every frame and its drops hold" "$AFTER_FOLLOW" post
			}
			want tcxegress && {
				run_case tcxegress "a tcx program on a port's egress set before attach: its drops hold" "$BEFORE_VARIANTS" pre
				NOBASE=1 run_case tcxegress "a tcx program on a port's egress set after attach: its drops hold" "$AFTER_FOLLOW" post
			}
		else
			note "SKIP tcx, tcxegress: the kernel has no tcx (Linux 6.6; the TC stage is a clsact filter there)"
		fi
	fi
	if want xdpfilter; then
		if check "$KIND: xdp-filter is installed and free" xf_free; then
			XF_VARIANTS=$(echo "$BEFORE_VARIANTS $AFTER_FOLLOW" | tr ' ' '\n' | grep '^xdp/' | sort -u | tr '\n' ' ')
			run_case xdpfilter "xdp-filter, then xdpnet (xdp): denied frames never arrive, the rest bypassed; detach leaves the filter" "$XF_VARIANTS" pre
			NOBASE=1 run_case xdpfilter "xdpnet (xdp), then xdp-filter: the same verdicts; unloading the filter leaves xdpnet bypassing" "$XF_VARIANTS" post
			xf_clear
			xf_unlock
		fi
	fi
	want flood && run_case flood "flood of random and host source MACs: host reachable, nothing to the attacker, flow intact" "$BEFORE_VARIANTS"
}

if want blocking; then
	section "STP blocking (a loop)"
	if check "blocking: topology up (STP on, a loop, one link blocking)" blocking_up; then
		live_probe
		for v in bridge $(map_variants "$BEFORE_VARIANTS"); do
			check "STP $v: blocking port: no frame in or out, the forwarding one works" case_blocking "$v"
			v_detach "$v" >/dev/null 2>&1
		done
	fi
	q_topo_down
	NVM=4
fi

for KIND in ${KINDS//,/ }; do
	section "$KIND stand-ins"
	if check "$KIND: topology up (bridge with the host's address, 4 stand-ins)" q_topo_up "$KIND" &&
		check "$KIND: which datapath this kernel loads" live_probe; then
		[ "$LIVE_OK" = 0 ] && note "SKIP the live datapath: the kernel cannot load it ($LIVE_WHY); live variants run as portable, live/nf ones are left out"
		kind_cases
	fi
	q_topo_down
done
section done
finish
