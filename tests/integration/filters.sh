#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Live test of user/filters*.c (through build/tests/xn_filters): a bridge
# with two veth ports whose peers sit in namespaces of their own (the
# "machines"), rules loaded with iptables, ebtables and nft inside the
# bridge's namespace, and for each case the verdict read from the live
# system. Where a case says a rule does (not) apply to frames between the
# two ports, a ping between the machines through the bridge must be
# dropped (must pass), so the judgement is checked against the kernel.
# Root; run under xn-heavy. Everything created carries the prefix "xnf".
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TOOL=${XN_FILTERS:-$ROOT/build/tests/xn_filters}
SW=xnf-sw$$ A=xnf-a$$ B=xnf-b$$
BR=xnfbr0
PASS=0 FAIL=0 N=0
WORK=$(mktemp -d /tmp/xnf-live.XXXXXX)

cleanup() {
	ip netns del "$SW" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

ok() { N=$((N + 1)); PASS=$((PASS + 1)); echo "ok $N - $1"; }
not_ok() {
	N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"
	sed 's/^/#   | /' "$WORK/out"
}
sw() { ip netns exec "$SW" "$@"; }

[ -x "$TOOL" ] || { echo "xn_filters not built ($TOOL)"; echo "0 passed, 1 failed"; exit 1; }
for t in iptables ebtables nft; do
	command -v $t >/dev/null || { echo "$t missing"; echo "0 passed, 1 failed"; exit 1; }
done

for n in "$SW" "$A" "$B"; do ip netns add "$n" && ip -n "$n" link set lo up; done
sw ip link add $BR type bridge
sw ip link set $BR up
sw ip addr add 10.99.0.1/24 dev $BR
sw ip link add xnfo0 type veth peer name xnfo1 # not a port
for p in a b; do
	ns=$A; [ $p = b ] && ns=$B
	sw ip link add xnfp$p type veth peer name eth0 netns "$ns"
	sw ip link set xnfp$p master $BR up
	ip -n "$ns" link set eth0 up
	ip -n "$ns" addr add 10.99.0.1$([ $p = a ] && echo 1 || echo 2)/24 dev eth0
done

# br_netfilter: its sysctls must exist in this namespace (per namespace).
if ! sw test -e /proc/sys/net/bridge/bridge-nf-call-iptables; then
	echo "# skip: br_netfilter is not available (no /proc/sys/net/bridge)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
sw sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1

flush() {
	sw iptables -F; sw iptables -P FORWARD ACCEPT
	sw iptables -t raw -F; sw iptables -t mangle -F; sw iptables -t nat -F
	sw ebtables -F; sw ebtables -t nat -F
	sw nft flush ruleset
	sw sysctl -qw net.bridge.bridge-nf-call-iptables=1
	echo 0 | sw tee /sys/class/net/$BR/bridge/nf_call_iptables >/dev/null
}

# The machines can ping each other once (no other traffic on the bridge).
ping_ab() { ip netns exec "$A" ping -c 1 -W 1 -q 10.99.0.12 >/dev/null 2>&1; }

# case DESC VERDICT FILTERED PING [SETUP...]: SETUP runs in the bridge's
# namespace; the tool must say VERDICT, list FILTERED ports ("-" for none)
# as filtered, and a ping must "pass" or "drop" (or "-": not checked).
case_() {
	local desc=$1 want=$2 filt=$3 ping=$4 got rc=0 p
	shift 4
	flush
	"$@" >"$WORK/out" 2>&1 || { echo "setup failed" >>"$WORK/out"; not_ok "$desc"; return; }
	sw "$TOOL" $BR >"$WORK/out" 2>"$WORK/err" || rc=$?
	cat "$WORK/err" >>"$WORK/out"
	got=$(sed -n 's/^bridge [^ ]* verdict //p' "$WORK/out")
	[ $rc = 0 ] && [ "$got" = "$want" ] && [ ! -s "$WORK/err" ] || { not_ok "$desc: verdict '$got' (want $want, exit $rc)"; return; }
	for p in xnfpa xnfpb; do
		if [[ " $filt " == *" $p "* ]]; then
			grep -q "^port $p filtered" "$WORK/out" || { not_ok "$desc: $p not filtered"; return; }
		else
			grep -q "^port $p bypassable" "$WORK/out" || { not_ok "$desc: $p filtered"; return; }
		fi
	done
	case $ping in
	pass) ping_ab || { not_ok "$desc: ping through the bridge failed"; return; } ;;
	drop) ! ping_ab || { not_ok "$desc: ping through the bridge passed"; return; } ;;
	esac
	ok "$desc ($want)"
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

# A tool that fails: unknown, quietly, and named.
flush
mkdir -p "$WORK/bin"
printf '#!/bin/sh\necho broken >&2\nexit 1\n' >"$WORK/bin/iptables-nft-save"
chmod +x "$WORK/bin/iptables-nft-save"
rc=0
sw env PATH="$WORK/bin:$PATH" "$TOOL" $BR >"$WORK/out" 2>"$WORK/err" || rc=$?
if [ $rc = 0 ] && grep -q "verdict unknown" "$WORK/out" &&
	grep -q "^unknown iptables-nft-save failed" "$WORK/out" && [ ! -s "$WORK/err" ]; then
	ok "a failing tool gives unknown"
else
	cat "$WORK/err" >>"$WORK/out"; not_ok "a failing tool gives unknown"
fi
# No such bridge: exit 3, one line.
rc=0
sw "$TOOL" xnfnone >"$WORK/out" 2>&1 || rc=$?
if [ $rc = 3 ] && [ "$(wc -l <"$WORK/out")" = 1 ]; then ok "no such bridge"; else not_ok "no such bridge (exit $rc)"; fi

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
