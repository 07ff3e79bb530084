// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS: mount, unmount, statfs, options; the top of the stack.
 *
 * Mount: check the MTD geometry (io.c), find the newest checkpoint in the
 * anchor by binary search (io.c), read the index root it names
 * (index.c), replay the journal after it (replay.c), read the root inode.
 * A clean mount reads the anchor units of the search, the root index node
 * and one journal unit: a constant amount of flash, whatever its size.
 *
 * Unmount commits, so that the next mount has no journal to replay.
 */
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/module.h>
#include <linux/mtd/mtd.h>
#include <linux/mtd/super.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <asm/unaligned.h>
#include "sffs.h"

/*
 * Default journal size: an erase block in 64 of the device, between 8 and
 * 32.  Every commit rewrites the index path of what the journal holds and
 * leaves a partly filled leaf to be written again by the next one: a
 * 64 MiB sequential fill commits 36 times with 8 blocks (1 MiB on 128 KiB
 * blocks) and 9 times with 32, which program about 1% fewer bytes.  A
 * larger journal costs a longer replay after a power cut (about half a
 * millisecond per block under QEMU) and more dirty index nodes in RAM
 * between commits, and on a small device it would hold back too much of
 * the flash from garbage collection: devices under 512 blocks keep 8.
 */
#define SFFS_DEF_JOURNAL_MIN	8U
#define SFFS_DEF_JOURNAL_MAX	32U

unsigned int sffs_default_journal(const struct sffs_io *io)
{
	return clamp(io->eb_count / 64, SFFS_DEF_JOURNAL_MIN,
		     SFFS_DEF_JOURNAL_MAX);
}

static struct kmem_cache *sffs_inode_cachep;

static struct inode *sffs_alloc_inode(struct super_block *sb)
{
	struct sffs_inode *si;

	si = alloc_inode_sb(sb, sffs_inode_cachep, GFP_KERNEL);
	if (!si)
		return NULL;
	si->flash_size = 0;
	si->compr = 0;
	si->compr_misses = 0;
	si->flags = 0;
	si->xattr_cnt = 0;
	si->xattr_size = 0;
	si->state = 0;
	return &si->vfs_inode;
}

static void sffs_free_inode(struct inode *inode)
{
	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	kmem_cache_free(sffs_inode_cachep, SFFS_I(inode));
}

static void sffs_inode_init_once(void *p)
{
	struct sffs_inode *si = p;

	inode_init_once(&si->vfs_inode);
}

static int sffs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct sffs_info *c = SFFS_SB(dentry->d_sb);
	u64 total, avail, reserve;

	sffs_lock(c);
	total = c->j.free + c->j.dirty + c->j.used;
	reserve = sffs_journal_reserve(&c->j) + sffs_gc_reserve(&c->j) +
		  c->budget;
	avail = c->j.free + c->j.dirty - sffs_dark(&c->j);
	avail = avail > reserve ? avail - reserve : 0;
	sffs_unlock(c);

	/*
	 * A block of data costs the flash a node header more than its own
	 * size, as the page budget counts it: what statfs offers is what a
	 * file that does not compress can take.
	 */
	buf->f_type = SFFS_SUPER_MAGIC;
	buf->f_bsize = SFFS_BLOCK_SIZE;
	buf->f_blocks = div_u64(total, SFFS_PAGE_BUDGET);
	buf->f_bfree = div_u64(avail, SFFS_PAGE_BUDGET);
	buf->f_bavail = buf->f_bfree;
	buf->f_namelen = SFFS_MAX_NAME_LEN;
	buf->f_fsid.val[0] = get_unaligned_le32(c->j.cp.uuid);
	buf->f_fsid.val[1] = get_unaligned_le32(c->j.cp.uuid + 4);
	return 0;
}

static int sffs_sync_fs(struct super_block *sb, int wait)
{
	struct sffs_info *c = SFFS_SB(sb);
	int err;

	if (!wait)
		return 0;
	sffs_lock(c);
	err = sffs_journal_sync(&c->j);
	sffs_unlock(c);
	return err;
}

static void sffs_put_super(struct super_block *sb)
{
	struct sffs_info *c = SFFS_SB(sb);
	int err;

	sffs_sysfs_del(c);
	sffs_debugfs_exit(c);
	unregister_shrinker(&c->shrinker);
	sffs_lock(c);
	if (!c->io.ro) {
		sffs_gc_retire(&c->j);
		c->j.fold_all = true;
		err = sffs_journal_commit(&c->j);
		c->j.fold_all = false;
		if (err)
			pr_err("sffs: %s: commit at unmount failed: %d; the journal will be replayed\n",
			       c->io.mtd->name, err);
	}
	sffs_unlock(c);
	mtd_sync(c->io.mtd);
	sffs_journal_unmount(&c->j);
	sffs_compr_exit(c);
	sffs_io_destroy(&c->io);
}

static const char * const sffs_compr_opt[] = { "none", "lzo", "zstd" };

static int sffs_show_options(struct seq_file *m, struct dentry *root)
{
	struct sffs_info *c = SFFS_SB(root->d_sb);

	seq_printf(m, ",compr=%s,journal=%u,wl_threshold=%u",
		   sffs_compr_opt[c->compr], c->j.jmax, c->j.wl_threshold);
	return 0;
}

static const struct super_operations sffs_super_ops = {
	.alloc_inode	= sffs_alloc_inode,
	.free_inode	= sffs_free_inode,
	.write_inode	= sffs_write_inode,
	.evict_inode	= sffs_evict_inode,
	.put_super	= sffs_put_super,
	.sync_fs	= sffs_sync_fs,
	.statfs		= sffs_statfs,
	.show_options	= sffs_show_options,
};

static unsigned long sffs_shrink_count(struct shrinker *s,
				       struct shrink_control *sc)
{
	struct sffs_info *c = container_of(s, struct sffs_info, shrinker);
	struct sffs_index *idx = &c->j.idx;

	/* read without the lock: an estimate is what is asked for */
	return READ_ONCE(idx->nr_znodes) - min(READ_ONCE(idx->nr_znodes),
					      READ_ONCE(idx->nr_dirty) + 1);
}

static unsigned long sffs_shrink_scan(struct shrinker *s,
				      struct shrink_control *sc)
{
	struct sffs_info *c = container_of(s, struct sffs_info, shrinker);
	unsigned long freed;

	/* reclaim may come from under the mutex: never wait for it here */
	if (!mutex_trylock(&c->mutex))
		return SHRINK_STOP;
	freed = sffs_index_shrink(&c->j.idx, sc->nr_to_scan);
	mutex_unlock(&c->mutex);
	return freed;
}

enum { SFFS_OPT_COMPR, SFFS_OPT_JOURNAL, SFFS_OPT_WL };

static const struct constant_table sffs_param_compr[] = {
	{ "none",	SFFS_COMPR_NONE },
	{ "lzo",	SFFS_COMPR_LZO },
	{ "zstd",	SFFS_COMPR_ZSTD },
	{}
};

static const struct fs_parameter_spec sffs_fs_parameters[] = {
	fsparam_enum("compr", SFFS_OPT_COMPR, sffs_param_compr),
	fsparam_u32("journal", SFFS_OPT_JOURNAL),
	fsparam_u32("wl_threshold", SFFS_OPT_WL),
	{}
};

/* Options as parsed, before the file system is there */
struct sffs_fc {
	int compr;
	unsigned int jmax;
	unsigned int wl_threshold;
};

static int sffs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct sffs_fc *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, sffs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;
	switch (opt) {
	case SFFS_OPT_COMPR:
		ctx->compr = result.uint_32;
		break;
	case SFFS_OPT_JOURNAL:
		if (result.uint_32 < 2 ||
		    result.uint_32 > SFFS_MAX_JOURNAL_BLOCKS)
			return invalfc(fc, "journal must be 2 to %d erase blocks",
				       SFFS_MAX_JOURNAL_BLOCKS);
		ctx->jmax = result.uint_32;
		break;
	case SFFS_OPT_WL:
		if (result.uint_32 < 2)
			return invalfc(fc, "wl_threshold must be 2 or more");
		ctx->wl_threshold = result.uint_32;
		break;
	}
	return 0;
}

/* What sffs_apply_options() needs allocated, without the mutex */
static void sffs_prepare_options(struct sffs_info *c, struct fs_context *fc)
{
	struct sffs_fc *ctx = fc->fs_private;

	if (ctx->compr > 0)
		sffs_tfm(c, ctx->compr);
}

static int sffs_apply_options(struct sffs_info *c, struct fs_context *fc)
{
	struct sffs_fc *ctx = fc->fs_private;

	if (ctx->compr >= 0) {
		/* sffs_prepare_options() allocated it: this may hold the mutex */
		if (ctx->compr && !sffs_tfm_ready(c, ctx->compr))
			return invalfc(fc, "compr=%s is not available",
				       sffs_compr_opt[ctx->compr]);
		c->compr = ctx->compr;
	}
	if (ctx->jmax)
		c->j.jmax = ctx->jmax;
	if (ctx->wl_threshold)
		c->j.wl_threshold = ctx->wl_threshold;
	return 0;
}

static int sffs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct sffs_fc *ctx = fc->fs_private;
	struct sffs_info *c = SFFS_SB(sb);
	u64 start = ktime_get_ns();
	struct inode *root;
	int err;

	if (PAGE_SIZE != SFFS_BLOCK_SIZE)
		return invalfc(fc, "sffs needs 4 KiB pages");
	c->sb = sb;
	mutex_init(&c->mutex);
	c->rbuf = kmalloc(SFFS_MAX_LEAF_LEN, GFP_KERNEL);
	c->dbuf = kmalloc(SFFS_MAX_LEAF_LEN, GFP_KERNEL);
	c->xbuf = kmalloc(struct_size(c->xbuf, data, SFFS_MAX_XATTR_NAME +
					       SFFS_MAX_XATTR_VALUE), GFP_KERNEL);
	if (!c->rbuf || !c->dbuf || !c->xbuf)
		return -ENOMEM;
	err = sffs_io_init(&c->io, sb->s_mtd, sb_rdonly(sb));
	if (err)
		return err;
	c->mount_phase_ns[0] = ktime_get_ns() - start;
	if (c->io.ro && !sb_rdonly(sb)) {
		pr_notice("sffs: %s: device is read-only, mounting read-only\n",
			  sb->s_mtd->name);
		sb->s_flags |= SB_RDONLY;
	}
	err = sffs_compr_init(c);
	if (err)
		goto out_io;
	sffs_lock(c);
	err = sffs_journal_mount(&c->j, &c->io,
				 ctx->jmax ?: sffs_default_journal(&c->io));
	c->need_restart = !err && c->io.ro && c->j.replayed;
	sffs_unlock(c);
	if (err)
		goto out_compr;
	c->j.sb = sb;
	/* the replay could not write where it must: read-only */
	if (c->io.ro)
		sb->s_flags |= SB_RDONLY;
	c->compr = c->j.cp.default_compr < SFFS_COMPR_TYPES &&
		   sffs_tfm(c, c->j.cp.default_compr) ? c->j.cp.default_compr : 0;
	sffs_prepare_options(c, fc);
	err = sffs_apply_options(c, fc);
	if (err)
		goto out_journal;

	sb->s_magic = SFFS_SUPER_MAGIC;
	sb->s_op = &sffs_super_ops;
	sb->s_xattr = sffs_xattr_handlers;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = SFFS_BLOCK_SIZE;
	sb->s_blocksize_bits = SFFS_BLOCK_SHIFT;
	sb->s_time_gran = 1;
	memcpy(&sb->s_uuid, c->j.cp.uuid, sizeof(c->j.cp.uuid));

	c->mount_phase_ns[1] = ktime_get_ns() - start;
	root = sffs_iget(sb, SFFS_ROOT_INO);
	if (IS_ERR(root)) {
		err = PTR_ERR(root);
		goto out_journal;
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root) {
		err = -ENOMEM;
		goto out_journal;
	}

	c->shrinker.count_objects = sffs_shrink_count;
	c->shrinker.scan_objects = sffs_shrink_scan;
	c->shrinker.seeks = DEFAULT_SEEKS;
	err = register_shrinker(&c->shrinker, "sffs-%s", sb->s_mtd->name);
	if (err)
		goto out_root;

	c->mount_phase_ns[2] = ktime_get_ns() - start;
	c->mount_ns = ktime_get_ns() - start;
	/* inodes a power cut left unlinked but not deleted */
	if (!c->io.ro)
		sffs_orphans_finish(c);
	sffs_debugfs_init(c);
	sffs_sysfs_add(c);
	pr_info("sffs: %s: mounted%s, commit %llu, %lu nodes replayed, %u anchor units read, %llu us\n",
		sb->s_mtd->name, c->io.ro ? " read-only" : "", c->j.commit,
		c->j.replayed, c->io.units_read,
		div_u64(c->mount_ns, NSEC_PER_USEC));
	return 0;

out_root:
	dput(sb->s_root);
	sb->s_root = NULL;
out_journal:
	sffs_journal_unmount(&c->j);
out_compr:
	sffs_compr_exit(c);
out_io:
	sffs_io_destroy(&c->io);
	return err;
}

static int sffs_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct sffs_info *c = SFFS_SB(sb);
	bool to_ro = fc->sb_flags & SB_RDONLY;
	int err = 0;

	sync_filesystem(sb);
	sffs_prepare_options(c, fc);
	sffs_lock(c);
	if (to_ro && !sb_rdonly(sb)) {
		sffs_gc_retire(&c->j);
		c->j.fold_all = true;
		err = sffs_journal_commit(&c->j);
		c->j.fold_all = false;
		if (!err)
			c->io.ro = true;
	} else if (!to_ro && sb_rdonly(sb)) {
		if (!(c->io.mtd->flags & MTD_WRITEABLE)) {
			err = -EROFS;
		} else if (c->j.err_ro) {
			pr_err("sffs: %s: read-only after an error: unmount and mount again to write\n",
			       c->io.mtd->name);
			err = -EROFS;
		} else if (le32_to_cpu(c->j.cp.feat_ro_compat) &
			   ~SFFS_FEAT_RO_COMPAT_SUPP) {
			pr_err("sffs: %s: features %#x allow only read-only mounts\n",
			       c->io.mtd->name,
			       le32_to_cpu(c->j.cp.feat_ro_compat));
			err = -EROFS;
		} else {
			c->io.ro = false;
			if (c->need_restart)
				err = sffs_journal_restart(&c->j, c->j.jcur);
			c->need_restart = err != 0;
			if (!err)
				err = sffs_journal_placed(&c->j);
			if (err)
				c->io.ro = true;
		}
	}
	if (!err)
		err = sffs_apply_options(c, fc);
	sffs_unlock(c);
	if (!err && !to_ro && sb_rdonly(sb))
		sffs_orphans_finish(c);
	return err;
}

static int sffs_get_tree(struct fs_context *fc)
{
	return get_tree_mtd(fc, sffs_fill_super);
}

static void sffs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
	kfree(fc->s_fs_info);
}

static const struct fs_context_operations sffs_context_ops = {
	.free		= sffs_free_fc,
	.parse_param	= sffs_parse_param,
	.get_tree	= sffs_get_tree,
	.reconfigure	= sffs_reconfigure,
};

static int sffs_init_fs_context(struct fs_context *fc)
{
	struct sffs_info *c;
	struct sffs_fc *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->compr = -1;
	fc->fs_private = ctx;
	/* handed to the super block by get_tree_mtd() */
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	fc->s_fs_info = c;
	fc->ops = &sffs_context_ops;
	return 0;
}

static void sffs_kill_sb(struct super_block *sb)
{
	struct sffs_info *c = SFFS_SB(sb);

	kill_mtd_super(sb);
	if (c) {
		kfree(c->rbuf);
		kfree(c->xbuf);
		kfree(c->dbuf);
	}
	kfree(c);
}

struct file_system_type sffs_fs_type = {
	.owner		= THIS_MODULE,
	.name		= "sffs",
	.init_fs_context = sffs_init_fs_context,
	.parameters	= sffs_fs_parameters,
	.kill_sb	= sffs_kill_sb,
};
MODULE_ALIAS_FS("sffs");

static int __init sffs_init(void)
{
	int err;

	sffs_inode_cachep = kmem_cache_create("sffs_inode_cache",
					      sizeof(struct sffs_inode), 0,
					      SLAB_RECLAIM_ACCOUNT |
					      SLAB_MEM_SPREAD | SLAB_ACCOUNT,
					      sffs_inode_init_once);
	if (!sffs_inode_cachep)
		return -ENOMEM;
	err = sffs_sysfs_init();
	if (err)
		goto out_cache;
	sffs_debugfs_register();
	err = register_filesystem(&sffs_fs_type);
	if (err)
		goto out_sysfs;
	return 0;

out_sysfs:
	sffs_debugfs_unregister();
	sffs_sysfs_exit();
out_cache:
	kmem_cache_destroy(sffs_inode_cachep);
	return err;
}

static void __exit sffs_exit(void)
{
	unregister_filesystem(&sffs_fs_type);
	sffs_debugfs_unregister();
	sffs_sysfs_exit();
	rcu_barrier();
	kmem_cache_destroy(sffs_inode_cachep);
}

module_init(sffs_init);
module_exit(sffs_exit);
