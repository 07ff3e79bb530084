/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS flash I/O: MTD access, the write buffer, the anchor.
 */
#ifndef __SFFS_IO_H__
#define __SFFS_IO_H__

#include <linux/types.h>
#include "node.h"

struct mtd_info;

#define SFFS_MAX_SCRUB	8	/* blocks waiting to be scrubbed */
#define SFFS_MAX_RETIRE	4	/* blocks waiting to be retired */

/**
 * struct sffs_io - an MTD device as SFFS uses it
 * @mtd: the device
 * @erase_size: erase block size
 * @write_size: NAND page size, or 1 on NOR
 * @unit: smallest write SFFS does: max(@write_size, SFFS_NODE_ALIGN)
 * @cp_unit: size of a checkpoint unit in the anchor
 * @eb_count: erase blocks of the file system, as many as the device has;
 *	      the last @nskip are past its end (sffs_io_is_bad())
 * @peb_count: erase blocks of the device
 * @skip: bad blocks of the device that the file system's block numbers
 *	  pass over, ascending (see SFFS_FEAT_INCOMPAT_PLACE); NULL if none
 * @nskip: entries in @skip
 * @anchor_eb: the anchor blocks, slot 0 then slot 1
 * @cp_slot: anchor slot of the newest checkpoint
 * @cp_next: unit of @cp_slot the next checkpoint goes to
 * @anchor_rewrite: a read of the anchor needed ECC correction or failed:
 *		    the next checkpoint goes to the other slot, erased
 * @ro: read-only: every write fails with -EROFS
 * @wbuf: write buffer, @wbuf_size bytes
 * @wbuf_size: a multiple of @unit
 * @wbuf_addr: flash address of @wbuf[0], a multiple of @unit
 * @wbuf_used: bytes in @wbuf
 * @head_end: end of the erase block the write head is in
 * @pad: bytes of padding written to flush partial units
 * @units_read: checkpoint units read by the last anchor search
 * @scrub: erase blocks where reads needed ECC to correct bitflips: their
 *	   data is to be rewritten elsewhere before the bits rot further
 * @nscrub: entries in @scrub
 * @bitflips: reads that needed ECC correction
 * @read_errors: reads ECC could not correct
 * @bytes_written: bytes programmed, padding included
 * @write_failed: the last write to the flash failed: the write buffer
 *		  still holds what it was to program
 * @write_errors: writes the flash refused (program failures)
 * @retire: erase blocks a program failed in: once garbage collection has
 *	    moved their data, they are marked bad; also in @scrub
 * @nretire: entries in @retire
 */
struct sffs_io {
	struct mtd_info *mtd;
	u32 erase_size;
	u32 write_size;
	u32 unit;
	u32 cp_unit;
	u32 eb_count;
	u32 peb_count;
	u32 *skip;
	unsigned int nskip;
	u32 anchor_eb[SFFS_ANCHOR_BLOCKS];
	unsigned int cp_slot;
	u32 cp_next;
	bool anchor_rewrite;
	bool ro;
	u8 *wbuf;
	u32 wbuf_size;
	u64 wbuf_addr;
	u32 wbuf_used;
	u64 head_end;
	u64 pad;
	unsigned int units_read;
	u32 scrub[SFFS_MAX_SCRUB];
	unsigned int nscrub;
	unsigned long bitflips;
	unsigned long read_errors;
	u64 bytes_written;
	bool write_failed;
	unsigned long write_errors;
	u32 retire[SFFS_MAX_RETIRE];
	unsigned int nretire;
};

static inline u64 sffs_eb_addr(const struct sffs_io *io, u32 eb)
{
	return (u64)eb * io->erase_size;
}

static inline u32 sffs_addr_eb(const struct sffs_io *io, u64 addr)
{
	return div_u64(addr, io->erase_size);
}

/* Address the next node goes to */
static inline u64 sffs_io_head(const struct sffs_io *io)
{
	return io->wbuf_addr + io->wbuf_used;
}

/* Bytes left in the erase block of the write head */
static inline u32 sffs_io_room(const struct sffs_io *io)
{
	return io->head_end - sffs_io_head(io);
}

int sffs_io_init(struct sffs_io *io, struct mtd_info *mtd, bool ro);
void sffs_io_destroy(struct sffs_io *io);
bool sffs_io_is_bad(struct sffs_io *io, u32 eb);
bool sffs_io_is_anchor(const struct sffs_io *io, u32 eb);
int sffs_io_read(struct sffs_io *io, u64 addr, void *buf, size_t len);
int sffs_io_read_node(struct sffs_io *io, u64 addr, u32 len, void *buf,
		      int type);
int sffs_io_erase(struct sffs_io *io, u32 eb);
void sffs_io_scrub_del(struct sffs_io *io, u32 eb);
bool sffs_io_retire(struct sffs_io *io, u32 eb);
bool sffs_io_retiring(const struct sffs_io *io, u32 eb);
void sffs_io_retired(struct sffs_io *io, u32 eb);
void sffs_io_drop_wbuf(struct sffs_io *io);
void sffs_io_markbad(struct sffs_io *io, u32 eb);
void sffs_io_set_head(struct sffs_io *io, u64 addr);
int sffs_io_append(struct sffs_io *io, const void *node, u32 len, u64 *addr);
int sffs_io_flush(struct sffs_io *io);
void sffs_io_sync(struct sffs_io *io);
int sffs_io_place(struct sffs_io *io, u32 blocks);
int sffs_anchor_find(struct sffs_io *io, struct sffs_checkpoint_node *cp);
int sffs_anchor_write(struct sffs_io *io, struct sffs_checkpoint_node *cp);

#endif /* __SFFS_IO_H__ */
