# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The kernel's view of a bridge's pinned state: its maps' memory (the
kernel's own accounting, `bytes_memlock`, which is the map's memory use
on kernels that report it), a program's run-time statistics, and lookups
in a pinned map by raw key (converge_lib's PinnedMap)."""

import json
import os
import struct
import subprocess

from converge_lib.bpfmap import PinnedMap

PIN_ROOT = "/sys/fs/bpf/xdpnet"


def bpftool(*args):
    cp = subprocess.run(["bpftool", "-j"] + list(args),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True, timeout=60)
    if cp.returncode:
        return None
    return json.loads(cp.stdout or "null")


def pinned_maps(bridge):
    """The maps pinned under the bridge's directory: name -> bpftool's
    record (type, bytes_memlock, max_entries, ...)."""
    d = os.path.join(PIN_ROOT, bridge)
    out = {}
    for leaf in sorted(os.listdir(d)):
        rec = bpftool("map", "show", "pinned", os.path.join(d, leaf))
        if isinstance(rec, dict) and "bytes_memlock" in rec:
            out[leaf] = rec
    return out


# Plain maps whose size is a number of entries per possible CPU: the
# decision cache (XDPNET_FLOW_ENTRIES lines for each CPU).
PER_CPU_SIZED = ("flows",)


def memory(bridge):
    """bytes of the bridge's pinned maps, in all and apart what grows with
    the CPUs (per-CPU maps and the maps sized per CPU)."""
    maps = pinned_maps(bridge)
    total = sum(int(m["bytes_memlock"]) for m in maps.values())
    percpu = sum(int(m["bytes_memlock"]) for k, m in maps.items()
                 if "percpu" in m["type"] or k in PER_CPU_SIZED)
    return {"total": total, "percpu": percpu,
            "maps": {k: {"type": v["type"], "bytes": int(v["bytes_memlock"]),
                         "max_entries": v["max_entries"]}
                     for k, v in maps.items()}}


def prog_stats(bridge, leaf="prog_tc"):
    """(run_time_ns, run_cnt) of a pinned program (kernel.bpf_stats_enabled
    must be 1)."""
    rec = bpftool("prog", "show", "pinned", os.path.join(PIN_ROOT, bridge,
                                                         leaf))
    if not isinstance(rec, dict):
        return (0, 0)
    return (int(rec.get("run_time_ns", 0)), int(rec.get("run_cnt", 0)))


class Pinned(PinnedMap):
    """A bridge's pinned map, looked up by raw key bytes."""

    def __init__(self, bridge, leaf, value_size=64):
        super().__init__(os.path.join(PIN_ROOT, bridge, leaf), value_size)

    def get(self, key):
        """The value's bytes, or None when the key is absent."""
        try:
            return self.lookup(key)
        except OSError:
            return None


def fdb_key(mac, vid=0):
    """struct xdpnet_fdb_key: the MAC, the VLAN (0 without filtering)."""
    return bytes(int(x, 16) for x in mac.split(":")) + struct.pack("=H", vid)


def u32(v):
    return struct.pack("=I", v)
