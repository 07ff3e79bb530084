// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkfs.sffs: make an SFFS on an MTD device, or an image of one.
 *
 *   mkfs.sffs [options] /dev/mtdN
 *   mkfs.sffs [options] -o IMAGE -e ERASESIZE -m WRITESIZE -c SIZE [-t]
 *
 * An image is marked as one (SFFS_FEAT_INCOMPAT_PLACE): a flasher that
 * skips bad blocks may shift its blocks, and the first mount maps them.
 * With -t it ends where the data does, so that such a flasher writes no
 * more than that and leaves the rest of the device erased.
 *
 * The device is erased (bad blocks skipped), the nodes of the root
 * directory and, with -r, of a whole directory tree are written from the
 * first block after the anchor on, then the index over them is built
 * bottom-up, and a first checkpoint names it.  See
 * Documentation/filesystems/sffs.rst for the format.
 *
 * The image depends only on the tree and the options, so that a build
 * makes the same bytes twice: names are written in their key order (hash,
 * then name), not in the order readdir() returns them, every byte not
 * filled is 0xff or zero, and with SOURCE_DATE_EPOCH set no time is later
 * than it and the UUID is derived from it (reproducible-builds.org).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include "sffs_tool.h"

struct branch {
	uint64_t ino, tv, addr;
	uint32_t len;
};

static struct sffs_dev dev;
static struct branch *br;
static size_t nbr, cap_br;
static uint64_t sqnum, used_bytes, next_ino = SFFS_FIRST_INO;
static uint32_t cur_eb, cur_off, first_main;
static bool cur_valid, squash, quiet, trim;
/* -X: prefixes of the attribute names not copied */
#define MAX_XATTR_SKIP	16
static const char *xattr_skip[MAX_XATTR_SKIP];
static unsigned int nxattr_skip;
/* the tree holds a symlink longer than SFFS_SHORT_SYMLINK_LEN */
static bool long_links, plain_nodes;
static uint8_t compr = SFFS_COMPR_LZO;
/* SOURCE_DATE_EPOCH, when set: the latest time the image holds */
static bool have_epoch;
static int64_t epoch;
static unsigned long files, dirs, others;

static void die(const char *fmt, ...) __printf(1, 2);
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("mkfs.sffs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static bool is_anchor(uint32_t eb)
{
	for (int i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		if (dev.anchor[i] == eb)
			return true;
	return false;
}

static uint32_t next_good(uint32_t eb)
{
	while (eb < dev.eb_count && (dev.bad[eb] || is_anchor(eb)))
		eb++;
	return eb;
}

/*
 * The block being filled is built in RAM and written in whole pages when
 * it is left: NAND takes only page-aligned writes, in page order.
 */
static uint8_t *blk;

static void flush_block(void)
{
	uint32_t len = (cur_off + dev.write_size - 1) & ~(dev.write_size - 1);
	uint64_t addr = (uint64_t)cur_eb * dev.erase_size;

	if (cur_valid && len && sffs_dev_write(&dev, addr, blk, len))
		die("cannot write block %u", cur_eb);
}

/* Append a sealed node to the main area; return its address */
static uint64_t emit(void *node, uint32_t len, unsigned int type)
{
	uint64_t addr;

	if (!cur_valid || cur_off + ALIGN8(len) > dev.erase_size) {
		flush_block();
		cur_eb = cur_valid ? next_good(cur_eb + 1) : first_main;
		cur_off = 0;
		cur_valid = true;
		if (cur_eb >= dev.eb_count)
			die("not enough space on the device");
		memset(blk, 0xff, dev.erase_size);
	}
	sffs_seal(node, type, len, ++sqnum, 0);
	addr = (uint64_t)cur_eb * dev.erase_size + cur_off;
	memcpy(blk + cur_off, node, len);
	cur_off += ALIGN8(len);
	used_bytes += ALIGN8(len);
	return addr;
}

static void add_branch(uint64_t ino, unsigned int type, uint64_t val,
		       uint64_t addr, uint32_t len)
{
	if (nbr == cap_br) {
		cap_br = cap_br ? 2 * cap_br : 4096;
		br = realloc(br, cap_br * sizeof(*br));
		if (!br)
			die("out of memory");
	}
	br[nbr++] = (struct branch){
		.ino = ino,
		.tv = ((uint64_t)type << SFFS_KEY_TYPE_SHIFT) | val,
		.addr = addr, .len = len,
	};
}

static void emit_leaf(void *node, uint32_t len, unsigned int type,
		      uint64_t ino, unsigned int ktype, uint64_t val)
{
	struct sffs_key *k = (void *)((uint8_t *)node +
				      sizeof(struct sffs_node_hdr));

	k->ino = htole64(ino);
	k->tv = htole64(((uint64_t)ktype << SFFS_KEY_TYPE_SHIFT) | val);
	add_branch(ino, ktype, val, emit(node, len, type), len);
}

static void put_ts(struct sffs_timestamp *t, struct timespec ts)
{
	/* clamped, not replaced: older times say something of the files */
	if (have_epoch && ts.tv_sec >= epoch) {
		ts.tv_sec = epoch;
		ts.tv_nsec = 0;
	}
	t->sec = htole64(ts.tv_sec);
	t->nsec = htole32(ts.tv_nsec);
	t->reserved = 0;
}

/* An extended attribute of a file being copied */
struct xattr {
	char *name;
	uint32_t hash;
	char *value;
	size_t len;
};

static int cmp_xattr(const void *a, const void *b)
{
	const struct xattr *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The namespaces the kernel keeps.  Others (system.* for ACLs) it cannot
 * store: they are named on stderr, not dropped in silence.
 */
static bool xattr_kept(const char *name)
{
	return !strncmp(name, "user.", 5) || !strncmp(name, "trusted.", 8) ||
	       !strncmp(name, "security.", 9);
}

/* Left out with -X: not named, as asked for */
static bool xattr_excluded(const char *name)
{
	for (unsigned int i = 0; i < nxattr_skip; i++)
		if (!strncmp(name, xattr_skip[i], strlen(xattr_skip[i])))
			return true;
	return false;
}

/*
 * The extended attributes of @path in key order, as the kernel files
 * them; trusted.* is only listed to root.  Return how many there are.
 */
static size_t read_xattrs(const char *path, struct xattr **out)
{
	ssize_t size = path ? llistxattr(path, NULL, 0) : 0;
	struct xattr *xa = NULL;
	size_t n = 0;
	char *names;

	*out = NULL;
	if (size < 0 && errno == ENOTSUP)
		return 0;
	if (size < 0)
		die("%s: cannot list attributes: %s", path, strerror(errno));
	if (!size)
		return 0;
	names = malloc(size);
	if (!names)
		die("out of memory");
	size = llistxattr(path, names, size);
	if (size < 0)
		die("%s: cannot list attributes: %s", path, strerror(errno));
	for (char *p = names; p < names + size; p += strlen(p) + 1) {
		ssize_t len;

		if (xattr_excluded(p))
			continue;
		if (!xattr_kept(p)) {
			fprintf(stderr, "mkfs.sffs: %s: attribute %s not copied\n",
				path, p);
			continue;
		}
		if (strlen(p) > SFFS_MAX_XATTR_NAME)
			die("%s: attribute name %s longer than %d bytes", path,
			    p, SFFS_MAX_XATTR_NAME);
		len = lgetxattr(path, p, NULL, 0);
		if (len < 0)
			die("%s: %s: %s", path, p, strerror(errno));
		if ((size_t)len > SFFS_MAX_XATTR_VALUE)
			die("%s: attribute %s of %zd bytes, SFFS takes %d", path,
			    p, len, SFFS_MAX_XATTR_VALUE);
		xa = realloc(xa, (n + 1) * sizeof(*xa));
		if (!xa)
			die("out of memory");
		xa[n].name = strdup(p);
		xa[n].hash = sffs_crc(p, strlen(p));
		xa[n].value = malloc(len ? len : 1);
		if (!xa[n].name || !xa[n].value)
			die("out of memory");
		len = lgetxattr(path, p, xa[n].value, len);
		if (len < 0)
			die("%s: %s: %s", path, p, strerror(errno));
		xa[n++].len = len;
	}
	free(names);
	qsort(xa, n, sizeof(*xa), cmp_xattr);
	*out = xa;
	return n;
}

static void emit_xattrs(uint64_t ino, struct xattr *xa, size_t n)
{
	static uint8_t buf[sizeof(struct sffs_xattr_node) +
			   SFFS_MAX_XATTR_NAME + SFFS_MAX_XATTR_VALUE];
	struct sffs_xattr_node *xn = (void *)buf;

	for (size_t i = 0, coll = 0; i < n; i++) {
		size_t nlen = strlen(xa[i].name);

		coll = i && xa[i - 1].hash == xa[i].hash ? coll + 1 : 0;
		if (coll >= SFFS_MAX_COLLISIONS)
			die("inode %llu: too many attributes with one hash",
			    (unsigned long long)ino);
		memset(xn, 0, sizeof(*xn));
		xn->name_len = htole16(nlen);
		xn->value_len = htole16(xa[i].len);
		memcpy(xn->data, xa[i].name, nlen);
		memcpy(xn->data + nlen, xa[i].value, xa[i].len);
		emit_leaf(xn, sizeof(*xn) + nlen + xa[i].len, SFFS_NODE_XATTR,
			  ino, SFFS_KEY_XATTR,
			  ((uint64_t)xa[i].hash << SFFS_HASH_SHIFT) | coll);
		free(xa[i].name);
		free(xa[i].value);
	}
	free(xa);
}

/* The inode of @path (NULL for none) and its extended attributes */
static void emit_inode(uint64_t ino, const struct stat *st, uint32_t nlink,
		       const char *link, size_t link_len, const char *path)
{
	struct xattr *xa;
	size_t nxa = read_xattrs(path, &xa);
	uint64_t xbytes = 0;
	uint8_t buf[sizeof(struct sffs_inode_node) + SFFS_MAX_SYMLINK_LEN];
	struct sffs_inode_node *in = (void *)buf;
	uint64_t size = 0;

	memset(in, 0, sizeof(*in));
	if (S_ISREG(st->st_mode))
		size = st->st_size;
	else if (S_ISLNK(st->st_mode))
		size = link_len;
	in->size = htole64(size);
	put_ts(&in->atime, st->st_atim);
	put_ts(&in->mtime, st->st_mtim);
	put_ts(&in->ctime, st->st_ctim);
	in->uid = htole32(squash ? 0 : st->st_uid);
	in->gid = htole32(squash ? 0 : st->st_gid);
	in->mode = htole32(st->st_mode);
	in->nlink = htole32(nlink);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		unsigned int ma = major(st->st_rdev), mi = minor(st->st_rdev);

		in->rdev = htole32((mi & 0xff) | (ma << 8) |
				   ((mi & ~0xffU) << 12));
	}
	for (size_t i = 0; i < nxa; i++)
		xbytes += strlen(xa[i].name) + xa[i].len;
	in->xattr_cnt = htole32(nxa);
	in->xattr_size = htole32(xbytes);
	in->compr = S_ISREG(st->st_mode) ? compr : 0;
	in->data_len = htole16(link_len);
	memcpy(in->data, link, link_len);
	emit_leaf(in, sizeof(*in) + link_len, SFFS_NODE_INODE, ino,
		  SFFS_KEY_INODE, 0);
	emit_xattrs(ino, xa, nxa);
}

static void emit_data(uint64_t ino, const char *path, uint64_t size)
{
	static uint8_t buf[sizeof(struct sffs_data_node) + SFFS_BLOCK_SIZE];
	struct sffs_data_node *dn = (void *)buf;
	static const uint8_t zero[SFFS_BLOCK_SIZE];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	for (uint64_t blk = 0; blk * SFFS_BLOCK_SIZE < size; blk++) {
		ssize_t n = pread(fd, dn->data, SFFS_BLOCK_SIZE,
				  blk * SFFS_BLOCK_SIZE);

		if (n < 0)
			die("%s: %s", path, strerror(errno));
		if (!n)
			break;
		if (!memcmp(dn->data, zero, n))
			continue;	/* a hole */
		memset(dn, 0, sizeof(*dn));
		dn->size = htole32(n);
		dn->compr = SFFS_COMPR_NONE;
		emit_leaf(dn, sizeof(*dn) + n, SFFS_NODE_DATA, ino,
			  SFFS_KEY_DATA, blk);
	}
	close(fd);
}

struct entry {
	char *name;
	uint32_t hash;
	struct stat st;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Hard links: (dev, ino) of the source to our inode number */
struct hlink {
	dev_t dev;
	ino_t ino;
	uint64_t sffs_ino;
};

static struct hlink *hl;
static size_t nhl;

static uint64_t *hlink_find(const struct stat *st)
{
	for (size_t i = 0; i < nhl; i++)
		if (hl[i].dev == st->st_dev && hl[i].ino == st->st_ino)
			return &hl[i].sffs_ino;
	return NULL;
}

static void emit_dentry(uint64_t dir, const struct entry *e, uint32_t coll,
			uint64_t target)
{
	uint8_t buf[sizeof(struct sffs_dentry_node) + SFFS_MAX_NAME_LEN];
	struct sffs_dentry_node *de = (void *)buf;
	size_t len = strlen(e->name);
	static const uint8_t dt[16] = {
		[S_IFREG >> 12] = 8, [S_IFDIR >> 12] = 4, [S_IFLNK >> 12] = 10,
		[S_IFCHR >> 12] = 2, [S_IFBLK >> 12] = 6, [S_IFIFO >> 12] = 1,
		[S_IFSOCK >> 12] = 12,
	};

	memset(de, 0, sizeof(*de));
	de->target = htole64(target);
	de->type = dt[(e->st.st_mode & S_IFMT) >> 12];
	de->name_len = htole16(len);
	memcpy(de->name, e->name, len);
	emit_leaf(de, sizeof(*de) + len, SFFS_NODE_DENTRY, dir, SFFS_KEY_DENTRY,
		  ((uint64_t)e->hash << SFFS_HASH_SHIFT) | coll);
}

/* Write directory @path, and everything below it, as inode @ino */
static void emit_dir(const char *path, uint64_t ino, const struct stat *dst)
{
	struct entry *ents = NULL;
	size_t n = 0, cap = 0, subdirs = 0;
	struct dirent *d;
	DIR *dp = opendir(path);

	if (!dp)
		die("%s: %s", path, strerror(errno));
	while ((d = readdir(dp))) {
		char *p;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (strlen(d->d_name) > SFFS_MAX_NAME_LEN)
			die("%s/%s: name longer than %d bytes", path, d->d_name,
			    SFFS_MAX_NAME_LEN);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			ents = realloc(ents, cap * sizeof(*ents));
			if (!ents)
				die("out of memory");
		}
		ents[n].name = strdup(d->d_name);
		ents[n].hash = sffs_crc(d->d_name, strlen(d->d_name));
		if (asprintf(&p, "%s/%s", path, d->d_name) < 0 ||
		    lstat(p, &ents[n].st))
			die("%s: %s", p, strerror(errno));
		free(p);
		if (S_ISDIR(ents[n].st.st_mode))
			subdirs++;
		n++;
	}
	closedir(dp);
	qsort(ents, n, sizeof(*ents), cmp_entry);

	emit_inode(ino, dst, 2 + subdirs, NULL, 0, path);
	dirs++;
	for (size_t i = 0, coll = 0; i < n; i++) {
		struct entry *e = &ents[i];
		uint64_t child, *known = NULL;
		char *p;

		coll = i && ents[i - 1].hash == e->hash ? coll + 1 : 0;
		if (coll >= SFFS_MAX_COLLISIONS)
			die("%s: too many names with one hash", path);
		if (asprintf(&p, "%s/%s", path, e->name) < 0)
			die("out of memory");
		if (!S_ISDIR(e->st.st_mode) && e->st.st_nlink > 1)
			known = hlink_find(&e->st);
		if (known) {
			child = *known;
		} else {
			child = next_ino++;
			if (!S_ISDIR(e->st.st_mode) && e->st.st_nlink > 1) {
				hl = realloc(hl, (nhl + 1) * sizeof(*hl));
				if (!hl)
					die("out of memory");
				hl[nhl++] = (struct hlink){ e->st.st_dev,
							    e->st.st_ino, child };
			}
			if (S_ISDIR(e->st.st_mode)) {
				emit_dir(p, child, &e->st);
			} else if (S_ISLNK(e->st.st_mode)) {
				char link[SFFS_MAX_SYMLINK_LEN + 1];
				ssize_t len = readlink(p, link, sizeof(link));

				if (len < 0 ||
				    len > (ssize_t)sffs_symlink_max(dev.erase_size))
					die("%s: bad symlink, or too long for %u-byte erase blocks",
					    p, dev.erase_size);
				if (len > (ssize_t)SFFS_SHORT_SYMLINK_LEN)
					long_links = true;
				emit_inode(child, &e->st, 1, link, len, p);
				others++;
			} else {
				/* links inside the tree only */
				emit_inode(child, &e->st, S_ISREG(e->st.st_mode) ?
					   e->st.st_nlink : 1, NULL, 0, p);
				if (S_ISREG(e->st.st_mode)) {
					emit_data(child, p, e->st.st_size);
					files++;
				} else {
					others++;
				}
			}
		}
		emit_dentry(ino, e, coll, child);
		free(p);
		free(e->name);
	}
	free(ents);
}

static int cmp_branch(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->tv != y->tv)
		return x->tv < y->tv ? -1 : 1;
	return 0;
}

/* Pack @n branches into index nodes of @level; return the new branches */
static struct branch *build_level(struct branch *in, size_t n, unsigned int level,
				  unsigned int fanout, size_t *out_n)
{
	size_t nodes = (n + fanout - 1) / fanout;
	struct branch *out = calloc(nodes, sizeof(*out));
	size_t len = sizeof(struct sffs_index_node) +
		     fanout * sizeof(struct sffs_branch);
	struct sffs_index_node *ix = malloc(len);

	if (!out || !ix)
		die("out of memory");
	for (size_t i = 0; i < nodes; i++) {
		size_t first = i * fanout;
		size_t cnt = n - first < fanout ? n - first : fanout;
		uint32_t nlen = sizeof(*ix) + cnt * sizeof(struct sffs_branch);

		memset(ix, 0, len);
		ix->level = htole16(level);
		ix->count = htole16(cnt);
		for (size_t k = 0; k < cnt; k++) {
			struct branch *b = &in[first + k];

			ix->branch[k].key.ino = htole64(b->ino);
			ix->branch[k].key.tv = htole64(b->tv);
			ix->branch[k].addr = htole64(b->addr);
			ix->branch[k].len = htole32(b->len);
		}
		out[i] = in[first];
		out[i].addr = emit(ix, nlen, SFFS_NODE_INDEX);
		out[i].len = nlen;
	}
	free(ix);
	*out_n = nodes;
	return out;
}

/*
 * SOURCE_DATE_EPOCH as the specification has it: decimal seconds since
 * the epoch; a value that is not one is an error, not ignored, so that a
 * build does not quietly stop being reproducible.
 */
static void read_epoch(void)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!s || !*s)
		return;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0)
		die("SOURCE_DATE_EPOCH=%s is not a number of seconds", s);
	epoch = v;
	have_epoch = true;
}

/* "0123abcd-..." with or without dashes: 32 hex digits */
static void parse_uuid(const char *s, uint8_t uuid[16])
{
	const char *p = s;

	for (int i = 0; i < 16; i++) {
		unsigned int hi, lo;

		if (*p == '-' && (i == 4 || i == 6 || i == 8 || i == 10))
			p++;
		if (sscanf(p, "%1x%1x", &hi, &lo) != 2)
			die("bad UUID %s", s);
		uuid[i] = hi << 4 | lo;
		p += 2;
	}
	if (*p)
		die("bad UUID %s", s);
}

/*
 * The UUID of a reproducible image: crc32c rounds over "SFFS" and the
 * epoch, marked as an RFC 9562 version 8 (vendor-defined) UUID.  Two
 * images built at one SOURCE_DATE_EPOCH share it; give -u to tell them
 * apart.
 */
static void epoch_uuid(uint8_t uuid[16])
{
	uint8_t in[13] = "SFFS";

	for (int i = 0; i < 8; i++)
		in[4 + i] = (uint64_t)epoch >> (8 * i);
	for (int w = 0; w < 4; w++) {
		uint32_t c;

		in[12] = w;
		c = sffs_crc(in, sizeof(in));
		memcpy(uuid + 4 * w, &c, 4);
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x80;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

static void print_usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: mkfs.sffs [options] /dev/mtdN\n"
		"       mkfs.sffs [options] -o IMAGE -e ERASESIZE -m WRITESIZE\n"
		"                 -c SIZE [-t]\n"
		"  -r DIR     copy DIR into the new file system: owners, modes,\n"
		"             times, extended attributes (user., trusted. and\n"
		"             security.), hard links, symlinks, device nodes\n"
		"  -U         files are owned by root\n"
		"  -u UUID    the file system's UUID (default: random, or\n"
		"             derived from SOURCE_DATE_EPOCH when that is set)\n"
		"  -x COMPR   compression of new data: none, lzo (default), zstd\n"
		"  -j N       journal erase blocks, 2 to %d (default 8)\n"
		"  -F N       index fan-out, %d to %d\n"
		"  -X PREFIX  attributes whose names begin with PREFIX are not\n"
		"             copied (e.g. -X security.selinux); up to 16\n"
		"  -t         end the image after its last block of data, for\n"
		"             flashers that skip bad blocks (nandwrite -p);\n"
		"             erase the device first\n"
		"  -P         the kernel writes plain index nodes and table\n"
		"             pages, not packed ones, which kernels before\n"
		"             packing cannot read (packed, commits program\n"
		"             fewer bytes)\n"
		"  -q         quiet\n"
		"With SOURCE_DATE_EPOCH set, no time in the image is later than\n"
		"it: the same tree gives the same image, made with the same\n"
		"privileges (trusted.* attributes are only read by root).\n",
		SFFS_MAX_JOURNAL_BLOCKS, SFFS_MIN_FANOUT, SFFS_MAX_FANOUT);
	exit(code);
}

int main(int argc, char **argv)
{
	const char *root = NULL, *image = NULL, *target;
	uint64_t esize = 0, wsize = 0, size = 0, root_addr, free_bytes = 0;
	uint64_t dirty_bytes = 0;
	unsigned int jcnt = 8, fanout = 0, height = 0;
	struct sffs_checkpoint_node cp;
	struct stat rst;
	uint8_t uuid[16];
	bool have_uuid = false;
	uint32_t eb, unit, j;
	size_t n;
	int opt;

	read_epoch();
	while ((opt = getopt(argc, argv, "r:Uu:x:X:j:F:o:e:m:c:tPqh")) != -1) {
		switch (opt) {
		case 'r':
			root = optarg;
			break;
		case 'U':
			squash = true;
			break;
		case 'u':
			parse_uuid(optarg, uuid);
			have_uuid = true;
			break;
		case 'x':
			if (!strcmp(optarg, "none"))
				compr = SFFS_COMPR_NONE;
			else if (!strcmp(optarg, "lzo"))
				compr = SFFS_COMPR_LZO;
			else if (!strcmp(optarg, "zstd"))
				compr = SFFS_COMPR_ZSTD;
			else
				die("unknown compression %s", optarg);
			break;
		case 'X':
			if (nxattr_skip == MAX_XATTR_SKIP)
				die("more than %d -X", MAX_XATTR_SKIP);
			xattr_skip[nxattr_skip++] = optarg;
			break;
		case 'j':
			jcnt = atoi(optarg);
			break;
		case 'F':
			fanout = atoi(optarg);
			break;
		case 'o':
			image = optarg;
			break;
		case 'e':
			esize = sffs_parse_size(optarg);
			break;
		case 'm':
			wsize = sffs_parse_size(optarg);
			break;
		case 'c':
			size = sffs_parse_size(optarg);
			break;
		case 't':
			trim = true;
			break;
		case 'P':
			plain_nodes = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(1);
		}
	}
	/*
	 * The kernel lists trusted.* to CAP_SYS_ADMIN only, so another user's
	 * image silently lacks them: say so, once, as the image differs
	 * from the one root would make of the same tree.
	 */
	if (root && geteuid())
		fprintf(stderr, "mkfs.sffs: not root: trusted.* attributes not copied\n");
	if (jcnt < 2 || jcnt > SFFS_MAX_JOURNAL_BLOCKS)
		die("-j must be 2 to %d", SFFS_MAX_JOURNAL_BLOCKS);
	if (trim && !image)
		die("-t is for images (-o)");
	if (image && optind == argc) {
		target = image;
		if (!esize || !wsize || !size)
			die("an image needs -e, -m and -c");
		unlink(image);
	} else if (!image && optind == argc - 1) {
		target = argv[optind];
	} else {
		print_usage(1);
	}
	if (sffs_dev_open(&dev, target, true, esize, wsize, size))
		return 1;
	if (!dev.is_mtd && !image)
		die("%s is not an MTD device; use -o for an image", target);
	if (dev.erase_size < 16 * SFFS_CP_UNIT(dev.write_size) ||
	    dev.erase_size < 4 * SFFS_BLOCK_SIZE)
		die("erase blocks of %u bytes are too small", dev.erase_size);
	if (!fanout)
		fanout = sffs_default_fanout(dev.write_size);
	if (fanout < SFFS_MIN_FANOUT || fanout > SFFS_MAX_FANOUT)
		die("fan-out must be %d to %d", SFFS_MIN_FANOUT, SFFS_MAX_FANOUT);
	if (sffs_find_anchor(&dev))
		return 1;
	for (eb = 0; eb < dev.eb_count; eb++)
		if (!dev.bad[eb] && sffs_dev_erase(&dev, eb))
			return 1;
	first_main = next_good(0);
	blk = malloc(dev.erase_size);
	if (!blk)
		die("out of memory");

	/* the tree */
	if (root) {
		if (stat(root, &rst) || !S_ISDIR(rst.st_mode))
			die("%s is not a directory", root);
		emit_dir(root, SFFS_ROOT_INO, &rst);
	} else {
		memset(&rst, 0, sizeof(rst));
		rst.st_mode = S_IFDIR | 0755;
		clock_gettime(CLOCK_REALTIME, &rst.st_mtim);
		/* put_ts() clamps it to SOURCE_DATE_EPOCH */
		rst.st_atim = rst.st_mtim;
		rst.st_ctim = rst.st_mtim;
		emit_inode(SFFS_ROOT_INO, &rst, 2, NULL, 0, NULL);
		dirs++;
	}

	/* the index, bottom-up */
	qsort(br, nbr, sizeof(*br), cmp_branch);
	for (n = 1; n < nbr; n++)
		if (!cmp_branch(&br[n - 1], &br[n]))
			die("duplicate key (%llu, %#llx)",
			    (unsigned long long)br[n].ino,
			    (unsigned long long)br[n].tv);
	n = nbr;
	{
		struct branch *level = br;

		do {
			struct branch *up = build_level(level, n, height,
							fanout, &n);

			if (level != br)
				free(level);
			level = up;
			height++;
		} while (n > 1);
		root_addr = level[0].addr;
		memset(&cp, 0, sizeof(cp));
		cp.index_root_len = htole32(level[0].len);
		free(level);
	}

	flush_block();

	/* the journal starts in the next good block */
	memset(cp.journal_eb, 0xff, sizeof(cp.journal_eb));
	eb = next_good(cur_eb + 1);
	for (j = 0; j < jcnt && eb < dev.eb_count; eb = next_good(eb + 1))
		cp.journal_eb[j++] = htole32(eb);
	if (j < 2)
		die("not enough space on the device");
	for (uint32_t b = le32toh(cp.journal_eb[0]); b < dev.eb_count;
	     b = next_good(b + 1))
		free_bytes += dev.erase_size;

	cp.version = htole16(SFFS_FORMAT_VERSION);
	/* no table pages yet: the kernel takes blocks below alloc_eb as full */
	cp.feat_ro_compat = htole32(SFFS_FEAT_RO_COMPAT_EBT |
				    SFFS_FEAT_RO_COMPAT_ORPHAN);
	/* only then: as far as this flag goes, older kernels mount the others */
	if (long_links)
		cp.feat_incompat = htole32(SFFS_FEAT_INCOMPAT_LONG_SYMLINK);
	/* the kernel packs the index nodes and table pages it writes */
	if (!plain_nodes)
		cp.feat_incompat |= htole32(SFFS_FEAT_INCOMPAT_PACKED);
	/* an image may be shifted by bad blocks: its first mount places it */
	if (image)
		cp.feat_incompat |= htole32(SFFS_FEAT_INCOMPAT_PLACE);
	cp.fanout = htole16(fanout);
	if (have_uuid) {
		memcpy(cp.uuid, uuid, sizeof(uuid));
	} else if (have_epoch) {
		epoch_uuid(cp.uuid);
	} else {
		int fd = open("/dev/urandom", O_RDONLY);

		if (fd < 0 || read(fd, cp.uuid, sizeof(cp.uuid)) != sizeof(cp.uuid))
			die("no /dev/urandom");
		close(fd);
	}
	cp.erase_size = htole32(dev.erase_size);
	cp.write_size = htole32(dev.write_size);
	cp.eb_count = htole32(dev.eb_count);
	for (int i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		cp.anchor_eb[i] = htole32(dev.anchor[i]);
	cp.mkfs_time = htole64(have_epoch ? epoch : time(NULL));
	cp.default_compr = compr;
	cp.commit = htole64(1);
	cp.max_sqnum = htole64(sqnum + 1);
	cp.next_ino = htole64(next_ino);
	cp.index_root = htole64(root_addr);
	cp.index_height = htole16(height);
	cp.journal_cnt = htole16(j);
	cp.jhead = htole64((uint64_t)le32toh(cp.journal_eb[0]) * dev.erase_size);
	cp.alloc_eb = htole32(le32toh(cp.journal_eb[j - 1]) + 1);
	cp.free_bytes = htole64(free_bytes);
	cp.used_bytes = htole64(used_bytes);
	/*
	 * What the blocks before the journal hold beyond the live nodes
	 * (padding, the tail of the last one) is dirty: free, used and dirty
	 * bytes add up to every good block outside the anchor.
	 */
	for (uint32_t b = 0; b < le32toh(cp.journal_eb[0]); b++)
		if (!dev.bad[b] && !is_anchor(b))
			dirty_bytes += dev.erase_size;
	cp.dirty_bytes = htole64(dirty_bytes - used_bytes);
	sffs_seal(&cp, SFFS_NODE_CHECKPOINT, sizeof(cp), sqnum + 1, 0);

	unit = SFFS_CP_UNIT(dev.write_size);
	{
		uint8_t *u = malloc(unit);

		if (!u)
			die("out of memory");
		memset(u, 0xff, unit);
		memcpy(u, &cp, sizeof(cp));
		if (sffs_dev_write(&dev, (uint64_t)dev.anchor[0] * dev.erase_size,
				   u, unit))
			die("cannot write the checkpoint");
		free(u);
	}
	/* the journal's blocks and all after them are erased */
	if (trim)
		dev.size = (uint64_t)le32toh(cp.journal_eb[0]) * dev.erase_size;
	if (sffs_dev_close(&dev, target))
		return 1;
	if (!quiet)
		printf("mkfs.sffs: %s: %u blocks of %u KiB, write size %u\n"
		       "mkfs.sffs: %lu files, %lu directories, %lu others\n"
		       "mkfs.sffs: %llu bytes of nodes, index height %u, fan-out %u\n",
		       target, dev.eb_count, dev.erase_size >> 10, dev.write_size,
		       files, dirs, others, (unsigned long long)used_bytes,
		       height, fanout);
	return 0;
}
