// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS journal and commit.
 *
 * Every change of the file system is an *operation*: one or more nodes
 * (a create is an inode, a directory entry and the parent's inode) that
 * are appended together to the journal and then applied to the index.
 * All nodes of an operation but the last carry SFFS_NODE_FL_CONT, and an
 * operation never straddles two erase blocks, so replay can apply whole
 * operations only.
 *
 * The journal is a list of erase blocks, named in the checkpoint of the
 * last commit and written in order from the checkpoint's jhead.  When the
 * list runs out, or the dirty part of the index grows past a bound, the
 * journal commits: the dirty index nodes are written after the journal
 * data, the write buffer is flushed, and a checkpoint naming the new index
 * root and the next list of journal blocks goes to the anchor.  Replay at
 * mount therefore reads at most the journal size, whatever the flash size.
 *
 * Erase blocks come from space.c: first those never written since mkfs,
 * in order (@alloc_eb is the frontier), then those garbage collection
 * (gc.c, above this file) emptied.  The flash is counted in live
 * (@used), dead (@dirty) and not yet written (@free) bytes, and per
 * erase block in the erase-block table (ebt.c), which each commit
 * brings up to date before the index.
 *
 * Locking: the caller holds the file system's mutex for every call.
 */
#include <linux/fs.h>
#include <linux/mtd/mtd.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/fault-inject.h>	/* after slab.h: it needs gfp_t */
#include <linux/stat.h>
#include <linux/timekeeping.h>
#include <trace/events/sffs.h>
#include "journal.h"

/* Commit once this many znodes are dirty: bounds the RAM they pin */
#define SFFS_MAX_DIRTY_ZNODES	256
/*
 * Clean znodes cached beyond the dirty ones.  With the root and the paths
 * in use that is all the RAM the index takes: it does not grow with the
 * flash or with what is on it.
 */
#define SFFS_INDEX_CACHE	64
/* Commit once this many erase-block records changed: bounds their RAM */
#define SFFS_MAX_EBT_CHANGES	512

static void sffs_account_dead(struct sffs_journal *j, u64 bytes)
{
	j->free -= min(j->free, bytes);
	j->dirty += bytes;
	j->died += bytes;
}

static int sffs_flush(struct sffs_journal *j)
{
	u64 head = sffs_io_head(j->io);
	int err;

	err = sffs_io_flush(j->io);
	sffs_account_dead(j, sffs_io_head(j->io) - head);
	return err;
}

/*
 * An erase block for the journal or the index: a spare set aside by the
 * commit first, or a free one, erased unless @erase is false and it comes
 * from beyond the frontier (see sffs_take_free()).
 */
static int sffs_alloc_eb(struct sffs_journal *j, u32 *eb, bool erase)
{
	if (j->nspare) {
		*eb = j->spare[--j->nspare];
		return 0;
	}
	return sffs_take_free(j, eb, erase);
}

/*
 * Leave the head's erase block for the next one of the journal list or,
 * while committing, for a newly allocated one.  -EAGAIN asks for a commit.
 */
int sffs_journal_next_block(struct sffs_journal *j)
{
	u32 eb;
	int err;

	err = sffs_flush(j);
	if (err)
		return err;
	if (j->jcur + 1 < j->jcnt) {
		eb = j->jeb[++j->jcur];
	} else if (j->in_commit) {
		err = sffs_alloc_eb(j, &eb, false);
		if (err)
			return err;
	} else {
		return -EAGAIN;
	}
	sffs_account_dead(j, sffs_io_room(j->io));
	sffs_io_set_head(j->io, sffs_eb_addr(j->io, eb));
	return 0;
}

static int sffs_append(struct sffs_journal *j, void *buf, u32 len,
		       unsigned int type, unsigned int flags, u64 *addr)
{
	u64 at = sffs_io_head(j->io);
	int err;

	sffs_node_seal(buf, type, len, ++j->sqnum, flags);
	err = sffs_io_append(j->io, buf, len, addr);
	if (err) {
		/* the part of the node that went to the buffer is dead */
		if (sffs_io_head(j->io) > at)
			sffs_account_dead(j, sffs_io_head(j->io) - at);
		return err;
	}
	j->free -= min_t(u64, j->free, ALIGN(len, SFFS_NODE_ALIGN));
	j->used += ALIGN(len, SFFS_NODE_ALIGN);
	sffs_ebt_live(j, *addr, ALIGN(len, SFFS_NODE_ALIGN));
	j->wend = sffs_io_head(j->io);
	return 0;
}

/**
 * sffs_journal_room - make room for a node of @len bytes at the write head
 * @j: the journal, committing
 * @len: the node's length
 *
 * For a node whose building must not be disturbed by taking a new block
 * (the table fold): called before it is built, the put that follows
 * takes no block.
 *
 * Return: 0 or a negative error.
 */
int sffs_journal_room(struct sffs_journal *j, u32 len)
{
	if (ALIGN(len, SFFS_NODE_ALIGN) <= sffs_io_room(j->io))
		return 0;
	return sffs_journal_next_block(j);
}

/**
 * sffs_journal_put - append one node, moving to the next block if needed
 * @j: the journal
 * @buf: the node, header left to this function
 * @len: its length
 * @type: &enum sffs_node_type
 * @flags: header flags
 * @addr: where it went
 *
 * For what a commit writes: index nodes and erase-block table pages.
 *
 * Return: 0 or a negative error.
 */
int sffs_journal_put(struct sffs_journal *j, void *buf, u32 len,
		     unsigned int type, unsigned int flags, u64 *addr)
{
	int err;

	if (ALIGN(len, SFFS_NODE_ALIGN) > sffs_io_room(j->io)) {
		/*
		 * The node is built in the index's or the table's own
		 * buffer, and taking a new block may read the table and
		 * the index into those very buffers (sffs_take_free()
		 * scans when the spares, the frontier and the free pool
		 * are used up): keep a copy to append.
		 */
		if (WARN_ON_ONCE(len > j->put_size))
			return -EINVAL;
		memcpy(j->put_buf, buf, len);
		buf = j->put_buf;
		err = sffs_journal_next_block(j);
		if (err)
			return err;
	}
	if (type == SFFS_NODE_INDEX) {
		j->gc.index_bytes += ALIGN(len, SFFS_NODE_ALIGN);
	} else {
		j->gc.table_bytes += ALIGN(len, SFFS_NODE_ALIGN);
		j->gc.table_pages += type == SFFS_NODE_EBT;
	}
	return sffs_append(j, buf, len, type, flags, addr);
}

/**
 * sffs_journal_fold_table - write the table pages that changed, in a commit
 * @j: the journal, committing
 *
 * Every state change pending when the fold starts is written, and the
 * hints of the pages the commit's plan chose (sffs_ebt_fold_plan()), or
 * all of them when the mount ends or too many wait (sffs_ebt_next_due());
 * the writes themselves change the live bytes of the blocks they go to
 * and come from, which a later commit folds.
 *
 * Return: 0 or a negative error.
 */
static int sffs_journal_fold_table(struct sffs_journal *j)
{
	bool all = j->fold_all || j->ebt_plan_all;
	unsigned int flags, why;
	unsigned long next = 0;
	void *buf;
	u32 page;

	while (sffs_ebt_next_due(j, &next, all, &page, &why)) {
		struct sffs_zref ref = {
			.key = sffs_key(SFFS_META_INO, SFFS_KEY_EBT, page),
		};
		int ret;

		/*
		 * Room for the page first: taking a new block may scan the
		 * table, which must still see the changes folded below,
		 * and read pages into j->ebt_buf and j->ebt_raw.  The page,
		 * packed into j->ebt_raw or plain in j->ebt_buf, then goes
		 * where the head is, with no block taken between.
		 */
		ret = sffs_journal_room(j, sffs_ebt_page_size(j, page));
		if (!ret)
			ret = sffs_ebt_fold_page(j, page);
		if (ret < 0)
			return ret;
		ref.len = sffs_ebt_pack(j, ret, &buf, &flags);
		ret = sffs_journal_put(j, buf, ref.len, SFFS_NODE_EBT, flags,
				       &ref.addr);
		if (!ret)
			ret = sffs_index_insert(&j->idx, &ref);
		if (ret)
			return ret;
		sffs_ebt_written(j, why);
	}
	return 0;
}

/* The buffer of sffs_journal_put(): an index node or a table page */
static int sffs_put_buf_init(struct sffs_journal *j, unsigned int fanout)
{
	j->put_size = max_t(size_t, sffs_index_node_size(fanout),
			    sizeof(struct sffs_ebt_node) +
			    SFFS_EBT_RECS * sizeof(struct sffs_eb_rec));
	j->put_buf = kmalloc(j->put_size, GFP_KERNEL);
	return j->put_buf ? 0 : -ENOMEM;
}

static void sffs_put_buf_free(struct sffs_journal *j)
{
	kfree(j->put_buf);
	j->put_buf = NULL;
}

static int sffs_index_read(void *priv, u64 addr, u32 len, void *buf)
{
	struct sffs_journal *j = priv;

	return sffs_io_read_node(j->io, addr, len, buf, SFFS_NODE_INDEX);
}

static int sffs_index_write(void *priv, void *buf, u32 len, u64 *addr)
{
	return sffs_journal_put(priv, buf, len, SFFS_NODE_INDEX, 0, addr);
}

static void sffs_index_obsolete(void *priv, u64 addr, u32 len)
{
	struct sffs_journal *j = priv;
	u64 bytes = ALIGN(len, SFFS_NODE_ALIGN);

	j->used -= min(j->used, bytes);
	j->dirty += bytes;
	j->died += bytes;
	sffs_ebt_live(j, addr, -(s64)bytes);
}

static const struct sffs_index_ops sffs_index_ops = {
	.read = sffs_index_read,
	.write = sffs_index_write,
	.obsolete = sffs_index_obsolete,
};

/**
 * sffs_journal_apply - apply a journaled node to the index
 * @j: the journal
 * @node: the node, checked
 * @addr: where it is on flash
 *
 * Used both when an operation is written and when replay finds it, so
 * that the two can never disagree on what a node means.
 *
 * Return: 0 or an error of the index.
 */
int sffs_journal_apply(struct sffs_journal *j, const void *node, u64 addr)
{
	const struct sffs_node_hdr *hdr = node;
	u32 len = le32_to_cpu(hdr->len);
	struct sffs_zref ref = { .addr = addr, .len = len };
	struct sffs_ckey from, to;
	int err;

	switch (hdr->type) {
	case SFFS_NODE_INODE:
	case SFFS_NODE_DATA:
	case SFFS_NODE_EBT:
		sffs_node_key(node, &ref.key);
		return sffs_index_insert(&j->idx, &ref);
	case SFFS_NODE_DENTRY:
		sffs_node_key(node, &ref.key);
		if (((const struct sffs_dentry_node *)node)->target)
			return sffs_index_insert(&j->idx, &ref);
		break;
	case SFFS_NODE_XATTR:
		sffs_node_key(node, &ref.key);
		if (!(hdr->flags & SFFS_XATTR_FL_DELETE))
			return sffs_index_insert(&j->idx, &ref);
		break;
	case SFFS_NODE_ORPHAN:
		sffs_node_key(node, &ref.key);
		if (!(hdr->flags & SFFS_ORPHAN_FL_DELETE))
			return sffs_index_insert(&j->idx, &ref);
		break;
	case SFFS_NODE_TRUNC: {
		const struct sffs_trunc_node *tn = node;
		u64 ino = le64_to_cpu(tn->ino);
		u64 size = le64_to_cpu(tn->new_size);

		if (hdr->flags & SFFS_TRUNC_FL_DELETE) {
			/* the inode is gone: so is its orphan record */
			from = sffs_key(SFFS_META_INO, SFFS_KEY_ORPHAN, ino);
			err = sffs_index_remove(&j->idx, &from);
			if (err && err != -ENOENT)
				return err;
			from = sffs_key(ino, SFFS_KEY_INODE, 0);
			to = sffs_key(ino + 1, SFFS_KEY_INODE, 0);
		} else {
			from = sffs_key(ino, SFFS_KEY_DATA,
					DIV_ROUND_UP_ULL(size, SFFS_BLOCK_SIZE));
			to = sffs_key(ino, SFFS_KEY_DENTRY, 0);
		}
		err = sffs_index_remove_range(&j->idx, &from, &to);
		if (err < 0)
			return err;
		sffs_index_obsolete(j, addr, len);
		return 0;
	}
	default:
		return 0;
	}
	/* A deletion: the key goes, and the deleting node is dead at once */
	err = sffs_index_remove(&j->idx, &ref.key);
	sffs_index_obsolete(j, addr, len);
	return err == -ENOENT ? 0 : err;
}

/*
 * A write the flash refused leaves the file system read-only: the last
 * checkpoint and what was synced after it are on the flash, and the next
 * mount replays them.
 */
static int sffs_write_error(struct sffs_journal *j, int err)
{
	if (err == -EIO && j->io->write_failed && !j->io->ro) {
		pr_crit("sffs: %s: a flash write failed and could not be made elsewhere: read-only from now on; what was synced is safe\n",
			j->io->mtd->name);
		sffs_error_ro(j);
	}
	return err;
}

/*
 * sffs_node_check() for the nodes of a write buffer or block: the tail of
 * a unit too short for a pad node is left erased, as at the end of @avail.
 */
static int sffs_check_at(const void *node, u64 avail)
{
	if (avail < sizeof(struct sffs_node_hdr))
		return memchr_inv(node, 0xff, avail) ? -EUCLEAN : -ENODATA;
	return sffs_node_check(node, avail);
}

/*
 * The last boundary between operations at or before @upto, in the nodes
 * of @buf, which starts at flash address @start.  Operations must be
 * written again whole: replay applies whole operations only.
 */
static int sffs_op_boundary(struct sffs_journal *j, void *buf, u64 start,
			    u64 upto, u64 end, u64 *keep)
{
	u64 p = start;

	*keep = start;
	while (p < upto) {
		struct sffs_node_hdr *hdr = buf + (p - start);
		int err = sffs_check_at(hdr, end - p);

		if (err == -ENODATA) {
			/* the tail of a unit a flush left erased */
			p = ALIGN(p + 1, j->io->unit);
			if (p <= upto)
				*keep = p;
			continue;
		}
		if (err)
			return err;
		p += ALIGN(le32_to_cpu(hdr->len), SFFS_NODE_ALIGN);
		if (p <= upto && (hdr->type == SFFS_NODE_PAD ||
				  !(hdr->flags & SFFS_NODE_FL_CONT)))
			*keep = p;
	}
	return 0;
}

/*
 * Write the nodes of @buf again at the write head: those from @from to
 * @end, @buf starting at flash address @start.  A leaf the index points
 * at moves there; the others are dead, but replay needs them (deletions,
 * truncations) until the next commit.  Index nodes a commit wrote are
 * left to the commit to write again.
 */
static int sffs_rewrite(struct sffs_journal *j, void *buf, u64 start,
			u64 from, u64 end)
{
	u64 p = from;

	while (p < end) {
		struct sffs_node_hdr *hdr = buf + (p - start);
		u32 len;
		struct sffs_zref ref;
		struct sffs_ckey key;
		u64 addr;
		int err = sffs_check_at(hdr, end - p);

		if (err == -ENODATA) {
			p = ALIGN(p + 1, j->io->unit);
			continue;
		}
		if (err)
			return err;
		len = le32_to_cpu(hdr->len);
		if (hdr->type == SFFS_NODE_INDEX) {
			struct sffs_index_node *ix = (void *)hdr;

			/*
			 * Written by the commit the failure cut short: its
			 * znode is written again when the commit is, and the
			 * parent with it.
			 */
			key = sffs_index_first_key(ix);
			err = sffs_index_dirty_node(&j->idx, p,
						    le16_to_cpu(ix->level), &key);
			if (err < 0)
				return err;
		} else if (hdr->type != SFFS_NODE_PAD) {
			bool live = !sffs_node_key(hdr, &key) &&
				    !sffs_index_lookup(&j->idx, &key, &ref) &&
				    ref.addr == p;

			err = sffs_append(j, hdr, len, hdr->type, hdr->flags,
					  &addr);
			if (err)
				return err;
			if (live) {
				ref.addr = addr;
				err = sffs_index_insert(&j->idx, &ref);
				if (err)
					return err;
			} else {
				sffs_index_obsolete(j, addr, len);
			}
		}
		p += ALIGN(len, SFFS_NODE_ALIGN);
	}
	return 0;
}

/**
 * sffs_journal_recover - go on after the flash refused a write
 * @j: the journal, not committing
 * @end: end of the last whole operation in the write buffer, or outside
 *	 the block of the write head if none is
 *
 * As UBI and YAFFS2 do: what the failed write held is written again in a
 * fresh erase block, and the failing block is retired once garbage
 * collection has moved the rest of its data.  Node addresses are
 * physical, so the index is pointed at the new copies; the caller then
 * commits, which makes the new place the one replay knows before
 * anything written after the failure is acknowledged.  Whole operations
 * are copied: the one the failed write cut is copied from its first node
 * on, the part already on the flash included, so that replay after a
 * power cut sees it whole or not at all.  The operation being appended
 * past @end, if any, is the caller's to write again; so is the commit
 * whose index nodes were in the write buffer.
 *
 * Return: 0 or -EIO, which leaves the file system read-only.
 */
static int sffs_journal_recover(struct sffs_journal *j, u64 end)
{
	struct sffs_io *io = j->io;
	u64 wb = io->wbuf_addr, jhead = le64_to_cpu(j->cp.jhead);
	u32 eb = sffs_addr_eb(io, wb), nb;
	u64 start = sffs_eb_addr(io, eb), keep;
	unsigned long max_clean = j->idx.max_clean;
	void *buf;
	int err;

	if (j->in_commit)
		return -EIO;
	if (sffs_addr_eb(io, jhead) == eb && jhead > start)
		start = jhead;
	/* no whole node went to the buffer since the head entered @eb */
	if (end < start || end > wb + io->wbuf_used)
		end = start;
	pr_warn("sffs: %s: program failure in erase block %u: its last writes go elsewhere, and it will be retired\n",
		io->mtd->name, eb);
	buf = kvmalloc(io->erase_size, GFP_NOFS);
	if (!buf || !sffs_io_retire(io, eb)) {
		err = buf ? -EIO : -ENOMEM;
		goto out;
	}
	/*
	 * What reached the flash before the failure, then what did not.  An
	 * operation whose first nodes went out with an earlier write leaves
	 * nothing whole in the buffer (@end before it): all is on the flash.
	 */
	keep = end;
	err = wb > start ? sffs_io_read(io, start, buf, wb - start) : 0;
	if (!err && end > wb) {
		memcpy(buf + (wb - start), io->wbuf, end - wb);
		err = sffs_op_boundary(j, buf, start, wb, end, &keep);
	}
	if (err)
		goto out;
	/* nothing more goes to the failing block */
	sffs_account_dead(j, io->head_end - sffs_io_head(io));
	sffs_io_drop_wbuf(io);
	/*
	 * A fresh block, erased now, and not the next of the journal list:
	 * if the power goes before the commit, replay may stop at the
	 * failing block, and the mount then takes the blocks after it for
	 * erased.
	 */
	err = sffs_alloc_eb(j, &nb, true);
	if (err)
		goto out;
	sffs_io_set_head(io, sffs_eb_addr(io, nb));
	/*
	 * Znodes a cut-short commit wrote are clean, at addresses that
	 * never reached the flash: none may leave the cache before it has
	 * been marked dirty again.
	 */
	j->idx.max_clean = ULONG_MAX;
	err = sffs_rewrite(j, buf, start, keep, end);
	j->idx.max_clean = max_clean;
	/* the caller's commit makes the new place the one replay knows */
out:
	kvfree(buf);
	if (err) {
		/*
		 * Whatever went wrong, the write buffer must not go to the
		 * failing block again: read-only, with what is on the flash.
		 */
		pr_err("sffs: %s: the writes erase block %u refused could not be made elsewhere: %d\n",
		       io->mtd->name, eb, err);
		io->write_failed = true;
		err = -EIO;
	}
	return err;
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * Fault injection (debugfs sffs/fail_apply, and the KUnit suites):
 * applying a node of an operation to the index fails with -ENOMEM, as an
 * allocation of a znode would.
 */
DECLARE_FAULT_ATTR(sffs_fail_apply);

static bool sffs_apply_should_fail(void)
{
	return should_fail(&sffs_fail_apply, 1);
}
#else
static bool sffs_apply_should_fail(void)
{
	return false;
}
#endif

/*
 * An operation is in the journal but the index took only part of it (a
 * read error or no memory while applying it).  The caller cannot undo
 * it, and a commit would save the half-applied index: read-only from
 * now on.  What the flash holds stays as consistent as the last sync
 * left it, and the next mount replays whole operations only.
 */
static int sffs_apply_error(struct sffs_journal *j, int err)
{
	if (!j->io->ro)
		pr_crit("sffs: %s: an operation could not be applied to the index (%d): read-only from now on; what was synced is safe\n",
			j->io->mtd->name, err);
	sffs_error_ro(j);
	j->broken = true;
	return err;
}

/* Append the nodes of an operation; after a program failure, none counts */
static int sffs_append_op(struct sffs_journal *j, struct sffs_wnode *wn, int n)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = sffs_append(j, wn[i].buf, wn[i].len, wn[i].type,
				  wn[i].flags | (i < n - 1 ? SFFS_NODE_FL_CONT : 0),
				  &wn[i].addr);
		if (err) {
			/*
			 * The whole nodes before the one that failed are dead
			 * too: the operation is written again, or not at all.
			 */
			while (i--)
				sffs_index_obsolete(j, wn[i].addr,
						    ALIGN(wn[i].len,
							  SFFS_NODE_ALIGN));
			return err;
		}
	}
	return 0;
}

/**
 * sffs_journal_write - journal an operation and apply it to the index
 * @j: the journal
 * @wn: its nodes, in order
 * @n: how many
 * @collected: the caller collected garbage after this function returned
 *	       -EAGAIN: commit this time, whatever @j->starved says
 *
 * Collects no garbage: file system operations go through sffs_write_op(),
 * which does, and garbage collection writes its moves here.
 *
 * Return: 0; -EAGAIN, with nothing of the operation written, when the
 * journal list is used up and a table scan found no free block for the
 * commit that would list more (@j->starved): the caller collects, and
 * calls again with @collected; -EROFS, -ENOSPC, -EIO, or -ENOMEM.
 */
int sffs_journal_write(struct sffs_journal *j, struct sffs_wnode *wn, int n,
		       bool collected)
{
	unsigned int tries;
	u32 total = 0;
	int i, err;

	for (i = 0; i < n; i++)
		total += ALIGN(wn[i].len, SFFS_NODE_ALIGN);
	if (WARN_ON(n > SFFS_MAX_GROUP || total > j->io->erase_size / 2))
		return -EINVAL;
	for (tries = 0; ; tries++) {
		u64 op;

		err = 0;
		while (!err && total > sffs_io_room(j->io)) {
			err = sffs_journal_next_block(j);
			if (err == -EAGAIN) {
				/*
				 * The commit needs free blocks the table has
				 * not: collection first (sffs_write_op()).
				 */
				if (j->starved && !j->in_gc && !collected)
					return -EAGAIN;
				collected = false;
				err = sffs_journal_commit(j);
				if (!err)
					j->commits_journal_full++;
			}
		}
		op = sffs_io_head(j->io);
		if (!err)
			err = sffs_append_op(j, wn, n);
		if (!err)
			break;
		if (err != -EIO || !j->io->write_failed || j->in_commit ||
		    j->io->ro || tries == SFFS_WRITE_TRIES)
			return sffs_write_error(j, err);
		/* a failed flush ends a whole operation; a failed append not */
		err = sffs_journal_recover(j, min(op, sffs_io_head(j->io)));
		if (!err)
			err = sffs_journal_commit(j);
		if (err)
			return sffs_write_error(j, err);
	}
	for (i = 0; i < n; i++) {
		err = sffs_apply_should_fail() ? -ENOMEM :
		      sffs_journal_apply(j, wn[i].buf, wn[i].addr);
		if (err)
			return sffs_apply_error(j, err);
		if (wn[i].type == SFFS_NODE_DATA && !j->in_gc)
			j->user_bytes += le32_to_cpu(((struct sffs_data_node *)
						      wn[i].buf)->size);
	}
	/*
	 * Hints wait for later commits (sffs_journal_fold_table()); states
	 * do not.
	 */
	if (j->idx.nr_dirty > j->max_dirty ||
	    j->ebt_states > SFFS_MAX_EBT_CHANGES) {
		err = sffs_journal_commit(j);
		if (!err)
			j->commits_ram_limit++;
		return err;
	}
	return 0;
}

/* Make everything journaled so far survive a power cut */
int sffs_journal_sync(struct sffs_journal *j)
{
	u64 head = sffs_io_head(j->io);
	int err;

	/* after a write the flash refused, what was not synced is lost */
	if (j->io->ro)
		return j->io->write_failed || j->broken ? -EIO : 0;
	err = sffs_flush(j);
	/* the recovery commits: what the buffer held is on the flash then */
	if (err == -EIO && j->io->write_failed && !j->in_commit &&
	    !j->io->ro) {
		err = sffs_journal_recover(j, head);
		if (!err)
			err = sffs_journal_commit(j);
	}
	if (!err)
		sffs_io_sync(j->io);
	return sffs_write_error(j, err);
}

/**
 * sffs_journal_restart - go on after a replay that found nodes
 * @j: the journal
 * @last: index in the journal list of the last block replay used
 *
 * Writing resumes in a fresh erase block, never next to a page a power
 * cut may have left half programmed, and a commit records what replay
 * applied.
 *
 * Return: 0 or a negative error.
 */
int sffs_journal_restart(struct sffs_journal *j, unsigned int last)
{
	u32 eb;
	int err;

	j->jcur = last;
	if (last + 1 < j->jcnt) {
		/*
		 * Replay stopped before this block: it holds nothing that
		 * was applied, but a write torn by the power cut may have
		 * programmed its first pages.
		 */
		eb = j->jeb[++j->jcur];
		err = sffs_io_erase(j->io, eb);
		if (err)
			return err;
		j->gc.erases++;
		sffs_ebt_alloc(j, eb, true);
	} else {
		err = sffs_alloc_eb(j, &eb, true);
		if (err)
			return err;
	}
	sffs_io_set_head(j->io, sffs_eb_addr(j->io, eb));
	return sffs_journal_commit(j);
}

/* Blocks the journal may use after this commit: the head's, then more */
static int sffs_journal_relist(struct sffs_journal *j)
{
	unsigned int i, n = 0;
	u64 avail;
	u32 jeb[SFFS_MAX_JOURNAL_BLOCKS];

	/* A head block too full to be worth listing is left now */
	if (sffs_io_room(j->io) < j->io->erase_size / 8) {
		int err = sffs_journal_next_block(j);

		if (err)
			return err;
	}
	jeb[n++] = sffs_addr_eb(j->io, sffs_io_head(j->io));
	/* static wear levelling: worn blocks next, for the cold data */
	while (j->wl_stage == 1 && n < 1 + SFFS_WL_WORN &&
	       n < j->jmax && !sffs_take_worn(j, &jeb[n]))
		n++;
	if (j->wl_stage == 1)
		j->wl_stage = n > 1 ? 2 : 0;
	/* every block not reached yet stays listed: erased, in use */
	for (i = j->jcur + 1; i < j->jcnt && n < SFFS_MAX_JOURNAL_BLOCKS; i++)
		if (j->jeb[i] != jeb[0])
			jeb[n++] = j->jeb[i];
	/*
	 * New blocks for the list, leaving one free block at least: the
	 * mount after a power cut needs one to restart in.
	 */
	avail = sffs_free_blocks(j);
	while (n < j->jmax && (j->nspare || avail-- > 1) &&
	       !sffs_alloc_eb(j, &jeb[n], false))
		n++;
	memcpy(j->jeb, jeb, n * sizeof(jeb[0]));
	j->jcnt = n;
	j->jcur = 0;
	return 0;
}

/**
 * sffs_commit_table_pages - the table pages the next commit may write
 * @j: the journal
 *
 * Those due now, and one more for each state change the commit may add
 * before its plan (sffs_ebt_fold_plan()): the spares it takes, the blocks
 * it frees, the erases that fail on the way.  Allocations beyond the
 * spares during the commit, and the pages an unmount's commit writes
 * for the hints of its own writes, are beyond it: the first make the
 * commit go one round more (sffs_commit_write()), the second are few.
 *
 * Return: the number of pages, at most the whole table.
 */
u64 sffs_commit_table_pages(struct sffs_journal *j)
{
	unsigned long extra = SFFS_MAX_SPARES + j->nfreeable +
			      SFFS_MAX_ERASEBAD;

	return min_t(u64, sffs_ebt_fold_pages(j, extra) + extra,
		     DIV_ROUND_UP(j->io->eb_count, SFFS_EBT_RECS));
}

/**
 * sffs_commit_need - the bytes the next commit may write before its
 *		      checkpoint, as things stand
 * @j: the journal
 *
 * Return: an upper bound of the table pages and index nodes it writes.
 */
u64 sffs_commit_need(struct sffs_journal *j)
{
	u64 isize = ALIGN(sffs_index_node_size(j->idx.fanout), SFFS_NODE_ALIGN);
	u64 pages = sffs_commit_table_pages(j);

	/* table pages, each a leaf that dirties a path of the index */
	return pages * (sizeof(struct sffs_ebt_node) +
			SFFS_EBT_RECS * sizeof(struct sffs_eb_rec) +
			j->idx.height * isize) +
	       (j->idx.nr_dirty + 4 * (j->idx.height + 1) + 8) * isize;
}

/*
 * Before a commit writes anything: set aside, erased or never written
 * since mkfs, and marked in use, the blocks it may need beyond the
 * journal list, so that the table it writes never calls free a block its
 * index is in; and mark free the blocks garbage collection emptied, which
 * this commit's index no longer refers to.
 */
static int sffs_commit_prepare(struct sffs_journal *j)
{
	u32 esize = j->io->erase_size;
	u64 bytes = sffs_commit_need(j), have;
	unsigned int i, want;
	int err;

	have = sffs_io_room(j->io) + ((u64)j->jcnt - j->jcur - 1) * esize;
	/* a node that does not fit wastes the tail of a block: count 1/8 */
	want = bytes > have ? DIV_ROUND_UP_ULL(bytes - have, esize / 8 * 7) : 0;
	want = min_t(unsigned int, want + 1, SFFS_MAX_SPARES);
	/* leave a free block for the restart after a power cut, as relist */
	while (j->nspare < want && sffs_free_blocks(j) > 1) {
		err = sffs_take_free(j, &j->spare[j->nspare], false);
		if (err == -ENOSPC)
			break;
		if (err)
			return err;
		j->nspare++;
	}
	for (i = 0; i < j->nfreeable; i++) {
		u32 eb = j->freeable[i];

		/*
		 * A block a program failed in goes out of service instead:
		 * bad in the table now, on the device once the checkpoint
		 * naming that table is written (sffs_markbad_pending()).
		 */
		if (sffs_io_retiring(j->io, eb))
			err = sffs_ebt_bad(j, eb);
		else
			err = sffs_ebt_free(j, eb);
		if (err)
			return err;
	}
	return 0;
}

/* What a commit writes before its checkpoint */
static int sffs_commit_write(struct sffs_journal *j, u64 *root, u32 *len)
{
	unsigned int i;
	int err;

	j->in_commit = true;
	err = sffs_commit_prepare(j);
	/*
	 * Writing the index changes the live bytes of the blocks it goes to
	 * and comes from, and writing the table changes the index: a second
	 * round writes what the first changed but the hints, which the plan
	 * leaves to the next commit (all of them at the end of a mount), to
	 * be lost if the power goes before it.
	 * A round that had to allocate an erase block beyond the spares
	 * needs one more, so that the table this checkpoint names has it in
	 * use: a block the table calls free may be erased after a power cut.
	 */
	if (!err)
		sffs_ebt_fold_plan(j);
	for (i = 0; !err; i++) {
		unsigned long allocs = j->allocs;

		err = sffs_journal_fold_table(j);
		if (!err)
			err = sffs_index_commit(&j->idx, root, len);
		if (i && j->allocs == allocs)
			break;
		if (i == 8) {
			err = -ENOSPC;
			break;
		}
	}
	if (!err)
		err = sffs_flush(j);
	if (!err)
		err = sffs_journal_relist(j);
	j->in_commit = false;
	return err;
}

/*
 * A commit that failed half way may have folded table changes it did not
 * write, or written index nodes a retry would not find again: the RAM
 * state can no longer be trusted to make a checkpoint, so the file system
 * turns read-only, the last checkpoint on the flash still the valid one.
 * Only running out of space is left to the caller, which reports it: a
 * table page's changes are folded once there is room for the page
 * (sffs_journal_fold_table()), and index nodes written stay valid for the
 * next try.
 */
static int sffs_commit_error(struct sffs_journal *j, int err)
{
	if (err == -EIO && j->io->write_failed)
		return sffs_write_error(j, err);
	if (err != -ENOSPC && err != -EROFS && !j->io->ro) {
		pr_crit("sffs: %s: a commit failed (%d): read-only from now on; what was synced is safe\n",
			j->io->mtd->name, err);
		sffs_error_ro(j);
	}
	return err;
}

/*
 * Mark bad on the device the blocks the checkpoint just written calls
 * bad.  Not before: if the power went first, the previous checkpoint,
 * whose table has them in use and whose counts include their bytes,
 * would be the one a mount finds.
 */
static void sffs_markbad_pending(struct sffs_journal *j)
{
	unsigned int i;

	for (i = 0; i < j->nmarkbad; i++) {
		u32 eb = j->markbad[i];

		pr_warn("sffs: %s: erase block %u emptied after a program failure: marked bad\n",
			j->io->mtd->name, eb);
		sffs_io_markbad(j->io, eb);
		trace_sffs_bad_block(j->io->mtd->index, eb,
				     "emptied after a program failure: marked bad");
		j->gc.bad++;
	}
	j->nmarkbad = 0;
	/* counted when their erase failed */
	for (i = 0; i < j->nerasebad; i++) {
		sffs_io_markbad(j->io, j->erasebad[i]);
		trace_sffs_bad_block(j->io->mtd->index, j->erasebad[i],
				     "erase failed: marked bad");
	}
	j->nerasebad = 0;
}

/**
 * sffs_journal_commit - write the dirty index and a checkpoint
 * @j: the journal
 *
 * Return: 0, or a negative error; after an error the file system must
 * turn read-only, the last checkpoint still being the valid one.
 */
/*
 * Before the first commit after an image was placed: the flasher may have
 * programmed with 0xff the pages the image left erased, and no page may be
 * programmed twice.  The journal's blocks still to be written are erased
 * again; a head block already written to is left for the next, its rest
 * dead, as after a power cut.  Blocks taken later are erased when they are
 * reused, and those past the frontier were not written by the flasher
 * (mkfs.sffs -t), or are checked first (sffs_take_free()).
 */
static int sffs_journal_unflash(struct sffs_journal *j)
{
	struct sffs_io *io = j->io;
	unsigned int i;
	u32 off, eb;
	int err;

	if (WARN_ON_ONCE(io->wbuf_used))
		return -EIO;
	div_u64_rem(sffs_io_head(io), io->erase_size, &off);
	for (i = j->jcur + !!off; i < j->jcnt; i++) {
		err = sffs_io_erase(io, j->jeb[i]);
		if (!err)
			err = sffs_ebt_alloc(j, j->jeb[i], true);
		if (err)
			return err;
		j->gc.erases++;
	}
	if (!off)
		return 0;
	j->free -= min_t(u64, j->free, io->erase_size - off);
	j->dirty += io->erase_size - off;
	if (j->jcur + 1 < j->jcnt) {
		eb = j->jeb[++j->jcur];
	} else {
		err = sffs_alloc_eb(j, &eb, true);
		if (err)
			return err;
	}
	sffs_io_set_head(io, sffs_eb_addr(io, eb));
	return 0;
}

int sffs_journal_commit(struct sffs_journal *j)
{
	struct sffs_checkpoint_node *cp = &j->cp;
	unsigned int i, freed, tries;
	u64 root;
	u32 len;
	int err;

	if (j->io->ro)
		return -EROFS;
	if (j->placing) {
		err = sffs_journal_unflash(j);
		if (err)
			return sffs_commit_error(j, err);
		j->placing = false;
	}
	for (tries = 0; ; tries++) {
		unsigned long max_clean = j->idx.max_clean;

		/*
		 * The znodes this commit writes stay cached until it is
		 * done: if the flash refuses a write, those that went to
		 * the same write buffer are found and written again.
		 */
		j->idx.max_clean = ULONG_MAX;
		err = sffs_commit_write(j, &root, &len);
		j->idx.max_clean = max_clean;
		if (!err)
			break;
		if (err != -EIO || !j->io->write_failed || j->io->ro ||
		    tries == SFFS_WRITE_TRIES)
			return sffs_commit_error(j, err);
		err = sffs_journal_recover(j, j->wend);
		if (err)
			return sffs_commit_error(j, err);
	}

	/*
	 * The blocks garbage collection emptied are free in the table this
	 * checkpoint names: count them so.  Nothing is allocated before the
	 * checkpoint is written, a failed one turns the file system
	 * read-only, and they join the pool of free blocks only once it is
	 * written: until then the checkpoint on the flash may use them.
	 */
	freed = j->nfreeable;
	sffs_release_freeable(j);
	cp->feat_ro_compat |= cpu_to_le32(SFFS_FEAT_RO_COMPAT_EBT |
					  SFFS_FEAT_RO_COMPAT_ORPHAN);
	cp->commit = cpu_to_le64(++j->commit);
	cp->max_sqnum = cpu_to_le64(++j->sqnum);
	cp->next_ino = cpu_to_le64(j->next_ino);
	cp->index_root = cpu_to_le64(root);
	cp->index_root_len = cpu_to_le32(len);
	cp->index_height = cpu_to_le16(j->idx.height);
	cp->journal_cnt = cpu_to_le16(j->jcnt);
	cp->jhead = cpu_to_le64(sffs_io_head(j->io));
	cp->alloc_eb = cpu_to_le32(j->alloc_eb);
	cp->free_bytes = cpu_to_le64(j->free);
	cp->dirty_bytes = cpu_to_le64(j->dirty);
	cp->used_bytes = cpu_to_le64(j->used);
	memset(cp->journal_eb, 0xff, sizeof(cp->journal_eb));
	for (len = 0; len < j->jcnt; len++)
		cp->journal_eb[len] = cpu_to_le32(j->jeb[len]);
	/* the spares, so that a mount after a power cut frees them */
	for (i = 0; i < j->nspare && len < SFFS_MAX_JOURNAL_BLOCKS; i++)
		cp->journal_eb[len++] = cpu_to_le32(j->spare[i]);
	cp->spare_cnt = cpu_to_le32(len - j->jcnt);
	/* the image is placed: the list of skipped blocks says where */
	cp->feat_incompat &= ~cpu_to_le32(SFFS_FEAT_INCOMPAT_PLACE |
					  SFFS_FEAT_INCOMPAT_SKIP);
	if (j->io->nskip)
		cp->feat_incompat |= cpu_to_le32(SFFS_FEAT_INCOMPAT_SKIP);
	cp->skip_cnt = cpu_to_le32(j->io->nskip);
	sffs_node_seal(cp, SFFS_NODE_CHECKPOINT, sizeof(*cp), j->sqnum, 0);
	err = sffs_anchor_write(j->io, cp);
	if (err) {
		if (!j->io->ro)
			pr_crit("sffs: %s: the checkpoint could not be written (%d): read-only from now on; what was synced is safe\n",
				j->io->mtd->name, err);
		sffs_error_ro(j);
		return err;
	}
	sffs_markbad_pending(j);
	sffs_pool_released(j);
	j->commits++;
	trace_sffs_commit(j->io->mtd->index, j->commit, j->free, j->dirty,
			  j->used, j->jcnt, freed);
	return 0;
}

/*
 * Space a commit may need, which ordinary operations must leave: as many
 * index nodes as may be dirty before a commit is forced, those a few more
 * splits can add, the table pages a commit may fold with the path of the
 * index each dirties (every page, or as many as there may be changes
 * pending: sffs_journal_fold_table()), plus the tail of a block left when
 * a node does not fit.  A constant for a given tree height, so that statfs does
 * not swing with the dirty set.
 */
u64 sffs_journal_reserve(const struct sffs_journal *j)
{
	u64 isize = ALIGN(sffs_index_node_size(j->idx.fanout), SFFS_NODE_ALIGN);
	u64 nodes = j->max_dirty + 4 * (j->idx.height + 1) + 8;
	u64 pages = min_t(u64, DIV_ROUND_UP(j->io->eb_count, SFFS_EBT_RECS),
			  SFFS_EBT_MAX_HINTS + SFFS_MAX_EBT_CHANGES);
	u64 page = ALIGN(sizeof(struct sffs_ebt_node) +
			 SFFS_EBT_RECS * sizeof(struct sffs_eb_rec),
			 SFFS_NODE_ALIGN);

	return nodes * isize + pages * (page + j->idx.height * isize) +
	       2ULL * j->io->erase_size;
}

static int sffs_check_cp(struct sffs_journal *j)
{
	const struct sffs_checkpoint_node *cp = &j->cp;
	struct sffs_io *io = j->io;
	unsigned int i, cnt = le16_to_cpu(cp->journal_cnt);
	u64 jhead = le64_to_cpu(cp->jhead);
	u64 next_ino = le64_to_cpu(cp->next_ino);
	u64 free = le64_to_cpu(cp->free_bytes);
	u64 dirty = le64_to_cpu(cp->dirty_bytes);
	u64 used = le64_to_cpu(cp->used_bytes);
	/* io->eb_count is at least SFFS_ANCHOR_SEARCH (sffs_io_init()) */
	u64 room = (u64)(io->eb_count - SFFS_ANCHOR_BLOCKS) * io->erase_size;

	if (le16_to_cpu(cp->version) != SFFS_FORMAT_VERSION) {
		pr_err("sffs: format version %u, this kernel reads %u\n",
		       le16_to_cpu(cp->version), SFFS_FORMAT_VERSION);
		return -EINVAL;
	}
	if (le32_to_cpu(cp->feat_incompat) & ~SFFS_FEAT_INCOMPAT_SUPP) {
		pr_err("sffs: unsupported incompatible features %#x\n",
		       le32_to_cpu(cp->feat_incompat));
		return -EINVAL;
	}
	if (le32_to_cpu(cp->feat_ro_compat) & ~SFFS_FEAT_RO_COMPAT_SUPP &&
	    !io->ro) {
		pr_err("sffs: features %#x allow only read-only mounts\n",
		       le32_to_cpu(cp->feat_ro_compat));
		return -EROFS;
	}
	if (le32_to_cpu(cp->erase_size) != io->erase_size ||
	    le32_to_cpu(cp->write_size) != io->write_size ||
	    le32_to_cpu(cp->eb_count) > io->eb_count) {
		pr_err("sffs: made for erase size %u, write size %u, %u blocks; the device has %u, %u, %u\n",
		       le32_to_cpu(cp->erase_size), le32_to_cpu(cp->write_size),
		       le32_to_cpu(cp->eb_count), io->erase_size,
		       io->write_size, io->eb_count);
		return -EINVAL;
	}
	for (i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		if (le32_to_cpu(cp->anchor_eb[i]) != io->anchor_eb[i])
			goto bad;
	if (!cnt || cnt > SFFS_MAX_JOURNAL_BLOCKS ||
	    le32_to_cpu(cp->alloc_eb) > io->eb_count ||
	    le16_to_cpu(cp->fanout) < SFFS_MIN_FANOUT ||
	    le16_to_cpu(cp->fanout) > SFFS_MAX_FANOUT ||
	    jhead & (io->unit - 1) ||
	    sffs_addr_eb(io, jhead) != le32_to_cpu(cp->journal_eb[0]))
		goto bad;
	if (le32_to_cpu(cp->spare_cnt) > SFFS_MAX_JOURNAL_BLOCKS - cnt)
		goto bad;
	/* inode numbers are handed out from here: never a reserved one */
	if (next_ino < SFFS_FIRST_INO || next_ino >= SFFS_INO_LIMIT)
		goto bad;
	/* the space counted is on the flash, outside the anchor */
	if (free > room || dirty > room - free || used > room - free - dirty)
		goto bad;
	for (i = 0; i < cnt + le32_to_cpu(cp->spare_cnt); i++) {
		u32 eb = le32_to_cpu(cp->journal_eb[i]);

		if (eb >= io->eb_count || sffs_io_is_anchor(io, eb))
			goto bad;
	}
	return 0;
bad:
	pr_err("sffs: checkpoint %llu is inconsistent\n",
	       le64_to_cpu(cp->commit));
	return -EUCLEAN;
}

/*
 * The first mount of an image made on a host (SFFS_FEAT_INCOMPAT_PLACE):
 * its blocks up to the frontier are the device's good ones in order
 * (sffs_io_place()).  As many blocks as it passed over are gone from the
 * end of the file system (they are bad to it from now on), and the free
 * space it counted in them, and in bad blocks past the frontier, with
 * them: the image was made for a device with no bad block.  The flasher
 * may have programmed the pages the image left erased with 0xff: the
 * first checkpoint goes to the other anchor slot, erased first, and the
 * first commit erases the journal's blocks (sffs_journal_unflash()).
 */
static int sffs_journal_place(struct sffs_journal *j)
{
	struct sffs_checkpoint_node *cp = &j->cp;
	struct sffs_io *io = j->io;
	u32 alloc = le32_to_cpu(cp->alloc_eb), ebs = le32_to_cpu(cp->eb_count);
	u64 free = le64_to_cpu(cp->free_bytes);
	u32 eb;
	int err;

	/* another version or geometry: said as such, not as a misfit */
	if (le16_to_cpu(cp->version) != SFFS_FORMAT_VERSION ||
	    le32_to_cpu(cp->erase_size) != io->erase_size ||
	    le32_to_cpu(cp->write_size) != io->write_size)
		return sffs_check_cp(j);
	if (le32_to_cpu(cp->feat_incompat) & SFFS_FEAT_INCOMPAT_SKIP ||
	    alloc > ebs || ebs > io->peb_count)
		goto bad;
	err = sffs_io_place(io, alloc);
	if (err)
		return err;
	for (eb = alloc; eb < ebs; eb++) {
		if (!sffs_io_is_bad(io, eb))
			continue;
		if (free < io->erase_size)
			goto bad;
		free -= io->erase_size;
	}
	cp->free_bytes = cpu_to_le64(free);
	io->anchor_rewrite = true;
	j->placing = true;
	pr_info("sffs: %s: image of %u erase blocks placed, %u bad blocks passed over\n",
		io->mtd->name, alloc, io->nskip);
	return 0;
bad:
	pr_err("sffs: %s: checkpoint %llu: an image that cannot be placed\n",
	       io->mtd->name, le64_to_cpu(cp->commit));
	return -EUCLEAN;
}

/**
 * sffs_journal_load - find the last commit and load its index
 * @j: the journal
 * @io: flash I/O, set up
 * @jmax: journal size in erase blocks for the commits to come
 *
 * The first half of a mount: sffs_journal_mount() replays the journal
 * then.
 *
 * Return: 0 or a negative error; on an error, nothing is left to undo.
 */
int sffs_journal_load(struct sffs_journal *j, struct sffs_io *io,
		      unsigned int jmax)
{
	struct sffs_checkpoint_node *cp = &j->cp;
	unsigned int i;
	int err;

	u64 start = ktime_get_ns();

	memset(j, 0, sizeof(*j));
	j->io = io;
	j->jmax = clamp(jmax, 2U, (unsigned int)SFFS_MAX_JOURNAL_BLOCKS);
	j->max_dirty = SFFS_MAX_DIRTY_ZNODES;
	j->wl_threshold = SFFS_DEF_WL_THRESHOLD;
	j->wl_victim = U32_MAX;
	err = sffs_anchor_find(io, cp);
	if (err) {
		if (err == -EINVAL)
			pr_err("sffs: %s: no SFFS checkpoint found\n",
			       io->mtd->name);
		return err;
	}
	if (le32_to_cpu(cp->feat_incompat) & SFFS_FEAT_INCOMPAT_PLACE) {
		err = sffs_journal_place(j);
		if (err)
			return err;
	}
	err = sffs_check_cp(j);
	if (err)
		return err;
	j->mount_ns[0] = ktime_get_ns() - start;
	j->commit = le64_to_cpu(cp->commit);
	j->sqnum = le64_to_cpu(cp->max_sqnum);
	j->next_ino = le64_to_cpu(cp->next_ino);
	j->jcnt = le16_to_cpu(cp->journal_cnt);
	for (i = 0; i < j->jcnt; i++)
		j->jeb[i] = le32_to_cpu(cp->journal_eb[i]);
	j->alloc_eb = le32_to_cpu(cp->alloc_eb);
	j->free = le64_to_cpu(cp->free_bytes);
	j->dirty = le64_to_cpu(cp->dirty_bytes);
	j->used = le64_to_cpu(cp->used_bytes);

	err = sffs_ebt_init(j);
	if (!err)
		err = sffs_put_buf_init(j, le16_to_cpu(cp->fanout));
	if (!err)
		err = sffs_index_init(&j->idx, &sffs_index_ops, j,
				      le16_to_cpu(cp->fanout));
	if (err) {
		sffs_put_buf_free(j);
		sffs_ebt_destroy(j);
		return err;
	}
	j->idx.packed = le32_to_cpu(cp->feat_incompat) &
			SFFS_FEAT_INCOMPAT_PACKED;
	j->idx.max_clean = SFFS_INDEX_CACHE;
	for (i = 0; i < j->jcnt && !err; i++)
		err = sffs_ebt_claim(j, j->jeb[i]);
	/*
	 * Spares the last commit set aside are in use by the table, and
	 * hold nothing it needs: a commit cut short may have written to
	 * them.  Free: they are erased before they are used again.
	 */
	for (i = 0; i < le32_to_cpu(cp->spare_cnt) && !err; i++)
		err = sffs_ebt_free(j, le32_to_cpu(cp->journal_eb[j->jcnt + i]));
	if (!err)
		err = sffs_index_load(&j->idx, le64_to_cpu(cp->index_root),
				      le32_to_cpu(cp->index_root_len),
				      le16_to_cpu(cp->index_height));
	j->mount_ns[1] = ktime_get_ns() - start;
	if (err)
		sffs_journal_unmount(j);
	return err;
}

/**
 * sffs_journal_placed - write down where the image was placed
 * @j: the journal, mounted
 *
 * After the first mount of an image (SFFS_FEAT_INCOMPAT_PLACE), or the
 * first read-write one: a commit records the skipped blocks.  Read-only,
 * each mount places the image again, which gives the same list as long
 * as nothing marks blocks bad, and nothing does but a writable mount.
 *
 * Return: 0, or the error of the commit.
 */
int sffs_journal_placed(struct sffs_journal *j)
{
	if (j->io->ro ||
	    !(le32_to_cpu(j->cp.feat_incompat) & SFFS_FEAT_INCOMPAT_PLACE))
		return 0;
	return sffs_journal_commit(j);
}

void sffs_journal_unmount(struct sffs_journal *j)
{
	sffs_index_destroy(&j->idx);
	sffs_put_buf_free(j);
	sffs_ebt_destroy(j);
}

/**
 * sffs_journal_format - make an empty file system on an MTD device
 * @j: journal state to use, left unmounted
 * @io: flash I/O, set up on the device
 * @compr: default compression, &enum sffs_compr
 *
 * Erases every good block and commits an index holding only the root
 * directory, through the same journal and commit code the file system
 * runs on.  mkfs.sffs writes the same layout from user space; this one
 * lets the KUnit suites format the RAM flash they mount.
 *
 * Return: 0 or a negative error.
 */
int sffs_journal_format(struct sffs_journal *j, struct sffs_io *io,
			unsigned int compr)
{
	struct sffs_checkpoint_node *cp = &j->cp;
	struct sffs_inode_node root = {};
	struct sffs_wnode wn = {
		.buf = &root, .len = sizeof(root), .type = SFFS_NODE_INODE,
	};
	struct timespec64 now;
	struct sffs_ckey key;
	unsigned int fanout, i;
	u32 eb;
	int err;

	memset(j, 0, sizeof(*j));
	j->io = io;
	j->jmax = 8;
	j->max_dirty = SFFS_MAX_DIRTY_ZNODES;
	for (eb = 0; eb < io->eb_count; eb++) {
		if (sffs_io_is_bad(io, eb))
			continue;
		err = sffs_io_erase(io, eb);
		if (err)
			return err;
		if (!sffs_io_is_anchor(io, eb))
			j->free += io->erase_size;
	}
	io->cp_slot = 0;
	io->cp_next = 0;

	fanout = sffs_default_fanout(io->write_size);
	cp->version = cpu_to_le16(SFFS_FORMAT_VERSION);
	cp->fanout = cpu_to_le16(fanout);
	get_random_bytes(cp->uuid, sizeof(cp->uuid));
	cp->erase_size = cpu_to_le32(io->erase_size);
	cp->write_size = cpu_to_le32(io->write_size);
	cp->eb_count = cpu_to_le32(io->eb_count);
	for (i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		cp->anchor_eb[i] = cpu_to_le32(io->anchor_eb[i]);
	cp->mkfs_time = cpu_to_le64(ktime_get_real_seconds());
	cp->default_compr = compr;
	j->next_ino = SFFS_FIRST_INO;

	cp->feat_ro_compat = cpu_to_le32(SFFS_FEAT_RO_COMPAT_EBT |
					 SFFS_FEAT_RO_COMPAT_ORPHAN);
	cp->feat_incompat = cpu_to_le32(SFFS_FEAT_INCOMPAT_PACKED);
	err = sffs_ebt_init(j);
	if (!err)
		err = sffs_put_buf_init(j, fanout);
	if (!err)
		err = sffs_index_init(&j->idx, &sffs_index_ops, j, fanout);
	if (err) {
		sffs_put_buf_free(j);
		sffs_ebt_destroy(j);
		return err;
	}
	j->idx.packed = true;
	err = sffs_alloc_eb(j, &eb, false);
	if (err)
		goto out;
	j->jeb[0] = eb;
	j->jcnt = 1;
	sffs_io_set_head(io, sffs_eb_addr(io, eb));

	ktime_get_real_ts64(&now);
	key = sffs_key(SFFS_ROOT_INO, SFFS_KEY_INODE, 0);
	sffs_key_to_le(&root.key, &key);
	root.atime.sec = cpu_to_le64(now.tv_sec);
	root.atime.nsec = cpu_to_le32(now.tv_nsec);
	root.mtime = root.atime;
	root.ctime = root.atime;
	root.mode = cpu_to_le32(S_IFDIR | 0755);
	root.nlink = cpu_to_le32(2);
	err = sffs_journal_write(j, &wn, 1, false);
	if (!err)
		err = sffs_journal_commit(j);
out:
	sffs_journal_unmount(j);
	return err;
}
