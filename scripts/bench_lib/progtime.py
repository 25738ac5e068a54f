# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""--progtime: the XDP stage's program time per frame on this CPU, from
BPF_PROG_TEST_RUN (scripts/bench_tools/xnb_progtime).

On the netns topology's tap stand-ins with xdpnet attached in XDP mode
(on the realistic host, as the other xdpnet paths), once the stand-ins'
flow is learned, xnb_progtime runs in the switch's namespace: 16 frames
({TCP, UDP} x {full, partial checksum} x {IPv4, IPv6} x {64, 1,518 B})
through the XDP stage as a test run gives it a frame (the device's own
rxq: generic XDP to the program), the XDP stage loaded again to take
every buffer as an xdp_buff (native), xdp-minimal and an empty program.
Each round runs its hot measure (one call runs a frame --repeat times)
and its cold one (one fresh frame per call, --calls calls); the empty
program's figure of the same round, frame and measure is taken off the
others. Medians and min-max over the rounds; the X2 figures are paired
by round. Pure functions but run()."""

import json
import os

from . import stats
from .cells import wait_bypassed
from .topo import BR, SW, VMS
from .util import CmdError, netns, run as run_cmd

HOT_REPEAT = 100000
COLD_CALLS = 2000
MEASURES = (("hot", ["--repeat", str(HOT_REPEAT)]),
            ("cold", ["--calls", str(COLD_CALLS)]))
PROGS = ("xdpnet", "xdpnet-native", "xdp-minimal")
EMPTY = "empty"
XDP_RET = {0: "aborted", 1: "drop", 2: "pass", 3: "tx", 4: "redirect"}
# X2 (issue 45): 1,518 B partial frames at most the 64 B time + 60 ns; 64 B
# frames the stage redirects at most 1.15x xdp-minimal.
X2_SLACK_NS = 60.0
X2_RATIO = 1.15
# Seconds: topology, attach and learning; then one round (both measures,
# the native program's load twice).
SETUP_S = 25.0
ROUND_S = 12.0


def estimate_seconds(rounds):
    return SETUP_S + ROUND_S * rounds


def tool_argv(tool, src, dst, measure_args):
    """xnb_progtime's command line for one round of one measure: frames
    from the first tap stand-in (src MAC, port xnbt1) to the second."""
    return [tool, "--bridge", BR, "--in", VMS["t1"][1], "--out",
            VMS["t2"][1], "--src", src, "--dst", dst,
            "--rounds", "1"] + list(measure_args)


def parse_lines(text):
    """xnb_progtime's JSON lines -> [dict]; ParseError-like ValueError
    when there is none or one is not what it prints."""
    out = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        for k in ("frame", "prog", "ns", "retval"):
            if k not in d:
                raise ValueError("xnb_progtime: no %r in %s" % (k, line))
        out.append(d)
    if not out:
        raise ValueError("xnb_progtime printed no figure")
    return out


def learn(topo):
    """A few frames each way between the tap stand-ins, so that the bridge
    and xdpnet know both behind their ports; then until xdpnet bypasses
    both ports."""
    for (ns, _, _), (_, _, dst) in ((VMS["t1"], VMS["t2"]),
                                    (VMS["t2"], VMS["t1"])):
        cp = run_cmd(netns(ns, ["ping", "-c3", "-i0.2", "-W2", "-q", dst]),
                     check=False)
        if cp.returncode:
            raise CmdError("no connectivity %s -> %s" % (ns, dst))
    wait_bypassed(topo, [VMS["t1"][1], VMS["t2"][1]])


def run(topo, rounds, term):
    """Builds the tap stand-ins, attaches xdpnet --mode xdp, and runs
    xnb_progtime rounds times for each measure, interleaved. Returns the
    run's part of raw.json: every line the tool printed, per call."""
    tool = os.path.join(topo.tools, "xnb_progtime")
    topo.build_taps()
    topo.set_path("xdpnet-xdp")
    learn(topo)
    src, dst = topo.mac(VMS["t1"][0], "eth0"), topo.mac(VMS["t2"][0],
                                                        "eth0")
    out = {"tool": tool, "in": VMS["t1"][1], "out": VMS["t2"][1],
           "src": src, "dst": dst, "hot_repeat": HOT_REPEAT,
           "cold_calls": COLD_CALLS, "rounds": rounds, "calls": []}
    for r in range(rounds):
        for name, margs in MEASURES:
            argv = netns(SW, tool_argv(tool, src, dst, margs))
            cp = run_cmd(argv, check=False, timeout=900)
            call = {"round": r, "measure": name, "argv": argv,
                    "rc": cp.returncode, "stdout": cp.stdout.splitlines(),
                    "stderr": cp.stderr.splitlines()}
            out["calls"].append(call)
            if cp.returncode:
                raise CmdError("xnb_progtime (round %d, %s) exited %d: %s"
                               % (r + 1, name, cp.returncode,
                                  cp.stderr.strip()[-300:]))
            n = len(parse_lines(cp.stdout))
            term.say("round %d/%d, %s: %d figures" % (r + 1, rounds, name,
                                                      n))
    return out


def records(pt):
    """Every figure of a run (run()'s result), with its round and
    measure."""
    out = []
    for call in pt.get("calls", []):
        if call.get("rc"):
            continue
        for d in parse_lines("\n".join(call["stdout"])):
            d = dict(d, round=call["round"], measure=call["measure"])
            out.append(d)
    return out


def _net(recs):
    """{(measure, frame, prog, round): ns minus empty's ns of the same
    measure, frame and round}, {(measure, frame, prog): {retvals}},
    {(measure, frame): [empty ns]} and the frames in their order."""
    raw = {(d["measure"], d["frame"], d["prog"], d["round"]): d
           for d in recs}
    net, rets, empty, frames = {}, {}, {}, []
    for (m, f, p, r), d in raw.items():
        if f not in frames:
            frames.append(f)
        if p == EMPTY:
            empty.setdefault((m, f), []).append(d["ns"])
            continue
        e = raw.get((m, f, EMPTY, r))
        if e is None:
            continue
        net[(m, f, p, r)] = d["ns"] - e["ns"]
        rets.setdefault((m, f, p), set()).add(
            XDP_RET.get(d["retval"], str(d["retval"])))
    return net, rets, empty, frames


def summarize(pt):
    """The report's table and X2 figures from a run (run()'s result).

    rows: per measure and frame, per program the summary of its ns per
    frame over the rounds (empty's taken off) and its return codes.
    x2: per measure, the slope (per L4 and L3: the 1,518 B partial
    frame's native ns minus the 64 B one's, paired by round) and the
    ratio (per 64 B frame the native program redirects: its ns over
    xdp-minimal's, paired by round), each with its verdict (n/a below 6
    paired rounds)."""
    net, rets, empty, frames = _net(records(pt))
    rounds = sorted({k[3] for k in net})
    res = {"rows": [], "x2": {}, "rounds": len(rounds)}
    for m, _ in MEASURES:
        for f in frames:
            row = {"measure": m, "frame": f, "progs": {},
                   "empty": stats.summarize(empty.get((m, f), []))}
            for p in PROGS:
                row["progs"][p] = {
                    "ns": stats.summarize([net.get((m, f, p, r))
                                           for r in rounds]),
                    "retvals": sorted(rets.get((m, f, p), ()))}
            res["rows"].append(row)
        slope, ratio = [], []
        for f in frames:
            l4, cs, l3, size = f.split("/")
            if cs == "partial" and size == "1518":
                small = "/".join((l4, cs, l3, "64"))
                d = [net[(m, f, "xdpnet-native", r)] -
                     net[(m, small, "xdpnet-native", r)] for r in rounds
                     if (m, f, "xdpnet-native", r) in net and
                     (m, small, "xdpnet-native", r) in net]
                p = stats.paired(d)
                slope.append({"what": "%s/%s" % (l4, l3), "paired": p,
                              "verdict": stats.verdict(p, "<=",
                                                       X2_SLACK_NS)})
            if size == "64" and \
                    rets.get((m, f, "xdpnet-native")) == {"redirect"}:
                q = [stats.ratio(net[(m, f, "xdpnet-native", r)],
                                 net.get((m, f, "xdp-minimal", r)))
                     for r in rounds if (m, f, "xdpnet-native", r) in net]
                p = stats.paired([v for v in q if v is not None])
                ratio.append({"what": f, "paired": p,
                              "verdict": stats.verdict(p, "<=", X2_RATIO)})
        res["x2"][m] = {"slope": slope, "ratio": ratio}
    return res


def _ns(sm):
    if not sm or sm.get("median") is None:
        return "–"
    s = "%.0f" % sm["median"]
    if sm["n"] > 1:
        s += " [%.0f–%.0f]" % (sm["min"], sm["max"])
    return s


def _paired(p, fmt):
    if not p or p.get("ratio") is None:
        return "–"
    s = fmt % p["ratio"]
    if p["n"] > 1:
        s += " (%s–%s)" % (fmt % p["min"], fmt % p["max"])
    return s


def table(res, measure):
    head = ["frame", "xdpnet (test run: generic) ns", "returns",
            "xdpnet-native ns", "returns", "xdp-minimal ns", "returns",
            "empty ns (taken off)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in res["rows"]:
        if row["measure"] != measure:
            continue
        cols = [row["frame"]]
        for p in PROGS:
            cols += [_ns(row["progs"][p]["ns"]),
                     "/".join(row["progs"][p]["retvals"]) or "–"]
        cols.append(_ns(row["empty"]))
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines)


def x2_lines(res, measure, verdicts=True):
    """The X2 figures of one measure, with a verdict where the rounds
    allow one (and verdicts: not on an emulated machine)."""
    x = res["x2"].get(measure) or {}
    out = []
    for s in x.get("slope", []):
        line = "- %s, 1,518 B partial minus 64 B partial (native): %s ns" \
            % (s["what"], _paired(s["paired"], "%.0f"))
        if verdicts and s["verdict"] != "n/a":
            line += "; at most %.0f ns: **%s**" % (X2_SLACK_NS,
                                                   s["verdict"])
        out.append(line)
    for r in x.get("ratio", []):
        line = "- %s, native over xdp-minimal: %s" % (
            r["what"], _paired(r["paired"], "%.2fx"))
        if verdicts and r["verdict"] != "n/a":
            line += "; at most %.2fx: **%s**" % (X2_RATIO, r["verdict"])
        out.append(line)
    n = res["rounds"]
    if not verdicts:
        out.append("- No verdict: an emulated machine.")
    elif n < 6:
        out.append("- No verdict: %d rounds, a verdict needs 6 or more "
                   "paired rounds (`--repeats`)." % n)
    return out


def markdown(doc):
    """report.md of a --progtime run (its raw.json document)."""
    pt = doc["progtime"]
    res = summarize(pt)
    env = doc["env"]
    L = ["# xdpnet benchmark: the XDP stage's program time per frame "
         "(--progtime)", ""]
    if doc.get("emulated"):
        L += ["**Emulated host.** This run's machine is itself emulated: "
              "its figures time the emulator. No verdict is given.", ""]
    L += ["Run %s – %s. Command: `%s`." % (
        doc["started_at"], doc.get("finished_at", "?"), doc["command"]),
        "", "Machine: %s, %s CPUs, kernel %s; BPF run-time statistics "
        "%s (kernel.bpf_stats_enabled)." % (
            env["cpu_model"], env["cpus"], env["kernel"],
            "on" if doc.get("bpf_stats_enabled") else "off"), ""]
    L += ["## Method", "",
          "xdpnet attached to the netns topology's bridge in XDP mode "
          "(`xdpnet %s`, with br_netfilter and the realistic host's %s "
          "iptables rules), the tap stand-ins' flow learned (pings each "
          "way). Then `xnb_progtime` in the switch's namespace, frames "
          "from the first stand-in (%s, behind %s) to the second (%s, "
          "behind %s), through BPF_PROG_TEST_RUN:" % (
              doc.get("topology_info", {}).get("xdpnet_attach", "attach"),
              doc.get("rules"), pt["src"], pt["in"], pt["dst"], pt["out"]),
          "",
          "- **xdpnet**: the XDP stage as attached, as a test run gives "
          "it a frame: the device's own rxq, so every buffer counts as "
          "generic XDP (a partial checksum goes on to the TC stage "
          "without a sum);",
          "- **xdpnet-native**: the same program loaded again on the "
          "bridge's maps, taking every buffer as an xdp_buff, as on tun's "
          "native paths (a partial checksum is completed);",
          "- **xdp-minimal**: one MAC lookup and a devmap redirect "
          "(scripts/bench_tools/xnb_minimal.bpf.c);",
          "- **empty**: XDP_PASS, the test run's own cost, taken off the "
          "others (same round, frame and measure).",
          "",
          "Hot: one call runs the same frame %d times, every line warm (a "
          "partial checksum is completed by the first run only; the others "
          "prove it). Cold: one fresh frame per call, %d calls, as a "
          "guest's frames come. Frames of 64 and 1,518 B on the wire "
          "(IPv6 at its least, 74 and 62 B for TCP and UDP). Each round "
          "runs both measures; %d rounds. Figures: ns per frame, median "
          "[min–max] over the rounds; returns: the program's return "
          "codes. X2 figures are paired by round, median (min–max); a "
          "verdict needs 6 or more paired rounds (a 95%% interval of the "
          "median)." % (pt["hot_repeat"], pt["cold_calls"],
                        res["rounds"]), ""]
    for m, _ in MEASURES:
        L += ["## %s" % {"hot": "Hot (one call, %d runs)" %
                         pt["hot_repeat"],
                         "cold": "Cold (one fresh frame per call)"}[m], "",
              table(res, m), "", "X2:", ""]
        L += x2_lines(res, m, verdicts=not doc.get("emulated"))
        L.append("")
    L += ["Raw data: `raw.json` (every line xnb_progtime printed, per "
          "call, with its command line).", ""]
    return "\n".join(L)


def csv_text(res):
    lines = ["measure,frame,prog,n,median_ns,min_ns,max_ns,returns"]
    for row in res["rows"]:
        for p in PROGS + (EMPTY,):
            sm = row["empty"] if p == EMPTY else row["progs"][p]["ns"]
            rv = "" if p == EMPTY else "/".join(row["progs"][p]["retvals"])
            if not sm or sm["median"] is None:
                continue
            lines.append("%s,%s,%s,%d,%.1f,%.1f,%.1f,%s" % (
                row["measure"], row["frame"], p, sm["n"], sm["median"],
                sm["min"], sm["max"], rv))
    return "\n".join(lines) + "\n"
