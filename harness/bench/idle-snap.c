// SPDX-License-Identifier: GPL-2.0
/*
 * idle-snap: the measured window of bench-idle, with the counters read
 * without keeping a CPU busy (idle-guest.sh).
 *
 *   idle-snap SETTLE SECONDS RESET OUTDIR FILE...
 *
 * Opens every FILE (and RESET) and sleeps SETTLE seconds, so that the
 * fork and exec that started it are over (and their RCU callbacks and
 * deferred work with them); then reads every FILE from its start,
 * writes "1" to RESET (unless it is "-"), notes the time and sleeps
 * SECONDS.  On waking it notes the time and reads the FILEs again,
 * in reverse order, so that the ones named last sit closest to both edges
 * of the window.  Only after that does it write anything:
 *   OUTDIR/N.0, OUTDIR/N.1   FILE number N (from 0) before and after
 *   OUTDIR/window            the two times, CLOCK_BOOTTIME seconds
 *
 * Why not the shell: busybox's "read" takes one byte per system call, and
 * copying /proc/interrupts and /proc/timer_list that way keeps a CPU busy
 * for tens of milliseconds under TCG, with the tick running.  Those ticks
 * were counted as if the idle system had taken them.  Here both edges
 * take one read() per page of each file, and nothing opens or closes a
 * file, forks, faults in or writes to a file system inside the window.
 * Statically linked for the guests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES	8
#define SNAP_SIZE	(256 << 10)

/* in .bss and touched before the window: no page fault inside it */
static char snap[MAX_FILES][2][SNAP_SIZE];
static ssize_t snap_len[MAX_FILES][2];

static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_for(double secs)
{
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - (time_t)secs) * 1e9),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* the whole of the file open at FD into BUF; -1 if unreadable or too big */
static ssize_t slurp(int fd, char *buf)
{
	ssize_t len = 0, n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf + len, SNAP_SIZE - len)) > 0)
		len += n;
	return n < 0 || len == SNAP_SIZE ? -1 : len;
}

static int put(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *reset, *outdir;
	double settle, secs, t0, t1;
	char path[4096], line[64];
	int fds[MAX_FILES], nfiles, i, reset_fd = -1, rc = 0;

	if (argc < 6 || argc - 5 > MAX_FILES) {
		fprintf(stderr,
			"usage: idle-snap SETTLE SECONDS RESET OUTDIR FILE... (at most %d)\n",
			MAX_FILES);
		return 2;
	}
	settle = atof(argv[1]);
	secs = atof(argv[2]);
	reset = argv[3];
	outdir = argv[4];
	nfiles = argc - 5;
	memset(snap, 0, sizeof(snap));
	/*
	 * Every file is opened now and closed only after the window: the
	 * kernel frees a closed file after an RCU grace period, and the grace
	 * period kthread would wake the CPUs at the start of the window.
	 */
	for (i = 0; i < nfiles; i++) {
		fds[i] = open(argv[5 + i], O_RDONLY);
		if (fds[i] < 0) {
			perror(argv[5 + i]);
			return 1;
		}
	}
	if (strcmp(reset, "-")) {
		reset_fd = open(reset, O_WRONLY);
		if (reset_fd < 0) {
			perror(reset);
			return 1;
		}
	}

	sleep_for(settle);
	for (i = 0; i < nfiles; i++)
		snap_len[i][0] = slurp(fds[i], snap[i][0]);
	/* debugfs attributes are not seekable: one write() per open */
	if (reset_fd >= 0 && write(reset_fd, "1\n", 2) != 2)
		rc = 1;
	t0 = boottime();
	sleep_for(secs);
	t1 = boottime();
	for (i = nfiles - 1; i >= 0; i--)
		snap_len[i][1] = slurp(fds[i], snap[i][1]);

	if (rc)
		fprintf(stderr, "idle-snap: cannot write %s\n", reset);
	for (i = 0; i < nfiles; i++) {
		close(fds[i]);
		if (snap_len[i][0] < 0 || snap_len[i][1] < 0) {
			fprintf(stderr, "idle-snap: cannot read %s\n", argv[5 + i]);
			rc = 1;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%d.0", outdir, i);
		rc |= put(path, snap[i][0], snap_len[i][0]);
		snprintf(path, sizeof(path), "%s/%d.1", outdir, i);
		rc |= put(path, snap[i][1], snap_len[i][1]);
	}
	if (reset_fd >= 0)
		close(reset_fd);
	snprintf(path, sizeof(path), "%s/window", outdir);
	snprintf(line, sizeof(line), "%.6f %.6f\n", t0, t1);
	rc |= put(path, line, strlen(line));
	return rc;
}
