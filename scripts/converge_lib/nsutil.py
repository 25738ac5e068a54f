# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Sockets in other network namespaces (setns on this thread while the
socket is made; it stays in that namespace), and the xdpnet CLI run in a
namespace with the host's bpffs (as tests/integration/lib.sh's xn)."""

import ctypes
import os

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: %s" % os.strerror(e))


def in_netns(ns, fn, *args):
    """fn(*args) called inside network namespace ns (/run/netns/ns)."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    fd = os.open("/run/netns/" + ns, os.O_RDONLY)
    try:
        _setns(fd)
        try:
            return fn(*args)
        finally:
            _setns(home)
    finally:
        os.close(fd)
        os.close(home)


# The CLI in namespace ns: "ip netns exec" would remount /sys and hide the
# host's bpffs; this carries the host's bpffs onto a fresh sysfs of ns.
_XN_SH = ('mount --bind /sys/fs/bpf "$0" && mount -t sysfs sysfs /sys && '
          'mount --move "$0" /sys/fs/bpf && exec "$@"')


def xn_argv(ns, xdpnet, args, scratch):
    """argv running xdpnet ARGS in ns. scratch: an empty directory. The
    process execs down to xdpnet itself (same pid)."""
    return (["nsenter", "--net=/run/netns/%s" % ns, "unshare", "--mount",
             "--propagation", "private", "sh", "-c", _XN_SH, scratch,
             xdpnet] + list(args))
