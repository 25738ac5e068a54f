/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* xdpnet exporter: the stats in the Prometheus text format over HTTP
 * (libmicrohttpd), GET /metrics. */
#ifndef XN_EXPORTER_H
#define XN_EXPORTER_H

#include <sys/socket.h>
#include "cmd/cli.h"

#define XN_EXPORTER_DEFAULT "127.0.0.1:9435"

/* "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (loopback) into *ss. 0 or -1. */
int xn_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/* Returns an enum xn_exit code when interrupted (SIGINT/SIGTERM). */
int xn_exporter(const struct xn_opts *o);

#endif
