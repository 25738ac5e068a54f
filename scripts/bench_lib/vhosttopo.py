# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The vhost topology (--topology vhost): two user-space vhost-net "VMs"
on taps of one bridge, with no VM and no KVM.

  xnb-sw    the host, as in the netns topology: bridge xnbbr0, br_netfilter
            and the realistic host's iptables rules on the nf paths
  xnbh1/2   the VMs' taps (multi-queue, vnet header, sndbuf INT_MAX as
            QEMU sets it), held open by a process of the run with one
            detached queue, so that their carrier stays on while the
            xnb_vhost processes of each cell come and go

A cell's xnb_vhost processes (scripts/bench_tools/xnb_vhost*.c) play the
guests' virtio-net drivers against /dev/vhost-net: frames leave through
vhost-net's handle_tx (tun_sendmsg(): batches of XDP buffers through
tun_xdp_one() for every frame that fits a page) and arrive through
handle_rx, as a KVM guest's do. The VMs' MACs are static FDB entries of
the bridge (a receiver that only receives would otherwise stay unknown,
and every frame to it would flood).

Where the kernel has kprobes and tracefs, a kprobe on tun_sendmsg counts
the frames vhost-net handed over as XDP buffers (TUN_MSG_PTR) in every
cell: the proof that the cell's frames took that path.
"""

import os
import platform
import re
import subprocess
import sys
import time

from . import topo as topo_mod
from .util import CmdError, netns, read_file, run

SW, BR = topo_mod.SW, topo_mod.BR
# name: (tap, MAC, address)
VHOST_VMS = {
    "h1": ("xnbh1", "02:78:6e:62:01:01", "10.77.1.1"),
    "h2": ("xnbh2", "02:78:6e:62:01:02", "10.77.1.2"),
}
TRACEFS = "/sys/kernel/tracing"
PROBE_GROUP = "xnbv"
INSTANCE = os.path.join(TRACEFS, "instances", PROBE_GROUP)

# Holds a multi-queue tap as a VM's QEMU does (TUNSETIFF with
# IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE), its queue
# detached (TUNSETQUEUE IFF_DETACH_QUEUE): the carrier stays on, and a
# detached queue gets no frames.
HOLDER = r"""
import fcntl, os, signal, struct, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH22x", sys.argv[1].encode(),
            0x0002 | 0x1000 | 0x4000 | 0x0100))
fcntl.ioctl(fd, 0x400454d9, struct.pack("16sH22x", b"", 0x0400))
print("READY", flush=True)
signal.pause()
"""


# The hist trigger that adds up the frames of every batch. Its own filter:
# an event's filter does not hold back its triggers, and a call without
# msg_control (vhost-net's single-frame path) fetches type and num through
# a NULL pointer (undefined values).
HIST = "hist:keys=type:vals=num if ctl != 0 && type == 2"


def hist_total(text):
    """The sum of 'num' over a hist file's TUN_MSG_PTR (type 2) entry."""
    return sum(int(m) for m in re.findall(
        r"\{\s*type:\s*2\s*\}.*?\bnum:\s*(\d+)", text))


def tracefs_write(path, text):
    """One write(2) to a tracefs file, appending: Python's open(..., "a")
    seeks to the end first, which kprobe_events refuses (EINVAL)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def vhost_state():
    """(usable, reason): can this host run the vhost topology?"""
    if not os.path.exists("/dev/vhost-net"):
        return False, "no /dev/vhost-net (load vhost_net, or this kernel " \
            "has no vhost-net: CONFIG_VHOST_NET)"
    try:
        os.close(os.open("/dev/vhost-net", os.O_RDWR))
    except OSError as e:
        return False, "/dev/vhost-net cannot be opened (%s)" % e.strerror
    return True, "vhost-net available"


def msg_control_offset(raw):
    """Byte offset of msg_control in struct msghdr, from bpftool's raw
    BTF dump (the member is in an anonymous union on Linux 6.x), or
    None."""
    unions = set()
    members = []
    cur = None
    for line in raw.splitlines():
        m = re.match(r"\[(\d+)\] (\w+) '([^']*)'", line)
        if m:
            cur = (m.group(1), m.group(2), m.group(3))
            continue
        m = re.match(r"\s+'([^']*)' type_id=(\d+) bits_offset=(\d+)", line)
        if not m or cur is None:
            continue
        name, tid, off = m.group(1), m.group(2), int(m.group(3))
        if cur[1] == "UNION" and name == "msg_control":
            unions.add(cur[0])
        if cur[1] == "STRUCT" and cur[2] == "msghdr":
            members.append((name, tid, off))
    for name, tid, off in members:
        if name == "msg_control" or tid in unions:
            return off // 8
    return None


class VhostTopo(topo_mod.NetnsTopo):
    name = "vhost"

    def __init__(self, root, procs, term, **kw):
        super().__init__(root, procs, term, **kw)
        self.vhost_tool = os.path.join(self.tools, "xnb_vhost")
        self.holders = {}
        self.probe = None  # why there is no kprobe, or None while unset
        self.mounted = False  # tracefs mounted by probe_start()

    # ------------------------------------------------------------- build

    def build(self):
        self._ns_add(SW)
        self.ip(SW, "link", "add", BR, "type", "bridge")
        self.ip(SW, "link", "set", BR, "address", topo_mod.BRIDGE_MAC)
        self.set_nf(False)
        self._addr_up(SW, BR, topo_mod.HOST_IP)
        for key, (tap, mac, _) in VHOST_VMS.items():
            self.ip(SW, "tuntap", "add", "dev", tap, "mode", "tap",
                    "vnet_hdr", "multi_queue")
            self.holders[key] = self.procs.start(
                "hold-" + tap, netns(SW, [sys.executable, "-c", HOLDER,
                                          tap]), ready="READY")
            self.ip(SW, "link", "set", tap, "master", BR, "up")
            run(netns(SW, ["bridge", "fdb", "replace", mac, "dev", tap,
                           "master", "static"]))
        if self.prog_stats:
            self.stats_proc = self.procs.start(
                "bpf-stats", [self.minimal_tool, "stats"], ready="READY")
        self.wait_forwarding()
        self.probe_start()
        self.built = True

    def wait_forwarding(self, limit=30.0):
        """Until both taps are up and forwarding on the bridge."""
        end = time.monotonic() + limit
        while True:
            ok = all(self.cat(SW, "/sys/class/net/%s/operstate" % t) == "up"
                     and self.cat(SW, "/sys/class/net/%s/brport/state" % t)
                     == "3" for t, _, _ in VHOST_VMS.values())
            if ok:
                return
            if time.monotonic() >= end:
                raise CmdError("the VMs' taps do not forward after %g s"
                               % limit)
            time.sleep(0.05)

    def teardown(self):
        """xdpnet off, then the taps (their holders first: a tap held
        open outlives its deletion), then what the netns topology
        removes."""
        self.probe_stop()
        if os.path.exists("/run/netns/" + SW) and \
                os.path.isdir("/sys/fs/bpf/xdpnet/" + BR):
            self.xdpnet_cmd("detach", BR, check=False)
        self.stop_minimal()
        for p in self.holders.values():
            self.procs.stop(p)
        self.holders.clear()
        if os.path.exists("/run/netns/" + SW):
            for tap, _, _ in VHOST_VMS.values():
                self.ip(SW, "link", "del", tap, check=False)
        super().teardown()

    # ------------------------------------------------------------ kprobe

    def probe_start(self):
        """A kprobe on tun_sendmsg, in a tracing instance of ours, that
        adds up what vhost-net hands over as XDP buffers (struct
        tun_msg_ctl: type TUN_MSG_PTR = 2, num frames) in a hist trigger:
        a total that no full ring buffer can drop records of."""
        if platform.machine() != "x86_64":
            self.probe = "the kprobe reads x86-64 registers; this is %s" \
                % platform.machine()
            return
        try:
            if not os.path.isdir(os.path.join(TRACEFS, "instances")):
                run(["mount", "-t", "tracefs", "tracefs", TRACEFS],
                    check=False)
                self.mounted = os.path.isdir(os.path.join(TRACEFS,
                                                          "instances"))
            if not os.path.exists(os.path.join(TRACEFS, "kprobe_events")):
                self.probe = "no kprobe_events in tracefs (CONFIG_KPROBE_" \
                    "EVENTS)"
                return
            cp = run(["bpftool", "btf", "dump", "file",
                      "/sys/kernel/btf/vmlinux", "format", "raw"],
                     check=False, timeout=120)
            off = msg_control_offset(cp.stdout)
            if off is None:
                self.probe = "no struct msghdr msg_control in the " \
                    "kernel's BTF (or no bpftool)"
                return
            self.probe_stop()
            a = "+%d(%%si)" % off
            tracefs_write(os.path.join(TRACEFS, "kprobe_events"),
                          "p:%s/sendmsg tun_sendmsg ctl=%s:x64 type=+0(%s):u16"
                          " num=+2(%s):u16\n" % (PROBE_GROUP, a, a, a))
            os.makedirs(INSTANCE, exist_ok=True)
            ev = os.path.join(INSTANCE, "events", PROBE_GROUP, "sendmsg")
            tracefs_write(os.path.join(ev, "filter"),
                          "ctl != 0 && type == 2\n")
            try:
                tracefs_write(os.path.join(ev, "trigger"), HIST + "\n")
            except OSError as e:
                self.probe = "no hist trigger on the kprobe (%s: " \
                    "CONFIG_HIST_TRIGGERS)" % e.strerror
                self.probe_stop()
                return
            self.probe = None
        except (OSError, CmdError) as e:
            self.probe = "kprobe on tun_sendmsg: %s" % (
                getattr(e, "strerror", None) or e)
            self.probe_stop()

    def probe_stop(self):
        """Trigger, instance, event, in that order (an event with a
        trigger cannot go), and tracefs if we mounted it."""
        ev = os.path.join(INSTANCE, "events", PROBE_GROUP, "sendmsg")
        try:
            if os.path.exists(os.path.join(ev, "trigger")):
                try:
                    tracefs_write(os.path.join(ev, "trigger"),
                                  "!" + HIST + "\n")
                except OSError:
                    pass  # none set
            if os.path.isdir(INSTANCE):
                os.rmdir(INSTANCE)
            events = read_file(os.path.join(TRACEFS, "kprobe_events"), "")
            if events and re.search(r"^p:%s/sendmsg " % PROBE_GROUP, events,
                                    re.M):
                tracefs_write(os.path.join(TRACEFS, "kprobe_events"),
                              "-:%s/sendmsg\n" % PROBE_GROUP)
        except OSError:
            pass
        if getattr(self, "mounted", False):
            run(["umount", TRACEFS], check=False)
            self.mounted = False

    def batched(self):
        """Frames handed over as XDP buffers so far (the hist trigger's
        total), or None without the kprobe."""
        if self.probe is not None:
            return None
        text = read_file(os.path.join(INSTANCE, "events", PROBE_GROUP,
                                      "sendmsg", "hist"), "") or ""
        return hist_total(text)

    # ---------------------------------------------------------- settings

    def apply_setting(self, setting):
        """One setting: the VMs' offloads are xnb_vhost's options."""
        self.set_path("bridge")
        self.setting = setting

    def offload_snapshot(self, setting):
        return {"%s:%s" % (SW, t): self.features(SW, t)
                for t, _, _ in VHOST_VMS.values()}

    def guest_features(self, setting):
        return {}

    # ------------------------------------------------------------- paths

    def minimal_ports(self):
        return [(tap, mac, False) for tap, mac, _ in VHOST_VMS.values()]

    def start_minimal(self, kind):
        """tc-minimal on TC ingress of both taps; xdp-minimal adds its
        XDP program (devmap redirect) on them."""
        argv = [self.minimal_tool, "attach",
                "--hook", os.environ.get("XDPNET_TC_HOOK", "tcx")]
        if kind == "xdp":
            argv.append("--xdp")
        for port, mac, _ in self.minimal_ports():
            argv += ["--dev", port, "--fdb", "%s=%s" % (mac, port)]
        self.minimal = self.procs.start("minimal-" + kind,
                                        topo_mod.nsenter(SW, argv),
                                        ready="READY")

    def endpoints(self, setting, item, path):
        a, b = VHOST_VMS["h1"], VHOST_VMS["h2"]
        return {"client_ns": SW, "server_ns": SW, "client": a, "server": b,
                "ports": [a[0], b[0]], "bypass": True}

    # ----------------------------------------------------------- records

    def describe(self):
        info = {"bridge": BR, "host_namespace": SW,
                "tc_hook": os.environ.get("XDPNET_TC_HOOK", "tcx"),
                "xdpnet_attach": " ".join(self.attach_argv("MODE")),
                "prog_stats": bool(self.prog_stats),
                "vms": {k: {"tap": t, "mac": m, "address": a}
                        for k, (t, m, a) in VHOST_VMS.items()},
                "taps": "multi_queue vnet_hdr, sndbuf %d (xnb_vhost, as "
                "QEMU)" % topo_mod.TAP_SNDBUF,
                "tun_msg_ptr_probe": self.probe or "kprobe on tun_sendmsg",
                "vhost_net_params": {
                    p: (read_file("/sys/module/vhost_net/parameters/" + p,
                                  "") or "").strip()
                    for p in ("experimental_zcopytx",)}}
        return info

    def vm_process(self, argv):
        """Popen of an xnb_vhost run in the host namespace; its JSON line
        on stdout."""
        return subprocess.Popen(netns(SW, [self.vhost_tool] + argv),
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL,
                                start_new_session=True)

    def tap_stat(self, tap, name):
        return self.dev_stat(SW, tap, name)
