#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Records the rule sets libvirtd (Debian 12: libvirt 9.0, iptables 1.8.9 nft
# backend, ebtables-nft) installs for its default NAT network
# (libvirt-default.*), a clean-traffic nwfilter binding on tap vnet0
# (libvirt-clean-traffic.*), and that plus a filter with TCP rules on vnet1,
# which libvirt writes as iptables physdev rules (libvirt-nwfilter-ipt.*),
# into the files beside this script.
# libvirtd runs inside a throwaway network namespace with private tmpfs over
# its state directories, so the host's firewall and libvirt are untouched.
# Needs root and libvirt-daemon-system, dnsmasq-base, nftables installed
# (services not started). Run it under xn-heavy.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
NS=xnf-lv$$
T=$(mktemp -d /tmp/xnf-lv.XXXXXX)
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
ip netns add "$NS"
cp -a /etc/libvirt "$T/etc"
# Root over the unix socket without polkit (no dbus here).
echo 'auth_unix_rw = "none"' >>"$T/etc/libvirtd.conf"
echo 'auth_unix_ro = "none"' >>"$T/etc/libvirtd.conf"
rm -f "$T/etc/qemu/networks/autostart/"*
cat >"$T/binding.xml" <<'XML'
<filterbinding>
  <owner><name>xnfvm</name><uuid>d1b7c9f6-3a4e-4a55-9d0e-6c2f5a1e7b01</uuid></owner>
  <portdev name='vnet0'/>
  <mac address='52:54:00:12:34:56'/>
  <filterref filter='clean-traffic'>
    <parameter name='IP' value='192.168.122.10'/>
  </filterref>
</filterbinding>
XML
cat >"$T/xnf-web.xml" <<'XML'
<filter name='xnf-web' chain='root'>
  <filterref filter='clean-traffic'/>
  <rule action='accept' direction='in' priority='500'>
    <tcp dstportstart='80'/>
  </rule>
  <rule action='accept' direction='out' priority='500'>
    <all/>
  </rule>
  <rule action='drop' direction='in' priority='1000'>
    <all/>
  </rule>
</filter>
XML
sed -e 's/vnet0/vnet1/' -e 's/12:34:56/12:34:57/' -e 's/122.10/122.11/' \
	-e "s/'clean-traffic'/'xnf-web'/" "$T/binding.xml" >"$T/binding1.xml"
ip netns exec "$NS" unshare -m --propagation private bash -eu -c '
T=$1 HERE=$2
for d in /run/libvirt /var/lib/libvirt /var/cache/libvirt /var/log/libvirt; do
	mkdir -p $d; mount -t tmpfs tmpfs $d
done
mkdir -p /var/lib/libvirt/dnsmasq /var/lib/libvirt/network
mount --bind $T/etc /etc/libvirt
ip link set lo up
/usr/sbin/libvirtd -f /etc/libvirt/libvirtd.conf >$T/libvirtd.log 2>&1 &
pid=$!
trap "virsh -q net-destroy default >/dev/null 2>&1; kill $pid; wait $pid" EXIT
for i in $(seq 100); do virsh -q version >/dev/null 2>&1 && break; sleep 0.1; done
virsh -q net-define /etc/libvirt/qemu/networks/default.xml >/dev/null 2>&1 || true
virsh -q net-start default
dump() {
	iptables-save >$HERE/$1.iptables
	ip6tables-save >$HERE/$1.ip6tables
	{ ebtables-save; } >$HERE/$1.ebtables
	nft -j list ruleset >$HERE/$1.nft.json
}
dump libvirt-default
ip tuntap add dev vnet0 mode tap
ip link set vnet0 master virbr0 up
virsh -q nwfilter-binding-create $T/binding.xml
dump libvirt-clean-traffic
# A filter with protocol rules, which libvirt puts in iptables (physdev).
virsh -q nwfilter-define $T/xnf-web.xml
ip tuntap add dev vnet1 mode tap
ip link set vnet1 master virbr0 up
virsh -q nwfilter-binding-create $T/binding1.xml
dump libvirt-nwfilter-ipt
virsh -q nwfilter-binding-delete vnet1
virsh -q nwfilter-binding-delete vnet0
ip link del vnet1
ip link del vnet0
' _ "$T" "$HERE" || { cat "$T/libvirtd.log" >&2; exit 1; }
# Counters and timestamps make diffs noisy: strip the timestamps.
sed -i 's/ on [A-Z][a-z][a-z] [A-Z][a-z][a-z] .*$//' "$HERE"/libvirt-*.iptables "$HERE"/libvirt-*.ip6tables \
	"$HERE"/libvirt-*.ebtables
echo "recorded: $(ls "$HERE"/libvirt-*)"
