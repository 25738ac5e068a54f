# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Numbered frames between stand-in VMs, and which path each one took.

Every active flow sends one UDP datagram per period (1 ms) from one
stand-in to another: flow id, sequence number, send time. Each stand-in
reads what reaches its eth0 with an AF_PACKET socket (so frames for
another MAC, a flood, are seen too) and the kernel's receive timestamp.
The bridge's forward path marks every frame it forwards (an nftables
bridge-family rule sets DSCP CS1, see topo.py); a bypassed frame never
passes that hook and arrives unmarked. So each received frame says
whether the bridge or the datapath carried it, and when.

Probe.pump() runs the loop: sends what is due, reads frames, netlink
notifications and the follower's log lines, until a condition holds.
"""

import errno
import os
import select
import socket
import struct
import time

from .nsutil import in_netns

PORT = 47999
MAGIC = b"XNCV"
HDR = struct.Struct("!4sHIQ")  # magic, flow id, seq, send time (ns)
PAYLOAD = 64
ETH_P_IP = 0x0800
SO_TIMESTAMPNS = 35
DSCP_MARK = 8  # CS1: set by the bridge's forward path


class Guest:
    """A stand-in VM: namespace, eth0's addresses, its sockets."""

    def __init__(self, name, ns, port, ip, mac):
        self.name, self.ns, self.port, self.ip, self.mac = \
            name, ns, port, ip, mac
        self.tx = self.rx = self.sink = None

    def open(self):
        self.close()

        def mk():
            tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            tx.setblocking(False)
            # A socket on the probe's port, never read: the stack drops
            # what overflows it instead of answering with ICMP port
            # unreachable (a frame from this stand-in: the bridge would
            # learn its MAC, which the FDB kinds must control).
            sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sink.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sink.bind(("0.0.0.0", PORT))
            rx = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                               socket.htons(ETH_P_IP))
            rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            rx.bind(("eth0", ETH_P_IP))
            rx.setblocking(False)
            return tx, rx, sink
        self.tx, self.rx, self.sink = in_netns(self.ns, mk)

    def close(self):
        for s in (self.tx, self.rx, self.sink):
            if s:
                s.close()
        self.tx = self.rx = self.sink = None


class Flow:
    """src -> dst, one frame per period while active. frames: what dst
    received since the last clear(): (seq, send_ns, rx_ns, marked)."""

    def __init__(self, fid, src, dst):
        self.fid, self.src, self.dst = fid, src, dst
        self.name = src.name + dst.name
        self.active = False
        self.seq = 0
        self.frames = []
        self.sent = []  # send times since clear()
        self.send_err = 0

    def clear(self):
        self.frames = []
        self.sent = []


def parse_ip(buf):
    """(flow id, seq, send_ns, marked) of one of our IPv4/UDP frames, or
    None."""
    if len(buf) < 20 or buf[0] >> 4 != 4 or buf[9] != 17:
        return None
    ihl = (buf[0] & 15) * 4
    if len(buf) < ihl + 8 + HDR.size:
        return None
    if struct.unpack_from("!H", buf, ihl + 2)[0] != PORT:
        return None
    magic, fid, seq, sent = HDR.unpack_from(buf, ihl + 8)
    if magic != MAGIC:
        return None
    return fid, seq, sent, (buf[1] >> 2) == DSCP_MARK


class Probe:
    def __init__(self, guests, flows, period_s=0.001):
        self.guests = guests
        self.flows = {f.fid: f for f in flows}
        self.by_name = {f.name: f for f in flows}
        self.period_ns = int(period_s * 1e9)
        self.next_send = 0
        self.max_gap_ns = 0
        self.last_send = 0
        self.extra = {}  # fd -> callback()
        self.ep = select.epoll()
        self.rx_fds = {}
        for g in guests:
            self.watch_guest(g)

    def watch_guest(self, g):
        for fd, gg in list(self.rx_fds.items()):
            if gg is g:
                try:
                    self.ep.unregister(fd)
                except OSError:
                    pass
                del self.rx_fds[fd]
        if g.rx:
            self.rx_fds[g.rx.fileno()] = g
            self.ep.register(g.rx.fileno(), select.EPOLLIN)

    def watch(self, fd, cb):
        self.extra[fd] = cb
        self.ep.register(fd, select.EPOLLIN)

    def unwatch(self, fd):
        if fd in self.extra:
            del self.extra[fd]
            try:
                self.ep.unregister(fd)
            except OSError:
                pass

    def set_active(self, names):
        for f in self.flows.values():
            f.active = f.name in names

    def clear(self):
        for f in self.flows.values():
            f.clear()
        self.max_gap_ns = 0

    def _send(self):
        now = time.time_ns()
        if self.last_send:
            self.max_gap_ns = max(self.max_gap_ns, now - self.last_send)
        self.last_send = now
        for f in self.flows.values():
            if not f.active or not f.src.tx:
                continue
            f.seq += 1
            t = time.time_ns()
            pkt = HDR.pack(MAGIC, f.fid, f.seq, t).ljust(PAYLOAD, b"\0")
            try:
                f.src.tx.sendto(pkt, (f.dst.ip, PORT))
                f.sent.append(t)
            except OSError as e:
                if e.errno not in (errno.ENETUNREACH, errno.ENODEV,
                                   errno.EAGAIN, errno.ENOBUFS,
                                   errno.EHOSTUNREACH, errno.ENETDOWN):
                    raise
                f.send_err += 1

    def _recv(self, g):
        while True:
            try:
                buf, anc, _, _ = g.rx.recvmsg(2048, socket.CMSG_SPACE(16))
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # the device went away: reopen() the guest
                fd = g.rx.fileno()
                if fd in self.rx_fds:
                    del self.rx_fds[fd]
                    self.ep.unregister(fd)
                return
            t = None
            for lvl, typ, data in anc:
                if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", data[:16])
                    t = sec * 1000000000 + nsec
            p = parse_ip(buf)
            if not p:
                continue
            f = self.flows.get(p[0])
            if f is None or f.dst is not g:
                continue  # a flood reaching another stand-in
            f.frames.append((p[1], p[2], t or time.time_ns(), p[3]))

    def pump(self, done=None, timeout_s=1.0, check_every_s=0.005):
        """Run until done() is true (checked every check_every_s) or
        timeout_s passed. Returns done()'s last value."""
        end = time.monotonic() + timeout_s
        next_check = 0
        res = False
        while True:
            now = time.monotonic()
            if now >= self.next_send:
                self._send()
                self.next_send = max(self.next_send + self.period_ns / 1e9,
                                     now)
            if done and now >= next_check:
                res = done()
                if res:
                    return res
                next_check = now + check_every_s
            if now >= end:
                return res
            wait = max(0.0, min(self.next_send, end) - time.monotonic())
            for fd, _ in self.ep.poll(wait):
                if fd in self.rx_fds:
                    self._recv(self.rx_fds[fd])
                elif fd in self.extra and self.extra[fd]():
                    self.unwatch(fd)  # end of file

    def close(self):
        self.ep.close()


class LineReader:
    """A child's stdout, line by line, each line stamped when read."""

    def __init__(self, proc):
        self.proc = proc
        self.fd = proc.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buf = b""
        self.lines = []  # (t_ns, text)
        self.eof_t = None

    def __call__(self):
        """Read what is there; True at end of file."""
        while True:
            try:
                b = os.read(self.fd, 65536)
            except BlockingIOError:
                return False
            t = time.time_ns()
            if not b:
                if self.buf:
                    self.lines.append((t, self.buf.decode(errors="replace")))
                    self.buf = b""
                self.eof_t = self.eof_t or t
                return True
            self.buf += b
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                self.lines.append((t, line.decode(errors="replace")))

    def since(self, t0, t1=None):
        return [(t, l) for t, l in self.lines
                if t >= t0 and (t1 is None or t <= t1)]
