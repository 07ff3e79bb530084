// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of what overlayfs needs from SFFS as its upper layer:
 * renames that leave a whiteout (RENAME_WHITEOUT), O_TMPFILE files that
 * linkat() names later or that vanish, and trusted.overlay.* attributes,
 * each across a remount and a power cut.
 *
 * The power is cut by the RAM flash itself (test_flash.c), below the
 * file system: from the cut on, programs and erases change nothing, the
 * page being programmed is left half written, and what SFFS still holds
 * in RAM is lost when it is unmounted.
 */
#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/xattr.h>
#include "sffs.h"
#include "test_flash.h"

#define OVL_LEN		(64 * 1024)

/* The power goes now, and the file system is unmounted */
static void cut_now(struct sffs_ramflash *rf, struct vfsmount *mnt)
{
	rf->dead = true;
	sffs_rf_umount(mnt);
	rf->dead = false;
	rf->cut_in = 0;
}

/*
 * 1 if @name in the root of @mnt is a whiteout (the character device 0/0
 * overlayfs looks for), 0 if it is anything else, -ENOENT if it is not
 * there.
 */
static int whiteout_at(struct vfsmount *mnt, const char *name)
{
	struct dentry *d;
	int ret;

	d = lookup_one_len_unlocked(name, mnt->mnt_root, strlen(name));
	if (IS_ERR(d))
		return PTR_ERR(d);
	ret = d_really_is_negative(d) ? -ENOENT : IS_WHITEOUT(d_inode(d));
	dput(d);
	return ret;
}

/* The inode number of @name in the root of @mnt, or 0 */
static u64 ino_of(struct vfsmount *mnt, const char *name)
{
	struct dentry *d;
	u64 ino = 0;

	d = lookup_one_len_unlocked(name, mnt->mnt_root, strlen(name));
	if (IS_ERR(d))
		return 0;
	if (d_really_is_positive(d))
		ino = d_inode(d)->i_ino;
	dput(d);
	return ino;
}

/*
 * 1 if @name in the root of @mnt leads to an inode, 0 if there is no such
 * name, or the error of the lookup (a name whose inode is gone)
 */
static int name_state(struct vfsmount *mnt, const char *name)
{
	struct dentry *d;
	int ret;

	d = lookup_one_len_unlocked(name, mnt->mnt_root, strlen(name));
	if (IS_ERR(d))
		return PTR_ERR(d);
	ret = d_really_is_positive(d);
	dput(d);
	return ret;
}

struct dtype_ctx {
	struct dir_context ctx;
	const char *name;
	int type;
};

static bool dtype_actor(struct dir_context *ctx, const char *name, int len,
			loff_t pos, u64 ino, unsigned int type)
{
	struct dtype_ctx *d = container_of(ctx, struct dtype_ctx, ctx);

	if (len == strlen(d->name) && !memcmp(name, d->name, len))
		d->type = type;
	return true;
}

/*
 * The type readdir gives @name in the root of @mnt, or -1: overlayfs
 * looks up only the DT_CHR entries of an upper directory for whiteouts.
 */
static int dtype_of(struct vfsmount *mnt, const char *name)
{
	struct dtype_ctx d = {
		.ctx.actor = dtype_actor, .name = name, .type = -1,
	};
	struct file *f = file_open_root_mnt(mnt, "", O_RDONLY | O_DIRECTORY,
					    0);
	int err;

	if (IS_ERR(f))
		return PTR_ERR(f);
	err = iterate_dir(f, &d.ctx);
	__fput_sync(f);
	return err ?: d.type;
}

/* An O_TMPFILE file in the root of @mnt; O_EXCL in @flags: never linkable */
static struct file *tmpfile_open(struct vfsmount *mnt, int flags)
{
	struct path root = { .mnt = mnt, .dentry = mnt->mnt_root };

	return vfs_tmpfile_open(&init_user_ns, &root, S_IFREG | 0600,
				O_RDWR | flags, current_cred());
}

/* linkat(): name the file of @f @name in the root of @mnt */
static int link_file(struct vfsmount *mnt, struct file *f, const char *name)
{
	struct dentry *root = mnt->mnt_root, *d;
	struct inode *dir = d_inode(root);
	int err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(name, root, strlen(name));
	err = PTR_ERR_OR_ZERO(d);
	if (!err) {
		err = d_really_is_negative(d) ?
		      vfs_link(f->f_path.dentry, &init_user_ns, dir, d, NULL) :
		      -EEXIST;
		dput(d);
	}
	inode_unlock(dir);
	return err;
}

/* Write @len bytes of @buf to @f from its start, and fsync */
static int write_sync(struct file *f, const u8 *buf, size_t len)
{
	loff_t pos = 0;
	ssize_t n;

	while (pos < len) {
		n = kernel_write(f, buf + pos, len - pos, &pos);
		if (n <= 0)
			return n ?: -EIO;
	}
	return vfs_fsync(f, 0);
}

static u64 used_bytes(struct vfsmount *mnt)
{
	struct sffs_info *c = SFFS_SB(mnt->mnt_sb);
	u64 used;

	sffs_lock(c);
	used = c->j.used;
	sffs_unlock(c);
	return used;
}

/*
 * A rename with RENAME_WHITEOUT moves the file and leaves a character
 * device 0/0 under the old name, over an existing file (whose inode goes)
 * or to a new name; both survive a remount, readdir calls the whiteout a
 * character device, and the other rename flags keep their meaning.
 */
static void sffs_overlay_whiteout_rename(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	u8 *buf[3], *tmp = kunit_kmalloc(test, OVL_LEN + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	u64 ino_b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (i = 0; i < 3; i++) {
		buf[i] = kunit_kmalloc(test, OVL_LEN, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf[i]);
		sffs_test_fill(buf[i], OVL_LEN, i, false);
	}
	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "a", buf[0], OVL_LEN,
						   true), 0);
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "b", buf[1], OVL_LEN,
						   true), 0);
	KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, "c", buf[2], OVL_LEN,
						   true), 0);
	ino_b = ino_of(mnt, "b");
	KUNIT_ASSERT_NE(test, ino_b, 0ULL);

	/* over an existing file: its inode goes with its name */
	KUNIT_EXPECT_EQ(test, sffs_test_rename_flags(mnt, "a", "b",
						     RENAME_WHITEOUT), 0);
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "a"), 1);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "b", buf[0], OVL_LEN,
						   tmp), 0);
	KUNIT_EXPECT_FALSE(test, sffs_test_ino_in_index(mnt, ino_b));
	KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 0U);
	/* to a name not taken */
	KUNIT_EXPECT_EQ(test, sffs_test_rename_flags(mnt, "c", "d",
						     RENAME_WHITEOUT), 0);
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "c"), 1);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "d", buf[2], OVL_LEN,
						   tmp), 0);
	KUNIT_EXPECT_EQ(test, dtype_of(mnt, "a"), DT_CHR);

	/* the other flags: refused together, no replacing, exchanging */
	KUNIT_EXPECT_EQ(test, sffs_test_rename_flags(mnt, "b", "d",
						     RENAME_WHITEOUT |
						     RENAME_EXCHANGE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sffs_test_rename_flags(mnt, "b", "d",
						     RENAME_NOREPLACE), -EEXIST);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "d", buf[2], OVL_LEN,
						   tmp), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_rename_flags(mnt, "b", "d",
						     RENAME_EXCHANGE), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "b", buf[2], OVL_LEN,
						   tmp), 0);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "a"), 1);
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "c"), 1);
	KUNIT_EXPECT_EQ(test, dtype_of(mnt, "a"), DT_CHR);
	KUNIT_EXPECT_EQ(test, dtype_of(mnt, "c"), DT_CHR);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "b", buf[2], OVL_LEN,
						   tmp), 0);
	KUNIT_EXPECT_EQ(test, sffs_test_check_file(mnt, "d", buf[0], OVL_LEN,
						   tmp), 0);
	KUNIT_EXPECT_EQ(test, SFFS_SB(mnt->mnt_sb)->orphans, 0UL);
	/* overlayfs removes a whiteout when the name is made again */
	KUNIT_EXPECT_EQ(test, sffs_test_unlink(mnt, "a"), 0);
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "a"), -ENOENT);
	sffs_test_check_space(test, mnt, "whiteouts", 0);
	sffs_test_check_free(test, mnt, "whiteouts", 0);
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * Power cuts in a rename with RENAME_WHITEOUT over an existing file: the
 * operation is placed at 8 offsets in the journal's page by empty files
 * made before it, and the power goes at the first, second or third page
 * programmed from there, torn in half.  After the mount the old names
 * hold their files (the rename did not happen), or the new name holds the
 * renamed file and the old one a whiteout, the replaced inode gone; never
 * a name lost, doubled or pointing nowhere.
 */
static void sffs_overlay_whiteout_cuts(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	const size_t len = 3000;
	u8 *abuf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *bbuf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	unsigned int before = 0, after = 0;
	struct vfsmount *mnt;
	char a[16], b[16], e[24];
	int fill, cut, i, w, n = 0;
	u64 ino_b;

	KUNIT_ASSERT_NOT_NULL(test, abuf);
	KUNIT_ASSERT_NOT_NULL(test, bbuf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (fill = 0; fill < 8; fill++) {
		for (cut = 1; cut <= 3; cut++, n++) {
			mnt = sffs_rf_mount(rf, "compr=none");
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "round %d: %ld",
					       n, PTR_ERR(mnt));
			snprintf(a, sizeof(a), "a%d", n);
			snprintf(b, sizeof(b), "b%d", n);
			sffs_test_fill(abuf, len, 2 * n, false);
			sffs_test_fill(bbuf, len, 2 * n + 1, false);
			/* the fsyncs leave the journal at a page boundary */
			KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, a, abuf,
								   len, true), 0);
			KUNIT_ASSERT_EQ(test, sffs_test_write_file(mnt, b, bbuf,
								   len, true), 0);
			ino_b = ino_of(mnt, b);
			for (i = 0; i < fill; i++) {
				snprintf(e, sizeof(e), "e%d-%d", n, i);
				sffs_test_write_file(mnt, e, NULL, 0, false);
			}
			rf->cut_in = cut;
			sffs_test_rename_flags(mnt, a, b, RENAME_WHITEOUT);
			sffs_test_journal_sync(mnt);
			cut_now(rf, mnt);

			mnt = sffs_rf_mount(rf, NULL);
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "round %d: %ld",
					       n, PTR_ERR(mnt));
			w = whiteout_at(mnt, a);
			if (w == 1) {
				after++;
				KUNIT_EXPECT_EQ_MSG(test,
						    sffs_test_check_file(mnt, b,
									 abuf,
									 len,
									 tmp),
						    0, "round %d", n);
				KUNIT_EXPECT_FALSE_MSG(test,
						       sffs_test_ino_in_index(mnt, ino_b),
						       "round %d", n);
			} else {
				before++;
				KUNIT_EXPECT_EQ_MSG(test, w, 0, "round %d", n);
				KUNIT_EXPECT_EQ_MSG(test,
						    sffs_test_check_file(mnt, a,
									 abuf,
									 len,
									 tmp),
						    0, "round %d", n);
				KUNIT_EXPECT_EQ_MSG(test,
						    sffs_test_check_file(mnt, b,
									 bbuf,
									 len,
									 tmp),
						    0, "round %d", n);
			}
			KUNIT_EXPECT_EQ_MSG(test, sffs_test_count_orphans(mnt),
					    0U, "round %d", n);
			sffs_test_check_space(test, mnt, "whiteout cut", n);
			sffs_test_check_free(test, mnt, "whiteout cut", n);
			sffs_rf_umount(mnt);
		}
	}
	KUNIT_EXPECT_GT(test, before, 0U);
	KUNIT_EXPECT_GT(test, after, 0U);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
	kunit_info(test, "%d cuts: the rename was undone %u times, whole %u times\n",
		   n, before, after);
}

/*
 * An O_TMPFILE file is on the orphan list until linkat() names it, and
 * leaves it in the same operation: the named file, with the data and the
 * trusted.overlay.* attribute overlayfs's copy-up gives it before the
 * link, survives a power cut with the file still open and a remount,
 * and the mount deletes nothing.
 */
static void sffs_overlay_tmpfile_link(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	u8 *buf = kunit_kmalloc(test, OVL_LEN, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, OVL_LEN + 1, GFP_KERNEL);
	struct vfsmount *mnt;
	char val[8] = "", name[8];
	struct file *f;
	int round;
	u64 ino;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (round = 0; round < 2; round++) {
		bool cut = round == 0;

		snprintf(name, sizeof(name), "t%d", round);
		sffs_test_fill(buf, OVL_LEN, round, false);
		mnt = sffs_rf_mount(rf, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		f = tmpfile_open(mnt, 0);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "tmpfile: %ld",
				       PTR_ERR(f));
		ino = file_inode(f)->i_ino;
		KUNIT_EXPECT_EQ(test, file_inode(f)->i_nlink, 0U);
		KUNIT_EXPECT_EQ(test, write_sync(f, buf, OVL_LEN), 0);
		KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 1U);
		KUNIT_EXPECT_EQ(test, vfs_setxattr(&init_user_ns,
						   f->f_path.dentry,
						   "trusted.overlay.origin",
						   "o", 1, 0), 0);
		KUNIT_EXPECT_EQ(test, link_file(mnt, f, name), 0);
		KUNIT_EXPECT_EQ(test, file_inode(f)->i_nlink, 1U);
		KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 0U);
		KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
		if (cut)
			rf->dead = true;
		__fput_sync(f);
		sffs_rf_umount(mnt);
		rf->dead = false;

		mnt = sffs_rf_mount(rf, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		KUNIT_EXPECT_EQ_MSG(test, SFFS_SB(mnt->mnt_sb)->orphans, 0UL,
				    "round %d", round);
		KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 0U);
		KUNIT_EXPECT_EQ_MSG(test, ino_of(mnt, name), ino, "round %d",
				    round);
		KUNIT_EXPECT_EQ_MSG(test, sffs_test_check_file(mnt, name, buf,
							       OVL_LEN, tmp),
				    0, "round %d", round);
		f = file_open_root_mnt(mnt, name, O_RDONLY, 0);
		if (!IS_ERR(f)) {
			KUNIT_EXPECT_EQ(test,
					vfs_getxattr(&init_user_ns,
						     f->f_path.dentry,
						     "trusted.overlay.origin",
						     val, sizeof(val)), 1);
			KUNIT_EXPECT_EQ(test, val[0], 'o');
			__fput_sync(f);
		}
		sffs_test_check_space(test, mnt, "tmpfile linked", round);
		sffs_test_check_free(test, mnt, "tmpfile linked", round);
		sffs_rf_umount(mnt);
	}
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * Power cuts in the linkat() of an O_TMPFILE file with synced data: the
 * operation is placed at 8 offsets in the journal's page by empty files
 * made before it, and the power goes at the first, second or third page
 * programmed from there, torn in half, with the file still open.  After
 * the mount the name holds the whole file and its orphan record is gone
 * (the link happened), or the name is not there and neither is the inode
 * (the mount deleted it from the orphan list); never a name without its
 * data, nor an inode left with no name.
 */
static void sffs_overlay_tmpfile_link_cuts(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	const size_t len = 3000;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *tmp = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	unsigned int linked = 0, gone = 0;
	struct vfsmount *mnt;
	char name[16], e[24];
	int fill, cut, i, err, n = 0;
	struct file *f;
	u64 ino;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (fill = 0; fill < 8; fill++) {
		for (cut = 1; cut <= 3; cut++, n++) {
			mnt = sffs_rf_mount(rf, "compr=none");
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "round %d: %ld",
					       n, PTR_ERR(mnt));
			snprintf(name, sizeof(name), "t%d", n);
			sffs_test_fill(buf, len, n, false);
			f = tmpfile_open(mnt, 0);
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "round %d: %ld",
					       n, PTR_ERR(f));
			ino = file_inode(f)->i_ino;
			/* the fsync leaves the journal at a page boundary */
			KUNIT_EXPECT_EQ(test, write_sync(f, buf, len), 0);
			for (i = 0; i < fill; i++) {
				snprintf(e, sizeof(e), "e%d-%d", n, i);
				sffs_test_write_file(mnt, e, NULL, 0, false);
			}
			rf->cut_in = cut;
			link_file(mnt, f, name);
			sffs_test_journal_sync(mnt);
			rf->dead = true;
			__fput_sync(f);
			cut_now(rf, mnt);

			mnt = sffs_rf_mount(rf, NULL);
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "round %d: %ld",
					       n, PTR_ERR(mnt));
			err = name_state(mnt, name);
			KUNIT_EXPECT_GE_MSG(test, err, 0,
					    "round %d: lookup %d", n, err);
			if (err > 0) {
				linked++;
				KUNIT_EXPECT_EQ_MSG(test, ino_of(mnt, name), ino,
						    "round %d", n);
				KUNIT_EXPECT_EQ_MSG(test,
						    sffs_test_check_file(mnt, name,
									 buf,
									 len,
									 tmp),
						    0, "round %d", n);
			} else {
				gone++;
				KUNIT_EXPECT_FALSE_MSG(test,
						       sffs_test_ino_in_index(mnt, ino),
						       "round %d: inode %llu left with no name",
						       n, ino);
			}
			KUNIT_EXPECT_EQ_MSG(test, sffs_test_count_orphans(mnt),
					    0U, "round %d", n);
			sffs_test_check_space(test, mnt, "link cut", n);
			sffs_test_check_free(test, mnt, "link cut", n);
			sffs_rf_umount(mnt);
		}
	}
	KUNIT_EXPECT_GT(test, linked, 0U);
	KUNIT_EXPECT_GT(test, gone, 0U);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
	kunit_info(test, "%d cuts: the file was linked %u times, gone %u times\n",
		   n, linked, gone);
}

/*
 * An O_TMPFILE file never linked leaves nothing: no inode, no orphan
 * record and no used space, whether it is closed before a clean unmount
 * or the power goes while it is open, with its data synced; the mount
 * after the cut deletes it from the orphan list.
 */
static void sffs_overlay_tmpfile_unlinked(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	const size_t len = 1024 * 1024;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	struct vfsmount *mnt;
	u64 ino, used0, used;
	struct file *f;
	int round;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	sffs_test_fill(buf, len, 7, false);
	for (round = 0; round < 2; round++) {
		bool cut = round == 0;

		mnt = sffs_rf_mount(rf, "compr=none");
		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		used0 = used_bytes(mnt);
		f = tmpfile_open(mnt, 0);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "tmpfile: %ld",
				       PTR_ERR(f));
		ino = file_inode(f)->i_ino;
		KUNIT_EXPECT_EQ(test, write_sync(f, buf, len), 0);
		KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 1U);
		KUNIT_EXPECT_GT(test, used_bytes(mnt), used0 + len);
		if (cut) {
			KUNIT_EXPECT_EQ(test, sffs_test_journal_sync(mnt), 0);
			/* the close and the unmount never reach the flash */
			rf->dead = true;
		}
		__fput_sync(f);
		sffs_rf_umount(mnt);
		rf->dead = false;

		mnt = sffs_rf_mount(rf, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
		KUNIT_EXPECT_EQ_MSG(test, SFFS_SB(mnt->mnt_sb)->orphans,
				    cut ? 1UL : 0UL, "round %d", round);
		KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 0U);
		KUNIT_EXPECT_FALSE_MSG(test, sffs_test_ino_in_index(mnt, ino),
				       "round %d", round);
		/* its megabyte is dead: only table and inode updates stay */
		used = used_bytes(mnt);
		KUNIT_EXPECT_LT_MSG(test, used, used0 + len / 64,
				    "round %d: used %llu, %llu before", round,
				    used, used0);
		sffs_test_check_space(test, mnt, "tmpfile gone", round);
		sffs_test_check_free(test, mnt, "tmpfile gone", round);
		sffs_rf_umount(mnt);
	}
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * O_TMPFILE with O_EXCL: the file can never be linked, and goes at its
 * close like any other unlinked one.
 */
static void sffs_overlay_tmpfile_excl(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	struct vfsmount *mnt;
	struct file *f;
	u8 buf[16] = "never named";
	u64 ino;

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	f = tmpfile_open(mnt, O_EXCL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "tmpfile: %ld", PTR_ERR(f));
	ino = file_inode(f)->i_ino;
	KUNIT_EXPECT_EQ(test, write_sync(f, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, link_file(mnt, f, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 1U);
	__fput_sync(f);
	KUNIT_EXPECT_EQ(test, sffs_test_count_orphans(mnt), 0U);
	KUNIT_EXPECT_FALSE(test, sffs_test_ino_in_index(mnt, ino));
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_EXPECT_EQ(test, whiteout_at(mnt, "x"), -ENOENT);
	KUNIT_EXPECT_FALSE(test, sffs_test_ino_in_index(mnt, ino));
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

/*
 * overlayfs keeps its metadata in trusted.overlay.* attributes of upper
 * directories and files: set, read and removed with CAP_SYS_ADMIN, kept
 * across a remount, and neither written nor seen without it.
 */
static void sffs_overlay_trusted_xattrs(struct kunit *test)
{
	struct sffs_ramflash *rf = sffs_rf_create(test, NULL, 0);
	const char *opaque = "trusted.overlay.opaque";
	const char *redirect = "trusted.overlay.redirect";
	struct dentry *root;
	const struct cred *old;
	struct vfsmount *mnt;
	struct cred *cred;
	char val[16];
	int err[3];

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	root = mnt->mnt_root;
	KUNIT_EXPECT_EQ(test, vfs_setxattr(&init_user_ns, root, opaque, "y", 1,
					   0), 0);
	KUNIT_EXPECT_EQ(test, vfs_setxattr(&init_user_ns, root, redirect,
					   "/lower/dir", 10, 0), 0);
	KUNIT_EXPECT_EQ(test, vfs_getxattr(&init_user_ns, root, opaque, val,
					   sizeof(val)), 1);
	KUNIT_EXPECT_EQ(test, val[0], 'y');

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_SYS_ADMIN);
	old = override_creds(cred);
	err[0] = vfs_setxattr(&init_user_ns, root, opaque, "n", 1, 0);
	err[1] = vfs_getxattr(&init_user_ns, root, opaque, val, sizeof(val));
	err[2] = vfs_removexattr(&init_user_ns, root, opaque);
	revert_creds(old);
	put_cred(cred);
	KUNIT_EXPECT_EQ(test, err[0], -EPERM);
	KUNIT_EXPECT_EQ(test, err[1], -ENODATA);
	KUNIT_EXPECT_EQ(test, err[2], -EPERM);

	KUNIT_EXPECT_EQ(test, vfs_removexattr(&init_user_ns, root, opaque), 0);
	KUNIT_EXPECT_EQ(test, vfs_getxattr(&init_user_ns, root, opaque, val,
					   sizeof(val)), -ENODATA);
	sffs_rf_umount(mnt);

	mnt = sffs_rf_mount(rf, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	root = mnt->mnt_root;
	KUNIT_EXPECT_EQ(test, vfs_getxattr(&init_user_ns, root, opaque, val,
					   sizeof(val)), -ENODATA);
	memset(val, 0, sizeof(val));
	KUNIT_EXPECT_EQ(test, vfs_getxattr(&init_user_ns, root, redirect, val,
					   sizeof(val)), 10);
	KUNIT_EXPECT_STREQ(test, val, "/lower/dir");
	sffs_rf_umount(mnt);
	KUNIT_EXPECT_EQ(test, rf->violations, 0U);
}

static struct kunit_case sffs_overlay_cases[] = {
	KUNIT_CASE(sffs_overlay_whiteout_rename),
	KUNIT_CASE(sffs_overlay_whiteout_cuts),
	KUNIT_CASE(sffs_overlay_tmpfile_link),
	KUNIT_CASE(sffs_overlay_tmpfile_link_cuts),
	KUNIT_CASE(sffs_overlay_tmpfile_unlinked),
	KUNIT_CASE(sffs_overlay_tmpfile_excl),
	KUNIT_CASE(sffs_overlay_trusted_xattrs),
	{}
};

static struct kunit_suite sffs_overlay_suite = {
	.name = "sffs_overlay",
	.exit = sffs_rf_exit,
	.test_cases = sffs_overlay_cases,
};

kunit_test_suites(&sffs_overlay_suite);
