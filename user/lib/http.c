// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A one-page HTTP server: see http.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include "lib/log.h"
#include "lib/http.h"

struct xn_http {
	struct MHD_Daemon *d;
	const struct xn_http_page *page;
	unsigned long requests;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int code,
			    const char *body)
{
	return reply(c, code, "text/plain", (char *)body, strlen(body),
		     MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **state)
{
	struct xn_http *h = cls;
	const struct xn_http_page *p = h->page;
	unsigned int code;
	size_t len = 0;
	char *body;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "only GET and HEAD\n");
	if (!strcmp(url, "/"))
		return text(c, MHD_HTTP_OK, p->index);
	if (strcmp(url, p->path))
		return text(c, MHD_HTTP_NOT_FOUND, p->notfound);
	h->requests++;
	code = MHD_HTTP_INTERNAL_SERVER_ERROR;
	body = p->render(p->arg, &len, &code);
	if (!body)
		return text(c, code, p->fail);
	return reply(c, code, p->type, body, len, MHD_RESPMEM_MUST_FREE);
}

/* libmicrohttpd's messages: under -v only (an error that stops the
 * exporter is xdpnet's own line). */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	(void)cls;
	if (!xn_verbose)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	xn_debug("libmicrohttpd: %s", msg);
}

/* A socket listening on ss, or -1 with errno set. */
static int listen_on(const struct sockaddr_storage *ss)
{
	socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : sizeof(struct sockaddr_in);
	int fd, on = 1, e;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* As libmicrohttpd does for a socket of its own: a restart may
	 * bind while the last run's connections are in TIME_WAIT. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
	if (bind(fd, (const struct sockaddr *)ss, len) ||
	    listen(fd, SOMAXCONN)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

struct xn_http *xn_http_start(const struct sockaddr_storage *ss,
			      const struct xn_http_page *page, int *err)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG;
	struct xn_http *h = calloc(1, sizeof(*h));
	int fd;

	*err = ENOMEM;
	if (!h)
		return NULL;
	h->page = page;
	fd = listen_on(ss);
	if (fd < 0) {
		*err = errno;
		free(h);
		return NULL;
	}
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, h,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
				MHD_OPTION_END);
	if (!h->d) {
		/* (libmicrohttpd may have closed fd: it is not ours to
		 * close again; the exporter exits.) */
		*err = 0;
		free(h);
		return NULL;
	}
	return h;
}

unsigned long xn_http_stop(struct xn_http *h)
{
	unsigned long n;

	if (!h)
		return 0;
	MHD_stop_daemon(h->d);
	n = h->requests;
	free(h);
	return n;
}
