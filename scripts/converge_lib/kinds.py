# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The kinds of change (issue 9 part 2), each as a cycle of steps that
returns to where it started, so that every step is one event.

Flows: AB, BA (A and B, both stand-ins stay ports), CA, AC (C, the veth
that joins and leaves), TA, AT (T, the tap that joins and leaves). What
the bridge does after each change is in the step's flows (measure.py).
"""

import os

from .bpfmap import PinnedMap
from .topo import BR, BR2, PIN_ROOT, SW

# name: one-line description (the report's rows, in order)
KINDS = {
    "join-veth": "a veth enslaved is bypassed (both directions)",
    "join-tap": "a tap enslaved is bypassed (both directions)",
    "leave-nomaster-veth": "veth port set nomaster: no frame to or from it",
    "leave-nomaster-tap": "tap port set nomaster: no frame to or from it",
    "leave-delete": "veth port deleted: no frame to or from it",
    "leave-move": "veth port moved to another bridge: no frame to or "
                  "from it",
    "bridge-delete": "bridge deleted: nothing forwarded, every hook gone",
    "stp-block": "port state forwarding -> disabled/listening/learning: "
                 "nothing forwarded",
    "stp-forward": "port state back to forwarding: bypassed",
    "isolated-on": "second port of a pair isolated: nothing forwarded",
    "isolated-off": "isolation off: bypassed",
    "locked-on": "port locked: its frames go to the bridge",
    "locked-off": "port unlocked: bypassed",
    "learning-off": "learning off, the source's entry deleted: frames "
                    "from it bypassed without the bridge learning",
    "learning-on": "learning on: the bridge learns the source again "
                   "(then bypassed)",
    "hub-on": "ageing_time 0 (hub mode): everything via the bridge",
    "hub-off": "ageing_time back to 300 s: bypassed",
    "mtu-down": "B's port MTU 1500 -> 68, under the probe's 92-byte "
                "packets: nothing forwarded to B (nor from B: its veth "
                "drops them)",
    "mtu-up": "B's port MTU back to 1500: bypassed",
    "neigh-on": "proxy_arp on a port (the bridge answers ARP itself): "
                "everything via the bridge",
    "neigh-off": "proxy_arp off: bypassed",
    "ageing": "ageing_time 10 s <-> 8 s: the keep-alive interval in "
              "the datapath's settings (a sixteenth: 625 <-> 500 ms) "
              "follows",
    "vlan-filtering": "vlan_filtering on/off",
    "fdb-add-static": "bridge fdb add ... static: bypassed to it",
    "fdb-del": "bridge fdb del: flooded by the bridge again",
    "fdb-add-dynamic": "bridge fdb replace ... dynamic: bypassed to it",
    "fdb-flush": "bridge fdb flush: flooded by the bridge again",
}


def ip(*a):
    return ["ip", "-n", SW] + list(a)


def br(*a):
    return ["bridge", "-n", SW] + list(a)


def both(e, x, y):
    return {x: e, y: e}


class CfgWatch:
    """When did the datapath's settings (the pinned cfg) change?"""

    def __init__(self):
        self.m = PinnedMap(os.path.join(PIN_ROOT, BR, "cfg"))
        self.before = self.m.lookup()

    def poll(self, now):
        if self.m.lookup() == self.before:
            return None
        self.m.close()
        return now


def port_cycles(r, n, who):
    """Leave (nomaster, and for the veth also delete and move) and join
    again, n times each."""
    t = r.topo
    g = t.guests[who]
    fx, fy = who + "A", "A" + who
    sfx = "veth" if who == "C" else "tap"
    modes = ["nomaster", "delete", "move"] if who == "C" else ["nomaster"]
    if not r.settle(both("bypass", fx, fy)):
        raise RuntimeError("%s is not bypassed to start with" % g.port)

    def recreate():
        t.veth_add(who)
        g.open()
        r.probe.watch_guest(g)
    for i in range(n * len(modes)):
        m = modes[i % len(modes)]
        if m == "nomaster":
            yield {"kind": "leave-nomaster-" + sfx, "flows":
                   both("none", fx, fy), "match": ("link", g.port),
                   "cmd": ip("link", "set", g.port, "nomaster")}
        elif m == "delete":
            yield {"kind": "leave-delete", "flows": both("none", fx, fy),
                   "match": ("link", g.port),
                   "cmd": ip("link", "del", g.port), "after": recreate}
        else:
            yield {"kind": "leave-move", "flows": both("none", fx, fy),
                   "match": ("link", g.port),
                   "cmd": ip("link", "set", g.port, "master", BR2)}
        yield {"kind": "join-" + sfx, "flows": both("bypass", fx, fy),
               "match": ("link", g.port), "label": "after " + m,
               "cmd": ip("link", "set", g.port, "master", BR, "up")}


def ab_cycles(r, n, kind_on, kind_off, on_cmd, off_cmd, on_expect,
              off_expect="bypass", match=None, labels=None):
    a = r.topo.guests["A"]
    if not r.settle(both("bypass", "AB", "BA")):
        raise RuntimeError("A and B are not bypassed to start with")
    for i in range(n):
        yield {"kind": kind_on, "flows": on_expect,
               "match": match or ("link", a.port), "cmd": on_cmd(i),
               "label": labels[i % len(labels)] if labels else ""}
        yield {"kind": kind_off, "flows": both(off_expect, "AB", "BA"),
               "match": match or ("link", a.port), "cmd": off_cmd(i)}


def stp(r, n):
    pa = r.topo.guests["A"].port
    return ab_cycles(r, n, "stp-block", "stp-forward",
                     lambda i: br("link", "set", "dev", pa, "state",
                                  str(i % 3)),
                     lambda i: br("link", "set", "dev", pa, "state", "3"),
                     both("none", "AB", "BA"),
                     labels=["disabled", "listening", "learning"])


def isolated(r, n):
    pa, pb = r.topo.guests["A"].port, r.topo.guests["B"].port
    r.topo.ipcmd(br("link", "set", "dev", pa, "isolated", "on"))
    yield from ab_cycles(
        r, n, "isolated-on", "isolated-off",
        lambda i: br("link", "set", "dev", pb, "isolated", "on"),
        lambda i: br("link", "set", "dev", pb, "isolated", "off"),
        both("none", "AB", "BA"), match=("link", pb))
    r.topo.ipcmd(br("link", "set", "dev", pa, "isolated", "off"))


def locked(r, n):
    pb = r.topo.guests["B"].port
    return ab_cycles(r, n, "locked-on", "locked-off",
                     lambda i: br("link", "set", "dev", pb, "locked", "on"),
                     lambda i: br("link", "set", "dev", pb, "locked", "off"),
                     both("bridge", "AB", "BA"), match=("link", pb))


def learning(r, n):
    a = r.topo.guests["A"]
    if not r.settle(both("bypass", "AB", "BA")):
        raise RuntimeError("A and B are not bypassed to start with")
    for _ in range(n):
        # BA floods once A's entry is gone (fdb-del measures that).
        yield {"kind": "learning-off", "flows": {"AB": "bypass", "BA": None},
               "match": ("link", a.port),
               "cmd": ["sh", "-c", "bridge -n %s link set dev %s learning "
                       "off && bridge -n %s fdb del %s dev %s master" % (
                           SW, a.port, SW, a.mac, a.port)]}
        yield {"kind": "learning-on", "flows": both("bypass", "AB", "BA"),
               "match": ("link", a.port),
               "cmd": br("link", "set", "dev", a.port, "learning", "on")}


def hub(r, n):
    return ab_cycles(r, n, "hub-on", "hub-off",
                     lambda i: ip("link", "set", BR, "type", "bridge",
                                  "ageing_time", "0"),
                     lambda i: ip("link", "set", BR, "type", "bridge",
                                  "ageing_time", "30000"),
                     both("bridge", "AB", "BA"), match=("link", BR))


def mtu(r, n):
    """The egress port's MTU, which only the follower carries (both
    builds): the bridge drops what exceeds it (is_skb_forwardable()), a
    redirect into a veth checks only its peer's."""
    pb = r.topo.guests["B"].port
    return ab_cycles(r, n, "mtu-down", "mtu-up",
                     lambda i: ip("link", "set", "dev", pb, "mtu", "68"),
                     lambda i: ip("link", "set", "dev", pb, "mtu", "1500"),
                     both("none", "AB", "BA"), match=("link", pb))


def neigh(r, n):
    pa = r.topo.guests["A"].port

    def cmd(on):
        return lambda i: ip("link", "set", "dev", pa, "type", "bridge_slave",
                            "proxy_arp", on)
    return ab_cycles(r, n, "neigh-on", "neigh-off", cmd("on"), cmd("off"),
                     both("bridge", "AB", "BA"))


def ageing(r, n):
    """Ageing times whose keep-alive intervals differ: a sixteenth of the
    ageing time, at most 1 s (300 s and 200 s both give 1 s, and the
    settings would not change at all)."""
    r.settle(both("bypass", "AB", "BA"))
    for i in range(2 * n):
        cs = "800" if i % 2 == 0 else "1000"
        yield {"kind": "ageing", "flows": {"AB": None, "BA": None},
               "match": ("link", BR), "observe": CfgWatch(),
               "label": cs,
               "cmd": ip("link", "set", BR, "type", "bridge", "ageing_time",
                         cs)}
    r.topo.ipcmd(ip("link", "set", BR, "type", "bridge", "ageing_time",
                    "30000"), check=False)


def fdb(r, n):
    """C silent: A's frames to C are flooded until an entry says where C
    is."""
    c = r.topo.guests["C"]
    r.probe.set_active(["AC"])
    r.topo.ipcmd(br("fdb", "flush", "dev", BR, "brport", c.port, "dynamic"),
                 check=False)
    if not r.settle({"AC": "bridge"}):
        raise RuntimeError("A's frames to the silent C are not flooded")
    m = ("neigh", c.mac)
    for _ in range(n):
        yield {"kind": "fdb-add-static", "flows": {"AC": "bypass"},
               "match": m, "cmd": br("fdb", "add", c.mac, "dev", c.port,
                                     "master", "static")}
        yield {"kind": "fdb-del", "flows": {"AC": "bridge"}, "match": m,
               "cmd": br("fdb", "del", c.mac, "dev", c.port, "master")}
        yield {"kind": "fdb-add-dynamic", "flows": {"AC": "bypass"},
               "match": m, "cmd": br("fdb", "replace", c.mac, "dev", c.port,
                                     "master", "dynamic")}
        yield {"kind": "fdb-flush", "flows": {"AC": "bridge"}, "match": m,
               "cmd": br("fdb", "flush", "dev", BR, "brport", c.port,
                         "dynamic")}


def vlan_probe(topo):
    """Can this kernel's bridge filter VLANs at all? (rc, message)"""
    cp = topo.ipcmd(ip("link", "set", BR, "type", "bridge",
                       "vlan_filtering", "1"), check=False)
    if cp.returncode == 0:
        topo.ipcmd(ip("link", "set", BR, "type", "bridge",
                      "vlan_filtering", "0"), check=False)
    return cp.returncode, (cp.stderr or "").strip()


def bridge_delete(r, n, reattach):
    """Delete the bridge under traffic; reattach() builds it again."""
    for _ in range(n):
        reattach()
        yield {"kind": "bridge-delete", "flows": both("none", "AB", "BA"),
               "match": ("link", BR), "cmd": ip("link", "del", BR),
               "bridge_delete": True}


CYCLES = [
    ("join-veth", lambda r, n: port_cycles(r, n, "C")),
    ("join-tap", lambda r, n: port_cycles(r, n, "T")),
    ("stp", stp), ("isolated", isolated), ("locked", locked),
    ("learning", learning), ("hub", hub), ("mtu", mtu), ("neigh", neigh),
    ("ageing", ageing), ("fdb", fdb),
]
