/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF program tests' harness (tests/bpf/), in the manner of the
 * kernel's selftests/bpf test_progs: each file under prog_tests/ is one
 * job (verdict rows, VLAN rows, checksums, the FDB mirror, the fuzz run),
 * and every test runs once against each build of the datapath
 * (build/xdpnet.bpf.o "portable", build/xdpnet_live.bpf.o "live").
 *
 * The process runs in a network namespace of its own (unshare) with a real
 * bridge and veth ports, so that the live build, which reads the ingress
 * device's bridge port state, sees real ports; everything goes with the
 * process.
 *
 * Files: harness.c (main, options, report), env.c (namespace, bridge,
 * ports, their kernel state), load.c (feature probes, loading the builds),
 * maps.c (map contents, counters), frame.c (frames, checksums), run.c (a
 * row of a table through the programs), model.c (the fuzz run's model).
 */
#ifndef XT_HARNESS_H
#define XT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/if_ether.h>
#include <bpf/libbpf.h>

#include "xdpnet.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ results */

/* Record a failure of the current test (it goes on; the caller decides
 * whether to return). Returns false, so: if (!xt_check(...)) return; */
bool xt_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define CHECK(cond, ...) xt_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* A failure that makes the rest of the test pointless. */
#define REQUIRE(cond, ...)                                                \
	do {                                                              \
		if (!xt_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)) \
			return;                                           \
	} while (0)

/* Start one named test (a row, a sub-test); ends the previous one.
 * Returns false when --filter leaves it out (then do not run it). */
bool xt_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Skip the current test, saying which kernel feature is missing. */
void xt_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A note under the current test (printed as a TAP comment). */
void xt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool xt_failed(void);
bool xt_skipped(void);
extern int xt_verbose;

/* --------------------------------------------------------- the builds */

enum xt_build_id { XT_PORTABLE, XT_LIVE, XT_NR_BUILDS };

enum xt_map {
	XT_M_CFG,
	XT_M_FDB,
	XT_M_FDB_STATIC,
	XT_M_FDB_EV,
	XT_M_PORTS,
	XT_M_PORT_IDX,
	XT_M_VLANS,
	XT_M_TX,
	XT_M_STATS,
	XT_M_TRACE_OUT, /* the trace programs' record (not of the datapath) */
	XT_M_RT,	/* the generation */
	XT_M_FLOWS,	/* the decision cache */
	XT_M_DUMP,	/* the dump's switch */
	XT_M_KDEV,	/* live build: the ports' devices (-1 elsewhere) */
	XT_NR_MAPS,
};

struct xt_build {
	const char *name; /* "portable", "live" */
	bool live;
	struct bpf_object *obj;
	int tc, xdp, jiffies, bump; /* program fds */
	int trace_tc, trace_xdp;    /* their trace variants */
	/* The XDP stage and its trace variant in a second object on the
	 * same maps, loaded with xdpnet_test_native set: every buffer counts
	 * as an xdp_buff (bpf/xdpnet_native.h), which a test run, always
	 * generic to the program, cannot be. */
	struct bpf_object *obj_native;
	int xdp_native, trace_xdp_native;
	int map[XT_NR_MAPS];
	/* Why this build cannot run here (a feature the kernel lacks), or
	 * NULL. Loading failures are failures, never a reason. */
	const char *skip;
	/* Why the FDB trace programs were not loaded, or NULL. */
	const char *trace_skip;
	bool failed; /* the kernel refused it: its tests fail */
};

/* The build the current test runs against. */
extern struct xt_build *xt_b;

/* Feature probes and loading (load.c). Returns false after a failure. */
bool xt_load_builds(struct xt_build builds[XT_NR_BUILDS]);
void xt_unload_builds(struct xt_build builds[XT_NR_BUILDS]);
/* The running kernel's BTF has struct name (a feature probe). */
bool xt_kernel_has_struct(const char *name);
/* Attach (or detach) the build's FDB trace programs. */
bool xt_trace_attach(struct xt_build *b);
void xt_trace_detach(void);

/* ---------------------------------------------------------- the ports */

/*
 * Ports: each is one end of a veth pair in our namespace; the other end
 * (the "peer") stays outside the bridge, so frames sent into it arrive on
 * the port. Slots are deliberately not in ifindex order.
 */
enum xt_port {
	P_A, /* slot 3, veth, MTU 1500: the usual ingress port */
	P_B, /* slot 7, a tap's flags (XDP target), MTU 9000 */
	P_C, /* slot 1, veth, XDP target, MTU 1280 */
	P_D, /* slot 2, veth, no XDP target */
	P_E, /* a bridge port xdpnet does not carry */
	XT_NR_PORTS,
	P_GONE = XT_NR_PORTS, /* an ifindex without a device */
	P_BRIDGE,	      /* the bridge device itself */
	P_NONE = -1,
};

#define XT_SLOTS 8 /* slots in use are below this */
#define XT_GONE_IFINDEX 999999
#define XT_BRIDGE "xbr0"

struct xt_port_def {
	const char *dev, *peer;
	__u32 slot; /* 0: not carried */
	__u32 flags;
	__u32 mtu;
};
extern const struct xt_port_def xt_ports[XT_NR_PORTS];

struct xt_env {
	__u32 ifindex[XT_NR_PORTS];
	__u32 peer_ifindex[XT_NR_PORTS];
	__u32 bridge_ifindex;
	__u64 netns_ino;
	int nr_cpus;
	__u32 hz; /* jiffies per second, measured */
};
extern struct xt_env xt_env;

/* A port's ifindex (XT_GONE_IFINDEX, the bridge's), its name for
 * messages. */
__u32 xt_ifindex(int port);
const char *xt_port_name(int port);

/* The namespace, the bridge, the ports (env.c). NULL or why not. */
const char *xt_env_setup(void);
/* Run on one CPU only (cpu < 0: the current one): the CPU, or -1. Back to
 * the CPUs the process had at setup. */
int xt_pin(int cpu);
void xt_unpin(void);
/* Run a shell command in our namespace; 0 on success. The first line it
 * printed is in xt_sh_out. */
int xt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char xt_sh_out[256];

/* The kernel's view of a bridge port (what the live build reads). */
struct xt_kport {
	bool master;   /* a port of XT_BRIDGE */
	__u8 state;    /* BR_STATE_* */
	bool learning; /* bridge port flags */
	bool isolated;
	bool locked;
};
/* What the current row wants the kernel to have; applied by
 * xt_kports_sync(). Reset to the map's flags by the topology. */
extern struct xt_kport xt_kwant[XT_NR_PORTS];
/* The bridge device promiscuous (reset to off with the ports). */
extern bool xt_kwant_promisc;
/* The ports' device MTUs the current row wants (0: the port's own, what
 * the topology resets it to); applied by xt_kports_sync(). */
extern __u32 xt_kwant_mtu[XT_NR_PORTS];
bool xt_kports_sync(void);
/* A clsact qdisc on the port with a filter on its ingress (filter: else
 * none), or (on false, filter false) no clsact qdisc. */
bool xt_tc_ingress(int port, bool on, bool filter);
/* tc on port's egress: XT_TC_NONE (removed), a root qdisc of a user's
 * (a handle), a clsact qdisc without filters, with a filter, or a tcx
 * program (the build's TC program: only its presence counts). */
enum xt_tc_out {
	XT_TC_NONE,
	XT_TC_ROOT_QDISC,
	XT_TC_CLSACT,
	XT_TC_EGRESS_FILTER,
	XT_TC_TCX_PROG,
};
bool xt_tc_egress(int port, enum xt_tc_out what);
/* Read a port's state and flags back from the kernel (netlink). */
bool xt_kport_read(int port, struct xt_kport *out);
bool xt_kport_read_ifindex(__u32 ifindex, struct xt_kport *out);

/* ----------------------------------------------------------- the maps */

enum xt_mac {
	M_A,	    /* learned behind A */
	M_A2,	    /* static behind A */
	M_B,	    /* learned behind B */
	M_C,	    /* learned behind C */
	M_D,	    /* learned behind D */
	M_E,	    /* learned behind E (not carried) */
	M_GONE,	    /* learned behind an ifindex without a device */
	M_LOCAL,    /* the host's (the bridge's) own address */
	M_A_OWN,    /* port A's own address: a local entry on A */
	M_STATIC_B, /* static behind B */
	M_LOCKED_B, /* learned behind B, locked (802.1X MAB) */
	M_X,	    /* VLAN rows: known in VLAN 20 only */
	M_UNKNOWN,  /* in no entry */
	M_NEW,	    /* in no entry, used as a source */
	M_BCAST,
	M_MCAST4,
	M_MCAST6,
	M_ZERO,
	XT_NR_MACS,
};
extern const __u8 xt_macs[XT_NR_MACS][ETH_ALEN];

struct xt_fdb_def {
	enum xt_mac mac;
	__u16 vid;
	int port;    /* enum xt_port, P_GONE or P_BRIDGE */
	__u32 flags; /* enum xdpnet_fdb_flags; STATIC/LOCAL go to fdb_static */
};

struct xt_vlan_def {
	int port;
	__u16 vid;
	__u32 flags;
};

struct xt_topology {
	__u16 pvid[XT_NR_PORTS];
	const struct xt_fdb_def *fdb;
	size_t nr_fdb;
	const struct xt_vlan_def *vlans;
	size_t nr_vlans;
};

/* Settings a table runs under. */
struct xt_settings {
	__u8 vlan_filtering;
	__u8 hub; /* cfg.bypass 0 */
};

#define XT_PORT_GEN 7 /* cfg.port_gen the topology writes */

/* The datapath's clock (the build's xdpnet_jiffies program). */
__u32 xt_jiffies(void);

/* Empty every map, then write cfg, ports and the topology's entries
 * (learned entries refreshed now, refresh interval of an hour). */
bool xt_maps_reset(const struct xt_settings *s, const struct xt_topology *t);
bool xt_map_clear(enum xt_map m); /* a hash map: every key deleted */
bool xt_stats_zero(void);	  /* the counters of every slot in use */
bool xt_cfg_get(struct xdpnet_cfg *c);
bool xt_cfg_put(const struct xdpnet_cfg *c);
/* cfg.refresh_j: the keep-alive interval, jiffies. */
bool xt_refresh_every(__u32 r);
bool xt_port_get(int port, struct xdpnet_port *v);
bool xt_port_put(int port, const struct xdpnet_port *v);
/* Change a carried port's flags in the map and, for the flags the bridge
 * has too (learning, isolated, locked), in xt_kwant. */
bool xt_port_flags(int port, __u32 set, __u32 clear);
/* Set flags (enum xdpnet_vlan_flags) on a port's entry of one VLAN. */
bool xt_vlan_flags(int port, __u16 vid, __u32 set);
bool xt_tx_del(int port);
bool xt_fdb_put(enum xt_mac mac, __u16 vid, int port, __u32 flags,
		__u32 bridge_j);
/* The value as the datapath wrote it (slot/gen hints, bridge_j). */
bool xt_fdb_get(enum xt_mac mac, __u16 vid, struct xdpnet_fdb_val *v);
bool xt_fdb_get_raw(int map, const __u8 *mac, __u16 vid,
		    struct xdpnet_fdb_val *v);
bool xt_fdb_set_hint(enum xt_mac mac, __u16 vid, __u16 slot, __u16 gen);
bool xt_fdb_del(enum xt_mac mac, __u16 vid);
__u64 xt_fdb_ev(enum xdpnet_fdb_ev ev);

/* A digest of every map the datapath keeps (all but the counters, which
 * xt_snap() reads): equal before and after a run that changed nothing. */
bool xt_maps_digest(__u64 *h);
/* Bump the generation after writing maps, as user space does; read it. */
bool xt_bump(void);
__u32 xt_gen(void);

/* Per-slot counters, summed over CPUs. */
struct xt_snap {
	struct xdpnet_ctr_val c[XT_SLOTS][XDPNET_C_MAX];
};
bool xt_snap(struct xt_snap *s);
const char *xt_ctr_name(int ctr);
int xt_port_of_slot(__u32 slot); /* P_NONE for slot 0 */

/* --------------------------------------------------------- the frames */

enum xt_l3 { L3_IPV4, L3_IPV6, L3_ARP, L3_RAW };
enum xt_l4 { L4_UDP, L4_TCP, L4_ICMP /* ICMPv6 over IPv6 */ };
enum xt_csum {
	CS_VALID,   /* complete and valid */
	CS_PARTIAL, /* the folded pseudo-header sum (CHECKSUM_PARTIAL) */
	CS_BAD,	    /* neither */
	CS_ZERO,    /* 0 */
};

#define XT_MAX_FRAME 3500 /* what a test run takes (a page, less room) */
#define LEN(n) ((n) + 1)  /* struct xt_frame .len: cut the frame to n */
#define ETH_P_EXPERIMENTAL 0x88b5

/* A frame. Zero is a sensible default for every field: from port A, an
 * IPv4/UDP datagram of 64 bytes with a valid checksum. */
struct xt_frame {
	int in; /* enum xt_port */
	enum xt_mac dst, src;
	__u16 tpid; /* VLAN tag when not 0 (ETH_P_8021Q, ETH_P_8021AD) */
	__u16 vid;
	__u16 tpid2; /* a second (inner) tag when not 0 */
	enum xt_l3 l3;
	enum xt_l4 l4;
	enum xt_csum csum;
	__u16 l4len;	  /* L4 header and payload (0: 64 bytes); L3_RAW: bytes
			   * after the EtherType */
	__u16 frag_off;	  /* IPv4 frag_off, host order */
	bool ip_opts;	  /* IPv4: 4 bytes of options */
	bool ip_bad_csum; /* IPv4: a header checksum that does not add up */
	__u16 ethertype;  /* L3_RAW: its EtherType (0: ETH_P_EXPERIMENTAL) */
	bool hop_by_hop;  /* IPv6: a hop-by-hop options header */
	bool pad;	  /* pad to 60 bytes, as on the wire */
	int len;	  /* LEN(n): cut to n bytes */
	bool native;	  /* XDP: looks like tun's native path (run.c) */
	__u32 gso;	  /* TC: gso_size in the context */
};

/* Builds f into buf (XT_MAX_FRAME bytes); returns its length. */
size_t xt_build_frame(const struct xt_frame *f, __u8 *buf);
/* Our own check of the L4 checksum of an IPv4/IPv6 TCP, UDP or ICMP
 * frame (after at most one VLAN tag): 1 valid, 0 not, -1 not such a
 * frame. */
int xt_l4_csum_ok(const __u8 *p, size_t len);
/* Offset of the L4 checksum field, or 0 when there is none. */
size_t xt_l4_csum_off(const __u8 *p, size_t len);
/* RFC 1071 helpers (network byte order). */
__u32 xt_csum_add(__u32 sum, const __u8 *p, size_t len);
__u16 xt_csum_fold(__u32 sum);
static inline void xt_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}
static inline __u16 xt_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* ------------------------------------------------------ running frames */

#define TC_ACT_REDIRECT 7
#define TC_ACT_UNSPEC_RET 0xffffffffu /* TC_ACT_UNSPEC (-1), as retval */

/* One test run. */
struct xt_run {
	/* in */
	bool xdp;
	bool trace; /* the stage's trace variant (xdpnet trace) */
	__u32 ifindex;
	bool native; /* XDP: an xdp_buff (tun's native path; obj_native) */
	__u32 gso;   /* TC: gso_size */
	const __u8 *frame;
	size_t len;
	/* out */
	int err; /* -errno from BPF_PROG_TEST_RUN */
	__u32 retval;
	__u8 out[XT_MAX_FRAME];
	size_t out_len;
};
bool xt_test_run(struct xt_run *r);
/*
 * Frames BPF_PROG_TEST_RUN refuses (EINVAL; seen on Linux 6.18): any
 * program, under 14 bytes (a runt); TC, an IPv4 (IPv6) EtherType with
 * less than 20 (40) bytes behind the Ethernet header. A real port never
 * hands either program a runt (veth and tun refuse to send one). Rows
 * and the fuzz run accept the refusal of exactly these frames, and judge
 * them by the rules if a kernel takes them.
 */
bool xt_kernel_refuses(bool xdp, const __u8 *f, size_t len);

/* A row: one frame, run through the stages in order, each with what it
 * must produce. */
enum xt_stage { ST_END, ST_TC, ST_XDP };
#define NO_CTR (-1)
#define MAX_STEPS 6

struct xt_expect {
	enum xt_stage stage;
	__u32 retval;
	int ctr;    /* counter on the ingress port (its slot), or NO_CTR */
	int target; /* port counting XDPNET_C_RX_REDIRECTED, or P_NONE */
};

/* clang-format off */
#define TC_TO(p) { ST_TC, TC_ACT_REDIRECT, XDPNET_C_TC_REDIRECT, p }
#define TC_PASS(why) { ST_TC, TC_ACT_UNSPEC_RET, XDPNET_C_PASS_##why, P_NONE }
#define XDP_TO(p) { ST_XDP, XDP_REDIRECT, XDPNET_C_XDP_REDIRECT, p }
#define XDP_DEFER(why) \
	{ ST_XDP, XDP_PASS, XDPNET_C_XDP_DEFER_##why, P_NONE }
/* XDP_PASS without a counter: the TC stage counts the final verdict. */
#define XDP_ON { ST_XDP, XDP_PASS, NO_CTR, P_NONE }
/* clang-format on */

enum xt_out {
	OUT_SAME,      /* every program returns the frame unchanged */
	OUT_CSUM_DONE, /* XDP redirect: the checksum is completed */
};

enum xt_only { ONLY_NONE, ONLY_LIVE, ONLY_PORTABLE };

struct xt_row {
	const char *name;
	struct xt_frame fr;
	struct xt_expect exp[MAX_STEPS]; /* run in order, on the same frame */
	/* The live build's, where it differs (live[0].stage set). */
	struct xt_expect live[MAX_STEPS];
	enum xt_out out;
	enum xt_only only;
	bool (*setup)(void); /* after the table's topology */
	void (*check)(void); /* after the last step */
};

struct xt_table {
	const char *name;
	struct xt_settings set;
	const struct xt_topology *topo;
	const struct xt_row *rows;
	size_t nr_rows;
};

/* Runs every row of a table against xt_b, each as a test. */
void xt_run_table(const struct xt_table *t);
/* Prepares a table's maps and kernel ports for one row (run.c). */
bool xt_row_prepare(const struct xt_table *t, bool (*setup)(void));

/* Topologies shared between tables (prog_tests/topo.c). */
extern const struct xt_topology xt_plain, xt_vlan;

/* --------------------------------------------------------- the tests */

struct xt_opts {
	unsigned long fuzz; /* frames */
	unsigned long long seed;
	const char *filter;    /* run only tests whose name contains this */
	const char *known[16]; /* rows whose failure is known (local runs) */
	int nr_known;
};
extern struct xt_opts xt_opts;

/* The tests, in the order they run (one file each in prog_tests/). */
/* clang-format off */
#define XT_TESTS(X) \
	X(verdicts) X(vlan) X(csum) X(refresh) X(live) X(gso) X(fdb_trace) \
	X(cache) X(nf) X(fuzz)
/* clang-format on */
#define XT_DECLARE(n) void test_##n(void);
XT_TESTS(XT_DECLARE)
#undef XT_DECLARE

#endif /* XT_HARNESS_H */
