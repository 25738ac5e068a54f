/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands (user/cmd/VERB.c, one file each), and the table that runs
 * them (cmd/table.c). Each returns 0 or a negative errno. Only the table
 * calls a command: no file includes another command. */
#ifndef XN_CMD_H
#define XN_CMD_H

#include "cmd/cli.h"

int xn_attach(const struct xn_opts *o);
int xn_follow(const struct xn_opts *o);
int xn_detach(const struct xn_opts *o);
int xn_status(const struct xn_opts *o);
int xn_fdb(const struct xn_opts *o);
int xn_stats(const struct xn_opts *o);
int xn_latency(const struct xn_opts *o);
int xn_exporter(const struct xn_opts *o);
int xn_dump(const struct xn_opts *o);
int xn_trace(const struct xn_opts *o);

/* The bridge o names, opened (state/bridge.h; lookup: looked up by its
 * name, the command's one lookup): 0, or an exit code after a one-line
 * error. */
struct xn_bridge;
int xn_cmd_bridge(struct xn_bridge *br, const char *name, int lookup);

/* Run the command o names (help and version included): its exit code.
 * Under --json a failure is {"error": "its one-line error"} on stdout. */
int xn_cmd_run(const struct xn_opts *o);
/* The exit code of a command's 0 or -errno (lib/log.h). */
int xn_exit_code(int err);
/* {"error": msg} on stdout (a failure under --json). */
void xn_json_error(const char *msg);
/* `git describe --always --dirty` at build time, or "unknown". */
const char *xn_git_desc(void);

#endif
