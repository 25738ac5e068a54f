#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# contrib/libvirt-hook, run exactly as libvirtd runs it: DRIVER.d/xdpnet
# DOMAIN OPERATION SUBOP EXTRA, libvirt's environment, the domain XML that
# libvirt 9.0 passed to a hook (tests/libvirt/xml, captured by live.sh's
# setup) on stdin.
#
# 1. With a stub xdpnet that records its arguments and a scratch pin
#    directory: "xdpnet attach BRIDGE" runs once per attached bridge on
#    start/started/reconnect, never for bridges without a pin directory, never on
#    other operations; malformed XML, odd bridge names, a missing, failing,
#    hanging or daemon-forking xdpnet never fail the hook (exit 0, nothing
#    on stdout) and never keep it long. The network hook starts an enabled
#    xdpnet@BRIDGE.service, and nothing else.
# 2. As root, with the real build/xdpnet, on a bridge with tap ports in a
#    private network and mount namespace (its own sysfs and bpffs, so every
#    device and pin goes away with it): a new tap on an attached bridge is
#    bypassed when the hook returns; a bridge xdpnet is not attached to is
#    left alone.
#
# Run as root under xn-heavy: xn-heavy tests/libvirt/hook.sh
set -u
set -o pipefail
. "$(dirname "$0")/lib.sh"
XDPNET_BIN=${XDPNET:-$ROOT/build/xdpnet}

if [ "${1:-}" != --inside ] && [ "$(id -u)" = 0 ]; then
	# Private namespaces: tmpfs /run (a fake systemd for the network
	# hook), and for part 2 a netns with its own sysfs and bpffs.
	exec unshare --mount --net --propagation private "$0" --inside
fi

T=$(mktemp -d /tmp/xnlh.XXXXXX)
cleanup() {
	local p
	for p in $(cat "$T"/pids 2>/dev/null); do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
stubs "$T"
hookdir "$T/hooks"
mkdir -p "$T/pins" "$T/stubbin"
HOOK_PATH=$T/bin:$T/stubbin:/usr/sbin:/usr/bin:/sbin:/bin

# The stub xdpnet: records "ARGS", then as STUB_MODE says: exit 0, fail
# (exit 3 with a message), hang, or fork a child that keeps stdout/stderr
# open (a follower that forgot to close them).
cat >"$T/stubbin/xdpnet" <<STUB
#!/bin/sh
echo "\$*" >>"$T/calls"
echo \$\$ >>"$T/pids"
case \$(cat "$T/mode" 2>/dev/null) in
fail) echo "xdpnet: no such bridge" >&2; exit 3 ;;
hang) exec sleep 30 ;;
fork) sleep 30 & echo \$! >>"$T/pids"; echo "attached"; exit 0 ;;
esac
echo "xdpnet: xnlvbr0 already attached (mode tc, 2 ports)"
STUB
chmod +x "$T/stubbin/xdpnet"
HOOK_ENV=(XDPNET_PIN_ROOT="$T/pins" XDPNET_HOOK_TIMEOUT=2)

MAX_MS=0 WAITED=0
# qemu OP XML EXPECTED_CALLS DESCRIPTION: run the qemu hook; it must exit
# 0, print nothing and run exactly EXPECTED_CALLS (lines, in order).
qemu() {
	local op=$1 xml=$2 want=$3 what=$4 got
	: >"$T/calls"
	: >"$T/log"
	run_hook "$T/hooks" qemu xnlvdom "$op" begin - <"$xml"
	got=$(cat "$T/calls")
	[ "$MS" -gt "$MAX_MS" ] && MAX_MS=$MS
	grep -q 'no answer within' "$T/log" && WAITED=$((WAITED + 1))
	if [ "$RC" = 0 ] && [ -z "$OUT" ] && [ "$got" = "$want" ]; then
		ok "$what ($MS ms)"
	else
		nok "$what: exit $RC, stdout '$OUT', calls '$got', expected '$want'"
		sed 's/^/#   log: /' "$T/log"
	fi
}
logged() { # PATTERN: the hook logged a line matching PATTERN (grep -E)
	if grep -qE "$1" "$T/log"; then ok "logged: $1"; else
		nok "logged: $1"
		sed 's/^/#   log: /' "$T/log"
	fi
}

STARTED=$XML/domain-started.xml
STOPPED=$XML/domain-stopped.xml

echo "# 1. stub xdpnet"
qemu started "$STARTED" "" "started, bridge not attached: nothing runs"
mkdir "$T/pins/xnlvbr0"
qemu started "$STARTED" "attach xnlvbr0" \
	"started: one attach for the two interfaces on xnlvbr0"
logged "^[0-9]+ xnlvdom started \(taps vnet0 vnet1\): xdpnet attach xnlvbr0: ok in [0-9]+ ms: xdpnet: xnlvbr0 already attached"
qemu start "$STARTED" "attach xnlvbr0" "start: attach"
qemu reconnect "$STARTED" "attach xnlvbr0" "reconnect: attach"
for op in prepare migrate restore attach; do
	qemu "$op" "$STARTED" "" "$op: nothing runs"
done
qemu stopped "$STOPPED" "" "stopped: nothing runs"
logged "xnlvdom stopped: its interfaces on xnlvbr0 are gone; the datapath drops their taps by itself"
qemu release "$STOPPED" "" "release: nothing runs"

# Two bridges, only the second attached; the order of the XML is kept.
sed "0,/bridge='xnlvbr0'/s//bridge='xnlvbr1'/" "$STARTED" >"$T/two.xml"
rmdir "$T/pins/xnlvbr0"
mkdir "$T/pins/xnlvbr0x" "$T/pins/xnlvbr1"
qemu started "$T/two.xml" "attach xnlvbr1" \
	"two bridges, one attached: only that one (a prefix of a name is no match)"
mkdir "$T/pins/xnlvbr0"
qemu started "$T/two.xml" "attach xnlvbr1
attach xnlvbr0" "two bridges, both attached: both, in the XML's order"

# Valid XML that a careless parser gets wrong.
cat >"$T/tricky.xml" <<'X'
<?xml version="1.0"?>
<!-- <domain><devices><interface type='bridge'><source bridge='evil0'/> -->
<domain type="qemu" xmlns:x="http://example.org/x">
  <name>a&amp;b</name>
  <description><![CDATA[ <interface type='bridge'><source bridge='evil1'/><target dev='x'/></interface> ]]></description>
  <metadata>
    <x:interface type='bridge'><x:source bridge='evil2'/></x:interface>
    <interface xmlns="http://example.org/y" type="bridge"><source bridge="evil3"/></interface>
  </metadata>
  <devices>
    <interface
        type = "network" ><source
      bridge="xnlvbr1"   network='n'
      portid='1'/><target dev="vnet7"
    /><!-- <source bridge='evil4'/> --></interface>
    <interface type='direct'><source dev='eth0' mode='bridge'/></interface>
    <interface type='user'/>
    <hostdev mode='subsystem' type='pci'><source><address bus='0x1'/></source></hostdev>
    <interface type='ethernet'><target dev='tap9'/></interface>
    <interface type='bridge'><source bridge='xnlvbr0'/></interface>
  </devices>
</domain>
X
for e in evil0 evil1 evil2 evil3 evil4; do mkdir "$T/pins/$e"; done
qemu started "$T/tricky.xml" "attach xnlvbr1
attach xnlvbr0" "comments, CDATA, metadata, either quotes, odd spacing, other interface types"
logged "xnlvdom started \(taps vnet7\): xdpnet attach xnlvbr1: ok"
logged "xnlvdom started \(taps none\): xdpnet attach xnlvbr0: ok"

# Malformed documents: act on nothing, still exit 0.
bad=0
while IFS= read -r doc; do
	bad=$((bad + 1))
	printf '%b' "$doc" >"$T/bad$bad.xml"
	qemu started "$T/bad$bad.xml" "" "malformed XML $bad ($(head -c 40 "$T/bad$bad.xml" | tr -c '[:print:]' '?')): nothing runs"
	logged "cannot parse the domain XML"
done <<'BAD'

<domain><devices><interface type='bridge'><source bridge='xnlvbr0'/></interface></devices>
<domain><devices><interface type='bridge'><source bridge='xnlvbr0'/></devices></domain>
<domain><devices><interface type=bridge><source bridge='xnlvbr0'/></interface></devices></domain>
<domain><devices><interface type='bridge'><source bridge='xnlvbr0></interface></devices></domain>
<domain><devices><interface type='bridge'><source bridge='xnlvbr0'/></interface></devices></domain><domain/>
junk<domain><devices><interface type='bridge'><source bridge='xnlvbr0'/></interface></devices></domain>
<domain><devices><interface type='bridge'><!-- <source bridge='xnlvbr0'/></interface></devices></domain>
\x00\xff\xfe<domain>
BAD

# Names that must never reach a path or a command line.
for name in -rf .. 'a b' 'x;y' 'a*' 'waytoolongbridge0' "\$(id)"; do
	sed "s/bridge='xnlvbr0'/bridge='$name'/g" "$STARTED" >"$T/odd.xml"
	mkdir -p "$T/pins/$name" 2>/dev/null
	qemu started "$T/odd.xml" "" "bridge name '$name': ignored"
done
logged "odd bridge name ignored"

# What "never keeps it long" means with a stub that answers at once: no
# run waited for the hook's 2 s timeout (the hook logs "no answer within"
# when it stops xdpnet). (A bound on the time itself is a speed test: 500
# ms held on an idle host, and 2 s not on one with three emulated guests
# beside: 3,068 ms.)
check "no run above (quick stub) waited for the hook's 2 s timeout (the slowest took $MAX_MS ms)" \
	[ "$WAITED" = 0 ]

# xdpnet missing, failing, hanging, forking a child that holds the output.
HOOK_ENV+=(XDPNET=/nonexistent/xdpnet)
save_path=$HOOK_PATH
HOOK_PATH=$T/bin:/usr/sbin:/usr/bin:/sbin:/bin
qemu started "$STARTED" "" "xdpnet not installed: exit 0"
logged "xdpnet not found; xnlvbr0 not updated"
HOOK_PATH=$save_path
unset 'HOOK_ENV[-1]'
echo fail >"$T/mode"
qemu started "$STARTED" "attach xnlvbr0" "xdpnet fails: exit 0"
logged "xdpnet attach xnlvbr0: failed \(exit 3\) in [0-9]+ ms: xdpnet: no such bridge"
echo hang >"$T/mode"
qemu started "$STARTED" "attach xnlvbr0" "xdpnet hangs: exit 0"
check "xdpnet hangs: the hook stops it at its 2 s timeout (+1 s kill grace), long before the 30 s hang ends ($MS ms; 10 s at most, for a loaded host)" \
	[ "$MS" -lt 10000 ]
logged "xdpnet attach xnlvbr0: no answer within 2 s"
hung=$(head -n 1 "$T/pids")
check "xdpnet hangs: the hook killed it" bash -c "! kill -0 $hung 2>/dev/null"
: >"$T/pids"
echo fork >"$T/mode"
qemu started "$STARTED" "attach xnlvbr0" "xdpnet leaves a child holding its stdout: exit 0"
check "... and the hook does not wait for that child, which lives 30 s: its 2 s timeout never fired ($MS ms)" \
	bash -c "! grep -q 'no answer within' '$T/log'"
rm "$T/mode"

# The network hook.
net() { # OP WANT_SYSTEMCTL DESCRIPTION
	: >"$T/systemctl"
	: >"$T/log"
	run_hook "$T/hooks" network xnlvnet "$1" begin - <"$XML/network-started.xml"
	local got
	got=$(cat "$T/systemctl")
	if [ "$RC" = 0 ] && [ -z "$OUT" ] && [ "$got" = "$2" ]; then
		ok "$3 ($MS ms)"
	else
		nok "$3: exit $RC, stdout '$OUT', systemctl '$got', expected '$2'"
	fi
}
if [ "${1:-}" = --inside ]; then
	mount -t tmpfs tmpfs /run # this namespace's own
	net started "" "network started, no systemd: nothing"
	mkdir -p /run/systemd/system
	net started "-q is-enabled xdpnet@xnlvbr0.service" \
		"network started, unit not enabled: nothing started"
	echo xdpnet@xnlvbr0.service >"$T/enabled"
	net started "-q is-enabled xdpnet@xnlvbr0.service
start --no-block xdpnet@xnlvbr0.service" \
		"network started, unit enabled: started without waiting"
	logged "network xnlvnet started: bridge xnlvbr0 is back; started xdpnet@xnlvbr0.service"
	for op in start stopped port-created port-deleted updated; do
		net "$op" "" "network $op: nothing"
	done
	rmdir /run/systemd/system
elif [ ! -d /run/systemd/system ]; then
	net started "" "network started, no systemd: nothing"
	echo "# not root: the network hook under systemd is not tested"
else
	echo "# not root and systemd runs here: the network hook is not tested"
fi

# ------------------------------------------------------------ real xdpnet
echo "# 2. real xdpnet, taps in a private network namespace"
if [ "${1:-}" != --inside ]; then
	echo "# skipped: needs root"
	finish
	exit
fi
if [ ! -x "$XDPNET_BIN" ]; then
	nok "build/xdpnet exists (make)"
	finish
	exit
fi
mount -t tmpfs tmpfs /run
mount -t sysfs sysfs /sys
mount -t bpf bpf /sys/fs/bpf
ip link set lo up
mkdir -p "$T/realbin"
ln -s "$XDPNET_BIN" "$T/realbin/xdpnet"
HOOK_PATH=$T/bin:$T/realbin:/usr/sbin:/usr/bin:/sbin:/bin
HOOK_ENV=()
mktap() { # TAP BRIDGE
	ip tuntap add dev "$1" mode tap &&
		ip link set "$1" master "$2" up
}
ip link add xnlhbr0 type bridge && ip link set xnlhbr0 up
ip link add xnlhbr1 type bridge && ip link set xnlhbr1 up
mktap xnlht0 xnlhbr0 && mktap xnlht1 xnlhbr1 || { nok "setup"; finish; exit; }
# What the operator did: attach to xnlhbr0 only (without a follower where
# this build has one, so that only the hook can pick up the new tap).
nofollow=
helps --no-follow && nofollow=--no-follow
check "operator: xdpnet attach xnlhbr0 $nofollow" \
	"$XDPNET_BIN" attach xnlhbr0 $nofollow
# The domain starts: libvirt creates its taps, one on each bridge.
mktap xnlht2 xnlhbr0 && mktap xnlht3 xnlhbr1
sed -e "0,/bridge='xnlvbr0'/s//bridge='xnlhbr0'/" \
	-e "s/bridge='xnlvbr0'/bridge='xnlhbr1'/" \
	-e "s/dev='vnet0'/dev='xnlht2'/" -e "s/dev='vnet1'/dev='xnlht3'/" \
	"$STARTED" >"$T/real.xml"
ports() { # BRIDGE: the ports xdpnet status lists
	"$XDPNET_BIN" status "$1" --json 2>/dev/null |
		jq -r '.bridges[].ports[].name' | sort | xargs
}
check "before the hook: xnlhbr0 has only xnlht0 bypassed" [ "$(ports xnlhbr0)" = xnlht0 ]
: >"$T/log"
run_hook "$T/hooks" qemu xnlvdom started begin - <"$T/real.xml"
if [ "$RC" = 0 ] && [ -z "$OUT" ]; then
	ok "hook with the real xdpnet: exit 0, nothing on stdout ($MS ms)"
else
	nok "hook with the real xdpnet: exit $RC, stdout '$OUT'"
fi
echo "# hook log: $(cut -d' ' -f2- "$T/log")"
check "after the hook: the new tap xnlht2 is bypassed on xnlhbr0" \
	[ "$(ports xnlhbr0)" = "xnlht0 xnlht2" ]
check "xnlhbr1 (not attached by the operator) is left alone" \
	[ ! -e /sys/fs/bpf/xdpnet/xnlhbr1 ]
logged "xnlvdom started \(taps xnlht2\): xdpnet attach xnlhbr0: ok in [0-9]+ ms"
check "the hook logged nothing about xnlhbr1" bash -c "! grep -q xnlhbr1 '$T/log'"
# The domain stops: its taps go.
ip link del xnlht2
ip link del xnlht3
run_hook "$T/hooks" qemu xnlvdom stopped end - <"$XML/domain-stopped.xml"
check "stopped: exit 0 ($MS ms)" [ "$RC" = 0 ]
printf 'garbage' >"$T/junk.xml"
run_hook "$T/hooks" qemu xnlvdom started begin - <"$T/junk.xml"
check "malformed XML with the real xdpnet: exit 0" [ "$RC" = 0 ]
check "xdpnet detach xnlhbr0" "$XDPNET_BIN" detach xnlhbr0
ip link del xnlhbr0
ip link del xnlhbr1
finish
