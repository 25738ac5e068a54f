# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Commands, processes and the terminal."""

import os
import select
import signal
import subprocess
import sys
import time

# Every process the benchmark starts is listed here (pid and command
# line), so that a run killed with SIGKILL can be tidied by the next one
# without touching anybody else's processes.
STATE_DIR = "/run/xnb-bench"
PIDFILE = os.path.join(STATE_DIR, "pids")


class CmdError(RuntimeError):
    pass


def netns(ns, argv):
    """argv run inside network namespace ns (ip netns exec: also gives the
    namespace its own /sys)."""
    return ["ip", "netns", "exec", ns] + list(argv)


def nsenter(ns, argv):
    """argv in ns without a new mount namespace (keeps /sys/fs/bpf, which
    the xdpnet CLI needs)."""
    return ["nsenter", "--net=/run/netns/%s" % ns] + list(argv)


def run(argv, check=True, timeout=60, input_text=None):
    """Run argv; returns CompletedProcess with text stdout/stderr."""
    try:
        cp = subprocess.run(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            timeout=timeout, input=input_text)
    except subprocess.TimeoutExpired as e:
        raise CmdError("timed out after %ss: %s" % (timeout, " ".join(argv)))\
            from e
    except FileNotFoundError as e:
        raise CmdError("not found: %s" % argv[0]) from e
    if check and cp.returncode != 0:
        raise CmdError("%s: exit %d: %s" % (
            " ".join(argv), cp.returncode,
            (cp.stderr or cp.stdout).strip().splitlines()[-1:]))
    return cp


def out(argv, **kw):
    return run(argv, **kw).stdout


def read_file(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


class Procs:
    """Background processes this run started; stop_all() ends them, and
    only them, by pid."""

    def __init__(self, logdir):
        self.logdir = logdir
        self.procs = []
        os.makedirs(STATE_DIR, exist_ok=True)

    def _record(self):
        tmp = PIDFILE + ".tmp"
        with open(tmp, "w") as f:
            for p, argv, _ in self.procs:
                if p.poll() is None:
                    f.write("%d %s\n" % (p.pid, " ".join(argv)))
        os.replace(tmp, PIDFILE)

    def start(self, name, argv, ready=None, timeout=10):
        """Start argv with stdout in a pipe (when ready is a line to wait
        for) and stderr in logdir/name.log."""
        err = open(os.path.join(self.logdir, name + ".log"), "a")
        # Only a process whose READY line (and final report) we read gets
        # a pipe: anything else writing into a pipe nobody drains would
        # block once it is full (an iperf3 server after some tests).
        p = subprocess.Popen(argv,
                             stdout=subprocess.PIPE if ready else err,
                             stderr=err, stdin=subprocess.DEVNULL,
                             text=True, start_new_session=True)
        self.procs.append((p, argv, err))
        self._record()
        if ready:
            deadline = time.time() + timeout
            buf = ""
            while time.time() < deadline:
                r, _, _ = select.select([p.stdout], [], [], 0.1)
                if r:
                    line = p.stdout.readline()
                    if not line:
                        break
                    buf += line
                    if line.strip() == ready:
                        return p
                elif p.poll() is not None:
                    break
            self.stop(p)
            raise CmdError("%s did not become ready: %s %s" % (
                name, buf.strip(),
                (read_file(err.name, "") or "").strip()[-300:]))
        return p

    def stop(self, p, sig=signal.SIGTERM, timeout=3):
        """Signal p, wait, SIGKILL after timeout. Returns its remaining
        stdout."""
        rest = ""
        entry = None
        for e in self.procs:
            if e[0] is p:
                entry = e
        if p.poll() is None:
            try:
                p.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            rest, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            try:
                rest, _ = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                rest = ""
        except ValueError:
            rest = ""
        rest = rest or ""
        if entry:
            entry[2].close()
            self.procs.remove(entry)
            self._record()
        return rest or ""

    def stop_all(self):
        for p, _, _ in list(self.procs):
            try:
                self.stop(p, timeout=2)
            except Exception:  # noqa: BLE001 - best effort in cleanup
                pass
        try:
            os.unlink(PIDFILE)
        except OSError:
            pass


def kill_stale():
    """Stop processes a previous, killed run left (by the pid file, and
    only when the pid still runs the recorded command)."""
    text = read_file(PIDFILE)
    if not text:
        return 0
    n = 0
    for line in text.splitlines():
        pid_s, _, cmd = line.partition(" ")
        try:
            pid = int(pid_s)
        except ValueError:
            continue
        cmdline = (read_file("/proc/%d/cmdline" % pid, "") or "")
        if cmdline.replace("\0", " ").strip() == cmd.strip():
            try:
                os.kill(pid, signal.SIGTERM)
                n += 1
            except OSError:
                pass
    time.sleep(0.5 if n else 0)
    try:
        os.unlink(PIDFILE)
    except OSError:
        pass
    return n


# ---------------------------------------------------------------- terminal

class Term:
    """Progress on the terminal; everything also goes to the run's log."""

    def __init__(self, logpath, quiet=False):
        self.log = open(logpath, "a")
        self.quiet = quiet
        self.tty = sys.stdout.isatty()

    def say(self, msg):
        self.log.write(msg + "\n")
        self.log.flush()
        if not self.quiet:
            print(msg, flush=True)

    def log_only(self, msg):
        self.log.write(msg + "\n")
        self.log.flush()

    def head(self, msg):
        self.log.write("== " + msg + "\n")
        self.log.flush()
        if not self.quiet:
            if self.tty:
                print("\n\033[1m== %s\033[0m" % msg, flush=True)
            else:
                print("\n== %s" % msg, flush=True)

    def close(self):
        self.log.close()


def fmt_secs(s):
    s = int(max(0, s))
    if s >= 3600:
        return "%dh%02dm" % (s // 3600, (s % 3600) // 60)
    if s >= 60:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%ds" % s
