// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `nft list ruleset` (text): only the devices of ingress and egress chains,
 * which nft before 1.0.7 leaves out of its JSON (see xf_parse_nft()).
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filters/internal.h"

/* Adds to a chain the devices named in one line of nft's text listing:
 * `device "eth0"` or `devices = { "a", b }`. */
static int line_devices(struct xf_chain *ch, const char *l)
{
	const char *p = strstr(l, "device");
	char name[IF_NAMESIZE + 2];
	char **d;
	int n;

	if (!p)
		return 0;
	p += strlen("device");
	if (*p == 's')
		p++;
	for (;;) {
		p += strspn(p, " ={,\"");
		n = strcspn(p, " ,}\";");
		if (!n || *p == 'p' /* priority */ || n > IF_NAMESIZE)
			return 0;
		snprintf(name, sizeof(name), "%.*s", n, p);
		d = realloc(ch->devices, (ch->ndevices + 2) * sizeof(*d));
		if (!d)
			return -1;
		ch->devices = d;
		if (!(d[ch->ndevices++] = xf_strdup(name)))
			return -1;
		p += n;
		if (*p == '"')
			p++;
		if (*p != ',')
			return 0;
	}
}

int xf_nft_text_devices(struct xf_set *s, const char *text)
{
	char table[160] = "", fam[32], tname[64], cname[64], line[512];
	struct xf_chain *ch = NULL;
	const char *p = text, *nl;

	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		if (sscanf(line, " table %31s %63s {", fam, tname) == 2) {
			snprintf(table, sizeof(table), "nft %s %s", fam, tname);
			ch = NULL;
		} else if (sscanf(line, " chain %63s {", cname) == 1) {
			ch = xf_chain_find(s, table, cname);
		} else if (ch && !ch->ndevices &&
			   (ch->hook == XF_H_INGRESS ||
			    ch->hook == XF_H_EGRESS) &&
			   strstr(line, " hook ")) {
			if (line_devices(ch, line))
				return -1;
		}
	}
	return 0;
}
