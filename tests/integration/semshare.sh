# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Hook-sharing cases of tests/integration/semantics.sh (sourced after
# semlib.sh): other parties' programs on the ports' hooks, and the order
# xdpnet takes among them.
#
#   tcx       another party's tcx program (tests/tools/xnt_tcxcount: counts,
#             drops tag 77) on stand-in 1's tcx ingress, before xdpnet's:
#             the chain reads [it, xdpnet_tc, a second one attached after
#             xdpnet], what it drops never arrives, it sees every frame,
#             and the one after xdpnet's sees exactly what the TC stage
#             passes on (what xdpnet bypasses plus what the second counted
#             is what the first let through); in xdp mode on taps the port
#             leaves the XDP stage (it would skip them)
#   tcxegress the same program on stand-in 2's tcx egress: what it drops
#             never arrives (no XDP redirect skips it)
#   xdpfilter xdp-filter (xdp-tools) denying stand-in 3's address on stand-in
#             1's tap, before xdpnet attaches in xdp mode and after: nothing
#             to 3 arrives, 1 -> 2 is bypassed; in libxdp's dispatcher where
#             the kernel runs it (xdp-loader status lists both), else on the
#             TC stage beside the filter (which then cannot be loaded after
#             xdpnet: said, and the verdicts hold); detach leaves the filter,
#             unloading the filter leaves xdpnet bypassing

TCX=${TCX:-$ROOT/build/tests/xnt_tcx}
TCXOBJ=${TCXOBJ:-$ROOT/build/tests/xnt_tcxcount.bpf.o}
TCXPIN=/sys/fs/bpf/xnq_tcx # + _NAME_link, _NAME_counts
DROP_TAG=77                # xnt_tcxcount's

sw_nsenter() { nsenter --net="/run/netns/$SW" "$@"; }

# tcx_put ingress|egress PORT NAME [first|last]: xnt_tcxcount on PORT's tcx
# chain (default: appended), pinned as NAME.
tcx_put() {
	sw_nsenter "$TCX" attach "$1" "$2" "$TCXOBJ" "${TCXPIN}_$3" ${4:+"$4"}
}
tcx_order() { sw_nsenter "$TCX" query "$1" "$2"; }
# tcx_count NAME FIELD: seen, xntf or dropped of program NAME.
tcx_count() {
	"$TCX" counts "${TCXPIN}_$1" | tr ' ' '\n' | sed -n "/^$2\$/{n;p}"
}
tcx_clear() {
	local p
	for p in "${TCXPIN}"_*_link; do
		[ -e "$p" ] && "$TCX" detach "${p%_link}"
	done
	rm -f "${TCXPIN}"_*_counts
	return 0
}

# Does the kernel have tcx (Linux 6.6)? A program on the bridge device's
# tcx ingress, and gone again.
have_tcx() {
	[ -n "${HAVE_TCX:-}" ] && return "$HAVE_TCX"
	HAVE_TCX=1
	if tcx_put ingress "$BR" probe 2>/dev/null; then HAVE_TCX=0; fi
	tcx_clear
	return "$HAVE_TCX"
}

# port_json PORT FIELD: a field of the port's entry in status --json.
port_status() {
	xn status "$BR" --json | jq -r --arg p "$1" --arg f "$2" \
		'.bridges[0].ports[] | select(.name == $p) | .[$f]'
}

# tcr_settle VARIANT PORT TEXT: with a follower, wait (5 s at most: it polls
# the tcx chains once a second) until the port's tc_reason is TEXT.
tcr_settle() {
	local v=$1 port=$2 want=$3 i r
	for i in $(seq 100); do
		r=$(port_status "$port" tc_reason)
		[ "$r" = "$want" ] && return 0
		sleep 0.05
	done
	echo "FAIL: $port: tc_reason \"$r\", want \"$want\""
	return 1
}

# redirected VARIANT PORT FILE0 FILE1: the port's bypassed frames between two
# status --json files.
redirected() {
	echo $(($(ctr "$4" "$2" tc_redirect) + $(ctr "$4" "$2" xdp_redirect) -
		$(ctr "$3" "$2" tc_redirect) - $(ctr "$3" "$2" xdp_redirect)))
}

case_tcx() { # VARIANT pre|post
	local v=$1 when=$2 st=0 p=${VPORT[1]} f0=$WORK/tcx0.json f1=$WORK/tcx1.json
	local want order red xb
	learn_all || return 1
	if [ "$when" = pre ]; then
		tcx_put ingress "$p" a || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		tcx_put ingress "$p" a first || return 1
	fi
	# Appended: after xdpnet's program.
	tcx_put ingress "$p" b || return 1
	order=$(tcx_order ingress "$p")
	want="xnt_tcxcount xnt_tcxcount"
	[ "$v" != bridge ] && want="xnt_tcxcount xdpnet_tc xnt_tcxcount"
	expect_eq "the tcx ingress chain of $p" "$order" "$want" || st=1
	if [ "$v" != bridge ] && [ "$KIND" = tap ] && [ "$(v_mode "$v")" = xdp ]; then
		tcr_settle "$v" "$p" "other programs on its tcx ingress" || st=1
	fi
	[ "$v" = bridge ] || status_json "$f0"
	m_start || return 1
	tx 1 2 "$N" && tx 1 3 "$N" --tag "$DROP_TAG" || st=1
	m_end || st=1
	expect_at 12 "2=$N" && expect_at "$DROP_TAG" "" || st=1
	expect_eq "frames the first program saw" "$(tcx_count a xntf)" $((2 * N)) || st=1
	expect_eq "frames the first program dropped" "$(tcx_count a dropped)" "$N" || st=1
	xb=$(tcx_count b xntf)
	if [ "$v" = bridge ]; then
		expect_eq "frames the second program saw" "$xb" "$N" || st=1
	else
		status_json "$f1"
		red=$(redirected "$v" "$p" "$f0" "$f1")
		echo "1->2: bypassed $red, seen by the program after xdpnet's $xb, of $N"
		expect_eq "bypassed + seen after xdpnet's" $((red + xb)) "$N" || st=1
		expect_ge "frames 1->2 bypassed" "$red" $((N / 2)) || st=1
	fi
	tcx_clear
	v_detach "$v" || st=1
	return $st
}

# What xnt_tcxcount drops on stand-in 2's egress never arrives there.
case_tcxegress() { # VARIANT pre|post
	local v=$1 when=$2 st=0 p=${VPORT[2]}
	learn_all || return 1
	if [ "$when" = pre ]; then
		tcx_put egress "$p" e || return 1
		v_attach "$v" || return 1
	else
		v_attach "$v" && warm "$v" || return 1
		tcx_put egress "$p" e || return 1
	fi
	if [ "$v" != bridge ] && ! v_nf "$v"; then
		for _ in $(seq 100); do
			[ "$(port_status "$p" tc_egress)" = true ] && break
			sleep 0.05
		done
		expect_eq "$p: tc_egress (no XDP redirects into it)" "$(port_status "$p" tc_egress)" true || st=1
	fi
	m_start || return 1
	tx 1 2 "$N" && tx 1 2 "$N" --tag "$DROP_TAG" && tx 3 2 "$N" || st=1
	m_end || st=1
	expect_at 12 "2=$N" && expect_at 32 "2=$N" && expect_at "$DROP_TAG" "" || st=1
	expect_eq "frames the egress program dropped" "$(tcx_count e dropped)" "$N" || st=1
	[ "$v" = bridge ] || show_ctr "$v" "${VPORT[1]}" tc_redirect xdp_redirect xdp_defer_target
	tcx_clear
	v_detach "$v" || st=1
	return $st
}
