// SPDX-License-Identifier: GPL-2.0
/*
 * flashctl - the few MTD and UBI operations the flash selftests need, for
 * busybox-only test systems without mtd-utils.  Run without arguments for
 * usage.  Every failure is reported on stderr and gives a non-zero exit.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <mtd/mtd-user.h>
#include <mtd/ubi-user.h>

/* Print "flashctl: <message>: <strerror(errno)>" and exit with status 1. */
static void fail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fputs("flashctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static long long parse_num(const char *s, long long max)
{
	long long val;
	char *end;

	errno = 0;
	val = strtoll(s, &end, 0);
	if (!errno && (end == s || *end || val < 0 || val > max))
		errno = EINVAL;
	if (errno)
		fail("invalid number '%s'", s);
	return val;
}

static long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		fail("clock_gettime(CLOCK_MONOTONIC)");
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmd_find(const char *name)
{
	char line[512], *q1, *q2;
	FILE *f;
	int num;

	f = fopen("/proc/mtd", "r");
	if (!f)
		fail("cannot open /proc/mtd");
	while (fgets(line, sizeof(line), f)) {
		q1 = strchr(line, '"');
		q2 = strrchr(line, '"');
		if (sscanf(line, "mtd%d:", &num) != 1 || !q1 || q2 == q1)
			continue;
		*q2 = '\0';
		if (!strcmp(q1 + 1, name)) {
			printf("%d\n", num);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	fprintf(stderr, "flashctl: no MTD device named \"%s\" in /proc/mtd\n",
		name);
	return 1;
}

/* Open an MTD character device, get its geometry and its 64-bit size. */
static int mtd_open(const char *dev, int flags, struct mtd_info_user *mi,
		    long long *size)
{
	int fd = open(dev, flags);

	if (fd < 0)
		fail("cannot open %s", dev);
	if (ioctl(fd, MEMGETINFO, mi))
		fail("MEMGETINFO on %s", dev);
	/* mtd_info_user.size has only 32 bits, SEEK_END gives the real size */
	*size = lseek(fd, 0, SEEK_END);
	if (*size < 0)
		fail("cannot get size of %s", dev);
	return fd;
}

static int cmd_info(const char *dev)
{
	struct mtd_info_user mi;
	long long size;

	close(mtd_open(dev, O_RDONLY, &mi, &size));
	printf("size=%lld erasesize=%u writesize=%u oobsize=%u type=%u\n",
	       size, mi.erasesize, mi.writesize, mi.oobsize, mi.type);
	return 0;
}

static int cmd_erase(const char *dev)
{
	long long ofs, size, erased = 0, bad = 0, failed = 0;
	struct erase_info_user64 ei;
	struct mtd_info_user mi;
	__kernel_loff_t bofs;
	int fd, ret;

	fd = mtd_open(dev, O_RDWR, &mi, &size);
	if (!mi.erasesize) {
		fprintf(stderr, "flashctl: %s has no erase size\n", dev);
		return 1;
	}
	for (ofs = 0; ofs < size; ofs += mi.erasesize) {
		bofs = ofs;
		ret = ioctl(fd, MEMGETBADBLOCK, &bofs);
		if (ret < 0 && errno != EOPNOTSUPP)
			fail("MEMGETBADBLOCK on %s at %lld", dev, ofs);
		if (ret > 0) {
			bad++;
			continue;
		}
		memset(&ei, 0, sizeof(ei));
		ei.start = ofs;
		ei.length = mi.erasesize;
		if (ioctl(fd, MEMERASE64, &ei)) {
			fprintf(stderr, "flashctl: MEMERASE64 on %s at %lld: %s\n",
				dev, ofs, strerror(errno));
			failed++;
			continue;
		}
		erased++;
	}
	close(fd);
	printf("erased=%lld bad=%lld failed=%lld\n", erased, bad, failed);
	return failed ? 1 : 0;
}

static int cmd_ubiattach(const char *mtd, const char *vid_hdr_offset)
{
	struct ubi_attach_req req;
	long long t0, t1;
	int fd;

	memset(&req, 0, sizeof(req));
	req.ubi_num = UBI_DEV_NUM_AUTO;
	req.mtd_num = parse_num(mtd, INT_MAX);
	if (vid_hdr_offset)
		req.vid_hdr_offset = parse_num(vid_hdr_offset, INT_MAX);
	fd = open("/dev/ubi_ctrl", O_RDONLY);
	if (fd < 0)
		fail("cannot open /dev/ubi_ctrl");
	t0 = now_ns();
	if (ioctl(fd, UBI_IOCATT, &req))
		fail("UBI_IOCATT of mtd%s", mtd);
	t1 = now_ns();
	close(fd);
	/* on success the kernel stores the new UBI device number in ubi_num */
	printf("ubi=%d attach_ms=%.1f\n", req.ubi_num, (t1 - t0) / 1e6);
	return 0;
}

static int cmd_ubidetach(const char *ubi)
{
	__s32 ubi_num = parse_num(ubi, INT_MAX);
	int fd;

	fd = open("/dev/ubi_ctrl", O_RDONLY);
	if (fd < 0)
		fail("cannot open /dev/ubi_ctrl");
	if (ioctl(fd, UBI_IOCDET, &ubi_num))
		fail("UBI_IOCDET of ubi%s", ubi);
	close(fd);
	return 0;
}

static long long ubi_sysfs(int ubi_num, const char *attr)
{
	char path[128];
	long long val;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/ubi/ubi%d/%s", ubi_num, attr);
	f = fopen(path, "r");
	if (!f)
		fail("cannot open %s", path);
	errno = EINVAL;
	if (fscanf(f, "%lld", &val) != 1)
		fail("cannot parse %s", path);
	fclose(f);
	return val;
}

static int cmd_ubimkvol(const char *dev, const char *name, const char *bytes)
{
	struct ubi_mkvol_req req;
	const char *base;
	int fd, ubi_num;

	memset(&req, 0, sizeof(req));
	if (bytes) {
		req.bytes = parse_num(bytes, LLONG_MAX);
	} else {
		/* use all available space of the UBI device */
		base = strrchr(dev, '/');
		base = base ? base + 1 : dev;
		errno = EINVAL;
		if (sscanf(base, "ubi%d", &ubi_num) != 1)
			fail("cannot get the UBI device number from %s", dev);
		req.bytes = ubi_sysfs(ubi_num, "avail_eraseblocks") *
			    ubi_sysfs(ubi_num, "eraseblock_size");
	}
	errno = ENAMETOOLONG;
	if (strlen(name) > UBI_MAX_VOLUME_NAME)
		fail("volume name '%s'", name);
	req.vol_id = UBI_VOL_NUM_AUTO;
	req.alignment = 1;
	req.vol_type = UBI_DYNAMIC_VOLUME;
	req.name_len = strlen(name);
	memcpy(req.name, name, req.name_len);
	fd = open(dev, O_RDONLY);
	if (fd < 0)
		fail("cannot open %s", dev);
	if (ioctl(fd, UBI_IOCMKVOL, &req))
		fail("UBI_IOCMKVOL of %lld bytes on %s", (long long)req.bytes,
		     dev);
	close(fd);
	printf("vol_id=%d bytes=%lld\n", req.vol_id, (long long)req.bytes);
	return 0;
}

/*
 * Time the mount(2) call alone, so that benchmarks compare file systems
 * without the cost of starting a mount program in between.
 */
static int cmd_mount(const char *type, const char *src, const char *dir,
		     const char *opts)
{
	long long t0, t1;

	t0 = now_ns();
	if (mount(src, dir, type, 0, opts))
		fail("mount -t %s %s %s", type, src, dir);
	t1 = now_ns();
	printf("mount_ms=%.2f\n", (t1 - t0) / 1e6);
	return 0;
}

/* xorshift64: the same sequence of offsets for every file system */
static unsigned long long next_rand(unsigned long long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void fill_random(char *buf, size_t len, unsigned long long *x)
{
	size_t i;

	for (i = 0; i + sizeof(*x) <= len; i += sizeof(*x)) {
		unsigned long long v = next_rand(x);

		memcpy(buf + i, &v, sizeof(v));
	}
}

/*
 * Write FILE of SIZE_MB MiB (not timed), then COUNT times overwrite a
 * random 4 KiB block of it and fsync, as a database or a log rotation
 * would; print the fsync'd writes per second.
 */
static int cmd_randwrite(const char *file, const char *size_mb,
			 const char *count)
{
	long long blocks = parse_num(size_mb, 1 << 20) * 256, n, i;
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	long long t0, t1;
	char buf[4096];
	int fd;

	n = parse_num(count, INT_MAX);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail("cannot create %s", file);
	for (i = 0; i < blocks; i++) {
		fill_random(buf, sizeof(buf), &x);
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			fail("write to %s", file);
	}
	if (fsync(fd))
		fail("fsync of %s", file);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		off_t ofs = (next_rand(&x) % blocks) * sizeof(buf);

		fill_random(buf, sizeof(buf), &x);
		if (pwrite(fd, buf, sizeof(buf), ofs) != sizeof(buf))
			fail("pwrite to %s", file);
		if (fsync(fd))
			fail("fsync of %s", file);
	}
	t1 = now_ns();
	close(fd);
	printf("ops=%lld iops=%.1f\n", n, n / ((t1 - t0) / 1e9));
	return 0;
}

/*
 * Create COUNT files of SIZE bytes in DIR, a thousand per subdirectory,
 * then sync; print the files created per second, the sync included.
 */
static int cmd_mkfiles(const char *dir, const char *count, const char *size)
{
	long long n = parse_num(count, INT_MAX), i;
	unsigned long long x = 0x2545f4914f6cdd1dULL;
	size_t len = parse_num(size, 1 << 20);
	char path[PATH_MAX], *buf;
	long long t0, t1;
	int fd;

	buf = malloc(len + sizeof(x));
	if (!buf)
		fail("malloc");
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/s%lld", dir, i / 1000);
			if (mkdir(path, 0755) && errno != EEXIST)
				fail("mkdir %s", path);
		}
		snprintf(path, sizeof(path), "%s/s%lld/f%lld", dir, i / 1000, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			fail("cannot create %s", path);
		fill_random(buf, len + sizeof(x), &x);
		if (write(fd, buf, len) != (ssize_t)len)
			fail("write to %s", path);
		close(fd);
	}
	sync();
	t1 = now_ns();
	free(buf);
	printf("files=%lld files_per_s=%.1f\n", n, n / ((t1 - t0) / 1e9));
	return 0;
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: flashctl now\n"
		"       flashctl find NAME\n"
		"       flashctl info /dev/mtdN\n"
		"       flashctl erase /dev/mtdN\n"
		"       flashctl ubiattach MTDNUM [VID_HDR_OFFSET]\n"
		"       flashctl ubidetach UBINUM\n"
		"       flashctl ubimkvol /dev/ubiN NAME [BYTES]\n"
		"       flashctl mount TYPE SOURCE DIR [OPTIONS]\n"
		"       flashctl randwrite FILE SIZE_MB COUNT\n"
		"       flashctl mkfiles DIR COUNT SIZE\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "now") && argc == 2)
		return printf("%lld\n", now_ns()) < 0;
	if (!strcmp(cmd, "find") && argc == 3)
		return cmd_find(argv[2]);
	if (!strcmp(cmd, "info") && argc == 3)
		return cmd_info(argv[2]);
	if (!strcmp(cmd, "erase") && argc == 3)
		return cmd_erase(argv[2]);
	if (!strcmp(cmd, "ubiattach") && (argc == 3 || argc == 4))
		return cmd_ubiattach(argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(cmd, "ubidetach") && argc == 3)
		return cmd_ubidetach(argv[2]);
	if (!strcmp(cmd, "ubimkvol") && (argc == 4 || argc == 5))
		return cmd_ubimkvol(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (!strcmp(cmd, "mount") && (argc == 5 || argc == 6))
		return cmd_mount(argv[2], argv[3], argv[4],
				 argc == 6 ? argv[5] : NULL);
	if (!strcmp(cmd, "randwrite") && argc == 5)
		return cmd_randwrite(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "mkfiles") && argc == 5)
		return cmd_mkfiles(argv[2], argv[3], argv[4]);
	return print_usage();
}
