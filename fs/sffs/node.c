// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS node encoding and validation.
 *
 * Every node carries two crc32c checksums: one over its header, one over
 * its payload.  The header one is checked first, so that a node whose
 * header was torn by a power cut is never trusted for its length.  Every
 * field that later code uses as a length or an index is range-checked
 * here, once, so the layers above can rely on a node that passed
 * sffs_node_check().
 */
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include "node.h"

/* In the lowest layer, so that sffs.ko is a module from its first commit */
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SFFS: scalable flash file system for raw MTD");

u32 sffs_crc(const void *buf, size_t len)
{
	return crc32c(SFFS_CRC_SEED, buf, len);
}

/* The hash of a name, the high bits of its dentry or xattr key */
u32 sffs_name_hash(const char *name, size_t len)
{
	return sffs_crc(name, len);
}

static const u16 sffs_min_len[SFFS_NODE_TYPES] = {
	[SFFS_NODE_PAD]		= sizeof(struct sffs_node_hdr),
	[SFFS_NODE_CHECKPOINT]	= sizeof(struct sffs_checkpoint_node),
	[SFFS_NODE_INODE]	= sizeof(struct sffs_inode_node),
	[SFFS_NODE_DATA]	= sizeof(struct sffs_data_node) + 1,
	[SFFS_NODE_DENTRY]	= sizeof(struct sffs_dentry_node) + 1,
	[SFFS_NODE_XATTR]	= sizeof(struct sffs_xattr_node) + 1,
	[SFFS_NODE_TRUNC]	= sizeof(struct sffs_trunc_node),
	[SFFS_NODE_ORPHAN]	= sizeof(struct sffs_orphan_node),
	/* one branch, packed */
	[SFFS_NODE_INDEX]	= sizeof(struct sffs_index_node) +
				  SFFS_IPACK_MIN,
	[SFFS_NODE_EBT]		= sizeof(struct sffs_ebt_node),
};

/* Smallest valid length of a node of @type, or -EINVAL for unknown types */
int sffs_node_min_len(unsigned int type)
{
	if (type >= SFFS_NODE_TYPES || !sffs_min_len[type])
		return -EINVAL;
	return sffs_min_len[type];
}

/**
 * sffs_node_seal - fill in the header of a node and its checksums
 * @node: the node, payload already in place
 * @type: &enum sffs_node_type
 * @len: length of the node, header included
 * @sqnum: its sequence number
 * @flags: header flags
 */
void sffs_node_seal(void *node, unsigned int type, unsigned int len,
		    u64 sqnum, unsigned int flags)
{
	struct sffs_node_hdr *hdr = node;

	hdr->magic = cpu_to_le32(SFFS_NODE_MAGIC);
	hdr->sqnum = cpu_to_le64(sqnum);
	hdr->len = cpu_to_le32(len);
	hdr->type = type;
	hdr->flags = flags;
	memset(hdr->reserved, 0, sizeof(hdr->reserved));
	hdr->data_crc = cpu_to_le32(sffs_crc(node + sizeof(*hdr),
					     len - sizeof(*hdr)));
	hdr->hdr_crc = cpu_to_le32(sffs_crc(node + 8, sizeof(*hdr) - 8));
}

/**
 * sffs_node_check_hdr - validate a node header
 * @node: the header
 * @avail: bytes that may belong to the node from @node on
 *
 * Return: 0 if the header is intact and describes a node of a known type
 * that fits in @avail bytes; -ENODATA if it is erased flash; -EUCLEAN if
 * it is corrupt (a torn write, or not a node at all).
 */
int sffs_node_check_hdr(const void *node, size_t avail)
{
	const struct sffs_node_hdr *hdr = node;
	u32 len;
	int min;

	if (avail < sizeof(*hdr))
		return -EUCLEAN;
	if (le32_to_cpu(hdr->magic) == 0xffffffff)
		return -ENODATA;
	if (le32_to_cpu(hdr->magic) != SFFS_NODE_MAGIC)
		return -EUCLEAN;
	if (le32_to_cpu(hdr->hdr_crc) != sffs_crc(node + 8, sizeof(*hdr) - 8))
		return -EUCLEAN;
	len = le32_to_cpu(hdr->len);
	min = sffs_node_min_len(hdr->type);
	if (min < 0 || len < min || len > avail)
		return -EUCLEAN;
	return 0;
}

/* Type-specific checks of the lengths inside the payload */
static int sffs_node_check_payload(const void *node, u32 len)
{
	const struct sffs_node_hdr *hdr = node;

	switch (hdr->type) {
	case SFFS_NODE_INODE: {
		const struct sffs_inode_node *in = node;

		if (sizeof(*in) + le16_to_cpu(in->data_len) != len ||
		    le16_to_cpu(in->data_len) > SFFS_MAX_SYMLINK_LEN ||
		    in->compr >= SFFS_COMPR_TYPES)
			return -EUCLEAN;
		return 0;
	}
	case SFFS_NODE_DATA: {
		const struct sffs_data_node *dn = node;
		u32 size = le32_to_cpu(dn->size);

		if (!size || size > SFFS_BLOCK_SIZE ||
		    dn->compr >= SFFS_COMPR_TYPES ||
		    len - sizeof(*dn) > SFFS_BLOCK_SIZE ||
		    (dn->compr == SFFS_COMPR_NONE && len - sizeof(*dn) != size))
			return -EUCLEAN;
		return 0;
	}
	case SFFS_NODE_DENTRY: {
		const struct sffs_dentry_node *de = node;
		u16 nlen = le16_to_cpu(de->name_len);

		if (!nlen || nlen > SFFS_MAX_NAME_LEN ||
		    sizeof(*de) + nlen != len)
			return -EUCLEAN;
		return 0;
	}
	case SFFS_NODE_XATTR: {
		const struct sffs_xattr_node *xn = node;
		u16 nlen = le16_to_cpu(xn->name_len);
		u16 vlen = le16_to_cpu(xn->value_len);

		if (!nlen || nlen > SFFS_MAX_XATTR_NAME ||
		    vlen > SFFS_MAX_XATTR_VALUE ||
		    sizeof(*xn) + nlen + vlen != len)
			return -EUCLEAN;
		return 0;
	}
	case SFFS_NODE_ORPHAN: {
		const struct sffs_orphan_node *on = node;
		struct sffs_ckey key = sffs_key_from_le(&on->key);

		/* never the root's or the table's: a mount deletes orphans */
		if (len != sizeof(*on) || key.ino != SFFS_META_INO ||
		    sffs_key_type(&key) != SFFS_KEY_ORPHAN ||
		    sffs_key_value(&key) <= SFFS_ROOT_INO)
			return -EUCLEAN;
		return 0;
	}
	case SFFS_NODE_INDEX: {
		const struct sffs_index_node *ix = node;
		u16 cnt = le16_to_cpu(ix->count);

		if (!cnt || cnt > SFFS_MAX_FANOUT ||
		    ix->flags & ~SFFS_INDEX_PACKED)
			return -EUCLEAN;
		if (ix->flags & SFFS_INDEX_PACKED)
			return sffs_ipack_check(ix, len, cnt) ? -EUCLEAN : 0;
		if (sizeof(*ix) + cnt * sizeof(struct sffs_branch) != len)
			return -EUCLEAN;
		return 0;
	}
	case SFFS_NODE_EBT: {
		const struct sffs_ebt_node *en = node;
		u32 cnt = le32_to_cpu(en->count);

		if (!cnt || cnt > SFFS_EBT_RECS ||
		    le32_to_cpu(en->first) % SFFS_EBT_RECS ||
		    en->hdr.flags & ~(SFFS_EBT_FLAGS | SFFS_NODE_FL_CONT))
			return -EUCLEAN;
		if (en->hdr.flags & SFFS_EBT_FL_PACKED)
			return sffs_epack_check(en, len, cnt) ? -EUCLEAN : 0;
		if (sizeof(*en) + cnt * sizeof(struct sffs_eb_rec) != len)
			return -EUCLEAN;
		return 0;
	}
	default:
		return 0;
	}
}

/**
 * sffs_node_check - validate a whole node
 * @node: the node
 * @avail: bytes that may belong to the node from @node on
 *
 * Return: as sffs_node_check_hdr(), and -EUCLEAN also when the payload
 * checksum or a length inside the payload is wrong.
 */
int sffs_node_check(const void *node, size_t avail)
{
	const struct sffs_node_hdr *hdr = node;
	u32 len;
	int err;

	err = sffs_node_check_hdr(node, avail);
	if (err)
		return err;
	len = le32_to_cpu(hdr->len);
	if (le32_to_cpu(hdr->data_crc) !=
	    sffs_crc(node + sizeof(*hdr), len - sizeof(*hdr)))
		return -EUCLEAN;
	return sffs_node_check_payload(node, len);
}

/**
 * sffs_node_key - the index key of a leaf node
 * @node: a node that passed sffs_node_check()
 * @key: the key
 *
 * Return: 0, or -EINVAL for node types that have no key of their own.
 */
int sffs_node_key(const void *node, struct sffs_ckey *key)
{
	const struct sffs_node_hdr *hdr = node;
	const struct sffs_key *k;

	switch (hdr->type) {
	case SFFS_NODE_INODE:
		k = &((const struct sffs_inode_node *)node)->key;
		break;
	case SFFS_NODE_DATA:
		k = &((const struct sffs_data_node *)node)->key;
		break;
	case SFFS_NODE_DENTRY:
		k = &((const struct sffs_dentry_node *)node)->key;
		break;
	case SFFS_NODE_XATTR:
		k = &((const struct sffs_xattr_node *)node)->key;
		break;
	case SFFS_NODE_ORPHAN:
		k = &((const struct sffs_orphan_node *)node)->key;
		break;
	case SFFS_NODE_EBT:
		*key = sffs_key(SFFS_META_INO, SFFS_KEY_EBT,
				le32_to_cpu(((const struct sffs_ebt_node *)
					     node)->first) / SFFS_EBT_RECS);
		return 0;
	default:
		return -EINVAL;
	}
	*key = sffs_key_from_le(k);
	return 0;
}
