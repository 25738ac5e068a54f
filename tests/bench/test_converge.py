# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench_converge's pure parts: convergence of a flow, the
summary, frame and netlink parsing."""
import struct
import unittest

import benchpath  # noqa: F401
from converge_lib import measure, nlmon, probe, report

MS = 1000000


def frames(spec, t0=0):
    """'bbBB..': one frame per ms from t0 (b bypassed, B bridged)."""
    return [(i, t0 + i * MS, t0 + i * MS + 50000, c == "B")
            for i, c in enumerate(spec) if c != "."]


class Converge(unittest.TestCase):
    def test_bypass(self):
        fs = frames("BBBBB" + "b" * 40)
        r = measure.converge(fs, 0, "bypass", 60 * MS, stable=30)
        self.assertTrue(r["converged"])
        self.assertEqual(r["wrong"], 5)
        self.assertEqual(r["latency_ns"], 5 * MS + 50000)

    def test_bypass_keepalive_after_run_is_late_not_wrong(self):
        fs = frames("BB" + "b" * 35 + "B" + "b" * 5)
        r = measure.converge(fs, 0, "bypass", 60 * MS, stable=30)
        self.assertEqual(r["wrong"], 2)
        self.assertEqual(r["late"], 1)

    def test_bypass_never(self):
        r = measure.converge(frames("B" * 50), 0, "bypass", 60 * MS)
        self.assertFalse(r["converged"])
        self.assertIsNone(r["latency_ns"])
        self.assertIsNone(measure.step_latency({"AB": r}))

    def test_bridge(self):
        fs = frames("bbbb" + "B" * 40)
        r = measure.converge(fs, 0, "bridge", 60 * MS, stable=30)
        self.assertEqual(r["latency_ns"], 3 * MS + 50000)  # last bypassed
        r = measure.converge(frames("B" * 40), 0, "bridge", 60 * MS)
        self.assertEqual(r["latency_ns"], 0)

    def test_none(self):
        fs = frames("bbbbbbb")
        r = measure.converge(fs, 0, "none", 100 * MS, quiet_ns=50 * MS)
        self.assertTrue(r["converged"])
        self.assertEqual(r["latency_ns"], 6 * MS + 50000)
        # Not quiet long enough yet: undecided.
        r = measure.converge(fs, 0, "none", 30 * MS, quiet_ns=50 * MS)
        self.assertFalse(r["converged"])
        r = measure.converge([], 0, "none", 200 * MS, quiet_ns=150 * MS)
        self.assertEqual(r["latency_ns"], 0)

    def test_frames_sent_before_the_event_do_not_count(self):
        fs = frames("bbbbbbbbbb")  # sent 0..9 ms
        r = measure.converge(fs, 20 * MS, "none", 200 * MS)
        self.assertEqual(r["n"], 0)
        self.assertEqual(r["latency_ns"], 0)

    def test_step_latency_is_the_slowest_flow(self):
        a = {"latency_ns": 3, "converged": True}
        b = {"latency_ns": 9, "converged": True}
        self.assertEqual(measure.step_latency({"x": a, "y": b}), 9)


class Summary(unittest.TestCase):
    def rec(self, kind, lat, build="live"):
        return {"build": build, "kind": kind, "latency_ms": lat,
                "flows": {"AB": {"latency_ns": None if lat is None
                                 else lat * MS}},
                "follower_log": [("2.0", "x"), ("-1.0", "y")]}

    def test_percentiles_and_target(self):
        recs = [self.rec("k", float(i)) for i in range(1, 101)]
        s = report.summarize(recs)["live"]["k"]
        self.assertEqual(s["events"], 100)
        self.assertEqual(s["p50_ms"], 50.0)
        self.assertEqual(s["p99_ms"], 99.0)
        self.assertTrue(s["meets_target"])
        self.assertEqual(s["follower_first_log_p50_ms"], 2.0)

    def test_unconverged_counts_as_infinite(self):
        recs = [self.rec("k", 1.0)] * 60 + [self.rec("k", None)]
        s = report.summarize(recs)["live"]["k"]
        self.assertEqual(s["converged"], 60)
        self.assertFalse(s["meets_target"])
        md = report.markdown({"live": {"k": s}}, ["k"], {"window_ms": 2000})
        self.assertIn("> 2000", md)
        self.assertIn("1 unconverged", md)
        self.assertIsNone(report.jsonable(s)["max_ms"])


class Parse(unittest.TestCase):
    def test_frame(self):
        ip = bytearray(20)
        ip[0] = 0x45
        ip[1] = 8 << 2  # DSCP CS1
        ip[9] = 17
        udp = struct.pack("!HHHH", 1234, probe.PORT, 8 + 22, 0)
        pl = probe.HDR.pack(probe.MAGIC, 3, 77, 123456789)
        self.assertEqual(probe.parse_ip(bytes(ip) + udp + pl),
                         (3, 77, 123456789, True))
        ip[1] = 0
        self.assertFalse(probe.parse_ip(bytes(ip) + udp + pl)[3])
        other = struct.pack("!HHHH", 1234, 53, 30, 0)
        self.assertIsNone(probe.parse_ip(bytes(ip) + other + pl))

    def test_netlink_link(self):
        name = b"xncc\0"
        attrs = struct.pack("=HH", 4 + len(name), 3) + name + b"\0" * 3
        attrs += struct.pack("=HHI", 8, 10, 7)
        body = struct.pack("=BxHiII", 0, 1, 12, 0, 0) + attrs
        msg = struct.pack("=IHHII", 16 + len(body), 16, 0, 0, 0) + body
        ev = nlmon.parse(msg, 5)[0]
        self.assertEqual((ev["type"], ev["ifindex"], ev["master"],
                          ev["name"], ev["t"]), ("newlink", 12, 7, "xncc", 5))

    def test_netlink_neigh(self):
        mac = bytes([2, 0x97, 0, 0, 0, 3])
        attrs = struct.pack("=HH", 10, 2) + mac + b"\0\0"
        body = struct.pack("=BxxxiHBB", 7, 9, 0x80, 2, 1) + attrs
        msg = struct.pack("=IHHII", 16 + len(body), 29, 0, 0, 0) + body
        ev = nlmon.parse(msg, 1)[0]
        self.assertEqual((ev["type"], ev["ifindex"], ev["mac"]),
                         ("delneigh", 9, "02:97:00:00:00:03"))


if __name__ == "__main__":
    unittest.main()
