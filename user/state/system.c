// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What every command needs of the system: see system.h. */
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "lib/log.h"
#include "state/bridge.h"
#include "state/system.h"

int xn_require_root(const char *caps)
{
	if (geteuid() != 0) {
		xn_err("must run as root (needs %s)", caps);
		return -XN_NOT_PERMITTED;
	}
	return 0;
}

int xn_prepare_for(const char *caps, const struct xn_bridge *br)
{
	int err = xn_require_root(caps);

	if (!err && br)
		err = xn_bridge_check(br);
	return err ? err : xn_ensure_bpffs();
}

int xn_prepare(void)
{
	return xn_prepare_for(XN_CAPS_ADMIN, NULL);
}

/* Identity of a process's mount namespace: 0, or -1 when it cannot be
 * read (gone, or /proc/PID/ns/mnt is unreadable: a PID 1 or a sudo with
 * more privileges than we have, on some hosts even to root). */
static int mnt_ns_of(const char *pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	return stat(path, st) ? -1 : 0;
}

/* The parent of PID, from /proc/PID/stat: 0 at the top of our PID
 * namespace, -1 when unknown. */
static long parent_of(long pid)
{
	char path[64], buf[512], *p;
	long ppid = -1;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "PID (COMM) STATE PPID ...": COMM may hold anything, even ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return ppid;
}

/* Is this the host's mount namespace, where a bpffs mounted now outlives
 * this command? 1 yes, 0 no, -1 cannot tell. Not so in a mount namespace
 * made for one command, as 'ip netns exec' makes (it unshares the mount
 * namespace and remounts /sys, which hides the host's bpffs): a bpffs
 * mounted there, and every pin in it, dies with the namespace.
 *
 * PID 1's mount namespace decides where it can be read (a container's
 * init counts: the container's namespace is its host's). Some hosts deny
 * that even to root; then our ancestors decide: under 'ip netns exec' the
 * command's parent (or, for a script it runs, an ancestor further up) is
 * in another mount namespace, while 'nsenter --net', sudo, a shell or a
 * service without mount namespacing share ours. An ancestor that cannot
 * be read tells nothing and is skipped; when none can be read, we cannot
 * tell. */
static int host_mnt_ns(void)
{
	struct stat self, st;
	int i, seen = 0;
	char pid[24];
	long p;

	if (mnt_ns_of("self", &self))
		return -1;
	if (!mnt_ns_of("1", &st))
		return st.st_ino == self.st_ino && st.st_dev == self.st_dev;
	p = parent_of(getpid());
	for (i = 0; i < 64 && p > 1; i++, p = parent_of(p)) {
		snprintf(pid, sizeof(pid), "%ld", p);
		if (mnt_ns_of(pid, &st))
			continue;
		if (st.st_ino != self.st_ino || st.st_dev != self.st_dev) {
			xn_debug("ancestor %ld is in another mount namespace",
				 p);
			return 0;
		}
		seen++;
	}
	xn_debug("/proc/1/ns/mnt unreadable; %d ancestors share this mount "
		 "namespace, none is in another",
		 seen);
	return seen ? 1 : -1;
}

int xn_ensure_bpffs(void)
{
	struct statfs st;
	int host;

	if (!statfs("/sys/fs/bpf", &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	/* A bpffs mounted in a private mount namespace (as under
	 * 'ip netns exec') dies with it, and our pins with it. */
	host = host_mnt_ns();
	if (host == 0) {
		xn_err("bpffs is not mounted at /sys/fs/bpf in this mount "
		       "namespace ('ip netns exec' hides it); use 'nsenter "
		       "--net=/run/netns/NAME xdpnet ...' instead");
		return -XN_NO_BPFFS;
	}
	if (host < 0) {
		xn_err("bpffs is not mounted at /sys/fs/bpf, and whether this "
		       "is the host's mount namespace cannot be told (neither "
		       "PID 1's nor an ancestor's /proc/PID/ns/mnt is "
		       "readable); mount it: mount -t bpf bpf /sys/fs/bpf");
		return -XN_NO_BPFFS;
	}
	if (mount("bpf", "/sys/fs/bpf", "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0700")) {
		xn_err("bpffs is not mounted at /sys/fs/bpf and mounting it "
		       "failed: %s (try: mount -t bpf bpf /sys/fs/bpf)",
		       strerror(errno));
		return -XN_NO_BPFFS;
	}
	xn_debug("mounted bpffs at /sys/fs/bpf");
	return 0;
}
