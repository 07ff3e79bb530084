// SPDX-License-Identifier: GPL-2.0-only
/*
 * A RAM flash registered with the MTD core, for the SFFS KUnit suites, so
 * they run on UML as well as on any other kernel.
 *
 * It behaves as NAND does to the extent a file system can get wrong:
 * whole pages only, each programmed once after an erase and in order
 * within its erase block.  Any write breaking those rules fails and is
 * counted, and every test checks the count is zero.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/random.h>
#include <linux/vmalloc.h>
#include "sffs.h"
#include "test_flash.h"

static struct sffs_ramflash *to_rf(struct mtd_info *mtd)
{
	return container_of(mtd, struct sffs_ramflash, mtd);
}

/* Return the most bitflips corrected in a page, as NAND drivers do */
static int rf_read(struct mtd_info *mtd, loff_t from, size_t len,
		   size_t *retlen, u_char *buf)
{
	struct sffs_ramflash *rf = to_rf(mtd);
	u32 eb, first = div_u64(from, RF_ERASESIZE);
	u32 last = div_u64(from + len - 1, RF_ERASESIZE);
	int flips = 0;

	memcpy(buf, rf->mem + from, len);
	*retlen = len;
	rf->reads++;
	rf->read_bytes += len;
	for (eb = first; eb <= last; eb++) {
		if (test_bit(eb, rf->broken))
			return -EBADMSG;
		if (test_bit(eb, rf->flippy))
			flips = 2;
	}
	return flips;
}

static int rf_write(struct mtd_info *mtd, loff_t to, size_t len,
		    size_t *retlen, const u_char *buf)
{
	struct sffs_ramflash *rf = to_rf(mtd);
	size_t done;

	*retlen = 0;
	if (to % RF_WRITESIZE || len % RF_WRITESIZE) {
		rf->violations++;
		return -EINVAL;
	}
	for (done = 0; done < len; done += RF_WRITESIZE) {
		u64 addr = to + done;
		u32 eb = div_u64(addr, RF_ERASESIZE);
		u32 page = div_u64(addr % RF_ERASESIZE, RF_WRITESIZE);

		if (rf->dead) {
			*retlen += RF_WRITESIZE;
			continue;
		}
		if (rf->cut_in && !--rf->cut_in) {
			/* the power goes while the page is programmed */
			memcpy(rf->mem + addr, buf + done, RF_WRITESIZE / 2);
			rf->next_page[eb] = page + 1;
			set_bit(eb, rf->touched);
			rf->dead = true;
			*retlen += RF_WRITESIZE;
			continue;
		}
		if (page < rf->next_page[eb] ||
		    memchr_inv(rf->mem + addr, 0xff, RF_WRITESIZE)) {
			pr_err("sffs-kunit flash: page %u of block %u programmed again (next %u)\n",
			       page, eb, rf->next_page[eb]);
			rf->violations++;
			return -EIO;
		}
		if (test_bit(eb, rf->failing) ||
		    (rf->fail_in && !--rf->fail_in)) {
			/*
			 * A program failure: the page is used up, half of
			 * it programmed and the rest left in whatever state,
			 * and the block fails every program from now on.
			 */
			memcpy(rf->mem + addr, buf + done, RF_WRITESIZE / 2);
			memset(rf->mem + addr + RF_WRITESIZE / 2, 0x5a, 64);
			rf->next_page[eb] = page + 1;
			set_bit(eb, rf->failing);
			set_bit(eb, rf->touched);
			rf->prog_failures++;
			if (!rf->fail_in && rf->fail_again) {
				rf->fail_again--;
				rf->fail_in = 1;
			}
			return -EIO;
		}
		memcpy(rf->mem + addr, buf + done, RF_WRITESIZE);
		rf->next_page[eb] = page + 1;
		set_bit(eb, rf->touched);
		rf->programs++;
		*retlen += RF_WRITESIZE;
	}
	return 0;
}

static int rf_erase(struct mtd_info *mtd, struct erase_info *ei)
{
	struct sffs_ramflash *rf = to_rf(mtd);
	u32 eb;

	if (ei->addr % RF_ERASESIZE || ei->len % RF_ERASESIZE) {
		rf->violations++;
		return -EINVAL;
	}
	for (eb = div_u64(ei->addr, RF_ERASESIZE);
	     eb < div_u64(ei->addr + ei->len, RF_ERASESIZE); eb++) {
		if (rf->dead)
			continue;
		if (rf->cut_in && !--rf->cut_in) {
			/* the power goes half way through the erase */
			memset(rf->mem + (u64)eb * RF_ERASESIZE, 0xff,
			       RF_ERASESIZE / 2);
			set_bit(eb, rf->touched);
			rf->dead = true;
			continue;
		}
		if (rf->erase_fail) {
			/* a device refusing every erase: write-protected, say */
			ei->fail_addr = (u64)eb * RF_ERASESIZE;
			return -EIO;
		}
		if (test_bit(eb, rf->bad)) {
			pr_err("sffs-kunit flash: bad block %u erased\n", eb);
			rf->violations++;
			ei->fail_addr = (u64)eb * RF_ERASESIZE;
			return -EIO;
		}
		memset(rf->mem + (u64)eb * RF_ERASESIZE, 0xff, RF_ERASESIZE);
		rf->next_page[eb] = 0;
		clear_bit(eb, rf->flippy);
		set_bit(eb, rf->touched);
		rf->eb_erases[eb]++;
		rf->erases++;
	}
	return 0;
}

static int rf_block_isbad(struct mtd_info *mtd, loff_t ofs)
{
	return test_bit(div_u64(ofs, RF_ERASESIZE), to_rf(mtd)->bad);
}

static int rf_block_markbad(struct mtd_info *mtd, loff_t ofs)
{
	/* the mark is written to the flash too: not once the power is gone */
	if (to_rf(mtd)->dead)
		return 0;
	set_bit(div_u64(ofs, RF_ERASESIZE), to_rf(mtd)->bad);
	return 0;
}

/* Nothing is cached here: only count the calls, which tests check */
static void rf_sync(struct mtd_info *mtd)
{
	to_rf(mtd)->syncs++;
}

void sffs_rf_free(struct sffs_ramflash *rf)
{
	if (rf->mtd.index >= 0)
		mtd_device_unregister(&rf->mtd);
	vfree(rf->mem);
	kfree(rf);
}

/*
 * A large flash, allocated a block at a time as blocks are programmed:
 * for tests of how the work of the file system grows with the size of
 * the flash.  A block not allocated reads erased.
 */
static struct sffs_sparseflash *to_sf(struct mtd_info *mtd)
{
	return container_of(mtd, struct sffs_sparseflash, mtd);
}

static int sf_read(struct mtd_info *mtd, loff_t from, size_t len,
		   size_t *retlen, u_char *buf)
{
	struct sffs_sparseflash *sf = to_sf(mtd);
	size_t done = 0;

	while (done < len) {
		u64 addr = from + done;
		u32 eb = div_u64(addr, RF_ERASESIZE);
		u32 off = addr - (u64)eb * RF_ERASESIZE;
		size_t n = min_t(size_t, len - done, RF_ERASESIZE - off);

		if (sf->blk[eb])
			memcpy(buf + done, sf->blk[eb] + off, n);
		else
			memset(buf + done, 0xff, n);
		done += n;
	}
	*retlen = len;
	sf->reads++;
	sf->read_bytes += len;
	return 0;
}

static int sf_write(struct mtd_info *mtd, loff_t to, size_t len,
		    size_t *retlen, const u_char *buf)
{
	struct sffs_sparseflash *sf = to_sf(mtd);
	size_t done;

	*retlen = 0;
	if (to % RF_WRITESIZE || len % RF_WRITESIZE)
		return -EINVAL;
	for (done = 0; done < len; done += RF_WRITESIZE) {
		u64 addr = to + done;
		u32 eb = div_u64(addr, RF_ERASESIZE);
		u32 off = addr - (u64)eb * RF_ERASESIZE;

		if (!sf->blk[eb]) {
			sf->blk[eb] = kvmalloc(RF_ERASESIZE, GFP_KERNEL);
			if (!sf->blk[eb])
				return -ENOMEM;
			memset(sf->blk[eb], 0xff, RF_ERASESIZE);
		}
		if (memchr_inv(sf->blk[eb] + off, 0xff, RF_WRITESIZE)) {
			/* programmed twice: a bug, which tests check for */
			sf->violations++;
			return -EIO;
		}
		memcpy(sf->blk[eb] + off, buf + done, RF_WRITESIZE);
		*retlen += RF_WRITESIZE;
		sf->prog_bytes += RF_WRITESIZE;
	}
	return 0;
}

static int sf_erase(struct mtd_info *mtd, struct erase_info *ei)
{
	struct sffs_sparseflash *sf = to_sf(mtd);
	u32 eb;

	if (ei->addr % RF_ERASESIZE || ei->len % RF_ERASESIZE)
		return -EINVAL;
	for (eb = div_u64(ei->addr, RF_ERASESIZE);
	     eb < div_u64(ei->addr + ei->len, RF_ERASESIZE); eb++) {
		kvfree(sf->blk[eb]);
		sf->blk[eb] = NULL;
	}
	return 0;
}

static int sf_block_isbad(struct mtd_info *mtd, loff_t ofs)
{
	return 0;
}

void sffs_sf_free(struct sffs_sparseflash *sf)
{
	u32 eb;

	if (!sf)
		return;
	if (sf->mtd.index >= 0)
		mtd_device_unregister(&sf->mtd);
	for (eb = 0; eb < sf->blocks; eb++)
		kvfree(sf->blk[eb]);
	kvfree(sf->blk);
	kfree(sf);
}

/*
 * A registered, formatted flash of @blocks erase blocks of RF_ERASESIZE,
 * RAM only for those written; NULL, and the test failed, if it cannot be
 * made.  The caller frees it with sffs_sf_free().
 */
struct sffs_sparseflash *sffs_sf_create(struct kunit *test, u32 blocks)
{
	struct sffs_sparseflash *sf;
	struct sffs_journal *j;
	struct sffs_io io;
	int err;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf)
		goto nomem;
	sf->mtd.index = -1;
	sf->blocks = blocks;
	sf->blk = kvcalloc(blocks, sizeof(*sf->blk), GFP_KERNEL);
	j = kzalloc(sizeof(*j), GFP_KERNEL);
	if (!sf->blk || !j) {
		kfree(j);
		goto nomem;
	}
	sf->mtd.name = "sffs-kunit-large";
	sf->mtd.type = MTD_NANDFLASH;
	sf->mtd.flags = MTD_CAP_NANDFLASH;
	sf->mtd.size = (u64)blocks * RF_ERASESIZE;
	sf->mtd.erasesize = RF_ERASESIZE;
	sf->mtd.writesize = RF_WRITESIZE;
	sf->mtd.writebufsize = RF_WRITESIZE;
	sf->mtd.owner = THIS_MODULE;
	sf->mtd._read = sf_read;
	sf->mtd._write = sf_write;
	sf->mtd._erase = sf_erase;
	sf->mtd._block_isbad = sf_block_isbad;
	err = mtd_device_register(&sf->mtd, NULL, 0);
	if (err) {
		sf->mtd.index = -1;
		kfree(j);
		sffs_sf_free(sf);
		KUNIT_FAIL(test, "mtd_device_register: %d", err);
		return NULL;
	}
	err = sffs_io_init(&io, &sf->mtd, false);
	if (!err) {
		err = sffs_journal_format(j, &io, SFFS_COMPR_NONE);
		sffs_io_destroy(&io);
	}
	kfree(j);
	if (err) {
		sffs_sf_free(sf);
		KUNIT_FAIL(test, "format: %d", err);
		return NULL;
	}
	return sf;
nomem:
	sffs_sf_free(sf);
	KUNIT_FAIL(test, "no memory for the sparse flash");
	return NULL;
}

/* A registered, formatted RAM flash; @bad: bad blocks to mark first */
struct sffs_ramflash *sffs_rf_create(struct kunit *test,
				     const unsigned int *bad, int nbad)
{
	struct sffs_ramflash *rf;
	struct sffs_journal *j;
	struct sffs_io io;
	int i, err;

	rf = kzalloc(sizeof(*rf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rf);
	rf->mtd.index = -1;
	rf->mem = vmalloc((size_t)RF_BLOCKS * RF_ERASESIZE);
	if (!rf->mem) {
		kfree(rf);
		KUNIT_ASSERT_FAILURE(test, "no memory for the RAM flash\n");
	}
	memset(rf->mem, 0xa5, (size_t)RF_BLOCKS * RF_ERASESIZE);
	memset(rf->next_page, 0xff, sizeof(rf->next_page)); /* not erased */
	for (i = 0; i < nbad; i++)
		set_bit(bad[i], rf->bad);
	rf->mtd.name = "sffs-kunit";
	rf->mtd.type = MTD_NANDFLASH;
	rf->mtd.flags = MTD_CAP_NANDFLASH;
	rf->mtd.size = (u64)RF_BLOCKS * RF_ERASESIZE;
	rf->mtd.erasesize = RF_ERASESIZE;
	rf->mtd.writesize = RF_WRITESIZE;
	rf->mtd.writebufsize = RF_WRITESIZE;
	/* 4-bit ECC; two bitflips corrected in a page make -EUCLEAN */
	rf->mtd.ecc_strength = 4;
	rf->mtd.bitflip_threshold = 2;
	rf->mtd.owner = THIS_MODULE;
	rf->mtd._read = rf_read;
	rf->mtd._write = rf_write;
	rf->mtd._erase = rf_erase;
	rf->mtd._block_isbad = rf_block_isbad;
	rf->mtd._block_markbad = rf_block_markbad;
	rf->mtd._sync = rf_sync;
	err = mtd_device_register(&rf->mtd, NULL, 0);
	if (err) {
		rf->mtd.index = -1;
		sffs_rf_free(rf);
		KUNIT_ASSERT_FAILURE(test, "mtd_device_register: %d\n", err);
	}
	test->priv = rf;	/* freed by sffs_fs_exit() */

	j = kunit_kzalloc(test, sizeof(*j), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, j);
	err = sffs_io_init(&io, &rf->mtd, false);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = sffs_journal_format(j, &io, SFFS_COMPR_NONE);
	sffs_io_destroy(&io);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "format");
	return rf;
}

struct vfsmount *sffs_rf_mount(struct sffs_ramflash *rf, const char *opts)
{
	return sffs_test_mount_mtd(&rf->mtd, opts);
}

struct vfsmount *sffs_test_mount_mtd(struct mtd_info *mtd, const char *opts)
{
	char src[16], data[32] = "";

	snprintf(src, sizeof(src), "mtd%d", mtd->index);
	/* the option parser cuts its string up: give it a copy */
	if (opts)
		strscpy(data, opts, sizeof(data));
	/* an internal mount: mntput() unmounts at once, even from a kthread */
	return vfs_kern_mount(&sffs_fs_type, SB_KERNMOUNT, src, data);
}

void sffs_rf_umount(struct vfsmount *mnt)
{
	/*
	 * An open that fails after the file was opened (an O_TRUNC that
	 * meets the dead flash after a power cut) closes it with fput(),
	 * which a kernel thread defers: finish those closes first, or they
	 * keep the mount.
	 */
	flush_delayed_fput();
	mntput(mnt);
}

/* Deterministic file contents: compressible or not, by seed */
void sffs_test_fill(u8 *buf, size_t len, u32 seed, bool compressible)
{
	struct rnd_state rnd;
	size_t i;

	prandom_seed_state(&rnd, seed);
	if (!compressible) {
		prandom_bytes_state(&rnd, buf, len);
		return;
	}
	for (i = 0; i < len; i++)
		buf[i] = "sffs kunit "[(i / 7 + seed) % 11];
}

/*
 * Files are closed with __fput_sync(): KUnit runs tests in a kernel
 * thread, where fput() defers the close to a work item that would keep
 * the mount, and the super block, alive past the unmount.
 */
int sffs_test_write_file(struct vfsmount *mnt, const char *name,
			 const u8 *buf, size_t len, bool sync)
{
	struct file *f = file_open_root_mnt(mnt, name,
					    O_CREAT | O_TRUNC | O_WRONLY, 0644);
	loff_t pos = 0;
	ssize_t n;
	int err = 0;

	if (IS_ERR(f))
		return PTR_ERR(f);
	/* a short write is allowed when the flash fills: the next one fails */
	while (!err && pos < len) {
		n = kernel_write(f, buf + pos, len - pos, &pos);
		if (n <= 0)
			err = n ?: -EIO;
	}
	if (!err && sync)
		err = vfs_fsync(f, 0);
	__fput_sync(f);
	return err;
}

/* 0 if @name holds exactly @len bytes equal to @want */
int sffs_test_check_file(struct vfsmount *mnt, const char *name,
			 const u8 *want, size_t len, u8 *tmp)
{
	struct file *f = file_open_root_mnt(mnt, name, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, tmp, len + 1, &pos);
	__fput_sync(f);
	if (n < 0)
		return n;
	if (n != len || memcmp(tmp, want, len))
		return -EBADMSG;
	return 0;
}

/* Rename @from to @to in the root directory of @mnt, with RENAME_* @flags */
int sffs_test_rename_flags(struct vfsmount *mnt, const char *from,
			   const char *to, unsigned int flags)
{
	struct dentry *root = mnt->mnt_root, *old, *new;
	struct inode *dir = d_inode(root);
	struct renamedata rd = {
		.old_mnt_userns = &init_user_ns,
		.new_mnt_userns = &init_user_ns,
		.old_dir = dir,
		.new_dir = dir,
		.flags = flags,
	};
	int err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	old = lookup_one_len(from, root, strlen(from));
	err = PTR_ERR_OR_ZERO(old);
	if (err)
		goto out;
	new = lookup_one_len(to, root, strlen(to));
	err = PTR_ERR_OR_ZERO(new);
	if (!err) {
		rd.old_dentry = old;
		rd.new_dentry = new;
		err = vfs_rename(&rd);
		dput(new);
	}
	dput(old);
out:
	inode_unlock(dir);
	return err;
}

/* Rename @from to @to in the root directory of @mnt */
int sffs_test_rename(struct vfsmount *mnt, const char *from, const char *to)
{
	return sffs_test_rename_flags(mnt, from, to, 0);
}

/* Flush the journal of @mnt, as any fsync of another file would */
int sffs_test_journal_sync(struct vfsmount *mnt)
{
	struct sffs_info *c = SFFS_SB(mnt->mnt_sb);
	int err;

	sffs_lock(c);
	err = sffs_journal_sync(&c->j);
	sffs_unlock(c);
	return err;
}

/*
 * What mount -o remount,rw asks of the file system (s_flags keep
 * SB_RDONLY: the VFS, not called here, clears it)
 */
int sffs_test_remount_rw(struct vfsmount *mnt)
{
	struct fs_context *fc;
	int err;

	fc = fs_context_for_reconfigure(mnt->mnt_root, 0, SB_RDONLY);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	down_write(&mnt->mnt_sb->s_umount);
	err = fc->ops->reconfigure(fc);
	up_write(&mnt->mnt_sb->s_umount);
	put_fs_context(fc);
	return err;
}

/* Unlink @name from the root directory of @mnt */
int sffs_test_unlink(struct vfsmount *mnt, const char *name)
{
	struct dentry *root = mnt->mnt_root, *d;
	struct inode *dir = d_inode(root);
	int err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(name, root, strlen(name));
	err = PTR_ERR_OR_ZERO(d);
	if (!err) {
		err = d_really_is_positive(d) ?
		      vfs_unlink(&init_user_ns, dir, d, NULL) : -ENOENT;
		dput(d);
	}
	inode_unlock(dir);
	return err;
}

/* Orphan records left in the index of @mnt */
unsigned int sffs_test_count_orphans(struct vfsmount *mnt)
{
	struct sffs_info *c = SFFS_SB(mnt->mnt_sb);
	struct sffs_ckey key = sffs_key(SFFS_META_INO, SFFS_KEY_ORPHAN, 0);
	struct sffs_zref ref;
	unsigned int n = 0;

	sffs_lock(c);
	while (!sffs_index_next(&c->j.idx, &key, &ref) &&
	       ref.key.ino == SFFS_META_INO &&
	       sffs_key_type(&ref.key) == SFFS_KEY_ORPHAN) {
		n++;
		key = ref.key;
		key.tv++;
	}
	sffs_unlock(c);
	return n;
}

/* Does inode @ino, or any key it owns, remain in the index? */
bool sffs_test_ino_in_index(struct vfsmount *mnt, u64 ino)
{
	struct sffs_info *c = SFFS_SB(mnt->mnt_sb);
	struct sffs_ckey key = sffs_key(ino, SFFS_KEY_INODE, 0);
	struct sffs_zref ref;
	bool found;

	sffs_lock(c);
	found = !sffs_index_next(&c->j.idx, &key, &ref) && ref.key.ino == ino;
	sffs_unlock(c);
	return found;
}

static void count_retired(struct sffs_journal *j, u32 eb,
			  const struct sffs_eb_info *r, void *arg)
{
	if (r->state == SFFS_EB_BAD && !sffs_io_is_bad(j->io, eb))
		(*(u32 *)arg)++;
}

/* The whole table below the frontier, which no scan of SFFS reads */
static int ebt_walk(struct sffs_journal *j,
		    void (*fn)(struct sffs_journal *j, u32 eb,
			       const struct sffs_eb_info *r, void *arg),
		    void *arg)
{
	u32 page;
	int err = 0;

	for (page = 0; !err && page < DIV_ROUND_UP(j->alloc_eb, SFFS_EBT_RECS);
	     page++)
		err = sffs_ebt_scan(j, page, fn, arg);
	return err;
}

/*
 * Space accounting: every byte of the good blocks outside the anchor is
 * free, used by a live node or dirty, whatever happened before, a power
 * cut and its replay included.  statfs is computed from these counters.
 * A block the table calls bad is out of service too, though the device
 * may not say so yet: it marks it once the checkpoint is written.
 */
void sffs_test_check_space(struct kunit *test, struct vfsmount *mnt,
			   const char *when, int n)
{
	struct sffs_info *c = SFFS_SB(mnt->mnt_sb);
	u64 cap = 0, sum;
	u32 eb, retired = 0;

	for (eb = 0; eb < c->io.eb_count; eb++)
		if (!sffs_io_is_bad(&c->io, eb) && !sffs_io_is_anchor(&c->io, eb))
			cap += c->io.erase_size;
	sffs_lock(c);
	KUNIT_EXPECT_EQ(test, ebt_walk(&c->j, count_retired, &retired), 0);
	cap -= (u64)retired * c->io.erase_size;
	sum = c->j.free + c->j.used + c->j.dirty;
	KUNIT_EXPECT_EQ_MSG(test, sum, cap,
			    "%s %d: free %llu + used %llu + dirty %llu",
			    when, n, c->j.free, c->j.used, c->j.dirty);
	sffs_unlock(c);
}

static void count_free(struct sffs_journal *j, u32 eb,
		       const struct sffs_eb_info *r, void *arg)
{
	if (r->state == SFFS_EB_FREE && !sffs_io_is_bad(j->io, eb) &&
	    !sffs_io_is_anchor(j->io, eb))
		(*(u32 *)arg)++;
}

/*
 * The free bytes are where they are said to be: in free erase blocks, in
 * the journal's blocks not written yet and in the spares.  Space counted
 * free that no block has would let the file system promise writes it
 * cannot make.
 */
void sffs_test_check_free(struct kunit *test, struct vfsmount *mnt,
			  const char *when, int n)
{
	struct sffs_journal *j = &SFFS_SB(mnt->mnt_sb)->j;
	u32 blocks = 0, eb;
	u64 have;

	sffs_lock(SFFS_SB(mnt->mnt_sb));
	KUNIT_EXPECT_EQ(test, ebt_walk(j, count_free, &blocks), 0);
	/* the scan stops at the frontier: what is past it was never used */
	for (eb = j->alloc_eb; eb < j->io->eb_count; eb++)
		if (!sffs_io_is_bad(j->io, eb) && !sffs_io_is_anchor(j->io, eb))
			blocks++;
	have = (u64)(blocks + j->jcnt - j->jcur - 1 + j->nspare) *
	       j->io->erase_size + sffs_io_room(j->io);
	KUNIT_EXPECT_EQ_MSG(test, j->free, have,
			    "%s %d: free bytes %llu, in %u free blocks, %u listed, %u spares and the head: %llu",
			    when, n, j->free, blocks, j->jcnt - j->jcur - 1,
			    j->nspare, have);
	sffs_unlock(SFFS_SB(mnt->mnt_sb));
}

/* The .exit of the suites: frees the flash sffs_rf_create() made */
void sffs_rf_exit(struct kunit *test)
{
	if (test->priv)
		sffs_rf_free(test->priv);
}
