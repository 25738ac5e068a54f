# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The vm topology's availability check, the cpio archive appended to
the tests/vm guest image, and the guests' QEMU command line."""
import os
import stat
import tempfile
import unittest
import unittest.mock

import benchpath  # noqa: F401
from bench_lib import vmtopo


def parse_newc(data):
    """[(name, mode, payload)] of a newc archive, checking alignment."""
    out = []
    off = 0
    while True:
        assert data[off:off + 6] == b"070701", off
        f = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16)
             for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        name_start = off + 110
        name = data[name_start:name_start + namesize - 1].decode()
        assert data[name_start + namesize - 1] == 0
        off = name_start + namesize
        off += (4 - off % 4) % 4
        payload = data[off:off + size]
        off += size
        off += (4 - off % 4) % 4
        if name == "TRAILER!!!":
            return out, off
        out.append((name, mode, payload))


class Cpio(unittest.TestCase):
    def test_archive(self):
        with tempfile.NamedTemporaryFile("wb", delete=False) as f:
            f.write(b"hello\n")
            path = f.name
        os.chmod(path, 0o755)
        try:
            data = vmtopo.cpio_newc([("bin", None), ("bin/x", path)])
        finally:
            os.unlink(path)
        entries, end = parse_newc(data)
        self.assertEqual([e[0] for e in entries], ["bin", "bin/x"])
        self.assertTrue(stat.S_ISDIR(entries[0][1]))
        self.assertTrue(stat.S_ISREG(entries[1][1]))
        self.assertEqual(entries[1][1] & 0o777, 0o755)
        self.assertEqual(entries[1][2], b"hello\n")
        self.assertEqual(len(data) % 512, 0)
        self.assertEqual(data[end:], b"\0" * (len(data) - end))

    def test_program_files_lists_libraries(self):
        files = vmtopo.program_files("/bin/sh")
        self.assertEqual(files[0][0], "bin/sh")
        for name, src in files[1:]:
            self.assertFalse(name.startswith("/"))
            self.assertTrue(os.path.exists(src), src)


class Availability(unittest.TestCase):
    def test_no_tooling(self):
        with tempfile.TemporaryDirectory() as root:
            ok, why = vmtopo.availability(root)
        self.assertFalse(ok)
        self.assertTrue(any("tests/vm" in w for w in why))

    def test_reasons_name_kvm_and_vhost(self):
        root = benchpath.ROOT
        ok, why = vmtopo.availability(root)
        text = " ".join(why)
        self.assertIn("KVM", text)
        self.assertIn("vhost", text)
        kvm_ok, _ = vmtopo.kvm_state()
        if not kvm_ok:
            self.assertFalse(ok)

    def test_every_kvm_reason_names_kvm(self):
        """Each branch of kvm_state, whatever this host has."""
        real_exists, real_open = os.path.exists, os.open

        def exists(present):
            return lambda p: present if p == "/dev/kvm" else real_exists(p)

        def deny(p, *a):
            if p == "/dev/kvm":
                raise PermissionError(13, "Permission denied")
            return real_open(p, *a)

        cases = [("absent", exists(False), real_open),
                 ("cannot open", exists(True), deny)]
        for name, ex, op in cases:
            with self.subTest(name), \
                    unittest.mock.patch.object(vmtopo.os.path, "exists", ex), \
                    unittest.mock.patch.object(vmtopo.os, "open", op):
                ok, why = vmtopo.kvm_state()
                self.assertFalse(ok)
                self.assertIn("KVM", why)


IMAGE = {"kernel": "/w/guest/vmlinuz", "initrd": "/w/initramfs-bench.cpio"}


def qemu(accel="kvm", offloads="on", mtu=1500, vhost=True, name="g1"):
    tap, ip, mac = vmtopo.GUESTS[name]
    return vmtopo.qemu_argv(name, tap, ip, mac, IMAGE, accel, offloads, mtu,
                            vhost, "/w")


def option(argv, opt):
    """The values of every occurrence of opt in argv."""
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == opt]


def props(value):
    """The comma-separated properties of an option value ("x" for a bare
    word, "k=v" as such), as a list."""
    return value.split(",")


class QemuArgv(unittest.TestCase):
    """The command line Guest.start() runs, built without running QEMU
    (no KVM or vhost-net is needed here)."""

    def test_prefix(self):
        argv = qemu()
        self.assertEqual(argv[:2], ["nsenter", "--net=/run/netns/%s"
                                    % vmtopo.SW])
        self.assertEqual(argv[2:6], ["setpriv", "--pdeathsig", "KILL",
                                     "qemu-system-x86_64"])

    def test_kvm_vhost(self):
        argv = qemu("kvm", vhost=True)
        self.assertEqual(option(argv, "-machine"), ["pc,accel=kvm"])
        self.assertEqual(option(argv, "-cpu"), ["host"])
        netdev = option(argv, "-netdev")
        self.assertEqual(len(netdev), 1)
        p = props(netdev[0])
        self.assertEqual(p[0], "tap")
        self.assertIn("id=n0", p)
        self.assertIn("vhost=on", p)
        self.assertIn("ifname=%s" % vmtopo.GUESTS["g1"][0], p)
        self.assertIn("script=no", p)
        self.assertIn("downscript=no", p)
        self.assertIn("script=no,downscript=no", netdev[0])

    def test_kvm_without_vhost(self):
        netdev = option(qemu("kvm", vhost=False), "-netdev")[0]
        self.assertNotIn("vhost", netdev)

    def test_device(self):
        dev = option(qemu(), "-device")
        self.assertEqual(len(dev), 1)
        p = props(dev[0])
        self.assertEqual(p[0], "virtio-net-pci")
        self.assertIn("netdev=n0", p)
        self.assertIn("mac=%s" % vmtopo.GUESTS["g1"][2], p)
        self.assertNotIn("csum=off", p)
        self.assertFalse([x for x in p if x.startswith("host_mtu=")])

    def test_offloads_off(self):
        for accel in ("kvm", "tcg"):
            with self.subTest(accel):
                p = props(option(qemu(accel, offloads="off"), "-device")[0])
                self.assertEqual(p[0], "virtio-net-pci")
                self.assertIn("csum=off", p)
        netdev = option(qemu(offloads="off"), "-netdev")[0]
        self.assertNotIn("csum", netdev)

    def test_mtu(self):
        p = props(option(qemu(mtu=9000), "-device")[0])
        self.assertIn("host_mtu=9000", p)
        p = props(option(qemu(mtu=1500), "-device")[0])
        self.assertFalse([x for x in p if x.startswith("host_mtu=")])

    def test_tcg(self):
        """accel=tcg, no -cpu host; vhost=on as asked (--vm-vhost on)."""
        for vh in (False, True):
            argv = qemu("tcg", vhost=vh)
            self.assertEqual(option(argv, "-machine"), ["pc,accel=tcg"])
            self.assertEqual(option(argv, "-cpu"), [])
            self.assertNotIn("accel=kvm", " ".join(argv))
            netdev = option(argv, "-netdev")[0]
            self.assertEqual("vhost=on" in props(netdev), vh)
            self.assertIn("ifname=%s" % vmtopo.GUESTS["g1"][0],
                          props(netdev))

    def test_use_vhost(self):
        """--vm-vhost: auto only with KVM, on under TCG too, off never;
        never where vhost-net is unusable (on: an error)."""
        u = vmtopo.use_vhost
        self.assertTrue(u("auto", True, "kvm"))
        self.assertFalse(u("auto", True, "tcg"))
        self.assertTrue(u("on", True, "tcg"))
        self.assertFalse(u("off", True, "kvm"))
        self.assertFalse(u("auto", False, "kvm"))
        with self.assertRaises(vmtopo.CmdError):
            u("on", False, "kvm")

    def test_separate_elements(self):
        """Every option is followed by its value as one element: no element
        holds an option and its value, none needs a shell's quoting but
        the kernel command line (one element with spaces)."""
        for accel, off, mtu, vh in (("kvm", "on", 1500, True),
                                    ("tcg", "off", 9000, False)):
            with self.subTest(accel=accel):
                argv = qemu(accel, off, mtu, vh)
                self.assertTrue(all(isinstance(a, str) for a in argv))
                for a in argv:
                    self.assertEqual(a, a.strip())
                    self.assertFalse(a.startswith(("'", '"')), a)
                    # An option alone (nsenter's --net=PATH is one word).
                    if a.startswith("-") and not a.startswith("--net="):
                        self.assertNotIn(" ", a)
                        self.assertNotIn("=", a)
                qemu_at = argv.index("qemu-system-x86_64")
                rest = argv[qemu_at + 1:]
                flags = ("-nodefaults", "-no-user-config", "-no-reboot")
                i = 0
                while i < len(rest):
                    self.assertTrue(rest[i].startswith("-"), rest[i])
                    if rest[i] in flags:
                        i += 1
                        continue
                    self.assertLess(i + 1, len(rest), rest[i])
                    self.assertFalse(rest[i + 1].startswith("-"),
                                     (rest[i], rest[i + 1]))
                    i += 2
                spaced = [a for a in argv if " " in a]
                self.assertEqual(spaced, option(argv, "-append"))
                self.assertEqual(option(argv, "-smp"), ["1"])
                self.assertEqual(option(argv, "-m"), [str(vmtopo.MEM_MB)])
                self.assertEqual(option(argv, "-kernel"), [IMAGE["kernel"]])
                self.assertEqual(option(argv, "-initrd"), [IMAGE["initrd"]])
                self.assertEqual(option(argv, "-name"), ["xnb-g1"])

    def test_kernel_command_line(self):
        for name in vmtopo.GUESTS:
            with self.subTest(name):
                append = option(qemu(name=name), "-append")
                self.assertEqual(len(append), 1)
                words = append[0].split()
                self.assertIn("xnv.name=%s" % name, words)
                self.assertIn("xnv.ip=%s/24" % vmtopo.GUESTS[name][1], words)
                self.assertIn("console=ttyS0", words)

    def test_serial_ports(self):
        """The console log first, then the control channel's pipe (the
        FIFOs start() makes)."""
        argv = qemu()
        self.assertEqual(option(argv, "-serial"),
                         ["chardev:con", "chardev:ctl"])
        self.assertEqual(option(argv, "-chardev"), [
            "file,id=con,path=/w/g1.console.log",
            "pipe,id=ctl,path=%s" % vmtopo.ctl_path("/w", "g1")])

    def test_pure(self):
        with tempfile.TemporaryDirectory() as d:
            tap, ip, mac = vmtopo.GUESTS["g2"]
            a = vmtopo.qemu_argv("g2", tap, ip, mac, IMAGE, "kvm", "off",
                                 9000, True, d)
            b = vmtopo.qemu_argv("g2", tap, ip, mac, IMAGE, "kvm", "off",
                                 9000, True, d)
            self.assertEqual(a, b)
            self.assertEqual(os.listdir(d), [])

    def test_start_runs_it(self):
        """Guest.start() runs exactly qemu_argv's command line."""

        class Procs:
            def start(self, name, argv):
                self.started = (name, argv)
                return None

        with tempfile.TemporaryDirectory() as d:
            procs = Procs()
            g = vmtopo.Guest("g2", d, procs)
            g.start(IMAGE, "kvm", "off", 9000, True)
            try:
                tap, ip, mac = vmtopo.GUESTS["g2"]
                self.assertEqual(procs.started, ("qemu-g2", vmtopo.qemu_argv(
                    "g2", tap, ip, mac, IMAGE, "kvm", "off", 9000, True, d)))
                for suffix in (".in", ".out"):
                    self.assertTrue(stat.S_ISFIFO(os.stat(
                        vmtopo.ctl_path(d, "g2") + suffix).st_mode))
                self.assertEqual(g.config, ("kvm", "off", 9000, True))
            finally:
                os.close(g.fd_in)
                os.close(g.fd_out)


if __name__ == "__main__":
    unittest.main()
