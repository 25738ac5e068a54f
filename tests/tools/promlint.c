// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * promlint FILE [NAME LABELS]...: check FILE ("-": stdin) with the strict
 * Prometheus text-format checker of the unit tests (tests/unit/promlint.h)
 * and print the value of each NAME{LABELS} asked for, one per line ("NaN"
 * when absent). Exit 0 when the text is valid, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../unit/promlint.h"

int main(int argc, char **argv)
{
	struct pl_result r;
	size_t cap = 1 << 16, n = 0, got;
	char *text = malloc(cap);
	FILE *f;
	int i, rc;

	if (argc < 2 || argc % 2) {
		fprintf(stderr, "usage: promlint FILE [NAME LABELS]...\n");
		return 2;
	}
	f = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
	if (!f || !text) {
		perror(argv[1]);
		return 2;
	}
	while ((got = fread(text + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 >= cap && !(text = realloc(text, cap *= 2)))
			return 2;
	}
	text[n] = 0;
	rc = prom_lint(text, &r);
	if (rc < 0) {
		fprintf(stderr, "promlint: %s\n", r.err);
		return 1;
	}
	for (i = 2; i + 1 < argc; i += 2)
		printf("%.17g\n", prom_find(&r, argv[i], argv[i + 1]));
	fprintf(stderr, "promlint: %d samples, %d families, valid\n", rc, r.nf);
	pl_free(&r);
	free(text);
	return 0;
}
