# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The vm topology's availability check and the cpio archive appended to
the tests/vm guest image."""
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


if __name__ == "__main__":
    unittest.main()
