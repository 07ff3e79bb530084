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
 * page_mkwrite): the flash its node may take is set aside, in free bytes
 * garbage collection has made (sffs_space()), so that writeback never
 * meets a full flash and never drops data it accepted.
 * The folio's private flag marks a budgeted page; the budget is given
 * back when the page is written or invalidated.
 */
#include <linux/crypto.h>
#include <linux/fs.h>
#include <linux/fileattr.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/writeback.h>
#include <linux/mtd/mtd.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "sffs.h"

/* Release the flash budgeted for a dirty page */
static void sffs_unbudget(struct sffs_info *c, struct folio *folio)
{
	if (!folio_test_private(folio))
		return;
	folio_detach_private(folio);
	sffs_lock(c);
	c->budget -= min_t(u64, c->budget, SFFS_PAGE_BUDGET);
	sffs_unlock(c);
}

static int sffs_budget(struct sffs_info *c, struct folio *folio)
{
	int err;

	if (folio_test_private(folio))
		return 0;
	sffs_lock(c);
	/*
	 * A file system that turned read-only after a failure takes no new
	 * data into the page cache: it could never be written.
	 */
	err = c->io.ro ? -EROFS : sffs_space(c, SFFS_PAGE_BUDGET, false);
	if (!err)
		c->budget += SFFS_PAGE_BUDGET;
	sffs_unlock(c);
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
	unsigned int size = 0, need = SFFS_COMPR_NONE;
	int err = 0;

	if (page_offset(page) < isize) {
again:
		sffs_lock(c);
		err = sffs_read_leaf(c, &key, SFFS_NODE_DATA, dn);
		if (err == -ENOENT) {
			err = 0;	/* a hole */
		} else if (!err) {
			u32 clen = le32_to_cpu(dn->hdr.len) - sizeof(*dn);
			unsigned int dlen = SFFS_BLOCK_SIZE;

			size = le32_to_cpu(dn->size);
			if (dn->compr == SFFS_COMPR_NONE) {
				memcpy(addr, dn->data, size);
			} else if (!sffs_tfm_ready(c, dn->compr)) {
				/* allocated without the mutex (sffs_tfm()) */
				err = need == dn->compr ? -EOPNOTSUPP : -EAGAIN;
				need = dn->compr;
			} else {
				err = crypto_comp_decompress(c->tfm[dn->compr],
							     dn->data, clen,
							     addr, &dlen);
				if (err || dlen != size)
					err = -EUCLEAN;
			}
		}
		sffs_unlock(c);
		if (err == -EAGAIN) {
			if (sffs_tfm(c, need))
				goto again;
			err = -EOPNOTSUPP;
		}
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

/*
 * Build in c->dbuf the data node of block @page->index of @inode, its first
 * @len bytes, compressed when that makes it smaller; @c->mutex held.
 */
static void sffs_data_wnode(struct sffs_info *c, struct inode *inode,
			    struct page *page, unsigned int len,
			    struct sffs_wnode *wn)
{
	struct sffs_data_node *dn = c->dbuf;
	struct sffs_ckey key = sffs_key(inode->i_ino, SFFS_KEY_DATA,
					page->index);
	struct sffs_inode *si = SFFS_I(inode);
	unsigned int compr = si->compr;
	unsigned int clen = SFFS_CBUF_SIZE;
	void *addr = kmap_local_page(page);

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
	/* allocated when the file's compression was set (sffs_tfm()) */
	if (compr && sffs_tfm_ready(c, compr)) {
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
	*wn = (struct sffs_wnode){
		.buf = dn, .len = sizeof(*dn) + clen, .type = SFFS_NODE_DATA,
	};
}

/*
 * Journal block @page->index of @inode; @c->mutex held.  Return 1 if the
 * block went past the size on the flash without an inode node: the size
 * is journaled later, by the last page of the file written back or by
 * write_inode().
 */
static int sffs_write_block(struct sffs_info *c, struct inode *inode,
			    struct page *page, unsigned int len)
{
	struct sffs_inode *si = SFFS_I(inode);
	struct sffs_wnode wn[2];
	int n = 1, err, later = 0;

	/*
	 * Data past the size the flash knows goes with an inode node giving
	 * the new size, in one operation, once no other page of the file
	 * waits to be written: the size on the flash never covers data
	 * still in the page cache (sffs_claim_size()).  A file written out
	 * in order gets one such inode node, with its last page.  The
	 * blocks written before it lie past the size on the flash until
	 * then; if the power goes first, the mount keeps the old size and
	 * sffs_trim_stale() drops them before the file grows again.
	 */
	if (page_offset(page) + len > si->flash_size) {
		loff_t size = sffs_claim_size(inode, page->index);

		if (size == i_size_read(inode)) {
			err = sffs_inode_node_size(inode, &wn[1], size);
			if (err)
				return err;
			n = 2;
		} else {
			later = 1;
		}
	}
	sffs_data_wnode(c, inode, page, len, &wn[0]);
	err = sffs_write_op(&c->j, wn, n);
	if (n == 2) {
		if (!err)
			sffs_inode_journaled(inode, &wn[1]);
		kfree(wn[1].buf);
	}
	return err ?: later;
}

/*
 * Is there data of inode @ino on the flash past @size?  Only a power cut
 * leaves some: blocks written back before the inode node that was to
 * give the file its new size (sffs_write_block()).  @c->mutex held.
 * Return 1 if so, 0 if not, or a negative error.
 */
static int sffs_stale_blocks(struct sffs_info *c, u64 ino, loff_t size)
{
	u64 blk = size >> SFFS_BLOCK_SHIFT;
	unsigned int offs = size & (SFFS_BLOCK_SIZE - 1);
	struct sffs_ckey key = sffs_key(ino, SFFS_KEY_DATA, blk);
	struct sffs_data_node *dn = c->rbuf;
	struct sffs_zref ref;
	int err;

	err = sffs_index_next(&c->j.idx, &key, &ref);
	if (!err && (ref.key.ino != ino ||
		     sffs_key_type(&ref.key) != SFFS_KEY_DATA))
		err = -ENOENT;
	if (err)
		return err == -ENOENT ? 0 : err;
	if (sffs_key_value(&ref.key) > blk || !offs)
		return 1;
	/* the block the size ends in: stale if it holds bytes past the size */
	err = sffs_read_leaf(c, &ref.key, SFFS_NODE_DATA, dn);
	if (err)
		return err;
	if (le32_to_cpu(dn->size) > offs)
		return 1;
	key = sffs_key(ino, SFFS_KEY_DATA, blk + 1);
	err = sffs_index_next(&c->j.idx, &key, &ref);
	if (err)
		return err == -ENOENT ? 0 : err;
	return ref.key.ino == ino && sffs_key_type(&ref.key) == SFFS_KEY_DATA;
}

/**
 * sffs_truncate_journal - journal a file's new size as one operation
 * @inode: the file, its page cache and i_size already at the new size
 * @cut: the data kept: the smaller of the old and the new size
 * @old: the old size, for the record
 *
 * The operation drops the blocks past @cut, writes the block @cut ends in
 * again with nothing past @cut, and gives the inode its new size.  A
 * power cut keeps all of it or none, so that no block on the flash holds
 * bytes past the file's size that growing the file again would show.
 * The caller has written back the data below @cut: the size journaled
 * here covers no data still in the page cache.  The page @cut ends in is
 * locked meanwhile, so that it is not written back, and cleared past
 * @cut: a shared mapping may have written there, past the old size.
 *
 * Return: 0 or a negative error.
 */
int sffs_truncate_journal(struct inode *inode, loff_t cut, loff_t old)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	unsigned int offs = cut & (PAGE_SIZE - 1);
	struct sffs_trunc_node tn = {};
	struct sffs_wnode wn[3] = {
		{ .buf = &tn, .len = sizeof(tn), .type = SFFS_NODE_TRUNC },
	};
	bool growing = i_size_read(inode) > old;
	struct page *page = NULL;
	u32 bytes = 0;
	int i, n = 1, err;

	if (offs) {
		page = read_mapping_page(inode->i_mapping, cut >> PAGE_SHIFT,
					 NULL);
		if (IS_ERR(page))
			return PTR_ERR(page);
		lock_page(page);
		zero_user_segment(page, offs, PAGE_SIZE);
	}
	tn.ino = cpu_to_le64(inode->i_ino);
	tn.old_size = cpu_to_le64(old);
	tn.new_size = cpu_to_le64(cut);
	sffs_lock(c);
	if (page)
		sffs_data_wnode(c, inode, page, offs, &wn[n++]);
	err = sffs_inode_node_size(inode, &wn[n], i_size_read(inode));
	if (!err) {
		n++;
		for (i = 0; i < n; i++)
			bytes += ALIGN(wn[i].len, SFFS_NODE_ALIGN);
		/* a growing file frees nothing: no dip into the reserve */
		err = sffs_space(c, bytes, !growing);
		if (!err)
			err = sffs_write_op(&c->j, wn, n);
		if (!err)
			sffs_inode_journaled(inode, &wn[n - 1]);
		kfree(wn[n - 1].buf);
	}
	sffs_unlock(c);
	if (page) {
		unlock_page(page);
		put_page(page);
	}
	return err;
}

/*
 * Before a file first grows in this inode's life: drop the data a power
 * cut left past its size on the flash (sffs_stale_blocks()), so that
 * growing the file shows zeroes there.
 */
static int sffs_trim_stale(struct inode *inode)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	struct sffs_inode *si = SFFS_I(inode);
	loff_t size;
	int err;

	sffs_lock(c);
	size = si->flash_size;
	/*
	 * Only before the first growth, when i_size is the size on the
	 * flash; after a truncation that failed half way, blocks past
	 * the size on the flash may be this life's own.
	 */
	err = size == i_size_read(inode) ?
	      sffs_stale_blocks(c, inode->i_ino, size) : 0;
	sffs_unlock(c);
	if (err > 0) {
		pr_info("sffs: %s: inode %lu: dropping data a power cut left past its size %lld\n",
			c->io.mtd->name, inode->i_ino, size);
		err = sffs_truncate_journal(inode, size, size);
	}
	if (!err)
		set_bit(SFFS_I_NO_STALE, &si->state);
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
	sffs_lock(c);
	err = sffs_write_block(c, inode, page, len);
	sffs_unlock(c);
	sffs_unbudget(c, folio);
	if (err > 0) {
		/* the size on the flash is behind: write_inode() catches up */
		mark_inode_dirty_sync(inode);
		err = 0;
	}
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

	if (pos + len > i_size_read(inode) &&
	    !test_bit(SFFS_I_NO_STALE, &SFFS_I(inode)->state)) {
		err = sffs_trim_stale(inode);
		if (err)
			return err;
	}
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
	/*
	 * Dirty before the size grows: a write-back of another page then
	 * finds this one pending and does not journal a size covering it
	 * (sffs_claim_size()).  The page lock keeps it from being written.
	 */
	set_page_dirty(page);
	if (pos + copied > inode->i_size) {
		i_size_write(inode, pos + copied);
		inode->i_blocks = DIV_ROUND_UP_ULL(pos + copied, 512);
		mark_inode_dirty(inode);
	}
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

	/*
	 * The size the flash knows grows only over data on the flash
	 * (sffs_claim_size()): the pages between it and @start go too.
	 */
	sffs_lock(c);
	start = min(start, SFFS_I(inode)->flash_size);
	sffs_unlock(c);
	err = file_write_and_wait_range(file, start, end);
	if (err)
		return err;
	err = sync_inode_metadata(inode, 1);
	/* the inode may be clean with its size still behind: catch up */
	if (!err && sffs_size_behind(inode))
		err = sffs_write_inode_now(inode);
	if (err)
		return err;
	sffs_lock(c);
	err = sffs_journal_sync(&c->j);
	sffs_unlock(c);
	return err;
}

/*
 * A file emptied by a truncation (an open with O_TRUNC) and written anew
 * is how many programs replace a file in place.  Its new data goes to the
 * journal when it is closed, as ext4 does with auto_da_alloc, rather than
 * up to a writeback interval later: a power cut leaves it empty only
 * until the journal's write buffer next goes to the flash.
 */
static int sffs_release(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_WRITE &&
	    test_and_clear_bit(SFFS_I_REWRITE, &SFFS_I(inode)->state))
		filemap_flush(inode->i_mapping);
	return 0;
}

/*
 * Journal a new size; the index drops the blocks past it.  The data below
 * the new end is written back first, so that the size the truncation
 * journals covers nothing still in the page cache; sffs_truncate_journal()
 * then drops what lies past it and rewrites the block it ends in, in one
 * operation.
 */
static int sffs_truncate(struct inode *inode, loff_t size)
{
	struct sffs_inode *si = SFFS_I(inode);
	loff_t old = inode->i_size, cut = min(old, size);
	int err;

	if (cut) {
		err = filemap_write_and_wait_range(inode->i_mapping, 0,
						   cut - 1);
		if (err)
			return err;
	}
	truncate_setsize(inode, size);
	inode->i_mtime = current_time(inode);
	inode->i_ctime = inode->i_mtime;
	inode->i_blocks = DIV_ROUND_UP_ULL(size, 512);
	err = sffs_truncate_journal(inode, cut, old);
	if (err)
		return err;
	/* nothing a power cut left past the size survives a truncation */
	set_bit(SFFS_I_NO_STALE, &si->state);
	if (!size && old)
		set_bit(SFFS_I_REWRITE, &si->state);
	return 0;
}

int sffs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	int err;

	err = setattr_prepare(&init_user_ns, dentry, attr);
	if (err)
		return err;
	if (attr->ia_valid & ATTR_SIZE && attr->ia_size != inode->i_size) {
		if (!S_ISREG(inode->i_mode))
			return -EINVAL;
		err = sffs_truncate(inode, attr->ia_size);
		if (err)
			return err;
	}
	setattr_copy(&init_user_ns, inode, attr);
	return sffs_write_inode_now(inode);
}

static int sffs_getattr(struct user_namespace *mnt_userns,
			const struct path *path, struct kstat *stat,
			u32 request_mask, unsigned int flags)
{
	generic_fillattr(&init_user_ns, d_inode(path->dentry), stat);
	return 0;
}

/*
 * Per-file compression, as chattr sees it: +c compresses new data with
 * the mount's algorithm, -c (or FS_NOCOMP_FL) stores it raw.
 */
static int sffs_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	fileattr_fill_flags(fa, SFFS_I(d_inode(dentry))->compr ?
			    FS_COMPR_FL : FS_NOCOMP_FL);
	return 0;
}

static int sffs_fileattr_set(struct user_namespace *mnt_userns,
			     struct dentry *dentry, struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	u8 compr;

	if (fileattr_has_fsx(fa) || fa->flags & ~(FS_COMPR_FL | FS_NOCOMP_FL))
		return -EOPNOTSUPP;
	if (fa->flags & FS_COMPR_FL && !(fa->flags & FS_NOCOMP_FL))
		compr = c->compr ?: SFFS_COMPR_LZO;
	else
		compr = SFFS_COMPR_NONE;
	if (compr && !sffs_tfm(c, compr))
		return -EOPNOTSUPP;
	SFFS_I(inode)->compr = compr;
	inode->i_ctime = current_time(inode);
	return sffs_write_inode_now(inode);
}

const struct inode_operations sffs_file_inode_operations = {
	.fileattr_get	= sffs_fileattr_get,
	.fileattr_set	= sffs_fileattr_set,
	.listxattr	= sffs_listxattr,
	.setattr	= sffs_setattr,
	.getattr	= sffs_getattr,
};

const struct inode_operations sffs_symlink_inode_operations = {
	.listxattr	= sffs_listxattr,
	.get_link	= simple_get_link,
	.setattr	= sffs_setattr,
	.getattr	= sffs_getattr,
};

const struct inode_operations sffs_special_inode_operations = {
	.listxattr	= sffs_listxattr,
	.setattr	= sffs_setattr,
	.getattr	= sffs_getattr,
};

const struct file_operations sffs_file_operations = {
	.llseek		= generic_file_llseek,
	.read_iter	= generic_file_read_iter,
	.write_iter	= generic_file_write_iter,
	.mmap		= sffs_file_mmap,
	.fsync		= sffs_fsync,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.open		= generic_file_open,
	.release	= sffs_release,
};
