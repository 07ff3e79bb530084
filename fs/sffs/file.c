// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS regular files.
 *
 * Files go through the page cache with write-back: a page dirtied by
 * write() or a shared writable mapping becomes one data node when
 * writeback (or fsync) writes it, compressed when that makes it smaller.
 * SFFS_BLOCK_SIZE equals PAGE_SIZE (super.c refuses other page sizes), so
 * a page is a block and a block is one node.
 *
 * Space: a page is *budgeted* when it is first dirtied (write_begin,
 * page_mkwrite): the flash its node may take is set aside, so that
 * writeback never meets a full flash and never drops data it accepted.
 * The folio's private flag marks a budgeted page; the budget is given
 * back when the page is written or invalidated.
 */
#include <linux/crypto.h>
#include <linux/lzo.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/writeback.h>
#include <linux/mtd/mtd.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "sffs.h"

static const char * const sffs_compr_names[SFFS_COMPR_TYPES] = {
	[SFFS_COMPR_LZO] = "lzo",
	[SFFS_COMPR_ZSTD] = "zstd",
};

#define SFFS_CBUF_SIZE	(lzo1x_worst_compress(SFFS_BLOCK_SIZE) + 64)

int sffs_compr_init(struct sffs_info *c)
{
	c->cbuf = kmalloc(SFFS_CBUF_SIZE, GFP_KERNEL);
	return c->cbuf ? 0 : -ENOMEM;
}

/**
 * sffs_tfm - the compressor of a mount, allocated on first use
 * @c: the file system
 * @type: &enum sffs_compr
 *
 * A zstd context costs more than a megabyte, so a mount only pays for
 * the algorithms it writes or finds on the flash.  The allocation must
 * not recurse into file system reclaim: callers may hold c->mutex.
 *
 * Return: the compressor, or NULL if @type is none, not built in, or
 * cannot be allocated.
 */
struct crypto_comp *sffs_tfm(struct sffs_info *c, unsigned int type)
{
	struct crypto_comp *tfm;
	unsigned int nofs;

	if (type == SFFS_COMPR_NONE || type >= SFFS_COMPR_TYPES ||
	    (type == SFFS_COMPR_LZO && !IS_ENABLED(CONFIG_SFFS_FS_LZO)) ||
	    (type == SFFS_COMPR_ZSTD && !IS_ENABLED(CONFIG_SFFS_FS_ZSTD)))
		return NULL;
	tfm = READ_ONCE(c->tfm[type]);
	if (tfm)
		return tfm;
	nofs = memalloc_nofs_save();
	tfm = crypto_alloc_comp(sffs_compr_names[type], 0, 0);
	memalloc_nofs_restore(nofs);
	if (IS_ERR(tfm)) {
		pr_warn_ratelimited("sffs: no %s compressor: %ld\n",
				    sffs_compr_names[type], PTR_ERR(tfm));
		return NULL;
	}
	/* two first users may race; one keeps its context */
	if (cmpxchg(&c->tfm[type], NULL, tfm)) {
		crypto_free_comp(tfm);
		tfm = c->tfm[type];
	}
	return tfm;
}

void sffs_compr_exit(struct sffs_info *c)
{
	unsigned int i;

	for (i = 1; i < SFFS_COMPR_TYPES; i++)
		if (c->tfm[i])
			crypto_free_comp(c->tfm[i]);
	kfree(c->cbuf);
}

/* Release the flash budgeted for a dirty page */
static void sffs_unbudget(struct sffs_info *c, struct folio *folio)
{
	if (!folio_test_private(folio))
		return;
	folio_detach_private(folio);
	mutex_lock(&c->mutex);
	c->budget -= min_t(u64, c->budget, SFFS_PAGE_BUDGET);
	mutex_unlock(&c->mutex);
}

static int sffs_budget(struct sffs_info *c, struct folio *folio)
{
	int err;

	if (folio_test_private(folio))
		return 0;
	mutex_lock(&c->mutex);
	err = sffs_space(c, SFFS_PAGE_BUDGET, false);
	if (!err)
		c->budget += SFFS_PAGE_BUDGET;
	mutex_unlock(&c->mutex);
	if (!err)
		folio_attach_private(folio, (void *)1);
	return err;
}

/* Read block @page->index of @inode into @page; @c->mutex not held */
static int sffs_do_readpage(struct inode *inode, struct page *page)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	struct sffs_ckey key = sffs_key(inode->i_ino, SFFS_KEY_DATA,
					page->index);
	struct sffs_data_node *dn = c->rbuf;
	loff_t isize = i_size_read(inode);
	void *addr = kmap_local_page(page);
	unsigned int size = 0;
	int err = 0;

	if (page_offset(page) < isize) {
		mutex_lock(&c->mutex);
		err = sffs_read_leaf(c, &key, SFFS_NODE_DATA, dn);
		if (err == -ENOENT) {
			err = 0;	/* a hole */
		} else if (!err) {
			u32 clen = le32_to_cpu(dn->hdr.len) - sizeof(*dn);
			unsigned int dlen = SFFS_BLOCK_SIZE;

			size = le32_to_cpu(dn->size);
			if (dn->compr == SFFS_COMPR_NONE) {
				memcpy(addr, dn->data, size);
			} else if (!sffs_tfm(c, dn->compr)) {
				err = -EOPNOTSUPP;
			} else {
				err = crypto_comp_decompress(c->tfm[dn->compr],
							     dn->data, clen,
							     addr, &dlen);
				if (err || dlen != size)
					err = -EUCLEAN;
			}
		}
		mutex_unlock(&c->mutex);
	}
	if (err) {
		pr_err("sffs: %s: inode %lu block %lu: read error %d\n",
		       c->io.mtd->name, inode->i_ino, page->index, err);
		size = 0;
	}
	/* Bytes past the end of the file read as zeroes, whatever is stored */
	if (page_offset(page) + size > isize)
		size = isize > page_offset(page) ? isize - page_offset(page) : 0;
	memset(addr + size, 0, PAGE_SIZE - size);
	kunmap_local(addr);
	return err ? -EIO : 0;
}

static int sffs_read_folio(struct file *file, struct folio *folio)
{
	struct page *page = &folio->page;
	int err = sffs_do_readpage(folio->mapping->host, page);

	if (!err)
		SetPageUptodate(page);
	else
		SetPageError(page);
	unlock_page(page);
	return err;
}

/* Journal block @page->index of @inode; @c->mutex held */
static int sffs_write_block(struct sffs_info *c, struct inode *inode,
			    struct page *page, unsigned int len)
{
	struct sffs_data_node *dn = c->dbuf;
	struct sffs_ckey key = sffs_key(inode->i_ino, SFFS_KEY_DATA,
					page->index);
	struct sffs_inode *si = SFFS_I(inode);
	unsigned int compr = si->compr;
	struct sffs_wnode wn[2] = { { .buf = dn, .type = SFFS_NODE_DATA } };
	unsigned int clen = SFFS_CBUF_SIZE;
	void *addr;
	int n = 1, err;

	/*
	 * Data past the size the journal knows goes with an inode node
	 * giving the new size, in one operation: a power cut keeps both or
	 * neither, so no file ever holds data past its end that a later
	 * extension would show instead of zeroes.  A file written out in
	 * order gets one such inode node, with the size it has in RAM.
	 */
	if (page_offset(page) + len > SFFS_I(inode)->flash_size) {
		err = sffs_inode_node(inode, &wn[1]);
		if (err)
			return err;
		n = 2;
	}
	addr = kmap_local_page(page);

	memset(dn, 0, sizeof(*dn));
	sffs_key_to_le(&dn->key, &key);
	dn->size = cpu_to_le32(len);
	/*
	 * Media, archives and encrypted data never compress, and trying
	 * costs as much CPU as writing them: once a file's blocks stop
	 * compressing, only one in SFFS_COMPR_PROBE is tried, so that
	 * compressible data that follows is found again within a few
	 * blocks.
	 */
	if (compr && si->compr_misses >= SFFS_COMPR_MISSES &&
	    page->index % SFFS_COMPR_PROBE) {
		c->compr_skipped++;
		compr = SFFS_COMPR_NONE;
	}
	if (compr && sffs_tfm(c, compr)) {
		c->compr_tried++;
		if (!crypto_comp_compress(c->tfm[compr], addr, len, c->cbuf,
					  &clen) && clen < len) {
			si->compr_misses = 0;
		} else {
			si->compr_misses = min(si->compr_misses + 1,
					       SFFS_COMPR_MISSES);
			compr = SFFS_COMPR_NONE;
		}
	} else {
		compr = SFFS_COMPR_NONE;
	}
	if (compr) {
		dn->compr = compr;
		memcpy(dn->data, c->cbuf, clen);
	} else {
		/* incompressible: stored raw, so it costs nothing extra */
		dn->compr = SFFS_COMPR_NONE;
		memcpy(dn->data, addr, len);
		clen = len;
	}
	kunmap_local(addr);
	wn[0].len = sizeof(*dn) + clen;
	err = sffs_journal_write(&c->j, wn, n);
	if (n == 2)
		kfree(wn[1].buf);
	return err;
}

static int sffs_writepage(struct page *page, struct writeback_control *wbc)
{
	struct folio *folio = page_folio(page);
	struct inode *inode = page->mapping->host;
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	loff_t isize = i_size_read(inode);
	unsigned int len;
	int err;

	if (page_offset(page) >= isize) {
		/* wholly past the end of the file: truncated, nothing to do */
		sffs_unbudget(c, folio);
		unlock_page(page);
		return 0;
	}
	len = min_t(loff_t, PAGE_SIZE, isize - page_offset(page));
	set_page_writeback(page);
	mutex_lock(&c->mutex);
	err = sffs_write_block(c, inode, page, len);
	mutex_unlock(&c->mutex);
	sffs_unbudget(c, folio);
	if (err) {
		pr_err("sffs: %s: inode %lu block %lu: write error %d\n",
		       c->io.mtd->name, inode->i_ino, page->index, err);
		mapping_set_error(page->mapping, err);
		SetPageError(page);
	}
	unlock_page(page);
	end_page_writeback(page);
	return err;
}

static int sffs_write_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, struct page **pagep,
			    void **fsdata)
{
	struct inode *inode = mapping->host;
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	struct page *page;
	int err;

	page = grab_cache_page_write_begin(mapping, pos >> PAGE_SHIFT);
	if (!page)
		return -ENOMEM;
	err = sffs_budget(c, page_folio(page));
	if (!err && !PageUptodate(page) && len != PAGE_SIZE) {
		err = sffs_do_readpage(inode, page);
		if (!err)
			SetPageUptodate(page);
	}
	if (err) {
		unlock_page(page);
		put_page(page);
		return err;
	}
	*pagep = page;
	return 0;
}

static int sffs_write_end(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, unsigned int copied,
			  struct page *page, void *fsdata)
{
	struct inode *inode = mapping->host;

	if (!PageUptodate(page)) {
		/* a whole-page write that copied less: the caller retries */
		if (copied < len) {
			copied = 0;
			goto out;
		}
		SetPageUptodate(page);
	}
	if (pos + copied > inode->i_size) {
		i_size_write(inode, pos + copied);
		inode->i_blocks = DIV_ROUND_UP_ULL(pos + copied, 512);
		mark_inode_dirty(inode);
	}
	set_page_dirty(page);
out:
	unlock_page(page);
	put_page(page);
	return copied;
}

static void sffs_invalidate_folio(struct folio *folio, size_t offset,
				  size_t length)
{
	struct inode *inode = folio->mapping->host;

	if (offset || length != folio_size(folio))
		return;
	sffs_unbudget(SFFS_SB(inode->i_sb), folio);
}

static bool sffs_release_folio(struct folio *folio, gfp_t gfp)
{
	/* only budgeted folios are private, and they are dirty */
	return !folio_test_private(folio);
}

const struct address_space_operations sffs_aops = {
	.read_folio		= sffs_read_folio,
	.writepage		= sffs_writepage,
	.write_begin		= sffs_write_begin,
	.write_end		= sffs_write_end,
	.dirty_folio		= filemap_dirty_folio,
	.invalidate_folio	= sffs_invalidate_folio,
	.release_folio		= sffs_release_folio,
	.migrate_folio		= filemap_migrate_folio,
};

/**
 * sffs_truncate_block - rewrite the block a new file size ends in
 * @inode: the file
 * @size: the size
 *
 * The node of that block may hold bytes past @size, which must read as
 * zeroes if the file grows again; the block is read (zeroing past the
 * size), dirtied, and written back like any other.
 *
 * Return: 0 or a negative error.
 */
int sffs_truncate_block(struct inode *inode, loff_t size)
{
	unsigned int offs = size & (PAGE_SIZE - 1);
	struct page *page;
	int err;

	if (!offs)
		return 0;
	page = read_mapping_page(inode->i_mapping, size >> PAGE_SHIFT, NULL);
	if (IS_ERR(page))
		return PTR_ERR(page);
	lock_page(page);
	err = sffs_budget(SFFS_SB(inode->i_sb), page_folio(page));
	if (!err) {
		zero_user_segment(page, offs, PAGE_SIZE);
		set_page_dirty(page);
	}
	unlock_page(page);
	put_page(page);
	return err;
}

static vm_fault_t sffs_page_mkwrite(struct vm_fault *vmf)
{
	struct page *page = vmf->page;
	struct inode *inode = file_inode(vmf->vma->vm_file);
	vm_fault_t ret = VM_FAULT_LOCKED;

	sb_start_pagefault(inode->i_sb);
	file_update_time(vmf->vma->vm_file);
	lock_page(page);
	if (page->mapping != inode->i_mapping ||
	    page_offset(page) >= i_size_read(inode)) {
		unlock_page(page);
		ret = VM_FAULT_NOPAGE;
		goto out;
	}
	if (sffs_budget(SFFS_SB(inode->i_sb), page_folio(page))) {
		unlock_page(page);
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	set_page_dirty(page);
	wait_for_stable_page(page);
out:
	sb_end_pagefault(inode->i_sb);
	return ret;
}

static const struct vm_operations_struct sffs_file_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= sffs_page_mkwrite,
};

static int sffs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &sffs_file_vm_ops;
	return 0;
}

static int sffs_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	struct inode *inode = file_inode(file);
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	int err;

	err = file_write_and_wait_range(file, start, end);
	if (err)
		return err;
	err = sync_inode_metadata(inode, 1);
	if (err)
		return err;
	mutex_lock(&c->mutex);
	err = sffs_journal_sync(&c->j);
	mutex_unlock(&c->mutex);
	return err;
}

const struct file_operations sffs_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= generic_file_write_iter,
	.mmap		= sffs_file_mmap,
	.fsync		= sffs_fsync,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.open		= generic_file_open,
};
