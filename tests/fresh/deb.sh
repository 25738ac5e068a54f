#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/fresh/run.sh deb, inside the fresh root (root; it installs and
# purges the package on the machine it runs on: run it only there, never
# on a host that has xdpnet installed or attached):
#   make deb (from make dist's tarball, as the orig tarball; lintian
#   --pedantic); apt install ./build/xdpnet_*.deb (nothing starts); a bridge
#   with two veth ports in namespaces of its own (prefix xnpk); attach,
#   ping, status; apt remove while attached (the datapath stays and
#   forwards, the follower stops); apt install again, detach; apt purge:
#   nothing of `dpkg -L xdpnet` remains, no pins, no /run/xdpnet; then the
#   package's autopkgtest (debian/tests) against the source package and
#   the .deb built, with autopkgtest's null runner: this root is the
#   testbed (isolation-machine is taken as given: the root shares the
#   kernel of a machine that runs nothing else of xdpnet).
# One "ok"/"not ok" line per check and "N passed, N failed" at the end.
set -u
cd "$(dirname "$0")/../.."
P=xnpk SW=xnpk-sw BR=xnpkbr0
NSX="nsenter --net=/run/netns/$SW" # keeps /sys/fs/bpf (ip netns exec hides it)
PIN=/sys/fs/bpf/xdpnet
. tests/install/checks.sh
apt_q() { DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@"; }
cleanup() {
	set +e
	[ -x /usr/sbin/xdpnet ] && [ -d "$PIN/$BR" ] && $NSX xdpnet detach "$BR" >/dev/null 2>&1
	for n in $SW $P-v1 $P-v2; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
pings() { ip netns exec $P-v1 ping -c 2 -W 1 -i 0.2 10.201.0.2 >/dev/null 2>&1; }
# xdpnet's own processes (a follower left running).
xdpnet_procs() {
	local p n=0
	for p in /proc/[0-9]*; do
		# Only this root's (the host runs xdpnets of its own).
		[ "$(readlink "$p/root" 2>/dev/null)" = / ] || continue
		case $(readlink "$p/exe" 2>/dev/null) in
		/usr/sbin/xdpnet*) n=$((n + 1)) ;;
		esac
	done
	echo $n
}

echo "# make deb"
if ! make deb; then
	nok "make deb"
	exit 1
fi
ok "make deb (lintian --pedantic clean)"
deb=$(ls build/xdpnet_*.deb | head -n 1)
dsc=$(ls build/deb/xdpnet_*.dsc | head -n 1)
check "the source package uses make dist's tarball as its orig tarball" \
	bash -c "tar -xOzf build/xdpnet-*.tar.gz >/dev/null &&
		cmp -s build/xdpnet-*.tar.gz build/deb/xdpnet_*.orig.tar.gz &&
		grep -q 'orig.tar.gz' '$dsc' && grep -qx 'Format: 3.0 (quilt)' '$dsc'"
check "tests/install/deb.sh: the package's contents" tests/install/deb.sh "$deb"

apt_q install "./$deb" iproute2 iputils-ping >/dev/null
check "apt install ./$deb" dpkg-query -W -f='${Status}' xdpnet | grep -q 'ok installed'
check "installed: nothing runs" [ "$(xdpnet_procs)" = 0 ]
check "installed: no pins, no /run/xdpnet" bash -c "[ ! -e $PIN ] && [ ! -e /run/xdpnet ]"
check "xdpnet --version runs" xdpnet --version

# The topology: bridge BR in namespace SW, ports P-v1/2 with their peers
# as eth0 in namespaces P-v1/2.
ip netns add $SW
ip -n $SW link add $BR type bridge
ip -n $SW link set $BR up
i=0
for v in v1 v2; do
	i=$((i + 1))
	ip netns add $P-$v
	ip -n $SW link add $P$v type veth peer name eth0 netns $P-$v
	ip -n $SW link set $P$v master $BR up
	ip -n $P-$v link set lo up
	ip -n $P-$v addr add 10.201.0.$i/24 dev eth0
	ip -n $P-$v link set eth0 up
done
n=50
until [ "$(ip -n $SW -d link show master $BR | grep -c 'state forwarding')" = 2 ] || [ $n = 0 ]; do
	sleep 0.2
	n=$((n - 1))
done
check "the bridge forwards before attach" pings
check "xdpnet attach $BR" $NSX xdpnet attach $BR
check "pins under $PIN/$BR" [ -d $PIN/$BR ]
check "the bridge forwards attached" pings
if out=$($NSX xdpnet status $BR 2>&1); then
	ok "xdpnet status $BR"
	echo "$out" | sed 's/^/#   /'
else
	nok "xdpnet status $BR: $out"
fi

# Removal while attached: the datapath stays and forwards, nothing of
# xdpnet runs any more.
apt_q remove xdpnet 2>&1 | sed 's/^/#   /'
check "apt remove xdpnet" bash -c "! [ -e /usr/sbin/xdpnet ]"
check "removed while attached: the follower stopped" [ "$(xdpnet_procs)" = 0 ]
check "removed while attached: the pins stay" [ -d $PIN/$BR ]
check "removed while attached: the bridge forwards" pings

apt_q install "./$deb" >/dev/null
check "apt install again" [ -x /usr/sbin/xdpnet ]
check "xdpnet detach $BR" $NSX xdpnet detach $BR
check "the bridge forwards detached" pings

dpkg -L xdpnet >/tmp/xnpk.list
apt_q purge xdpnet >/dev/null
check "apt purge xdpnet" bash -c "! dpkg-query -W -f='\${Status}' xdpnet 2>/dev/null | grep -q installed"
# What `dpkg -L` listed: no file is left, and a directory only where
# another package owns it, or the system's own: "/." and, on a merged
# /usr, /lib (a symlink to usr/lib that no package owns).
left=""
while IFS= read -r f; do
	[ "$f" = /. ] && continue
	if [ -d "$f" ]; then
		[ -L "$f" ] || dpkg -S "$f" >/dev/null 2>&1 || left="$left $f/"
	elif [ -L "$f" ] || [ -e "$f" ]; then
		left="$left $f"
	fi
done </tmp/xnpk.list
check "purged: nothing of dpkg -L xdpnet is left${left:+ (left:$left)}" [ -z "$left" ]
check "purged: no $PIN, no /run/xdpnet" bash -c "[ ! -e $PIN ] && [ ! -e /run/xdpnet ]"
check "purged: no xdpnet enablement links" \
	bash -c "! ls /etc/systemd/system/*.wants/xdpnet* >/dev/null 2>&1"
check "purged: nothing of xdpnet runs" [ "$(xdpnet_procs)" = 0 ]
check "the bridge still forwards" pings

# The package's autopkgtest, as a Debian maintainer runs it.
apt_q install autopkgtest >/dev/null
if autopkgtest --ignore-restrictions=isolation-machine "./$deb" "./$dsc" -- null \
	>/tmp/xnpk.autopkgtest 2>&1; then
	ok "autopkgtest: $(grep -E '^attach +PASS' /tmp/xnpk.autopkgtest)"
else
	nok "autopkgtest; its last lines:"
	tail -n 30 /tmp/xnpk.autopkgtest | sed 's/^/#   /'
fi
grep -E '^(ok|FAIL):' /tmp/xnpk.autopkgtest | sed 's/^/#   /'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
