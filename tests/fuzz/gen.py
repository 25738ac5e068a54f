# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A random bridge scenario from a seed.

scenario(seed) gives a dict (JSON as it stands):
  ports      [{"kind": "veth"|"tap"}], 2-8 of them (port i is xnxpI)
  setup      [[tool, line], ...]: the bridge's options, the ports' flags,
             FDB entries, MTUs, tc, filter rules, before any frame
  steps      [{"do": [[tool, line]...], "kind": K, "bound": MS, "nf_keep": B}
              | {"frames": [frame...]} | {"sleep": SECS}]
  attach_at  the step before which the attached worlds attach
  features   what the scenario exercises (for the run's table)
Tools: ip, bridge, tc (in the switch's namespace), gip (ip in the guests'),
nft, iptables, sysctl. "{br}" names the bridge. Frames: frames.py.
VM i has MAC 02:77:00:00:00:0i and 10.77.0.i, and starts on port i.
"""
import random

# Bumped whenever a seed would give another scenario: a state file's
# results name the version they were made with.
VERSION = 2

from world import BRMAC, port_mac

# How long after a change of each kind frames wait (ms): the bounds of
# docs/convergence.md ("Bounds the fuzzer waits"). nf_keep: held without a
# follower (the kernel's own events, br_netfilter's switch); the others
# wait for the next attach without one (README, Limitations).
BOUNDS = {
    "flag": 250, "state": 250, "fdb": 250, "mtu": 250, "tc": 250, "link": 250,
    "member": 250, "bridge": 250, "neigh": 250, "backup": 250,
    "rule": 500, "nf": 500, "stp": 4500, "vlandev": 2500,
}
NF_KEEP = {"nf", "fdb", "member"}
FLAGS = ["learning", "flood", "mcast_flood", "bcast_flood", "isolated", "locked", "hairpin",
         "neigh_suppress", "proxy_arp", "proxy_arp_wifi"]
CLASSES = ["udp"] * 6 + ["tcp"] * 3 + ["icmp", "udp6", "tcp6", "arp_req", "arp_reply", "ns", "na",
                                       "raw", "gso"]


def vm_mac(i):
    return f"02:77:00:00:00:{i:02x}"


class Gen:
    def __init__(self, seed, vlan=False):
        self.r = random.Random(seed)
        self.seed, self.vlan = seed, vlan
        self.fid = 0
        self.features = set()

    def feat(self, *names):
        self.features.update(names)

    # ------------------------------------------------------------ frames
    def frame(self, port, src=None):
        r = self.r
        self.fid += 1
        cls = r.choice(CLASSES)
        here = [j for j, p in self.loc.items() if p == port] or [port]
        vm = r.choice(here)
        if src is None:
            src = vm_mac(vm)
            x = r.random()
            if x < 0.08:
                src = vm_mac(r.randint(1, self.n))
                self.feat("src:other-vm")
            elif x < 0.11:
                src = r.choice([BRMAC, port_mac(r.randint(1, self.n)), "01:00:5e:00:00:05",
                                "00:00:00:00:00:00", f"02:77:ee:00:00:{r.randint(1, 255):02x}"])
                self.feat("src:spoofed")
        x = r.random()
        tgt = r.randint(1, self.n)
        if cls in ("arp_req", "ns"):
            dst = "ff:ff:ff:ff:ff:ff" if cls == "arp_req" else f"33:33:ff:00:00:{tgt:02x}"
            if r.random() < 0.4:
                dst = vm_mac(tgt)
                self.feat(f"frame:{cls}-unicast")
        elif x < 0.6:
            dst = vm_mac(tgt)
        elif x < 0.7:
            dst = f"02:77:ee:00:00:{r.randint(1, 255):02x}"
            self.feat("dst:unknown")
        elif x < 0.78:
            dst = "ff:ff:ff:ff:ff:ff"
        elif x < 0.84:
            dst = r.choice(["01:00:5e:01:02:03", "33:33:00:00:00:fb", "01:80:c2:00:00:0e",
                            "01:80:c2:00:00:00"])
            self.feat("dst:multicast")
        elif x < 0.9:
            dst = BRMAC
            self.feat("dst:host")
        else:
            dst = port_mac(r.randint(1, self.n))
            self.feat("dst:port-mac")
        pay = r.choice([r.randint(0, 60), r.randint(60, 1000), r.randint(1380, 1480),
                        r.randint(1480, 3000)] + ([r.randint(3000, 8000)] if r.random() < 0.2 else []))
        d = {"cls": cls, "port": port, "src": src, "dst": dst, "fid": self.fid, "pay": pay,
             "sip": f"10.77.0.{vm}", "dip": f"10.77.0.{tgt}", "tip": f"10.77.0.{tgt}",
             "tip6": f"fd0000000000000000000000000000{tgt:02x}"}
        if cls == "gso":
            d["pay"] = r.randint(1600, 6000)
            d["mss"] = r.choice([536, 1000, 1448, 1460])
        if cls in ("udp", "tcp", "udp6", "tcp6") and r.random() < 0.35:
            d["partial"] = True
            self.feat("frame:partial-csum")
        if cls in ("udp", "tcp", "icmp") and r.random() < 0.07:
            d["mangle"] = r.choice(["ipcsum", "trailer", "fragment"])
            self.feat(f"frame:mangle-{d['mangle']}")
        if r.random() < 0.12:
            vids = [1, 7, 10, 20] if not self.vlan else self.vids + [7, 99]
            if r.random() < 0.3:
                d["tags"] = [(r.choice([0x88a8, 0x8100]), r.choice(vids)), (0x8100, r.choice(vids))]
                self.feat("frame:double-tag")
            else:
                d["tags"] = [(0x8100 if not self.vlan or r.random() < 0.8 else 0x88a8, r.choice(vids))]
                self.feat("frame:tagged")
        if cls == "raw" and r.random() < 0.3:
            d["etype"] = r.choice([0x0040, 0x05dc, 0x8863, 0x8864])
        self.feat(f"frame:{cls}", f"in:{self.kinds[port - 1]}")
        if pay > 1400:
            self.feat("frame:large")
        return d

    def frames_step(self):
        k = self.r.choice([2, 4, 6, 8, 12, 16])
        return {"frames": [self.frame(self.r.randint(1, self.n)) for _ in range(k)]}

    def burst_step(self):
        """A flow: frames both ways between two VMs where they are, the
        traffic the datapath bypasses."""
        r = self.r
        a, b = r.sample(range(1, self.n + 1), 2) if self.n > 1 else (1, 1)
        out = []
        for _ in range(r.randint(8, 32)):
            x, y = (a, b) if r.random() < 0.6 else (b, a)
            d = self.frame(self.loc[x], src=vm_mac(x))
            if d["cls"] not in ("arp_req", "ns"):
                d["dst"] = vm_mac(y)
            out.append(d)
        self.feat("burst")
        return {"frames": out}

    def learn_step(self):
        """Every VM announces itself (gratuitous ARP, broadcast)."""
        out = []
        for i in range(1, self.n + 1):
            self.fid += 1
            out.append({"cls": "arp_req", "port": i, "src": vm_mac(i), "dst": "ff:ff:ff:ff:ff:ff",
                        "fid": self.fid, "pay": 0, "sip": f"10.77.0.{i}", "tip": f"10.77.0.{i}"})
        return {"frames": out}

    def move_step(self):
        r = self.r
        j, k = r.randint(1, self.n), r.randint(1, self.n)
        self.loc[j] = k
        self.feat("move")
        return {"frames": [self.frame(k, src=vm_mac(j)) for _ in range(r.randint(1, 3))]}

    # ------------------------------------------------------------ changes
    def port(self):
        return self.r.randint(1, self.n)

    def change(self, pre=False):
        """One change: (kind, [[tool, line], ...])."""
        r = self.r
        p = self.port()
        P = f"xnxp{p}"
        kinds = ["flag"] * 6 + ["state", "fdb", "fdb", "mtu", "tc", "link", "member", "bridge",
                                "neigh", "backup", "rule", "nf", "nf", "vlandev"]
        if not pre:
            kinds += ["stp"] if r.random() < 0.1 else []
        kind = r.choice(kinds)
        self.feat(f"change:{kind}")
        if kind == "flag":
            f = r.choice(FLAGS + ["mab"])
            on = r.choice(["on", "off"])
            self.feat(f"flag:{f}")
            if f == "mab":
                return kind, [["bridge", f"link set dev {P} locked on learning on mab {on}"]]
            return kind, [["bridge", f"link set dev {P} {f} {on}"]]
        if kind == "state":
            s = r.choice([0, 1, 2, 3, 3])
            self.feat(f"state:{s}")
            return kind, [["bridge", f"link set dev {P} state {s}"]]
        if kind == "fdb":
            j = r.randint(1, self.n)
            m = vm_mac(j) if r.random() < 0.7 else f"02:77:ee:00:00:{r.randint(1, 255):02x}"
            op = r.choice(["add", "add", "replace", "del", "flush"])
            if op == "flush":
                self.feat("fdb:flush")
                return kind, [["bridge", "fdb flush dev {br} dynamic"]]
            if op == "del":
                return kind, [["bridge", f"fdb del {m} dev {P} master"]]
            how = r.choice(["static", "static sticky", "dynamic", "dynamic sticky", "local",
                            "extern_learn", "static extern_learn"])
            vid = f" vlan {r.choice(self.vids if self.vlan else [1, 10])}" if r.random() < 0.2 else ""
            self.feat("fdb:" + how.replace(" ", "+"), "fdb:vlan" if vid else "fdb:novlan")
            return kind, [["bridge", f"fdb {op} {m} dev {P} master {how}{vid}"]]
        if kind == "mtu":
            m = r.choice([1500, 1500, 1400, 1280, 9000, 600])
            self.feat("mtu")
            return kind, [["ip", f"link set {P} mtu {m}"]]
        if kind == "tc":
            what = r.choice(["qdisc-drop", "qdisc", "ingress", "egress", "clear"])
            self.feat(f"tc:{what}")
            if what == "clear":
                return kind, [["tc", f"qdisc del dev {P} root"], ["tc", f"qdisc del dev {P} clsact"]]
            if what.startswith("qdisc"):
                lim = " limit 0" if what == "qdisc-drop" else ""
                return kind, [["tc", f"qdisc replace dev {P} root pfifo{lim}"]]
            return kind, [["tc", f"qdisc add dev {P} clsact"],
                          ["tc", f"filter add dev {P} {what} pref 7 bpf da obj {{tcdrop}} sec tc"]]
        if kind == "link":
            self.feat("link:down")
            return kind, [["ip", f"link set {P} {r.choice(['down', 'up', 'up'])}"]]
        if kind == "member":
            self.feat("port:leave")
            return kind, [["ip", f"link set {P} nomaster"], ["ip", f"link set {P} master {{br}} up"]] \
                if r.random() < 0.5 else [["ip", f"link set {P} nomaster"]]
        if kind == "bridge":
            what = r.choice(["ageing", "ageing", "promisc", "mcast_snooping", "nf_call"])
            self.feat(f"bridge:{what}")
            if what == "ageing":
                a = r.choice([0, 30000, 30000])
                self.feat(f"ageing:{a}")
                return kind, [["ip", f"link set {{br}} type bridge ageing_time {a}"]]
            if what == "promisc":
                return kind, [["ip", f"link set {{br}} promisc {r.choice(['on', 'off'])}"]]
            if what == "mcast_snooping":
                return kind, [["ip", f"link set {{br}} type bridge mcast_snooping {r.randint(0, 1)}"]]
            return "nf", [["ip", f"link set {{br}} type bridge nf_call_iptables {r.randint(0, 1)}"]]
        if kind == "neigh":
            j = r.randint(1, self.n)
            self.feat("neigh")
            return kind, [["ip", f"neigh replace 10.77.0.{j} lladdr {vm_mac(j)} dev {{br}} nud permanent"]]
        if kind == "backup":
            q = self.port()
            self.feat("backup_port")
            if q == p or r.random() < 0.3:
                return kind, [["bridge", f"link set dev {P} nobackup_port"]]
            return kind, [["bridge", f"link set dev {P} backup_port xnxp{q}"]]
        if kind == "rule":
            what = r.choice(["nft-port", "nft-all", "ipt-port", "ipt-policy", "clear"])
            self.feat(f"rule:{what}")
            if what == "nft-port" or what == "nft-all":
                m = f'iifname "{P}"' if what == "nft-port" else f"ether saddr {vm_mac(p)}"
                return kind, [["nft", "add table bridge xnx"],
                              ["nft", "add chain bridge xnx fwd { type filter hook forward priority 0; }"],
                              ["nft", f"add rule bridge xnx fwd {m} drop"]]
            if what == "ipt-port":
                return kind, [["iptables", f"-A FORWARD -m physdev --physdev-in {P} -j DROP"]]
            if what == "ipt-policy":
                return kind, [["iptables", "-P FORWARD DROP"]]
            return kind, [["nft", "add table bridge xnx"], ["nft", "delete table bridge xnx"],
                          ["iptables", "-F FORWARD"], ["iptables", "-P FORWARD ACCEPT"]]
        if kind == "nf":
            which = r.choice(["iptables", "iptables", "ip6tables", "arptables"])
            self.feat(f"nf:sysctl-{which}")
            return kind, [["sysctl", f"net.bridge.bridge-nf-call-{which}={r.randint(0, 1)}"]]
        if kind == "vlandev":
            # a VLAN device on a port takes its VLAN's frames before the
            # bridge; one on the bridge (an upper) takes them for the host
            dev, name = (P, f"{P}.7") if r.random() < 0.6 else ("{br}", "xnxbr.7")
            self.feat("vlandev:" + ("port" if dev == P else "bridge"))
            if r.random() < 0.3:
                return kind, [["ip", f"link del {name}"]]
            return kind, [["ip", f"link add link {dev} name {name} type vlan id 7"],
                          ["ip", f"link set {name} up"]]
        if kind == "stp":
            self.feat("stp")
            if r.random() < 0.5:
                return kind, [["ip", "link set {br} type bridge forward_delay 200"],
                              ["ip", "link set {br} type bridge stp_state 1"]]
            return kind, [["ip", "link set {br} type bridge stp_state 0"],
                          ["ip", "link set {br} type bridge forward_delay 360000"]]
        raise AssertionError(kind)

    # ------------------------------------------------------------ all
    def scenario(self):
        r = self.r
        self.n = r.randint(2, 8)
        self.kinds = [r.choice(["veth", "tap"]) for _ in range(self.n)]
        self.loc = {i: i for i in range(1, self.n + 1)}
        self.vids = [10, 20]
        setup = [["sysctl", f"net.bridge.bridge-nf-call-iptables={int(r.random() < 0.2)}"],
                 ["sysctl", f"net.bridge.bridge-nf-call-ip6tables={int(r.random() < 0.2)}"],
                 ["sysctl", "net.bridge.bridge-nf-call-arptables=0"]]
        for i in range(1, self.n + 1):
            setup.append(["ip", f"neigh replace 10.77.0.{i} lladdr {vm_mac(i)} dev {{br}} nud permanent"])
        if self.vlan:
            setup += self.vlan_setup()
        for _ in range(r.choice([0, 1, 2, 4])):
            setup += self.change(pre=True)[1]
        # hub mode, or long enough that nothing ages but where a sleep
        # says so: a short ageing would age entries by the worlds' timing
        ageing = self.ageing = r.choice([30000] * 7 + [0, 1000])
        self.feat(f"ageing:{ageing}")
        if ageing != 30000:
            setup.append(["ip", f"link set {{br}} type bridge ageing_time {ageing}"])
        steps = [self.learn_step()]
        for _ in range(r.randint(4, 14)):
            x = r.random()
            if x < 0.45:
                kind, cmds = self.change()
                steps.append({"do": cmds, "kind": kind, "bound": BOUNDS[kind], "nf_keep": kind in NF_KEEP})
            elif x < 0.55:
                steps.append(self.move_step())
            elif x < 0.6 and ageing == 1000:
                steps.append({"sleep": 11.5})
                self.feat("sleep")
            elif x < 0.75:
                steps.append(self.burst_step())
            else:
                steps.append(self.frames_step())
        steps.append(self.frames_step())
        attach_at = 1 if r.random() < 0.5 else r.randint(1, len(steps) - 1)
        self.feat(*(f"port:{k}" for k in self.kinds))
        return {"seed": self.seed, "vlan": self.vlan, "ports": [{"kind": k} for k in self.kinds],
                "setup": setup, "steps": steps, "attach_at": attach_at,
                "features": sorted(self.features)}

    def vlan_setup(self):
        """VLAN filtering on, each port a member of some VLANs (pvid,
        tagged or untagged)."""
        r = self.r
        self.feat("vlan_filtering")
        out = [["ip", "link set {br} type bridge vlan_filtering 1 vlan_protocol "
                + r.choice(["802.1Q", "802.1Q", "802.1ad"])]]
        for i in range(1, self.n + 1):
            for v in self.vids:
                x = r.random()
                if x < 0.3:
                    out.append(["bridge", f"vlan add dev xnxp{i} vid {v}"])
                elif x < 0.45:
                    out.append(["bridge", f"vlan add dev xnxp{i} vid {v} pvid untagged"])
                    self.feat("vlan:pvid")
            if r.random() < 0.3:
                out.append(["bridge", f"vlan del dev xnxp{i} vid 1"])
        return out


def scenario(seed, vlan=False):
    return Gen(seed, vlan).scenario()
