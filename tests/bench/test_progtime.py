# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""--progtime's pure part: xnb_progtime's command line and lines, the
table (empty's figure taken off, medians and min-max over rounds, return
codes) and the X2 figures with a verdict only from 6 paired rounds."""
import json
import unittest

import benchpath  # noqa: F401
from bench_lib import progtime

FRAMES = ["%s/%s/%s/%d" % (l4, cs, l3, w) for l4 in ("udp", "tcp")
          for cs in ("full", "partial") for l3 in ("ipv4", "ipv6")
          for w in (64, 1518)]


def ns_of(frame, prog, rnd, measure):
    """Made-up program times: empty 10 ns (cold 200); xdp-minimal 30
    more; xdpnet-native 50 more for 64 B frames, and 20 more again for
    1,518 B partial ones (it completes their checksum); xdpnet (generic)
    passes partial frames after 40 ns. A round drifts by rnd ns, the
    same for every program of the round."""
    base = (10 if measure == "hot" else 200) + rnd
    l4, cs, l3, w = frame.split("/")
    if prog == "empty":
        return base
    if prog == "xdp-minimal":
        return base + 30
    if prog == "xdpnet" and cs == "partial":
        return base + 40
    extra = 20 if (cs == "partial" and w == "1518" and
                   prog == "xdpnet-native") else 0
    return base + 50 + extra


def retval_of(frame, prog):
    cs = frame.split("/")[1]
    if prog == "empty" or (prog == "xdpnet" and cs == "partial"):
        return 2
    return 4


def run_doc(rounds, skew=0.0):
    """A run()'s result: rounds x measures, one call each, the lines as
    xnb_progtime prints them. skew: per round, xdpnet-native's 1,518 B
    partial UDP/IPv4 frame takes this many ns more again (a drift to
    judge)."""
    calls = []
    for r in range(rounds):
        for m, margs in progtime.MEASURES:
            out = []
            for f in FRAMES:
                for p in ("xdpnet", "xdpnet-native", "xdp-minimal",
                          "empty"):
                    ns = ns_of(f, p, r, m)
                    if p == "xdpnet-native" and \
                            f == "udp/partial/ipv4/1518":
                        ns += skew * r
                    out.append(json.dumps({
                        "frame": f, "len": 60, "prog": p, "round": 0,
                        "repeat": 1, "ns": float(ns),
                        "retval": retval_of(f, p)}))
            calls.append({"round": r, "measure": m, "argv": ["x"] + margs,
                          "rc": 0, "stdout": ["starting"] + out,
                          "stderr": []})
    return {"calls": calls, "src": "02:00:00:00:00:01",
            "dst": "02:00:00:00:00:02", "in": "xnbt1", "out": "xnbt2",
            "hot_repeat": progtime.HOT_REPEAT,
            "cold_calls": progtime.COLD_CALLS, "rounds": rounds}


class Command(unittest.TestCase):
    def test_argv(self):
        a = progtime.tool_argv("/t/xnb_progtime", "02:00:00:00:00:0b",
                               "02:00:00:00:00:0c", ["--repeat", "100000"])
        self.assertEqual(a[0], "/t/xnb_progtime")
        for k, v in (("--bridge", "xnbbr0"), ("--in", "xnbt1"),
                     ("--out", "xnbt2"), ("--src", "02:00:00:00:00:0b"),
                     ("--dst", "02:00:00:00:00:0c"), ("--rounds", "1"),
                     ("--repeat", "100000")):
            self.assertEqual(a[a.index(k) + 1], v, k)
        self.assertEqual(dict(progtime.MEASURES)["cold"],
                         ["--calls", "2000"])

    def test_lines(self):
        d = progtime.parse_lines('noise\n{"frame":"a","prog":"empty",'
                                 '"ns":3.5,"retval":2}\n')
        self.assertEqual(d[0]["ns"], 3.5)
        with self.assertRaises(ValueError):
            progtime.parse_lines("nothing\n")
        with self.assertRaises(ValueError):
            progtime.parse_lines('{"frame":"a","prog":"empty"}\n')


class Summary(unittest.TestCase):
    def test_table(self):
        res = progtime.summarize(run_doc(7))
        self.assertEqual(res["rounds"], 7)
        self.assertEqual(len(res["rows"]), 2 * 16)
        row = [r for r in res["rows"] if r["measure"] == "hot" and
               r["frame"] == "tcp/partial/ipv6/1518"][0]
        # The round's drift is taken off with empty's figure.
        n = row["progs"]["xdpnet-native"]["ns"]
        self.assertEqual((n["median"], n["min"], n["max"]), (70, 70, 70))
        self.assertEqual(row["progs"]["xdpnet-native"]["retvals"],
                         ["redirect"])
        self.assertEqual(row["progs"]["xdpnet"]["retvals"], ["pass"])
        self.assertEqual(row["progs"]["xdp-minimal"]["ns"]["median"], 30)
        self.assertEqual((row["empty"]["min"], row["empty"]["max"]),
                         (10, 16))
        md = progtime.table(res, "cold")
        lines = md.splitlines()
        self.assertEqual(len(lines), 2 + 16)
        self.assertIn("xdpnet (test run: generic) ns", lines[0])
        self.assertIn("| tcp/partial/ipv4/64 | 40 [40–40] | pass | "
                      "50 [50–50] | redirect | 30 [30–30] | redirect | "
                      "203 [200–206] |", md)
        csv = progtime.csv_text(res).splitlines()
        self.assertEqual(csv[0], "measure,frame,prog,n,median_ns,min_ns,"
                         "max_ns,returns")
        self.assertEqual(len(csv), 1 + 2 * 16 * 4)

    def test_x2_with_a_verdict(self):
        res = progtime.summarize(run_doc(7))
        for m in ("hot", "cold"):
            slope = {s["what"]: s for s in res["x2"][m]["slope"]}
            self.assertEqual(sorted(slope), ["tcp/ipv4", "tcp/ipv6",
                                             "udp/ipv4", "udp/ipv6"])
            self.assertEqual(slope["udp/ipv6"]["paired"]["ratio"], 20)
            self.assertEqual(slope["udp/ipv6"]["verdict"], "met")
            # 64 B frames the native program redirects: all eight.
            ratio = {r["what"]: r for r in res["x2"][m]["ratio"]}
            self.assertEqual(len(ratio), 8)
            self.assertAlmostEqual(
                ratio["tcp/partial/ipv4/64"]["paired"]["ratio"], 50 / 30)
            self.assertEqual(ratio["tcp/partial/ipv4/64"]["verdict"],
                             "MISSED")
        lines = progtime.x2_lines(res, "hot")
        self.assertIn("- udp/ipv4, 1,518 B partial minus 64 B partial "
                      "(native): 20 (20–20) ns; at most 60 ns: **met**",
                      lines)
        self.assertFalse([ln for ln in lines if "No verdict" in ln])
        # 40 ns more per round: 20..260 ns, an interval across 60.
        res = progtime.summarize(run_doc(7, skew=40.0))
        s = {x["what"]: x for x in res["x2"]["hot"]["slope"]}
        self.assertEqual(s["udp/ipv4"]["verdict"], "inconclusive")
        self.assertEqual(s["tcp/ipv4"]["verdict"], "met")

    def test_x2_without_enough_rounds(self):
        res = progtime.summarize(run_doc(5))
        s = res["x2"]["hot"]["slope"][0]
        self.assertEqual(s["verdict"], "n/a")
        lines = progtime.x2_lines(res, "hot")
        self.assertFalse([ln for ln in lines if "**" in ln])
        self.assertIn("No verdict: 5 rounds", lines[-1])
        lines = progtime.x2_lines(progtime.summarize(run_doc(7)), "hot",
                                  verdicts=False)
        self.assertFalse([ln for ln in lines if "**" in ln])

    def test_failed_call_left_out(self):
        doc = run_doc(7)
        doc["calls"][0]["rc"] = 2
        doc["calls"][0]["stdout"] = []
        res = progtime.summarize(doc)
        row = [r for r in res["rows"] if r["measure"] == "hot"][0]
        self.assertEqual(row["progs"]["xdp-minimal"]["ns"]["n"], 6)

    def test_markdown(self):
        doc = {"progtime": run_doc(7), "env": {"cpu_model": "cpu",
                                               "cpus": 2, "kernel": "6.18"},
               "started_at": "s", "finished_at": "f",
               "command": "scripts/bench --progtime", "rules": 300,
               "topology_info": {"xdpnet_attach": "attach xnbbr0 --mode "
                                 "xdp"}}
        md = progtime.markdown(doc)
        for h in ("## Hot (one call, 100000 runs)",
                  "## Cold (one fresh frame per call)", "X2:",
                  "xdpnet-native", "**met**"):
            self.assertIn(h, md)
        doc["emulated"] = True
        md = progtime.markdown(doc)
        self.assertIn("**Emulated host.**", md)
        self.assertNotIn("**met**", md)


if __name__ == "__main__":
    unittest.main()
