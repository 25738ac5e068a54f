# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The scale benchmark's stand-in host: one network namespace, xns-sw,
holding every bridge, its ports and their peers (the stand-in VMs'
ends; a generator sends from a peer, a receiver counts on one). Veth
pairs xns<B>p<I> (the port) / xns<B>q<I> (the peer), and on each bridge
some taps xns<B>t<I> held open by this process (a tap needs a reader
for carrier, as QEMU is one). Made with `ip -batch`: 256 ports take a
second or two. Learned MACs come from frames a peer sends with many
source addresses to its own MAC (the bridge learns, then drops them: no
flood)."""

import fcntl
import json
import os
import socket
import struct
import subprocess
import tempfile

from converge_lib.nsutil import in_netns

SW = "xns-sw"
TUNSETIFF = 0x400454ca
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000


def sh(argv, check=True, timeout=120, inp=None, cwd=None):
    cp = subprocess.run(argv, input=inp, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True, timeout=timeout,
                        cwd=cwd)
    if check and cp.returncode:
        raise RuntimeError("%s: exit %d: %s" % (
            " ".join(argv[:6]), cp.returncode, cp.stderr.strip()[:300]))
    return cp


def ip_batch(cmds):
    """ip -n xns-sw -batch of these lines (one process for all)."""
    with tempfile.NamedTemporaryFile("w", suffix=".ip", delete=False) as f:
        f.write("\n".join(cmds) + "\n")
        path = f.name
    try:
        sh(["ip", "-n", SW, "-batch", path], timeout=600)
    finally:
        os.unlink(path)


def links():
    """name -> {ifindex, mac, master} of every link in xns-sw."""
    out = json.loads(sh(["ip", "-n", SW, "-j", "link", "show"]).stdout)
    return {ln["ifname"]: {"ifindex": ln["ifindex"],
                           "mac": ln.get("address", ""),
                           "master": ln.get("master", "")} for ln in out}


def rx_packets(names):
    """rx packets of these links, one `ip` call."""
    out = json.loads(sh(["ip", "-n", SW, "-s", "-j", "link",
                         "show"]).stdout)
    want = set(names)
    return {ln["ifname"]: ln["stats64"]["rx"]["packets"] for ln in out
            if ln["ifname"] in want}


def _mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


class Bridge:
    def __init__(self, host, idx, nports, ntaps):
        self.host = host
        self.name = "xnsb%d" % idx
        self.ports = ["xns%dp%d" % (idx, i) for i in range(nports - ntaps)]
        self.peers = ["xns%dq%d" % (idx, i) for i in range(nports - ntaps)]
        self.taps = ["xns%dt%d" % (idx, i) for i in range(ntaps)]
        self.spare = ("xns%dsp" % idx, "xns%dsq" % idx)
        self.nports = nports
        self.tap_fds = []

    def commands(self):
        # ageing 3000 s: nothing ages out during a run
        c = ["link add %s type bridge ageing_time 300000" % self.name]
        for p, q in zip(self.ports, self.peers):
            c += ["link add %s type veth peer name %s" % (p, q),
                  "link set %s master %s up" % (p, self.name),
                  "link set %s up" % q]
        sp, sq = self.spare
        c += ["link add %s type veth peer name %s" % (sp, sq),
              "link set %s up" % sp, "link set %s up" % sq,
              "link set %s up" % self.name]
        return c

    def tap_commands(self):
        return ["link set %s master %s up" % (t, self.name)
                for t in self.taps]

    def learn(self, peers):
        """One frame from each peer to its own MAC: the bridge learns
        the peer behind its port."""
        lk = links()
        for q in peers:
            m = _mac_bytes(lk[q]["mac"])
            self.host.send(q, [m + m + b"\x88\xb5" + bytes(46)])

    def fill(self, n, peer=None):
        """n learned MACs (02:5c:..) behind the last port."""
        q = peer or self.peers[-1]
        me = _mac_bytes(links()[q]["mac"])
        frames = []
        for i in range(n):
            src = bytes([2, 0x5c, (i >> 24) & 255, (i >> 16) & 255,
                         (i >> 8) & 255, i & 255])
            frames.append(me + src + b"\x88\xb5" + bytes(46))
        self.host.send(q, frames)

    def flush(self, port):
        """Forget what the bridge learned behind a port."""
        sh(["ip", "-n", SW, "link", "set", "dev", port, "type",
            "bridge_slave", "fdb_flush"])

    def learned(self):
        out = sh(["bridge", "-n", SW, "fdb", "show", "br",
                  self.name]).stdout
        return sum(1 for ln in out.splitlines()
                   if "permanent" not in ln and "static" not in ln)


class Host:
    def __init__(self):
        self.bridges = []
        self.made = 0  # bridges made so far: names are never reused
        self.remove()
        sh(["ip", "netns", "add", SW])
        # No IPv6 on the stand-ins (the frames are the bench's own): the
        # addrconf chatter (MLD, DAD, RS) of a few hundred devices made
        # at once floods through the big bridge for seconds (2.6 s of
        # softirq CPU here), and the first bridge's convergence measured
        # that. Set before any device is made.
        sh(["ip", "netns", "exec", SW, "sysctl", "-qw",
            "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1"], check=False)
        # The plain bridge path, whatever modules an earlier run loaded.
        for k in ("call-iptables", "call-ip6tables", "call-arptables"):
            sh(["ip", "netns", "exec", SW, "sysctl", "-qw",
                "net.bridge.bridge-nf-%s=0" % k], check=False)
        ip_batch(["link set lo up"])

    def add(self, sizes, ntaps):
        """Bridges of these port counts (ntaps taps among each's ports,
        fewer where a bridge is smaller)."""
        new = []
        for n in sizes:
            t = min(ntaps, max(0, n - 2))  # 2 veths at least
            new.append(Bridge(self, self.made, n, t))
            self.made += 1
        ip_batch([c for b in new for c in b.commands()])
        for b in new:
            for t in b.taps:
                b.tap_fds.append(in_netns(SW, self._tap, t))
        ip_batch([c for b in new for c in b.tap_commands()])
        self.bridges += new
        return new

    def drop(self, bridges):
        """Delete these bridges, their veths (the peers go with them)
        and their taps (closed)."""
        ip_batch(["link del %s" % d for b in bridges
                  for d in b.ports + [b.spare[0], b.name]])
        for b in bridges:
            for fd in b.tap_fds:
                os.close(fd)
            b.tap_fds = []
            self.bridges.remove(b)

    @staticmethod
    def _tap(name):
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack(
            "16sH", name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
        return fd

    def send(self, dev, frames):
        def mk():
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind((dev, 0))
            return s
        s = in_netns(SW, mk)
        try:
            for f in frames:
                s.send(f)
        finally:
            s.close()

    def remove(self):
        for b in self.bridges:
            for fd in b.tap_fds:
                os.close(fd)
            b.tap_fds = []
        if os.path.exists("/run/netns/" + SW):
            sh(["ip", "netns", "del", SW], check=False)
