# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""scripts/bench_lib/brnf.py: br_netfilter is checked before a run, on a
fake /proc/sys/net/bridge and a fake modprobe (no root, nothing loaded):
a run that needs it refuses where it is not loaded and says what loading
would change; --load-br-netfilter loads it, sets the host's sysctls to 0
and unloads it at the end; the host's values never change unnoticed."""
import os
import shutil
import tempfile
import unittest

import benchpath  # noqa: F401 - puts scripts/ on sys.path
from bench_lib import brnf


class FakeKernel:
    """A /proc/sys/net/bridge that modprobe makes (values 1, as the
    kernel starts them) and modprobe -r removes."""

    def __init__(self, loaded):
        self.top = tempfile.mkdtemp(prefix="xnbrnf.")
        self.proc = os.path.join(self.top, "bridge")
        self.calls = []
        self.in_use = False
        if loaded:
            self.make(1)

    def make(self, v):
        os.makedirs(self.proc)
        for n in brnf.SYSCTLS:
            with open(os.path.join(self.proc, n), "w") as f:
                f.write("%d\n" % v)

    def modprobe(self, *args):
        self.calls.append(args)
        if args == ("br_netfilter",):
            if not os.path.isdir(self.proc):
                self.make(1)
            return True, ""
        if args == ("-r", "br_netfilter"):
            if self.in_use:
                return False, "modprobe: FATAL: Module br_netfilter is in use."
            shutil.rmtree(self.proc)
            return True, ""
        return False, "unexpected"

    def values(self):
        vals = {}
        for n in brnf.SYSCTLS:
            with open(os.path.join(self.proc, n)) as f:
                vals[n] = int(f.read())
        return vals

    def close(self):
        shutil.rmtree(self.top, ignore_errors=True)


class BrNetfilterTest(unittest.TestCase):
    def setUp(self):
        self.said = []

    def nf(self, k, paths, load=False):
        return brnf.BrNetfilter(paths, load, self.said.append, k.proc,
                                k.modprobe)

    def test_not_loaded_refuses_and_says_why(self):
        k = FakeKernel(loaded=False)
        self.addCleanup(k.close)
        with self.assertRaises(SystemExit) as e:
            self.nf(k, ["bridge", "bridge-nf", "xdpnet-tc"]).prepare()
        msg = str(e.exception)
        for want in ("bridge-nf, xdpnet-tc", "virbr0", "iptables",
                     "--load-br-netfilter", "--paths bridge"):
            self.assertIn(want, msg)
        self.assertEqual(k.calls, [])
        self.assertFalse(os.path.isdir(k.proc))

    def test_not_loaded_plain_paths_need_nothing(self):
        k = FakeKernel(loaded=False)
        self.addCleanup(k.close)
        nf = self.nf(k, ["bridge", "direct"])
        nf.prepare()
        nf.restore()
        self.assertEqual(k.calls, [])
        self.assertFalse(os.path.isdir(k.proc))

    def test_load_sets_host_to_zero_and_unloads(self):
        k = FakeKernel(loaded=False)
        self.addCleanup(k.close)
        nf = self.nf(k, ["bridge-nf"], load=True)
        nf.prepare()
        self.assertEqual(k.calls, [("br_netfilter",)])
        self.assertEqual(set(k.values().values()), {0})
        self.assertTrue(any("0 in the host's namespace" in s
                            for s in self.said))
        nf.check_host()
        nf.restore()
        self.assertEqual(k.calls[-1], ("-r", "br_netfilter"))
        self.assertFalse(os.path.isdir(k.proc))

    def test_load_in_use_at_the_end_says_so(self):
        k = FakeKernel(loaded=False)
        self.addCleanup(k.close)
        nf = self.nf(k, ["xdpnet-tc"], load=True)
        nf.prepare()
        k.in_use = True
        nf.restore()
        self.assertTrue(os.path.isdir(k.proc))
        self.assertEqual(set(k.values().values()), {0})
        self.assertTrue(any("left loaded" in s for s in self.said))

    def test_loaded_changes_nothing_on_the_host(self):
        k = FakeKernel(loaded=True)
        self.addCleanup(k.close)
        nf = self.nf(k, ["bridge-nf"])
        nf.prepare()
        nf.restore()
        self.assertEqual(k.calls, [])
        self.assertEqual(set(k.values().values()), {1})
        self.assertTrue(any("host's stay as they are" in s and
                            "iptables=1" in s for s in self.said))

    def test_host_values_changed_are_put_back(self):
        k = FakeKernel(loaded=True)
        self.addCleanup(k.close)
        nf = self.nf(k, ["bridge-nf"])
        nf.prepare()
        # What a kernel without per-namespace values would do when the
        # benchmark's namespace is set.
        with open(os.path.join(k.proc, "bridge-nf-call-iptables"), "w") as f:
            f.write("0\n")
        with self.assertRaises(RuntimeError):
            nf.check_host()
        self.assertEqual(set(k.values().values()), {1})


if __name__ == "__main__":
    unittest.main()
