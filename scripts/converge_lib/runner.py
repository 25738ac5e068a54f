# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Runs one change (a step) and measures it: the command runs in the
background while the probe keeps sending; the event's time is the
kernel's notification of it (as read by a listener in the namespace, the
way the follower hears it), or the command's exit when there is none.

A step: kind, cmd (argv), flows {flow name: expectation or None (sent,
not measured)}, match ("link", device) / ("neigh", MAC), and optionally
observe: an object whose poll(t_ns) returns the time a change was seen
(for settings with no frame-level effect), and after(): run once the
command has finished (not measured).
"""

import os
import signal
import subprocess
import time

from . import measure
from .probe import LineReader
from .topo import BR, PIN_ROOT


class Runner:
    def __init__(self, topo, probe, mon, log, window_s=2.0, stable=30,
                 quiet_ms=150):
        self.topo, self.probe, self.mon, self.log = topo, probe, mon, log
        self.window_s, self.stable = window_s, stable
        self.quiet_ns = quiet_ms * 1000000
        self.events = []
        self.follower = None
        self.flog = None
        self.records = []
        self.prog_ids = []  # the hooks' programs (bridge-delete checks)
        probe.watch(mon.fileno(), self._netlink)

    def _netlink(self):
        self.events.extend(self.mon.read())
        if len(self.events) > 5000:
            self.events = self.events[-2000:]
        return False

    # ------------------------------------------------------ follower

    def start_follower(self, env=None, timeout=15):
        self.follower = self.topo.xn_popen("follow", BR, env=env)
        self.flog = LineReader(self.follower)
        self.probe.watch(self.flog.fd, self.flog)
        ok = self.probe.pump(lambda: any(
            "following" in l for _, l in self.flog.lines), timeout)
        if not ok:
            raise RuntimeError("the follower did not start: %s" % (
                [l for _, l in self.flog.lines][-5:]))

    def follower_exited(self):
        return self.follower is None or self.follower.poll() is not None

    def stop_follower(self):
        if self.follower and self.follower.poll() is None:
            self.follower.send_signal(signal.SIGTERM)
            try:
                self.follower.wait(10)
            except subprocess.TimeoutExpired:
                self.follower.kill()
                self.follower.wait()
        if self.flog:
            self.flog()
            self.probe.unwatch(self.flog.fd)
        self.follower = None

    # --------------------------------------------------------- settle

    def settle(self, flows, timeout=10.0):
        """Activate flows and wait until each behaves as expected (from
        now). True when they do."""
        self.probe.set_active([n for n in flows])
        self.probe.clear()
        t0 = time.time_ns()

        def done():
            now = time.time_ns()
            return all(e is None or measure.settled(
                self.probe.by_name[n].frames, t0, e, now, self.stable,
                self.quiet_ns) for n, e in flows.items())
        return self.probe.pump(done, timeout)

    # ----------------------------------------------------------- step

    def _hooks_gone(self, rec, te):
        """After the bridge's deletion: the follower removes every hook
        and pin, then exits. When, and is everything gone?"""
        self.probe.pump(self.follower_exited, 10.0)
        self.flog()
        rec["follower_rc"] = self.follower.poll() if self.follower else None
        rec["follower_exit_ms"] = (self.flog.eof_t - te) / 1e6 \
            if self.flog.eof_t else None
        rec["pins_left"] = os.path.exists(os.path.join(PIN_ROOT, BR))
        left = list(self.prog_ids)
        end = time.time() + 2
        while left and time.time() < end:  # freed after an RCU period
            left = [i for i in left if subprocess.run(
                ["bpftool", "prog", "show", "id", str(i)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            ).returncode == 0]
            if left:
                self.probe.pump(None, 0.05)
        rec["progs_left"] = left
        if rec["pins_left"] or left or rec["follower_exit_ms"] is None:
            rec["error"] = "hooks or pins left after the bridge's deletion"

    def _match(self, m, t0, idx):
        for ev in self.events:
            if ev["t"] < t0:
                continue
            if m[0] == "link" and ev["type"] in ("newlink", "dellink") \
                    and ev["ifindex"] == idx:
                return ev
            if m[0] == "neigh" and ev["type"] in ("newneigh", "delneigh") \
                    and ev.get("mac") == m[1].lower():
                return ev
        return None

    def step(self, st):
        flows = st["flows"]
        self.probe.set_active(list(flows))
        idx = self.topo.ifindex(st["match"][1]) \
            if st["match"][0] == "link" else None
        obs = st.get("observe")
        self.probe.clear()
        self._netlink()
        t_spawn = time.time_ns()
        p = subprocess.Popen(st["cmd"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             text=True)
        state = {"exit": None, "ev": None, "obs": None}

        def t_event():
            if state["ev"]:
                return state["ev"]["t"]
            if state["exit"] and time.time_ns() - state["exit"] > 200000000:
                return state["exit"]  # no notification came
            return None

        def done():
            now = time.time_ns()
            if state["exit"] is None and p.poll() is not None:
                state["exit"] = now
            if state["ev"] is None:
                state["ev"] = self._match(st["match"], t_spawn, idx)
            te = t_event()
            if obs and state["obs"] is None:
                state["obs"] = obs.poll(now)
            if te is None or state["exit"] is None:
                return False
            if obs and state["obs"] is None:
                return False
            return all(e is None or measure.settled(
                self.probe.by_name[n].frames, te, e, now, self.stable,
                self.quiet_ns) for n, e in flows.items())
        self.probe.pump(done, self.window_s + 1.0,
                        check_every_s=0.001 if obs else 0.005)
        t_end = time.time_ns()
        if p.poll() is None:
            p.kill()
        out, err = p.communicate()
        if state["exit"] is None:
            state["exit"] = t_end
        te = t_event() or state["exit"]
        res = {n: measure.converge(self.probe.by_name[n].frames, te, e, t_end,
                                   self.stable, self.quiet_ns)
               for n, e in flows.items() if e is not None}
        rec = {
            "kind": st["kind"], "label": st.get("label", ""),
            "cmd": " ".join(st["cmd"]), "rc": p.returncode,
            "stderr": err.strip()[-300:],
            "event_source": "netlink" if state["ev"] else "exit",
            "spawn_to_event_ms": (te - t_spawn) / 1e6,
            "spawn_to_exit_ms": (state["exit"] - t_spawn) / 1e6,
            "flows": res,
            "latency_ms": None, "converged": False,
            "sender_max_gap_ms": self.probe.max_gap_ns / 1e6,
            "follower_log": [("%.1f" % ((t - te) / 1e6), l)
                             for t, l in (self.flog.since(t_spawn, t_end)
                                          if self.flog else [])],
        }
        lat = measure.step_latency(res) if res else None
        if obs:
            o = state["obs"]
            rec["observed_ms"] = (o - te) / 1e6 if o else None
            lat = None if o is None or (res and lat is None) else \
                max(o - te, lat or 0)
        if p.returncode:
            lat = None
            rec["error"] = "command failed"
        if st.get("bridge_delete"):
            self._hooks_gone(rec, te)
            if rec.get("error"):
                lat = None
        rec["latency_ms"] = lat / 1e6 if lat is not None else None
        rec["converged"] = lat is not None
        self.records.append(rec)
        self.log(rec)
        if st.get("after"):
            st["after"]()
        return rec
