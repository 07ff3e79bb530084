/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RAM flash of the SFFS KUnit suites, and the file helpers they share.
 */
#ifndef __SFFS_TEST_FLASH_H__
#define __SFFS_TEST_FLASH_H__

#include <kunit/test.h>
#include <linux/mtd/mtd.h>

#define RF_WRITESIZE	2048
#define RF_ERASESIZE	(128 * 1024)
#define RF_BLOCKS	96		/* 12 MiB */
#define RF_PAGES	(RF_ERASESIZE / RF_WRITESIZE)

/**
 * struct sffs_ramflash - a NAND-like MTD device in RAM
 * @mtd: the device, registered with the MTD core
 * @mem: its contents
 * @next_page: per block, pages below it are programmed (U16_MAX: the
 *	       block was never erased)
 * @bad: blocks that are bad
 * @flippy: blocks whose reads need ECC to correct (-EUCLEAN)
 * @broken: blocks whose reads fail beyond what ECC corrects (-EBADMSG)
 * @touched: blocks programmed or erased since the bit was last cleared;
 *	     the fuzzer restores only those
 * @failing: blocks a program failed in: every later program there fails
 *	     too, as on a block going bad
 * @fail_in: fault injection: the program of the @fail_in-th page from now
 *	     fails (0: off), and its block becomes @failing
 * @fail_again: after a failure @fail_in made, this many more: the next
 *		program fails too, wherever it goes
 * @cut_in: power cut: the @cut_in-th program or erase from now is torn,
 *	    and the power is then gone (0: off)
 * @dead: the power is gone: programs and erases report success and
 *	  change nothing, as a system that died would not see them
 * @erase_fail: every erase fails with -EIO, and changes nothing
 * @prog_failures: programs that failed that way
 * @violations: writes that broke a NAND rule, and erases of bad blocks
 * @programs: pages programmed
 * @erases: blocks erased
 * @reads: read calls
 * @read_bytes: bytes read
 * @eb_erases: per block, times erased
 * @syncs: calls of mtd_sync(), which a device caching writes needs to
 *	   put them on the medium
 */
struct sffs_ramflash {
	struct mtd_info mtd;
	u8 *mem;
	u16 next_page[RF_BLOCKS];
	DECLARE_BITMAP(bad, RF_BLOCKS);
	DECLARE_BITMAP(flippy, RF_BLOCKS);
	DECLARE_BITMAP(broken, RF_BLOCKS);
	DECLARE_BITMAP(touched, RF_BLOCKS);
	DECLARE_BITMAP(failing, RF_BLOCKS);
	unsigned int fail_in;
	unsigned int fail_again;
	unsigned int cut_in;
	bool dead;
	bool erase_fail;
	unsigned int prog_failures;
	unsigned int violations;
	unsigned long programs;
	unsigned long erases;
	unsigned long reads;
	unsigned long long read_bytes;
	u32 eb_erases[RF_BLOCKS];
	unsigned long syncs;
};

/**
 * struct sffs_sparseflash - a large NAND-like MTD device in RAM, allocated
 *			     a block at a time as blocks are programmed
 * @mtd: the device, registered with the MTD core
 * @blk: per erase block, its contents, or NULL when erased
 * @blocks: erase blocks of RF_ERASESIZE
 * @reads: read calls
 * @read_bytes: bytes read
 * @prog_bytes: bytes programmed
 * @violations: pages programmed twice without an erase
 */
struct sffs_sparseflash {
	struct mtd_info mtd;
	u8 **blk;
	u32 blocks;
	unsigned long reads;
	unsigned long long read_bytes;
	unsigned long long prog_bytes;
	unsigned int violations;
};

struct sffs_sparseflash *sffs_sf_create(struct kunit *test, u32 blocks);
void sffs_sf_free(struct sffs_sparseflash *sf);
struct vfsmount *sffs_test_mount_mtd(struct mtd_info *mtd, const char *opts);

struct sffs_ramflash *sffs_rf_create(struct kunit *test,
				     const unsigned int *bad, int nbad);
void sffs_rf_free(struct sffs_ramflash *rf);
struct vfsmount *sffs_rf_mount(struct sffs_ramflash *rf, const char *opts);
void sffs_rf_umount(struct vfsmount *mnt);
void sffs_rf_exit(struct kunit *test);

void sffs_test_fill(u8 *buf, size_t len, u32 seed, bool compressible);
int sffs_test_write_file(struct vfsmount *mnt, const char *name,
			 const u8 *buf, size_t len, bool sync);
int sffs_test_check_file(struct vfsmount *mnt, const char *name,
			 const u8 *want, size_t len, u8 *tmp);

int sffs_test_rename(struct vfsmount *mnt, const char *from, const char *to);
int sffs_test_rename_flags(struct vfsmount *mnt, const char *from,
			   const char *to, unsigned int flags);
int sffs_test_journal_sync(struct vfsmount *mnt);
int sffs_test_remount_rw(struct vfsmount *mnt);
int sffs_test_unlink(struct vfsmount *mnt, const char *name);
unsigned int sffs_test_count_orphans(struct vfsmount *mnt);
bool sffs_test_ino_in_index(struct vfsmount *mnt, u64 ino);
void sffs_test_check_space(struct kunit *test, struct vfsmount *mnt,
			   const char *when, int n);
void sffs_test_check_free(struct kunit *test, struct vfsmount *mnt,
			  const char *when, int n);

#endif /* __SFFS_TEST_FLASH_H__ */
