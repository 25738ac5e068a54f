/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Running other programs: the one place xdpnet forks. */
#ifndef XN_PROC_H
#define XN_PROC_H

#include <sys/types.h>

/* Run argv (argv[0] searched in PATH unless it holds a '/') and wait for
 * it, its standard input /dev/null. out NULL: its standard output goes to
 * /dev/null; else what it writes there is caught into *out (malloc'ed,
 * NUL-terminated; NULL when out of memory). quiet: its standard error to
 * /dev/null too (else it is ours). Returns its exit status, or -1 when it
 * could not run or did not exit. */
int xn_run(char *const argv[], char **out, int quiet);

/* Start argv as a daemon: in a session of its own, nobody's child,
 * standard input /dev/null, standard output and error appended to log,
 * no other descriptor of ours open. exe: the program to run (argv[0]
 * names it only for ps). Its pid, 0 when it started but its pid did not
 * come back, or -1. */
pid_t xn_daemon(const char *exe, char *const argv[], const char *log);

#endif
