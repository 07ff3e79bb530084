/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS on-flash format (draft, see design/sffs.rst).
 *
 * Everything SFFS writes to flash is a node: a 32-byte header followed by a
 * payload.  All fields are little endian; node addresses are byte offsets on
 * the MTD device, 8-byte aligned.  Nothing in RAM mirrors the whole flash:
 * erase-block records and index nodes are read on demand through the index.
 *
 * This file is the single source of truth for the format.  Every structure
 * has a static_assert on its size; a change here is a format change and
 * needs a feature flag (see SFFS_FEAT_*).
 */
#ifndef __SFFS_MEDIA_H__
#define __SFFS_MEDIA_H__

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#define SFFS_NODE_MAGIC		0x53464653	/* "SFFS" */
#define SFFS_FORMAT_VERSION	1

/* Node alignment and limits */
#define SFFS_NODE_ALIGN		8
#define SFFS_BLOCK_SHIFT	12		/* file data block: 4 KiB */
#define SFFS_BLOCK_SIZE		BIT(SFFS_BLOCK_SHIFT)
#define SFFS_MAX_NAME_LEN	255
#define SFFS_MAX_XATTR_VALUE	(SFFS_BLOCK_SIZE - 512)
#define SFFS_ANCHOR_SLOTS	2		/* two slots of two blocks */
#define SFFS_ANCHOR_BLOCKS	4
#define SFFS_ANCHOR_SEARCH	16		/* anchors are in the first 16 */
#define SFFS_MAX_JOURNAL_BLOCKS	64

/* Reserved inode numbers */
#define SFFS_META_INO		1	/* erase-block table pages */
#define SFFS_ROOT_INO		2
#define SFFS_FIRST_INO		16

enum sffs_node_type {
	SFFS_NODE_PAD		= 0,	/* filler to the end of a page */
	SFFS_NODE_CHECKPOINT	= 1,	/* anchor page: superblock + commit */
	SFFS_NODE_INODE		= 2,
	SFFS_NODE_DATA		= 3,	/* one file block */
	SFFS_NODE_DENTRY	= 4,
	SFFS_NODE_XATTR		= 5,
	SFFS_NODE_TRUNC		= 6,	/* journal-only: a truncation */
	SFFS_NODE_ORPHAN	= 7,	/* unlinked but still open inodes */
	SFFS_NODE_INDEX		= 8,	/* B+tree node */
	SFFS_NODE_EBT		= 9,	/* erase-block table page */
	SFFS_NODE_TYPES
};

/**
 * struct sffs_node_hdr - header of every node
 * @magic: %SFFS_NODE_MAGIC
 * @hdr_crc: crc32c of bytes 8..31 of this header
 * @sqnum: 64-bit sequence number, unique and increasing over the life of
 *	   the file system; orders two versions of one key during replay
 * @len: length of the whole node, header included, not padded
 * @data_crc: crc32c of the payload (bytes 32..@len-1)
 * @type: &enum sffs_node_type
 * @flags: per-type flags
 * @reserved: zero
 *
 * Two checksums, so that a torn write is told from a node whose header
 * survived: replay trusts @len only once @hdr_crc matched.
 */
struct sffs_node_hdr {
	__le32 magic;
	__le32 hdr_crc;
	__le64 sqnum;
	__le32 len;
	__le32 data_crc;
	__u8 type;
	__u8 flags;
	__le16 reserved[3];
} __packed;
static_assert(sizeof(struct sffs_node_hdr) == 32);

/*
 * Keys.  All keys of an inode sort together: (ino, type, value).  The type
 * takes the top 4 bits of @tv, the value the low 60: a block number for
 * data, a name hash plus collision counter for dentries and xattrs.
 */
enum sffs_key_type {
	SFFS_KEY_INODE	= 0,
	SFFS_KEY_DATA	= 1,
	SFFS_KEY_DENTRY	= 2,
	SFFS_KEY_XATTR	= 3,
	SFFS_KEY_EBT	= 4,	/* SFFS_META_INO only: table page number */
};

#define SFFS_KEY_TYPE_SHIFT	60
#define SFFS_KEY_VALUE_MASK	((1ULL << SFFS_KEY_TYPE_SHIFT) - 1)

struct sffs_key {
	__le64 ino;
	__le64 tv;
} __packed;
static_assert(sizeof(struct sffs_key) == 16);

struct sffs_timestamp {
	__le64 sec;
	__le32 nsec;
	__le32 reserved;
} __packed;
static_assert(sizeof(struct sffs_timestamp) == 16);

/* Compression of data nodes */
enum sffs_compr {
	SFFS_COMPR_NONE	= 0,
	SFFS_COMPR_LZO	= 1,
	SFFS_COMPR_ZSTD	= 2,
	SFFS_COMPR_TYPES
};

/**
 * struct sffs_inode_node - an inode
 * @key: (ino, %SFFS_KEY_INODE, 0)
 * @size: file size in bytes
 * @atime, @mtime, @ctime: timestamps
 * @uid, @gid, @mode, @nlink: as in struct inode
 * @flags: inode flags (FS_*_FL subset) and the compression default
 * @rdev: device number of a device node (new_encode_dev)
 * @xattr_cnt, @xattr_size: number and total size of extended attributes
 * @data_len: length of @data: a symlink target, or 0
 * @compr: &enum sffs_compr for new data of this file
 */
struct sffs_inode_node {
	struct sffs_node_hdr hdr;
	struct sffs_key key;
	__le64 size;
	struct sffs_timestamp atime;
	struct sffs_timestamp mtime;
	struct sffs_timestamp ctime;
	__le32 uid;
	__le32 gid;
	__le32 mode;
	__le32 nlink;
	__le32 flags;
	__le32 rdev;
	__le32 xattr_cnt;
	__le32 xattr_size;
	__le16 data_len;
	__u8 compr;
	__u8 reserved[13];
	__u8 data[];
} __packed;
static_assert(sizeof(struct sffs_inode_node) == 152);

/**
 * struct sffs_data_node - one block of a file
 * @key: (ino, %SFFS_KEY_DATA, block number)
 * @size: uncompressed length (up to %SFFS_BLOCK_SIZE; less at EOF)
 * @compr: &enum sffs_compr of @data; NONE when compression did not help
 * @data: the (compressed) bytes; hdr.len - sizeof(this) of them
 */
struct sffs_data_node {
	struct sffs_node_hdr hdr;
	struct sffs_key key;
	__le32 size;
	__u8 compr;
	__u8 reserved[3];
	__u8 data[];
} __packed;
static_assert(sizeof(struct sffs_data_node) == 56);

/**
 * struct sffs_dentry_node - a directory entry, or its deletion
 * @key: (parent ino, %SFFS_KEY_DENTRY, name hash << 8 | collision index)
 * @target: inode number the entry points to; 0 marks a deletion
 * @type: DT_* type of the target
 * @name_len: length of @name, without a terminating NUL
 * @name: the name, followed by a NUL
 */
struct sffs_dentry_node {
	struct sffs_node_hdr hdr;
	struct sffs_key key;
	__le64 target;
	__u8 type;
	__u8 reserved;
	__le16 name_len;
	__u8 reserved2[4];
	__u8 name[];
} __packed;
static_assert(sizeof(struct sffs_dentry_node) == 64);

/**
 * struct sffs_xattr_node - an extended attribute, or its deletion
 * @key: (ino, %SFFS_KEY_XATTR, name hash << 8 | collision index)
 * @name_len: length of the name (namespace prefix included)
 * @value_len: length of the value; the node with hdr.flags bit 0 set
 *	       deletes the attribute
 * @data: name, NUL, value
 */
struct sffs_xattr_node {
	struct sffs_node_hdr hdr;
	struct sffs_key key;
	__le16 name_len;
	__le16 value_len;
	__u8 reserved[4];
	__u8 data[];
} __packed;
static_assert(sizeof(struct sffs_xattr_node) == 56);

/* A truncation, so replay can drop data beyond @new_size */
struct sffs_trunc_node {
	struct sffs_node_hdr hdr;
	__le64 ino;
	__le64 old_size;
	__le64 new_size;
} __packed;
static_assert(sizeof(struct sffs_trunc_node) == 56);

/**
 * struct sffs_branch - one entry of an index node
 * @key: smallest key below this branch (level > 0) or the key (level 0)
 * @addr: flash address of the child index node or of the leaf node
 * @len: length of the node at @addr
 * @reserved: zero
 */
struct sffs_branch {
	struct sffs_key key;
	__le64 addr;
	__le32 len;
	__le32 reserved;
} __packed;
static_assert(sizeof(struct sffs_branch) == 32);

/**
 * struct sffs_index_node - a B+tree node, one write unit at most
 * @level: 0 for nodes whose branches point at leaf nodes
 * @count: number of branches
 */
struct sffs_index_node {
	struct sffs_node_hdr hdr;
	__le16 level;
	__le16 count;
	__u8 reserved[4];
	struct sffs_branch branch[];
} __packed;
static_assert(sizeof(struct sffs_index_node) == 40);

/* Erase-block states in the table */
enum sffs_eb_state {
	SFFS_EB_FREE	= 0,	/* erased (or to be erased), unused */
	SFFS_EB_JOURNAL	= 1,	/* reserved for or written by the journal */
	SFFS_EB_MAIN	= 2,	/* committed nodes */
	SFFS_EB_ANCHOR	= 3,
	SFFS_EB_BAD	= 4,
	SFFS_EB_SCRUB	= 5,	/* correctable errors seen: move and erase */
};

/**
 * struct sffs_eb_rec - what SFFS knows of one erase block
 * @ec: erase count
 * @state: &enum sffs_eb_state
 * @flags: zero for now
 * @live: bytes of live nodes in the block
 * @age: commit number of the newest node in the block (GC cost-benefit)
 */
struct sffs_eb_rec {
	__le32 ec;
	__u8 state;
	__u8 flags;
	__le16 reserved;
	__le32 live;
	__le32 age;
} __packed;
static_assert(sizeof(struct sffs_eb_rec) == 16);

/**
 * struct sffs_ebt_node - a page of the erase-block table
 * @first: number of the first erase block described
 * @count: number of records
 */
struct sffs_ebt_node {
	struct sffs_node_hdr hdr;
	__le32 first;
	__le32 count;
	struct sffs_eb_rec rec[];
} __packed;
static_assert(sizeof(struct sffs_ebt_node) == 40);

/*
 * Feature flags: an unknown incompat flag refuses the mount, an unknown
 * ro_compat flag allows only a read-only mount.
 */
#define SFFS_FEAT_COMPAT_NONE		0
#define SFFS_FEAT_RO_COMPAT_NONE	0
#define SFFS_FEAT_INCOMPAT_NONE		0

/**
 * struct sffs_checkpoint_node - superblock and commit record
 *
 * One per programmed page of the anchor blocks.  The superblock part is
 * repeated in each so that any valid page mounts the file system.
 */
struct sffs_checkpoint_node {
	struct sffs_node_hdr hdr;
	/* superblock: fixed at mkfs time */
	__le16 version;
	__le16 reserved0;
	__le32 feat_compat;
	__le32 feat_ro_compat;
	__le32 feat_incompat;
	__u8 uuid[16];
	__le32 erase_size;
	__le32 write_size;
	__le32 eb_count;
	__le32 anchor_eb[SFFS_ANCHOR_BLOCKS];
	__le32 reserved2;
	__le64 mkfs_time;
	__u8 default_compr;
	__u8 reserved1[7];
	/* commit record */
	__le64 commit;
	__le64 max_sqnum;
	__le64 next_ino;
	__le64 index_root;
	__le32 index_root_len;
	__le16 index_height;
	__le16 journal_cnt;
	__le64 orphan_head;
	__le64 free_bytes;
	__le64 dirty_bytes;
	__le64 used_bytes;
	__le32 journal_eb[SFFS_MAX_JOURNAL_BLOCKS];
} __packed;
static_assert(sizeof(struct sffs_checkpoint_node) == 440);

#endif /* __SFFS_MEDIA_H__ */
