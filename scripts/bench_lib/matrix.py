# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the benchmark compares (paths), what it measures (tests), in which
settings (stand-in kind, guest offloads, MTU), and in which order.

A cell is one measurement: (setting, test item, path, repeat). The order
interleaves paths: for each setting, repeat r runs every path in turn
(A B C D E, A B C D E, ...), each path running the setting's test items,
so slow drift of the machine touches every path alike."""

import collections

# ---------------------------------------------------------------- paths

# kind: 'direct' (a veth pair between two namespaces, no switch) or
# 'bridge' (the stand-ins' bridge). nf: br_netfilter on with the
# realistic host's iptables rules (hostrules.py: Docker and kube-proxy
# chains that never match a frame between two ports of the bridge).
# xdpnet: None (detached), 'tc' or 'xdp' (attach --mode). minimal: the
# reference TC program of scripts/bench_tools/xnb_minimal.bpf.c, 'redirect'
# (bpf_redirect()) or 'peer' (bpf_redirect_peer() into veth targets).
_P = {"nf": False, "xdpnet": None, "minimal": None}
PATHS = collections.OrderedDict([
    ("direct", dict(_P, kind="direct",
                    label="direct veth pair (no switch)")),
    ("bridge", dict(_P, kind="bridge", label="Linux bridge")),
    ("bridge-nf", dict(_P, kind="bridge", nf=True,
                       label="bridge on a realistic host: br_netfilter + "
                       "N iptables rules that never match VM-to-VM "
                       "frames")),
    ("tc-minimal", dict(_P, kind="bridge", nf=True, minimal="redirect",
                        label="reference: one MAC lookup, then "
                        "bpf_redirect(), on TC ingress of every port "
                        "(same realistic host)")),
    ("tc-minimal-peer", dict(_P, kind="bridge", nf=True, minimal="peer",
                             label="reference, bpf_redirect_peer() into "
                             "veth targets' peers (same realistic host)")),
    # The XDP stage's reference (--topology vhost): one MAC lookup and a
    # devmap redirect in native XDP on every tap port; what XDP passes
    # (frames over the MTU: a tap builds GSO frames into skbs) goes on to
    # tc-minimal's program on TC ingress, as xdpnet's XDP stage hands its
    # passes to its TC stage.
    # It takes every checksum as valid (csum_blind): a partial one
    # arrives broken, so it runs only cells whose frames carry full
    # checksums; and only cells whose frames enter a tap (taps_only: on
    # veth ports it is tc-minimal). See path_applies().
    ("xdp-minimal", dict(_P, kind="bridge", nf=True, minimal="xdp",
                         csum_blind=True, taps_only=True,
                         label="reference: one MAC lookup, then a devmap "
                         "redirect, in XDP on every tap port; what XDP "
                         "passes, tc-minimal (same realistic host)")),
    ("xdpnet-tc", dict(_P, kind="bridge", nf=True, xdpnet="tc",
                       label="xdpnet TC stage (same realistic host)")),
    ("xdpnet-xdp", dict(_P, kind="bridge", nf=True, xdpnet="xdp",
                        label="xdpnet XDP stage (same realistic host)")),
    ("xdpnet-tc-plain", dict(_P, kind="bridge", xdpnet="tc",
                             label="xdpnet TC stage, plain host")),
    ("xdpnet-xdp-plain", dict(_P, kind="bridge", xdpnet="xdp",
                              label="xdpnet XDP stage, plain host")),
])

# xdpnet with one component taken out (--breakdown for the TC stage,
# --breakdown-xdp for the XDP stage): a build of its own (make
# OUT=build/perf/NAME BPF_EXTRA=...; switches that exist for these
# experiments only) or the portable datapath, attached as xdpnet-tc or
# xdpnet-xdp is, on the same realistic host. What xdpnet costs more than a
# variant, paired by repeat, is what that component costs. counters: False
# where the build counts nothing (its share bypassed comes from the
# FORWARD chain, as tc-minimal's). csum_blind: the build takes every
# checksum as valid (as xdp-minimal, above).
VARIANTS = collections.OrderedDict([
    ("nostats", dict(extra="-DXN_PERF_NOSTATS", env={}, counters=False,
                     what="per-CPU counters (the verdict's and the "
                     "target's rx_redirected)")),
    ("noclock", dict(extra="-DXN_PERF_NOCLOCK", env={}, counters=True,
                     what="keep-alive clock (jiffies read and compare)")),
    ("portable", dict(extra=None, env={"XDPNET_DATAPATH": "portable"},
                      counters=True,
                      what="live reads of the ingress port and bridge "
                      "(the portable datapath takes them from the ports "
                      "map)")),
    ("noegress", dict(extra="-DXN_PERF_NOEGRESS", env={}, counters=True,
                      what="live reads of the egress port (its state, "
                      "flags and device MTU; the ports map's instead)")),
    ("nonf", dict(extra="-DXN_PERF_NONF", env={}, counters=True,
                  what="br_netfilter's frame checks (IPv4 header checksum "
                  "and lengths, IPv6 lengths and extension headers)")),
    ("nomtu", dict(extra="-DXN_PERF_NOMTU", env={}, counters=True,
                   what="egress MTU check (the frame's length; a GSO "
                   "frame's segments from its headers)")),
    ("nocache", dict(extra="-DXN_PERF_NOCACHE", env={}, counters=True,
                     what="the decision cache: every frame decided in "
                     "full (two FDB lookups, the ports), as before 0.3; a "
                     "negative figure is what the cache saves")),
    ("bare", dict(extra="-DXN_PERF_NOSTATS -DXN_PERF_NOCLOCK "
                  "-DXN_PERF_NOMTU", env={"XDPNET_DATAPATH": "portable"},
                  counters=False,
                  what="counters, clock, live reads and MTU check out: "
                  "what is left is parsing and the cache entry's lookup "
                  "and checks")),
    # The XDP stage only.
    ("nocsum", dict(extra="-DXN_PERF_NOCSUM", env={}, counters=True,
                    csum_blind=True,
                    what="the XDP stage's checksum proof (every checksum "
                    "taken as valid: partial ones would arrive broken, so "
                    "it runs only where frames carry full checksums)")),
])
TC_VARIANTS = ["nostats", "noclock", "portable", "noegress", "nonf", "nomtu",
               "nocache", "bare"]
XDP_VARIANTS = ["nostats", "noclock", "portable", "noegress", "nonf",
                "nocache", "nocsum"]
for _stage, _names in (("tc", TC_VARIANTS), ("xdp", XDP_VARIANTS)):
    for _v in _names:
        _s = VARIANTS[_v]
        PATHS["xdpnet-%s-%s" % (_stage, _v)] = dict(
            _P, kind="bridge", nf=True, xdpnet=_stage, variant=_v,
            csum_blind=_s.get("csum_blind", False),
            label="xdpnet %s stage without the %s (%s; same realistic host)"
            % (_stage.upper(), _v, _s["what"]))

DEFAULT_PATHS = ["direct", "bridge", "bridge-nf", "tc-minimal", "xdpnet-tc",
                 "xdpnet-xdp"]
BREAKDOWN_PATHS = ["tc-minimal", "xdpnet-tc"] + \
    ["xdpnet-tc-" + v for v in TC_VARIANTS]
BREAKDOWN_XDP_PATHS = ["xdp-minimal", "tc-minimal", "xdpnet-tc",
                       "xdpnet-xdp"] + ["xdpnet-xdp-" + v for v in XDP_VARIANTS]
# --topology vhost: vm->vm between two user-space vhost-net "VMs"
# (scripts/bench_tools/xnb_vhost) on taps of one bridge; no direct pair.
VHOST_PATHS = ["bridge", "bridge-nf", "tc-minimal", "xdp-minimal",
               "xdpnet-tc", "xdpnet-xdp"]
# What every other path is compared with (report.ratios).
REFS = ("bridge", "bridge-nf", "direct", "tc-minimal", "xdp-minimal")


def is_xdpnet(path):
    return PATHS[path]["xdpnet"] is not None


def variant_of(path):
    """(name, VARIANTS entry) of a breakdown path, or (None, None)."""
    v = PATHS[path].get("variant")
    return (v, VARIANTS[v]) if v else (None, None)


def counts(path):
    """Does the path's datapath keep xdpnet's counters?"""
    v = variant_of(path)[1]
    return is_xdpnet(path) and (v is None or v["counters"])


def is_minimal(path):
    return PATHS[path]["minimal"] is not None


def is_vhost_test(test):
    return test in VHOST_TESTS


def is_bpf(path):
    """Does the path run BPF programs on the ports (program CPU)?"""
    return is_xdpnet(path) or is_minimal(path)


# ---------------------------------------------------------------- tests

# --topology vhost's UDP frames and RR with full checksums, GSO bulk; the
# same with partial checksums and TCP with ACKs below (TESTS).
_VHOST_GSO = {"metric": "gbps", "better": "higher", "unit": "Gbit/s",
              "csum": "partial", "partial": False,
              "extra": ["sent_gbps", "loss_pct", "cpu_ns", "vhost_ns",
                        "machine_ns", "prog_ns"],
              "title": "TCP GSO frames of 64 KB through vhost-net, flat out "
              "(xnb_vhost send --gso -> recv), delivered"}
_VHOST_PPS = {"metric": "delivered_kpps", "better": "higher", "unit": "kpps",
              "csum": "full", "partial": False,
              "extra": ["sent_kpps", "loss_pct", "cpu_ns", "vhost_ns",
                        "machine_ns", "prog_ns"],
              "title": "UDP frames of a given size through vhost-net, full "
              "checksums, flat out (xnb_vhost send -> recv), delivered"}
_VHOST_RR = {"metric": "p50_us", "better": "lower", "unit": "us",
             "csum": "full", "partial": False,
             "extra": ["p99_us", "mean_us", "tps", "cpu_ns", "vhost_ns",
                       "prog_ns"],
             "title": "UDP request/response through vhost-net, 64 B frames, "
             "full checksums (xnb_vhost rr -> echo)"}

# metric: the headline figure; better: which way is better; extra: other
# figures kept in the CSV and the report.
TESTS = collections.OrderedDict([
    ("tcp_stream", {"metric": "gbps", "better": "higher", "unit": "Gbit/s",
                    "extra": ["sent_gbps", "retransmits", "prog_ns"],
                    "title": "TCP stream (iperf3)"}),
    ("udp", {"metric": "rx_kpps", "better": "higher", "unit": "kpps",
             "extra": ["tx_kpps", "loss_pct", "prog_ns"],
             "title": "UDP flood (iperf3 -u -b 0), frames received"}),
    ("tcp_rr", {"metric": "p50_us", "better": "lower", "unit": "us",
                "extra": ["p90_us", "p99_us", "mean_us", "tps", "prog_ns"],
                "title": "TCP request/response, 64 B (sockperf ping-pong)"}),
    ("udp_rr", {"metric": "p50_us", "better": "lower", "unit": "us",
                "extra": ["p90_us", "p99_us", "mean_us", "tps", "prog_ns"],
                "title": "UDP request/response, 64 B (sockperf ping-pong)"}),
    ("tcp_crr", {"metric": "tps", "better": "higher", "unit": "trans/s",
                 "extra": ["p50_us", "p90_us", "p99_us", "mean_us",
                           "errors", "prog_ns"],
                 "title": "TCP connect/request/response, 64 B (xnb_crr)"}),
    ("fwd64", {"metric": "fwd_kpps", "better": "higher", "unit": "kpps",
               "extra": ["delivered_kpps", "switch_ns", "recv_ns",
                         "total_ns", "offered_kpps", "prog_ns"],
               "title": "64 B forwarding capacity (xnb_pktgen -> tap)"}),
    # The same from a tap port: frames written into a tap as a guest's
    # arrive, where xdpnet's XDP stage runs natively (it is on taps only).
    ("fwd64_tap", {"metric": "fwd_kpps", "better": "higher", "unit": "kpps",
                   "extra": ["delivered_kpps", "switch_ns", "recv_ns",
                             "total_ns", "offered_kpps", "prog_ns"],
                   "title": "64 B forwarding from a tap (xnb_pktgen --tap "
                   "-> tap)"}),
    # --topology vhost: frames from one xnb_vhost "VM" to another through
    # vhost-net (tun_xdp_one() batches where a frame fits a page), what
    # the receiver verified and counted; CPU per delivered frame of both
    # processes and their vhost workers. csum: the checksums the frames
    # leave the sender with (xnb_vhost --csum): full, as a guest with tx
    # checksumming off sends them, or partial (NEEDS_CSUM), as a default
    # guest does. partial: non-GSO frames with partial checksums reach
    # the XDP hook (partial_csums()).
    ("vhost_pps", _VHOST_PPS),
    ("vhost_pps_partial", dict(
        _VHOST_PPS, csum="partial", partial=True,
        title="UDP frames of a given size through vhost-net, partial "
        "checksums (a default guest), flat out, delivered")),
    ("vhost_gso", _VHOST_GSO),
    # A TCP flow as a default Linux guest sends it: TSO frames of 64 KB
    # (variant tso) or 1,518 B segments (notso, the sender's TSO off),
    # partial checksums, and every frame answered by a 54 B ACK with a
    # partial checksum (xnb_vhost recv --ack 1, send --acks).
    ("vhost_tcp", dict(
        _VHOST_GSO, partial=True,
        title="TCP as a default guest sends it through vhost-net: TSO "
        "frames (tso) or 1,518 B segments (notso) one way, partial "
        "checksums, a 54 B ACK with a partial checksum back for each, "
        "delivered")),
    ("vhost_rr", _VHOST_RR),
    ("vhost_rr_partial", dict(
        _VHOST_RR, csum="partial", partial=True,
        title="UDP request/response through vhost-net, 64 B frames, "
        "partial checksums (a default guest)")),
])
FWD_TESTS = ("fwd64", "fwd64_tap")
VHOST_TESTS = ("vhost_pps", "vhost_pps_partial", "vhost_gso", "vhost_tcp",
               "vhost_rr", "vhost_rr_partial")
RR_TESTS = ("tcp_rr", "udp_rr", "vhost_rr", "vhost_rr_partial")

# Which way is better, for every figure a test produces.
BETTER = {
    "gbps": "higher", "sent_gbps": "higher", "retransmits": "lower",
    "rx_kpps": "higher", "tx_kpps": "higher", "loss_pct": "lower",
    "p50_us": "lower", "p90_us": "lower", "p99_us": "lower",
    "mean_us": "lower", "tps": "higher", "fwd_kpps": "higher",
    "switch_ns": "lower", "recv_ns": "lower", "total_ns": "lower",
    "delivered_kpps": "higher", "offered_kpps": "higher", "errors": "lower",
    "prog_ns": "lower", "sent_kpps": "higher", "cpu_ns": "lower",
    "vhost_ns": "lower", "machine_ns": "lower", "xdp_ns": "lower",
    "tc_ns": "lower",
}

UNITS = {
    "gbps": "Gbit/s", "sent_gbps": "Gbit/s", "retransmits": "",
    "rx_kpps": "kpps", "tx_kpps": "kpps", "loss_pct": "%",
    "p50_us": "us", "p90_us": "us", "p99_us": "us", "mean_us": "us",
    "tps": "/s", "fwd_kpps": "kpps", "switch_ns": "ns/pkt",
    "recv_ns": "ns/pkt", "total_ns": "ns/pkt", "delivered_kpps": "kpps",
    "offered_kpps": "kpps", "errors": "", "prog_ns": "ns/frame",
    "sent_kpps": "kpps", "cpu_ns": "ns/frame", "vhost_ns": "ns/frame",
    "machine_ns": "ns/frame", "xdp_ns": "ns/run", "tc_ns": "ns/run",
}

DIRECTIONS = ("vm-vm", "host-vm", "vm-host")
ARROW = {"vm-vm": "vm→vm", "host-vm": "host→vm", "vm-host": "vm→host"}

Item = collections.namedtuple("Item", "test variant direction")
Setting = collections.namedtuple("Setting", "standin offloads mtu")
Cell = collections.namedtuple("Cell", "index setting item path rep")


def item_name(item):
    v = "" if item.variant in (None, "") else " " + str(item.variant)
    return "%s%s %s" % (item.test, v, ARROW.get(item.direction,
                                                 item.direction))


def setting_name(s):
    return "%s/offloads-%s/mtu%d" % (s.standin, s.offloads, s.mtu)


def parse_setting(text):
    """'veth/on/1500' -> Setting."""
    parts = text.split("/")
    if len(parts) != 3 or parts[0] not in ("veth", "tap", "vm", "vhost") or \
            parts[1] not in ("on", "off"):
        raise ValueError("setting must look like veth/on/1500, "
                         "tap/off/9000 or vm/on/1500: %r" % text)
    return Setting(parts[0], parts[1], int(parts[2]))


# ------------------------------------------------------------- profiles

def _stream(variants, directions=("vm-vm",)):
    return [Item("tcp_stream", v, d) for d in directions for v in variants]


# Items run in each kind of setting, per profile. Host directions only
# where they say something (xdpnet hands host traffic to the bridge); the
# tap stand-ins are symmetric, so their 'rx' would repeat 'tx'.
FULL_VETH_ON = (
    _stream(["tx", "rx", "bidir", "p4"])
    + _stream(["tx"], ("host-vm", "vm-host"))
    + [Item("udp", 64, "vm-vm"), Item("udp", 512, "vm-vm"),
       Item("tcp_rr", 64, "vm-vm"), Item("udp_rr", 64, "vm-vm"),
       Item("tcp_rr", 64, "host-vm"), Item("tcp_crr", 64, "vm-vm")])
FULL_TAP_ON = (
    _stream(["tx", "bidir"])
    + _stream(["tx"], ("host-vm", "vm-host"))
    + [Item("tcp_rr", 64, "vm-vm"), Item("udp_rr", 64, "vm-vm"),
       Item("tcp_crr", 64, "vm-vm")])
FULL_VETH_OFF = (
    _stream(["tx", "rx", "bidir", "p4"])
    + [Item("udp", 64, "vm-vm"), Item("tcp_rr", 64, "vm-vm"),
       Item("udp_rr", 64, "vm-vm"), Item("tcp_crr", 64, "vm-vm")])
FULL_TAP_OFF = (
    _stream(["tx", "bidir"])
    + [Item("udp", 64, "vm-vm"), Item("tcp_rr", 64, "vm-vm"),
       Item("udp_rr", 64, "vm-vm"), Item("tcp_crr", 64, "vm-vm")])
FWD = [Item("fwd64", 64, "vm-vm"), Item("fwd64_tap", 64, "vm-vm")]

HOST_DIRS = ("host-vm", "vm-host")

PROFILES = {
    # Everything (docs/performance.md's full matrix); 7 repeats, so every
    # paired ratio has a 95% interval of its median.
    "full": {
        "repeats": 7,
        "durations": {"tcp_stream": 2, "udp": 2, "tcp_rr": 1.5,
                      "udp_rr": 1.5, "tcp_crr": 2, "fwd64": 3,
                      "fwd64_tap": 3},
        "plan": [
            (Setting("veth", "on", 1500), FULL_VETH_ON + FWD),
            (Setting("tap", "on", 1500), FULL_TAP_ON),
            (Setting("veth", "off", 1500), FULL_VETH_OFF),
            (Setting("tap", "off", 1500), FULL_TAP_OFF),
            (Setting("veth", "off", 9000), _stream(["tx", "p4"])),
            (Setting("tap", "off", 9000), _stream(["tx"])),
            (Setting("veth", "on", 9000), _stream(["tx"])),
            (Setting("tap", "on", 9000), _stream(["tx"])),
        ],
    },
    # The cells issue 11's targets rest on, and the seeds' table (TCP
    # stream host->vm, vm->host, vm->vm), with 7 repeats: the target run.
    "targets": {
        "repeats": 7,
        "durations": {"tcp_stream": 4, "udp": 2, "tcp_rr": 2,
                      "udp_rr": 2, "tcp_crr": 2, "fwd64": 3,
                      "fwd64_tap": 3},
        "plan": [
            (Setting("veth", "off", 1500),
             _stream(["tx"], ("vm-vm",) + HOST_DIRS)
             + [Item("tcp_rr", 64, "vm-vm"), Item("udp_rr", 64, "vm-vm"),
                Item("tcp_crr", 64, "vm-vm")]),
            (Setting("veth", "on", 1500),
             _stream(["tx"], ("vm-vm",) + HOST_DIRS)
             + [Item("tcp_rr", 64, "vm-vm")] + FWD),
            # Offloads on, as a default guest sends: partial checksums
            # (what the XDP stage must complete or hand on), the host
            # directions, RR and CRR, as --full has them.
            (Setting("tap", "on", 1500),
             _stream(["tx"], ("vm-vm",) + HOST_DIRS)
             + [Item("tcp_rr", 64, "vm-vm"), Item("udp_rr", 64, "vm-vm"),
                Item("tcp_crr", 64, "vm-vm")]),
            (Setting("tap", "off", 1500), _stream(["tx"])),
        ],
    },
}
# What the TC stage's program CPU per frame is made of: every cell of the
# target run that xdpnet-tc bypasses (vm->vm), tc-minimal, xdpnet-tc and
# the variants above, interleaved (--breakdown).
PROFILES["breakdown"] = {
    "repeats": 7,
    "durations": PROFILES["targets"]["durations"],
    "paths": BREAKDOWN_PATHS,
    "plan": [(s, [i for i in items if i.direction == "vm-vm"])
             for s, items in PROFILES["targets"]["plan"]],
}
# What the XDP stage's program time per frame is made of (--breakdown-xdp):
# the tap cells (taps are where the XDP stage runs), with partial
# checksums (offloads on) and full ones (off), and 64 B frames written
# into a tap; xdp-minimal, tc-minimal, both stages and the XDP stage
# without each component (XDP_VARIANTS). xdp-minimal and the nocsum build
# take every checksum as valid: they run only where frames carry full
# ones (tap/off, fwd64_tap).
PROFILES["breakdown-xdp"] = {
    "repeats": 7,
    "durations": PROFILES["targets"]["durations"],
    "paths": BREAKDOWN_XDP_PATHS,
    "plan": [
        (Setting("veth", "on", 1500), [Item("fwd64_tap", 64, "vm-vm")]),
        (Setting("tap", "on", 1500),
         _stream(["tx"]) + [Item("tcp_rr", 64, "vm-vm"),
                            Item("udp_rr", 64, "vm-vm")]),
        (Setting("tap", "off", 1500),
         _stream(["tx"]) + [Item("udp_rr", 64, "vm-vm")]),
    ],
}
PROFILES.update({
    # Under 10 minutes (make demo): one cell of each target's kind, 3
    # repeats; too few for a verdict (the report says so), enough to see
    # that everything works and which way things go.
    "quick": {
        "repeats": 3,
        "durations": {"tcp_stream": 2, "udp": 2, "tcp_rr": 1.5,
                      "udp_rr": 1.5, "tcp_crr": 2, "fwd64": 2,
                      "fwd64_tap": 2},
        "plan": [
            (Setting("veth", "off", 1500),
             _stream(["tx"]) + [Item("tcp_rr", 64, "vm-vm")]),
            (Setting("veth", "on", 1500),
             _stream(["tx"], ("vm-vm",) + HOST_DIRS) + FWD),
            (Setting("tap", "off", 1500), _stream(["tx"])),
        ],
    },
    # CI: one short cell of every test per path, once; xdp-minimal where
    # it differs from tc-minimal (frames from a tap, full checksums).
    "smoke": {
        "repeats": 1,
        "paths": DEFAULT_PATHS + ["xdp-minimal"],
        "durations": {"tcp_stream": 1, "udp": 1, "tcp_rr": 1, "udp_rr": 1,
                      "tcp_crr": 1, "fwd64": 1, "fwd64_tap": 1},
        "plan": [
            (Setting("veth", "on", 1500),
             _stream(["tx"], ("vm-vm", "host-vm"))
             + [Item("udp", 64, "vm-vm"), Item("tcp_rr", 64, "vm-vm"),
                Item("udp_rr", 64, "vm-vm"),
                Item("tcp_crr", 64, "vm-vm")] + FWD),
            (Setting("tap", "off", 1500), _stream(["tx"])),
        ],
    },
})

# --topology vm: the guests are the stand-ins (setting kind 'vm'); the
# direct pair is the netns one, measured in the same run.
VM_PROFILES = {
    "full": {
        "repeats": 7,
        "durations": PROFILES["full"]["durations"],
        "plan": [
            (Setting("vm", "on", 1500),
             _stream(["tx", "rx", "bidir", "p4"])
             + _stream(["tx"], ("host-vm", "vm-host"))
             + [Item("udp", 64, "vm-vm"), Item("tcp_rr", 64, "vm-vm"),
                Item("udp_rr", 64, "vm-vm"), Item("tcp_rr", 64, "host-vm"),
                Item("tcp_crr", 64, "vm-vm")]),
            (Setting("vm", "off", 1500),
             _stream(["tx", "bidir", "p4"])
             + [Item("udp", 64, "vm-vm"), Item("tcp_rr", 64, "vm-vm"),
                Item("udp_rr", 64, "vm-vm"), Item("tcp_crr", 64, "vm-vm")]),
            (Setting("vm", "off", 9000), _stream(["tx"])),
            (Setting("vm", "on", 9000), _stream(["tx"])),
        ],
    },
    "targets": {
        "repeats": 7,
        "durations": PROFILES["targets"]["durations"],
        "plan": [
            (Setting("vm", "on", 1500),
             _stream(["tx"], ("vm-vm",) + HOST_DIRS)
             + [Item("tcp_rr", 64, "vm-vm")]),
            (Setting("vm", "off", 1500),
             _stream(["tx"]) + [Item("tcp_rr", 64, "vm-vm")]),
        ],
    },
    "quick": {
        "repeats": 3,
        "durations": PROFILES["quick"]["durations"],
        "plan": [
            (Setting("vm", "on", 1500),
             _stream(["tx"]) + [Item("tcp_rr", 64, "vm-vm")]),
            (Setting("vm", "off", 1500),
             _stream(["tx"]) + [Item("tcp_rr", 64, "vm-vm")]),
        ],
    },
    "smoke": {
        "repeats": 1,
        "durations": PROFILES["smoke"]["durations"],
        "plan": [
            (Setting("vm", "on", 1500),
             _stream(["tx"]) + [Item("udp", 64, "vm-vm"),
                                Item("tcp_rr", 64, "vm-vm"),
                                Item("udp_rr", 64, "vm-vm"),
                                Item("tcp_crr", 64, "vm-vm")]),
            (Setting("vm", "off", 1500), _stream(["tx"])),
        ],
    },
}

# --topology vhost: one setting, the "VMs" with their offloads (checksum,
# TSO) negotiated. Frames of 64 B (the least Ethernet frame) and 1,518 B
# (a 1,500 B IP packet), sizes on the wire with the FCS; GSO bulk; RR.
VHOST_SETTING = Setting("vhost", "on", 1500)
VHOST_ITEMS = [Item("vhost_pps", 64, "vm-vm"), Item("vhost_pps", 1518, "vm-vm"),
               Item("vhost_pps_partial", 64, "vm-vm"),
               Item("vhost_pps_partial", 1518, "vm-vm"),
               Item("vhost_gso", 1448, "vm-vm"),
               Item("vhost_tcp", "tso", "vm-vm"),
               Item("vhost_tcp", "notso", "vm-vm"),
               Item("vhost_rr", 64, "vm-vm"),
               Item("vhost_rr_partial", 64, "vm-vm")]
_VHOST_DUR = {t: 3 for t in VHOST_TESTS}
VHOST_PROFILES = {
    "full": {"repeats": 7, "durations": _VHOST_DUR, "paths": VHOST_PATHS,
             "plan": [(VHOST_SETTING, VHOST_ITEMS)]},
    "targets": {"repeats": 7, "durations": _VHOST_DUR, "paths": VHOST_PATHS,
                "plan": [(VHOST_SETTING, VHOST_ITEMS)]},
    "quick": {"repeats": 3, "durations": {t: 2 for t in _VHOST_DUR},
              "paths": VHOST_PATHS, "plan": [(VHOST_SETTING, VHOST_ITEMS)]},
    "smoke": {"repeats": 1, "durations": {t: 1 for t in _VHOST_DUR},
              "paths": VHOST_PATHS, "plan": [(VHOST_SETTING, VHOST_ITEMS)]},
}

# Seconds a cell costs beyond its duration (process start, counters),
# for the time estimate; refined from what the run measures.
# sockperf's client sleeps 2 s before every test.
OVERHEAD = {"tcp_stream": 0.45, "udp": 0.7, "tcp_rr": 2.35, "udp_rr": 2.35,
            "tcp_crr": 0.15, "fwd64": 1.0, "fwd64_tap": 0.6,
            "vhost_pps": 1.5, "vhost_pps_partial": 1.5, "vhost_gso": 1.5,
            "vhost_tcp": 1.5, "vhost_rr": 1.0, "vhost_rr_partial": 1.0}
SWITCH_COST = {"path": 0.4, "setting": 4.0}


def partial_csums(setting, item):
    """Do frames with partial checksums reach an XDP program in this cell
    (non-GSO frames from a tap whose sender left the L4 checksum to
    offload)? A program that takes every checksum as valid redirects
    them broken: the receiver drops them."""
    spec = TESTS[item.test]
    if "partial" in spec:
        return spec["partial"]
    if item.test in FWD_TESTS:
        return False  # the generator writes full checksums
    # XDP programs run on the tap ports only.
    return setting.standin in ("tap", "vm") and setting.offloads == "on"


def path_applies(path, setting, item, plan_settings):
    """Does this path run this item in this setting?

    A path that takes every checksum as valid (csum_blind) runs only
    cells without partial checksums (partial_csums()); one that differs
    from tc-minimal on tap ports alone (taps_only) only cells whose frames
    enter a tap. The direct pair
    only carries vm-vm items (it has no host) and runs in veth settings;
    a tap setting borrows the direct figures of the veth setting with the
    same offloads and MTU when the plan has one."""
    if PATHS[path].get("csum_blind") and partial_csums(setting, item):
        return False
    if PATHS[path].get("taps_only") and setting.standin == "veth" and \
            item.test != "fwd64_tap":
        return False
    if PATHS[path]["kind"] != "direct":
        return True
    if item.direction != "vm-vm" or item.test == "fwd64_tap":
        return False
    if setting.standin == "veth":
        return True
    twin = Setting("veth", setting.offloads, setting.mtu)
    return twin not in plan_settings


def direct_twin(setting, plan_settings):
    """The setting whose direct cells serve as this setting's reference."""
    twin = Setting("veth", setting.offloads, setting.mtu)
    if setting.standin != "veth" and twin in plan_settings:
        return twin
    return setting


def build_cells(plan, paths, repeats, tests=None):
    """The ordered list of cells (see the module's doc)."""
    settings = [s for s, _ in plan]
    cells = []
    for setting, items in plan:
        items = [i for i in items if tests is None or i.test in tests]
        if not items:
            continue
        for rep in range(1, repeats + 1):
            for path in paths:
                for item in items:
                    if path_applies(path, setting, item, settings):
                        cells.append(Cell(len(cells), setting, item, path,
                                          rep))
    return cells


def estimate_seconds(cells, durations, overhead=None):
    """Rough wall time of a list of cells, switches included."""
    overhead = overhead or OVERHEAD
    t = 0.0
    last_setting = last_path = None
    for c in cells:
        if c.setting != last_setting:
            t += SWITCH_COST["setting"]
            last_setting = c.setting
            last_path = None
        if c.path != last_path:
            t += SWITCH_COST["path"]
            last_path = c.path
        t += durations[c.item.test] + overhead.get(c.item.test, 0.6)
    return t
