# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The vm topology: QEMU guests on taps of the same bridge, with vhost-net
where the host has it, built from the VM test tooling of tests/vm/ (its
guest kernel and busybox initramfs, tests/vm/guest.sh, and its control
channel: tests/vm/init serves "ID COMMAND" lines on the guest's second
serial port and answers with the output and "XNV-END ID RC").

The guests' image gets sockperf and xnb_crr (with their libraries)
appended as a second cpio archive; the kernel unpacks both.

Availability is checked, never assumed: without a usable KVM the guests
would run under TCG, QEMU's instruction emulator, and their figures would
describe the emulator, not the network path. Such a run is refused unless
--vm-accel tcg asks for it explicitly (a plumbing check: its report says
so and evaluates no target)."""

import os
import platform
import select
import shlex
import shutil
import stat
import time

from . import matrix, topo as topo_mod, vhosttopo
from .topo import BR, SW, NetnsTopo
from .util import CmdError, nsenter, out, read_file, run

PROBE_CACHE = "/var/cache/xdpnet-vm/kvm-probe"
GUESTS = {
    # name: (tap, address, MAC)
    "g1": ("xnbq1", "10.77.0.31", "52:54:00:78:6e:01"),
    "g2": ("xnbq2", "10.77.0.32", "52:54:00:78:6e:02"),
}
MEM_MB = 512


# ------------------------------------------------------------ availability

def kvm_state():
    """(usable, reason). /dev/kvm must exist and open read-write, and the
    VM test tooling's boot probe (cached per host kernel) must not have
    failed."""
    if not os.path.exists("/dev/kvm"):
        return False, "no KVM (no /dev/kvm): guests would run under TCG " \
            "(QEMU's instruction emulator), whose figures describe the " \
            "emulator, not the network path"
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
        os.close(fd)
    except OSError as e:
        return False, "KVM unusable: /dev/kvm cannot be opened (%s)" % \
            e.strerror
    try:
        with open(PROBE_CACHE) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    if len(lines) >= 2 and ("host %s " % platform.release()) in lines[0] \
            and "failed" in lines[1].lower():
        return False, "KVM does not boot a guest on this host (tests/vm's " \
            "probe, %s: %s)" % (PROBE_CACHE, lines[1].strip())
    return True, "KVM: /dev/kvm opens and no failed boot probe is recorded"


def vhost_state():
    """vhosttopo.vhost_state(), with what its absence means for guests."""
    ok, why = vhosttopo.vhost_state()
    if not ok:
        why += ": guests use QEMU's userspace virtio-net backend, not the " \
            "datapath of the libvirt/minikube hosts this comparison is about"
    return ok, why


def tooling(root):
    d = os.path.join(root, "tests", "vm")
    need = ("guest.sh", "init", "xnv")
    missing = [f for f in need if not os.path.exists(os.path.join(d, f))]
    return not missing, missing


def availability(root, accel="auto"):
    """(available, [reasons]) for --topology vm with the given accelerator
    request ('auto' or 'kvm': KVM only; 'tcg': the plumbing check)."""
    why = []
    ok = True
    have, missing = tooling(root)
    if not have:
        ok = False
        why.append("the VM test tooling is not in this checkout (tests/vm/ "
                   "lacks %s)" % ", ".join(missing))
    else:
        why.append("VM test tooling: tests/vm/ (guest.sh, init, xnv)")
    if not shutil.which("qemu-system-x86_64"):
        ok = False
        why.append("qemu-system-x86_64 is not installed (tests/vm/deps.sh)")
    kvm_ok, kvm_why = kvm_state()
    why.append(kvm_why)
    if not kvm_ok and accel != "tcg":
        ok = False
    if not kvm_ok and accel == "tcg":
        why.append("--vm-accel tcg: running under TCG as a plumbing check; "
                   "its figures are not a network measurement")
    vh_ok, vh_why = vhost_state()
    why.append(vh_why)
    return ok, why


# ---------------------------------------------------------------- image

def _cpio_entry(name, mode, data=b"", ino=1):
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
    buf = hdr.encode() + name_b
    buf += b"\0" * ((4 - len(buf) % 4) % 4)
    buf += data
    buf += b"\0" * ((4 - len(data) % 4) % 4)
    return buf


def cpio_newc(files):
    """A newc cpio archive of files: [(path in the archive, host path or
    None for a directory)], directories first."""
    out_b = b""
    ino = 1000
    for name, src in files:
        ino += 1
        if src is None:
            out_b += _cpio_entry(name, stat.S_IFDIR | 0o755, b"", ino)
        else:
            with open(src, "rb") as f:
                data = f.read()
            mode = stat.S_IFREG | (os.stat(src).st_mode & 0o777)
            out_b += _cpio_entry(name, mode, data, ino)
    out_b += _cpio_entry("TRAILER!!!", 0, b"", 0)
    return out_b + b"\0" * ((512 - len(out_b) % 512) % 512)


def program_files(path, dest_dir="bin"):
    """A program and the libraries it loads (ldd), as cpio entries at
    the same paths as on this host (as tests/vm/guest.sh lays them out)."""
    files = [("%s/%s" % (dest_dir, os.path.basename(path)), path)]
    text = out(["ldd", path], check=False)
    for line in text.splitlines():
        f = line.split()
        lib = None
        if "=>" in f and len(f) >= 3 and f[2].startswith("/"):
            lib = f[2]
        elif f and f[0].startswith("/"):
            lib = f[0]
        if lib:
            files.append((lib.lstrip("/"), os.path.realpath(lib)))
    return files


def build_image(root, workdir, term):
    """tests/vm/guest.sh, then the bench tools appended."""
    gdir = os.path.join(workdir, "guest")
    os.makedirs(gdir, exist_ok=True)
    term.say("vm: building the guest image with tests/vm/guest.sh")
    cp = run([os.path.join(root, "tests", "vm", "guest.sh"), gdir],
             check=False, timeout=900)
    if cp.returncode != 0:
        raise CmdError("tests/vm/guest.sh failed: %s" %
                       (cp.stderr or cp.stdout).strip()[-400:])
    files = []
    for prog in (shutil.which("sockperf"),
                 os.path.join(root, "build", "bench_tools", "xnb_crr")):
        if not prog or not os.path.exists(prog):
            raise CmdError("vm: %s is missing" % prog)
        files += program_files(prog)
    dirs = set()
    for name, _ in files:
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    entries = [(d, None) for d in sorted(dirs, key=len)]
    seen = set()
    for name, src in files:
        if name not in seen:
            seen.add(name)
            entries.append((name, src))
    base = os.path.join(gdir, "initramfs.cpio")
    img = os.path.join(workdir, "initramfs-bench.cpio")
    with open(img, "wb") as f:
        with open(base, "rb") as b:
            shutil.copyfileobj(b, f)
        f.write(cpio_newc(entries))
    info = read_file(os.path.join(gdir, "guest.info"), "") or ""
    return {"kernel": os.path.join(gdir, "vmlinuz"), "initrd": img,
            "info": dict(ln.split("=", 1) for ln in info.splitlines()
                         if "=" in ln)}


# ---------------------------------------------------------------- guests

def use_vhost(mode, usable, accel):
    """vhost=on for the guests? mode 'auto': with KVM where vhost-net is
    usable (as tests/vm/run.sh); 'on': also under TCG (QEMU does not need
    KVM for vhost-net: its memory core signals the ioeventfds and it
    relays the call eventfds itself); 'off': never."""
    if mode == "on" and not usable:
        raise CmdError("vm: --vm-vhost on, but vhost-net is not usable "
                       "here")
    return usable and (mode == "on" or (mode == "auto" and accel == "kvm"))


def ctl_path(workdir, name):
    """The control channel's FIFOs are this path + ".in" and ".out"
    (QEMU's pipe chardev)."""
    return os.path.join(workdir, "%s.ctl" % name)


def qemu_argv(name, tap, ip, mac, image, accel, offloads, mtu, vhost,
              workdir):
    """The command line of guest name (tap, ip, mac as in GUESTS) on
    image (build_image's kernel and initrd), in the switch namespace and
    killed with its parent: accel 'kvm' or 'tcg', offloads 'on' or 'off'
    (off: the device's csum=off), the guest's MTU, vhost: vhost=on
    (use_vhost() decides). A list of
    arguments, each option value one element: nothing goes through a
    shell. Pure: creates nothing (start() makes the FIFOs)."""
    dev = "virtio-net-pci,netdev=n0,mac=%s,romfile=" % mac
    if offloads == "off":
        dev += ",csum=off"
    if mtu != 1500:
        dev += ",host_mtu=%d" % mtu
    netdev = "tap,id=n0,ifname=%s,script=no,downscript=no" % tap
    if vhost:
        netdev += ",vhost=on"
    machine = ["-machine", "pc,accel=kvm", "-cpu", "host"] \
        if accel == "kvm" else ["-machine", "pc,accel=tcg"]
    return nsenter(SW, [
        "setpriv", "--pdeathsig", "KILL", "qemu-system-x86_64",
        "-name", "xnb-%s" % name, "-nodefaults", "-no-user-config",
        "-display", "none"] + machine + [
        "-smp", "1", "-m", str(MEM_MB), "-no-reboot",
        "-kernel", image["kernel"], "-initrd", image["initrd"],
        "-append", "console=ttyS0 loglevel=4 panic=-1 ipv6.disable=1 "
        "xnv.name=%s xnv.ip=%s/24" % (name, ip),
        "-chardev", "file,id=con,path=%s" % os.path.join(
            workdir, "%s.console.log" % name),
        "-serial", "chardev:con",
        "-chardev", "pipe,id=ctl,path=%s" % ctl_path(workdir, name),
        "-serial", "chardev:ctl",
        "-netdev", netdev, "-device", dev])


class Guest:
    """One QEMU guest and its control channel."""

    def __init__(self, name, workdir, procs):
        self.name = name
        self.tap, self.ip, self.mac = GUESTS[name]
        self.workdir = workdir
        self.procs = procs
        self.proc = None
        self.fd_in = self.fd_out = None
        self.buf = b""
        self.seq = 0
        self.servers = set()
        self.config = None

    def start(self, image, accel, offloads, mtu, vhost):
        ctl = ctl_path(self.workdir, self.name)
        for suffix in (".in", ".out"):
            try:
                os.unlink(ctl + suffix)
            except OSError:
                pass
            os.mkfifo(ctl + suffix)
        argv = qemu_argv(self.name, self.tap, self.ip, self.mac, image,
                         accel, offloads, mtu, vhost, self.workdir)
        # O_RDWR: a FIFO opened so never blocks and never sees EOF.
        self.fd_in = os.open(ctl + ".in", os.O_RDWR)
        self.fd_out = os.open(ctl + ".out", os.O_RDWR)
        self.buf = b""
        self.proc = self.procs.start("qemu-%s" % self.name, argv)
        self.config = (accel, offloads, mtu, vhost)
        self.servers = set()

    def _line(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                return None
            if self.proc.poll() is not None:
                raise CmdError("vm %s: QEMU exited (%s)" % (
                    self.name, (read_file(os.path.join(
                        self.procs.logdir, "qemu-%s.log" % self.name), "")
                        or "").strip()[-300:]))
            r, _, _ = select.select([self.fd_out], [], [], min(left, 0.5))
            if r:
                self.buf += os.read(self.fd_out, 65536)
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    def wait_ready(self, timeout):
        deadline = time.time() + timeout
        while True:
            line = self._line(deadline)
            if line is None:
                raise CmdError("vm %s: not ready within %ds (console: %s)"
                               % (self.name, timeout,
                                  self.console_tail()))
            if line.startswith("XNV-READY"):
                return
            if line.startswith("XNV-FAILED"):
                raise CmdError("vm %s: %s" % (self.name, line))

    def console_tail(self):
        text = read_file(os.path.join(self.workdir, "%s.console.log"
                                      % self.name), "") or ""
        return " / ".join(text.strip().splitlines()[-3:])

    def cmd(self, command, timeout=60):
        """Run a shell command in the guest: (rc, output)."""
        self.seq += 1
        sid = str(self.seq)
        os.write(self.fd_in, ("%s %s\n" % (sid, command)).encode())
        deadline = time.time() + timeout
        lines = []
        while True:
            line = self._line(deadline)
            if line is None:
                raise CmdError("vm %s: %r timed out after %ss" % (
                    self.name, command, timeout))
            if line.startswith("XNV-END "):
                f = line.split()
                if len(f) == 3 and f[1] == sid:
                    return int(f[2]), "\n".join(lines)
                continue  # an earlier command that timed out
            lines.append(line)

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.write(self.fd_in, b"halt poweroff -f\n")
            except OSError:
                pass
            for _ in range(30):
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.procs.stop(self.proc)
        self.proc = None
        for fd in (self.fd_in, self.fd_out):
            if fd is not None:
                os.close(fd)
        self.fd_in = self.fd_out = None


class CP:
    """What cells expect from a command: stdout, stderr, returncode."""

    def __init__(self, rc, text):
        self.returncode = rc
        self.stdout = text
        self.stderr = ""


class VmTopo(NetnsTopo):
    """The netns topology (bridge, direct pair, generator) plus two QEMU
    guests on taps of the bridge: the stand-in kind 'vm'."""

    name = "vm"

    def __init__(self, root, procs, term, workdir, accel="auto",
                 vhost="auto", **kw):
        super().__init__(root, procs, term, **kw)
        self.workdir = workdir
        os.makedirs(workdir, exist_ok=True)
        ok, _ = kvm_state()
        if accel == "auto":
            accel = "kvm" if ok else "none"
        if accel == "kvm" and not ok:
            raise CmdError("vm: KVM is not usable here")
        if accel not in ("kvm", "tcg"):
            raise CmdError("vm: no accelerator (KVM unusable; --vm-accel "
                           "tcg for a plumbing check)")
        self.accel = accel
        self.vhost = use_vhost(vhost, vhost_state()[0], accel)
        self.guests = {g: Guest(g, workdir, procs) for g in GUESTS}
        self.image = None

    def build(self):
        super().build()
        self.image = build_image(self.root, self.workdir, self.term)
        for g in self.guests.values():
            self.ip(SW, "tuntap", "add", "mode", "tap", "name", g.tap)
            self.ip(SW, "link", "set", g.tap, "master", BR, "up")

    def boot(self, setting):
        want = (self.accel, setting.offloads, setting.mtu, self.vhost)
        todo = [g for g in self.guests.values() if g.config != want or
                g.proc is None or g.proc.poll() is not None]
        if not todo:
            return
        for g in todo:
            g.stop()
            self.ip(SW, "link", "set", g.tap, "mtu", str(setting.mtu))
        t0 = time.time()
        self.term.say("vm: booting %s (%s, offloads %s, MTU %d%s)" % (
            ", ".join(g.name for g in todo), self.accel, setting.offloads,
            setting.mtu, ", vhost-net" if self.vhost else ""))
        for g in todo:
            g.start(self.image, *want)
        for g in todo:
            g.wait_ready(60 if self.accel == "kvm" else 240)
            for c in ("sysctl -w net.ipv4.tcp_tw_reuse=1",
                      "sysctl -w 'net.ipv4.ip_local_port_range=1024 65535'",
                      "ip link set eth0 mtu %d" % setting.mtu):
                g.cmd(c, 30)
        self.term.say("vm: guests up in %.0fs" % (time.time() - t0))

    def apply_setting(self, setting):
        super().apply_setting(setting)
        if setting.standin == "vm":
            self.boot(setting)
            self.warm_guests()

    def warm_guests(self):
        g1, g2 = self.guests["g1"], self.guests["g2"]
        for g, dst in ((g1, g2.ip), (g2, g1.ip), (g1, topo_mod.HOST_IP),
                       (g2, topo_mod.HOST_IP)):
            rc, text = g.cmd("ping -c 2 -W 2 %s" % dst, 30)
            if rc:
                raise CmdError("vm %s: no answer from %s: %s" % (
                    g.name, dst, text[-200:]))

    def minimal_ports(self):
        return super().minimal_ports() + [
            (g.tap, g.mac, False) for g in self.guests.values()]

    def teardown(self):
        for g in self.guests.values():
            try:
                g.stop()
            except Exception:  # noqa: BLE001 - cleanup goes on
                pass
        super().teardown()

    # ------------------------------------------------------ endpoints

    def endpoints(self, setting, item, path):
        direct = matrix.PATHS[path]["kind"] == "direct"
        if setting.standin != "vm" or direct:
            # The direct pair is the netns one, as in every topology.
            if setting.standin == "vm":
                setting = setting._replace(standin="veth")
            return super().endpoints(setting, item, path)
        g1, g2 = self.guests["g1"], self.guests["g2"]
        a = ("guest:g1", g1.tap, g1.ip)
        b = ("guest:g2", g2.tap, g2.ip)
        host = (SW, None, topo_mod.HOST_IP)
        if item.direction == "vm-vm":
            c, s = a, b
        elif item.direction == "host-vm":
            c, s = host, b
        else:
            c, s = a, host
        return {"client_ns": c[0], "server_ns": s[0], "server_ip": s[2],
                "client_ip": c[2], "ports": [x[1] for x in (c, s) if x[1]],
                "bypass": item.direction == "vm-vm"}

    def _guest(self, ns):
        return self.guests[ns.split(":", 1)[1]]

    def client(self, ns, argv, timeout):
        if not ns.startswith("guest:"):
            return super().client(ns, argv, timeout)
        g = self._guest(ns)
        argv = list(argv)
        if argv[0].startswith("/"):
            argv[0] = "/bin/" + os.path.basename(argv[0])
        rc, text = g.cmd(" ".join(shlex.quote(a) for a in argv), timeout)
        return CP(rc, text)

    def server(self, ns, ip, kind, restart=False):
        if not ns.startswith("guest:"):
            return super().server(ns, ip, kind, restart)
        g = self._guest(ns)
        if kind in g.servers and not restart:
            return None
        if kind == "iperf3":
            # tests/vm/init started it (iperf3 -s -D, for the guest's whole
            # life); a retry simply tries it again.
            pass
        elif kind in ("sockperf-udp", "sockperf-tcp"):
            port = "11111" if kind == "sockperf-udp" else "11112"
            extra = " --tcp" if kind == "sockperf-tcp" else ""
            g.cmd("sockperf sr -i %s -p %s%s >/dev/null 2>&1 &" % (
                ip, port, extra), 30)
            time.sleep(0.5)
        elif kind == "crr":
            g.cmd("xnb_crr server --bind %s --port 7100 >/dev/null 2>&1 &"
                  % ip, 30)
            time.sleep(0.3)
        g.servers.add(kind)
        return None

    def offload_snapshot(self, setting):
        snap = super().offload_snapshot(setting)
        if setting.standin == "vm":
            for g in self.guests.values():
                rc, text = g.cmd("xnv info", 30)
                snap["guest %s" % g.name] = dict(
                    ln.split("=", 1) for ln in text.splitlines()
                    if "=" in ln)
                snap["%s:%s" % (SW, g.tap)] = self.features(SW, g.tap)
        return snap

    def guest_features(self, setting):
        if setting.standin != "vm":
            return super().guest_features(setting)
        res = {}
        for g in self.guests.values():
            rc, text = g.cmd("xnv info", 30)
            res["guest %s" % g.name] = dict(
                ln.split("=", 1) for ln in text.splitlines() if "=" in ln)
        return res

    def describe(self):
        info = super().describe()
        info["vm"] = {"accel": self.accel, "vhost_net": self.vhost,
                      "memory_mb": MEM_MB, "vcpus": 1,
                      "image": (self.image or {}).get("info"),
                      "qemu": out(["qemu-system-x86_64", "--version"],
                                  check=False).splitlines()[0]}
        for g in self.guests.values():
            info["ports"][g.tap] = {"kind": "tap (QEMU guest %s)" % g.name,
                                    "address": g.ip, "mac": g.mac}
        return info

