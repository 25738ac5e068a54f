# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Frames of every class a VM sends a bridge, built from a description.

A frame description (a dict, from gen.py) says its class, addresses, size
and marking; build() makes its bytes and its virtio-net header (a partial
checksum, GSO). Every frame the fuzzer sends carries a marker ("XNXF" and
its number) where its class has room for one, so a receiver can tell which
frame it got; frames the bridge makes itself (a proxy ARP reply) have none.
"""
import struct

from nsnet import csum, fold

MAGIC = b"XNXF"
ETH_IP, ETH_IP6, ETH_ARP = 0x0800, 0x86DD, 0x0806


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def ip4(s):
    return bytes(int(x) for x in s.split("."))


def mark(fid):
    return MAGIC + struct.pack("!I", fid)


def marker_of(frame):
    """The frame's number, or None: the marker is found anywhere (behind
    tags, in ARP padding, in an ND option)."""
    i = frame.find(MAGIC)
    if i < 0 or i + 8 > len(frame):
        return None
    return struct.unpack("!I", frame[i + 4:i + 8])[0]


def l4_sum(src, dst, proto, seg):
    """Pseudo-header sum, IPv4 or IPv6 (the same in 16-bit words)."""
    return csum(src + dst, proto + len(seg))


def ipv4(src, dst, proto, payload, d):
    """An IPv4 header and payload; d: df, mangle (ipcsum, trailer,
    fragment)."""
    mangle = d.get("mangle")
    tot = 20 + len(payload)
    flags = (0x4000 if d.get("df") else 0) | (0x2000 if mangle == "fragment" else 0)
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, d.get("fid", 0) & 0xffff, flags,
                              64, proto, 0, src, dst))
    c = ~fold(csum(bytes(h))) & 0xffff
    if mangle == "ipcsum":
        c ^= 0x0100
    h[10:12] = struct.pack("!H", c)
    return bytes(h) + payload


def ipv6(src, dst, nh, payload):
    return struct.pack("!IHBB", 0x60000000, len(payload), nh, 64) + src + dst + payload


def l4(d, src, dst, proto):
    """UDP, TCP or ICMP segment with its payload; its checksum whole, or
    left to the device (d["partial"]: the field holds the pseudo-header's
    sum). Returns (segment, checksum offset in the segment)."""
    body = mark(d["fid"]) + bytes((d["fid"] + i) & 0xff for i in range(max(0, d["pay"])))
    if proto == 17:
        seg = bytearray(struct.pack("!HHHH", 40000, 40001, 8 + len(body), 0) + body)
        off = 6
    elif proto == 6:
        seg = bytearray(struct.pack("!HHIIBBHHH", 40002, 40003, d["fid"], 0, 0x50, 0x18, 65535, 0, 0)
                        + body)
        off = 16
    else:  # ICMP echo (IPv4: no pseudo-header) or ICMPv6 echo
        seg = bytearray(struct.pack("!BBHHH", 8 if proto == 1 else 128, 0, 0, 1, d["fid"] & 0xffff)
                        + body)
        off = 2
    ph = 0 if proto == 1 else l4_sum(src, dst, proto, seg)
    if d.get("partial") and proto != 1:
        seg[off:off + 2] = struct.pack("!H", fold(ph))
    else:
        c = ~fold(csum(bytes(seg), ph)) & 0xffff
        seg[off:off + 2] = struct.pack("!H", c or (0xffff if proto == 17 else 0))
    return bytes(seg), off


def arp(d, op):
    body = struct.pack("!HHBBH", 1, ETH_IP, 6, 4, op) + mac(d["src"]) + ip4(d["sip"]) + \
        (mac(d["dst"]) if op == 2 else bytes(6)) + ip4(d["tip"])
    return body + mark(d["fid"]) + bytes(10)  # the marker in the padding


def nd(d, src6, dst6, typ):
    """Neighbour solicitation (135) or advertisement (136) for d["tip6"],
    with a link-layer option and an option of ours holding the marker."""
    tgt = bytes.fromhex(d["tip6"])
    opt = struct.pack("!BB", 1 if typ == 135 else 2, 1) + mac(d["src"])
    ours = struct.pack("!BB", 253, 2) + mark(d["fid"]) + bytes(6)  # RFC 4727 experimental
    seg = bytearray(struct.pack("!BBHI", typ, 0, 0, 0x60000000 if typ == 136 else 0) + tgt + opt + ours)
    c = ~fold(csum(bytes(seg), l4_sum(src6, dst6, 58, seg))) & 0xffff
    seg[2:4] = struct.pack("!H", c)
    return ipv6(src6, dst6, 58, bytes(seg))


def vnet(flags=0, gso=0, hdr_len=0, gso_size=0, start=0, off=0):
    return struct.pack("<BBHHHH", flags, gso, hdr_len, gso_size, start, off)


def build(d):
    """(frame bytes, virtio-net header) for description d."""
    cls = d["cls"]
    src6 = bytes.fromhex("fe80000000000000") + mac(d["src"])[:2] + b"\xff\xfe" + mac(d["src"])[2:4] + \
        mac(d["src"])[4:]
    hdr = vnet()
    if cls in ("arp_req", "arp_reply"):
        et, body = ETH_ARP, arp(d, 1 if cls == "arp_req" else 2)
    elif cls in ("ns", "na"):
        dst6 = bytes.fromhex(d["tip6"]) if cls == "na" else \
            bytes.fromhex("ff020000000000000000000001ff") + bytes.fromhex(d["tip6"])[13:]
        et, body = ETH_IP6, nd(d, src6, dst6, 135 if cls == "ns" else 136)
    elif cls == "raw":  # an Ethernet type nobody handles, or a length field
        et, body = d.get("etype", 0x88b5), mark(d["fid"]) + bytes(max(0, d["pay"]))
    else:
        proto = {"udp": 17, "tcp": 6, "icmp": 1, "udp6": 17, "tcp6": 6, "gso": 6}[cls]
        if cls in ("udp6", "tcp6"):
            dst6 = bytes.fromhex("fd00000000000000000000000000") + struct.pack("!H", d["fid"] & 0xffff)
            src_a = bytes.fromhex("fd000000000000000000000000000001")
            seg, off = l4(d, src_a, dst6, proto)
            et, body, l3 = ETH_IP6, ipv6(src_a, dst6, proto, seg), 40
        else:
            s4, t4 = ip4(d.get("sip", "10.77.0.1")), ip4(d.get("dip", "10.77.0.2"))
            seg, off = l4(d, s4, t4, proto)
            et, body, l3 = ETH_IP, ipv4(s4, t4, proto, seg, d), 20
            if d.get("mangle") == "trailer":
                body += bytes(8)
        start = 14 + 4 * len(d.get("tags", [])) + l3
        if cls == "gso":
            hdr = vnet(1, 1, start + 20, d["mss"], start, off)  # VIRTIO_NET_HDR_GSO_TCPV4
        elif d.get("partial") and proto != 1:
            hdr = vnet(1, 0, 0, 0, start, off)
    tags = b"".join(struct.pack("!HH", tp, vid) for tp, vid in d.get("tags", []))
    f = mac(d["dst"]) + mac(d["src"]) + tags + struct.pack("!H", et) + body
    if len(f) < 60:
        f += bytes(60 - len(f))
    return f, hdr
