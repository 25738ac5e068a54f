// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Running other programs: see proc.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include "lib/proc.h"

/* What it wrote on fd, to its end: malloc'ed, NUL-terminated, or NULL. */
static char *read_all(int fd)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;

	for (;;) {
		if (cap - len < 4096) {
			nb = realloc(buf, cap + 65536);
			if (!nb)
				break;
			buf = nb;
			cap += 65536;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	if (buf)
		buf[len] = 0;
	return buf;
}

int xn_run(char *const argv[], char **out, int quiet)
{
	int fd[2] = { -1, -1 }, st;
	pid_t pid;

	if (out)
		*out = NULL;
	if (out && pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0) {
		if (out) {
			close(fd[0]);
			close(fd[1]);
		}
		return -1;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDWR);

		if (out)
			dup2(fd[1], 1);
		if (nul >= 0) {
			dup2(nul, 0);
			if (!out)
				dup2(nul, 1);
			if (quiet)
				dup2(nul, 2);
		}
		if (out) {
			close(fd[0]);
			close(fd[1]);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (out) {
		close(fd[1]);
		*out = read_all(fd[0]);
		close(fd[0]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

pid_t xn_daemon(const char *exe, char *const argv[], const char *log)
{
	pid_t pid, daemon = 0;
	int p[2];

	if (pipe(p))
		return -1;
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY), fd;

		setsid();
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (nul >= 0)
			dup2(nul, 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* Nothing of the caller's (pipes of a test harness, say)
		 * may stay open in the daemon (p[1] closes on exec). */
		for (fd = 3; fd < 1024; fd++)
			if (fd != p[1])
				close(fd);
		/* A second fork: the daemon is nobody's child. Its pid goes
		 * back to the caller, which can tell it died. */
		pid = fork();
		if (pid) {
			if (write(p[1], &pid, sizeof(pid)) != sizeof(pid))
				_exit(1);
			_exit(0);
		}
		execv(exe, argv);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &daemon, sizeof(daemon)) != sizeof(daemon))
		daemon = 0;
	close(p[0]);
	return waitpid(pid, NULL, 0) < 0 ? -1 : daemon;
}
