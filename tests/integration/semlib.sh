# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for tests/integration/semantics.sh (sourced after lib.sh).
#
# Everything carries the prefix "xnq" (SEM_PREFIX, below): the switch namespace xnq-sw with the
# bridge xnqbr0 (MAC 02:98:0N:00:00:fe, the host's address 10.98.N.254/24),
# and four stand-in VMs of one kind, veth (N=1) or tap behind vnet_relay
# (N=2): stand-in i in namespace xnq-vi / xnq-ti, device eth0, MAC
# 02:98:0N:00:00:0i, 10.98.N.i/24, no IPv6 (nothing but the test's frames);
# its bridge port xnqvi / xnqti.

# SEM_PREFIX: another prefix of three letters, for a second run beside
# this one (make check runs the veth and the tap stand-ins side by side).
Q=${SEM_PREFIX:-xnq}
SW=$Q-sw
BR=${Q}br0
PIN=$PIN_ROOT/$BR
LOCK=/run/lock/$Q-semantics.pid
FR=${FR:-$ROOT/build/tests/xnt_frames}
FENCE=4000000000 # tag of fence frames
NVM=4

KIND=      # veth | tap
NET=       # 1 | 2
BRMAC=
HOSTIP=
VNS=()     # by stand-in number (index 0 unused)
VPORT=()
VMAC=()
VIP=()
declare -A RPID # relay pid by stand-in number (taps)

# q_ns_add NS: a namespace without IPv6 (no router solicitations, no MLD:
# the bridge would learn from them).
q_ns_add() {
	ns_add "$1" || return 1
	nsx "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
}

# ------------------------------------------------------------- topology

# br_nf 0|1: br_netfilter for the switch's bridged IPv4/IPv6 (the plain
# bridge: 0; when the module is not loaded there is nothing to switch).
br_nf() {
	[ -d /proc/sys/net/bridge ] || [ "$1" = 0 ] || { echo "br_netfilter not loaded"; return 1; }
	[ -d /proc/sys/net/bridge ] || return 0
	nsx "$SW" sysctl -qw net.bridge.bridge-nf-call-iptables="$1" \
		net.bridge.bridge-nf-call-ip6tables="$1"
}

q_switch_up() {
	q_ns_add "$SW" || return 1
	BRMAC=02:98:0$NET:00:00:fe
	HOSTIP=10.98.$NET.254
	# STP off; the forward delay is long: the kernel would otherwise
	# advance a port set to listening or learning by hand after it.
	ip -n "$SW" link add "$BR" address "$BRMAC" type bridge stp_state 0 \
		forward_delay 360000 || return 1
	br_nf 0 || return 1
	ip -n "$SW" addr add "$HOSTIP/24" dev "$BR" || return 1
	ip -n "$SW" link set "$BR" up
}

# vm_add I: stand-in I of $KIND, enslaved, addressed, up.
vm_add() {
	local i=$1 k=${KIND:0:1} ns port pid
	ns=$Q-$k$i
	port=$Q$k$i
	q_ns_add "$ns" || return 1
	if [ "$KIND" = veth ]; then
		ip -n "$SW" link add "$port" type veth peer name eth0 netns "$ns" || return 1
	else
		: >"$WORK/relay$i.out"
		ip netns exec "$SW" "$RELAY" --host-tap "$port" --guest-tap eth0 \
			--netns "$ns" >"$WORK/relay$i.out" 2>>"$WORK/relay$i.err" &
		pid=$!
		track "$pid"
		RPID[$i]=$pid
		wait_line "$WORK/relay$i.out" READY 5 ||
			{ echo "relay $i not ready"; cat "$WORK/relay$i.err"; return 1; }
	fi
	ip -n "$SW" link set "$port" master "$BR" up || return 1
	VNS[$i]=$ns
	VPORT[$i]=$port
	VMAC[$i]=02:98:0$NET:00:00:0$i
	VIP[$i]=10.98.$NET.$i
	ip -n "$ns" link set eth0 address "${VMAC[$i]}" || return 1
	ip -n "$ns" addr add "${VIP[$i]}/24" dev eth0 || return 1
	ip -n "$ns" link set eth0 up
}

# q_topo_up veth|tap
q_topo_up() {
	local i
	KIND=$1
	[ "$KIND" = veth ] && NET=1 || NET=2
	VNS=("") VPORT=("") VMAC=("") VIP=("")
	q_switch_up || return 1
	for ((i = 1; i <= NVM; i++)); do vm_add "$i" || return 1; done
	PORTS=("${VPORT[@]:1}")
	wait_ports_up || return 1
	learn_all
	bridge -n "$SW" fdb show br "$BR" | grep -i 02:98:
}

q_topo_down() {
	local i n
	[ -e "$PIN" ] && xn detach "$BR" >/dev/null 2>&1
	for i in "${!RPID[@]}"; do stop_pid "${RPID[$i]}"; done
	RPID=()
	for n in $(ip netns list | awk '{print $1}' | grep "^$Q-"); do ns_del "$n"; done
	VNS=() VPORT=() VMAC=() VIP=() PORTS=()
	return 0
}

# ------------------------------------------------------------- frames

# rx_of DEV: frames the switch-side device DEV received.
sw_rx() { rx_of "$SW" "$1"; }

# tx FROM TO N [xnt_frames send args]: N frames from stand-in FROM to the
# MAC of TO (a stand-in number, h for the host, or a MAC) with tag FROM*10+TO
# (unless the args say otherwise); returns once FROM's bridge port has
# received them all (5 s at most).
tx() {
	local from=$1 to=$2 n=$3 dst tag r0 i
	shift 3
	case $to in
	h) dst=$BRMAC tag=${from}9 ;;
	*:*) dst=$to tag=${from}0 ;;
	*) dst=${VMAC[$to]} tag=$from$to ;;
	esac
	local r=0
	rx_var r0 "$SW" "${VPORT[$from]}"
	nsx "${VNS[$from]}" "$FR" send eth0 --dst "$dst" --src "${VMAC[$from]}" \
		--count "$n" --tag "$tag" "$@" >/dev/null || return 1
	for ((i = 0; i < 100; i++)); do
		rx_var r "$SW" "${VPORT[$from]}" && [ "$r" -ge $((r0 + n)) ] && return 0
		sleep 0.05
	done
	echo "tx $from->$to: port ${VPORT[$from]} received $(($(sw_rx "${VPORT[$from]}") - r0)) of $n"
	return 1
}

# learn_all: every stand-in sends one frame to the host; the bridge learns
# (or moves back) its MAC on its port.
learn_all() {
	local i
	for ((i = 1; i <= NVM; i++)); do tx "$i" h 1 --tag 9 || return 1; done
}

# ------------------------------------------------------------- counting
#
# m_start [SPEC...]: a counter in every stand-in (IDs 1..NVM, all our
# frames by tag) plus one per SPEC "ID NS DEV FENCE_DEV [count args]";
# m_end: a fence frame out of each counter's switch-side device (sent
# after everything else, so that whatever was under way has arrived; past
# the device's qdisc and tc egress), then
# M[ID] = the counter's line. A missing fence is an error.

declare -A C_PID M
C_IDS=()

# (--timeout: only a net for a counter nobody fences; a case on a loaded
# host ran past 30 s, and its counters had gone before the fence came.)
cnt_start() { # ID NS DEV FENCE_DEV [args]
	local id=$1 ns=$2 dev=$3 fdev=$4 pid
	shift 4
	: >"$WORK/cnt.$id"
	ip netns exec "$ns" "$FR" count "$dev" --fence "$FENCE" --timeout 300 "$@" \
		>"$WORK/cnt.$id" 2>&1 &
	pid=$!
	track "$pid"
	C_PID[$id]=$pid
	C_IDS+=("$id")
	echo "$fdev" >"$WORK/cnt.$id.fdev"
}

m_start() {
	local i s id
	C_IDS=()
	M=()
	for ((i = 1; i <= NVM; i++)); do
		# M_SKIP: stand-ins left out (a fence cannot reach a
		# stand-in whose eth0 is down)
		[[ " ${M_SKIP-} " == *" $i "* ]] && continue
		cnt_start "$i" "${VNS[$i]}" eth0 "${VPORT[$i]}"
	done
	for s in "$@"; do
		# shellcheck disable=SC2086
		cnt_start $s
	done
	for id in "${C_IDS[@]}"; do
		wait_line "$WORK/cnt.$id" READY 5 || { echo "counter $id not ready"; cat "$WORK/cnt.$id"; return 1; }
	done
}

m_end() {
	local id i st=0 fdev
	for id in "${C_IDS[@]}"; do
		read -r fdev <"$WORK/cnt.$id.fdev"
		# --direct: past the port's qdisc and tc egress, which a
		# case may have set to drop everything.
		nsx "$SW" "$FR" send "$fdev" --dst ff:ff:ff:ff:ff:ff \
			--src 02:98:00:00:00:fd --tag "$FENCE" --direct >/dev/null
	done
	for id in "${C_IDS[@]}"; do
		for ((i = 0; i < 100; i++)); do
			kill -0 "${C_PID[$id]}" 2>/dev/null || break
			sleep 0.05
		done
		stop_pid "${C_PID[$id]}"
		M[$id]=$(grep '^frames=' "$WORK/cnt.$id")
		echo "rx $id: ${M[$id]}"
		case ${M[$id]} in *fence=1*) ;; *) echo "counter $id: no fence"; st=1 ;; esac
	done
	C_IDS=()
	return $st
}

# m_get ID FIELD: a field of counter ID's line (frames, seq_ge, first_seq,
# over, ...); m_tag ID TAG: its frames with that tag.
# (In bash alone: the suites call these thousands of times, and every
# process costs 10-20 ms of CPU on a 2-core VM.)
m_get() {
	local kv
	for kv in ${M[$1]}; do
		[ "${kv%%=*}" = "$2" ] && echo "${kv#*=}"
	done
	return 0
}
m_tag() {
	local kv tags
	tags=$(m_get "$1" tags)
	for kv in ${tags//,/ }; do
		[ "${kv%%:*}" = "$2" ] && { echo "${kv#*:}"; return 0; }
	done
	echo 0
}

# expect_at TAG "I=N ..." : stand-in I received N frames with TAG, and
# every stand-in not listed received none.
expect_at() {
	local tag=$1 spec=$2 i n want kv st=0
	for ((i = 1; i <= NVM; i++)); do
		want=
		for kv in $spec; do [ "${kv%%=*}" = "$i" ] && want=${kv#*=}; done
		n=$(m_tag "$i" "$tag")
		echo "tag $tag at stand-in $i: got $n, want ${want:-0}"
		[ "$n" = "${want:-0}" ] || st=1
	done
	return $st
}

# ------------------------------------------------------------- xdpnet

# A variant: MODE/BUILD[/nf]: tc|xdp, live|portable, nf = --no-follow.
# "bridge" is the plain bridge (nothing attached).
v_mode() { echo "${1%%/*}"; }
v_build() { local r=${1#*/}; echo "${r%%/*}"; }
v_nf() { case $1 in */nf) return 0 ;; esac; return 1; }

# Does the kernel lack what the live datapath needs? Prints why.
live_missing() {
	if ! bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
		grep -q "STRUCT 'net_bridge_port'"; then
		echo "no struct net_bridge_port in /sys/kernel/btf/vmlinux (bridge not built in)"
		return 0
	fi
	return 1
}

# v_attach VARIANT: attach as the variant says and check that status
# says the same (datapath, mode, follower).
v_attach() {
	local v=$1 mode build f=$WORK/att.json rc t0
	[ "$v" = bridge ] && return 0
	mode=$(v_mode "$v")
	build=$(v_build "$v")
	t0=$EPOCHREALTIME
	echo "+ xdpnet attach $BR --mode $mode $(v_nf "$v" && echo --no-follow) ($build datapath)"
	if [ "$build" = portable ]; then
		XDPNET_DATAPATH=portable XDPNET_FOLLOWER=daemon xn attach "$BR" --mode "$mode" \
			$(v_nf "$v" && echo --no-follow)
	else
		XDPNET_FOLLOWER=daemon xn attach "$BR" --mode "$mode" $(v_nf "$v" && echo --no-follow)
	fi
	rc=$?
	echo "# attach took $(since "$t0") s"
	[ "$rc" = 0 ] || { echo "attach exit $rc"; return 1; }
	ATTACHED_MODE=$mode
	xn status "$BR" --json >"$f" || return 1
	jq -c '.bridges[0] | {datapath, fdb_mirror, mode, bypass, follower}' "$f"
	if [ "$(jq -r '.bridges[0].datapath' "$f")" != "$build" ]; then
		echo "FAIL: datapath $(jq -r '.bridges[0].datapath' "$f"), want $build"
		[ "$build" = live ] && live_missing
		return 1
	fi
	jq -e --arg m "$mode" --argjson fol "$(v_nf "$v" && echo false || echo true)" \
		'.bridges[0] | .mode == $m and .follower.running == $fol' "$f" >/dev/null ||
		{ echo "FAIL: mode or follower not as asked"; return 1; }
	# --mode xdp: native XDP on taps only (but where a case put another
	# party's program there: semshare.sh); veths keep TC and say why.
	[ "$mode" = xdp ] && ! jq -e '[.bridges[0].ports[] | select(.name | test("^'"$Q"'[tv][0-9]$")) |
		if .kind == "veth" then .xdp == false and (.tc_reason | test("veth"))
		else .xdp == true or (.tc_reason | test("tcx ingress|another XDP program")) end] | all' \
		"$f" >/dev/null && { echo "FAIL: XDP stage not on exactly the taps:"; jq -c '.bridges[0].ports[] | {name, kind, xdp, tc_reason}' "$f"; return 1; }
	return 0
}

v_detach() {
	local p t0
	[ "$1" = bridge ] && return 0
	t0=$EPOCHREALTIME
	xn detach "$BR" || { echo "detach failed"; return 1; }
	echo "# detach took $(since "$t0") s"
	ATTACHED_MODE=
	if p=$(follower_pid); then echo "FAIL: follower $p still runs"; return 1; fi
}

# port_field PORT FIELD: a field of the datapath's entry for a carried
# port (ports map), -1 when there is none.
port_field() {
	local ifi
	ifi=$(ip -n "$SW" -j link show "$1" | jq '.[0].ifindex')
	bpftool map dump pinned "$PIN/ports" -j 2>/dev/null |
		jq --argjson i "$ifi" --arg f "$2" \
			'[.[] | .formatted.value // .value | select(.ifindex == $i) | .[$f]] | .[0] // -1'
}

# v_settle VARIANT PORT FIELD TEST: with a follower, wait (2 s at most)
# until it has carried a bridge change into the port's entry: TEST is a
# bash arithmetic expression in x, the field's value ("(x & 1) == 0").
# Without a follower nothing waits: what the datapath does then is what
# is tested.
v_settle() {
	local v=$1 port=$2 field=$3 test=$4 i x
	[ "$v" = bridge ] && return 0
	v_nf "$v" && return 0
	for ((i = 1; i <= 40; i++)); do
		x=$(port_field "$port" "$field")
		[ "$x" -ge 0 ] && (( $test )) && return 0
		sleep 0.05
	done
	echo "the follower did not update $port: $field=$x, want $test"
	return 1
}
# enum xdpnet_port_flags (include/xdpnet.h)
PF_FWD=1 PF_ISOLATED=2 PF_LEARNING=4 PF_LOCKED=8

# redirected VARIANT PORT FILE0 FILE1: the port's bypassed frames between two
# status --json files.
redirected() {
	echo $(($(ctr "$4" "$2" tc_redirect) + $(ctr "$4" "$2" xdp_redirect) -
		$(ctr "$3" "$2" tc_redirect) - $(ctr "$3" "$2" xdp_redirect)))
}

# show_ctr VARIANT PORT COUNTER...: print counters of a port (status).
show_ctr() {
	local v=$1 port=$2 c f=$WORK/ctr.json
	shift 2
	[ "$v" = bridge ] && return 0
	status_json "$f"
	for c in "$@"; do echo "$port $c: $(ctr "$f" "$port" "$c")"; done
}

# stp_off: STP off and the long forward delay again (two steps: with STP
# on the kernel refuses a delay over 30 s).
stp_off() {
	ip -n "$SW" link set "$BR" type bridge stp_state 0 &&
		ip -n "$SW" link set "$BR" type bridge forward_delay 360000
}

# q_reset: what a case may have left (a failed case returns early): no
# counters, nothing attached, STP off, not promiscuous, every port
# forwarding, not isolated, not locked, learning, no backup port, no
# proxy_arp or kin, no tc of the test's, MTU 1500, ageing 300 s; the
# bridge knows every stand-in on its port.
q_reset() {
	local id i
	for id in "${C_IDS[@]}"; do stop_pid "${C_PID[$id]}"; done
	C_IDS=()
	[ -e "$PIN" ] && xn detach "$BR" >/dev/null 2>&1
	ATTACHED_MODE=
	# One ip and one bridge for the switch (a process costs 10-20 ms of
	# CPU here); STP off before the long forward delay (stp_off).
	{
		echo "link set $BR type bridge ageing_time 30000 stp_state 0"
		echo "link set $BR type bridge forward_delay 360000"
		echo "link set $BR promisc off"
		for ((i = 1; i <= NVM; i++)); do
			echo "link set ${VPORT[$i]} mtu 1500"
			echo "link set ${VPORT[$i]} type bridge_slave proxy_arp off proxy_arp_wifi off neigh_suppress off"
		done
	} | ip -n "$SW" -force -batch - || { stp_off; ip -n "$SW" link set "$BR" promisc off; }
	declare -F vlan_off >/dev/null && have_vlan_filtering && vlan_off
	br_nf 0
	declare -F tc_clear >/dev/null && tc_clear "${VPORT[@]:1:NVM}"
	declare -F tcx_clear >/dev/null && tcx_clear && xf_clear
	for ((i = 1; i <= NVM; i++)); do
		echo "link set dev ${VPORT[$i]} state 3 isolated off locked off learning on nobackup_port"
	done | bridge -n "$SW" -force -batch -
	[ -n "${STATIC_LEFT-}" ] && bridge -n "$SW" fdb del $STATIC_LEFT master static && STATIC_LEFT=
	[ -n "${NEIGH_LEFT-}" ] && ip -n "$SW" neigh del "$NEIGH_LEFT" dev "$BR" && NEIGH_LEFT=
	for ((i = 1; i <= NVM; i++)); do
		ip -n "${VNS[$i]}" link set eth0 mtu 1500 up
	done
	learn_all
}
