/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFFS nodes: keys, checksums, validation.  The lowest layer above the
 * on-flash format; it knows nothing of the MTD device.
 */
#ifndef __SFFS_NODE_H__
#define __SFFS_NODE_H__

#include <linux/types.h>
#include "sffs-media.h"

/* A key in CPU order; compared as the pair (ino, tv) */
struct sffs_ckey {
	u64 ino;
	u64 tv;
};

static inline struct sffs_ckey sffs_key(u64 ino, unsigned int type, u64 val)
{
	return (struct sffs_ckey){
		.ino = ino,
		.tv = ((u64)type << SFFS_KEY_TYPE_SHIFT) |
		      (val & SFFS_KEY_VALUE_MASK),
	};
}

static inline unsigned int sffs_key_type(const struct sffs_ckey *k)
{
	return k->tv >> SFFS_KEY_TYPE_SHIFT;
}

static inline u64 sffs_key_value(const struct sffs_ckey *k)
{
	return k->tv & SFFS_KEY_VALUE_MASK;
}

static inline int sffs_key_cmp(const struct sffs_ckey *a,
			       const struct sffs_ckey *b)
{
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->tv != b->tv)
		return a->tv < b->tv ? -1 : 1;
	return 0;
}

static inline void sffs_key_to_le(struct sffs_key *d,
				  const struct sffs_ckey *s)
{
	d->ino = cpu_to_le64(s->ino);
	d->tv = cpu_to_le64(s->tv);
}

static inline struct sffs_ckey sffs_key_from_le(const struct sffs_key *s)
{
	return (struct sffs_ckey){ le64_to_cpu(s->ino), le64_to_cpu(s->tv) };
}

u32 sffs_crc(const void *buf, size_t len);
u32 sffs_name_hash(const char *name, size_t len);
void sffs_node_seal(void *node, unsigned int type, unsigned int len,
		    u64 sqnum, unsigned int flags);
int sffs_node_check_hdr(const void *node, size_t avail);
int sffs_node_check(const void *node, size_t avail);
int sffs_node_min_len(unsigned int type);
int sffs_node_key(const void *node, struct sffs_ckey *key);

#endif /* __SFFS_NODE_H__ */
