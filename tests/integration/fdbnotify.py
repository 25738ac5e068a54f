#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""FDB entries with activity notification, over rtnetlink (the iproute2 of
Debian 12 has no "activity_notify"). For tests/integration/semantics.sh.

  fdbnotify.py add PORT MAC static|extern_learn
      Adds (or replaces) the bridge's entry for MAC on PORT with
      activity notification on (NFEA_ACTIVITY_NOTIFY = FDB_NOTIFY_BIT).
  fdbnotify.py state BRIDGE MAC
      Prints "active", "inactive" (the bridge marked it so), "plain" (an
      entry without notification) or "none".
Exit: 0, 1 on a netlink error (one line on stderr), 2 bad command line.
"""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
from converge_lib.nlmon import _attrs  # noqa: E402 (the path above)

RTM_NEWNEIGH, RTM_GETNEIGH = 28, 30
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLM_F_REPLACE, NLM_F_CREATE = 0x100, 0x400
NLMSG_ERROR, NLMSG_DONE = 2, 3
NDA_LLADDR, NDA_MASTER, NDA_FDB_EXT_ATTRS = 2, 9, 14
NFEA_ACTIVITY_NOTIFY = 1
FDB_NOTIFY_BIT, FDB_NOTIFY_INACTIVE_BIT = 1, 2
NUD_NOARP = 0x40
NTF_MASTER, NTF_EXT_LEARNED = 0x04, 0x10
NLA_F_NESTED = 0x8000


def attr(kind, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, kind) + data + bytes((4 - n % 4) % 4)


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def request(mtype, flags, body):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.bind((0, 0))
    s.send(struct.pack("=IHHII", 16 + len(body), mtype, flags, 1, 0) + body)
    msgs = []
    while True:
        data = s.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            n, t, _, _, _ = struct.unpack_from("=IHHII", data, off)
            payload = data[off + 16:off + n]
            off += (n + 3) & ~3
            if t == NLMSG_ERROR:
                err = struct.unpack_from("=i", payload)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return msgs
            if t == NLMSG_DONE:
                return msgs
            msgs.append((t, payload))


def ndmsg(ifindex, state, flags):
    return struct.pack("=BxxxiHBB", socket.AF_BRIDGE, ifindex, state, flags, 0)


def add(port, mac, kind):
    idx = socket.if_nametoindex(port)
    flags = NTF_MASTER | (NTF_EXT_LEARNED if kind == "extern_learn" else 0)
    state = NUD_NOARP if kind == "static" else 0
    ext = attr(NFEA_ACTIVITY_NOTIFY, bytes([FDB_NOTIFY_BIT]))
    body = ndmsg(idx, state, flags) + attr(NDA_LLADDR, mac_bytes(mac)) + \
        attr(NDA_FDB_EXT_ATTRS | NLA_F_NESTED, ext)
    request(RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
            NLM_F_REPLACE, body)


def state(bridge, mac):
    br = socket.if_nametoindex(bridge)
    want = mac_bytes(mac)
    body = ndmsg(0, 0, 0) + attr(NDA_MASTER, struct.pack("=I", br))
    for t, p in request(RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, body):
        if t != RTM_NEWNEIGH or len(p) < 12:
            continue
        a = _attrs(p, 12)
        if a.get(NDA_LLADDR) != want:
            continue
        if NDA_MASTER in a and struct.unpack("=I", a[NDA_MASTER])[0] != br:
            continue
        ext = _attrs(a.get(NDA_FDB_EXT_ATTRS, b""), 0)
        bits = ext.get(NFEA_ACTIVITY_NOTIFY, b"\0")[0]
        if not bits & FDB_NOTIFY_BIT:
            return "plain"
        return "inactive" if bits & FDB_NOTIFY_INACTIVE_BIT else "active"
    return "none"


def main(argv):
    try:
        if len(argv) == 5 and argv[1] == "add" and \
                argv[4] in ("static", "extern_learn"):
            add(argv[2], argv[3], argv[4])
            return 0
        if len(argv) == 4 and argv[1] == "state":
            print(state(argv[2], argv[3]))
            return 0
    except OSError as e:
        print(f"fdbnotify.py: {argv[1]}: {e.strerror}", file=sys.stderr)
        return 1
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
