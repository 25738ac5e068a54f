// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Paths and names derived from a bridge: see paths.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xdpnet.h"
#include "state/paths.h"

static const char *pin_root = XDPNET_PIN_ROOT;
static const char *run_dir = XDPNET_RUN_DIR;

int xn_valid_ifname(const char *name)
{
	size_t n = strlen(name);

	/* What the kernel's dev_valid_name() refuses. */
	if (n == 0 || n >= 16 || strpbrk(name, "/: \t\n\r\v\f"))
		return 0;
	return strcmp(name, ".") && strcmp(name, "..");
}

const char *xn_pin_root(void)
{
	return pin_root;
}

const char *xn_run_dir(void)
{
	return run_dir;
}

void xn_paths_set_root(const char *pins, const char *run)
{
	if (pins)
		pin_root = pins;
	if (run)
		run_dir = run;
}

static int fits(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int xn_port_leaf(char *buf, size_t len, enum xn_port_hook h, __u32 ifindex)
{
	return fits(snprintf(buf, len, "%s_%u", h == XN_PORT_XDP ? "xdp" : "tc",
			     ifindex),
		    len);
}

static int unit_name(char *buf, size_t len, const char *bridge)
{
	size_t o;
	const char *c;

	o = snprintf(buf, len, "xdpnet@");
	for (c = bridge; *c && o + 5 < len; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' ||
		    (*c == '.' && c != bridge))
			buf[o++] = *c;
		else
			o += snprintf(buf + o, len - o, "\\x%02x",
				      (unsigned char)*c);
	}
	if (*c)
		return -1;
	return fits(snprintf(buf + o, len - o, ".service"), len - o);
}

int xn_paths_of(const char *name, struct xn_paths *p)
{
	static const char *const suffix[XN_RUN_N] = {
		[XN_RUN_LOCK] = "lock", [XN_RUN_FOLLOW] = "follow",
		[XN_RUN_PID] = "pid",	[XN_RUN_LOG] = "log",
		[XN_RUN_DUMP] = "dump",
	};
	int f;

	if (!xn_valid_ifname(name) ||
	    fits(snprintf(p->pins, sizeof(p->pins), "%s/%s", pin_root, name),
		 sizeof(p->pins)))
		return -1;
	for (f = 0; f < XN_RUN_N; f++)
		if (fits(snprintf(p->run[f], sizeof(p->run[f]), "%s/%s.%s",
				  run_dir, name, suffix[f]),
			 sizeof(p->run[f])))
			return -1;
	return unit_name(p->unit, sizeof(p->unit), name);
}

int xn_pin_dirs(char (**names)[IF_NAMESIZE], int *n)
{
	char(*v)[IF_NAMESIZE] = NULL;
	struct dirent *de;
	int cap = 0;
	DIR *d;

	*names = NULL;
	*n = 0;
	d = opendir(pin_root);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !xn_valid_ifname(de->d_name))
			continue;
		if (*n == cap) {
			void *p = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));

			if (!p) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = p;
		}
		/* xn_valid_ifname(): shorter than IF_NAMESIZE */
		memcpy(v[(*n)++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	*names = v;
	return 0;
}

int xn_libxdp_dispatch_dir(char *buf, size_t len, __u32 ifindex, __u32 prog_id)
{
	int n = snprintf(buf, len, XN_LIBXDP_DIR "/dispatch-%u-%u", ifindex,
			 prog_id);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
