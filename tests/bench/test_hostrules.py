# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The realistic host's rules: sizes, and that no rule reachable from
FORWARD can match a frame between two VMs on the bridge (stand-ins in
10.77.0.0/24 on xnbbr0, not local to the host), checked by walking the
generated rule set like iptables would."""
import ipaddress
import shlex
import unittest

import benchpath  # noqa: F401
from bench_lib import hostrules, topo

VM_NET = ipaddress.ip_network("%s/%d" % (topo.HOST_IP, topo.PREFIX),
                              strict=False)


def tables(text):
    """{table: {chain: [argv of each rule]}} of iptables-restore text."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("*"):
            cur = out.setdefault(line[1:], {})
        elif line.startswith(":"):
            cur.setdefault(line[1:].split()[0], [])
        elif line.startswith("-A "):
            argv = shlex.split(line)
            cur.setdefault(argv[1], []).append(argv[2:])
    return out


def opt(argv, name):
    """(negated, value) of option name in a rule, or None."""
    for i, a in enumerate(argv):
        if a == name:
            neg = i > 0 and argv[i - 1] == "!"
            return neg, argv[i + 1]
    return None


def cannot_match_vm_frame(argv):
    """True when something in the rule excludes every frame between two
    ports of the bridge (in and out device: the bridge; addresses in
    VM_NET; destination not local)."""
    for name in ("-i", "-o"):
        o = opt(argv, name)
        if o and not o[0] and o[1] != topo.BR:
            return True
    for name in ("-s", "-d"):
        o = opt(argv, name)
        if o and not o[0] and not ipaddress.ip_network(o[1]).overlaps(
                VM_NET):
            return True
    o = opt(argv, "--dst-type")
    return bool(o and not o[0] and o[1] == "LOCAL")


def reachable_matching(chains, chain, seen=None):
    """Rules reachable from chain that could match a VM-to-VM frame and
    do something (a target other than RETURN or a chain's jump)."""
    seen = seen or set()
    bad = []
    for argv in chains.get(chain, []):
        if cannot_match_vm_frame(argv):
            continue
        target = opt(argv, "-j")[1]
        if target == "RETURN":
            continue
        if target in chains:
            if target not in seen:
                seen.add(target)
                bad += reachable_matching(chains, target, seen)
            continue
        bad.append((chain, argv))
    return bad


class HostRules(unittest.TestCase):
    def test_sizes(self):
        for n in (0, 5, 100, 300, 1000):
            r = hostrules.realistic(n)
            self.assertEqual(r["filter_rules"] + r["nat_rules"], n, n)
            t = tables(r["restore"])
            got = sum(len(v) for tb in t.values() for v in tb.values())
            self.assertEqual(got, n, n)
        r = hostrules.realistic(300)
        self.assertGreaterEqual(r["networks"], 10)
        self.assertGreater(r["services"], 100)
        self.assertLess(r["walk_established"], r["walk_new"])

    def test_no_rule_can_match_vm_to_vm_frames(self):
        for n, kind in [(n, k) for n in (5, 100, 300, 1000)
                        for k in hostrules.KINDS]:
            t = tables(hostrules.realistic(n, kind)["restore"])
            self.assertEqual(reachable_matching(t["filter"], "FORWARD"), [],
                             n)
            for c in ("PREROUTING", "POSTROUTING"):
                self.assertEqual(reachable_matching(t["nat"], c), [], n)

    def test_docker_only_passes_a_device_only_check(self):
        # A filter check that takes only -i/-o as proof that a rule cannot
        # match (issue 9): every rule reachable from FORWARD that acts
        # names another device, in the docker kind.
        def device_only(argv):
            for name in ("-i", "-o"):
                o = opt(argv, name)
                if o and not o[0] and o[1] != topo.BR:
                    return True
            return False

        global cannot_match_vm_frame
        saved = cannot_match_vm_frame
        try:
            cannot_match_vm_frame = device_only
            d = tables(hostrules.realistic(300, "docker")["restore"])
            self.assertEqual(reachable_matching(d["filter"], "FORWARD"), [])
            k = tables(hostrules.realistic(300)["restore"])
            self.assertTrue(reachable_matching(k["filter"], "FORWARD"))
        finally:
            cannot_match_vm_frame = saved
        r = hostrules.realistic(300, "docker")
        self.assertEqual(r["filter_rules"] + r["nat_rules"], 300)
        self.assertEqual(r["services"], 0)
        self.assertNotIn("KUBE-", r["restore"])
        with self.assertRaises(ValueError):
            hostrules.realistic(300, "podman")

    def test_the_checker_can_fail(self):
        t = tables(hostrules.realistic(300)["restore"])
        f = t["filter"]
        f["DOCKER-USER"].insert(0, ["-i", topo.BR, "-j", "DROP"])
        f["KUBE-SERVICES"].append(["-d", "10.77.0.0/16", "-j", "REJECT"])
        bad = reachable_matching(f, "FORWARD")
        self.assertEqual([b[0] for b in bad], ["DOCKER-USER",
                                               "KUBE-SERVICES"])

    def test_docker_layout(self):
        t = tables(hostrules.realistic(300)["restore"])["filter"]
        self.assertEqual(t["FORWARD"][0], ["-j", "DOCKER-USER"])
        self.assertEqual(t["DOCKER-USER"], [["-j", "RETURN"]])
        # Published ports are only reached through -o of their bridge.
        jumps = [r for c in t.values() for r in c
                 if opt(r, "-j")[1] == "DOCKER"]
        self.assertTrue(jumps)
        self.assertTrue(all(opt(r, "-o") for r in jumps))

    def test_plain_host_is_empty(self):
        t = tables(hostrules.empty())
        self.assertEqual(set(t), {"filter", "nat"})
        self.assertFalse(any(v for tb in t.values() for v in tb.values()))


if __name__ == "__main__":
    unittest.main()
