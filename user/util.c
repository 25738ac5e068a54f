// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "xdpnet.h"
#include "util.h"

int xn_verbose;
static int quiet;

void xn_set_quiet(int q)
{
	quiet = q;
}

void xn_err(const char *fmt, ...)
{
	va_list ap;

	fputs("xdpnet: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void xn_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void xn_debug(const char *fmt, ...)
{
	va_list ap;

	if (!xn_verbose)
		return;
	fputs("xdpnet: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int lib_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!xn_verbose || (level == LIBBPF_DEBUG && xn_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int xdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	if (!xn_verbose || (level == LIBXDP_DEBUG && xn_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void xn_setup_libbpf_logging(void)
{
	libbpf_set_print(lib_print);
	libxdp_set_print(xdp_print);
}

/* Same mount namespace as PID 1? (Under 'ip netns exec', PID 1's
 * namespace files cannot even be looked at: not initial then.) */
static int initial_mnt_ns(void)
{
	struct stat a, b;

	if (stat("/proc/self/ns/mnt", &a) || stat("/proc/1/ns/mnt", &b))
		return 0;
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int xn_ensure_bpffs(void)
{
	struct statfs st;

	if (!statfs("/sys/fs/bpf", &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	/* A bpffs mounted in a private mount namespace (as under
	 * 'ip netns exec') dies with it, and our pins with it. */
	if (!initial_mnt_ns()) {
		xn_err("bpffs is not mounted at /sys/fs/bpf in this mount "
		       "namespace ('ip netns exec' hides it); use 'nsenter "
		       "--net=/run/netns/NAME xdpnet ...' instead");
		return XN_EBPFFS;
	}
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
		xn_err("bpffs is not mounted at /sys/fs/bpf and mounting it "
		       "failed: %s (try: mount -t bpf bpf /sys/fs/bpf)",
		       strerror(errno));
		return XN_EBPFFS;
	}
	xn_debug("mounted bpffs at /sys/fs/bpf");
	return 0;
}

int xn_pin_path(char *buf, size_t len, const char *bridge, const char *leaf)
{
	int n;

	if (leaf)
		n = snprintf(buf, len, "%s/%s/%s", XDPNET_PIN_ROOT, bridge,
			     leaf);
	else
		n = snprintf(buf, len, "%s/%s", XDPNET_PIN_ROOT, bridge);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

unsigned long long xn_netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : st.st_ino;
}

int xn_pin_get(const char *bridge, const char *leaf)
{
	char path[256];

	if (xn_pin_path(path, sizeof(path), bridge, leaf))
		return -ENAMETOOLONG;
	return bpf_obj_get(path);
}

int xn_valid_ifname(const char *name)
{
	size_t n = strlen(name);

	/* What the kernel's dev_valid_name() refuses. */
	if (n == 0 || n >= 16 || strpbrk(name, "/: \t\n\r\v\f"))
		return 0;
	return strcmp(name, ".") && strcmp(name, "..");
}
