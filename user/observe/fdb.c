// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The datapath's copy of a bridge's FDB: see fdb.h. */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/log.h"
#include "xdpnet.h"
#include "state/pins.h"
#include "state/owner.h"
#include "state/sizes.h"
#include "datapath/jiffies.h"
#include "observe/fdb.h"

static int cmp_fdb(const void *a, const void *b)
{
	const struct xn_fdb_row *x = a, *y = b;
	int c = strcmp(x->port, y->port);

	if (c)
		return c;
	c = memcmp(x->key.mac, y->key.mac, 6);
	return c ? c : (int)x->key.vid - (int)y->key.vid;
}

static int read_rows(int fd, struct xn_fdb_row *rows, int n, int max)
{
	struct xdpnet_fdb_key k, nk;
	int err;

	for (err = bpf_map_get_next_key(fd, NULL, &k); !err && n < max;
	     err = bpf_map_get_next_key(fd, &k, &nk), k = nk) {
		if (bpf_map_lookup_elem(fd, &k, &rows[n].val))
			continue;
		rows[n].key = k;
		if (!if_indextoname(rows[n].val.ifindex, rows[n].port))
			rows[n].port[0] = 0;
		n++;
	}
	return n;
}

int xn_fdb_read(const struct xn_bridge *br, struct xn_fdb_view *v)
{
	struct xdpnet_cfg c = {};
	struct xn_state st;
	int max, n, err;

	memset(v, 0, sizeof(*v));
	err = xn_state_open(&st, br);
	if (err == -XN_NOT_ATTACHED)
		err = xn_bridge_unattached(br,
					   "%s is not attached (try 'xdpnet "
					   "attach %s')",
					   br->name, br->name);
	if (err)
		return err;
	/* Room for both maps as they are sized (attach --fdb-size). */
	max = (int)(xn_map_max_entries(st.fd[XM_FDB]) +
		    xn_map_max_entries(st.fd[XM_FDB_STATIC]));
	v->rows = calloc(max ? max : 1, sizeof(*v->rows));
	if (!v->rows) {
		xn_state_close(&st);
		return -XN_FAILED;
	}
	n = read_rows(st.fd[XM_FDB_STATIC], v->rows, 0, max);
	n = read_rows(st.fd[XM_FDB], v->rows, n, max);
	qsort(v->rows, n, sizeof(*v->rows), cmp_fdb);
	v->n = n;
	xn_cfg_read(&st, &c);
	v->hz = c.hz;
	xn_jiffies(&st, &v->now);
	xn_state_close(&st);
	return 0;
}

void xn_fdb_free(struct xn_fdb_view *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}
