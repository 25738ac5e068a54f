# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Read a pinned BPF map's value as raw bytes (bpf(2) through ctypes): to
see *when* user space rewrote it, without knowing its layout."""

import ctypes
import os
import platform
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
NR_BPF = {"x86_64": 321, "aarch64": 280}.get(platform.machine(), 321)
BPF_MAP_LOOKUP_ELEM, BPF_OBJ_GET = 1, 7


def _bpf(cmd, attr):
    r = _libc.syscall(NR_BPF, cmd, ctypes.byref(attr), ctypes.sizeof(attr))
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


class PinnedMap:
    def __init__(self, path, value_max=4096):
        self.path = ctypes.create_string_buffer(path.encode())
        attr = ctypes.create_string_buffer(128)
        struct.pack_into("=Q", attr, 0, ctypes.addressof(self.path))
        self.fd = _bpf(BPF_OBJ_GET, attr)
        self.value = ctypes.create_string_buffer(value_max)

    def lookup(self, key=0):
        """The value at a u32 key (or raw key bytes), as bytes (value_max
        long: compare only with another lookup of the same map); OSError
        when the key is absent."""
        kb = struct.pack("=I", key) if isinstance(key, int) else key
        k = ctypes.create_string_buffer(kb, len(kb))
        attr = ctypes.create_string_buffer(128)
        struct.pack_into("=IIQQQ", attr, 0, self.fd, 0, ctypes.addressof(k),
                         ctypes.addressof(self.value), 0)
        _bpf(BPF_MAP_LOOKUP_ELEM, attr)
        return self.value.raw

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    __del__ = close
