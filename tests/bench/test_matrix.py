# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The run order (interleaved paths), which path runs what, estimates."""
import unittest

import benchpath  # noqa: F401
from bench_lib import cells, matrix

S_V = matrix.Setting("veth", "on", 1500)
S_T = matrix.Setting("tap", "on", 1500)


class Order(unittest.TestCase):
    def test_paths_interleave_per_repeat(self):
        items = [matrix.Item("tcp_stream", "tx", "vm-vm"),
                 matrix.Item("tcp_rr", 64, "vm-vm")]
        paths = ["bridge", "tc-minimal", "xdpnet-tc"]
        cl = matrix.build_cells([(S_V, items)], paths, 3)
        order = [c.path for c in cl]
        self.assertEqual(order, ["bridge", "bridge", "tc-minimal",
                                 "tc-minimal", "xdpnet-tc",
                                 "xdpnet-tc"] * 3)
        self.assertEqual([c.rep for c in cl[:6]], [1] * 6)
        self.assertEqual([c.index for c in cl], list(range(len(cl))))

    def test_direct_only_vm_vm_and_borrowed_by_taps(self):
        items = [matrix.Item("tcp_stream", "tx", "vm-vm"),
                 matrix.Item("tcp_stream", "tx", "host-vm")]
        cl = matrix.build_cells([(S_V, items), (S_T, items)],
                                ["direct", "bridge"], 1)
        direct = [c for c in cl if c.path == "direct"]
        self.assertEqual(len(direct), 1)
        self.assertEqual(direct[0].setting, S_V)
        self.assertEqual(direct[0].item.direction, "vm-vm")
        # A tap setting without a veth twin measures its own direct pair.
        cl = matrix.build_cells([(S_T, items)], ["direct", "bridge"], 1)
        self.assertEqual(len([c for c in cl if c.path == "direct"]), 1)

    def test_test_filter(self):
        cl = matrix.build_cells(matrix.PROFILES["smoke"]["plan"],
                                matrix.DEFAULT_PATHS, 1, {"fwd64"})
        self.assertEqual({c.item.test for c in cl}, {"fwd64"})
        self.assertEqual(len(cl), len(matrix.DEFAULT_PATHS))
        # From a tap port: no direct-pair equivalent.
        cl = matrix.build_cells(matrix.PROFILES["smoke"]["plan"],
                                matrix.DEFAULT_PATHS, 1, {"fwd64_tap"})
        self.assertEqual(len(cl), len(matrix.DEFAULT_PATHS) - 1)
        self.assertNotIn("direct", {c.path for c in cl})

    def test_profiles(self):
        for name, prof in matrix.PROFILES.items():
            cl = matrix.build_cells(prof["plan"], matrix.DEFAULT_PATHS,
                                    prof["repeats"])
            self.assertTrue(cl, name)
            for t in {c.item.test for c in cl}:
                self.assertIn(t, prof["durations"])
        # The target run: at least 7 repeats per cell (a 95% interval of
        # every paired ratio), and every kind of cell the targets need.
        for name in ("full", "targets"):
            self.assertGreaterEqual(matrix.PROFILES[name]["repeats"], 7)
        tg = matrix.PROFILES["targets"]
        cl = matrix.build_cells(tg["plan"], matrix.DEFAULT_PATHS,
                                tg["repeats"])
        kinds = {(c.setting.standin, c.setting.offloads, c.item.test,
                  c.item.direction) for c in cl}
        for k in (("veth", "off", "tcp_stream", "vm-vm"),
                  ("veth", "on", "tcp_stream", "vm-vm"),
                  ("veth", "on", "tcp_stream", "host-vm"),
                  ("veth", "on", "tcp_stream", "vm-host"),
                  ("veth", "on", "fwd64", "vm-vm"),
                  ("veth", "on", "fwd64_tap", "vm-vm"),
                  ("veth", "off", "tcp_rr", "vm-vm")):
            self.assertIn(k, kinds)
        # The tap cells with offloads on (partial checksums), as --full
        # has them but the bidirectional stream.
        tap_on = {(c.item.test, c.item.variant, c.item.direction)
                  for c in cl if c.setting == S_T}
        full_tap_on = {(i.test, i.variant, i.direction)
                       for i in matrix.FULL_TAP_ON if i.variant != "bidir"}
        self.assertEqual(tap_on, full_tap_on)
        self.assertIn(("tcp_stream", "tx", "host-vm"), tap_on)
        self.assertIn(("tcp_crr", 64, "vm-vm"), tap_on)
        self.assertIn("tc-minimal", {c.path for c in cl})
        limits = {"full": 90 * 60, "targets": 55 * 60, "quick": 7 * 60}
        for name, limit in limits.items():
            prof = matrix.PROFILES[name]
            est = matrix.estimate_seconds(
                matrix.build_cells(prof["plan"], matrix.DEFAULT_PATHS,
                                   prof["repeats"]), prof["durations"])
            self.assertLess(est, limit, name)
        smoke = matrix.PROFILES["smoke"]
        est = matrix.estimate_seconds(
            matrix.build_cells(smoke["plan"], smoke["paths"], 1),
            smoke["durations"])
        self.assertLess(est, 150)
        # Every path has one cell of every test in the smoke run;
        # xdp-minimal those whose frames enter a tap.
        cl = matrix.build_cells(smoke["plan"], smoke["paths"], 1)
        for p in smoke["paths"]:
            want = set(matrix.TESTS) - set(matrix.VHOST_TESTS) - (
                {"fwd64_tap"} if p == "direct" else set())
            if p == "xdp-minimal":
                want = {"tcp_stream", "fwd64_tap"}
            self.assertEqual({c.item.test for c in cl if c.path == p},
                             want, p)

    def test_vhost_profiles(self):
        """--topology vhost: every profile runs every vhost item on every
        vhost path, only there, but xdp-minimal, which takes every
        checksum as valid, where partial checksums reach XDP; the smoke
        run stays short."""
        partial = [i for i in matrix.VHOST_ITEMS
                   if matrix.partial_csums(matrix.VHOST_SETTING, i)]
        self.assertEqual({i.test for i in partial},
                         {"vhost_pps_partial", "vhost_tcp",
                          "vhost_rr_partial"})
        for name, prof in matrix.VHOST_PROFILES.items():
            cl = matrix.build_cells(prof["plan"], prof["paths"],
                                    prof["repeats"])
            self.assertEqual(len(cl), (len(matrix.VHOST_PATHS) *
                                       len(matrix.VHOST_ITEMS) -
                                       len(partial)) * prof["repeats"], name)
            self.assertEqual({c.item.test for c in cl},
                             set(matrix.VHOST_TESTS), name)
            self.assertEqual({c.path for c in cl}, set(matrix.VHOST_PATHS))
            self.assertFalse([c for c in cl if c.path == "xdp-minimal" and
                              c.item in partial])
        # Partial and full checksums, the TCP cells with and without TSO.
        names = {matrix.item_name(i) for i in matrix.VHOST_ITEMS}
        for n in ("vhost_pps 64 vm→vm", "vhost_pps_partial 64 vm→vm",
                  "vhost_pps_partial 1518 vm→vm", "vhost_rr_partial 64 vm→vm",
                  "vhost_tcp tso vm→vm", "vhost_tcp notso vm→vm"):
            self.assertIn(n, names)
        smoke = matrix.VHOST_PROFILES["smoke"]
        est = matrix.estimate_seconds(
            matrix.build_cells(smoke["plan"], smoke["paths"], 1),
            smoke["durations"])
        self.assertLess(est, 150)
        self.assertEqual(matrix.parse_setting("vhost/on/1500"),
                         matrix.VHOST_SETTING)
        self.assertTrue(matrix.is_minimal("xdp-minimal"))

    def test_breakdown(self):
        prof = matrix.PROFILES["breakdown"]
        self.assertEqual(prof["paths"], matrix.BREAKDOWN_PATHS)
        cl = matrix.build_cells(prof["plan"], prof["paths"],
                                prof["repeats"])
        # Only cells xdpnet-tc bypasses, and every such cell of the
        # target run.
        self.assertEqual({c.item.direction for c in cl}, {"vm-vm"})
        tg = matrix.PROFILES["targets"]
        want = {(s, i) for s, items in tg["plan"] for i in items
                if i.direction == "vm-vm"}
        self.assertEqual({(c.setting, c.item) for c in cl}, want)
        self.assertGreaterEqual(prof["repeats"], 7)
        self.assertNotIn("nocsum", matrix.TC_VARIANTS)
        for v in matrix.TC_VARIANTS:
            spec = matrix.VARIANTS[v]
            p = "xdpnet-tc-" + v
            self.assertIn(p, prof["paths"])
            self.assertEqual(matrix.variant_of(p), (v, spec))
            self.assertEqual(matrix.PATHS[p]["xdpnet"], "tc")
            self.assertEqual(matrix.PATHS[p]["nf"],
                             matrix.PATHS["xdpnet-tc"]["nf"])
            self.assertTrue(spec["extra"] or spec["env"], v)
        self.assertFalse(matrix.counts("xdpnet-tc-nostats"))
        self.assertFalse(matrix.counts("xdpnet-tc-bare"))
        self.assertTrue(matrix.counts("xdpnet-tc-portable"))
        self.assertTrue(matrix.counts("xdpnet-tc"))
        self.assertFalse(matrix.counts("tc-minimal"))
        self.assertEqual(matrix.variant_of("xdpnet-tc"), (None, None))

    def test_breakdown_xdp(self):
        """The XDP stage's breakdown: the tap cells (offloads on and off)
        and fwd64_tap; xdp-minimal, tc-minimal, both stages and a build of
        the XDP stage without each component; the builds that take every
        checksum as valid only where frames carry full ones."""
        prof = matrix.PROFILES["breakdown-xdp"]
        self.assertEqual(prof["paths"], matrix.BREAKDOWN_XDP_PATHS)
        self.assertGreaterEqual(prof["repeats"], 7)
        for p in ("xdp-minimal", "tc-minimal", "xdpnet-tc", "xdpnet-xdp"):
            self.assertIn(p, prof["paths"])
        self.assertEqual(matrix.XDP_VARIANTS,
                         ["nostats", "noclock", "portable", "noegress",
                          "nonf", "nocache", "nocsum"])
        for v in matrix.XDP_VARIANTS:
            p = "xdpnet-xdp-" + v
            self.assertIn(p, prof["paths"])
            self.assertEqual(matrix.PATHS[p]["xdpnet"], "xdp")
            self.assertEqual(matrix.variant_of(p), (v, matrix.VARIANTS[v]))
        self.assertEqual(matrix.VARIANTS["nocsum"]["extra"],
                         "-DXN_PERF_NOCSUM")
        cl = matrix.build_cells(prof["plan"], prof["paths"],
                                prof["repeats"])
        kinds = {(c.setting.standin, c.setting.offloads, c.item.test)
                 for c in cl}
        self.assertEqual(kinds, {("tap", "on", "tcp_stream"),
                                 ("tap", "on", "tcp_rr"),
                                 ("tap", "on", "udp_rr"),
                                 ("tap", "off", "tcp_stream"),
                                 ("tap", "off", "udp_rr"),
                                 ("veth", "on", "fwd64_tap")})
        for blind in ("xdp-minimal", "xdpnet-xdp-nocsum"):
            self.assertTrue(matrix.PATHS[blind]["csum_blind"])
            self.assertEqual({(c.setting.offloads, c.item.test) for c in cl
                              if c.path == blind},
                             {("off", "tcp_stream"), ("off", "udp_rr"),
                              ("on", "fwd64_tap")}, blind)
        for p in prof["paths"]:
            if not matrix.PATHS[p].get("csum_blind"):
                self.assertEqual(len([c for c in cl if c.path == p]),
                                 6 * prof["repeats"], p)
        est = matrix.estimate_seconds(cl, prof["durations"])
        self.assertLess(est, 40 * 60)

    def test_partial_checksums(self):
        on, off = matrix.Setting("tap", "on", 1500), \
            matrix.Setting("tap", "off", 1500)
        rr = matrix.Item("tcp_rr", 64, "vm-vm")
        self.assertTrue(matrix.partial_csums(on, rr))
        self.assertFalse(matrix.partial_csums(off, rr))
        self.assertFalse(matrix.partial_csums(S_V, rr))  # no XDP on veths
        self.assertTrue(matrix.partial_csums(matrix.Setting("vm", "on",
                                                            1500), rr))
        self.assertFalse(matrix.partial_csums(
            S_V, matrix.Item("fwd64_tap", 64, "vm-vm")))
        self.assertFalse(matrix.path_applies("xdp-minimal", on, rr, [on]))
        self.assertTrue(matrix.path_applies("xdp-minimal", off, rr, [off]))
        self.assertTrue(matrix.path_applies("xdpnet-xdp", on, rr, [on]))
        # On veth ports xdp-minimal is tc-minimal: not run there.
        self.assertFalse(matrix.path_applies("xdp-minimal", S_V, rr, [S_V]))

    def test_paths(self):
        self.assertIn("tc-minimal", matrix.DEFAULT_PATHS)
        for p in ("tc-minimal", "tc-minimal-peer"):
            self.assertTrue(matrix.is_minimal(p))
            self.assertTrue(matrix.is_bpf(p))
            self.assertFalse(matrix.is_xdpnet(p))
            # Same host as xdpnet's paths: the comparison is the program.
            self.assertEqual(matrix.PATHS[p]["nf"],
                             matrix.PATHS["xdpnet-tc"]["nf"])
        self.assertFalse(matrix.is_bpf("bridge-nf"))
        self.assertEqual(set(matrix.REFS) - set(matrix.PATHS), set())

    def test_setting_names(self):
        self.assertEqual(matrix.parse_setting("vm/on/1500"),
                         matrix.Setting("vm", "on", 1500))
        self.assertEqual(matrix.parse_setting("tap/off/9000"),
                         matrix.Setting("tap", "off", 9000))
        for bad in ("tap/off", "box/on/1500", "veth/maybe/1500"):
            with self.assertRaises(ValueError):
                matrix.parse_setting(bad)


class Commands(unittest.TestCase):
    def test_udp_frame_sizes(self):
        self.assertEqual(cells.udp_payload(64), 18)
        self.assertEqual(cells.udp_payload(512), 466)

    def test_iperf3_args(self):
        a = cells.iperf3_args(matrix.Item("tcp_stream", "rx", "vm-vm"),
                              "10.0.0.2", 3)
        self.assertIn("-R", a)
        self.assertIn("-J", a)
        a = cells.iperf3_args(matrix.Item("tcp_stream", "p4", "vm-vm"),
                              "10.0.0.2", 3)
        self.assertEqual(a[a.index("-P") + 1], "4")
        a = cells.iperf3_args(matrix.Item("tcp_stream", "bidir", "vm-vm"),
                              "10.0.0.2", 3)
        self.assertIn("--bidir", a)
        a = cells.iperf3_args(matrix.Item("udp", 64, "vm-vm"), "10.0.0.2", 2)
        self.assertEqual(a[a.index("-l") + 1], "18")
        self.assertEqual(a[a.index("-b") + 1], "0")

    def test_fwd_compute(self):
        m = cells.fwd_compute({
            "elapsed_s": 2.0, "offered_pps": 2e6, "forwarded": 400000,
            "delivered": 300000, "switch_cpu_ns": 400000 * 1500.0,
            "recv_cpu_ns": 300000 * 1000.0, "busy_ns": 2e9})
        self.assertAlmostEqual(m["fwd_kpps"], 200.0)
        self.assertAlmostEqual(m["delivered_kpps"], 150.0)
        self.assertAlmostEqual(m["switch_ns"], 1500.0)
        self.assertAlmostEqual(m["recv_ns"], 1000.0)
        self.assertAlmostEqual(m["total_ns"], 2500.0)
        self.assertAlmostEqual(m["offered_kpps"], 2000.0)
        with self.assertRaises(Exception):
            cells.fwd_compute({"elapsed_s": 1.0, "offered_pps": 1,
                               "forwarded": 0, "delivered": 0,
                               "switch_cpu_ns": 0, "recv_cpu_ns": 0})


if __name__ == "__main__":
    unittest.main()
