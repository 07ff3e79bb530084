/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS journal: appending changes, committing the index, replay.
 */
#ifndef __SFFS_JOURNAL_H__
#define __SFFS_JOURNAL_H__

#include <linux/types.h>
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

#define SFFS_TRUNC_FL_DELETE	0x01	/* trunc node: drop the inode */
#define SFFS_MAX_GROUP		8

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
 * @used: bytes of live nodes
 * @max_dirty: commit when more znodes than this are dirty
 * @in_commit: a commit is writing the index
 * @replayed: nodes found by replay at mount
 * @commits: commits since mount
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
	u64 used;
	unsigned long max_dirty;
	bool in_commit;
	unsigned long replayed;
	unsigned long commits;
};

int sffs_journal_mount(struct sffs_journal *j, struct sffs_io *io,
		       unsigned int jmax);
void sffs_journal_unmount(struct sffs_journal *j);
int sffs_journal_write(struct sffs_journal *j, struct sffs_wnode *wn, int n);
int sffs_journal_sync(struct sffs_journal *j);
int sffs_journal_commit(struct sffs_journal *j);
u64 sffs_journal_reserve(const struct sffs_journal *j);
int sffs_journal_apply(struct sffs_journal *j, const void *node, u64 addr);
int sffs_journal_replay(struct sffs_journal *j);
int sffs_journal_restart(struct sffs_journal *j, unsigned int last);
int sffs_journal_format(struct sffs_journal *j, struct sffs_io *io,
			unsigned int compr);

#endif /* __SFFS_JOURNAL_H__ */
