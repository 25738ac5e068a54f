# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The fuzzer's own parts that need no root: python3 -m unittest
discover -s tests/fuzz (make check-unit)."""
import json
import unittest

import frames
import gen
import shrink
from nsnet import complete


class TestGen(unittest.TestCase):
    def test_a_seed_gives_one_scenario(self):
        for s in (1, 77, 4242):
            self.assertEqual(json.dumps(gen.scenario(s)), json.dumps(gen.scenario(s)))
        self.assertNotEqual(json.dumps(gen.scenario(1)), json.dumps(gen.scenario(2)))

    def test_ports_and_steps_within_bounds(self):
        for s in range(1, 200):
            scn = gen.scenario(s, vlan=s % 2 == 0)
            n = len(scn["ports"])
            self.assertTrue(2 <= n <= 8)
            self.assertTrue(1 <= scn["attach_at"] < len(scn["steps"]))
            for st in scn["steps"]:
                for f in st.get("frames", []):
                    self.assertTrue(1 <= f["port"] <= n)
                if "do" in st:
                    self.assertIn(st["kind"], gen.BOUNDS)
                    self.assertEqual(st["bound"], gen.BOUNDS[st["kind"]])

    def test_cut_steps_keeps_the_attach_point(self):
        scn = gen.scenario(5)
        k = scn["attach_at"]
        t = shrink.cut_steps(scn, set(range(len(scn["steps"]))) - {0})
        self.assertEqual(t["attach_at"], k - 1)
        self.assertEqual(t["steps"], scn["steps"][1:])


class TestFrames(unittest.TestCase):
    def d(self, cls, **kw):
        d = {"cls": cls, "port": 1, "src": "02:77:00:00:00:01", "dst": "02:77:00:00:00:02",
             "fid": 1234, "pay": 77, "sip": "10.77.0.1", "dip": "10.77.0.2", "tip": "10.77.0.2",
             "tip6": "fd0000000000000000000000000002aa", "mss": 1000}
        d.update(kw)
        return d

    def test_every_class_carries_its_marker(self):
        for cls in ("udp", "tcp", "icmp", "udp6", "tcp6", "gso", "arp_req", "arp_reply", "ns",
                    "na", "raw"):
            for tags in ([], [(0x8100, 7)], [(0x88a8, 10), (0x8100, 20)]):
                f, _ = frames.build(self.d(cls, tags=tags))
                self.assertEqual(frames.marker_of(f), 1234, cls)
                self.assertGreaterEqual(len(f), 60)

    def test_a_partial_checksum_completed_is_the_whole_one(self):
        for cls in ("udp", "tcp", "udp6", "tcp6"):
            for tags in ([], [(0x8100, 7)]):
                whole, hdr0 = frames.build(self.d(cls, tags=tags))
                part, hdr = frames.build(self.d(cls, tags=tags, partial=True))
                self.assertEqual(hdr0, bytes(10))
                self.assertNotEqual(part, whole, cls)
                self.assertEqual(complete(hdr, part), whole, cls)
                self.assertEqual(complete(hdr0, whole), whole)


if __name__ == "__main__":
    unittest.main()
