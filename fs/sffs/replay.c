// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS journal replay.
 *
 * The checkpoint of the last commit names the journal blocks and where
 * the journal starts (jhead).  Replay reads them in order and applies, to
 * the index loaded from that commit, every whole operation it finds: the
 * nodes up to one without SFFS_NODE_FL_CONT.  It stops at the first block
 * that does not start with a node newer than the last one applied.
 *
 * Within a block, nodes follow each other at 8-byte aligned offsets.  A
 * pad node fills the rest of a flushed write unit; a rest too short for a
 * node header is left erased, so erased bytes are skipped to the next
 * unit when a valid node follows there.  A node that fails its checksums
 * is a write torn by a power cut: replay ignores the rest of its block,
 * and the operation it belonged to.
 *
 * An empty journal means a clean unmount: replay has then read one unit,
 * two when the journal list has a second block.
 * After a non-empty one the mount commits at once (sffs_journal_replay()'s
 * caller), so that writing restarts in a fresh erase block and never
 * programs a page next to one a power cut may have left half written.
 */
#include <linux/mtd/mtd.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <trace/events/sffs.h>
#include "journal.h"

struct sffs_replay {
	struct sffs_journal *j;
	void *buf;
	u64 base;		/* flash address of buf[0] */
	u32 group[SFFS_MAX_GROUP];	/* offsets in buf of a pending op */
	unsigned int ngroup;
	u64 end;		/* end of the last node read */
	bool torn;
};

static int sffs_replay_group(struct sffs_replay *r)
{
	unsigned int i;
	int err;

	for (i = 0; i < r->ngroup; i++) {
		void *node = r->buf + r->group[i];
		u64 addr = r->base + r->group[i];

		if (((struct sffs_node_hdr *)node)->type == SFFS_NODE_INODE) {
			struct sffs_ckey key;

			sffs_node_key(node, &key);
			/* key.ino + 1 becomes next_ino: below the limit too */
			if (key.ino >= SFFS_INO_LIMIT - 1) {
				pr_err("sffs: %s: inode node at %llu has number %llu, too large\n",
				       r->j->io->mtd->name, addr, key.ino);
				return -EUCLEAN;
			}
			if (key.ino >= r->j->next_ino)
				r->j->next_ino = key.ino + 1;
		}
		err = sffs_journal_apply(r->j, node, addr);
		if (err)
			return err;
	}
	r->j->replayed += r->ngroup;
	r->ngroup = 0;
	return 0;
}

/* Replay the nodes in r->buf, @len bytes; return how many nodes it had */
static int sffs_replay_block(struct sffs_replay *r, u32 len)
{
	struct sffs_journal *j = r->j;
	u32 p = 0, unit = j->io->unit;
	int nodes = 0, err;

	r->ngroup = 0;
	while (p + sizeof(struct sffs_node_hdr) <= len) {
		struct sffs_node_hdr *hdr = r->buf + p;
		u32 nlen;

		err = sffs_node_check(hdr, len - p);
		if (err == -ENODATA) {
			u32 q = ALIGN(p + 1, unit);

			if (q + sizeof(*hdr) <= len &&
			    !sffs_node_check(r->buf + q, len - q)) {
				p = q;
				continue;
			}
			break;
		}
		/*
		 * Pads carry no sequence number: an fsync() or a commit may
		 * have written one anywhere, and more nodes follow it.
		 */
		if (!err && hdr->type == SFFS_NODE_PAD) {
			nlen = le32_to_cpu(hdr->len);
			j->free -= min_t(u64, j->free,
					 ALIGN(nlen, SFFS_NODE_ALIGN));
			j->dirty += ALIGN(nlen, SFFS_NODE_ALIGN);
			p += ALIGN(nlen, SFFS_NODE_ALIGN);
			r->end = r->base + p;
			continue;
		}
		if (err || le64_to_cpu(hdr->sqnum) <= j->sqnum) {
			/* torn write, or an old node: the block ends here */
			r->torn = err != 0;
			break;
		}
		nlen = le32_to_cpu(hdr->len);
		j->sqnum = le64_to_cpu(hdr->sqnum);
		j->free -= min_t(u64, j->free, ALIGN(nlen, SFFS_NODE_ALIGN));
		if (hdr->type == SFFS_NODE_INDEX ||
		    hdr->type == SFFS_NODE_CHECKPOINT ||
		    hdr->type == SFFS_NODE_EBT) {
			/*
			 * Dead: what a commit cut short wrote.  A table page
			 * garbage collection moved is dead too: the index of
			 * this checkpoint has the original.
			 */
			j->dirty += ALIGN(nlen, SFFS_NODE_ALIGN);
		} else {
			j->used += ALIGN(nlen, SFFS_NODE_ALIGN);
			sffs_ebt_live(j, r->base + p, ALIGN(nlen, SFFS_NODE_ALIGN));
			if (r->ngroup == SFFS_MAX_GROUP) {
				r->torn = true;
				break;
			}
			r->group[r->ngroup++] = p;
			if (!(hdr->flags & SFFS_NODE_FL_CONT)) {
				err = sffs_replay_group(r);
				if (err)
					return err;
			}
		}
		nodes++;
		p += ALIGN(nlen, SFFS_NODE_ALIGN);
		r->end = r->base + p;
	}
	/* An operation cut short: its nodes stay dead on the flash */
	r->ngroup = 0;
	return nodes;
}

/*
 * Apply the journal to the index after sffs_journal_load().
 *
 * Return: 0 or a negative error.  On success the write head is set and,
 * when replay found anything, a commit has written it into the index.
 */
static int sffs_journal_replay(struct sffs_journal *j)
{
	struct sffs_io *io = j->io;
	struct sffs_replay r = { .j = j };
	u64 jhead = le64_to_cpu(j->cp.jhead);
	unsigned int i, last = 0;
	u64 tail = 0;
	int err = 0, n;

	/*
	 * Clean unmount: the journal's first unit was never written.  Only
	 * then is a block-sized buffer needed, so a clean mount does not
	 * allocate one.
	 */
	r.buf = kmalloc(io->unit, GFP_KERNEL);
	if (!r.buf)
		return -ENOMEM;
	err = sffs_io_read(io, jhead, r.buf, io->unit);
	if (!err && !memchr_inv(r.buf, 0xff, io->unit) && j->jcnt > 1) {
		/*
		 * An operation too big for the rest of the head's block goes
		 * to the next one of the list and leaves jhead erased: look
		 * there too before calling the journal empty.
		 */
		err = sffs_io_read(io, sffs_eb_addr(io, j->jeb[1]), r.buf,
				   io->unit);
		if (!err && !sffs_node_check_hdr(r.buf, io->unit) &&
		    le64_to_cpu(((struct sffs_node_hdr *)r.buf)->sqnum) <=
		    j->sqnum)
			memset(r.buf, 0xff, io->unit);
	}
	if (err || !memchr_inv(r.buf, 0xff, io->unit)) {
		kfree(r.buf);
		if (!err)
			sffs_io_set_head(io, jhead);
		return err;
	}
	kfree(r.buf);
	r.buf = kvmalloc(io->erase_size, GFP_KERNEL);
	if (!r.buf)
		return -ENOMEM;

	for (i = 0; i < j->jcnt; i++) {
		u64 start = i ? sffs_eb_addr(io, j->jeb[i]) : jhead;
		u64 block_end = sffs_eb_addr(io, j->jeb[i] + 1);

		r.base = start;
		r.end = start;
		err = sffs_io_read(io, start, r.buf, block_end - start);
		if (err)
			goto out;
		n = sffs_replay_block(&r, block_end - start);
		if (n < 0) {
			err = n;
			goto out;
		}
		if (!n && i)
			break;
		/*
		 * What follows the last node of a block was never written
		 * to: the journal went on in the next block, or the power
		 * went.  It is dead space, as sffs_journal_next_block()
		 * counted it before the cut; counted free, it would be
		 * space no erase block has.
		 */
		last = i;
		tail += block_end - r.end;
	}
	pr_info("sffs: %s: replayed %lu nodes from %u journal blocks%s\n",
		io->mtd->name, j->replayed, last + 1,
		r.torn ? ", last write torn" : "");
	trace_sffs_replay(io->mtd->index, j->commit, j->replayed, last + 1,
			  r.torn);

	/* The rest of the last block is not written to either: it may be torn */
	j->free -= min(j->free, tail);
	j->dirty += tail;
	sffs_io_set_head(io, jhead);
	if (!io->ro) {
		err = sffs_journal_restart(j, last);
		if (err == -EIO && io->write_failed) {
			/* what was replayed is there, read-only */
			pr_crit("sffs: %s: a flash write failed after the replay: mounting read-only\n",
				io->mtd->name);
			io->ro = true;
			err = 0;
		}
	}
out:
	kvfree(r.buf);
	return err;
}

/**
 * sffs_journal_mount - find the last commit, load the index, replay
 * @j: the journal
 * @io: flash I/O, set up
 * @jmax: journal size in erase blocks for the commits to come
 *
 * Return: 0 or a negative error.
 */
int sffs_journal_mount(struct sffs_journal *j, struct sffs_io *io,
		       unsigned int jmax)
{
	u64 start;
	int err;

	err = sffs_journal_load(j, io, jmax);
	if (err)
		return err;
	start = ktime_get_ns();
	err = sffs_journal_replay(j);
	/*
	 * A block that goes bad under the image must not move the rest:
	 * the mapping is written down before anything can mark one.
	 */
	if (!err)
		err = sffs_journal_placed(j);
	j->mount_ns[2] = j->mount_ns[1] + ktime_get_ns() - start;
	if (err)
		sffs_journal_unmount(j);
	return err;
}
