#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Live test of user/filters*.c (through build/tests/xn_filters): a bridge
# with two veth ports whose peers sit in namespaces of their own (the
# "machines"), rules loaded with iptables, ebtables, nft and tc inside the
# bridge's namespace, and for each case the verdict read from the live
# system. Where a case says a rule does (not) apply to frames between the
# two ports, a ping between the machines through the bridge must be
# dropped (must pass), so the judgement is checked against the kernel.
# Root; run under xn-heavy. Everything created carries the prefix "xnf"
# and this run's pid (no lock: runs do not share names).
# Options: --keep (keep the logs), -v (each check's log).
set -u
. "$(dirname "$0")/lib.sh"
TOOL=${XN_FILTERS:-$ROOT/build/tests/xn_filters}
TCDROP=${TCDROP:-$ROOT/build/tests/xnt_tcdrop.bpf.o}
SW=xnf-sw$$ A=xnf-a$$ B=xnf-b$$
BR=xnfbr0
parse_args "[--keep] [-v]" "$@"
traps_install

preflight() {
	local t st=0
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	for t in ip iptables ebtables nft tc ping; do
		command -v $t >/dev/null || { echo "missing tool: $t"; st=1; }
	done
	[ -x "$TOOL" ] || { echo "missing $TOOL (make all)"; st=1; }
	[ -f "$TCDROP" ] || { echo "missing $TCDROP (make all)"; st=1; }
	return $st
}
check "preflight: root, tools, xn_filters" preflight || finish
sw() { ip netns exec "$SW" "$@"; }

topology() {
	local p ns
	for ns in "$SW" "$A" "$B"; do ns_add "$ns" || return 1; done
	sw ip link add $BR type bridge && sw ip link set $BR up &&
		sw ip addr add 10.99.0.1/24 dev $BR || return 1
	sw ip link add xnfo0 type veth peer name xnfo1 || return 1 # not a port
	for p in a b; do
		ns=$A; [ $p = b ] && ns=$B
		sw ip link add xnfp$p type veth peer name eth0 netns "$ns" &&
			sw ip link set xnfp$p master $BR up &&
			ip -n "$ns" link set eth0 up &&
			ip -n "$ns" addr add 10.99.0.1$([ $p = a ] && echo 1 || echo 2)/24 dev eth0 || return 1
	done
}
check "topology: bridge $BR in $SW, ports xnfpa and xnfpb" topology || finish

# br_netfilter: its sysctls must exist in this namespace (per namespace).
if ! sw test -e /proc/sys/net/bridge/bridge-nf-call-iptables; then
	note "SKIP: br_netfilter is not available (no /proc/sys/net/bridge)"
	finish
fi
sw sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1

flush() {
	sw iptables -F; sw iptables -P FORWARD ACCEPT
	sw iptables -t raw -F; sw iptables -t mangle -F; sw iptables -t nat -F
	sw ebtables -F; sw ebtables -t nat -F
	sw nft flush ruleset
	sw sysctl -qw net.bridge.bridge-nf-call-iptables=1
	echo 0 | sw tee /sys/class/net/$BR/bridge/nf_call_iptables >/dev/null
	sw tc qdisc del dev xnfpa clsact 2>/dev/null
	sw tc qdisc del dev xnfpa ingress 2>/dev/null
	sw tc qdisc del dev xnfpb root 2>/dev/null
	return 0
}

# The machines can ping each other once (no other traffic on the bridge).
ping_ab() { ip netns exec "$A" ping -c 1 -W 1 -q 10.99.0.12 >/dev/null 2>&1; }

# case_ DESC VERDICT FILTERED PING [SETUP...]: SETUP runs in the bridge's
# namespace; the tool must say VERDICT, list FILTERED ports ("-" for none)
# as filtered, and a ping must "pass" or "drop" (or "-": not checked).
verdict_is() {
	local want=$1 filt=$2 ping=$3 got rc=0 p
	shift 3
	flush
	"$@" || { echo "setup failed"; return 1; }
	sw "$TOOL" $BR >"$WORK/out" 2>"$WORK/err" || rc=$?
	cat "$WORK/out" "$WORK/err"
	got=$(sed -n 's/^bridge [^ ]* verdict //p' "$WORK/out")
	expect_eq "verdict (exit $rc, stderr $(wc -c <"$WORK/err") bytes)" "$got" "$want" &&
		[ $rc = 0 ] && [ ! -s "$WORK/err" ] || return 1
	for p in xnfpa xnfpb; do
		if [[ " $filt " == *" $p "* ]]; then
			grep -q "^port $p filtered" "$WORK/out" || { echo "FAIL: $p not filtered"; return 1; }
		else
			grep -q "^port $p bypassable" "$WORK/out" || { echo "FAIL: $p filtered"; return 1; }
		fi
	done
	case $ping in
	pass) ping_ab || { echo "FAIL: ping through the bridge failed"; return 1; } ;;
	drop) ! ping_ab || { echo "FAIL: ping through the bridge passed"; return 1; } ;;
	esac
}
case_() {
	local desc=$1 want=$2
	shift
	check "$desc ($want)" verdict_is "$@"
}

case_ "no rules" clean "-" pass true
case_ "accounting-only rule on the bridge" clean "-" pass \
	sw iptables -A FORWARD -i $BR -o $BR -p icmp
case_ "rule naming another device" clean "-" pass \
	sw iptables -A FORWARD -o xnfo0 -p icmp -j DROP
case_ "-i names a port: not what br_netfilter gives" clean "-" pass \
	sw iptables -A FORWARD -i xnfpa -p icmp -j DROP
case_ "port-specific rule (physdev-in)" ports "xnfpa" drop \
	sw iptables -A FORWARD -m physdev --physdev-in xnfpa -p icmp -j DROP
case_ "bridge-wide rule (-o the bridge)" match "-" drop \
	sw iptables -A FORWARD -o $BR -p icmp -j DROP
case_ "conntrack INVALID drop" match "-" pass \
	sw iptables -A FORWARD -m conntrack --ctstate INVALID -j DROP
case_ "policy DROP" match "-" drop sw iptables -P FORWARD DROP
setup_bridged() { sw iptables -P FORWARD DROP && sw iptables -A FORWARD -m physdev --physdev-is-bridged -j ACCEPT; }
case_ "policy DROP behind an accept of bridged frames" clean "-" pass setup_bridged
setup_off() { sw iptables -A FORWARD -o $BR -p icmp -j DROP && sw sysctl -qw net.bridge.bridge-nf-call-iptables=0; }
case_ "bridge-nf-call-iptables=0" clean "-" pass setup_off
setup_opt() { setup_off && echo 1 | sw tee /sys/class/net/$BR/bridge/nf_call_iptables >/dev/null; }
case_ "bridge-nf-call-iptables=0, the bridge's nf_call_iptables=1" match "-" drop setup_opt
case_ "ebtables rule on a port" ports "xnfpb" drop \
	sw ebtables -A FORWARD -i xnfpb -p IPv4 -j DROP
case_ "ebtables broadcast-only rule" clean "-" pass \
	sw ebtables -A FORWARD -d Broadcast -j DROP
nft_bridge() {
	sw nft add table bridge xnf &&
	sw nft add chain bridge xnf xfwd '{ type filter hook forward priority 0; }' &&
	sw nft add rule bridge xnf xfwd "$@"
}
case_ "nft bridge family rule" match "-" drop nft_bridge ip protocol icmp drop
case_ "nft bridge family counter only" clean "-" pass nft_bridge counter
case_ "nft bridge family rule on a port" ports "xnfpa" drop \
	nft_bridge iifname xnfpa ip protocol icmp drop
nft_ingress() {
	sw nft add table netdev xnf &&
	sw nft add chain netdev xnf xin "{ type filter hook ingress device xnfpb priority 0; }" &&
	sw nft add rule netdev xnf xin ip protocol icmp drop
}
case_ "nft netdev ingress chain on a port" ports "xnfpb" drop nft_ingress

# tc of a port's own: a filter on its ingress holds the port; a qdisc on
# its egress keeps XDP redirects out of it, and is no filter.
tc_in() {
	sw tc qdisc add dev xnfpa clsact &&
		sw tc filter add dev xnfpa ingress pref 7 bpf da obj "$TCDROP" sec tc
}
case_ "tc filter on a port's ingress" ports "xnfpa" drop tc_in
# libvirt's <bandwidth outbound>: an ingress qdisc, a filter at parent ffff:.
tc_legacy() {
	sw tc qdisc add dev xnfpa handle ffff: ingress &&
		sw tc filter add dev xnfpa parent ffff: pref 7 bpf da obj "$TCDROP" sec tc
}
case_ "tc filter on a port's ingress qdisc (parent ffff:)" ports "xnfpa" drop tc_legacy
tc_out() { sw tc qdisc add dev xnfpb root pfifo limit 0; }
tc_out_check() {
	verdict_is clean "-" drop tc_out || return 1
	grep -q "^port xnfpb no XDP redirects in: tc on its egress (qdisc pfifo)" "$WORK/out" ||
		{ echo "FAIL: xnfpb's egress qdisc not named"; return 1; }
}
check "tc qdisc on a port's egress: no XDP redirects into it (clean)" tc_out_check

# A tool that fails: unknown, quietly, and named.
failing_tool() {
	local rc=0
	flush
	mkdir -p "$WORK/bin"
	printf '#!/bin/sh\necho broken >&2\nexit 1\n' >"$WORK/bin/iptables-nft-save"
	chmod +x "$WORK/bin/iptables-nft-save"
	sw env PATH="$WORK/bin:$PATH" "$TOOL" $BR >"$WORK/out" 2>"$WORK/err" || rc=$?
	cat "$WORK/out" "$WORK/err"
	[ $rc = 0 ] && grep -q "verdict unknown" "$WORK/out" &&
		grep -q "^unknown iptables-nft-save failed" "$WORK/out" && [ ! -s "$WORK/err" ]
}
check "a failing tool gives unknown" failing_tool
# No such bridge: exit 3, one line.
no_bridge() {
	local rc=0
	sw "$TOOL" xnfnone >"$WORK/out" 2>&1 || rc=$?
	cat "$WORK/out"
	expect_eq "exit" "$rc" 3 && expect_eq "lines" "$(wc -l <"$WORK/out")" 1
}
check "no such bridge: exit 3, one line" no_bridge
finish
