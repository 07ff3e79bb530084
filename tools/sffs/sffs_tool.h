/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the SFFS tools share: checksums, node sealing and checking,
 * access to an MTD device or an image file, and the leaves of the index
 * with the journal applied to them, as a mount sees them.
 */
#ifndef SFFS_TOOL_H
#define SFFS_TOOL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/compiler.h>		/* tools/include: __packed, __printf */
#include "sffs-media.h"

#define ALIGN8(x)	(((x) + 7) & ~(uint64_t)7)

struct sffs_dev {
	int fd;
	bool is_mtd;
	uint32_t erase_size;
	uint32_t write_size;
	uint32_t eb_count;
	uint64_t size;
	uint8_t *bad;		/* one byte per erase block */
	uint8_t *image;		/* image mode: the whole device in RAM */
	uint32_t anchor[SFFS_ANCHOR_BLOCKS];
	/*
	 * Bad blocks of the device the file system's block numbers pass
	 * over (SFFS_FEAT_INCOMPAT_SKIP), ascending; set by
	 * sffs_find_checkpoint().  Addresses, @bad and @anchor are the file
	 * system's from then on.
	 */
	uint32_t *skip;
	unsigned int nskip;
	bool placed;		/* @skip is known */
};

uint32_t sffs_crc(const void *buf, size_t len);
void sffs_seal(void *node, unsigned int type, uint32_t len, uint64_t sqnum,
	       unsigned int flags);
int sffs_check(const void *node, size_t avail);
int sffs_dev_open(struct sffs_dev *d, const char *path, bool write,
		  uint32_t erase_size, uint32_t write_size, uint64_t size);
int sffs_dev_close(struct sffs_dev *d, const char *path);
int sffs_dev_read(struct sffs_dev *d, uint64_t addr, void *buf, size_t len);
int sffs_dev_write(struct sffs_dev *d, uint64_t addr, const void *buf,
		   size_t len);
int sffs_dev_erase(struct sffs_dev *d, uint32_t eb);
int sffs_find_anchor(struct sffs_dev *d);
int sffs_find_checkpoint(struct sffs_dev *d, struct sffs_checkpoint_node *cp,
			 unsigned int *reads, unsigned int *slot, uint32_t *next);
int sffs_write_checkpoint(struct sffs_dev *d,
			  const struct sffs_checkpoint_node *cp,
			  unsigned int slot, uint32_t next);
uint32_t sffs_node_min_len(unsigned int type);
int sffs_node_check_payload(const void *node, uint32_t len);
struct sffs_branch *sffs_index_branches(const struct sffs_index_node *ix,
					uint32_t len);
struct sffs_eb_rec *sffs_ebt_records(const struct sffs_ebt_node *t,
				     uint32_t len);
uint64_t sffs_orphan_ino(const void *node, uint32_t len);
uint64_t sffs_parse_size(const char *s);

/* A leaf of the index: a key and where its node is */
struct sffs_leaf {
	uint64_t ino, tv, addr;
	uint32_t len;
};

/* Leaves in key order */
struct sffs_leaves {
	struct sffs_leaf *v;
	size_t n, cap;
};

static inline uint64_t sffs_tv(unsigned int type, uint64_t value)
{
	return (uint64_t)type << SFFS_KEY_TYPE_SHIFT | value;
}

int sffs_leaves_room(struct sffs_leaves *l);
size_t sffs_leaf_pos(const struct sffs_leaves *l, uint64_t ino, uint64_t tv);
bool sffs_leaf_has(const struct sffs_leaves *l, uint64_t ino, uint64_t tv);
int sffs_leaf_set(struct sffs_leaves *l, uint64_t ino, uint64_t tv,
		  uint64_t addr, uint32_t len);

/* What sffs_replay_journal() found */
struct sffs_replay {
	unsigned int nodes;	/* nodes applied */
	unsigned int blocks;	/* erase blocks read */
	bool torn;		/* the last write was cut short */
	uint64_t next_ino;	/* next_ino as the replay leaves it */
};

int sffs_replay_journal(struct sffs_dev *d,
			const struct sffs_checkpoint_node *cp,
			struct sffs_leaves *l, struct sffs_replay *r);

#endif
