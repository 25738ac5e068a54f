# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""When did one flow start behaving as the bridge does after an event?
Pure functions over the frames a flow's receiver saw.

A frame is (seq, send_ns, rx_ns, marked): marked when the bridge's
forward path carried it. Only frames sent at or after the event count.
What the bridge does after the change, per flow:

  bypass  the bridge forwards it, and the datapath may bypass it (the
          target state of a faster path): converged at the first frame of
          a run of `stable` unmarked frames
  bridge  the bridge must see it (filtering, flooding, learning, hub
          mode): converged after the last unmarked frame before a run of
          `stable` marked ones
  none    the bridge drops it (a port that left or is not forwarding,
          isolated pairs, a deleted bridge): converged after the last
          delivered frame, once nothing arrived for quiet_ns

Latency: for bypass, arrival of the first frame of the run; for bridge
and none, arrival of the last frame that behaved otherwise (0 when none
did); minus the event's time. Resolution: the sending period (1 ms).
"""

EXPECT = ("bypass", "bridge", "none")


def _after(frames, t_event):
    return [f for f in frames if f[1] >= t_event]


def _run_start(fs, want_marked, stable):
    """Index of the first frame of a run of `stable` frames whose mark is
    want_marked, or None."""
    run = 0
    for i, f in enumerate(fs):
        if f[3] == want_marked:
            run += 1
            if run >= stable:
                return i - stable + 1
        else:
            run = 0
    return None


def converge(frames, t_event, expect, t_end, stable=30, quiet_ns=150000000):
    """The result for one flow: converged, latency_ns (None unless
    converged), wrong (frames that behaved otherwise before), late
    (frames that behaved otherwise after convergence: the bridge keep-
    alive's frames, for bypass), n (frames counted)."""
    fs = _after(frames, t_event)
    r = {"expect": expect, "n": len(fs), "converged": False,
         "latency_ns": None, "wrong": 0, "late": 0}
    if expect == "none":
        last = fs[-1][2] if fs else None
        r["wrong"] = len(fs)
        if t_end - max(t_event, last or 0) >= quiet_ns:
            r["converged"] = True
            r["latency_ns"] = max(0, last - t_event) if last else 0
        return r
    want = expect == "bridge"
    i = _run_start(fs, want, stable)
    if i is None:
        r["wrong"] = sum(1 for f in fs if f[3] != want)
        return r
    r["converged"] = True
    r["wrong"] = sum(1 for f in fs[:i] if f[3] != want)
    r["late"] = sum(1 for f in fs[i:] if f[3] != want)
    if expect == "bypass":
        r["latency_ns"] = max(0, fs[i][2] - t_event)
    else:
        r["latency_ns"] = max(0, fs[i - 1][2] - t_event) if i else 0
    return r


def settled(frames, t_event, expect, t_now, stable=30, quiet_ns=150000000):
    """Enough seen to decide (converge() would say converged)?"""
    return converge(frames, t_event, expect, t_now, stable,
                    quiet_ns)["converged"]


def step_latency(results):
    """An event's latency: the slowest of its flows (None if any did not
    converge)."""
    ls = [r["latency_ns"] for r in results.values()]
    if not ls or any(x is None for x in ls):
        return None
    return max(ls)
