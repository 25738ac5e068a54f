# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The realistic host's iptables rules (paths with nf: br_netfilter on).

What a Linux host that runs Docker and a kube-proxy-style service proxy
next to its VMs has, laid out as those tools lay them out, and such that
no rule can match a frame between two VMs on the bridge:

- Docker (27/28 layout): FORWARD jumps to DOCKER-USER (only RETURN) and
  DOCKER-FORWARD, which jumps to DOCKER-CT, DOCKER-ISOLATION-STAGE-1 and
  DOCKER-BRIDGE. Every rule there names a Docker bridge (docker0, br-*)
  in -i or -o; published ports sit in the DOCKER chain, reached only with
  -o br-*. nat: PREROUTING/OUTPUT to DOCKER only for local destinations
  (--dst-type LOCAL), MASQUERADE only for Docker subnets (172.16/12).
- kube-proxy (iptables mode, filter table): FORWARD sends NEW connections
  to KUBE-SERVICES and KUBE-EXTERNAL-SERVICES, which REJECT connections to
  services without endpoints: ClusterIPs in 10.96.0.0/12, node ports only
  for local destinations. kube-proxy's KUBE-FORWARD chain (INVALID drop,
  mark accept) is left out: it applies to every forwarded frame, VM
  frames included, so skipping it would not be a speed-up a user may take.

The FORWARD policy stays ACCEPT (Docker sets DROP unless told not to; a
host with VMs on a bridge then needs an ACCEPT rule for that bridge, which
would match the VMs' frames).

The rules bring conntrack along (ctstate and nat), as on such hosts: every
bridged IPv4 frame is tracked. A VM-to-VM frame of an established
connection is tested against walk_established rules; the first frame of a
connection against walk_new."""

DOCKER_NET_RULES = 7      # 5 filter + 2 nat per Docker network
PORTS_PER_NET = 2         # published ports per network: 1 filter + 1 nat
FIXED = 8 + 2             # filter jumps and DOCKER-USER; nat jumps


def _net(i):
    """Docker network i: bridge name, subnet's second octet."""
    if i == 0:
        return "docker0", 17
    return "br-%012x" % (0x5eed0000 + i), 17 + i % 15 + 1


KINDS = ("docker+kube", "docker")


def realistic(n, kind="docker+kube"):
    """iptables-restore text of n rules (filter + nat) and what they are:
    {'restore', 'filter_rules', 'nat_rules', 'networks', 'published_ports',
    'services', 'walk_established', 'walk_new', 'kind'}. kind 'docker':
    no kube-proxy rules (those match by destination, not device, and a
    filter check that goes by -i/-o only counts them as able to match);
    their share of n becomes more published ports (DOCKER chain, reached
    with -o of a Docker bridge only)."""
    if kind not in KINDS:
        raise ValueError("host rules: kind must be one of %s" % (KINDS,))
    r = _realistic(n)
    r["kind"] = kind
    if kind == "docker" and r["services"] and r["networks"]:
        r = _docker_only(r)
    return r


def _docker_only(r):
    """Replace the kube-proxy rules (and FORWARD's two jumps to them) by
    as many published-port rules in the DOCKER chain."""
    lines = r["restore"].split("\n")
    kube = [ln for ln in lines if "KUBE-" in ln and ln.startswith("-A ")]
    keep = [ln for ln in lines if "KUBE-" not in ln]
    extra = []
    for i in range(len(kube)):
        br, b = _net(i % r["networks"])
        extra.append("-A DOCKER -d 172.%d.%d.%d/32 ! -i %s -o %s -p tcp -m "
                     "tcp --dport %d -j ACCEPT" % (
                         b, (i % r["networks"]) // 15, 10 + i // r["networks"],
                         br, br, 1024 + i))
    at = keep.index("COMMIT")
    keep[at:at] = extra
    r = dict(r, restore="\n".join(keep), services=0,
             published_ports=r["published_ports"] + len(extra))
    r["walk_established"] -= 2
    r["walk_new"] = r["walk_established"]
    return r


def _realistic(n):
    if n <= 0:
        return {"restore": empty(), "filter_rules": 0, "nat_rules": 0,
                "networks": 0, "published_ports": 0, "services": 0,
                "walk_established": 0, "walk_new": 0}
    per_net = DOCKER_NET_RULES + 2 * PORTS_PER_NET
    nets = max(1, min(n // 25, (n - FIXED) // per_net)) \
        if n >= FIXED + per_net else 0
    services = max(0, n - FIXED - nets * per_net) if nets else 0
    f = ["*filter", ":INPUT ACCEPT [0:0]", ":FORWARD ACCEPT [0:0]",
         ":OUTPUT ACCEPT [0:0]"]
    nat = ["*nat", ":PREROUTING ACCEPT [0:0]", ":INPUT ACCEPT [0:0]",
           ":OUTPUT ACCEPT [0:0]", ":POSTROUTING ACCEPT [0:0]"]
    if not nets:
        # Too few for Docker's skeleton: service rules only.
        f += [":KUBE-SERVICES - [0:0]",
              "-A FORWARD -m conntrack --ctstate NEW -m comment --comment "
              "\"kubernetes service portals\" -j KUBE-SERVICES"]
        services = n - 1
        f += _services(services, external=False)
        return {"restore": "\n".join(f + ["COMMIT"] + nat + ["COMMIT"])
                + "\n", "filter_rules": n, "nat_rules": 0, "networks": 0,
                "published_ports": 0, "services": services,
                "walk_established": 1, "walk_new": n}
    chains = ["DOCKER", "DOCKER-USER", "DOCKER-FORWARD", "DOCKER-CT",
              "DOCKER-BRIDGE", "DOCKER-ISOLATION-STAGE-1",
              "DOCKER-ISOLATION-STAGE-2", "KUBE-SERVICES",
              "KUBE-EXTERNAL-SERVICES"]
    f += [":%s - [0:0]" % c for c in chains]
    nat += [":DOCKER - [0:0]"]
    f += ["-A FORWARD -j DOCKER-USER",
          "-A FORWARD -j DOCKER-FORWARD",
          "-A FORWARD -m conntrack --ctstate NEW -m comment --comment "
          "\"kubernetes service portals\" -j KUBE-SERVICES",
          "-A FORWARD -m conntrack --ctstate NEW -m comment --comment "
          "\"kubernetes externally visible service portals\" "
          "-j KUBE-EXTERNAL-SERVICES",
          "-A DOCKER-USER -j RETURN",
          "-A DOCKER-FORWARD -j DOCKER-CT",
          "-A DOCKER-FORWARD -j DOCKER-ISOLATION-STAGE-1",
          "-A DOCKER-FORWARD -j DOCKER-BRIDGE"]
    nat += ["-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER",
            "-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL "
            "-j DOCKER"]
    for i in range(nets):
        br, b = _net(i)
        f += ["-A DOCKER-CT -o %s -m conntrack --ctstate RELATED,ESTABLISHED"
              " -j ACCEPT" % br,
              "-A DOCKER-ISOLATION-STAGE-1 -i %s ! -o %s "
              "-j DOCKER-ISOLATION-STAGE-2" % (br, br),
              "-A DOCKER-ISOLATION-STAGE-2 -o %s -j DROP" % br,
              "-A DOCKER-BRIDGE -o %s -j DOCKER" % br,
              "-A DOCKER-FORWARD -i %s -j ACCEPT" % br]
        nat += ["-A POSTROUTING -s 172.%d.%d.0/24 ! -o %s -j MASQUERADE"
                % (b, i // 15, br),
                "-A DOCKER -i %s -j RETURN" % br]
        for j in range(PORTS_PER_NET):
            ip = "172.%d.%d.%d" % (b, i // 15, 2 + j)
            port = (80, 443)[j % 2]
            host_port = 8000 + i * PORTS_PER_NET + j
            f.append("-A DOCKER -d %s/32 ! -i %s -o %s -p tcp -m tcp "
                     "--dport %d -j ACCEPT" % (ip, br, br, port))
            nat.append("-A DOCKER ! -i %s -p tcp -m tcp --dport %d "
                       "-j DNAT --to-destination %s:%d"
                       % (br, host_port, ip, port))
    f += _services(services, external=True)
    filter_rules = sum(1 for x in f if x.startswith("-A "))
    nat_rules = sum(1 for x in nat if x.startswith("-A "))
    # FORWARD 4 + DOCKER-USER 1 + DOCKER-FORWARD 3 fixed, then per
    # network one rule in each of DOCKER-CT, STAGE-1, BRIDGE and the
    # DOCKER-FORWARD -i rules.
    walk = 8 + 4 * nets
    return {"restore": "\n".join(f + ["COMMIT"] + nat + ["COMMIT"]) + "\n",
            "filter_rules": filter_rules, "nat_rules": nat_rules,
            "networks": nets, "published_ports": nets * PORTS_PER_NET,
            "services": services, "walk_established": walk,
            "walk_new": walk + services}


def _services(count, external):
    """kube-proxy's REJECT rules for services without endpoints; with
    external, every fifth is a node port (KUBE-EXTERNAL-SERVICES, local
    destinations only)."""
    out = []
    for i in range(count):
        a, b = divmod(i, 250)
        name = "default/svc-%03d:http" % i
        if external and i % 5 == 4:
            out.append("-A KUBE-EXTERNAL-SERVICES -p tcp -m comment "
                       "--comment \"%s has no endpoints\" -m addrtype "
                       "--dst-type LOCAL -m tcp --dport %d -j REJECT "
                       "--reject-with icmp-port-unreachable"
                       % (name, 30000 + i))
        else:
            out.append("-A KUBE-SERVICES -d 10.96.%d.%d/32 -p tcp -m comment"
                       " --comment \"%s has no endpoints\" -m tcp --dport %d"
                       " -j REJECT --reject-with icmp-port-unreachable"
                       % (a, b + 1, name, 80 + i % 8000))
    return out


def empty():
    """Both tables empty, user chains gone: the plain host."""
    return ("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
            ":OUTPUT ACCEPT [0:0]\nCOMMIT\n*nat\n:PREROUTING ACCEPT [0:0]\n"
            ":INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
            ":POSTROUTING ACCEPT [0:0]\nCOMMIT\n")
