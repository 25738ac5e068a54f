// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnt_tcx: another party's tcx program, for tests/integration/share.sh
 * (bpftool of Debian 12 has no tcx).
 *
 *   xnt_tcx attach ingress|egress DEV OBJ PIN [first|last]
 *       load OBJ's first program, attach it to DEV's tcx chain (first:
 *       BPF_F_BEFORE, last: BPF_F_AFTER, default: appended), pin the link
 *       at PIN_link and the object's map "counts" at PIN_counts
 *   xnt_tcx query ingress|egress DEV   the chain's program names, in order
 *   xnt_tcx counts PIN                 "seen S xntf X dropped D"
 *   xnt_tcx detach PIN                 detach the link, remove both pins
 *   xnt_tcx fill ingress|egress DEV PIN
 *       append pass-through programs (TCX_NEXT) to DEV's chain until the
 *       kernel takes no more (a full chain, -ERANGE: exit 0; any other
 *       refusal, such as no tcx: exit 1), links pinned at PIN_fillN
 *   xnt_tcx unfill PIN                 detach and unpin PIN_fill*
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/tcx.h"
#include "lib/util.h"

static int usage(void)
{
	fprintf(stderr, "usage: xnt_tcx attach ingress|egress DEV OBJ PIN "
			"[first|last] | query ingress|egress DEV | counts PIN "
			"| detach PIN | fill ingress|egress DEV PIN | unfill "
			"PIN\n");
	return 2;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "xnt_tcx: %s: %s\n", what,
		strerror(err < 0 ? -err : err));
	return 1;
}

static int side(const char *s, int *egress)
{
	if (!strcmp(s, "ingress") || !strcmp(s, "egress")) {
		*egress = !strcmp(s, "egress");
		return 0;
	}
	return -1;
}

static int do_attach(int argc, char **argv)
{
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts);
	char path[512];
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	unsigned int ifindex;
	int egress, fd, err;

	if (argc < 5 || side(argv[1], &egress))
		return usage();
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex)
		return fail(argv[2], errno);
	if (argc > 5)
		opts.flags = !strcmp(argv[5], "first")	? XN_F_BEFORE
			     : !strcmp(argv[5], "last") ? XN_F_AFTER
							: ~0U;
	if (opts.flags == ~0U)
		return usage();
	obj = bpf_object__open_file(argv[3], NULL);
	if (!obj)
		return fail(argv[3], errno);
	err = bpf_object__load(obj);
	if (err)
		return fail("load", err);
	prog = bpf_object__next_program(obj, NULL);
	map = bpf_object__find_map_by_name(obj, "counts");
	if (!prog || !map)
		return fail("no program or no map \"counts\"", EINVAL);
	fd = bpf_link_create(bpf_program__fd(prog), ifindex,
			     egress ? XN_TCX_EGRESS : XN_TCX_INGRESS, &opts);
	if (fd < 0)
		return fail("tcx attach", fd);
	snprintf(path, sizeof(path), "%s_counts", argv[4]);
	err = bpf_obj_pin(bpf_map__fd(map), path);
	if (err)
		return fail(path, err);
	snprintf(path, sizeof(path), "%s_link", argv[4]);
	err = bpf_obj_pin(fd, path);
	if (err)
		return fail(path, err);
	bpf_object__close(obj);
	return 0;
}

static int do_query(int argc, char **argv)
{
	__u32 ids[64];
	char name[32];
	unsigned int ifindex;
	int egress, n, i;

	if (argc < 3 || side(argv[1], &egress))
		return usage();
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex)
		return fail(argv[2], errno);
	n = xn_tcx_progs(ifindex, egress, ids, 64);
	if (n < 0)
		return fail("query", n);
	for (i = 0; i < n; i++) {
		xn_prog_name(ids[i], name, sizeof(name));
		printf("%s%s", i ? " " : "", name);
	}
	printf("\n");
	return 0;
}

static int do_counts(int argc, char **argv)
{
	__u64 v[3] = {};
	char path[512];
	__u32 k;
	int fd;

	if (argc < 2)
		return usage();
	snprintf(path, sizeof(path), "%s_counts", argv[1]);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return fail(path, fd);
	for (k = 0; k < 3; k++)
		if (bpf_map_lookup_elem(fd, &k, &v[k]))
			return fail("lookup", errno);
	printf("seen %llu xntf %llu dropped %llu\n", (unsigned long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2]);
	close(fd);
	return 0;
}

static int do_detach(int argc, char **argv)
{
	char path[512];
	int fd;

	if (argc < 2)
		return usage();
	snprintf(path, sizeof(path), "%s_link", argv[1]);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s_counts", argv[1]);
	unlink(path);
	return 0;
}

/* A program that passes every frame on to the next in the chain. */
static int pass_prog(int egress)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_0,
		  .imm = -1 }, /* TCX_NEXT */
		{ .code = BPF_JMP | BPF_EXIT },
	};
	DECLARE_LIBBPF_OPTS(bpf_prog_load_opts, o,
			    .expected_attach_type = egress ? XN_TCX_EGRESS
							   : XN_TCX_INGRESS);

	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "xnt_fill", "GPL", insns,
			     ARRAY_SIZE(insns), &o);
}

static int do_fill(int argc, char **argv)
{
	char path[512];
	unsigned int ifindex;
	int egress, n, prog, fd, err;

	if (argc < 4 || side(argv[1], &egress))
		return usage();
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex)
		return fail(argv[2], errno);
	for (n = 0;; n++) {
		prog = pass_prog(egress);
		if (prog < 0)
			return fail("load", prog);
		fd = bpf_link_create(prog, ifindex,
				     egress ? XN_TCX_EGRESS : XN_TCX_INGRESS,
				     NULL);
		close(prog);
		if (fd < 0) {
			printf("%d programs; the next refused: %s\n", n,
			       strerror(-fd));
			return fd == -ERANGE ? 0 : 1;
		}
		snprintf(path, sizeof(path), "%s_fill%d", argv[3], n);
		err = bpf_obj_pin(fd, path);
		close(fd);
		if (err)
			return fail(path, err);
	}
}

static int do_unfill(int argc, char **argv)
{
	char path[512];
	int n, fd;

	if (argc < 2)
		return usage();
	for (n = 0;; n++) {
		snprintf(path, sizeof(path), "%s_fill%d", argv[1], n);
		fd = bpf_obj_get(path);
		if (fd < 0)
			return 0;
		bpf_link_detach(fd);
		close(fd);
		unlink(path);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if (!strcmp(argv[1], "attach"))
		return do_attach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "query"))
		return do_query(argc - 1, argv + 1);
	if (!strcmp(argv[1], "counts"))
		return do_counts(argc - 1, argv + 1);
	if (!strcmp(argv[1], "detach"))
		return do_detach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fill"))
		return do_fill(argc - 1, argv + 1);
	if (!strcmp(argv[1], "unfill"))
		return do_unfill(argc - 1, argv + 1);
	return usage();
}
