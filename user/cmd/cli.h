/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command line. Each command (cmd/VERB.c) has its own options struct
 * and a typed table of its options (XN_OPT, as xdp-tools' params.h has
 * it): one table drives the command's parsing (cmd/cli.c), its help, the
 * bash completion's words and the man page's check (cmd/help.c).
 */
#ifndef XN_CLI_H
#define XN_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Exit codes: documented in docs/xdpnet.8, EXIT STATUS, in the words of
 * `xdpnet help` (scripts/check-docs compares them). The commands return
 * 0 or a negative errno (lib/log.h says which have a code of their own):
 * xn_cmd_run maps them, the parser's usage errors are XN_EUSAGE. */
enum xn_exit {
	XN_OK = 0,
	XN_ERR = 1,	     /* runtime failure (rolled back) */
	XN_EUSAGE = 2,	     /* bad command line */
	XN_ENOBRIDGE = 3,    /* no such device, or not a bridge */
	XN_EPERM = 4,	     /* not root / missing capabilities */
	XN_ENOBPF = 5,	     /* the kernel refused our BPF programs or maps */
	XN_EBPFFS = 6,	     /* bpffs not mounted and cannot be mounted */
	XN_ENOTATTACHED = 7, /* xdpnet is not attached to that bridge */
	XN_EBUSY = 8,	     /* a follower already runs, or the lock is held */
	XN_EFILTER = 9, /* filters apply between ports (--bypass-filters) */
};

/* What every command's options begin with (as their first member, c). */
struct xn_opts {
	const char *bridge; /* BRIDGE (NULL: none given) */
	const char *arg;    /* the word after it: latency's on|off, help's */
	int verbose;	    /* -v, counted */
	int json;	    /* -j/--json; also set by -p/--pretty */
	int pretty;	    /* -p/--pretty: indented JSON (bpftool's -p) */
	int linebuf;	    /* it runs on and logs: stdout line by line */
};

/* What an option's value is, and so how it is parsed, helped and
 * completed. */
enum xn_opt_type {
	XN_OPT_CONST,	/* no value: .val into the field (a flag: 1) */
	XN_OPT_COUNT,	/* no value: one more each time (-vv) */
	XN_OPT_UINT,	/* decimal, .min to .max, into an int of .size */
	XN_OPT_SECONDS, /* a decimal fraction, .dmin to .dmax, a double */
	XN_OPT_ENUM,	/* one of .words, its value into an unsigned int */
	XN_OPT_STRING,	/* the word itself (const char *) */
	XN_OPT_IFNAME,	/* an interface name (const char *) */
	XN_OPT_FUNC,	/* .parse's own kind of value */
	XN_OPT_PRETTY,	/* -p: json and pretty */
	XN_OPT_HELP,	/* -h: the command's help, now */
	XN_OPT_VERSION, /* -V: the version, now */
};

struct xn_word {
	const char *word;
	unsigned int val;
};

/* How an option is kept apart from the others. */
enum {
	XN_OF_ONCE = 1 << 0,   /* given twice is an error */
	XN_OF_COMPAT = 1 << 1, /* kept for scripts only: not completed */
	XN_OF_FILE = 1 << 2,   /* its value is a file's name: completed so */
};

/* An option of a command: its long name (kept as it was in every
 * release), its short letter (0: none; a letter means one option in every
 * command, tests/unit/test_cli.c walks the tables), the name of its value
 * in help (NULL: it takes none), its type and field, and what it does in
 * one line. */
struct xn_opt {
	const char *name;
	char letter;
	const char *arg;
	enum xn_opt_type type;
	size_t off, size; /* the field in the command's options */
	const char *help;
	long min, max;		     /* XN_OPT_UINT */
	double dmin, dmax;	     /* XN_OPT_SECONDS */
	unsigned int val;	     /* XN_OPT_CONST */
	const struct xn_word *words; /* XN_OPT_ENUM (NULL-ended) */
	/* What a value must be: "--NAME must be MUST, not 'VALUE'" (NULL:
	 * "MIN to MAX"). */
	const char *must;
	/* XN_OPT_FUNC: parse arg into opts (the command's options); 0, or
	 * -1 with a one-line message in err. */
	int (*parse)(const struct xn_opt *p, const char *arg, void *opts,
		     char *err, size_t len);
	const char *complete; /* words completion offers for the value */
	unsigned int flags;   /* XN_OF_* */
};

/* An option of the command's options type T, kept in its field F. */
#define XN_OPT(NAME, TYPE, T, F, ...)                              \
	{                                                          \
		.name = NAME, .type = TYPE, .off = offsetof(T, F), \
		.size = sizeof(((T *)0)->F), __VA_ARGS__           \
	}
#define XN_OPT_END           \
	{                    \
		.name = NULL \
	}
/* -j and -p, as bpftool has them: one wording in every command. */
#define XN_JSON_OPTS                                                        \
	XN_OPT("json", XN_OPT_CONST, struct xn_opts, json, .letter = 'j',   \
	       .val = 1, .help = "JSON output"),                            \
		XN_OPT("pretty", XN_OPT_PRETTY, struct xn_opts, pretty,     \
		       .letter = 'p',                                       \
		       .help = "JSON output, indented for people (implies " \
			       "--json)")

/* A command: its name, its operands as its synopsis shows them, one line
 * of what it does, its options (up to one with a NULL name), the size of
 * its options struct and its defaults (NULL: all zero), what its options
 * must be together, and what runs it. */
struct xn_cmd_def {
	const char *name;
	int bridge; /* 1: BRIDGE required, 2: optional, 0: none */
	const struct xn_word *operand; /* one more word after BRIDGE (or
					  instead: help's), and its words */
	const char *args;
	const char *help;
	const struct xn_opt *opts;
	size_t size;
	const void *defaults;
	/* given: a bit for each option of opts given, by its place. 0, or
	 * XN_EUSAGE with a one-line message in err. */
	int (*check)(void *opts, unsigned long long given, char *err,
		     size_t len);
	int (*run)(const void *opts);
	int linebuf; /* it runs on and logs as it goes (main.c) */
};

/* The commands, in the order help lists them; help and version, which
 * -h and -V run. */
extern const struct xn_cmd_def *const xn_cmds[];
extern const struct xn_cmd_def xn_cmd_help, xn_cmd_version;
extern const unsigned int xn_ncmds;
/* -v, -h and -V: options of every command. */
extern const struct xn_opt xn_global_opts[];

/* What a command line says: the command (help for -h, version for -V)
 * and its options (malloc'ed; struct xn_opts first). */
struct xn_cli {
	const struct xn_cmd_def *cmd;
	void *opts;
	const char *name; /* the command named, for usage errors (or NULL) */
};

/* Returns 0, or XN_EUSAGE with a one-line message in err; cli->name is
 * then the command the line names, if it got that far, and cli->opts
 * what was parsed until then (NULL before the command was known). Free
 * with xn_cli_free either way. */
int xn_parse_args(int argc, char **argv, struct xn_cli *cli, char *err,
		  size_t errlen);
void xn_cli_free(struct xn_cli *cli);
/* The command of that name, or NULL. */
const struct xn_cmd_def *xn_cmd_find(const char *name);

/* One value of an option into opts (cmd/opt.c): 0, or -1 with a one-line
 * message in err. */
int xn_opt_set(const struct xn_opt *p, const char *arg, void *opts, char *err,
	       size_t len);
/* err, formatted: XN_EUSAGE. */
int xn_usage_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The overview: the commands, one line each, and the global options. */
void xn_usage(FILE *f);
/* One command's usage: its synopsis and its options, one line each; -1
 * when there is no command of that name. */
int xn_cmd_usage(FILE *f, const char *name);
/* The tables as bash completion reads them (contrib/bash-completion,
 * XDPNET_COMPLETE=1 xdpnet): a line per command, then one per option. */
void xn_complete_table(FILE *f);

#endif
