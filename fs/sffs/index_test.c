// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the SFFS index: the B+tree against a reference model.
 *
 * The "flash" is a RAM buffer the index writes its nodes to through its
 * ops, as it does to the journal on a real device; the model is an array
 * over a small key universe, so every lookup and every in-order walk can
 * be checked exactly.  A fan-out of 8 gives trees of five or more levels
 * from a few thousand keys, so splits, root growth and collapse happen
 * all the time.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "index.h"

#define T_INODES	32
#define T_BLOCKS	512
#define T_KEYS		(T_INODES * T_BLOCKS)
#define T_FLASH		(16 << 20)

struct sffs_itest {
	struct kunit *test;
	u8 *flash;
	u64 head;
	u64 obsolete;
	u64 model[T_KEYS];	/* leaf "address" per key, 0 if absent */
	unsigned long reads;
	u32 rnd;
};

static int t_read(void *priv, u64 addr, u32 len, void *buf)
{
	struct sffs_itest *t = priv;

	t->reads++;
	if (addr + len > t->head)
		return -EIO;
	memcpy(buf, t->flash + addr, len);
	if (sffs_node_check(buf, len))
		return -EUCLEAN;
	return 0;
}

static int t_write(void *priv, void *buf, u32 len, u64 *addr)
{
	struct sffs_itest *t = priv;

	if (t->head + len > T_FLASH)
		return -ENOSPC;
	sffs_node_seal(buf, SFFS_NODE_INDEX, len, t->head + 1, 0);
	memcpy(t->flash + t->head, buf, len);
	*addr = t->head;
	t->head = ALIGN(t->head + len, SFFS_NODE_ALIGN);
	return 0;
}

static void t_obsolete(void *priv, u64 addr, u32 len)
{
	struct sffs_itest *t = priv;

	t->obsolete += len;
}

static const struct sffs_index_ops t_ops = {
	.read = t_read, .write = t_write, .obsolete = t_obsolete,
};

static u32 t_rand(struct sffs_itest *t)
{
	/* xorshift: the same sequence on every run, so failures repeat */
	t->rnd ^= t->rnd << 13;
	t->rnd ^= t->rnd >> 17;
	t->rnd ^= t->rnd << 5;
	return t->rnd;
}

static struct sffs_ckey t_key(unsigned int i)
{
	return sffs_key(100 + i / T_BLOCKS, SFFS_KEY_DATA, i % T_BLOCKS);
}

static struct sffs_itest *t_setup(struct kunit *test, struct sffs_index *idx,
				  unsigned int fanout)
{
	struct sffs_itest *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	t->rnd = 0x5ff5;
	t->head = 64;		/* address 0 is never a node */
	t->flash = vzalloc(T_FLASH);
	KUNIT_ASSERT_NOT_NULL(test, t->flash);
	KUNIT_ASSERT_EQ(test, sffs_index_init(idx, &t_ops, t, fanout), 0);
	return t;
}

static void t_teardown(struct sffs_itest *t, struct sffs_index *idx)
{
	sffs_index_destroy(idx);
	vfree(t->flash);
}

/* Insert key @i pointing at a fresh fake leaf address */
static void t_insert(struct sffs_itest *t, struct sffs_index *idx,
		     unsigned int i)
{
	struct sffs_zref ref = {
		.key = t_key(i), .addr = (u64)(t_rand(t) | 1) << 8, .len = 100,
	};

	KUNIT_ASSERT_EQ(t->test, sffs_index_insert(idx, &ref), 0);
	t->model[i] = ref.addr;
}

/* Every key of the model and nothing else, in order, via lookup and next */
static void t_check_all(struct sffs_itest *t, struct sffs_index *idx)
{
	struct sffs_ckey from = sffs_key(0, 0, 0);
	struct sffs_zref ref;
	unsigned int i;

	for (i = 0; i < T_KEYS; i++) {
		struct sffs_ckey key = t_key(i);
		int err = sffs_index_lookup(idx, &key, &ref);

		if (!t->model[i]) {
			KUNIT_ASSERT_EQ(t->test, err, -ENOENT);
			continue;
		}
		KUNIT_ASSERT_EQ(t->test, err, 0);
		KUNIT_ASSERT_EQ(t->test, ref.addr, t->model[i]);

		KUNIT_ASSERT_EQ(t->test, sffs_index_next(idx, &from, &ref), 0);
		KUNIT_ASSERT_EQ(t->test, sffs_key_cmp(&ref.key, &key), 0);
		from = key;
		from.tv++;
	}
	KUNIT_ASSERT_EQ(t->test, sffs_index_next(idx, &from, &ref), -ENOENT);
}

static void test_index_random_ops_match_model(struct kunit *test)
{
	struct sffs_index idx;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	unsigned int n;

	for (n = 0; n < 40000; n++) {
		unsigned int i = t_rand(t) % T_KEYS, op = t_rand(t) % 10;
		struct sffs_ckey key = t_key(i);
		struct sffs_zref ref;

		if (op < 5) {
			t_insert(t, &idx, i);
		} else if (op < 8) {
			int err = sffs_index_remove(&idx, &key);

			KUNIT_ASSERT_EQ(test, err, t->model[i] ? 0 : -ENOENT);
			t->model[i] = 0;
		} else {
			int err = sffs_index_lookup(&idx, &key, &ref);

			KUNIT_ASSERT_EQ(test, err, t->model[i] ? 0 : -ENOENT);
			if (!err)
				KUNIT_ASSERT_EQ(test, ref.addr, t->model[i]);
		}
		if (n % 10000 == 9999) {
			u64 root;
			u32 len;

			KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root,
								&len), 0);
			KUNIT_ASSERT_EQ(test, idx.nr_dirty, 0UL);
			t_check_all(t, &idx);
		}
	}
	KUNIT_EXPECT_GE(test, idx.height, 4U);
	t_check_all(t, &idx);
	t_teardown(t, &idx);
}

/* Index nodes written from @from to the head, and how many are packed */
static unsigned int t_count_packed(struct sffs_itest *t, u64 from,
				   unsigned int *nodes)
{
	unsigned int packed = 0;
	u64 p;

	*nodes = 0;
	for (p = from; p < t->head;) {
		struct sffs_index_node *ix = (void *)(t->flash + p);

		packed += !!(ix->flags & SFFS_INDEX_PACKED);
		(*nodes)++;
		p = ALIGN(p + le32_to_cpu(ix->hdr.len), SFFS_NODE_ALIGN);
	}
	return packed;
}

static void t_commit_then_load(struct kunit *test, bool packed)
{
	struct sffs_index idx, idx2;
	struct sffs_itest *t = t_setup(test, &idx, 16);
	unsigned int n, nodes;
	u64 root;
	u32 len;

	idx.packed = packed;
	for (n = 0; n < 6000; n++)
		t_insert(t, &idx, t_rand(t) % T_KEYS);
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &len), 0);
	/* every node packs: keys close together, one leaf length */
	KUNIT_EXPECT_EQ(test, t_count_packed(t, 64, &nodes),
			packed ? nodes : 0);
	KUNIT_EXPECT_GT(test, nodes, 100U);

	/* a fresh index from the "flash" only, as mount does */
	KUNIT_ASSERT_EQ(test, sffs_index_init(&idx2, &t_ops, t, 16), 0);
	idx2.packed = packed;
	KUNIT_ASSERT_EQ(test, sffs_index_load(&idx2, root, len, idx.height), 0);
	KUNIT_EXPECT_EQ(test, idx2.nr_znodes, 1UL);
	t_check_all(t, &idx2);
	sffs_index_destroy(&idx2);
	t_teardown(t, &idx);
}

static void test_index_commit_then_load_reads_same_tree(struct kunit *test)
{
	t_commit_then_load(test, false);
}

/*
 * A node that does not pack, here for an address off the node alignment
 * (keys and addresses at the far ends of their ranges would do too), is
 * written plain, and read back where packing is allowed.
 */
static void test_index_packed_falls_back_to_plain(struct kunit *test)
{
	struct sffs_index idx, idx2;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	struct sffs_zref ref;
	struct sffs_ckey key;
	struct sffs_index_node *ix;
	unsigned int i;
	u64 root;
	u32 len;

	idx.packed = true;
	for (i = 0; i < 8; i++) {
		ref.key = t_key(i);
		ref.addr = 4096 * (i + 1) + (i == 5 ? 4 : 0);
		ref.len = 100;
		KUNIT_ASSERT_EQ(test, sffs_index_insert(&idx, &ref), 0);
	}
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &len), 0);
	KUNIT_EXPECT_EQ(test, idx.height, 1U);
	ix = (void *)(t->flash + root);
	KUNIT_EXPECT_EQ(test, ix->flags, 0);
	KUNIT_EXPECT_EQ(test, len, (u32)sffs_index_node_size(8));

	KUNIT_ASSERT_EQ(test, sffs_index_init(&idx2, &t_ops, t, 8), 0);
	idx2.packed = true;
	KUNIT_ASSERT_EQ(test, sffs_index_load(&idx2, root, len, 1), 0);
	for (i = 0; i < 8; i++) {
		key = t_key(i);
		KUNIT_ASSERT_EQ(test, sffs_index_lookup(&idx2, &key, &ref), 0);
		KUNIT_EXPECT_EQ(test, ref.addr,
				4096ULL * (i + 1) + (i == 5 ? 4 : 0));
		KUNIT_EXPECT_EQ(test, ref.len, 100U);
	}
	sffs_index_destroy(&idx2);
	t_teardown(t, &idx);
}

static void test_index_packed_commit_then_load_reads_same_tree(struct kunit *test)
{
	t_commit_then_load(test, true);
}

/*
 * A packed node is read only where the checkpoint allows packing: found
 * on a file system without SFFS_FEAT_INCOMPAT_PACKED, it is damage.
 */
static void test_index_packed_node_needs_the_feature(struct kunit *test)
{
	struct sffs_index idx, idx2;
	struct sffs_itest *t = t_setup(test, &idx, 16);
	struct sffs_zref ref;
	struct sffs_ckey key;
	unsigned int n;
	u64 root;
	u32 len;

	idx.packed = true;
	for (n = 0; n < 2000; n++)
		t_insert(t, &idx, t_rand(t) % T_KEYS);
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &len), 0);
	KUNIT_ASSERT_EQ(test, sffs_index_init(&idx2, &t_ops, t, 16), 0);
	KUNIT_EXPECT_EQ(test, sffs_index_load(&idx2, root, len, idx.height),
			-EUCLEAN);
	sffs_index_destroy(&idx2);
	/* the branches as written, read back with it allowed */
	KUNIT_ASSERT_EQ(test, sffs_index_init(&idx2, &t_ops, t, 16), 0);
	idx2.packed = true;
	KUNIT_ASSERT_EQ(test, sffs_index_load(&idx2, root, len, idx.height), 0);
	for (n = 0; n < T_KEYS; n++) {
		if (!t->model[n])
			continue;
		key = t_key(n);
		KUNIT_ASSERT_EQ(test, sffs_index_lookup(&idx2, &key, &ref), 0);
		KUNIT_EXPECT_EQ(test, ref.addr, t->model[n]);
		KUNIT_EXPECT_EQ(test, ref.len, 100U);
	}
	sffs_index_destroy(&idx2);
	t_teardown(t, &idx);
}

/*
 * Garbage collection asks, for each index node in an erase block, whether
 * the tree still uses it.  After a first commit every node written is in
 * the tree: each must be found, from flash, and dirtied; the next commit
 * then rewrites them all, and the old copies are reported obsolete and
 * no longer found.
 */
static void t_dirty_node_finds_every_live_node(struct kunit *test,
					       bool packed)
{
	struct sffs_index idx, idx2;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	u64 root, p, end, bytes = 0, obsolete;
	unsigned int n, nodes = 0;
	u32 len, root_len;

	idx.packed = packed;
	for (n = 0; n < 3000; n++)
		t_insert(t, &idx, t_rand(t) % T_KEYS);
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &root_len), 0);
	KUNIT_ASSERT_GE(test, idx.height, 4U);
	end = t->head;
	/* only the root stays in RAM: the walks read the rest from flash */
	sffs_index_shrink(&idx, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, idx.nr_znodes, 1UL);

	for (p = 64; p < end; p = ALIGN(p + len, SFFS_NODE_ALIGN)) {
		struct sffs_index_node *ix = (void *)(t->flash + p);
		struct sffs_ckey key = sffs_index_first_key(ix);
		unsigned int level = le16_to_cpu(ix->level);

		len = le32_to_cpu(ix->hdr.len);
		KUNIT_EXPECT_EQ_MSG(test,
				    sffs_index_dirty_node(&idx, p, level, &key),
				    1, "node at %llu, level %u", p, level);
		/* a node at another address is not the tree's */
		KUNIT_EXPECT_EQ(test,
				sffs_index_dirty_node(&idx, p + 8, level, &key),
				0);
		bytes += len;
		nodes++;
	}
	KUNIT_EXPECT_EQ(test, idx.nr_dirty, (unsigned long)nodes);

	obsolete = t->obsolete;
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &root_len), 0);
	KUNIT_EXPECT_EQ(test, t->obsolete - obsolete, bytes);
	KUNIT_EXPECT_GE(test, root, end);
	for (p = 64; p < end; p = ALIGN(p + len, SFFS_NODE_ALIGN)) {
		struct sffs_index_node *ix = (void *)(t->flash + p);
		struct sffs_ckey key = sffs_index_first_key(ix);

		len = le32_to_cpu(ix->hdr.len);
		KUNIT_EXPECT_EQ(test,
				sffs_index_dirty_node(&idx, p,
						      le16_to_cpu(ix->level),
						      &key), 0);
	}
	/* the rewritten tree, read from flash alone, is the same */
	memset(t->flash + 64, 0xff, end - 64);
	KUNIT_ASSERT_EQ(test, sffs_index_init(&idx2, &t_ops, t, 8), 0);
	idx2.packed = packed;
	KUNIT_ASSERT_EQ(test, sffs_index_load(&idx2, root, root_len, idx.height), 0);
	t_check_all(t, &idx2);
	sffs_index_destroy(&idx2);
	t_teardown(t, &idx);
}

static void test_index_dirty_node_finds_every_live_node(struct kunit *test)
{
	t_dirty_node_finds_every_live_node(test, false);
}

static void test_index_packed_dirty_node_finds_every_live_node(struct kunit *test)
{
	t_dirty_node_finds_every_live_node(test, true);
}

static void test_index_shrink_frees_clean_znodes_only(struct kunit *test)
{
	struct sffs_index idx;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	unsigned long before, reads;
	unsigned int n;
	u64 root;
	u32 len;

	for (n = 0; n < 5000; n++)
		t_insert(t, &idx, t_rand(t) % T_KEYS);
	/* nothing is clean before a commit: nothing may go */
	KUNIT_EXPECT_EQ(test, sffs_index_shrink(&idx, ~0UL), 0UL);
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &len), 0);
	before = idx.nr_znodes;
	KUNIT_EXPECT_EQ(test, sffs_index_shrink(&idx, ~0UL), before - 1);
	KUNIT_EXPECT_EQ(test, idx.nr_znodes, 1UL);
	reads = t->reads;
	t_check_all(t, &idx);
	KUNIT_EXPECT_GT(test, t->reads, reads);

	/* a dirty path survives the shrinker, and so do its contents */
	t_insert(t, &idx, 7);
	before = idx.nr_znodes;
	n = sffs_index_shrink(&idx, ~0UL);
	KUNIT_EXPECT_EQ(test, idx.nr_znodes, before - n);
	KUNIT_EXPECT_EQ(test, idx.nr_znodes, (unsigned long)idx.height);
	KUNIT_EXPECT_EQ(test, idx.nr_dirty, (unsigned long)idx.height);
	t_check_all(t, &idx);
	t_teardown(t, &idx);
}

static void test_index_remove_range_removes_exactly_the_range(struct kunit *test)
{
	struct sffs_index idx;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	struct sffs_ckey from = t_key(3 * T_BLOCKS + 100);
	struct sffs_ckey to = t_key(5 * T_BLOCKS + 7);
	unsigned int i, expect = 0;

	for (i = 0; i < 8 * T_BLOCKS; i += 3)
		t_insert(t, &idx, i);
	for (i = 3 * T_BLOCKS + 100; i < 5 * T_BLOCKS + 7; i++) {
		expect += !!t->model[i];
		t->model[i] = 0;
	}
	KUNIT_EXPECT_EQ(test, sffs_index_remove_range(&idx, &from, &to),
			(int)expect);
	t_check_all(t, &idx);
	t_teardown(t, &idx);
}

static void test_index_reports_replaced_and_removed_nodes(struct kunit *test)
{
	struct sffs_index idx;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	struct sffs_ckey key = t_key(1);

	t_insert(t, &idx, 1);
	KUNIT_EXPECT_EQ(test, t->obsolete, 0ULL);
	t_insert(t, &idx, 1);		/* a new version of the same key */
	KUNIT_EXPECT_EQ(test, t->obsolete, 100ULL);
	KUNIT_EXPECT_EQ(test, sffs_index_remove(&idx, &key), 0);
	KUNIT_EXPECT_EQ(test, t->obsolete, 200ULL);
	t_teardown(t, &idx);
}

static void test_index_empties_and_refills(struct kunit *test)
{
	struct sffs_index idx;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	unsigned int i;
	u64 root;
	u32 len;

	for (i = 0; i < 3000; i++)
		t_insert(t, &idx, i);
	KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root, &len), 0);
	for (i = 0; i < 3000; i++) {
		struct sffs_ckey key = t_key(i);

		KUNIT_ASSERT_EQ(test, sffs_index_remove(&idx, &key), 0);
		t->model[i] = 0;
	}
	KUNIT_EXPECT_EQ(test, idx.height, 1U);
	KUNIT_EXPECT_EQ(test, idx.nr_znodes, 1UL);
	/* an empty index cannot be committed: SFFS always has its root */
	KUNIT_EXPECT_EQ(test, sffs_index_commit(&idx, &root, &len), -EINVAL);
	for (i = 0; i < 3000; i += 2)
		t_insert(t, &idx, T_KEYS - 1 - i);
	t_check_all(t, &idx);
	t_teardown(t, &idx);
}

static void test_index_cache_stays_within_its_bound(struct kunit *test)
{
	struct sffs_index idx;
	struct sffs_itest *t = t_setup(test, &idx, 8);
	unsigned int n;
	u64 root;
	u32 len;

	idx.max_clean = 8;
	for (n = 0; n < 20000; n++) {
		unsigned int i = t_rand(t) % T_KEYS;
		struct sffs_ckey key = t_key(i);
		struct sffs_zref ref;

		if (n % 3) {
			t_insert(t, &idx, i);
		} else {
			KUNIT_ASSERT_EQ(test, sffs_index_lookup(&idx, &key, &ref),
					t->model[i] ? 0 : -ENOENT);
		}
		KUNIT_ASSERT_LE(test, idx.nr_znodes - idx.nr_dirty, 8UL);
		if (n % 1000 == 999)
			KUNIT_ASSERT_EQ(test, sffs_index_commit(&idx, &root,
								&len), 0);
	}
	t_check_all(t, &idx);
	KUNIT_EXPECT_LE(test, idx.nr_znodes - idx.nr_dirty, 8UL);
	t_teardown(t, &idx);
}

static struct kunit_case sffs_index_cases[] = {
	KUNIT_CASE(test_index_cache_stays_within_its_bound),
	KUNIT_CASE(test_index_random_ops_match_model),
	KUNIT_CASE(test_index_commit_then_load_reads_same_tree),
	KUNIT_CASE(test_index_packed_commit_then_load_reads_same_tree),
	KUNIT_CASE(test_index_packed_falls_back_to_plain),
	KUNIT_CASE(test_index_packed_node_needs_the_feature),
	KUNIT_CASE(test_index_dirty_node_finds_every_live_node),
	KUNIT_CASE(test_index_packed_dirty_node_finds_every_live_node),
	KUNIT_CASE(test_index_shrink_frees_clean_znodes_only),
	KUNIT_CASE(test_index_remove_range_removes_exactly_the_range),
	KUNIT_CASE(test_index_reports_replaced_and_removed_nodes),
	KUNIT_CASE(test_index_empties_and_refills),
	{}
};

static struct kunit_suite sffs_index_suite = {
	.name = "sffs_index",
	.test_cases = sffs_index_cases,
};

kunit_test_suite(sffs_index_suite);
