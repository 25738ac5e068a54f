# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Aggregation (median, min-max, invalid cells left out), ratios to the
bridge, the realistic bridge and the direct pair, targets, CSV columns."""
import csv
import io
import unittest

import benchpath  # noqa: F401
from bench_lib import matrix, report

VETH_OFF = matrix.Setting("veth", "off", 1500)
TAP_OFF = matrix.Setting("tap", "off", 1500)
PLAN = [VETH_OFF, TAP_OFF]


def rec(n, setting, test, path, rep, metrics, validity="valid",
        direction="vm-vm", variant="tx", share=None):
    r = {"cell": n, "setting": setting._asdict(), "test": test,
         "variant": variant, "direction": direction, "path": path,
         "rep": rep, "metrics": metrics, "validity": validity,
         "validity_reason": "" if validity == "valid" else "why"}
    if share is not None:
        r["fastpath"] = {"share": share, "xdp_share": 0.0}
    return r


def stream_records():
    """3 repeats of tcp_stream tx on VETH_OFF; xdpnet-tc's repeat 2 is
    invalid (and huge, so it would show if averaged in)."""
    out = []
    n = 0
    vals = {"direct": [6.0, 6.4, 6.2], "bridge": [4.0, 4.4, 4.2],
            "bridge-nf": [2.0, 2.2, 1.8], "xdpnet-tc": [6.0, 99.0, 5.8],
            "xdpnet-xdp": [5.0, 5.2, 5.1]}
    for rep in (1, 2, 3):
        for path in matrix.DEFAULT_PATHS:
            v = vals[path][rep - 1]
            validity = "invalid" if (path == "xdpnet-tc" and rep == 2) \
                else "valid"
            share = None
            if matrix.is_xdpnet(path):
                share = 0.5 if validity == "invalid" else 1.0
            out.append(rec(n, VETH_OFF, "tcp_stream", path, rep,
                           {"gbps": v}, validity, share=share))
            n += 1
    return out


class Aggregate(unittest.TestCase):
    def setUp(self):
        self.groups = report.aggregate(stream_records())

    def key(self, path, setting=VETH_OFF, test="tcp_stream", variant="tx"):
        return report.GroupKey(setting.standin, setting.offloads,
                               setting.mtu, test, variant, "vm-vm", path)

    def test_median_min_max(self):
        g = self.groups[self.key("bridge")]
        self.assertEqual(g["metrics"]["gbps"]["median"], 4.2)
        self.assertEqual(g["metrics"]["gbps"]["min"], 4.0)
        self.assertEqual(g["metrics"]["gbps"]["max"], 4.4)
        self.assertEqual(g["valid"], 3)

    def test_invalid_cell_left_out(self):
        g = self.groups[self.key("xdpnet-tc")]
        self.assertEqual(g["invalid"], 1)
        self.assertEqual(g["valid"], 2)
        self.assertEqual(g["metrics"]["gbps"]["median"], 5.9)
        self.assertEqual(g["metrics"]["gbps"]["max"], 6.0)
        self.assertEqual(g["reasons"], ["why"])

    def test_ratios(self):
        rs = report.ratios(self.groups, self.key("xdpnet-tc"), "gbps", PLAN)
        self.assertAlmostEqual(rs["bridge"]["ratio"], 5.9 / 4.2)
        self.assertAlmostEqual(rs["bridge-nf"]["ratio"], 5.9 / 2.0)
        self.assertAlmostEqual(rs["direct"]["ratio"], 5.9 / 6.2)
        # Paired per repeat: 6.0/4.0 (rep 1) and 5.8/4.2 (rep 3).
        self.assertAlmostEqual(rs["bridge"]["min"], 5.8 / 4.2)
        self.assertAlmostEqual(rs["bridge"]["max"], 6.0 / 4.0)

    def test_direct_twin_for_taps(self):
        recs = stream_records() + [
            rec(100, TAP_OFF, "tcp_stream", "bridge", 1, {"gbps": 1.0}),
            rec(101, TAP_OFF, "tcp_stream", "xdpnet-xdp", 1, {"gbps": 1.5},
                share=1.0)]
        groups = report.aggregate(recs)
        k = self.key("xdpnet-xdp", setting=TAP_OFF)
        self.assertEqual(report.reference_key(k, "direct", PLAN),
                         self.key("direct"))
        rs = report.ratios(groups, k, "gbps", PLAN)
        self.assertAlmostEqual(rs["bridge"]["ratio"], 1.5)
        self.assertAlmostEqual(rs["direct"]["ratio"], 1.5 / 6.2)
        self.assertNotIn("bridge-nf", rs)

    def test_host_direction_uses_vm_vm_direct(self):
        k = report.GroupKey("veth", "on", 1500, "tcp_stream", "tx",
                            "host-vm", "xdpnet-tc")
        self.assertEqual(report.reference_key(k, "direct", PLAN).direction,
                         "vm-vm")

    def test_all_invalid_group(self):
        recs = [rec(0, VETH_OFF, "tcp_rr", "xdpnet-tc", 1, {"p50_us": 9.0},
                    "invalid", variant="64")]
        g = report.aggregate(recs)[self.key("xdpnet-tc", test="tcp_rr",
                                            variant="64")]
        self.assertEqual(g["metrics"], {})
        self.assertEqual(g["invalid"], 1)


class Targets(unittest.TestCase):
    def test_stream_off_targets(self):
        groups = report.aggregate(stream_records())
        rows = report.evaluate_targets(groups, PLAN)
        t1 = {r["key"].path: r for r in rows if r["target"] == "T1"}
        # xdpnet-tc 5.9 / direct 6.2 = 0.95: met; xdp 5.1/6.2: missed.
        self.assertEqual(t1["xdpnet-tc"]["status"], "met")
        self.assertEqual(t1["xdpnet-xdp"]["status"], "MISSED")
        t2 = {r["key"].path: r for r in rows if r["target"] == "T2"}
        self.assertEqual(t2["xdpnet-tc"]["status"], "MISSED")  # 2.95x
        self.assertAlmostEqual(t2["xdpnet-tc"]["ratio"], 5.9 / 2.0)
        summ = report.targets_summary(rows)
        self.assertEqual(summ["T1"]["met"], 1)
        self.assertEqual(summ["T1"]["missed"], 1)

    def test_latency_targets_lower_is_better(self):
        recs = []
        n = 0
        for path, p50, p99 in (("bridge", 30.0, 60.0),
                               ("bridge-nf", 50.0, 90.0),
                               ("xdpnet-tc", 27.0, 61.0)):
            recs.append(rec(n, VETH_OFF, "tcp_rr", path, 1,
                            {"p50_us": p50, "p99_us": p99}, variant="64",
                            share=1.0 if path == "xdpnet-tc" else None))
            n += 1
        rows = report.evaluate_targets(report.aggregate(recs), PLAN)
        st = {r["target"]: r["status"] for r in rows}
        self.assertEqual(st["T3a"], "met")      # 0.90 <= 0.95
        self.assertEqual(st["T3b"], "met")      # 0.54 <= 0.8
        self.assertEqual(st["T3c"], "MISSED")   # p99 61 > 60

    def test_unmeasurable(self):
        recs = [rec(0, VETH_OFF, "tcp_stream", "xdpnet-tc", 1,
                    {"gbps": 1.0}, share=1.0)]
        rows = report.evaluate_targets(report.aggregate(recs), PLAN)
        self.assertTrue(rows)
        self.assertTrue(all(r["status"] == "n/a" for r in rows))


class Files(unittest.TestCase):
    def test_cells_csv(self):
        text = report.cells_csv(stream_records())
        rows = list(csv.DictReader(io.StringIO(text)))
        self.assertEqual(len(rows), 15)
        self.assertEqual(list(rows[0].keys()), report.CELL_FIELDS)
        inv = [r for r in rows if r["validity"] == "invalid"]
        self.assertEqual(len(inv), 1)
        self.assertEqual(inv[0]["fastpath_share"], "0.50000")
        self.assertEqual(float(rows[0]["gbps"]), 6.0)

    def test_summary_csv(self):
        groups = report.aggregate(stream_records())
        rows = list(csv.DictReader(io.StringIO(
            report.summary_csv(groups, PLAN))))
        self.assertEqual(list(rows[0].keys()), report.SUMMARY_FIELDS)
        tc = [r for r in rows if r["path"] == "xdpnet-tc"][0]
        self.assertEqual(tc["n_invalid"], "1")
        self.assertAlmostEqual(float(tc["vs_bridge"]), 5.9 / 4.2, places=4)
        self.assertAlmostEqual(float(tc["vs_direct"]), 5.9 / 6.2, places=4)

    def test_markdown_tables(self):
        groups = report.aggregate(stream_records())
        t = report.table(groups, matrix.DEFAULT_PATHS, PLAN)
        lines = t.splitlines()
        self.assertTrue(lines[0].startswith("| setting: test"))
        ncol = lines[0].count("|")
        self.assertTrue(all(ln.count("|") == ncol for ln in lines))
        self.assertIn("1.40x", t)  # xdpnet-tc / bridge
        self.assertIn("(1 invalid, 0 failed)", t)
        summary = report.terminal_summary(groups, matrix.DEFAULT_PATHS, PLAN)
        self.assertIn("1.40", summary)


if __name__ == "__main__":
    unittest.main()
