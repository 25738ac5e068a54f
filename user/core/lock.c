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
#include "lib/log.h"
#include "core/paths.h"
#include "core/lock.h"

static int open_run(const char *bridge, enum xn_run_file file)
{
	char path[256];
	int fd;

	if (xn_run_path(path, sizeof(path), bridge, file))
		return -ENAMETOOLONG;
	if (mkdir(xn_run_dir(), 0755) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

int xn_lock(const char *bridge, int timeout_s)
{
	struct timespec d = { 0, 10 * 1000 * 1000 };
	int fd = open_run(bridge, XN_RUN_LOCK), i;
	char path[256];

	if (fd < 0) {
		xn_err("cannot open the lock in %s: %s", xn_run_dir(),
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
	xn_run_path(path, sizeof(path), bridge, XN_RUN_LOCK);
	xn_err("%s is held by another xdpnet for more than %d s; try again",
	       path, timeout_s);
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

	if (xn_run_path(path, sizeof(path), bridge, XN_RUN_PID))
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
	int fd = open_run(bridge, XN_RUN_FOLLOW);
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
	if (!xn_run_path(path, sizeof(path), bridge, XN_RUN_PID) &&
	    (f = fopen(path, "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	return fd;
}

/* Does some process hold BRIDGE.file locked? */
static int run_file_held(const char *bridge, enum xn_run_file file)
{
	char path[256];
	int fd, held;

	if (xn_run_path(path, sizeof(path), bridge, file))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

int xn_follower_alive(const char *bridge, pid_t *pid)
{
	int alive = run_file_held(bridge, XN_RUN_FOLLOW);

	*pid = alive ? read_pid(bridge) : 0;
	return alive;
}

int xn_dump_lock(const char *bridge)
{
	int fd = open_run(bridge, XN_RUN_DUMP);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return err;
	}
	return fd;
}

int xn_dump_alive(const char *bridge)
{
	return run_file_held(bridge, XN_RUN_DUMP);
}
