# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The netns topology: a stand-in host for VMs, built from network
namespaces, and the paths between its stand-in VMs.

  xnb-sw    the host: bridge xnbbr0 (10.77.0.254/24, the host's address),
            br_netfilter sysctls and iptables rules (per namespace)
  xnb-v1/2  veth stand-ins (eth0 10.77.0.1/.2; ports xnbv1/xnbv2)
  xnb-t1/2  tap stand-ins (vnet_relay relays virtio-net-header frames
            between port tap xnbt1/xnbt2 and eth0 in the namespace, like
            QEMU; 10.77.0.11/.12)
  xnb-d1/2  a direct veth pair, no switch (10.78.0.1/.2): the limit
  xnb-g     64 B generator: eth0 (10.77.0.21) on port xnbg, and xnbgd,
            a direct veth to xnbr0 in xnb-r (10.78.1.1/.2)
  xnbk      the forwarding test's receiving tap (xnb_tapsink), a port
            of xnbbr0, with the static FDB entry SINK_MAC
  xnbgt     a persistent tap port of xnbbr0: the 64 B generator's tap
            source (xnb_pktgen --tap writes into it as a guest would)

The host is an endpoint too: host->vm and vm->host tests run between the
bridge's own address in xnb-sw and a stand-in (the seeds' "host to vm",
"vm to host"). On the paths with nf, xnb-sw has br_netfilter on and the
realistic host's iptables rules (hostrules.py). The tc-minimal paths hook
scripts/bench_tools/xnb_minimal.bpf.c on TC ingress of every port (xnb_minimal
attach, a process of the run), its MAC map filled from the stand-ins'
addresses.

Nothing outside these namespaces is configured: br_netfilter's sysctls
and iptables are per network namespace.
"""

import os
import time

from . import hostrules, matrix
from .util import CmdError, netns, nsenter, out, read_file, run

SW = "xnb-sw"
BR = "xnbbr0"
HOST_IP = "10.77.0.254"
PREFIX = 24
SINK_TAP = "xnbk"
SINK_MAC = "02:78:6e:62:00:99"
SINK_IP = "10.77.0.99"
BRIDGE_MAC = "02:78:6e:62:00:fe"
# The host taps' sndbuf, set explicitly: INT_MAX is tun's default and
# QEMU's, and vhost-net only batches with it.
TAP_SNDBUF = 2147483647

# name: (namespace, bridge port or None, address in the namespace)
VMS = {
    "v1": ("xnb-v1", "xnbv1", "10.77.0.1"),
    "v2": ("xnb-v2", "xnbv2", "10.77.0.2"),
    "t1": ("xnb-t1", "xnbt1", "10.77.0.11"),
    "t2": ("xnb-t2", "xnbt2", "10.77.0.12"),
    "d1": ("xnb-d1", None, "10.78.0.1"),
    "d2": ("xnb-d2", None, "10.78.0.2"),
}
GEN_NS, GEN_PORT, GEN_IP = "xnb-g", "xnbg", "10.77.0.21"
GEN_DIRECT_DEV, RCV_NS, RCV_DEV = "xnbgd", "xnb-r", "xnbr0"
# The tap generator's port (persistent tap; xnb_pktgen --tap writes into
# it as a guest would) and the guest address its frames carry.
GEN_TAP, GEN_TAP_MAC, GEN_TAP_IP = "xnbgt", "02:78:6e:62:00:77", \
    "10.77.0.22"
GEN_DIRECT_IP, RCV_IP = "10.78.1.1", "10.78.1.2"
NAMESPACES = [SW] + [v[0] for v in VMS.values()] + [GEN_NS, RCV_NS]

OFFLOAD_FEATURES = ("tx", "sg", "tso", "gso", "gro")
# What ethtool -k reports, for the record.
FEATURE_NAMES = {
    "tx-checksumming": "tx_csum", "rx-checksumming": "rx_csum",
    "scatter-gather": "sg", "tcp-segmentation-offload": "tso",
    "generic-segmentation-offload": "gso",
    "generic-receive-offload": "gro",
}


class NetnsTopo:
    name = "netns"

    def __init__(self, root, procs, term, rules=300, iptables="iptables",
                 prog_stats=True, bypass_filters=False,
                 host_rules="docker+kube"):
        self.root = root
        self.procs = procs
        self.term = term
        self.rules = rules
        self.host_rules = hostrules.realistic(rules, host_rules)
        self.prog_stats = prog_stats
        self.stats_proc = None  # xnb_minimal stats (BPF_ENABLE_STATS)
        self.minimal = None    # Popen of xnb_minimal attach
        # attach --bypass-filters: only when asked (the report says so);
        # the realistic host's rules never match VM-to-VM frames.
        self.bypass_filters = bypass_filters
        # "iptables" (Debian 12: the nf_tables backend) or
        # "iptables-legacy".
        self.iptables = iptables
        self.xdpnet = os.path.join(root, "build", "xdpnet")
        # The breakdown paths' builds ({path: binary}, scripts/bench) and
        # the build and environment attached now.
        self.variant_bins = {}
        self.xdpnet_bin = self.xdpnet
        self.xdpnet_env = []
        self.relay = os.path.join(root, "build", "tests", "vnet_relay")
        self.tools = os.path.join(root, "build", "bench_tools")
        self.minimal_tool = os.path.join(self.tools, "xnb_minimal")
        self.relays = {}       # "t1" -> Popen
        self.relay_offloads = None
        self.sink = None       # Popen of xnb_tapsink
        self.servers = {}      # (ns, kind) -> Popen
        self.setting = None
        self.path = None       # path name in effect on the bridge
        self.switch_state = None  # (nf, rules, xdpnet mode, minimal, variant)
        self.defaults = {}     # (ns, dev) -> ethtool features at creation
        self.built = False
        self.brnf = None       # brnf.BrNetfilter: the host's values kept

    # ------------------------------------------------------------ helpers

    def ip(self, ns, *args, check=True):
        return run(["ip", "-n", ns] + list(args), check=check)

    def sysctl(self, ns, *assignments):
        """sysctl -w NAME=VALUE ... inside ns."""
        run(netns(ns, ["sysctl", "-qw"] + list(assignments)))

    def cat(self, ns, path):
        return out(netns(ns, ["cat", path])).strip()

    def dev_stat(self, ns, dev, name):
        return int(self.cat(ns, "/sys/class/net/%s/statistics/%s"
                            % (dev, name)))

    def xdpnet_cmd(self, *args, check=True, timeout=60):
        return run(nsenter(SW, ["env"] + self.xdpnet_env +
                           [self.xdpnet_bin] + list(args)), check=check,
                   timeout=timeout)

    # ----------------------------------------------------------- teardown

    @staticmethod
    def stale_cleanup(root):
        """Remove what an earlier, killed run left behind: our pins, our
        namespaces."""
        xdpnet = os.path.join(root, "build", "xdpnet")
        if os.path.isdir("/sys/fs/bpf/xdpnet/" + BR) and \
                os.path.exists("/run/netns/" + SW):
            run(nsenter(SW, [xdpnet, "detach", BR]), check=False)
        for ns in NAMESPACES:
            if os.path.exists("/run/netns/" + ns):
                run(["ip", "netns", "del", ns], check=False)

    def teardown(self):
        """Everything this topology created, in an order that cannot leave
        xdpnet pinned state behind."""
        if os.path.exists("/run/netns/" + SW):
            if os.path.isdir("/sys/fs/bpf/xdpnet/" + BR):
                self.xdpnet_cmd("detach", BR, check=False)
            # Our rules in our namespace; gone with it anyway.
            run(netns(SW, [self.iptables + "-restore"]), check=False,
                input_text=hostrules.empty())
        # xdpnet's run files of our bridge (lock, follower lock, log).
        for ext in ("lock", "follow", "pid", "log"):
            try:
                os.unlink("/run/xdpnet/%s.%s" % (BR, ext))
            except OSError:
                pass
        self.stop_minimal()
        if self.stats_proc:
            self.procs.stop(self.stats_proc)
            self.stats_proc = None
        for p in list(self.servers.values()):
            self.procs.stop(p)
        self.servers.clear()
        for p in list(self.relays.values()):
            self.procs.stop(p)
        self.relays.clear()
        if self.sink:
            self.procs.stop(self.sink)
            self.sink = None
        for ns in NAMESPACES:
            if os.path.exists("/run/netns/" + ns):
                run(["ip", "netns", "del", ns], check=False)
        self.built = False
        self.brnf = None       # brnf.BrNetfilter: the host's values kept

    # -------------------------------------------------------------- build

    def _ns_add(self, ns):
        run(["ip", "netns", "add", ns])
        self.ip(ns, "link", "set", "lo", "up")
        # Quiet namespaces: no IPv6 (router solicitations, MLD reports
        # would be multicast noise in the counters).
        self.sysctl(ns, "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1")
        # TCP_CRR opens tens of thousands of connections per cell.
        self.sysctl(ns, "net.ipv4.tcp_tw_reuse=1",
                    "net.ipv4.ip_local_port_range=1024 65535")

    def _addr_up(self, ns, dev, addr):
        self.ip(ns, "addr", "add", "%s/%d" % (addr, PREFIX), "dev", dev)
        self.ip(ns, "link", "set", dev, "up")

    def features(self, ns, dev):
        """ethtool -k DEV as {short name: 'on'|'off'}."""
        text = out(netns(ns, ["ethtool", "-k", dev]), check=False)
        res = {}
        for line in text.splitlines():
            k, _, v = line.strip().partition(":")
            if k in FEATURE_NAMES:
                res[FEATURE_NAMES[k]] = v.split()[0] if v.split() else "?"
        return res

    def build(self):
        for ns in NAMESPACES:
            self._ns_add(ns)
        # The host: the bridge and its own address.
        self.ip(SW, "link", "add", BR, "type", "bridge")
        # A fixed address: otherwise the bridge takes the lowest of its
        # ports' and changes it when a tap stand-in is recreated.
        self.ip(SW, "link", "set", BR, "address", BRIDGE_MAC)
        self.set_nf(False)
        self._addr_up(SW, BR, HOST_IP)
        # veth stand-ins.
        for key in ("v1", "v2"):
            ns, port, addr = VMS[key]
            self.ip(SW, "link", "add", port, "type", "veth", "peer", "name",
                    "eth0", "netns", ns)
            self.ip(SW, "link", "set", port, "master", BR, "up")
            self._addr_up(ns, "eth0", addr)
            self.defaults[(ns, "eth0")] = self.features(ns, "eth0")
        # The direct pair.
        d1, _, a1 = VMS["d1"]
        d2, _, a2 = VMS["d2"]
        self.ip(d1, "link", "add", "eth0", "type", "veth", "peer", "name",
                "eth0", "netns", d2)
        self._addr_up(d1, "eth0", a1)
        self._addr_up(d2, "eth0", a2)
        for ns in (d1, d2):
            self.defaults[(ns, "eth0")] = self.features(ns, "eth0")
        # Tap stand-ins (relays), the generator and the sink.
        self.start_relays(offloads="on")
        self.ip(SW, "link", "add", GEN_PORT, "type", "veth", "peer", "name",
                "eth0", "netns", GEN_NS)
        self.ip(SW, "link", "set", GEN_PORT, "master", BR, "up")
        self._addr_up(GEN_NS, "eth0", GEN_IP)
        self.ip(GEN_NS, "link", "add", GEN_DIRECT_DEV, "type", "veth",
                "peer", "name", RCV_DEV, "netns", RCV_NS)
        self._addr_up(GEN_NS, GEN_DIRECT_DEV, GEN_DIRECT_IP)
        self._addr_up(RCV_NS, RCV_DEV, RCV_IP)
        # The generator's frames arrive through XDP_TX on a veth: the
        # receiving end needs NAPI (GRO on). Threaded NAPI puts the
        # receive, and with it the whole switch path, in a kthread of its
        # own whose CPU time is measured (like a vhost-net worker).
        for ns, dev in ((SW, GEN_PORT), (RCV_NS, RCV_DEV)):
            run(netns(ns, ["ethtool", "-K", dev, "gro", "on"]))
            run(netns(ns, ["sh", "-c", "echo 1 > /sys/class/net/%s/threaded"
                           % dev]))
        self.start_sink()
        self.ip(SW, "tuntap", "add", "mode", "tap", "name", GEN_TAP)
        self.ip(SW, "link", "set", GEN_TAP, "master", BR, "up")
        if self.prog_stats:
            self.stats_proc = self.procs.start(
                "bpf-stats", [self.minimal_tool, "stats"], ready="READY")
        self.built = True
        self.warm()

    def build_taps(self):
        """The host and the tap stand-ins alone, offloads on (--progtime);
        teardown() removes them as it removes the whole topology."""
        taps = (VMS["t1"], VMS["t2"])
        for ns in [SW] + [t[0] for t in taps]:
            self._ns_add(ns)
        self.ip(SW, "link", "add", BR, "type", "bridge")
        self.ip(SW, "link", "set", BR, "address", BRIDGE_MAC)
        self.set_nf(False)
        self._addr_up(SW, BR, HOST_IP)
        self.start_relays(offloads="on")
        self.built = True
        for (ns, _, _), (_, _, dst) in ((taps[0], taps[1]),
                                        (taps[1], taps[0])):
            if not any(run(netns(ns, ["ping", "-c1", "-W2", "-q", dst]),
                           check=False).returncode == 0 for _ in range(3)):
                raise CmdError("no connectivity: %s -> %s" % (ns, dst))

    def start_sink(self):
        self.sink = self.procs.start(
            "tapsink", netns(SW, [os.path.join(self.tools, "xnb_tapsink"),
                                  "--tap", SINK_TAP]), ready="READY")
        self.ip(SW, "link", "set", SINK_TAP, "master", BR, "up")
        run(netns(SW, ["bridge", "fdb", "replace", SINK_MAC, "dev", SINK_TAP,
                       "master", "static"]))

    def start_relays(self, offloads):
        for key in ("t1", "t2"):
            ns, port, addr = VMS[key]
            if key in self.relays:
                self.procs.stop(self.relays.pop(key))
                self._stop_servers(ns)
                # The guest tap goes with the relay; wait for it.
                for _ in range(50):
                    if self.ip(ns, "link", "show", "eth0",
                               check=False).returncode:
                        break
                    time.sleep(0.1)
            self.relay_offloads = offloads
            argv = [self.relay, "--host-tap", port, "--guest-tap", "eth0",
                    "--netns", ns, "--sndbuf", str(TAP_SNDBUF)]
            if offloads == "off":
                argv.append("--no-csum")
            self.relays[key] = self.procs.start("relay-" + key,
                                                nsenter(SW, argv),
                                                ready="READY")
            self.ip(SW, "link", "set", port, "master", BR, "up")
            self._addr_up(ns, "eth0", addr)
            if (ns, "eth0") not in self.defaults:
                self.defaults[(ns, "eth0")] = self.features(ns, "eth0")

    def warm(self):
        """ARP and FDB entries everywhere before anything is measured."""
        pairs = [("xnb-v1", "10.77.0.2"), ("xnb-v2", "10.77.0.1"),
                 ("xnb-t1", "10.77.0.12"), ("xnb-t2", "10.77.0.11"),
                 ("xnb-v1", HOST_IP), ("xnb-v2", HOST_IP),
                 ("xnb-t1", HOST_IP), ("xnb-t2", HOST_IP),
                 (GEN_NS, HOST_IP), ("xnb-d1", "10.78.0.2"),
                 (GEN_NS, RCV_IP)]
        bad = []
        for ns, dst in pairs:
            ok = False
            for _ in range(3):
                if run(netns(ns, ["ping", "-c1", "-W2", "-q", dst]),
                       check=False).returncode == 0:
                    ok = True
                    break
            if not ok:
                bad.append("%s -> %s" % (ns, dst))
        if bad:
            raise CmdError("no connectivity: " + ", ".join(bad))

    # ----------------------------------------------------------- settings

    def set_offloads(self, ns, dev, on):
        """Guest-side offloads: on = as the interface came up; off = every
        frame leaves checksummed and MTU-sized, and nothing is coalesced
        on receive (a virtio-net guest with csum=off, per packet)."""
        if on:
            want = self.defaults.get((ns, dev), {})
            args = []
            for short in OFFLOAD_FEATURES:
                key = {"tx": "tx_csum"}.get(short, short)
                if want.get(key) in ("on", "off"):
                    args += [short, want[key]]
        else:
            args = []
            for short in OFFLOAD_FEATURES:
                args += [short, "off"]
        if args:
            run(netns(ns, ["ethtool", "-K", dev] + args), check=False)

    def apply_setting(self, setting):
        """Stand-in offloads and MTU everywhere. Detaches xdpnet first (an
        MTU change under native XDP may be refused)."""
        self.set_path("bridge")
        off = setting.offloads
        if self.relay_offloads != off:
            self.start_relays(off)
            self.warm_taps()
        for key in ("v1", "v2", "d1", "d2", "t1", "t2"):
            ns = VMS[key][0]
            self.set_offloads(ns, "eth0", off == "on")
        mtu = str(setting.mtu)
        for key in ("v1", "v2", "t1", "t2"):
            ns, port, _ = VMS[key]
            self.ip(SW, "link", "set", port, "mtu", mtu)
            self.ip(ns, "link", "set", "eth0", "mtu", mtu)
        for key in ("d1", "d2"):
            self.ip(VMS[key][0], "link", "set", "eth0", "mtu", mtu)
        # The generator's ports and the sink stay at 1500 (64 B frames);
        # the bridge takes the smallest MTU of its ports unless set.
        self.ip(SW, "link", "set", BR, "mtu", mtu)
        self.setting = setting
        self.warm()

    def warm_taps(self):
        for ns, dst in (("xnb-t1", "10.77.0.12"), ("xnb-t2", "10.77.0.11")):
            run(netns(ns, ["ping", "-c1", "-W2", "-q", dst]), check=False)

    # -------------------------------------------------------------- paths

    def set_nf(self, on):
        """br_netfilter and the iptables FORWARD rules of the host. Without
        the module (brnf.py: the run then has no path that needs it),
        bridged frames meet no iptables, and there is nothing to switch
        off."""
        v = 1 if on else 0
        if on or os.path.isdir("/proc/sys/net/bridge"):
            self.sysctl(SW, "net.bridge.bridge-nf-call-iptables=%d" % v,
                        "net.bridge.bridge-nf-call-ip6tables=%d" % v,
                        "net.bridge.bridge-nf-call-arptables=%d" % v)
            if self.brnf:
                self.brnf.check_host()
        rules = self.host_rules["restore"] if on else hostrules.empty()
        run(netns(SW, [self.iptables + "-restore"]), input_text=rules)

    def set_path(self, path):
        """Make the host forward as path says (direct needs nothing)."""
        spec = matrix.PATHS[path]
        if spec["kind"] == "direct":
            return
        variant, vspec = matrix.variant_of(path)
        want = (spec["nf"], self.rules if spec["nf"] else 0, spec["xdpnet"],
                spec["minimal"], variant)
        if want == self.switch_state:
            self.path = path
            return
        cur = self.switch_state or (None, None, None, None, None)
        # Off first: two programs on one tcx hook would run one after the
        # other.
        if cur[3] != want[3]:
            self.stop_minimal()
        # Another build (or datapath) of xdpnet: detached by the one that
        # attached, then attached anew, not upgraded in place.
        if (spec["xdpnet"] is None or cur[4] != variant) and \
                os.path.isdir("/sys/fs/bpf/xdpnet/" + BR):
            self.xdpnet_cmd("detach", BR)
        if (cur[0], cur[1]) != (want[0], want[1]):
            self.set_nf(spec["nf"])
        if spec["xdpnet"] is not None:
            self.xdpnet_bin = self.variant_bins.get(path, self.xdpnet)
            self.xdpnet_env = ["%s=%s" % kv for kv in
                               sorted((vspec or {}).get("env", {}).items())]
            self.xdpnet_cmd(*self.attach_argv(spec["xdpnet"]))
        if spec["minimal"] is not None and self.minimal is None:
            self.start_minimal(spec["minimal"])
        self.switch_state = want
        self.path = path
        time.sleep(0.2)

    def attach_argv(self, mode):
        """xdpnet attach's arguments: as a user runs it, with its follower
        (idle while nothing changes). The topology does not quite hold
        still: the generator's tap has no carrier until xnb_pktgen opens
        it, and a port without carrier is held on the bridge until the
        follower sees it come up (with --no-follow it stayed held, and
        fwd64_tap never took the bypass)."""
        argv = ["attach", BR, "--mode", mode]
        if self.bypass_filters:
            argv.append("--bypass-filters")
        return argv

    # ------------------------------------------------------- tc-minimal

    def minimal_ports(self):
        """[(port, MAC behind it or None, veth?)]: where tc-minimal hooks
        and what its map holds: every stand-in's MAC -> its port, the
        sink's MAC -> the sink tap."""
        res = []
        for key in ("v1", "v2", "t1", "t2"):
            ns, port, _ = VMS[key]
            res.append((port, self.mac(ns, "eth0"), key[0] == "v"))
        res.append((GEN_PORT, self.mac(GEN_NS, "eth0"), True))
        res.append((GEN_TAP, None, False))
        res.append((SINK_TAP, SINK_MAC, False))
        return res

    def start_minimal(self, kind):
        """xnb_minimal attach on every port; with kind 'peer', frames to a
        veth port go to its peer (bpf_redirect_peer()); with kind 'xdp'
        (xdp-minimal), its XDP program on the tap ports too, whose devmap
        holds the taps alone: a veth takes XDP frames only with NAPI on
        its peer, so frames to the veth ports pass on to TC."""
        argv = [self.minimal_tool, "attach",
                "--hook", os.environ.get("XDPNET_TC_HOOK", "tcx")]
        for port, mac, veth in self.minimal_ports():
            argv += ["--xdp-dev" if kind == "xdp" and not veth else "--dev",
                     port]
            if mac:
                argv += ["--fdb", "%s=%s%s" % (
                    mac, port, ",peer" if kind == "peer" and veth else "")]
        self.minimal = self.procs.start("tc-minimal", nsenter(SW, argv),
                                        ready="READY")

    def stop_minimal(self):
        if self.minimal is not None:
            self.procs.stop(self.minimal)
            self.minimal = None

    def progs(self, ports):
        """The BPF programs on the ports' TC ingress and XDP hooks, with
        their run-time statistics (xnb_minimal progs)."""
        argv = [self.minimal_tool, "progs"]
        for p in ports:
            argv += ["--dev", p]
        hook = os.environ.get("XDPNET_TC_HOOK")
        text = out(nsenter(SW, argv))
        from .parse import parse_progs, parse_tc_filters
        progs = parse_progs(text)
        # clsact filters: asked for, or where the kernel has no tcx
        # (Linux < 6.6: xdpnet and xnb_minimal fall back to them).
        if hook == "clsact" or not any(
                p.get("hook") == "tcx" for p in progs):
            ids = set()
            for p in ports:
                ids |= set(parse_tc_filters(out(
                    ["tc", "-n", SW, "-j", "filter", "show", "dev", p,
                     "ingress"], check=False)))
            if ids:
                argv = [self.minimal_tool, "progs"]
                for i in sorted(ids):
                    argv += ["--id", str(i)]
                progs += parse_progs(out(nsenter(SW, argv)))
        return progs

    def nf_forward_packets(self):
        text = out(netns(SW, [self.iptables, "-L", "FORWARD", "-v", "-x",
                              "-n"]))
        from .parse import parse_iptables_policy
        return parse_iptables_policy(text)

    def nf_rule_count(self):
        """Rules in the filter and nat tables of the host."""
        n = 0
        for table in ("filter", "nat"):
            text = out(netns(SW, [self.iptables, "-t", table, "-S"]))
            n += sum(1 for ln in text.splitlines() if ln.startswith("-A "))
        return n

    def status_json(self):
        return self.xdpnet_cmd("status", BR, "--json").stdout

    # ----------------------------------------------------------- endpoints

    def endpoints(self, setting, item, path):
        """Client and server for an item on a path: namespaces, server
        address, and the bridge ports the test's frames enter."""
        direct = matrix.PATHS[path]["kind"] == "direct"
        if direct:
            a, b = VMS["d1"], VMS["d2"]
        elif setting.standin == "tap":
            a, b = VMS["t1"], VMS["t2"]
        else:
            a, b = VMS["v1"], VMS["v2"]
        host = (SW, None, HOST_IP)
        if item.direction == "vm-vm":
            c, s = a, b
        elif item.direction == "host-vm":
            c, s = host, b
        else:
            c, s = a, host
        ports = [x[1] for x in (c, s) if x[1]]
        return {"client_ns": c[0], "server_ns": s[0], "server_ip": s[2],
                "client_ip": c[2], "ports": ports,
                "bypass": item.direction == "vm-vm" and not direct}

    def client(self, ns, argv, timeout):
        """Run a test client in ns; returns what run() returns."""
        return run(netns(ns, argv), check=False, timeout=timeout)

    # ------------------------------------------------------------- servers

    def _stop_servers(self, ns):
        for key in [k for k in self.servers if k[0] == ns]:
            self.procs.stop(self.servers.pop(key))

    def _listening(self, ns, p, proto, port, name, timeout=10.0):
        """Wait until p listens on port (proto "t": TCP, "u": UDP) in ns:
        a client started earlier finds nobody there (a loaded host took
        longer than any fixed wait)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and p.poll() is None:
            if out(netns(ns, ["ss", "-Hln" + proto, "sport = :%d" % port]),
                   check=False).strip():
                return
            time.sleep(0.05)
        if p.poll() is None:
            raise CmdError("%s does not listen on %d after %g s (see "
                           "%s.log)" % (name, port, timeout, name))

    def server(self, ns, ip, kind, restart=False):
        """A long-lived server in ns: iperf3, sockperf (udp/tcp), xnb_crr."""
        key = (ns, kind)
        p = self.servers.get(key)
        if p is not None and (restart or p.poll() is not None):
            self.procs.stop(p)
            self.servers.pop(key, None)
            p = None
        if p is not None:
            return p
        name = "srv-%s-%s" % (ns, kind)
        if kind == "iperf3":
            # --rcv-timeout ends a test whose client went away (else the
            # server hangs in it and every later client waits);
            # --idle-timeout restarts a server stuck anyway.
            argv = ["iperf3", "-s", "-B", ip, "-p", "5201",
                    "--rcv-timeout", "5000", "--idle-timeout", "30"]
            p = self.procs.start(name, netns(ns, argv))
            self._listening(ns, p, "t", 5201, name)
        elif kind in ("sockperf-udp", "sockperf-tcp"):
            port = 11111 if kind == "sockperf-udp" else 11112
            argv = ["sockperf", "sr", "-i", ip, "-p", str(port)]
            if kind == "sockperf-tcp":
                argv.append("--tcp")
            p = self.procs.start(name, netns(ns, argv))
            self._listening(ns, p, "u" if kind == "sockperf-udp" else "t",
                            port, name)
        elif kind == "crr":
            argv = [os.path.join(self.tools, "xnb_crr"), "server", "--bind",
                    ip, "--port", "7100"]
            p = self.procs.start(name, netns(ns, argv), ready="READY")
        else:
            raise ValueError(kind)
        if p.poll() is not None:
            raise CmdError("%s exited at once (see %s.log)" % (name, name))
        self.servers[key] = p
        return p

    # ------------------------------------------------------------ records

    def describe(self):
        """The topology's fixed facts, for the record."""
        def queues(ns, dev):
            q = out(netns(ns, ["ls", "/sys/class/net/%s/queues" % dev]),
                    check=False).split()
            return {"rx": sum(1 for x in q if x.startswith("rx-")),
                    "tx": sum(1 for x in q if x.startswith("tx-"))}

        def qdisc(ns, dev):
            t = out(["tc", "-n", ns, "qdisc", "show", "dev", dev],
                    check=False).split()
            return t[1] if len(t) > 1 else "?"

        info = {"bridge": BR, "host_namespace": SW, "host_ip": HOST_IP,
                "ageing_time": self.cat(SW, "/sys/class/net/%s/bridge/"
                                        "ageing_time" % BR),
                "stp": self.cat(SW, "/sys/class/net/%s/bridge/stp_state"
                                % BR),
                "ports": {},
                "host_rules": {k: v for k, v in self.host_rules.items()
                               if k != "restore"},
                "tc_hook": os.environ.get("XDPNET_TC_HOOK", "tcx"),
                "xdpnet_attach": " ".join(self.attach_argv("MODE")),
                "prog_stats": bool(self.prog_stats)}
        for key in ("v1", "v2", "t1", "t2"):
            ns, port, addr = VMS[key]
            info["ports"][port] = {
                "standin": key, "namespace": ns, "address": addr,
                "kind": "veth" if key[0] == "v" else "tap",
                "queues": queues(SW, port), "qdisc": qdisc(SW, port),
                "txqueuelen": self.cat(SW, "/sys/class/net/%s/tx_queue_len"
                                       % port)}
            if key[0] == "t":
                info["ports"][port]["sndbuf"] = (
                    "%d (TUNSETSNDBUF; tun's and QEMU's default)"
                    % TAP_SNDBUF)
        info["ports"][SINK_TAP] = {"kind": "tap (xnb_tapsink)",
                                   "qdisc": qdisc(SW, SINK_TAP),
                                   "queues": queues(SW, SINK_TAP),
                                   "static_fdb": SINK_MAC}
        info["ports"][GEN_PORT] = {"kind": "veth (generator)",
                                   "gro": "on", "napi": "threaded"}
        info["ports"][GEN_TAP] = {"kind": "tap (generator, xnb_pktgen "
                                  "--tap)", "guest_mac": GEN_TAP_MAC}
        return info

    def offload_snapshot(self, setting):
        """ethtool -k on both ends of every stand-in in use."""
        snap = {}
        keys = ("t1", "t2") if setting.standin == "tap" else ("v1", "v2")
        for key in keys + ("d1", "d2"):
            ns, port, _ = VMS[key]
            snap["%s:eth0" % ns] = self.features(ns, "eth0")
            if port:
                snap["%s:%s" % (SW, port)] = self.features(SW, port)
            snap["%s:eth0:mtu" % ns] = self.cat(
                ns, "/sys/class/net/eth0/mtu")
        return snap

    def guest_features(self, setting):
        """ethtool -k of the stand-ins' own interfaces now (an XDP
        program on a veth port changes what its peer may offload)."""
        keys = ("t1", "t2") if setting.standin == "tap" else ("v1", "v2")
        return {"%s:eth0" % VMS[k][0]: self.features(VMS[k][0], "eth0")
                for k in keys}

    # ----------------------------------------------------------- fwd64 bits

    def napi_threads(self, dev):
        """PIDs of the threaded-NAPI kthreads of dev (comm napi/DEV-ID)."""
        pids = []
        prefix = "napi/%s-" % dev
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            comm = read_file("/proc/%s/comm" % d, "") or ""
            if comm.startswith(prefix):
                pids.append(int(d))
        return pids

    def mac(self, ns, dev):
        return self.cat(ns, "/sys/class/net/%s/address" % dev)
