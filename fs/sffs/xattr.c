// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFFS extended attributes: the user., trusted. and security. namespaces.
 *
 * An attribute is one xattr node keyed (inode, xattr, crc32c of its full
 * name << 8 | collision index), holding the name and the value; removing
 * it journals an xattr node with SFFS_XATTR_FL_DELETE.  Either goes with
 * the inode node (its ctime and attribute count change) as one operation.
 * Attributes are leaf nodes like any other: deleting the inode drops
 * them with the rest of its keys.
 */
#include <linux/slab.h>
#include <linux/xattr.h>
#include "sffs.h"

static int sffs_xattr_get(const struct xattr_handler *handler,
			  struct dentry *unused, struct inode *inode,
			  const char *name, void *buffer, size_t size)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	const char *full = xattr_full_name(handler, name);
	struct sffs_xattr_node *xn = c->xbuf;
	struct sffs_name_slot x;
	int err;

	sffs_lock(c);
	err = sffs_find_name(c, inode->i_ino, SFFS_NODE_XATTR, full,
			     strlen(full), xn, &x);
	if (!err && !x.found)
		err = -ENODATA;
	if (!err) {
		err = le16_to_cpu(xn->value_len);
		if (size && err > size)
			err = -ERANGE;
		else if (size)
			memcpy(buffer, xn->data + le16_to_cpu(xn->name_len),
			       err);
	}
	sffs_unlock(c);
	return err;
}

static int sffs_xattr_set(const struct xattr_handler *handler,
			  struct user_namespace *mnt_userns,
			  struct dentry *unused, struct inode *inode,
			  const char *name, const void *value, size_t size,
			  int flags)
{
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	const char *full = xattr_full_name(handler, name);
	size_t nlen = strlen(full);
	struct sffs_inode *si = SFFS_I(inode);
	struct sffs_wnode wn[2] = {};
	struct sffs_xattr_node *xn;
	struct sffs_name_slot x;
	u32 cnt = si->xattr_cnt, bytes = si->xattr_size;
	int err;

	if (nlen > SFFS_MAX_XATTR_NAME)
		return -ERANGE;
	if (size > SFFS_MAX_XATTR_VALUE)
		return -E2BIG;
	xn = kzalloc(sizeof(*xn) + nlen + size, GFP_NOFS);
	if (!xn)
		return -ENOMEM;

	sffs_lock(c);
	err = sffs_find_name(c, inode->i_ino, SFFS_NODE_XATTR, full, nlen,
			     c->xbuf, &x);
	if (err)
		goto out;
	if (x.found) {
		err = -EEXIST;
		if (flags & XATTR_CREATE)
			goto out;
		cnt--;
		bytes -= nlen + le16_to_cpu(c->xbuf->value_len);
	} else {
		err = -ENODATA;
		if (flags & XATTR_REPLACE || !value)
			goto out;
		err = -ENOSPC;
		if (x.free_coll == ~0U)
			goto out;
	}
	sffs_key_to_le(&xn->key, &x.key);
	xn->name_len = cpu_to_le16(nlen);
	memcpy(xn->data, full, nlen);
	wn[0] = (struct sffs_wnode){ .buf = xn, .type = SFFS_NODE_XATTR };
	if (value) {
		xn->value_len = cpu_to_le16(size);
		memcpy(xn->data + nlen, value, size);
		cnt++;
		bytes += nlen + size;
		wn[0].len = sizeof(*xn) + nlen + size;
	} else {
		wn[0].flags = SFFS_XATTR_FL_DELETE;
		wn[0].len = sizeof(*xn) + nlen;
	}
	swap(si->xattr_cnt, cnt);
	swap(si->xattr_size, bytes);
	inode->i_ctime = current_time(inode);
	err = sffs_inode_node(inode, &wn[1]);
	if (!err)
		err = sffs_space(c, wn[0].len + wn[1].len, !value);
	if (!err)
		err = sffs_write_op(&c->j, wn, 2);
	if (!err)
		sffs_inode_journaled(inode, &wn[1]);
	if (err) {
		si->xattr_cnt = cnt;
		si->xattr_size = bytes;
	}
out:
	sffs_unlock(c);
	kfree(wn[1].buf);
	kfree(xn);
	return err;
}

/*
 * Is the attribute @name (@len bytes, not terminated) one the caller may
 * see listed?  The handler of its namespace says, as for other file
 * systems: trusted.* only to CAP_SYS_ADMIN.  A name no handler takes is
 * not listed, as it could not be read either.
 */
static bool sffs_xattr_listed(struct dentry *dentry, const char *name,
			      size_t len)
{
	const struct xattr_handler **h;

	for (h = sffs_xattr_handlers; *h; h++) {
		const char *prefix = xattr_prefix(*h);
		size_t plen = strlen(prefix);

		if (len >= plen && !memcmp(name, prefix, plen))
			return !(*h)->list || (*h)->list(dentry);
	}
	return false;
}

ssize_t sffs_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct sffs_info *c = SFFS_SB(inode->i_sb);
	struct sffs_ckey key = sffs_key(inode->i_ino, SFFS_KEY_XATTR, 0);
	struct sffs_xattr_node *xn = c->xbuf;
	struct sffs_zref ref;
	ssize_t total = 0;
	int err;

	sffs_lock(c);
	for (;;) {
		size_t nlen;

		err = sffs_index_next(&c->j.idx, &key, &ref);
		if (!err && (ref.key.ino != inode->i_ino ||
			     sffs_key_type(&ref.key) != SFFS_KEY_XATTR))
			err = -ENOENT;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		if (!err && ref.len > SFFS_XATTR_MAX_LEN)
			err = -EUCLEAN;
		if (!err)
			err = sffs_io_read_node(&c->io, ref.addr, ref.len, xn,
						SFFS_NODE_XATTR);
		if (err)
			break;
		key = ref.key;
		key.tv++;
		nlen = le16_to_cpu(xn->name_len);
		if (!sffs_xattr_listed(dentry, xn->data, nlen))
			continue;
		if (size) {
			if (total + nlen + 1 > size) {
				err = -ERANGE;
				break;
			}
			memcpy(buffer + total, xn->data, nlen);
			buffer[total + nlen] = 0;
		}
		total += nlen + 1;
	}
	sffs_unlock(c);
	return err ? err : total;
}

static bool sffs_xattr_trusted_list(struct dentry *dentry)
{
	return capable(CAP_SYS_ADMIN);
}

static const struct xattr_handler sffs_user_xattr_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.get	= sffs_xattr_get,
	.set	= sffs_xattr_set,
};

static const struct xattr_handler sffs_trusted_xattr_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.list	= sffs_xattr_trusted_list,
	.get	= sffs_xattr_get,
	.set	= sffs_xattr_set,
};

static const struct xattr_handler sffs_security_xattr_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.get	= sffs_xattr_get,
	.set	= sffs_xattr_set,
};

const struct xattr_handler *sffs_xattr_handlers[] = {
	&sffs_user_xattr_handler,
	&sffs_trusted_xattr_handler,
	&sffs_security_xattr_handler,
	NULL
};
