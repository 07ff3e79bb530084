// SPDX-License-Identifier: GPL-2.0
/*
 * aging - age a mounted file system as years of use would, for
 * make bench-aging (runs in the bench guest: static, busybox only).
 *
 *   aging DIR FS PCT STEADY_MB SEED [COUNTERS]
 *
 * Fill: files of sizes drawn log-uniform between 4 KiB and 4 MiB, until
 * they hold PCT % of the space statfs(DIR) offers on the empty file
 * system; the files are written with write() calls of 4 KiB, 64 KiB and
 * 1 MiB in turn (one size per file) and each is fsync'd.
 *
 * Steady state: operations drawn half and half, until the user has
 * written STEADY_MB MiB:
 *   - an overwrite inside a file: one write() of 4 KiB, 64 KiB or 1 MiB
 *     in turn (at most the file's size) at a random 4 KiB aligned offset,
 *     then fsync;
 *   - the replacement of a whole file: a new file of the same size written
 *     as in the fill, fsync'd, and renamed over the old one,
 * so that the fill stays where it was.
 *
 * SEED chooses the sizes, files, offsets and data: the same seed gives
 * every file system the same sequence.  The data is incompressible.
 * COUNTERS is the parameter directory of mtdcount.ko, whose counts of
 * the bytes programmed and erased on the flash give the write
 * amplification.
 *
 * Output, as "# METRIC <FS>_<what> <value> <unit>" lines:
 *   capacity_MiB, data_MiB, files     statfs of the empty file system,
 *                                     the data of the fill, its files
 *   fill_s, fill_MiBps                the fill's time and user bytes/s
 *   fill_wa, fill_erase_wa            bytes programmed (data and OOB) and
 *                                     erased per user byte
 *   fill_fsync_med_us, fill_fsync_p99_us   median and 99th percentile of
 *                                     every fsync's latency
 *   steady_*                          the same for the steady state, and
 *   steady_overwrites, steady_replacements, steady_enospc
 *   wNN_MiBps, wNN_wa, wNN_erase_wa, wNN_fsync_med_us, wNN_fsync_p99_us
 *                                     the same for each twentieth of the
 *                                     steady state's user bytes (NN 01-20)
 * Exits non-zero on any error; ENOSPC in the steady state is retried
 * after a sync(), a few times, and counted.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#define KiB		1024ULL
#define MiB		(1024 * KiB)
#define MIN_SIZE	(4 * KiB)
#define MAX_SIZE	(4 * MiB)
#define POOL		(8 * MiB)
#define WINDOWS		20
#define PER_DIR		256
#define RETRIES		5

static const size_t chunks[] = { 4 * KiB, 64 * KiB, 1 * MiB };

static const char *dir, *fs, *counters;
static uint64_t rng;
static char *pool;

struct file {
	uint64_t size;
};

static struct file *files;
static unsigned int nr_files;
static unsigned int turn;	/* the next write size of chunks[] */

/* every fsync's latency of the phase, in ns */
struct lat {
	uint64_t *ns;
	size_t n, cap;
};

/* what a phase or a window started from */
struct mark {
	uint64_t t, user, prog, erased;
	size_t lat;
};

static void fail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fputs("aging: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* xorshift64*: small and the same everywhere */
static uint64_t next_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

/* log-uniform between MIN_SIZE and MAX_SIZE */
static uint64_t draw_size(void)
{
	double u = (next_rand() >> 11) * (1.0 / (1ULL << 53));

	return MIN_SIZE * exp2(u * log2((double)MAX_SIZE / MIN_SIZE));
}

static uint64_t counter(const char *name)
{
	unsigned long long v = 0;
	char path[256];
	FILE *f;

	if (!counters)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", counters, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		fail("cannot read %s", path);
	fclose(f);
	return v;
}

static void mark(struct mark *m, uint64_t user, const struct lat *l)
{
	m->t = now_ns();
	m->user = user;
	m->prog = counter("programmed_bytes");
	m->erased = counter("erased_bytes");
	m->lat = l->n;
}

static void path_of(char *buf, size_t len, unsigned int i)
{
	snprintf(buf, len, "%s/d%03u/f%06u", dir, i / PER_DIR, i);
}

static const char *data(size_t len)
{
	return pool + next_rand() % (POOL + MiB - len + 1);
}

static int timed_fsync(int fd, struct lat *l)
{
	uint64_t t0 = now_ns();

	if (fsync(fd))
		return -1;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->ns = realloc(l->ns, l->cap * sizeof(*l->ns));
		if (!l->ns)
			fail("realloc");
	}
	l->ns[l->n++] = now_ns() - t0;
	return 0;
}

/* write a file of @size at @path as the fill does; -1 with errno */
static int write_file(const char *path, uint64_t size, struct lat *l)
{
	size_t chunk = chunks[turn++ % 3];
	uint64_t done = 0;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	while (done < size) {
		size_t len = size - done < chunk ? size - done : chunk;
		ssize_t n = write(fd, data(len), len);

		if (n < 0)
			goto out;
		done += n;
	}
	if (timed_fsync(fd, l))
		goto out;
	return close(fd);
out:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Median and 99th percentile (nearest rank) of @n latencies, in us;
 * returns @n.
 */
static size_t quantiles(const uint64_t *ns, size_t n, double *med,
			double *p99)
{
	uint64_t *s;

	if (!n)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		fail("malloc");
	memcpy(s, ns, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	*med = (n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0) / 1e3;
	*p99 = s[(n * 99 + 99) / 100 - 1] / 1e3;
	free(s);
	return n;
}

/* the figures of what was done from @m to @e, named <FS>_<what>_... */
static void report(const char *what, const struct mark *m,
		   const struct mark *e, const struct lat *l)
{
	double s = (e->t - m->t) / 1e9, med, p99;
	uint64_t u = e->user - m->user;

	if (!strcmp(what, "fill") || !strcmp(what, "steady"))
		printf("# METRIC %s_%s_s %.2f s\n", fs, what, s);
	/* an operation larger than a window leaves the next one empty */
	if (!u)
		return;
	printf("# METRIC %s_%s_MiBps %.3f MiB/s\n", fs, what,
	       u / (double)MiB / s);
	if (counters) {
		printf("# METRIC %s_%s_wa %.3f\n", fs, what,
		       (e->prog - m->prog) / (double)u);
		printf("# METRIC %s_%s_erase_wa %.3f\n", fs, what,
		       (e->erased - m->erased) / (double)u);
	}
	if (quantiles(l->ns + m->lat, e->lat - m->lat, &med, &p99)) {
		printf("# METRIC %s_%s_fsync_med_us %.1f us\n", fs, what, med);
		printf("# METRIC %s_%s_fsync_p99_us %.1f us\n", fs, what, p99);
	}
	fflush(stdout);
}

static void fill(uint64_t target, struct lat *l)
{
	char path[4096];
	uint64_t total = 0;
	struct mark m, e;

	mark(&m, 0, l);
	while (total < target) {
		uint64_t size = draw_size();

		if (size > target - total)
			size = target - total;
		if (nr_files % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%03u", dir,
				 nr_files / PER_DIR);
			if (mkdir(path, 0755) && errno != EEXIST)
				fail("mkdir %s", path);
		}
		files = realloc(files, (nr_files + 1) * sizeof(*files));
		if (!files)
			fail("realloc");
		path_of(path, sizeof(path), nr_files);
		if (write_file(path, size, l))
			fail("fill: %s (%llu MiB of %llu written)", path,
			     (unsigned long long)(total / MiB),
			     (unsigned long long)(target / MiB));
		files[nr_files++].size = size;
		total += size;
	}
	mark(&e, total, l);
	printf("# METRIC %s_data_MiB %.1f MiB\n", fs, total / (double)MiB);
	printf("# METRIC %s_files %u\n", fs, nr_files);
	report("fill", &m, &e, l);
}

/* one overwrite inside a random file; the bytes written, 0 on ENOSPC */
static uint64_t overwrite(struct lat *l)
{
	unsigned int i = next_rand() % nr_files;
	uint64_t size = files[i].size, ofs;
	size_t len = chunks[turn++ % 3];
	char path[4096];
	int fd, ret = 0;

	if (len > size)
		len = size;
	ofs = next_rand() % (size - len + 1) & ~(4 * KiB - 1);
	path_of(path, sizeof(path), i);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		fail("open %s", path);
	if (pwrite(fd, data(len), len, ofs) != (ssize_t)len ||
	    timed_fsync(fd, l)) {
		if (errno != ENOSPC)
			fail("overwrite of %s", path);
		ret = -1;
	}
	close(fd);
	return ret ? 0 : len;
}

/* one whole file replaced; the bytes written, 0 on ENOSPC */
static uint64_t replace(struct lat *l)
{
	unsigned int i = next_rand() % nr_files;
	char path[4096], tmp[4096];

	path_of(path, sizeof(path), i);
	snprintf(tmp, sizeof(tmp), "%s/new", dir);
	if (write_file(tmp, files[i].size, l) || rename(tmp, path)) {
		if (errno != ENOSPC)
			fail("replacement of %s", path);
		unlink(tmp);
		return 0;
	}
	return files[i].size;
}

static void steady(uint64_t budget, struct lat *l)
{
	uint64_t user = 0, overwrites = 0, replacements = 0, enospc = 0;
	unsigned int w = 0, retries = 0;
	struct mark phase, win, end;
	char name[16];

	mark(&phase, 0, l);
	win = phase;
	while (user < budget) {
		int over = next_rand() & 1;
		uint64_t n = over ? overwrite(l) : replace(l);

		if (!n) {
			/* ENOSPC: let the file system catch up, then again */
			enospc++;
			if (++retries > RETRIES) {
				errno = ENOSPC;
				fail("steady state: %u writes in a row refused",
				     retries);
			}
			sync();
			continue;
		}
		retries = 0;
		user += n;
		if (over)
			overwrites++;
		else
			replacements++;
		while (w < WINDOWS && user >= budget / WINDOWS * (w + 1)) {
			snprintf(name, sizeof(name), "w%02u", ++w);
			mark(&end, user, l);
			report(name, &win, &end, l);
			win = end;
			printf("# %s: %u%% of the steady state, %.1f s\n", fs,
			       w * 100 / WINDOWS, (win.t - phase.t) / 1e9);
		}
	}
	mark(&end, user, l);
	report("steady", &phase, &end, l);
	printf("# METRIC %s_steady_overwrites %llu\n", fs,
	       (unsigned long long)overwrites);
	printf("# METRIC %s_steady_replacements %llu\n", fs,
	       (unsigned long long)replacements);
	printf("# METRIC %s_steady_enospc %llu\n", fs,
	       (unsigned long long)enospc);
}

int main(int argc, char **argv)
{
	struct lat fill_lat = { 0 }, steady_lat = { 0 };
	unsigned long long pct, steady_mb, seed;
	uint64_t capacity;
	struct statfs st;
	size_t i;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: aging DIR FS PCT STEADY_MB SEED "
			"[MTDCOUNT_PARAMS]\n");
		return 2;
	}
	dir = argv[1];
	fs = argv[2];
	pct = strtoull(argv[3], NULL, 0);
	steady_mb = strtoull(argv[4], NULL, 0);
	seed = strtoull(argv[5], NULL, 0);
	counters = argc == 7 ? argv[6] : NULL;
	if (!pct || pct > 100) {
		errno = EINVAL;
		fail("fill of %s%%", argv[3]);
	}
	/* splitmix64 of the seed: never the all-zero state */
	rng = seed + 0x9e3779b97f4a7c15ULL;
	rng = (rng ^ (rng >> 30)) * 0xbf58476d1ce4e5b9ULL;
	rng = (rng ^ (rng >> 27)) * 0x94d049bb133111ebULL;
	rng ^= rng >> 31;
	rng |= 1;
	pool = malloc(POOL + MiB);
	if (!pool)
		fail("malloc");
	for (i = 0; i < (POOL + MiB) / 8; i++) {
		uint64_t v = next_rand();

		memcpy(pool + 8 * i, &v, 8);
	}
	if (statfs(dir, &st))
		fail("statfs %s", dir);
	capacity = (uint64_t)st.f_bavail * st.f_bsize;
	printf("# METRIC %s_capacity_MiB %.1f MiB\n", fs,
	       capacity / (double)MiB);
	fill(capacity / 100 * pct, &fill_lat);
	steady(steady_mb * MiB, &steady_lat);
	return 0;
}
