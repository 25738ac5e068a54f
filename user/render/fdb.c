// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The FDB copy as text or JSON: see fdb.h. */
#include <stdio.h>
#include <string.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "lib/json_writer.h"
#include "render/fdb.h"

static const struct {
	__u32 flag;
	const char *name;
} fdb_flags[] = {
	{ XDPNET_FDB_LOCAL, "local" },
	{ XDPNET_FDB_STATIC, "static" },
	{ XDPNET_FDB_LOCKED, "locked" },
	{ XDPNET_FDB_SEEDED, "seeded" },
};

static __u64 age_ms(__u32 now_j, __u32 seen_j, __u32 hz)
{
	__s32 d = (__s32)(now_j - seen_j);

	return seen_j && hz && d > 0 ? (__u64)d * 1000 / hz : 0;
}

static void fdb_json(FILE *f, const char *bridge, const struct xn_fdb_row *rows,
		     int n, __u32 now_j, __u32 hz)
{
	struct xn_jw w;
	unsigned int j;
	char mac[18];
	int i;

	xn_jw_init(&w, f);
	xn_jw_obj(&w);
	xn_jw_kstr(&w, "bridge", bridge);
	xn_jw_karr(&w, "entries");
	for (i = 0; i < n; i++) {
		const struct xn_fdb_row *r = &rows[i];

		xn_format_mac(r->key.mac, mac);
		xn_jw_obj(&w);
		xn_jw_kstr(&w, "mac", mac);
		xn_jw_kuint(&w, "vlan", r->key.vid);
		xn_jw_kstr(&w, "port", r->port);
		xn_jw_kuint(&w, "ifindex", r->val.ifindex);
		xn_jw_karr(&w, "flags");
		for (j = 0; j < ARRAY_SIZE(fdb_flags); j++)
			if (r->val.flags & fdb_flags[j].flag)
				xn_jw_str(&w, fdb_flags[j].name);
		xn_jw_arr_end(&w);
		xn_jw_kuint(&w, "age_ms", age_ms(now_j, r->val.bridge_j, hz));
		xn_jw_obj_end(&w);
	}
	xn_jw_arr_end(&w);
	xn_jw_obj_end(&w);
	xn_jw_end(&w);
}

void xn_print_fdb(FILE *f, const char *bridge, const struct xn_fdb_row *rows,
		  int n, __u32 now_j, __u32 hz, int json)
{
	char mac[18];
	unsigned int j;
	int i;

	if (json) {
		fdb_json(f, bridge, rows, n, now_j, hz);
		return;
	}
	fprintf(f, "%-17s %4s %-15s %7s %10s %s\n", "mac", "vlan", "port",
		"ifindex", "age_ms", "flags");
	for (i = 0; i < n; i++) {
		const struct xn_fdb_row *r = &rows[i];
		int first = 1;

		xn_format_mac(r->key.mac, mac);
		fprintf(f, "%-17s %4u %-15s %7u %10llu ", mac, r->key.vid,
			r->port[0] ? r->port : "-", r->val.ifindex,
			(unsigned long long)age_ms(now_j, r->val.bridge_j, hz));
		for (j = 0; j < ARRAY_SIZE(fdb_flags); j++)
			if (r->val.flags & fdb_flags[j].flag) {
				fprintf(f, "%s%s", first ? "" : ",",
					fdb_flags[j].name);
				first = 0;
			}
		fputc('\n', f);
	}
}
