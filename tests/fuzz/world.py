# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One bridge of a scenario: its namespaces, ports and sockets.

World w of a run: the switch namespace xnx-sW with the bridge xnxbW (MAC
02:fe:00:00:00:fe) and ports xnxp1..N (MAC 02:fe:00:00:00:0i: the same
names and addresses in every world, so that one scenario reads the same in
each), and the guest namespace xnx-gW with the far ends xnxe1..N (a veth's
peer, or the guest tap of a vnet_relay). Everything starts with "xnx".
"""
import json
import os
import subprocess
import time

import frames
from nsnet import Anchor, Fdb, Port, sh

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("XNX_BUILD", os.path.join(ROOT, "build"))
XDPNET = os.environ.get("XDPNET", os.path.join(BUILD, "xdpnet"))
RELAY = os.environ.get("RELAY", os.path.join(BUILD, "tests", "vnet_relay"))
TCDROP = os.path.join(BUILD, "tests", "xnt_tcdrop.bpf.o")
PFX = "xnx"
BRMAC = "02:fe:00:00:00:fe"
FENCE = 0xFFFFFF00
GUEST_MTU = 9000


def port_mac(i):
    return f"02:fe:00:00:00:{i:02x}"


def stale():
    """Remove what an earlier run that died left behind."""
    for n in sh(["ip", "netns", "list"]).stdout.split():
        if n.startswith(PFX + "-"):
            sh(["ip", "netns", "del", n], check=False)
    for d in os.listdir("/sys/fs/bpf/xdpnet") if os.path.isdir("/sys/fs/bpf/xdpnet") else []:
        if d.startswith(PFX + "b"):
            sh(["rm", "-rf", f"/sys/fs/bpf/xdpnet/{d}"], check=False)


class World:
    def __init__(self, w, variant, scn):
        self.w, self.v, self.scn = w, variant, scn
        self.sw, self.gns, self.br = f"{PFX}-s{w}", f"{PFX}-g{w}", f"{PFX}b{w}"
        self.n = len(scn["ports"])
        self.relays, self.anchors = [], []
        self.attached = False
        self.log = []

    # ------------------------------------------------------------ set-up
    def build(self):
        for ns in (self.sw, self.gns):
            sh(["ip", "netns", "add", ns])
            sh(["ip", "-n", ns, "link", "set", "lo", "up"])
            sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1"])
        b = [f"link add {self.br} address {BRMAC} type bridge stp_state 0 forward_delay 360000"]
        for i, p in enumerate(self.scn["ports"], 1):
            if p["kind"] == "veth":
                b.append(f"link add xnxp{i} address {port_mac(i)} type veth peer name xnxe{i} "
                         f"netns {self.gns}")
            else:
                self.relay(i)
                b.append(f"link set xnxp{i} address {port_mac(i)}")
            b.append(f"link set xnxp{i} master {self.br} up")
        b.append(f"link set {self.br} up")
        self.batch("ip", b, force=False)
        g = []
        for i in range(1, self.n + 1):
            g.append(f"link set xnxe{i} address 02:fd:00:00:{self.w:02x}:{i:02x} mtu {GUEST_MTU} up")
        self.gbatch(g)
        self.anchor = Anchor(self.sw)
        self.ganchor = Anchor(self.gns)
        self.anchors = [self.anchor, self.ganchor]
        self.guest = [None] + [Port(self.gns, f"xnxe{i}") for i in range(1, self.n + 1)]
        self.fence = [None] + [Port(self.sw, f"xnxp{i}", direct=True) for i in range(1, self.n + 1)]
        self.host = Port(self.sw, self.br)
        self.fdb = Fdb(self.sw, self.br)

    def relay(self, i):
        # started in the switch's namespace, its guest tap moved to ours
        p = subprocess.Popen(["ip", "netns", "exec", self.sw, RELAY, "--host-tap", f"xnxp{i}",
                              "--guest-tap", f"xnxe{i}", "--netns", self.gns],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if p.stdout.readline().strip() != "READY":
            raise RuntimeError(f"relay {i} not ready")
        self.relays.append(p)

    def teardown(self):
        """Everything goes; returns what detach left (its pins), if any."""
        left = None
        if self.attached:
            rc = self.xdpnet("detach", self.br, check=False)
            pin = f"/sys/fs/bpf/xdpnet/{self.br}"
            if os.path.exists(pin):
                left = f"detach of {self.br} ({self.v}) exited {rc} and left {pin}: " + \
                    " ".join(sorted(os.listdir(pin))) + f"; {self.log[-1]}"
                sh(["rm", "-rf", pin], check=False)
        for s in getattr(self, "guest", [])[1:] + getattr(self, "fence", [])[1:]:
            s.close()
        for p in self.relays:
            p.terminate()
        for p in self.relays:
            p.wait()
        for a in self.anchors:
            a.stop()
        for ns in (self.sw, self.gns):
            sh(["ip", "netns", "del", ns], check=False)
        for f in ("lock", "follow", "pid", "log", "dump"):
            try:
                os.unlink(f"/run/xdpnet/{self.br}.{f}")
            except OSError:
                pass
        return left

    # ------------------------------------------------------------ commands
    def batch(self, tool, lines, force=True):
        if not lines:
            return True
        cmd = [tool, "-n", self.sw] + (["-force"] if force else []) + ["-batch", "-"]
        r = sh(cmd, check=not force, inp="\n".join(lines) + "\n")
        self.log.append((tool, lines, r.returncode, r.stderr.strip()))
        return r.returncode == 0

    def gbatch(self, lines):
        r = sh(["ip", "-n", self.gns, "-force", "-batch", "-"], check=False, inp="\n".join(lines) + "\n")
        self.log.append(("gip", lines, r.returncode, r.stderr.strip()))

    def do(self, cmds):
        """Apply a change: [(tool, line), ...], consecutive ones of a tool
        in one batch. Lines name the bridge as {br} and tc's drop program
        as {tcdrop}."""
        group, tool = [], None
        for t, line in cmds + [(None, None)]:
            if t != tool and group:
                self.run_tool(tool, group)
                group = []
            tool = t
            if line is not None:
                group.append(line.replace("{br}", self.br).replace("{tcdrop}", TCDROP))

    def run_tool(self, tool, lines):
        if tool in ("ip", "bridge", "tc"):
            self.batch(tool, lines)
        elif tool == "gip":
            self.gbatch(lines)
        elif tool == "nft":
            r = sh(["ip", "netns", "exec", self.sw, "nft", "-f", "-"], check=False,
                   inp="\n".join(lines) + "\n")
            self.log.append((tool, lines, r.returncode, r.stderr.strip()))
        elif tool in ("iptables", "sysctl"):
            for line in lines:
                cmd = [tool, "-w"] if tool == "iptables" else [tool, "-qw"]
                r = sh(["ip", "netns", "exec", self.sw] + cmd + line.split(), check=False)
                self.log.append((tool, [line], r.returncode, r.stderr.strip()))
        else:
            raise ValueError(tool)

    # ------------------------------------------------------------ xdpnet
    def xdpnet(self, *args, check=True):
        env = dict(os.environ, XDPNET_FOLLOWER="daemon")
        if self.v.get("build") == "portable":
            env["XDPNET_DATAPATH"] = "portable"
        r = subprocess.run(["timeout", "-k", "5", "60", "nsenter", f"--net=/run/netns/{self.sw}",
                            XDPNET] + list(args), env=env, capture_output=True, text=True)
        self.log.append(("xdpnet", [" ".join(args)], r.returncode, r.stderr.strip()))
        if check and r.returncode not in (0, 9):
            raise RuntimeError(f"xdpnet {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return r.returncode

    def bypassed(self):
        """Frames the datapath redirected (every port, both stages)."""
        if not self.attached:
            return 0
        r = subprocess.run(["nsenter", f"--net=/run/netns/{self.sw}", XDPNET, "status", self.br,
                            "--json"], capture_output=True, text=True)
        try:
            ports = json.loads(r.stdout)["bridges"][0]["ports"]
        except (ValueError, KeyError, IndexError):
            return 0
        return sum(p.get("counters", {}).get(c, {}).get("packets", 0)
                   for p in ports for c in ("tc_redirect", "xdp_redirect"))

    def attach(self):
        args = ["attach", self.br, "--mode", self.v["mode"]]
        if self.v.get("nf"):
            args.append("--no-follow")
        rc = self.xdpnet(*args)
        self.attached = self.attached or rc == 0
        return rc

    # ------------------------------------------------------------ frames
    def up(self, i):
        """Can a fence reach guest i? (both ends up)"""
        return self.anchor.read(f"xnxp{i}", "operstate") in ("up", "unknown") and \
            self.ganchor.read(f"xnxe{i}", "operstate") in ("up", "unknown")

    def send(self, d):
        f, hdr = frames.build(d)
        p = d["port"]
        r0 = self.anchor.rx(f"xnxp{p}")
        if not self.guest[p].send(f, hdr):
            return
        # until the frame is in its port: frames from two relays stay in order
        end = time.monotonic() + 0.1
        while self.anchor.rx(f"xnxp{p}") == r0 and time.monotonic() < end:
            time.sleep(0.0005)

    def settle(self):
        """Two rounds of fence frames out of every port (past its qdisc and
        tc): what the step's frames caused has arrived once both come."""
        for rnd in (0, 1):
            want = [i for i in range(1, self.n + 1) if self.up(i)]
            fence = frames.mark(FENCE + rnd) + bytes(40)
            f = bytes.fromhex("ffffffffffff") + bytes.fromhex("02fe000000fd") + b"\x88\xb5" + fence
            want = [i for i in want if self.fence[i].send(f)]
            self.collect_until(want, FENCE + rnd)

    def collect_until(self, want, fid):
        end = time.monotonic() + 1.0
        left = set(want)
        while left and time.monotonic() < end:
            for i in list(left):
                got = self.guest[i].recv_all()
                self.pending.setdefault(i, []).extend(got)
                if any(frames.marker_of(fr) == fid for _, fr in got):
                    left.discard(i)
            if left:
                time.sleep(0.0005)

    def run_frames(self, ds):
        """Send the frames, wait until everything they caused arrived:
        {port: [(vnet, frame)]} (port "h": the host)."""
        self.pending = {}
        for d in ds:
            self.send(d)
        self.settle()
        for i in range(1, self.n + 1):
            self.pending.setdefault(i, []).extend(self.guest[i].recv_all())
        self.pending["h"] = self.host.recv_all()
        return self.pending
