// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS index: a B+tree from keys to leaf nodes on flash.
 *
 * Every inode, data block, directory entry and extended attribute is a
 * leaf node somewhere on the flash; the index maps its key to the node's
 * address.  Index nodes are themselves written to the flash, out of place:
 * a change dirties a path of znodes (the in-RAM form of index nodes) from
 * a level 0 znode up to the root, and the commit writes every dirty znode,
 * children before parents, then the root's address into the checkpoint.
 * Until then the old index on flash stays intact, which is what makes a
 * power cut safe: mount finds the last committed index and replays the
 * journal written after it.
 *
 * Only the root and the znodes in use are in RAM.  A znode is read from
 * flash the first time a walk needs it and stays cached until the
 * shrinker frees it; only clean znodes whose children are all out of RAM
 * can go, so a dirty path is never lost and the tree in RAM is always a
 * subtree of the whole that includes the root.
 *
 * Branch keys of level > 0 znodes are lower bounds of the keys below them;
 * a walk takes the last branch whose key is not above the key searched for,
 * or the first branch when there is none.  Empty znodes are removed; there
 * is no merging of underfull znodes, which costs some flash space for
 * indexes of shrinking directories and files, never correctness.
 *
 * Locking: none here.  The caller serialises every call on one index.
 */
#include <linux/slab.h>
#include <linux/overflow.h>
#include "index.h"

struct sffs_zbranch {
	struct sffs_ckey key;
	u64 addr;
	u32 len;
	struct sffs_znode *child;
};

/**
 * struct sffs_znode - an index node in RAM
 * @parent: parent znode, NULL for the root
 * @iip: index of this znode in @parent's branches
 * @level: 0 for znodes whose branches point at leaf nodes
 * @count: number of branches in use
 * @dirty: changed since written; every ancestor of a dirty znode is dirty
 * @addr: flash address of the last written copy
 * @len: its length, 0 if never written
 * @br: branches; one more than the fan-out, for the moment before a split
 */
struct sffs_znode {
	struct sffs_znode *parent;
	unsigned int iip;
	unsigned int level;
	unsigned int count;
	bool dirty;
	u64 addr;
	u32 len;
	struct sffs_zbranch br[];
};

/**
 * sffs_index_first_key - the key of an index node's first branch
 * @ix: the node, plain or packed, checked by sffs_node_check()
 *
 * Return: the key.
 */
struct sffs_ckey sffs_index_first_key(const struct sffs_index_node *ix)
{
	const u8 *p = (const u8 *)ix->branch;
	struct sffs_ibranch b = { 0 };

	if (!(ix->flags & SFFS_INDEX_PACKED))
		return sffs_key_from_le(&ix->branch[0].key);
	/* cannot fail: the node check read the whole stream */
	sffs_iunpack(&p, (const u8 *)ix + le32_to_cpu(ix->hdr.len), &b);
	return (struct sffs_ckey){ .ino = b.ino, .tv = b.tv };
}

size_t sffs_index_node_size(unsigned int fanout)
{
	return sizeof(struct sffs_index_node) +
	       fanout * sizeof(struct sffs_branch);
}

/* RAM one znode takes */
size_t sffs_index_znode_size(unsigned int fanout)
{
	return struct_size((struct sffs_znode *)NULL, br, fanout + 1);
}

static struct sffs_znode *zn_alloc(struct sffs_index *idx, unsigned int level)
{
	struct sffs_znode *zn;

	zn = kzalloc(struct_size(zn, br, idx->fanout + 1), GFP_NOFS);
	if (!zn)
		return NULL;
	zn->level = level;
	idx->nr_znodes++;
	return zn;
}

static void zn_free(struct sffs_index *idx, struct sffs_znode *zn)
{
	if (zn->dirty)
		idx->nr_dirty--;
	idx->nr_znodes--;
	kfree(zn);
}

static void zn_free_tree(struct sffs_index *idx, struct sffs_znode *zn)
{
	unsigned int i;

	if (zn->level)
		for (i = 0; i < zn->count; i++)
			if (zn->br[i].child)
				zn_free_tree(idx, zn->br[i].child);
	zn_free(idx, zn);
}

static void zn_dirty(struct sffs_index *idx, struct sffs_znode *zn)
{
	for (; zn && !zn->dirty; zn = zn->parent) {
		zn->dirty = true;
		idx->nr_dirty++;
	}
}

/* After branches moved, tell the children in RAM where they are now */
static void zn_fix_iip(struct sffs_znode *zn, unsigned int from)
{
	unsigned int i;

	if (!zn->level)
		return;
	for (i = from; i < zn->count; i++) {
		if (zn->br[i].child) {
			zn->br[i].child->parent = zn;
			zn->br[i].child->iip = i;
		}
	}
}

static void zn_obsolete(struct sffs_index *idx, u64 addr, u32 len)
{
	if (len && idx->ops->obsolete)
		idx->ops->obsolete(idx->priv, addr, len);
}

/* Fill @zn from the index node read into idx->buf */
static int zn_parse(struct sffs_index *idx, struct sffs_znode *zn,
		    unsigned int level)
{
	const struct sffs_index_node *ix = idx->buf;
	unsigned int i, count = le16_to_cpu(ix->count);
	const u8 *p = (const u8 *)ix->branch;
	const u8 *end = (const u8 *)ix + le32_to_cpu(ix->hdr.len);
	struct sffs_ibranch pb = { 0 };
	bool packed = ix->flags & SFFS_INDEX_PACKED;

	if (ix->hdr.type != SFFS_NODE_INDEX || le16_to_cpu(ix->level) != level ||
	    !count || count > idx->fanout)
		return -EUCLEAN;
	if (packed && !idx->packed) {
		pr_err_ratelimited("sffs: a packed index node, and the file system does not have packing (feature %#x)\n",
				   SFFS_FEAT_INCOMPAT_PACKED);
		return -EUCLEAN;
	}
	for (i = 0; i < count; i++) {
		struct sffs_zbranch *b = &zn->br[i];

		if (packed) {
			/* the node check found the stream whole */
			if (WARN_ON_ONCE(sffs_iunpack(&p, end, &pb)))
				return -EUCLEAN;
			b->key.ino = pb.ino;
			b->key.tv = pb.tv;
			b->addr = pb.addr;
			b->len = pb.len;
		} else {
			b->key = sffs_key_from_le(&ix->branch[i].key);
			b->addr = le64_to_cpu(ix->branch[i].addr);
			b->len = le32_to_cpu(ix->branch[i].len);
		}
		if (b->len < sizeof(struct sffs_node_hdr) ||
		    (i && sffs_key_cmp(&zn->br[i - 1].key, &b->key) >= 0))
			return -EUCLEAN;
	}
	zn->count = count;
	return 0;
}

static struct sffs_znode *zn_read(struct sffs_index *idx, u64 addr, u32 len,
				  unsigned int level)
{
	struct sffs_znode *zn;
	int err;

	if (len > sffs_index_node_size(idx->fanout))
		return ERR_PTR(-EUCLEAN);
	err = idx->ops->read(idx->priv, addr, len, idx->buf);
	if (err)
		return ERR_PTR(err);
	zn = zn_alloc(idx, level);
	if (!zn)
		return ERR_PTR(-ENOMEM);
	err = zn_parse(idx, zn, level);
	if (err) {
		zn_free(idx, zn);
		return ERR_PTR(err);
	}
	zn->addr = addr;
	zn->len = len;
	return zn;
}

static struct sffs_znode *zn_child(struct sffs_index *idx,
				   struct sffs_znode *zn, unsigned int i)
{
	struct sffs_zbranch *b = &zn->br[i];
	struct sffs_znode *child;

	if (b->child)
		return b->child;
	child = zn_read(idx, b->addr, b->len, zn->level - 1);
	if (IS_ERR(child))
		return child;
	child->parent = zn;
	child->iip = i;
	b->child = child;
	return child;
}

/* The last branch whose key is <= @key, or -1 */
static int zn_search(const struct sffs_znode *zn, const struct sffs_ckey *key)
{
	int lo = 0, hi = (int)zn->count - 1, found = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (sffs_key_cmp(&zn->br[mid].key, key) <= 0) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* Walk down to the level 0 znode where @key is or would be */
static struct sffs_znode *zn_descend(struct sffs_index *idx,
				     const struct sffs_ckey *key)
{
	struct sffs_znode *zn = idx->root;

	while (zn->level) {
		int i = zn_search(zn, key);

		zn = zn_child(idx, zn, max(i, 0));
		if (IS_ERR(zn))
			return zn;
	}
	return zn;
}

int sffs_index_init(struct sffs_index *idx, const struct sffs_index_ops *ops,
		    void *priv, unsigned int fanout)
{
	if (fanout < SFFS_MIN_FANOUT || fanout > SFFS_MAX_FANOUT)
		return -EINVAL;
	memset(idx, 0, sizeof(*idx));
	idx->ops = ops;
	idx->priv = priv;
	idx->fanout = fanout;
	idx->height = 1;
	idx->max_clean = ULONG_MAX;
	idx->buf = kmalloc(sffs_index_node_size(fanout), GFP_KERNEL);
	if (!idx->buf)
		return -ENOMEM;
	idx->root = zn_alloc(idx, 0);
	if (!idx->root) {
		kfree(idx->buf);
		return -ENOMEM;
	}
	zn_dirty(idx, idx->root);
	return 0;
}

/* Replace the empty tree of sffs_index_init() by the one on flash */
int sffs_index_load(struct sffs_index *idx, u64 root, u32 len,
		    unsigned int height)
{
	struct sffs_znode *zn;

	if (!height || height > 16)
		return -EUCLEAN;
	zn = zn_read(idx, root, len, height - 1);
	if (IS_ERR(zn))
		return PTR_ERR(zn);
	zn_free_tree(idx, idx->root);
	idx->root = zn;
	idx->height = height;
	return 0;
}

void sffs_index_destroy(struct sffs_index *idx)
{
	if (idx->root)
		zn_free_tree(idx, idx->root);
	idx->root = NULL;
	kfree(idx->buf);
	idx->buf = NULL;
}

static unsigned long zn_shrink(struct sffs_index *idx, struct sffs_znode *zn,
			       unsigned long nr);

/*
 * Keep the cache of clean znodes within idx->max_clean, down to three
 * quarters of it so that the walk is not repeated at every call.  Only at
 * the end of a public call: no znode is in use then.
 */
static void zn_trim(struct sffs_index *idx)
{
	unsigned long clean = idx->nr_znodes - idx->nr_dirty;

	if (clean > idx->max_clean)
		zn_shrink(idx, idx->root, clean - idx->max_clean * 3 / 4);
}

static void zb_to_ref(const struct sffs_zbranch *b, struct sffs_zref *ref)
{
	ref->key = b->key;
	ref->addr = b->addr;
	ref->len = b->len;
}

/**
 * sffs_index_lookup - find the leaf node of a key
 * @idx: the index
 * @key: the key
 * @ref: where the node is, on success
 *
 * Return: 0, -ENOENT if the key is not in the index, or an I/O error.
 */
int sffs_index_lookup(struct sffs_index *idx, const struct sffs_ckey *key,
		      struct sffs_zref *ref)
{
	struct sffs_znode *zn = zn_descend(idx, key);
	int i;

	if (IS_ERR(zn))
		return PTR_ERR(zn);
	i = zn_search(zn, key);
	if (i < 0 || sffs_key_cmp(&zn->br[i].key, key)) {
		zn_trim(idx);
		return -ENOENT;
	}
	zb_to_ref(&zn->br[i], ref);
	zn_trim(idx);
	return 0;
}

/**
 * sffs_index_next - find the first key at or above another
 * @idx: the index
 * @from: where to start
 * @ref: the first key >= @from and its node, on success
 *
 * Return: 0, -ENOENT if there is no such key, or an I/O error.
 */
int sffs_index_next(struct sffs_index *idx, const struct sffs_ckey *from,
		    struct sffs_zref *ref)
{
	struct sffs_znode *zn = zn_descend(idx, from);
	unsigned int i;
	int pos;

	if (IS_ERR(zn))
		return PTR_ERR(zn);
	pos = zn_search(zn, from);
	i = pos >= 0 && !sffs_key_cmp(&zn->br[pos].key, from) ? pos : pos + 1;
	for (;;) {
		if (i < zn->count) {
			if (!zn->level) {
				zb_to_ref(&zn->br[i], ref);
				zn_trim(idx);
				return 0;
			}
			zn = zn_child(idx, zn, i);
			if (IS_ERR(zn))
				return PTR_ERR(zn);
			i = 0;
			continue;
		}
		if (!zn->parent) {
			zn_trim(idx);
			return -ENOENT;
		}
		i = zn->iip + 1;
		zn = zn->parent;
	}
}

static int zn_split(struct sffs_index *idx, struct sffs_znode *zn)
{
	unsigned int half = zn->count / 2, n = zn->count - half;
	struct sffs_znode *right, *parent = zn->parent;
	struct sffs_zbranch *b;

	right = zn_alloc(idx, zn->level);
	if (!right)
		return -ENOMEM;
	memcpy(right->br, &zn->br[half], n * sizeof(*b));
	right->count = n;
	zn->count = half;
	zn_fix_iip(right, 0);
	right->dirty = true;
	idx->nr_dirty++;

	if (!parent) {
		parent = zn_alloc(idx, zn->level + 1);
		if (!parent)
			goto undo;
		parent->br[0] = (struct sffs_zbranch){
			.key = zn->br[0].key, .addr = zn->addr,
			.len = zn->len, .child = zn,
		};
		parent->count = 1;
		parent->dirty = true;
		idx->nr_dirty++;
		zn->parent = parent;
		zn->iip = 0;
		idx->root = parent;
		idx->height++;
	}
	b = &parent->br[zn->iip + 1];
	memmove(b + 1, b, (parent->count - zn->iip - 1) * sizeof(*b));
	*b = (struct sffs_zbranch){ .key = right->br[0].key, .child = right };
	parent->count++;
	zn_fix_iip(parent, zn->iip + 1);
	zn_dirty(idx, parent);
	if (parent->count > idx->fanout)
		return zn_split(idx, parent);
	return 0;

undo:
	memcpy(&zn->br[half], right->br, n * sizeof(*b));
	zn->count += n;
	zn_fix_iip(zn, half);
	zn_free(idx, right);
	return -ENOMEM;
}

/* Insert or update a level 0 branch, splitting znodes that overflow */
static int zn_insert(struct sffs_index *idx, const struct sffs_zref *ref)
{
	struct sffs_znode *zn = zn_descend(idx, &ref->key), *p;
	struct sffs_zbranch *b;
	int i;

	if (IS_ERR(zn))
		return PTR_ERR(zn);
	i = zn_search(zn, &ref->key);
	if (i >= 0 && !sffs_key_cmp(&zn->br[i].key, &ref->key)) {
		b = &zn->br[i];
		if (b->addr != ref->addr || b->len != ref->len)
			zn_obsolete(idx, b->addr, b->len);
		b->addr = ref->addr;
		b->len = ref->len;
		zn_dirty(idx, zn);
		return 0;
	}
	b = &zn->br[i + 1];
	memmove(b + 1, b, (zn->count - i - 1) * sizeof(*b));
	*b = (struct sffs_zbranch){
		.key = ref->key, .addr = ref->addr, .len = ref->len,
	};
	zn->count++;
	zn_dirty(idx, zn);
	/* A new smallest key: keep the lower bounds above exact */
	for (p = zn; i < 0 && p->parent && !p->iip; p = p->parent)
		p->parent->br[0].key = ref->key;
	if (i < 0 && p->parent)
		p->parent->br[p->iip].key = ref->key;
	if (zn->count > idx->fanout)
		return zn_split(idx, zn);
	return 0;
}

/**
 * sffs_index_insert - add a key, or point it at a new node
 * @idx: the index
 * @ref: the key and where its node now is
 *
 * The node the key pointed at before, if any, is reported obsolete.
 *
 * Return: 0, -ENOMEM, or an I/O error reading index nodes.
 */
int sffs_index_insert(struct sffs_index *idx, const struct sffs_zref *ref)
{
	int err = zn_insert(idx, ref);

	zn_trim(idx);
	return err;
}

/* Take branch @i out of @zn, and @zn out of the tree when it empties */
static void zn_delete(struct sffs_index *idx, struct sffs_znode *zn,
		      unsigned int i)
{
	struct sffs_znode *parent = zn->parent;

	memmove(&zn->br[i], &zn->br[i + 1], (zn->count - i - 1) *
		sizeof(zn->br[0]));
	zn->count--;
	zn_fix_iip(zn, i);
	zn_dirty(idx, zn);
	if (zn->count || !parent)
		return;
	i = zn->iip;
	zn_obsolete(idx, zn->addr, zn->len);
	zn_free(idx, zn);
	zn_delete(idx, parent, i);
}

/* A root with one child is a level too many */
static int zn_collapse_root(struct sffs_index *idx)
{
	if (idx->root->level && !idx->root->count) {
		struct sffs_znode *root = zn_alloc(idx, 0);

		if (!root)
			return -ENOMEM;
		zn_obsolete(idx, idx->root->addr, idx->root->len);
		zn_free(idx, idx->root);
		idx->root = root;
		idx->height = 1;
		zn_dirty(idx, root);
		return 0;
	}
	while (idx->root->level && idx->root->count == 1) {
		struct sffs_znode *root = idx->root;
		struct sffs_znode *child = zn_child(idx, root, 0);

		if (IS_ERR(child))
			return PTR_ERR(child);
		zn_obsolete(idx, root->addr, root->len);
		child->parent = NULL;
		child->iip = 0;
		idx->root = child;
		idx->height--;
		zn_dirty(idx, child);
		zn_free(idx, root);
	}
	return 0;
}

/**
 * sffs_index_remove - take a key out of the index
 * @idx: the index
 * @key: the key
 *
 * Return: 0, -ENOENT if the key was not there, or an I/O error.
 */
int sffs_index_remove(struct sffs_index *idx, const struct sffs_ckey *key)
{
	struct sffs_znode *zn = zn_descend(idx, key);
	int i;

	if (IS_ERR(zn))
		return PTR_ERR(zn);
	i = zn_search(zn, key);
	if (i < 0 || sffs_key_cmp(&zn->br[i].key, key))
		return -ENOENT;
	zn_obsolete(idx, zn->br[i].addr, zn->br[i].len);
	zn_delete(idx, zn, i);
	i = zn_collapse_root(idx);
	zn_trim(idx);
	return i;
}

/**
 * sffs_index_remove_range - take every key in [@from, @to) out
 * @idx: the index
 * @from: first key
 * @to: end of the range, not included
 *
 * Return: the number of keys removed, or a negative error.
 */
int sffs_index_remove_range(struct sffs_index *idx,
			    const struct sffs_ckey *from,
			    const struct sffs_ckey *to)
{
	struct sffs_zref ref;
	int n = 0, err;

	for (;;) {
		err = sffs_index_next(idx, from, &ref);
		if (err == -ENOENT || (!err && sffs_key_cmp(&ref.key, to) >= 0))
			return n;
		if (err)
			return err;
		err = sffs_index_remove(idx, &ref.key);
		if (err)
			return err;
		n++;
	}
}

/*
 * Pack the branches of @zn after the header at @ix, if they take fewer
 * than the @len bytes of the plain node.  Return the packed node's
 * length, or @len and the header left plain.
 */
static u32 zn_pack(struct sffs_index_node *ix, const struct sffs_znode *zn,
		   u32 len)
{
	u8 *p = (u8 *)ix->branch, *end = (u8 *)ix + len - 1;
	struct sffs_ibranch prev = { 0 };
	unsigned int i;

	for (i = 0; p && i < zn->count; i++) {
		struct sffs_ibranch b = {
			.ino = zn->br[i].key.ino,
			.tv = zn->br[i].key.tv,
			.addr = zn->br[i].addr,
			.len = zn->br[i].len,
		};

		p = sffs_ipack(p, end, &prev, &b);
	}
	if (!p)
		return len;
	ix->flags = SFFS_INDEX_PACKED;
	return p - (u8 *)ix;
}

static int zn_write(struct sffs_index *idx, struct sffs_znode *zn)
{
	struct sffs_index_node *ix = idx->buf;
	unsigned int i;
	u64 addr;
	u32 len;
	int err;

	for (i = 0; zn->level && i < zn->count; i++) {
		struct sffs_znode *c = zn->br[i].child;

		if (!c || !c->dirty)
			continue;
		err = zn_write(idx, c);
		if (err)
			return err;
		zn->br[i].addr = c->addr;
		zn->br[i].len = c->len;
	}

	len = sffs_index_node_size(zn->count);
	memset(ix, 0, sizeof(*ix));
	ix->level = cpu_to_le16(zn->level);
	ix->count = cpu_to_le16(zn->count);
	if (idx->packed && !idx->write_plain)
		len = zn_pack(ix, zn, len);
	for (i = 0; !ix->flags && i < zn->count; i++) {
		struct sffs_branch *b = &ix->branch[i];

		sffs_key_to_le(&b->key, &zn->br[i].key);
		b->addr = cpu_to_le64(zn->br[i].addr);
		b->len = cpu_to_le32(zn->br[i].len);
		b->reserved = 0;
	}
	err = idx->ops->write(idx->priv, ix, len, &addr);
	if (err)
		return err;
	zn_obsolete(idx, zn->addr, zn->len);
	zn->addr = addr;
	zn->len = len;
	zn->dirty = false;
	idx->nr_dirty--;
	return 0;
}

/**
 * sffs_index_commit - write every dirty znode to the flash
 * @idx: the index
 * @root: address of the root index node, on success
 * @len: its length
 *
 * An empty tree cannot be written (an index node has at least one
 * branch); SFFS always has its root inode in the index.
 *
 * Return: 0, -EINVAL for an empty tree, or an error of ops->write.
 */
int sffs_index_commit(struct sffs_index *idx, u64 *root, u32 *len)
{
	int err;

	if (!idx->root->count)
		return -EINVAL;
	if (idx->root->dirty) {
		err = zn_write(idx, idx->root);
		if (err)
			return err;
	}
	*root = idx->root->addr;
	*len = idx->root->len;
	return 0;
}

/**
 * sffs_index_dirty_node - have the next commit rewrite an index node
 * @idx: the index
 * @addr: flash address of an index node
 * @level: its level
 * @key: its first key
 *
 * Garbage collection calls this for every index node in an erase block it
 * empties.  A znode whose last written copy is at @addr is on the path of
 * its own first key, at its level, as long as it is clean; a dirty one is
 * rewritten by the next commit anyway.
 *
 * Return: 1 if the tree still uses the node at @addr (its znode is dirty
 * now), 0 if it does not, or an I/O error.
 */
int sffs_index_dirty_node(struct sffs_index *idx, u64 addr,
			  unsigned int level, const struct sffs_ckey *key)
{
	struct sffs_znode *zn = idx->root;
	int ret = 0;

	if (level >= idx->height)
		return 0;
	while (zn->level > level) {
		int i = zn_search(zn, key);

		zn = zn_child(idx, zn, max(i, 0));
		if (IS_ERR(zn))
			return PTR_ERR(zn);
	}
	if (zn->len && zn->addr == addr) {
		zn_dirty(idx, zn);
		ret = 1;
	}
	zn_trim(idx);
	return ret;
}

static bool zn_has_children(const struct sffs_znode *zn)
{
	unsigned int i;

	for (i = 0; zn->level && i < zn->count; i++)
		if (zn->br[i].child)
			return true;
	return false;
}

static unsigned long zn_shrink(struct sffs_index *idx, struct sffs_znode *zn,
			       unsigned long nr)
{
	unsigned long freed = 0;
	unsigned int i;

	for (i = 0; zn->level && i < zn->count && freed < nr; i++) {
		struct sffs_znode *c = zn->br[i].child;

		if (!c)
			continue;
		freed += zn_shrink(idx, c, nr - freed);
		if (freed < nr && !c->dirty && !zn_has_children(c)) {
			zn->br[i].child = NULL;
			zn_free(idx, c);
			freed++;
		}
	}
	return freed;
}

/**
 * sffs_index_shrink - free up to @nr clean znodes
 * @idx: the index
 * @nr: how many to free at most
 *
 * Return: the number freed.
 */
unsigned long sffs_index_shrink(struct sffs_index *idx, unsigned long nr)
{
	return zn_shrink(idx, idx->root, nr);
}
