#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# xdpnet integration suite (root; `make check-integration`).
#
# Builds a bridge inside namespace xnt-sw with three stand-in VMs, first as
# veth-backed namespaces, then as taps behind build/tests/vnet_relay (virtio
# headers, GSO, partial checksums), and checks, in tc and xdp mode:
#   traffic between every pair (ping, content-checked UDP, sha256-checked
#   TCP over IPv4/IPv6), the offload matrix, that frames took the bypass
#   (xdpnet counters, and br_netfilter/iptables as an independent witness),
#   the bridge FDB keep-alive, attach/detach during a transfer, clean detach,
#   and the CLI's error exits.
#
# Output: "ok N - ..." / "not ok N - ..." per check, then "P passed, F failed".
# Options:
#   --only LIST   sections, comma separated: errors,veth,tap,clsact,rollback,
#                 stats,bpffs,semantics,crash,upgrade (default: all; "errors"
#                 runs errors.sh too)
#   --modes LIST  attach modes (default: "tc,xdp")
#   --quick       smaller transfers, fewer matrix cells
#   --no-cli      only what needs no CLI (topologies, bridge traffic, witness)
#   --core        the core, for other kernels (tests/kernels): --quick, veth
#                 and tap, pair 2->3, the offload matrix (1->2), counters,
#                 witness, detach; no errors, 4th port, keep-alive, attach or
#                 detach during a transfer, stats
#   --also FILE   source FILE after the sections: more checks (lib.sh's and
#                 this file's helpers, same numbering and summary)
#   --keep        keep the logs even when everything passed
#   -v            more detail
set -u
. "$(dirname "$0")/lib.sh"

ONLY=errors,veth,tap,clsact,rollback,stats,bpffs,semantics,crash,upgrade
MODES=tc,xdp
QUICK=0
NO_CLI=0
CORE=0
ALSO=
PAIRS="1,2 1,3 2,1 2,3 3,1 3,2"
# shellcheck disable=SC2034 # OPT_SHIFT: parse_args's (lib.sh)
suite_opt() {
	case $1 in
	--only) ONLY=${2-}; OPT_SHIFT=2 ;;
	--modes) MODES=${2-}; OPT_SHIFT=2 ;;
	--quick) QUICK=1 ;;
	--no-cli) NO_CLI=1 ;;
	--core) CORE=1 QUICK=1 ONLY=veth,tap PAIRS="2,3" ;;
	--also) ALSO=${2-}; OPT_SHIFT=2 ;;
	*) return 1 ;;
	esac
}
parse_args "[--only errors,veth,tap,clsact,rollback,stats,bpffs,semantics,crash,upgrade] [--modes tc,xdp] [--quick] [--core] [--also FILE] [--no-cli] [--keep] [-v]" "$@"
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
MODES=${MODES//,/ }

MB=$((1024 * 1024))
BIG=$((20 * MB))  # the byte-for-byte check between every pair
CELL=$((4 * MB))  # per offload-matrix cell
MID=$((150 * MB)) # attach/detach with MID / 5 of a transfer before and after...
MID_RATE=$((30 * MB)) # ...paced: 1 s each
KA_SECS=12        # keep-alive: traffic for > 2x ageing (5 s)
if [ "$QUICK" = 1 ]; then BIG=$((4 * MB)); CELL=$((2 * MB)); MID=$((60 * MB)); MID_RATE=$((20 * MB)); fi

# A signal's trap runs inside whatever check was running, with its output
# going to that check's log: restore the real stdout/stderr first.
traps_install

START=$(date +%s)
section() { echo "# --- $* ($(($(date +%s) - START)) s)"; }

# ---------------------------------------------------------------- preflight

preflight() {
	local t st=0
	[ "$(id -u)" = 0 ] || { echo "must run as root"; return 1; }
	for t in ip bridge jq ethtool iptables ip6tables nsenter unshare ping timeout "$PY"; do
		command -v "$t" >/dev/null || { echo "missing tool: $t"; st=1; }
	done
	[ -x "$RELAY" ] || { echo "missing $RELAY (make all)"; st=1; }
	return $st
}
if ! check "preflight: root, tools, vnet_relay" preflight; then
	finish
fi
if ! check "preflight: no other run of this suite" take_lock; then
	finish
fi
if [ "$NO_CLI" = 0 ] && [ ! -x "$XDPNET" ]; then
	fail_now "preflight: $XDPNET built" "missing $XDPNET: run make all"
	finish
fi
remove_stale

# ---------------------------------------------------------------- sections
# Each section's checks and helpers live in parts/ (sourced, in this order:
# a later part uses an earlier one's helpers).
for p in unattached attach traffic offload port_add keepalive transfer topology fallback; do
	. "$HERE/parts/$p.sh"
done

want errors && [ "$NO_CLI" = 0 ] && section_errors
want veth && section_topology veth
want tap && section_topology tap
want clsact && [ "$NO_CLI" = 0 ] && section_clsact
want rollback && [ "$NO_CLI" = 0 ] && section_rollback
# Files of their own (own namespaces), their counts folded in: stats/exporter/
# latency probe, bpffs on a bare host, the bridge's rules tried by a VM, bad
# input, crash safety, upgrades.
sub_suite() { # NAME: tests/integration/NAME.sh
	local r
	section "$1.sh"
	"$HERE/$1.sh" 2>&1 | tee "$WORK/$1.out" | sed "s/^/# $1.sh: /"
	[[ $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$WORK/$1.out" | tail -n 1) =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] && r=("${BASH_REMATCH[@]}") || r=(x 0 1)
	T_PASS=$((T_PASS + r[1])); T_FAIL=$((T_FAIL + r[2]))
	[ "${r[2]}" = 0 ] || FAILED+=("$1.sh: ${r[2]} failed (see above)")
}
for s in stats bpffs semantics errors crash upgrade; do
	want $s && [ "$NO_CLI" = 0 ] && sub_suite $s
done

if [ -n "$ALSO" ]; then . "$ALSO"; fi

section done
finish
