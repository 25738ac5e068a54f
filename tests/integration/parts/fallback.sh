# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sections of tests/integration/run.sh (sourced; uses its helpers): the
# paths taken when something is missing or goes wrong.
#
# clsact    the TC stage on a clsact filter, as on kernels without tcx
#           (before 6.6), forced with XDPNET_TC_HOOK=clsact on the veth
#           topology: status says so, tc shows the filter, a transfer is
#           intact and takes the bypass, detach removes the filters and
#           the clsact qdiscs xdpnet created, not one that was there.
# rollback  an attach that fails half-way (XDPNET_TEST_FAIL_AFTER=N: after
#           N ports): exit 1, and the switch exactly as before (links, XDP,
#           tc, pins; a transfer takes the bridge again), for a fresh
#           attach in both modes, and for an attach that picks up a new
#           port next to an attachment (in its mode, and switching from tc
#           to xdp), which stays as it was; and (where the kernel has
#           tcx) a fresh attach that the kernel itself refuses at the
#           second port, whose tcx chain another party filled (64
#           programs): exit 1, the switch and every port's tcx chain
#           exactly as before.

# ---------------------------------------------------------------- clsact

clsact_attach() {
	echo "+ XDPNET_TC_HOOK=clsact xdpnet attach $BR --mode tc"
	XDPNET_TC_HOOK=clsact xn attach "$BR" --mode tc || return 1
	ATTACHED_MODE=tc
}

# Each port: hook "clsact" in status, and tc shows a filter running the
# program status names.
clsact_hooked() {
	local f=$WORK/cl.json p id
	xn status "$BR" --json >"$f" || { cat "$f"; return 1; }
	for p in "${PORTS[@]}"; do
		id=$(jq --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | .tc_prog_id' "$f")
		expect_eq "$p hook" "$(jq -r --arg p "$p" '.bridges[0].ports[] | select(.name == $p) | .hook' "$f")" clsact || return 1
		nsx "$SW" tc filter show dev "$p" ingress | tee "$WORK/cl.tc"
		grep -q "bpf .*direct-action.* id $id " "$WORK/cl.tc" ||
			{ echo "FAIL: $p: no tc filter running program $id"; return 1; }
	done
}

# After detach: no clsact qdisc on the ports xdpnet gave one, the one that
# was there before still there.
clsact_detached() {
	local p st=0
	for p in "${PORTS[@]}"; do
		nsx "$SW" tc qdisc show dev "$p" | sed "s/^/$p: /"
		if [ "$p" = "$(g_port 3)" ]; then
			nsx "$SW" tc qdisc show dev "$p" | grep -q clsact ||
				{ echo "FAIL: $p: its own clsact qdisc was removed"; st=1; }
		elif nsx "$SW" tc qdisc show dev "$p" | grep -q clsact; then
			echo "FAIL: $p: xdpnet's clsact qdisc left"; st=1
		fi
	done
	return $st
}

section_clsact() {
	local L="veth tc [clsact]" ids
	section "$L"
	if ! check "$L: topology up" topo_up veth; then
		topo_down
		return
	fi
	# Somebody else's clsact qdisc on the third port (it must stay).
	check "$L: a clsact qdisc on $(g_port 3) before attach" nsx "$SW" tc qdisc add dev "$(g_port 3)" clsact
	check "$L: XDPNET_TC_HOOK=clsact attach" clsact_attach
	check "$L: status says hook clsact, tc shows the filters" clsact_hooked
	check "$L: tcp ipv4 $((CELL / MB)) MB sha256 1->2" tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
	check "$L: tcp 1->2 took the bypass" expect_bypass
	check "$L: tcp ipv4 $((CELL / MB)) MB sha256 3->1 (a port with its own clsact)" tcp_measured 3 1 "$(g_ip4 1)" "$CELL"
	check "$L: tcp 3->1 took the bypass" expect_bypass
	ids=$(prog_ids)
	check "$L: detach" do_detach
	check "$L: detach left no filter, program or pin" nothing_left $ids
	check "$L: xdpnet's clsact qdiscs gone, the one that was there kept" clsact_detached
	topo_down
}

# ---------------------------------------------------------------- rollback

# attach_fails N STATE_BEFORE [ARGS...]: XDPNET_TEST_FAIL_AFTER=N attach
# exits 1, says it rolled back, and sw_state is STATE_BEFORE again.
attach_fails() {
	local n=$1 before=$2 rc
	shift 2
	echo "+ XDPNET_TEST_FAIL_AFTER=$n xdpnet attach $BR $*"
	XDPNET_TEST_FAIL_AFTER=$n xn attach "$BR" "$@" >"$WORK/rb.out" 2>"$WORK/rb.err"
	rc=$?
	cat "$WORK/rb.out" "$WORK/rb.err"
	expect_eq "exit code" "$rc" 1 || return 1
	grep -q "injected failure" "$WORK/rb.err" || { echo "FAIL: the failure was not the injected one"; return 1; }
	grep -Eq "rolled back|removed again" "$WORK/rb.err" || { echo "FAIL: does not say it rolled back"; return 1; }
	sw_state >"$WORK/rb.state"
	diff -u "$before" "$WORK/rb.state" || { echo "FAIL: the switch changed"; return 1; }
}

# Another party's pass-through programs filling the second port's tcx
# chain (tests/tools/xnt_tcx fill), pinned at RB_FILL_fillN.
RB_FILL=/sys/fs/bpf/${XNP}_rbfill
rb_tcx() { nsenter --net="/run/netns/$SW" "$ROOT/build/tests/xnt_tcx" "$@"; }

# Every port's tcx ingress chain, program names in order.
rb_chains() {
	local p
	for p in "${PORTS[@]}"; do
		echo "$p: $(rb_tcx query ingress "$p")"
	done
}

# attach_refused STATE_BEFORE CHAINS_BEFORE [ARGS...]: attach exits 1, says
# the kernel refused the second port and that it rolled back, and the
# switch and the chains are as before.
attach_refused() {
	local before=$1 chains=$2 rc
	shift 2
	echo "+ xdpnet attach $BR $*"
	xn attach "$BR" "$@" >"$WORK/rb.out" 2>"$WORK/rb.err"
	rc=$?
	cat "$WORK/rb.out" "$WORK/rb.err"
	expect_eq "exit code" "$rc" 1 || return 1
	grep -q "cannot attach to port $(g_port 2): Numerical result out of range" "$WORK/rb.err" ||
		{ echo "FAIL: not the kernel's refusal at $(g_port 2)"; return 1; }
	grep -q "rolled back" "$WORK/rb.err" || { echo "FAIL: does not say it rolled back"; return 1; }
	sw_state >"$WORK/rb.state"
	diff -u "$before" "$WORK/rb.state" || { echo "FAIL: the switch changed"; return 1; }
	rb_chains >"$WORK/rb.chains"
	cat "$WORK/rb.chains"
	diff -u "$chains" "$WORK/rb.chains" || { echo "FAIL: a tcx chain changed"; return 1; }
}

# The case where the kernel has tcx: a probe (filling the chain needs it).
rb_refused() {
	local L=$1 mode
	if ! rb_tcx fill ingress "$(g_port 2)" "$RB_FILL" >"$WORK/rb.fill" 2>&1; then
		note "SKIP $L: a port the kernel refuses: no tcx in this kernel (it came in Linux 6.6): $(tr '\n' ' ' <"$WORK/rb.fill")"
		rb_tcx unfill "$RB_FILL"
		return 0
	fi
	note "$(g_port 2): $(cat "$WORK/rb.fill")"
	sw_state >"$WORK/rb.statef"
	rb_chains >"$WORK/rb.chains0"
	for mode in $MODES; do
		check "$L: fresh attach --mode $mode that the kernel refuses at $(g_port 2) (its tcx chain full): exit 1, the switch and the chains as before" \
			attach_refused "$WORK/rb.statef" "$WORK/rb.chains0" --mode "$mode"
	done
	rb_tcx unfill "$RB_FILL"
}

# The attachment as status shows it: mode, ports, program ids.
attachment() {
	xn status "$BR" --json | jq -c '[.bridges[0].mode, (.bridges[0].ports[] | [.name, .ifindex, .hook, .tc_prog_id, .xdp_prog_id])]'
}

same_attachment() { # FILE
	attachment >"$WORK/rb.att1" || return 1
	cat "$1" "$WORK/rb.att1"
	diff -u "$1" "$WORK/rb.att1"
}

section_rollback() {
	local L="veth rollback" n mode
	section "$L"
	if ! check "$L: topology up" topo_up veth; then
		topo_down
		return
	fi
	sw_state >"$WORK/rb.state0"
	for mode in $MODES; do
		for n in 0 1 2; do
			check "$L: fresh attach --mode $mode failing after $n of 3 ports: exit 1, the switch exactly as before" \
				attach_fails "$n" "$WORK/rb.state0" --mode "$mode"
		done
	done
	rb_refused "$L"
	check "$L: no pins after the failed attaches" no_pins_for "$BR"
	check "$L: tcp ipv4 $((CELL / MB)) MB sha256 1->2 after them" tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
	check "$L: the bridge carried it (nothing hooked)" expect_bridged

	# Next to an attachment: a 4th port joins, picking it up fails. (No
	# follower: it would pick the port up first.)
	check "$L: attach (tc, no follower)" do_attach tc --no-follow
	check "$L: a 4th stand-in joins the bridge" veth_guest_add 4
	GUESTS+=(xnt-v4)
	PORTS+=(xntv4)
	witness_rules >/dev/null
	attachment >"$WORK/rb.att0"
	sw_state >"$WORK/rb.state4"
	check "$L: attach picking up xntv4 fails: exit 1, the switch exactly as before" \
		attach_fails 0 "$WORK/rb.state4" --mode tc
	check "$L: the attachment is as it was (mode, ports, programs)" same_attachment "$WORK/rb.att0"
	check "$L: tcp ipv4 $((CELL / MB)) MB sha256 1->2 still intact" tcp_measured 1 2 "$(g_ip4 2)" "$CELL"
	check "$L: tcp 1->2 still takes the bypass" expect_bypass
	# The same while switching to xdp: the mode and the ports' XDP stage
	# must be rolled back too.
	check "$L: attach --mode xdp picking up xntv4 fails: exit 1, the switch exactly as before" \
		attach_fails 0 "$WORK/rb.state4" --mode xdp
	check "$L: after it, the attachment is as it was (mode tc, no XDP stage)" same_attachment "$WORK/rb.att0"
	do_detach >/dev/null
	remove_4th
	topo_down
}
