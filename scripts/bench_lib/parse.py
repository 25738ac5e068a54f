# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Parsers for what the tools print, and the fast-path share from xdpnet's
counters. Pure functions on text: tests/bench/ feeds them recorded
samples."""

import json
import re


class ParseError(ValueError):
    """The tool's output is not what a successful run prints."""


# ------------------------------------------------------------------ iperf3

def _iperf3_doc(text):
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise ParseError("iperf3: not JSON: %s" % e)
    if not isinstance(doc, dict):
        raise ParseError("iperf3: not a JSON object")
    if doc.get("error"):
        raise ParseError("iperf3: %s" % doc["error"])
    end = doc.get("end")
    if not isinstance(end, dict):
        raise ParseError("iperf3: no 'end' section")
    return doc, end


def _bps(section, name):
    if not isinstance(section, dict) or "bits_per_second" not in section:
        raise ParseError("iperf3: no %s.bits_per_second" % name)
    return float(section["bits_per_second"])


def parse_iperf3_tcp(text):
    """iperf3 -J of a TCP test (plain, -R, --bidir or -P N).

    gbps is what the receiver(s) got, in Gbit/s: for --bidir the sum of both
    directions. sent_gbps is what the sender(s) put out; retransmits is the
    sender's count (both directions for --bidir)."""
    doc, end = _iperf3_doc(text)
    start = doc.get("start", {}).get("test_start", {})
    if start.get("protocol", "TCP") != "TCP":
        raise ParseError("iperf3: not a TCP test")
    rx = _bps(end.get("sum_received"), "sum_received")
    tx = _bps(end.get("sum_sent"), "sum_sent")
    retr = int(end.get("sum_sent", {}).get("retransmits", 0) or 0)
    out = {"fwd_gbps": rx / 1e9}
    if "sum_received_bidir_reverse" in end:
        rrx = _bps(end["sum_received_bidir_reverse"],
                   "sum_received_bidir_reverse")
        rtx = _bps(end.get("sum_sent_bidir_reverse"),
                   "sum_sent_bidir_reverse")
        retr += int(end.get("sum_sent_bidir_reverse", {})
                    .get("retransmits", 0) or 0)
        out["rev_gbps"] = rrx / 1e9
        rx += rrx
        tx += rtx
    out.update({
        "gbps": rx / 1e9,
        "sent_gbps": tx / 1e9,
        "retransmits": retr,
        "streams": int(start.get("num_streams", 1) or 1),
        "reverse": bool(start.get("reverse", 0)),
        "seconds": float(end["sum_received"].get("seconds", 0) or 0),
    })
    if out["gbps"] <= 0:
        raise ParseError("iperf3: nothing received")
    return out


def parse_iperf3_udp(text):
    """iperf3 -J -u. Packet rates in kpps: offered by the sender, received
    by the receiver; loss as the receiver counted it."""
    doc, end = _iperf3_doc(text)
    start = doc.get("start", {}).get("test_start", {})
    if start.get("protocol") != "UDP":
        raise ParseError("iperf3: not a UDP test")
    blk = int(start.get("blksize", 0) or 0)
    snd = end.get("sum_sent") or end.get("sum")
    rcv = end.get("sum_received") or end.get("sum")
    if not isinstance(snd, dict) or not isinstance(rcv, dict):
        raise ParseError("iperf3: no UDP sums")
    sent = int(snd.get("packets", 0) or 0)
    lost = int(rcv.get("lost_packets", 0) or 0)
    # The receiver's "packets" is the highest sequence number it saw;
    # what it really got is its byte count over the datagram size.
    if blk > 0 and rcv.get("bytes") is not None:
        received = int(rcv["bytes"]) // blk
    else:
        received = max(0, int(rcv.get("packets", 0) or 0) - lost)
    s_secs = float(snd.get("seconds", 0) or 0)
    r_secs = float(rcv.get("seconds", 0) or 0) or s_secs
    if sent <= 0 or s_secs <= 0:
        raise ParseError("iperf3: nothing sent")
    loss = float(rcv.get("lost_percent", 0) or 0)
    return {
        "tx_kpps": sent / s_secs / 1e3,
        "rx_kpps": received / r_secs / 1e3,
        "loss_pct": loss,
        "sent": sent,
        "received": received,
        "lost": lost,
        "payload": blk,
        "rx_mbps": float(rcv.get("bits_per_second", 0) or 0) / 1e6,
    }


# ---------------------------------------------------------------- sockperf

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PCT = re.compile(r"--->\s+percentile\s+([0-9.]+)\s*=\s*([0-9.]+)")
_MINMAX = re.compile(r"--->\s+<(MIN|MAX)>\s+observation\s*=\s*([0-9.]+)")
_AVG = re.compile(r"avg-(rtt|latency)=([0-9.]+)")
_OBS = re.compile(r"Total\s+(\d+)\s+observations")
_VALID = re.compile(r"\[Valid Duration\]\s+RunTime=([0-9.]+)\s*sec;"
                    r"\s*SentMessages=(\d+);\s*ReceivedMessages=(\d+)")
_DROPS = re.compile(r"#\s*dropped messages\s*=\s*(\d+)")


def parse_sockperf(text):
    """sockperf ping-pong output. Latencies in microseconds as round-trip
    times (sockperf prints half the round trip unless --full-rtt; those
    are doubled here). tps: round trips per second over the valid part of
    the run."""
    text = _ANSI.sub("", text or "")
    pct = {float(p): float(v) for p, v in _PCT.findall(text)}
    mm = dict(_MINMAX.findall(text))
    avg = _AVG.search(text)
    obs = _OBS.search(text)
    if not pct or not avg or not obs or "MIN" not in mm:
        raise ParseError("sockperf: no latency statistics in the output")
    scale = 1.0 if avg.group(1) == "rtt" else 2.0

    def p(q):
        if q not in pct:
            raise ParseError("sockperf: no percentile %g" % q)
        return pct[q] * scale

    out = {
        "p50_us": p(50.0),
        "p90_us": p(90.0),
        "p99_us": p(99.0),
        "p999_us": pct.get(99.9, 0) * scale or None,
        "mean_us": float(avg.group(2)) * scale,
        "min_us": float(mm["MIN"]) * scale,
        "max_us": float(mm.get("MAX", 0)) * scale,
        "observations": int(obs.group(1)),
        "rtt_reported": scale == 1.0,
    }
    valid = _VALID.search(text)
    if valid and float(valid.group(1)) > 0:
        out["tps"] = int(valid.group(3)) / float(valid.group(1))
        out["valid_s"] = float(valid.group(1))
    drops = _DROPS.search(text)
    out["dropped"] = int(drops.group(1)) if drops else 0
    if out["observations"] <= 0:
        raise ParseError("sockperf: no observations")
    return out


# ------------------------------------------------------------ xnb_* tools

def _json_line(text, tool):
    for line in reversed((text or "").strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                doc = json.loads(line)
            except ValueError as e:
                raise ParseError("%s: bad JSON: %s" % (tool, e))
            if doc.get("tool") != tool:
                raise ParseError("%s: JSON from %s" % (tool, doc.get("tool")))
            return doc
    raise ParseError("%s: no JSON line in the output" % tool)


def parse_crr(text):
    """xnb_crr client output: transactions/s and latency in us."""
    d = _json_line(text, "xnb_crr")
    lat = d.get("latency_us") or {}
    if int(d.get("transactions", 0)) <= 0:
        raise ParseError("xnb_crr: no transaction completed")
    return {
        "tps": float(d["tps"]),
        "transactions": int(d["transactions"]),
        "errors": int(d.get("errors", 0)),
        "p50_us": float(lat["p50"]),
        "p90_us": float(lat["p90"]),
        "p99_us": float(lat["p99"]),
        "mean_us": float(lat["mean"]),
        "min_us": float(lat["min"]),
        "max_us": float(lat["max"]),
        "mode": d.get("mode"),
    }


def parse_pktgen(text):
    d = _json_line(text, "xnb_pktgen")
    if int(d.get("frames", 0)) <= 0:
        raise ParseError("xnb_pktgen: sent nothing")
    out = {"frames": int(d["frames"]), "elapsed_s": float(d["elapsed_s"]),
           "pps": float(d["pps"]), "errors": int(d.get("errors", 0))}
    if d.get("cpu_ns") is not None:
        out["cpu_ns"] = float(d["cpu_ns"])  # --tap: the generator's CPU
    if d.get("generator"):
        out["generator"] = d["generator"]  # live_frames or af_packet
    return out


def parse_tapsink(text):
    d = _json_line(text, "xnb_tapsink")
    return {"frames": int(d["frames"]), "bytes": int(d["bytes"]),
            "errors": int(d.get("errors", 0))}


def parse_schedstat(text):
    """First field of /proc/PID/schedstat: CPU time run, in ns."""
    try:
        return int(text.split()[0])
    except (IndexError, ValueError, AttributeError):
        raise ParseError("schedstat: unexpected %r" % (text,))


def parse_proc_stat_cpu(text):
    """Busy and total jiffies of the machine from /proc/stat's 'cpu' line
    (busy: user, nice, system, irq, softirq; steal and idle excluded)."""
    for line in (text or "").splitlines():
        f = line.split()
        if f and f[0] == "cpu":
            v = [int(x) for x in f[1:]]
            v += [0] * (8 - len(v))
            user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
            busy = user + nice + system + irq + softirq
            return {"busy": busy, "total": busy + idle + iowait + steal,
                    "steal": steal}
    raise ParseError("/proc/stat: no cpu line")


def parse_iptables_policy(text):
    """Packets counted by the policy of 'iptables -L FORWARD -v -x -n':
    every bridged frame that traversed the chain without matching a rule."""
    m = re.search(r"Chain FORWARD \(policy \w+ (\d+) packets", text or "")
    if not m:
        raise ParseError("iptables: no FORWARD policy counter")
    return int(m.group(1))


# ------------------------------------------------------- xdpnet counters

# Counters that are a final verdict of the frame on its ingress port. The
# xdp_defer_* counters are not: those frames are seen again by the TC stage.
BYPASS = ("xdp_redirect", "tc_redirect")


def parse_status(text, bridge=None):
    """xdpnet status --json -> {port name: {counter: packets}} for one
    bridge (the first one when bridge is None)."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise ParseError("xdpnet status: not JSON: %s" % e)
    bridges = doc.get("bridges") if isinstance(doc, dict) else None
    if not isinstance(bridges, list) or not bridges:
        raise ParseError("xdpnet status: no bridges")
    sel = None
    for b in bridges:
        if bridge is None or b.get("bridge") == bridge:
            sel = b
            break
    if sel is None:
        raise ParseError("xdpnet status: bridge %s not listed" % bridge)
    out = {}
    for p in sel.get("ports", []) or []:
        ctr = {}
        for name, val in (p.get("counters") or {}).items():
            if isinstance(val, dict):
                ctr[name] = int(val.get("packets", 0) or 0)
            else:
                ctr[name] = int(val or 0)
        out[p.get("name")] = ctr
    return {"mode": sel.get("mode"), "ports": out}


def bypassed(text, bridge, ports):
    """xdpnet status --json: True when every port in ports is listed
    with "bypassed" true (xdpnet forwards from it)."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError):
        return False
    for b in (doc.get("bridges") or []) if isinstance(doc, dict) else []:
        if b.get("bridge") == bridge:
            up = {p.get("name") for p in b.get("ports") or []
                  if p.get("bypassed")}
            return set(ports) <= up
    return False


def counters_delta(before, after):
    """Per port, per counter: after - before (ports missing before count
    from zero)."""
    out = {}
    for port, ctr in (after or {}).items():
        prev = (before or {}).get(port, {})
        out[port] = {k: v - prev.get(k, 0) for k, v in ctr.items()}
    return out


def fastpath(delta, ports):
    """Fast-path share of the frames that entered the given ports.

    total: frames with a final verdict on those ports (redirected by
    either stage, or handed to the bridge for any reason); bypass: those
    redirected (XDP or TC stage). share = bypass / total (None when no
    frame was seen). xdp_share: XDP-stage redirects / total."""
    xdp = tc = passed = drops = deferred = 0
    for port in ports:
        c = (delta or {}).get(port, {})
        xdp += c.get("xdp_redirect", 0)
        tc += c.get("tc_redirect", 0)
        for k, v in c.items():
            if k.startswith("pass_"):
                passed += v
            elif k.startswith("drop_"):
                drops += v
            elif k.startswith("xdp_defer_"):
                deferred += v
    total = xdp + tc + passed
    return {
        "xdp": xdp, "tc": tc, "passed": passed, "total": total,
        "drops": drops, "deferred": deferred,
        "share": (xdp + tc) / total if total else None,
        "xdp_share": xdp / total if total else None,
    }


# The reasons a frame goes to the bridge and the reasons the XDP stage
# hands one to the TC stage, in the order of include/xdpnet.h (others a
# newer xdpnet counts come after them, by name).
PASS_REASONS = ("pass_mcast", "pass_unknown", "pass_local", "pass_hairpin",
                "pass_not_attached", "pass_vlan", "pass_isolated",
                "pass_refresh", "pass_src", "pass_state", "pass_mtu",
                "pass_hub", "pass_malformed", "pass_nf")
DEFER_REASONS = ("xdp_defer_csum", "xdp_defer_size", "xdp_defer_target",
                 "xdp_defer_proto", "xdp_defer_refresh", "xdp_defer_udp0")


def reason_order(names, known):
    """names in the order of known, then the others by name."""
    rank = {n: i for i, n in enumerate(known)}
    return sorted(names, key=lambda n: (rank.get(n, len(known)), n))


def stage_shares(delta, ports):
    """Who carried the frames that entered ports (a counters_delta()):
    the share of them the XDP stage redirected (xdp_redirect), the TC
    stage redirected (tc_redirect) and each reason handed to the bridge
    (every pass_* counter), of all frames with a final verdict (total);
    and, besides, the share the XDP stage handed to the TC stage, by
    reason (xdp_defer_*: those frames are counted again by the TC
    stage's verdict). Only reasons that occurred are listed. None when no
    frame was seen."""
    n = {"xdp_redirect": 0, "tc_redirect": 0}
    passed, deferred = {}, {}
    for port in ports:
        for k, v in ((delta or {}).get(port) or {}).items():
            if not v:
                continue
            if k in n:
                n[k] += v
            elif k.startswith("pass_"):
                passed[k] = passed.get(k, 0) + v
            elif k.startswith("xdp_defer_"):
                deferred[k] = deferred.get(k, 0) + v
    total = n["xdp_redirect"] + n["tc_redirect"] + sum(passed.values())
    if total <= 0:
        return None
    return {"total": total,
            "xdp_redirect": n["xdp_redirect"] / total,
            "tc_redirect": n["tc_redirect"] / total,
            "bridge": {k: passed[k] / total
                       for k in reason_order(passed, PASS_REASONS)},
            "xdp_defer": {k: deferred[k] / total
                          for k in reason_order(deferred, DEFER_REASONS)}}


def validity(fp, expect_bypass, threshold=0.99):
    """Classify an xdpnet cell from its fast-path figures.

    Returns (status, reason). status: 'valid'; 'invalid' (bypass traffic
    where under threshold of the frames took the bypass, or no counters);
    'host' (traffic to or from the host, which xdpnet hands to the bridge
    by design: reported, not a bypass figure)."""
    if not expect_bypass:
        return "host", "host traffic takes the bridge by design"
    if fp is None or fp.get("total", 0) <= 0 or fp.get("share") is None:
        return "invalid", "no xdpnet counters moved"
    if fp["share"] < threshold:
        return "invalid", "fast path %.2f%% < %.0f%%" % (
            100.0 * fp["share"], 100.0 * threshold)
    return "valid", ""


# ------------------------------------------------------ program statistics

def parse_progs(text):
    """xnb_minimal progs -> [{'id', 'name', 'dev', 'hook', 'run_time_ns',
    'run_cnt'}]."""
    d = _json_line(text, "xnb_minimal")
    progs = d.get("progs")
    if not isinstance(progs, list):
        raise ParseError("xnb_minimal: no progs list")
    out = []
    for p in progs:
        try:
            out.append({"id": int(p["id"]), "name": str(p.get("name", "")),
                        "dev": str(p.get("dev", "")),
                        "hook": str(p.get("hook", "")),
                        "run_time_ns": int(p["run_time_ns"]),
                        "run_cnt": int(p["run_cnt"])})
        except (KeyError, TypeError, ValueError) as e:
            raise ParseError("xnb_minimal: bad program entry: %s" % e)
    return out


def parse_tc_filters(text):
    """Program ids of the BPF filters in 'tc -j filter show dev X
    ingress' (clsact hooks)."""
    try:
        doc = json.loads(text or "[]")
    except ValueError as e:
        raise ParseError("tc: not JSON: %s" % e)
    ids = []
    for f in doc if isinstance(doc, list) else []:
        opts = f.get("options") or {}
        prog = opts.get("prog") or {}
        if isinstance(prog, dict) and prog.get("id"):
            ids.append(int(prog["id"]))
    return ids


def prog_cost(before, after):
    """Program CPU per frame between two parse_progs() lists.

    Each program counts once however many ports it is on. Frames: the runs
    of the first hook a frame meets (XDP where an XDP program ran, else TC
    ingress); prog_ns: all the programs' run time over those frames (a
    frame the XDP stage hands to TC pays for both). tc_ns / xdp_ns: each
    hook's run time per run. None when no program ran (or statistics were
    off: run_cnt stays 0)."""
    b = {p["id"]: p for p in before or []}
    per = {}
    for p in after or []:
        if p["id"] in per:
            continue
        prev = b.get(p["id"], {"run_time_ns": 0, "run_cnt": 0})
        per[p["id"]] = {"name": p["name"], "hook": p["hook"],
                        "ns": p["run_time_ns"] - prev["run_time_ns"],
                        "runs": p["run_cnt"] - prev["run_cnt"]}
    xdp = [v for v in per.values() if v["hook"] == "xdp"]
    tc = [v for v in per.values() if v["hook"] != "xdp"]
    x_runs = sum(v["runs"] for v in xdp)
    t_runs = sum(v["runs"] for v in tc)
    total_ns = sum(v["ns"] for v in per.values())
    frames = x_runs if x_runs > 0 else t_runs
    res = {"progs": per, "frames": frames,
           "prog_ns": total_ns / frames if frames > 0 else None,
           "tc_ns": sum(v["ns"] for v in tc) / t_runs if t_runs else None,
           "xdp_ns": sum(v["ns"] for v in xdp) / x_runs if x_runs else None}
    return res
