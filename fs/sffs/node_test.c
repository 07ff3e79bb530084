// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of SFFS node encoding: checksums, validation, keys.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include "node.h"

static void *sffs_test_dentry(struct kunit *test, const char *name, u32 *len)
{
	size_t nlen = strlen(name);
	struct sffs_dentry_node *de;
	struct sffs_ckey key = sffs_key(2, SFFS_KEY_DENTRY, 77);

	*len = sizeof(*de) + nlen;
	de = kunit_kzalloc(test, *len + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, de);
	sffs_key_to_le(&de->key, &key);
	de->target = cpu_to_le64(42);
	de->name_len = cpu_to_le16(nlen);
	memcpy(de->name, name, nlen);
	sffs_node_seal(de, SFFS_NODE_DENTRY, *len, 9, 0);
	return de;
}

static void test_crc_is_crc32c_without_final_xor(struct kunit *test)
{
	/* crc32c("123456789") is 0xe3069283 with the final inversion */
	KUNIT_EXPECT_EQ(test, sffs_crc("123456789", 9), ~0xe3069283U);
	KUNIT_EXPECT_EQ(test, sffs_crc("", 0), SFFS_CRC_SEED);
}

static void test_sealed_node_checks(struct kunit *test)
{
	u32 len;
	struct sffs_dentry_node *de = sffs_test_dentry(test, "hello", &len);
	struct sffs_ckey key;

	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len), 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len + 64), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(de->hdr.sqnum), 9ULL);
	KUNIT_ASSERT_EQ(test, sffs_node_key(de, &key), 0);
	KUNIT_EXPECT_EQ(test, key.ino, 2ULL);
	KUNIT_EXPECT_EQ(test, sffs_key_type(&key), (unsigned int)SFFS_KEY_DENTRY);
	KUNIT_EXPECT_EQ(test, sffs_key_value(&key), 77ULL);
}

static void test_torn_payload_is_detected(struct kunit *test)
{
	u32 len;
	struct sffs_dentry_node *de = sffs_test_dentry(test, "hello", &len);

	de->name[2] ^= 0x10;
	KUNIT_EXPECT_EQ(test, sffs_node_check_hdr(de, len), 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len), -EUCLEAN);
}

static void test_torn_header_is_detected(struct kunit *test)
{
	u32 len;
	struct sffs_dentry_node *de = sffs_test_dentry(test, "hello", &len);

	de->hdr.len = cpu_to_le32(len + 8);
	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len + 64), -EUCLEAN);
}

static void test_node_longer_than_space_is_rejected(struct kunit *test)
{
	u32 len;
	struct sffs_dentry_node *de = sffs_test_dentry(test, "hello", &len);

	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len - 1), -EUCLEAN);
	KUNIT_EXPECT_EQ(test, sffs_node_check(de, 16), -EUCLEAN);
}

static void test_erased_flash_is_not_a_node(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xff, 64);
	KUNIT_EXPECT_EQ(test, sffs_node_check(buf, 64), -ENODATA);
	memset(buf, 0, 64);
	KUNIT_EXPECT_EQ(test, sffs_node_check(buf, 64), -EUCLEAN);
}

static void test_inner_lengths_are_checked(struct kunit *test)
{
	u32 len;
	struct sffs_dentry_node *de = sffs_test_dentry(test, "hello", &len);

	/* a consistent checksum does not make a wrong name length right */
	de->name_len = cpu_to_le16(6);
	sffs_node_seal(de, SFFS_NODE_DENTRY, len, 9, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len), -EUCLEAN);
	de->name_len = cpu_to_le16(0);
	sffs_node_seal(de, SFFS_NODE_DENTRY, len, 9, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(de, len), -EUCLEAN);
}

static void test_data_node_sizes(struct kunit *test)
{
	size_t max = sizeof(struct sffs_data_node) + SFFS_BLOCK_SIZE;
	struct sffs_data_node *dn = kunit_kzalloc(test, max + 8, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dn);
	dn->size = cpu_to_le32(100);
	sffs_node_seal(dn, SFFS_NODE_DATA, sizeof(*dn) + 100, 1, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(dn, max), 0);
	/* raw data must be exactly as long as the block */
	sffs_node_seal(dn, SFFS_NODE_DATA, sizeof(*dn) + 99, 1, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(dn, max), -EUCLEAN);
	/* compressed data may be shorter, never larger than a block */
	dn->compr = SFFS_COMPR_LZO;
	sffs_node_seal(dn, SFFS_NODE_DATA, sizeof(*dn) + 99, 1, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(dn, max), 0);
	dn->size = cpu_to_le32(SFFS_BLOCK_SIZE + 1);
	sffs_node_seal(dn, SFFS_NODE_DATA, sizeof(*dn) + 99, 1, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(dn, max), -EUCLEAN);
	dn->size = cpu_to_le32(100);
	dn->compr = SFFS_COMPR_TYPES;
	sffs_node_seal(dn, SFFS_NODE_DATA, sizeof(*dn) + 99, 1, 0);
	KUNIT_EXPECT_EQ(test, sffs_node_check(dn, max), -EUCLEAN);
}

static void test_keys_sort_by_inode_then_type(struct kunit *test)
{
	struct sffs_ckey a = sffs_key(5, SFFS_KEY_DATA, ~0ULL);
	struct sffs_ckey b = sffs_key(5, SFFS_KEY_DENTRY, 0);
	struct sffs_ckey c = sffs_key(6, SFFS_KEY_INODE, 0);

	KUNIT_EXPECT_EQ(test, sffs_key_value(&a), SFFS_KEY_VALUE_MASK);
	KUNIT_EXPECT_EQ(test, sffs_key_type(&a), (unsigned int)SFFS_KEY_DATA);
	KUNIT_EXPECT_LT(test, sffs_key_cmp(&a, &b), 0);
	KUNIT_EXPECT_LT(test, sffs_key_cmp(&b, &c), 0);
	KUNIT_EXPECT_GT(test, sffs_key_cmp(&c, &a), 0);
	KUNIT_EXPECT_EQ(test, sffs_key_cmp(&c, &c), 0);
}

#define T_PBR	64

/* Seal @n branches of @b as a packed index node in @ix; its length or 0 */
static u32 t_pack(struct sffs_index_node *ix, const struct sffs_ibranch *b,
		  unsigned int n, u32 room)
{
	u8 *p = (u8 *)ix->branch, *end = (u8 *)ix + room;
	struct sffs_ibranch prev = { 0 };
	unsigned int i;
	u32 len;

	memset(ix, 0, room);
	for (i = 0; p && i < n; i++)
		p = sffs_ipack(p, end, &prev, &b[i]);
	if (!p)
		return 0;
	ix->count = cpu_to_le16(n);
	ix->flags = SFFS_INDEX_PACKED;
	len = p - (u8 *)ix;
	sffs_node_seal(ix, SFFS_NODE_INDEX, len, 1, 0);
	return len;
}

/* Reseal @ix after a change, as a writer that got it wrong would */
static void t_reseal(struct sffs_index_node *ix, u32 len)
{
	sffs_node_seal(ix, SFFS_NODE_INDEX, len, 1, 0);
}

/*
 * Packed index nodes: branches of every shape come back as they went in
 * (the next block of a file, far inodes, addresses going down, lengths
 * at both ends of their range, keys and addresses at the top of u64),
 * and a stream that ends early, goes on past its count, holds a number
 * of more than 10 bytes or a length past u32, or a flag this kernel does
 * not know, fails the node check.
 */
static void test_packed_index_nodes(struct kunit *test)
{
	size_t room = sizeof(struct sffs_index_node) +
		      T_PBR * sizeof(struct sffs_branch);
	struct sffs_index_node *ix = kunit_kzalloc(test, room, GFP_KERNEL);
	struct sffs_ibranch *b = kunit_kcalloc(test, T_PBR, sizeof(*b),
					       GFP_KERNEL);
	struct sffs_ibranch got = { 0 }, odd = { .addr = 12 }, pair[2];
	struct rnd_state rnd;
	const u8 *q, *end;
	unsigned int i;
	u8 tmp[16];
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, ix);
	KUNIT_ASSERT_NOT_NULL(test, b);
	prandom_seed_state(&rnd, 7);
	for (i = 0; i < T_PBR; i++) {
		struct sffs_ibranch *x = &b[i];

		switch (i % 4) {
		case 0:	/* the next block of the file */
			*x = i ? b[i - 1] : (struct sffs_ibranch){ 20, 1, 64, 4152 };
			x->tv++;
			x->addr += 4160;
			break;
		case 1:	/* a far inode, an address further down */
			x->ino = b[i - 1].ino + prandom_u32_state(&rnd) + 1;
			x->tv = prandom_u32_state(&rnd);
			x->addr = (b[i - 1].addr -
				   (prandom_u32_state(&rnd) & ~7U)) & ~7ULL;
			x->len = U32_MAX;
			break;
		case 2:	/* the same inode, the shortest length */
			*x = b[i - 1];
			x->tv += ((u64)prandom_u32_state(&rnd) << 28) + 1;
			x->len = 0;
			break;
		case 3:	/* a key near the top, an address up high */
			x->ino = b[i - 1].ino + (1ULL << 40);
			x->tv = U64_MAX - i;
			x->addr = U64_MAX & ~7ULL;
			x->len = 33;
			break;
		}
	}
	len = t_pack(ix, b, T_PBR, room);
	KUNIT_ASSERT_GT(test, len, 0U);
	KUNIT_EXPECT_LT(test, (size_t)len, room);
	KUNIT_EXPECT_EQ(test, sffs_node_check(ix, len), 0);
	q = (const u8 *)ix->branch;
	end = (const u8 *)ix + len;
	for (i = 0; i < T_PBR; i++) {
		KUNIT_ASSERT_EQ(test, sffs_iunpack(&q, end, &got), 0);
		KUNIT_EXPECT_EQ_MSG(test, got.ino, b[i].ino, "branch %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got.tv, b[i].tv, "branch %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got.addr, b[i].addr, "branch %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got.len, b[i].len, "branch %u", i);
	}
	KUNIT_EXPECT_PTR_EQ(test, q, end);

	/*
	 * The next block of a file, its node right after the one before,
	 * takes 5 bytes: inode and block differences of 0 and 1, the
	 * address 4160 bytes on (2 bytes), the same length.
	 */
	pair[0] = b[0];
	pair[1] = b[0];
	pair[1].tv++;
	pair[1].addr += 4160;
	KUNIT_EXPECT_EQ(test, t_pack(ix, pair, 1, room), (u32)sizeof(*ix) + 6);
	KUNIT_EXPECT_EQ(test, t_pack(ix, pair, 2, room),
			(u32)sizeof(*ix) + 6 + 5);

	/* the stream one byte short, one byte long, one branch short */
	len = t_pack(ix, b, T_PBR, room);
	t_reseal(ix, len - 1);
	KUNIT_EXPECT_EQ(test, sffs_node_check(ix, len - 1), -EUCLEAN);
	len = t_pack(ix, b, T_PBR, room);
	t_reseal(ix, len + 1);
	KUNIT_EXPECT_EQ(test, sffs_node_check(ix, len + 1), -EUCLEAN);
	len = t_pack(ix, b, T_PBR, room);
	ix->count = cpu_to_le16(T_PBR + 1);
	t_reseal(ix, len);
	KUNIT_EXPECT_EQ(test, sffs_node_check(ix, len), -EUCLEAN);
	/* a flag this kernel does not know */
	len = t_pack(ix, b, T_PBR, room);
	ix->flags |= 0x02;
	t_reseal(ix, len);
	KUNIT_EXPECT_EQ(test, sffs_node_check(ix, len), -EUCLEAN);

	/*
	 * A number that goes on past its tenth byte; one whose tenth byte
	 * holds more than bit 63
	 */
	memset(tmp, 0x80, sizeof(tmp));
	tmp[10] = 0;
	q = tmp;
	KUNIT_EXPECT_EQ(test, sffs_iunpack(&q, tmp + 11, &got), -1);
	memset(tmp, 0xff, 9);
	tmp[9] = 0x02;
	memset(tmp + 10, 0, 3);	/* the other three numbers of the branch */
	q = tmp;
	KUNIT_EXPECT_EQ(test, sffs_iunpack(&q, tmp + 13, &got), -1);
	tmp[9] = 0x01;	/* U64_MAX: an inode delta that decodes */
	got = (struct sffs_ibranch){ 0 };
	q = tmp;
	KUNIT_EXPECT_EQ(test, sffs_iunpack(&q, tmp + 13, &got), 0);
	KUNIT_EXPECT_EQ(test, got.ino, U64_MAX);
	/* a length below 0 */
	memset(tmp, 0, 3);
	tmp[3] = 1;	/* zigzag of -1 */
	got = (struct sffs_ibranch){ 0 };
	q = tmp;
	KUNIT_EXPECT_EQ(test, sffs_iunpack(&q, tmp + 4, &got), -1);

	/* an address off the node alignment cannot be packed */
	KUNIT_EXPECT_PTR_EQ(test, sffs_ipack(tmp, tmp + sizeof(tmp), &got, &odd),
			    (u8 *)NULL);
}

/* Seal @n records of @r as a packed table page in @en; its length or 0 */
static u32 t_epack(struct sffs_ebt_node *en, const struct sffs_erec *r,
		   unsigned int n, u32 room)
{
	u8 *p = (u8 *)en->rec, *end = (u8 *)en + room;
	struct sffs_erec prev = { 0 };
	unsigned int i;
	u32 len;

	memset(en, 0, room);
	for (i = 0; p && i < n; i++)
		p = sffs_epack(p, end, &prev, &r[i]);
	if (!p)
		return 0;
	en->count = cpu_to_le32(n);
	len = p - (u8 *)en;
	sffs_node_seal(en, SFFS_NODE_EBT, len, 1, SFFS_EBT_FL_PACKED);
	return len;
}

/*
 * Packed table pages: records of every shape come back as they went in
 * (erase counts and ages up and down, at 0 and U32_MAX, every state, live
 * bytes at both ends), and a stream one byte short or long, or holding an
 * erase count past u32 or a state past a byte, fails the node check.
 */
static void test_packed_table_pages(struct kunit *test)
{
	size_t room = sizeof(struct sffs_ebt_node) +
		      SFFS_EBT_RECS * sizeof(struct sffs_eb_rec);
	struct sffs_ebt_node *en = kunit_kzalloc(test, room, GFP_KERNEL);
	struct sffs_erec *r = kunit_kcalloc(test, SFFS_EBT_RECS, sizeof(*r),
					    GFP_KERNEL);
	struct sffs_erec got = { 0 };
	struct rnd_state rnd;
	const u8 *q, *end;
	unsigned int i;
	u8 tmp[16];
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, en);
	KUNIT_ASSERT_NOT_NULL(test, r);
	prandom_seed_state(&rnd, 11);
	for (i = 0; i < SFFS_EBT_RECS; i++) {
		u32 x = prandom_u32_state(&rnd);

		r[i].ec = i % 5 == 0 ? x : i % 5 == 1 ? U32_MAX : i % 7;
		r[i].state = i % 3 ? i % 6 : 255 - i;
		r[i].live = i % 4 == 0 ? 0 : i % 4 == 1 ? U32_MAX : x >> 15;
		r[i].age = i % 2 ? x : 1000 + i;
	}
	len = t_epack(en, r, SFFS_EBT_RECS, room);
	KUNIT_ASSERT_GT(test, len, 0U);
	KUNIT_EXPECT_EQ(test, sffs_node_check(en, len), 0);
	q = (const u8 *)en->rec;
	end = (const u8 *)en + len;
	for (i = 0; i < SFFS_EBT_RECS; i++) {
		KUNIT_ASSERT_EQ(test, sffs_eunpack(&q, end, &got), 0);
		KUNIT_EXPECT_EQ_MSG(test, got.ec, r[i].ec, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got.state, r[i].state, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got.live, r[i].live, "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got.age, r[i].age, "record %u", i);
	}
	KUNIT_EXPECT_PTR_EQ(test, q, end);

	/* one byte short, one byte long */
	len = t_epack(en, r, SFFS_EBT_RECS, room);
	sffs_node_seal(en, SFFS_NODE_EBT, len - 1, 1, SFFS_EBT_FL_PACKED);
	KUNIT_EXPECT_EQ(test, sffs_node_check(en, len - 1), -EUCLEAN);
	len = t_epack(en, r, SFFS_EBT_RECS, room);
	sffs_node_seal(en, SFFS_NODE_EBT, len + 1, 1, SFFS_EBT_FL_PACKED);
	KUNIT_EXPECT_EQ(test, sffs_node_check(en, len + 1), -EUCLEAN);

	/* a header flag a table page does not know */
	len = t_epack(en, r, SFFS_EBT_RECS, room);
	sffs_node_seal(en, SFFS_NODE_EBT, len, 1, SFFS_EBT_FL_PACKED | 0x02);
	KUNIT_EXPECT_EQ(test, sffs_node_check(en, len), -EUCLEAN);

	/* an erase count of 2^32, a state of 256 */
	memset(tmp, 0, sizeof(tmp));
	tmp[0] = 0x80;
	tmp[1] = 0x80;
	tmp[2] = 0x80;
	tmp[3] = 0x80;
	tmp[4] = 0x20;	/* zigzag of 2^32 */
	q = tmp;
	got = (struct sffs_erec){ 0 };
	KUNIT_EXPECT_EQ(test, sffs_eunpack(&q, tmp + 8, &got), -1);
	memset(tmp, 0, sizeof(tmp));
	tmp[1] = 0x80;
	tmp[2] = 0x02;	/* 256 */
	q = tmp;
	got = (struct sffs_erec){ 0 };
	KUNIT_EXPECT_EQ(test, sffs_eunpack(&q, tmp + 5, &got), -1);
	tmp[2] = 0x01;	/* 128 */
	q = tmp;
	got = (struct sffs_erec){ 0 };
	KUNIT_EXPECT_EQ(test, sffs_eunpack(&q, tmp + 5, &got), 0);
	KUNIT_EXPECT_EQ(test, got.state, 128);
}

static struct kunit_case sffs_node_cases[] = {
	KUNIT_CASE(test_crc_is_crc32c_without_final_xor),
	KUNIT_CASE(test_sealed_node_checks),
	KUNIT_CASE(test_torn_payload_is_detected),
	KUNIT_CASE(test_torn_header_is_detected),
	KUNIT_CASE(test_node_longer_than_space_is_rejected),
	KUNIT_CASE(test_erased_flash_is_not_a_node),
	KUNIT_CASE(test_inner_lengths_are_checked),
	KUNIT_CASE(test_data_node_sizes),
	KUNIT_CASE(test_keys_sort_by_inode_then_type),
	KUNIT_CASE(test_packed_index_nodes),
	KUNIT_CASE(test_packed_table_pages),
	{}
};

static struct kunit_suite sffs_node_suite = {
	.name = "sffs_node",
	.test_cases = sffs_node_cases,
};

kunit_test_suite(sffs_node_suite);
