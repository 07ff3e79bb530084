/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS on-flash format, version 1.
 *
 * Everything SFFS writes to flash is a node: a 32-byte header followed by a
 * payload.  All fields are little endian.  A flash *address* is a 64-bit
 * byte offset on the MTD device; nodes start at 8-byte aligned addresses
 * and never cross an erase block boundary.
 *
 * This header is shared with the user-space tools in tools/sffs/, so it
 * uses only <linux/types.h> types.  It is the single source of truth for
 * the format, described field by field in
 * Documentation/filesystems/sffs.rst.  Every structure has a static_assert
 * on its size; a change here is a format change and needs a feature flag.
 */
#ifndef __SFFS_MEDIA_H__
#define __SFFS_MEDIA_H__

/* in user space, from tools/include */
#include <linux/build_bug.h>
#include <linux/types.h>

#define SFFS_NODE_MAGIC		0x53464653	/* "SFFS" read as LE bytes */
#define SFFS_FORMAT_VERSION	1

/* Checksums: crc32c (Castagnoli), seed 0xffffffff, no final inversion */
#define SFFS_CRC_SEED		0xffffffffU

#define SFFS_NODE_ALIGN		8
#define SFFS_BLOCK_SHIFT	12		/* file data block: 4 KiB */
#define SFFS_BLOCK_SIZE		4096U		/* 1 << SFFS_BLOCK_SHIFT */
#define SFFS_MAX_NAME_LEN	255
#define SFFS_MAX_SYMLINK_LEN	4095		/* PATH_MAX - 1 */
/* Longer targets need SFFS_FEAT_INCOMPAT_LONG_SYMLINK */
#define SFFS_SHORT_SYMLINK_LEN	(SFFS_BLOCK_SIZE - 256)
#define SFFS_MAX_XATTR_NAME	255
#define SFFS_MAX_XATTR_VALUE	(SFFS_BLOCK_SIZE - 512)

/*
 * The anchor: the first SFFS_ANCHOR_BLOCKS good erase blocks among the
 * first SFFS_ANCHOR_SEARCH form two slots of two blocks each.  A slot is
 * a sequence of checkpoint units written in order; the unit size is
 * SFFS_CP_UNIT(write_size), derived from the MTD geometry alone so that
 * mount can find the newest checkpoint by binary search before it has
 * read anything.
 */
#define SFFS_ANCHOR_BLOCKS	4
#define SFFS_ANCHOR_SEARCH	16
#define SFFS_CP_MIN_UNIT	512

static inline __u32 SFFS_CP_UNIT(__u32 write_size)
{
	return write_size > SFFS_CP_MIN_UNIT ? write_size : SFFS_CP_MIN_UNIT;
}

#define SFFS_MAX_JOURNAL_BLOCKS	64

/* Reserved inode numbers */
#define SFFS_META_INO		1	/* erase-block table pages */
#define SFFS_ROOT_INO		2
#define SFFS_FIRST_INO		16

enum sffs_node_type {
	SFFS_NODE_PAD		= 0,	/* filler, payload ignored */
	SFFS_NODE_CHECKPOINT	= 1,	/* anchor unit: superblock + commit */
	SFFS_NODE_INODE		= 2,
	SFFS_NODE_DATA		= 3,	/* one file block */
	SFFS_NODE_DENTRY	= 4,
	SFFS_NODE_XATTR		= 5,
	SFFS_NODE_TRUNC		= 6,	/* journal only: a truncation */
	SFFS_NODE_ORPHAN	= 7,	/* an unlinked inode still in use */
	SFFS_NODE_INDEX		= 8,	/* B+tree node */
	SFFS_NODE_EBT		= 9,	/* erase-block table page */
	SFFS_NODE_TYPES
};

/*
 * Node header flags.  SFFS_NODE_FL_CONT marks a node that is not the last
 * of an operation: replay applies the nodes of one operation (a rename, a
 * link, a create) only once it has read the node without the flag, so an
 * operation cut by a power loss is either wholly there or wholly gone.
 */
#define SFFS_NODE_FL_CONT	0x80
/* Nodes of one operation at most; replay takes a longer one for torn */
#define SFFS_MAX_GROUP		8

/**
 * struct sffs_node_hdr - header of every node
 * @magic: %SFFS_NODE_MAGIC
 * @hdr_crc: crc32c of bytes 8..31 of this header
 * @sqnum: sequence number, unique and increasing over the life of the file
 *	   system; orders two versions of one key during replay
 * @len: length of the whole node, header included, not padded
 * @data_crc: crc32c of the payload (bytes 32..@len-1)
 * @type: &enum sffs_node_type
 * @flags: SFFS_NODE_FL_* and per-type flags in the low bits
 * @reserved: zero
 *
 * Two checksums, so that a torn write is told from a node whose header
 * survived: readers trust @len only once @hdr_crc matched.
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
 * Keys.  All keys of an inode sort together: (ino, type, value), compared
 * as two unsigned 64-bit numbers.  The type is the top 4 bits of @tv, the
 * value the low 60: a block number for data; for dentries and xattrs the
 * crc32c of the name shifted left by 8, plus a collision index in the low
 * 8 bits.
 */
enum sffs_key_type {
	SFFS_KEY_INODE	= 0,
	SFFS_KEY_DATA	= 1,
	SFFS_KEY_DENTRY	= 2,
	SFFS_KEY_XATTR	= 3,
	SFFS_KEY_EBT	= 4,	/* SFFS_META_INO only: table page number */
	SFFS_KEY_ORPHAN	= 5,	/* SFFS_META_INO only: the orphan's number */
};

#define SFFS_KEY_TYPE_SHIFT	60
#define SFFS_KEY_VALUE_MASK	0x0fffffffffffffffULL	/* low 60 bits */
/* Inode numbers are below this: an orphan's key holds one as its value */
#define SFFS_INO_LIMIT		(SFFS_KEY_VALUE_MASK + 1)
#define SFFS_HASH_SHIFT		8
#define SFFS_MAX_COLLISIONS	256

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
 * @atime: access time
 * @mtime: modification time
 * @ctime: change time
 * @uid: owner
 * @gid: group
 * @mode: type and permissions, as st_mode
 * @nlink: link count; 0 deletes the inode and every key it owns
 * @flags: inode flags (FS_*_FL subset)
 * @rdev: device number of a device node (new_encode_dev())
 * @xattr_cnt: number of extended attributes
 * @xattr_size: total length of their names and values
 * @data_len: length of @data: a symlink target, or 0
 * @compr: &enum sffs_compr for new data of this file
 * @reserved: zero
 * @data: symlink target, not NUL-terminated
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
 * @size: uncompressed length, 1 to %SFFS_BLOCK_SIZE
 * @compr: &enum sffs_compr of @data; NONE when compression did not help
 * @reserved: zero
 * @data: the (compressed) bytes, hdr.len - sizeof(struct sffs_data_node)
 *
 * A block with no data node is a hole and reads as zeroes; bytes between
 * @size and the block end read as zeroes too.
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
 * @key: (parent ino, %SFFS_KEY_DENTRY, crc32c(name) << 8 | collision index)
 * @target: inode number the entry points to; 0 deletes the entry
 * @type: DT_* type of the target
 * @reserved: zero
 * @name_len: length of @name
 * @reserved2: zero
 * @name: the name, not NUL-terminated
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

#define SFFS_XATTR_FL_DELETE	0x01	/* hdr.flags: removes the attribute */

/**
 * struct sffs_xattr_node - an extended attribute, or its deletion
 * @key: (ino, %SFFS_KEY_XATTR, crc32c(name) << 8 | collision index)
 * @name_len: length of the full name, namespace prefix included
 * @value_len: length of the value
 * @reserved: zero
 * @data: the name, then the value
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

#define SFFS_TRUNC_FL_DELETE	0x01	/* hdr.flags: drops the whole inode */

/**
 * struct sffs_trunc_node - a truncation, journal only
 * @ino: the inode
 * @old_size: size before
 * @new_size: size after; replay drops data keys from the first block
 *	      wholly beyond it
 *
 * With %SFFS_TRUNC_FL_DELETE replay drops every key of the inode and its
 * orphan record instead: the inode is deleted.
 */
struct sffs_trunc_node {
	struct sffs_node_hdr hdr;
	__le64 ino;
	__le64 old_size;
	__le64 new_size;
} __packed;
static_assert(sizeof(struct sffs_trunc_node) == 56);

#define SFFS_ORPHAN_FL_DELETE	0x01	/* hdr.flags: removes the record */

/**
 * struct sffs_orphan_node - an inode unlinked while still in use
 * @key: (%SFFS_META_INO, %SFFS_KEY_ORPHAN, inode number), the number
 *	 greater than %SFFS_ROOT_INO
 *
 * Written in the operation that takes the link count of an inode to 0;
 * the inode's deletion (a trunc node with SFFS_TRUNC_FL_DELETE) removes
 * it again.  All the records sort together at the start of the index, so
 * a mount finds the inodes a power cut left unlinked but not deleted with
 * one lookup, and deletes them, without scanning anything.
 */
struct sffs_orphan_node {
	struct sffs_node_hdr hdr;
	struct sffs_key key;
} __packed;
static_assert(sizeof(struct sffs_orphan_node) == 48);

/**
 * struct sffs_branch - one entry of an index node
 * @key: the key (level 0) or a lower bound of every key below (level > 0)
 * @addr: flash address of the leaf node (level 0) or child index node
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

/*
 * The longest symlink target a file system of @erase_size blocks takes.
 * An operation fits in half an erase block, and the largest that holds
 * symlink targets, one symlink renamed over another with a whiteout left
 * in its place, has both inodes with their targets, two dentries of the
 * longest names, an orphan record, the whiteout's inode and two
 * directories' inodes: PATH_MAX - 1 from 32 KiB blocks up, about 3.3 KiB
 * on 16 KiB blocks.
 */
static inline __u32 sffs_symlink_max(__u32 erase_size)
{
	__u32 fixed = 2 * ((sizeof(struct sffs_dentry_node) +
			    SFFS_MAX_NAME_LEN + SFFS_NODE_ALIGN - 1) &
			   ~(SFFS_NODE_ALIGN - 1)) +
		      sizeof(struct sffs_orphan_node) +
		      5 * (sizeof(struct sffs_inode_node) + SFFS_NODE_ALIGN);
	__u32 max = (erase_size / 2 - fixed) / 2;

	return max < SFFS_MAX_SYMLINK_LEN ? max : SFFS_MAX_SYMLINK_LEN;
}

/**
 * struct sffs_index_node - a B+tree node
 * @level: 0 for nodes whose branches point at leaf nodes
 * @count: number of branches, 1 to the fan-out of the superblock
 * @flags: SFFS_INDEX_PACKED or 0
 * @reserved: zero
 * @branch: branches in increasing key order; with %SFFS_INDEX_PACKED,
 *	    the packed stream described below instead
 */
struct sffs_index_node {
	struct sffs_node_hdr hdr;
	__le16 level;
	__le16 count;
	__u8 flags;
	__u8 reserved[3];
	struct sffs_branch branch[];
} __packed;
static_assert(sizeof(struct sffs_index_node) == 40);

/*
 * Packed index nodes (SFFS_FEAT_INCOMPAT_PACKED).  A commit writes
 * again every index node on the path to each key that changed since the
 * commit before, and most of what a plain branch says repeats the branch
 * before it: the same inode, the next block, an address a node further,
 * the same length.  With SFFS_INDEX_PACKED in @flags, the payload after
 * struct sffs_index_node is a stream of @count branches, each four
 * unsigned LEB128 numbers (7 bits a byte, least significant first, the
 * top bit set on every byte but a number's last, at most 10 bytes):
 *
 *  - the inode number minus the branch before's;
 *  - if that is 0, @tv minus the branch before's, otherwise @tv;
 *  - the address minus the branch before's, divided by SFFS_NODE_ALIGN,
 *    zigzag coded (a difference d as (d << 1) ^ (d >> 63): the sign in
 *    bit 0);
 *  - the length minus the branch before's, zigzag coded.
 *
 * The branch before the first is all zeros, and the stream ends exactly
 * at the node's length.  Differences wrap modulo 2^64; what a stream
 * decodes to is checked as a plain node's branches are.  A writer packs a
 * node only when the stream is shorter than the plain branches.
 */
#define SFFS_INDEX_PACKED	0x01
/* The shortest packed branch: four numbers of a byte */
#define SFFS_IPACK_MIN		4

/* One branch of a packed stream, in CPU byte order */
struct sffs_ibranch {
	__u64 ino;
	__u64 tv;
	__u64 addr;
	__u32 len;
};

static inline __u8 *sffs_put_leb128(__u8 *p, const __u8 *end, __u64 v)
{
	do {
		if (p == end)
			return (__u8 *)0;
		*p = v & 0x7f;
		v >>= 7;
		if (v)
			*p |= 0x80;
		p++;
	} while (v);
	return p;
}

static inline int sffs_get_leb128(const __u8 **pp, const __u8 *end, __u64 *v)
{
	const __u8 *p = *pp;
	unsigned int shift;
	__u64 x = 0;

	for (shift = 0; shift < 64; shift += 7) {
		__u8 b;

		if (p == end)
			return -1;
		b = *p++;
		/* the tenth byte holds bit 63 alone */
		if (shift == 63 && b > 1)
			return -1;
		x |= (__u64)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*v = x;
			return 0;
		}
	}
	return -1;
}

static inline __u64 sffs_zigzag(__u64 d)
{
	return (d << 1) ^ ((d >> 63) ? ~(__u64)0 : 0);
}

static inline __u64 sffs_unzigzag(__u64 z)
{
	return (z >> 1) ^ (~(z & 1) + 1);
}

/*
 * Append @b to the stream at @p, which ends at @end, after the branch
 * @prev (all zeros before the first), and make @prev @b.  Return where the
 * stream goes on, or NULL if @end came first or an address is not
 * aligned.
 */
static inline __u8 *sffs_ipack(__u8 *p, const __u8 *end,
			       struct sffs_ibranch *prev,
			       const struct sffs_ibranch *b)
{
	__u64 dino = b->ino - prev->ino;
	__s64 daddr = (__s64)(b->addr - prev->addr) / SFFS_NODE_ALIGN;
	__u64 dlen = (__u64)b->len - prev->len;

	if ((b->addr | prev->addr) % SFFS_NODE_ALIGN)
		return (__u8 *)0;
	p = sffs_put_leb128(p, end, dino);
	if (p)
		p = sffs_put_leb128(p, end, dino ? b->tv : b->tv - prev->tv);
	if (p)
		p = sffs_put_leb128(p, end, sffs_zigzag((__u64)daddr));
	if (p)
		p = sffs_put_leb128(p, end, sffs_zigzag(dlen));
	*prev = *b;
	return p;
}

/*
 * Read the branch after @b (all zeros before the first) from the stream
 * at *@pp, which ends at @end, into @b, and move *@pp past it.  Return 0,
 * or -1 if the stream ends inside the branch or a number is too long.
 */
static inline int sffs_iunpack(const __u8 **pp, const __u8 *end,
			       struct sffs_ibranch *b)
{
	__u64 dino, tv, daddr, dlen;

	if (sffs_get_leb128(pp, end, &dino) ||
	    sffs_get_leb128(pp, end, &tv) ||
	    sffs_get_leb128(pp, end, &daddr) ||
	    sffs_get_leb128(pp, end, &dlen))
		return -1;
	dlen = b->len + sffs_unzigzag(dlen);
	if (dlen >> 32)
		return -1;
	b->ino += dino;
	b->tv = dino ? tv : b->tv + tv;
	b->addr += sffs_unzigzag(daddr) * SFFS_NODE_ALIGN;
	b->len = dlen;
	return 0;
}

/*
 * 0 if the packed stream of @ix, @len bytes with its header, holds
 * exactly its @count branches and is shorter than they are plain (as
 * writers pack, so readers of both forms take the same bound); -1 if not.
 */
static inline int sffs_ipack_check(const struct sffs_index_node *ix,
				   __u32 len, unsigned int count)
{
	const __u8 *p = (const __u8 *)ix->branch;
	const __u8 *end = (const __u8 *)ix + len;
	struct sffs_ibranch b = { 0 };

	if (len < sizeof(*ix) ||
	    len >= sizeof(*ix) + count * sizeof(struct sffs_branch))
		return -1;
	while (count--)
		if (sffs_iunpack(&p, end, &b))
			return -1;
	return p == end ? 0 : -1;
}

#define SFFS_MIN_FANOUT		8
#define SFFS_MAX_FANOUT		256
#define SFFS_DEF_INDEX_SIZE	2048

/*
 * The fan-out mkfs picks: index nodes of one page, at least 2 KiB and at
 * most 4 KiB.  mkfs.sffs and the kernel's own formatter share it.
 */
static inline unsigned int sffs_default_fanout(__u32 write_size)
{
	__u32 isz = write_size > SFFS_DEF_INDEX_SIZE ? write_size :
						       SFFS_DEF_INDEX_SIZE;

	if (isz > 4096)
		isz = 4096;
	return (isz - sizeof(struct sffs_index_node)) /
	       sizeof(struct sffs_branch);
}

/* Records per erase-block table page */
#define SFFS_EBT_RECS		128

/* Erase-block states in the table */
enum sffs_eb_state {
	SFFS_EB_FREE	= 0,
	SFFS_EB_JOURNAL	= 1,
	SFFS_EB_MAIN	= 2,
	SFFS_EB_ANCHOR	= 3,
	SFFS_EB_BAD	= 4,
	SFFS_EB_SCRUB	= 5,
};

/**
 * struct sffs_eb_rec - what SFFS knows of one erase block
 * @ec: erase count
 * @state: &enum sffs_eb_state; only %SFFS_EB_FREE, %SFFS_EB_MAIN and
 *	   %SFFS_EB_BAD are written today
 * @flags: zero
 * @reserved: zero
 * @live: bytes of live nodes in the block, a hint for garbage collection
 * @age: number of the commit before the block was last erased
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
 * @first: number of the first erase block described, a multiple of
 *	   %SFFS_EBT_RECS; the page's key is (%SFFS_META_INO, %SFFS_KEY_EBT,
 *	   @first / %SFFS_EBT_RECS)
 * @count: number of records, 1 to %SFFS_EBT_RECS
 * @rec: the records
 *
 * A page missing from the index describes blocks below the checkpoint's
 * @alloc_eb as in use and full, and those above as free; blocks bad on
 * the device as bad.
 */
struct sffs_ebt_node {
	struct sffs_node_hdr hdr;
	__le32 first;
	__le32 count;
	struct sffs_eb_rec rec[];
} __packed;
static_assert(sizeof(struct sffs_ebt_node) == 40);

/*
 * Packed table pages (SFFS_FEAT_INCOMPAT_PACKED): with SFFS_EBT_FL_PACKED
 * in the header's flags, @rec is a stream of @count records, each four
 * unsigned LEB128 numbers, as in packed index nodes: the erase count
 * minus the record before's, zigzag coded; the state; the live bytes;
 * the age minus the record before's, zigzag coded.  The record before
 * the first is all zeros, the flags and reserved bytes of a record are
 * zero, and the stream ends exactly at the node's length.  Neighbouring
 * blocks have been erased about as often and long ago, so most records
 * take a few bytes instead of 16.
 */
#define SFFS_EBT_FL_PACKED	0x01
/* The per-type header flags a table page may have */
#define SFFS_EBT_FLAGS		SFFS_EBT_FL_PACKED

/* One record of a packed table page, in CPU byte order */
struct sffs_erec {
	__u32 ec;
	__u32 live;
	__u32 age;
	__u8 state;
};

/*
 * Append @r to the stream at @p, which ends at @end, after the record
 * @prev (all zeros before the first), and make @prev @r.  Return where
 * the stream goes on, or NULL if @end came first.
 */
static inline __u8 *sffs_epack(__u8 *p, const __u8 *end,
			       struct sffs_erec *prev,
			       const struct sffs_erec *r)
{
	p = sffs_put_leb128(p, end, sffs_zigzag((__u64)r->ec - prev->ec));
	if (p)
		p = sffs_put_leb128(p, end, r->state);
	if (p)
		p = sffs_put_leb128(p, end, r->live);
	if (p)
		p = sffs_put_leb128(p, end,
				    sffs_zigzag((__u64)r->age - prev->age));
	*prev = *r;
	return p;
}

/*
 * Read the record after @r (all zeros before the first) from the stream
 * at *@pp, which ends at @end, into @r, and move *@pp past it.  Return 0,
 * or -1 if the stream ends inside the record or a number is out of range.
 */
static inline int sffs_eunpack(const __u8 **pp, const __u8 *end,
			       struct sffs_erec *r)
{
	__u64 dec, state, live, dage;

	if (sffs_get_leb128(pp, end, &dec) ||
	    sffs_get_leb128(pp, end, &state) ||
	    sffs_get_leb128(pp, end, &live) ||
	    sffs_get_leb128(pp, end, &dage))
		return -1;
	dec = r->ec + sffs_unzigzag(dec);
	dage = r->age + sffs_unzigzag(dage);
	if (dec >> 32 || state > 0xff || live >> 32 || dage >> 32)
		return -1;
	r->ec = dec;
	r->state = state;
	r->live = live;
	r->age = dage;
	return 0;
}

/*
 * 0 if the packed stream of table page @en, @len bytes with its header,
 * holds exactly its @count records and is shorter than they are plain;
 * -1 if not.
 */
static inline int sffs_epack_check(const struct sffs_ebt_node *en,
				   __u32 len, unsigned int count)
{
	const __u8 *p = (const __u8 *)en->rec;
	const __u8 *end = (const __u8 *)en + len;
	struct sffs_erec r = { 0 };

	if (len < sizeof(*en) ||
	    len >= sizeof(*en) + count * sizeof(struct sffs_eb_rec))
		return -1;
	while (count--)
		if (sffs_eunpack(&p, end, &r))
			return -1;
	return p == end ? 0 : -1;
}

/*
 * Feature flags: an unknown incompat flag refuses the mount, an unknown
 * ro_compat flag allows only a read-only mount, compat flags are ignored.
 */
#define SFFS_FEAT_COMPAT_SUPP		0
/*
 * The erase-block table is kept and erase blocks are reused.  A kernel
 * that does not keep the table would leave blocks it writes marked free.
 */
#define SFFS_FEAT_RO_COMPAT_EBT		0x00000001
/*
 * The orphan list is kept: an inode unlinked while in use has an orphan
 * record until it is deleted.  A kernel that does not keep the list would
 * leave such inodes without a record, to leak after a power cut, and
 * would not know the orphan nodes replay and garbage collection meet.
 */
#define SFFS_FEAT_RO_COMPAT_ORPHAN	0x00000002
#define SFFS_FEAT_RO_COMPAT_SUPP	(SFFS_FEAT_RO_COMPAT_EBT | \
					 SFFS_FEAT_RO_COMPAT_ORPHAN)
/*
 * Symlink targets may be longer than SFFS_SHORT_SYMLINK_LEN, up to
 * SFFS_MAX_SYMLINK_LEN: a kernel that does not know it would take such an
 * inode node for a damaged one, and end the replay of the journal there.
 */
#define SFFS_FEAT_INCOMPAT_LONG_SYMLINK	0x00000001
/*
 * An image made on a host, not yet mounted: a flasher that skips bad
 * blocks (nandwrite) may have put its erase block N on the device's N-th
 * good block.  The first mount maps the image's blocks so, records the
 * bad blocks it passed over (SFFS_FEAT_INCOMPAT_SKIP) and clears this
 * flag.  A kernel that does not know it would read the shifted blocks in
 * the wrong places.
 */
#define SFFS_FEAT_INCOMPAT_PLACE	0x00000002
/*
 * The checkpoint is followed by @skip_cnt erase block numbers of the
 * device, ascending: bad blocks the file system's erase block numbers
 * pass over.  The file system's block N is the device's block N plus the
 * number of skipped blocks at or before where it lands.
 */
#define SFFS_FEAT_INCOMPAT_SKIP		0x00000004
/*
 * Index nodes and table pages may be packed (SFFS_INDEX_PACKED,
 * SFFS_EBT_FL_PACKED): a kernel that does not know it would take them
 * for damaged ones.
 */
#define SFFS_FEAT_INCOMPAT_PACKED	0x00000008
#define SFFS_FEAT_INCOMPAT_SUPP		(SFFS_FEAT_INCOMPAT_LONG_SYMLINK | \
					 SFFS_FEAT_INCOMPAT_PLACE | \
					 SFFS_FEAT_INCOMPAT_SKIP | \
					 SFFS_FEAT_INCOMPAT_PACKED)
/* Most skipped blocks a checkpoint lists; fewer fit a 512-byte unit */
#define SFFS_MAX_SKIP			256

/**
 * struct sffs_checkpoint_node - superblock and commit record
 * @hdr: header, type %SFFS_NODE_CHECKPOINT
 * @version: %SFFS_FORMAT_VERSION
 * @fanout: maximum branches per index node
 * @feat_compat: compatible features
 * @feat_ro_compat: features an old kernel may only mount read-only
 * @feat_incompat: features an old kernel must not mount
 * @uuid: file system UUID
 * @erase_size: erase block size the file system was made for
 * @write_size: write unit (NAND page) size
 * @eb_count: number of erase blocks of the file system
 * @anchor_eb: the anchor blocks, slot 0 then slot 1
 * @skip_cnt: with %SFFS_FEAT_INCOMPAT_SKIP, the number of device erase
 *	      blocks listed after the structure (__le32 each); else zero
 * @mkfs_time: creation time, seconds since the epoch
 * @default_compr: &enum sffs_compr for new files
 * @reserved1: zero
 * @commit: commit number, increases by one per checkpoint
 * @max_sqnum: highest sequence number written before this checkpoint
 * @next_ino: next inode number to hand out, from %SFFS_FIRST_INO and
 *	      below %SFFS_INO_LIMIT
 * @index_root: address of the root index node
 * @index_root_len: its length
 * @index_height: levels of the index (the root is at level height - 1)
 * @journal_cnt: number of entries of @journal_eb
 * @jhead: address where the journal after this commit starts; it lies in
 *	   @journal_eb[0] and is aligned to the write size
 * @alloc_eb: first erase block never written since mkfs, the allocation
 *	      frontier
 * @spare_cnt: erase blocks listed in @journal_eb after the journal: set
 *	       aside by this commit for the next, in use by the table and
 *	       free to a mount
 * @free_bytes: bytes available for new nodes
 * @dirty_bytes: bytes of obsolete nodes, reclaimable by GC
 * @used_bytes: bytes of live nodes
 * @journal_eb: erase blocks, in order, the journal may use after this
 *	       commit, then the spares
 *
 * One per checkpoint unit of the anchor blocks.  The superblock part is
 * repeated in each, so any valid unit mounts the file system.  The
 * checkpoint is padded with 0xff to the unit size; @hdr.len covers the
 * structure and the skip list that follows it.
 */
struct sffs_checkpoint_node {
	struct sffs_node_hdr hdr;
	/* superblock: fixed at mkfs time */
	__le16 version;
	__le16 fanout;
	__le32 feat_compat;
	__le32 feat_ro_compat;
	__le32 feat_incompat;
	__u8 uuid[16];
	__le32 erase_size;
	__le32 write_size;
	__le32 eb_count;
	__le32 anchor_eb[SFFS_ANCHOR_BLOCKS];
	__le32 skip_cnt;
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
	__le64 jhead;
	__le32 alloc_eb;
	__le32 spare_cnt;
	__le64 free_bytes;
	__le64 dirty_bytes;
	__le64 used_bytes;
	__le32 journal_eb[SFFS_MAX_JOURNAL_BLOCKS];
} __packed;
static_assert(sizeof(struct sffs_checkpoint_node) == 448);

#endif /* __SFFS_MEDIA_H__ */
