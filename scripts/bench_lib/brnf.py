# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""br_netfilter for the realistic host's paths (matrix.PATHS' nf), checked
before anything is built, so that the benchmark never changes what the
host's own bridges do without saying so.

The benchmark sets net.bridge.bridge-nf-call-{iptables,ip6tables,arptables}
inside its own switch namespace only: since Linux 5.3 they are per network
namespace. They exist once the br_netfilter module is loaded, and loading
it starts them at 1 in every namespace, the host's included: every frame of
every bridge of the host (virbr0 too) would then meet iptables, ip6tables
and arptables. So:

  - loaded already: the run goes on and says that the host's values stay
    as they are (and what they are);
  - not loaded, and no path needs it: nothing to do (the plain bridge's
    frames meet no iptables without it);
  - not loaded, a path needs it: the run refuses and says what loading
    would change, unless --load-br-netfilter asks for it; then the
    benchmark loads it, sets the host's three sysctls to 0 at once (the
    host's bridges keep forwarding as before, but for that moment), and
    unloads it when the run ends (or, where something else then uses it,
    says that it stays, with the host's values at 0).

After each change of the namespace's values, the host's are read again: a
kernel whose values are not per namespace would have changed them; the
benchmark then puts them back and stops.
"""

import os
import subprocess

from . import matrix

PROC = "/proc/sys/net/bridge"
SYSCTLS = ("bridge-nf-call-iptables", "bridge-nf-call-ip6tables",
           "bridge-nf-call-arptables")


def modprobe(*args):
    """modprobe ARGS; (ok, what it said)."""
    cp = subprocess.run(["modprobe"] + list(args), stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    return cp.returncode == 0, cp.stdout.strip()


class BrNetfilter:
    def __init__(self, paths, load=False, say=print, proc=PROC,
                 probe=modprobe):
        self.paths = [p for p in paths if matrix.PATHS[p]["nf"]]
        self.load = load
        self.say = say
        self.proc = proc
        self.probe = probe
        self.loaded_here = False
        self.host = None  # the host's values while the run goes on

    def loaded(self):
        return os.path.isdir(self.proc)

    def read_host(self):
        vals = {}
        for n in SYSCTLS:
            with open(os.path.join(self.proc, n)) as f:
                vals[n] = int(f.read().strip())
        return vals

    def write_host(self, vals):
        for n, v in vals.items():
            with open(os.path.join(self.proc, n), "w") as f:
                f.write("%d\n" % v)

    def prepare(self):
        """Before the run: SystemExit with the reason where it must not
        start."""
        if self.loaded():
            self.host = self.read_host()
            self.say("br_netfilter: loaded; the benchmark sets its "
                     "bridge-nf-call-* in its own namespace only, the "
                     "host's stay as they are (%s)" % ", ".join(
                         "%s=%d" % (n[len("bridge-nf-call-"):], v)
                         for n, v in sorted(self.host.items())))
            return
        if not self.paths:
            return
        if not self.load:
            raise SystemExit(
                "scripts/bench: the paths %s run on a realistic host with "
                "br_netfilter, which is not loaded here. Loading it "
                "(modprobe br_netfilter) would hand the frames of every "
                "bridge of this host, virbr0 included, to iptables, "
                "ip6tables and arptables (net.bridge.bridge-nf-call-* start "
                "at 1 in every network namespace). --load-br-netfilter: "
                "the benchmark loads it, sets those three to 0 in the "
                "host's namespace at once (the host's bridges go on as "
                "now) and unloads it at the end; or leave those paths out "
                "(--paths bridge)." % ", ".join(self.paths))
        self.say("br_netfilter: not loaded; loading it "
                 "(--load-br-netfilter): it would hand every bridge's "
                 "frames to iptables, so net.bridge.bridge-nf-call-"
                 "{iptables,ip6tables,arptables} go to 0 in the host's "
                 "namespace at once; it is unloaded at the end")
        ok, out = self.probe("br_netfilter")
        if not ok or not self.loaded():
            raise SystemExit("scripts/bench: modprobe br_netfilter failed: "
                             "%s" % (out or "no %s after it" % self.proc))
        self.loaded_here = True
        self.host = {n: 0 for n in SYSCTLS}
        self.write_host(self.host)

    def check_host(self):
        """After the switch namespace's values changed: the host's must
        not have. Puts them back and raises where they did."""
        if self.host is None or not self.loaded():
            return
        now = self.read_host()
        if now != self.host:
            self.write_host(self.host)
            raise RuntimeError(
                "the host's net.bridge.bridge-nf-call-* changed with the "
                "benchmark's namespace's (this kernel's are not per "
                "network namespace); put back to %s; the realistic host's "
                "paths cannot run here" % self.host)

    def restore(self):
        """After the run: unload what prepare() loaded."""
        if not self.loaded_here:
            return
        self.loaded_here = False
        ok, out = self.probe("-r", "br_netfilter")
        if ok:
            self.say("br_netfilter: unloaded again")
        else:
            self.say("br_netfilter: left loaded (%s), with the host's "
                     "bridge-nf-call-* at 0" % (out or "in use"))
