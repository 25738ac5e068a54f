# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The kernel's link and bridge-FDB notifications in one namespace, each
stamped (CLOCK_REALTIME, ns) when read: the moment of a change as the
kernel announces it to its listeners, the follower included."""

import socket
import struct
import time

from .nsutil import in_netns

RTMGRP_LINK = 0x1
RTMGRP_NEIGH = 0x4
RTM_NEWLINK, RTM_DELLINK = 16, 17
RTM_NEWNEIGH, RTM_DELNEIGH = 28, 29
IFLA_IFNAME, IFLA_MASTER = 3, 10
NDA_LLADDR, NDA_MASTER = 2, 9
NAMES = {RTM_NEWLINK: "newlink", RTM_DELLINK: "dellink",
         RTM_NEWNEIGH: "newneigh", RTM_DELNEIGH: "delneigh"}


def _attrs(buf, off):
    out = {}
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4:
            break
        out[atype & 0x3fff] = buf[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


def parse(buf, t_ns):
    """Events of one datagram: dicts with t, type, family, ifindex,
    master, name (links) or mac (FDB)."""
    evs = []
    off = 0
    while off + 16 <= len(buf):
        mlen, mtype = struct.unpack_from("=IH", buf, off)
        if mlen < 16:
            break
        body = buf[off + 16:off + mlen]
        ev = {"t": t_ns, "type": NAMES.get(mtype)}
        if mtype in (RTM_NEWLINK, RTM_DELLINK) and len(body) >= 16:
            fam, _, idx, _, _ = struct.unpack_from("=BxHiII", body)
            a = _attrs(body, 16)
            ev.update(family=fam, ifindex=idx,
                      master=struct.unpack("=I", a[IFLA_MASTER][:4])[0]
                      if IFLA_MASTER in a else 0,
                      name=a.get(IFLA_IFNAME, b"").rstrip(b"\0").decode(
                          errors="replace"))
            evs.append(ev)
        elif mtype in (RTM_NEWNEIGH, RTM_DELNEIGH) and len(body) >= 12:
            fam, idx, _, _, _ = struct.unpack_from("=BxxxiHBB", body)
            a = _attrs(body, 12)
            mac = a.get(NDA_LLADDR, b"")
            ev.update(family=fam, ifindex=idx,
                      master=struct.unpack("=I", a[NDA_MASTER][:4])[0]
                      if NDA_MASTER in a else 0,
                      mac=":".join("%02x" % b for b in mac))
            evs.append(ev)
        off += (mlen + 3) & ~3
    return evs


class Monitor:
    """Link and neighbour notifications of namespace ns. fileno() for
    select; read() returns the events that arrived."""

    def __init__(self, ns):
        def mk():
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                              socket.NETLINK_ROUTE)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            s.bind((0, RTMGRP_LINK | RTMGRP_NEIGH))
            s.setblocking(False)
            return s
        self.sock = in_netns(ns, mk)
        self.lost = 0

    def fileno(self):
        return self.sock.fileno()

    def read(self):
        evs = []
        while True:
            try:
                buf = self.sock.recv(1 << 16)
            except BlockingIOError:
                return evs
            except OSError:  # ENOBUFS: the kernel dropped some
                self.lost += 1
                continue
            evs.extend(parse(buf, time.time_ns()))

    def close(self):
        self.sock.close()
