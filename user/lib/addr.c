// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Listening addresses: see addr.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/addr.h"

int xn_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[64];
	const char *colon, *port;
	char *end;
	long p;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':')
			return -1;
		hl = rb - s - 1;
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s + 1, hl);
		host[hl] = 0;
		port = rb + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return -1;
		hl = colon - s;
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s, hl);
		host[hl] = 0;
		if (!hl)
			snprintf(host, sizeof(host), "127.0.0.1");
		port = colon + 1;
	}
	if (!*port)
		return -1;
	p = strtol(port, &end, 10);
	if (*end || p < 1 || p > 65535)
		return -1;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(p);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
		return 0;
	}
	return -1;
}
