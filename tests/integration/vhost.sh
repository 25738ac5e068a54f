#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Frames that enter and leave taps through vhost-net, as a KVM guest's do
# (root; needs /dev/vhost-net: tests/kernels/inguest.sh runs it in the
# Debian guests of make check-kernels; where the kernel has no vhost-net,
# one skipped check with xnb_vhost's probe's reason).
#
# "VMs" are build/bench_tools/xnb_vhost processes, each a virtio-net
# driver on its own rings with a vhost-net device behind its tap: stamped
# records (checksums as the vnet header says, digests, sequence), sent
# from tap xnhv1 to another vhost tap (xnhv2) and to a veth (xnhe1, read
# by a packet socket in xnh-e), first through the plain bridge, then with
# xdpnet attached in tc and in xdp mode. Per target: UDP of 64 bytes with
# a full and with a partial checksum, 1,400 bytes with no checksum
# offload on either side, and TCP GSO frames of 64 KB over IPv4 and IPv6;
# and between two multi-queue taps (xnhm1, xnhm2: two queue fds, one
# vhost device each), 64 bytes on both queues. Each must arrive whole,
# every record once, every checksum right; through xdpnet every frame
# must take the bypass (xdp_redirect with no checksum to complete in xdp
# mode, as the mission asks of small frames there). That vhost-net handed
# the small frames over in batches of XDP buffers (tun_sendmsg with
# TUN_MSG_PTR, which feeds each to tun_xdp_one; that function itself is
# inlined in Debian's kernels) is counted by a kprobe on tun_sendmsg.
#
# Names: namespaces xnh-*, bridge xnhbr0, taps xnhv1/2 and xnhm1/2, veth
# xnhe1, 10.91.0.0/24 and fd91::/64.
# Output: "ok N - ..." / "not ok N - ...", then "P passed, F failed".
set -u
. "$(dirname "$0")/lib.sh"
SW=xnh-sw
BR=xnhbr0
PIN=$PIN_ROOT/$BR
LOCK=/run/lock/xnh-vhost.pid
VH=$ROOT/build/bench_tools/xnb_vhost
N=1000    # frames per small-frame cell...
RATE=2000 # ...sent at this rate (a guest under TCG keeps up)
NGSO=40   # GSO frames of 64 KB per cell...
GSO_RATE=200 # ...at this rate
TR=/sys/kernel/tracing
TI=$TR/instances/xnh
parse_args "[--keep] [-v]" "$@"
traps_install

mac() { echo "02:91:00:00:00:0$1"; }
ip4() { echo "10.91.0.$1"; }
ip6() { echo "fd91::$1"; }

suite_cleanup() {
	if [ -d "$TI" ]; then
		echo 0 >"$TI/events/xnh/sendmsg/enable" 2>/dev/null
		rmdir "$TI" 2>/dev/null
	fi
	grep -q '^p:xnh/sendmsg ' "$TR/kprobe_events" 2>/dev/null &&
		echo '-:xnh/sendmsg' >>"$TR/kprobe_events"
}

# ------------------------------------------------------------ the path

# The offset of msg_control in struct msghdr, from the kernel's BTF.
msg_control_off() {
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw | awk '
		/^\[[0-9]+\] / { id = substr($1, 2, length($1) - 2); kind = $2; name = $3; next }
		/^\t\x27/ {
			m = $1; gsub(/\x27/, "", m); t = $2; sub(/type_id=/, "", t)
			o = $3; sub(/bits_offset=/, "", o)
			if (kind == "UNION" && m == "msg_control") u[id] = 1
			if (kind == "STRUCT" && name == "\x27msghdr\x27") { mt[++n] = t; mn[n] = m; mo[n] = o }
		}
		END {
			for (i = 1; i <= n; i++)
				if (mn[i] == "msg_control" || (mt[i] in u)) { print mo[i] / 8; exit }
		}'
}

# A kprobe on tun_sendmsg that records the type and count of what vhost-net
# hands over (struct tun_msg_ctl), in a tracing instance of our own.
path_probe() {
	local off
	mountpoint -q "$TR" || mount -t tracefs tracefs "$TR" || return 1
	off=$(msg_control_off)
	[[ $off =~ ^[0-9]+$ ]] || { echo "FAIL: no msg_control in struct msghdr's BTF"; return 1; }
	echo "struct msghdr: msg_control at byte $off"
	# (A fetch through a NULL msg_control faults and leaves type and num
	# undefined: the filter looks at ctl first.)
	echo "p:xnh/sendmsg tun_sendmsg ctl=+$off(%si):x64 type=+0(+$off(%si)):u16 num=+2(+$off(%si)):u16" \
		>>"$TR/kprobe_events" || return 1
	mkdir -p "$TI" && echo 'ctl != 0 && type == 2' >"$TI/events/xnh/sendmsg/filter" &&
		echo 1 >"$TI/events/xnh/sendmsg/enable"
}

# batched: the frames handed over as XDP buffers (TUN_MSG_PTR) so far.
batched() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^num=/) s += substr($i, 5) } END { print s + 0 }' "$TI/trace"; }

# ------------------------------------------------------------ topology

# tap_add NAME: a multi-queue tap on the bridge, held as a VM's QEMU holds
# it: one queue open and detached (IFF_DETACH_QUEUE), which keeps the
# carrier on while the xnb_vhost processes that stand for the guest come
# and go (tun turns it off when the last queue closes, and each new
# carrier takes the link watch up to a second, during which the bridge
# and xdpnet's follower see the port down). A detached queue gets no
# frames.
tap_add() {
	local rdy=$WORK/held.$1
	ip -n "$SW" tuntap add dev "$1" mode tap vnet_hdr multi_queue || return 1
	ip netns exec "$SW" "$PY" -c '
import fcntl, os, signal, struct, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
# TUNSETIFF: IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH22x", sys.argv[1].encode(), 0x0002 | 0x1000 | 0x4000 | 0x0100))
fcntl.ioctl(fd, 0x400454d9, struct.pack("16sH22x", b"", 0x0400))  # TUNSETQUEUE IFF_DETACH_QUEUE
open(sys.argv[2], "w").close()
signal.pause()
' "$1" "$rdy" &
	track $!
	wait_until 5 test -e "$rdy" || { echo "FAIL: nothing holds $1"; return 1; }
	ip -n "$SW" link set "$1" master "$BR" up
}

# forwarding PORT: the link is up and the bridge forwards on it.
forwarding() {
	local v
	ns_sys v "$SW" "class/net/$1/operstate" && [ "$v" = up ] &&
		ns_sys v "$SW" "class/net/$1/brport/state" && [ "$v" = 3 ]
}

h_up() {
	local p
	remove_stale
	switch_up || return 1
	tap_add xnhv1 && tap_add xnhv2 && tap_add xnhm1 && tap_add xnhm2 || return 1
	ns_add xnh-e || return 1
	ip -n "$SW" link add xnhe1 type veth peer name eth0 netns xnh-e || return 1
	ip -n "$SW" link set xnhe1 master "$BR" up || return 1
	nsx xnh-e sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n xnh-e link set eth0 address "$(mac 3)" up
	for p in xnhv1 xnhv2 xnhm1 xnhm2 xnhe1; do
		wait_until 10 forwarding "$p" || { echo "FAIL: $p is not forwarding"; return 1; }
	done
}

# announce: each "VM" sends a broadcast, so that the bridge knows every
# MAC (the veth's, from a raw frame its packet socket writes).
announce() {
	local i
	local tap=([1]=xnhv1 [2]=xnhv2 [4]=xnhm1 [5]=xnhm2)
	for i in 1 2 4 5; do
		nsx "$SW" "$VH" send --tap "${tap[$i]}" --queues 1 --src-mac "$(mac $i)" \
			--dst-mac ff:ff:ff:ff:ff:ff --count 1 --dport 9 >/dev/null || return 1
	done
	nsx xnh-e "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
s.send(bytes.fromhex("ffffffffffff" + sys.argv[1].replace(":", "") + "88b5") + bytes(46))
' "$(mac 3)" || return 1
	for i in 1 2 3 4 5; do
		wait_until 5 br_knows "$(mac $i)" || { echo "FAIL: the bridge did not learn $(mac $i)"; return 1; }
	done
	[ "$V" = bridge ] && return 0
	for i in 1 2 3 4 5; do
		wait_until 5 xn_knows "$(mac $i)" || { echo "FAIL: xdpnet's copy has no $(mac $i)"; return 1; }
	done
}
br_knows() { bridge -n "$SW" fdb show br "$BR" | grep -qi "^$1 dev xnh"; }
xn_knows() { xn fdb "$BR" --json | jq -e --arg m "$1" '[.entries[] | select(.mac == $m)] | length > 0' >/dev/null; }

# ------------------------------------------------------------ cells

# cell TARGET KIND: one cell from xnhv1 (xnhm1 for mq) to TARGET (v2, e,
# mq) of KIND (udp-full, udp-partial, udp-off, gso4, gso6).
cell() {
	local to=$1 kind=$2 n=$N want=$N st=0 f0=$WORK/c0.json f1=$WORK/c1.json rdy=$WORK/ready
	local from=xnhv1 a=1 b rate=$RATE rx=(ip netns exec "$SW" "$VH" recv) r s=() b0 b1 d x k rp
	case $to in
	v2) b=2 r=(--tap xnhv2 --queues 1) s=(--queues 1) ;;
	e) b=3 r=(--packet eth0) rx=(ip netns exec xnh-e "$VH" recv) s=(--queues 1) ;;
	mq) from=xnhm1 a=4 b=5 r=(--tap xnhm2 --queues 2) s=(--queues 2) ;;
	esac
	s+=(--src-mac "$(mac $a)" --dst-mac "$(mac $b)")
	case $kind in
	gso6) s+=(--src "$(ip6 $a)" --dst "$(ip6 $b)") ;;
	*) s+=(--src "$(ip4 $a)" --dst "$(ip4 $b)") ;;
	esac
	case $kind in
	udp-full) s+=(--csum full) ;;
	udp-partial) s+=(--csum partial) ;;
	udp-off)
		# No checksum offload on either side: full checksums all the way.
		s+=(--csum off --size 1400)
		[ "$to" = e ] || r+=(--csum off)
		;;
	gso*)
		# Segments of 1400 bytes fit the MTU over IPv4 and IPv6; a
		# frame carries 46 records of one segment each.
		n=$NGSO want=$((NGSO * 46)) rate=$GSO_RATE
		s+=(--proto tcp --gso 1400)
		r+=(--proto tcp)
		;;
	esac
	# The XDP stage passes a flow's keep-alive to the bridge at once while
	# the frames redirected before it in vhost-net's batch wait for the
	# batch's flush, and tun puts a redirected frame in the queue of the
	# CPU it runs on: records may arrive out of order (counted, shown).
	[ "$V" = xdp ] && r+=(--any-order)
	rm -f "$rdy"
	[ "$V" = bridge ] || status_json "$f0"
	b0=$(batched)
	echo "+ xnb_vhost recv ${r[*]} --expect $want"
	"${rx[@]}" "${r[@]}" --expect "$want" --timeout 30 --ready "$rdy" >"$WORK/recv.out" 2>&1 &
	rp=$!
	track "$rp"
	if ! wait_until 10 test -e "$rdy"; then
		echo "FAIL: the receiver did not come up"
		stop_pid "$rp"
		cat "$WORK/recv.out"
		return 1
	fi
	echo "+ xnb_vhost send --tap $from ${s[*]} --count $n --rate $rate"
	nsx "$SW" "$VH" send --tap "$from" "${s[@]}" --count "$n" --rate "$rate" || st=1
	wait "$rp" || { echo "FAIL: the receiver says not all arrived intact"; st=1; }
	untrack "$rp"
	cat "$WORK/recv.out"
	b1=$(batched)
	echo "the kprobe's last record: $(grep -v '^#' "$TI/trace" | tail -n 1)"
	echo "frames vhost-net handed over as XDP buffers (TUN_MSG_PTR): $((b1 - b0))"
	# (64 KB frames do not fit a page: vhost-net's single-frame path.)
	[[ $kind == gso* ]] || expect_ge "frames through tun_xdp_one" "$((b1 - b0))" "$n" || st=1
	[ "$V" = bridge ] && return $st
	status_json "$f1"
	x=$(ctr_sum "$f0" "$f1" "$from" xdp_redirect)
	d=$(ctr_sum "$f0" "$f1" "$from" xdp_redirect tc_redirect)
	# A flow's first frame after a second of silence goes to the bridge,
	# as the keep-alive of its FDB entries (pass_refresh).
	k=$(ctr_sum "$f0" "$f1" "$from" pass_refresh)
	echo "$from: xdp_redirect +$x, with tc_redirect +$d, keep-alives +$k; every counter that moved:"
	# shellcheck disable=SC2046 # one counter name per word
	ctr_deltas "$f0" "$f1" "$from" $(jq -r --arg p "$from" \
		'.bridges[0].ports[] | select(.name == $p) | .counters | keys[]' "$f1") | grep -v '=0$' | tr '\n' ' '
	echo
	expect_ge "frames bypassed or keep-alives" "$((d + k))" "$n" || st=1
	expect_le "keep-alives (one a second at most, and one at the start)" "$k" "$((2 + n / rate))" || st=1
	# Small frames with nothing to complete, tap to tap: the XDP stage's.
	if [ "$V" = xdp ] && [ "$to" != e ] && [[ $kind == udp-full || $kind == udp-off ]]; then
		expect_ge "frames the XDP stage redirected, or keep-alives" "$((x + k))" "$n" || st=1
	fi
	# Partial checksums, tap to tap (what a default guest sends): completed
	# and redirected in XDP wherever the stage can tell vhost-net's XDP
	# buffers, at least 90% of them.
	if [ "$V" = xdp ] && [ "$to" != e ] && [ "$kind" = udp-partial ] && xdp_knows_native; then
		echo "the XDP stage's share of the partial-checksum frames: $((100 * (x + k) / n))%"
		expect_ge "frames the XDP stage redirected, or keep-alives (90%)" "$((x + k))" "$((n * 9 / 10))" || st=1
	fi
	return $st
}

cells() { # LABEL
	local t k what="every record intact, once"
	[ "$V" = xdp ] || what+=", in order"
	[ "$V" = bridge ] || what+=", bypassed"
	for t in v2 e; do
		for k in udp-full udp-partial udp-off gso4 gso6; do
			check "$1: $k xnhv1 -> $([ $t = e ] && echo 'a veth' || echo 'a vhost tap'): $what" cell "$t" "$k"
		done
	done
	check "$1: udp-full between multi-queue taps, 2 queues each: $what" cell mq udp-full
}

# ------------------------------------------------------------ run

check "preflight: root, tools, built CLI and xnb_vhost" sh -c '[ "$(id -u)" = 0 ] && [ -x "'"$XDPNET"'" ] && [ -x "'"$VH"'" ] && command -v bpftool jq >/dev/null' || finish
# The probe: xnb_vhost opens /dev/vhost-net first (exit 4 without it; with
# it, exit 2 for the tap that does not exist). The module may need loading
# where nothing made its device node.
[ -e /dev/vhost-net ] || modprobe -q vhost_net 2>/dev/null
"$VH" recv --tap xnhprobe0 >"$WORK/probe" 2>&1
if [ $? = 4 ]; then
	note "SKIP vhost.sh: $(cat "$WORK/probe") (the kernel has no vhost-net)"
	cleanup
	echo "$T_PASS passed, $T_FAIL failed, 1 skipped"
	exit 0
fi
check "preflight: no other vhost.sh" take_lock || finish
check "vhost: topology up (bridge, 4 taps, a veth)" h_up || finish
check "vhost: a kprobe on tun_sendmsg counts TUN_MSG_PTR batches" path_probe || finish
V=bridge
check "vhost bridge: every MAC learnt" announce
cells "vhost bridge"
for V in tc xdp; do
	if ! check "vhost $V: attach" xn attach "$BR" --mode "$V"; then
		continue
	fi
	check "vhost $V: every MAC learnt, in xdpnet's copy too" announce
	cells "vhost $V"
	check "vhost $V: detach" xn detach "$BR"
done
finish
