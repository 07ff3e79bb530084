// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS statistics in sysfs: /sys/fs/sffs/<mtd>/, one value per file, for
 * monitoring a device in the field (wear, bad blocks, garbage collection
 * and write amplification).  debugfs has the same and more for
 * developers; these files are the stable interface.
 */
#include <linux/kobject.h>
#include <linux/mtd/mtd.h>
#include <linux/sysfs.h>
#include "sffs.h"

static struct kset *sffs_kset;

struct sffs_attr {
	struct attribute attr;
	u64 (*get)(struct sffs_info *c);
};

static u64 sffs_ec_avg(struct sffs_info *c)
{
	return c->j.ec_blocks ? div_u64(c->j.ec_sum, c->j.ec_blocks) : 0;
}

#define SFFS_ATTR(_name, _expr)						\
static u64 sffs_get_##_name(struct sffs_info *c) { return (_expr); }	\
static struct sffs_attr sffs_attr_##_name = {				\
	.attr = { .name = #_name, .mode = 0444 },			\
	.get = sffs_get_##_name,					\
}

SFFS_ATTR(erase_count_min, c->j.ec_min);
SFFS_ATTR(erase_count_avg, sffs_ec_avg(c));
SFFS_ATTR(erase_count_max, c->j.ec_max);
SFFS_ATTR(erases, c->j.gc.erases);
SFFS_ATTR(bad_blocks_retired, c->j.gc.bad);
SFFS_ATTR(scrubbed_blocks, c->j.gc.scrubbed);
SFFS_ATTR(bitflips_corrected, c->io.bitflips);
SFFS_ATTR(read_errors, c->io.read_errors);
SFFS_ATTR(gc_runs, c->j.gc.runs);
SFFS_ATTR(gc_blocks, c->j.gc.blocks);
SFFS_ATTR(gc_moved_bytes, c->j.gc.moved);
SFFS_ATTR(wl_moves, c->j.gc.wl_moves);
SFFS_ATTR(journal_blocks, c->j.jmax);
SFFS_ATTR(commits, c->j.commits);
SFFS_ATTR(user_bytes_written, c->j.user_bytes);
SFFS_ATTR(flash_bytes_written, c->io.bytes_written);
SFFS_ATTR(free_bytes, c->j.free);
SFFS_ATTR(dirty_bytes, c->j.dirty);
SFFS_ATTR(dark_bytes, sffs_dark(&c->j));
SFFS_ATTR(used_bytes, c->j.used);
SFFS_ATTR(orphans_deleted, c->orphans);
SFFS_ATTR(compr_tried, c->compr_tried);
SFFS_ATTR(compr_skipped, c->compr_skipped);
SFFS_ATTR(program_failures, c->io.write_errors);
SFFS_ATTR(bad_reserve_blocks, sffs_bad_reserve_blocks(&c->j));

static struct attribute *sffs_attrs[] = {
	&sffs_attr_erase_count_min.attr,
	&sffs_attr_erase_count_avg.attr,
	&sffs_attr_erase_count_max.attr,
	&sffs_attr_erases.attr,
	&sffs_attr_bad_blocks_retired.attr,
	&sffs_attr_scrubbed_blocks.attr,
	&sffs_attr_bitflips_corrected.attr,
	&sffs_attr_read_errors.attr,
	&sffs_attr_gc_runs.attr,
	&sffs_attr_gc_blocks.attr,
	&sffs_attr_gc_moved_bytes.attr,
	&sffs_attr_wl_moves.attr,
	&sffs_attr_journal_blocks.attr,
	&sffs_attr_commits.attr,
	&sffs_attr_user_bytes_written.attr,
	&sffs_attr_flash_bytes_written.attr,
	&sffs_attr_free_bytes.attr,
	&sffs_attr_dirty_bytes.attr,
	&sffs_attr_dark_bytes.attr,
	&sffs_attr_used_bytes.attr,
	&sffs_attr_orphans_deleted.attr,
	&sffs_attr_compr_tried.attr,
	&sffs_attr_compr_skipped.attr,
	&sffs_attr_program_failures.attr,
	&sffs_attr_bad_reserve_blocks.attr,
	NULL,
};
ATTRIBUTE_GROUPS(sffs);

static ssize_t sffs_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct sffs_info *c = container_of(kobj, struct sffs_info, kobj);
	struct sffs_attr *a = container_of(attr, struct sffs_attr, attr);
	u64 val;

	sffs_lock(c);
	val = a->get(c);
	sffs_unlock(c);
	return sysfs_emit(buf, "%llu\n", val);
}

static const struct sysfs_ops sffs_sysfs_ops = {
	.show = sffs_attr_show,
};

static void sffs_kobj_release(struct kobject *kobj)
{
	struct sffs_info *c = container_of(kobj, struct sffs_info, kobj);

	complete(&c->kobj_gone);
}

static struct kobj_type sffs_ktype = {
	.default_groups = sffs_groups,
	.sysfs_ops = &sffs_sysfs_ops,
	.release = sffs_kobj_release,
};

/* /sys/fs/sffs/mtdN/ for a mount; a failure only costs the statistics */
void sffs_sysfs_add(struct sffs_info *c)
{
	int err;

	init_completion(&c->kobj_gone);
	if (!sffs_kset)
		return;
	c->kobj.kset = sffs_kset;
	err = kobject_init_and_add(&c->kobj, &sffs_ktype, NULL, "mtd%d",
				   c->io.mtd->index);
	if (err) {
		pr_warn("sffs: %s: no statistics in sysfs: %d\n",
			c->io.mtd->name, err);
		kobject_put(&c->kobj);
		wait_for_completion(&c->kobj_gone);
		return;
	}
	c->kobj_added = true;
}

void sffs_sysfs_del(struct sffs_info *c)
{
	if (!c->kobj_added)
		return;
	kobject_del(&c->kobj);
	kobject_put(&c->kobj);
	wait_for_completion(&c->kobj_gone);
	c->kobj_added = false;
}

int __init sffs_sysfs_init(void)
{
	sffs_kset = kset_create_and_add("sffs", NULL, fs_kobj);
	return sffs_kset ? 0 : -ENOMEM;
}

void sffs_sysfs_exit(void)
{
	kset_unregister(sffs_kset);
	sffs_kset = NULL;
}
