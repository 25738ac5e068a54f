// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-bridge locks and the follower's pid file: see lock.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lib/util.h"
#include "core/lock.h"

int xn_run_path(char *buf, size_t len, const char *bridge, const char *suffix)
{
	int n = snprintf(buf, len, "%s/%s.%s", XDPNET_RUN_DIR, bridge, suffix);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int open_run(const char *bridge, const char *suffix)
{
	char path[256];
	int fd;

	if (xn_run_path(path, sizeof(path), bridge, suffix))
		return -ENAMETOOLONG;
	if (mkdir(XDPNET_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

int xn_lock(const char *bridge, int timeout_s)
{
	struct timespec d = { 0, 10 * 1000 * 1000 };
	int fd = open_run(bridge, "lock"), i;

	if (fd < 0) {
		xn_err("cannot open the lock in %s: %s", XDPNET_RUN_DIR,
		       strerror(-fd));
		return -1;
	}
	for (i = 0; i <= timeout_s * 100; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return fd;
		if (errno != EWOULDBLOCK)
			break;
		nanosleep(&d, NULL);
	}
	xn_err("%s/%s.lock is held by another xdpnet for more than %d s; "
	       "try again",
	       XDPNET_RUN_DIR, bridge, timeout_s);
	close(fd);
	return -1;
}

void xn_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

static pid_t read_pid(const char *bridge)
{
	char path[256], buf[32] = "";
	FILE *f;

	if (xn_run_path(path, sizeof(path), bridge, "pid"))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return (pid_t)atoi(buf);
}

int xn_follow_lock(const char *bridge, pid_t *pid)
{
	char path[256];
	int fd = open_run(bridge, "follow");
	FILE *f;

	*pid = 0;
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		*pid = read_pid(bridge);
		return err;
	}
	if (!xn_run_path(path, sizeof(path), bridge, "pid") &&
	    (f = fopen(path, "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	return fd;
}

int xn_follower_alive(const char *bridge, pid_t *pid)
{
	char path[256];
	int fd, alive;

	*pid = 0;
	if (xn_run_path(path, sizeof(path), bridge, "follow"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	alive = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	if (alive)
		*pid = read_pid(bridge);
	return alive;
}
