# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The vhost topology's tests: frames from one xnb_vhost "VM" to another
through vhost-net, and what they cost the host.

Every frame is a stamped record that the receiver verifies (checksum as
its virtio-net header says, digest, sequence): a frame that arrives
damaged fails the cell. CPU per delivered frame adds up both processes
and their vhost workers (the tasks "vhost-PID" that run the rings: the
whole switch path runs in the sender's worker, the delivery in the
receiver's), as each process reports it (schedstat) before it lets go
of its vhost devices; machine_ns is the whole machine's busy time
(/proc/stat) per frame, for context. vhost_tcp's ACKs (headers alone)
have their checksums verified by the sender: one damaged fails the
cell too."""

import json
import os
import signal
import subprocess
import tempfile
import time

from . import matrix, parse
from .topo import SW
from .util import CmdError, netns, read_file

# Flows (xnb_vhost's defaults otherwise): UDP 40000 -> 40001.
SPORT, DPORT = 40000, 40001
FRAME_OVERHEAD = 14 + 20 + 8 + 4  # Ethernet, IPv4, UDP, FCS
# vhost_tcp: the MSS of the TSO frames (tso) and the payload of the
# segments without TSO (notso: 1,518 B on the wire with Ethernet, IPv4,
# TCP headers and the FCS); every frame ACKed.
TCP_MSS = 1448
TCP_SEGMENT = 1518 - (14 + 20 + 20 + 4)
TCP_ACK_EVERY = 1


def payload(frame_size):
    """UDP payload of a frame of frame_size bytes on the wire, FCS
    included: 64 -> 18, 1518 -> 1472."""
    return int(frame_size) - FRAME_OVERHEAD


def flow(src, dst, proto="udp"):
    """xnb_vhost's flow options from VM src to VM dst ((tap, mac, ip))."""
    # --queues 1: the taps are multi-queue (as QEMU opens them).
    return ["--queues", "1", "--src-mac", src[1], "--dst-mac", dst[1], "--src", src[2],
            "--dst", dst[2], "--proto", proto, "--sport", str(SPORT),
            "--dport", str(DPORT), "--json"]


def last_json(text, what):
    for line in reversed((text or "").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    raise parse.ParseError("%s printed no result" % what)


def _busy_ns():
    st = parse.parse_proc_stat_cpu(read_file("/proc/stat"))
    return st["busy"] * 1e9 / os.sysconf("SC_CLK_TCK")


def _cpu(*docs):
    """(process ns, vhost worker ns) of xnb_vhost results; None where
    one could not read its schedstat."""
    own = vh = 0
    for d in docs:
        # No worker found: its time would be missing, not zero.
        if d.get("cpu_ns", -1) < 0 or not d.get("vhost_workers"):
            return None, None
        own += d["cpu_ns"]
        vh += d["vhost_cpu_ns"]
    return own, vh


class Peer:
    """A long xnb_vhost process (recv, echo) of a cell: started, waited
    for (--ready), stopped by SIGINT, its result read."""

    def __init__(self, topo, argv, name):
        self.name = name
        self.out = None
        fd, self.ready = tempfile.mkstemp(prefix="xnbv-ready.")
        os.close(fd)
        os.unlink(self.ready)
        self.p = topo.vm_process(argv + ["--ready", self.ready])
        end = time.monotonic() + 15
        while not os.path.exists(self.ready):
            if self.p.poll() is not None or time.monotonic() >= end:
                o, e = self.finish()
                raise CmdError("%s did not come up: %s" % (
                    name, (o + e).strip()[-300:] or "no output"))
            time.sleep(0.02)

    def finish(self, timeout=10):
        """Stop it (once) and return its (stdout, stderr)."""
        if self.out is not None:
            return self.out
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        try:
            o, e = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            o, e = self.p.communicate()
        try:
            os.unlink(self.ready)
        except OSError:
            pass
        self.out = (o or "", e or "")
        return self.out

    def result(self):
        o, e = self.finish()
        if self.p.returncode not in (0, 1):
            raise CmdError("%s failed (exit %s): %s" % (
                self.name, self.p.returncode, e.strip()[-300:]))
        return last_json(o, self.name), e


def drain(topo, tap, limit=3.0):
    """Until the receiver's tap hands out nothing more (its tx counter
    holds still for 0.2 s), or limit seconds."""
    end = time.monotonic() + limit
    last, since = None, time.monotonic()
    while time.monotonic() < end:
        n = topo.tap_stat(tap, "tx_packets")
        if n != last:
            last, since = n, time.monotonic()
        elif time.monotonic() - since >= 0.2:
            return
        time.sleep(0.05)


def acks_intact(tx, rx):
    """Why the ACKs of a vhost_tcp cell were not what they should be (the
    receiver sent none, or one arrived damaged), or ''."""
    if not rx.get("acks_sent"):
        return "the receiver sent no ACK"
    if tx.get("acks_bad"):
        return "ACKs arrived damaged: %d of %d" % (tx["acks_bad"],
                                                   tx.get("acks", 0))
    return ""


def intact(rx):
    """Why the receiver's frames were not intact, or ''."""
    bad = {k: rx.get(k, 0) for k in ("corrupt", "format", "bad_tag",
                                      "csum_bad", "bad_hdr", "malformed",
                                      "dups", "old")}
    bad = {k: v for k, v in bad.items() if v}
    return ", ".join("%s %d" % kv for kv in sorted(bad.items()))


def stream_options(item):
    """(proto, the sender's options, the receiver's) of a stream item:
    vhost_pps and vhost_pps_partial (UDP frames of item.variant bytes,
    full or partial checksums), vhost_gso (TCP GSO frames of 64 KB, MSS
    item.variant, partial checksums), vhost_tcp (TSO frames or 1,518 B
    segments with partial checksums, each answered by an ACK with a
    partial checksum, which the sender verifies)."""
    csum = matrix.TESTS[item.test]["csum"]
    if item.test == "vhost_gso":
        return "tcp", ["--csum", "partial", "--gso", str(item.variant)], []
    if item.test == "vhost_tcp":
        ack = ["--ack", str(TCP_ACK_EVERY)]
        if item.variant == "tso":
            return "tcp", ["--csum", csum, "--gso", str(TCP_MSS),
                           "--acks"], ack
        return "tcp", ["--csum", csum, "--tso", "off", "--size",
                       str(TCP_SEGMENT), "--acks"], ack
    # Full checksums, as a guest with tx checksumming off sends them, or
    # partial ones, as a default guest does (tun hands an XDP program no
    # partial-checksum flag: the XDP stage must complete them to redirect
    # them, or hand them on).
    return "udp", ["--csum", csum, "--size", str(payload(item.variant))], []


def run_stream(topo, ep, item, duration):
    """A stream item (stream_options()), flat out from the client VM to
    the server VM."""
    src, dst = ep["client"], ep["server"]
    proto, send_opts, recv_opts = stream_options(item)
    f = flow(src, dst, proto)
    # Redirected frames may overtake the ones a batch passed to the
    # bridge (docs/design.md, "Frames from vhost-net"): counted, not
    # failed.
    rx = Peer(topo, ["recv", "--tap", dst[0]] + f + recv_opts +
              ["--any-order", "--timeout", str(duration + 30)], "recv")
    try:
        return _stream(topo, item, duration, src, dst, f, send_opts, rx,
                       bulk=proto == "tcp")
    finally:
        rx.finish()  # whatever went wrong: no receiver outlives its cell


def _stream(topo, item, duration, src, dst, f, send_opts, rx, bulk):
    """The sender's run against a receiver (Peer) that runs; bulk: TCP,
    figures in Gbit/s, else frames per second."""
    b0 = topo.batched()
    busy0 = _busy_ns()
    tx0 = topo.tap_stat(dst[0], "tx_dropped")
    try:
        cp = subprocess.run(
            netns(SW, [topo.vhost_tool, "send", "--tap", src[0]] + f +
                  send_opts + ["--duration", str(duration)]),
            capture_output=True, text=True,
            timeout=duration + 30)
    except subprocess.TimeoutExpired as e:
        raise CmdError("xnb_vhost send timed out") from e
    if cp.returncode not in (0, 1):
        raise CmdError("xnb_vhost send failed (exit %d): %s" % (
            cp.returncode, cp.stderr.strip()[-300:]))
    drain(topo, dst[0])
    busy1 = _busy_ns()
    b1 = topo.batched()
    tx = last_json(cp.stdout, "xnb_vhost send")
    rxd, _ = rx.result()
    bad = intact(rxd)
    if bad:
        raise CmdError("frames arrived damaged: %s" % bad)
    bad = acks_intact(tx, rxd) if "--acks" in send_opts else ""
    if bad:
        raise CmdError(bad)
    secs = tx["seconds"]
    got = rxd["frames"]
    if got <= 0 or secs <= 0:
        raise parse.ParseError("%s: nothing arrived" % item.test)
    m = {"loss_pct": 100.0 * max(0, tx["frames"] - got) / tx["frames"]
         if tx["frames"] else 0.0,
         "machine_ns": (busy1 - busy0) / got}
    if bulk:
        m["gbps"] = rxd["bytes"] * 8 / secs / 1e9
        m["sent_gbps"] = tx["bytes"] * 8 / secs / 1e9
    else:
        m["delivered_kpps"] = got / secs / 1e3
        m["sent_kpps"] = tx["frames"] / secs / 1e3
    own, vh = _cpu(tx, rxd)
    if own is not None:
        m["cpu_ns"] = (own + vh) / got
        m["vhost_ns"] = vh / got
    raw = {"send": tx, "recv": rxd, "send_argv": cp.args,
           "receiver_tap_tx_dropped": topo.tap_stat(dst[0], "tx_dropped")
           - tx0,
           "tun_msg_ptr_frames": None if b0 is None else b1 - b0,
           "tun_msg_ptr_probe": topo.probe or "on"}
    return m, raw


def rr_options(item):
    """Options of both ends of vhost_rr (full checksums) and
    vhost_rr_partial (partial ones; the echo keeps them partial)."""
    return ["--csum", matrix.TESTS[item.test]["csum"], "--size",
            str(payload(item.variant))]


def run_rr(topo, ep, item, duration):
    """vhost_rr, vhost_rr_partial: one request at a time from the client
    VM, answered by the server VM's echo (64 B frames)."""
    src, dst = ep["client"], ep["server"]
    opts = rr_options(item)
    echo = Peer(topo, ["echo", "--tap", dst[0]] + flow(dst, src) + opts +
                ["--duration", str(duration + 30)], "echo")
    # The echo answers to the request's source: its own flow options
    # only pick what it listens to (--dport).
    try:
        return _rr(topo, duration, src, dst, opts, echo)
    finally:
        echo.finish()


def _rr(topo, duration, src, dst, opts, echo):
    b0 = topo.batched()
    try:
        cp = subprocess.run(
            netns(SW, [topo.vhost_tool, "rr", "--tap", src[0]] +
                  flow(src, dst) + opts +
                  ["--duration", str(duration), "--timeout", "1"]),
            capture_output=True, text=True, timeout=duration + 60)
    except subprocess.TimeoutExpired as e:
        raise CmdError("xnb_vhost rr timed out") from e
    b1 = topo.batched()
    ed, _ = echo.result()
    if cp.returncode not in (0, 1):
        raise CmdError("xnb_vhost rr failed (exit %d): %s" % (
            cp.returncode, cp.stderr.strip()[-300:]))
    rr = last_json(cp.stdout, "xnb_vhost rr")
    if rr.get("corrupt") or rr.get("csum_bad"):
        raise CmdError("replies arrived damaged: corrupt %s, checksum %s"
                       % (rr.get("corrupt"), rr.get("csum_bad")))
    n = rr["answered"]
    if n <= 0:
        raise parse.ParseError("vhost_rr: no request was answered")
    rtt = rr["rtt_us"]
    m = {"p50_us": rtt["p50"], "p99_us": rtt["p99"], "mean_us": rtt["mean"],
         "tps": n / rr["seconds"] if rr.get("seconds") else None}
    own, vh = _cpu(rr, ed)
    if own is not None:
        m["cpu_ns"] = (own + vh) / (2 * n)
        m["vhost_ns"] = vh / (2 * n)
    raw = {"rr": rr, "echo": ed, "rr_argv": cp.args,
           "unanswered": rr["requests"] - n,
           "tun_msg_ptr_frames": None if b0 is None else b1 - b0,
           "tun_msg_ptr_probe": topo.probe or "on"}
    return m, raw


def run(topo, ep, item, duration):
    if item.test in matrix.RR_TESTS:
        return run_rr(topo, ep, item, duration)
    return run_stream(topo, ep, item, duration)
