// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xnb_minimal - scripts/bench's reference path and its program statistics.
 *
 *   xnb_minimal attach --dev IF [--dev IF ...] --fdb MAC=IF[,peer] ...
 *                      [--hook tcx|clsact] [--xdp] [--xdp-dev IF ...]
 *     Loads xnb_minimal.bpf.c's programs, fills the MAC -> ifindex map and
 *     hooks tc-minimal on TC ingress of every --dev (a tcx link, or a
 *     clsact filter where the kernel has no tcx or --hook clsact asks for
 *     one: the hook xdpnet's TC stage uses). --xdp (xdp-minimal) also
 *     links the XDP program to every --dev in native mode, never generic,
 *     and puts every --dev in its devmap; --xdp-dev IF does that for IF
 *     alone (a --dev besides), so that frames to the other ports (veths,
 *     which take XDP frames only with NAPI on their peer) pass on to TC.
 *     Prints READY, holds everything until SIGTERM or SIGINT, then
 *     unhooks and exits 0. Nothing is pinned: if it dies, the tcx and
 *     XDP links go with it.
 *
 *   xnb_minimal progs [--dev IF ...] [--id N ...]
 *     One JSON line: every BPF program on TC (tcx) ingress and XDP of each
 *     --dev, and each --id, with run_time_ns and run_cnt from
 *     BPF_OBJ_GET_INFO_BY_FD (kernel.bpf_stats_enabled or "stats" on).
 *
 *   xnb_minimal stats
 *     Turns run-time statistics on (BPF_ENABLE_STATS), prints READY and
 *     keeps them on until SIGTERM or SIGINT (the kernel turns them off
 *     when the last such holder exits, killed or not).
 *
 * Run attach and progs in the namespace that holds the devices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <linux/types.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xnb_minimal.h"
#include "xnb_minimal.skel.h"
#include "xnb_tool.h"

/* Not in libbpf 1.1's and Linux 6.1's headers (Linux 6.6+). */
#define XNB_TCX_INGRESS 46
#define MAX_DEVS 64
#define MAX_PROGS 256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: xnb_minimal attach --dev IF [--dev IF ...] "
	      "[--fdb MAC=IF[,peer] ...] [--hook tcx|clsact] [--xdp] "
	      "[--xdp-dev IF ...]\n"
	      "       xnb_minimal progs [--dev IF ...] [--id N ...]\n"
	      "       xnb_minimal stats\n",
	      f);
}

static void wait_for_signal(void)
{
	sigset_t set;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	sigemptyset(&set);
	puts("READY");
	fflush(stdout);
	while (!stop)
		sigsuspend(&set);
}

static unsigned int ifindex_of(const char *dev)
{
	unsigned int i = if_nametoindex(dev);

	if (!i)
		die("%s: no such device in this network namespace", dev);
	return i;
}

/* "MAC=IF" or "MAC=IF,peer" into the map. */
static void fdb_add(int map_fd, const char *arg)
{
	char buf[64], *dev, *flag;
	struct xnb_min_mac key;
	__u32 val;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		die("bad --fdb '%s'", arg);
	dev = strchr(buf, '=');
	if (!dev)
		die("bad --fdb '%s' (MAC=IF[,peer])", arg);
	*dev++ = '\0';
	flag = strchr(dev, ',');
	if (flag)
		*flag++ = '\0';
	if (parse_mac(buf, key.addr))
		die("bad MAC in --fdb '%s'", arg);
	if (flag && strcmp(flag, "peer"))
		die("bad flag in --fdb '%s' (only ',peer')", arg);
	val = ifindex_of(dev) | (flag ? XNB_MIN_PEER : 0);
	if (bpf_map_update_elem(map_fd, &key, &val, BPF_ANY))
		die("fdb update: %s", strerror(errno));
}

struct hook {
	unsigned int ifindex;
	int link_fd;	/* tcx: the link, or -1 */
	int own_clsact; /* clsact: we created the qdisc */
	int xdp_fd;	/* --xdp: the XDP link, or -1 */
};

/* xdp-minimal on h's device, native mode only, and the device in the
 * devmap. */
static int hook_xdp(int prog_fd, int devmap_fd, struct hook *h)
{
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts,
			    .flags = XDP_FLAGS_DRV_MODE);
	__u32 ifindex = h->ifindex;

	if (bpf_map_update_elem(devmap_fd, &ifindex, &ifindex, BPF_ANY))
		return -errno;
	h->xdp_fd = bpf_link_create(prog_fd, h->ifindex, BPF_XDP, &opts);
	return h->xdp_fd < 0 ? h->xdp_fd : 0;
}

static int hook_tcx(int prog_fd, struct hook *h)
{
	h->link_fd =
		bpf_link_create(prog_fd, h->ifindex, XNB_TCX_INGRESS, NULL);
	return h->link_fd < 0 ? h->link_fd : 0;
}

static int hook_clsact(int prog_fd, struct hook *h)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, th, .ifindex = h->ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1,
			    .prog_fd = prog_fd);
	int err = bpf_tc_hook_create(&th);

	if (!err)
		h->own_clsact = 1;
	else if (err != -EEXIST)
		return err;
	return bpf_tc_attach(&th, &opts);
}

static void unhook(struct hook *h)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, th, .ifindex = h->ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);

	if (h->xdp_fd >= 0)
		close(h->xdp_fd);
	if (h->link_fd >= 0) {
		close(h->link_fd);
		return;
	}
	bpf_tc_detach(&th, &opts);
	if (h->own_clsact) {
		th.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&th);
	}
}

static int cmd_attach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "fdb", required_argument, NULL, 'f' },
		{ "hook", required_argument, NULL, 'k' },
		{ "xdp", no_argument, NULL, 'x' },
		{ "xdp-dev", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devs[MAX_DEVS], *fdbs[MAX_DEVS * 4];
	int ndev = 0, nfdb = 0, clsact = 0, xdp = 0, opt, prog_fd, map_fd, i;
	int xdp_on[MAX_DEVS] = { 0 };
	int err = 0;
	struct hook hooks[MAX_DEVS];
	struct xnb_minimal_bpf *skel;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
		case 'X':
			if (ndev == MAX_DEVS)
				die("at most %d --dev", MAX_DEVS);
			xdp_on[ndev] = opt == 'X';
			devs[ndev++] = optarg;
			break;
		case 'f':
			if (nfdb == MAX_DEVS * 4)
				die("at most %d --fdb", MAX_DEVS * 4);
			fdbs[nfdb++] = optarg;
			break;
		case 'k':
			if (strcmp(optarg, "tcx") && strcmp(optarg, "clsact"))
				die("bad --hook '%s' (tcx or clsact)", optarg);
			clsact = !strcmp(optarg, "clsact");
			break;
		case 'x':
			xdp = 1;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!ndev || optind != argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < ndev; i++)
		hooks[i] = (struct hook){ .ifindex = ifindex_of(devs[i]),
					  .link_fd = -1,
					  .xdp_fd = -1 };

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	skel = xnb_minimal_bpf__open_and_load();
	if (!skel)
		die("cannot load the TC program: %s", strerror(errno));
	prog_fd = bpf_program__fd(skel->progs.xnb_min_tc);
	map_fd = bpf_map__fd(skel->maps.fdb);
	for (i = 0; i < nfdb; i++)
		fdb_add(map_fd, fdbs[i]);

	for (i = 0; i < ndev && !err; i++) {
		err = clsact ? -EINVAL : hook_tcx(prog_fd, &hooks[i]);
		if (err == -EINVAL || err == -EOPNOTSUPP) {
			if (!clsact && i == 0)
				fprintf(stderr, "xnb_minimal: no tcx here, "
						"using clsact\n");
			clsact = 1;
			err = hook_clsact(prog_fd, &hooks[i]);
		}
		if (err) {
			fprintf(stderr, "xnb_minimal: %s: cannot hook: %s\n",
				devs[i], strerror(-err));
			i++; /* unhook: a clsact qdisc made for it */
			break;
		}
		if (xdp || xdp_on[i]) {
			err = hook_xdp(bpf_program__fd(skel->progs.xnb_min_xdp),
				       bpf_map__fd(skel->maps.ports),
				       &hooks[i]);
			if (err)
				fprintf(stderr,
					"xnb_minimal: %s: cannot attach XDP in "
					"driver mode: %s\n",
					devs[i], strerror(-err));
		}
	}
	if (!err)
		wait_for_signal();
	while (i-- > 0)
		unhook(&hooks[i]);
	xnb_minimal_bpf__destroy(skel);
	return err ? 1 : 0;
}

struct prog_ref {
	__u32 id;
	const char *dev;
	const char *hook;
};

static int add_ref(struct prog_ref *refs, int n, __u32 id, const char *dev,
		   const char *hook)
{
	if (!id || n == MAX_PROGS)
		return n;
	refs[n] = (struct prog_ref){ .id = id, .dev = dev, .hook = hook };
	return n + 1;
}

static void print_prog(const struct prog_ref *r, int first)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(r->id);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		if (fd >= 0)
			close(fd);
		return; /* gone between the query and now */
	}
	close(fd);
	printf("%s{\"id\":%u,\"name\":\"%s\",\"dev\":\"%s\",\"hook\":\"%s\","
	       "\"run_time_ns\":%llu,\"run_cnt\":%llu}",
	       first ? "" : ",", r->id, info.name, r->dev ? r->dev : "",
	       r->hook, (unsigned long long)info.run_time_ns,
	       (unsigned long long)info.run_cnt);
}

static int cmd_progs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "id", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct prog_ref refs[MAX_PROGS];
	int n = 0, opt, i;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': {
			unsigned int ifindex = ifindex_of(optarg);
			__u32 ids[16], cnt = 16, xdp_id = 0, j;

			if (!bpf_prog_query(ifindex, XNB_TCX_INGRESS, 0, NULL,
					    ids, &cnt))
				for (j = 0; j < cnt; j++)
					n = add_ref(refs, n, ids[j], optarg,
						    "tcx");
			if (!bpf_xdp_query_id(ifindex, 0, &xdp_id))
				n = add_ref(refs, n, xdp_id, optarg, "xdp");
			break;
		}
		case 'i': {
			char *e;
			unsigned long id = strtoul(optarg, &e, 10);

			if (*e || !id || id > 0xffffffffUL)
				die("bad --id '%s'", optarg);
			n = add_ref(refs, n, id, NULL, "id");
			break;
		}
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	printf("{\"tool\":\"xnb_minimal\",\"progs\":[");
	for (i = 0; i < n; i++)
		print_prog(&refs[i], i == 0);
	printf("]}\n");
	return 0;
}

static int cmd_stats(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0)
		die("BPF_ENABLE_STATS: %s", strerror(-fd));
	wait_for_signal();
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "attach"))
		return cmd_attach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "progs"))
		return cmd_progs(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stats") && argc == 2)
		return cmd_stats();
	usage(stderr);
	return 2;
}
