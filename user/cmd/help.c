// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the option tables say to people (help) and to bash completion: see
 * cli.h. */
#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"

#define WIDTH 79

/* "-m, --mode tc|xdp" or "    --no-follow". */
static int opt_label(char *buf, size_t len, const struct xn_opt *p)
{
	return snprintf(buf, len, "%c%c%c --%s%s%s", p->letter ? '-' : ' ',
			p->letter ? p->letter : ' ', p->letter ? ',' : ' ',
			p->name, p->arg ? " " : "", p->arg ? p->arg : "");
}

static void opt_lines(FILE *f, const struct xn_opt *opts, int w)
{
	const struct xn_opt *p;
	char label[64];

	for (p = opts; p->name; p++) {
		opt_label(label, sizeof(label), p);
		if ((int)strlen(label) > w)
			fprintf(f, "  %s\n  %-*s  %s\n", label, w, "", p->help);
		else
			fprintf(f, "  %-*s  %s\n", w, label, p->help);
	}
}

static int label_width(const struct xn_opt *opts, int w)
{
	const struct xn_opt *p;
	char label[64];

	for (p = opts; p->name; p++) {
		int n = opt_label(label, sizeof(label), p);

		if (n > w && n <= 26)
			w = n;
	}
	return w;
}

void xn_usage(FILE *f)
{
	unsigned int i;

	fputs("usage: xdpnet COMMAND [ARGS] [OPTIONS]\n"
	      "       xdpnet help COMMAND | xdpnet COMMAND --help\n"
	      "       xdpnet -V | --version\n\ncommands:\n",
	      f);
	for (i = 0; i < xn_ncmds; i++)
		fprintf(f, "  %-8s %-15s  %s\n", xn_cmds[i]->name,
			xn_cmds[i]->args, xn_cmds[i]->help);
	fputs("\noptions of every command:\n", f);
	opt_lines(f, xn_global_opts, label_width(xn_global_opts, 0));
	fputs("\nxdpnet help CMD for a command's options.\n"
	      "exit codes: 0 ok, 1 failed (rolled back), 2 usage, 3 no such "
	      "bridge,\n  4 not permitted, 5 BPF refused by the kernel, "
	      "6 bpffs unavailable,\n  7 not attached, 8 busy (a follower "
	      "runs, or the lock is held),\n  9 filters would be bypassed\n",
	      f);
}

/* The synopsis: every option of the command, wrapped under its first
 * word. */
static void synopsis(FILE *f, const struct xn_cmd_def *c)
{
	const struct xn_opt *p;
	int col, indent;
	char word[64];

	col = fprintf(f, "usage: xdpnet %s", c->name);
	indent = col + 1;
	if (c->args[0])
		col += fprintf(f, " %s", c->args);
	for (p = c->opts; p->name; p++) {
		int n = snprintf(word, sizeof(word), "[--%s%s%s]", p->name,
				 p->arg ? " " : "", p->arg ? p->arg : "");

		if (col + 1 + n > WIDTH) {
			col = fprintf(f, "\n%*s%s", indent, "", word) - 1;
			continue;
		}
		col += fprintf(f, " %s", word);
	}
	fputc('\n', f);
}

int xn_cmd_usage(FILE *f, const char *name)
{
	const struct xn_cmd_def *c = xn_cmd_find(name);
	int w;

	if (!c)
		return -1;
	synopsis(f, c);
	fprintf(f, "%s\n\noptions:\n", c->help);
	w = label_width(xn_global_opts, label_width(c->opts, 0));
	opt_lines(f, c->opts, w);
	opt_lines(f, xn_global_opts, w);
	return 0;
}

/* What completion offers for an option's value: "-" nothing (a value of
 * the user's own), "file", "port" (of the bridge given), or words. */
static void value_kind(FILE *f, const struct xn_opt *p)
{
	const struct xn_word *w;

	if (!p->arg) {
		fputs(" flag", f);
	} else if (p->complete) {
		fprintf(f, " words %s", p->complete);
	} else if (p->type == XN_OPT_ENUM) {
		fputs(" words", f);
		for (w = p->words; w->word; w++)
			fprintf(f, " %s", w->word);
	} else if (p->type == XN_OPT_IFNAME) {
		fputs(" port", f);
	} else {
		fputs(p->flags & XN_OF_FILE ? " file" : " value", f);
	}
	fputc('\n', f);
}

static void table_lines(FILE *f, const char *cmd, const struct xn_opt *opts)
{
	const struct xn_opt *p;

	for (p = opts; p->name; p++)
		if (!(p->flags & XN_OF_COMPAT)) {
			fprintf(f, "opt %s --%s", cmd, p->name);
			if (p->letter)
				fprintf(f, " -%c", p->letter);
			value_kind(f, p);
		}
}

void xn_complete_table(FILE *f)
{
	const struct xn_word *w;
	unsigned int i, k;

	/* cmd NAME BRIDGE (none, bridge, bridge?) [WORDS of the operand] */
	for (i = 0; i < xn_ncmds; i++) {
		const struct xn_cmd_def *c = xn_cmds[i];

		fprintf(f, "cmd %s %s", c->name,
			c->bridge == 1	 ? "bridge"
			: c->bridge == 2 ? "bridge?"
					 : "none");
		for (w = c->operand; w && w->word; w++)
			fprintf(f, " %s", w->word);
		for (k = 0; c == &xn_cmd_help && k < xn_ncmds; k++)
			fprintf(f, " %s", xn_cmds[k]->name); /* help COMMAND */
		fputc('\n', f);
	}
	table_lines(f, "*", xn_global_opts);
	for (i = 0; i < xn_ncmds; i++)
		table_lines(f, xn_cmds[i]->name, xn_cmds[i]->opts);
}
