# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Parsers, on outputs recorded from iperf3 3.12, sockperf 3.7 and the
xnb_* tools (tests/bench/samples/)."""
import json
import unittest

from benchpath import sample
from bench_lib import parse


class Iperf3Tcp(unittest.TestCase):
    def test_tx(self):
        m = parse.parse_iperf3_tcp(sample("tcp_tx.json"))
        doc = json.loads(sample("tcp_tx.json"))
        self.assertAlmostEqual(
            m["gbps"], doc["end"]["sum_received"]["bits_per_second"] / 1e9)
        self.assertAlmostEqual(
            m["sent_gbps"], doc["end"]["sum_sent"]["bits_per_second"] / 1e9)
        self.assertEqual(m["retransmits"],
                         doc["end"]["sum_sent"]["retransmits"])
        self.assertFalse(m["reverse"])
        self.assertEqual(m["streams"], 1)
        self.assertNotIn("rev_gbps", m)

    def test_reverse(self):
        m = parse.parse_iperf3_tcp(sample("tcp_rx.json"))
        self.assertTrue(m["reverse"])
        self.assertAlmostEqual(m["gbps"], 15.000607227248226)

    def test_bidir_sums_both_directions(self):
        m = parse.parse_iperf3_tcp(sample("tcp_bidir.json"))
        self.assertAlmostEqual(m["fwd_gbps"], 6.368275101690002, places=6)
        self.assertAlmostEqual(m["rev_gbps"], 14.111792442458948, places=6)
        self.assertAlmostEqual(m["gbps"], m["fwd_gbps"] + m["rev_gbps"])
        doc = json.loads(sample("tcp_bidir.json"))["end"]
        self.assertEqual(m["retransmits"],
                         doc["sum_sent"]["retransmits"] +
                         doc["sum_sent_bidir_reverse"]["retransmits"])

    def test_parallel(self):
        m = parse.parse_iperf3_tcp(sample("tcp_p4.json"))
        self.assertEqual(m["streams"], 4)
        self.assertAlmostEqual(m["gbps"], 23.156466786484615)

    def test_error_document(self):
        with self.assertRaisesRegex(parse.ParseError, "Connection refused"):
            parse.parse_iperf3_tcp(sample("iperf3_refused.json"))

    def test_not_json(self):
        for bad in ("", "iperf3: error - unable to connect", "[]", None):
            with self.assertRaises(parse.ParseError):
                parse.parse_iperf3_tcp(bad)

    def test_udp_is_not_tcp(self):
        with self.assertRaises(parse.ParseError):
            parse.parse_iperf3_tcp(sample("udp_64.json"))


class Iperf3Udp(unittest.TestCase):
    def test_64(self):
        m = parse.parse_iperf3_udp(sample("udp_64.json"))
        # 18-byte datagrams: 64 B frames on the wire.
        self.assertEqual(m["payload"], 18)
        self.assertEqual(m["sent"], 158420)
        self.assertEqual(m["lost"], 2001)
        # received = receiver's bytes / datagram size, not its "packets"
        # (the highest sequence number it saw).
        self.assertEqual(m["received"], 2815128 // 18)
        self.assertAlmostEqual(m["tx_kpps"], 158420 / 1.000997 / 1e3)
        self.assertAlmostEqual(m["rx_kpps"], (2815128 // 18) / 1.002832
                               / 1e3)
        self.assertAlmostEqual(m["loss_pct"], 1.2630980936750411)

    def test_512(self):
        m = parse.parse_iperf3_udp(sample("udp_512.json"))
        self.assertEqual(m["payload"], 470)
        self.assertGreater(m["loss_pct"], 10)
        self.assertLess(m["rx_kpps"], m["tx_kpps"])

    def test_tcp_is_not_udp(self):
        with self.assertRaises(parse.ParseError):
            parse.parse_iperf3_udp(sample("tcp_tx.json"))


class Sockperf(unittest.TestCase):
    def test_udp_full_rtt(self):
        m = parse.parse_sockperf(sample("sockperf_udp.txt"))
        self.assertTrue(m["rtt_reported"])
        self.assertEqual(m["p50_us"], 26.299)
        self.assertEqual(m["p90_us"], 32.060)
        self.assertEqual(m["p99_us"], 59.962)
        self.assertEqual(m["mean_us"], 27.354)
        self.assertEqual(m["min_us"], 15.017)
        self.assertEqual(m["max_us"], 4149.074)
        self.assertEqual(m["observations"], 56474)
        self.assertAlmostEqual(m["valid_s"], 1.549)
        self.assertGreater(m["tps"], 30000)
        self.assertEqual(m["dropped"], 0)

    def test_tcp_with_colour_codes(self):
        text = sample("sockperf_tcp.txt")
        self.assertIn("\x1b[", text)
        m = parse.parse_sockperf(text)
        self.assertEqual(m["p50_us"], 25.547)
        self.assertEqual(m["p99_us"], 60.453)
        self.assertEqual(m["mean_us"], 27.514)
        self.assertEqual(m["observations"], 56198)

    def test_one_way_latency_is_doubled(self):
        # Without --full-rtt sockperf prints half the round trip.
        text = sample("sockperf_tcp.txt").replace(
            "avg-rtt", "avg-latency").replace("Round trip is",
                                             "Latency is")
        m = parse.parse_sockperf(text)
        self.assertFalse(m["rtt_reported"])
        self.assertAlmostEqual(m["p50_us"], 2 * 25.547)
        self.assertAlmostEqual(m["mean_us"], 2 * 27.514)

    def test_failed_run(self):
        for bad in ("", "sockperf: ERROR: connect() failed",
                    sample("sockperf_udp.txt").split("Total")[0]):
            with self.assertRaises(parse.ParseError):
                parse.parse_sockperf(bad)


class Tools(unittest.TestCase):
    def test_crr(self):
        m = parse.parse_crr(sample("crr.json"))
        self.assertEqual(m["transactions"], 24844)
        self.assertAlmostEqual(m["tps"], 12422.0)
        self.assertEqual(m["p50_us"], 62.87)
        self.assertEqual(m["p99_us"], 143.20)
        self.assertEqual(m["mode"], "crr")

    def test_crr_nothing_done(self):
        line = json.dumps({"tool": "xnb_crr", "transactions": 0, "tps": 0,
                           "latency_us": {}})
        with self.assertRaises(parse.ParseError):
            parse.parse_crr(line)
        with self.assertRaises(parse.ParseError):
            parse.parse_crr(sample("pktgen.json"))  # another tool's line

    def test_pktgen(self):
        m = parse.parse_pktgen("noise\n" + sample("pktgen.json"))
        self.assertEqual(m["frames"], 3691979)
        self.assertAlmostEqual(m["pps"], 1218846.4)
        self.assertNotIn("generator", m)  # an older xnb_pktgen's line
        m = parse.parse_pktgen('{"tool":"xnb_pktgen","frames":5,'
                               '"elapsed_s":1,"pps":5,'
                               '"generator":"af_packet"}\n')
        self.assertEqual(m["generator"], "af_packet")

    def test_tapsink(self):
        m = parse.parse_tapsink('READY\n{"tool":"xnb_tapsink","tap":"x",'
                                '"frames":5,"bytes":300,"errors":0}\n')
        self.assertEqual((m["frames"], m["bytes"]), (5, 300))

    def test_proc(self):
        self.assertEqual(parse.parse_schedstat("123456 789 10\n"), 123456)
        with self.assertRaises(parse.ParseError):
            parse.parse_schedstat("")
        s = parse.parse_proc_stat_cpu(
            "cpu  100 5 50 1000 10 3 7 20 0 0\ncpu0 1 2 3 4\n")
        self.assertEqual(s["busy"], 100 + 5 + 50 + 3 + 7)
        self.assertEqual(s["steal"], 20)
        self.assertEqual(s["total"], s["busy"] + 1000 + 10 + 20)

    def test_iptables_policy_counter(self):
        self.assertEqual(parse.parse_iptables_policy(
            sample("iptables_forward.txt")), 102)
        with self.assertRaises(parse.ParseError):
            parse.parse_iptables_policy("Chain INPUT (policy ACCEPT)")


class Progs(unittest.TestCase):
    def test_parse(self):
        ps = parse.parse_progs(sample("progs_before.json"))
        self.assertEqual(len(ps), 2)
        self.assertEqual(ps[0], {"id": 158, "name": "xnb_min_tc",
                                 "dev": "xnbv1", "hook": "tcx",
                                 "run_time_ns": 33630, "run_cnt": 15})
        self.assertEqual(parse.parse_progs(
            '{"tool":"xnb_minimal","progs":[]}'), [])
        for bad in ("", '{"tool":"xnb_crr"}', '{"tool":"xnb_minimal"}',
                    '{"tool":"xnb_minimal","progs":[{"id":1}]}'):
            with self.assertRaises(parse.ParseError):
                parse.parse_progs(bad)

    def test_tc_filters(self):
        self.assertEqual(parse.parse_tc_filters(
            sample("tc_filter_clsact.json")), [323])
        self.assertEqual(parse.parse_tc_filters(""), [])
        with self.assertRaises(parse.ParseError):
            parse.parse_tc_filters("Error: no such device")

    def test_cost_counts_a_shared_program_once(self):
        c = parse.prog_cost(parse.parse_progs(sample("progs_before.json")),
                            parse.parse_progs(sample("progs_after.json")))
        self.assertEqual(c["frames"], 1000000)
        self.assertAlmostEqual(c["prog_ns"], 150.0)
        self.assertAlmostEqual(c["tc_ns"], 150.0)
        self.assertIsNone(c["xdp_ns"])

    def test_cost_xdp_then_tc(self):
        # 1000 frames meet XDP (100 ns each); 200 of them go on to TC
        # (300 ns each): 160 ns per frame in all.
        before = [{"id": 1, "name": "x", "dev": "p", "hook": "xdp",
                   "run_time_ns": 0, "run_cnt": 0},
                  {"id": 2, "name": "t", "dev": "p", "hook": "tcx",
                   "run_time_ns": 0, "run_cnt": 0}]
        after = [dict(before[0], run_time_ns=100000, run_cnt=1000),
                 dict(before[1], run_time_ns=60000, run_cnt=200)]
        c = parse.prog_cost(before, after)
        self.assertEqual(c["frames"], 1000)
        self.assertAlmostEqual(c["prog_ns"], 160.0)
        self.assertAlmostEqual(c["xdp_ns"], 100.0)
        self.assertAlmostEqual(c["tc_ns"], 300.0)

    def test_cost_without_statistics(self):
        ps = parse.parse_progs(sample("progs_before.json"))
        c = parse.prog_cost(ps, ps)
        self.assertIsNone(c["prog_ns"])
        self.assertEqual(c["frames"], 0)
        # A program that appeared between the two reads counts from 0.
        c = parse.prog_cost([], ps)
        self.assertAlmostEqual(c["prog_ns"], 33630 / 15)


if __name__ == "__main__":
    unittest.main()
