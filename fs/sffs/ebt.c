// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS erase-block table: the erase count, state and live bytes of every
 * erase block, kept on the flash and read a page at a time.
 *
 * The table is a set of leaf nodes in the index, keys (SFFS_META_INO,
 * SFFS_KEY_EBT, page), each describing SFFS_EBT_RECS erase blocks.  Only
 * the changes made since the last commit are in RAM, in an xarray by
 * erase block; a commit folds them into the pages they belong to and
 * writes those pages out of place, like any other leaf node, before the
 * index.  So the RAM the table takes is bounded by what changes between
 * two commits (a commit is forced when too much has), never by the size
 * of the flash.
 *
 * What has to be exact is the state: a block the table calls free may be
 * erased and reused.  The state written by a commit is exact for the index
 * that commit writes:
 *
 *  - blocks that commit writes to come from the journal list of the
 *    checkpoint before it or from spares set aside, and marked in use,
 *    before the table is folded (sffs_commit_prepare(), space.c);
 *  - the journal blocks the checkpoint names for later may still be
 *    marked free: mount claims them (sffs_ebt_claim()) before anything
 *    can be allocated;
 *  - a block emptied by garbage collection is marked free in the first
 *    commit whose index no longer refers to it, and reused only once that
 *    commit's checkpoint is on the flash.
 *
 * Live bytes and ages are hints for choosing what to collect.  Those that
 * change while a commit writes are folded by the next one, and a power
 * cut loses them; garbage collection reads every node of a victim and
 * asks the index whether it is live, so a wrong hint costs time, never
 * data.
 *
 * So a page whose only changes are live-byte hints waits: it is written
 * once a quarter of its records have changed, or its oldest hint has
 * waited SFFS_EBT_HINT_COMMITS commits, or hints pile up past half of what
 * RAM may hold.  Random overwrites change the live bytes of blocks all
 * over the flash, and writing every page they touch at every commit cost
 * a page per SFFS_EBT_RECS blocks of flash per commit: the table was the
 * one part of a commit whose size grew with the flash.  Past
 * SFFS_EBT_HINT_LOW pending changes a page needs fewer hints to be
 * written, down to one where every page is (sffs_ebt_hint_min()): the
 * pages with the most hints go first, and RAM stays bounded without,
 * normally, a commit that writes the whole table at once.  Which pages of
 * hints a commit writes is chosen before it writes anything
 * (sffs_ebt_fold_plan()).  The wait is long because that is what pays:
 * with a wait of a few commits, on a large device under random
 * overwrites, most hint-only pages were written for their age alone, each
 * holding a few hints.
 *
 * Scans apply the pending hints (sffs_ebt_scan()), so garbage collection
 * sees them all the same.  Commits that end a writable mount write every
 * page that has hints waiting; only the hints their own writes leave are
 * lost then, as before.  A power cut loses the hints that wait, up to
 * SFFS_EBT_MAX_HINTS / 2 changes over SFFS_EBT_HINT_COMMITS commits, and
 * those the last commit's own writes made: they make blocks look fuller
 * or emptier than they are (a block the journal filled may look empty),
 * which costs garbage collection time, moving what is live, and a pass
 * over the table that finds no victim falls back to the oldest block.
 *
 * Locking: the caller holds the file system's mutex.
 */
#include <linux/mtd/mtd.h>
#include <linux/slab.h>
#include "journal.h"

#define SFFS_EBD_STATE	0x01	/* @state replaces the record's */
#define SFFS_EBD_RESET	0x02	/* live bytes count from zero */

/**
 * struct sffs_ebt_delta - changes to one record not yet written
 * @live: bytes to add to the live count
 * @ec: erases to add to the erase count
 * @age: new age, with %SFFS_EBD_STATE
 * @state: new state, with %SFFS_EBD_STATE
 * @flags: SFFS_EBD_*
 * @since: the commit number when the change was first made (low 32 bits)
 */
struct sffs_ebt_delta {
	s64 live;
	u32 ec;
	u32 age;
	u8 state;
	u8 flags;
	u32 since;
};

static size_t sffs_ebt_node_size(u32 count)
{
	return sizeof(struct sffs_ebt_node) + count * sizeof(struct sffs_eb_rec);
}

int sffs_ebt_init(struct sffs_journal *j)
{
	xa_init(&j->ebt);
	j->ebt_fold_min = SFFS_EBT_FOLD_MIN;
	j->ebt_buf = kmalloc(sffs_ebt_node_size(SFFS_EBT_RECS), GFP_KERNEL);
	j->ebt_raw = kmalloc(sffs_ebt_node_size(SFFS_EBT_RECS), GFP_KERNEL);
	if (j->ebt_buf && j->ebt_raw)
		return 0;
	kfree(j->ebt_buf);
	kfree(j->ebt_raw);
	j->ebt_buf = NULL;
	j->ebt_raw = NULL;
	return -ENOMEM;
}

void sffs_ebt_destroy(struct sffs_journal *j)
{
	struct sffs_ebt_delta *d;
	unsigned long eb;

	xa_for_each(&j->ebt, eb, d)
		kfree(d);
	xa_destroy(&j->ebt);
	j->ebt_nr = 0;
	j->ebt_states = 0;
	kfree(j->ebt_buf);
	j->ebt_buf = NULL;
	kfree(j->ebt_raw);
	j->ebt_raw = NULL;
}

static struct sffs_ebt_delta *sffs_ebt_delta(struct sffs_journal *j, u32 eb,
					     bool hint)
{
	struct sffs_ebt_delta *d = xa_load(&j->ebt, eb);

	if (d)
		return d;
	if (hint && j->ebt_nr >= SFFS_EBT_MAX_HINTS)
		return NULL;
	d = kzalloc(sizeof(*d), GFP_NOFS);
	if (!d)
		return NULL;
	d->since = j->commit;
	if (xa_is_err(xa_store(&j->ebt, eb, d, GFP_NOFS))) {
		kfree(d);
		return NULL;
	}
	j->ebt_nr++;
	return d;
}

/**
 * sffs_ebt_live - count bytes of live nodes in or out of an erase block
 * @j: the journal
 * @addr: a flash address in the block
 * @bytes: bytes that became live (> 0) or dead (< 0)
 */
void sffs_ebt_live(struct sffs_journal *j, u64 addr, s64 bytes)
{
	struct sffs_ebt_delta *d;

	d = sffs_ebt_delta(j, sffs_addr_eb(j->io, addr), true);
	if (d)
		d->live += bytes;
	else
		j->ebt_lost++;
}

static int sffs_ebt_state(struct sffs_journal *j, u32 eb, unsigned int state,
			  bool reset, u32 erases)
{
	struct sffs_ebt_delta *d = sffs_ebt_delta(j, eb, false);

	if (!d)
		return -ENOMEM;
	if (!(d->flags & SFFS_EBD_STATE))
		j->ebt_states++;
	d->flags |= SFFS_EBD_STATE;
	d->state = state;
	d->age = j->commit;
	d->ec += erases;
	if (reset) {
		d->flags |= SFFS_EBD_RESET;
		d->live = 0;
	}
	return 0;
}

/* @eb is in use from now on, empty, and was just erased if @erased */
int sffs_ebt_alloc(struct sffs_journal *j, u32 eb, bool erased)
{
	return sffs_ebt_state(j, eb, SFFS_EB_MAIN, true, erased);
}

/*
 * @eb, a journal block a checkpoint names, is in use.  The commit that
 * chose it wrote its table before choosing: mount claims the blocks of
 * the journal list so that they are never handed out again.
 */
int sffs_ebt_claim(struct sffs_journal *j, u32 eb)
{
	return sffs_ebt_state(j, eb, SFFS_EB_MAIN, false, 0);
}

/* @eb holds nothing the next checkpoint needs */
int sffs_ebt_free(struct sffs_journal *j, u32 eb)
{
	return sffs_ebt_state(j, eb, SFFS_EB_FREE, true, 0);
}

/* @eb is retired */
int sffs_ebt_bad(struct sffs_journal *j, u32 eb)
{
	return sffs_ebt_state(j, eb, SFFS_EB_BAD, true, 0);
}

static void sffs_ebt_apply(const struct sffs_ebt_delta *d,
			   struct sffs_eb_info *r, u32 erase_size)
{
	s64 live = (d->flags & SFFS_EBD_RESET ? 0 : r->live) + d->live;

	r->live = clamp_t(s64, live, 0, erase_size);
	r->ec += d->ec;
	if (d->flags & SFFS_EBD_STATE) {
		r->state = d->state;
		r->age = d->age;
	}
}

static void sffs_rec_get(const struct sffs_eb_rec *rec, struct sffs_eb_info *r)
{
	r->ec = le32_to_cpu(rec->ec);
	r->live = le32_to_cpu(rec->live);
	r->age = le32_to_cpu(rec->age);
	r->state = rec->state;
}

static void sffs_rec_put(struct sffs_eb_rec *rec, const struct sffs_eb_info *r)
{
	rec->ec = cpu_to_le32(r->ec);
	rec->live = cpu_to_le32(r->live);
	rec->age = cpu_to_le32(r->age);
	rec->state = r->state;
	rec->flags = 0;
	rec->reserved = 0;
}

/*
 * The table page read into j->ebt_raw, @len bytes, as plain records in
 * j->ebt_buf: a packed page is unpacked (SFFS_EBT_FL_PACKED).
 */
static int sffs_ebt_unpack(struct sffs_journal *j, u32 len, u32 first,
			   u32 count)
{
	const struct sffs_ebt_node *raw = j->ebt_raw;
	struct sffs_ebt_node *en = j->ebt_buf;
	const u8 *p = (const u8 *)raw->rec, *end = (const u8 *)raw + len;
	struct sffs_erec r = { 0 };
	unsigned int i;

	if (le32_to_cpu(raw->first) != first ||
	    le32_to_cpu(raw->count) != count)
		return -EUCLEAN;
	if (!(raw->hdr.flags & SFFS_EBT_FL_PACKED)) {
		if (len != sffs_ebt_node_size(count))
			return -EUCLEAN;
		memcpy(en, raw, len);
		return 0;
	}
	if (!j->idx.packed) {
		pr_err_ratelimited("sffs: %s: a packed table page, and the file system does not have packing (feature %#x)\n",
				   j->io->mtd->name, SFFS_FEAT_INCOMPAT_PACKED);
		return -EUCLEAN;
	}
	memset(en, 0, sffs_ebt_node_size(count));
	en->first = raw->first;
	en->count = raw->count;
	for (i = 0; i < count; i++) {
		/* the node check found the stream whole */
		if (WARN_ON_ONCE(sffs_eunpack(&p, end, &r)))
			return -EUCLEAN;
		en->rec[i].ec = cpu_to_le32(r.ec);
		en->rec[i].state = r.state;
		en->rec[i].live = cpu_to_le32(r.live);
		en->rec[i].age = cpu_to_le32(r.age);
	}
	return 0;
}

/**
 * sffs_ebt_pack - the table page folded into j->ebt_buf, as a commit
 *		   writes it
 * @j: the journal
 * @len: the page's plain length
 * @buf: the node to write (out): j->ebt_raw packed, or j->ebt_buf
 * @flags: its header flags (out)
 *
 * Packed where the file system allows it and the records come out
 * shorter (SFFS_EBT_FL_PACKED).
 *
 * Return: the length of the node to write.
 */
u32 sffs_ebt_pack(struct sffs_journal *j, u32 len, void **buf,
		  unsigned int *flags)
{
	const struct sffs_ebt_node *en = j->ebt_buf;
	struct sffs_ebt_node *raw = j->ebt_raw;
	u8 *p = (u8 *)raw->rec, *end = (u8 *)raw + len - 1;
	unsigned int i, count = le32_to_cpu(en->count);
	struct sffs_erec prev = { 0 };

	*buf = j->ebt_buf;
	*flags = 0;
	if (!j->idx.packed || j->idx.write_plain)
		return len;
	for (i = 0; p && i < count; i++) {
		struct sffs_erec r = {
			.ec = le32_to_cpu(en->rec[i].ec),
			.state = en->rec[i].state,
			.live = le32_to_cpu(en->rec[i].live),
			.age = le32_to_cpu(en->rec[i].age),
		};

		p = sffs_epack(p, end, &prev, &r);
	}
	if (!p)
		return len;
	raw->first = en->first;
	raw->count = en->count;
	*buf = raw;
	*flags = SFFS_EBT_FL_PACKED;
	return p - (u8 *)raw;
}

/*
 * Read table page @page, as the last commit left it, into j->ebt_buf.
 * A page never written describes the blocks below the allocation frontier
 * as full and those above as free: a file system from mkfs, or one a
 * kernel without the table wrote, has its blocks filled in that order.
 * Bad blocks, which mkfs passed over, are bad: taken for full ones, the
 * coldest blocks in use, static wear levelling would pick them.
 */
static int sffs_ebt_read(struct sffs_journal *j, u32 page)
{
	struct sffs_ebt_node *en = j->ebt_buf;
	struct sffs_ckey key = sffs_key(SFFS_META_INO, SFFS_KEY_EBT, page);
	u32 first = page * SFFS_EBT_RECS;
	u32 count = min_t(u32, SFFS_EBT_RECS, j->io->eb_count - first);
	struct sffs_zref ref;
	unsigned int i;
	int err;

	err = sffs_index_lookup(&j->idx, &key, &ref);
	if (!err) {
		if (ref.len > sffs_ebt_node_size(count))
			return -EUCLEAN;
		err = sffs_io_read_node(j->io, ref.addr, ref.len, j->ebt_raw,
					SFFS_NODE_EBT);
		if (err)
			return err;
		return sffs_ebt_unpack(j, ref.len, first, count);
	}
	if (err != -ENOENT)
		return err;
	memset(en, 0, sffs_ebt_node_size(count));
	en->first = cpu_to_le32(first);
	en->count = cpu_to_le32(count);
	for (i = 0; i < count; i++) {
		struct sffs_eb_rec *rec = &en->rec[i];
		u32 eb = first + i;

		if (sffs_io_is_anchor(j->io, eb)) {
			rec->state = SFFS_EB_ANCHOR;
		} else if (sffs_io_is_bad(j->io, eb)) {
			/* never in use: nothing to collect or level there */
			rec->state = SFFS_EB_BAD;
		} else if (eb < j->alloc_eb) {
			rec->state = SFFS_EB_MAIN;
			rec->live = cpu_to_le32(j->io->erase_size);
		} else {
			rec->state = SFFS_EB_FREE;
		}
	}
	return 0;
}

/* Does the next fold write every page with changes, hints included? */
bool sffs_ebt_fold_all(const struct sffs_journal *j)
{
	return j->fold_all || j->ebt_nr > SFFS_EBT_MAX_HINTS / 2;
}

/*
 * Marks of a pending change whose table page this commit's plan writes,
 * for its many hints or for an old one (the xarray is not an allocating
 * one, so XA_MARK_0 is free)
 */
#define SFFS_EBT_MANY		XA_MARK_0
#define SFFS_EBT_OLD		XA_MARK_1

/**
 * sffs_ebt_hint_min - the hints that make a table page due
 * @changes: the changes pending, states included
 *
 * SFFS_EBT_FOLD_MIN up to SFFS_EBT_HINT_LOW changes, then fewer, in
 * proportion, down to one as they reach SFFS_EBT_MAX_HINTS / 2, where
 * sffs_ebt_fold_all() has every page with changes written.  The more
 * changes wait, the more pages each commit writes, those with the most
 * hints first, each holding many.
 *
 * Return: the number of hints.
 */
u32 sffs_ebt_hint_min(unsigned long changes)
{
	const u32 top = SFFS_EBT_MAX_HINTS / 2, low = SFFS_EBT_HINT_LOW;

	if (changes <= low)
		return SFFS_EBT_FOLD_MIN;
	if (changes >= top)
		return 1;
	return DIV_ROUND_UP(SFFS_EBT_FOLD_MIN * (top - (u32)changes),
			    top - low);
}

/*
 * Has table page @page a state or erase count change?  The next
 * checkpoint must have those exact: the page is written.
 */
static bool sffs_ebt_exact_due(struct sffs_journal *j, u32 page)
{
	unsigned long first = (unsigned long)page * SFFS_EBT_RECS;
	unsigned long last = first + SFFS_EBT_RECS - 1, eb;
	struct sffs_ebt_delta *d;

	xa_for_each_range(&j->ebt, eb, d, first, last)
		if ((d->flags & SFFS_EBD_STATE) || d->ec)
			return true;
	return false;
}

/*
 * Have the hints pending for table page @page waited enough: are there
 * @min_hints of them (SFFS_EBT_WHY_MANY), or one as old as
 * SFFS_EBT_HINT_COMMITS commits (SFFS_EBT_WHY_OLD)?  Zero if not.
 */
static unsigned int sffs_ebt_hints_due(struct sffs_journal *j, u32 page,
				       u32 min_hints)
{
	unsigned long first = (unsigned long)page * SFFS_EBT_RECS;
	unsigned long last = first + SFFS_EBT_RECS - 1, eb;
	struct sffs_ebt_delta *d;
	bool old = false;
	u32 n = 0;

	xa_for_each_range(&j->ebt, eb, d, first, last) {
		if (++n >= min_hints)
			return SFFS_EBT_WHY_MANY;
		old |= (u32)j->commit - d->since >= SFFS_EBT_HINT_COMMITS;
	}
	return old ? SFFS_EBT_WHY_OLD : 0;
}

/**
 * sffs_ebt_fold_plan - choose the pages of hints a commit writes
 * @j: the journal, committing, its blocks set aside and freed
 *
 * Once per commit, before its first fold: the pages whose hints are due
 * now are marked, and the folds write those, and any page with a state or
 * an erase count change, but no other page of hints; whether every page
 * with changes is written (sffs_ebt_fold_all()) is decided here too.  The
 * commit's own writes add hints as it goes (the old copies of the nodes
 * it rewrites die): judged as they come, they would make more pages due
 * than sffs_commit_table_pages() counted room for.  The next commit
 * judges them.
 */
void sffs_ebt_fold_plan(struct sffs_journal *j)
{
	u32 min_hints = sffs_ebt_hint_min(j->ebt_nr);
	struct sffs_ebt_delta *d;
	unsigned long next = 0;
	unsigned int why;

	j->ebt_fold_min = min_hints;
	j->ebt_plan_all = sffs_ebt_fold_all(j);
	/* a commit that failed half way may have left some */
	xa_for_each_marked(&j->ebt, next, d, SFFS_EBT_MANY)
		xa_clear_mark(&j->ebt, next, SFFS_EBT_MANY);
	xa_for_each_marked(&j->ebt, next, d, SFFS_EBT_OLD)
		xa_clear_mark(&j->ebt, next, SFFS_EBT_OLD);
	next = 0;
	while (xa_find(&j->ebt, &next, ULONG_MAX, XA_PRESENT)) {
		u32 page = next / SFFS_EBT_RECS;

		why = sffs_ebt_hints_due(j, page, min_hints);
		if (why)
			xa_set_mark(&j->ebt, next, why == SFFS_EBT_WHY_MANY ?
				    SFFS_EBT_MANY : SFFS_EBT_OLD);
		next = (unsigned long)(page + 1) * SFFS_EBT_RECS;
	}
}

/**
 * sffs_ebt_fold_pages - how many table pages the next fold writes
 * @j: the journal
 * @extra: changes the commit may add before its plan
 *
 * For the room a commit sets aside: the pages with changes that are due
 * now, the hints judged as if @extra more changes were pending, which
 * can only lower the hints a page needs (sffs_ebt_fold_plan()).  The walk
 * is over the pending changes, at most SFFS_EBT_MAX_HINTS of them plus
 * the states, never over the table.
 *
 * Return: the number of pages.
 */
u32 sffs_ebt_fold_pages(struct sffs_journal *j, unsigned long extra)
{
	bool all = sffs_ebt_fold_all(j);
	u32 min_hints = sffs_ebt_hint_min(j->ebt_nr + extra);
	unsigned long next = 0;
	u32 pages = 0;

	while (xa_find(&j->ebt, &next, ULONG_MAX, XA_PRESENT)) {
		u32 page = next / SFFS_EBT_RECS;

		if (all || sffs_ebt_exact_due(j, page) ||
		    sffs_ebt_hints_due(j, page, min_hints))
			pages++;
		next = (unsigned long)(page + 1) * SFFS_EBT_RECS;
	}
	return pages;
}

/**
 * sffs_ebt_next_due - the next table page a fold writes
 * @j: the journal
 * @next: the first erase block to look at; moved past what was looked at
 * @all: every page with changes, hints included (sffs_ebt_fold_all())
 * @page: the page
 * @why: why it is written, an SFFS_EBT_WHY_*
 *
 * Return: true if there is one.
 */
bool sffs_ebt_next_due(struct sffs_journal *j, unsigned long *next, bool all,
		       u32 *page, unsigned int *why)
{
	while (xa_find(&j->ebt, next, ULONG_MAX, XA_PRESENT)) {
		unsigned long first, last;

		*page = *next / SFFS_EBT_RECS;
		first = (unsigned long)*page * SFFS_EBT_RECS;
		last = first + SFFS_EBT_RECS - 1;
		*next = last + 1;
		*why = SFFS_EBT_WHY_ALL;
		if (all)
			return true;
		*why = SFFS_EBT_WHY_EXACT;
		if (sffs_ebt_exact_due(j, *page))
			return true;
		*why = SFFS_EBT_WHY_MANY;
		if (xa_find(&j->ebt, &first, last, SFFS_EBT_MANY))
			return true;
		first = (unsigned long)*page * SFFS_EBT_RECS;
		*why = SFFS_EBT_WHY_OLD;
		if (xa_find(&j->ebt, &first, last, SFFS_EBT_OLD))
			return true;
		j->gc.table_deferred++;
	}
	return false;
}

/* Count a table page a commit wrote, by why (sffs_ebt_next_due()) */
void sffs_ebt_written(struct sffs_journal *j, unsigned int why)
{
	switch (why) {
	case SFFS_EBT_WHY_ALL:
		j->gc.table_all++;
		break;
	case SFFS_EBT_WHY_EXACT:
		j->gc.table_exact++;
		break;
	case SFFS_EBT_WHY_MANY:
		j->gc.table_many++;
		break;
	default:
		j->gc.table_old++;
	}
}

/* The length of table page @page as a node: its last may be short */
u32 sffs_ebt_page_size(const struct sffs_journal *j, u32 page)
{
	u32 first = page * SFFS_EBT_RECS;

	return sffs_ebt_node_size(min_t(u32, SFFS_EBT_RECS,
					j->io->eb_count - first));
}

/**
 * sffs_ebt_fold_page - apply the pending changes to one table page
 * @j: the journal, committing
 * @page: the table page
 *
 * Reads the page into j->ebt_buf and folds into it, and forgets, every
 * change pending for its blocks; the commit then writes it, packed by
 * sffs_ebt_pack() into j->ebt_raw where it may be
 * (sffs_journal_fold_table()).
 *
 * Return: the length of the page as a node, or a negative error.
 */
int sffs_ebt_fold_page(struct sffs_journal *j, u32 page)
{
	struct sffs_ebt_node *en = j->ebt_buf;
	unsigned int i, count;
	int err;

	err = sffs_ebt_read(j, page);
	if (err)
		return err;
	count = le32_to_cpu(en->count);
	for (i = 0; i < count; i++) {
		u32 eb = page * SFFS_EBT_RECS + i;
		struct sffs_ebt_delta *d = xa_erase(&j->ebt, eb);
		struct sffs_eb_info r;

		if (!d)
			continue;
		sffs_rec_get(&en->rec[i], &r);
		sffs_ebt_apply(d, &r, j->io->erase_size);
		sffs_rec_put(&en->rec[i], &r);
		if (d->flags & SFFS_EBD_STATE)
			j->ebt_states--;
		kfree(d);
		j->ebt_nr--;
	}
	return sffs_ebt_node_size(count);
}

/**
 * sffs_ebt_scan - walk the records of one table page below the frontier
 * @j: the journal
 * @page: the table page, of the first SFFS_EBT_RECS * @page erase blocks
 * @fn: called for each block, with its record as the table and the changes
 *	since the last commit make it
 * @arg: for @fn
 *
 * Reads one table page, into j->ebt_raw and, its records plain, into
 * j->ebt_buf.
 *
 * Return: 0 or a negative error.
 */
int sffs_ebt_scan(struct sffs_journal *j, u32 page,
		  void (*fn)(struct sffs_journal *j, u32 eb,
			     const struct sffs_eb_info *r, void *arg),
		  void *arg)
{
	struct sffs_ebt_node *en = j->ebt_buf;
	unsigned int i;
	int err;

	err = sffs_ebt_read(j, page);
	if (err)
		return err;
	for (i = 0; i < le32_to_cpu(en->count); i++) {
		u32 eb = page * SFFS_EBT_RECS + i;
		struct sffs_ebt_delta *d;
		struct sffs_eb_info r;

		if (eb >= j->alloc_eb)
			break;
		sffs_rec_get(&en->rec[i], &r);
		d = xa_load(&j->ebt, eb);
		if (d)
			sffs_ebt_apply(d, &r, j->io->erase_size);
		fn(j, eb, &r, arg);
	}
	return 0;
}
