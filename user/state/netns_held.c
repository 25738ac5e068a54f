// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "state/netns_held.h"

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

int xn_netns_is_init(void)
{
	struct stat a, b;

	return !stat("/proc/self/ns/net", &a) && !stat("/proc/1/ns/net", &b) &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int xn_netns_held(void)
{
	struct stat self;
	int r;

	if (stat("/proc/self/ns/net", &self))
		return -1;
	if (xn_netns_is_init())
		return 1;
	r = mounted((unsigned long long)self.st_ino);
	if (r)
		return r;
	return other_process(self.st_dev, self.st_ino);
}
