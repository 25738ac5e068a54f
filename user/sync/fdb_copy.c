// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The datapath's copy of the bridge's FDB: see fdb_copy.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/neighbour.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "state/pins.h"
#include "datapath/jiffies.h"
#include "datapath/counters.h"
#include "lib/nl.h"
#include "sync/fdb_copy.h"

/* How the bridge keys and flags an FDB entry: 1 static/local, 0 learned,
 * -1 not a unicast entry of the bridge's table. */
static int fdb_kind(const struct xn_link *br, const struct xn_fdb_entry *e,
		    struct xdpnet_fdb_key *k, struct xdpnet_fdb_val *v)
{
	memset(k, 0, sizeof(*k));
	memset(v, 0, sizeof(*v));
	if (e->mac[0] & 1)
		return -1; /* multicast / broadcast */
	/* A port's own address list (self), not the bridge's table. */
	if ((e->flags & NTF_SELF) && e->ifindex != br->ifindex)
		return -1;
	memcpy(k->mac, e->mac, 6);
	/* The bridge's own key, in both filtering modes: without filtering
	 * it looks up VLAN 0 only, so that an entry of another VLAN (a
	 * static one 'vlan 1', one learned before filtering went off)
	 * never answers; the datapath looks up the same key. */
	k->vid = e->vid;
	v->ifindex = e->ifindex;
	v->flags = XDPNET_FDB_SEEDED;
	if ((e->state & NUD_PERMANENT) || e->ifindex == br->ifindex) {
		v->flags |= XDPNET_FDB_LOCAL;
		return 1;
	}
	/* A static entry, sticky or not. A dynamic one that is sticky
	 * ("dynamic sticky") is learned for us: it ages, so that its frames'
	 * keep-alive must reach the bridge, and the bridge never moves it
	 * (a frame from elsewhere with its MAC fails the source check and
	 * goes to the bridge, which keeps it where it is). So is a static
	 * one with activity notification: the bridge reports it inactive
	 * when no frame of its source reached it for an ageing time, so
	 * the keep-alive must reach it too. */
	if ((e->state & NUD_NOARP) && !e->notify) {
		v->flags |= XDPNET_FDB_STATIC;
		return 1;
	}
	return 0;
}

static void fdb_slot(struct xn_state *s, struct xdpnet_fdb_val *v)
{
	struct xdpnet_cfg c = {};
	__u32 slot = 0;

	xn_cfg_read(s, &c);
	if (bpf_map_lookup_elem(s->fd[XM_PORT_IDX], &v->ifindex, &slot))
		slot = 0;
	v->slot = slot;
	v->gen = c.port_gen;
	v->bridge_j = 0;
	xn_jiffies(s, &v->bridge_j);
}

/* A set of FDB keys (open addressing; the all-ones key marks a free
 * place: it is broadcast, never a unicast entry). */
struct keyset {
	struct xdpnet_fdb_key *k;
	size_t cap;
};

static int keyset_init(struct keyset *ks, int n)
{
	ks->cap = 64;
	while (ks->cap < (size_t)n * 2)
		ks->cap *= 2;
	ks->k = malloc(ks->cap * sizeof(*ks->k));
	if (!ks->k)
		return -ENOMEM;
	memset(ks->k, 0xff, ks->cap * sizeof(*ks->k));
	return 0;
}

static size_t keyset_pos(const struct keyset *ks,
			 const struct xdpnet_fdb_key *k)
{
	__u64 h = xn_fnv1a(XN_FNV_OFFSET, k, sizeof(*k)), x;
	size_t i;

	h ^= h >> 29;
	for (i = h & (ks->cap - 1);; i = (i + 1) & (ks->cap - 1)) {
		memcpy(&x, &ks->k[i], sizeof(x));
		if (x == ~0ULL || !memcmp(&ks->k[i], k, sizeof(*k)))
			return i;
	}
}

static void keyset_add(struct keyset *ks, const struct xdpnet_fdb_key *k)
{
	ks->k[keyset_pos(ks, k)] = *k;
}

static int keyset_has(const struct keyset *ks, const struct xdpnet_fdb_key *k)
{
	return !memcmp(&ks->k[keyset_pos(ks, k)], k, sizeof(*k));
}

/* Every FDB event but "full": changes while the copy is made. */
static __u64 fdb_ev_sum(struct xn_state *s)
{
	__u64 ev[XDPNET_FE_MAX], sum = 0;
	__u32 k;

	if (xn_fdb_ev_read(s, ev))
		return 0;
	for (k = 0; k < XDPNET_FE_MAX; k++)
		if (k != XDPNET_FE_FULL)
			sum += ev[k];
	return sum;
}

/* Insert what the bridge has now for this key (asked afresh), or drop
 * our copy when it has nothing. */
static void fdb_fix_key(struct xn_state *s, const struct xn_link *br,
			const struct xdpnet_fdb_key *k)
{
	struct xdpnet_fdb_val v;
	struct xdpnet_fdb_key kk;
	struct xn_fdb_entry e;

	if (xn_fdb_get(br->ifindex, k->mac, k->vid, &e) ||
	    fdb_kind(br, &e, &kk, &v) != 0) {
		bpf_map_delete_elem(s->fd[XM_FDB], k);
		return;
	}
	fdb_slot(s, &v);
	bpf_map_update_elem(s->fd[XM_FDB], &kk, &v, 0);
}

/* xn_reconcile_fdb_entry() but the generation's bump. */
static int fdb_entry_apply(struct xn_state *s, const struct xn_link *br,
			   const struct xn_fdb_entry *e, int deleted,
			   int *budget)
{
	struct xdpnet_fdb_key k;
	struct xdpnet_fdb_val v, cur;
	int kind = fdb_kind(br, e, &k, &v);

	if (kind < 0 || (e->ifindex != br->ifindex && e->master != br->ifindex))
		return 0;
	if (kind == 1) {
		if (deleted)
			return bpf_map_delete_elem(s->fd[XM_FDB_STATIC], &k)
				       ? 0
				       : 1;
		fdb_slot(s, &v);
		bpf_map_delete_elem(s->fd[XM_FDB], &k);
		return bpf_map_update_elem(s->fd[XM_FDB_STATIC], &k, &v, 0)
			       ? -errno
			       : 1;
	}
	/* A learned entry. The static copy goes if it was one before. */
	bpf_map_delete_elem(s->fd[XM_FDB_STATIC], &k);
	if (!s->meta.fdb_trace) {
		/* Nothing mirrors it in-kernel: we do, in event order. A move
		 * is asked of the bridge: two CPUs moving one MAC may notify
		 * in the other order than they moved it (below). */
		if (deleted)
			return bpf_map_delete_elem(s->fd[XM_FDB], &k) ? 0 : 1;
		if (!bpf_map_lookup_elem(s->fd[XM_FDB], &k, &cur) &&
		    cur.ifindex != v.ifindex) {
			if (*budget > 0) {
				(*budget)--;
				fdb_fix_key(s, br, &k);
				return 1;
			}
			*budget = -1; /* xn_fdb_repair asks for all */
		}
		fdb_slot(s, &v);
		return bpf_map_update_elem(s->fd[XM_FDB], &k, &v, 0) ? -errno
								     : 1;
	}
	/* The tracepoints mirror what the bridge learns; an entry that user
	 * space added ("bridge fdb add ... dynamic") only reaches us here,
	 * and the copy the trace dropped on br_fdb_add must come back. A
	 * copy on another port than the notification's may be a race the
	 * copy lost: br_fdb_update() moves an entry, then traces the move,
	 * without a lock, so that two CPUs moving one MAC can trace in the
	 * other order, and the copy keeps the older port (for good: the
	 * bridge, already right, has nothing more to say). Each move is
	 * notified after its trace, so the last notification finds the
	 * copy as the traces left it. The notification may be older than
	 * the trace's news: in both cases ask the bridge for the entry as
	 * it is now. */
	if (deleted)
		return 0;
	if (!bpf_map_lookup_elem(s->fd[XM_FDB], &k, &cur)) {
		if (cur.ifindex == v.ifindex)
			return 0;
		if (*budget <= 0) {
			*budget = -1; /* left: xn_fdb_repair asks for all */
			return 0;
		}
	} else if (*budget <= 0) {
		return 0; /* a full map's: left to xn_fdb_repair */
	}
	(*budget)--;
	fdb_fix_key(s, br, &k);
	return 1;
}

int xn_reconcile_fdb_entry(struct xn_state *s, const struct xn_link *br,
			   const struct xn_fdb_entry *e, int deleted,
			   int *budget)
{
	int r = fdb_entry_apply(s, br, e, deleted, budget);

	if (r)
		xn_gen_bump(s);
	return r;
}

int xn_fdb_repair(struct xn_state *s, const struct xn_link *br,
		  struct xn_fdb_sync *r)
{
	struct xdpnet_fdb_key k, nk, *added = NULL, *gone = NULL;
	int n = 0, i, j, nadded = 0, nmoved = 0, ngone = 0, gcap = 0, err;
	struct keyset want[2] = {}; /* [0] static and local, [1] learned */
	struct xn_fdb_entry *e = NULL;
	struct xdpnet_fdb_val v, cur;
	__u64 ev0 = fdb_ev_sum(s);

	err = xn_dump_fdb(br->ifindex, &e, &n);
	if (err)
		return err;
	added = calloc(n + 1, sizeof(*added));
	if (!added || keyset_init(&want[0], n) || keyset_init(&want[1], n)) {
		free(added);
		free(want[0].k);
		free(e);
		return -ENOMEM;
	}
	r->static_entries = 0;
	for (i = 0; i < n; i++) {
		int kind = fdb_kind(br, &e[i], &k, &v);

		if (kind < 0)
			continue;
		keyset_add(&want[kind == 1 ? 0 : 1], &k);
		fdb_slot(s, &v);
		if (kind == 1) {
			r->static_entries++;
			if (bpf_map_lookup_elem(s->fd[XM_FDB_STATIC], &k,
						&cur) ||
			    cur.ifindex != v.ifindex || cur.flags != v.flags)
				bpf_map_update_elem(s->fd[XM_FDB_STATIC], &k,
						    &v, 0);
			bpf_map_delete_elem(s->fd[XM_FDB], &k);
			continue;
		}
		if (!bpf_map_lookup_elem(s->fd[XM_FDB], &k, &cur)) {
			if (cur.ifindex == v.ifindex)
				continue;
			if (s->meta.fdb_trace) {
				/* On another port than the bridge's: a lost
				 * race of the traces (fdb_entry_apply), or
				 * a move since the dump. Ask again. */
				added[nadded++] = k;
				nmoved++;
				continue;
			}
		} else if (s->meta.fdb_trace) {
			if (bpf_map_update_elem(s->fd[XM_FDB], &k, &v,
						BPF_NOEXIST))
				continue; /* full, or the trace was first */
			added[nadded++] = k;
			r->seeded++;
			continue;
		}
		if (!bpf_map_update_elem(s->fd[XM_FDB], &k, &v, 0))
			r->seeded++;
	}
	/* Copies the bridge no longer has: static ones always; learned ones
	 * where nothing mirrors them in-kernel (the trace removes its own). */
	for (j = 0; j < 2; j++) {
		int fd = s->fd[j ? XM_FDB : XM_FDB_STATIC];

		if (j && s->meta.fdb_trace)
			break;
		for (err = bpf_map_get_next_key(fd, NULL, &k); !err;
		     err = bpf_map_get_next_key(fd, &k, &nk), k = nk) {
			if (keyset_has(&want[j], &k))
				continue;
			if (ngone == gcap) {
				void *p = realloc(gone, (gcap = gcap * 2 + 64) *
								sizeof(*gone));

				if (!p)
					break;
				gone = p;
			}
			gone[ngone++] = k;
		}
		for (i = 0; i < ngone; i++)
			if (!bpf_map_delete_elem(fd, &gone[i]))
				r->dropped++;
		ngone = 0;
	}
	/* The bridge changed its FDB while we copied it (what we inserted
	 * may be stale already), or copies were on another port: ask again
	 * for each. */
	if (nadded && (fdb_ev_sum(s) != ev0 || nmoved))
		for (i = 0; i < nadded; i++)
			fdb_fix_key(s, br, &added[i]);
	xn_gen_bump(s);
	free(want[0].k);
	free(want[1].k);
	free(gone);
	free(added);
	free(e);
	return 0;
}
