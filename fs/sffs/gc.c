// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS garbage collection, wear levelling and scrubbing.
 *
 * Nodes are written out of place, so the flash fills with obsolete ones.
 * Garbage collection picks a *victim* erase block, rewrites the nodes in
 * it that are still live at the journal head, has the next commit rewrite
 * the index nodes in it that the tree still uses, and so empties it.  The
 * victim becomes free once a checkpoint whose index no longer refers to it
 * is on the flash: until then a power cut would bring back the previous
 * checkpoint, and that one may still need it.  It is erased when it is
 * next allocated, not before.
 *
 * A moved node is an operation of its own in the journal.  Replay applies
 * it like any other, and it is equivalent whether replay sees it or not:
 * before the commit that frees the victim, the original is still there.
 *
 * Victims are chosen greedily: the block with the fewest live bytes goes
 * first, the older of two alike.  Garbage collection runs in the write
 * path, where the cost that matters is what it writes again to free a
 * block; that is what F2FS's foreground collection and UBIFS do too.
 * Cost and benefit (Rosenblum and Ousterhout's LFS, (1 - u) * age /
 * (1 + u)), which SFFS used first, chose old blocks with more live data
 * over young ones with less, and rewrote more than twice the bytes on
 * the mixed overwrites of the aging benchmark
 * (sffs_fs_aged_write_amplification).  Cold data nobody rewrites is
 * static wear levelling's business, below.
 *
 * A block a read found correctable bitflips in is collected first, before
 * the bits rot beyond what ECC corrects (scrubbing).
 *
 * Collection runs in the write path: file system operations are journaled
 * through sffs_write_op(), which collects first when free blocks run low,
 * and the moves are written with sffs_journal_write() below it.  The free
 * blocks themselves, and the table scans that find them and the victims,
 * are space.c's.
 *
 * Locking: the caller holds the file system's mutex.
 */
#include <linux/mtd/mtd.h>
#include <linux/slab.h>
#include <linux/fault-inject.h>	/* after slab.h: it needs gfp_t */
#include <linux/string.h>
#include <trace/events/sffs.h>
#include "journal.h"

/*
 * Collect when fewer free blocks than this are left: half a journal and a
 * few more, but no more than a sixteenth of a small device.
 */
static u64 sffs_gc_low(const struct sffs_journal *j)
{
	return clamp(j->io->eb_count / 16, 2U, j->jmax / 2 + 4);
}

/*
 * Collection ahead of the end of the journal list (sffs_gc_ahead_due())
 * starts once the write head is in the last this many blocks of the list,
 * where the moves of mostly dead victims fit.  Moves that do not fit end
 * the list early, and its commit comes first, as it would have without
 * the round ahead.
 */
#define SFFS_GC_AHEAD_BLOCKS	2

/*
 * Collection runs sffs_write_op() makes for one operation that finds the
 * journal list used up and no free block for the next: each is followed
 * by a commit, which frees the blocks the run emptied and lists more, so
 * a few are plenty.
 */
#define SFFS_GC_STARVED_TRIES	8

/* Rewrite a live leaf node found at @addr, or leave a dead one */
static int sffs_gc_leaf(struct sffs_journal *j, struct sffs_node_hdr *hdr,
			u64 addr)
{
	u32 len = le32_to_cpu(hdr->len);
	struct sffs_wnode wn = {
		.buf = hdr, .len = len, .type = hdr->type,
		.flags = hdr->flags & ~SFFS_NODE_FL_CONT,
	};
	struct sffs_ckey key;
	struct sffs_zref ref;
	int err;

	if (sffs_node_key(hdr, &key))
		return 0;
	err = sffs_index_lookup(&j->idx, &key, &ref);
	if (err == -ENOENT || (!err && ref.addr != addr))
		return 0;
	if (err)
		return err;
	err = sffs_journal_write(j, &wn, 1, false);
	if (!err)
		j->gc.moved += ALIGN(len, SFFS_NODE_ALIGN);
	return err;
}

static int sffs_gc_index(struct sffs_journal *j, struct sffs_index_node *ix,
			 u64 addr)
{
	struct sffs_ckey key = sffs_index_first_key(ix);
	int ret;

	ret = sffs_index_dirty_node(&j->idx, addr, le16_to_cpu(ix->level),
				    &key);
	if (ret > 0)
		j->gc.index_moved++;
	return ret < 0 ? ret : 0;
}

#define SFFS_GC_EMPTY	1	/* the block was never written */
#define SFFS_GC_REFUSED	2	/* the block cannot be walked: keep it */
#define SFFS_GC_ROOM	3	/* a round stopped: no room for more moves */

/*
 * Empty erase block @eb.  Return 0 when its live nodes were moved,
 * SFFS_GC_EMPTY, SFFS_GC_REFUSED or a negative error.
 */
static int sffs_gc_walk(struct sffs_journal *j, u32 eb, void *buf)
{
	struct sffs_io *io = j->io;
	u32 p = 0, size = io->erase_size;
	u64 base = sffs_eb_addr(io, eb);
	int err;

	err = sffs_io_read(io, base, buf, size);
	if (err) {
		/*
		 * Uncorrectable: what is readable stays readable where it
		 * is, and what is not is reported to whoever reads it.
		 */
		return SFFS_GC_REFUSED;
	}
	if (!memchr_inv(buf, 0xff, size))
		return SFFS_GC_EMPTY;
	while (p + sizeof(struct sffs_node_hdr) <= size) {
		struct sffs_node_hdr *hdr = buf + p;
		u32 q;

		err = sffs_node_check(hdr, size - p);
		if (err == -ENODATA) {
			/* erased: the rest of a unit, or of the block */
			q = ALIGN(p + 1, io->unit);
			if (q + sizeof(*hdr) <= size &&
			    memchr_inv(buf + q, 0xff, sizeof(*hdr))) {
				p = q;
				continue;
			}
			if (q < size && memchr_inv(buf + q, 0xff, size - q)) {
				pr_warn_ratelimited("sffs: %s: erase block %u has data after an erased unit at %u; not collected\n",
						    io->mtd->name, eb, q);
				return SFFS_GC_REFUSED;
			}
			break;
		}
		if (err) {
			/*
			 * A write torn by a power cut ends what was written
			 * to a block.  Anything after it means damage:
			 * keep the block rather than lose what it holds.
			 * The torn node itself may reach into pages that
			 * were programmed, when its header is whole.
			 */
			q = p + 1;
			if (!sffs_node_check_hdr(hdr, size - p))
				q = p + le32_to_cpu(hdr->len);
			q = ALIGN(q, io->unit);
			if (q < size && memchr_inv(buf + q, 0xff, size - q)) {
				pr_warn_ratelimited("sffs: %s: erase block %u has a damaged node at %u; not collected\n",
						    io->mtd->name, eb, p);
				return SFFS_GC_REFUSED;
			}
			break;
		}
		switch (hdr->type) {
		case SFFS_NODE_INDEX:
			err = sffs_gc_index(j, (void *)hdr, base + p);
			break;
		case SFFS_NODE_INODE:
		case SFFS_NODE_DATA:
		case SFFS_NODE_DENTRY:
		case SFFS_NODE_XATTR:
		case SFFS_NODE_ORPHAN:
		case SFFS_NODE_EBT:
			err = sffs_gc_leaf(j, hdr, base + p);
			break;
		default:
			/* padding, truncations, deletions: dead once committed */
			break;
		}
		if (err)
			return err;
		p += ALIGN(le32_to_cpu(hdr->len), SFFS_NODE_ALIGN);
	}
	return 0;
}

static int sffs_gc_block(struct sffs_journal *j, u32 eb, void *buf,
			 const char *why)
{
	u64 moved = j->gc.moved;
	int ret = sffs_gc_walk(j, eb, buf);

	trace_sffs_gc_block(j->io->mtd->index, eb, why, ret,
			    j->gc.moved - moved);
	return ret;
}

/*
 * Neither has a commit moved the journal on since @commit (the blocks it
 * lists cannot be collected) nor has an erase block's worth of bytes
 * died since there were @dirty: a collection that found too little then
 * would find no more now, and trying again would only move and commit,
 * taking free bytes that back what the page cache was promised.
 */
static bool sffs_gc_unchanged(const struct sffs_journal *j, u64 commit,
			      u64 dirty)
{
	return j->commit == commit && j->dirty < dirty + j->io->erase_size;
}

/* Collection could not cover what was promised, and nothing has changed */
static bool sffs_dark_waits(const struct sffs_journal *j)
{
	return j->dark && sffs_gc_unchanged(j, j->dark_commit, j->dark);
}

/*
 * At most the free blocks the commit that ends the journal list takes to
 * list again (sffs_journal_relist()): the blocks the journal left behind,
 * and one for the head's block, which may be too full to be listed.
 */
static u64 sffs_relist_takes(const struct sffs_journal *j)
{
	return j->jmax - min(j->jmax, j->jcnt - j->jcur) + 1;
}

/*
 * Is a round of collection due ahead of the end of a journal list, whose
 * commit would leave fewer free blocks than the low watermark?  Then that
 * round's commit ends the list too: one commit where there were two (see
 * "Garbage collection" in Documentation/filesystems/sffs.rst).
 *
 * Only for a whole list, which the journal has moved on in: the commit
 * lists before the victims it frees are free, and a list it could not
 * fill means free blocks are scarce; the runs below the watermark, which
 * make sure each round wins something, take over then.  And not again
 * after a round that won too little until an erase block's worth of bytes
 * died: every round commits.
 */
static bool sffs_gc_ahead_due(const struct sffs_journal *j)
{
	return j->jcnt >= j->jmax && j->jcur &&
	       j->jcnt - j->jcur - 1 < SFFS_GC_AHEAD_BLOCKS &&
	       (!j->gc_ahead_idle ||
		j->died >= j->gc_ahead_died + j->io->erase_size) &&
	       sffs_free_blocks(j) < sffs_gc_low(j) + sffs_relist_takes(j);
}

bool sffs_gc_wanted(const struct sffs_journal *j)
{
	if (j->in_gc || j->in_commit || j->io->ro)
		return false;
	/* blocks to scrub that were busy are tried again after a commit */
	if (j->io->nscrub && j->scrub_commit != j->commit)
		return true;
	if (j->wl_stage == 2 || j->starved)
		return true;
	if (sffs_free_blocks(j) >= sffs_gc_low(j))
		return sffs_gc_ahead_due(j);
	/*
	 * The last run found nothing more to win, and near a full flash
	 * every write would try again: wait, as sffs_gc_cover() does, for
	 * something to change.
	 */
	return !j->gc_failed ||
	       !sffs_gc_unchanged(j, j->gc_failed_commit, j->gc_failed_dirty);
}

/*
 * Static wear levelling, stage 2: the journal lists worn blocks after
 * the head's; leave the head's block for them, and move the cold block.
 */
static int sffs_wl_move(struct sffs_journal *j, void *buf)
{
	u32 eb = j->wl_victim, ec = j->wl_victim_ec;
	int err;

	j->wl_stage = 0;
	j->wl_victim = U32_MAX;
	if (!j->jcur) {
		err = sffs_journal_next_block(j);
		if (err)
			return err == -EAGAIN ? 0 : err;
	}
	if (sffs_eb_busy(j, eb) || j->nfreeable >= SFFS_MAX_FREEABLE)
		return 0;
	err = sffs_gc_block(j, eb, buf, "wear levelling");
	if (err < 0)
		return err;
	if (err == SFFS_GC_REFUSED)
		return 0;
	if (err == SFFS_GC_EMPTY)
		j->freeable_empty |= BIT(j->nfreeable);
	j->freeable_ec[j->nfreeable] = ec;
	j->freeable[j->nfreeable++] = eb;
	j->gc.wl_moves++;
	return 0;
}

/*
 * Move the data out of the blocks reads found bitflips in.  A block of
 * the journal, or one about to be written, waits until a commit has moved
 * the journal on; a free one is erased before it is used anyway.
 */
static int sffs_scrub(struct sffs_journal *j, void *buf)
{
	struct sffs_io *io = j->io;
	unsigned int i = 0;
	int err;

	while (i < io->nscrub && j->nfreeable < SFFS_MAX_FREEABLE) {
		u32 eb = io->scrub[i];
		bool done = sffs_io_is_anchor(io, eb) ||
			    sffs_list_has(j->freeable, j->nfreeable, eb) ||
			    sffs_list_has(j->pool, j->npool, eb);

		if (!done && sffs_eb_busy(j, eb)) {
			i++;
			continue;
		}
		sffs_io_scrub_del(io, eb);
		if (done || eb >= j->alloc_eb)
			continue;
		err = sffs_gc_block(j, eb, buf, sffs_io_retiring(io, eb) ?
				    "retire" : "scrub");
		/* the walk read it again and found the same bitflips */
		sffs_io_scrub_del(io, eb);
		if (err < 0)
			return err;
		if (err == SFFS_GC_REFUSED)
			continue;
		if (!sffs_io_retiring(io, eb))
			pr_info("sffs: %s: erase block %u had bitflips: data moved\n",
				io->mtd->name, eb);
		if (err == SFFS_GC_EMPTY)
			j->freeable_empty |= BIT(j->nfreeable);
		/* its erase count is not at hand: a scan finds it free */
		j->freeable_ec[j->nfreeable] = U32_MAX;
		j->freeable[j->nfreeable++] = eb;
		if (!sffs_io_retiring(io, eb))
			j->gc.scrubbed++;
	}
	j->scrub_commit = j->commit;
	return 0;
}

/*
 * Flash that garbage collection must always have to make progress: the
 * blocks it keeps free, and the live part of a victim it moves; and the
 * reserve for blocks that go bad.
 */
u64 sffs_gc_reserve(const struct sffs_journal *j)
{
	return (sffs_gc_low(j) + 2 + sffs_bad_reserve_blocks(j)) *
	       (u64)j->io->erase_size;
}

/* Erase blocks the journal may still write: the rest of its list, the free */
static u64 sffs_gc_room(const struct sffs_journal *j)
{
	return sffs_free_blocks(j) + j->jcnt - j->jcur - 1;
}

/*
 * Whether a round may move another victim: the victims emptied are free
 * only after the commit that ends the round, and with little dead space
 * in each, their moves may take what the journal has first.  What is left
 * must hold the commit, and a victim all of whose bytes are live with the
 * tail of a block it may waste.
 */
static bool sffs_gc_fits(struct sffs_journal *j)
{
	u64 esize = j->io->erase_size;
	u64 room = sffs_io_room(j->io) + sffs_gc_room(j) * esize;

	return room >= sffs_commit_need(j) + esize + esize / 8;
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * Fault injection (debugfs sffs/fail_gc, and the KUnit suites): a round of
 * collection finds nothing it can free, as when the dead bytes left are
 * too thin or sit in blocks that cannot be read whole.
 */
DECLARE_FAULT_ATTR(sffs_fail_gc);

static bool sffs_gc_should_fail(void)
{
	return should_fail(&sffs_fail_gc, 1);
}
#else
static bool sffs_gc_should_fail(void)
{
	return false;
}
#endif

/*
 * One round of collection: move the live nodes out of victims until the
 * free blocks and those emptied reach @want, at least @least are emptied,
 * SFFS_MAX_FREEABLE are waiting for the commit that frees them, or the
 * room left is what that commit needs.
 *
 * Return: 0, SFFS_GC_ROOM when it stopped for lack of room, -ENOSPC when
 * a pass over the table found too few victims, or an error.
 */
static int sffs_gc_round(struct sffs_journal *j, void *buf, u64 want,
			 unsigned int least)
{
	unsigned int scans = 0, windows = sffs_scan_windows(j);
	int err = 0;

	if (sffs_gc_should_fail())
		return -ENOSPC;
	while (!err && (sffs_free_blocks(j) + j->nfreeable < want ||
			j->nfreeable < least) &&
	       j->nfreeable < SFFS_MAX_FREEABLE) {
		u32 eb, ec;

		/*
		 * With no victim emptied yet, a commit would free nothing:
		 * collecting is the only way on, and the commit's spares
		 * (sffs_commit_prepare()) are its last resort.
		 */
		if (j->nfreeable && !sffs_gc_fits(j))
			return SFFS_GC_ROOM;
		if (!j->nvictim) {
			/*
			 * A pass over the table, and a window more, without
			 * enough to free: give up.  A wide round (see
			 * sffs_gc_run()) may take the victims of enough
			 * scans more for the blocks it wants emptied.
			 */
			if (scans++ == windows + 1 +
			    (least == SFFS_MAX_FREEABLE ?
			     SFFS_MAX_FREEABLE / SFFS_GC_VICTIMS : 0))
				return -ENOSPC;
			err = sffs_scan_table(j, true);
			/* a window without victims: the next one */
			continue;
		}
		eb = j->victim[--j->nvictim];
		ec = j->victim_ec[j->nvictim];
		if (sffs_eb_busy(j, eb))
			continue;
		err = sffs_gc_block(j, eb, buf, "victim");
		if (err < 0)
			break;
		if (err == SFFS_GC_REFUSED) {
			j->refused[j->gc.refused++ % SFFS_MAX_REFUSED] = eb;
			err = 0;
			continue;
		}
		if (err == SFFS_GC_EMPTY)
			j->freeable_empty |= BIT(j->nfreeable);
		j->freeable_ec[j->nfreeable] = ec;
		j->freeable[j->nfreeable++] = eb;
		j->gc.blocks++;
		err = 0;
	}
	return err;
}

/*
 * Collect, and commit what was emptied; with @more, go on in rounds (see
 * sffs_gc()) while fewer than @low erase blocks are free.
 */
static int sffs_gc_run(struct sffs_journal *j, bool more, u64 low)
{
	u64 want = low + clamp(j->jmax / 2, 4U, 16U);
	unsigned int least = 0, round;
	bool cut;
	u64 before;
	void *buf;
	int err = 0;

	buf = kvmalloc(j->io->erase_size, GFP_NOFS);
	if (!buf)
		return -ENOMEM;
	j->gc.runs++;
	if (j->starved) {
		/* free by the counts, but not by the table: collect anyway */
		j->starved = false;
		least = 4;
	}
	for (round = 0; ; round++) {
		before = j->free;
		j->in_gc = true;
		/* scrubbing and wear levelling once a run, before collection */
		if (!round)
			err = sffs_scrub(j, buf);
		if (!round && !err && j->wl_stage == 2)
			err = sffs_wl_move(j, buf);
		if (!err)
			err = sffs_gc_round(j, buf, want, least);
		j->in_gc = false;
		/* a round the room cut short would be no wider tried again */
		cut = err == SFFS_GC_ROOM;
		if (cut)
			err = 0;
		trace_sffs_gc(j->io->mtd->index, sffs_free_blocks(j),
			      j->nfreeable, err);
		if (!j->nfreeable || (err && err != -ENOSPC))
			break;
		err = sffs_journal_commit(j);
		if (!err)
			j->commits_gc++;
		if (err || !more || sffs_free_blocks(j) >= low)
			break;
		/*
		 * Each commit rewrites the index nodes above the nodes moved,
		 * whatever the round emptied: where dead bytes are thin, a
		 * round of a few victims may win less than its commit takes,
		 * and more victims share the index nodes their moves dirty.
		 * A round that did not win an eighth of an erase block in
		 * free bytes is tried again wide, wanting SFFS_MAX_FREEABLE
		 * victims (sffs_gc_fits() still bounds it), and the rounds of
		 * the run stay wide.  A wide round, or one the room cut
		 * short, that wins less ends the run: the dead space left is
		 * too thin to collect.  Bytes, not whole blocks: a round that
		 * wins less than a block leaves the next one closer.
		 */
		if (j->free < before + j->io->erase_size / 8) {
			if (least == SFFS_MAX_FREEABLE || cut) {
				err = -ENOSPC;
				break;
			}
			least = SFFS_MAX_FREEABLE;
		} else if (least < SFFS_MAX_FREEABLE) {
			least = 0;
		}
		if (least == SFFS_MAX_FREEABLE)
			j->gc.wide_rounds++;
		j->gc.more_rounds++;
	}
	kvfree(buf);
	/*
	 * What was dark may have been collected (see sffs_gc_cover()): a run
	 * in rounds that did not fail reached its target; after a single
	 * round (ahead, or sffs_gc_retire()'s), the free bytes must cover
	 * what sffs_gc_cover() wanted when it counted them dark.
	 */
	if (!err && (more || j->free >= j->dark_need))
		j->dark = 0;
	if (more) {
		j->gc_failed = err == -ENOSPC;
		j->gc_failed_commit = j->commit;
		j->gc_failed_dirty = j->dirty;
	}
	return err;
}

/**
 * sffs_gc - collect garbage until enough erase blocks are free
 * @j: the journal
 *
 * Moves the live nodes out of victims until the free blocks and those
 * emptied reach the low watermark and half a journal more, then commits,
 * which frees the emptied ones.  Each commit writes index nodes and table
 * pages whatever it frees: a run that frees more blocks at once commits
 * less often for the same blocks, as long as the moves fit the journal
 * list, hence half of it.
 *
 * On a nearly full flash whose dead bytes are spread thin, each victim
 * frees only the part of a block it does not move, and the blocks one
 * round may empty before a commit (SFFS_MAX_FREEABLE) may not make up for
 * what the moves took.  Rounds then go on, a commit after each, while
 * fewer blocks than the low watermark are free and each round wins an
 * eighth of an erase block at least, or is tried again wide (see
 * sffs_gc_run()): what statfs and the page budget count as space, dead
 * bytes included, must stay writable, or writeback would fail with data
 * the page cache accepted.  Above the watermark, the next write that
 * wants collection runs it again: going on to the higher target here
 * committed more often for the same blocks.  Every round a run goes on
 * after wins an eighth of an erase block in free bytes, but the one that
 * is tried again wide: a run makes at most eight rounds for each erase
 * block of free bytes those rounds win, and two more.
 *
 * Above the watermark, a run ahead of the end of the journal list
 * (sffs_gc_ahead_due()) is one round, which wants the blocks the next list
 * takes as well.
 *
 * Return: 0, -ENOSPC when nothing more can be collected, or an error.
 */
int sffs_gc(struct sffs_journal *j)
{
	u64 low = sffs_gc_low(j), esize = j->io->erase_size;
	u64 moved = j->gc.moved;
	unsigned long blocks = j->gc.blocks;
	int err;

	if (!j->starved && sffs_free_blocks(j) >= low && sffs_gc_ahead_due(j)) {
		j->gc.ahead_runs++;
		err = sffs_gc_run(j, false, low + sffs_relist_takes(j));
		/*
		 * What the victims gave, less what their moves took; not the
		 * commit, which the end of the list was due anyway.
		 */
		j->gc_ahead_idle = (j->gc.blocks - blocks) * esize <
				   j->gc.moved - moved + esize / 8;
		j->gc_ahead_died = j->died;
		return err;
	}
	return sffs_gc_run(j, true, low);
}

/**
 * sffs_write_op - journal an operation of the file system
 * @j: the journal
 * @wn: its nodes, in order
 * @n: how many
 *
 * sffs_journal_write(), with collection first when it is due
 * (sffs_gc_wanted()), and whenever the journal list is used up while a
 * table scan found no free block (@j->starved): then collection empties
 * blocks, and the commit that sffs_journal_write() makes next lists
 * more.  Errors of a collection do not fail the operation: the write
 * finds out whether there is room.
 *
 * Return: 0, -EROFS, -ENOSPC, -EIO, or -ENOMEM.
 */
int sffs_write_op(struct sffs_journal *j, struct sffs_wnode *wn, int n)
{
	unsigned int tries;
	int err;

	if (sffs_gc_wanted(j)) {
		err = sffs_gc(j);
		if (err && err != -ENOSPC)
			return err;
	}
	for (tries = 0; ; tries++) {
		err = sffs_journal_write(j, wn, n, tries > 0);
		if (err != -EAGAIN)
			return err;
		if (tries == SFFS_GC_STARVED_TRIES)
			return -ENOSPC;
		j->gc.starved_runs++;
		sffs_gc(j);
	}
}

/**
 * sffs_gc_cover - make the free bytes cover what is promised
 * @j: the journal
 * @promised: flash that what is promised to dirty pages and to the
 *	      operation at hand may take, tails of erase blocks included
 *
 * statfs and sffs_space() count dead bytes as space, but only garbage
 * collection turns them into free erase blocks, and where they are spread
 * too thin for even a wide round (sffs_gc_run()) to win an eighth of an
 * erase block, or sit in blocks it must leave alone, it cannot: that is
 * *dark* space.  Writeback must not be the one to find that out, with
 * pages write() accepted and nowhere to write them.  So the free bytes
 * must cover what is promised, what the next commit may need and three
 * erase blocks: one for a victim to move, one a commit may open, and the
 * one the journal keeps for the restart after a power cut.  When they do
 * not, collection runs here, before more is promised, in rounds until
 * they do; when it finds nothing and the journal holds blocks written
 * since the last commit, which it may not take, a commit lets it have
 * them and it tries once more.
 *
 * If that is not enough, the caller fails with ENOSPC and the dead bytes
 * are counted dark (@j->dark): statfs stops offering them, and this
 * function does not try collection again until a commit or an erase
 * block's worth of newly dead bytes may have changed what it finds;
 * writes the free bytes cover go on meanwhile.  A collection in rounds
 * that reaches its target forgets them, and so does a single round after
 * which the free bytes cover what was wanted here.
 *
 * Return: 0, -ENOSPC, -EROFS, or an error.
 */
int sffs_gc_cover(struct sffs_journal *j, u64 promised)
{
	u64 need = promised + sffs_journal_reserve(j) +
		   3ULL * j->io->erase_size;
	u64 held, low;
	int err;

	if (j->free >= need)
		return 0;
	if (j->io->ro)
		return -EROFS;
	if (WARN_ON_ONCE(j->in_gc || j->in_commit) || sffs_dark_waits(j))
		return -ENOSPC;
	held = sffs_free_held(j);
	low = need > held ? DIV_ROUND_UP_ULL(need - held, j->io->erase_size) : 0;
	low = max(low, sffs_gc_low(j));
	err = sffs_gc_run(j, true, low);
	if (err == -ENOSPC && j->free < need && j->jcur) {
		err = sffs_journal_commit(j);
		if (!err) {
			j->commits_gc++;
			err = sffs_gc_run(j, true, low);
		}
	}
	if (err && err != -ENOSPC)
		return err;
	if (j->free >= need)
		return 0;
	j->dark = j->dirty;
	j->dark_commit = j->commit;
	j->dark_need = need;
	return -ENOSPC;
}

/**
 * sffs_gc_retire - retire the blocks programs failed in, now
 * @j: the journal
 *
 * Before an unmount or a remount read-only: the list of blocks waiting
 * to be retired is not kept on the flash, so garbage collection moves
 * their data now, and the commit that follows marks them bad.
 */
void sffs_gc_retire(struct sffs_journal *j)
{
	int err;

	if (!j->io->nretire || j->io->ro)
		return;
	err = sffs_gc_run(j, false, sffs_gc_low(j));
	if (err && err != -ENOSPC)
		pr_warn("sffs: %s: blocks to retire not emptied: %d\n",
			j->io->mtd->name, err);
}
