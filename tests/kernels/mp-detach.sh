#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libxdp's dispatcher: after detach, how long xdpnet's extension program
# stays loaded, and who holds it meanwhile (process fds by fdinfo prog_id,
# links, libxdp's pins). Run in a guest whose kernel runs the dispatcher:
#   XNK_SUITE=trixie XNK_PARTS=none XNK_SCRIPT=tests/kernels/mp-detach.sh \
#     tests/kernels/run.sh
# A look, not a check: exit 0.
set -u
. "$(dirname "$0")/../integration/lib.sh"
SW=xnm-sw BR=xnmbr0
# shellcheck disable=SC2034
XNP=xnm PIN=$PIN_ROOT/$BR
traps_install
export XDPNET_XDP_DISPATCHER=1
holders() { # PROG_ID
	local f
	for f in /proc/[0-9]*/fdinfo/*; do
		grep -qx "prog_id:	$1" "$f" 2>/dev/null || continue
		p=${f#/proc/}; p=${p%%/*}
		echo "  held by pid $p ($(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)) fd ${f##*/}"
	done
	bpftool link -j 2>/dev/null | jq -c --argjson id "$1" '.[] | select(.prog_id == $id)'
}
one() {
	local ids t0 i gone
	xn attach "$BR" --mode xdp || return 1
	xn status "$BR" | grep -i "xdp" | head -4
	ids=$(for p in xnmt1 xnmt2; do bpftool net show dev "$p" -j 2>/dev/null; done | jq -r '.. | objects | select(has("id")) | .id' | sort -u)
	ext=$(bpftool prog show -j | jq -r '.[] | select(.name == "xdpnet_xdp" or .name == "xdpnet_xdp_mp") | .id' | tr '\n' ' ')
	echo "dispatcher ids: $(echo $ids); xdpnet programs: $ext"
	ls -R /sys/fs/bpf/xdp 2>/dev/null | head -20
	t0=$(date +%s.%N)
	xn detach "$BR" || return 1
	echo "detach took $(echo "$(date +%s.%N) - $t0" | bc) s"
	for id in $ext; do
		gone=
		for i in $(seq 600); do
			bpftool prog show id "$id" >/dev/null 2>&1 || { gone=$i; break; }
			[ "$i" = 20 ] && { echo "program $id still loaded 2 s after detach:"; holders "$id"; ls -R /sys/fs/bpf/xdp 2>/dev/null; }
			sleep 0.1
		done
		if [ -n "$gone" ]; then echo "program $id: gone after $((gone / 10)).$((gone % 10)) s"; else echo "program $id: still loaded after 60 s"; fi
	done
}
switch_up || exit 0
TOPO=tap
relay_start 1 --no-csum && relay_start 2 --no-csum || exit 0
PORTS=(xnmt1 xnmt2)
wait_ports_up || exit 0
for r in 1 2 3; do echo "== round $r"; one; done
cleanup
exit 0
