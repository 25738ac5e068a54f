// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Starting and stopping the follower. Where systemd runs (and manages
 * this network namespace) and the unit xdpnet@.service is installed, the
 * follower is that unit's instance for the bridge (Restart=always brings
 * it back after a crash); elsewhere attach forks it as a daemon, logging
 * to /run/xdpnet/BRIDGE.log, and the next attach restarts it if it died.
 * XDPNET_FOLLOWER=daemon|systemd overrides the choice.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/log.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "sync/daemon.h"
#include "state/lock.h"
#include "state/netns.h"

#define UNIT "xdpnet@.service"

static const char *const unit_dirs[] = {
	"/etc/systemd/system",		 "/run/systemd/system",
	"/usr/local/lib/systemd/system", "/lib/systemd/system",
	"/usr/lib/systemd/system",
};

static int use_systemd(void)
{
	const char *env = getenv("XDPNET_FOLLOWER");
	char path[256];
	unsigned int i;

	if (env && !strcmp(env, "daemon"))
		return 0;
	if (env && !strcmp(env, "systemd"))
		return 1;
	/* PID 1's namespace unreadable: we cannot tell, and a unit started
	 * in another namespace would follow nothing. */
	if (access("/run/systemd/system", F_OK) || !xn_netns_is_init())
		return 0;
	for (i = 0; i < ARRAY_SIZE(unit_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", unit_dirs[i], UNIT);
		if (!access(path, F_OK))
			return 1;
	}
	return 0;
}

/* Until the follower of bridge runs: 0; -XN_FAILED once daemon (the
 * process started, nobody's child) is gone or secs have passed. */
static int wait_alive(const struct xn_bridge *bridge, pid_t daemon, int secs)
{
	struct timespec d = { 0, 10 * 1000 * 1000 };
	pid_t pid;
	int i;

	for (i = 0; i < secs * 100; i++) {
		if (xn_follower_alive(bridge, &pid))
			return 0;
		if (daemon > 0 && kill(daemon, 0) && errno == ESRCH)
			return xn_follower_alive(bridge, &pid) ? 0 : -XN_FAILED;
		nanosleep(&d, NULL);
	}
	return -XN_FAILED;
}

static int start_daemon(const struct xn_bridge *bridge)
{
	const char *log = bridge->path.run[XN_RUN_LOG];
	char verbose[8] = "-v";
	char *argv[] = { "xdpnet", "follow", (char *)bridge->name,
			 xn_verbose ? verbose : NULL, NULL };
	pid_t daemon;
	int err;

	daemon = xn_daemon("/proc/self/exe", argv, log);
	/* A loaded host may take seconds to start it: wait while it lives,
	 * 60 s at most. */
	err = daemon < 0 ? -XN_FAILED : wait_alive(bridge, daemon, 60);
	if (err)
		xn_err("the follower did not start; see %s", log);
	return err;
}

int xn_follower_start(const struct xn_bridge *bridge, const char **how)
{
	char *unit = (char *)bridge->path.unit;
	pid_t pid;

	if (xn_follower_alive(bridge, &pid)) {
		*how = "running";
		return 0;
	}
	if (!use_systemd()) {
		*how = "daemon";
		return start_daemon(bridge);
	}
	*how = "systemd";
	{
		/* --no-block: the unit is ordered after libvirtd, whose
		 * hooks run attach while it starts. */
		char *argv[] = { "systemctl", "start", "--no-block", unit,
				 NULL };

		if (xn_run(argv, NULL, 0)) {
			xn_err("'systemctl start %s' failed; see 'journalctl "
			       "-u %s'",
			       unit, unit);
			return -XN_FAILED;
		}
	}
	return 0;
}

/* Is pid our follower for bridge? (A pid file may outlive its process.) */
static int is_follower(pid_t pid, const struct xn_bridge *bridge)
{
	char path[64], buf[256];
	size_t n, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	return strstr(buf, " follow ") && strstr(buf, bridge->name);
}

int xn_follower_stop(const struct xn_bridge *bridge)
{
	char *unit = (char *)bridge->path.unit;
	pid_t pid, last = 0;
	int i;

	if (!xn_follower_alive(bridge, &pid))
		return 0;
	if (access("/run/systemd/system", F_OK) == 0) {
		char *argv[] = { "systemctl", "stop", unit, NULL };
		char *q[] = { "systemctl", "is-active", "--quiet", unit, NULL };

		if (!xn_run(q, NULL, 0))
			xn_run(argv, NULL, 0);
	}
	for (i = 0; i < 500 && xn_follower_alive(bridge, &pid); i++) {
		if (pid > 0)
			last = pid;
		if (i == 0 && pid > 0 && is_follower(pid, bridge))
			kill(pid, SIGTERM);
		if (i == 300 && pid > 0 && is_follower(pid, bridge))
			kill(pid, SIGKILL);
		usleep(10000);
	}
	if (xn_follower_alive(bridge, &pid)) {
		xn_err("the follower of %s (pid %d) does not stop",
		       bridge->name, (int)pid);
		return -XN_FAILED;
	}
	/* Its lock goes before the process does; until the process is gone
	 * it may hold programs (libxdp 1.3 leaves descriptors open in it),
	 * which would outlive a detach by as long as its exit takes. (A
	 * zombie has no cmdline: gone.) */
	for (i = 0; last > 0 && i < 1000 && is_follower(last, bridge); i++)
		usleep(10000);
	return 0;
}
