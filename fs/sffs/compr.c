// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS compression: the compressors of a mount.
 *
 * File data is compressed block by block through the kernel's crypto
 * compression API (LZO by default, zstd on request); the compressors are
 * allocated on first use, and one buffer per mount holds what a block
 * compresses to.
 */
#include <linux/crypto.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "sffs.h"

static const char * const sffs_compr_names[SFFS_COMPR_TYPES] = {
	[SFFS_COMPR_LZO] = "lzo",
	[SFFS_COMPR_ZSTD] = "zstd",
};

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
 * the algorithms it writes or finds on the flash.  Never with c->mutex
 * held: the crypto API takes crypto_alg_sem, whose writers allocate with
 * GFP_KERNEL, and may load a module with modprobe, which may have to
 * read from this very file system.  Under the mutex, sffs_tfm_ready().
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
	lockdep_assert_not_held(&c->mutex);
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

/**
 * sffs_tfm_ready - the compressor of a mount if it is allocated already
 * @c: the file system, whose mutex the caller may hold
 * @type: &enum sffs_compr
 *
 * Return: the compressor, or NULL if @type is none or no sffs_tfm() has
 * allocated it yet.
 */
struct crypto_comp *sffs_tfm_ready(struct sffs_info *c, unsigned int type)
{
	if (type == SFFS_COMPR_NONE || type >= SFFS_COMPR_TYPES)
		return NULL;
	return READ_ONCE(c->tfm[type]);
}

void sffs_compr_exit(struct sffs_info *c)
{
	unsigned int i;

	for (i = 1; i < SFFS_COMPR_TYPES; i++)
		if (c->tfm[i])
			crypto_free_comp(c->tfm[i]);
	kfree(c->cbuf);
}
