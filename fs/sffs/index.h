/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS index: a B+tree from keys to the flash address of leaf nodes.
 */
#ifndef __SFFS_INDEX_H__
#define __SFFS_INDEX_H__

#include <linux/types.h>
#include "node.h"

struct sffs_znode;

/**
 * struct sffs_index_ops - how the index reaches the flash
 * @read: read the index node at @addr, @len bytes, into @buf and check it
 * @write: append the sealed-to-be index node @buf of @len bytes to the log,
 *	   sealing it, and return its address in @addr
 * @obsolete: @len bytes at @addr no longer hold live data (accounting)
 *
 * The index does not do I/O itself: the log layer above owns the write
 * head, and the KUnit tests put the "flash" in RAM.
 */
struct sffs_index_ops {
	int (*read)(void *priv, u64 addr, u32 len, void *buf);
	int (*write)(void *priv, void *buf, u32 len, u64 *addr);
	void (*obsolete)(void *priv, u64 addr, u32 len);
};

/**
 * struct sffs_index - the in-RAM part of the index
 * @ops: flash access
 * @priv: argument of @ops
 * @root: root znode, always in RAM
 * @fanout: maximum branches per znode
 * @height: levels of the tree
 * @nr_znodes: znodes in RAM
 * @nr_dirty: znodes changed since the last commit
 * @max_clean: clean znodes kept cached; more are freed after each call
 * @buf: one index node, for reading and writing
 * @packed: index nodes and table pages may be packed
 *	    (%SFFS_FEAT_INCOMPAT_PACKED): read both forms, write packed ones
 * @write_plain: write plain ones all the same (tests)
 *
 * Callers serialise every call on one index (SFFS holds its fs mutex).
 */
struct sffs_index {
	const struct sffs_index_ops *ops;
	void *priv;
	struct sffs_znode *root;
	unsigned int fanout;
	unsigned int height;
	unsigned long nr_znodes;
	unsigned long nr_dirty;
	unsigned long max_clean;
	void *buf;
	bool packed;
	bool write_plain;
};

/* A branch as the index hands it out: where a leaf node is on flash */
struct sffs_zref {
	struct sffs_ckey key;
	u64 addr;
	u32 len;
};

int sffs_index_init(struct sffs_index *idx, const struct sffs_index_ops *ops,
		    void *priv, unsigned int fanout);
int sffs_index_load(struct sffs_index *idx, u64 root, u32 len,
		    unsigned int height);
void sffs_index_destroy(struct sffs_index *idx);
int sffs_index_lookup(struct sffs_index *idx, const struct sffs_ckey *key,
		      struct sffs_zref *ref);
int sffs_index_next(struct sffs_index *idx, const struct sffs_ckey *from,
		    struct sffs_zref *ref);
int sffs_index_insert(struct sffs_index *idx, const struct sffs_zref *ref);
int sffs_index_remove(struct sffs_index *idx, const struct sffs_ckey *key);
int sffs_index_remove_range(struct sffs_index *idx,
			    const struct sffs_ckey *from,
			    const struct sffs_ckey *to);
int sffs_index_dirty_node(struct sffs_index *idx, u64 addr,
			  unsigned int level, const struct sffs_ckey *key);
int sffs_index_commit(struct sffs_index *idx, u64 *root, u32 *len);
unsigned long sffs_index_shrink(struct sffs_index *idx, unsigned long nr);
size_t sffs_index_node_size(unsigned int fanout);
struct sffs_ckey sffs_index_first_key(const struct sffs_index_node *ix);
size_t sffs_index_znode_size(unsigned int fanout);

#endif /* __SFFS_INDEX_H__ */
