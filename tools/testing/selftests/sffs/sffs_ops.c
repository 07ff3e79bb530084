// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX checks of a mounted flash file system, as TAP.
 *
 *   sffs_ops DIR posix    run every check in DIR, leaving a known state
 *   sffs_ops DIR verify   check that state, after a remount
 *   sffs_ops DIR fill     write until ENOSPC, check the file system works
 *   sffs_ops now          print CLOCK_MONOTONIC in nanoseconds (timing)
 *
 * Written for SFFS, but it only uses system calls: it runs on any file
 * system that claims POSIX semantics, which is how its checks are checked.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	(1 << 0)
#define RENAME_EXCHANGE		(1 << 1)
#endif

#define BIG_DIR_ENTRIES	20000
#define SPARSE_OFF	(5ULL << 30)

static int testnum, nfail;
static const char *dir;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++testnum);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		nfail++;
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: %s failed (errno %d: %s)\n", __func__,	\
		       __LINE__, #cond, errno, strerror(errno));	\
		return 0;						\
	}								\
} while (0)

static char *path(const char *name)
{
	static char buf[4][4096];
	static int n;

	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", dir, name);
	return buf[n];
}

/* Deterministic contents: byte i of a file seeded s */
static unsigned char pattern(unsigned int s, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ s;

	x ^= x >> 29;
	return (unsigned char)(x * 0xbf58476d1ce4e5b9ULL >> 56);
}

static int write_file(const char *name, unsigned int seed, size_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	size_t i;
	int fd, ok;

	if (!buf)
		return 0;
	for (i = 0; i < len; i++)
		buf[i] = pattern(seed, i);
	fd = open(path(name), O_CREAT | O_TRUNC | O_WRONLY, 0644);
	ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len && !close(fd);
	free(buf);
	return ok;
}

static int check_file(const char *name, unsigned int seed, size_t len)
{
	unsigned char *buf = malloc(len + 1);
	size_t i;
	ssize_t got;
	int fd;

	if (!buf)
		return 0;
	fd = open(path(name), O_RDONLY);
	got = fd >= 0 ? read(fd, buf, len + 1) : -1;
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)len) {
		printf("# %s: read %zd bytes, expected %zu\n", name, got, len);
		free(buf);
		return 0;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] != pattern(seed, i)) {
			printf("# %s: byte %zu differs\n", name, i);
			free(buf);
			return 0;
		}
	}
	free(buf);
	return 1;
}

static int t_write_read(void)
{
	static const size_t sizes[] = { 0, 1, 4095, 4096, 4097, 65536 + 17,
					1 << 20 };
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(name, sizeof(name), "size%zu", sizes[i]);
		CHECK(write_file(name, i, sizes[i]));
		CHECK(check_file(name, i, sizes[i]));
	}
	return 1;
}

static int t_truncate(void)
{
	unsigned char buf[8192];
	struct stat st;
	int fd, i;

	CHECK(write_file("trunc", 7, 10000));
	CHECK(truncate(path("trunc"), 5000) == 0);
	CHECK(truncate(path("trunc"), 9000) == 0);
	CHECK(stat(path("trunc"), &st) == 0 && st.st_size == 9000);
	fd = open(path("trunc"), O_RDONLY);
	CHECK(fd >= 0);
	CHECK(read(fd, buf, sizeof(buf)) == sizeof(buf));
	close(fd);
	for (i = 0; i < 5000; i++)
		CHECK(buf[i] == pattern(7, i));
	/* what was cut off must not come back when the file grows */
	for (i = 5000; i < 8192; i++)
		CHECK(buf[i] == 0);
	CHECK(truncate(path("trunc"), 0) == 0);
	CHECK(stat(path("trunc"), &st) == 0 && st.st_size == 0);
	return 1;
}

static int t_sparse_5g(void)
{
	char buf[4096], zero[4096] = { 0 };
	struct stat st;
	int fd;

	memset(buf, 'x', sizeof(buf));
	fd = open(path("sparse"), O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, buf, sizeof(buf), SPARSE_OFF) == sizeof(buf));
	CHECK(pwrite(fd, "head", 4, 0) == 4);
	CHECK(fstat(fd, &st) == 0 && st.st_size == SPARSE_OFF + 4096);
	CHECK(pread(fd, buf, sizeof(buf), 3ULL << 30) == sizeof(buf));
	CHECK(!memcmp(buf, zero, sizeof(buf)));
	CHECK(pread(fd, buf, sizeof(buf), SPARSE_OFF) == sizeof(buf));
	CHECK(buf[0] == 'x' && buf[4095] == 'x');
	CHECK(close(fd) == 0);
	return 1;
}

static int t_rename(void)
{
	struct stat a, b;

	CHECK(write_file("ren_a", 1, 3000));
	CHECK(rename(path("ren_a"), path("ren_b")) == 0);
	CHECK(access(path("ren_a"), F_OK) && errno == ENOENT);
	CHECK(check_file("ren_b", 1, 3000));

	/* replace: the target is atomically the source */
	CHECK(write_file("ren_c", 2, 5000));
	CHECK(rename(path("ren_c"), path("ren_b")) == 0);
	CHECK(check_file("ren_b", 2, 5000));

	/* RENAME_NOREPLACE */
	CHECK(write_file("ren_d", 3, 100));
	CHECK(renameat2(AT_FDCWD, path("ren_d"), AT_FDCWD, path("ren_b"),
			RENAME_NOREPLACE) == -1 && errno == EEXIST);
	CHECK(renameat2(AT_FDCWD, path("ren_d"), AT_FDCWD, path("ren_e"),
			RENAME_NOREPLACE) == 0);
	CHECK(check_file("ren_e", 3, 100));

	/* RENAME_EXCHANGE, a file with a file, then a file with a directory */
	CHECK(renameat2(AT_FDCWD, path("ren_b"), AT_FDCWD, path("ren_e"),
			RENAME_EXCHANGE) == 0);
	CHECK(check_file("ren_b", 3, 100) && check_file("ren_e", 2, 5000));
	CHECK(mkdir(path("ren_dir"), 0755) == 0);
	CHECK(write_file("ren_dir/inside", 4, 10));
	CHECK(stat(path("ren_dir"), &a) == 0);
	CHECK(renameat2(AT_FDCWD, path("ren_dir"), AT_FDCWD, path("ren_b"),
			RENAME_EXCHANGE) == 0);
	CHECK(stat(path("ren_b"), &b) == 0 && S_ISDIR(b.st_mode) &&
	      b.st_ino == a.st_ino);
	CHECK(check_file("ren_b/inside", 4, 10));
	CHECK(check_file("ren_dir", 3, 100));

	/* a directory moves into another, and replaces an empty one */
	CHECK(mkdir(path("ren_sub"), 0755) == 0);
	CHECK(mkdir(path("ren_sub/empty"), 0755) == 0);
	CHECK(rename(path("ren_b"), path("ren_sub/empty")) == 0);
	CHECK(check_file("ren_sub/empty/inside", 4, 10));
	CHECK(stat(path("ren_sub"), &b) == 0 && b.st_nlink == 3);
	/* a non-empty directory is not replaced */
	CHECK(mkdir(path("ren_full"), 0755) == 0);
	CHECK(rename(path("ren_full"), path("ren_sub/empty")) == -1 &&
	      (errno == ENOTEMPTY || errno == EEXIST));
	return 1;
}

static int t_links(void)
{
	struct stat a, b;
	char target[256];
	ssize_t n;

	CHECK(write_file("link_a", 5, 1234));
	CHECK(link(path("link_a"), path("link_b")) == 0);
	CHECK(stat(path("link_a"), &a) == 0 && stat(path("link_b"), &b) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_nlink == 2);
	CHECK(unlink(path("link_a")) == 0);
	CHECK(stat(path("link_b"), &b) == 0 && b.st_nlink == 1);
	CHECK(check_file("link_b", 5, 1234));
	CHECK(link(path("link_b"), path("link_c")) == 0);

	CHECK(symlink("link_b", path("sym")) == 0);
	n = readlink(path("sym"), target, sizeof(target));
	CHECK(n == 6 && !memcmp(target, "link_b", 6));
	CHECK(check_file("sym", 5, 1234));
	return 1;
}

static int t_special(void)
{
	struct stat st;

	CHECK(mkfifo(path("fifo"), 0600) == 0);
	CHECK(mknod(path("chr"), S_IFCHR | 0600, makedev(1, 3)) == 0);
	CHECK(mknod(path("blk"), S_IFBLK | 0600, makedev(259, 300000)) == 0);
	/* what bind() of a unix socket makes; small kernels lack sockets */
	CHECK(mknod(path("sock"), S_IFSOCK | 0600, 0) == 0);
	CHECK(stat(path("fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(stat(path("chr"), &st) == 0 && S_ISCHR(st.st_mode) &&
	      st.st_rdev == makedev(1, 3));
	CHECK(stat(path("blk"), &st) == 0 && S_ISBLK(st.st_mode) &&
	      st.st_rdev == makedev(259, 300000));
	CHECK(stat(path("sock"), &st) == 0 && S_ISSOCK(st.st_mode));
	return 1;
}

static int t_mmap_shared(void)
{
	size_t len = 3 * 4096 + 100;
	unsigned char *m;
	size_t i;
	int fd;

	CHECK(write_file("mmap", 9, len));
	fd = open(path("mmap"), O_RDWR);
	CHECK(fd >= 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	for (i = 0; i < len; i++)
		m[i] = pattern(10, i);
	CHECK(msync(m, len, MS_SYNC) == 0);
	CHECK(munmap(m, len) == 0);
	CHECK(close(fd) == 0);
	CHECK(check_file("mmap", 10, len));
	return 1;
}

static int t_attrs(void)
{
	struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 123456789 },
		{ .tv_sec = 1700000000, .tv_nsec = 987654321 },
	};
	struct stat st;

	CHECK(write_file("attrs", 11, 10));
	CHECK(chmod(path("attrs"), 0604) == 0);
	CHECK(chown(path("attrs"), 1234, 5678) == 0);
	CHECK(utimensat(AT_FDCWD, path("attrs"), ts, 0) == 0);
	CHECK(stat(path("attrs"), &st) == 0);
	CHECK((st.st_mode & 07777) == 0604);
	CHECK(st.st_uid == 1234 && st.st_gid == 5678);
	CHECK(st.st_atim.tv_sec == ts[0].tv_sec &&
	      st.st_atim.tv_nsec == ts[0].tv_nsec);
	CHECK(st.st_mtim.tv_sec == ts[1].tv_sec &&
	      st.st_mtim.tv_nsec == ts[1].tv_nsec);
	return 1;
}

static int count_entries(const char *name)
{
	DIR *d = opendir(path(name));
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int t_big_dir(void)
{
	char name[64];
	struct stat st;
	int i, fd;

	CHECK(mkdir(path("big"), 0755) == 0);
	for (i = 0; i < BIG_DIR_ENTRIES; i++) {
		snprintf(name, sizeof(name), "big/entry-%d", i);
		fd = open(path(name), O_CREAT | O_EXCL | O_WRONLY, 0644);
		CHECK(fd >= 0);
		close(fd);
	}
	CHECK(count_entries("big") == BIG_DIR_ENTRIES);
	for (i = 0; i < BIG_DIR_ENTRIES; i += 997) {
		snprintf(name, sizeof(name), "big/entry-%d", i);
		CHECK(stat(path(name), &st) == 0 && S_ISREG(st.st_mode));
	}
	CHECK(stat(path("big/entry-20000"), &st) == -1 && errno == ENOENT);
	for (i = 0; i < BIG_DIR_ENTRIES; i += 2) {
		snprintf(name, sizeof(name), "big/entry-%d", i);
		CHECK(unlink(path(name)) == 0);
	}
	CHECK(count_entries("big") == BIG_DIR_ENTRIES / 2);
	CHECK(rmdir(path("big")) == -1 && errno == ENOTEMPTY);
	return 1;
}

static int t_unlinked_open(void)
{
	char buf[100];
	int fd;

	CHECK(write_file("doomed", 12, 100));
	fd = open(path("doomed"), O_RDONLY);
	CHECK(fd >= 0);
	CHECK(unlink(path("doomed")) == 0);
	CHECK(read(fd, buf, sizeof(buf)) == 100 && buf[5] == (char)pattern(12, 5));
	CHECK(close(fd) == 0);
	CHECK(access(path("doomed"), F_OK) == -1 && errno == ENOENT);
	return 1;
}

static int t_sync_and_statfs(void)
{
	struct statfs before, after;
	int fd;

	CHECK(statfs(dir, &before) == 0);
	CHECK(write_file("synced", 13, 1 << 20));
	fd = open(path("synced"), O_RDWR);
	CHECK(fd >= 0);
	CHECK(fsync(fd) == 0 && fdatasync(fd) == 0 && syncfs(fd) == 0);
	close(fd);
	CHECK(statfs(dir, &after) == 0);
	CHECK(after.f_bfree + 256 <= before.f_bfree);
	CHECK(after.f_namelen == 255);
	return 1;
}

static int t_rmdir_and_errors(void)
{
	char longname[300];

	CHECK(mkdir(path("gone"), 0755) == 0);
	CHECK(rmdir(path("gone")) == 0);
	CHECK(mkdir(path("sym"), 0755) == -1 && errno == EEXIST);
	memset(longname, 'n', 256);
	longname[256] = 0;
	CHECK(open(path(longname), O_CREAT | O_WRONLY, 0644) == -1 &&
	      errno == ENAMETOOLONG);
	return 1;
}

/* The state t_* leave, checked again after a remount */
static int v_state(void)
{
	struct stat st;
	char target[64];

	CHECK(check_file("size4097", 4, 4097));
	CHECK(check_file("size1048576", 6, 1 << 20));
	CHECK(stat(path("sparse"), &st) == 0 && st.st_size == SPARSE_OFF + 4096);
	CHECK(check_file("ren_dir", 3, 100) && check_file("ren_e", 2, 5000));
	CHECK(check_file("ren_sub/empty/inside", 4, 10));
	CHECK(stat(path("link_b"), &st) == 0 && st.st_nlink == 2);
	CHECK(readlink(path("sym"), target, sizeof(target)) == 6);
	CHECK(stat(path("blk"), &st) == 0 && st.st_rdev == makedev(259, 300000));
	CHECK(stat(path("fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK(check_file("mmap", 10, 3 * 4096 + 100));
	CHECK(stat(path("attrs"), &st) == 0 && st.st_uid == 1234 &&
	      st.st_mtim.tv_nsec == 987654321);
	CHECK(count_entries("big") == BIG_DIR_ENTRIES / 2);
	CHECK(access(path("doomed"), F_OK) == -1 && errno == ENOENT);
	CHECK(access(path("ren_a"), F_OK) == -1 && errno == ENOENT);
	return 1;
}

static int t_fill(void)
{
	static char buf[65536];
	unsigned long long total = 0;
	struct statfs sf;
	ssize_t n = 0;
	int fd, i;

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = pattern(99, i);
	fd = open(path("filler"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
	CHECK(fd >= 0);
	for (;;) {
		buf[0]++;	/* no two blocks alike */
		n = write(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		total += n;
	}
	CHECK(n == -1 && errno == ENOSPC);
	printf("# wrote %llu MiB before ENOSPC\n", total >> 20);
	CHECK(fsync(fd) == 0);
	CHECK(close(fd) == 0);
	CHECK(statfs(dir, &sf) == 0);
	printf("# statfs after ENOSPC: %llu of %llu blocks free\n",
	       (unsigned long long)sf.f_bfree, (unsigned long long)sf.f_blocks);
	/* still usable: read back, delete, make a directory */
	CHECK(truncate(path("filler"), 4096) == 0 || errno == ENOSPC);
	CHECK(unlink(path("filler")) == 0);
	CHECK(mkdir(path("after_enospc"), 0755) == 0 || errno == ENOSPC);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} posix[] = {
		{ "write and read back", t_write_read },
		{ "truncate shrinks and extends with zeroes", t_truncate },
		{ "sparse file past 5 GiB", t_sparse_5g },
		{ "rename, replace, noreplace, exchange", t_rename },
		{ "hard links and symlinks", t_links },
		{ "fifo, devices, socket", t_special },
		{ "shared writable mmap", t_mmap_shared },
		{ "mode, owner, nanosecond times", t_attrs },
		{ "directory of 20000 entries", t_big_dir },
		{ "unlinked open file stays readable", t_unlinked_open },
		{ "fsync, fdatasync, syncfs, statfs", t_sync_and_statfs },
		{ "rmdir and error cases", t_rmdir_and_errors },
	};
	unsigned int i;
	struct timespec now;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		printf("%lld\n", now.tv_sec * 1000000000LL + now.tv_nsec);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR posix|verify|fill\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "posix")) {
		for (i = 0; i < sizeof(posix) / sizeof(posix[0]); i++)
			result(posix[i].fn(), "%s", posix[i].name);
	} else if (!strcmp(argv[2], "verify")) {
		result(v_state(), "state after remount");
	} else if (!strcmp(argv[2], "fill")) {
		result(t_fill(), "fill to ENOSPC, stay usable");
	} else {
		fprintf(stderr, "%s: unknown mode %s\n", argv[0], argv[2]);
		return 2;
	}
	return nfail ? 1 : 0;
}
