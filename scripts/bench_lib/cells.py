# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Run one cell: a test item on a path, with xdpnet's counters (and the
host's iptables FORWARD counter) read before and after."""

import os
import subprocess
import time

from . import matrix, parse, vhostcells
from .topo import (GEN_DIRECT_DEV, GEN_IP, GEN_NS, GEN_PORT, GEN_TAP,
                   GEN_TAP_IP, GEN_TAP_MAC, RCV_DEV, RCV_IP, RCV_NS, SINK_IP,
                   SINK_MAC, SINK_TAP, SW)
from .util import CmdError, netns, read_file, run

UDP_OVERHEAD = 14 + 20 + 8 + 4  # Ethernet, IPv4, UDP headers and the FCS
SETTLE = {"udp": 0.5, "fwd64": 0.5, "fwd64_tap": 0.5}


def udp_payload(frame_size):
    """UDP payload for a frame of frame_size bytes on the wire (FCS
    included): 64 -> 18, 512 -> 466."""
    return frame_size - UDP_OVERHEAD


def iperf3_args(item, ip, duration):
    argv = ["iperf3", "-c", ip, "-p", "5201", "-t", str(duration), "-J",
            "-i", "0", "--connect-timeout", "3000"]
    if item.test == "udp":
        argv += ["-u", "-b", "0", "-l", str(udp_payload(int(item.variant)))]
    elif item.variant == "rx":
        argv.append("-R")
    elif item.variant == "bidir":
        argv.append("--bidir")
    elif item.variant == "p4":
        argv += ["-P", "4"]
    return argv


def run_iperf3(topo, ep, item, duration):
    topo.server(ep["server_ns"], ep["server_ip"], "iperf3")
    argv = iperf3_args(item, ep["server_ip"], duration)
    ns = ep["client_ns"]
    cp = topo.client(ns, argv, duration + 15)
    text = cp.stdout
    try:
        if item.test == "udp":
            m = parse.parse_iperf3_udp(text)
        else:
            m = parse.parse_iperf3_tcp(text)
    except (parse.ParseError, CmdError):
        # A server left in a bad state by an earlier failure (an iperf3
        # server can hang in a finished test): a fresh one, once more.
        topo.server(ep["server_ns"], ep["server_ip"], "iperf3", restart=True)
        cp = topo.client(ns, argv, duration + 15)
        text = cp.stdout
        m = (parse.parse_iperf3_udp(text) if item.test == "udp"
             else parse.parse_iperf3_tcp(text))
    return m, {"argv": [ns] + argv, "stdout": text}


def run_sockperf(topo, ep, item, duration):
    tcp = item.test == "tcp_rr"
    kind = "sockperf-tcp" if tcp else "sockperf-udp"
    topo.server(ep["server_ns"], ep["server_ip"], kind)
    argv = ["sockperf", "pp", "-i", ep["server_ip"],
            "-p", "11112" if tcp else "11111", "-m", str(item.variant),
            "-t", str(duration), "--full-rtt"]
    if tcp:
        argv.append("--tcp")
    ns = ep["client_ns"]
    cp = topo.client(ns, argv, duration + 15)
    text = cp.stdout + cp.stderr
    try:
        m = parse.parse_sockperf(text)
    except (parse.ParseError, CmdError):
        topo.server(ep["server_ns"], ep["server_ip"], kind, restart=True)
        cp = topo.client(ns, argv, duration + 15)
        text = cp.stdout + cp.stderr
        m = parse.parse_sockperf(text)
    return m, {"argv": [ns] + argv, "stdout": text}


def run_crr(topo, ep, item, duration):
    topo.server(ep["server_ns"], ep["server_ip"], "crr")
    argv = [os.path.join(topo.tools, "xnb_crr"), "client", "--connect",
            ep["server_ip"], "--port", "7100", "--duration", str(duration),
            "--size", str(item.variant)]
    ns = ep["client_ns"]
    cp = topo.client(ns, argv, duration + 15)
    try:
        m = parse.parse_crr(cp.stdout)
    except (parse.ParseError, CmdError):
        topo.server(ep["server_ns"], ep["server_ip"], "crr", restart=True)
        cp = topo.client(ns, argv, duration + 15)
        m = parse.parse_crr(cp.stdout)
    return m, {"argv": [ns] + argv, "stdout": cp.stdout}


def _schedstat(pid):
    text = read_file("/proc/%d/schedstat" % pid)
    return parse.parse_schedstat(text) if text else None


def _cpu_of(pids):
    tot = 0
    for p in pids:
        v = _schedstat(p)
        if v is not None:
            tot += v
    return tot


def fwd_compute(d):
    """The forwarding test's figures from its before/after deltas.

    d: elapsed_s, offered_pps, forwarded (frames the path handed to the
    receiving port, including those the receiver's queue was too full
    for), delivered (frames the receiver read), switch_cpu_ns (CPU time of
    the source port's NAPI thread: the whole switch path), recv_cpu_ns
    (CPU time of the receiver), busy_ns (the whole machine, context)."""
    fwd = d["forwarded"]
    dlv = d["delivered"]
    if fwd <= 0 or d["elapsed_s"] <= 0:
        raise parse.ParseError("fwd64: nothing was forwarded")
    out = {
        "fwd_kpps": fwd / d["elapsed_s"] / 1e3,
        "delivered_kpps": dlv / d["elapsed_s"] / 1e3,
        "offered_kpps": d["offered_pps"] / 1e3,
        "switch_ns": d["switch_cpu_ns"] / fwd,
        "recv_ns": d["recv_cpu_ns"] / dlv if dlv > 0 else 0.0,
    }
    out["total_ns"] = out["switch_ns"] + out["recv_ns"]
    if d.get("busy_ns") is not None and dlv > 0:
        out["machine_ns"] = d["busy_ns"] / dlv
    return out


def run_fwd64(topo, ep, item, duration, direct):
    """64 B frames from xnb_pktgen into the source port; count what the
    path forwarded into the receiving port and what it cost."""
    if direct:
        gen_dev, src_port_ns, src_port = GEN_DIRECT_DEV, RCV_NS, RCV_DEV
        dst_mac, dst_ip, src_ip = topo.mac(RCV_NS, RCV_DEV), RCV_IP, \
            "10.78.1.1"
    else:
        gen_dev, src_port_ns, src_port = "eth0", SW, GEN_PORT
        dst_mac, dst_ip, src_ip = SINK_MAC, SINK_IP, GEN_IP
    napi = topo.napi_threads(src_port)
    if not napi:
        raise CmdError("no NAPI thread for %s (GRO/threaded NAPI off?)"
                       % src_port)
    sink_pid = topo.sink.pid if topo.sink else None
    # On a machine with 2+ CPUs the switch path (the NAPI thread) gets the
    # last CPU to itself; the generator and the receiver share CPU 0. The
    # generator overloads the path; frames the source port's ring has no
    # room for never reach the switch and are not counted.
    cpus = sorted(os.sched_getaffinity(0))
    pinned = len(cpus) >= 2
    if pinned:
        for pid in napi:
            try:
                os.sched_setaffinity(pid, {cpus[-1]})
            except OSError:
                pinned = False
        if sink_pid and not direct:
            try:
                os.sched_setaffinity(sink_pid, {cpus[0]})
            except OSError:
                pass

    def sample():
        s = {"napi": _cpu_of(napi), "sink": _cpu_of([sink_pid])
             if (sink_pid and not direct) else 0,
             "stat": parse.parse_proc_stat_cpu(read_file("/proc/stat")),
             "t": time.time()}
        if direct:
            s["rx"] = topo.dev_stat(RCV_NS, RCV_DEV, "rx_packets")
            s["tx"] = s["rx"]
            s["txdrop"] = 0
        else:
            s["rx"] = topo.dev_stat(SW, GEN_PORT, "rx_packets")
            s["tx"] = topo.dev_stat(SW, SINK_TAP, "tx_packets")
            s["txdrop"] = topo.dev_stat(SW, SINK_TAP, "tx_dropped")
        return s

    pin = ["taskset", "-c", str(cpus[0])] if pinned else []
    argv = netns(GEN_NS, pin + [os.path.join(topo.tools, "xnb_pktgen"),
                          "--dev", gen_dev, "--dst-mac", dst_mac,
                          "--src-ip", src_ip, "--dst-ip", dst_ip,
                          "--size", str(item.variant),
                          "--duration", str(duration)])
    a = sample()
    cp = run(argv, check=False, timeout=duration + 15)
    time.sleep(0.2)  # let the receiver drain what is queued
    b = sample()
    gen = parse.parse_pktgen(cp.stdout)
    hz = os.sysconf("SC_CLK_TCK")
    d = {
        "elapsed_s": gen["elapsed_s"],
        "offered_pps": gen["pps"],
        # Handed to the receiving tap: read by the receiver, or dropped
        # because its ring was full (tun counts those as tx_dropped).
        "forwarded": (b["tx"] - a["tx"]) + (b["txdrop"] - a["txdrop"]),
        "delivered": b["tx"] - a["tx"],
        "processed": b["rx"] - a["rx"],
        "switch_cpu_ns": b["napi"] - a["napi"],
        "recv_cpu_ns": b["sink"] - a["sink"],
        "busy_ns": (b["stat"]["busy"] - a["stat"]["busy"]) * 1e9 / hz,
    }
    m = fwd_compute(d)
    m["dropped_at_receiver"] = b["txdrop"] - a["txdrop"]
    # Where the kernel refuses live frames, xnb_pktgen sends through an
    # AF_PACKET socket: the switch path then runs in the sender's context,
    # not in the port's NAPI thread, and switch_ns does not see it.
    return m, {"argv": argv, "stdout": cp.stdout, "deltas": d,
               "generator": gen.get("generator", "live_frames"),
               "napi_pids": napi, "source_port": src_port,
               "pinned": {"napi": cpus[-1], "generator": cpus[0],
                          "receiver": cpus[0]} if pinned else None,
               "source_port_ns": src_port_ns}


def run_fwd64_tap(topo, item, duration, at_start=None):
    """64 B frames written into the tap port GEN_TAP as a guest's frames
    arrive (xnb_pktgen --tap): each write() runs the tap's receive path
    and the whole switch path (native XDP included) in the generator, so
    switch_ns is the generator's CPU time per forwarded frame, its write()
    loop included (the same on every path).

    The tap has its carrier only while the generator holds it open, and
    xdpnet holds a port without carrier on the bridge until its follower
    sees the carrier come: the generator opens the tap and waits
    (--wait-go); at_start(), called then, waits for what must react and
    takes the cell's first counters; then the frames start."""
    sink_pid = topo.sink.pid if topo.sink else None
    cpus = sorted(os.sched_getaffinity(0))
    pinned = len(cpus) >= 2
    if pinned and sink_pid:
        try:
            os.sched_setaffinity(sink_pid, {cpus[0]})
        except OSError:
            pass

    def sample():
        return {"sink": _cpu_of([sink_pid]) if sink_pid else 0,
                "stat": parse.parse_proc_stat_cpu(read_file("/proc/stat")),
                "rx": topo.dev_stat(SW, GEN_TAP, "rx_packets"),
                "tx": topo.dev_stat(SW, SINK_TAP, "tx_packets"),
                "txdrop": topo.dev_stat(SW, SINK_TAP, "tx_dropped")}

    pin = ["taskset", "-c", str(cpus[-1])] if pinned else []
    argv = netns(SW, pin + [os.path.join(topo.tools, "xnb_pktgen"),
                            "--tap", GEN_TAP, "--src-mac", GEN_TAP_MAC,
                            "--dst-mac", SINK_MAC, "--src-ip", GEN_TAP_IP,
                            "--dst-ip", SINK_IP, "--size", str(item.variant),
                            "--duration", str(duration), "--wait-go"])
    gen_p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        ready = gen_p.stdout.readline().strip()
        if ready != "ready":
            out, err = gen_p.communicate(timeout=15)
            raise CmdError("xnb_pktgen --tap %s: %s" % (
                GEN_TAP, (ready + out + err).strip()[-200:] or "no output"))
        if at_start:
            at_start()
        a = sample()
        out, err = gen_p.communicate("go\n", timeout=duration + 15)
    except subprocess.TimeoutExpired as e:
        raise CmdError("xnb_pktgen --tap %s: timed out" % GEN_TAP) from e
    finally:
        if gen_p.poll() is None:
            gen_p.kill()
            gen_p.wait()
    time.sleep(0.2)  # let the receiver drain what is queued
    b = sample()
    gen = parse.parse_pktgen(out)
    hz = os.sysconf("SC_CLK_TCK")
    d = {
        "elapsed_s": gen["elapsed_s"],
        "offered_pps": gen["pps"],
        "forwarded": (b["tx"] - a["tx"]) + (b["txdrop"] - a["txdrop"]),
        "delivered": b["tx"] - a["tx"],
        "processed": b["rx"] - a["rx"],
        "switch_cpu_ns": gen.get("cpu_ns") or 0.0,
        "recv_cpu_ns": b["sink"] - a["sink"],
        "busy_ns": (b["stat"]["busy"] - a["stat"]["busy"]) * 1e9 / hz,
    }
    m = fwd_compute(d)
    m["dropped_at_receiver"] = b["txdrop"] - a["txdrop"]
    return m, {"argv": argv, "stdout": out, "deltas": d,
               "source_port": GEN_TAP, "source_port_ns": SW,
               "pinned": {"generator": cpus[-1], "receiver": cpus[0]}
               if pinned else None}


def fwd64_xdpnet_count(rec, delta, src_port=GEN_PORT):
    """With xdpnet attached, what the path forwarded into the receiving
    tap is what xdpnet redirected into it (rx_redirected) plus what it
    handed to the bridge: an XDP redirect that the tap's ring has no room
    for is dropped by the devmap, not counted by the tap, so the tap's
    own counters would undercount the XDP stage."""
    d = rec["raw"]["deltas"]
    sink = delta.get(SINK_TAP, {})
    src = delta.get(src_port, {})
    passed = sum(v for k, v in src.items() if k.startswith("pass_"))
    d["forwarded_tap_counters"] = d["forwarded"]
    d["forwarded"] = sink.get("rx_redirected", 0) + passed
    d["dropped_xdp_xmit"] = sink.get("drop_xmit_err", 0)
    m = fwd_compute(d)
    m["dropped_at_receiver"] = d["forwarded"] - d["delivered"]
    m["prog_ns"] = rec["metrics"].get("prog_ns")
    rec["metrics"] = m


def wait_bypassed(topo, ports, limit=10.0):
    """xdpnet's status (parsed) once every port of ports is bypassed, or
    after limit seconds (the cell then measures what it finds, and its
    fast-path share says so)."""
    t_end = time.monotonic() + limit
    while True:
        text = topo.status_json()
        st = parse.parse_status(text, "xnbbr0")
        if parse.bypassed(text, "xnbbr0", ports) or \
                time.monotonic() >= t_end:
            return st
        time.sleep(0.05)


def run_cell(topo, cell, duration, threshold=0.99):
    """Measure one cell. Returns a dict for the raw record."""
    item, path, setting = cell.item, cell.path, cell.setting
    spec = matrix.PATHS[path]
    direct = spec["kind"] == "direct"
    topo.set_path(path)
    if item.test == "fwd64":
        ep = {"ports": [] if direct else [GEN_PORT], "bypass": not direct,
              "client_ns": GEN_NS, "server_ns": RCV_NS if direct else SW}
    elif item.test == "fwd64_tap":
        ep = {"ports": [GEN_TAP], "bypass": True, "client_ns": SW,
              "server_ns": SW}
    else:
        ep = topo.endpoints(setting, item, path)
    rec = {"cell": cell.index, "setting": setting._asdict(),
           "test": item.test, "variant": item.variant,
           "direction": item.direction, "path": path, "rep": cell.rep,
           "duration_s": duration, "started": time.time(),
           "ports": ep["ports"], "metrics": None, "error": None,
           "validity": "valid", "validity_reason": ""}
    # A breakdown build without counters: its share bypassed comes from
    # the FORWARD chain, as tc-minimal's.
    xdp = matrix.counts(path)
    bpf = matrix.is_bpf(path) and topo.prog_stats and ep["ports"]
    before = after = None
    nf_before = progs_before = None

    def at_start():
        """The cell's first figures, once its ports are what the cell
        measures (xdpnet bypasses them)."""
        nonlocal nf_before, before, progs_before
        if direct:
            return
        if spec["nf"]:
            nf_before = topo.nf_forward_packets()
        if xdp:
            before = wait_bypassed(topo, ep["ports"])
        if bpf:
            progs_before = topo.progs(ep["ports"])

    try:
        if item.test != "fwd64_tap":
            at_start()
        if item.test in ("tcp_stream", "udp"):
            m, raw = run_iperf3(topo, ep, item, duration)
        elif item.test in ("tcp_rr", "udp_rr"):
            m, raw = run_sockperf(topo, ep, item, duration)
        elif item.test == "tcp_crr":
            m, raw = run_crr(topo, ep, item, duration)
        elif item.test == "fwd64":
            m, raw = run_fwd64(topo, ep, item, duration, direct)
        elif item.test == "fwd64_tap":
            m, raw = run_fwd64_tap(topo, item, duration, at_start)
        elif matrix.is_vhost_test(item.test):
            m, raw = vhostcells.run(topo, ep, item, duration)
        else:
            raise ValueError(item.test)
        if bpf:
            cost = parse.prog_cost(progs_before, topo.progs(ep["ports"]))
            rec["prog"] = cost
            m["prog_ns"] = cost["prog_ns"]
        if xdp:
            after = parse.parse_status(topo.status_json(), "xnbbr0")
        if nf_before is not None:
            rec["nf_forward_packets"] = topo.nf_forward_packets() - nf_before
            rec["nf_rules"] = topo.rules
        rec["metrics"] = m
        rec["raw"] = raw
        if item.test in SETTLE:
            # Floods leave queues and socket buffers to drain; the next
            # cell should not pay for them.
            time.sleep(SETTLE[item.test])
    except (CmdError, parse.ParseError, OSError) as e:
        rec["error"] = str(e)
        rec["validity"] = "error"
        rec["validity_reason"] = str(e)[:200]
        return rec
    if xdp:
        delta = parse.counters_delta(before["ports"], after["ports"])
        fp = parse.fastpath(delta, ep["ports"])
        rec["fastpath"] = fp
        rec["xdpnet_mode"] = after.get("mode")
        rec["counters_delta"] = {p: {k: v for k, v in delta.get(p, {})
                                     .items() if v}
                                 for p in ep["ports"]}
        rec["stage_shares"] = parse.stage_shares(delta, ep["ports"])
        status, reason = parse.validity(fp, ep["bypass"], threshold)
        rec["validity"], rec["validity_reason"] = status, reason
        if item.test in matrix.FWD_TESTS:
            fwd64_xdpnet_count(rec, delta, ep["ports"][0])
    elif spec["minimal"] is not None or spec["xdpnet"] is not None:
        status, reason = minimal_validity(rec, ep["bypass"], threshold)
        rec["validity"], rec["validity_reason"] = status, reason
    elif direct:
        rec["validity"] = "valid"
    return rec


# Frames the bridge may see in a tc-minimal cell when statistics are off
# (nothing to compare them with): a few stray ones, not a stream.
MINIMAL_STRAY = 1000


def minimal_validity(rec, expect_bypass, threshold):
    """tc-minimal has no counters of its own: frames it did not redirect
    went through the bridge and br_netfilter's FORWARD chain, whose
    policy counter sees every one of them (IPv4). The share bypassed is
    1 - FORWARD / program runs."""
    if not expect_bypass:
        return "host", "host traffic takes the bridge by design"
    nf = rec.get("nf_forward_packets")
    runs = (rec.get("prog") or {}).get("frames") or 0
    if nf is None:
        return "valid", ""
    if runs > 0:
        share = max(0.0, 1.0 - float(nf) / runs)
        rec["fastpath"] = {"share": share, "xdp_share": 0.0, "total": runs,
                           "passed": nf}
        if share < threshold:
            return "invalid", "fast path %.2f%% < %.0f%% (%d of %d frames " \
                "through FORWARD)" % (100 * share, 100 * threshold, nf, runs)
        return "valid", ""
    if nf > MINIMAL_STRAY:
        return "invalid", "%d frames went through the bridge's FORWARD " \
            "chain" % nf
    return "valid", ""
