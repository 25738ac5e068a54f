#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# contrib/bash-completion: what TAB offers after each kind of word, with
# `ip` replaced by a function that lists two bridges (no root, no devices).
# It reads the built xdpnet's option tables (XDPNET_COMPLETE=1 xdpnet).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
XDPNET=${XDPNET:-$ROOT/build/xdpnet}
if [ ! -x "$XDPNET" ]; then
	echo "not ok - $XDPNET not built: completion reads its tables"
	exit 1
fi
PATH=$(dirname "$XDPNET"):$PATH
# shellcheck source=contrib/bash-completion
. "$ROOT/contrib/bash-completion"

ip() {
	if [ "$*" = "-o link show master xncbr0" ]; then
		echo '4: vnet0@if3: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 master xncbr0 state UP'
		echo '5: vnet1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 master xncbr0 state UP'
		return 0
	fi
	[ "$*" = "-o link show type bridge" ] || return 1
	echo '3: xncbr0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP'
	echo '7: virbr1: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 qdisc noqueue state DOWN'
}

pass=0 fail=0
norm() { printf '%s\n' "$@" | LC_ALL=C sort | paste -sd ' '; }
# expect "WORDS" "CANDIDATES": WORDS as bash splits the line (a word "="
# where '=' splits it), the last one being the word under the cursor.
expect() {
	local got
	read -r -a COMP_WORDS <<<"xdpnet $1"
	[[ $1 == *" " || -z $1 ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_xdpnet
	local -a want
	read -r -a want <<<"$2"
	got=$(norm "${COMPREPLY[@]}")
	if [ "$got" = "$(norm "${want[@]}")" ]; then
		echo "ok - 'xdpnet $1' -> $2"
		pass=$((pass + 1))
	else
		echo "not ok - 'xdpnet $1' -> '$got', expected '$2'"
		fail=$((fail + 1))
	fi
}

GLOBAL="-v --verbose -h --help -V --version"
expect "" "attach detach status fdb stats latency exporter dump trace follow help version $GLOBAL"
expect "st" "status stats"
expect "-v " "attach detach status fdb stats latency exporter dump trace follow help version $GLOBAL"
expect "f" "fdb follow"
expect "attach " "xncbr0 virbr1"
expect "attach v" "virbr1"
expect "attach xncbr0 -" "--mode --no-follow --follow --bypass-filters --fdb-size --static-size --vlan-size $GLOBAL"
expect "attach xncbr0 --fdb" "--fdb-size"
expect "attach xncbr0 --fdb-size " ""
expect "attach xncbr0 --n" "--no-follow"
expect "attach xncbr0 --f" "--fdb-size --follow"
expect "attach xncbr0 --fo" "--follow"
expect "attach xncbr0 --mode " "tc xdp"
expect "attach xncbr0 --mode x" "xdp"
expect "attach xncbr0 --mode = " "tc xdp"
expect "attach xncbr0 --mode = t" "tc"
expect "attach --mode xdp " "xncbr0 virbr1"
expect "attach -m tc x" "xncbr0"
expect "attach xncbr0 --mode xdp " ""
expect "detach " "xncbr0 virbr1"
expect "detach xncbr0 -" "$GLOBAL"
expect "follow " "xncbr0 virbr1"
expect "follow xncbr0 " ""
expect "status " "xncbr0 virbr1"
expect "status --" "--json --pretty --verbose --help --version"
expect "fdb xncbr0 --" "--json --pretty --verbose --help --version"
expect "stats xncbr0 --" "--interval --count --json --pretty --prom --latency-pairs --latency --reset --verbose --help --version"
expect "stats xncbr0 --interval " ""
expect "stats xncbr0 -i 1 " ""
expect "stats -i 1 " "xncbr0 virbr1"
expect "latency " "xncbr0 virbr1"
expect "latency xncbr0 " "on off"
expect "latency xncbr0 o" "on off"
expect "latency xncbr0 on " ""
expect "exporter --listen " "127.0.0.1:9435 [::1]:9435"
expect "exporter --" "--listen --latency-pairs --verbose --help --version"
expect "dump xncbr0 --" "--port --path --count --snaplen --write --verbose --help --version"
expect "dump xncbr0 --path " "xdp tc bridge"
expect "trace xncbr0 --" "--in --src --dst --vlan --len --ip --ip6 --arp --ethertype --tcp --udp --icmp --saddr --daddr --pcap --frame --json --pretty --verbose --help --version"
expect "trace xncbr0 --src 02:00:00:00:00:01 " ""
expect "trace --src " ""
# help CMD: the commands (xdpnet help attach); one, then nothing
expect "help " "attach detach status fdb stats latency exporter dump trace follow help version"
expect "help at" "attach"
expect "help attach " ""
expect "-V" "-V"
expect "--v" "--verbose --version"
expect "stats xncbr0 --p" "--pretty --prom"
expect "dump xncbr0 -s " ""
expect "version -" ""
expect "dump xncbr0 --port " "vnet0 vnet1"
expect "trace xncbr0 --in v" "vnet0 vnet1"
expect "dump xncbr0 --port = " "vnet0 vnet1"
expect "--json status " "xncbr0 virbr1"
expect "attach xncbr0 --strict " ""
# Every command's long options, as its help lists them (the binary's
# option tables), are what TAB offers after "--", and no more; but an
# option kept only for compatibility (attach --strict, no effect).
if [ -x "$XDPNET" ]; then
	for v in attach follow detach status fdb stats latency exporter dump trace; do
		opts=$("$XDPNET" help "$v" | grep -v 'for compatibility' | grep -oE '^ +(-., )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | paste -sd ' ')
		expect "$v xncbr0 --" "$opts"
	done
else
	echo "not ok - $XDPNET not built: completion not compared with the help"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
