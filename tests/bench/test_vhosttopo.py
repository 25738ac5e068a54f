# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The vhost topology's pieces that need no vhost-net: where the kprobe
finds msg_control, the payload sizes, the damaged-frame verdict."""
import os
import shutil
import subprocess
import unittest

import benchpath  # noqa: F401
from bench_lib import matrix, vhostcells, vhosttopo

# bpftool btf dump ... format raw, as Linux 6.1-6.18 print struct msghdr
# (msg_control in an anonymous union, which may come after the struct).
DUMP = """\
[2910] STRUCT 'msghdr' size=96 vlen=5
\t'msg_name' type_id=108 bits_offset=0
\t'msg_namelen' type_id=21 bits_offset=64
\t'msg_iter' type_id=868 bits_offset=128
\t'(anon)' type_id=2911 bits_offset=448
\t'msg_flags' type_id=9 bits_offset=544
[2911] UNION '(anon)' size=8 vlen=2
\t'msg_control' type_id=108 bits_offset=0
\t'msg_control_user' type_id=3000 bits_offset=0
[2912] STRUCT 'user_msghdr' size=56 vlen=2
\t'msg_name' type_id=108 bits_offset=0
\t'msg_control' type_id=108 bits_offset=256
"""


class MsgControl(unittest.TestCase):
    def test_anonymous_union(self):
        self.assertEqual(vhosttopo.msg_control_offset(DUMP), 56)

    def test_plain_member(self):
        d = "[5] STRUCT 'msghdr' size=56 vlen=2\n" \
            "\t'msg_name' type_id=1 bits_offset=0\n" \
            "\t'msg_control' type_id=1 bits_offset=256\n"
        self.assertEqual(vhosttopo.msg_control_offset(d), 32)

    def test_missing(self):
        self.assertIsNone(vhosttopo.msg_control_offset(
            "[5] STRUCT 'user_msghdr' size=56 vlen=1\n"
            "\t'msg_control' type_id=1 bits_offset=256\n"))

    @unittest.skipUnless(os.path.exists("/sys/kernel/btf/vmlinux") and
                         shutil.which("bpftool"), "no vmlinux BTF or bpftool")
    def test_this_kernel(self):
        cp = subprocess.run(["bpftool", "btf", "dump", "file",
                             "/sys/kernel/btf/vmlinux", "format", "raw"],
                            capture_output=True, text=True, check=True)
        off = vhosttopo.msg_control_offset(cp.stdout)
        self.assertIsNotNone(off)
        self.assertEqual(off % 8, 0)


class Hist(unittest.TestCase):
    def test_total_of_type_2(self):
        """Only TUN_MSG_PTR's entry counts (a NULL msg_control fetches
        garbage keys)."""
        text = ("# trigger info: hist:keys=type:vals=hitcount,num:sort=hitcou"
                "nt:size=2048 if ctl != 0 && type == 2 [active]\n\n"
                "{ type:          2 } hitcount:        123  num:       4567\n"
                "{ type:      65535 } hitcount:          3  num:        192\n"
                "\nTotals:\n    Hits: 126\n    Entries: 2\n")
        self.assertEqual(vhosttopo.hist_total(text), 4567)
        self.assertEqual(vhosttopo.hist_total("# no entry\n"), 0)


class Cells(unittest.TestCase):
    def test_payload(self):
        self.assertEqual(vhostcells.payload(64), 18)
        self.assertEqual(vhostcells.payload(1518), 1472)

    def test_intact(self):
        self.assertEqual(vhostcells.intact({"frames": 5, "missing": 3}), "")
        self.assertEqual(vhostcells.intact({"corrupt": 1, "csum_bad": 2}),
                         "corrupt 1, csum_bad 2")

    def test_stream_options(self):
        """Full and partial checksums, told apart; TCP as a default guest
        sends it, with ACKs back, with and without TSO."""
        def opts(test, variant):
            return vhostcells.stream_options(
                matrix.Item(test, variant, "vm-vm"))

        self.assertEqual(opts("vhost_pps", 64),
                         ("udp", ["--csum", "full", "--size", "18"], []))
        self.assertEqual(opts("vhost_pps_partial", 1518),
                         ("udp", ["--csum", "partial", "--size", "1472"],
                          []))
        self.assertEqual(opts("vhost_gso", 1448),
                         ("tcp", ["--csum", "partial", "--gso", "1448"], []))
        proto, send, recv = opts("vhost_tcp", "tso")
        self.assertEqual(proto, "tcp")
        self.assertEqual(send, ["--csum", "partial", "--gso", "1448",
                                "--acks"])
        self.assertEqual(recv, ["--ack", "1"])
        proto, send, recv = opts("vhost_tcp", "notso")
        # 1,518 B on the wire: 1,460 B of payload after Ethernet, IPv4,
        # TCP and the FCS; no GSO frame, the sender's TSO off.
        self.assertEqual(send, ["--csum", "partial", "--tso", "off",
                                "--size", "1460", "--acks"])
        self.assertNotIn("--gso", send)
        self.assertEqual(recv, ["--ack", "1"])

    def test_rr_options(self):
        self.assertEqual(vhostcells.rr_options(
            matrix.Item("vhost_rr", 64, "vm-vm")),
            ["--csum", "full", "--size", "18"])
        self.assertEqual(vhostcells.rr_options(
            matrix.Item("vhost_rr_partial", 64, "vm-vm")),
            ["--csum", "partial", "--size", "18"])

    def test_acks_intact(self):
        self.assertEqual(vhostcells.acks_intact(
            {"acks": 900, "acks_bad": 0}, {"acks_sent": 1000}), "")
        self.assertIn("no ACK", vhostcells.acks_intact(
            {"acks": 0, "acks_bad": 0}, {"acks_sent": 0}))
        self.assertIn("3 of 900", vhostcells.acks_intact(
            {"acks": 900, "acks_bad": 3}, {"acks_sent": 1000}))

    def test_last_json(self):
        self.assertEqual(vhostcells.last_json('x\n{"a": 1}\n', "t"),
                         {"a": 1})
        with self.assertRaises(Exception):
            vhostcells.last_json("nothing\n", "t")


if __name__ == "__main__":
    unittest.main()
