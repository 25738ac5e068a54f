# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Namespaces, packet sockets and the bridge's FDB, from one process.

The fuzzer runs thousands of frames per scenario: a process per frame or
per FDB read (ip, bridge) would cost 10-20 ms of CPU each on 2 cores. So
sockets are opened inside a namespace with setns(2) and keep working from
the root namespace; counters are read through an anchor process's /sys.
"""
import ctypes
import os
import select
import socket
import struct
import subprocess
import time

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_QDISC_BYPASS = 20
PACKET_VNET_HDR = 15
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
PACKET_OUTGOING = 4
VNET_HDR = 10

_libc = ctypes.CDLL(None, use_errno=True)


class In:
    """with In(ns): the calling thread is in network namespace ns."""

    def __init__(self, ns):
        self.ns = ns

    def __enter__(self):
        self.back = os.open("/proc/self/ns/net", os.O_RDONLY)
        fd = os.open(f"/run/netns/{self.ns}", os.O_RDONLY)
        try:
            if _libc.setns(fd, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), f"setns {self.ns}")
        finally:
            os.close(fd)

    def __exit__(self, *a):
        _libc.setns(self.back, CLONE_NEWNET)
        os.close(self.back)


def sh(cmd, check=True, inp=None):
    """Run a command line (a list), its output as text; raise on failure."""
    r = subprocess.run(cmd, input=inp, capture_output=True, text=True)
    if check and r.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def csum(b, s=0):
    """The Internet checksum's running sum of b (added to s), unfolded."""
    if len(b) & 1:
        b += b"\0"
    return s + sum(struct.unpack(f"!{len(b) // 2}H", b))


def fold(s):
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def complete(vnet, frame):
    """The frame as its receiver would have it: a checksum the header
    leaves to the device (NEEDS_CSUM) summed in, as a guest's stack
    trusts it."""
    flags, _, _, _, start, off = struct.unpack("<BBHHHH", vnet)
    if not flags & 1 or start + off + 2 > len(frame):
        return frame
    f = bytearray(frame)
    # the field holds the pseudo-header's sum: sum it with the rest
    v = ~fold(csum(bytes(f[start:]))) & 0xffff
    f[start + off:start + off + 2] = struct.pack("!H", v)
    return bytes(f)


class Port:
    """A packet socket on one device: sends raw frames (with a virtio-net
    header in front) and receives everything the device receives."""

    def __init__(self, ns, dev, direct=False):
        """direct: a sender only, past the device's qdisc and tc egress."""
        with In(ns):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0 if direct else socket.htons(ETH_P_ALL))
            s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            if direct:
                s.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
            s.bind((dev, 0))
            s.setblocking(False)
        self.s, self.ns, self.dev = s, ns, dev

    def send(self, frame, vnet=bytes(VNET_HDR)):
        try:
            self.s.send(vnet + frame)
            return True
        except OSError:
            return False  # too long for the device, or refused: as a VM's

    def recv_all(self):
        """Frames received so far: (vnet header, frame with its VLAN tag
        put back where the stack took it out)."""
        out = []
        while True:
            try:
                data, anc, _, addr = self.s.recvmsg(70000, 512)
            except BlockingIOError:
                return out
            if addr[2] == PACKET_OUTGOING:
                continue
            vnet, frame = data[:VNET_HDR], complete(data[:VNET_HDR], data[VNET_HDR:])
            for lvl, typ, val in anc:
                if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
                    st, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", val[:20])
                    if st & TP_STATUS_VLAN_VALID:
                        tpid = tpid if st & TP_STATUS_VLAN_TPID_VALID else 0x8100
                        frame = frame[:12] + struct.pack("!HH", tpid, tci) + frame[12:]
            out.append((vnet, frame))

    def close(self):
        self.s.close()


def wait_readable(ports, secs):
    select.select([p.s for p in ports], [], [], secs)


class Anchor:
    """A process inside a namespace, for its /sys (ip netns exec mounts the
    namespace's own sysfs there): counters without a process per read."""

    def __init__(self, ns):
        self.p = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "infinity"],
                                  stdin=subprocess.DEVNULL)
        self.root = f"/proc/{self.p.pid}/root/sys/class/net"
        for _ in range(200):
            if self._ready():
                return
            time.sleep(0.005)

    def _ready(self):
        try:
            return os.readlink(f"/proc/{self.p.pid}/exe").endswith("sleep")
        except OSError:
            return False

    def read(self, dev, what):
        try:
            with open(f"{self.root}/{dev}/{what}") as f:
                return f.read().strip()
        except OSError:
            return None

    def rx(self, dev):
        v = self.read(dev, "statistics/rx_packets")
        return int(v) if v else -1

    def stop(self):
        self.p.kill()
        self.p.wait()


# ------------------------------------------------------------ the FDB
RTM_GETNEIGH, NLM_F_REQUEST, NLM_F_DUMP, NLMSG_DONE = 30, 1, 0x300, 3
AF_BRIDGE = 7
NDA_LLADDR, NDA_VLAN, NDA_MASTER = 2, 5, 9
NUD_PERMANENT, NUD_NOARP = 0x80, 0x40
NTF_EXT_LEARNED, NTF_STICKY = 0x10, 0x40


class Fdb:
    """The bridge's own FDB entries (those with NDA_MASTER = the bridge),
    by netlink from inside its namespace."""

    def __init__(self, ns, bridge):
        with In(ns):
            self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
            self.s.bind((0, 0))
            self.br = socket.if_nametoindex(bridge)
        self.names = {self.br: "br"}  # the same in every world
        self.ns = ns
        self.seq = 0

    def name(self, ifindex):
        if ifindex not in self.names:
            with In(self.ns):
                try:
                    self.names[ifindex] = socket.if_indextoname(ifindex)
                except OSError:
                    return str(ifindex)
        return self.names[ifindex]

    def dump(self):
        """Sorted (mac, vlan, port, kind) tuples; kind: static, local,
        dynamic, with +ext and +sticky."""
        self.seq += 1
        req = struct.pack("BBHiHBB", AF_BRIDGE, 0, 0, 0, 0, 0, 0)  # all; filtered below
        self.s.send(struct.pack("IHHII", 16 + len(req), RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP,
                                self.seq, 0) + req)
        out = []
        while True:
            data = self.s.recv(1 << 16)
            off = 0
            while off < len(data):
                ln, typ, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if typ == NLMSG_DONE:
                    return sorted(out)
                if seq == self.seq and typ == 28:  # RTM_NEWNEIGH
                    out.extend(self._entry(data[off + 16:off + ln]))
                off += (ln + 3) & ~3

    def _entry(self, b):
        fam, _, _, ifi, state, flags, _ = struct.unpack_from("BBHiHBB", b, 0)
        off, mac, vlan, master = 12, None, 0, None
        while off + 4 <= len(b):
            alen, atype = struct.unpack_from("HH", b, off)
            val = b[off + 4:off + alen]
            if atype == NDA_LLADDR:
                mac = val.hex(":")
            elif atype == NDA_VLAN:
                vlan = struct.unpack("H", val[:2])[0]
            elif atype == NDA_MASTER:
                master = struct.unpack("I", val[:4])[0]
            off += (alen + 3) & ~3
        if master != self.br or mac is None:
            return []
        kind = "local" if state & NUD_PERMANENT else "static" if state & NUD_NOARP else "dynamic"
        if flags & NTF_EXT_LEARNED:
            kind += "+ext"
        if flags & NTF_STICKY:
            kind += "+sticky"
        return [(mac, vlan, self.name(ifi), kind)]

    def close(self):
        self.s.close()
