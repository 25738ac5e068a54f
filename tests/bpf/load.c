// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loading the two builds of the datapath from the skeletons' ELF bytes.
 *
 * Every program is loaded. A program the kernel refuses is a failure; a
 * program is left out only when a probe shows that the kernel lacks what it
 * needs, and the probe's finding is printed:
 *  - both builds: kernel BTF (CO-RE), the helpers they call;
 *  - the live build: the kfuncs bpf_cast_to_kern_ctx and bpf_rdonly_cast,
 *    and struct net_bridge_port in vmlinux BTF (the bridge built in);
 *  - the FDB mirror (tp_btf on bridge tracepoints): btf_trace_br_fdb_update
 *    and its siblings in vmlinux or the bridge module's BTF;
 *  - the redirect-error counters: btf_trace_xdp_* in vmlinux BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "xdpnet.skel.h"
#include "xdpnet_live.skel.h"
#include "datapath/load.h"

static const char *const map_names[XT_NR_MAPS] = {
	[XT_M_CFG] = ".data.cfg",	  [XT_M_FDB] = "fdb",
	[XT_M_FDB_STATIC] = "fdb_static", [XT_M_FDB_EV] = "fdb_ev",
	[XT_M_PORTS] = "ports",		  [XT_M_PORT_IDX] = "port_idx",
	[XT_M_VLANS] = "vlans",		  [XT_M_TX] = "tx_ports",
	[XT_M_STATS] = "stats",		  [XT_M_TRACE_OUT] = "trace_out",
	[XT_M_RT] = ".data.rt",		  [XT_M_FLOWS] = "flows",
	[XT_M_DUMP] = ".data.dump",	  [XT_M_KDEV] = ".data.kdev",
};

static const char *const fdb_progs[] = {
	"xdpnet_fdb_update",
	"xdpnet_fdb_delete",
	"xdpnet_fdb_add",
	"xdpnet_fdb_ext_learn",
};
static const char *const fdb_tps[] = {
	"btf_trace_br_fdb_update",
	"btf_trace_fdb_delete",
	"btf_trace_br_fdb_add",
	"btf_trace_br_fdb_external_learn_add",
};

static struct {
	struct btf *vmlinux, *bridge;
	char why_live[160], why_trace[160], why_xdp_trace[160], why_all[160];
} probe;

static bool has(const struct btf *btf, const char *name, int kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

bool xt_kernel_has_struct(const char *name)
{
	return has(probe.vmlinux, name, BTF_KIND_STRUCT);
}

static void helper(enum bpf_prog_type t, enum bpf_func_id id, const char *name,
		   char *why, size_t len)
{
	if (why[0] || libbpf_probe_bpf_helper(t, id, NULL) == 1)
		return;
	snprintf(why, len, "the BPF helper %s for %s programs", name,
		 t == BPF_PROG_TYPE_XDP ? "XDP" : "tc");
}

static void run_probes(void)
{
	size_t i;

	probe.vmlinux = btf__load_vmlinux_btf();
	if (!probe.vmlinux) {
		snprintf(probe.why_all, sizeof(probe.why_all),
			 "kernel BTF (/sys/kernel/btf/vmlinux) for CO-RE");
		return;
	}
	helper(BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_check_mtu, "bpf_check_mtu",
	       probe.why_all, sizeof(probe.why_all));
	helper(BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_load_bytes, "bpf_xdp_load_bytes",
	       probe.why_all, sizeof(probe.why_all));
	helper(BPF_PROG_TYPE_XDP, BPF_FUNC_jiffies64, "bpf_jiffies64",
	       probe.why_all, sizeof(probe.why_all));
	if (!probe.why_all[0] &&
	    libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SYSCALL, NULL) != 1)
		snprintf(probe.why_all, sizeof(probe.why_all),
			 "BPF_PROG_TYPE_SYSCALL (the jiffies program)");

	if (!has(probe.vmlinux, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC))
		snprintf(probe.why_live, sizeof(probe.why_live),
			 "the kfunc bpf_cast_to_kern_ctx (Linux 6.3)");
	else if (!has(probe.vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC))
		snprintf(probe.why_live, sizeof(probe.why_live),
			 "the kfunc bpf_rdonly_cast (Linux 6.3)");
	else if (!has(probe.vmlinux, "net_bridge_port", BTF_KIND_STRUCT))
		snprintf(probe.why_live, sizeof(probe.why_live),
			 "struct net_bridge_port in vmlinux BTF (the bridge "
			 "built as a module)");

	/* The bridge's tracepoints: built in, or in the module's BTF. */
	if (!has(probe.vmlinux, fdb_tps[0], BTF_KIND_TYPEDEF))
		probe.bridge = btf__load_module_btf("bridge", probe.vmlinux);
	for (i = 0; i < ARRAY_SIZE(fdb_tps) && !probe.why_trace[0]; i++)
		if (!has(probe.vmlinux, fdb_tps[i], BTF_KIND_TYPEDEF) &&
		    !has(probe.bridge, fdb_tps[i], BTF_KIND_TYPEDEF))
			snprintf(probe.why_trace, sizeof(probe.why_trace),
				 "the tracepoint BTF %s (vmlinux or bridge "
				 "module)",
				 fdb_tps[i]);
	if (!has(probe.vmlinux, "btf_trace_xdp_redirect_err",
		 BTF_KIND_TYPEDEF) ||
	    !has(probe.vmlinux, "btf_trace_xdp_devmap_xmit", BTF_KIND_TYPEDEF))
		snprintf(probe.why_xdp_trace, sizeof(probe.why_xdp_trace),
			 "the tracepoint BTF btf_trace_xdp_redirect_err / "
			 "btf_trace_xdp_devmap_xmit");
}

static struct bpf_map *find_map(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
	{
		const char *n = bpf_map__name(m);
		size_t l = strlen(n), k = strlen(name);

		if (name[0] == '.' ? l >= k && !strcmp(n + l - k, name)
				   : !strcmp(n, name))
			return m;
	}
	return NULL;
}

static int prog_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	return p ? bpf_program__fd(p) : -1;
}

static void autoload(struct bpf_object *obj, const char *name, bool on)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	if (p)
		bpf_program__set_autoload(p, on);
}

/* b's XDP stage and its trace variant again, on b's maps, with every
 * buffer taken as an xdp_buff (xdpnet_test_native). */
static bool load_native(struct xt_build *b, const void *bytes, size_t n)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct bpf_program *p;
	struct bpf_map *m;
	__u32 one = 1;
	int err = 0;

	oo.object_name = b->live ? "xdpnet_live" : "xdpnet";
	b->obj_native = bpf_object__open_mem(bytes, n, &oo);
	if (!CHECK(b->obj_native, "cannot open the %s object again: %s",
		   b->name, strerror(errno)))
		return false;
	bpf_object__for_each_program(p, b->obj_native) bpf_program__set_autoload(
		p, !strcmp(bpf_program__name(p), "xdpnet_xdp") ||
			   !strcmp(bpf_program__name(p), "xdpnet_trace_xdp"));
	bpf_object__for_each_map(m, b->obj_native)
	{
		const char *name = bpf_map__name(m);
		size_t l = strlen(name), k = strlen(".rodata.test");
		struct bpf_map *mine;

		if (l >= k && !strcmp(name + l - k, ".rodata.test")) {
			err = bpf_map__set_initial_value(m, &one, sizeof(one));
		} else {
			mine = bpf_object__find_map_by_name(b->obj, name);
			err = mine ? bpf_map__reuse_fd(m, bpf_map__fd(mine))
				   : -ENOENT;
		}
		if (!CHECK(!err, "%s: native copy, map %s: %s", b->name, name,
			   strerror(-err)))
			return false;
	}
	err = bpf_object__load(b->obj_native);
	if (!CHECK(!err,
		   "the kernel refused the %s build's XDP stage with "
		   "xdpnet_test_native: %s",
		   b->name, strerror(-err)))
		return false;
	b->xdp_native = prog_fd(b->obj_native, "xdpnet_xdp");
	b->trace_xdp_native = prog_fd(b->obj_native, "xdpnet_trace_xdp");
	return CHECK(b->xdp_native >= 0 && b->trace_xdp_native >= 0,
		     "%s: a native program is missing", b->name);
}

static bool load_build(struct xt_build *b)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	const void *bytes;
	size_t n, i;
	int err;

	/* Loaded whatever --filter says: every test needs it. */
	xt_begin("load the %s build", b->name);
	if (probe.why_all[0] || (b->live && probe.why_live[0])) {
		b->skip = probe.why_all[0] ? probe.why_all : probe.why_live;
		xt_skip("the kernel lacks %s", b->skip);
		return true;
	}
	oo.object_name = b->live ? "xdpnet_live" : "xdpnet";
	bytes = b->live ? xdpnet_live_bpf__elf_bytes(&n)
			: xdpnet_bpf__elf_bytes(&n);
	b->obj = bpf_object__open_mem(bytes, n, &oo);
	if (!CHECK(b->obj, "cannot open the %s object: %s", b->name,
		   strerror(errno)))
		return false;
	if (probe.why_trace[0]) {
		for (i = 0; i < ARRAY_SIZE(fdb_progs); i++)
			autoload(b->obj, fdb_progs[i], false);
		b->trace_skip = probe.why_trace;
		xt_note("FDB mirror programs left out: the kernel lacks %s",
			probe.why_trace);
	}
	if (probe.why_xdp_trace[0]) {
		autoload(b->obj, "xdpnet_redirect_err", false);
		autoload(b->obj, "xdpnet_devmap_xmit", false);
		xt_note("redirect-error programs left out: the kernel lacks %s",
			probe.why_xdp_trace);
	}
	/* The decision cache: entries for every possible CPU, as attach
	 * sizes it. */
	err = bpf_map__set_max_entries(find_map(b->obj, "flows"),
				       xt_env.nr_cpus * XDPNET_FLOW_ENTRIES);
	if (!CHECK(!err, "cannot size the decision cache: %s", strerror(-err)))
		return false;
	err = bpf_object__load(b->obj);
	if (!CHECK(!err,
		   "the kernel refused the %s build: %s (run with -vv for the "
		   "verifier log)",
		   b->name, strerror(-err)))
		return false;
	b->tc = prog_fd(b->obj, "xdpnet_tc");
	b->xdp = prog_fd(b->obj, "xdpnet_xdp");
	b->jiffies = prog_fd(b->obj, "xdpnet_jiffies");
	b->bump = prog_fd(b->obj, "xdpnet_bump");
	b->trace_tc = prog_fd(b->obj, "xdpnet_trace_tc");
	b->trace_xdp = prog_fd(b->obj, "xdpnet_trace_xdp");
	if (!CHECK(b->tc >= 0 && b->xdp >= 0 && b->jiffies >= 0 &&
			   b->bump >= 0 && b->trace_tc >= 0 &&
			   b->trace_xdp >= 0,
		   "%s: a program is missing", b->name))
		return false;
	if (!load_native(b, bytes, n))
		return false;
	for (i = 0; i < XT_NR_MAPS; i++) {
		struct bpf_map *m = find_map(b->obj, map_names[i]);

		if (i == XT_M_KDEV && !b->live && !m) {
			b->map[i] = -1;
			continue;
		}
		if (!CHECK(m, "%s: no map %s", b->name, map_names[i]))
			return false;
		b->map[i] = bpf_map__fd(m);
		if (i == XT_M_CFG &&
		    !CHECK(bpf_map__value_size(m) == sizeof(struct xdpnet_cfg),
			   "%s: .data.cfg holds %u bytes, struct xdpnet_cfg %zu",
			   b->name, bpf_map__value_size(m),
			   sizeof(struct xdpnet_cfg)))
			return false;
	}
	return true;
}

bool xt_load_builds(struct xt_build builds[XT_NR_BUILDS])
{
	bool ok = true;
	int i;

	run_probes();
	builds[XT_PORTABLE].name = "portable";
	builds[XT_LIVE].name = "live";
	builds[XT_LIVE].live = true;
	for (i = 0; i < XT_NR_BUILDS; i++) {
		if (!load_build(&builds[i])) {
			ok = false;
			builds[i].failed = true;
		}
	}
	return ok;
}

void xt_unload_builds(struct xt_build builds[XT_NR_BUILDS])
{
	int i;

	xt_trace_detach();
	for (i = 0; i < XT_NR_BUILDS; i++) {
		bpf_object__close(builds[i].obj_native);
		bpf_object__close(builds[i].obj);
	}
	btf__free(probe.bridge);
	btf__free(probe.vmlinux);
}

static struct bpf_link *links[ARRAY_SIZE(fdb_progs)];

bool xt_trace_attach(struct xt_build *b)
{
	size_t i;

	xt_trace_detach();
	for (i = 0; i < ARRAY_SIZE(fdb_progs); i++) {
		struct bpf_program *p =
			bpf_object__find_program_by_name(b->obj, fdb_progs[i]);

		links[i] = p ? bpf_program__attach(p) : NULL;
		if (!CHECK(links[i], "cannot attach %s: %s", fdb_progs[i],
			   strerror(errno))) {
			xt_trace_detach();
			return false;
		}
	}
	return true;
}

void xt_trace_detach(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(links); i++) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}
