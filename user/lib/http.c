// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A one-page HTTP server: see http.h. */
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
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

struct xn_http *xn_http_start(const struct sockaddr_storage *ss,
			      const struct xn_http_page *page)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG;
	struct xn_http *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->page = page;
	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)ss,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
				MHD_OPTION_END);
	if (!h->d) {
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
