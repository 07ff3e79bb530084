// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS inodes: reading them through the index, journaling changes, and
 * deleting them with everything they own.
 *
 * An inode's attributes are one inode node; its data blocks, directory
 * entries and extended attributes are leaf nodes whose keys start with its
 * inode number, so deleting an inode is one range removal in the index,
 * journaled as a single trunc node with SFFS_TRUNC_FL_DELETE.
 *
 * An inode node is written whenever the inode changes in a way that
 * matters (directory operations write it in the same journal operation);
 * timestamps and sizes written through the page cache reach the flash by
 * write_inode() at writeback, or at fsync.
 */
#include <linux/fs.h>
#include <linux/mtd/mtd.h>
#include <linux/slab.h>
#include <linux/pagemap.h>
#include "sffs.h"

/*
 * Flash that writing back @bytes of page budget may take: the nodes, and
 * the tail of each erase block that no whole node fits in, which the
 * journal leaves dead when it moves on.
 */
static u64 sffs_budget_flash(const struct sffs_info *c, u64 bytes)
{
	u32 esize = c->io.erase_size;
	u32 fit = max_t(u32, rounddown(esize, SFFS_PAGE_BUDGET),
			SFFS_PAGE_BUDGET);

	return div_u64(bytes * esize, fit);
}

/**
 * sffs_space - check that an operation fits on the flash
 * @c: the file system
 * @bytes: flash the operation needs
 * @deleting: the operation frees space: it may use half the reserve
 *
 * Dead bytes count as space: garbage collection turns them into free
 * erase blocks when they are needed.  The reserve is what the next commit
 * may need and what garbage collection needs to make progress; without it
 * a full file system could neither commit its last changes nor collect.
 * An operation that adds data must also find what is promised to dirty
 * pages, and to it, in free bytes, with the tails of the blocks it fills
 * and beyond what a commit needs: if it does not, garbage collection runs
 * now rather than at writeback, and where it cannot free enough (dead
 * bytes spread too thin, sffs_gc_cover()) the operation fails here.
 * Deleting operations and inode updates do not wait for collection: they
 * may use the reserve, so that a full file system can still be emptied
 * and fsync can still write a file's size.  Called with @c->mutex held.
 *
 * Return: 0, -ENOSPC, -EROFS, or an error of garbage collection.
 */
int sffs_space(struct sffs_info *c, u64 bytes, bool deleting)
{
	struct sffs_journal *j = &c->j;
	u64 reserve = sffs_journal_reserve(j) + sffs_gc_reserve(j);

	if (deleting)
		reserve /= 2;
	if (j->free + j->dirty < reserve + c->budget + bytes)
		return -ENOSPC;
	/* what is promised must be free before writeback needs it */
	return deleting ? 0 :
	       sffs_gc_cover(j, sffs_budget_flash(c, c->budget + bytes));
}

/**
 * sffs_read_leaf - read the leaf node of a key
 * @c: the file system, @c->mutex held
 * @key: the key
 * @type: node type expected
 * @buf: at least SFFS_MAX_LEAF_LEN bytes
 *
 * Return: 0, -ENOENT, -EIO, or -EUCLEAN if the node is damaged or not the
 * one of @key.
 */
int sffs_read_leaf(struct sffs_info *c, const struct sffs_ckey *key, int type,
		   void *buf)
{
	struct sffs_ckey nkey = {};
	struct sffs_zref ref;
	int err;

	err = sffs_index_lookup(&c->j.idx, key, &ref);
	if (err)
		return err;
	if (ref.len > SFFS_MAX_LEAF_LEN)
		return -EUCLEAN;
	err = sffs_io_read_node(&c->io, ref.addr, ref.len, buf, type);
	if (err)
		return err;
	/* a node of the right type, but filed under another key */
	if (sffs_node_key(buf, &nkey) || sffs_key_cmp(&nkey, key)) {
		pr_err_once("sffs: %s: node at %llu has key %llx:%llx, the index says %llx:%llx\n",
			    c->io.mtd->name, ref.addr, nkey.ino, nkey.tv,
			    key->ino, key->tv);
		return -EUCLEAN;
	}
	return 0;
}

static void sffs_ts_to_le(struct sffs_timestamp *d, const struct timespec64 *s)
{
	d->sec = cpu_to_le64(s->tv_sec);
	d->nsec = cpu_to_le32(s->tv_nsec);
	d->reserved = 0;
}

static struct timespec64 sffs_ts_from_le(const struct sffs_timestamp *s)
{
	return (struct timespec64){
		.tv_sec = le64_to_cpu(s->sec),
		.tv_nsec = min_t(u32, le32_to_cpu(s->nsec), NSEC_PER_SEC - 1),
	};
}

/**
 * sffs_find_name - look a name up among the hashed keys of an inode
 * @c: the file system, its mutex held
 * @ino: the directory, or the inode owning the attribute
 * @type: %SFFS_NODE_DENTRY or %SFFS_NODE_XATTR
 * @name: the name
 * @len: its length
 * @buf: room for the largest node of @type; holds the one found
 * @slot: the result
 *
 * Names are keyed by their hash plus a collision index, so all the nodes
 * whose name has the same hash sit side by side in the index.  Read them
 * until the name matches.  When it does not, @slot->key is where a new
 * node of that name goes: the first collision index not in use, or
 * @slot->free_coll is ~0 when all %SFFS_MAX_COLLISIONS are taken.
 *
 * Return: 0, or an error of the index or of the flash.
 */
int sffs_find_name(struct sffs_info *c, u64 ino, unsigned int type,
		   const char *name, u32 len, void *buf,
		   struct sffs_name_slot *slot)
{
	unsigned int ktype = type == SFFS_NODE_DENTRY ? SFFS_KEY_DENTRY :
							SFFS_KEY_XATTR;
	u32 max_len = type == SFFS_NODE_DENTRY ? SFFS_DENTRY_MAX_LEN :
						 SFFS_XATTR_MAX_LEN;
	u64 h = (u64)sffs_name_hash(name, len) << SFFS_HASH_SHIFT;
	struct sffs_ckey key = sffs_key(ino, ktype, h);
	struct sffs_ckey end = sffs_key(ino, ktype, h + SFFS_MAX_COLLISIONS);
	struct sffs_zref ref;
	u32 expect = 0;
	int err;

	slot->found = false;
	slot->free_coll = ~0U;
	for (;;) {
		const struct sffs_dentry_node *de = buf;
		const struct sffs_xattr_node *xn = buf;
		const u8 *nname;
		u32 nlen;

		err = sffs_index_next(&c->j.idx, &key, &ref);
		if (err == -ENOENT || (!err && sffs_key_cmp(&ref.key, &end) >= 0))
			break;
		if (err)
			return err;
		if (slot->free_coll == ~0U &&
		    sffs_key_value(&ref.key) - h != expect)
			slot->free_coll = expect;
		expect = sffs_key_value(&ref.key) - h + 1;
		if (ref.len > max_len)
			return -EUCLEAN;
		err = sffs_io_read_node(&c->io, ref.addr, ref.len, buf, type);
		if (err)
			return err;
		if (type == SFFS_NODE_DENTRY) {
			nname = de->name;
			nlen = le16_to_cpu(de->name_len);
		} else {
			nname = xn->data;
			nlen = le16_to_cpu(xn->name_len);
		}
		if (nlen == len && !memcmp(nname, name, len)) {
			slot->key = ref.key;
			slot->found = true;
			return 0;
		}
		key = ref.key;
		key.tv++;
	}
	if (slot->free_coll == ~0U && expect < SFFS_MAX_COLLISIONS)
		slot->free_coll = expect;
	if (slot->free_coll != ~0U)
		slot->key = sffs_key(ino, ktype, h + slot->free_coll);
	return 0;
}

/**
 * sffs_feature_incompat - turn on an incompatible feature, before its use
 * @c: the file system
 * @feat: SFFS_FEAT_INCOMPAT_*
 *
 * The first node only a kernel knowing @feat can read must not reach the
 * journal before a checkpoint says the file system has @feat: a kernel
 * without it would take that node for a torn write and end the replay
 * there.  So a commit writes the flag first, once.
 *
 * Return: 0, or the error of the commit (the flag is then left off).
 */
int sffs_feature_incompat(struct sffs_info *c, u32 feat)
{
	struct sffs_checkpoint_node *cp = &c->j.cp;
	int err = 0;

	sffs_lock(c);
	if (!(le32_to_cpu(cp->feat_incompat) & feat)) {
		cp->feat_incompat |= cpu_to_le32(feat);
		err = sffs_journal_commit(&c->j);
		if (err)
			cp->feat_incompat &= ~cpu_to_le32(feat);
		else
			pr_info("sffs: %s: incompatible feature %#x turned on: kernels before it cannot mount this file system\n",
				c->io.mtd->name, feat);
	}
	sffs_unlock(c);
	return err;
}

/**
 * sffs_fill_inode - set up a VFS inode from its inode node
 * @inode: a new inode
 * @in: its node, as read from the flash
 *
 * The operations are left to the caller (sffs_iget()).
 *
 * Return: 0, -EUCLEAN for a node that does not make sense, or -ENOMEM.
 */
int sffs_fill_inode(struct inode *inode, const struct sffs_inode_node *in)
{
	struct sffs_inode *si = SFFS_I(inode);
	u16 dlen = le16_to_cpu(in->data_len);

	/*
	 * The root and names lead here, and an inode without links has no
	 * name: its evict would delete what a name still points at.
	 * Orphans are read through the index, not through sffs_iget().
	 */
	if (!in->nlink)
		return -EUCLEAN;
	inode->i_mode = le32_to_cpu(in->mode);
	i_uid_write(inode, le32_to_cpu(in->uid));
	i_gid_write(inode, le32_to_cpu(in->gid));
	set_nlink(inode, le32_to_cpu(in->nlink));
	inode->i_size = le64_to_cpu(in->size);
	si->flash_size = inode->i_size;
	inode->i_atime = sffs_ts_from_le(&in->atime);
	inode->i_mtime = sffs_ts_from_le(&in->mtime);
	inode->i_ctime = sffs_ts_from_le(&in->ctime);
	inode->i_rdev = new_decode_dev(le32_to_cpu(in->rdev));
	si->compr = in->compr;
	si->flags = le32_to_cpu(in->flags);
	si->xattr_cnt = le32_to_cpu(in->xattr_cnt);
	si->xattr_size = le32_to_cpu(in->xattr_size);

	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (dlen || inode->i_size < 0)
			return -EUCLEAN;
		break;
	case S_IFLNK:
		if (!dlen || inode->i_size != dlen)
			return -EUCLEAN;
		inode->i_link = kmemdup_nul(in->data, dlen, GFP_NOFS);
		if (!inode->i_link)
			return -ENOMEM;
		break;
	default:
		return -EUCLEAN;
	}
	inode->i_blocks = DIV_ROUND_UP_ULL(inode->i_size, 512);
	return 0;
}

/**
 * sffs_new_inode - a new inode in a directory, not yet on flash
 * @dir: the directory
 * @mode: type and permissions
 *
 * The caller journals its inode node with the directory entry.
 *
 * Return: the inode or an ERR_PTR().
 */
struct inode *sffs_new_inode(struct inode *dir, umode_t mode)
{
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct inode *inode;

	inode = new_inode(dir->i_sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode_init_owner(&init_user_ns, inode, dir, mode);
	inode->i_mtime = current_time(inode);
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	SFFS_I(inode)->compr = S_ISREG(mode) ? SFFS_I(dir)->compr : 0;
	if (!sffs_tfm(c, SFFS_I(inode)->compr))
		SFFS_I(inode)->compr = c->compr;
	sffs_lock(c);
	inode->i_ino = c->j.next_ino++;
	sffs_unlock(c);
	return inode;
}

/* Finish a new inode once its nodes are on flash */
void sffs_new_inode_done(struct inode *inode)
{
	/* nothing of it on the flash: no stale data to look for */
	set_bit(SFFS_I_NO_STALE, &SFFS_I(inode)->state);
	insert_inode_hash(inode);
}

/*
 * The lowest page of @mapping from @from on that is dirty or under
 * writeback, @except left out; ULONG_MAX if there is none.  The page cache keeps one of the
 * two tags on a page from the moment it is dirtied until writeback has
 * ended, so no page slips between them.
 */
static pgoff_t sffs_first_pending(struct address_space *mapping,
				  pgoff_t from, pgoff_t except)
{
	static const xa_mark_t tags[] = {
		PAGECACHE_TAG_DIRTY, PAGECACHE_TAG_WRITEBACK,
	};
	pgoff_t first = ULONG_MAX;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tags); i++) {
		pgoff_t index = from;

		while (index < first &&
		       xa_find(&mapping->i_pages, &index, first - 1, tags[i])) {
			if (index != except) {
				first = index;
				break;
			}
			index++;
		}
	}
	return first;
}

/**
 * sffs_claim_size - the size an inode node may give a regular file
 * @inode: the inode
 * @except: a page being written back with this node, or ULONG_MAX
 *
 * The size on the flash never covers data still in the page cache: after
 * a power cut a file then holds what reached the flash, and never a run
 * of zeroes where written data was to go (what a rename over an old file
 * without fsync left with the size journaled first).  So the size grows
 * up to the first page still dirty or under writeback, @except aside, and
 * to i_size once there is none.  Never below what the flash has already:
 * only a truncation shrinks a file.  Pages below that size do not matter:
 * the flash has data for them already, or a hole.
 *
 * Called with the file system's mutex held, which orders every inode
 * node built with the journal: the node built last is journaled last.
 *
 * Return: the size to journal.
 */
loff_t sffs_claim_size(struct inode *inode, pgoff_t except)
{
	loff_t size = i_size_read(inode), flash = SFFS_I(inode)->flash_size;
	pgoff_t first;

	if (!S_ISREG(inode->i_mode) || size <= flash)
		return size;
	first = sffs_first_pending(inode->i_mapping, flash >> PAGE_SHIFT,
				   except);
	if (first >= (size + PAGE_SIZE - 1) >> PAGE_SHIFT)
		return size;
	return clamp_t(loff_t, (loff_t)first << PAGE_SHIFT, flash, size);
}

/**
 * sffs_inode_node_size - build the inode node of an inode, with a given size
 * @inode: the inode
 * @wn: the node to journal; @wn->buf is allocated here, kfree() it
 * @size: the size to record (i_size, or what sffs_claim_size() allows)
 *
 * Return: 0 or -ENOMEM.
 */
int sffs_inode_node_size(struct inode *inode, struct sffs_wnode *wn,
			 loff_t size)
{
	u16 dlen = S_ISLNK(inode->i_mode) ? inode->i_size : 0;
	struct sffs_inode_node *in;
	struct sffs_ckey key = sffs_key(inode->i_ino, SFFS_KEY_INODE, 0);

	in = kzalloc(sizeof(*in) + dlen, GFP_NOFS);
	if (!in)
		return -ENOMEM;
	sffs_key_to_le(&in->key, &key);
	in->size = cpu_to_le64(size);
	sffs_ts_to_le(&in->atime, &inode->i_atime);
	sffs_ts_to_le(&in->mtime, &inode->i_mtime);
	sffs_ts_to_le(&in->ctime, &inode->i_ctime);
	in->uid = cpu_to_le32(i_uid_read(inode));
	in->gid = cpu_to_le32(i_gid_read(inode));
	in->mode = cpu_to_le32(inode->i_mode);
	in->nlink = cpu_to_le32(inode->i_nlink);
	in->flags = cpu_to_le32(SFFS_I(inode)->flags);
	in->rdev = cpu_to_le32(new_encode_dev(inode->i_rdev));
	in->xattr_cnt = cpu_to_le32(SFFS_I(inode)->xattr_cnt);
	in->xattr_size = cpu_to_le32(SFFS_I(inode)->xattr_size);
	in->data_len = cpu_to_le16(dlen);
	in->compr = SFFS_I(inode)->compr;
	if (dlen)
		memcpy(in->data, inode->i_link, dlen);
	*wn = (struct sffs_wnode){
		.buf = in, .len = sizeof(*in) + dlen, .type = SFFS_NODE_INODE,
	};
	return 0;
}

/**
 * sffs_inode_journaled - note the size an inode node gave the flash
 * @inode: the inode
 * @wn: its inode node, journaled
 *
 * Only once the node is in the journal: a node that failed or was never
 * written (no space) leaves the size the flash has.  @c->mutex held.
 */
void sffs_inode_journaled(struct inode *inode, const struct sffs_wnode *wn)
{
	const struct sffs_inode_node *in = wn->buf;

	SFFS_I(inode)->flash_size = le64_to_cpu(in->size);
}

/**
 * sffs_inode_node - build the inode node of an inode
 * @inode: the inode
 * @wn: the node to journal; @wn->buf is allocated here, kfree() it
 *
 * The size is what sffs_claim_size() allows.
 *
 * Return: 0 or -ENOMEM.
 */
int sffs_inode_node(struct inode *inode, struct sffs_wnode *wn)
{
	return sffs_inode_node_size(inode, wn,
				    sffs_claim_size(inode, ULONG_MAX));
}

/**
 * sffs_orphan_node - build the orphan record of an inode losing its last link
 * @inode: the inode
 * @wn: the node to journal; @wn->buf is allocated here, kfree() it
 *
 * Return: 0 or -ENOMEM.
 */
int sffs_orphan_node(struct inode *inode, struct sffs_wnode *wn)
{
	struct sffs_ckey key = sffs_key(SFFS_META_INO, SFFS_KEY_ORPHAN,
					inode->i_ino);
	struct sffs_orphan_node *on;

	on = kzalloc(sizeof(*on), GFP_NOFS);
	if (!on)
		return -ENOMEM;
	sffs_key_to_le(&on->key, &key);
	*wn = (struct sffs_wnode){
		.buf = on, .len = sizeof(*on), .type = SFFS_NODE_ORPHAN,
	};
	return 0;
}

/*
 * Finish one orphan of the list: delete the inode, which removes the
 * record too, or only the record when the inode has links (a damaged
 * list: the inode is in use by its names).  @c->mutex held.
 */
static int sffs_orphan_finish(struct sffs_info *c, u64 ino)
{
	struct sffs_ckey key = sffs_key(ino, SFFS_KEY_INODE, 0);
	struct sffs_inode_node *in = c->rbuf;
	struct sffs_trunc_node tn = {};
	struct sffs_orphan_node on = {};
	struct sffs_wnode wn = {
		.buf = &tn, .len = sizeof(tn), .type = SFFS_NODE_TRUNC,
		.flags = SFFS_TRUNC_FL_DELETE,
	};
	int err;

	err = sffs_read_leaf(c, &key, SFFS_NODE_INODE, in);
	if (err && err != -ENOENT)
		return err;
	if (!err && in->nlink) {
		pr_warn("sffs: %s: inode %llu has %u links but an orphan record: record dropped\n",
			c->io.mtd->name, ino, le32_to_cpu(in->nlink));
		key = sffs_key(SFFS_META_INO, SFFS_KEY_ORPHAN, ino);
		sffs_key_to_le(&on.key, &key);
		wn = (struct sffs_wnode){
			.buf = &on, .len = sizeof(on), .type = SFFS_NODE_ORPHAN,
			.flags = SFFS_ORPHAN_FL_DELETE,
		};
	} else {
		/* an inode already gone leaves a record to remove only */
		tn.ino = cpu_to_le64(ino);
		tn.old_size = err ? 0 : in->size;
	}
	return sffs_write_op(&c->j, &wn, 1);
}

/**
 * sffs_orphans_finish - delete the inodes a power cut left unlinked
 * @c: the file system, mounted read-write, @c->mutex not held
 *
 * Inodes unlinked while open are deleted when they are evicted; if the
 * power went before, their orphan records are still in the index, all
 * under (%SFFS_META_INO, %SFFS_KEY_ORPHAN).  One index lookup finds them:
 * after a clean unmount there are none, and the mount stays constant
 * time.  Failures are logged and leave the records for the next mount.
 */
void sffs_orphans_finish(struct sffs_info *c)
{
	struct sffs_ckey key = sffs_key(SFFS_META_INO, SFFS_KEY_ORPHAN, 0);
	struct sffs_orphan_node *on;
	struct sffs_ckey nkey;
	struct sffs_zref ref;
	unsigned long n = 0;
	struct inode *inode;
	int err;

	on = kmalloc(sizeof(*on), GFP_KERNEL);
	if (!on)
		return;
	for (;;) {
		u64 ino;

		sffs_lock(c);
		err = sffs_index_next(&c->j.idx, &key, &ref);
		if (!err && (ref.key.ino != SFFS_META_INO ||
			     sffs_key_type(&ref.key) != SFFS_KEY_ORPHAN))
			err = -ENOENT;
		sffs_unlock(c);
		if (err)
			break;
		key = ref.key;
		key.tv++;
		ino = sffs_key_value(&ref.key);
		/*
		 * Still in use (a remount read-write with the file open):
		 * its evict deletes it.
		 */
		inode = ilookup(c->sb, ino);
		if (inode) {
			iput(inode);
			continue;
		}
		sffs_lock(c);
		err = ref.len == sizeof(*on) ? 0 : -EUCLEAN;
		if (!err)
			err = sffs_io_read_node(&c->io, ref.addr, ref.len, on,
						SFFS_NODE_ORPHAN);
		if (!err) {
			sffs_node_key(on, &nkey);
			if (sffs_key_cmp(&nkey, &ref.key))
				err = -EUCLEAN;
		}
		if (!err)
			err = sffs_orphan_finish(c, ino);
		sffs_unlock(c);
		if (err == -EUCLEAN || err == -EIO) {
			/* this record is damaged: the others may not be */
			pr_err("sffs: %s: orphan record of inode %llu: %d; left\n",
			       c->io.mtd->name, ino, err);
			continue;
		}
		if (err)
			break;
		n++;
	}
	kfree(on);
	if (err != -ENOENT)
		pr_err("sffs: %s: orphan inodes not deleted: %d; the next mount tries again\n",
		       c->io.mtd->name, err);
	if (n) {
		c->orphans += n;
		pr_info("sffs: %s: deleted %lu orphan inodes\n",
			c->io.mtd->name, n);
	}
}

/* Journal the inode node of @inode on its own */
int sffs_write_inode_now(struct inode *inode)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	struct sffs_wnode wn;
	int err;

	sffs_lock(c);
	err = sffs_inode_node(inode, &wn);
	if (!err) {
		err = sffs_space(c, wn.len, true);
		if (!err)
			err = sffs_write_op(&c->j, &wn, 1);
		if (!err)
			sffs_inode_journaled(inode, &wn);
		kfree(wn.buf);
	}
	sffs_unlock(c);
	return err;
}

/*
 * Whether the size on the flash is short of i_size: pages still waiting
 * kept it so (sffs_claim_size()), or the node failed.
 */
bool sffs_size_behind(struct inode *inode)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	bool behind;

	sffs_lock(c);
	behind = S_ISREG(inode->i_mode) && !c->io.ro &&
		 SFFS_I(inode)->flash_size < i_size_read(inode);
	sffs_unlock(c);
	return behind;
}

int sffs_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	int err = sffs_write_inode_now(inode);

	/* stay dirty while the size is behind: a later writeback catches up */
	if (sffs_size_behind(inode))
		mark_inode_dirty_sync(inode);
	return err;
}

void sffs_evict_inode(struct inode *inode)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	struct sffs_trunc_node tn = {};
	struct sffs_wnode wn = {
		.buf = &tn, .len = sizeof(tn), .type = SFFS_NODE_TRUNC,
		.flags = SFFS_TRUNC_FL_DELETE,
	};
	int err;

	truncate_inode_pages_final(&inode->i_data);
	if (!inode->i_nlink && !is_bad_inode(inode) &&
	    !sb_rdonly(inode->i_sb)) {
		tn.ino = cpu_to_le64(inode->i_ino);
		tn.old_size = cpu_to_le64(inode->i_size);
		sffs_lock(c);
		err = sffs_write_op(&c->j, &wn, 1);
		sffs_unlock(c);
		if (err)
			pr_err("sffs: %s: cannot delete inode %lu: %d\n",
			       c->io.mtd->name, inode->i_ino, err);
	}
	clear_inode(inode);
}
