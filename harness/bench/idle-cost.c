// SPDX-License-Identifier: GPL-2.0
/*
 * idle-cost: workloads whose CPUs enter and leave idle often, to measure
 * what stopping the tick at every idle entry costs (bench-idle-cost.sh).
 *
 *   idle-cost pingpong SECONDS
 *	two processes, on CPU 0 and CPU 1, pass a byte back and forth
 *	through two pipes: each CPU goes idle while the other works, for
 *	a few microseconds at a time
 *   idle-cost sleep USEC SECONDS
 *	one process on CPU 0 sleeps USEC microseconds at a time
 *
 * Prints "# METRIC <name> <value> <unit>" lines: round trips (or sleeps)
 * per second and the mean time of one; for sleep, the mean lateness of
 * the wakeup past the time asked for.  Statically linked for the guests.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static int pingpong(double secs)
{
	int ab[2], ba[2];
	unsigned long n = 0;
	double t0, t;
	pid_t pid;
	char c = 0;

	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		close(ab[1]);
		close(ba[0]);
		pin(1);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	pin(0);
	t0 = now();
	do {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("pipe");
			return 1;
		}
		n++;
		t = now();
	} while (t - t0 < secs);
	close(ab[1]);
	waitpid(pid, NULL, 0);
	printf("# METRIC pingpong_per_s %.1f 1/s\n", n / (t - t0));
	printf("# METRIC pingpong_us %.2f us\n", (t - t0) * 1e6 / n);
	return 0;
}

static int sleeps(long usec, double secs)
{
	struct timespec req = { usec / 1000000, (usec % 1000000) * 1000 };
	unsigned long n = 0;
	double t0, t, a, late = 0;

	pin(0);
	t0 = now();
	t = t0;
	do {
		a = t;
		nanosleep(&req, NULL);
		t = now();
		late += t - a - usec / 1e6;
		n++;
	} while (t - t0 < secs);
	printf("# METRIC sleep%ld_per_s %.1f 1/s\n", usec, n / (t - t0));
	printf("# METRIC sleep%ld_late_us %.1f us\n", usec, late * 1e6 / n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pingpong"))
		return pingpong(atof(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "sleep"))
		return sleeps(atol(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: idle-cost pingpong SECONDS | sleep USEC SECONDS\n");
	return 2;
}
