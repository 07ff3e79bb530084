// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by the SFFS tools.
 *
 * The device is either an MTD character device, driven through the MTD
 * ioctls (geometry, bad blocks, erase) and read()/write(), or an image
 * file of the whole device, kept in RAM, 0xff where never written.
 */
#define _FILE_OFFSET_BITS 64
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <mtd/mtd-user.h>
#include "sffs_tool.h"

static uint32_t crc_table[256];

uint32_t sffs_crc(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = SFFS_CRC_SEED;

	if (!crc_table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t x = i;

			for (int k = 0; k < 8; k++)
				x = x & 1 ? (x >> 1) ^ 0x82f63b78 : x >> 1;
			crc_table[i] = x;
		}
	}
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

void sffs_seal(void *node, unsigned int type, uint32_t len, uint64_t sqnum,
	       unsigned int flags)
{
	struct sffs_node_hdr *hdr = node;

	hdr->magic = htole32(SFFS_NODE_MAGIC);
	hdr->sqnum = htole64(sqnum);
	hdr->len = htole32(len);
	hdr->type = type;
	hdr->flags = flags;
	memset(hdr->reserved, 0, sizeof(hdr->reserved));
	hdr->data_crc = htole32(sffs_crc((uint8_t *)node + sizeof(*hdr),
					 len - sizeof(*hdr)));
	hdr->hdr_crc = htole32(sffs_crc((uint8_t *)node + 8, sizeof(*hdr) - 8));
}

/* 0 if intact, 1 if erased, -1 if corrupt: the kernel's rules */
int sffs_check(const void *node, size_t avail)
{
	const struct sffs_node_hdr *hdr = node;
	uint32_t len;

	if (avail < sizeof(*hdr))
		return -1;
	if (le32toh(hdr->magic) == 0xffffffff)
		return 1;
	if (le32toh(hdr->magic) != SFFS_NODE_MAGIC ||
	    le32toh(hdr->hdr_crc) != sffs_crc((uint8_t *)node + 8, 24))
		return -1;
	len = le32toh(hdr->len);
	if (len < sizeof(*hdr) || len > avail ||
	    le32toh(hdr->data_crc) != sffs_crc((uint8_t *)node + 32, len - 32))
		return -1;
	return 0;
}

/*
 * The smallest length of a node of @type, header included, or 0 for a type
 * the format does not have: what fs/sffs/node.c checks before any field
 * of the payload is read, so that no field is read past the node.
 */
uint32_t sffs_node_min_len(unsigned int type)
{
	switch (type) {
	case SFFS_NODE_PAD:
		return sizeof(struct sffs_node_hdr);
	case SFFS_NODE_CHECKPOINT:
		return sizeof(struct sffs_checkpoint_node);
	case SFFS_NODE_INODE:
		return sizeof(struct sffs_inode_node);
	case SFFS_NODE_DATA:
		return sizeof(struct sffs_data_node) + 1;
	case SFFS_NODE_DENTRY:
		return sizeof(struct sffs_dentry_node) + 1;
	case SFFS_NODE_XATTR:
		return sizeof(struct sffs_xattr_node) + 1;
	case SFFS_NODE_TRUNC:
		return sizeof(struct sffs_trunc_node);
	case SFFS_NODE_ORPHAN:
		return sizeof(struct sffs_orphan_node);
	case SFFS_NODE_INDEX:	/* one branch, packed */
		return sizeof(struct sffs_index_node) + SFFS_IPACK_MIN;
	case SFFS_NODE_EBT:
		return sizeof(struct sffs_ebt_node);
	}
	return 0;
}

/*
 * 0 if the lengths and counts inside node @node of @len bytes, at least
 * sffs_node_min_len() of its type, agree with @len; -1 if not: the
 * kernel's payload checks (sffs_node_check()).
 */
int sffs_node_check_payload(const void *node, uint32_t len)
{
	const struct sffs_node_hdr *h = node;

	switch (h->type) {
	case SFFS_NODE_INODE: {
		const struct sffs_inode_node *in = node;
		uint32_t dlen = le16toh(in->data_len);

		return sizeof(*in) + dlen != len ||
		       dlen > SFFS_MAX_SYMLINK_LEN ||
		       in->compr >= SFFS_COMPR_TYPES ? -1 : 0;
	}
	case SFFS_NODE_DATA: {
		const struct sffs_data_node *dn = node;
		uint32_t size = le32toh(dn->size);

		return !size || size > SFFS_BLOCK_SIZE ||
		       dn->compr >= SFFS_COMPR_TYPES ||
		       len - sizeof(*dn) > SFFS_BLOCK_SIZE ||
		       (dn->compr == SFFS_COMPR_NONE &&
			len - sizeof(*dn) != size) ? -1 : 0;
	}
	case SFFS_NODE_DENTRY: {
		const struct sffs_dentry_node *de = node;
		uint32_t nlen = le16toh(de->name_len);

		return !nlen || nlen > SFFS_MAX_NAME_LEN ||
		       sizeof(*de) + nlen != len ? -1 : 0;
	}
	case SFFS_NODE_XATTR: {
		const struct sffs_xattr_node *xn = node;
		uint32_t nlen = le16toh(xn->name_len);
		uint32_t vlen = le16toh(xn->value_len);

		return !nlen || nlen > SFFS_MAX_XATTR_NAME ||
		       vlen > SFFS_MAX_XATTR_VALUE ||
		       sizeof(*xn) + nlen + vlen != len ? -1 : 0;
	}
	case SFFS_NODE_INDEX: {
		const struct sffs_index_node *ix = node;
		uint32_t cnt = le16toh(ix->count);

		if (!cnt || cnt > SFFS_MAX_FANOUT ||
		    ix->flags & ~SFFS_INDEX_PACKED)
			return -1;
		if (ix->flags & SFFS_INDEX_PACKED)
			return sffs_ipack_check(ix, len, cnt);
		return sizeof(*ix) + cnt * sizeof(struct sffs_branch) != len ?
		       -1 : 0;
	}
	case SFFS_NODE_ORPHAN:
		return sffs_orphan_ino(node, len) ? 0 : -1;
	case SFFS_NODE_EBT: {
		const struct sffs_ebt_node *en = node;
		uint32_t cnt = le32toh(en->count);

		if (!cnt || cnt > SFFS_EBT_RECS ||
		    le32toh(en->first) % SFFS_EBT_RECS ||
		    en->hdr.flags & ~(SFFS_EBT_FLAGS | SFFS_NODE_FL_CONT))
			return -1;
		if (en->hdr.flags & SFFS_EBT_FL_PACKED)
			return sffs_epack_check(en, len, cnt);
		return sizeof(*en) + cnt * sizeof(struct sffs_eb_rec) != len ?
		       -1 : 0;
	}
	}
	return 0;
}

/*
 * As sffs_check(), and -1 too when the node is shorter than its type
 * needs, of a type the format does not have, or its payload's lengths
 * are wrong: all a mount's replay takes for a torn write.
 */
static int check_whole(const void *node, size_t avail)
{
	const struct sffs_node_hdr *h = node;
	int c = sffs_check(node, avail);
	uint32_t min;

	if (c)
		return c;
	min = sffs_node_min_len(h->type);
	if (!min || le32toh(h->len) < min ||
	    sffs_node_check_payload(node, le32toh(h->len)))
		return -1;
	return 0;
}

/*
 * The inode number of an orphan record, as the kernel checks it, or 0 if
 * the record is invalid: a record of the root or of the table would have
 * the kernel delete them.
 */
uint64_t sffs_orphan_ino(const void *node, uint32_t len)
{
	const struct sffs_orphan_node *on = node;
	uint64_t tv = le64toh(on->key.tv);

	if (len != sizeof(*on) || on->hdr.type != SFFS_NODE_ORPHAN ||
	    le64toh(on->key.ino) != SFFS_META_INO ||
	    tv >> SFFS_KEY_TYPE_SHIFT != SFFS_KEY_ORPHAN ||
	    (tv & SFFS_KEY_VALUE_MASK) <= SFFS_ROOT_INO)
		return 0;
	return tv & SFFS_KEY_VALUE_MASK;
}

uint64_t sffs_parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	return *end ? 0 : v;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/*
 * MEMGETINFO reports the size in 32 bits, 0 for a 4 GiB device: take it
 * from sysfs, as mtd-utils' libmtd does, and fall back to the ioctl.
 */
static uint64_t mtd_size(const struct stat *st, uint32_t ioctl_size)
{
	unsigned long long size;
	char path[96];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/size",
		 major(st->st_rdev), minor(st->st_rdev));
	f = fopen(path, "r");
	if (!f)
		return ioctl_size;
	ok = fscanf(f, "%llu", &size) == 1;
	fclose(f);
	return ok ? size : ioctl_size;
}

int sffs_dev_open(struct sffs_dev *d, const char *path, bool write,
		  uint32_t erase_size, uint32_t write_size, uint64_t size)
{
	struct mtd_info_user mi;
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->fd = open(path, write ? O_RDWR | O_CREAT : O_RDONLY, 0644);
	if (d->fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(d->fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    ioctl(d->fd, MEMGETINFO, &mi) == 0) {
		d->is_mtd = true;
		erase_size = mi.erasesize;
		write_size = mi.writesize;
		size = mtd_size(&st, mi.size);
	} else if (!size) {
		size = st.st_size;	/* an existing image */
	}
	if (!is_pow2(erase_size) || !is_pow2(write_size) ||
	    erase_size % write_size || !size || size % erase_size) {
		fprintf(stderr, "%s: bad geometry: erase size %u, write size %u, size %llu\n",
			path, erase_size, write_size, (unsigned long long)size);
		return -1;
	}
	d->erase_size = erase_size;
	d->write_size = write_size;
	d->size = size;
	d->eb_count = size / erase_size;
	d->bad = calloc(d->eb_count, 1);
	if (!d->bad)
		return -1;
	if (d->is_mtd) {
		for (uint32_t eb = 0; eb < d->eb_count; eb++) {
			loff_t offs = (loff_t)eb * erase_size;

			d->bad[eb] = ioctl(d->fd, MEMGETBADBLOCK, &offs) > 0;
		}
		return 0;
	}
	d->image = malloc(size);
	if (!d->image) {
		fprintf(stderr, "%s: no memory for a %llu byte image\n", path,
			(unsigned long long)size);
		return -1;
	}
	memset(d->image, 0xff, size);
	if (!write || st.st_size) {
		ssize_t got = pread(d->fd, d->image, size, 0);

		if (got < 0 || (!write && (uint64_t)got != size)) {
			fprintf(stderr, "%s: short image\n", path);
			return -1;
		}
	}
	return 0;
}

int sffs_dev_close(struct sffs_dev *d, const char *path)
{
	int err = 0;

	if (d->image && d->fd >= 0 &&
	    (fcntl(d->fd, F_GETFL) & O_ACCMODE) == O_RDWR) {
		if (ftruncate(d->fd, d->size) ||
		    pwrite(d->fd, d->image, d->size, 0) != (ssize_t)d->size) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			err = -1;
		}
	}
	if (d->fd >= 0 && close(d->fd))
		err = -1;
	free(d->image);
	free(d->bad);
	free(d->skip);
	return err;
}

/* The device's erase block that the file system's @eb is, as in io.c */
static uint64_t dev_eb(const struct sffs_dev *d, uint32_t eb)
{
	unsigned int i;

	for (i = 0; i < d->nskip && d->skip[i] <= (uint64_t)eb + i; i++)
		;
	return (uint64_t)eb + i;
}

/* The device's address of @addr, or UINT64_MAX past the device's end */
static uint64_t dev_addr(const struct sffs_dev *d, uint64_t addr)
{
	uint64_t peb = dev_eb(d, addr / d->erase_size);

	if (peb >= d->size / d->erase_size)
		return UINT64_MAX;
	return peb * d->erase_size + addr % d->erase_size;
}

int sffs_dev_read(struct sffs_dev *d, uint64_t addr, void *buf, size_t len)
{
	/* not addr + len > size: a crafted address would wrap around */
	if (len > d->size || addr > d->size - len)
		return -1;
	if (d->image) {
		memcpy(buf, d->image + addr, len);
		return 0;
	}
	while (len) {
		size_t n = len;
		uint64_t at = addr;

		if (d->nskip) {
			n = d->erase_size - addr % d->erase_size;
			n = n < len ? n : len;
			at = dev_addr(d, addr);
			if (at == UINT64_MAX)
				return -1;
		}
		if (pread(d->fd, buf, n, at) != (ssize_t)n)
			return -1;
		addr += n;
		buf = (uint8_t *)buf + n;
		len -= n;
	}
	return 0;
}

int sffs_dev_write(struct sffs_dev *d, uint64_t addr, const void *buf,
		   size_t len)
{
	/* not addr + len > size: a crafted address would wrap around */
	if (len > d->size || addr > d->size - len)
		return -1;
	if (d->image) {
		memcpy(d->image + addr, buf, len);
		return 0;
	}
	/* pages, nodes and checkpoint units never cross a block */
	if (d->nskip)
		addr = dev_addr(d, addr);
	if (addr == UINT64_MAX ||
	    pwrite(d->fd, buf, len, addr) != (ssize_t)len) {
		fprintf(stderr, "write of %zu bytes at %llu: %s\n", len,
			(unsigned long long)addr, strerror(errno));
		return -1;
	}
	return 0;
}

int sffs_dev_erase(struct sffs_dev *d, uint32_t eb)
{
	struct erase_info_user ei = {
		.start = dev_eb(d, eb) * d->erase_size,
		.length = d->erase_size,
	};

	if (d->image) {
		memset(d->image + (uint64_t)eb * d->erase_size, 0xff,
		       d->erase_size);
		return 0;
	}
	if (ioctl(d->fd, MEMERASE, &ei)) {
		fprintf(stderr, "erase of block %u: %s\n", eb, strerror(errno));
		return -1;
	}
	return 0;
}

/* The first four good blocks among the first sixteen */
int sffs_find_anchor(struct sffs_dev *d)
{
	unsigned int n = 0;

	for (uint32_t eb = 0; eb < SFFS_ANCHOR_SEARCH && eb < d->eb_count &&
	     n < SFFS_ANCHOR_BLOCKS; eb++)
		if (!d->bad[eb])
			d->anchor[n++] = eb;
	if (n < SFFS_ANCHOR_BLOCKS) {
		fprintf(stderr, "fewer than %d good blocks among the first %d\n",
			SFFS_ANCHOR_BLOCKS, SFFS_ANCHOR_SEARCH);
		return -1;
	}
	return 0;
}

static uint64_t unit_addr(struct sffs_dev *d, unsigned int slot, uint32_t n)
{
	uint32_t unit = SFFS_CP_UNIT(d->write_size);
	uint32_t upb = d->erase_size / unit;

	return (uint64_t)d->anchor[2 * slot + n / upb] * d->erase_size +
	       (uint64_t)(n % upb) * unit;
}

/* Skipped blocks a checkpoint unit has room for, as the kernel counts */
static uint32_t skip_max(const struct sffs_dev *d)
{
	uint32_t max = (SFFS_CP_UNIT(d->write_size) -
			sizeof(struct sffs_checkpoint_node)) / 4;

	return max < SFFS_MAX_SKIP ? max : SFFS_MAX_SKIP;
}

/*
 * From now on the file system's block numbers pass over @list (@n device
 * blocks, ascending, malloc()ed): the anchor and the bad blocks get the
 * file system's numbers, and its last @n blocks, past the device's end,
 * are bad.
 */
static int set_skip(struct sffs_dev *d, uint32_t *list, unsigned int n)
{
	uint8_t *bad;

	for (unsigned int i = 0; i < n; i++) {
		if (list[i] >= d->eb_count || (i && list[i] <= list[i - 1]))
			goto bad;
		/* as in the kernel: the anchor is found, never skipped */
		for (int a = 0; a < SFFS_ANCHOR_BLOCKS; a++)
			if (list[i] == d->anchor[a])
				goto bad;
	}
	if (n > skip_max(d) || d->eb_count - n < SFFS_ANCHOR_SEARCH)
		goto bad;
	bad = calloc(d->eb_count, 1);
	if (!bad)
		goto bad;
	d->skip = list;
	d->nskip = n;
	for (uint32_t eb = 0; eb < d->eb_count; eb++) {
		uint64_t peb = dev_eb(d, eb);

		bad[eb] = peb >= d->eb_count || d->bad[peb];
	}
	for (int i = 0; i < SFFS_ANCHOR_BLOCKS; i++) {
		unsigned int k = 0;

		while (k < n && list[k] < d->anchor[i])
			k++;
		d->anchor[i] -= k;
	}
	free(d->bad);
	d->bad = bad;
	return 0;
bad:
	fprintf(stderr, "bad list of skipped blocks\n");
	free(list);
	return -1;
}

/*
 * What the kernel's sffs_journal_place() does, in RAM: the image's
 * blocks up to its frontier are the device's good ones in order, and the
 * free space @cp counts in blocks past the end or bad goes.  An image
 * file shorter than its file system (mkfs.sffs -t) is taken whole, its
 * missing blocks erased.
 */
static int place(struct sffs_dev *d, struct sffs_checkpoint_node *cp)
{
	uint32_t alloc = le32toh(cp->alloc_eb), ebs = le32toh(cp->eb_count);
	uint32_t *list, peb, leb, n = 0;
	uint64_t free_bytes = le64toh(cp->free_bytes);

	if (le32toh(cp->feat_incompat) & SFFS_FEAT_INCOMPAT_SKIP ||
	    alloc > ebs)
		return -1;
	if (d->image && ebs > d->eb_count) {
		uint8_t *img = realloc(d->image, (uint64_t)ebs * d->erase_size);
		uint8_t *bad = calloc(ebs, 1);

		if (!img || !bad) {
			free(bad);
			return -1;
		}
		memset(img + d->size, 0xff,
		       (uint64_t)ebs * d->erase_size - d->size);
		d->image = img;
		free(d->bad);
		d->bad = bad;
		d->eb_count = ebs;
		d->size = (uint64_t)ebs * d->erase_size;
	}
	if (ebs > d->eb_count)
		return -1;
	list = malloc(SFFS_MAX_SKIP * sizeof(*list));
	if (!list)
		return -1;
	for (peb = 0, leb = 0; leb < alloc; peb++) {
		if (peb >= d->eb_count || (d->bad[peb] && n == skip_max(d))) {
			fprintf(stderr, "the image does not fit in the device's good blocks\n");
			free(list);
			return -1;
		}
		if (d->bad[peb])
			list[n++] = peb;
		else
			leb++;
	}
	if (set_skip(d, list, n))
		return -1;
	for (uint32_t eb = alloc; eb < ebs; eb++)
		if (d->bad[eb] && free_bytes >= d->erase_size)
			free_bytes -= d->erase_size;
	cp->free_bytes = htole64(free_bytes);
	return 0;
}

/* The list of skipped blocks after the checkpoint in @buf */
static int load_skip(struct sffs_dev *d, const uint8_t *buf)
{
	const struct sffs_checkpoint_node *c = (const void *)buf;
	uint32_t n = le32toh(c->skip_cnt), *list;
	__le32 raw;

	if (!n)
		return 0;
	list = malloc(n * sizeof(*list));
	if (!list)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&raw, buf + sizeof(*c) + 4 * i, 4);
		list[i] = le32toh(raw);
	}
	return set_skip(d, list, n);
}

/*
 * Does the newest checkpoint, in @buf, list skipped blocks rightly?  As
 * in the kernel, a bad list fails the mount, not the checkpoint.
 */
static bool skip_ok(const struct sffs_dev *d, const uint8_t *buf)
{
	const struct sffs_checkpoint_node *c = (const void *)buf;
	uint32_t n = le32toh(c->skip_cnt);
	bool skip = le32toh(c->feat_incompat) & SFFS_FEAT_INCOMPAT_SKIP;

	if ((skip || !n) && n <= skip_max(d) &&
	    le32toh(c->hdr.len) == sizeof(*c) + 4 * n)
		return true;
	fprintf(stderr, "checkpoint %llu has a bad list of skipped blocks\n",
		(unsigned long long)le64toh(c->commit));
	return false;
}

/*
 * As the kernel does: binary search of each slot, newest commit wins.
 * @slot and @next, when not NULL, get the slot of the checkpoint found and
 * the unit after it, where the next checkpoint goes.
 */
int sffs_find_checkpoint(struct sffs_dev *d, struct sffs_checkpoint_node *cp,
			 unsigned int *reads, unsigned int *slot, uint32_t *next)
{
	uint32_t unit = SFFS_CP_UNIT(d->write_size);
	uint32_t units = 2 * (d->erase_size / unit);
	uint8_t *buf = malloc(unit), *keep = malloc(unit);
	uint64_t best = 0;
	bool found = false;

	*reads = 0;
	if (!buf || !keep) {
		free(buf);
		free(keep);
		return -1;
	}
	for (unsigned int s = 0; s < 2; s++) {
		uint32_t lo = 0, hi = units;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			uint32_t magic;

			(*reads)++;
			if (sffs_dev_read(d, unit_addr(d, s, mid), &magic, 4))
				goto err;
			if (magic != 0xffffffff)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t n = lo, tries = 0; n && tries < 4; n--, tries++) {
			struct sffs_checkpoint_node *c = (void *)buf;

			(*reads)++;
			if (sffs_dev_read(d, unit_addr(d, s, n - 1), buf, unit))
				goto err;
			if (sffs_check(buf, unit) || c->hdr.type != SFFS_NODE_CHECKPOINT)
				continue;
			if (!found || le64toh(c->commit) > best) {
				memcpy(cp, c, sizeof(*cp));
				memcpy(keep, buf, unit);
				best = le64toh(c->commit);
				found = true;
				if (slot)
					*slot = s;
				/* units after the one found may be torn */
				if (next)
					*next = lo;
			}
			break;
		}
	}
	/* once: a second read (fsck.sffs after a repair) finds the same */
	if (found && !d->placed) {
		if (!skip_ok(d, keep))
			found = false;
		else if (le32toh(cp->feat_incompat) & SFFS_FEAT_INCOMPAT_PLACE)
			found = !place(d, cp);
		else
			found = !load_skip(d, keep);
		d->placed = found;
	}
	free(buf);
	free(keep);
	return found ? 0 : -1;
err:
	free(buf);
	free(keep);
	return -1;
}

/*
 * Write @cp, sealed, as the next checkpoint: at unit @next of @slot, or,
 * when that slot is full, at the start of the other one, erased first;
 * the kernel's sffs_anchor_write() does the same.
 */
int sffs_write_checkpoint(struct sffs_dev *d,
			  const struct sffs_checkpoint_node *cp,
			  unsigned int slot, uint32_t next)
{
	uint32_t unit = SFFS_CP_UNIT(d->write_size);
	struct sffs_checkpoint_node *c;
	uint8_t *buf;
	int err;

	/*
	 * An image never mounted on this device: the flasher may have
	 * programmed its slot's empty units with 0xff, so go on in the
	 * other, erased first, as the kernel does.
	 */
	if (next >= 2 * (d->erase_size / unit) ||
	    (d->is_mtd && le32toh(cp->feat_incompat) & SFFS_FEAT_INCOMPAT_PLACE)) {
		slot = !slot;
		next = 0;
		if (sffs_dev_erase(d, d->anchor[2 * slot]) ||
		    sffs_dev_erase(d, d->anchor[2 * slot + 1]))
			return -1;
	}
	buf = malloc(unit);
	if (!buf)
		return -1;
	memset(buf, 0xff, unit);
	memcpy(buf, cp, sizeof(*cp));
	/*
	 * On a device, an image placed by sffs_find_checkpoint() is written
	 * as placed, as the kernel's first commit does; an image file stays
	 * one to place.  The skipped blocks follow, sealed with it.
	 */
	c = (void *)buf;
	if (d->is_mtd &&
	    le32toh(c->feat_incompat) & SFFS_FEAT_INCOMPAT_PLACE) {
		c->feat_incompat &= htole32(~(SFFS_FEAT_INCOMPAT_PLACE |
					      SFFS_FEAT_INCOMPAT_SKIP));
		if (d->nskip)
			c->feat_incompat |= htole32(SFFS_FEAT_INCOMPAT_SKIP);
		c->skip_cnt = htole32(d->nskip);
	}
	if (le32toh(c->skip_cnt) != (le32toh(c->feat_incompat) &
				     SFFS_FEAT_INCOMPAT_SKIP ? d->nskip : 0)) {
		free(buf);
		return -1;
	}
	for (unsigned int i = 0; i < le32toh(c->skip_cnt); i++) {
		__le32 raw = htole32(d->skip[i]);

		memcpy(buf + sizeof(*cp) + 4 * i, &raw, 4);
	}
	sffs_seal(buf, SFFS_NODE_CHECKPOINT,
		  sizeof(*cp) + 4 * le32toh(c->skip_cnt),
		  le64toh(cp->hdr.sqnum), 0);
	err = sffs_dev_write(d, unit_addr(d, slot, next), buf, unit);
	free(buf);
	return err;
}

static int cmp_key(const void *a, const void *b)
{
	const struct sffs_leaf *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->tv < y->tv ? -1 : x->tv > y->tv;
}

/* Room for one more leaf; -1 when out of memory */
int sffs_leaves_room(struct sffs_leaves *l)
{
	struct sffs_leaf *v;
	size_t cap;

	if (l->n < l->cap)
		return 0;
	cap = l->cap ? 2 * l->cap : 4096;
	v = realloc(l->v, cap * sizeof(*v));
	if (!v)
		return -1;
	l->v = v;
	l->cap = cap;
	return 0;
}

/* Index of the first key at or after (ino, tv) */
size_t sffs_leaf_pos(const struct sffs_leaves *l, uint64_t ino, uint64_t tv)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].ino < ino ||
		    (l->v[mid].ino == ino && l->v[mid].tv < tv))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool sffs_leaf_has(const struct sffs_leaves *l, uint64_t ino, uint64_t tv)
{
	size_t i = sffs_leaf_pos(l, ino, tv);

	return i < l->n && l->v[i].ino == ino && l->v[i].tv == tv;
}

int sffs_leaf_set(struct sffs_leaves *l, uint64_t ino, uint64_t tv,
		  uint64_t addr, uint32_t len)
{
	size_t i = sffs_leaf_pos(l, ino, tv);

	if (i < l->n && l->v[i].ino == ino && l->v[i].tv == tv) {
		l->v[i].addr = addr;
		l->v[i].len = len;
		return 0;
	}
	if (sffs_leaves_room(l))
		return -1;
	memmove(l->v + i + 1, l->v + i, (l->n - i) * sizeof(*l->v));
	l->v[i] = (struct sffs_leaf){ ino, tv, addr, len };
	l->n++;
	return 0;
}

/* Drop the keys from (ino, tv) up to, not including, (ino2, tv2) */
static void leaf_drop(struct sffs_leaves *l, uint64_t ino, uint64_t tv,
		      uint64_t ino2, uint64_t tv2)
{
	size_t i = sffs_leaf_pos(l, ino, tv), k = sffs_leaf_pos(l, ino2, tv2);

	if (k <= i)
		return;
	memmove(l->v + i, l->v + k, (l->n - k) * sizeof(*l->v));
	l->n -= k - i;
}

/* What replay does with one node: sffs_journal_apply() */
static int apply_node(struct sffs_leaves *l, const void *node, uint64_t addr,
		      uint64_t *next_ino)
{
	const struct sffs_node_hdr *h = node;
	const struct sffs_key *k = (const void *)(h + 1);
	uint32_t len = le32toh(h->len);
	const struct sffs_trunc_node *tn = node;
	const struct sffs_dentry_node *de = node;
	uint64_t ino, size;
	bool del;

	switch (h->type) {
	case SFFS_NODE_INODE:
	case SFFS_NODE_DATA:
	case SFFS_NODE_DENTRY:
	case SFFS_NODE_XATTR:
	case SFFS_NODE_ORPHAN:
		if (len < sizeof(*h) + sizeof(*k))
			return 0;
		/* replay hands out inode numbers above those it meets */
		if (h->type == SFFS_NODE_INODE && le64toh(k->ino) >= *next_ino)
			*next_ino = le64toh(k->ino) + 1;
		del = (h->type == SFFS_NODE_DENTRY && !de->target) ||
		      (h->type == SFFS_NODE_XATTR &&
		       h->flags & SFFS_XATTR_FL_DELETE) ||
		      (h->type == SFFS_NODE_ORPHAN &&
		       h->flags & SFFS_ORPHAN_FL_DELETE);
		if (!del)
			return sffs_leaf_set(l, le64toh(k->ino), le64toh(k->tv),
					     addr, len);
		leaf_drop(l, le64toh(k->ino), le64toh(k->tv), le64toh(k->ino),
			  le64toh(k->tv) + 1);
		return 0;
	case SFFS_NODE_TRUNC:
		if (len < sizeof(*tn))
			return 0;
		ino = le64toh(tn->ino);
		size = le64toh(tn->new_size);
		if (h->flags & SFFS_TRUNC_FL_DELETE) {
			leaf_drop(l, SFFS_META_INO, sffs_tv(SFFS_KEY_ORPHAN, ino),
				  SFFS_META_INO,
				  sffs_tv(SFFS_KEY_ORPHAN, ino) + 1);
			leaf_drop(l, ino, 0, ino + 1, 0);
		} else {
			leaf_drop(l, ino, sffs_tv(SFFS_KEY_DATA,
						  (size + SFFS_BLOCK_SIZE - 1) /
						  SFFS_BLOCK_SIZE),
				  ino, sffs_tv(SFFS_KEY_DENTRY, 0));
		}
		return 0;
	}
	return 0;
}

/*
 * The nodes written after the checkpoint @cp, applied to the leaves @l of
 * its index (sorted here) as the next mount replays them (replay.c):
 * whole operations only, in order of their sequence numbers, up to the
 * first torn or old node of a block.  As there, a torn node ends its
 * block, not the replay: the next journal block is read too, and ends it
 * only when it has no newer node.  -1 when out of memory.
 */
int sffs_replay_journal(struct sffs_dev *d,
			const struct sffs_checkpoint_node *cp,
			struct sffs_leaves *l, struct sffs_replay *r)
{
	unsigned int jcnt = le16toh(cp->journal_cnt);
	unsigned int unit = d->write_size < SFFS_NODE_ALIGN ?
			    SFFS_NODE_ALIGN : d->write_size;
	uint64_t addr = le64toh(cp->jhead), sqnum = le64toh(cp->max_sqnum);
	uint8_t *blk = malloc(d->erase_size);
	uint32_t group[SFFS_MAX_GROUP];
	unsigned int ngroup;
	int err = 0;

	if (!blk)
		return -1;
	qsort(l->v, l->n, sizeof(*l->v), cmp_key);
	*r = (struct sffs_replay){ .next_ino = le64toh(cp->next_ino) };
	for (unsigned int i = 0; i < jcnt && i < SFFS_MAX_JOURNAL_BLOCKS &&
	     !err; i++) {
		uint32_t eb = le32toh(cp->journal_eb[i]), off, n = 0;
		uint64_t base = (uint64_t)eb * d->erase_size;

		if (eb >= d->eb_count || d->bad[eb] ||
		    sffs_dev_read(d, base, blk, d->erase_size))
			break;
		off = i ? 0 : addr % d->erase_size;
		ngroup = 0;
		while (off + sizeof(struct sffs_node_hdr) <= d->erase_size) {
			struct sffs_node_hdr *h = (void *)(blk + off);
			int c = check_whole(h, d->erase_size - off);
			uint32_t q;

			if (c == 1) {
				/* the erased rest of a unit: a node may follow */
				q = (off / unit + 1) * unit;
				if (q + sizeof(*h) <= d->erase_size &&
				    !check_whole(blk + q, d->erase_size - q)) {
					off = q;
					continue;
				}
				break;
			}
			if (!c && h->type == SFFS_NODE_PAD) {
				off += ALIGN8(le32toh(h->len));
				continue;
			}
			if (c || le64toh(h->sqnum) <= sqnum) {
				r->torn = c != 0;
				break;
			}
			sqnum = le64toh(h->sqnum);
			n++;
			/* what a commit cut short wrote is dead */
			if (h->type == SFFS_NODE_INDEX ||
			    h->type == SFFS_NODE_CHECKPOINT ||
			    h->type == SFFS_NODE_EBT) {
				off += ALIGN8(le32toh(h->len));
				continue;
			}
			if (ngroup == SFFS_MAX_GROUP) {
				r->torn = true;
				break;
			}
			group[ngroup++] = off;
			if (!(h->flags & SFFS_NODE_FL_CONT)) {
				for (unsigned int g = 0; g < ngroup && !err; g++)
					err = apply_node(l, blk + group[g],
							 base + group[g],
							 &r->next_ino);
				r->nodes += ngroup;
				ngroup = 0;
			}
			off += ALIGN8(le32toh(h->len));
		}
		if (!n && i)
			break;
		r->blocks++;
	}
	free(blk);
	return err;
}

/*
 * The branches of index node @ix of @len bytes, plain or packed, as plain
 * branches in a new array of le16toh(@ix->count); NULL if they do not
 * fill the node exactly or there is no memory.
 */
struct sffs_branch *sffs_index_branches(const struct sffs_index_node *ix,
					uint32_t len)
{
	unsigned int cnt = le16toh(ix->count);
	const uint8_t *p = (const uint8_t *)ix->branch;
	const uint8_t *end = (const uint8_t *)ix + len;
	struct sffs_ibranch b = { 0 };
	struct sffs_branch *br;

	if (!cnt || cnt > SFFS_MAX_FANOUT || ix->flags & ~SFFS_INDEX_PACKED ||
	    (ix->flags & SFFS_INDEX_PACKED ? sffs_ipack_check(ix, len, cnt) :
	     len != sizeof(*ix) + cnt * sizeof(*br)))
		return NULL;
	br = calloc(cnt, sizeof(*br));
	if (!br)
		return NULL;
	if (!(ix->flags & SFFS_INDEX_PACKED)) {
		memcpy(br, ix->branch, cnt * sizeof(*br));
		return br;
	}
	for (unsigned int i = 0; i < cnt; i++) {
		if (sffs_iunpack(&p, end, &b)) {
			free(br);
			return NULL;
		}
		br[i].key.ino = htole64(b.ino);
		br[i].key.tv = htole64(b.tv);
		br[i].addr = htole64(b.addr);
		br[i].len = htole32(b.len);
	}
	if (p != end) {
		free(br);
		return NULL;
	}
	return br;
}

/*
 * The records of table page @t of @len bytes, plain or packed, as plain
 * records in a new array of le32toh(@t->count); NULL if they do not fill
 * the page exactly or there is no memory.
 */
struct sffs_eb_rec *sffs_ebt_records(const struct sffs_ebt_node *t,
				     uint32_t len)
{
	unsigned int cnt = le32toh(t->count);
	const uint8_t *p = (const uint8_t *)t->rec;
	const uint8_t *end = (const uint8_t *)t + len;
	bool packed = t->hdr.flags & SFFS_EBT_FL_PACKED;
	struct sffs_erec r = { 0 };
	struct sffs_eb_rec *rec;

	if (!cnt || cnt > SFFS_EBT_RECS ||
	    t->hdr.flags & ~(SFFS_EBT_FLAGS | SFFS_NODE_FL_CONT) ||
	    (packed ? sffs_epack_check(t, len, cnt) :
	     len != sizeof(*t) + cnt * sizeof(*rec)))
		return NULL;
	rec = calloc(cnt, sizeof(*rec));
	if (!rec)
		return NULL;
	if (!packed) {
		memcpy(rec, t->rec, cnt * sizeof(*rec));
		return rec;
	}
	for (unsigned int i = 0; i < cnt; i++) {
		if (sffs_eunpack(&p, end, &r)) {
			free(rec);
			return NULL;
		}
		rec[i].ec = htole32(r.ec);
		rec[i].state = r.state;
		rec[i].live = htole32(r.live);
		rec[i].age = htole32(r.age);
	}
	if (p != end) {
		free(rec);
		return NULL;
	}
	return rec;
}
