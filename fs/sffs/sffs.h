/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS: the VFS side.  Shared by compr.c, inode.c, xattr.c, file.c, dir.c,
 * debug.c, sysfs.c and super.c, the top layer; the layers below have their
 * own headers (journal.h, index.h, io.h, node.h) and never include this
 * one.
 */
#ifndef __SFFS_H__
#define __SFFS_H__

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/lzo.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/shrinker.h>
#include "journal.h"

#define SFFS_SUPER_MAGIC	0x53464653
/* Largest data node: a block that did not compress */
#define SFFS_MAX_DATA_LEAF_LEN	(sizeof(struct sffs_data_node) + SFFS_BLOCK_SIZE)
/* Largest leaf node: an inode with the longest symlink target */
#define SFFS_MAX_LEAF_LEN	(sizeof(struct sffs_inode_node) + \
				 SFFS_MAX_SYMLINK_LEN)
static_assert(SFFS_MAX_DATA_LEAF_LEN <= SFFS_MAX_LEAF_LEN);
static_assert(sizeof(struct sffs_xattr_node) + SFFS_MAX_XATTR_NAME +
	      SFFS_MAX_XATTR_VALUE <= SFFS_MAX_LEAF_LEN);
/*
 * Data that does not compress is tried less often: after
 * SFFS_COMPR_MISSES blocks of a file in a row stored raw, only the blocks
 * whose index is a multiple of SFFS_COMPR_PROBE are tried, until one
 * compresses again.
 */
#define SFFS_COMPR_MISSES	4
#define SFFS_COMPR_PROBE	16

/* Flash a dirty page may need when written back */
#define SFFS_PAGE_BUDGET	ALIGN(SFFS_MAX_DATA_LEAF_LEN, SFFS_NODE_ALIGN)

struct crypto_comp;

/**
 * struct sffs_info - a mounted SFFS
 * @sb: the super block
 * @mutex: serialises the journal, the index and flash I/O; taken with
 *	   sffs_lock()
 * @nofs: memalloc_nofs_save() of the task holding @mutex
 * @io: flash I/O
 * @j: the journal and the index
 * @rbuf: a leaf node read from flash, under @mutex
 * @xbuf: an xattr node read from flash, under @mutex
 * @dbuf: a data node being written, under @mutex
 * @cbuf: compression output, under @mutex
 * @tfm: compressors by &enum sffs_compr, allocated on first use by sffs_tfm()
 * @compr: compression of new files (mount option compr=)
 * @jmax: journal size in erase blocks (mount option journal=)
 * @budget: flash promised to dirty pages not yet written, under @mutex
 * @need_restart: replay ran read-only; a remount rw must commit it
 * @shrinker: frees clean index nodes
 * @mount_ns: time the last mount took
 * @mount_phase_ns: when, in the last mount, the flash was set up, the
 *		    journal mounted and the root inode read
 * @orphans: orphan inodes the mounts deleted
 * @compr_tried: data blocks a compressor was run on
 * @compr_skipped: data blocks stored raw without trying, the file's last
 *		   blocks having not compressed
 * @debugfs: the debugfs directory of this mount
 * @kobj: /sys/fs/sffs/mtdN/
 * @kobj_gone: @kobj released
 * @kobj_added: @kobj is in sysfs
 */
struct sffs_info {
	struct super_block *sb;
	struct mutex mutex;	/* see above */
	unsigned int nofs;
	struct sffs_io io;
	struct sffs_journal j;
	void *rbuf;
	struct sffs_xattr_node *xbuf;
	void *dbuf;
	void *cbuf;
	struct crypto_comp *tfm[SFFS_COMPR_TYPES];
	unsigned int compr;
	unsigned int jmax;
	u64 budget;
	bool need_restart;
	struct shrinker shrinker;
	u64 mount_ns;
	u64 mount_phase_ns[3];
	unsigned long orphans;
	unsigned long compr_tried;
	unsigned long compr_skipped;
	struct dentry *debugfs;
	struct kobject kobj;
	struct completion kobj_gone;
	bool kobj_added;
};

/*
 * Page reclaim takes @c->mutex: kswapd writes dirty pages through
 * ->writepage, and direct reclaim may wait for the writeback of a page
 * whose ->writepage waits for the mutex.  So nothing done under it may
 * recurse into file system reclaim: sffs_lock() makes every allocation
 * of the task GFP_NOFS until sffs_unlock(), those of the VFS made under
 * it included (Documentation/core-api/gfp_mask-from-fs-io.rst).  Other
 * tasks are not covered: nothing under the mutex may wait for one that
 * allocates freely, which is why compressors are allocated without it
 * (sffs_tfm()).  The flags saved live in @c, which only the holder of
 * the mutex touches.
 */
static inline void sffs_lock(struct sffs_info *c)
{
	mutex_lock(&c->mutex);
	c->nofs = memalloc_nofs_save();
}

static inline void sffs_unlock(struct sffs_info *c)
{
	memalloc_nofs_restore(c->nofs);
	mutex_unlock(&c->mutex);
}

/**
 * struct sffs_inode - an SFFS inode in RAM
 * @vfs_inode: the VFS inode
 * @compr: compression of this file's new data
 * @compr_misses: blocks in a row that did not compress, up to
 *		  %SFFS_COMPR_MISSES; RAM only
 * @flags: on-flash inode flags
 * @xattr_cnt: number of extended attributes
 * @xattr_size: bytes of their names and values
 * @state: SFFS_I_* bits, RAM only
 */
struct sffs_inode {
	struct inode vfs_inode;
	loff_t flash_size;	/* the size the last inode node journaled */
	u8 compr;
	u8 compr_misses;
	u32 flags;
	u32 xattr_cnt;
	u32 xattr_size;
	unsigned long state;
};

/* bits of sffs_inode.state */
enum {
	SFFS_I_NO_STALE,	/* no data on the flash past flash_size */
	SFFS_I_REWRITE,		/* emptied by a truncation: flush at close */
};

static inline struct sffs_info *SFFS_SB(const struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct sffs_inode *SFFS_I(const struct inode *inode)
{
	return container_of(inode, struct sffs_inode, vfs_inode);
}

/* compr.c */
/* Room for what a block compresses to, and for LZO's worst case */
#define SFFS_CBUF_SIZE	(lzo1x_worst_compress(SFFS_BLOCK_SIZE) + 64)

int sffs_compr_init(struct sffs_info *c);
struct crypto_comp *sffs_tfm(struct sffs_info *c, unsigned int type);
struct crypto_comp *sffs_tfm_ready(struct sffs_info *c, unsigned int type);
void sffs_compr_exit(struct sffs_info *c);

/* The largest directory entry and extended attribute nodes */
#define SFFS_DENTRY_MAX_LEN	(sizeof(struct sffs_dentry_node) + \
				 SFFS_MAX_NAME_LEN)
#define SFFS_XATTR_MAX_LEN	(sizeof(struct sffs_xattr_node) + \
				 SFFS_MAX_XATTR_NAME + SFFS_MAX_XATTR_VALUE)

/**
 * struct sffs_name_slot - where sffs_find_name() found a name, or can put it
 * @key: the key of the node found, or the free key a new node can take
 * @found: the name exists
 * @free_coll: without @found, the collision index of @key; ~0 if none is free
 */
struct sffs_name_slot {
	struct sffs_ckey key;
	bool found;
	u32 free_coll;
};

/* inode.c */
int sffs_fill_inode(struct inode *inode, const struct sffs_inode_node *in);
struct inode *sffs_new_inode(struct inode *dir, umode_t mode);
void sffs_new_inode_done(struct inode *inode);
loff_t sffs_claim_size(struct inode *inode, pgoff_t except);
int sffs_inode_node_size(struct inode *inode, struct sffs_wnode *wn,
			 loff_t size);
int sffs_inode_node(struct inode *inode, struct sffs_wnode *wn);
void sffs_inode_journaled(struct inode *inode, const struct sffs_wnode *wn);
bool sffs_size_behind(struct inode *inode);
int sffs_orphan_node(struct inode *inode, struct sffs_wnode *wn);
void sffs_orphans_finish(struct sffs_info *c);
int sffs_write_inode_now(struct inode *inode);
int sffs_write_inode(struct inode *inode, struct writeback_control *wbc);
void sffs_evict_inode(struct inode *inode);
int sffs_read_leaf(struct sffs_info *c, const struct sffs_ckey *key, int type,
		   void *buf);
int sffs_space(struct sffs_info *c, u64 bytes, bool deleting);
int sffs_feature_incompat(struct sffs_info *c, u32 feat);
int sffs_find_name(struct sffs_info *c, u64 ino, unsigned int type,
		   const char *name, u32 len, void *buf,
		   struct sffs_name_slot *slot);

/* xattr.c */
extern const struct xattr_handler *sffs_xattr_handlers[];
ssize_t sffs_listxattr(struct dentry *dentry, char *buffer, size_t size);

/* file.c */
extern const struct file_operations sffs_file_operations;
extern const struct address_space_operations sffs_aops;
extern const struct inode_operations sffs_file_inode_operations;
extern const struct inode_operations sffs_symlink_inode_operations;
extern const struct inode_operations sffs_special_inode_operations;
int sffs_truncate_journal(struct inode *inode, loff_t cut, loff_t old);
int sffs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr);

/* dir.c */
extern const struct inode_operations sffs_dir_inode_operations;
extern const struct file_operations sffs_dir_operations;
struct inode *sffs_iget(struct super_block *sb, u64 ino);

/* debug.c */
void sffs_debugfs_init(struct sffs_info *c);
void sffs_debugfs_exit(struct sffs_info *c);
void sffs_debugfs_register(void);
void sffs_debugfs_unregister(void);

/* sysfs.c */
void sffs_sysfs_add(struct sffs_info *c);
void sffs_sysfs_del(struct sffs_info *c);
int sffs_sysfs_init(void);
void sffs_sysfs_exit(void);

/* super.c */
unsigned int sffs_default_journal(const struct sffs_io *io);
extern struct file_system_type sffs_fs_type;

#endif /* __SFFS_H__ */
