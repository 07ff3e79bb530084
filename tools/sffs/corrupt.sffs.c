// SPDX-License-Identifier: GPL-2.0-only
/*
 * corrupt.sffs: damage an SFFS in one known way, for the tests of
 * fsck.sffs and unsffs.  The damaged node is sealed again (checksums right), so that
 * only the checks of what its fields mean can find it.
 *
 *   corrupt.sffs [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE WHAT
 *
 *   nlink      a regular file with two names gets a link count of 3
 *   unlinked   a regular file with one name gets a link count of 0, and
 *              no orphan record
 *   dangling   the entry "size1" names an inode that does not exist
 *   hash       the entry "size1" is renamed "size2" under the old hash
 *   escape     the entry "size1" is renamed "../..", for unsffs
 *   dirnames   the entry "fifo" names the directory "dir" a second time
 *   space      every checkpoint counts 4096 more free bytes
 *   longlink   every checkpoint loses the long-symlink feature flag
 *
 * and, for unsffs, nodes that a reader must refuse before it reads
 * their fields, each branch that names the node changed to match:
 *
 *   short-inode, short-data, short-dentry, short-xattr
 *              the first regular file's inode, the first data node,
 *              the entry "size1", the first attribute, cut to the
 *              header and key (48 bytes)
 *   symlen     the first symlink's target length set to 65535
 *   far        the branch to the entry "size1" points 64 bytes short
 *              of the end of a 64-bit address space
 *   dag        the second branch of the first index node of level 0
 *              a copy of the first: a key met twice
 *   jtorn      a journal: the inode of "size1" with mode 0601 at the
 *              head, then a torn copy of it, then in the next journal
 *              block one with mode 0602, as replay.c applies it
 *   jshort     a journal: that inode with mode 0601, the entry "size1"
 *              cut to 48 bytes (checksums right), the inode with 0603
 *
 * Meant for a file system mkfs.sffs just made, where each node is the only
 * version of its key.  On an MTD device each erase block changed is erased
 * and written again.  Exit status 0 when the damage was done, 1 when
 * there was nothing to damage, 2 on other errors.
 */
#define _FILE_OFFSET_BITS 64
#include <endian.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sffs_tool.h"

#define USAGE "usage: corrupt.sffs [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE nlink|unlinked|dangling|hash|escape|dirnames|space|longlink|short-inode|short-data|short-dentry|short-xattr|symlen|far|dag|jtorn|jshort\n"

static struct sffs_dev dev;
static uint8_t *img;
static uint8_t *touched;	/* per erase block */

static void reseal(uint64_t off)
{
	struct sffs_node_hdr *h = (void *)(img + off);

	sffs_seal(h, h->type, le32toh(h->len), le64toh(h->sqnum), h->flags);
	touched[off / dev.erase_size] = 1;
}

/* The next valid node at or after *off, as corrupt.py found them */
static struct sffs_node_hdr *next_node(uint64_t *off)
{
	while (*off + sizeof(struct sffs_node_hdr) <= dev.size) {
		struct sffs_node_hdr *h = (void *)(img + *off);
		uint64_t in_block = dev.erase_size - *off % dev.erase_size;

		if (!sffs_check(h, in_block))
			return h;
		*off += SFFS_NODE_ALIGN;
	}
	return NULL;
}

static uint64_t find_name(const char *name)
{
	uint64_t off = 0, found = UINT64_MAX;
	struct sffs_node_hdr *h;

	for (; (h = next_node(&off)); off += ALIGN8(le32toh(h->len))) {
		struct sffs_dentry_node *de = (void *)h;

		if (h->type == SFFS_NODE_DENTRY &&
		    le16toh(de->name_len) == strlen(name) &&
		    !memcmp(de->name, name, strlen(name)))
			found = off;
	}
	return found;
}

/* Each branch to the node at @at gets @len and @addr, and is sealed again */
static void rebranch(uint64_t at, uint32_t len, uint64_t addr)
{
	uint64_t off = 0;
	struct sffs_node_hdr *h;

	for (; (h = next_node(&off)); off += ALIGN8(le32toh(h->len))) {
		struct sffs_index_node *ix = (void *)h;
		bool hit = false;

		if (h->type != SFFS_NODE_INDEX)
			continue;
		/* images from mkfs.sffs: a packed node is the kernel's */
		if (ix->flags & SFFS_INDEX_PACKED) {
			fprintf(stderr, "corrupt.sffs: packed node at %llu\n",
				(unsigned long long)off);
			exit(1);
		}
		for (unsigned int i = 0; i < le16toh(ix->count); i++) {
			if (le64toh(ix->branch[i].addr) != at)
				continue;
			ix->branch[i].len = htole32(len);
			ix->branch[i].addr = htole64(addr);
			hit = true;
		}
		if (hit)
			reseal(off);
	}
}

/* The first node that @what names, or UINT64_MAX */
static uint64_t find_victim(const char *what)
{
	uint64_t off = 0;
	struct sffs_node_hdr *h;

	if (!strcmp(what, "short-dentry") || !strcmp(what, "far"))
		return find_name("size1");
	for (; (h = next_node(&off)); off += ALIGN8(le32toh(h->len))) {
		struct sffs_inode_node *in = (void *)h;
		uint32_t mode = le32toh(in->mode);

		if ((!strcmp(what, "short-inode") &&
		     h->type == SFFS_NODE_INODE && S_ISREG(mode)) ||
		    (!strcmp(what, "symlen") &&
		     h->type == SFFS_NODE_INODE && S_ISLNK(mode)) ||
		    (!strcmp(what, "short-data") && h->type == SFFS_NODE_DATA) ||
		    (!strcmp(what, "short-xattr") && h->type == SFFS_NODE_XATTR) ||
		    (!strcmp(what, "dag") && h->type == SFFS_NODE_INDEX &&
		     !((struct sffs_index_node *)h)->level &&
		     !(((struct sffs_index_node *)h)->flags &
		       SFFS_INDEX_PACKED) &&
		     le16toh(((struct sffs_index_node *)h)->count) > 1))
			return off;
	}
	return UINT64_MAX;
}

/* A copy of inode node @in with mode @mode, sequence number @sqnum, at @at */
static void put_inode(const struct sffs_inode_node *in, uint64_t at,
		      uint32_t mode, uint64_t sqnum)
{
	uint32_t len = le32toh(in->hdr.len);
	struct sffs_inode_node *c = (void *)(img + at);

	memmove(c, in, len);
	c->mode = htole32(S_IFREG | mode);
	sffs_seal(c, SFFS_NODE_INODE, len, sqnum, 0);
	touched[at / dev.erase_size] = 1;
}

/*
 * A journal with a torn write in its first block, and more in the next
 * (jtorn), or with a node too short for its type between two others
 */
static int damage_journal(const char *what)
{
	struct sffs_checkpoint_node cp;
	uint64_t a = find_name("size1"), off = 0, jhead, sq, next;
	struct sffs_node_hdr *h;
	struct sffs_inode_node in;
	unsigned int reads;

	if (a == UINT64_MAX || sffs_find_checkpoint(&dev, &cp, &reads, NULL,
						    NULL) ||
	    le16toh(cp.journal_cnt) < 2)
		return 0;
	for (; (h = next_node(&off)); off += ALIGN8(le32toh(h->len)))
		if (h->type == SFFS_NODE_INODE &&
		    le32toh(h->len) == sizeof(in) &&
		    ((struct sffs_inode_node *)h)->key.ino ==
		    ((struct sffs_dentry_node *)(img + a))->target)
			break;
	if (!h)
		return 0;
	memcpy(&in, h, sizeof(in));
	jhead = le64toh(cp.jhead);
	sq = le64toh(cp.max_sqnum);
	next = ALIGN8(jhead + sizeof(in));
	put_inode(&in, jhead, 0601, sq + 1);
	if (!strcmp(what, "jshort")) {
		h = (void *)(img + next);
		memcpy(h, img + a, sizeof(*h) + sizeof(struct sffs_key));
		sffs_seal(h, SFFS_NODE_DENTRY, sizeof(*h) +
			  sizeof(struct sffs_key), sq + 2, 0);
		put_inode(&in, ALIGN8(next + le32toh(h->len)), 0603, sq + 3);
		return 1;
	}
	put_inode(&in, next, 0603, sq + 2);
	img[next + sizeof(in) - 1] ^= 1;	/* torn: its data CRC fails */
	put_inode(&in, (uint64_t)le32toh(cp.journal_eb[1]) * dev.erase_size,
		  0602, sq + 3);
	return 1;
}

/* A node too short, a length inside it too long, or an address too far */
static int damage_reader(const char *what)
{
	uint64_t a = find_victim(what);
	struct sffs_node_hdr *h = (void *)(img + a);
	uint32_t cut = sizeof(*h) + sizeof(struct sffs_key);

	if (a == UINT64_MAX)
		return 0;
	if (!strcmp(what, "dag")) {
		struct sffs_index_node *ix = (void *)h;

		ix->branch[1] = ix->branch[0];
		reseal(a);
	} else if (!strcmp(what, "symlen")) {
		((struct sffs_inode_node *)h)->data_len = htole16(65535);
		reseal(a);
	} else if (!strcmp(what, "far")) {
		rebranch(a, le32toh(h->len), UINT64_MAX - 64);
	} else {
		h->len = htole32(cut);
		reseal(a);
		rebranch(a, cut, a);
	}
	return 1;
}

static int damage(const char *what)
{
	uint64_t off = 0, a, b;
	struct sffs_node_hdr *h;
	int done = 0;

	for (; (h = next_node(&off)); off += ALIGN8(le32toh(h->len))) {
		struct sffs_inode_node *in = (void *)h;
		struct sffs_checkpoint_node *c = (void *)h;
		uint32_t mode = le32toh(in->mode), nlink = le32toh(in->nlink);

		if (h->type == SFFS_NODE_INODE && S_ISREG(mode) &&
		    ((!strcmp(what, "nlink") && nlink == 2) ||
		     (!strcmp(what, "unlinked") && nlink == 1 && !done))) {
			in->nlink = htole32(nlink == 2 ? 3 : 0);
			reseal(off);
			done++;
		} else if (h->type == SFFS_NODE_CHECKPOINT &&
			   !strcmp(what, "space")) {
			c->free_bytes = htole64(le64toh(c->free_bytes) + 4096);
			reseal(off);
			done++;
		} else if (h->type == SFFS_NODE_CHECKPOINT &&
			   !strcmp(what, "longlink") &&
			   le32toh(c->feat_incompat) &
			   SFFS_FEAT_INCOMPAT_LONG_SYMLINK) {
			c->feat_incompat &=
				~htole32(SFFS_FEAT_INCOMPAT_LONG_SYMLINK);
			reseal(off);
			done++;
		}
	}
	a = find_name("size1");
	if ((!strcmp(what, "dangling") || !strcmp(what, "hash") ||
	     !strcmp(what, "escape")) && a != UINT64_MAX) {
		struct sffs_dentry_node *de = (void *)(img + a);

		if (what[0] == 'd')
			de->target = htole64(999999);
		else if (what[0] == 'e')
			memcpy(de->name, "../..", 5);
		else
			de->name[4] = '2';
		reseal(a);
		done++;
	}
	a = find_name("fifo");
	b = find_name("dir");
	if (!strcmp(what, "dirnames") && a != UINT64_MAX && b != UINT64_MAX) {
		struct sffs_dentry_node *de = (void *)(img + a);

		de->target = ((struct sffs_dentry_node *)(img + b))->target;
		de->type = 4;
		reseal(a);
		done++;
	}
	return done;
}

/* Each block changed, erased and written again up to its last page used */
static int write_back(void)
{
	for (uint32_t eb = 0; eb < dev.eb_count; eb++) {
		uint64_t base = (uint64_t)eb * dev.erase_size, len;

		if (!touched[eb])
			continue;
		len = dev.erase_size;
		while (len && img[base + len - 1] == 0xff)
			len--;
		len = (len + dev.write_size - 1) / dev.write_size * dev.write_size;
		if (sffs_dev_erase(&dev, eb) ||
		    sffs_dev_write(&dev, base, img + base, len))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t esize = 128 << 10, wsize = 2048;
	const char *what;
	int opt, done;

	while ((opt = getopt(argc, argv, "e:m:h")) != -1) {
		switch (opt) {
		case 'e':
			esize = sffs_parse_size(optarg);
			break;
		case 'm':
			wsize = sffs_parse_size(optarg);
			break;
		default:
			fputs(USAGE, stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 2) {
		fputs(USAGE, stderr);
		return 2;
	}
	if (sffs_dev_open(&dev, argv[optind], true, esize, wsize, 0))
		return 2;
	img = malloc(dev.size);
	touched = calloc(dev.eb_count, 1);
	if (!img || !touched)
		return 2;
	memset(img, 0xff, dev.size);
	for (uint32_t eb = 0; eb < dev.eb_count; eb++)
		if (!dev.bad[eb] &&
		    sffs_dev_read(&dev, (uint64_t)eb * dev.erase_size,
				  img + (uint64_t)eb * dev.erase_size,
				  dev.erase_size))
			return 2;
	what = argv[optind + 1];
	if (!strcmp(what, "jtorn") || !strcmp(what, "jshort"))
		done = damage_journal(what);
	else if (!strncmp(what, "short-", 6) || !strcmp(what, "symlen") ||
		 !strcmp(what, "far") || !strcmp(what, "dag"))
		done = damage_reader(what);
	else
		done = damage(what);
	if (!done) {
		fprintf(stderr, "corrupt.sffs: nothing to damage for %s\n",
			argv[optind + 1]);
		sffs_dev_close(&dev, argv[optind]);
		return 1;
	}
	if (write_back() || sffs_dev_close(&dev, argv[optind]))
		return 2;
	return 0;
}
