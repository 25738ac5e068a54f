# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the kernel alone takes to make tcx links: a pass-through program
linked to the tcx ingress of each of the devices given, from 1 or more
threads at once (ms per link, wall time), the links closed again (ms per
close), and as many membarrier(MEMBARRIER_CMD_GLOBAL) calls, each an RCU
grace period without RTNL (ms per call). A tcx link is made under RTNL,
which it holds through a grace period (kernel/bpf/tcx.c); this shows
whether links from several threads overlap on this kernel, and what a
grace period costs on this host.

Run inside the devices' namespace (ctypes: no compiler, no libbpf):
    python3 -m scale_lib.tcxprobe --threads 1,2,4,8 DEV...
Prints one JSON object: {"rcu_expedited", "links": [{threads, ms_per_link,
ms_per_close}], "membarrier": [{threads, ms_per_call}]}."""

import argparse
import ctypes
import json
import os
import socket
import struct
import sys
import threading
import time

# bpf(2) and membarrier(2) by architecture.
NR = {"x86_64": (321, 324), "aarch64": (280, 283)}
BPF_PROG_LOAD, BPF_LINK_CREATE = 5, 28
BPF_PROG_TYPE_SCHED_CLS = 3
BPF_TCX_INGRESS = 46
MEMBARRIER_CMD_GLOBAL = 1
ATTR_SIZE = 128

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _nr(i):
    m = os.uname().machine
    if m not in NR:
        raise OSError("tcxprobe: no syscall numbers for %s" % m)
    return NR[m][i]


def _call(nr, *args):
    r = _libc.syscall(ctypes.c_long(nr), *args)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def _bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, ATTR_SIZE)
    return _call(_nr(0), ctypes.c_long(cmd), buf, ctypes.c_long(ATTR_SIZE))


def pass_prog():
    """A SCHED_CLS program for tcx ingress that returns TCX_NEXT: its fd."""
    insns = ctypes.create_string_buffer(
        struct.pack("<BBhi", 0xb7, 0, 0, -1) +  # r0 = -1 (TCX_NEXT)
        struct.pack("<BBhi", 0x95, 0, 0, 0))    # exit
    lic = ctypes.create_string_buffer(b"GPL")
    attr = struct.pack("<IIQQIIQII16sII", BPF_PROG_TYPE_SCHED_CLS, 2,
                       ctypes.addressof(insns), ctypes.addressof(lic),
                       0, 0, 0, 0, 0, b"xn_tcxprobe", 0, BPF_TCX_INGRESS)
    return _bpf(BPF_PROG_LOAD, attr)


def link(prog, ifindex):
    return _bpf(BPF_LINK_CREATE, struct.pack("<IIII", prog, ifindex,
                                             BPF_TCX_INGRESS, 0))


def _spread(n, threads, work):
    """work(i) for i in 0..n-1 from this many threads: wall seconds."""
    nxt = [0]
    lock = threading.Lock()
    errors = []

    def run():
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= n:
                return
            try:
                work(i)
            except OSError as e:
                errors.append(e)
                return

    ts = [threading.Thread(target=run) for _ in range(threads)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]
    return time.monotonic() - t0


def links_round(prog, ifindexes, threads):
    fds = [None] * len(ifindexes)

    def make(i):
        fds[i] = link(prog, ifindexes[i])

    try:
        s = _spread(len(ifindexes), threads, make)
    finally:
        t0 = time.monotonic()
        for fd in fds:
            if fd is not None:
                os.close(fd)
        c = time.monotonic() - t0
    n = len(ifindexes)
    return {"threads": threads, "links": n, "ms_per_link": s * 1e3 / n,
            "ms_per_close": c * 1e3 / n}


def membarrier_round(n, threads):
    s = _spread(n, threads, lambda i: _call(
        _nr(1), ctypes.c_long(MEMBARRIER_CMD_GLOBAL), ctypes.c_long(0),
        ctypes.c_long(0)))
    return {"threads": threads, "calls": n, "ms_per_call": s * 1e3 / n}


def probe(devs, threads):
    ifx = [socket.if_nametoindex(d) for d in devs]
    try:
        with open("/sys/kernel/rcu_expedited") as f:
            exp = int(f.read())
    except OSError:
        exp = None
    prog = pass_prog()
    try:
        links = [links_round(prog, ifx, t) for t in threads]
    finally:
        os.close(prog)
    mb = [membarrier_round(len(ifx), t) for t in threads]
    return {"rcu_expedited": exp, "links": links, "membarrier": mb}


def main(argv):
    ap = argparse.ArgumentParser(prog="tcxprobe")
    ap.add_argument("--threads", default="1,2,4,8")
    ap.add_argument("devs", nargs="+")
    a = ap.parse_args(argv)
    print(json.dumps(probe(a.devs, [int(x) for x in a.threads.split(",")])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
