// SPDX-License-Identifier: GPL-2.0
/*
 * mtdcount - count what a file system does to the flash, the same way for
 * every file system (a benchmark helper for make bench-flash; not part of
 * the series).
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
 */
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mtd/mtd.h>
#include <linux/slab.h>

static int mtd_num = -1;
module_param_named(mtd, mtd_num, int, 0444);
MODULE_PARM_DESC(mtd, "number of the MTD device to count");

static bool sync_each;
module_param(sync_each, bool, 0444);
MODULE_PARM_DESC(sync_each, "sync the device after every program and erase");

static atomic64_t cnt_read, cnt_prog, cnt_erase, cnt_erases;

static int cnt_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(kp->arg));
}

static const struct kernel_param_ops cnt_ops = { .get = cnt_get };
module_param_cb(read_bytes, &cnt_ops, &cnt_read, 0444);
module_param_cb(programmed_bytes, &cnt_ops, &cnt_prog, 0444);
module_param_cb(erased_bytes, &cnt_ops, &cnt_erase, 0444);
module_param_cb(erases, &cnt_ops, &cnt_erases, 0444);

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

static int mc_erase(struct mtd_info *mtd, struct erase_info *instr)
{
	int err = mtd_erase(lower, instr);
	u64 b;

	if (!err) {
		atomic64_add(instr->len, &cnt_erase);
		atomic64_inc(&cnt_erases);
		for (b = div_u64(instr->addr, mtd->erasesize);
		     b < nr_blocks && b * mtd->erasesize < instr->addr + instr->len;
		     b++)
			atomic_inc(&block_erases[b]);
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

static int mc_write_oob(struct mtd_info *mtd, loff_t to,
			struct mtd_oob_ops *ops)
{
	int err = mtd_write_oob(lower, to, ops);

	atomic64_add(ops->retlen + ops->oobretlen, &cnt_prog);
	if (sync_each)
		mtd_sync(lower);
	return err;
}

static int mc_isbad(struct mtd_info *mtd, loff_t ofs)
{
	return mtd_block_isbad(lower, ofs);
}

static int mc_markbad(struct mtd_info *mtd, loff_t ofs)
{
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
MODULE_DESCRIPTION("MTD pass-through that counts reads, programs and erases");
MODULE_LICENSE("GPL");
