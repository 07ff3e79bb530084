// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS free space: where the next erase block comes from.
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
 * The scan also ranks the candidates garbage collection (gc.c) takes its
 * victims from, and the worn blocks static wear levelling lists; this file
 * calls nothing above the journal's data structures, so that the journal
 * can take blocks from it while gc.c writes through the journal.
 *
 * Locking: the caller holds the file system's mutex.
 */
#include <linux/fs.h>
#include <linux/mtd/mtd.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <trace/events/sffs.h>
#include "journal.h"

/*
 * Read-only after an error, for the VFS too: /proc/mounts says so, and
 * new writes fail at once with -EROFS.  The RAM state may be ahead of
 * what the flash can be made to hold, so a remount read-write is refused
 * (sffs_reconfigure()); a new mount starts from the flash.  As ext4 does
 * on errors=remount-ro, the flag is set without a remount and without
 * s_umount: a remount racing with it may leave /proc/mounts saying rw,
 * but io->ro, which every write checks, stays set.  A read-only file
 * system is not synced any more: -EIO, whatever the error was, is
 * recorded where syncfs() reports it, since what was not synced is lost.
 */
void sffs_error_ro(struct sffs_journal *j)
{
	j->io->ro = true;
	j->err_ro = true;
	if (j->sb && !sb_rdonly(j->sb)) {
		errseq_set(&j->sb->s_wb_err, -EIO);
		j->sb->s_flags |= SB_RDONLY;
	}
}

/* Table pages one scan reads: 2,048 erase blocks */
#define SFFS_SCAN_PAGES		16

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
u32 sffs_scan_windows(const struct sffs_journal *j)
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
int sffs_scan_table(struct sffs_journal *j, bool victims)
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
					err = sffs_scan_table(j, false);
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

/* Free bytes of the head, the rest of the journal list and the spares */
u64 sffs_free_held(const struct sffs_journal *j)
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
 * Once the checkpoint that frees them is written, the blocks emptied join
 * the pool, ranked by wear with the free blocks there: the next allocation
 * needs no scan of the table to find them.  Not before: erasing one while
 * the checkpoint on the flash still uses it would lose what it holds.
 */
void sffs_pool_released(struct sffs_journal *j)
{
	unsigned int i;

	for (i = 0; i < j->nreleased; i++)
		sffs_pool_add(j, j->released[i], j->released_ec[i]);
	j->nreleased = 0;
}

/*
 * For the checkpoint of a commit: the blocks emptied before it are free.
 * Their bytes were all dead (the commit rewrote the index nodes they
 * held), unless the block was never written at all.
 */
void sffs_release_freeable(struct sffs_journal *j)
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
