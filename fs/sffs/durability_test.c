// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of what SFFS leaves on the flash when the power goes or a
 * step of an operation fails: files replaced by a rename or rewritten
 * after O_TRUNC without fsync, sizes and data after a cut, truncations,
 * the buffers of a commit, and an operation the index cannot take.
 *
 * The power is cut by the RAM flash itself (test_flash.c), below the
 * file system: from the cut on, programs and erases change nothing, the
 * page being programmed is left half written, and what SFFS still holds
 * in RAM is lost when it is unmounted.  The mount after the cut sees only
 * what the flash holds.
 */
#include <kunit/test.h>
#include <linux/fault-inject.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/vmalloc.h>
#include <linux/xattr.h>
#include "sffs.h"
#include "test_flash.h"

/*
 * The power goes now: what SFFS has not programmed yet is lost, whatever
 * it does before it is unmounted.
 */
static void cut_now(struct sffs_ramflash *rf, struct vfsmount *mnt)
{
	rf->dead = true;
	sffs_rf_umount(mnt);
	rf->dead = false;
	rf->cut_in = 0;
}

/* Read @name whole into @buf (at most @max bytes); its size, or an error */
static ssize_t read_all(struct vfsmount *mnt, const char *name, u8 *buf,
			size_t max)
{
	struct file *f = file_open_root_mnt(mnt, name, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, max, &pos);
	__fput_sync(f);
	return n;
}

#define RO_OLD_LEN	6000
#define RO_NEW_LEN	40000

/*
 * How configuration is saved: a new file is written and renamed over the
 * old one, without fsync (busybox "sed -i", many editors), then "sync".
 * The power is cut at every flash write from the rename to the end of the
 * sync.  Afterwards the name holds
 * the old contents or all of the new ones: never the new size with holes
 * that read as zeroes, which is what a rename journaled before the data
 * left (the run of NUL bytes seen with real power cuts).
 */
static void sffs_durability_rename_over_unsynced(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t size = (size_t)RF_BLOCKS * RF_ERASESIZE;
	u8 *old = kunit_kmalloc(test, RO_OLD_LEN, GFP_KERNEL);
	u8 *new = kunit_kmalloc(test, RO_NEW_LEN, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, RO_NEW_LEN + 1, GFP_KERNEL);
	u16 *pages = kunit_kmalloc(test, sizeof(rf->next_page), GFP_KERNEL);
	u8 *snap = vmalloc(size);
	unsigned int cut, saw_old = 0, saw_new = 0;
	struct vfsmount *mnt;
	bool last = false;
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, new);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	sffs_test_fill(old, RO_OLD_LEN, 1, true);
	sffs_test_fill(new, RO_NEW_LEN, 2, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "conf", old,
						   RO_OLD_LEN, true), 0);
	sffs_rf_umount(mnt);
	memcpy(snap, rf->mem, size);
	memcpy(pages, rf->next_page, sizeof(rf->next_page));

	for (cut = 1; !last; cut++) {
		memcpy(rf->mem, snap, size);
		memcpy(rf->next_page, pages, sizeof(rf->next_page));
		mnt = sffs_rf_mount(rf, "compr=none");
		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "conf.new", new,
							   RO_NEW_LEN, false), 0);
		/* from the rename on, which writes the new data first */
		rf->cut_in = cut;
		KUNIT_ASSERT_EQ(test, sffs_test_rename(mnt, "conf.new", "conf"), 0);
		down_read(&mnt->mnt_sb->s_umount);
		sync_filesystem(mnt->mnt_sb);
		up_read(&mnt->mnt_sb->s_umount);
		last = !rf->dead;
		cut_now(rf, mnt);

		mnt = sffs_rf_mount(rf, NULL);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "cut %u: mount %ld",
				       cut, PTR_ERR(mnt));
		n = read_all(mnt, "conf", tmp, RO_NEW_LEN + 1);
		if (n == RO_OLD_LEN && !memcmp(tmp, old, n))
			saw_old++;
		else if (n == RO_NEW_LEN && !memcmp(tmp, new, n))
			saw_new++;
		else
			KUNIT_FAIL(test,
				   "cut %u: conf holds %zd bytes, neither the old %u nor the new %u",
				   cut, n, RO_OLD_LEN, RO_NEW_LEN);
		sffs_test_check_space(test, mnt, "rename over", cut);
		sffs_test_check_free(test, mnt, "rename over", cut);
		sffs_rf_umount(mnt);
		KUNIT_ASSERT_EQ_MSG(test, rf->violations, 0U, "cut %u", cut);
	}
	vfree(snap);
	/* the cuts covered the whole sync: both outcomes were seen */
	KUNIT_EXPECT_GT(test, saw_old, 0U);
	KUNIT_EXPECT_GT(test, saw_new, 0U);
	kunit_info(test, "%u cut points: old contents %u times, new %u\n",
		   cut - 1, saw_old, saw_new);
}

/*
 * A file rewritten in place (open with O_TRUNC, write, close, no fsync),
 * then the journal goes to the flash because something else was synced:
 * the file's data went out when it was closed, so the cut does not leave
 * it empty.
 */
static void sffs_durability_rewrite_after_trunc(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	u8 *old = kunit_kmalloc(test, RO_OLD_LEN, GFP_KERNEL);
	u8 *new = kunit_kmalloc(test, RO_NEW_LEN, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, RO_NEW_LEN + 1, GFP_KERNEL);
	struct vfsmount *mnt;

	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, new);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(old, RO_OLD_LEN, 3, true);
	sffs_test_fill(new, RO_NEW_LEN, 4, true);
	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "conf", old,
						   RO_OLD_LEN, true), 0);
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "conf", new,
						   RO_NEW_LEN, false), 0);
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "other", old,
						   RO_OLD_LEN, true), 0);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "conf", new, RO_NEW_LEN,
						   tmp), 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * An inode node journaled while the file's pages are still in the page
 * cache (here by setxattr; writeback's write_inode, chmod and renames do
 * it too) must not give the flash a size its data has not reached: after
 * a cut the file holds a prefix of what was written, never zeroes in its
 * place.
 */
static void sffs_durability_size_not_ahead_of_data(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 32768;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(buf, len, 5, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	f = file_open_root_mnt(mnt, "f", O_CREAT | O_WRONLY, 0644);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, kernel_write(f, buf, len, &pos), (ssize_t)len);
	/* the second half goes out, the first stays in the page cache */
	KUNIT_EXPECT_EQ(test, filemap_fdatawrite_range(f->f_mapping, len / 2,
						       len - 1), 0);
	KUNIT_EXPECT_EQ(test, vfs_setxattr(&init_user_ns, f->f_path.dentry,
					   "user.x", "1", 1, 0), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
	__fput_sync(f);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	n = read_all(mnt, "f", tmp, len + 1);
	KUNIT_EXPECT_GE(test, n, 0);
	KUNIT_EXPECT_LE(test, n, (ssize_t)len);
	if (n > 0)
		KUNIT_EXPECT_EQ_MSG(test, memcmp(tmp, buf, n), 0,
				    "%zd bytes, not what was written", n);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * A file appended to with a ranged fsync (as O_DSYNC writes do) while an
 * earlier block of it is dirty and not synced: the size on the flash
 * must cover the block synced, whatever the dirty block below it.
 */
static void sffs_durability_ranged_fsync(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 4096;
	u8 *buf = kunit_kmalloc(test, 3 * len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, 2 * len + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	struct file *f;
	loff_t pos;
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(buf, 3 * len, 12, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "f", buf, len, true), 0);
	f = file_open_root_mnt(mnt, "f", O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(f, buf + 2 * len, len, &pos),
			(ssize_t)len);
	KUNIT_EXPECT_EQ(test, kernel_write(f, buf + len, len, &pos),
			(ssize_t)len);
	KUNIT_EXPECT_EQ(test, vfs_fsync_range(f, len, 2 * len - 1, 1), 0);
	__fput_sync(f);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	n = read_all(mnt, "f", tmp, 2 * len + 1);
	KUNIT_EXPECT_EQ(test, n, (ssize_t)(2 * len));
	/* block 0 old or new; block 1 synced */
	KUNIT_EXPECT_TRUE(test, !memcmp(tmp, buf, len) ||
			  !memcmp(tmp, buf + 2 * len, len));
	KUNIT_EXPECT_EQ(test, memcmp(tmp + len, buf + len, len), 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * A shrinking truncation journaled, then the power goes before anything
 * else is written; the file is then grown again and the power goes once
 * more.  The bytes past the size it was cut to read as zeroes: the block
 * the size ends in was rewritten with the truncation, not left to the
 * page cache.
 */
static void sffs_durability_truncate_then_grow(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 3 * 4096, cut = 5000;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kzalloc(test, len + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	struct file *f;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(buf, len, 6, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "f", buf, len, true), 0);
	f = file_open_root_mnt(mnt, "f", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, vfs_truncate(&f->f_path, cut), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
	__fput_sync(f);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	f = file_open_root_mnt(mnt, "f", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, i_size_read(file_inode(f)), (loff_t)cut);
	KUNIT_EXPECT_EQ(test, vfs_truncate(&f->f_path, len), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
	__fput_sync(f);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	memset(buf + cut, 0, len - cut);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "f", buf, len, tmp), 0);
	sffs_test_check_space(test, mnt, "truncated", 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * Blocks written back past the size on the flash, whose inode node the
 * power cut: the mount keeps the old size.  When the file then grows
 * past those blocks without writing them, they must read as zeroes, not
 * as the data that lost its size.
 */
static void sffs_durability_stale_blocks_dropped(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 4096, grown = 20001;
	u8 *buf = kunit_kzalloc(test, grown, GFP_KERNEL);
	u8 *more = kunit_kmalloc(test, 2 * len, GFP_KERNEL);
	u8 *tmp = kunit_kzalloc(test, grown + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	struct file *f;
	loff_t pos = len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, more);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(buf, len, 7, false);
	sffs_test_fill(more, 2 * len, 8, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "f", buf, len, true), 0);
	f = file_open_root_mnt(mnt, "f", O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, kernel_write(f, more, 2 * len, &pos),
			(ssize_t)(2 * len));
	/* block 1 goes out; block 2, and so the new size, do not */
	KUNIT_EXPECT_EQ(test, filemap_fdatawrite_range(f->f_mapping, len,
						       2 * len - 1), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
	__fput_sync(f);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	f = file_open_root_mnt(mnt, "f", O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, i_size_read(file_inode(f)), (loff_t)len);
	pos = grown - 1;
	KUNIT_EXPECT_EQ(test, kernel_write(f, more, 1, &pos), 1);
	KUNIT_EXPECT_EQ(test, vfs_fsync(f, 0), 0);
	__fput_sync(f);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	buf[grown - 1] = more[0];
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "f", buf, grown, tmp), 0);
	sffs_test_check_space(test, mnt, "stale", 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

#define PUT_LEN		1000

/*
 * A commit builds each index node in the index's buffer and each table
 * page in the table's, then appends it.  When the node does not fit in
 * the erase block of the write head and the commit has no spare block,
 * the frontier is used up and the free pool is empty, taking a block
 * scans the table, which reads table pages and index nodes into those
 * same buffers.  What is appended must still be the node built.
 */
static void sffs_durability_commit_put_keeps_node(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	u8 *want = kunit_kmalloc(test, PUT_LEN, GFP_KERNEL);
	u8 *got = kunit_kmalloc(test, PUT_LEN, GFP_KERNEL);
	u8 *buf = kunit_kmalloc(test, 65536, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, 65537, GFP_KERNEL);
	u32 spare[SFFS_MAX_SPARES];
	unsigned int nspare, k, i;
	struct sffs_journal *j;
	struct vfsmount *mnt;
	struct sffs_info *c;
	char name[16];

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		sffs_test_fill(buf, 65536, i, false);
		KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, name, buf, 65536,
							   true), 0);
	}
	c = SFFS_SB(mnt->mnt_sb);
	j = &c->j;
	sffs_lock(c);
	/*
	 * The state inside a commit on an aged device: no spares, no block
	 * past the frontier, and a pool the next block must be scanned for.
	 * The blocks past the real frontier are free in the table, so the
	 * scan finds them.
	 */
	j->in_commit = true;
	nspare = j->nspare;
	memcpy(spare, j->spare, sizeof(spare));
	j->nspare = 0;
	j->alloc_eb = j->io->eb_count;
	for (k = 0; k < 2; k++) {
		void *node = k ? j->idx.buf : (void *)j->ebt_buf;
		unsigned long scans = j->gc.scans;
		u64 addr;
		int err;

		/* the scan reads index nodes too, not only cached znodes */
		sffs_index_shrink(&j->idx, ULONG_MAX);
		j->npool = 0;
		/* through the blocks of the journal list, to one to take */
		for (i = 0; j->gc.scans == scans &&
		     i < RF_BLOCKS * (RF_ERASESIZE / PUT_LEN); i++) {
			sffs_test_fill(node, PUT_LEN, 100 * k + i, false);
			memcpy(want, node, PUT_LEN);
			err = sffs_journal_put(j, node, PUT_LEN, SFFS_NODE_PAD,
					       0, &addr);
			KUNIT_ASSERT_EQ(test, err, 0);
			KUNIT_ASSERT_EQ(test, sffs_io_read(j->io, addr, got,
							   PUT_LEN), 0);
			/* the header is the journal's; the rest the node's */
			KUNIT_EXPECT_EQ_MSG(test,
					    memcmp(got + sizeof(struct sffs_node_hdr),
						   want + sizeof(struct sffs_node_hdr),
						   PUT_LEN - sizeof(struct sffs_node_hdr)),
					    0, "%s buffer, node %u",
					    k ? "index" : "table", i);
		}
		KUNIT_EXPECT_GT(test, j->gc.scans, scans);
	}
	memcpy(j->spare, spare, sizeof(spare));
	j->nspare = nspare;
	j->in_commit = false;
	sffs_unlock(c);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		sffs_test_fill(buf, 65536, i, false);
		KUNIT_EXPECT_EQ_MSG(test, sffs_test_check_file(mnt, name, buf,
							       65536, tmp),
				    0, "%s", name);
	}
	sffs_test_check_space(test, mnt, "commit put", 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * An operation journaled that the index cannot take whole (here a read
 * error on every block while the index reads the path to the new key)
 * turns the file system read-only: the caller cannot undo what is in the
 * journal, and committing a half-applied index would save it.  The
 * synced files are intact at the next mount.
 */
static void sffs_durability_apply_error_readonly(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 3 * 4096;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	struct sffs_info *c;
	struct file *f;
	char name[16];
	loff_t pos;
	int i, err;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(buf, len, 9, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	/* enough keys for an index of more than one level */
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, name, buf, 8,
							   false), 0);
	}
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "a", buf, len, true), 0);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	c = SFFS_SB(mnt->mnt_sb);
	KUNIT_ASSERT_GT(test, c->j.idx.height, 1U);
	f = file_open_root_mnt(mnt, "a", O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	sffs_lock(c);
	sffs_index_shrink(&c->j.idx, ULONG_MAX);
	sffs_unlock(c);
	bitmap_fill(rf->broken, RF_BLOCKS);
	/* a whole block rewritten: nothing is read before it is journaled */
	pos = 4096;
	KUNIT_EXPECT_EQ(test, kernel_write(f, buf + 4096, 4096, &pos), 4096);
	err = vfs_fsync(f, 0);
	KUNIT_EXPECT_LT(test, err, 0);
	KUNIT_EXPECT_TRUE(test, c->j.broken);
	KUNIT_EXPECT_TRUE(test, c->io.ro);
	/* read-only for the VFS too, as /proc/mounts shows */
	KUNIT_EXPECT_TRUE(test, sb_rdonly(mnt->mnt_sb));
	bitmap_zero(rf->broken, RF_BLOCKS);
	/* and a remount read-write is refused: only a new mount writes */
	KUNIT_EXPECT_EQ(test, sffs_test_remount_rw(mnt), -EROFS);
	KUNIT_EXPECT_TRUE(test, c->io.ro);
	/* nothing more is written: not this file, not another */
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(f, buf, 4096, &pos), -EROFS);
	KUNIT_EXPECT_LT(test, vfs_fsync(f, 0), 0);
	__fput_sync(f);
	KUNIT_EXPECT_NE(test, sffs_test_write_file(mnt, "b", buf, len, true), 0);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "a", buf, len, tmp), 0);
	sffs_test_check_space(test, mnt, "apply error", 0);
	sffs_test_check_free(test, mnt, "apply error", 0);
	KUNIT_EXPECT_EQ(test, sffs_test_write_file(mnt, "b", buf, len, true), 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * A commit that fails half way, here on a table page it cannot read, may
 * have folded changes it did not write: the file system turns read-only
 * rather than commit again from that state, and the mount finds what the
 * last checkpoint and the journal hold.
 */
static void sffs_durability_commit_error_readonly(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 3 * 4096;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	struct sffs_info *c;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(buf, len, 11, false);
	mnt = sffs_rf_mount(rf, "compr=none");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "a", buf, len, true), 0);
	c = SFFS_SB(mnt->mnt_sb);
	sffs_lock(c);
	KUNIT_ASSERT_EQ(test, sffs_journal_commit(&c->j), 0);
	sffs_unlock(c);
	/* table changes to fold, and a table page only the flash has */
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "b", buf, len, true), 0);
	KUNIT_ASSERT_GT(test, c->j.ebt_nr, 0UL);
	bitmap_fill(rf->broken, RF_BLOCKS);
	sffs_lock(c);
	sffs_index_shrink(&c->j.idx, ULONG_MAX);
	/* hints alone may wait for a later commit: fold them, as unmount does */
	c->j.fold_all = true;
	err = sffs_journal_commit(&c->j);
	c->j.fold_all = false;
	sffs_unlock(c);
	bitmap_zero(rf->broken, RF_BLOCKS);
	KUNIT_EXPECT_LT(test, err, 0);
	KUNIT_EXPECT_TRUE(test, c->io.ro);
	KUNIT_EXPECT_TRUE(test, sb_rdonly(mnt->mnt_sb));
	KUNIT_EXPECT_NE(test, sffs_test_write_file(mnt, "c", buf, len, true), 0);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "a", buf, len, tmp), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "b", buf, len, tmp), 0);
	sffs_test_check_space(test, mnt, "commit error", 0);
	sffs_test_check_free(test, mnt, "commit error", 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * No memory for the index half way through a rename over another file:
 * the fault-injection attribute of the journal fails the second node of
 * the operation applied.  Read-only, the rename reported failed, and the
 * mount finds the rename whole or not at all.
 */
static void sffs_durability_apply_enomem_readonly(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	size_t len = 5000;
	u8 *a = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *b = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	sffs_test_fill(a, len, 10, false);
	sffs_test_fill(b, len, 11, false);
	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "a", a, len, true), 0);
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "b", b, len, true), 0);
	sffs_fail_apply.probability = 100;
	sffs_fail_apply.interval = 2;
	sffs_fail_apply.verbose = 0;
	atomic_set(&sffs_fail_apply.times, 1);
	sffs_fail_apply.count = 0;
	err = sffs_test_rename(mnt, "a", "b");
	sffs_fail_apply.probability = 0;
	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_TRUE(test, SFFS_SB(mnt->mnt_sb)->j.broken);
	KUNIT_EXPECT_TRUE(test, SFFS_SB(mnt->mnt_sb)->io.ro);
	KUNIT_EXPECT_NE(test, sffs_test_write_file(mnt, "c", a, len, true), 0);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	if (sffs_test_check_file(mnt, "a", a, len, tmp))
		/* the rename happened whole */
		KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "b", a, len, tmp), 0);
	else
		KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "b", b, len, tmp), 0);
	sffs_test_check_space(test, mnt, "apply enomem", 0);
	KUNIT_EXPECT_EQ(test, sffs_test_write_file(mnt, "c", a, len, true), 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}
#endif

/* Make symlink @name to @target in the root; 0 or an error */
static int make_symlink(struct vfsmount *mnt, const char *name,
			const char *target)
{
	struct dentry *root = mnt->mnt_root, *d;
	struct inode *dir = d_inode(root);
	int err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(name, root, strlen(name));
	err = PTR_ERR_OR_ZERO(d);
	if (!err) {
		err = vfs_symlink(&init_user_ns, dir, d, target);
		dput(d);
	}
	inode_unlock(dir);
	return err;
}

/* 0 if symlink @name in the root points to @target */
static int check_symlink(struct vfsmount *mnt, const char *name,
			 const char *target)
{
	struct dentry *d = lookup_one_len_unlocked(name, mnt->mnt_root,
						   strlen(name));
	int err;

	if (IS_ERR(d))
		return PTR_ERR(d);
	if (d_really_is_negative(d))
		err = -ENOENT;
	else
		err = d_is_symlink(d) && d_inode(d)->i_link &&
		      !strcmp(d_inode(d)->i_link, target) ? 0 : -EBADMSG;
	dput(d);
	return err;
}

static bool long_links_on(struct vfsmount *mnt)
{
	return le32_to_cpu(SFFS_SB(mnt->mnt_sb)->j.cp.feat_incompat) &
	       SFFS_FEAT_INCOMPAT_LONG_SYMLINK;
}

/*
 * Symlink targets up to PATH_MAX - 1 bytes, as ext4 and UBIFS store.
 * Those longer than SFFS_SHORT_SYMLINK_LEN turn on an incompatible
 * feature, which a commit writes before the first such node reaches the
 * journal: cut the power once the node is synced, and the mount finds the
 * flag with the symlink.  Short ones leave the file system as it was.
 */
static void sffs_durability_long_symlink(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	char *target = kunit_kmalloc(test, PATH_MAX + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, target);
	for (i = 0; i < PATH_MAX; i++)
		target[i] = i % 64 == 63 ? '/' : 'a' + i % 26;
	target[SFFS_SHORT_SYMLINK_LEN] = '\0';
	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, make_symlink(mnt, "short", target), 0);
	KUNIT_EXPECT_FALSE(test, long_links_on(mnt));
	target[SFFS_SHORT_SYMLINK_LEN] = 'x';
	target[PATH_MAX] = '\0';
	KUNIT_EXPECT_EQ(test, make_symlink(mnt, "toolong", target),
			-ENAMETOOLONG);
	KUNIT_EXPECT_FALSE(test, long_links_on(mnt));
	target[PATH_MAX - 1] = '\0';
	KUNIT_EXPECT_EQ(test, make_symlink(mnt, "long", target), 0);
	KUNIT_EXPECT_TRUE(test, long_links_on(mnt));
	KUNIT_EXPECT_EQ(test, check_symlink(mnt, "long", target), 0);
	/* the largest operation with targets: one renamed over another */
	target[0] = 'B';
	KUNIT_EXPECT_EQ(test, make_symlink(mnt, "long2", target), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_rename(mnt, "long2", "long"), 0);
	KUNIT_EXPECT_EQ(test, check_symlink(mnt, "long", target), 0);
	/* erase blocks too small for two such targets in one operation */
	KUNIT_EXPECT_LT(test, sffs_symlink_max(16384), SFFS_SHORT_SYMLINK_LEN);
	KUNIT_EXPECT_EQ(test, sffs_symlink_max(32768), SFFS_MAX_SYMLINK_LEN);
	KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
	cut_now(rf, mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_TRUE(test, long_links_on(mnt));
	KUNIT_EXPECT_EQ(test, check_symlink(mnt, "long", target), 0);
	target[0] = 'a';
	target[SFFS_SHORT_SYMLINK_LEN] = '\0';
	KUNIT_EXPECT_EQ(test, check_symlink(mnt, "short", target), 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

static struct kunit_case sffs_durability_cases[] = {
	KUNIT_CASE(sffs_durability_rename_over_unsynced),
	KUNIT_CASE(sffs_durability_rewrite_after_trunc),
	KUNIT_CASE(sffs_durability_size_not_ahead_of_data),
	KUNIT_CASE(sffs_durability_ranged_fsync),
	KUNIT_CASE(sffs_durability_truncate_then_grow),
	KUNIT_CASE(sffs_durability_stale_blocks_dropped),
	KUNIT_CASE(sffs_durability_commit_put_keeps_node),
	KUNIT_CASE(sffs_durability_apply_error_readonly),
	KUNIT_CASE(sffs_durability_long_symlink),
	KUNIT_CASE(sffs_durability_commit_error_readonly),
#ifdef CONFIG_FAULT_INJECTION
	KUNIT_CASE(sffs_durability_apply_enomem_readonly),
#endif
	{}
};

static struct kunit_suite sffs_durability_suite = {
	.name = "sffs_durability",
	.exit = sffs_rf_exit,
	.test_cases = sffs_durability_cases,
};

kunit_test_suites(&sffs_durability_suite);
