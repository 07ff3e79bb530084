// SPDX-License-Identifier: GPL-2.0-only
/*
 * sffs_fuzz: mount and walk thousands of damaged SFFS images.
 *
 * A flash file system reads back whatever the flash gives it: bits flipped
 * by wear, pages torn by a power cut, or an image crafted to attack the
 * kernel.  Damage the checksums catch is the easy part; the hard part is
 * a node whose checksums are right and whose fields are not.  So most
 * mutations here change a field and then seal the node again: lengths and
 * counts out of range, addresses outside the device or of the wrong node,
 * an index branch pointing back up the tree, two names for one directory,
 * an inode number that already exists.
 *
 * Each image is mounted (read-only or read-write in turn), and every
 * directory, file, link and extended attribute it shows is read; a
 * read-write mount then creates, writes, syncs and removes a file.  The
 * mount may fail, and reads may fail, but only with the errors a damaged
 * medium is allowed to give, and never with a KASAN, UBSAN or lockdep
 * report or a hang.  The images come from two valid ones: a clean file
 * system, and the same one after a power cut, with a journal to replay.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/random.h>
#include <linux/vmalloc.h>
#include <linux/xattr.h>
#include <asm/unaligned.h>
#include "sffs.h"
#include "test_flash.h"

static unsigned int fuzz_images = 10000;
module_param(fuzz_images, uint, 0444);
MODULE_PARM_DESC(fuzz_images, "KUnit: damaged images sffs_fuzz mounts");

#define FZ_MAX_NODES	4096
#define FZ_NAME		48
#define FZ_PATH		160
#define FZ_MAX_DEPTH	6
#define FZ_MAX_VISITS	256
#define FZ_READ_MAX	(128 * 1024)
/* Entries fz_populate() adds: a directory of six, a symlink, a file, a link */
#define FZ_ENTRIES	10

enum fz_kind {
	FZ_BITS,	/* bits flipped, checksums left as they are */
	FZ_BYTES,	/* random bytes, node sealed again */
	FZ_FIELD,	/* one field set to a hostile value, sealed again */
	FZ_LOOP,	/* an index branch to an index node, maybe an ancestor */
	FZ_SPLICE,	/* an index branch to a node of another kind */
	FZ_DUP_INO,	/* a second name or inode for an existing inode */
	FZ_PAGE,	/* a whole page erased or filled with garbage */
	FZ_KINDS
};

static const char * const fz_kind_name[FZ_KINDS] = {
	"bits", "bytes", "field", "index loop", "splice", "duplicate ino",
	"page",
};

struct fz_node {
	u32 addr;
	u32 len;
	u8 type;
};

/* One valid image to start from, with the nodes found on it */
struct fz_base {
	u8 *mem;
	u16 next_page[RF_BLOCKS];
	struct fz_node *nodes;
	unsigned int nnodes;
	unsigned int ntype[SFFS_NODE_TYPES];
	u32 newest_cp;
	u64 newest_commit;
};

struct fz_state;
static struct fz_state *fz_cur;	/* for sffs_fuzz_exit() */

struct fz_state {
	struct kunit *test;
	struct sffs_ramflash *rf;
	struct fz_base base[2];
	int cur;			/* base rf->mem holds, or -1 */
	DECLARE_BITMAP(differ, RF_BLOCKS);	/* blocks where bases differ */
	struct rnd_state rnd;
	u8 *buf;
	char (*names)[FZ_NAME];
	unsigned int nnames;
	unsigned long visits, reads, errors;
	unsigned long mounted[2], refused;
	unsigned long per_kind[FZ_KINDS], refused_kind[FZ_KINDS];
	unsigned long write_violations;
};

static u32 fz_rand(struct fz_state *s, u32 n)
{
	return n ? prandom_u32_state(&s->rnd) % n : 0;
}

/* Make a file system worth damaging: every kind of node, and GC'd blocks */
static int fz_populate(struct kunit *test, struct vfsmount *mnt, u8 *buf,
		       int round)
{
	static const size_t sizes[] = { 0, 100, 4096, 9000, 30000, 70000 };
	struct dentry *root = mnt->mnt_root, *d;
	struct inode *dir = d_inode(root);
	struct file *f;
	char name[FZ_NAME];
	int i, err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	snprintf(name, sizeof(name), "dir%d", round);
	d = lookup_one_len(name, root, strlen(name));
	err = PTR_ERR_OR_ZERO(d);
	if (!err) {
		err = vfs_mkdir(&init_user_ns, dir, d, 0755);
		dput(d);
	}
	snprintf(name, sizeof(name), "link%d", round);
	d = err ? NULL : lookup_one_len(name, root, strlen(name));
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
	} else if (d) {
		err = vfs_symlink(&init_user_ns, dir, d, "dir0/f1");
		dput(d);
	}
	inode_unlock(dir);
	if (err)
		return err;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(name, sizeof(name), "dir%d/f%d", round, i);
		sffs_test_fill(buf, sizes[i], round * 10 + i, i & 1);
		err = sffs_test_write_file(mnt, name, buf, sizes[i], i == 5);
		if (err)
			return err;
	}
	snprintf(name, sizeof(name), "top%d", round);
	sffs_test_fill(buf, 12000, round, false);
	err = sffs_test_write_file(mnt, name, buf, 12000, true);
	if (err)
		return err;

	/* an extended attribute, a hard link, a truncation, a removal */
	f = file_open_root_mnt(mnt, name, O_RDWR, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = vfs_setxattr(&init_user_ns, f->f_path.dentry, "user.fuzz",
			   "value", 5, 0);
	if (!err)
		err = vfs_truncate(&f->f_path, 5000);
	if (!err) {
		inode_lock_nested(dir, I_MUTEX_PARENT);
		snprintf(name, sizeof(name), "hard%d", round);
		d = lookup_one_len(name, root, strlen(name));
		err = PTR_ERR_OR_ZERO(d);
		if (!err) {
			err = vfs_link(f->f_path.dentry, &init_user_ns, dir, d,
				       NULL);
			dput(d);
		}
		inode_unlock(dir);
	}
	__fput_sync(f);
	if (err)
		return err;
	snprintf(name, sizeof(name), "dir%d/f2", round);
	f = file_open_root_mnt(mnt, name, O_RDWR | O_TRUNC, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = vfs_fsync(f, 0);
	__fput_sync(f);
	KUNIT_EXPECT_EQ(test, err, 0);
	return err;
}

/* Find every node on the image: the fuzzer's map of what to damage */
static void fz_map(struct fz_base *b)
{
	u32 eb, off;

	b->nnodes = 0;
	for (eb = 0; eb < RF_BLOCKS; eb++) {
		for (off = 0; off + sizeof(struct sffs_node_hdr) <= RF_ERASESIZE;) {
			u8 *p = b->mem + (size_t)eb * RF_ERASESIZE + off;
			struct sffs_node_hdr *h = (void *)p;
			u32 len;

			if (sffs_node_check_hdr(p, RF_ERASESIZE - off)) {
				off += SFFS_NODE_ALIGN;
				continue;
			}
			len = le32_to_cpu(h->len);
			if (b->nnodes < FZ_MAX_NODES) {
				struct fz_node *n = &b->nodes[b->nnodes++];

				n->addr = eb * RF_ERASESIZE + off;
				n->len = len;
				n->type = h->type;
				b->ntype[h->type]++;
			}
			if (h->type == SFFS_NODE_CHECKPOINT) {
				struct sffs_checkpoint_node *cp = (void *)p;

				if (le64_to_cpu(cp->commit) >= b->newest_commit) {
					b->newest_commit = le64_to_cpu(cp->commit);
					b->newest_cp = eb * RF_ERASESIZE + off;
				}
			}
			off += ALIGN(len, SFFS_NODE_ALIGN);
		}
	}
}

static void fz_snapshot(struct fz_state *s, struct fz_base *b)
{
	struct kunit *test = s->test;

	b->mem = vmalloc((size_t)RF_BLOCKS * RF_ERASESIZE);
	b->nodes = kunit_kmalloc_array(test, FZ_MAX_NODES, sizeof(*b->nodes),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->mem);
	KUNIT_ASSERT_NOT_NULL(test, b->nodes);
	memcpy(b->mem, s->rf->mem, (size_t)RF_BLOCKS * RF_ERASESIZE);
	memcpy(b->next_page, s->rf->next_page, sizeof(b->next_page));
	fz_map(b);
}

/* Put base @i back on the flash, copying only the blocks that changed */
static void fz_restore(struct fz_state *s, int i)
{
	struct sffs_ramflash *rf = s->rf;
	struct fz_base *b = &s->base[i];
	u32 eb;

	if (s->cur != i)
		bitmap_or(rf->touched, rf->touched, s->differ, RF_BLOCKS);
	for_each_set_bit(eb, rf->touched, RF_BLOCKS) {
		size_t at = (size_t)eb * RF_ERASESIZE;

		memcpy(rf->mem + at, b->mem + at, RF_ERASESIZE);
		rf->next_page[eb] = b->next_page[eb];
	}
	bitmap_zero(rf->touched, RF_BLOCKS);
	/*
	 * A damaged image may have the file system program a page twice,
	 * which the flash refuses as a program failure: the block retired
	 * then is good again for the next image.
	 */
	bitmap_zero(rf->bad, RF_BLOCKS);
	s->cur = i;
}

/* Seal a damaged node again, so the damage gets past the checksums */
static void fz_seal(u8 *p, u32 room)
{
	struct sffs_node_hdr *h = (void *)p;
	u32 len = le32_to_cpu(h->len);

	if (len >= sizeof(*h) && len <= room)
		h->data_crc = cpu_to_le32(crc32c(SFFS_CRC_SEED, p + sizeof(*h),
						 len - sizeof(*h)));
	h->hdr_crc = cpu_to_le32(crc32c(SFFS_CRC_SEED, p + 8, sizeof(*h) - 8));
}

/* A value that breaks assumptions about a field of @width bytes */
static u64 fz_hostile(struct fz_state *s, u64 old, int width)
{
	u64 max = width == 8 ? U64_MAX : (1ULL << (width * 8)) - 1;
	u64 pick[] = {
		0, 1, old + 1, old - 1, old * 2, max, max / 2 + 1,
		RF_BLOCKS - 1 + fz_rand(s, 3),			/* block numbers */
		(u64)RF_BLOCKS * RF_ERASESIZE - fz_rand(s, 64),	/* addresses */
		RF_ERASESIZE + fz_rand(s, 3) - 1,		/* lengths */
		SFFS_BLOCK_SIZE + fz_rand(s, 3) - 1,
		((u64)prandom_u32_state(&s->rnd) << 32) |
			prandom_u32_state(&s->rnd),
	};

	return pick[fz_rand(s, ARRAY_SIZE(pick))] & max;
}

/*
 * Point branch @i of the packed index node @in, @len bytes, at the node
 * @o: the stream is packed again and, when it came out shorter, its last
 * number is written with as many more bytes as LEB128 allows (bytes of
 * 0x80, then 0x00), so that it ends where the node does.  Return 0, or
 * -1 and @in unchanged if the stream cannot be read or does not fit.
 */
static int fz_repoint_packed(struct sffs_index_node *in, u32 len,
			     unsigned int cnt, unsigned int i,
			     const struct fz_node *o)
{
	u8 *p = (u8 *)in->branch, *end = (u8 *)in + len, *out, *q, *last;
	struct sffs_ibranch *br, prev = { 0 };
	const u8 *r = p;
	unsigned int k;
	int ret = -1;

	br = kcalloc(cnt, sizeof(*br), GFP_KERNEL);
	out = kmalloc(len, GFP_KERNEL);
	if (!br || !out)
		goto out;
	for (k = 0; k < cnt; k++) {
		if (k)
			br[k] = br[k - 1];
		if (sffs_iunpack(&r, end, &br[k]))
			goto out;
	}
	br[i].addr = o->addr;
	br[i].len = o->len;
	q = out;
	last = out;
	for (k = 0; q && k < cnt; k++) {
		last = q;
		q = sffs_ipack(q, out + (end - p), &prev, &br[k]);
	}
	if (!q)
		goto out;
	if (q < out + (end - p)) {
		/* the last number of the last branch, made longer */
		u8 *num = last;
		unsigned int nb;

		for (k = 0; k < 3; k++)
			while (*num++ & 0x80)
				;
		nb = q - num;
		if (nb + (out + (end - p) - q) > 10)
			goto out;
		while (q < out + (end - p)) {
			q[-1] |= 0x80;
			*q++ = 0;
		}
	}
	memcpy(p, out, end - p);
	ret = 0;
out:
	kfree(br);
	kfree(out);
	return ret;
}

static void fz_set_field(u8 *p, int width, u64 v)
{
	if (width == 1)
		*p = v;
	else if (width == 2)
		put_unaligned_le16(v, p);
	else if (width == 4)
		put_unaligned_le32(v, p);
	else
		put_unaligned_le64(v, p);
}

static u64 fz_get_field(const u8 *p, int width)
{
	if (width == 1)
		return *p;
	if (width == 2)
		return get_unaligned_le16(p);
	if (width == 4)
		return get_unaligned_le32(p);
	return get_unaligned_le64(p);
}

/* A random node of base @b, of @type if it has one (-1: any type) */
static struct fz_node *fz_pick(struct fz_state *s, struct fz_base *b,
			       int type)
{
	unsigned int i, k;

	if (type < 0 || !b->ntype[type])
		return &b->nodes[fz_rand(s, b->nnodes)];
	k = fz_rand(s, b->ntype[type]);
	for (i = 0; i < b->nnodes; i++)
		if (b->nodes[i].type == type && !k--)
			break;
	return &b->nodes[i];
}

/* Pick a node type to damage: every kind is hit often, not by its count */
static int fz_pick_type(struct fz_state *s, struct fz_base *b)
{
	static const u8 types[] = {
		SFFS_NODE_CHECKPOINT, SFFS_NODE_CHECKPOINT, SFFS_NODE_INDEX,
		SFFS_NODE_INDEX, SFFS_NODE_EBT, SFFS_NODE_INODE,
		SFFS_NODE_DENTRY, SFFS_NODE_DATA, SFFS_NODE_XATTR,
		SFFS_NODE_TRUNC, SFFS_NODE_PAD, SFFS_NODE_ORPHAN,
	};

	return types[fz_rand(s, ARRAY_SIZE(types))];
}

static enum fz_kind fz_mutate(struct fz_state *s, struct fz_base *b)
{
	u8 *mem = s->rf->mem;
	struct fz_node *n, *o, newest;
	enum fz_kind kind;
	u32 room, len;
	u8 *p;
	int i, width;

	i = fz_rand(s, 100);
	kind = i < 15 ? FZ_BITS : i < 27 ? FZ_BYTES : i < 70 ? FZ_FIELD :
	       i < 80 ? FZ_LOOP : i < 86 ? FZ_SPLICE : i < 95 ? FZ_DUP_INO :
	       FZ_PAGE;
	if (kind == FZ_FIELD && fz_rand(s, 3) == 0) {
		/* the newest checkpoint is what a mount trusts most */
		newest = (struct fz_node){
			.addr = b->newest_cp, .type = SFFS_NODE_CHECKPOINT,
			.len = sizeof(struct sffs_checkpoint_node),
		};
		n = &newest;
	} else {
		int t = kind == FZ_LOOP || kind == FZ_SPLICE ? SFFS_NODE_INDEX :
			kind == FZ_DUP_INO ? SFFS_NODE_DENTRY :
			kind == FZ_PAGE ? -1 : fz_pick_type(s, b);

		n = fz_pick(s, b, t);
	}
	p = mem + n->addr;
	room = RF_ERASESIZE - n->addr % RF_ERASESIZE;
	/* as mapped: a first mutation may have changed the length field */
	len = min(n->len, room);
	set_bit(n->addr / RF_ERASESIZE, s->rf->touched);

	switch (kind) {
	case FZ_BITS:
		for (i = 0; i <= fz_rand(s, 4); i++) {
			u32 at = fz_rand(s, len);

			p[at] ^= 1 << fz_rand(s, 8);
		}
		break;
	case FZ_BYTES:
		for (i = 0; i <= fz_rand(s, 4); i++)
			p[8 + fz_rand(s, len - 8)] = prandom_u32_state(&s->rnd);
		fz_seal(p, room);
		break;
	case FZ_FIELD:
		/* any field but the magic and the checksums */
		width = 1 << fz_rand(s, 4);
		do {
			i = round_down(fz_rand(s, len), width);
		} while (i < 8 || (i >= 20 && i < 24 && width <= 4) ||
			 (width == 8 && i == 16) || i + width > len);
		/* len >= 32: offset 24 always qualifies */
		fz_set_field(p + i, width,
			     fz_hostile(s, fz_get_field(p + i, width), width));
		fz_seal(p, room);
		break;
	case FZ_LOOP:
	case FZ_SPLICE: {
		struct sffs_index_node *in = (void *)p;
		unsigned int cnt = le16_to_cpu(in->count);
		struct sffs_branch *br;

		if (n->type == SFFS_NODE_INDEX &&
		    in->flags & SFFS_INDEX_PACKED) {
			cnt = min_t(u32, cnt, SFFS_MAX_FANOUT);
			if (!cnt)
				break;
			i = fz_rand(s, cnt);
			o = fz_pick(s, b, kind == FZ_LOOP ? SFFS_NODE_INDEX :
				    fz_pick_type(s, b));
			if (kind == FZ_LOOP && fz_rand(s, 4) == 0)
				o = n;
			if (!fz_repoint_packed(in, len, cnt, i, o))
				fz_seal(p, room);
			break;
		}
		cnt = min_t(u32, cnt, (len - sizeof(*in)) / sizeof(*br));
		if (n->type != SFFS_NODE_INDEX || !cnt)
			break;
		br = &in->branch[fz_rand(s, cnt)];
		o = fz_pick(s, b, kind == FZ_LOOP ? SFFS_NODE_INDEX :
			    fz_pick_type(s, b));
		if (kind == FZ_LOOP && fz_rand(s, 4) == 0)
			o = n;	/* a node that is its own child */
		br->addr = cpu_to_le64(o->addr);
		br->len = cpu_to_le32(o->len);
		fz_seal(p, room);
		break;
	}
	case FZ_DUP_INO:
		o = fz_pick(s, b, fz_rand(s, 2) ? SFFS_NODE_INODE :
					     SFFS_NODE_DENTRY);
		if (n->type == SFFS_NODE_DENTRY && fz_rand(s, 2)) {
			struct sffs_dentry_node *dn = (void *)p;

			/* a name for an inode another name or node has */
			if (o->type == SFFS_NODE_INODE)
				dn->target = ((struct sffs_inode_node *)
					      (mem + o->addr))->key.ino;
			else
				dn->target = ((struct sffs_dentry_node *)
					      (mem + o->addr))->key.ino;
		} else if (n->type == SFFS_NODE_DENTRY ||
			   n->type == SFFS_NODE_INODE) {
			struct sffs_key *k = (void *)(p + sizeof(struct sffs_node_hdr));

			/* a node filed under another inode's number */
			k->ino = cpu_to_le64(SFFS_ROOT_INO + fz_rand(s, 20));
		}
		fz_seal(p, room);
		break;
	default: {
		u32 page = round_down(n->addr, RF_WRITESIZE);

		if (fz_rand(s, 2))
			memset(mem + page, 0xff, RF_WRITESIZE);
		else
			prandom_bytes_state(&s->rnd, mem + page, RF_WRITESIZE);
		break;
	}
	}
	return kind;
}

struct fz_dir {
	struct dir_context ctx;
	struct fz_state *s;
};

static bool fz_filldir(struct dir_context *ctx, const char *name, int len,
		       loff_t pos, u64 ino, unsigned int type)
{
	struct fz_state *s = container_of(ctx, struct fz_dir, ctx)->s;

	if (s->nnames >= FZ_MAX_VISITS)
		return false;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (len >= FZ_NAME || memchr(name, '/', len) || memchr(name, 0, len)) {
		/* a name no path can reach: enough that it was listed */
		s->errors++;
		return true;
	}
	memcpy(s->names[s->nnames], name, len);
	s->names[s->nnames++][len] = 0;
	return true;
}

/* Read everything one entry shows: attributes, data, link, xattrs */
static void fz_visit(struct fz_state *s, struct vfsmount *mnt,
		     const char *path, int depth);

static void fz_read_dir(struct fz_state *s, struct vfsmount *mnt,
			const char *path, int depth)
{
	struct fz_dir d = { .ctx.actor = fz_filldir, .s = s };
	unsigned int first = s->nnames, last, i;
	struct file *f;
	char *sub;
	int err, rounds;

	f = file_open_root_mnt(mnt, path, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(f)) {
		s->errors++;
		return;
	}
	for (rounds = 0; rounds < 16; rounds++) {
		unsigned int before = s->nnames;

		err = iterate_dir(f, &d.ctx);
		if (err || s->nnames == before)
			break;
	}
	if (err)
		s->errors++;
	__fput_sync(f);
	last = s->nnames;
	sub = kmalloc(FZ_PATH, GFP_KERNEL);
	if (!sub)
		return;
	for (i = first; i < last; i++) {
		if (snprintf(sub, FZ_PATH, "%s/%s", path, s->names[i]) >= FZ_PATH)
			continue;
		fz_visit(s, mnt, sub, depth + 1);
	}
	kfree(sub);
}

static void fz_visit(struct fz_state *s, struct vfsmount *mnt,
		     const char *path, int depth)
{
	DEFINE_DELAYED_CALL(done);
	struct kstat st = {};
	struct file *f;
	const char *link;
	ssize_t n, i;
	loff_t pos;

	if (s->visits++ >= FZ_MAX_VISITS)
		return;
	f = file_open_root_mnt(mnt, path, O_PATH | O_NOFOLLOW, 0);
	if (IS_ERR(f)) {
		s->errors++;
		return;
	}
	if (vfs_getattr(&f->f_path, &st, STATX_BASIC_STATS, 0)) {
		s->errors++;
		st.mode = 0;
	}
	/* extended attributes: list them, read each */
	n = vfs_listxattr(f->f_path.dentry, s->buf, PAGE_SIZE);
	for (i = 0; n > 0 && i < n; i += strnlen(s->buf + i, n - i) + 1) {
		char name[XATTR_NAME_MAX + 1];

		strscpy(name, s->buf + i, sizeof(name));
		vfs_getxattr(&init_user_ns, f->f_path.dentry, name,
			     s->buf + PAGE_SIZE, PAGE_SIZE);
	}
	if (S_ISLNK(st.mode)) {
		link = vfs_get_link(f->f_path.dentry, &done);
		if (IS_ERR(link))
			s->errors++;
		do_delayed_call(&done);
	}
	__fput_sync(f);

	if (S_ISDIR(st.mode) && depth < FZ_MAX_DEPTH) {
		fz_read_dir(s, mnt, path, depth);
	} else if (S_ISREG(st.mode)) {
		f = file_open_root_mnt(mnt, path, O_RDONLY | O_NOATIME, 0);
		if (IS_ERR(f)) {
			s->errors++;
			return;
		}
		for (pos = 0; pos < FZ_READ_MAX; ) {
			n = kernel_read(f, s->buf, 2 * PAGE_SIZE, &pos);
			if (n <= 0) {
				s->errors += n < 0;
				break;
			}
			s->reads += n;
		}
		__fput_sync(f);
	}
}

/* On a read-write mount: create, write, sync and remove a file */
static void fz_write(struct fz_state *s, struct vfsmount *mnt)
{
	struct dentry *root = mnt->mnt_root, *d;
	struct inode *dir = d_inode(root);

	sffs_test_fill(s->buf, 3 * PAGE_SIZE, 7, true);
	if (sffs_test_write_file(mnt, "fuzz-new", s->buf, 3 * PAGE_SIZE, true))
		s->errors++;
	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len("fuzz-new", root, strlen("fuzz-new"));
	if (!IS_ERR(d)) {
		if (d_really_is_positive(d) &&
		    vfs_unlink(&init_user_ns, dir, d, NULL))
			s->errors++;
		dput(d);
	}
	inode_unlock(dir);
	down_read(&mnt->mnt_sb->s_umount);
	if (sync_filesystem(mnt->mnt_sb))
		s->errors++;
	up_read(&mnt->mnt_sb->s_umount);
}

/* Damage one image, mount it and walk it */
static void fz_one(struct fz_state *s, unsigned int i)
{
	struct kunit *test = s->test;
	int bi = i & 1, ro = (i >> 1) & 1;
	struct fz_base *b = &s->base[bi];
	unsigned int violations = s->rf->violations;
	struct vfsmount *mnt;
	enum fz_kind kind;
	char src[16];
	long err;

	fz_restore(s, bi);
	prandom_seed_state(&s->rnd, 0x5ff5f022ULL * (i + 1));
	kind = fz_mutate(s, b);
	if (fz_rand(s, 8) == 0)
		fz_mutate(s, b);	/* sometimes two at once */
	s->per_kind[kind]++;

	snprintf(src, sizeof(src), "mtd%d", s->rf->mtd.index);
	mnt = vfs_kern_mount(&sffs_fs_type, SB_KERNMOUNT | (ro ? SB_RDONLY : 0),
			     src, NULL);
	if (IS_ERR(mnt)) {
		err = PTR_ERR(mnt);
		s->refused++;
		s->refused_kind[kind]++;
		/*
		 * Damage is reported as such, not as some other failure;
		 * -EROFS when an unknown ro_compat feature allows only a
		 * read-only mount and a read-write one was asked for.
		 */
		KUNIT_EXPECT_TRUE_MSG(test, err == -EUCLEAN || err == -EINVAL ||
				      err == -EIO || err == -ENOSPC ||
				      (err == -EROFS && !ro),
				      "image %u (%s): mount gave %ld", i,
				      fz_kind_name[kind], err);
		return;
	}
	s->mounted[ro]++;
	s->nnames = 0;
	s->visits = 0;
	fz_visit(s, mnt, ".", 0);
	if (!sb_rdonly(mnt->mnt_sb))
		fz_write(s, mnt);
	sffs_rf_umount(mnt);
	s->write_violations += s->rf->violations - violations;
}

static void sffs_fuzz_images(struct kunit *test)
{
	struct fz_state *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct vfsmount *mnt;
	struct dentry *d;
	struct file *f;
	unsigned int i, k;
	u32 eb;

	KUNIT_ASSERT_NOT_NULL(test, s);
	fz_cur = s;
	s->test = test;
	s->buf = kunit_kmalloc(test, FZ_READ_MAX, GFP_KERNEL);
	s->names = kunit_kmalloc_array(test, FZ_MAX_VISITS, FZ_NAME,
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->buf);
	KUNIT_ASSERT_NOT_NULL(test, s->names);
	s->rf = sffs_rf_create(test, NULL, 0);

	/* base 0: a clean file system, written in two mounts */
	for (k = 0; k < 2; k++) {
		mnt = sffs_rf_mount(s->rf, k ? "compr=lzo" : "compr=none");
		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		KUNIT_ASSERT_EQ(test, fz_populate(test, mnt, s->buf, k), 0);
		sffs_rf_umount(mnt);
	}
	fz_snapshot(s, &s->base[0]);

	/*
	 * base 1: more written and fsync'd, and a file unlinked while open,
	 * then the power cut: the mount replays and deletes an orphan
	 */
	mnt = sffs_rf_mount(s->rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, fz_populate(test, mnt, s->buf, 2), 0);
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "orphan", s->buf, 9000,
						   true), 0);
	f = file_open_root_mnt(mnt, "orphan", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	d = lookup_one_len_unlocked("orphan", mnt->mnt_root, 6);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d));
	inode_lock_nested(d_inode(mnt->mnt_root), I_MUTEX_PARENT);
	KUNIT_EXPECT_EQ(test, vfs_unlink(&init_user_ns, d_inode(mnt->mnt_root),
					 d, NULL), 0);
	inode_unlock(d_inode(mnt->mnt_root));
	dput(d);
	KUNIT_EXPECT_EQ(test, vfs_fsync(f, 0), 0);
	s->rf->dead = true;	/* the unmount's commit is lost */
	__fput_sync(f);
	sffs_rf_umount(mnt);
	s->rf->dead = false;
	fz_snapshot(s, &s->base[1]);
	s->cur = 1;
	for (eb = 0; eb < RF_BLOCKS; eb++)
		if (memcmp(s->base[0].mem + (size_t)eb * RF_ERASESIZE,
			   s->base[1].mem + (size_t)eb * RF_ERASESIZE,
			   RF_ERASESIZE))
			set_bit(eb, s->differ);
	KUNIT_ASSERT_GT(test, s->base[1].ntype[SFFS_NODE_INDEX], 0U);
	KUNIT_ASSERT_GT(test, s->base[1].ntype[SFFS_NODE_EBT], 0U);
	KUNIT_ASSERT_GT(test, s->base[1].ntype[SFFS_NODE_TRUNC], 0U);
	KUNIT_ASSERT_GT(test, s->base[1].ntype[SFFS_NODE_ORPHAN], 0U);

	/* both mount as they are, and show what was written */
	for (k = 0; k < 2; k++) {
		fz_restore(s, k);
		mnt = sffs_rf_mount(s->rf, NULL);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "base %u", k);
		s->nnames = 0;
		s->visits = 0;
		s->errors = 0;
		fz_visit(s, mnt, ".", 0);
		sffs_rf_umount(mnt);
		KUNIT_EXPECT_EQ_MSG(test, s->errors, 0UL, "base %u", k);
		/* the root, and what two or three rounds added */
		KUNIT_EXPECT_EQ_MSG(test, s->visits, 1UL + (2 + k) * FZ_ENTRIES,
				    "base %u", k);
	}
	KUNIT_ASSERT_EQ(test, s->rf->violations, 0U);

	s->errors = 0;
	s->reads = 0;
	for (i = 0; i < fuzz_images; i++)
		fz_one(s, i);

	kunit_info(test, "%u images (%u+%u nodes mapped): %lu mounted read-write, %lu read-only, %lu refused; %lu read errors, %lu bytes read, %lu rejected writes\n",
		   fuzz_images, s->base[0].nnodes, s->base[1].nnodes,
		   s->mounted[0], s->mounted[1], s->refused, s->errors,
		   s->reads, s->write_violations);
	for (k = 0; k < FZ_KINDS; k++)
		kunit_info(test, "  %-14s %6lu images, %6lu refused\n",
			   fz_kind_name[k], s->per_kind[k], s->refused_kind[k]);
	/* a fuzzer that never gets past the mount, or never stops one, is broken */
	if (fuzz_images >= 100) {
		KUNIT_EXPECT_GT(test, s->mounted[0] + s->mounted[1],
				(unsigned long)fuzz_images / 10);
		KUNIT_EXPECT_GT(test, s->refused, (unsigned long)fuzz_images / 100);
	}
}

static void sffs_fuzz_exit(struct kunit *test)
{
	if (fz_cur) {
		vfree(fz_cur->base[0].mem);
		vfree(fz_cur->base[1].mem);
		fz_cur = NULL;
	}
	sffs_rf_exit(test);
}

static struct kunit_case sffs_fuzz_cases[] = {
	KUNIT_CASE(sffs_fuzz_images),
	{}
};

static struct kunit_suite sffs_fuzz_suite = {
	.name = "sffs_fuzz",
	.exit = sffs_fuzz_exit,
	.test_cases = sffs_fuzz_cases,
};

kunit_test_suite(sffs_fuzz_suite);
