# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The environment of a run, recorded with its results."""

import os
import platform
import time

from .parse import parse_proc_stat_cpu
from .util import out, read_file


def _first(text, default="?"):
    lines = (text or "").strip().splitlines()
    return lines[0].strip() if lines else default


def cpu_model():
    for line in (read_file("/proc/cpuinfo", "") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def loadavg():
    f = (read_file("/proc/loadavg", "") or "").split()
    return [float(x) for x in f[:3]] if len(f) >= 3 else None


def cpu_sample():
    s = parse_proc_stat_cpu(read_file("/proc/stat", ""))
    s["t"] = time.time()
    return s


def cpu_usage(a, b):
    """Busy and steal share of the machine between two cpu_sample()s."""
    tot = b["total"] - a["total"]
    if tot <= 0:
        return None
    return {"busy_pct": 100.0 * (b["busy"] - a["busy"]) / tot,
            "steal_pct": 100.0 * (b["steal"] - a["steal"]) / tot}


def collect(root):
    def ver(argv):
        try:
            return _first(out(argv, check=False, timeout=10))
        except Exception:  # noqa: BLE001 - a missing tool is recorded
            return "unavailable"

    git = "?"
    try:
        git = _first(out(["git", "-C", root, "describe", "--always",
                          "--dirty"], check=False, timeout=10))
    except Exception:  # noqa: BLE001
        pass
    mem = _first(read_file("/proc/meminfo", ""))
    return {
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "machine": platform.machine(),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "hypervisor": "yes" if "hypervisor" in (
            read_file("/proc/cpuinfo", "") or "") else "no",
        "memory": mem,
        "loadavg_start": loadavg(),
        "python": platform.python_version(),
        "iperf3": ver(["iperf3", "--version"]),
        "sockperf": ver(["sockperf", "--version"]).replace(
            "sockperf, ", ""),
        "iptables": ver(["iptables", "-V"]),
        "xdpnet": ver([os.path.join(root, "build", "xdpnet"), "version"]),
        "git": git,
        "vhost_net": os.path.exists("/dev/vhost-net"),
        "kvm": os.path.exists("/dev/kvm"),
        "clocksource": _first(read_file(
            "/sys/devices/system/clocksource/clocksource0/"
            "current_clocksource", "")),
    }
