/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A one-page HTTP server (libmicrohttpd, a thread of its own): GET or HEAD
 * of the page's path gets the body its render function makes, fresh on
 * every request; "/" a line of text that names the page; anything else
 * 404 or 405.
 */
#ifndef XN_HTTP_H
#define XN_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

/* A malloc'ed body and its length, and *code the HTTP status (200); or
 * NULL, and *code says why (500, 503). */
typedef char *(*xn_http_render_fn)(void *arg, size_t *len, unsigned int *code);

struct xn_http_page {
	const char *path;     /* "/metrics" */
	const char *type;     /* its Content-Type */
	const char *index;    /* the body of "/" */
	const char *notfound; /* the body of a 404 */
	const char *fail;     /* the body when render returns NULL */
	xn_http_render_fn render;
	void *arg;
};

struct xn_http;

/* Listens on ss (a socket bound here, handed to libmicrohttpd, whose own
 * log goes to xn_debug) and serves page (which must outlive the server)
 * until xn_http_stop(); NULL when it cannot listen, *err then the errno of
 * the socket, bind or listen that failed (0: libmicrohttpd did not
 * start). The server's thread inherits the caller's signal mask: block the
 * signals it must leave to the caller first. */
struct xn_http *xn_http_start(const struct sockaddr_storage *ss,
			      const struct xn_http_page *page, int *err);
/* Stops the server; returns the number of requests for the page. */
unsigned long xn_http_stop(struct xn_http *h);

#endif
