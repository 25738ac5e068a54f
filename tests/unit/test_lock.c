// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the per-bridge locks (user/state/lock.c) under a scratch
 * run directory: the bridge lock excludes a second holder (another open
 * file in this process, or another process) and is free again once
 * released; the follower's lifetime lock says who runs; a detach's
 * removal of the run files neither breaks a waiting lock nor removes a
 * running process's file. No root needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "xdpnet.h"
#include "state/paths.h"
#include "state/lock.h"
#include "handle.h"

static char tmp[64], run[128];

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/xn_test_lock.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	/* The run directory does not exist yet: the lock makes it. */
	snprintf(run, sizeof(run), "%s/run", tmp);
	xn_paths_set_root(NULL, run);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	xn_paths_set_root(NULL, XDPNET_RUN_DIR);
	return system(cmd) ? -1 : 0;
}

static void test_lock_excludes(void **state)
{
	char path[256];
	int a, b;

	(void)state;
	a = xn_lock(B("br0"), 0);
	assert_true(a >= 0);
	snprintf(path, sizeof(path), "%s", B("br0")->path.run[XN_RUN_LOCK]);
	assert_int_equal(access(path, F_OK), 0);
	/* A second holder waits, and gives up after its timeout. */
	assert_int_equal(xn_lock(B("br0"), 0), -1);
	/* Another bridge's lock is another lock. */
	b = xn_lock(B("br1"), 0);
	assert_true(b >= 0);
	xn_unlock(b);
	xn_unlock(a);
	a = xn_lock(B("br0"), 0);
	assert_true(a >= 0);
	xn_unlock(a);
	/* A bad name has no handle, and so no lock. */
	{
		struct xn_bridge br;

		assert_int_equal(xn_bridge_open(&br, "../x", 0), -EINVAL);
	}
}

static void test_lock_between_processes(void **state)
{
	int p[2], q[2], lk, st;
	char c = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* Child: take the lock, say so, hold it until told. */
		int fd = xn_lock(B("br2"), 0);

		c = fd >= 0 ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1 || read(q[0], &c, 1) != 1)
			_exit(2);
		xn_unlock(fd);
		_exit(0);
	}
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	assert_int_equal(xn_lock(B("br2"), 0), -1);
	/* Released when it lets go (or dies): ours within a second. */
	assert_int_equal(write(q[1], "x", 1), 1);
	lk = xn_lock(B("br2"), 1);
	assert_true(lk >= 0);
	xn_unlock(lk);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_follow_lock(void **state)
{
	pid_t pid = -1;
	int fd;

	(void)state;
	assert_int_equal(xn_follower_alive(B("br3"), &pid), 0);
	assert_int_equal(pid, 0);
	fd = xn_follow_lock(B("br3"), &pid);
	assert_true(fd >= 0);
	/* Held: alive, with our pid from the pid file. */
	assert_int_equal(xn_follower_alive(B("br3"), &pid), 1);
	assert_int_equal(pid, getpid());
	/* A second follower is refused and told who runs. */
	pid = 0;
	assert_int_equal(xn_follow_lock(B("br3"), &pid), -EBUSY);
	assert_int_equal(pid, getpid());
	close(fd);
	assert_int_equal(xn_follower_alive(B("br3"), &pid), 0);
}

/* Detaches racing: processes that each take the bridge lock, remove the
 * run files (as a detach does, lock included) and let go. A waiter that
 * locked a removed file would hold "the" lock beside the one who locked
 * the file at the path: a marker made with O_EXCL under the lock tells. */
static void test_remove_under_contention(void **state)
{
	char marker[192];
	int k, st, bad = 0;
	pid_t pids[3];

	(void)state;
	snprintf(marker, sizeof(marker), "%s/held", tmp);
	for (k = 0; k < 3; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (!pids[k]) {
			int i, lk, m, two = 0;

			for (i = 0; i < 300; i++) {
				lk = xn_lock(B("br4"), 10);
				if (lk < 0)
					_exit(2);
				m = open(marker, O_CREAT | O_EXCL | O_WRONLY,
					 0600);
				if (m < 0)
					two++;
				else
					close(m);
				if (m >= 0)
					unlink(marker);
				/* Last, as in detach: once the file is
				 * gone, the next one may lock anew. */
				xn_run_remove(B("br4"));
				xn_unlock(lk);
			}
			_exit(two ? 1 : 0);
		}
	}
	for (k = 0; k < 3; k++) {
		assert_int_equal(waitpid(pids[k], &st, 0), pids[k]);
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	assert_int_equal(bad, 0);
}

/* xn_run_remove keeps the files of a process that runs (a follower, a
 * dump) and removes the rest, and the directory once it is empty. */
static void test_run_remove(void **state)
{
	char path[256];
	pid_t pid;
	int fol, lk;

	(void)state;
	fol = xn_follow_lock(B("br5"), &pid);
	assert_true(fol >= 0);
	lk = xn_lock(B("br5"), 0);
	assert_true(lk >= 0);
	xn_run_remove(B("br5"));
	xn_unlock(lk);
	snprintf(path, sizeof(path), "%s", B("br5")->path.run[XN_RUN_FOLLOW]);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(xn_follower_alive(B("br5"), &pid), 1);
	close(fol);
	assert_int_equal(xn_dump_lock(B("br5")) >= 0, 1);
	lk = xn_lock(B("br5"), 0);
	xn_run_remove(B("br5"));
	xn_unlock(lk);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s", B("br5")->path.run[XN_RUN_PID]);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s", B("br5")->path.run[XN_RUN_DUMP]);
	/* The dump's lock is held (by us): it stays, and so does the
	 * directory. */
	assert_int_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_excludes),
		cmocka_unit_test(test_lock_between_processes),
		cmocka_unit_test(test_follow_lock),
		cmocka_unit_test(test_remove_under_contention),
		cmocka_unit_test(test_run_remove),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
