# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Each figure of the scale benchmark, on the stand-in host of topo.py.

Times are wall-clock. The CLI runs as `nsenter --net=... xdpnet`, whose
own start (the `xdpnet version` baseline, recorded) is in every CLI
figure. Convergence is read off the datapath's maps (a port is carried
when the ifindex -> slot map has it; an FDB move is done when the copy
names the new port), from the kernel's first netlink notification of
the change, polled every 0.2 ms."""

import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from converge_lib.nlmon import Monitor
from converge_lib.nsutil import in_netns

from . import bpf
from .topo import SW, links, rx_packets, sh


def median(xs):
    return statistics.median(xs) if xs else None


def pct(xs, q):
    """The q-quantile (nearest rank) of xs."""
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def strace_links(lines):
    """BPF_LINK_CREATE calls in `strace -f -T` output: {links, tcx_links,
    link_ms} (a call split by another thread's is joined by its pid)."""
    pending = {}
    n = tcx = 0
    ms = 0.0
    for ln in lines:
        pid, _, rest = ln.partition(" ")
        if rest.endswith("<unfinished ...>\n"):
            pending[pid] = rest
            continue
        if "resumed>" in rest:
            rest = pending.pop(pid, "") + rest
        if "BPF_LINK_CREATE" not in rest:
            continue
        m = re.search(r"<([0-9.]+)>\s*$", rest)
        if not m:
            continue
        n += 1
        # BPF_TCX_INGRESS and _EGRESS (46, 47), by name or, where strace
        # is older than tcx (Debian 12's 6.1), by number.
        tcx += bool(re.search(r"attach_type=(BPF_TCX_|0x2[ef]\b|4[67]\b)",
                              rest))
        ms += float(m.group(1)) * 1e3
    return {"links": n, "tcx_links": tcx, "link_ms": ms}


class Bench:
    def __init__(self, root, log):
        self.root = root
        self.xdpnet = os.path.join(root, "build", "xdpnet")
        self.pktgen = os.path.join(root, "build", "bench_tools",
                                   "xnb_pktgen")
        self.log = log
        self.procs = []

    # ------------------------------------------------------------ CLI
    def xn(self, *args, check=True, timeout=300, binary=None):
        t0 = time.monotonic()
        cp = sh(["nsenter", "--net=/run/netns/" + SW,
                 binary or self.xdpnet] + list(args), check=check,
                timeout=timeout)
        return cp, time.monotonic() - t0

    def cli_baseline(self, n=5):
        return median([self.xn("version")[1] for _ in range(n)])

    def attach(self, br, *extra):
        return self.xn("attach", br.name, *extra)[1]

    def detach(self, br):
        self.xn("detach", br.name, check=False)

    # ----------------------------------------------------- attach time
    def attach_times(self, br, repeats):
        """(cold, warm) medians: detach, attach, attach again."""
        cold, warm = [], []
        for _ in range(repeats):
            self.detach(br)
            cold.append(self.attach(br))
            warm.append(self.attach(br))
        return {"cold_s": median(cold), "warm_s": median(warm),
                "cold_all": cold, "warm_all": warm}

    def attach_curve(self, bridges, builds, repeats):
        """Each bridge attached cold, again (nothing to change) and
        detached by each build (label -> xdpnet binary), in ms: the
        builds in turn (their order turned each repeat), the repeats
        interleaved. {ports: {label: {cold_ms, again_ms, detach_ms}}}."""
        labels = list(builds)
        res = {b.nports: {k: {"cold_ms": [], "again_ms": [],
                              "detach_ms": []} for k in labels}
               for b in bridges}
        for i in range(repeats):
            k = i % len(labels)
            for br in bridges:
                for lab in labels[k:] + labels[:k]:
                    x, cell = builds[lab], res[br.nports][lab]
                    self.xn("detach", br.name, check=False, binary=x)
                    cell["cold_ms"].append(
                        self.xn("attach", br.name, binary=x)[1] * 1e3)
                    cell["again_ms"].append(
                        self.xn("attach", br.name, binary=x)[1] * 1e3)
                    cell["detach_ms"].append(
                        self.xn("detach", br.name, binary=x)[1] * 1e3)
            self.log("attach curve: repeat %d of %d" % (i + 1, repeats))
        return res

    def attach_split(self, bridges, builds):
        """One more cold attach of each bridge by each build, under
        `strace -f -T -e trace=bpf`: how much of it the kernel spent in
        BPF_LINK_CREATE. {ports: {label: {wall_ms, links, tcx_links,
        link_ms}}} (wall_ms includes strace's own cost)."""
        res = {}
        for br in bridges:
            for lab, x in builds.items():
                self.xn("detach", br.name, check=False, binary=x)
                fd, out = tempfile.mkstemp(prefix="xns-strace.")
                os.close(fd)
                t0 = time.monotonic()
                # --no-follow: strace -f would follow the follower
                # daemon too, and wait for it to end.
                sh(["strace", "-f", "-T", "-e", "trace=bpf", "-o", out,
                    "nsenter", "--net=/run/netns/" + SW, x, "attach",
                    br.name, "--no-follow"], timeout=300)
                wall = (time.monotonic() - t0) * 1e3
                with open(out) as f:
                    c = strace_links(f)
                os.unlink(out)
                c["wall_ms"] = wall
                res.setdefault(br.nports, {})[lab] = c
                self.xn("detach", br.name, binary=x)
        return res

    def tcx_probe(self, devs, threads):
        """scale_lib.tcxprobe on these devices (inside the namespace)."""
        cp = sh(["nsenter", "--net=/run/netns/" + SW, sys.executable, "-m",
                 "scale_lib.tcxprobe", "--threads",
                 ",".join(str(t) for t in threads)] + list(devs),
                timeout=1200, cwd=os.path.join(self.root, "scripts"))
        return json.loads(cp.stdout)

    # ----------------------------------------------------- convergence
    def _until(self, mon, ifx, done, timeout=2.0):
        """Poll done() while reading mon: (t_event_ns of the first
        notification about ifx, t_done_ns) or (.., None)."""
        t_ev = None
        end = time.monotonic() + timeout
        t_done = None
        while time.monotonic() < end:
            for e in mon.read():
                if t_ev is None and e.get("ifindex") == ifx:
                    t_ev = e["t"]
            if t_done is None and done():
                t_done = time.time_ns()
            if t_done is not None and t_ev is not None:
                break
            time.sleep(0.0002)
        return t_ev, t_done

    def convergence(self, br, events):
        """Port added, port removed (the spare veth joining and leaving):
        ms from the notification to the ports map agreeing; FDB move (a
        MAC learned behind port 0 sent from port 1 and back): ms from the
        send to the copy naming the new port."""
        lk = links()
        sp = br.spare[0]
        ifx = lk[sp]["ifindex"]
        pidx = bpf.Pinned(br.name, "port_idx", 8)
        fdb = bpf.Pinned(br.name, "fdb", 32)
        mon = Monitor(SW)
        add, rem, move, lost = [], [], [], 0
        try:
            for _ in range(events):
                mon.read()
                sh(["ip", "-n", SW, "link", "set", sp, "master", br.name])
                te, td = self._until(
                    mon, ifx, lambda: pidx.get(bpf.u32(ifx)) is not None)
                if te is None or td is None:
                    lost += 1
                else:
                    add.append(max(0, td - te) / 1e6)
                mon.read()
                sh(["ip", "-n", SW, "link", "set", sp, "nomaster"])
                te, td = self._until(
                    mon, ifx, lambda: pidx.get(bpf.u32(ifx)) is None)
                if te is None or td is None:
                    lost += 1
                else:
                    rem.append(max(0, td - te) / 1e6)
            mac = "02:5d:00:00:00:01"
            key = bpf.fdb_key(mac)
            for i in range(events):
                q, p = (br.peers[1], br.ports[1]) if i % 2 == 0 else \
                    (br.peers[0], br.ports[0])
                want = lk[p]["ifindex"]
                frame = bytes(int(x, 16) for x in
                              lk[q]["mac"].split(":")) + \
                    bytes(int(x, 16) for x in mac.split(":")) + \
                    b"\x88\xb5" + bytes(46)
                t0 = time.time_ns()
                br.host.send(q, [frame])
                end = time.monotonic() + 2
                while time.monotonic() < end:
                    v = fdb.get(key)
                    if v and int.from_bytes(v[:4], "little") == want:
                        move.append((time.time_ns() - t0) / 1e6)
                        break
                    time.sleep(0.0002)
                else:
                    lost += 1
        finally:
            mon.close()
            pidx.close()
            fdb.close()

        def summ(xs):
            return {"p50_ms": median(xs), "p99_ms": pct(xs, 0.99),
                    "n": len(xs), "all_ms": [round(x, 3) for x in xs]}
        return {"port_add": summ(add), "port_remove": summ(rem),
                "fdb_move": summ(move), "lost": lost}

    # ---------------------------------------------------------- resync
    def resync(self, br, repeats):
        """ms of the follower's full resync (SIGHUP; its -v line), with
        the follower in the foreground (attach --follow): the daemon
        attach started stops first, and one starts again after."""
        self.xn("attach", br.name, "--no-follow")
        p = subprocess.Popen(
            ["nsenter", "--net=/run/netns/" + SW, self.xdpnet, "-v",
             "attach", br.name, "--follow"], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)
        self.procs.append(p)
        out = []
        try:
            if not self._wait_line(p, "following", 30):
                raise RuntimeError("attach --follow: no 'following' line")
            for _ in range(repeats):
                p.send_signal(signal.SIGHUP)
                ln = self._wait_line(p, "full resync of", 30)
                if ln:
                    out.append(float(ln.split(" in ")[1].split()[0]))
        finally:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            self.procs.remove(p)
        self.xn("attach", br.name)  # a follower again, as before
        return {"p50_ms": median(out), "all_ms": out}

    @staticmethod
    def _wait_line(p, text, timeout):
        """The first line of p's output with text in it (None: timeout)."""
        fd = p.stdout.fileno()
        os.set_blocking(fd, False)
        end = time.monotonic() + timeout
        buf = getattr(p, "_xns_buf", b"")
        try:
            while time.monotonic() < end:
                while b"\n" in buf:
                    ln, buf = buf.split(b"\n", 1)
                    if text.encode() in ln:
                        return ln.decode(errors="replace")
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    chunk = None
                if chunk:
                    buf += chunk
                elif chunk == b"":
                    return None  # it exited
                else:
                    time.sleep(0.01)
            return None
        finally:
            p._xns_buf = buf

    # -------------------------------------------------------- per frame
    def gro_on(self, ports):
        """xnb_pktgen's frames arrive by XDP_TX: the port needs NAPI."""
        for p in ports:
            sh(["ip", "netns", "exec", SW, "ethtool", "-K", p, "gro", "on"])

    def _pktgen(self, q, src, dst, secs, rate=0):
        argv = ["nsenter", "--net=/run/netns/" + SW, self.pktgen, "--dev",
                q, "--src-mac", src, "--dst-mac", dst, "--src-ip",
                "10.77.0.1", "--dst-ip", "10.77.0.2", "--size", "64",
                "--duration", str(secs)]
        if rate:
            argv += ["--rate", str(rate)]
        return argv

    def flow(self, br, secs):
        """One flow, peer 0 -> peer 1: program ns per frame (the TC
        stage's, bpf_stats) and delivered pps."""
        lk = links()
        q0, q1 = br.peers[0], br.peers[1]
        s0 = bpf.prog_stats(br.name)
        r0 = rx_packets([q1])[q1]
        t0 = time.monotonic()
        cp = sh(self._pktgen(q0, lk[q0]["mac"], lk[q1]["mac"], secs),
                timeout=secs + 30)
        time.sleep(0.1)
        dt = time.monotonic() - t0
        s1 = bpf.prog_stats(br.name)
        r1 = rx_packets([q1])[q1]
        gen = json.loads(cp.stdout.strip().splitlines()[-1])
        runs = s1[1] - s0[1]
        return {"ns_per_frame": (s1[0] - s0[0]) / runs if runs else None,
                "runs": runs, "delivered_pps": (r1 - r0) / dt,
                "offered_pps": gen["pps"]}

    def aggregate(self, br, nflows, secs):
        """nflows generators at once, peer 2k -> peer 2k+1: delivered pps
        in all."""
        lk = links()
        pairs = [(br.peers[2 * k], br.peers[2 * k + 1])
                 for k in range(nflows)]
        rcv = [b for _, b in pairs]
        r0 = rx_packets(rcv)
        t0 = time.monotonic()
        ps = [subprocess.Popen(self._pktgen(a, lk[a]["mac"], lk[b]["mac"],
                                            secs),
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
              for a, b in pairs]
        offered = 0.0
        for p in ps:
            out, _ = p.communicate(timeout=secs + 60)
            try:
                offered += json.loads(out.strip().splitlines()[-1])["pps"]
            except (ValueError, IndexError):
                pass
        time.sleep(0.1)
        dt = time.monotonic() - t0
        r1 = rx_packets(rcv)
        return {"delivered_pps": sum(r1[x] - r0[x] for x in rcv) / dt,
                "offered_pps": offered, "flows": nflows}

    # ------------------------------------------------------ the outputs
    def cli_times(self, bridges, repeats):
        """status --json and stats --json of one bridge, status --json of
        all: medians, with their output's size."""
        out = {}
        br = bridges[0].name
        for key, args in (("status", ("status", br, "--json")),
                          ("stats", ("stats", br, "--json")),
                          ("status_all", ("status", "--json"))):
            ts, size = [], 0
            for _ in range(repeats):
                cp, t = self.xn(*args)
                ts.append(t)
                size = len(cp.stdout)
            out[key] = {"s": median(ts), "bytes": size}
        return out

    def scrape(self, port, repeats, bridge=None):
        """The exporter (all bridges, or one): scrape time, size, series."""
        args = ["nsenter", "--net=/run/netns/" + SW, self.xdpnet,
                "exporter"] + ([bridge] if bridge else []) + [
                    "--listen", "127.0.0.1:%d" % port]
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self.procs.append(p)
        ts, body = [], b""
        try:
            for _ in range(200):  # up to 10 s for it to listen
                try:
                    body = in_netns(SW, self._get, port)
                    break
                except OSError:
                    time.sleep(0.05)
            for _ in range(repeats):
                t0 = time.monotonic()
                body = in_netns(SW, self._get, port)
                ts.append(time.monotonic() - t0)
        finally:
            p.terminate()
            p.wait(10)
            self.procs.remove(p)
        series = sum(1 for ln in body.decode(errors="replace").splitlines()
                     if ln and not ln.startswith("#"))
        return {"s": median(ts), "bytes": len(body), "series": series}

    @staticmethod
    def _get(port):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
            chunks = []
            while True:
                c = s.recv(1 << 16)
                if not c:
                    break
                chunks.append(c)
        finally:
            s.close()
        data = b"".join(chunks)
        if b" 200 " not in data.split(b"\r\n", 1)[0]:
            raise OSError("exporter answered %r" % data[:60])
        return data.split(b"\r\n\r\n", 1)[1]

    def stop_all(self):
        for p in list(self.procs):
            p.kill()
            p.wait()
        self.procs = []
