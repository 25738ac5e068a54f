#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Turns the hand-written rule sets in src/ (Docker, kube-proxy, libvirt's
# nftables backend, nft syntax cases; see each file's header for what it
# stands for) into what the tools print: each is loaded into a throwaway
# network namespace with iptables-nft-restore, iptables-legacy-restore or
# nft -f, and saved with iptables-*-save / nft -j list ruleset. Root; run it
# under xn-heavy.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
NS=xnf-rec$$
trap 'ip netns del $NS 2>/dev/null || true' EXIT
in_ns() { ip netns exec "$NS" "$@"; }
fresh() {
	ip netns del "$NS" 2>/dev/null || true
	ip netns add "$NS"
	in_ns ip link add virbr0 type bridge
	for p in vnet0 vnet1 vnet2 vnet3; do
		in_ns ip link add $p type veth peer name x$p
		in_ns ip link set $p master virbr0
	done
}
# header FILE TEXT: the save output, with where it came from on top.
header() {
	local f=$1 src=$2 tmp
	tmp=$(mktemp)
	{ grep '^# ' "$HERE/src/$src" | sed 's/^# /# src: /'; cat "$f"; } >"$tmp"
	mv "$tmp" "$f"
}
strip() { sed -i 's/ on [A-Z][a-z][a-z] [A-Z][a-z][a-z] .*$//' "$@"; }

fresh
in_ns iptables-nft-restore <"$HERE/src/docker.rules"
in_ns iptables-nft-save >"$HERE/docker-nft.iptables"
in_ns nft -j list ruleset >"$HERE/docker-nft.nft.json"
strip "$HERE/docker-nft.iptables"
header "$HERE/docker-nft.iptables" docker.rules

fresh
in_ns iptables-legacy-restore <"$HERE/src/docker.rules"
in_ns iptables-legacy-save >"$HERE/docker-legacy.iptables"
in_ns iptables-legacy -F -t nat
in_ns iptables-legacy -F
strip "$HERE/docker-legacy.iptables"
header "$HERE/docker-legacy.iptables" docker.rules

# Docker first, then libvirt's default network as libvirtd adds it: its
# chains, and its jumps on top of the built-in chains.
fresh
in_ns iptables-nft-restore <"$HERE/src/docker.rules"
table=
while read -r line; do
	case $line in
	\**) table=${line#\*} ;;
	:LIBVIRT*) name=${line%% *}; in_ns iptables-nft -t "$table" -N "${name#:}" ;;
	"-A LIBVIRT"*) eval in_ns iptables-nft -t "$table" "$line" ;;
	"-A "*) set -- $line; n=$(in_ns iptables-nft -t "$table" -S "$2" | grep -c LIBVIRT || true)
		in_ns iptables-nft -t "$table" -I "$2" $((n + 1)) "${@:3}" ;;
	esac
done < <(grep -v '^#' "$HERE/libvirt-default.iptables")
in_ns iptables-nft-save >"$HERE/docker-libvirt.iptables"
strip "$HERE/docker-libvirt.iptables"
header "$HERE/docker-libvirt.iptables" docker.rules

fresh
in_ns iptables-nft-restore <"$HERE/src/kube-proxy.rules"
in_ns iptables-nft-save >"$HERE/kube-proxy.iptables"
strip "$HERE/kube-proxy.iptables"
header "$HERE/kube-proxy.iptables" kube-proxy.rules

for n in libvirt-nft nft-misc; do
	fresh
	in_ns nft -f "$HERE/src/$n.nft"
	in_ns nft -j list ruleset >"$HERE/$n.nft.json"
done
echo "recorded in $HERE"
