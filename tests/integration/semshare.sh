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
#             1's port, before xdpnet attaches in xdp mode and after: nothing
#             to 3 arrives, 1 -> 2 is bypassed; in libxdp's dispatcher where
#             the kernel runs it (xdp-loader status lists both), else on the
#             TC stage beside the filter (which then cannot be loaded after
#             xdpnet: said, and the verdicts hold); on a veth the filter runs
#             alone on XDP and xdpnet on TC; detach leaves the filter,
#             unloading the filter leaves xdpnet bypassing

TCX=${TCX:-$ROOT/build/tests/xnt_tcx}
TCXOBJ=${TCXOBJ:-$ROOT/build/tests/xnt_tcxcount.bpf.o}
TCXPIN=/sys/fs/bpf/${Q}_tcx # + _NAME_link, _NAME_counts
DROP_TAG=77                # xnt_tcxcount's
MP_KERNEL=                 # mp_kernel's

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

# ------------------------------------------------------------- xdp-filter

XF_DENY=10.255.0.3 # the address xdp-filter denies (xnt_frames --daddr)
xf() { sw_nsenter xdp-filter "$@"; }
xf_put() { xf load -m native "${VPORT[1]}" && xf ip "$XF_DENY" -m dst; }
# xf_clear: xdp-filter off stand-in 1's port; its pins go with the last
# interface (they are global: preflight makes sure nobody else used it).
# What the kernel says (not libxdp, whose view of a port may be another
# namespace's port of the same ifindex while another suite runs beside
# this one): unloaded until xdp-filter's program is off the port.
xf_on_port() { ip -n "$SW" -d link show dev "${VPORT[1]}" 2>/dev/null | grep -q " name xdpfilt_"; }
xf_clear() {
	local i
	if [ -n "${VPORT[1]:-}" ] && [ -e "/run/netns/$SW" ]; then
		for ((i = 0; i < 20; i++)); do
			xf_on_port || break
			xf unload "${VPORT[1]}" >/dev/null 2>&1 || sleep 0.1
		done
		xf_on_port && echo "xf_clear: xdp-filter still on ${VPORT[1]}: $(xf unload "${VPORT[1]}" 2>&1 | tail -n 1)"
	fi
	# What a refused load leaves (its maps), once no interface has it:
	# only while this suite holds xdp-filter's lock (q_reset calls this
	# after every case; another suite may be using xdp-filter then).
	[ "${XF_LOCKED:-0}" = 1 ] || return 0
	[ "${XF_OURS:-0}" = 1 ] && ! xf status 2>/dev/null | grep -q "(native mode)" &&
		rm -rf /sys/fs/bpf/xdp-filter
	[ "${XF_MKDIR:-0}" = 1 ] && rmdir /sys/fs/bpf/xdp 2>/dev/null
	return 0
}
# xf_free: xdp-filter installed and not in use; holds xdp-filter's lock
# (lib.sh) until xf_unlock.
xf_free() {
	command -v xdp-filter >/dev/null || { echo "no xdp-filter (xdp-tools)"; return 1; }
	xf_lock || return 1
	[ -e /sys/fs/bpf/xdp-filter ] && { echo "xdp-filter is in use on this host (its maps are global): unload it first"; xf_unlock; return 1; }
	XF_OURS=1
	[ -d /sys/fs/bpf/xdp ] || XF_MKDIR=1
	return 0
}
xf_progs() { sw_nsenter xdp-loader status "${VPORT[1]}" | awk '$0 ~ /xdpfilt|xdpnet/ { for (i = 1; i <= NF; i++) if ($i ~ /^(xdpfilt|xdpnet)/) printf "%s ", $i } END { print "" }'; }

# xf_traffic VARIANT DENIED: 1 -> 2 (tag 12) arrives and, on xdpnet, is
# bypassed; 1 -> 3 (tag 13, to the denied address) arrives at 3 when
# DENIED is 0, nowhere when 1.
xf_traffic() {
	local v=$1 denied=$2 st=0 f0=$WORK/xf0.json f1=$WORK/xf1.json red
	[ "$v" = bridge ] || status_json "$f0"
	m_start || return 1
	# Frames XDP drops never count as received by the port, which tx
	# waits for: the denied ones go first, unwaited; the relay keeps the
	# order, so once 1 -> 2 is in, they are too.
	nsx "${VNS[1]}" "$FR" send eth0 --dst "${VMAC[3]}" --src "${VMAC[1]}" \
		--count "$N" --tag 13 --daddr "$XF_DENY" >/dev/null || st=1
	tx 1 2 "$N" || st=1
	m_end || st=1
	expect_at 12 "2=$N" || st=1
	if [ "$denied" = 1 ]; then expect_at 13 "" || st=1; else expect_at 13 "3=$N" || st=1; fi
	if [ "$v" != bridge ] && [ -n "$ATTACHED_MODE" ]; then
		status_json "$f1"
		red=$(redirected "$v" "${VPORT[1]}" "$f0" "$f1")
		echo "from ${VPORT[1]}: bypassed $red"
		expect_ge "frames from stand-in 1 bypassed" "$red" $((N / 2)) || st=1
	fi
	return $st
}

# Where the kernel runs libxdp's dispatcher, xdpnet joins it: the port's
# XDP stage runs there, after the filter.
xf_expect_joined() {
	local via order
	via=$(port_status "${VPORT[1]}" xdp_via)
	order=$(xf_progs)
	echo "xdp_via: $via; xdp-loader status: $order"
	if [ "$KIND" = veth ]; then
		# No XDP stage of xdpnet's on a veth: the filter runs alone
		# there, the TC stage after it.
		[[ "$order" =~ ^xdpfilt_[a-z_]+\ $ ]] ||
			{ echo "FAIL: xdp-loader status does not list the filter alone"; return 1; }
		expect_eq "${VPORT[1]}: xdp_via" "$via" "" || return 1
	elif [ "$MP_KERNEL" = 1 ]; then
		expect_eq "${VPORT[1]}: xdp_via" "$via" dispatcher || return 1
		[[ "$order" =~ ^xdpfilt_[a-z_]+\ xdpnet_xdp(_mp)?\ $ ]] ||
			{ echo "FAIL: xdp-loader status does not list the filter, then xdpnet's program"; return 1; }
	else
		expect_eq "${VPORT[1]}: tc_reason" "$(port_status "${VPORT[1]}" tc_reason)" \
			"another XDP program is attached" || return 1
	fi
}

# MP_KERNEL: does this kernel run libxdp's dispatcher? Said by status
# (xdp_link_why) once xdpnet has hooked a tap in xdp mode.
mp_kernel() {
	local why
	why=$(xn status "$BR" --json | jq -r '.bridges[0].xdp_link_why')
	MP_KERNEL=1
	[ -n "$why" ] && MP_KERNEL=0 && echo "no dispatcher: $why"
	return 0
}

case_xdpfilter() { # VARIANT pre|post
	local v=$1 when=$2 st=0 out rc
	learn_all || return 1
	if [ "$when" = pre ]; then
		xf_put || return 1
		v_attach "$v" || return 1
		if [ "$v" != bridge ]; then
			mp_kernel && xf_expect_joined || st=1
		fi
		xf_traffic "$v" 1 || st=1
		# detach leaves the filter.
		v_detach "$v" || st=1
		[ "$v" = bridge ] || expect_eq "xdp-loader status after detach" "$(xf_progs)" "$(xf_progs | grep -o 'xdpfilt_[a-z_]*') " || st=1
		xf_traffic bridge 1 || st=1
		xf_clear
		return $st
	fi
	# xdpnet first, then the filter.
	v_attach "$v" && warm "$v" && mp_kernel || return 1
	out=$(xf_put 2>&1)
	rc=$?
	echo "$out"
	if [ "$MP_KERNEL" = 1 ] || [ "$KIND" = veth ]; then
		[ "$rc" = 0 ] || { echo "FAIL: xdp-filter did not load"; st=1; }
		xf_expect_joined || st=1
		xf_traffic "$v" 1 || st=1
	else
		# Without a dispatcher nothing can join xdpnet's XDP program:
		# xdp-filter says so and loads nothing; frames go as before.
		[ "$rc" != 0 ] || { echo "FAIL: xdp-filter loaded over xdpnet's XDP program"; st=1; }
		note "xdp-filter refused after xdpnet (no dispatcher here): $(echo "$out" | grep -m1 -i dispatcher)"
		xf_traffic "$v" 0 || st=1
	fi
	# Unloading the filter leaves xdpnet bypassing.
	xf_clear
	xf_traffic "$v" 0 || st=1
	v_detach "$v" || st=1
	return $st
}
