// SPDX-License-Identifier: GPL-2.0
/*
 * mtdcount - count what a file system does to the flash, the same way for
 * every file system, and cut its power (a helper of the benchmarks and
 * the kselftests; not part of the series).
 *
 * Loaded with mtd=N, it registers a new MTD device that passes every
 * operation through to mtdN and adds up the bytes read, programmed (data
 * and OOB) and erased.  A file system mounted on the new device writes to
 * the same flash as one mounted on mtdN; the counters, in
 * /sys/module/mtdcount/parameters/, give its write amplification measured
 * below the file system, where UBIFS, JFFS2 and SFFS look alike.
 *
 * It also counts the erases of each erase block, for the wear a workload
 * leaves whatever file system ran it (make bench-aging): erase_min,
 * erase_max, erase_sum and erase_sumsq summarise the counts over every
 * block of the device, and writing to erase_reset starts them again from
 * zero (the byte counters above are left alone).
 *
 * With sync_each=1 it also syncs mtdN after every program and erase, for
 * the real power cuts of make stress: block2mtd keeps what is written to
 * it in the page cache of its block device until writeback or mtd_sync(),
 * where a power cut loses it, and writeback stores it in any order.  Made
 * to wait for each one, it is a flash whose programs and erases are done,
 * in order, when they return.
 *
 * And it cuts the power, below the file system, for the sffs kselftest's
 * power-cut tests and the benchmarks' mount after a power cut: writing N
 * to cut_after lets N - 1 more page programs and block erases through to
 * mtdN, tears the Nth and drops every later one without touching mtdN, as
 * if the power had gone while the Nth was in progress.  The torn one and
 * those after it report success, as a system that died would not see
 * them (cut_fail=1: they fail with -EIO, and the file system's handling
 * of failed programs and erases runs).
 * A torn program writes the pages before the one in progress and leaves
 * that one partly programmed: a random number of its bytes as asked, the
 * rest with random bits still 1 that were to be 0.  A torn erase leaves
 * the pages before a random one erased, that one partly erased (random
 * bits of its old data 1) and the rest as they were.  Writing 0 cuts the
 * power at once, -1 brings it back; reads always pass through, and the
 * file system unmounted, what mtdN holds is what the flash would hold
 * after the cut.  dead tells whether the cut has happened, ops counts the
 * programs (a page each, or one for an OOB-only program) and erases (a
 * block each) so far, and cut_seed, written before cut_after, makes the
 * tearing the same again.
 */
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mtd/mtd.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static int mtd_num = -1;
module_param_named(mtd, mtd_num, int, 0444);
MODULE_PARM_DESC(mtd, "number of the MTD device to count");

static bool sync_each;
module_param(sync_each, bool, 0444);
MODULE_PARM_DESC(sync_each, "sync the device after every program and erase");

static atomic64_t cnt_read, cnt_prog, cnt_erase, cnt_erases, cnt_ops;

static int cnt_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(kp->arg));
}

static const struct kernel_param_ops cnt_param_ops = { .get = cnt_get };
module_param_cb(read_bytes, &cnt_param_ops, &cnt_read, 0444);
module_param_cb(programmed_bytes, &cnt_param_ops, &cnt_prog, 0444);
module_param_cb(erased_bytes, &cnt_param_ops, &cnt_erase, 0444);
module_param_cb(erases, &cnt_param_ops, &cnt_erases, 0444);
module_param_cb(ops, &cnt_param_ops, &cnt_ops, 0444);

static struct mtd_info *lower;
static struct mtd_info upper;

/* erases of each erase block since the module was loaded or reset */
static atomic_t *block_erases;
static u32 nr_blocks;

enum { EC_MIN, EC_MAX, EC_SUM, EC_SUMSQ };

static int ec_get(char *buf, const struct kernel_param *kp)
{
	u64 lo = U64_MAX, hi = 0, sum = 0, sumsq = 0, v[4];
	u32 i;

	for (i = 0; i < nr_blocks; i++) {
		u64 n = atomic_read(&block_erases[i]);

		lo = min(lo, n);
		hi = max(hi, n);
		sum += n;
		sumsq += n * n;
	}
	v[EC_MIN] = nr_blocks ? lo : 0;
	v[EC_MAX] = hi;
	v[EC_SUM] = sum;
	v[EC_SUMSQ] = sumsq;
	return sysfs_emit(buf, "%llu\n", v[(long)kp->arg]);
}

static int ec_reset(const char *val, const struct kernel_param *kp)
{
	u32 i;

	for (i = 0; i < nr_blocks; i++)
		atomic_set(&block_erases[i], 0);
	return 0;
}

static const struct kernel_param_ops ec_ops = { .get = ec_get };
static const struct kernel_param_ops ec_reset_ops = { .set = ec_reset };
module_param_cb(erase_min, &ec_ops, (void *)EC_MIN, 0444);
module_param_cb(erase_max, &ec_ops, (void *)EC_MAX, 0444);
module_param_cb(erase_sum, &ec_ops, (void *)EC_SUM, 0444);
module_param_cb(erase_sumsq, &ec_ops, (void *)EC_SUMSQ, 0444);
module_param_cb(erase_reset, &ec_reset_ops, NULL, 0200);

/* The power cut: see the top of the file */
static DEFINE_SPINLOCK(cut_lock);
static int cut_left = -1;	/* operations up to the torn one; -1: none */
static bool dead;
static struct rnd_state cut_rnd;

static u64 cut_seed;
module_param(cut_seed, ullong, 0644);
MODULE_PARM_DESC(cut_seed, "seed of the tearing, taken when cut_after is written");

static bool cut_fail;
module_param(cut_fail, bool, 0644);
MODULE_PARM_DESC(cut_fail, "programs and erases from the cut on fail with -EIO");

module_param(dead, bool, 0444);
MODULE_PARM_DESC(dead, "the power is cut: programs and erases fail");

static int cut_set(const char *val, const struct kernel_param *kp)
{
	int n, err = kstrtoint(val, 0, &n);

	if (err)
		return err;
	spin_lock(&cut_lock);
	cut_left = max(n, -1);
	dead = !n;
	prandom_seed_state(&cut_rnd, READ_ONCE(cut_seed));
	spin_unlock(&cut_lock);
	return 0;
}

static int cut_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(cut_left));
}

static const struct kernel_param_ops cut_ops = { .set = cut_set, .get = cut_get };
module_param_cb(cut_after, &cut_ops, NULL, 0644);
MODULE_PARM_DESC(cut_after, "cut the power in the Nth program or erase from now (0: now, -1: never)");

/* What a program or erase returns once the power is gone */
static int cut_gone(void)
{
	return READ_ONCE(cut_fail) ? -EIO : 0;
}

/*
 * Of the @n page programs or block erases one call makes, how many reach
 * mtdN whole (*@whole); when that is fewer than @n, the next one is torn
 * and the power is gone.  False when it is already gone.
 */
static bool cut_claim(u32 n, u32 *whole)
{
	bool on = true;

	spin_lock(&cut_lock);
	if (dead) {
		on = false;
	} else if (cut_left < 0 || (u32)cut_left > n) {
		if (cut_left > 0)
			cut_left -= n;
		*whole = n;
	} else {
		*whole = cut_left - 1;
		cut_left = 0;
		dead = true;
	}
	spin_unlock(&cut_lock);
	if (on)
		atomic64_add(min(n, *whole + 1), &cnt_ops);
	return on;
}

/* Set random bits of @len bytes at @buf to 1 */
static void cut_garble(u8 *buf, size_t len)
{
	while (len--)
		*buf++ |= prandom_u32_state(&cut_rnd);
}

static int mc_erase_lower(struct mtd_info *mtd, u64 addr, u64 len,
			  struct erase_info *instr)
{
	struct erase_info ei = { .addr = addr, .len = len };
	int err = mtd_erase(lower, &ei);
	u64 b;

	if (err) {
		instr->fail_addr = ei.fail_addr;
		return err;
	}
	atomic64_add(len, &cnt_erase);
	atomic64_inc(&cnt_erases);
	for (b = div_u64(addr, mtd->erasesize);
	     b < nr_blocks && b * mtd->erasesize < addr + len; b++)
		atomic_inc(&block_erases[b]);
	return 0;
}

/* Write back the runs of @buf that are not all 0xff, a page at a time */
static void mc_write_back(struct mtd_info *mtd, u64 addr, const u8 *buf,
			  size_t len)
{
	size_t start, end, retlen;

	for (start = 0; start < len; start = end) {
		for (; start < len; start += mtd->writesize)
			if (memchr_inv(buf + start, 0xff, mtd->writesize))
				break;
		for (end = start; end < len; end += mtd->writesize)
			if (!memchr_inv(buf + end, 0xff, mtd->writesize))
				break;
		if (end > start)
			mtd_write(lower, addr + start, end - start, &retlen,
				  buf + start);
	}
}

/*
 * The power goes while the block at @addr is erased: the pages before a
 * random one are erased, that one is half-way, the rest keep their data.
 */
static void mc_erase_torn(struct mtd_info *mtd, u64 addr,
			  struct erase_info *instr)
{
	u32 pages = mtd->erasesize / mtd->writesize, first;
	size_t retlen;
	u8 *old;

	old = kvmalloc(mtd->erasesize, GFP_KERNEL);
	if (!old)
		return;		/* the erase had not started */
	/* ECC errors or not, what is read is what the cells hold */
	mtd_read(lower, addr, mtd->erasesize, &retlen, old);
	if (!mc_erase_lower(mtd, addr, mtd->erasesize, instr)) {
		first = prandom_u32_state(&cut_rnd) % pages;
		memset(old, 0xff, (size_t)first * mtd->writesize);
		cut_garble(old + (size_t)first * mtd->writesize,
			   mtd->writesize);
		mc_write_back(mtd, addr, old, mtd->erasesize);
		pr_notice("mtdcount: power cut: erase of block %u torn at page %u\n",
			  mtd_div_by_eb(addr, mtd), first);
	}
	kvfree(old);
}

static int mc_erase(struct mtd_info *mtd, struct erase_info *instr)
{
	u32 blocks = mtd_div_by_eb(instr->len, mtd), whole;
	u64 len;
	int err = 0;

	if (!cut_claim(blocks, &whole))
		return cut_gone();
	len = (u64)whole * mtd->erasesize;
	if (len)
		err = mc_erase_lower(mtd, instr->addr, len, instr);
	if (!err && whole < blocks) {
		mc_erase_torn(mtd, instr->addr + len, instr);
		err = cut_gone();
		if (err)
			instr->fail_addr = instr->addr + len;
	}
	if (sync_each)
		mtd_sync(lower);
	return err;
}

/*
 * The MTD core of the upper device turns its own max_bitflips into
 * -EUCLEAN; give it back a count that does the same.
 */
static int mc_read_oob(struct mtd_info *mtd, loff_t from,
		       struct mtd_oob_ops *ops)
{
	int err = mtd_read_oob(lower, from, ops);

	atomic64_add(ops->retlen + ops->oobretlen, &cnt_read);
	if (err == -EUCLEAN)
		return lower->bitflip_threshold;
	return err;
}

/*
 * The power goes during a program: the @whole pages before the torn one
 * are programmed, the torn one is in part.  An OOB-only program is one
 * operation, torn before it reached the cells.  Unless cut_fail, the
 * whole program reports success.
 */
static int mc_write_torn(struct mtd_info *mtd, loff_t to,
			 struct mtd_oob_ops *ops, u32 whole)
{
	struct mtd_oob_ops part = *ops;
	u32 head = mtd_mod_by_ws(to, mtd), oob_page;
	size_t done = 0, len, keep;
	int err = 0;
	u8 *page;

	ops->retlen = 0;
	ops->oobretlen = 0;
	if (!ops->datbuf)
		goto out;
	if (whole) {
		oob_page = ops->mode == MTD_OPS_AUTO_OOB ? mtd->oobavail :
							   mtd->oobsize;
		done = min_t(size_t, ops->len, (size_t)whole * mtd->writesize - head);
		part.len = done;
		part.ooblen = min_t(size_t, ops->ooblen, (size_t)whole * oob_page);
		err = mtd_write_oob(lower, to, &part);
		ops->retlen = part.retlen;
		ops->oobretlen = part.oobretlen;
		if (err)
			goto out;
		head = 0;
	}
	len = min_t(size_t, ops->len - done, mtd->writesize - head);
	page = kmemdup(ops->datbuf + done, len, GFP_KERNEL);
	if (page) {
		keep = prandom_u32_state(&cut_rnd) % len;
		cut_garble(page + keep, len - keep);
		memset(&part, 0, sizeof(part));
		part.mode = ops->mode;
		part.len = len;
		part.datbuf = page;
		mtd_write_oob(lower, to + done, &part);
		kfree(page);
	}
out:
	pr_notice("mtdcount: power cut: program at %llu torn after %zu bytes\n",
		  (u64)to, done);
	if (err)
		return err;
	err = cut_gone();
	if (!err) {
		ops->retlen = ops->len;
		ops->oobretlen = ops->ooblen;
	}
	return err;
}

static int mc_write_oob(struct mtd_info *mtd, loff_t to,
			struct mtd_oob_ops *ops)
{
	u32 pages = 1, whole;
	int err;

	if (ops->datbuf)
		pages = mtd_div_by_ws(mtd_mod_by_ws(to, mtd) + ops->len +
				      mtd->writesize - 1, mtd);
	if (!cut_claim(pages, &whole)) {
		err = cut_gone();
		ops->retlen = err ? 0 : ops->len;
		ops->oobretlen = err ? 0 : ops->ooblen;
		return err;
	}
	if (whole < pages)
		err = mc_write_torn(mtd, to, ops, whole);
	else
		err = mtd_write_oob(lower, to, ops);
	atomic64_add(ops->retlen + ops->oobretlen, &cnt_prog);
	if (sync_each)
		mtd_sync(lower);
	return err;
}

static int mc_isbad(struct mtd_info *mtd, loff_t ofs)
{
	return mtd_block_isbad(lower, ofs);
}

/* Marking a block bad programs its marker: one operation for the cut */
static int mc_markbad(struct mtd_info *mtd, loff_t ofs)
{
	u32 whole;

	if (!cut_claim(1, &whole) || !whole)
		return cut_gone();
	return mtd_block_markbad(lower, ofs);
}

static int mc_max_bad(struct mtd_info *mtd, loff_t ofs, size_t len)
{
	return mtd_max_bad_blocks(lower, ofs, len);
}

static void mc_sync(struct mtd_info *mtd)
{
	mtd_sync(lower);
}

static int __init mtdcount_init(void)
{
	int err;

	lower = get_mtd_device(NULL, mtd_num);
	if (IS_ERR(lower))
		return PTR_ERR(lower);
	nr_blocks = div_u64(lower->size, lower->erasesize);
	block_erases = kvcalloc(nr_blocks, sizeof(*block_erases), GFP_KERNEL);
	if (!block_erases) {
		put_mtd_device(lower);
		return -ENOMEM;
	}
	upper.name = "mtdcount";
	upper.type = lower->type;
	upper.flags = lower->flags;
	upper.size = lower->size;
	upper.erasesize = lower->erasesize;
	upper.writesize = lower->writesize;
	upper.writebufsize = lower->writebufsize;
	upper.oobsize = lower->oobsize;
	upper.oobavail = lower->oobavail;
	upper.subpage_sft = lower->subpage_sft;
	upper.ecc_strength = lower->ecc_strength;
	upper.ecc_step_size = lower->ecc_step_size;
	upper.bitflip_threshold = lower->bitflip_threshold;
	upper.owner = THIS_MODULE;
	upper._erase = mc_erase;
	upper._read_oob = mc_read_oob;
	upper._write_oob = mc_write_oob;
	upper._sync = mc_sync;
	if (mtd_can_have_bb(lower)) {
		upper._block_isbad = mc_isbad;
		upper._block_markbad = mc_markbad;
	}
	if (mtd_get_master(lower)->_max_bad_blocks)
		upper._max_bad_blocks = mc_max_bad;
	err = mtd_device_register(&upper, NULL, 0);
	if (err) {
		kvfree(block_erases);
		put_mtd_device(lower);
	}
	return err;
}

static void __exit mtdcount_exit(void)
{
	mtd_device_unregister(&upper);
	put_mtd_device(lower);
	kvfree(block_erases);
}

module_init(mtdcount_init);
module_exit(mtdcount_exit);
MODULE_DESCRIPTION("MTD pass-through that counts reads, programs and erases and cuts the power");
MODULE_LICENSE("GPL");
