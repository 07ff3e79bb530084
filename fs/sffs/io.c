// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS flash I/O.
 *
 * The layer between nodes and the MTD device.  It owns three things:
 *
 * The write buffer.  Nodes are appended to it and it goes to the flash in
 * whole units (a NAND page, or 8 bytes on NOR), so that no page is ever
 * programmed twice and pages of a block are programmed in order, as NAND
 * requires.  When it must go out part-full (fsync, commit), the rest of the
 * unit is filled with a pad node.  Reads of nodes still in the buffer are
 * served from it.
 *
 * Bad blocks.  The MTD layer knows them (mtd_block_isbad()); SFFS never
 * writes or erases one.
 *
 * Erase block numbers.  The file system's are the device's, except on a
 * device an image was flashed to by a flasher that skips bad blocks
 * (nandwrite): its block N went to the device's N-th good block, and the
 * addresses in the image are the image's.  The mount that finds such an
 * image (SFFS_FEAT_INCOMPAT_PLACE) lists the bad blocks the image passed
 * over (sffs_io_place()), and every checkpoint after it carries the list
 * (SFFS_FEAT_INCOMPAT_SKIP), so that the mapping stays what it was when
 * the image was flashed whatever goes bad later.  Only the calls into MTD
 * below translate; everything above sees the file system's numbers.  The
 * list is short (the bad blocks under the image, at most SFFS_MAX_SKIP),
 * and each translation walks it.
 *
 * The anchor.  The first four good blocks among the first sixteen form
 * two slots of two blocks.  Each commit appends a checkpoint unit to the
 * current slot; a full slot makes the next commit erase the other slot
 * and continue there, so the newest checkpoint always exists at least
 * once while the other slot is erased.  Units of a slot are programmed in
 * order, so the programmed ones form a prefix, and sffs_anchor_find()
 * finds its end by binary search: a mount reads O(log(units)) units
 * whatever the size of the flash.  A slot that cannot be read (an
 * uncorrectable ECC error) is passed over for the newest checkpoint of
 * the other one; the mount fails only if neither has one.
 *
 * The anchor cannot move, so garbage collection does not scrub it.
 * Instead, a read of it that needed ECC correction, or that failed, sets
 * io->anchor_rewrite: the next checkpoint erases the other slot and starts
 * there, as when a slot is full.  The newest checkpoint is then in freshly
 * erased cells, and a worn slot that was the current one is erased at the
 * next change of slot.  An unreadable slot is the one erased, as it was
 * not mounted: it may hold checkpoints newer than the one that was, which
 * must not win a later mount once the blocks they name are reused.
 *
 * Locking: none; the journal layer above serialises all writes, and reads
 * that may touch the write buffer.
 */
#include <linux/mtd/mtd.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "io.h"

/* The lowest layer that traces defines the events for all of SFFS */
#define CREATE_TRACE_POINTS
#include <trace/events/sffs.h>

#define SFFS_WBUF_MAX	(32 * 1024)

/* The device's erase block that the file system's @eb is */
static u32 sffs_dev_eb(const struct sffs_io *io, u32 eb)
{
	unsigned int i = 0;

	while (i < io->nskip && io->skip[i] <= eb + i)
		i++;
	return eb + i;
}

/*
 * The device's address of the file system's address @addr; past the
 * device's end, where MTD refuses it, when @addr is past the file system's
 */
static u64 sffs_dev_addr(const struct sffs_io *io, u64 addr)
{
	u32 off;
	u64 eb = div_u64_rem(addr, io->erase_size, &off);

	if (!io->nskip)
		return addr;
	if (eb >= io->eb_count)
		return io->mtd->size + off;
	return (u64)sffs_dev_eb(io, eb) * io->erase_size + off;
}

/*
 * A block of the file system past the device's end, as the last @nskip
 * are when blocks are skipped, is as good as bad: it is never used.
 */
bool sffs_io_is_bad(struct sffs_io *io, u32 eb)
{
	u32 peb = sffs_dev_eb(io, eb);

	if (peb >= io->peb_count)
		return true;
	if (!mtd_can_have_bb(io->mtd))
		return false;
	return mtd_block_isbad(io->mtd, sffs_eb_addr(io, peb)) > 0;
}

bool sffs_io_is_anchor(const struct sffs_io *io, u32 eb)
{
	unsigned int i;

	for (i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		if (io->anchor_eb[i] == eb)
			return true;
	return false;
}

/**
 * sffs_io_init - check the geometry of an MTD device and set up I/O on it
 * @io: I/O state to fill
 * @mtd: the device
 * @ro: mount read-only
 *
 * Return: 0, -EINVAL for a device SFFS cannot use, or -ENOMEM.
 */
int sffs_io_init(struct sffs_io *io, struct mtd_info *mtd, bool ro)
{
	unsigned int n = 0;
	u32 eb;

	memset(io, 0, sizeof(*io));
	io->mtd = mtd;
	io->ro = ro || !(mtd->flags & MTD_WRITEABLE);
	io->erase_size = mtd->erasesize;
	io->write_size = mtd->writesize;
	io->unit = max_t(u32, io->write_size, SFFS_NODE_ALIGN);
	io->cp_unit = SFFS_CP_UNIT(io->write_size);
	if (!is_power_of_2(io->erase_size) || !is_power_of_2(io->unit) ||
	    io->unit > 16384 || io->erase_size < 16 * io->cp_unit ||
	    io->erase_size < 4 * SFFS_BLOCK_SIZE) {
		pr_err("sffs: %s: unsupported geometry: erase size %u, write size %u\n",
		       mtd->name, io->erase_size, io->write_size);
		return -EINVAL;
	}
	io->eb_count = div_u64(mtd->size, io->erase_size);
	io->peb_count = io->eb_count;
	for (eb = 0; eb < SFFS_ANCHOR_SEARCH && eb < io->eb_count &&
	     n < SFFS_ANCHOR_BLOCKS; eb++)
		if (!sffs_io_is_bad(io, eb))
			io->anchor_eb[n++] = eb;
	if (n < SFFS_ANCHOR_BLOCKS || io->eb_count < SFFS_ANCHOR_SEARCH) {
		pr_err("sffs: %s: too small, or too many bad blocks at its start\n",
		       mtd->name);
		return -EINVAL;
	}
	io->wbuf_size = max_t(u32, io->unit,
			      min_t(u32, io->erase_size, SFFS_WBUF_MAX));
	io->wbuf = kvmalloc(io->wbuf_size, GFP_KERNEL);
	if (!io->wbuf)
		return -ENOMEM;
	return 0;
}

void sffs_io_destroy(struct sffs_io *io)
{
	kvfree(io->wbuf);
	io->wbuf = NULL;
	kfree(io->skip);
	io->skip = NULL;
	io->nskip = 0;
}

/* Skipped blocks a checkpoint unit has room for */
static unsigned int sffs_skip_max(const struct sffs_io *io)
{
	return min_t(unsigned int, SFFS_MAX_SKIP,
		     (io->cp_unit - sizeof(struct sffs_checkpoint_node)) /
		     sizeof(__le32));
}

/*
 * Take @list (@n device blocks, kmalloc()ed, or NULL) as the blocks the
 * file system's numbers pass over: the anchor, found by the device's
 * numbers, gets the file system's.  A bad list is freed.
 */
static int sffs_io_set_skip(struct sffs_io *io, u32 *list, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++)
		if (list[i] >= io->peb_count || (i && list[i] <= list[i - 1]) ||
		    sffs_io_is_anchor(io, list[i]))
			break;
	if (i < n || n > sffs_skip_max(io) ||
	    io->peb_count - n < SFFS_ANCHOR_SEARCH) {
		kfree(list);
		return -EUCLEAN;
	}
	for (i = 0; i < SFFS_ANCHOR_BLOCKS; i++) {
		k = 0;
		while (k < n && list[k] < io->anchor_eb[i])
			k++;
		io->anchor_eb[i] -= k;
	}
	io->skip = list;
	io->nskip = n;
	return 0;
}

/**
 * sffs_io_place - map an image's erase blocks to the device's good ones
 * @io: I/O state, with no blocks skipped yet
 * @blocks: erase blocks of the image (up to its frontier)
 *
 * A flasher that skips bad blocks wrote the image's block N to the
 * device's N-th good block.  List the bad blocks among those, so that the
 * file system's numbers pass over them; the blocks after the image follow
 * in the device's order, bad or good, one for one, and the file system's
 * last blocks, past the device's end, are bad ones.  On a device with no
 * bad block under the image the list is empty and nothing changes.
 *
 * Return: 0, -EINVAL if the image does not fit or passes over more bad
 * blocks than a checkpoint can list, -ENOMEM.
 */
int sffs_io_place(struct sffs_io *io, u32 blocks)
{
	unsigned int n = 0, max = sffs_skip_max(io);
	u32 *list = NULL, peb, leb;

	if (io->nskip)
		return -EINVAL;
	for (peb = 0, leb = 0; leb < blocks; peb++) {
		if (peb >= io->peb_count) {
			pr_err("sffs: %s: an image of %u erase blocks does not fit in the good blocks of the device\n",
			       io->mtd->name, blocks);
			kfree(list);
			return -EINVAL;
		}
		if (!sffs_io_is_bad(io, peb)) {
			leb++;
			continue;
		}
		if (n == max) {
			pr_err("sffs: %s: the image covers more than %u bad blocks\n",
			       io->mtd->name, max);
			kfree(list);
			return -EINVAL;
		}
		if (!list) {
			list = kmalloc_array(max, sizeof(*list), GFP_KERNEL);
			if (!list)
				return -ENOMEM;
		}
		list[n++] = peb;
	}
	return sffs_io_set_skip(io, list, n) ? -EINVAL : 0;
}

/* Remember that @eb needs scrubbing; garbage collection does it */
static void sffs_io_scrub_add(struct sffs_io *io, u32 eb)
{
	unsigned int i;

	for (i = 0; i < io->nscrub; i++)
		if (io->scrub[i] == eb)
			return;
	if (io->nscrub < SFFS_MAX_SCRUB) {
		io->scrub[io->nscrub++] = eb;
		trace_sffs_scrub_queue(io->mtd->index, eb);
	}
}

void sffs_io_scrub_del(struct sffs_io *io, u32 eb)
{
	unsigned int i;

	for (i = 0; i < io->nscrub; i++) {
		if (io->scrub[i] == eb) {
			io->scrub[i] = io->scrub[--io->nscrub];
			return;
		}
	}
}

bool sffs_io_retiring(const struct sffs_io *io, u32 eb)
{
	unsigned int i;

	for (i = 0; i < io->nretire; i++)
		if (io->retire[i] == eb)
			return true;
	return false;
}

/**
 * sffs_io_retire - retire an erase block a program failed in
 * @io: I/O state
 * @eb: the block
 *
 * The block still holds live nodes, written before the failure: garbage
 * collection moves them, as it scrubs a block with bitflips, and the
 * commit that frees it marks it bad instead.  Room is made in the scrub
 * queue if need be: a block with bitflips is queued again by its next
 * read, a failing block would not be.
 *
 * Return: false if too many blocks are waiting to be retired already.
 */
bool sffs_io_retire(struct sffs_io *io, u32 eb)
{
	if (sffs_io_retiring(io, eb))
		return true;
	if (io->nretire == SFFS_MAX_RETIRE)
		return false;
	io->retire[io->nretire++] = eb;
	sffs_io_scrub_del(io, eb);
	if (io->nscrub == SFFS_MAX_SCRUB)
		io->nscrub--;
	io->scrub[io->nscrub++] = eb;
	return true;
}

/* @eb is marked bad: it leaves the list */
void sffs_io_retired(struct sffs_io *io, u32 eb)
{
	unsigned int i;

	for (i = 0; i < io->nretire; i++) {
		if (io->retire[i] == eb) {
			io->retire[i] = io->retire[--io->nretire];
			return;
		}
	}
}

/* mtd_read() at the device's address, in pieces that stay in a block */
static int sffs_mtd_read_dev(struct sffs_io *io, u64 addr, void *buf,
			     size_t len, size_t *got)
{
	int ret = 0;

	*got = 0;
	while (len) {
		u32 off;
		size_t n = len, done;
		int err;

		if (io->nskip) {
			div_u64_rem(addr, io->erase_size, &off);
			n = min_t(size_t, len, io->erase_size - off);
		}
		err = mtd_read(io->mtd, sffs_dev_addr(io, addr), n, &done, buf);
		*got += done;
		if (err && !mtd_is_bitflip(err))
			return err;
		if (err)
			ret = err;
		if (done != n)
			break;
		addr += n;
		buf += n;
		len -= n;
	}
	return ret;
}

static int sffs_mtd_read(struct sffs_io *io, u64 addr, void *buf, size_t len)
{
	size_t got;
	int err;

	err = sffs_mtd_read_dev(io, addr, buf, len, &got);
	if (mtd_is_bitflip(err)) {
		u32 eb = sffs_addr_eb(io, addr);

		/* good data, but the cells are wearing: move it while it is */
		io->bitflips++;
		if (sffs_io_is_anchor(io, eb))
			io->anchor_rewrite = true;
		else
			sffs_io_scrub_add(io, eb);
		err = 0;
	}
	if (err) {
		io->read_errors++;
		pr_err_ratelimited("sffs: %s: read of %zu bytes at %llu failed: %d%s\n",
				   io->mtd->name, len, addr, err,
				   mtd_is_eccerr(err) ? " (uncorrectable ECC error)" : "");
		return -EIO;
	}
	return got == len ? 0 : -EIO;
}

/**
 * sffs_io_read - read from the flash, or from the write buffer
 * @io: I/O state
 * @addr: flash address
 * @buf: destination
 * @len: bytes
 *
 * Return: 0 or -EIO.
 */
int sffs_io_read(struct sffs_io *io, u64 addr, void *buf, size_t len)
{
	u64 wb_start = io->wbuf_addr, wb_end = wb_start + io->wbuf_used;
	u64 end = addr + len, from, to;
	int err;

	if (addr < wb_start || end > wb_end) {
		err = sffs_mtd_read(io, addr, buf, len);
		if (err)
			return err;
	}
	from = max(addr, wb_start);
	to = min(end, wb_end);
	if (from < to)
		memcpy(buf + (from - addr), io->wbuf + (from - wb_start),
		       to - from);
	return 0;
}

/**
 * sffs_io_read_node - read a node and check it
 * @io: I/O state
 * @addr: its address
 * @len: its length, as the index records it
 * @buf: destination, at least @len bytes
 * @type: the node type expected, or -1 for any
 *
 * Return: 0, -EIO, or -EUCLEAN if the node is not what the index says.
 */
int sffs_io_read_node(struct sffs_io *io, u64 addr, u32 len, void *buf,
		      int type)
{
	const struct sffs_node_hdr *hdr = buf;
	int err;

	err = sffs_io_read(io, addr, buf, len);
	if (err)
		return err;
	err = sffs_node_check(buf, len);
	if (!err && (le32_to_cpu(hdr->len) != len ||
		     (type >= 0 && hdr->type != type)))
		err = -EUCLEAN;
	if (err) {
		pr_err("sffs: %s: bad node at %llu (len %u, type %d): %d\n",
		       io->mtd->name, addr, len, type, err);
		return -EUCLEAN;
	}
	return 0;
}

/* Mark @eb bad on the device; a flash operation like any other */
void sffs_io_markbad(struct sffs_io *io, u32 eb)
{
	int err;

	if (io->ro)
		return;
	err = mtd_block_markbad(io->mtd,
				sffs_dev_addr(io, sffs_eb_addr(io, eb)));
	if (err)
		pr_err("sffs: %s: cannot mark erase block %u bad: %d\n",
		       io->mtd->name, eb, err);
}

int sffs_io_erase(struct sffs_io *io, u32 eb)
{
	struct erase_info ei = {
		.len = io->erase_size,
	};
	int err;

	if (io->ro)
		return -EROFS;
	ei.addr = sffs_dev_addr(io, sffs_eb_addr(io, eb));
	err = mtd_erase(io->mtd, &ei);
	if (err) {
		pr_err("sffs: %s: erase of block %u failed: %d\n",
		       io->mtd->name, eb, err);
		return -EIO;
	}
	return 0;
}

static int sffs_mtd_write(struct sffs_io *io, u64 addr, const void *buf,
			  size_t len)
{
	size_t done;
	int err;

	if (io->ro)
		return -EROFS;
	/* the write buffer and checkpoint units never cross a block */
	err = mtd_write(io->mtd, sffs_dev_addr(io, addr), len, &done, buf);
	io->bytes_written += done;
	if (err || done != len) {
		pr_err("sffs: %s: write of %zu bytes at %llu failed: %d\n",
		       io->mtd->name, len, addr, err);
		io->write_errors++;
		io->write_failed = true;
		trace_sffs_bad_block(io->mtd->index, sffs_addr_eb(io, addr),
				     "program failed");
		return -EIO;
	}
	return 0;
}

/**
 * sffs_io_set_head - move the write head
 * @io: I/O state
 * @addr: erased flash, aligned to the write unit
 *
 * The write buffer must be empty (flushed).
 */
void sffs_io_set_head(struct sffs_io *io, u64 addr)
{
	WARN_ON(io->wbuf_used || addr & (io->unit - 1));
	io->wbuf_addr = addr;
	io->wbuf_used = 0;
	io->head_end = sffs_eb_addr(io, sffs_addr_eb(io, addr) + 1);
}

/*
 * Forget what the write buffer holds, after a program failure: the journal
 * writes it again elsewhere, from its own copy.
 */
void sffs_io_drop_wbuf(struct sffs_io *io)
{
	io->wbuf_used = 0;
	io->write_failed = false;
}

/* The write buffer may not reach past the end of the head's erase block */
static u32 sffs_wbuf_cap(const struct sffs_io *io)
{
	return min_t(u64, io->wbuf_size, io->head_end - io->wbuf_addr);
}

static int sffs_wbuf_write(struct sffs_io *io)
{
	int err;

	err = sffs_mtd_write(io, io->wbuf_addr, io->wbuf, io->wbuf_used);
	if (err)
		return err;
	io->wbuf_addr += io->wbuf_used;
	io->wbuf_used = 0;
	return 0;
}

static int sffs_wbuf_put(struct sffs_io *io, const void *src, u32 len)
{
	while (len) {
		u32 n = min(len, sffs_wbuf_cap(io) - io->wbuf_used);

		if (src) {
			memcpy(io->wbuf + io->wbuf_used, src, n);
			src += n;
		} else {
			memset(io->wbuf + io->wbuf_used, 0xff, n);
		}
		io->wbuf_used += n;
		len -= n;
		if (io->wbuf_used == sffs_wbuf_cap(io)) {
			int err = sffs_wbuf_write(io);

			if (err)
				return err;
		}
	}
	return 0;
}

/**
 * sffs_io_append - append a sealed node at the write head
 * @io: I/O state
 * @node: the node
 * @len: its length
 * @addr: where it goes
 *
 * The node must fit in what is left of the head's erase block
 * (sffs_io_room()); the journal moves the head to a new block when not.
 *
 * Return: 0, -EROFS, -ENOSPC if the node does not fit, or -EIO.
 */
int sffs_io_append(struct sffs_io *io, const void *node, u32 len, u64 *addr)
{
	u32 alen = ALIGN(len, SFFS_NODE_ALIGN);
	int err;

	if (io->ro)
		return -EROFS;
	if (alen > sffs_io_room(io))
		return -ENOSPC;
	*addr = sffs_io_head(io);
	err = sffs_wbuf_put(io, node, len);
	if (!err && alen != len)
		err = sffs_wbuf_put(io, NULL, alen - len);
	return err;
}

/**
 * sffs_io_flush - write out the write buffer, padding its last unit
 * @io: I/O state
 *
 * Return: 0 or -EIO.
 */
int sffs_io_flush(struct sffs_io *io)
{
	u32 rem = io->wbuf_used & (io->unit - 1);

	if (!io->wbuf_used)
		return 0;
	if (rem) {
		void *pad = io->wbuf + io->wbuf_used;

		rem = io->unit - rem;
		memset(pad, 0xff, rem);
		if (rem >= sizeof(struct sffs_node_hdr))
			sffs_node_seal(pad, SFFS_NODE_PAD, rem, 0, 0);
		io->wbuf_used += rem;
		io->pad += rem;
	}
	return sffs_wbuf_write(io);
}

/*
 * Make what was written reach the medium: a device that caches writes
 * (block2mtd, a NAND controller with a cache) may hold it otherwise.
 */
void sffs_io_sync(struct sffs_io *io)
{
	mtd_sync(io->mtd);
}

static u32 sffs_slot_units(const struct sffs_io *io)
{
	return 2 * (io->erase_size / io->cp_unit);
}

static u64 sffs_unit_addr(const struct sffs_io *io, unsigned int slot, u32 n)
{
	u32 upb = io->erase_size / io->cp_unit;
	u32 eb = io->anchor_eb[2 * slot + n / upb];

	return sffs_eb_addr(io, eb) + (u64)(n % upb) * io->cp_unit;
}

static int sffs_unit_programmed(struct sffs_io *io, unsigned int slot, u32 n)
{
	__le32 magic;
	int err;

	io->units_read++;
	err = sffs_mtd_read(io, sffs_unit_addr(io, slot, n), &magic,
			    sizeof(magic));
	if (err)
		return err;
	return le32_to_cpu(magic) != 0xffffffff;
}

/* Number of programmed units of @slot: they form a prefix */
static int sffs_slot_used(struct sffs_io *io, unsigned int slot, u32 *used)
{
	u32 lo = 0, hi = sffs_slot_units(io);

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int ret = sffs_unit_programmed(io, slot, mid);

		if (ret < 0)
			return ret;
		if (ret)
			lo = mid + 1;
		else
			hi = mid;
	}
	*used = lo;
	return 0;
}

static bool sffs_cp_valid(struct sffs_io *io, void *buf)
{
	struct sffs_checkpoint_node *cp = buf;

	return !sffs_node_check(buf, io->cp_unit) &&
	       cp->hdr.type == SFFS_NODE_CHECKPOINT;
}

/*
 * The newest valid checkpoint of @slot, at most a few units back from its
 * end: only the last write of a slot can be torn.
 */
static int sffs_slot_newest(struct sffs_io *io, unsigned int slot, void *buf,
			    u32 *used, u64 *commit)
{
	u32 n;
	int err, tries;

	err = sffs_slot_used(io, slot, used);
	if (err)
		return err;
	for (n = *used, tries = 0; n && tries < 4; n--, tries++) {
		io->units_read++;
		err = sffs_mtd_read(io, sffs_unit_addr(io, slot, n - 1), buf,
				    io->cp_unit);
		if (err)
			return err;
		if (sffs_cp_valid(io, buf)) {
			*commit = le64_to_cpu(((struct sffs_checkpoint_node *)
					       buf)->commit);
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The skip list after the checkpoint @buf (SFFS_FEAT_INCOMPAT_SKIP), which
 * the file system's erase block numbers follow from now on
 */
static int sffs_anchor_skip(struct sffs_io *io, const void *buf)
{
	const struct sffs_checkpoint_node *cp = buf;
	const __le32 *raw = buf + sizeof(*cp);
	u32 n = le32_to_cpu(cp->skip_cnt), i;
	u32 *list;
	bool skip = le32_to_cpu(cp->feat_incompat) & SFFS_FEAT_INCOMPAT_SKIP;

	if ((!skip && n) || n > sffs_skip_max(io) ||
	    le32_to_cpu(cp->hdr.len) != sizeof(*cp) + n * sizeof(*raw))
		goto bad;
	if (!n)
		return 0;
	list = kmalloc_array(n, sizeof(*list), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		list[i] = le32_to_cpu(raw[i]);
	if (!sffs_io_set_skip(io, list, n))
		return 0;
bad:
	pr_err("sffs: %s: checkpoint %llu has a bad list of skipped blocks\n",
	       io->mtd->name, le64_to_cpu(cp->commit));
	return -EUCLEAN;
}

/**
 * sffs_anchor_find - find the newest checkpoint
 * @io: I/O state
 * @cp: the checkpoint found
 *
 * A slot that cannot be read is passed over, and rewritten by the next
 * commit (see the top of this file).
 *
 * Also takes the list of skipped blocks it carries: the file system's
 * block numbers are known from then on.
 *
 * Return: 0, -EINVAL if there is no SFFS on the device, -EIO if no slot
 * with a checkpoint could be read, -EUCLEAN for a bad list of skipped
 * blocks, -ENOMEM.
 */
int sffs_anchor_find(struct sffs_io *io, struct sffs_checkpoint_node *cp)
{
	u64 commit[2] = { 0, 0 };
	u32 used[2] = { 0, 0 };
	void *buf[2];
	int err[2], best;
	unsigned int s;

	buf[0] = kvmalloc(io->cp_unit, GFP_KERNEL);
	buf[1] = kvmalloc(io->cp_unit, GFP_KERNEL);
	if (!buf[0] || !buf[1]) {
		err[0] = -ENOMEM;
		goto out;
	}
	io->units_read = 0;
	for (s = 0; s < 2; s++)
		err[s] = sffs_slot_newest(io, s, buf[s], &used[s], &commit[s]);
	if (err[0] && err[1]) {
		if (err[0] == -ENOENT && err[1] == -ENOENT) {
			err[0] = -EINVAL;
		} else {
			pr_err("sffs: %s: no anchor slot with a checkpoint could be read\n",
			       io->mtd->name);
			err[0] = -EIO;
		}
		goto out;
	}
	best = err[0] ? 1 : err[1] ? 0 : commit[1] > commit[0];
	if (err[!best] && err[!best] != -ENOENT) {
		pr_warn("sffs: %s: anchor slot %u cannot be read (%d): mounting the checkpoint of slot %u\n",
			io->mtd->name, !best, err[!best], best);
		io->anchor_rewrite = true;
	}
	memcpy(cp, buf[best], sizeof(*cp));
	io->cp_slot = best;
	io->cp_next = used[best];
	err[0] = sffs_anchor_skip(io, buf[best]);
out:
	kvfree(buf[0]);
	kvfree(buf[1]);
	return err[0];
}

/* Write a checkpoint unit at the end of the current slot, or the other */
static int sffs_anchor_write_unit(struct sffs_io *io, const void *buf)
{
	int err;

	if (io->cp_next >= sffs_slot_units(io) || io->anchor_rewrite) {
		unsigned int other = !io->cp_slot;

		err = sffs_io_erase(io, io->anchor_eb[2 * other]);
		if (!err)
			err = sffs_io_erase(io, io->anchor_eb[2 * other + 1]);
		if (err)
			return err;
		io->cp_slot = other;
		io->cp_next = 0;
		io->anchor_rewrite = false;
	}
	err = sffs_mtd_write(io, sffs_unit_addr(io, io->cp_slot, io->cp_next),
			     buf, io->cp_unit);
	/* A failed write may have programmed the unit: never reuse it */
	io->cp_next++;
	return err;
}

/**
 * sffs_anchor_write - write a checkpoint to the anchor
 * @io: I/O state
 * @cp: the sealed checkpoint; its @skip_cnt and feature flags are those of
 *	@io's list of skipped blocks, which follows it, sealed with it
 *
 * Return: 0, -EROFS, -EIO or -ENOMEM.
 */
int sffs_anchor_write(struct sffs_io *io, struct sffs_checkpoint_node *cp)
{
	void *buf;
	int err;

	if (io->ro)
		return -EROFS;
	buf = kvmalloc(io->cp_unit, GFP_NOFS);
	if (!buf)
		return -ENOMEM;
	/* the commit counted the list it follows (sffs_journal_commit()) */
	if (WARN_ON_ONCE(le32_to_cpu(cp->skip_cnt) != io->nskip)) {
		kvfree(buf);
		return -EINVAL;
	}
	memset(buf, 0xff, io->cp_unit);
	memcpy(buf, cp, sizeof(*cp));
	if (io->nskip) {
		__le32 *raw = buf + sizeof(*cp);
		unsigned int i;

		for (i = 0; i < io->nskip; i++)
			raw[i] = cpu_to_le32(io->skip[i]);
		sffs_node_seal(buf, SFFS_NODE_CHECKPOINT,
			       sizeof(*cp) + io->nskip * sizeof(*raw),
			       le64_to_cpu(cp->hdr.sqnum), 0);
	}
	err = sffs_anchor_write_unit(io, buf);
	/*
	 * The anchor cannot move, but a program failure can be gone round
	 * once: by the other slot, which may be erased while this one has
	 * an older checkpoint before the failed unit.
	 */
	if (err == -EIO && io->write_failed && io->cp_next > 1) {
		pr_warn("sffs: %s: checkpoint write failed in anchor slot %u: going on in the other slot\n",
			io->mtd->name, io->cp_slot);
		io->write_failed = false;
		io->cp_next = sffs_slot_units(io);
		err = sffs_anchor_write_unit(io, buf);
	}
	kvfree(buf);
	return err;
}
