# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench --topology vhost --smoke: one short cell of every vhost
test on every path (xdp-minimal: where no partial checksum reaches XDP),
through real vhost-net. Asserts that every cell ran and was valid (its
frames arrived intact, the path took the bypass it stands for), that
small frames went through vhost-net's batches of XDP buffers
(tun_xdp_one(), counted by a kprobe where the kernel has them), that the
XDP paths carried the full-checksum ones in XDP, that the TCP cells' ACKs
came back intact, and that the run cleaned up. It asserts nothing about
speed; who carried the partial-checksum frames is in the report.

Skipped, with the probe's reason, where the kernel has no vhost-net
(this project's development VM); needs root and a built tree, and fails
without them under XNB_BENCH_SMOKE=require. XNB_BENCH_EMULATED=1: the
machine is itself emulated (the check-kernels guests): --emulated.
XNB_BENCH_OUT=DIR: the results go there, and stay."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import benchpath
from benchpath import ROOT
from bench_lib import matrix, vhosttopo

REQUIRE = os.environ.get("XNB_BENCH_SMOKE") == "require"
WAIT = int(os.environ.get("XNB_BENCH_WAIT", "900"))
TOOLS = ["build/xdpnet", "build/bench_tools/xnb_vhost",
         "build/bench_tools/xnb_minimal"]


class VhostSmoke(unittest.TestCase):
    out = None
    proc = None

    @classmethod
    def setUpClass(cls):
        benchpath.precondition(TOOLS, REQUIRE, "vhost smoke run")
        ok, why = vhosttopo.vhost_state()
        if not ok:
            raise unittest.SkipTest("the kernel lacks vhost-net: " + why)
        cls.out = os.environ.get("XNB_BENCH_OUT") or \
            tempfile.mkdtemp(prefix="xnb-vsmoke.")
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
            else sys.executable
        argv = [py, os.path.join(ROOT, "scripts", "bench"), "--topology",
                "vhost", "--smoke", "-q", "--no-plots", "--wait", str(WAIT),
                "--out", cls.out]
        if os.environ.get("XNB_BENCH_EMULATED") == "1":
            argv.append("--emulated")
        cls.proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True,
                                  timeout=WAIT + 900)
        sys.stdout.write("".join("# " + ln + "\n" for ln in
                                 cls.proc.stdout.splitlines()[-30:]))
        with open(os.path.join(cls.out, "raw.json")) as f:
            cls.doc = json.load(f)

    @classmethod
    def tearDownClass(cls):
        if cls.out and not os.environ.get("XNB_BENCH_KEEP") and \
                not os.environ.get("XNB_BENCH_OUT"):
            shutil.rmtree(cls.out, ignore_errors=True)

    def test_exit_status(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout[-2000:])

    def test_every_cell(self):
        cells = self.doc["cells"]
        seen = {(c["path"], c["test"], str(c["variant"])) for c in cells}
        for p in matrix.VHOST_PATHS:
            for it in matrix.VHOST_ITEMS:
                if matrix.path_applies(p, matrix.VHOST_SETTING, it, []):
                    self.assertIn((p, it.test, str(it.variant)), seen)
                else:
                    self.assertNotIn((p, it.test, str(it.variant)), seen)
        for c in cells:
            name = "%s %s %s" % (c["path"], c["test"], c["variant"])
            self.assertIsNone(c["error"], name)
            self.assertEqual(c["validity"], "valid",
                             "%s: %s" % (name, c["validity_reason"]))
            m = c["metrics"]
            self.assertGreater(m[matrix.TESTS[c["test"]]["metric"]], 0, name)
            self.assertGreater(m["cpu_ns"], 0, name)
            self.assertGreater(m["vhost_ns"], 0, name)
            if matrix.is_bpf(c["path"]):
                self.assertGreater(m["prog_ns"], 0, name)

    def test_frames_took_tun_xdp_one(self):
        """Every small frame a sender sent was handed over in a batch of
        XDP buffers (TUN_MSG_PTR); GSO frames do not fit a page."""
        info = self.doc["topology_info"]
        if info["tun_msg_ptr_probe"] != "kprobe on tun_sendmsg":
            self.skipTest("no kprobe: %s" % info["tun_msg_ptr_probe"])
        if info["vhost_net_params"].get("experimental_zcopytx") == "1":
            self.skipTest("vhost_net experimental_zcopytx=1: zero-copy "
                          "transmit sends no batches of XDP buffers")
        for c in self.doc["cells"]:
            raw = c["raw"]
            name = "%s %s %s" % (c["path"], c["test"], c["variant"])
            if c["test"] in ("vhost_pps", "vhost_pps_partial"):
                self.assertGreaterEqual(raw["tun_msg_ptr_frames"],
                                        raw["send"]["frames"], name)
            elif c["test"] == "vhost_gso":
                # 64 KB does not fit a page: vhost-net's single path.
                self.assertEqual(raw["tun_msg_ptr_frames"], 0, name)
            elif c["test"] == "vhost_tcp":
                # The ACKs fit a page, and so do the segments without TSO.
                least = raw["recv"]["acks_sent"]
                if c["variant"] == "notso":
                    least += raw["send"]["frames"]
                self.assertGreaterEqual(raw["tun_msg_ptr_frames"], least,
                                        name)

    def test_xdp_paths_redirect_in_xdp(self):
        for c in self.doc["cells"]:
            if c["path"] != "xdpnet-xdp" or c["test"] != "vhost_pps":
                continue
            d = c["counters_delta"]["xnbh1"]
            self.assertGreater(d.get("xdp_redirect", 0),
                               0.9 * c["raw"]["recv"]["frames"], d)

    def test_acks(self):
        """The TCP cells: an ACK came back for the frames the receiver
        took, and every one arrived with a valid checksum (a cell with a
        damaged one fails)."""
        cells = [c for c in self.doc["cells"] if c["test"] == "vhost_tcp"]
        self.assertEqual({c["variant"] for c in cells}, {"tso", "notso"})
        for c in cells:
            raw = c["raw"]
            name = "%s %s" % (c["path"], c["variant"])
            self.assertGreater(raw["recv"]["acks_sent"], 0, name)
            self.assertGreater(raw["send"]["acks"], 0, name)
            self.assertEqual(raw["send"]["acks_bad"], 0, name)
            self.assertLessEqual(raw["send"]["acks"],
                                 raw["recv"]["acks_sent"], name)
            if c["variant"] == "tso":
                self.assertGreater(raw["recv"]["gso"], 0, name)
            else:
                self.assertEqual(raw["recv"]["gso"], 0, name)

    def test_report(self):
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        self.assertIn("**vhost topology.**", md)
        if self.doc.get("emulated"):
            self.assertIn("**Emulated host.**", md)
            return
        for tid in ("V1", "V2", "V3", "V4", "V5"):
            self.assertIn("**%s**" % tid, md)

    def test_cleaned_up(self):
        self.assertEqual(benchpath.bench_leftovers(), [])
        ev = os.path.join(vhosttopo.TRACEFS, "kprobe_events")
        if os.path.exists(ev):
            with open(ev) as f:
                self.assertNotIn(vhosttopo.PROBE_GROUP + "/", f.read())
        self.assertFalse(os.path.isdir(vhosttopo.INSTANCE))


if __name__ == "__main__":
    unittest.main()
