#!/bin/bash
# xdpnet demo: three stand-in VMs (network namespaces with veths) and two
# tap stand-ins (vnet_relay: virtio-net headers, GSO and partial
# checksums, as a VM's tap sees them) on one bridge, all inside a private
# "switch" namespace. Attach, move traffic, show status and counters,
# detach, clean up. Touches nothing outside its own namespaces and the
# /sys/fs/bpf/xdpnet/xndbr0 pin directory, which it removes.
#
# Usage: scripts/demo.sh [--keep | --down]
#   --keep  (make demo KEEP=1) stop before the detach: the namespaces, the
#           relays and the attached bridge stay up to look around; the
#           demo prints the commands for that.
#   --down  remove what a --keep run left (detach, relays, namespaces).
set -euo pipefail
cd "$(dirname "$0")/.."

XDPNET=${XDPNET:-build/xdpnet}
RELAY=build/tests/vnet_relay
P=xnd                       # prefix of every namespace and device
SW=$P-sw BR=${P}br0
NSX="nsenter --net=/run/netns/$SW"   # keeps /sys/fs/bpf (ip netns exec hides it)
PIDFILE=/run/$P-demo.pids   # the relays' pids, for --down after --keep
PIDS=()
KEEP=0
case ${1:-} in
--keep) KEEP=1 ;;
--down | '') ;;
*)
	echo "demo: unknown argument '$1' (--keep or --down)" >&2
	exit 2
	;;
esac

# The relays of a --keep run, by the pids it wrote down (only those still
# running vnet_relay).
kept_pids() {
	local p
	[ -f $PIDFILE ] || return 0
	while read -r p; do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in
		*/vnet_relay) echo "$p" ;;
		esac
	done <$PIDFILE
}
cleanup() {
	set +e
	[ -d /sys/fs/bpf/xdpnet/$BR ] && $NSX $XDPNET detach $BR >/dev/null
	rm -f /run/xdpnet/$BR.lock /run/xdpnet/$BR.follow /run/xdpnet/$BR.log
	for p in "${PIDS[@]}" $(kept_pids); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -f $PIDFILE
	for n in $SW $P-v1 $P-v2 $P-v3 $P-t1 $P-t2; do
		ip netns del $n 2>/dev/null
	done
}

[ "$(id -u)" = 0 ] || { echo "demo: run as root (sudo make demo)" >&2; exit 1; }
if [ "${1:-}" = --down ]; then
	cleanup
	echo "demo: removed"
	exit 0
fi
if [ -e /run/netns/$SW ]; then
	echo "demo: $SW exists: a kept demo is up (scripts/demo.sh --down removes it)" >&2
	exit 1
fi
trap cleanup EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# until SECS CMD...: poll CMD until it succeeds; fail after SECS seconds.
until_ok() {
	local n=$(($1 * 10))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || { echo "demo: timed out waiting for: $*" >&2; return 1; }
		sleep 0.1
	done
}
ports_forwarding() { # all five
	[ "$(ip -n $SW -d link show master $BR | grep -c 'bridge_slave state forwarding')" = 5 ]
}
listening() { ip netns exec "$1" ss -ltnH | grep -q " $2:5201 "; }

say "building a stand-in host: bridge $BR in namespace $SW"
ip netns add $SW
ip -n $SW link set lo up
ip -n $SW link add $BR type bridge
ip -n $SW link set $BR up
i=0
for v in v1 v2 v3; do
	i=$((i + 1))
	ip netns add $P-$v
	ip -n $SW link add $P$v type veth peer name eth0 netns $P-$v
	ip -n $SW link set $P$v master $BR up
	ip -n $P-$v link set lo up
	ip -n $P-$v addr add 10.200.0.$i/24 dev eth0
	ip -n $P-$v link set eth0 up
done
for t in t1 t2; do
	i=$((i + 1))
	ip netns add $P-$t
	$NSX $RELAY --host-tap $P$t --guest-tap eth0 --netns $P-$t \
		>/tmp/$P-$t.ready 2>/dev/null &
	PIDS+=($!)
	until_ok 5 grep -qs READY /tmp/$P-$t.ready
	rm -f /tmp/$P-$t.ready
	ip -n $SW link set $P$t master $BR up
	ip -n $P-$t link set lo up
	ip -n $P-$t addr add 10.200.0.$i/24 dev eth0
	ip -n $P-$t link set eth0 up
done
ip -n $SW link show master $BR | awk -F': ' '/^[0-9]/{print "  port " $2}'
until_ok 5 ports_forwarding
for d in 2 3 4 5; do ip netns exec $P-v1 ping -c1 -W2 10.200.0.$d >/dev/null; done

say "xdpnet attach $BR"
$NSX $XDPNET attach $BR

say "traffic: TCP (iperf3, 3 s) v1 -> v2 and t1 -> t2, ping between all"
# One-off servers in the foreground of a background job (not -D: a daemon
# would keep its namespace alive after ip netns del), stopped by PID.
for s in v2:2 t2:5; do
	ip netns exec $P-${s%:*} iperf3 -s -1 -B 10.200.0.${s#*:} >/dev/null &
	PIDS+=($!)
	until_ok 5 listening $P-${s%:*} 10.200.0.${s#*:}
done
ip netns exec $P-v1 iperf3 -c 10.200.0.2 -t 3 -f g | awk '/receiver/{print "  veth v1->v2: " $7 " " $8; n++} END {exit !n}'
ip netns exec $P-t1 iperf3 -c 10.200.0.5 -t 3 -f g | awk '/receiver/{print "  tap  t1->t2: " $7 " " $8; n++} END {exit !n}'
for s in v1 v3 t1; do
	for d in 1 2 3 4 5; do ip netns exec $P-$s ping -c1 -W2 10.200.0.$d >/dev/null; done
done
echo "  ping: every pair answered"

say "xdpnet status $BR"
$NSX $XDPNET status $BR

say "xdpnet fdb $BR"
$NSX $XDPNET fdb $BR

if [ $KEEP = 1 ]; then
	# The iperf3 servers ended with their one test; the relays stay.
	printf '%s\n' "${PIDS[@]}" >$PIDFILE
	trap - EXIT
	say "kept: the stand-in host stays up, attached; to look around:"
	cat <<EOF
  sudo $NSX $XDPNET status $BR
  sudo $NSX $XDPNET stats $BR --interval 1
  sudo ip netns exec $P-v1 ping 10.200.0.2     # v1 to v2; t1, t2 are .4, .5
  sudo ip netns exec $P-v1 bash                # a shell in the VM v1
  namespaces: $SW (the host: bridge $BR), $P-v1, $P-v2, $P-v3 (veth VMs,
  10.200.0.1-3), $P-t1, $P-t2 (tap VMs, 10.200.0.4-5)
  remove it all: sudo scripts/demo.sh --down
EOF
	exit 0
fi

say "xdpnet detach $BR (traffic goes back to the bridge)"
$NSX $XDPNET detach $BR
ip netns exec $P-v1 ping -c1 -W2 10.200.0.2 >/dev/null && echo "  v1 -> v2 still answers through the bridge"
