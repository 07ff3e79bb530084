/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS journal: appending changes, committing the index, replay.
 */
#ifndef __SFFS_JOURNAL_H__
#define __SFFS_JOURNAL_H__

#include <linux/types.h>
#include <linux/xarray.h>
#include "index.h"
#include "io.h"

/**
 * struct sffs_wnode - one node of an operation to journal
 * @buf: the node, header left to the journal
 * @len: its length
 * @type: &enum sffs_node_type
 * @flags: type-specific header flags
 * @addr: where it was written (out)
 */
struct sffs_wnode {
	void *buf;
	u32 len;
	u8 type;
	u8 flags;
	u64 addr;
};

#define SFFS_WRITE_TRIES	2	/* program failures one operation survives */

#define SFFS_POOL_SIZE		32	/* free erase blocks kept at hand */
#define SFFS_MAX_SPARES		16	/* erased blocks set aside for commits */
#define SFFS_MAX_FREEABLE	32	/* blocks emptied, free after a commit */
#define SFFS_GC_VICTIMS		8	/* victims chosen per scan */
/* Beyond this many pending table changes, live-byte hints are dropped */
#define SFFS_EBT_MAX_HINTS	8192
/* A table page with only hints pending is written once this many changed */
#define SFFS_EBT_FOLD_MIN	(SFFS_EBT_RECS / 4)
/* ... or once its oldest hint has waited this many commits */
#define SFFS_EBT_HINT_COMMITS	32
/* Past this many pending changes, a page needs fewer hints to be written */
#define SFFS_EBT_HINT_LOW	1024
static_assert((SFFS_EBT_HINT_LOW) < SFFS_EBT_MAX_HINTS / 2);
#define SFFS_MAX_REFUSED	8	/* damaged blocks GC leaves alone */
#define SFFS_DEF_WL_THRESHOLD	256	/* erase count spread static WL allows */
#define SFFS_WL_WORN		4	/* worn free blocks cold data goes to */
#define SFFS_MAX_ERASEBAD	8	/* failed erases to mark bad at commit */

/* Why a commit writes a table page (sffs_ebt_next_due()) */
enum {
	SFFS_EBT_WHY_ALL,	/* every page with changes is written */
	SFFS_EBT_WHY_EXACT,	/* a state or an erase count changed */
	SFFS_EBT_WHY_MANY,	/* enough hints (sffs_ebt_hint_min()) */
	SFFS_EBT_WHY_OLD,	/* a hint waited SFFS_EBT_HINT_COMMITS commits */
};

/**
 * struct sffs_eb_info - an erase-block table record, in CPU order
 * @ec: erase count
 * @live: bytes of live nodes (a hint)
 * @age: commit number before the block was last erased
 * @state: &enum sffs_eb_state
 */
struct sffs_eb_info {
	u32 ec;
	u32 live;
	u32 age;
	u8 state;
};

/**
 * struct sffs_gc_stats - what garbage collection did since mount
 * @runs: collections started
 * @blocks: erase blocks emptied
 * @moved: bytes of live nodes rewritten elsewhere
 * @index_moved: index nodes dirtied so that the commit rewrites them
 * @index_bytes: bytes of index nodes commits wrote
 * @table_bytes: bytes of erase-block table pages commits wrote
 * @table_pages: erase-block table pages commits wrote
 * @table_deferred: table pages with only hints pending that commits left
 *	for later
 * @table_exact: table pages commits wrote for a state or an erase count
 * @table_many: table pages commits wrote for the number of their hints
 *	(sffs_ebt_fold_plan())
 * @table_old: table pages commits wrote for the age of a hint
 * @table_all: table pages commits wrote because every page with changes
 *	was (sffs_ebt_fold_all())
 * @more_rounds: rounds of collection a run went on with after a commit,
 *	the dead bytes being too thin for one round to free enough
 * @wide_rounds: more rounds that wanted SFFS_MAX_FREEABLE victims, an
 *	earlier round of the run having won too little
 * @ahead_runs: runs started before the journal list ran out, so that one
 *	commit both ends the journal and frees the blocks the next list takes
 * @starved_runs: runs sffs_write_op() started because the journal list
 *	was used up and a table scan had found no free block for the next
 * @scans: scans of the erase-block table
 * @scan_pages: table pages the scans read
 * @refused: victims left alone because they could not be read whole
 * @scrubbed: blocks emptied because reads found bitflips in them
 * @wl_moves: blocks of cold data moved to even out wear
 * @erases: erase blocks erased
 * @bad: erase blocks retired because an erase or a program failed
 */
struct sffs_gc_stats {
	unsigned long runs;
	unsigned long blocks;
	u64 moved;
	unsigned long index_moved;
	u64 index_bytes;
	u64 table_bytes;
	unsigned long table_pages;
	unsigned long table_deferred;
	unsigned long table_exact;
	unsigned long table_many;
	unsigned long table_old;
	unsigned long table_all;
	unsigned long more_rounds;
	unsigned long wide_rounds;
	unsigned long ahead_runs;
	unsigned long starved_runs;
	unsigned long scans;
	unsigned long scan_pages;
	unsigned long refused;
	unsigned long scrubbed;
	unsigned long wl_moves;
	unsigned long erases;
	unsigned long bad;
};

/**
 * struct sffs_journal - the log of changes since the last commit
 * @io: flash I/O
 * @idx: the index
 * @cp: the newest checkpoint (its superblock part stays as mkfs wrote it)
 * @sqnum: last sequence number used
 * @next_ino: next inode number
 * @commit: number of the last commit
 * @jeb: erase blocks of the journal since the last commit
 * @jcnt: entries in @jeb
 * @jcur: index in @jeb of the block of the write head
 * @jmax: journal size in erase blocks (mount option)
 * @alloc_eb: next erase block never written
 * @free: bytes never written, head block included
 * @dirty: bytes of obsolete nodes and padding
 * @died: bytes that became obsolete or padding since the mount; unlike
 *	  @dirty, it only grows
 * @dark: @dirty when garbage collection last could not cover what was
 *	  promised, 0 once a collection reaches its target: not counted as
 *	  space (sffs_gc_cover())
 * @dark_commit: @commit when @dark was set
 * @dark_need: the free bytes sffs_gc_cover() wanted then
 * @gc_failed: the last collection run in rounds ended with nothing more
 *	       to win: sffs_gc_wanted() waits for @gc_failed_commit or
 *	       @gc_failed_dirty to change what it would find
 * @gc_failed_commit: @commit when it ended
 * @gc_failed_dirty: @dirty then
 * @gc_ahead_idle: the last round ahead of the end of the journal list
 *		   (sffs_gc_ahead_due()) won less than an eighth of an erase
 *		   block: the next waits for an erase block's worth of newly
 *		   dead bytes past @gc_ahead_died
 * @gc_ahead_died: @died when that round ended
 * @used: bytes of live nodes
 * @max_dirty: commit when more znodes than this are dirty
 * @in_commit: a commit is writing the index
 * @placing: an image was placed by this mount and not yet committed
 *	     (sffs_journal_unflash())
 * @fold_all: the next commit writes every table page with changes, hints
 *	      included: it ends a writable mount
 * @replayed: nodes found by replay at mount
 * @commits: commits since mount
 * @commits_journal_full: commits that succeeded and were started because
 *			  the journal list was used up
 * @commits_ram_limit: commits that succeeded and were started because more
 *		       znodes or table states were dirty than RAM may hold
 * @commits_gc: commits that succeeded and were started by garbage
 *		collection: those of its runs (victims, scrubbing, wear
 *		levelling, retiring blocks), and the one sffs_gc_cover() makes
 *		to take the journal's blocks back
 * @ebt: changes to the erase-block table not yet committed, by erase block
 * @ebt_nr: entries in @ebt
 * @ebt_states: entries in @ebt that change a state (none is ever dropped)
 * @ebt_lost: live-byte changes dropped for want of memory (hints only)
 * @ebt_fold_min: the number of hints the last commit's plan asked of a
 *		  page (sffs_ebt_fold_plan())
 * @ebt_plan_all: the commit being written writes every table page with
 *		  changes (sffs_ebt_fold_all() when it planned)
 * @ebt_buf: one erase-block table page, its records plain
 * @ebt_raw: a table page as on the flash, read or to write
 * @pool: free erase blocks at hand, least worn last: found by table
 *	  scans, or freed by garbage collection
 * @pool_key: for each block of @pool, U32_MAX + 1 - its erase count
 * @npool: entries in @pool
 * @spare: blocks set aside for the commits: erased, or never written
 *	   since mkfs
 * @nspare: entries in @spare
 * @freeable: blocks garbage collection emptied; free once a commit no
 *	      longer refers to them
 * @freeable_empty: bit i: @freeable[i] was never written, its bytes are
 *		    counted free already
 * @freeable_ec: erase count of each block of @freeable (U32_MAX: unknown)
 * @released: blocks the commit being written frees, for the pool once its
 *	      checkpoint is written
 * @released_ec: erase count of each block of @released
 * @nreleased: entries in @released
 * @nfreeable: entries in @freeable
 * @victim: garbage collection victims chosen by the last scan, best last
 * @victim_ec: erase count of each block of @victim
 * @nvictim: entries in @victim
 * @refused: the last blocks garbage collection could not walk, left alone
 * @wl_threshold: spread of erase counts beyond which cold data is moved
 * @ec_min: lowest erase count the last whole pass of table scans saw
 * @ec_max: highest erase count the last whole pass of table scans saw
 * @ec_sum: sum of the erase counts the last whole pass saw
 * @ec_blocks: blocks the last whole pass saw
 * @scan_page: table page the next scan starts at
 * @pass_ec_min: @ec_min of the pass under way
 * @pass_ec_max: @ec_max of the pass under way
 * @pass_ec_sum: @ec_sum of the pass under way
 * @pass_blocks: @ec_blocks of the pass under way
 * @pass_oldest_age: age of the oldest block the pass under way found full
 *		     by its hint (U32_MAX: none)
 * @pass_oldest_eb: that block
 * @pass_oldest_ec: its erase count
 * @pass_victims: victims the scans of the pass under way found
 * @pass_all_victims: every scan of the pass under way looked for victims
 * @user_bytes: file data written back, before compression, not counting
 *		what garbage collection moved
 * @wl_victim: the block of cold data static wear levelling moves next
 * @wl_victim_ec: its erase count
 * @wl_stage: 0, 1 when the next commit lists @worn blocks first in the
 *	      journal, 2 when the journal has reached them and @wl_victim
 *	      can move there
 * @worn: the most worn free blocks the last table scan found
 * @nworn: entries in @worn
 * @scrub_commit: commit at which the blocks to scrub were last tried
 * @mount_ns: in the mount, when the checkpoint was found, the index root
 *	      read and the journal replayed, from the start of
 *	      sffs_journal_mount()
 * @allocs: erase blocks allocated since mount
 * @starved: a table scan found no free block: collect at once
 * @in_gc: garbage collection is moving nodes
 * @wend: end of the last node appended whole
 * @markbad: blocks the checkpoint being written calls bad, to mark bad on
 *	     the device once it is written
 * @nmarkbad: entries in @markbad
 * @erasebad: blocks whose erase failed, bad in the table of the next
 *	      checkpoint, to mark bad on the device once it is written
 * @nerasebad: entries in @erasebad
 * @gc: garbage collection statistics
 * @put_buf: a copy of the node sffs_journal_put() appends after taking a
 *	     new erase block, @put_size bytes
 * @put_size: the largest node a commit puts
 * @broken: an operation was journaled but not wholly applied to the
 *	    index: read-only, and syncs fail
 * @err_ro: read-only since an error: only a new mount, which replays the
 *	    journal from the flash, may write again
 * @sb: the super block, made read-only on an error (NULL in unit tests of
 *	the journal alone)
 */
struct sffs_journal {
	struct sffs_io *io;
	struct sffs_index idx;
	struct sffs_checkpoint_node cp;
	u64 sqnum;
	u64 next_ino;
	u64 commit;
	u32 jeb[SFFS_MAX_JOURNAL_BLOCKS];
	unsigned int jcnt;
	unsigned int jcur;
	unsigned int jmax;
	u32 alloc_eb;
	u64 free;
	u64 dirty;
	u64 died;
	u64 dark;
	u64 dark_commit;
	u64 dark_need;
	bool gc_failed;
	u64 gc_failed_commit;
	u64 gc_failed_dirty;
	bool gc_ahead_idle;
	u64 gc_ahead_died;
	u64 used;
	unsigned long max_dirty;
	bool in_commit;
	bool placing;
	bool fold_all;
	unsigned long replayed;
	unsigned long commits;
	unsigned long commits_journal_full;
	unsigned long commits_ram_limit;
	unsigned long commits_gc;
	struct xarray ebt;
	unsigned long ebt_nr;
	unsigned long ebt_states;
	unsigned long ebt_lost;
	u32 ebt_fold_min;
	bool ebt_plan_all;
	struct sffs_ebt_node *ebt_buf;
	struct sffs_ebt_node *ebt_raw;
	u32 pool[SFFS_POOL_SIZE];
	u64 pool_key[SFFS_POOL_SIZE];
	unsigned int npool;
	u32 spare[SFFS_MAX_SPARES];
	unsigned int nspare;
	u32 freeable[SFFS_MAX_FREEABLE];
	u32 freeable_empty;
	u32 freeable_ec[SFFS_MAX_FREEABLE];
	u32 released[SFFS_MAX_FREEABLE];
	u32 released_ec[SFFS_MAX_FREEABLE];
	unsigned int nreleased;
	unsigned int nfreeable;
	u32 victim[SFFS_GC_VICTIMS];
	u32 victim_ec[SFFS_GC_VICTIMS];
	unsigned int nvictim;
	u32 refused[SFFS_MAX_REFUSED];
	unsigned int wl_threshold;
	u32 ec_min;
	u32 ec_max;
	u64 ec_sum;
	u32 ec_blocks;
	u32 scan_page;
	u32 pass_ec_min;
	u32 pass_ec_max;
	u64 pass_ec_sum;
	u32 pass_blocks;
	u32 pass_oldest_age;
	u32 pass_oldest_eb;
	u32 pass_oldest_ec;
	unsigned int pass_victims;
	bool pass_all_victims;
	u64 user_bytes;
	u32 wl_victim;
	u32 wl_victim_ec;
	unsigned int wl_stage;
	u32 worn[SFFS_WL_WORN];
	unsigned int nworn;
	u64 scrub_commit;
	u64 mount_ns[3];
	unsigned long allocs;
	bool starved;
	bool in_gc;
	u64 wend;
	u32 markbad[SFFS_MAX_RETIRE];
	unsigned int nmarkbad;
	u32 erasebad[SFFS_MAX_ERASEBAD];
	unsigned int nerasebad;
	struct sffs_gc_stats gc;
	void *put_buf;
	size_t put_size;
	bool broken;
	bool err_ro;
	struct super_block *sb;
};

#ifdef CONFIG_FAULT_INJECTION
extern struct fault_attr sffs_fail_apply;
extern struct fault_attr sffs_fail_gc;
#endif

/* ebt.c: the erase-block table */
int sffs_ebt_init(struct sffs_journal *j);
void sffs_ebt_destroy(struct sffs_journal *j);
void sffs_ebt_live(struct sffs_journal *j, u64 addr, s64 bytes);
int sffs_ebt_alloc(struct sffs_journal *j, u32 eb, bool erased);
int sffs_ebt_claim(struct sffs_journal *j, u32 eb);
int sffs_ebt_free(struct sffs_journal *j, u32 eb);
int sffs_ebt_bad(struct sffs_journal *j, u32 eb);
bool sffs_ebt_fold_all(const struct sffs_journal *j);
u32 sffs_ebt_hint_min(unsigned long changes);
void sffs_ebt_fold_plan(struct sffs_journal *j);
bool sffs_ebt_next_due(struct sffs_journal *j, unsigned long *next, bool all,
		       u32 *page, unsigned int *why);
void sffs_ebt_written(struct sffs_journal *j, unsigned int why);
u32 sffs_ebt_page_size(const struct sffs_journal *j, u32 page);
int sffs_ebt_fold_page(struct sffs_journal *j, u32 page);
u32 sffs_ebt_pack(struct sffs_journal *j, u32 len, void **buf,
		  unsigned int *flags);
u32 sffs_ebt_fold_pages(struct sffs_journal *j, unsigned long extra);
u64 sffs_commit_table_pages(struct sffs_journal *j);
int sffs_ebt_scan(struct sffs_journal *j, u32 page,
		  void (*fn)(struct sffs_journal *j, u32 eb,
			     const struct sffs_eb_info *r, void *arg),
		  void *arg);

/* Is @eb one of the @n blocks of @list? */
static inline bool sffs_list_has(const u32 *list, unsigned int n, u32 eb)
{
	while (n--)
		if (list[n] == eb)
			return true;
	return false;
}

/* space.c: free erase blocks, and the table scans that find them */
void sffs_error_ro(struct sffs_journal *j);
bool sffs_eb_busy(const struct sffs_journal *j, u32 eb);
u32 sffs_scan_windows(const struct sffs_journal *j);
int sffs_scan_table(struct sffs_journal *j, bool victims);
int sffs_take_free(struct sffs_journal *j, u32 *eb, bool erase);
int sffs_take_worn(struct sffs_journal *j, u32 *eb);
u64 sffs_free_held(const struct sffs_journal *j);
u64 sffs_free_blocks(const struct sffs_journal *j);
u64 sffs_dark(const struct sffs_journal *j);
u32 sffs_bad_reserve_blocks(const struct sffs_journal *j);
void sffs_pool_released(struct sffs_journal *j);
void sffs_release_freeable(struct sffs_journal *j);

/* journal.c: appending operations, committing */
int sffs_journal_load(struct sffs_journal *j, struct sffs_io *io,
		      unsigned int jmax);
int sffs_journal_placed(struct sffs_journal *j);
void sffs_journal_unmount(struct sffs_journal *j);
int sffs_journal_write(struct sffs_journal *j, struct sffs_wnode *wn, int n,
		       bool collected);
int sffs_journal_sync(struct sffs_journal *j);
int sffs_journal_commit(struct sffs_journal *j);
u64 sffs_journal_reserve(const struct sffs_journal *j);
u64 sffs_commit_need(struct sffs_journal *j);
int sffs_journal_apply(struct sffs_journal *j, const void *node, u64 addr);
int sffs_journal_restart(struct sffs_journal *j, unsigned int last);
int sffs_journal_next_block(struct sffs_journal *j);
int sffs_journal_room(struct sffs_journal *j, u32 len);
int sffs_journal_put(struct sffs_journal *j, void *buf, u32 len,
		     unsigned int type, unsigned int flags, u64 *addr);
int sffs_journal_format(struct sffs_journal *j, struct sffs_io *io,
			unsigned int compr);

/* replay.c: mounting, and replaying what the last commit did not save */
int sffs_journal_mount(struct sffs_journal *j, struct sffs_io *io,
		       unsigned int jmax);

/* gc.c: garbage collection, wear levelling, scrubbing */
int sffs_write_op(struct sffs_journal *j, struct sffs_wnode *wn, int n);
int sffs_gc(struct sffs_journal *j);
bool sffs_gc_wanted(const struct sffs_journal *j);
u64 sffs_gc_reserve(const struct sffs_journal *j);
int sffs_gc_cover(struct sffs_journal *j, u64 promised);
void sffs_gc_retire(struct sffs_journal *j);

#endif /* __SFFS_JOURNAL_H__ */
