# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Fast-path share and invalid-cell detection from xdpnet's counters
(status --json recorded before and after 200 pings v1 <-> v2 and 20
pings v1 -> host, TC mode)."""
import json
import unittest

from benchpath import sample
from bench_lib import parse


def counters(name):
    return parse.parse_status(sample(name), "xnbbr0")


class Status(unittest.TestCase):
    def test_parse(self):
        st = counters("status_after.json")
        self.assertEqual(st["mode"], "tc")
        self.assertIn("xnbv1", st["ports"])
        self.assertEqual(st["ports"]["xnbv1"]["pass_local"], 20)
        self.assertIn("xdp_defer_csum", st["ports"]["xnbv1"])

    def test_bridge_selection(self):
        with self.assertRaises(parse.ParseError):
            parse.parse_status(sample("status_after.json"), "other0")
        with self.assertRaises(parse.ParseError):
            parse.parse_status('{"bridges": []}')
        with self.assertRaises(parse.ParseError):
            parse.parse_status("xdpnet: not attached")

    def test_bypassed(self):
        def doc(flags):
            return json.dumps({"bridges": [{"bridge": "xnbbr0", "ports": [
                {"name": n, "bypassed": b} for n, b in flags.items()]}]})
        up = doc({"xnbgt": True, "xnbk": True})
        self.assertTrue(parse.bypassed(up, "xnbbr0", ["xnbgt"]))
        self.assertTrue(parse.bypassed(up, "xnbbr0", ["xnbgt", "xnbk"]))
        self.assertFalse(parse.bypassed(up, "xnbbr0", ["xnbgt", "nope"]))
        self.assertFalse(parse.bypassed(up, "other0", ["xnbgt"]))
        self.assertFalse(parse.bypassed("not json", "xnbbr0", ["xnbgt"]))
        held = doc({"xnbgt": False, "xnbk": True})
        self.assertFalse(parse.bypassed(held, "xnbbr0", ["xnbgt"]))

class FastPath(unittest.TestCase):
    def setUp(self):
        self.delta = parse.counters_delta(
            counters("status_before.json")["ports"],
            counters("status_after.json")["ports"])

    def test_delta(self):
        self.assertEqual(self.delta["xnbv1"]["tc_redirect"], 199)
        self.assertEqual(self.delta["xnbv2"]["tc_redirect"], 199)
        self.assertEqual(self.delta["xnbv1"]["pass_local"], 20)
        self.assertEqual(self.delta["xnbk"]["tc_redirect"], 0)

    def test_share_counts_final_verdicts_only(self):
        fp = parse.fastpath(self.delta, ["xnbv1", "xnbv2"])
        # 398 redirected; 20 to the host and 2 keep-alives to the bridge.
        self.assertEqual((fp["tc"], fp["xdp"], fp["passed"]), (398, 0, 22))
        self.assertEqual(fp["total"], 420)
        self.assertAlmostEqual(fp["share"], 398 / 420)
        self.assertEqual(fp["xdp_share"], 0.0)

    def test_invalid_under_99(self):
        fp = parse.fastpath(self.delta, ["xnbv1", "xnbv2"])
        status, reason = parse.validity(fp, expect_bypass=True)
        self.assertEqual(status, "invalid")
        self.assertIn("94.76%", reason)

    def test_valid_over_99(self):
        fp = parse.fastpath(self.delta, ["xnbv2"])  # only the replies
        self.assertAlmostEqual(fp["share"], 199 / 200)
        self.assertEqual(parse.validity(fp, True)[0], "valid")

    def test_threshold_is_a_parameter(self):
        fp = parse.fastpath(self.delta, ["xnbv1", "xnbv2"])
        self.assertEqual(parse.validity(fp, True, threshold=0.9)[0], "valid")

    def test_no_traffic_is_invalid(self):
        fp = parse.fastpath(self.delta, ["xnbt1", "xnbt2"])
        self.assertIsNone(fp["share"])
        self.assertEqual(parse.validity(fp, True)[0], "invalid")
        self.assertEqual(parse.validity(None, True)[0], "invalid")

    def test_host_traffic_is_not_a_bypass_figure(self):
        fp = parse.fastpath(self.delta, ["xnbv1"])
        self.assertEqual(parse.validity(fp, expect_bypass=False)[0], "host")

    def test_deferred_frames_are_not_double_counted(self):
        # XDP stage hands 10 frames to TC (xdp_defer_csum), which
        # redirects them: 10 frames, all bypassed.
        delta = {"p1": {"xdp_defer_csum": 10, "tc_redirect": 10,
                        "xdp_redirect": 90, "rx_redirected": 7,
                        "drop_xmit_err": 3}}
        fp = parse.fastpath(delta, ["p1"])
        self.assertEqual(fp["total"], 100)
        self.assertEqual(fp["share"], 1.0)
        self.assertAlmostEqual(fp["xdp_share"], 0.9)
        self.assertEqual(fp["deferred"], 10)
        self.assertEqual(fp["drops"], 3)

    def test_new_counters_count(self):
        # A pass_* reason this harness does not know is still a pass.
        delta = {"p1": {"tc_redirect": 99, "pass_future_reason": 1}}
        self.assertAlmostEqual(parse.fastpath(delta, ["p1"])["share"], 0.99)


class StageShares(unittest.TestCase):
    def test_recorded_counters(self):
        delta = parse.counters_delta(
            counters("status_before.json")["ports"],
            counters("status_after.json")["ports"])
        sh = parse.stage_shares(delta, ["xnbv1", "xnbv2"])
        self.assertEqual(sh["total"], 420)
        self.assertEqual(sh["xdp_redirect"], 0.0)
        self.assertAlmostEqual(sh["tc_redirect"], 398 / 420)
        # Only the reasons that occurred, in include/xdpnet.h's order.
        self.assertEqual(list(sh["bridge"]), ["pass_local", "pass_refresh"])
        self.assertAlmostEqual(sh["bridge"]["pass_local"], 20 / 420)
        self.assertAlmostEqual(sh["bridge"]["pass_refresh"], 2 / 420)
        self.assertEqual(sh["xdp_defer"], {})
        self.assertIsNone(parse.stage_shares(delta, ["xnbt1", "xnbt2"]))

    def test_every_pass_reason_and_the_hand_overs(self):
        delta = {"p1": {"xdp_redirect": 60, "xdp_defer_csum": 25,
                        "xdp_defer_size": 5, "tc_redirect": 28,
                        "pass_nf": 1, "pass_future_reason": 1,
                        "pass_mcast": 10, "rx_redirected": 50,
                        "drop_xmit_err": 4},
                 "p2": {"pass_mcast": 0}}
        sh = parse.stage_shares(delta, ["p1", "p2"])
        self.assertEqual(sh["total"], 100)
        self.assertAlmostEqual(sh["xdp_redirect"], 0.6)
        self.assertAlmostEqual(sh["tc_redirect"], 0.28)
        self.assertEqual(list(sh["bridge"]), ["pass_mcast", "pass_nf",
                                              "pass_future_reason"])
        self.assertAlmostEqual(sum(sh["bridge"].values()), 0.12)
        self.assertAlmostEqual(sh["xdp_redirect"] + sh["tc_redirect"] +
                               sum(sh["bridge"].values()), 1.0)
        # Handed to TC, then counted by TC's verdict: besides the total.
        self.assertEqual(sh["xdp_defer"], {"xdp_defer_csum": 0.25,
                                           "xdp_defer_size": 0.05})


if __name__ == "__main__":
    unittest.main()
