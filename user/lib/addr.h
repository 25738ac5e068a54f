/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Listening addresses given on the command line (exporter --listen). */
#ifndef XN_ADDR_H
#define XN_ADDR_H

#include <sys/socket.h>

/* exporter --listen without a value. */
#define XN_EXPORTER_DEFAULT "127.0.0.1:9435"

/* "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (loopback) into *ss. 0 or -1. */
int xn_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);

#endif
