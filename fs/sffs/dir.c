// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS directories.
 *
 * A directory entry is a dentry node keyed by the parent's inode number
 * and the crc32c of the name, with a collision index in the low 8 bits;
 * a lookup reads only the entries whose name hashes alike, so it costs a
 * B+tree walk whatever the size of the directory.  readdir walks the
 * parent's dentry keys in order; the key value is the directory position,
 * which stays valid across insertions and removals.  There are no "." and
 * ".." entries on flash: ".." is the dcache's business.
 *
 * Every directory operation is one journal operation: the entries it adds
 * and removes and the inodes whose link counts or times change, applied
 * after a power cut wholly or not at all.
 */
#include <linux/mtd/mtd.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include "sffs.h"

static void sffs_set_ops(struct inode *inode)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &sffs_file_inode_operations;
		inode->i_fop = &sffs_file_operations;
		inode->i_mapping->a_ops = &sffs_aops;
		break;
	case S_IFDIR:
		inode->i_op = &sffs_dir_inode_operations;
		inode->i_fop = &sffs_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &sffs_symlink_inode_operations;
		break;
	default:
		inode->i_op = &sffs_special_inode_operations;
		init_special_inode(inode, inode->i_mode, inode->i_rdev);
		break;
	}
}

/**
 * sffs_iget - get an inode, reading it from flash if it is not cached
 * @sb: the super block
 * @ino: inode number
 *
 * Return: the inode or an ERR_PTR().
 */
struct inode *sffs_iget(struct super_block *sb, u64 ino)
{
	struct sffs_info *c = SFFS_SB(sb);
	struct sffs_ckey key = sffs_key(ino, SFFS_KEY_INODE, 0);
	struct inode *inode;
	int err;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;

	sffs_lock(c);
	err = sffs_read_leaf(c, &key, SFFS_NODE_INODE, c->rbuf);
	if (!err)
		err = sffs_fill_inode(inode, c->rbuf);
	sffs_unlock(c);
	if (!err) {
		sffs_set_ops(inode);
		/* for its writes, which hold the mutex */
		sffs_tfm(c, SFFS_I(inode)->compr);
	}
	if (err) {
		if (err == -ENOENT || err == -EUCLEAN)
			pr_err("sffs: %s: inode %llu: %s\n", c->io.mtd->name, ino,
			       err == -ENOENT ? "not in the index" : "corrupt");
		iget_failed(inode);
		return ERR_PTR(err == -ENOENT ? -EUCLEAN : err);
	}
	unlock_new_inode(inode);
	return inode;
}

/* A new inode whose nodes are on flash: its operations, and the hash */
static void sffs_new_inode_ready(struct inode *inode)
{
	sffs_set_ops(inode);
	sffs_new_inode_done(inode);
}

/* What a name in a directory resolves to */
struct sffs_dent {
	struct sffs_name_slot s;
	u64 target;
};

/* Look @name up in directory @dir.  @c->mutex held. */
static int sffs_find_dent(struct sffs_info *c, u64 dir, const struct qstr *name,
			  struct sffs_dent *d)
{
	struct sffs_dentry_node *de = c->rbuf;
	int err;

	err = sffs_find_name(c, dir, SFFS_NODE_DENTRY, name->name, name->len,
			     de, &d->s);
	d->target = !err && d->s.found ? le64_to_cpu(de->target) : 0;
	return err;
}

static struct dentry *sffs_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct inode *inode = NULL;
	struct sffs_dent d;
	int err;

	if (dentry->d_name.len > SFFS_MAX_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	sffs_lock(c);
	err = sffs_find_dent(c, dir->i_ino, &dentry->d_name, &d);
	sffs_unlock(c);
	if (err)
		return ERR_PTR(err);
	if (d.s.found)
		inode = sffs_iget(dir->i_sb, d.target);
	return d_splice_alias(inode, dentry);
}

/* A dentry node for @name in @dir pointing at @inode, or deleting it */
static int sffs_dent_node(const struct sffs_ckey *key, const struct qstr *name,
			  struct inode *inode, struct sffs_wnode *wn)
{
	struct sffs_dentry_node *de;

	de = kzalloc(sizeof(*de) + name->len, GFP_NOFS);
	if (!de)
		return -ENOMEM;
	sffs_key_to_le(&de->key, key);
	if (inode) {
		de->target = cpu_to_le64(inode->i_ino);
		de->type = fs_umode_to_dtype(inode->i_mode);
	}
	de->name_len = cpu_to_le16(name->len);
	memcpy(de->name, name->name, name->len);
	*wn = (struct sffs_wnode){
		.buf = de, .len = sizeof(*de) + name->len,
		.type = SFFS_NODE_DENTRY,
	};
	return 0;
}

struct sffs_op {
	struct sffs_wnode wn[SFFS_MAX_GROUP];
	struct inode *inode[SFFS_MAX_GROUP];	/* of the inode nodes */
	int n;
	u64 bytes;
};

static int sffs_op_dent(struct sffs_op *op, const struct sffs_ckey *key,
			const struct qstr *name, struct inode *inode)
{
	int err;

	if (WARN_ON(op->n == SFFS_MAX_GROUP))
		return -EINVAL;
	err = sffs_dent_node(key, name, inode, &op->wn[op->n]);
	if (!err)
		op->bytes += ALIGN(op->wn[op->n++].len, SFFS_NODE_ALIGN);
	return err;
}

static int sffs_op_inode(struct sffs_op *op, struct inode *inode)
{
	int i, err;

	for (i = 0; i < op->n; i++) {
		struct sffs_inode_node *in = op->wn[i].buf;

		if (op->wn[i].type == SFFS_NODE_INODE &&
		    le64_to_cpu(in->key.ino) == inode->i_ino)
			return 0;
	}
	if (WARN_ON(op->n == SFFS_MAX_GROUP))
		return -EINVAL;
	err = sffs_inode_node(inode, &op->wn[op->n]);
	if (err)
		return err;
	op->inode[op->n] = inode;
	op->bytes += ALIGN(op->wn[op->n++].len, SFFS_NODE_ALIGN);
	/*
	 * The last link goes, but the inode lives on while it is open: an
	 * orphan record in the same operation lets the mount after a power
	 * cut delete it, and its deletion at evict removes the record.
	 */
	if (!inode->i_nlink) {
		if (WARN_ON(op->n == SFFS_MAX_GROUP))
			return -EINVAL;
		err = sffs_orphan_node(inode, &op->wn[op->n]);
		if (!err)
			op->bytes += ALIGN(op->wn[op->n++].len,
					   SFFS_NODE_ALIGN);
	}
	return err;
}

/*
 * An O_TMPFILE file gets its first name: its orphan record goes in the
 * same operation, or the next mount would delete a file a name reaches.
 */
static int sffs_op_unorphan(struct sffs_op *op, struct inode *inode)
{
	int err;

	if (WARN_ON(op->n == SFFS_MAX_GROUP))
		return -EINVAL;
	err = sffs_orphan_node(inode, &op->wn[op->n]);
	if (!err) {
		op->wn[op->n].flags = SFFS_ORPHAN_FL_DELETE;
		op->bytes += ALIGN(op->wn[op->n++].len, SFFS_NODE_ALIGN);
	}
	return err;
}

static void sffs_op_free(struct sffs_op *op)
{
	while (op->n)
		kfree(op->wn[--op->n].buf);
}

static int sffs_op_commit(struct sffs_info *c, struct sffs_op *op,
			  bool deleting)
{
	int i, err;

	/*
	 * sffs_symlink_max() keeps the largest operation within half an
	 * erase block; symlinks made before it counted the whiteout of a
	 * rename can still be too long for one: refuse, never half-journal.
	 */
	if (op->bytes > c->io.erase_size / 2)
		return -ENAMETOOLONG;
	err = sffs_space(c, op->bytes, deleting);
	if (!err)
		err = sffs_write_op(&c->j, op->wn, op->n);
	for (i = 0; !err && i < op->n; i++)
		if (op->inode[i])
			sffs_inode_journaled(op->inode[i], &op->wn[i]);
	return err;
}

/* Add a new inode under @dentry of @dir: create, mkdir, mknod, symlink */
static int sffs_add_new(struct inode *dir, struct dentry *dentry,
			struct inode *inode)
{
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct sffs_op op = {};
	struct sffs_dent d;
	int err;

	dir->i_mtime = inode->i_ctime;
	dir->i_ctime = inode->i_ctime;
	if (S_ISDIR(inode->i_mode))
		inc_nlink(dir);
	sffs_lock(c);
	err = sffs_find_dent(c, dir->i_ino, &dentry->d_name, &d);
	if (!err && (d.s.found || d.s.free_coll == ~0U))
		err = d.s.found ? -EEXIST : -ENOSPC;
	if (!err)
		err = sffs_op_inode(&op, inode);
	if (!err)
		err = sffs_op_dent(&op, &d.s.key, &dentry->d_name, inode);
	if (!err)
		err = sffs_op_inode(&op, dir);
	if (!err)
		err = sffs_op_commit(c, &op, false);
	sffs_unlock(c);
	sffs_op_free(&op);
	if (err) {
		if (S_ISDIR(inode->i_mode))
			drop_nlink(dir);
		make_bad_inode(inode);
		iput(inode);
		return err;
	}
	sffs_new_inode_ready(inode);
	d_instantiate(dentry, inode);
	return 0;
}

static int sffs_create(struct user_namespace *mnt_userns, struct inode *dir,
		       struct dentry *dentry, umode_t mode, bool excl)
{
	struct inode *inode = sffs_new_inode(dir, mode);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	return sffs_add_new(dir, dentry, inode);
}

static int sffs_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
		      struct dentry *dentry, umode_t mode)
{
	struct inode *inode = sffs_new_inode(dir, S_IFDIR | mode);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	set_nlink(inode, 2);
	return sffs_add_new(dir, dentry, inode);
}

static int sffs_mknod(struct user_namespace *mnt_userns, struct inode *dir,
		      struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct inode *inode;

	inode = sffs_new_inode(dir, mode);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	inode->i_rdev = rdev;
	return sffs_add_new(dir, dentry, inode);
}

static int sffs_symlink(struct user_namespace *mnt_userns, struct inode *dir,
			struct dentry *dentry, const char *target)
{
	size_t len = strlen(target);
	struct inode *inode;
	int err;

	if (len > sffs_symlink_max(SFFS_SB(dir->i_sb)->io.erase_size))
		return -ENAMETOOLONG;
	if (len > SFFS_SHORT_SYMLINK_LEN) {
		err = sffs_feature_incompat(SFFS_SB(dir->i_sb),
					    SFFS_FEAT_INCOMPAT_LONG_SYMLINK);
		if (err)
			return err;
	}
	inode = sffs_new_inode(dir, S_IFLNK | 0777);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	inode->i_link = kmemdup_nul(target, len, GFP_KERNEL);
	if (!inode->i_link) {
		make_bad_inode(inode);
		iput(inode);
		return -ENOMEM;
	}
	inode->i_size = len;
	return sffs_add_new(dir, dentry, inode);
}

static int sffs_link(struct dentry *old_dentry, struct inode *dir,
		     struct dentry *dentry)
{
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct inode *inode = d_inode(old_dentry);
	/* only an O_TMPFILE file has no link here: the VFS checks I_LINKABLE */
	bool tmpfile = !inode->i_nlink;
	struct sffs_op op = {};
	struct sffs_dent d;
	int err;

	/*
	 * The link count changes under the mutex, after the checks, and goes
	 * back under it if the operation fails: write_inode() journals the
	 * count under the same mutex, and must never see the one of a link
	 * that did not happen (for a tmpfile, a count of one beside its
	 * orphan record: a mount would keep it, nameless, for ever).
	 */
	sffs_lock(c);
	err = sffs_find_dent(c, dir->i_ino, &dentry->d_name, &d);
	if (!err && (d.s.found || d.s.free_coll == ~0U))
		err = d.s.found ? -EEXIST : -ENOSPC;
	if (err)
		goto out;
	inc_nlink(inode);
	inode->i_ctime = current_time(inode);
	dir->i_ctime = inode->i_ctime;
	dir->i_mtime = inode->i_ctime;
	err = sffs_op_dent(&op, &d.s.key, &dentry->d_name, inode);
	if (!err)
		err = sffs_op_inode(&op, inode);
	if (!err && tmpfile)
		err = sffs_op_unorphan(&op, inode);
	if (!err)
		err = sffs_op_inode(&op, dir);
	if (!err)
		err = sffs_op_commit(c, &op, false);
	if (err)
		drop_nlink(inode);
out:
	sffs_unlock(c);
	sffs_op_free(&op);
	if (err)
		return err;
	ihold(inode);
	d_instantiate(dentry, inode);
	return 0;
}

/*
 * An O_TMPFILE file: an inode without a name.  Its inode node says it has
 * no link, and the same operation puts it on the orphan list, so that a
 * power cut before it is named or closed leaves nothing behind: the next
 * mount deletes it as it deletes any file unlinked while open, and its
 * last close deletes it otherwise.  linkat() names it and takes it off
 * the list in one operation (sffs_link()); the VFS allows that only
 * without O_EXCL, which leaves I_LINKABLE clear.  The directory does not
 * change: nothing in it names the file.
 */
static int sffs_tmpfile(struct user_namespace *mnt_userns, struct inode *dir,
			struct file *file, umode_t mode)
{
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct sffs_op op = {};
	struct inode *inode;
	int err;

	inode = sffs_new_inode(dir, mode);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	/*
	 * Journaled without links, before the VFS sees the inode: writeback
	 * cannot journal an inode node of it without its orphan record
	 * first.  d_tmpfile() then takes the link new_inode() gave.
	 */
	clear_nlink(inode);
	sffs_lock(c);
	err = sffs_op_inode(&op, inode);
	if (!err)
		err = sffs_op_commit(c, &op, false);
	sffs_unlock(c);
	sffs_op_free(&op);
	set_nlink(inode, 1);
	if (err) {
		make_bad_inode(inode);
		iput(inode);
		return err;
	}
	sffs_new_inode_ready(inode);
	d_tmpfile(file, inode);
	return finish_open_simple(file, 0);
}

/* Does directory @ino have any entry?  @c->mutex held. */
static int sffs_dir_empty(struct sffs_info *c, u64 ino)
{
	struct sffs_ckey key = sffs_key(ino, SFFS_KEY_DENTRY, 0);
	struct sffs_zref ref;
	int err;

	err = sffs_index_next(&c->j.idx, &key, &ref);
	if (err == -ENOENT)
		return 1;
	if (err)
		return err;
	return ref.key.ino != ino || sffs_key_type(&ref.key) != SFFS_KEY_DENTRY;
}

static int sffs_remove(struct inode *dir, struct dentry *dentry, bool is_dir)
{
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct inode *inode = d_inode(dentry);
	struct sffs_op op = {};
	struct sffs_dent d;
	int err;

	sffs_lock(c);
	if (is_dir) {
		err = sffs_dir_empty(c, inode->i_ino);
		if (err <= 0) {
			sffs_unlock(c);
			return err ?: -ENOTEMPTY;
		}
	}
	err = sffs_find_dent(c, dir->i_ino, &dentry->d_name, &d);
	if (!err && !d.s.found)
		err = -ENOENT;
	if (err)
		goto out;
	inode->i_ctime = current_time(dir);
	dir->i_ctime = inode->i_ctime;
	dir->i_mtime = inode->i_ctime;
	if (is_dir) {
		clear_nlink(inode);
		drop_nlink(dir);
	} else {
		drop_nlink(inode);
	}
	err = sffs_op_dent(&op, &d.s.key, &dentry->d_name, NULL);
	if (!err)
		err = sffs_op_inode(&op, inode);
	if (!err)
		err = sffs_op_inode(&op, dir);
	if (!err)
		err = sffs_op_commit(c, &op, true);
	if (err) {
		/* nothing was applied: give the links back */
		if (is_dir) {
			set_nlink(inode, 2);
			inc_nlink(dir);
		} else {
			inc_nlink(inode);
		}
	}
out:
	sffs_unlock(c);
	sffs_op_free(&op);
	return err;
}

static int sffs_unlink(struct inode *dir, struct dentry *dentry)
{
	return sffs_remove(dir, dentry, false);
}

static int sffs_rmdir(struct inode *dir, struct dentry *dentry)
{
	return sffs_remove(dir, dentry, true);
}

/*
 * A whiteout for the name a rename with RENAME_WHITEOUT leaves: the
 * character device 0/0 overlayfs takes for "deleted from the lower
 * layer".  Journaled with the rename.
 */
static struct inode *sffs_new_whiteout(struct inode *old_dir)
{
	struct inode *wh = sffs_new_inode(old_dir, S_IFCHR | WHITEOUT_MODE);

	if (!IS_ERR(wh))
		wh->i_rdev = WHITEOUT_DEV;
	return wh;
}

static int sffs_rename(struct user_namespace *mnt_userns,
		       struct inode *old_dir, struct dentry *old_dentry,
		       struct inode *new_dir, struct dentry *new_dentry,
		       unsigned int flags)
{
	struct sffs_info *c = SFFS_SB(old_dir->i_sb);
	struct inode *old = d_inode(old_dentry), *new = d_inode(new_dentry);
	bool exchange = flags & RENAME_EXCHANGE;
	struct timespec64 now = current_time(old_dir);
	unsigned int nlink[4] = { old->i_nlink, new ? new->i_nlink : 0,
				  old_dir->i_nlink, new_dir->i_nlink };
	struct inode *wh = NULL;
	struct sffs_dent od, nd;
	struct sffs_op op = {};
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT) ||
	    (exchange && flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	/* the VFS checks it for rename(2), not for callers of vfs_rename() */
	if (flags & RENAME_NOREPLACE && new)
		return -EEXIST;
	/*
	 * A new file renamed over an old one is how configuration is saved
	 * (editors, "sed -i", package managers), often without fsync.  Its
	 * data goes to the journal before the rename, as ext4 does with
	 * auto_da_alloc: replay applies a prefix of the journal, so after a
	 * power cut the name holds the old file or all of the new one.
	 */
	if (new && !exchange && S_ISREG(old->i_mode)) {
		err = filemap_write_and_wait(old->i_mapping);
		if (err)
			return err;
	}
	if (flags & RENAME_WHITEOUT) {
		wh = sffs_new_whiteout(old_dir);
		if (IS_ERR(wh))
			return PTR_ERR(wh);
	}

	sffs_lock(c);
	if (new && !exchange && S_ISDIR(new->i_mode)) {
		err = sffs_dir_empty(c, new->i_ino);
		if (err <= 0) {
			err = err ?: -ENOTEMPTY;
			goto out;
		}
	}
	err = sffs_find_dent(c, old_dir->i_ino, &old_dentry->d_name, &od);
	if (!err)
		err = sffs_find_dent(c, new_dir->i_ino, &new_dentry->d_name,
				     &nd);
	if (err)
		goto out;
	if (!od.s.found || (!nd.s.found && nd.s.free_coll == ~0U)) {
		err = od.s.found ? -ENOSPC : -ENOENT;
		goto out;
	}

	/* Link counts and times, as they will be once the rename is done */
	old->i_ctime = now;
	old_dir->i_ctime = now;
	old_dir->i_mtime = now;
	new_dir->i_ctime = now;
	new_dir->i_mtime = now;
	if (exchange) {
		new->i_ctime = now;
		if (S_ISDIR(old->i_mode) != S_ISDIR(new->i_mode) &&
		    old_dir != new_dir) {
			if (S_ISDIR(old->i_mode)) {
				drop_nlink(old_dir);
				inc_nlink(new_dir);
			} else {
				drop_nlink(new_dir);
				inc_nlink(old_dir);
			}
		}
		err = sffs_op_dent(&op, &od.s.key, &old_dentry->d_name, new);
		if (!err)
			err = sffs_op_dent(&op, &nd.s.key, &new_dentry->d_name, old);
		if (!err)
			err = sffs_op_inode(&op, new);
	} else {
		if (new) {
			new->i_ctime = now;
			if (S_ISDIR(new->i_mode)) {
				clear_nlink(new);
				drop_nlink(new_dir);
			} else {
				drop_nlink(new);
			}
		}
		if (S_ISDIR(old->i_mode) && old_dir != new_dir) {
			drop_nlink(old_dir);
			inc_nlink(new_dir);
		}
		/*
		 * The old name goes, or points at the whiteout: in the same
		 * operation, so a power cut leaves the old names or the new
		 * name with the whiteout, never a name lost or doubled.
		 */
		err = sffs_op_dent(&op, &nd.s.key, &new_dentry->d_name, old);
		if (!err)
			err = sffs_op_dent(&op, &od.s.key, &old_dentry->d_name,
					   wh);
		if (!err && wh)
			err = sffs_op_inode(&op, wh);
		if (!err && new)
			err = sffs_op_inode(&op, new);
	}
	if (!err)
		err = sffs_op_inode(&op, old);
	if (!err)
		err = sffs_op_inode(&op, old_dir);
	if (!err)
		err = sffs_op_inode(&op, new_dir);
	if (!err)
		err = sffs_op_commit(c, &op, false);
	if (err) {
		/* nothing was applied: put the link counts back */
		set_nlink(old, nlink[0]);
		if (new)
			set_nlink(new, nlink[1]);
		set_nlink(old_dir, nlink[2]);
		set_nlink(new_dir, nlink[3]);
	}
out:
	sffs_unlock(c);
	sffs_op_free(&op);
	if (wh) {
		/* the dcache learns of it at the next lookup of the old name */
		if (err)
			make_bad_inode(wh);
		else
			sffs_new_inode_ready(wh);
		iput(wh);
	}
	return err;
}

static int sffs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct sffs_info *c = SFFS_SB(dir->i_sb);
	struct sffs_dentry_node *de;
	char name[SFFS_MAX_NAME_LEN + 1];
	struct sffs_zref ref;
	int err = 0;

	if (!dir_emit_dots(file, ctx))
		return 0;
	de = kmalloc(SFFS_DENTRY_MAX_LEN, GFP_KERNEL);
	if (!de)
		return -ENOMEM;
	for (;;) {
		struct sffs_ckey key = sffs_key(dir->i_ino, SFFS_KEY_DENTRY,
						ctx->pos - 2);
		unsigned int len;
		u64 ino;

		sffs_lock(c);
		err = sffs_index_next(&c->j.idx, &key, &ref);
		if (!err && (ref.key.ino != dir->i_ino ||
			     sffs_key_type(&ref.key) != SFFS_KEY_DENTRY))
			err = -ENOENT;
		if (!err && ref.len > SFFS_DENTRY_MAX_LEN)
			err = -EUCLEAN;
		if (!err)
			err = sffs_io_read_node(&c->io, ref.addr, ref.len, de,
						SFFS_NODE_DENTRY);
		sffs_unlock(c);
		if (err)
			break;
		len = le16_to_cpu(de->name_len);
		memcpy(name, de->name, len);
		ino = le64_to_cpu(de->target);
		ctx->pos = sffs_key_value(&ref.key) + 2;
		if (!dir_emit(ctx, name, len, ino, de->type))
			break;
		ctx->pos++;
	}
	kfree(de);
	return err == -ENOENT ? 0 : err;
}

static int sffs_dir_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	struct sffs_info *c = SFFS_SB(file_inode(file)->i_sb);
	int err;

	sffs_lock(c);
	err = sffs_journal_sync(&c->j);
	sffs_unlock(c);
	return err;
}

const struct inode_operations sffs_dir_inode_operations = {
	.lookup		= sffs_lookup,
	.create		= sffs_create,
	.link		= sffs_link,
	.unlink		= sffs_unlink,
	.symlink	= sffs_symlink,
	.mkdir		= sffs_mkdir,
	.rmdir		= sffs_rmdir,
	.mknod		= sffs_mknod,
	.rename		= sffs_rename,
	.tmpfile	= sffs_tmpfile,
	.setattr	= sffs_setattr,
	.listxattr	= sffs_listxattr,
};

const struct file_operations sffs_dir_operations = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= sffs_readdir,
	.fsync		= sffs_dir_fsync,
};
