// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS debugfs: /sys/kernel/debug/sffs/mtdN/ for each mounted device.
 *
 * stats      mount time, commits, replay, space, index nodes in RAM
 *
 * And, with CONFIG_FAULT_INJECTION_DEBUG_FS, /sys/kernel/debug/sffs/:
 *
 * fail_apply the fault-injection attributes (probability, times, ...) of
 *            applying a journaled operation to the index, which then fails
 *            with -ENOMEM and turns the file system read-only
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/mtd/mtd.h>
#include <linux/seq_file.h>
#include "sffs.h"

static struct dentry *sffs_debugfs_root;

static int sffs_stats_show(struct seq_file *m, void *unused)
{
	struct sffs_info *c = m->private;
	struct sffs_journal *j = &c->j;

	sffs_lock(c);
	seq_printf(m, "mount_us %llu\n", div_u64(c->mount_ns, NSEC_PER_USEC));
	seq_printf(m, "mount_io_done_us %llu\n",
		   div_u64(c->mount_phase_ns[0], NSEC_PER_USEC));
	seq_printf(m, "mount_anchor_us %llu\n",
		   div_u64(j->mount_ns[0], NSEC_PER_USEC));
	seq_printf(m, "mount_index_root_us %llu\n",
		   div_u64(j->mount_ns[1], NSEC_PER_USEC));
	seq_printf(m, "mount_replay_us %llu\n",
		   div_u64(j->mount_ns[2], NSEC_PER_USEC));
	seq_printf(m, "mount_journal_done_us %llu\n",
		   div_u64(c->mount_phase_ns[1], NSEC_PER_USEC));
	seq_printf(m, "mount_root_done_us %llu\n",
		   div_u64(c->mount_phase_ns[2], NSEC_PER_USEC));
	seq_printf(m, "anchor_units_read %u\n", c->io.units_read);
	seq_printf(m, "replayed_nodes %lu\n", j->replayed);
	seq_printf(m, "commit %llu\n", j->commit);
	seq_printf(m, "commits %lu\n", j->commits);
	seq_printf(m, "commits_journal_full %lu\n", j->commits_journal_full);
	seq_printf(m, "commits_ram_limit %lu\n", j->commits_ram_limit);
	seq_printf(m, "commits_gc %lu\n", j->commits_gc);
	seq_printf(m, "sqnum %llu\n", j->sqnum);
	seq_printf(m, "next_ino %llu\n", j->next_ino);
	seq_printf(m, "free_bytes %llu\n", j->free);
	seq_printf(m, "dirty_bytes %llu\n", j->dirty);
	seq_printf(m, "dark_bytes %llu\n", sffs_dark(j));
	seq_printf(m, "used_bytes %llu\n", j->used);
	seq_printf(m, "reserve_bytes %llu\n", sffs_journal_reserve(j));
	seq_printf(m, "budget_bytes %llu\n", c->budget);
	seq_printf(m, "index_height %u\n", j->idx.height);
	seq_printf(m, "index_fanout %u\n", j->idx.fanout);
	seq_printf(m, "znodes %lu\n", j->idx.nr_znodes);
	seq_printf(m, "znodes_dirty %lu\n", j->idx.nr_dirty);
	seq_printf(m, "znode_bytes %zu\n",
		   (size_t)j->idx.nr_znodes *
		   sffs_index_znode_size(j->idx.fanout));
	seq_printf(m, "buffer_bytes %zu\n",
		   (size_t)c->io.wbuf_size + 2 * SFFS_MAX_LEAF_LEN +
		   sffs_index_node_size(j->idx.fanout));
	seq_printf(m, "journal_blocks %u\n", j->jcnt);
	seq_printf(m, "alloc_eb %u\n", j->alloc_eb);
	seq_printf(m, "write_head %llu\n", sffs_io_head(&c->io));
	seq_printf(m, "free_blocks %llu\n", sffs_free_blocks(j));
	seq_printf(m, "spare_blocks %u\n", j->nspare);
	seq_printf(m, "ebt_changes %lu\n", j->ebt_nr);
	seq_printf(m, "ebt_hints_lost %lu\n", j->ebt_lost);
	seq_printf(m, "ebt_state_changes %lu\n", j->ebt_states);
	seq_printf(m, "gc_runs %lu\n", j->gc.runs);
	seq_printf(m, "gc_blocks %lu\n", j->gc.blocks);
	seq_printf(m, "gc_more_rounds %lu\n", j->gc.more_rounds);
	seq_printf(m, "gc_wide_rounds %lu\n", j->gc.wide_rounds);
	seq_printf(m, "gc_ahead_runs %lu\n", j->gc.ahead_runs);
	seq_printf(m, "gc_starved_runs %lu\n", j->gc.starved_runs);
	seq_printf(m, "gc_moved_bytes %llu\n", j->gc.moved);
	seq_printf(m, "gc_index_moved %lu\n", j->gc.index_moved);
	seq_printf(m, "commit_index_bytes %llu\n", j->gc.index_bytes);
	seq_printf(m, "commit_table_bytes %llu\n", j->gc.table_bytes);
	seq_printf(m, "commit_table_pages %lu\n", j->gc.table_pages);
	seq_printf(m, "commit_table_deferred %lu\n", j->gc.table_deferred);
	seq_printf(m, "commit_table_exact %lu\n", j->gc.table_exact);
	seq_printf(m, "commit_table_many %lu\n", j->gc.table_many);
	seq_printf(m, "commit_table_old %lu\n", j->gc.table_old);
	seq_printf(m, "commit_table_all %lu\n", j->gc.table_all);
	seq_printf(m, "commit_table_hint_min %u\n", j->ebt_fold_min);
	seq_printf(m, "gc_refused %lu\n", j->gc.refused);
	seq_printf(m, "gc_scrubbed %lu\n", j->gc.scrubbed);
	seq_printf(m, "wl_moves %lu\n", j->gc.wl_moves);
	seq_printf(m, "ec_min %u\n", j->ec_min);
	seq_printf(m, "ec_max %u\n", j->ec_max);
	seq_printf(m, "ec_avg %llu\n",
		   j->ec_blocks ? div_u64(j->ec_sum, j->ec_blocks) : 0);
	seq_printf(m, "read_bitflips %lu\n", c->io.bitflips);
	seq_printf(m, "read_errors %lu\n", c->io.read_errors);
	seq_printf(m, "ebt_scans %lu\n", j->gc.scans);
	seq_printf(m, "ebt_scan_pages %lu\n", j->gc.scan_pages);
	seq_printf(m, "erases %lu\n", j->gc.erases);
	seq_printf(m, "bad_blocks_retired %lu\n", j->gc.bad);
	seq_printf(m, "program_failures %lu\n", c->io.write_errors);
	seq_printf(m, "blocks_retiring %u\n", c->io.nretire);
	seq_printf(m, "bad_reserve_blocks %u\n", sffs_bad_reserve_blocks(j));
	seq_printf(m, "orphans_deleted %lu\n", c->orphans);
	sffs_unlock(c);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sffs_stats);

void sffs_debugfs_init(struct sffs_info *c)
{
	char name[16];

	if (!sffs_debugfs_root)
		return;
	snprintf(name, sizeof(name), "mtd%d", c->io.mtd->index);
	c->debugfs = debugfs_create_dir(name, sffs_debugfs_root);
	debugfs_create_file("stats", 0444, c->debugfs, c, &sffs_stats_fops);
}

void sffs_debugfs_exit(struct sffs_info *c)
{
	debugfs_remove(c->debugfs);
	c->debugfs = NULL;
}

void sffs_debugfs_register(void)
{
	sffs_debugfs_root = debugfs_create_dir("sffs", NULL);
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail_apply", sffs_debugfs_root,
				  &sffs_fail_apply);
	fault_create_debugfs_attr("fail_gc", sffs_debugfs_root,
				  &sffs_fail_gc);
#endif
}

void sffs_debugfs_unregister(void)
{
	debugfs_remove(sffs_debugfs_root);
}
