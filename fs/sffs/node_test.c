// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of SFFS node encoding: checksums, validation, keys.
 */
#include <kunit/test.h>
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
	{}
};

static struct kunit_suite sffs_node_suite = {
	.name = "sffs_node",
	.test_cases = sffs_node_cases,
};

kunit_test_suite(sffs_node_suite);
