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
#include "state/bridge.h"
#include "state/lock.h"

static int open_run(const struct xn_bridge *bridge, enum xn_run_file file)
{
	const char *path = bridge->path.run[file];
	int fd, i;

	/* A detach may remove the directory between the two steps. */
	for (i = 0; i < 10; i++) {
		if (mkdir(xn_run_dir(), 0755) && errno != EEXIST)
			return -errno;
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != ENOENT)
			break;
	}
	return fd < 0 ? -errno : fd;
}

/* Is fd, just locked, still the file at bridge's path? A detach removes
 * the run files while it holds their locks (xn_run_remove): whoever
 * waited on the removed file has a lock nobody else will see, and must
 * open the path anew. */
static int still_linked(int fd, const struct xn_bridge *bridge,
			enum xn_run_file file)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(bridge->path.run[file], &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Open bridge's run file and take its flock without waiting: an fd, or
 * -EWOULDBLOCK (held), or another -errno (-ESTALE: removed under us time
 * and again). */
static int lock_run(const struct xn_bridge *bridge, enum xn_run_file file,
		    int how)
{
	int fd, i, err;

	for (i = 0; i < 10; i++) {
		fd = open_run(bridge, file);
		if (fd < 0)
			return fd;
		if (flock(fd, how | LOCK_NB)) {
			err = -errno;
			close(fd);
			return err;
		}
		if (still_linked(fd, bridge, file))
			return fd;
		close(fd);
	}
	return -ESTALE;
}

int xn_lock(const struct xn_bridge *bridge, int timeout_s)
{
	struct timespec d = { 0, 10 * 1000 * 1000 };
	const char *path = bridge->path.run[XN_RUN_LOCK];
	int fd = -EWOULDBLOCK, i;

	for (i = 0; i <= timeout_s * 100; i++) {
		fd = lock_run(bridge, XN_RUN_LOCK, LOCK_EX);
		if (fd >= 0)
			return fd;
		if (fd != -EWOULDBLOCK)
			break;
		nanosleep(&d, NULL);
	}
	if (fd == -EWOULDBLOCK)
		xn_err("%s is held by another xdpnet for more than %d s; try "
		       "again",
		       path, timeout_s);
	else
		xn_err("cannot lock %s: %s", path, strerror(-fd));
	return -1;
}

void xn_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

static pid_t read_pid(const struct xn_bridge *bridge)
{
	char buf[32] = "";
	FILE *f = fopen(bridge->path.run[XN_RUN_PID], "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return (pid_t)atoi(buf);
}

int xn_follow_lock(const struct xn_bridge *bridge, pid_t *pid)
{
	int fd = lock_run(bridge, XN_RUN_FOLLOW, LOCK_EX);
	FILE *f;

	*pid = 0;
	if (fd == -EWOULDBLOCK) {
		*pid = read_pid(bridge);
		return -EBUSY;
	}
	if (fd < 0)
		return fd;
	f = fopen(bridge->path.run[XN_RUN_PID], "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	return fd;
}

/* Does some process hold BRIDGE.file locked? */
static int run_file_held(const struct xn_bridge *bridge, enum xn_run_file file)
{
	int fd = open(bridge->path.run[file], O_RDONLY | O_CLOEXEC), held;

	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

int xn_follower_alive(const struct xn_bridge *bridge, pid_t *pid)
{
	int alive = run_file_held(bridge, XN_RUN_FOLLOW);

	*pid = alive ? read_pid(bridge) : 0;
	return alive;
}

int xn_dump_lock(const struct xn_bridge *bridge)
{
	int fd = lock_run(bridge, XN_RUN_DUMP, LOCK_EX);

	return fd == -EWOULDBLOCK ? -EBUSY : fd;
}

int xn_dump_alive(const struct xn_bridge *bridge)
{
	return run_file_held(bridge, XN_RUN_DUMP);
}

void xn_dump_unlock(const struct xn_bridge *bridge, int fd, int detached)
{
	if (fd < 0)
		return;
	if (detached && still_linked(fd, bridge, XN_RUN_DUMP)) {
		unlink(bridge->path.run[XN_RUN_DUMP]);
		rmdir(xn_run_dir()); /* when nothing else is there */
	}
	close(fd);
}

/* Remove bridge's run file, with the follower's pid file and log when it
 * is the follower's lock, unless a process holds it (a follower or a dump
 * that still runs keeps its own). Removed while locked (fd: ours, -1 to
 * take it here): a process that takes the lock next makes new ones. */
static void remove_locked(const struct xn_bridge *bridge, enum xn_run_file file,
			  int fd)
{
	const char *path = bridge->path.run[file];
	int own = fd < 0;

	if (own) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			return;
		}
	}
	if (still_linked(fd, bridge, file)) {
		unlink(path);
		if (file == XN_RUN_FOLLOW) {
			unlink(bridge->path.run[XN_RUN_PID]);
			unlink(bridge->path.run[XN_RUN_LOG]);
		}
	}
	if (own)
		close(fd);
}

static void remove_rest(const struct xn_bridge *bridge)
{
	remove_locked(bridge, XN_RUN_DUMP, -1);
	unlink(bridge->path.run[XN_RUN_LOCK]);
	rmdir(xn_run_dir()); /* when no other bridge has files there */
}

void xn_run_remove_follower(const struct xn_bridge *bridge, int follow_fd)
{
	remove_locked(bridge, XN_RUN_FOLLOW, follow_fd);
	remove_rest(bridge);
}

void xn_run_remove(const struct xn_bridge *bridge)
{
	/* A follower that would not stop keeps its files. */
	remove_locked(bridge, XN_RUN_FOLLOW, -1);
	remove_rest(bridge);
}
