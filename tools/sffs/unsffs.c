// SPDX-License-Identifier: GPL-2.0-only
/*
 * unsffs: list or extract the files of an SFFS image or MTD dump.
 *
 *   unsffs [-l] [-x DIR] [-D] [-p] [-v] [-e ERASESIZE -m WRITESIZE]
 *          DEVICE_OR_IMAGE
 *
 * The files are read as the next mount would see them: the index the
 * newest checkpoint names, with the journal written since applied to it
 * (sffs_replay_journal()), so a dump of a device in use, or one a power
 * cut left, extracts like an image fresh from mkfs.sffs.  Data blocks the
 * kernel compressed are decompressed with liblzo2 and libzstd, when the
 * tool was built with them.
 *
 * Extraction writes regular files, directories, symlinks (to
 * SFFS_MAX_SYMLINK_LEN bytes), hard links, fifos and sockets, with their
 * modes, access and modification times and extended attributes; owners
 * too when run as root.  An image is not trusted: as GNU tar does, device
 * nodes are made only with -D, and set-user-ID and set-group-ID bits,
 * security.* and trusted.* attributes are set only with -p.  What was
 * skipped, and what the host does not let it set (owners, device nodes,
 * trusted.* as another user; user.* on a symlink), is counted and
 * reported, not an error.  Names are checked before they are used: no
 * "/", ".", ".." or NUL; each file is made relative to its directory's
 * descriptor, a directory opened O_NOFOLLOW only if this tool made it, and
 * a regular file's attributes are set through its O_EXCL descriptor, so
 * an image cannot write outside DIR and a symlink swapped in meanwhile
 * redirects nothing.  DIR itself gets the attributes of the image's root
 * only when this tool made it.  The exit status is 0 when every file was
 * extracted, 1 otherwise.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
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
#ifdef HAVE_LZO
#include <lzo/lzo1x.h>
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "sffs_tool.h"

#define USAGE \
	"usage: unsffs [-l] [-x DIR] [-D] [-p] [-v] [-e ERASESIZE -m WRITESIZE]\n" \
	"              DEVICE_OR_IMAGE\n" \
	"  -l         list the files: type and mode, owner, size, time, path\n" \
	"  -x DIR     extract the files into DIR (made if missing, and then\n" \
	"             given the mode, owner and times of the image's root);\n" \
	"             files already there are not overwritten\n" \
	"  -D         make device nodes too\n" \
	"  -p         set privileged bits and attributes too: set-user-ID and\n" \
	"             set-group-ID, security.* and trusted.* attributes\n" \
	"  -v         name each file not extracted whole\n" \
	"  -e, -m     erase and write size of an image (default 128K, 2K)\n"

static struct sffs_dev dev;
static struct sffs_leaves lv;
static bool verbose, do_list, is_root, make_dev, privileged;
static const char *dest;
static unsigned long errors, files;
/* what the host did not let us set: counted, not errors */
static unsigned long no_owner, no_dev, no_xattr;
/* what an image may not set without -D or -p: counted, not errors */
static unsigned long skip_dev, skip_suid, skip_xattr;
/* index nodes walked; a DAG would have the walk go on and on */
static unsigned long walked;
/* inodes written, for hard links and to enter each directory once */
static struct seen {
	uint64_t ino;
	char *path;
} *seen;
static size_t nseen;

static void error(const char *fmt, ...) __printf(1, 2);
static void error(const char *fmt, ...)
{
	va_list ap;

	fputs("unsffs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	errors++;
}

/*
 * The node of @type at @addr, @len bytes as the index says, checked as the
 * kernel checks it: long enough for every field of its type, the lengths
 * and counts inside agreeing with @len.  NULL, said, if not.
 */
static void *read_node(uint64_t addr, uint32_t len, unsigned int type)
{
	uint8_t *buf;

	if (len < sffs_node_min_len(type) || len > dev.erase_size) {
		error("bad node at %llu: length %u for type %u",
		      (unsigned long long)addr, len, type);
		return NULL;
	}
	buf = malloc(len);
	if (!buf) {
		error("out of memory");
		return NULL;
	}
	if (sffs_dev_read(&dev, addr, buf, len) || sffs_check(buf, len) ||
	    le32toh(((struct sffs_node_hdr *)buf)->len) != len ||
	    ((struct sffs_node_hdr *)buf)->type != type ||
	    sffs_node_check_payload(buf, len)) {
		error("bad node at %llu, length %u", (unsigned long long)addr,
		      len);
		free(buf);
		return NULL;
	}
	return buf;
}

static int walk(uint64_t addr, uint32_t len, int level, unsigned int fanout)
{
	struct sffs_index_node *ix = read_node(addr, len, SFFS_NODE_INDEX);
	struct sffs_branch *br = NULL;
	unsigned int cnt;
	int err = 0;

	if (!ix)
		return -1;
	cnt = le16toh(ix->count);
	if (le16toh(ix->level) == level && cnt && cnt <= fanout)
		br = sffs_index_branches(ix, len);
	if (!br) {
		error("bad index node at %llu", (unsigned long long)addr);
		free(ix);
		return -1;
	}
	for (unsigned int i = 0; i < cnt && !err; i++) {
		struct sffs_branch *b = &br[i];

		if (level) {
			/* no index has more nodes than the device holds */
			if (++walked > dev.size / sffs_node_min_len(SFFS_NODE_INDEX)) {
				error("index larger than the device");
				err = -1;
				break;
			}
			err = walk(le64toh(b->addr), le32toh(b->len), level - 1,
				   fanout);
			continue;
		}
		/*
		 * Keys rise strictly, as lookups need: a node reached twice
		 * (an index shaped as a DAG) repeats keys and stops here.
		 */
		if (lv.n && (lv.v[lv.n - 1].ino > le64toh(b->key.ino) ||
			     (lv.v[lv.n - 1].ino == le64toh(b->key.ino) &&
			      lv.v[lv.n - 1].tv >= le64toh(b->key.tv)))) {
			error("index node at %llu: keys out of order",
			      (unsigned long long)addr);
			err = -1;
			break;
		}
		err = sffs_leaves_room(&lv);
		if (!err)
			lv.v[lv.n++] = (struct sffs_leaf){
				le64toh(b->key.ino), le64toh(b->key.tv),
				le64toh(b->addr), le32toh(b->len) };
	}
	free(br);
	free(ix);
	return err;
}

/* The node of key (ino, tv), or NULL */
static void *lookup(uint64_t ino, uint64_t tv, unsigned int type)
{
	size_t i = sffs_leaf_pos(&lv, ino, tv);

	if (i == lv.n || lv.v[i].ino != ino || lv.v[i].tv != tv)
		return NULL;
	return read_node(lv.v[i].addr, lv.v[i].len, type);
}

static struct seen *find_seen(uint64_t ino)
{
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].ino == ino)
			return &seen[i];
	return NULL;
}

static int add_seen(uint64_t ino, const char *path)
{
	struct seen *s = realloc(seen, (nseen + 1) * sizeof(*seen));

	if (!s)
		return -1;
	seen = s;
	seen[nseen].ino = ino;
	seen[nseen].path = strdup(path);
	return seen[nseen++].path ? 0 : -1;
}

/* One block of a file, decompressed into @out; its length, or -1 */
static int block_data(const struct sffs_data_node *dn, uint32_t len,
		      uint8_t *out)
{
	uint32_t clen = len - sizeof(*dn), size = le32toh(dn->size);

	if (!size || size > SFFS_BLOCK_SIZE)
		return -1;
	switch (dn->compr) {
	case SFFS_COMPR_NONE:
		if (clen != size)
			return -1;
		memcpy(out, dn->data, size);
		return size;
#ifdef HAVE_LZO
	case SFFS_COMPR_LZO: {
		lzo_uint got = SFFS_BLOCK_SIZE;

		if (lzo1x_decompress_safe(dn->data, clen, out, &got, NULL) !=
		    LZO_E_OK || got != size)
			return -1;
		return size;
	}
#endif
#ifdef HAVE_ZSTD
	case SFFS_COMPR_ZSTD: {
		size_t got = ZSTD_decompress(out, SFFS_BLOCK_SIZE, dn->data, clen);

		/* error codes are above any block size */
		if (got != size)
			return -1;
		return size;
	}
#endif
	}
	return -2;	/* a compression this build does not have */
}

static void write_data(uint64_t ino, uint64_t size, const char *path, int fd)
{
	static uint8_t buf[SFFS_BLOCK_SIZE];
	size_t i = sffs_leaf_pos(&lv, ino, sffs_tv(SFFS_KEY_DATA, 0));
	uint64_t end = sffs_tv(SFFS_KEY_DENTRY, 0);

	for (; i < lv.n && lv.v[i].ino == ino && lv.v[i].tv < end; i++) {
		uint64_t blk = lv.v[i].tv & SFFS_KEY_VALUE_MASK;
		uint64_t off = blk * SFFS_BLOCK_SIZE;
		struct sffs_data_node *dn;
		int n;

		if (off >= size)
			break;	/* past the end: a cut truncation left it */
		dn = read_node(lv.v[i].addr, lv.v[i].len, SFFS_NODE_DATA);
		if (!dn)
			continue;
		n = block_data(dn, lv.v[i].len, buf);
		if (n == -2)
			error("%s: block %llu: compression %u not built in",
			      path, (unsigned long long)blk, dn->compr);
		else if (n < 0)
			error("%s: block %llu does not decompress", path,
			      (unsigned long long)blk);
		else if (pwrite(fd, buf, off + n > size ? size - off : (uint64_t)n,
				off) < 0)
			error("%s: %s", path, strerror(errno));
		free(dn);
	}
	if (ftruncate(fd, size))
		error("%s: %s", path, strerror(errno));
}

/*
 * Where the attributes of a file go: through @fd, its own descriptor, for
 * regular files and directories; else by @name in the directory @dfd,
 * never following a symlink where the call can say so.  @path names the
 * file in messages, and for lsetxattr(), which has no *at() form.
 */
struct target {
	int fd, dfd;
	const char *name, *path;
};

/* What an image may set only with -p */
static bool privileged_xattr(const char *name)
{
	return !strncmp(name, "security.", 9) || !strncmp(name, "trusted.", 8);
}

/*
 * List (@print) the extended attributes of inode @ino, or set them on @t
 * (when not NULL)
 */
static void xattrs(uint64_t ino, const char *path, bool print,
		   const struct target *t)
{
	size_t i = sffs_leaf_pos(&lv, ino, sffs_tv(SFFS_KEY_XATTR, 0));
	uint64_t end = sffs_tv(SFFS_KEY_XATTR + 1, 0);

	for (; i < lv.n && lv.v[i].ino == ino && lv.v[i].tv < end; i++) {
		struct sffs_xattr_node *xn = read_node(lv.v[i].addr, lv.v[i].len,
						       SFFS_NODE_XATTR);
		uint16_t nlen, vlen;
		char name[SFFS_MAX_XATTR_NAME + 1];
		int err;

		if (!xn)
			continue;
		nlen = le16toh(xn->name_len);
		vlen = le16toh(xn->value_len);
		memcpy(name, xn->data, nlen);
		name[nlen] = 0;
		if (print)
			printf("  xattr %s (%u bytes)\n", name, vlen);
		if (!t) {
			free(xn);
			continue;
		}
		if (!privileged && privileged_xattr(name)) {
			skip_xattr++;
			if (verbose)
				fprintf(stderr, "unsffs: %s: %s not set (no -p)\n",
					path, name);
			free(xn);
			continue;
		}
		if (t->fd >= 0)
			err = fsetxattr(t->fd, name, xn->data + nlen, vlen, 0);
		else
			err = lsetxattr(path, name, xn->data + nlen, vlen, 0);
		if (err) {
			/* trusted.* needs root, user.* a regular file or dir */
			if (errno == EPERM || errno == ENOTSUP) {
				no_xattr++;
				if (verbose)
					fprintf(stderr, "unsffs: %s: %s not set: %s\n",
						path, name, strerror(errno));
			} else {
				error("%s: %s: %s", path, name, strerror(errno));
			}
		}
		free(xn);
	}
}

static void put_time(struct timespec *t, const struct sffs_timestamp *s)
{
	t->tv_sec = le64toh(s->sec);
	t->tv_nsec = le32toh(s->nsec);
}

/* Owner, mode and times, in that order: chown() clears set-user-ID */
static void set_attrs(const struct sffs_inode_node *in, const struct target *t)
{
	uint32_t mode = le32toh(in->mode), perm = mode & 07777;
	uint32_t uid = le32toh(in->uid), gid = le32toh(in->gid);
	const char *path = t->path;
	struct timespec ts[2];
	int err;

	/* on a directory set-group-ID only passes its group on */
	if (!privileged && !S_ISDIR(mode) && perm & (S_ISUID | S_ISGID)) {
		skip_suid++;
		if (verbose)
			fprintf(stderr, "unsffs: %s: mode %04o set as %04o (no -p)\n",
				path, perm, perm & ~(S_ISUID | S_ISGID));
		perm &= ~(S_ISUID | S_ISGID);
	}
	if (is_root) {
		if (t->fd >= 0)
			err = fchown(t->fd, uid, gid);
		else
			err = fchownat(t->dfd, t->name, uid, gid,
				       AT_SYMLINK_NOFOLLOW);
		if (err)
			error("%s: %s", path, strerror(errno));
	} else if (uid != getuid() || gid != getgid()) {
		no_owner++;
		if (verbose)
			fprintf(stderr, "unsffs: %s: owner %u:%u not set\n",
				path, uid, gid);
	}
	if (!S_ISLNK(mode)) {
		if (t->fd >= 0)
			err = fchmod(t->fd, perm);
		else
			err = fchmodat(t->dfd, t->name, perm,
				       AT_SYMLINK_NOFOLLOW);
		if (err)
			error("%s: %s", path, strerror(errno));
	}
	put_time(&ts[0], &in->atime);
	put_time(&ts[1], &in->mtime);
	if (t->fd >= 0)
		err = futimens(t->fd, ts);
	else
		err = utimensat(t->dfd, t->name, ts, AT_SYMLINK_NOFOLLOW);
	if (err)
		error("%s: %s", path, strerror(errno));
}

static void list_line(const struct sffs_inode_node *in, const char *path)
{
	uint32_t mode = le32toh(in->mode);
	time_t t = le64toh(in->mtime.sec);
	char when[32];
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%c%04o %u/%u %llu %s %s", S_ISDIR(mode) ? 'd' :
	       S_ISLNK(mode) ? 'l' : S_ISREG(mode) ? '-' : S_ISCHR(mode) ? 'c' :
	       S_ISBLK(mode) ? 'b' : S_ISFIFO(mode) ? 'p' : 's', mode & 07777,
	       le32toh(in->uid), le32toh(in->gid),
	       (unsigned long long)le64toh(in->size), when, path);
	if (S_ISLNK(mode))
		printf(" -> %.*s", le16toh(in->data_len), in->data);
	putchar('\n');
}

static bool name_ok(const uint8_t *name, size_t len)
{
	if (!len || len > SFFS_MAX_NAME_LEN || memchr(name, '/', len) ||
	    memchr(name, 0, len))
		return false;
	return !(len == 1 && name[0] == '.') &&
	       !(len == 2 && name[0] == '.' && name[1] == '.');
}

static void extract_dir(uint64_t dir, int dfd, const char *prefix, int depth);

/*
 * Inode @ino, named @name in the directory @dfd (-1 when listing), @path
 * in messages
 */
static void extract_one(uint64_t ino, int dfd, const char *name,
			const char *path, int depth)
{
	struct sffs_inode_node *in = lookup(ino, 0, SFFS_NODE_INODE);
	struct seen *s = find_seen(ino);
	struct target t = { -1, dfd, name, path };
	uint32_t mode, len;
	bool made = true;

	if (!in) {
		error("%s: inode %llu is missing", path, (unsigned long long)ino);
		return;
	}
	mode = le32toh(in->mode);
	if (do_list) {
		list_line(in, path);
		xattrs(ino, path, true, NULL);
	}
	files++;
	if (s && S_ISDIR(mode)) {
		error("%s: directory %llu has a second name, %s", path,
		      (unsigned long long)ino, s->path);
		goto out;
	}
	if (s) {
		if (dest && linkat(AT_FDCWD, s->path, dfd, name, 0))
			error("%s: link to %s: %s", path, s->path, strerror(errno));
		goto out;
	}
	if (add_seen(ino, path)) {
		error("out of memory");
		goto out;
	}
	if (S_ISDIR(mode)) {
		/* entered only if made here, and not through a symlink */
		if (dest) {
			made = !mkdirat(dfd, name, 0700);
			if (made)
				t.fd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
					      O_NOFOLLOW);
			made = made && t.fd >= 0;
		}
		if (made)
			extract_dir(ino, t.fd, path, depth + 1);
	} else if (!dest) {
		/* listing: nothing to make */
	} else if (S_ISREG(mode)) {
		t.fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
			      0600);
		made = t.fd >= 0;
		if (made)
			write_data(ino, le64toh(in->size), path, t.fd);
	} else if (S_ISLNK(mode)) {
		char target[SFFS_MAX_SYMLINK_LEN + 1];

		len = le16toh(in->data_len);
		if (memchr(in->data, 0, len)) {
			error("%s: bad symlink target", path);
			goto out;
		}
		memcpy(target, in->data, len);
		target[len] = 0;
		made = !symlinkat(target, dfd, name);
	} else {
		/* the kernel's new_decode_dev() */
		uint32_t r = le32toh(in->rdev);
		dev_t rdev = makedev((r & 0xfff00) >> 8,
				     (r & 0xff) | ((r >> 12) & 0xfff00));
		bool is_dev = S_ISCHR(mode) || S_ISBLK(mode);

		if (is_dev && !make_dev) {
			skip_dev++;
			if (verbose)
				fprintf(stderr, "unsffs: %s: device node not made (no -D)\n",
					path);
			goto out;
		}
		made = !mknodat(dfd, name, mode & (S_IFMT | 0777), rdev);
		if (!made && errno == EPERM && is_dev) {
			no_dev++;
			if (verbose)
				fprintf(stderr, "unsffs: %s: device node not made: %s\n",
					path, strerror(errno));
			goto out;
		}
	}
	if (!made) {
		error("%s: %s", path, strerror(errno));
		goto out;
	}
	if (dest) {
		xattrs(ino, path, false, &t);
		set_attrs(in, &t);
	}
out:
	if (t.fd >= 0)
		close(t.fd);
	free(in);
}

/* The entries of directory @dir, made in @dfd, named @prefix */
static void extract_dir(uint64_t dir, int dfd, const char *prefix, int depth)
{
	size_t i = sffs_leaf_pos(&lv, dir, sffs_tv(SFFS_KEY_DENTRY, 0));
	uint64_t end = sffs_tv(SFFS_KEY_XATTR, 0);

	if (depth > 256) {
		error("%s: directories nested too deep", prefix);
		return;
	}
	for (; i < lv.n && lv.v[i].ino == dir && lv.v[i].tv < end; i++) {
		struct sffs_dentry_node *de = read_node(lv.v[i].addr, lv.v[i].len,
							SFFS_NODE_DENTRY);
		uint16_t nlen;
		char *path;

		if (!de)
			continue;
		nlen = le16toh(de->name_len);
		if (!name_ok(de->name, nlen)) {
			error("%s: bad name in directory %llu", prefix,
			      (unsigned long long)dir);
		} else if (asprintf(&path, "%s/%.*s", prefix, nlen, de->name) < 0) {
			error("out of memory");
		} else {
			extract_one(le64toh(de->target), dfd,
				    path + strlen(prefix) + 1, path, depth);
			free(path);
		}
		free(de);
	}
}

int main(int argc, char **argv)
{
	uint64_t esize = 128 << 10, wsize = 2048;
	struct sffs_checkpoint_node cp;
	struct sffs_inode_node *root;
	struct sffs_replay r;
	unsigned int reads, height, fanout;
	bool made_dest = false;
	int opt, dfd = -1;

	while ((opt = getopt(argc, argv, "lx:Dpve:m:h")) != -1) {
		switch (opt) {
		case 'l':
			do_list = true;
			break;
		case 'x':
			dest = optarg;
			break;
		case 'D':
			make_dev = true;
			break;
		case 'p':
			privileged = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'e':
			esize = sffs_parse_size(optarg);
			break;
		case 'm':
			wsize = sffs_parse_size(optarg);
			break;
		default:
			fputs(USAGE, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (optind != argc - 1 || (!dest && !do_list)) {
		fputs(USAGE, stderr);
		return 1;
	}
	is_root = !geteuid();
	if (sffs_dev_open(&dev, argv[optind], false, esize, wsize, 0) ||
	    sffs_find_anchor(&dev))
		return 1;
	if (sffs_find_checkpoint(&dev, &cp, &reads, NULL, NULL)) {
		fprintf(stderr, "unsffs: %s: no valid SFFS checkpoint\n",
			argv[optind]);
		return 1;
	}
	height = le16toh(cp.index_height);
	fanout = le16toh(cp.fanout);
	if (le16toh(cp.version) != SFFS_FORMAT_VERSION ||
	    le32toh(cp.feat_incompat) & ~SFFS_FEAT_INCOMPAT_SUPP) {
		fprintf(stderr, "unsffs: unknown format %u or features %#x\n",
			le16toh(cp.version), le32toh(cp.feat_incompat));
		return 1;
	}
	if (le32toh(cp.erase_size) != dev.erase_size ||
	    le32toh(cp.write_size) != dev.write_size) {
		fprintf(stderr, "unsffs: erase size %u, write size %u: give -e and -m\n",
			le32toh(cp.erase_size), le32toh(cp.write_size));
		return 1;
	}
	if (!height || height > 16 || fanout < SFFS_MIN_FANOUT ||
	    fanout > SFFS_MAX_FANOUT ||
	    walk(le64toh(cp.index_root), le32toh(cp.index_root_len),
		 height - 1, fanout) ||
	    sffs_replay_journal(&dev, &cp, &lv, &r)) {
		fprintf(stderr, "unsffs: %s: the index cannot be read\n",
			argv[optind]);
		return 1;
	}
	if (r.nodes || r.torn)
		fprintf(stderr, "unsffs: %u journal nodes applied%s\n", r.nodes,
			r.torn ? ", the last write torn" : "");
	root = lookup(SFFS_ROOT_INO, 0, SFFS_NODE_INODE);
	if (!root || !S_ISDIR(le32toh(root->mode))) {
		fprintf(stderr, "unsffs: %s: no root directory\n", argv[optind]);
		return 1;
	}
	if (dest) {
		made_dest = !mkdir(dest, 0700);
		if (made_dest || errno == EEXIST)
			dfd = open(dest, O_RDONLY | O_DIRECTORY);
		if (dfd < 0) {
			fprintf(stderr, "unsffs: %s: %s\n", dest, strerror(errno));
			return 1;
		}
	}
	if (do_list) {
		list_line(root, "/");
		xattrs(SFFS_ROOT_INO, "/", true, NULL);
	}
	extract_dir(SFFS_ROOT_INO, dfd, dest ? dest : "", 0);
	/*
	 * The root's attributes are for a directory made here: "-x /tmp"
	 * must not take the sticky bit off /tmp, nor give it away.
	 */
	if (made_dest) {
		struct target t = { dfd, AT_FDCWD, dest, dest };

		xattrs(SFFS_ROOT_INO, dest, false, &t);
		set_attrs(root, &t);
	} else if (dest) {
		fprintf(stderr,
			"unsffs: %s existed: its mode, owner and times are kept\n",
			dest);
	}
	if (dfd >= 0)
		close(dfd);
	free(root);
	if (no_owner)
		fprintf(stderr, "unsffs: not root: the owners of %lu files not set\n",
			no_owner);
	if (no_dev)
		fprintf(stderr, "unsffs: %lu device nodes not made (not root)\n",
			no_dev);
	if (skip_dev)
		fprintf(stderr, "unsffs: %lu device nodes not made (no -D)\n",
			skip_dev);
	if (skip_suid)
		fprintf(stderr, "unsffs: %lu set-user-ID or set-group-ID bits not set (no -p)\n",
			skip_suid);
	if (skip_xattr)
		fprintf(stderr, "unsffs: %lu security.* or trusted.* attributes not set (no -p)\n",
			skip_xattr);
	if (no_xattr)
		/* trusted.* needs root; user.* a file or directory */
		fprintf(stderr, "unsffs: %lu extended attributes not set\n",
			no_xattr);
	if (dest)
		printf("unsffs: %lu files extracted to %s, %lu errors\n", files,
		       dest, errors);
	sffs_dev_close(&dev, argv[optind]);
	return errors ? 1 : 0;
}
