// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The command line: the command a line names, and its options parsed by
 * its table into its own options struct (cli.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "lib/util.h"
#include "state/paths.h"
#include "cmd/cli.h"

/* Options in getopt's table at most, and what getopt returns for one
 * without a letter (above every char). */
#define MAX_OPTS 64
#define LONG_VAL(i) (256 + (i))

const struct xn_cmd_def *xn_cmd_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < xn_ncmds; i++)
		if (!strcmp(name, xn_cmds[i]->name))
			return xn_cmds[i];
	return NULL;
}

/* Every table in turn: the commands', then the global one (NULL after). */
static const struct xn_opt *table_at(unsigned int i)
{
	return i < xn_ncmds    ? xn_cmds[i]->opts
	       : i == xn_ncmds ? xn_global_opts
			       : NULL;
}

/* The option a short letter names in any table (one meaning each). */
static const struct xn_opt *any_letter(int c)
{
	const struct xn_opt *t, *p;
	unsigned int i;

	for (i = 0; (t = table_at(i)); i++)
		for (p = t; p->name; p++)
			if (c > 0 && p->letter == c)
				return p;
	return NULL;
}

/* The option that n bytes of word name in the table (exactly, else as
 * an unambiguous prefix), or NULL; *many: more than one by prefix. */
static const struct xn_opt *in_table(const struct xn_opt *t, const char *word,
				     size_t n, int *many)
{
	const struct xn_opt *p, *hit = NULL;

	for (p = t; p->name; p++)
		if (!strncmp(p->name, word, n) && !p->name[n])
			return p;
	for (p = t; p->name; p++)
		if (!strncmp(p->name, word, n)) {
			if (hit && strcmp(hit->name, p->name))
				*many = 1;
			hit = p;
		}
	return *many ? NULL : hit;
}

/* The option n bytes of a long word name in any table, or NULL. */
static const struct xn_opt *any_long(const char *word, size_t n)
{
	const struct xn_opt *t, *p, *hit = NULL;
	unsigned int i;
	int many = 0;

	for (i = 0; (t = table_at(i)); i++)
		for (p = t; p->name; p++)
			if (!strncmp(p->name, word, n) && !p->name[n])
				return p;
	for (i = 0; (t = table_at(i)); i++) {
		p = in_table(t, word, n, &many);
		if (many || (p && hit && strcmp(p->name, hit->name)))
			return NULL;
		if (p)
			hit = p;
	}
	return hit;
}

/* The command word: the first word that is neither an option nor an
 * option's value (a value-taking option has a value in every table). */
static const char *command_word(int argc, char **argv)
{
	const struct xn_opt *p;
	int i, k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1])
			return a;
		if (!strcmp(a, "--"))
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (a[1] == '-') {
			p = any_long(a + 2, strcspn(a + 2, "="));
			if (p && p->arg && !strchr(a, '='))
				i++;
			continue;
		}
		/* a cluster: the first value-taking letter takes the rest,
		 * or the next word when it is last */
		for (k = 1; a[k]; k++) {
			p = any_letter(a[k]);
			if (p && p->arg) {
				if (!a[k + 1])
					i++;
				break;
			}
		}
	}
	return NULL;
}

/* getopt's view of the options a command takes. */
struct getopt_tables {
	struct option lo[MAX_OPTS + 1];
	char so[3 * MAX_OPTS + 3];
	const struct xn_opt *by_val[MAX_OPTS]; /* LONG_VAL(i) -> option */
	unsigned int n;
};

/* A command's options and the global ones (for no command: every option
 * of every table, each name once). */
static void getopt_tables(const struct xn_cmd_def *c, struct getopt_tables *g)
{
	const struct xn_opt *t, *p;
	char *so = g->so;
	unsigned int i, k;

	memset(g, 0, sizeof(*g));
	*so++ = '+'; /* stop at the command word, BRIDGE and the operand */
	*so++ = ':'; /* a missing value is ':', not '?' */
	for (i = 0; (t = table_at(i)); i++) {
		if (c && t != c->opts && t != xn_global_opts)
			continue;
		for (p = t; p->name && g->n < MAX_OPTS; p++) {
			for (k = 0; k < g->n; k++)
				if (!strcmp(g->by_val[k]->name, p->name))
					break;
			if (k < g->n)
				continue;
			g->by_val[g->n] = p;
			g->lo[g->n].name = p->name;
			g->lo[g->n].has_arg = p->arg ? required_argument
						     : no_argument;
			g->lo[g->n].val = p->letter ? p->letter
						    : LONG_VAL((int)g->n);
			g->n++;
			if (p->letter) {
				*so++ = p->letter;
				if (p->arg)
					*so++ = ':';
			}
		}
	}
	*so = 0;
}

/* The option getopt returned val for, or NULL. */
static const struct xn_opt *by_val(const struct getopt_tables *g, int val)
{
	unsigned int i;

	if (val >= LONG_VAL(0) && val < LONG_VAL((int)g->n))
		return g->by_val[val - LONG_VAL(0)];
	for (i = 0; i < g->n; i++)
		if (val > 0 && g->by_val[i]->letter == val)
			return g->by_val[i];
	return NULL;
}

/* A word getopt refused: name the option, and whose it is. */
static int bad_option(const struct xn_cmd_def *c, const struct getopt_tables *g,
		      const char *word, int opt, char *err, size_t len)
{
	const char *help = c ? c->name : "";
	const struct xn_opt *p = by_val(g, opt);
	int many = 0;
	size_t n;

	if (p) /* an option of this command: a flag given a value */
		return xn_usage_err(err, len, "--%s takes no value", p->name);
	if (opt > 0) {
		/* a letter (getopt's optopt) */
		p = any_letter(opt);
		if (p && c)
			return xn_usage_err(err, len,
					    "-%c (--%s) is not an option of %s "
					    "(xdpnet help %s)",
					    opt, p->name, c->name, c->name);
		return xn_usage_err(err, len,
				    "unknown option '-%c' (xdpnet help%s%s)",
				    opt, c ? " " : "", help);
	}
	if (strncmp(word, "--", 2))
		return xn_usage_err(err, len, "unknown option '%s'", word);
	n = strcspn(word + 2, "=");
	if (c)
		in_table(c->opts, word + 2, n, &many);
	p = many ? NULL : any_long(word + 2, n);
	if (many)
		return xn_usage_err(err, len,
				    "'--%.*s' is ambiguous for %s (xdpnet "
				    "help %s)",
				    (int)n, word + 2, c->name, c->name);
	if (p && c)
		return xn_usage_err(err, len,
				    "--%s is not an option of %s (xdpnet help "
				    "%s)",
				    p->name, c->name, c->name);
	return xn_usage_err(err, len,
			    "unknown option '--%.*s' (xdpnet help%s%s)", (int)n,
			    word + 2, c ? " " : "", help);
}

/* A value missing: "--mode needs a value (tc|xdp)". */
static int no_value(const struct getopt_tables *g, const char *word, int opt,
		    char *err, size_t len)
{
	const struct xn_opt *p = by_val(g, opt);

	if (!p)
		return xn_usage_err(err, len, "option '%s' needs a value",
				    word);
	if (!strncmp(word, "--", 2))
		return xn_usage_err(err, len, "--%s needs a value (%s)",
				    p->name, p->arg);
	return xn_usage_err(err, len, "-%c needs a value (--%s %s)", p->letter,
			    p->name, p->arg);
}

/* The options struct of c (its defaults), with what was parsed so far
 * into cli->opts before: the common part. Before a command is known
 * (c NULL: help's), room for any command's options: a line without a
 * command is still parsed to its end, for the error it has. */
static int switch_to(struct xn_cli *cli, const struct xn_cmd_def *c)
{
	size_t size = c ? c->size : 0;
	unsigned int i;
	void *o;

	for (i = 0; !c && i < xn_ncmds; i++)
		if (xn_cmds[i]->size > size)
			size = xn_cmds[i]->size;
	if (!c)
		c = &xn_cmd_help;
	o = calloc(1, size);

	if (!o)
		return -1;
	if (c->defaults)
		memcpy(o, c->defaults, c->size);
	if (cli->opts)
		memcpy(o, cli->opts, sizeof(struct xn_opts));
	free(cli->opts);
	cli->opts = o;
	cli->cmd = c;
	return 0;
}

/* p's bit in the given options of its command (0: a global option). */
static unsigned long long given_bit(const struct xn_cmd_def *cmd,
				    const struct xn_opt *p)
{
	const struct xn_opt *q;

	for (q = cmd ? cmd->opts : NULL; q && q->name; q++)
		if (q == p)
			return 1ULL << (q - cmd->opts);
	return 0;
}

int xn_parse_args(int argc, char **argv, struct xn_cli *cli, char *err,
		  size_t errlen)
{
	const char *word = command_word(argc, argv);
	const struct xn_cmd_def *cmd = NULL;
	unsigned long long given = 0, bit;
	struct getopt_tables *g;
	int named = 0, c, e = 0;
	struct xn_opts *o;

	memset(cli, 0, sizeof(*cli));
	if (word) {
		cmd = xn_cmd_find(word);
		if (!cmd)
			return xn_usage_err(
				err, errlen,
				"unknown command '%s' (xdpnet help)", word);
		cli->name = cmd->name;
	}
	g = malloc(sizeof(*g));
	if (!g || switch_to(cli, cmd)) {
		free(g);
		return xn_usage_err(err, errlen, "out of memory");
	}
	cli->cmd = cmd;
	getopt_tables(cmd, g);
	optind = 0; /* 0, not 1: also resets getopt's internal state */
	opterr = 0;
	while (!e && ((c = getopt_long(argc, argv, g->so, g->lo, NULL)) != -1 ||
		      optind < argc)) {
		const struct xn_opt *p;

		o = cli->opts;
		if (c == -1) {
			/* A non-option: the command, then its operands. */
			const char *a = argv[optind++];

			if (!named) {
				/* the word command_word() found */
				named = 1;
				if (!cmd || strcmp(a, cmd->name))
					e = xn_usage_err(err, errlen,
							 "unknown command '%s' "
							 "(xdpnet help)",
							 a);
			} else if (!o->bridge && cmd->bridge) {
				o->bridge = a;
			} else if (cmd->operand && !o->arg) {
				o->arg = a;
			} else {
				e = xn_usage_err(err, errlen,
						 "unexpected argument '%s'", a);
			}
			continue;
		}
		if (c == '?') {
			e = bad_option(cmd, g, argv[optind - 1], optopt, err,
				       errlen);
			continue;
		}
		if (c == ':') {
			e = no_value(g, argv[optind - 1], optopt, err, errlen);
			continue;
		}
		p = by_val(g, c);
		if (!p) {
			e = xn_usage_err(err, errlen, "unknown option '%s'",
					 argv[optind - 1]);
			continue;
		}
		if (p->type == XN_OPT_HELP || p->type == XN_OPT_VERSION) {
			/* -h and -V stop parsing: help on the command */
			e = switch_to(cli, p->type == XN_OPT_HELP
						   ? &xn_cmd_help
						   : &xn_cmd_version);
			((struct xn_opts *)cli->opts)->arg =
				p->type == XN_OPT_HELP && cmd ? cmd->name
							      : NULL;
			free(g);
			return e ? xn_usage_err(err, errlen, "out of memory")
				 : 0;
		}
		bit = given_bit(cmd, p);
		if (bit) {
			if ((p->flags & XN_OF_ONCE) && (given & bit)) {
				e = xn_usage_err(err, errlen,
						 "--%s given twice", p->name);
				continue;
			}
			given |= bit;
		}
		if (xn_opt_set(p, optarg, o, err, errlen))
			e = XN_EUSAGE;
	}
	free(g);
	if (e)
		return e;
	o = cli->opts;
	if (!cmd)
		return xn_usage_err(err, errlen, "%s",
				    "no command given (xdpnet help)");
	if (cmd->bridge == 1 && !o->bridge)
		return xn_usage_err(err, errlen,
				    "'%s' needs a BRIDGE (xdpnet help %s)",
				    cmd->name, cmd->name);
	if (o->bridge && !xn_valid_ifname(o->bridge))
		return xn_usage_err(err, errlen,
				    "'%s' is not a valid interface name",
				    o->bridge);
	o->linebuf = cmd->linebuf;
	return cmd->check ? cmd->check(o, given, err, errlen) : 0;
}

void xn_cli_free(struct xn_cli *cli)
{
	free(cli->opts);
	memset(cli, 0, sizeof(*cli));
}
