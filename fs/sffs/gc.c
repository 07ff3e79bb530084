// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS garbage collection and erase block allocation.
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
 * Free blocks are handed out least worn first among those at hand
 * (dynamic wear levelling): the pool, which the blocks garbage collection
 * frees join, and which a table scan fills when it runs dry.  Blocks never
 * written since mkfs go first, in order, which keeps a young file system's
 * allocation as simple as it was before the table existed.
 *
 * No scan reads the whole table.  Each reads SFFS_SCAN_PAGES table pages
 * (the whole table up to 256 MiB of 128 KiB blocks) from where the last
 * one stopped, so that the cost of a scan, and of a commit, does not grow
 * with the flash: garbage collection picks its victims among the blocks of
 * one window, which on a large device is a sample of thousands, and the
 * erase count spread static wear levelling acts on is gathered over a
 * whole pass of windows.  When the pool is empty and a window holds no
 * free block, the allocator reads the next, up to a pass: free blocks are
 * rare then, as on the first allocations after the mount of a nearly full
 * device.
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

/* Table pages one scan reads: 2,048 erase blocks */
#define SFFS_SCAN_PAGES		16

static bool sffs_list_has(const u32 *list, unsigned int n, u32 eb)
{
	while (n--)
		if (list[n] == eb)
			return true;
	return false;
}

/* Blocks the erasing of which would lose what the next mount needs */
bool sffs_eb_busy(const struct sffs_journal *j, u32 eb)
{
	return eb == sffs_addr_eb(j->io, sffs_io_head(j->io)) ||
	       sffs_list_has(j->jeb, j->jcnt, eb) ||
	       sffs_list_has(j->spare, j->nspare, eb) ||
	       sffs_list_has(j->freeable, j->nfreeable, eb) ||
	       sffs_list_has(j->pool, j->npool, eb) ||
	       sffs_list_has(j->refused, min_t(unsigned long, j->gc.refused,
					       SFFS_MAX_REFUSED), eb) ||
	       sffs_io_is_anchor(j->io, eb);
}

struct sffs_scan {
	u64 score[SFFS_GC_VICTIMS];
	bool victims;
	u64 worn[SFFS_WL_WORN];
	u32 cold_ec, cold_eb;
};

/*
 * Keep the @n best of what is offered in @key/@val (and @aux, if not
 * NULL), sorted, best last
 */
static void sffs_keep_best(u64 *key, u32 *val, u32 *aux, unsigned int *n,
			   unsigned int max, u64 k, u32 v, u32 a)
{
	unsigned int i;

	if (*n == max) {
		if (k <= key[0])
			return;
		memmove(key, key + 1, (max - 1) * sizeof(*key));
		memmove(val, val + 1, (max - 1) * sizeof(*val));
		if (aux)
			memmove(aux, aux + 1, (max - 1) * sizeof(*aux));
		(*n)--;
	}
	for (i = *n; i > 0 && key[i - 1] > k; i--) {
		key[i] = key[i - 1];
		val[i] = val[i - 1];
		if (aux)
			aux[i] = aux[i - 1];
	}
	key[i] = k;
	val[i] = v;
	if (aux)
		aux[i] = a;
	(*n)++;
}

/* The pool ranks free blocks least worn last */
static u64 sffs_pool_key(u32 ec)
{
	return (u64)U32_MAX - ec + 1;
}

static u32 sffs_pool_ec(u64 key)
{
	return (u64)U32_MAX + 1 - key;
}

/* Offer the pool free block @eb, erased @ec times */
static void sffs_pool_add(struct sffs_journal *j, u32 eb, u32 ec)
{
	sffs_keep_best(j->pool_key, j->pool, NULL, &j->npool, SFFS_POOL_SIZE,
		       sffs_pool_key(ec), eb, 0);
}

static void sffs_pool_del(struct sffs_journal *j, u32 eb)
{
	unsigned int i;

	for (i = 0; i < j->npool; i++) {
		if (j->pool[i] == eb) {
			j->npool--;
			memmove(j->pool + i, j->pool + i + 1,
				(j->npool - i) * sizeof(*j->pool));
			memmove(j->pool_key + i, j->pool_key + i + 1,
				(j->npool - i) * sizeof(*j->pool_key));
			return;
		}
	}
}

static void sffs_scan_one(struct sffs_journal *j, u32 eb,
			  const struct sffs_eb_info *r, void *arg)
{
	struct sffs_scan *s = arg;
	u32 esize = j->io->erase_size;
	u64 age, score;

	if (r->state == SFFS_EB_BAD || r->state == SFFS_EB_ANCHOR ||
	    sffs_io_is_anchor(j->io, eb))
		return;
	j->pass_ec_min = min(j->pass_ec_min, r->ec);
	j->pass_ec_max = max(j->pass_ec_max, r->ec);
	j->pass_ec_sum += r->ec;
	j->pass_blocks++;
	if (sffs_eb_busy(j, eb))
		return;
	if (r->state == SFFS_EB_MAIN && r->ec < s->cold_ec) {
		s->cold_ec = r->ec;
		s->cold_eb = eb;
	}
	if (r->state == SFFS_EB_FREE) {
		/* least worn last: the pool hands out from its end */
		if (!sffs_io_is_bad(j->io, eb)) {
			sffs_pool_add(j, eb, r->ec);
			/* pushed out of the pool, it may be in the list */
			if (!sffs_list_has(j->worn, j->nworn, eb))
				sffs_keep_best(s->worn, j->worn, NULL,
					       &j->nworn, SFFS_WL_WORN,
					       (u64)r->ec + 1, eb, 0);
		}
		return;
	}
	if (!s->victims)
		return;
	if (r->live >= esize) {
		/* full, says the hint; a power cut may have left it stale */
		if (r->state == SFFS_EB_MAIN && r->age < j->pass_oldest_age) {
			j->pass_oldest_age = r->age;
			j->pass_oldest_eb = eb;
			j->pass_oldest_ec = r->ec;
		}
		return;
	}
	age = j->commit > r->age ? j->commit - r->age : 0;
	/* dead bytes first, then age */
	score = (u64)(esize - r->live) << 32 | min_t(u64, age, U32_MAX - 1);
	sffs_keep_best(s->score, j->victim, j->victim_ec, &j->nvictim,
		       SFFS_GC_VICTIMS, score + 1, eb, r->ec);
}

/* Windows of SFFS_SCAN_PAGES table pages in a pass over the table */
static u32 sffs_scan_windows(const struct sffs_journal *j)
{
	u32 pages = DIV_ROUND_UP(j->alloc_eb, SFFS_EBT_RECS);

	return max(1U, DIV_ROUND_UP(pages, SFFS_SCAN_PAGES));
}

/*
 * Static wear levelling: when the least worn block in use is more than
 * wl_threshold erases behind the most worn one, it holds data nobody
 * rewrites.  That data must go to worn blocks, where it lets them rest,
 * and the young block back into service, where the allocation of free
 * blocks, least worn first, soon uses it.  So the next commit lists the
 * most worn free blocks first in the journal (stage 1), and once it has
 * (stage 2) garbage collection moves the cold block there.
 */
static int sffs_scan(struct sffs_journal *j, bool victims)
{
	struct sffs_scan s = {
		.victims = victims, .cold_ec = U32_MAX,
	};
	u32 pages = DIV_ROUND_UP(j->alloc_eb, SFFS_EBT_RECS);
	u32 ec_max, stale = U32_MAX, stale_ec = 0;
	unsigned int i;
	int err;

	/* the most worn free blocks: those in the pool, and those found */
	j->nworn = 0;
	for (i = 0; i < j->npool; i++)
		sffs_keep_best(s.worn, j->worn, NULL, &j->nworn, SFFS_WL_WORN,
			       (u64)sffs_pool_ec(j->pool_key[i]) + 1,
			       j->pool[i], 0);
	if (victims)
		j->nvictim = 0;
	j->gc.scans++;
	if (j->scan_page >= pages)
		j->scan_page = 0;
	for (i = 0; i < min(pages, SFFS_SCAN_PAGES); i++) {
		if (!j->scan_page) {
			/* a pass over the table starts */
			j->pass_ec_min = U32_MAX;
			j->pass_ec_max = 0;
			j->pass_ec_sum = 0;
			j->pass_blocks = 0;
			j->pass_oldest_age = U32_MAX;
			j->pass_victims = 0;
			j->pass_all_victims = true;
		}
		err = sffs_ebt_scan(j, j->scan_page, sffs_scan_one, &s);
		if (err)
			return err;
		j->gc.scan_pages++;
		j->pass_victims += j->nvictim;
		j->pass_all_victims &= victims;
		if (++j->scan_page < pages)
			continue;
		j->scan_page = 0;
		if (j->pass_blocks) {
			j->ec_min = j->pass_ec_min;
			j->ec_max = j->pass_ec_max;
			j->ec_sum = j->pass_ec_sum;
			j->ec_blocks = j->pass_blocks;
		}
		/*
		 * A whole pass found nothing to collect by the hints, though
		 * dead bytes there are: the hints of some blocks went stale.
		 * Collecting the oldest block full by its hint finds out,
		 * and corrects it.
		 */
		if (j->pass_all_victims && !j->pass_victims &&
		    j->pass_oldest_age != U32_MAX &&
		    j->dirty >= 2ULL * j->io->erase_size) {
			stale = j->pass_oldest_eb;
			stale_ec = j->pass_oldest_ec;
		}
	}
	if (!j->ec_blocks && j->pass_blocks) {
		/* no whole pass yet since the mount: what this one saw */
		j->ec_min = j->pass_ec_min;
		j->ec_max = j->pass_ec_max;
		j->ec_sum = j->pass_ec_sum;
		j->ec_blocks = j->pass_blocks;
	}
	if (victims && !j->nvictim && stale != U32_MAX) {
		j->victim_ec[j->nvictim] = stale_ec;
		j->victim[j->nvictim++] = stale;
	}
	/* the most worn block of the last whole pass, or of this one */
	ec_max = max(j->ec_max, j->pass_blocks ? j->pass_ec_max : 0);
	if (!j->wl_stage && s.cold_ec != U32_MAX && j->nworn &&
	    ec_max - s.cold_ec > j->wl_threshold) {
		j->wl_victim = s.cold_eb;
		j->wl_victim_ec = s.cold_ec;
		j->wl_stage = 1;
	}
	return 0;
}

static void sffs_list_del(u32 *list, unsigned int *n, u32 eb)
{
	unsigned int i;

	for (i = 0; i < *n; i++) {
		if (list[i] == eb) {
			memmove(list + i, list + i + 1,
				(--*n - i) * sizeof(*list));
			return;
		}
	}
}

static void sffs_victim_del(struct sffs_journal *j, u32 eb)
{
	unsigned int i;

	for (i = 0; i < j->nvictim; i++) {
		if (j->victim[i] == eb) {
			j->nvictim--;
			memmove(j->victim + i, j->victim + i + 1,
				(j->nvictim - i) * sizeof(*j->victim));
			memmove(j->victim_ec + i, j->victim_ec + i + 1,
				(j->nvictim - i) * sizeof(*j->victim_ec));
			return;
		}
	}
}

/*
 * Erase @eb for use.  A block whose erase fails is marked bad on the
 * device and in the table, and its bytes leave the free count.
 */
static int sffs_prepare_eb(struct sffs_journal *j, u32 eb, bool erase)
{
	int err;

	if (erase) {
		err = sffs_io_erase(j->io, eb);
		if (err == -EIO && !sffs_bad_reserve_blocks(j)) {
			/*
			 * More erases failing than the reserve for blocks that
			 * wear out allows: a fault of the device or of its
			 * driver (write protection, a bad supply) rather than
			 * wear.  Marking blocks bad is for good, and would go
			 * on through the whole device: stop writing instead,
			 * as UBI does past its limit of bad blocks.
			 */
			pr_crit("sffs: %s: erase of block %u failed, and the blocks kept for bad ones are used up: read-only from now on; what was synced is safe\n",
				j->io->mtd->name, eb);
			sffs_error_ro(j);
			return err;
		}
		if (err == -EIO) {
			pr_warn("sffs: %s: retiring erase block %u\n",
				j->io->mtd->name, eb);
			/*
			 * Bad in the table of the next checkpoint, and on the
			 * device once that is written: if the power went
			 * before, the checkpoint on the flash, which counts
			 * the block free, must still find it in service (it
			 * fails again, and is retired then).
			 */
			if (j->nerasebad < SFFS_MAX_ERASEBAD) {
				j->erasebad[j->nerasebad++] = eb;
			} else {
				sffs_io_markbad(j->io, eb);
				trace_sffs_bad_block(j->io->mtd->index, eb,
						     "erase failed: marked bad");
			}
			j->free -= min_t(u64, j->free, j->io->erase_size);
			j->gc.bad++;
			sffs_ebt_bad(j, eb);
			return -EAGAIN;
		}
		if (err)
			return err;
		j->gc.erases++;
	}
	return sffs_ebt_alloc(j, eb, erase);
}

/*
 * Was @eb, beyond the frontier, written since mkfs erased it?  A commit
 * cut short by a power cut may have written blocks past the frontier of
 * the checkpoint the mount found, and the commits after the mount take
 * them again.  Every write to a block starts with its first unit: an
 * erased first unit tells a block that can be used as it is.
 */
static bool sffs_frontier_written(struct sffs_journal *j, u32 eb)
{
	u32 len = j->io->unit;
	void *buf = kmalloc(len, GFP_NOFS);
	bool written = true;

	if (buf && !sffs_io_read(j->io, sffs_eb_addr(j->io, eb), buf, len))
		written = memchr_inv(buf, 0xff, len);
	kfree(buf);
	return written;
}

/**
 * sffs_take_free - allocate a free erase block
 * @j: the journal
 * @eb: the block, on success
 * @erase: erase a block from the frontier too; blocks reused are always
 *	   erased
 *
 * A block beyond the frontier has not been written since mkfs, unless a
 * commit a power cut stopped wrote to it: its first unit, read before the
 * block is taken without an erase, tells.
 *
 * Return: 0, -ENOSPC, or an error of the erase or of the table.
 */
int sffs_take_free(struct sffs_journal *j, u32 *eb, bool erase)
{
	bool wipe;
	u32 n;
	int err;

	for (;;) {
		if (j->alloc_eb < j->io->eb_count) {
			n = j->alloc_eb++;
			if (sffs_io_is_anchor(j->io, n) || sffs_io_is_bad(j->io, n))
				continue;
			wipe = erase || sffs_frontier_written(j, n);
		} else {
			if (!j->npool) {
				u32 windows = sffs_scan_windows(j);

				/*
				 * Free blocks are rare: the next windows,
				 * up to a pass over the table, find them.
				 */
				do {
					err = sffs_scan(j, false);
					if (err)
						return err;
				} while (!j->npool && --windows);
				if (!j->npool) {
					/*
					 * The free bytes are in blocks to
					 * collect: have it done before the
					 * next commit.
					 */
					j->starved = true;
					return -ENOSPC;
				}
			}
			n = j->pool[j->npool - 1];
			sffs_pool_del(j, n);
			sffs_list_del(j->worn, &j->nworn, n);
			wipe = true;
		}
		err = sffs_prepare_eb(j, n, wipe);
		if (err != -EAGAIN)
			break;
	}
	if (!err) {
		*eb = n;
		j->allocs++;
	}
	return err;
}

/**
 * sffs_take_worn - allocate one of the most worn free blocks
 * @j: the journal, committing
 * @eb: the block, on success
 *
 * Return: 0, -ENOSPC when none is left, or an error of the erase.
 */
int sffs_take_worn(struct sffs_journal *j, u32 *eb)
{
	int err;

	while (j->nworn) {
		u32 n = j->worn[--j->nworn];

		sffs_pool_del(j, n);
		err = sffs_prepare_eb(j, n, true);
		if (err == -EAGAIN)
			continue;
		if (!err) {
			*eb = n;
			j->allocs++;
		}
		return err;
	}
	return -ENOSPC;
}

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
	err = sffs_journal_write(j, &wn, 1);
	if (!err)
		j->gc.moved += ALIGN(len, SFFS_NODE_ALIGN);
	return err;
}

static int sffs_gc_index(struct sffs_journal *j, struct sffs_index_node *ix,
			 u64 addr)
{
	struct sffs_ckey key = sffs_key_from_le(&ix->branch[0].key);
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

/* Free bytes of the head, the rest of the journal list and the spares */
static u64 sffs_free_held(const struct sffs_journal *j)
{
	return sffs_io_room(j->io) +
	       ((u64)j->jcnt - j->jcur - 1 + j->nspare) * j->io->erase_size;
}

/* Erase blocks free now, outside the journal, the spares and the head */
u64 sffs_free_blocks(const struct sffs_journal *j)
{
	u64 held = sffs_free_held(j);

	if (j->free <= held)
		return 0;
	return div_u64(j->free - held, j->io->erase_size);
}

/* Dead bytes not counted as space: no more than there are */
u64 sffs_dark(const struct sffs_journal *j)
{
	return min(j->dark, j->dirty);
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
 * Erase blocks kept for those that go bad in use: 2% of the device, as
 * UBI's default (20 per 1024), and 2 at least.  Each block retired takes
 * one from it, so that what statfs promised stays writable.
 */
u32 sffs_bad_reserve_blocks(const struct sffs_journal *j)
{
	u32 want = max(2U, j->io->eb_count / 50);

	return want - min_t(u32, want, j->gc.bad);
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
			err = sffs_scan(j, true);
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

/*
 * Once the checkpoint that frees them is written, the blocks emptied join
 * the pool, ranked by wear with the free blocks there: the next allocation
 * needs no scan of the table to find them.  Not before: erasing one while
 * the checkpoint on the flash still uses it would lose what it holds.
 */
void sffs_gc_pool_released(struct sffs_journal *j)
{
	unsigned int i;

	for (i = 0; i < j->nreleased; i++)
		sffs_pool_add(j, j->released[i], j->released_ec[i]);
	j->nreleased = 0;
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

/*
 * For the checkpoint of a commit: the blocks emptied before it are free.
 * Their bytes were all dead (the commit rewrote the index nodes they
 * held), unless the block was never written at all.
 */
void sffs_gc_release(struct sffs_journal *j)
{
	unsigned int i;

	j->nreleased = 0;
	for (i = 0; i < j->nfreeable; i++) {
		u32 eb = j->freeable[i];

		if (sffs_io_retiring(j->io, eb)) {
			/*
			 * Bad in the table of this checkpoint: its bytes
			 * leave the count, and the device marks it bad once
			 * the checkpoint is written.
			 */
			j->dirty -= min_t(u64, j->dirty, j->io->erase_size);
			sffs_io_retired(j->io, eb);
			if (j->nmarkbad < SFFS_MAX_RETIRE)
				j->markbad[j->nmarkbad++] = eb;
		} else {
			if (!(j->freeable_empty & BIT(i))) {
				j->dirty -= min_t(u64, j->dirty,
						  j->io->erase_size);
				j->free += j->io->erase_size;
			}
			/* a scan finds those whose erase count is unknown */
			if (j->freeable_ec[i] != U32_MAX) {
				j->released_ec[j->nreleased] = j->freeable_ec[i];
				j->released[j->nreleased++] = eb;
			}
		}
		/*
		 * Forget it wherever it waits to be collected: a victim of
		 * an older scan, the static wear levelling victim, a block
		 * queued for scrubbing.  Walked again, a free block would
		 * be freed, and its bytes counted free, twice.
		 */
		sffs_victim_del(j, eb);
		if (j->wl_victim == eb) {
			j->wl_victim = U32_MAX;
			j->wl_stage = 0;
		}
		sffs_io_scrub_del(j->io, eb);
	}
	j->nfreeable = 0;
	j->freeable_empty = 0;
}
