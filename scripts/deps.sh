#!/bin/sh
# Install the Debian packages xdpnet needs to build, test and demo, and
# promtool (scripts/promtool), or, with arguments, those packages instead
# (tests/vm/deps.sh uses that).
# Idempotent: does nothing when everything is already there.
set -eu

PKGS="make gcc clang llvm pkg-config libbpf-dev libxdp-dev libnl-3-dev
libnl-route-3-dev libmicrohttpd-dev bpftool libcmocka-dev iproute2 iputils-ping ethtool
iptables nftables jq curl python3 iperf3 procps util-linux bc sockperf python3-matplotlib xdp-tools
tcpdump tshark"
PROMTOOL=1
[ $# -gt 0 ] && PKGS="$*" PROMTOOL=0

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# promtool and the Prometheus server (Debian's prometheus package, the
# binaries only): scripts/promtool.
if [ "$PROMTOOL" = 1 ] && { ! "$(dirname "$0")/promtool" --version >/dev/null 2>&1 ||
	! "$(dirname "$0")/promtool" --server --version >/dev/null 2>&1; }; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: promtool or prometheus missing; run as root (sudo make ...)" >&2
		exit 1
	fi
	"$(dirname "$0")/promtool" --fetch
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing; run as root (sudo make ...)" >&2
	exit 1
fi
echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
