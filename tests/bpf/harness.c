// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpf_prog_test: the datapath's programs through BPF_PROG_TEST_RUN (see
 * harness.h). Prints TAP; exits 0 when every test passed or was skipped
 * for a kernel feature it names, 1 otherwise.
 *
 *   bpf_prog_test [--fuzz N] [--seed S] [--filter TEXT] [--known TEXT]... [-v]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

struct xt_opts xt_opts = {
	.fuzz = 100000, .seed = 0x78646e6574ULL, /* "xdnet" */
};
int xt_verbose;
struct xt_build *xt_b;

static struct {
	char name[200];
	bool active, failed, skipped;
	char log[16384];
	size_t loglen;
	int nr, passed, failed_n, skipped_n, known_n;
	const char *prefix;
} cur;

static void log_add(const char *fmt, va_list ap)
{
	size_t room = sizeof(cur.log) - cur.loglen;
	int n;

	if (room < 2)
		return;
	n = vsnprintf(cur.log + cur.loglen, room, fmt, ap);
	if (n < 0)
		return;
	cur.loglen += (size_t)n < room ? (size_t)n : room - 1;
	if (cur.loglen < sizeof(cur.log) - 1)
		cur.log[cur.loglen++] = '\n';
	cur.log[cur.loglen] = 0;
}

static bool known(const char *name)
{
	int i;

	for (i = 0; i < xt_opts.nr_known; i++)
		if (strstr(name, xt_opts.known[i]))
			return true;
	return false;
}

static void end_test(void)
{
	char *line, *save = NULL;

	if (!cur.active)
		return;
	cur.active = false;
	cur.nr++;
	if (cur.skipped && !cur.failed) {
		cur.skipped_n++;
		printf("ok %d - %s # SKIP %s\n", cur.nr, cur.name,
		       cur.loglen ? strtok_r(cur.log, "\n", &save) : "");
		return;
	}
	if (!cur.failed) {
		cur.passed++;
		printf("ok %d - %s\n", cur.nr, cur.name);
		if (cur.loglen)
			for (line = strtok_r(cur.log, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				printf("#   %s\n", line);
		return;
	}
	if (known(cur.name)) {
		cur.known_n++;
		printf("not ok %d - %s # TODO known failure\n", cur.nr,
		       cur.name);
	} else {
		cur.failed_n++;
		printf("not ok %d - %s\n", cur.nr, cur.name);
	}
	for (line = strtok_r(cur.log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("#   %s\n", line);
	fflush(stdout);
}

bool xt_begin(const char *fmt, ...)
{
	va_list ap;
	int n;

	end_test();
	n = snprintf(cur.name, sizeof(cur.name), "%s: ", cur.prefix);
	va_start(ap, fmt);
	vsnprintf(cur.name + n, sizeof(cur.name) - n, fmt, ap);
	va_end(ap);
	cur.failed = cur.skipped = false;
	cur.loglen = 0;
	cur.log[0] = 0;
	cur.active = !xt_opts.filter || strstr(cur.name, xt_opts.filter);
	return cur.active;
}

bool xt_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	char where[300];
	va_list ap;

	if (ok)
		return true;
	cur.failed = true;
	snprintf(where, sizeof(where), "%s:%d: %s", file, line, fmt);
	va_start(ap, fmt);
	log_add(where, ap);
	va_end(ap);
	return false;
}

void xt_skip(const char *fmt, ...)
{
	va_list ap;

	cur.skipped = true;
	cur.loglen = 0;
	va_start(ap, fmt);
	log_add(fmt, ap);
	va_end(ap);
}

void xt_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_add(fmt, ap);
	va_end(ap);
}

bool xt_failed(void)
{
	return cur.failed;
}

bool xt_skipped(void)
{
	return cur.skipped;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bpf_prog_test [--fuzz N] [--seed S] [--filter TEXT] "
		"[--known TEXT]... [-v]\n"
		"  --fuzz N       frames in the fuzz run (default 100000)\n"
		"  --seed S       the fuzz run's seed (default 0x%llx)\n"
		"  --filter TEXT  only tests whose name contains TEXT\n"
		"  --known TEXT   a failure of a test whose name contains TEXT "
		"is known (local runs)\n",
		xt_opts.seed);
}

static bool parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "fuzz", required_argument, NULL, 'f' },
		{ "seed", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 't' },
		{ "known", required_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "f:s:t:k:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			xt_opts.fuzz = strtoul(optarg, &end, 0);
			if (*end || !*optarg)
				goto bad;
			break;
		case 's':
			xt_opts.seed = strtoull(optarg, &end, 0);
			if (*end || !*optarg)
				goto bad;
			break;
		case 't':
			xt_opts.filter = optarg;
			break;
		case 'k':
			if (xt_opts.nr_known == ARRAY_SIZE(xt_opts.known))
				goto bad;
			xt_opts.known[xt_opts.nr_known++] = optarg;
			break;
		case 'v':
			xt_verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind == argc)
		return true;
bad:
	usage(stderr);
	return false;
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	if (level == LIBBPF_DEBUG && xt_verbose < 2)
		return 0;
	if (level == LIBBPF_INFO && xt_verbose < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const struct {
	const char *name;
	void (*run)(void);
} tests[] = {
#define XT_ENTRY(n) { #n, test_##n },
	XT_TESTS(XT_ENTRY)
#undef XT_ENTRY
};

int main(int argc, char **argv)
{
	static struct xt_build builds[XT_NR_BUILDS];
	struct timespec t0, t1;
	const char *why;
	unsigned int i;
	int b;

	if (!parse(argc, argv))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_log);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("TAP version 13\n");
	if (geteuid() != 0) {
		printf("Bail out! needs root (BPF, a network namespace)\n");
		return 1;
	}
	why = xt_env_setup();
	if (why) {
		printf("Bail out! %s\n", why);
		return 1;
	}
	/* Loading: a program the kernel should take and refuses is a
	 * failure; a feature the kernel lacks is a skip, by name. */
	cur.prefix = "load";
	xt_load_builds(builds);
	end_test();

	for (b = 0; b < XT_NR_BUILDS; b++) {
		xt_b = &builds[b];
		for (i = 0; i < ARRAY_SIZE(tests); i++) {
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "%s: %s", xt_b->name,
				 tests[i].name);
			cur.prefix = prefix;
			if (xt_b->failed) {
				if (xt_begin("all"))
					CHECK(false, "the build did not load");
				end_test();
				continue;
			}
			if (xt_b->skip) {
				if (xt_begin("all"))
					xt_skip("the kernel lacks %s",
						xt_b->skip);
				end_test();
				continue;
			}
			tests[i].run();
			end_test();
			cur.prefix = "";
		}
	}
	xt_unload_builds(builds);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("1..%d\n", cur.nr);
	printf("# %d passed, %d failed, %d skipped, %d known failures, "
	       "%.1f s\n",
	       cur.passed, cur.failed_n, cur.skipped_n, cur.known_n,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return cur.failed_n ? 1 : 0;
}
