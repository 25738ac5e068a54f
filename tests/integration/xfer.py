#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Content-checked TCP and UDP transfers for the xdpnet integration suite.

  xfer.py tcp-server --port P [--timeout S]
      Accepts one connection, reads to EOF, sends back "<sha256> <bytes>\\n".
  xfer.py tcp-client --to ADDR --port P --bytes N [--rate BYTES_PER_S]
                     [--timeout S] [--progress FILE]
      Sends N random bytes, half-closes, and compares the server's digest
      with its own. Exit 0 only when they match.
  xfer.py udp-server --port P --count N [--timeout S]
      Verifies each datagram (seq, sha256 of the rest, payload) and echoes
      the good ones. Exit 0 when N distinct good datagrams and no bad one.
  xfer.py udp-client --to ADDR --port P --count N [--sizes a,b,c]
      Stop-and-wait: sends each datagram, waits for the identical echo
      (retrying a lost one a few times). Exit 0 when all came back intact.

Servers bind "::" (dual stack) and print "LISTENING" once ready. Standard
library only. ADDR may be a link-local address with a scope ("fe80::1%eth0").
"""
import argparse
import hashlib
import os
import socket
import struct
import sys
import time

CHUNK = 256 * 1024


def log(msg):
    sys.stderr.write("xfer: %s\n" % msg)
    sys.stderr.flush()


def ready():
    sys.stdout.write("LISTENING\n")
    sys.stdout.flush()


def listen_sock(kind, port):
    s = socket.socket(socket.AF_INET6, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    return s


def resolve(addr, port, kind):
    return socket.getaddrinfo(addr, port, 0, kind)[0]


def tcp_server(a):
    s = listen_sock(socket.SOCK_STREAM, a.port)
    s.listen(1)
    s.settimeout(a.timeout)
    ready()
    c, peer = s.accept()
    c.settimeout(a.timeout)
    h = hashlib.sha256()
    n = 0
    while True:
        b = c.recv(CHUNK)
        if not b:
            break
        h.update(b)
        n += len(b)
    line = "%s %d\n" % (h.hexdigest(), n)
    c.sendall(line.encode())
    c.close()
    log("server: received %d bytes from %s sha256 %s" % (n, peer[0], h.hexdigest()))
    return 0


def tcp_client(a):
    fam, kind, proto, _, sa = resolve(a.to, a.port, socket.SOCK_STREAM)
    deadline = time.monotonic() + 5
    while True:
        c = socket.socket(fam, kind, proto)
        c.settimeout(a.timeout)
        try:
            c.connect(sa)
            break
        except (ConnectionRefusedError, socket.timeout, OSError) as e:
            c.close()
            if time.monotonic() > deadline:
                log("client: connect %s: %s" % (a.to, e))
                return 1
            time.sleep(0.05)
    h = hashlib.sha256()
    sent = 0
    start = time.monotonic()
    last_progress = 0
    pf = open(a.progress, "w") if a.progress else None
    while sent < a.bytes and not (a.until and os.path.exists(a.until)):
        n = min(CHUNK, a.bytes - sent)
        b = os.urandom(n)
        h.update(b)
        c.sendall(b)
        sent += n
        if pf and sent - last_progress >= 4 * 1024 * 1024:
            pf.seek(0)
            pf.write("%d\n" % sent)
            pf.flush()
            last_progress = sent
        if a.rate:
            ahead = sent / a.rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
    c.shutdown(socket.SHUT_WR)
    reply = b""
    while not reply.endswith(b"\n"):
        b = c.recv(256)
        if not b:
            break
        reply += b
    c.close()
    secs = time.monotonic() - start
    mine = "%s %d" % (h.hexdigest(), sent)
    theirs = reply.decode(errors="replace").strip()
    log("client: sent %d bytes in %.2f s (%.0f Mbit/s) sha256 %s"
        % (sent, secs, sent * 8 / secs / 1e6 if secs else 0, h.hexdigest()))
    if pf:
        pf.seek(0)
        pf.write("%d\n" % sent)
        pf.close()
    if theirs != mine:
        log("client: MISMATCH: server says '%s', sent '%s'" % (theirs, mine))
        return 1
    print("OK %s" % mine)
    return 0


def make_dgram(seq, size):
    size = max(size, 40)
    rest = os.urandom(size - 36)
    return struct.pack("!I", seq) + hashlib.sha256(rest).digest() + rest


def dgram_ok(d):
    return len(d) >= 40 and hashlib.sha256(d[36:]).digest() == d[4:36]


def udp_server(a):
    s = listen_sock(socket.SOCK_DGRAM, a.port)
    ready()
    good, bad = set(), 0
    deadline = time.monotonic() + a.timeout
    s.settimeout(0.2)
    done_at = None
    while time.monotonic() < deadline:
        # Linger a little once complete: the client may retry a lost echo.
        if done_at and time.monotonic() - done_at > 1.0:
            break
        try:
            d, peer = s.recvfrom(65536)
        except socket.timeout:
            continue
        if not dgram_ok(d):
            bad += 1
            log("server: BAD datagram of %d bytes from %s" % (len(d), peer[0]))
            continue
        good.add(struct.unpack("!I", d[:4])[0])
        s.sendto(d, peer)
        if len(good) >= a.count and done_at is None:
            done_at = time.monotonic()
    log("server: good=%d bad=%d (want %d)" % (len(good), bad, a.count))
    return 0 if len(good) >= a.count and bad == 0 else 1


def udp_client(a):
    fam, kind, proto, _, sa = resolve(a.to, a.port, socket.SOCK_DGRAM)
    s = socket.socket(fam, kind, proto)
    s.settimeout(0.3)
    sizes = [int(x) for x in a.sizes.split(",")]
    retries = 0
    for seq in range(a.count):
        d = make_dgram(seq, sizes[seq % len(sizes)])
        for attempt in range(8):
            s.sendto(d, sa)
            try:
                while True:
                    r = s.recv(65536)
                    if r[:4] == d[:4]:
                        break
            except socket.timeout:
                retries += 1
                continue
            if r != d:
                log("client: echo of datagram %d (%d bytes) differs" % (seq, len(d)))
                return 1
            break
        else:
            log("client: datagram %d (%d bytes) never echoed" % (seq, len(d)))
            return 1
    log("client: %d datagrams echoed intact, %d retries" % (a.count, retries))
    print("OK %d" % a.count)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["tcp-server", "tcp-client", "udp-server", "udp-client"])
    p.add_argument("--to")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--bytes", type=int, default=1 << 20)
    p.add_argument("--rate", type=float, default=0)
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--sizes", default="40,200,1000,1400,1472,2000,4000,8000")
    p.add_argument("--timeout", type=float, default=20)
    p.add_argument("--progress")
    p.add_argument("--until", help="tcp-client: send (at --rate, --bytes at most) until this file exists")
    a = p.parse_args()
    try:
        return {"tcp-server": tcp_server, "tcp-client": tcp_client,
                "udp-server": udp_server, "udp-client": udp_client}[a.mode](a)
    except (OSError, socket.timeout) as e:
        log("%s: %s" % (a.mode, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
