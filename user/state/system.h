/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every command needs of the system before it touches a bridge: root,
 * and bpffs mounted at /sys/fs/bpf (where it outlives the command). */
#ifndef XN_SYSTEM_H
#define XN_SYSTEM_H

/* The capabilities the commands name when they are not root. */
#define XN_CAPS_ADMIN "CAP_BPF, CAP_NET_ADMIN and CAP_SYS_ADMIN"
#define XN_CAPS_READ "CAP_BPF and CAP_SYS_ADMIN to read pinned maps"
#define XN_CAPS_PROBE "CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN"

/* 0 as root, else -XN_NOT_PERMITTED after "must run as root (needs CAPS)". */
int xn_require_root(const char *caps);

/* Make sure bpffs is mounted at /sys/fs/bpf. Returns 0 or -XN_NO_BPFFS. */
int xn_ensure_bpffs(void);

/* The preamble of the commands that change or show a bridge's datapath:
 * root (XN_CAPS_ADMIN), bpffs. 0 or a -errno (lib/log.h) after a one-line
 * error. */
int xn_prepare(void);

/* The same with the capabilities the command needs (XN_CAPS_*), and, when
 * br is not NULL, the bridge checked (xn_bridge_check()) before bpffs is
 * mounted. */
struct xn_bridge;
int xn_prepare_for(const char *caps, const struct xn_bridge *br);

#endif
