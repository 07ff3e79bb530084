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
#include <linux/fs.h>
#include <mtd/mtd-user.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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

static int check(int ok, const char *what, const char *func, int line)
{
	if (!ok)
		printf("# %s:%d: %s failed (errno %d: %s)\n", func, line, what,
		       errno, strerror(errno));
	return ok;
}

/* A check that fails the test: "if (FAILS(cond)) return 0;" */
#define FAILS(cond)	(!check(!!(cond), #cond, __func__, __LINE__))

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

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(name, sizeof(name), "size%zu", sizes[i]);
		if (FAILS(write_file(name, i, sizes[i])))
			return 0;
		if (FAILS(check_file(name, i, sizes[i])))
			return 0;
	}
	return 1;
}

static int t_truncate(void)
{
	unsigned char buf[8192];
	struct stat st;
	int fd, i;

	if (FAILS(write_file("trunc", 7, 10000)))
		return 0;
	if (FAILS(truncate(path("trunc"), 5000) == 0))
		return 0;
	if (FAILS(truncate(path("trunc"), 9000) == 0))
		return 0;
	if (FAILS(stat(path("trunc"), &st) == 0 && st.st_size == 9000))
		return 0;
	fd = open(path("trunc"), O_RDONLY);
	if (FAILS(fd >= 0))
		return 0;
	if (FAILS(read(fd, buf, sizeof(buf)) == sizeof(buf)))
		return 0;
	close(fd);
	for (i = 0; i < 5000; i++)
		if (FAILS(buf[i] == pattern(7, i)))
			return 0;
	/* what was cut off must not come back when the file grows */
	for (i = 5000; i < 8192; i++)
		if (FAILS(buf[i] == 0))
			return 0;
	if (FAILS(truncate(path("trunc"), 0) == 0))
		return 0;
	if (FAILS(stat(path("trunc"), &st) == 0 && st.st_size == 0))
		return 0;
	return 1;
}

/* The hole at 3 GiB reads as zeroes, the block past 5 GiB as written */
static int check_sparse(int fd)
{
	char buf[4096], zero[4096] = { 0 };

	if (FAILS(pread(fd, buf, sizeof(buf), 3ULL << 30) == sizeof(buf)))
		return 0;
	if (FAILS(!memcmp(buf, zero, sizeof(buf))))
		return 0;
	if (FAILS(pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "head", 4)))
		return 0;
	if (FAILS(pread(fd, buf, sizeof(buf), SPARSE_OFF) == sizeof(buf)))
		return 0;
	memset(zero, 'x', sizeof(zero));
	if (FAILS(!memcmp(buf, zero, sizeof(buf))))
		return 0;
	return 1;
}

static int t_sparse_5g(void)
{
	char buf[4096];
	struct stat st;
	int fd;

	memset(buf, 'x', sizeof(buf));
	fd = open(path("sparse"), O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (FAILS(fd >= 0))
		return 0;
	if (FAILS(pwrite(fd, buf, sizeof(buf), SPARSE_OFF) == sizeof(buf)))
		return 0;
	if (FAILS(pwrite(fd, "head", 4, 0) == 4))
		return 0;
	if (FAILS(fstat(fd, &st) == 0 && st.st_size == SPARSE_OFF + 4096))
		return 0;
	/* from the page cache here; v_state() reads it from the flash */
	if (FAILS(check_sparse(fd)))
		return 0;
	if (FAILS(close(fd) == 0))
		return 0;
	return 1;
}

static int t_rename(void)
{
	struct stat a, b;

	if (FAILS(write_file("ren_a", 1, 3000)))
		return 0;
	if (FAILS(rename(path("ren_a"), path("ren_b")) == 0))
		return 0;
	if (FAILS(access(path("ren_a"), F_OK) && errno == ENOENT))
		return 0;
	if (FAILS(check_file("ren_b", 1, 3000)))
		return 0;

	/* replace: the target is atomically the source */
	if (FAILS(write_file("ren_c", 2, 5000)))
		return 0;
	if (FAILS(rename(path("ren_c"), path("ren_b")) == 0))
		return 0;
	if (FAILS(check_file("ren_b", 2, 5000)))
		return 0;

	/* RENAME_NOREPLACE */
	if (FAILS(write_file("ren_d", 3, 100)))
		return 0;
	if (FAILS(renameat2(AT_FDCWD, path("ren_d"), AT_FDCWD, path("ren_b"),
			    RENAME_NOREPLACE) == -1 && errno == EEXIST))
		return 0;
	if (FAILS(renameat2(AT_FDCWD, path("ren_d"), AT_FDCWD, path("ren_e"),
			    RENAME_NOREPLACE) == 0))
		return 0;
	if (FAILS(check_file("ren_e", 3, 100)))
		return 0;

	/* RENAME_EXCHANGE, a file with a file, then a file with a directory */
	if (FAILS(renameat2(AT_FDCWD, path("ren_b"), AT_FDCWD, path("ren_e"),
			    RENAME_EXCHANGE) == 0))
		return 0;
	if (FAILS(check_file("ren_b", 3, 100) && check_file("ren_e", 2, 5000)))
		return 0;
	if (FAILS(mkdir(path("ren_dir"), 0755) == 0))
		return 0;
	if (FAILS(write_file("ren_dir/inside", 4, 10)))
		return 0;
	if (FAILS(stat(path("ren_dir"), &a) == 0))
		return 0;
	if (FAILS(renameat2(AT_FDCWD, path("ren_dir"), AT_FDCWD, path("ren_b"),
			    RENAME_EXCHANGE) == 0))
		return 0;
	if (FAILS(stat(path("ren_b"), &b) == 0 && S_ISDIR(b.st_mode) &&
		  b.st_ino == a.st_ino))
		return 0;
	if (FAILS(check_file("ren_b/inside", 4, 10)))
		return 0;
	if (FAILS(check_file("ren_dir", 3, 100)))
		return 0;

	/* a directory moves into another, and replaces an empty one */
	if (FAILS(mkdir(path("ren_sub"), 0755) == 0))
		return 0;
	if (FAILS(mkdir(path("ren_sub/empty"), 0755) == 0))
		return 0;
	if (FAILS(rename(path("ren_b"), path("ren_sub/empty")) == 0))
		return 0;
	if (FAILS(check_file("ren_sub/empty/inside", 4, 10)))
		return 0;
	if (FAILS(stat(path("ren_sub"), &b) == 0 && b.st_nlink == 3))
		return 0;
	/* a non-empty directory is not replaced */
	if (FAILS(mkdir(path("ren_full"), 0755) == 0))
		return 0;
	if (FAILS(rename(path("ren_full"), path("ren_sub/empty")) == -1 &&
		  (errno == ENOTEMPTY || errno == EEXIST)))
		return 0;
	return 1;
}

static int t_links(void)
{
	struct stat a, b;
	char target[256];
	ssize_t n;

	if (FAILS(write_file("link_a", 5, 1234)))
		return 0;
	if (FAILS(link(path("link_a"), path("link_b")) == 0))
		return 0;
	if (FAILS(stat(path("link_a"), &a) == 0 && stat(path("link_b"), &b) == 0))
		return 0;
	if (FAILS(a.st_ino == b.st_ino && a.st_nlink == 2))
		return 0;
	if (FAILS(unlink(path("link_a")) == 0))
		return 0;
	if (FAILS(stat(path("link_b"), &b) == 0 && b.st_nlink == 1))
		return 0;
	if (FAILS(check_file("link_b", 5, 1234)))
		return 0;
	if (FAILS(link(path("link_b"), path("link_c")) == 0))
		return 0;

	if (FAILS(symlink("link_b", path("sym")) == 0))
		return 0;
	n = readlink(path("sym"), target, sizeof(target));
	if (FAILS(n == 6 && !memcmp(target, "link_b", 6)))
		return 0;
	if (FAILS(check_file("sym", 5, 1234)))
		return 0;
	return 1;
}

static int t_special(void)
{
	struct stat st;

	if (FAILS(mkfifo(path("fifo"), 0600) == 0))
		return 0;
	if (FAILS(mknod(path("chr"), S_IFCHR | 0600, makedev(1, 3)) == 0))
		return 0;
	if (FAILS(mknod(path("blk"), S_IFBLK | 0600, makedev(259, 300000)) == 0))
		return 0;
	/* what bind() of a unix socket makes; small kernels lack sockets */
	if (FAILS(mknod(path("sock"), S_IFSOCK | 0600, 0) == 0))
		return 0;
	if (FAILS(stat(path("fifo"), &st) == 0 && S_ISFIFO(st.st_mode)))
		return 0;
	if (FAILS(stat(path("chr"), &st) == 0 && S_ISCHR(st.st_mode) &&
		  st.st_rdev == makedev(1, 3)))
		return 0;
	if (FAILS(stat(path("blk"), &st) == 0 && S_ISBLK(st.st_mode) &&
		  st.st_rdev == makedev(259, 300000)))
		return 0;
	if (FAILS(stat(path("sock"), &st) == 0 && S_ISSOCK(st.st_mode)))
		return 0;
	return 1;
}

static int t_mmap_shared(void)
{
	size_t len = 3 * 4096 + 100;
	unsigned char *m;
	size_t i;
	int fd;

	if (FAILS(write_file("mmap", 9, len)))
		return 0;
	fd = open(path("mmap"), O_RDWR);
	if (FAILS(fd >= 0))
		return 0;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (FAILS(m != MAP_FAILED))
		return 0;
	for (i = 0; i < len; i++)
		m[i] = pattern(10, i);
	if (FAILS(msync(m, len, MS_SYNC) == 0))
		return 0;
	if (FAILS(munmap(m, len) == 0))
		return 0;
	if (FAILS(close(fd) == 0))
		return 0;
	if (FAILS(check_file("mmap", 10, len)))
		return 0;
	return 1;
}

static int t_attrs(void)
{
	struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 123456789 },
		{ .tv_sec = 1700000000, .tv_nsec = 987654321 },
	};
	struct stat st;

	if (FAILS(write_file("attrs", 11, 10)))
		return 0;
	if (FAILS(chmod(path("attrs"), 0604) == 0))
		return 0;
	if (FAILS(chown(path("attrs"), 1234, 5678) == 0))
		return 0;
	if (FAILS(utimensat(AT_FDCWD, path("attrs"), ts, 0) == 0))
		return 0;
	if (FAILS(stat(path("attrs"), &st) == 0))
		return 0;
	if (FAILS((st.st_mode & 07777) == 0604))
		return 0;
	if (FAILS(st.st_uid == 1234 && st.st_gid == 5678))
		return 0;
	if (FAILS(st.st_atim.tv_sec == ts[0].tv_sec &&
		  st.st_atim.tv_nsec == ts[0].tv_nsec))
		return 0;
	if (FAILS(st.st_mtim.tv_sec == ts[1].tv_sec &&
		  st.st_mtim.tv_nsec == ts[1].tv_nsec))
		return 0;
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

	if (FAILS(mkdir(path("big"), 0755) == 0))
		return 0;
	for (i = 0; i < BIG_DIR_ENTRIES; i++) {
		snprintf(name, sizeof(name), "big/entry-%d", i);
		fd = open(path(name), O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (FAILS(fd >= 0))
			return 0;
		close(fd);
	}
	if (FAILS(count_entries("big") == BIG_DIR_ENTRIES))
		return 0;
	for (i = 0; i < BIG_DIR_ENTRIES; i += 997) {
		snprintf(name, sizeof(name), "big/entry-%d", i);
		if (FAILS(stat(path(name), &st) == 0 && S_ISREG(st.st_mode)))
			return 0;
	}
	if (FAILS(stat(path("big/entry-20000"), &st) == -1 && errno == ENOENT))
		return 0;
	for (i = 0; i < BIG_DIR_ENTRIES; i += 2) {
		snprintf(name, sizeof(name), "big/entry-%d", i);
		if (FAILS(unlink(path(name)) == 0))
			return 0;
	}
	if (FAILS(count_entries("big") == BIG_DIR_ENTRIES / 2))
		return 0;
	if (FAILS(rmdir(path("big")) == -1 && errno == ENOTEMPTY))
		return 0;
	return 1;
}

static int t_unlinked_open(void)
{
	char buf[100];
	int fd;

	if (FAILS(write_file("doomed", 12, 100)))
		return 0;
	fd = open(path("doomed"), O_RDONLY);
	if (FAILS(fd >= 0))
		return 0;
	if (FAILS(unlink(path("doomed")) == 0))
		return 0;
	if (FAILS(read(fd, buf, sizeof(buf)) == 100 && buf[5] == (char)pattern(12, 5)))
		return 0;
	if (FAILS(close(fd) == 0))
		return 0;
	if (FAILS(access(path("doomed"), F_OK) == -1 && errno == ENOENT))
		return 0;
	return 1;
}

/*
 * What overlayfs asks of its upper layer, through the system calls: a
 * file made with O_TMPFILE has no name until linkat() gives it one (never
 * with O_EXCL), and a rename with RENAME_WHITEOUT leaves a character
 * device 0/0 under the old name.
 */
static int t_overlay_upper(void)
{
	struct stat st;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (FAILS(fd >= 0))
		return 0;
	if (FAILS(write(fd, "tmpfile", 7) == 7 && fstat(fd, &st) == 0 &&
		  st.st_nlink == 0))
		return 0;
	if (FAILS(linkat(fd, "", AT_FDCWD, path("tmp_named"),
			 AT_EMPTY_PATH) == 0))
		return 0;
	if (FAILS(fstat(fd, &st) == 0 && st.st_nlink == 1 && st.st_size == 7))
		return 0;
	if (FAILS(close(fd) == 0))
		return 0;
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL, 0600);
	if (FAILS(fd >= 0))
		return 0;
	if (FAILS(linkat(fd, "", AT_FDCWD, path("tmp_excl"),
			 AT_EMPTY_PATH) == -1 && errno == ENOENT))
		return 0;
	close(fd);
	if (FAILS(access(path("tmp_excl"), F_OK) == -1 && errno == ENOENT))
		return 0;

	if (FAILS(write_file("wh_a", 20, 1000)))
		return 0;
	if (FAILS(renameat2(AT_FDCWD, path("wh_a"), AT_FDCWD, path("wh_b"),
			    RENAME_WHITEOUT) == 0))
		return 0;
	if (FAILS(stat(path("wh_a"), &st) == 0 && S_ISCHR(st.st_mode) &&
		  st.st_rdev == makedev(0, 0)))
		return 0;
	if (FAILS(check_file("wh_b", 20, 1000)))
		return 0;
	return 1;
}

static int t_sync_and_statfs(void)
{
	struct statfs before, after;
	int fd;

	if (FAILS(statfs(dir, &before) == 0))
		return 0;
	if (FAILS(write_file("synced", 13, 4 << 20)))
		return 0;
	fd = open(path("synced"), O_RDWR);
	if (FAILS(fd >= 0))
		return 0;
	if (FAILS(fsync(fd) == 0 && fdatasync(fd) == 0 && syncfs(fd) == 0))
		return 0;
	close(fd);
	if (FAILS(statfs(dir, &after) == 0))
		return 0;
	/*
	 * 4 MiB written must show.  Not to the block: a commit in between
	 * may write a smaller index than the one it makes obsolete, and
	 * dead bytes count as space, which garbage collection reclaims; a
	 * commit rewrites at most 256 index nodes (512 KiB).
	 */
	if (FAILS(after.f_bfree + 768 <= before.f_bfree))
		return 0;
	if (FAILS(after.f_namelen == 255))
		return 0;
	return 1;
}

static int t_rmdir_and_errors(void)
{
	char longname[300];

	if (FAILS(mkdir(path("gone"), 0755) == 0))
		return 0;
	if (FAILS(rmdir(path("gone")) == 0))
		return 0;
	if (FAILS(mkdir(path("sym"), 0755) == -1 && errno == EEXIST))
		return 0;
	memset(longname, 'n', 256);
	longname[256] = 0;
	if (FAILS(open(path(longname), O_CREAT | O_WRONLY, 0644) == -1 &&
		  errno == ENAMETOOLONG))
		return 0;
	return 1;
}

static int t_xattr(void)
{
	char big[3000], buf[4096];
	ssize_t n;

	memset(big, 'v', sizeof(big));
	if (FAILS(write_file("xattrs", 14, 10)))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "user.small", "1", 1, 0) == 0))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "user.big", big, sizeof(big), 0) == 0))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "trusted.t", "tt", 2, 0) == 0))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "user.small", "2", 1, XATTR_CREATE) ==
		  -1 && errno == EEXIST))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "user.none", "2", 1, XATTR_REPLACE) ==
		  -1 && errno == ENODATA))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "user.small", "22", 2, XATTR_REPLACE) ==
		  0))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "user.small", buf, sizeof(buf)) == 2 &&
		  !memcmp(buf, "22", 2)))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "user.big", buf, 10) == -1 &&
		  errno == ERANGE))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "user.big", buf, sizeof(buf)) ==
		  sizeof(big) && !memcmp(buf, big, sizeof(big))))
		return 0;
	n = listxattr(path("xattrs"), buf, sizeof(buf));
	if (FAILS(n == (ssize_t)(sizeof("user.small") + sizeof("user.big") +
				 sizeof("trusted.t"))))
		return 0;
	if (FAILS(setxattr(path("xattrs"), "user.gone", "x", 1, 0) == 0))
		return 0;
	if (FAILS(removexattr(path("xattrs"), "user.gone") == 0))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "user.gone", buf, sizeof(buf)) == -1 &&
		  errno == ENODATA))
		return 0;
	if (FAILS(removexattr(path("xattrs"), "user.gone") == -1 &&
		  errno == ENODATA))
		return 0;
	if (FAILS(mkdir(path("xdir"), 0755) == 0))
		return 0;
	if (FAILS(setxattr(path("xdir"), "user.d", "dir", 3, 0) == 0))
		return 0;
	return 1;
}

/*
 * What a 1 MiB file of text takes, as statfs sees it: in blocks of 4 KiB
 * of data, each standing for the flash a raw data node of 4 KiB takes
 */
static long long text_file_cost(const char *name, int nocomp)
{
	static char buf[1 << 20];
	struct statfs a, b;
	int fd, flags, i;

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = "the quick brown fox jumps over the lazy dog\n"[i % 44];
	fd = open(path(name), O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return -1;
	if (nocomp) {
		flags = (flags & ~FS_COMPR_FL) | FS_NOCOMP_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
			return -1;
	}
	if (fsync(fd) || statfs(dir, &a) ||
	    write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd) ||
	    statfs(dir, &b) || close(fd))
		return -1;
	return (long long)(a.f_bfree - b.f_bfree) * a.f_bsize;
}

static int t_compression(void)
{
	long long packed, raw;
	int fd, flags = 0;

	fd = open(path("size1"), O_RDONLY);
	if (FAILS(fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0))
		return 0;
	close(fd);
	printf("# default flags %#x\n", flags);
	packed = text_file_cost("text_packed", 0);
	raw = text_file_cost("text_raw", 1);
	printf("# 1 MiB of text: %lld bytes compressed, %lld raw\n",
	       packed, raw);
	if (FAILS(packed >= 0 && raw >= 0))
		return 0;
	/* raw, it takes its size, less a few blocks a commit may give back */
	if (FAILS(raw >= (1 << 20) - 4 * 4096))
		return 0;
	if (FAILS(packed * 4 < raw))
		return 0;
	fd = open(path("text_raw"), O_RDONLY);
	if (FAILS(fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0))
		return 0;
	close(fd);
	if (FAILS(flags & FS_NOCOMP_FL))
		return 0;
	return 1;
}

/* The state t_* leave, checked again after a remount */
static int v_state(void)
{
	struct stat st;
	char target[64];
	int fd, ok;

	if (FAILS(check_file("size4097", 4, 4097)))
		return 0;
	if (FAILS(check_file("size1048576", 6, 1 << 20)))
		return 0;
	if (FAILS(stat(path("sparse"), &st) == 0 && st.st_size == SPARSE_OFF + 4096))
		return 0;
	fd = open(path("sparse"), O_RDONLY);
	if (FAILS(fd >= 0))
		return 0;
	ok = check_sparse(fd);
	close(fd);
	if (FAILS(ok))
		return 0;
	if (FAILS(check_file("ren_dir", 3, 100) && check_file("ren_e", 2, 5000)))
		return 0;
	if (FAILS(check_file("ren_sub/empty/inside", 4, 10)))
		return 0;
	if (FAILS(stat(path("link_b"), &st) == 0 && st.st_nlink == 2))
		return 0;
	if (FAILS(readlink(path("sym"), target, sizeof(target)) == 6))
		return 0;
	if (FAILS(stat(path("blk"), &st) == 0 && st.st_rdev == makedev(259, 300000)))
		return 0;
	if (FAILS(stat(path("fifo"), &st) == 0 && S_ISFIFO(st.st_mode)))
		return 0;
	if (FAILS(check_file("mmap", 10, 3 * 4096 + 100)))
		return 0;
	if (FAILS(stat(path("attrs"), &st) == 0 && st.st_uid == 1234 &&
		  st.st_mtim.tv_nsec == 987654321))
		return 0;
	if (FAILS(count_entries("big") == BIG_DIR_ENTRIES / 2))
		return 0;
	if (FAILS(access(path("doomed"), F_OK) == -1 && errno == ENOENT))
		return 0;
	if (FAILS(access(path("ren_a"), F_OK) == -1 && errno == ENOENT))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "user.small", target, sizeof(target)) ==
		  2 && !memcmp(target, "22", 2)))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "trusted.t", target, sizeof(target)) ==
		  2))
		return 0;
	if (FAILS(getxattr(path("xattrs"), "user.gone", target, sizeof(target)) ==
		  -1 && errno == ENODATA))
		return 0;
	if (FAILS(getxattr(path("xdir"), "user.d", target, sizeof(target)) == 3))
		return 0;
	if (FAILS(stat(path("text_packed"), &st) == 0 && st.st_size == 1 << 20))
		return 0;
	if (FAILS(stat(path("tmp_named"), &st) == 0 && st.st_size == 7 &&
		  st.st_nlink == 1))
		return 0;
	if (FAILS(stat(path("wh_a"), &st) == 0 && S_ISCHR(st.st_mode) &&
		  st.st_rdev == makedev(0, 0)))
		return 0;
	if (FAILS(check_file("wh_b", 20, 1000)))
		return 0;
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
	if (FAILS(fd >= 0))
		return 0;
	for (;;) {
		buf[0]++;	/* no two blocks alike */
		n = write(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		total += n;
	}
	if (FAILS(n == -1 && errno == ENOSPC))
		return 0;
	printf("# wrote %llu MiB before ENOSPC\n", total >> 20);
	if (FAILS(fsync(fd) == 0))
		return 0;
	if (FAILS(close(fd) == 0))
		return 0;
	if (FAILS(statfs(dir, &sf) == 0))
		return 0;
	printf("# statfs after ENOSPC: %llu of %llu blocks free\n",
	       (unsigned long long)sf.f_bfree, (unsigned long long)sf.f_blocks);
	/*
	 * Still usable: a truncation and a deletion free space and must
	 * work on a full device (they may use half the reserve); a
	 * directory then fits in the space they freed.
	 */
	if (FAILS(truncate(path("filler"), 4096) == 0))
		return 0;
	if (FAILS(unlink(path("filler")) == 0))
		return 0;
	if (FAILS(mkdir(path("after_enospc"), 0755) == 0))
		return 0;
	return 1;
}

/*
 * Mark erase blocks @blocks of the MTD device @dev bad (MEMSETBADBLOCK), as
 * a factory bad block table would have them: the test of an image written
 * by a flasher that skips bad blocks needs some under the image.
 */
static int markbad(const char *dev, char **blocks, int n)
{
	struct mtd_info_user mi;
	int fd = open(dev, O_RDWR), i;

	if (fd < 0 || ioctl(fd, MEMGETINFO, &mi)) {
		perror(dev);
		return 1;
	}
	for (i = 0; i < n; i++) {
		loff_t offs = (loff_t)strtoul(blocks[i], NULL, 0) * mi.erasesize;

		if (ioctl(fd, MEMSETBADBLOCK, &offs) ||
		    ioctl(fd, MEMGETBADBLOCK, &offs) != 1) {
			fprintf(stderr, "%s: block %s not marked bad: %s\n", dev,
				blocks[i], strerror(errno));
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
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
		{ "O_TMPFILE, linkat, RENAME_WHITEOUT", t_overlay_upper },
		{ "fsync, fdatasync, syncfs, statfs", t_sync_and_statfs },
		{ "rmdir and error cases", t_rmdir_and_errors },
		{ "extended attributes: user, trusted", t_xattr },
		{ "compression per file, raw when asked", t_compression },
	};
	unsigned int i;
	struct timespec now;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		printf("%lld\n", now.tv_sec * 1000000000LL + now.tv_nsec);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "markbad"))
		return markbad(argv[2], argv + 3, argc - 3);
	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR posix|verify|fill\n"
			"       %s markbad /dev/mtdN BLOCK...\n", argv[0], argv[0]);
		return 2;
	}
	dir = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "posix")) {
		for (i = 0; i < ARRAY_SIZE(posix); i++)
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
