// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xdpnet fdb BRIDGE: the datapath's copy of the bridge's FDB. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "xdpnet.h"
#include "lib/exit.h"
#include "lib/log.h"
#include "state/system.h"
#include "state/pins.h"
#include "state/owner.h"
#include "datapath/jiffies.h"
#include "state/sizes.h"
#include "state/bridge.h"
#include "render/fdb.h"
#include "cmd/cmd.h"

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

int xn_fdb(const struct xn_opts *o)
{
	int max, n, err;
	struct xn_fdb_row *rows;
	struct xdpnet_cfg c = {};
	struct xn_bridge br;
	struct xn_state st;
	__u32 now = 0;

	err = xn_cmd_bridge(&br, o->bridge, 1);
	if (!err)
		err = xn_prepare();
	if (err)
		return err;
	err = xn_state_open(&st, &br);
	if (err == XN_ENOTATTACHED)
		err = xn_bridge_unattached(&br,
					   "%s is not attached (try 'xdpnet "
					   "attach %s')",
					   o->bridge, o->bridge);
	if (err)
		return err;
	/* Room for both maps as they are sized (attach --fdb-size). */
	max = (int)(xn_map_max_entries(st.fd[XM_FDB]) +
		    xn_map_max_entries(st.fd[XM_FDB_STATIC]));
	rows = calloc(max ? max : 1, sizeof(*rows));
	if (!rows) {
		xn_state_close(&st);
		return XN_ERR;
	}
	n = read_rows(st.fd[XM_FDB_STATIC], rows, 0, max);
	n = read_rows(st.fd[XM_FDB], rows, n, max);
	qsort(rows, n, sizeof(*rows), cmp_fdb);
	xn_cfg_read(&st, &c);
	xn_jiffies(&st, &now);
	xn_print_fdb(stdout, o->bridge, rows, n, now, c.hz, o->json);
	free(rows);
	xn_state_close(&st);
	return XN_OK;
}
