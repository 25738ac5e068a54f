# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The convergence benchmark's stand-in host, in network namespaces with
the prefix xnc:

  xnc-sw      the host: bridge xncbr0 (STP off), a second bridge xncbr1
              (the other bridge a port moves to), and the path marker
  xnc-a/b/c   veth stand-ins (eth0 10.97.0.1/.2/.3), ports xnca/b/c
  xnc-t       a tap stand-in behind vnet_relay (10.97.0.4), port xnct

The path marker: an nftables bridge-family rule on the forward hook sets
DSCP CS1 on every frame of the probe that the bridge forwards. Bypassed
frames never pass that hook. br_netfilter stays out of the way
(bridge-nf-call-* 0 in xnc-sw), so the bridge path is the plain one.

The stand-ins are silent apart from the probe: IPv6 off, static ARP
entries for each other.
"""

import json
import os
import subprocess
import time

from .probe import Guest, PORT
from .nsutil import xn_argv

SW = "xnc-sw"
BR = "xncbr0"
BR2 = "xncbr1"
PIN_ROOT = "/sys/fs/bpf/xdpnet"
NFT_TABLE = "xncmark"


def sh(argv, check=True, timeout=30):
    cp = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True, timeout=timeout)
    if check and cp.returncode:
        raise RuntimeError("%s: exit %d: %s" % (
            " ".join(argv), cp.returncode, cp.stderr.strip()))
    return cp


def ipn(ns, *args, check=True):
    return sh(["ip", "-n", ns] + list(args), check=check)


def nsx(ns, *args, check=True):
    return sh(["ip", "netns", "exec", ns] + list(args), check=check)


GUESTS = {
    # name: (namespace, port, ip, mac, kind)
    "A": ("xnc-a", "xnca", "10.97.0.1", "02:97:00:00:00:01", "veth"),
    "B": ("xnc-b", "xncb", "10.97.0.2", "02:97:00:00:00:02", "veth"),
    "C": ("xnc-c", "xncc", "10.97.0.3", "02:97:00:00:00:03", "veth"),
    "T": ("xnc-t", "xnct", "10.97.0.4", "02:97:00:00:00:04", "tap"),
}
NAMESPACES = [SW] + [g[0] for g in GUESTS.values()]


class Topo:
    def __init__(self, root, workdir):
        self.root = root
        self.xdpnet = os.path.join(root, "build", "xdpnet")
        self.relay_bin = os.path.join(root, "build", "tests", "vnet_relay")
        self.work = workdir
        self.scratch = os.path.join(workdir, "bpffs")
        os.makedirs(self.scratch, exist_ok=True)
        self.guests = {n: Guest(n, g[0], g[1], g[2], g[3])
                       for n, g in GUESTS.items()}
        self.relay = None

    # ------------------------------------------------------------ CLI

    def xn(self, *args, env=None, check=True, timeout=60):
        e = dict(os.environ)
        e.update(env or {})
        cp = subprocess.run(xn_argv(SW, self.xdpnet, args, self.scratch),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=timeout, env=e)
        if check and cp.returncode:
            raise RuntimeError("xdpnet %s: exit %d: %s" % (
                " ".join(args), cp.returncode, cp.stderr.strip()))
        return cp

    def xn_popen(self, *args, env=None):
        e = dict(os.environ)
        e.update(env or {})
        return subprocess.Popen(xn_argv(SW, self.xdpnet, args, self.scratch),
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=e)

    # ------------------------------------------------------- building

    def bridge_up(self):
        ipn(SW, "link", "add", BR, "type", "bridge", "stp_state", "0")
        ipn(SW, "link", "set", BR, "up")

    def ipcmd(self, argv, check=True):
        return sh(argv, check=check)

    def up(self):
        self.down()
        for ns in NAMESPACES:
            sh(["ip", "netns", "add", ns])
            ipn(ns, "link", "set", "lo", "up")
            nsx(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1")
        for k in ("iptables", "ip6tables", "arptables"):
            nsx(SW, "sysctl", "-qw", "net.bridge.bridge-nf-call-%s=0" % k,
                check=False)
        self.bridge_up()
        ipn(SW, "link", "add", BR2, "type", "bridge", "stp_state", "0")
        ipn(SW, "link", "set", BR2, "up")
        self.marker()
        for n in ("A", "B", "C"):
            self.veth_add(n)
            self.enslave(n)
        self.relay_start()
        self.enslave("T")
        for g in self.guests.values():
            g.open()
        self.wait_forwarding(["A", "B", "C", "T"])

    def marker(self):
        rules = ("table bridge %s {\n chain xncfwd {\n"
                 "  type filter hook forward priority 0; policy accept;\n"
                 "  udp dport %d ip dscp set cs1\n }\n}\n" % (NFT_TABLE, PORT))
        cp = subprocess.run(["ip", "netns", "exec", SW, "nft", "-f", "-"],
                            input=rules, text=True, stderr=subprocess.PIPE)
        if cp.returncode:
            raise RuntimeError("nft: %s" % cp.stderr.strip())

    def guest_conf(self, n):
        g = self.guests[n]
        ipn(g.ns, "link", "set", "eth0", "address", g.mac)
        ipn(g.ns, "addr", "add", g.ip + "/24", "dev", "eth0")
        ipn(g.ns, "link", "set", "eth0", "up")
        for o in self.guests.values():
            if o is not g:
                ipn(g.ns, "neigh", "replace", o.ip, "lladdr", o.mac, "dev",
                    "eth0", "nud", "permanent")

    def veth_add(self, n):
        g = self.guests[n]
        ipn(SW, "link", "add", g.port, "type", "veth", "peer", "name",
            "eth0", "netns", g.ns)
        self.guest_conf(n)

    def enslave(self, n, bridge=BR):
        ipn(SW, "link", "set", self.guests[n].port, "master", bridge, "up")

    def relay_start(self):
        g = self.guests["T"]
        log = open(os.path.join(self.work, "relay.log"), "a")
        self.relay = subprocess.Popen(
            ["ip", "netns", "exec", SW, self.relay_bin, "--host-tap",
             g.port, "--guest-tap", "eth0", "--netns", g.ns],
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
            text=True)
        line = self.relay.stdout.readline()
        if line.strip() != "READY":
            raise RuntimeError("vnet_relay did not start (see relay.log)")
        self.guest_conf("T")

    def wait_forwarding(self, names, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            if all(self.port_state(self.guests[n].port) == "forwarding"
                   for n in names):
                return
            time.sleep(0.05)
        raise RuntimeError("ports %s not forwarding" % names)

    def port_state(self, port):
        cp = sh(["bridge", "-n", SW, "-j", "link", "show", "dev", port],
                check=False)
        try:
            return json.loads(cp.stdout)[0].get("state")
        except (ValueError, IndexError):
            return None

    def ifindex(self, name, ns=SW):
        cp = ipn(ns, "-j", "link", "show", name, check=False)
        try:
            return json.loads(cp.stdout)[0]["ifindex"]
        except (ValueError, IndexError, KeyError):
            return None

    # ------------------------------------------------------ tearing down

    def relay_stop(self):
        if self.relay and self.relay.poll() is None:
            self.relay.terminate()
            try:
                self.relay.wait(5)
            except subprocess.TimeoutExpired:
                self.relay.kill()
                self.relay.wait()
        self.relay = None

    def down(self):
        for g in self.guests.values():
            g.close()
        if os.path.exists("/run/netns/" + SW) and \
                os.path.exists(os.path.join(PIN_ROOT, BR)):
            self.xn("detach", BR, check=False)
        self.relay_stop()
        for ns in NAMESPACES:
            sh(["ip", "netns", "del", ns], check=False)
        if os.path.exists(os.path.join(PIN_ROOT, BR)):
            sh(["rm", "-rf", os.path.join(PIN_ROOT, BR)], check=False)
        for ext in ("lock", "follow", "pid", "log"):  # xdpnet's run files
            try:
                os.unlink("/run/xdpnet/%s.%s" % (BR, ext))
            except OSError:
                pass
