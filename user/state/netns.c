// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* This process's network namespace: see netns.h. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "state/netns.h"

/* A mount of this mount namespace whose root is the nsfs file of net
 * namespace ino (mountinfo: "... net:[INO] /run/netns/x ... - nsfs ..."). */
static int mounted(unsigned long long ino)
{
	char line[1024], root[64];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	snprintf(root, sizeof(root), " net:[%llu] ", ino);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, root) && strstr(line, " - nsfs ");
	fclose(f);
	return found;
}

/* Another process in net namespace (dev, ino). */
static int other_process(dev_t dev, ino_t ino)
{
	pid_t self = getpid();
	struct dirent *d;
	char path[300];
	struct stat st;
	int found = 0;
	DIR *p;

	p = opendir("/proc");
	if (!p)
		return -1;
	while (!found && (d = readdir(p))) {
		if (!isdigit((unsigned char)d->d_name[0]) ||
		    (pid_t)atoi(d->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", d->d_name);
		found = !stat(path, &st) && st.st_ino == ino &&
			st.st_dev == dev;
	}
	closedir(p);
	return found;
}

const struct xn_netns *xn_netns_self(void)
{
	static struct xn_netns self;
	static int read;
	struct stat st;

	if (!read && !stat("/proc/self/ns/net", &st)) {
		self.dev = st.st_dev;
		self.ino = st.st_ino;
		read = 1;
	}
	return &self;
}

int xn_netns_is_init(void)
{
	const struct xn_netns *self = xn_netns_self();
	struct stat b;

	return self->ino && !stat("/proc/1/ns/net", &b) &&
	       self->ino == b.st_ino && self->dev == b.st_dev;
}

int xn_netns_held(void)
{
	const struct xn_netns *self = xn_netns_self();
	int r;

	if (!self->ino)
		return -1;
	if (xn_netns_is_init())
		return 1;
	r = mounted(self->ino);
	if (r)
		return r;
	return other_process(self->dev, self->ino);
}
