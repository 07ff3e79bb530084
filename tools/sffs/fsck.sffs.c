// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsck.sffs: check every structure of an SFFS.
 *
 *   fsck.sffs [-v] [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE
 *
 * What is checked, in order:
 *  - the anchor: the newest checkpoint, found as the kernel finds it, and
 *    each of its fields against the device and against each other;
 *  - the index: every node read, its checksums, its type against its
 *    key, key order over the whole tree, levels, lengths, and no node
 *    used twice, in the anchor, on a bad block or past the frontier;
 *  - erase-block accounting: the table pages, a known state for every
 *    block, no live node on a block the table calls free or bad, and
 *    free + used + dirty bytes equal to the space there is;
 *  - files: each name's hash, parent and target, its type against the
 *    inode's, link counts, directories named once and reachable from
 *    the root, data inside the file size, extended attribute counts,
 *    inodes no name reaches, and the orphan list: every unlinked inode
 *    not yet deleted has an orphan record, and every record names an
 *    inode without links;
 *  - the journal written since the checkpoint, which the next mount
 *    replays: reported, not an error.
 *
 * Problems are printed one per line as "error: ..." (the file system is
 * damaged) or "warning: ..." (it mounts and works, but something leaks
 * or is inexact).  The exit status follows fsck(8): 0 when no error was
 * found, 4 when errors were found, 8 when the device could not be read.
 * fsck.sffs only reads; the kernel itself repairs what a power cut
 * leaves (the journal replay), so there is nothing to repair on a file
 * system that only lost power.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <endian.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sffs_tool.h"

#define USAGE "usage: fsck.sffs [-v] [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE\n"

struct leaf {
	uint64_t ino, tv, addr;
	uint32_t len;
};

struct ino {
	uint64_t ino, size;
	uint32_t mode, nlink, xattr_cnt;
	uint32_t names, subdirs, xattrs;
	uint64_t parent;
	bool reached;
	bool orphan;		/* has an orphan record */
};

static struct sffs_dev dev;
static struct sffs_checkpoint_node cp;
static struct leaf *leaves;
static size_t nleaves, cap_leaves;
static struct ino *inos;
static size_t ninos;
static uint64_t *live;		/* per erase block, bytes of live nodes */
static uint8_t *state;		/* per erase block, from the table */
static uint64_t last_ino, last_tv, max_sqnum_seen;
static bool have_last, verbose;
static unsigned long errors, warnings, index_nodes;

static void report(bool error, const char *fmt, ...) __printf(2, 3);

static void report(bool error, const char *fmt, ...)
{
	va_list ap;

	fputs(error ? "error: " : "warning: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (error)
		errors++;
	else
		warnings++;
}

#define err(...)	report(true, __VA_ARGS__)
#define warn(...)	report(false, __VA_ARGS__)
#define ULL(x)		((unsigned long long)(x))

static bool journal_block(uint32_t eb)
{
	unsigned int n = le16toh(cp.journal_cnt) + le32toh(cp.spare_cnt);

	for (unsigned int i = 0; i < n && i < SFFS_MAX_JOURNAL_BLOCKS; i++)
		if (le32toh(cp.journal_eb[i]) == eb)
			return true;
	return false;
}

static bool anchor_block(uint32_t eb)
{
	for (int i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		if (dev.anchor[i] == eb)
			return true;
	return false;
}

/* A node the index points at: where it may be, then what it is */
static void *read_node(uint64_t addr, uint32_t len, const char *what)
{
	uint32_t eb = addr / dev.erase_size;
	uint8_t *buf;

	if (!len || len > dev.erase_size || addr % SFFS_NODE_ALIGN ||
	    addr + len > dev.size ||
	    addr % dev.erase_size + len > dev.erase_size) {
		err("%s at %llu, length %u: outside the device or across a block",
		    what, ULL(addr), len);
		return NULL;
	}
	if (anchor_block(eb) || dev.bad[eb] || eb >= le32toh(cp.alloc_eb)) {
		err("%s at %llu: in %s block %u", what, ULL(addr),
		    anchor_block(eb) ? "anchor" : dev.bad[eb] ? "bad" :
		    "never written", eb);
		return NULL;
	}
	buf = malloc(len);
	if (!buf || sffs_dev_read(&dev, addr, buf, len) || sffs_check(buf, len) ||
	    le32toh(((struct sffs_node_hdr *)buf)->len) != len) {
		err("%s at %llu, length %u: bad node", what, ULL(addr), len);
		free(buf);
		return NULL;
	}
	live[eb] += ALIGN8(len);
	if (le64toh(((struct sffs_node_hdr *)buf)->sqnum) > max_sqnum_seen)
		max_sqnum_seen = le64toh(((struct sffs_node_hdr *)buf)->sqnum);
	return buf;
}

static const uint8_t key_node_type[] = {
	[SFFS_KEY_INODE] = SFFS_NODE_INODE,
	[SFFS_KEY_DATA] = SFFS_NODE_DATA,
	[SFFS_KEY_DENTRY] = SFFS_NODE_DENTRY,
	[SFFS_KEY_XATTR] = SFFS_NODE_XATTR,
	[SFFS_KEY_EBT] = SFFS_NODE_EBT,
	[SFFS_KEY_ORPHAN] = SFFS_NODE_ORPHAN,
};

static void add_leaf(uint64_t ino, uint64_t tv, uint64_t addr, uint32_t len)
{
	unsigned int ktype = tv >> SFFS_KEY_TYPE_SHIFT;
	bool meta = ino == SFFS_META_INO;
	bool ebt = ktype == SFFS_KEY_EBT || ktype == SFFS_KEY_ORPHAN;
	struct sffs_node_hdr *hdr;
	struct sffs_key *k;

	if (have_last && (ino < last_ino || (ino == last_ino && tv <= last_tv)))
		err("key (%llu, %#llx) out of order", ULL(ino), ULL(tv));
	have_last = true;
	last_ino = ino;
	last_tv = tv;
	hdr = read_node(addr, len, "leaf");
	if (!hdr)
		return;
	k = (void *)(hdr + 1);
	if (ktype > SFFS_KEY_ORPHAN || hdr->type != key_node_type[ktype] ||
	    meta != ebt) {
		err("node at %llu has type %u for key (%llu, %#llx)", ULL(addr),
		    hdr->type, ULL(ino), ULL(tv));
	} else if (ktype == SFFS_KEY_ORPHAN && !sffs_orphan_ino(hdr, len)) {
		err("orphan record at %llu is invalid", ULL(addr));
	} else if (ktype != SFFS_KEY_EBT &&
		   (le64toh(k->ino) != ino || le64toh(k->tv) != tv)) {
		err("node at %llu has another key than its branch", ULL(addr));
	}
	free(hdr);
	if (nleaves == cap_leaves) {
		cap_leaves = cap_leaves ? 2 * cap_leaves : 4096;
		leaves = realloc(leaves, cap_leaves * sizeof(*leaves));
		if (!leaves) {
			perror("fsck.sffs");
			exit(8);
		}
	}
	leaves[nleaves++] = (struct leaf){ ino, tv, addr, len };
}

static void walk(uint64_t addr, uint32_t len, int level, unsigned int fanout)
{
	struct sffs_index_node *ix = read_node(addr, len, "index node");
	unsigned int cnt;

	if (!ix)
		return;
	index_nodes++;
	cnt = le16toh(ix->count);
	if (ix->hdr.type != SFFS_NODE_INDEX || le16toh(ix->level) != level ||
	    !cnt || cnt > fanout ||
	    len != sizeof(*ix) + cnt * sizeof(struct sffs_branch)) {
		err("bad index node at %llu (level %u, want %d, %u branches)",
		    ULL(addr), le16toh(ix->level), level, cnt);
		free(ix);
		return;
	}
	for (unsigned int i = 0; i < cnt; i++) {
		struct sffs_branch *b = &ix->branch[i];

		if (level)
			walk(le64toh(b->addr), le32toh(b->len), level - 1, fanout);
		else
			add_leaf(le64toh(b->key.ino), le64toh(b->key.tv),
				 le64toh(b->addr), le32toh(b->len));
	}
	free(ix);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Two branches to one node: freeing one would free the other */
static void check_shared(void)
{
	struct leaf *l = malloc((nleaves + 1) * sizeof(*l));

	if (!l)
		return;
	memcpy(l, leaves, nleaves * sizeof(*l));
	qsort(l, nleaves, sizeof(*l), cmp_addr);
	for (size_t i = 1; i < nleaves; i++)
		if (l[i].addr == l[i - 1].addr)
			err("node at %llu is the leaf of two keys", ULL(l[i].addr));
	free(l);
}

static struct ino *find_ino(uint64_t ino)
{
	size_t lo = 0, hi = ninos;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (inos[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ninos && inos[lo].ino == ino ? &inos[lo] : NULL;
}

static void check_checkpoint(void)
{
	uint32_t ebs = le32toh(cp.eb_count), alloc = le32toh(cp.alloc_eb);
	unsigned int jcnt = le16toh(cp.journal_cnt);
	unsigned int spares = le32toh(cp.spare_cnt);
	uint64_t jhead = le64toh(cp.jhead), cap = 0;

	if (le16toh(cp.version) != SFFS_FORMAT_VERSION)
		err("format version %u, this fsck reads %u",
		    le16toh(cp.version), SFFS_FORMAT_VERSION);
	if (le32toh(cp.feat_incompat) & ~SFFS_FEAT_INCOMPAT_SUPP)
		err("unknown incompatible features %#x",
		    le32toh(cp.feat_incompat));
	if (le32toh(cp.feat_ro_compat) & ~SFFS_FEAT_RO_COMPAT_SUPP)
		warn("unknown read-only features %#x: not checked",
		     le32toh(cp.feat_ro_compat));
	if (le32toh(cp.erase_size) != dev.erase_size ||
	    le32toh(cp.write_size) != dev.write_size || ebs != dev.eb_count)
		err("made for %u blocks of %u, pages of %u; the device: %u, %u, %u (-e, -m?)",
		    ebs, le32toh(cp.erase_size), le32toh(cp.write_size),
		    dev.eb_count, dev.erase_size, dev.write_size);
	for (int i = 0; i < SFFS_ANCHOR_BLOCKS; i++)
		if (le32toh(cp.anchor_eb[i]) != dev.anchor[i])
			err("anchor block %d is %u, the device's is %u", i,
			    le32toh(cp.anchor_eb[i]), dev.anchor[i]);
	if (alloc > dev.eb_count)
		err("frontier %u beyond the device", alloc);
	if (!jcnt || jcnt + spares > SFFS_MAX_JOURNAL_BLOCKS) {
		err("journal of %u blocks and %u spares", jcnt, spares);
		return;
	}
	for (unsigned int i = 0; i < jcnt + spares; i++) {
		uint32_t eb = le32toh(cp.journal_eb[i]);

		if (eb >= dev.eb_count || anchor_block(eb) || dev.bad[eb])
			err("journal block %u is %u: %s", i, eb,
			    eb >= dev.eb_count ? "outside the device" :
			    anchor_block(eb) ? "an anchor block" : "bad");
		for (unsigned int k = 0; k < i; k++)
			if (le32toh(cp.journal_eb[k]) == eb)
				err("journal block %u listed twice", eb);
	}
	if (jhead / dev.erase_size != le32toh(cp.journal_eb[0]) ||
	    jhead % dev.write_size)
		err("journal head %llu is not a page of journal block %u",
		    ULL(jhead), le32toh(cp.journal_eb[0]));
	for (uint32_t eb = 0; eb < dev.eb_count; eb++)
		if (!dev.bad[eb] && !anchor_block(eb))
			cap += dev.erase_size;
	if (le64toh(cp.free_bytes) + le64toh(cp.used_bytes) +
	    le64toh(cp.dirty_bytes) != cap)
		err("free %llu + used %llu + dirty %llu bytes is not the %llu there are",
		    ULL(le64toh(cp.free_bytes)), ULL(le64toh(cp.used_bytes)),
		    ULL(le64toh(cp.dirty_bytes)), ULL(cap));
}

/* The erase-block table, then what the index uses against it */
static void check_table(void)
{
	uint32_t alloc = le32toh(cp.alloc_eb), lo = UINT32_MAX, hi = 0;
	uint64_t sum = 0, used = 0;
	unsigned long pages = 0, nfree = 0, nbad = 0, counted = 0;

	for (uint32_t eb = 0; eb < dev.eb_count; eb++)
		state[eb] = eb < alloc ? SFFS_EB_MAIN : SFFS_EB_FREE;
	for (size_t i = 0; i < nleaves; i++) {
		struct sffs_ebt_node *t;
		uint32_t first, count;

		if (leaves[i].ino != SFFS_META_INO ||
		    leaves[i].tv >> SFFS_KEY_TYPE_SHIFT != SFFS_KEY_EBT)
			continue;
		t = malloc(leaves[i].len);
		if (!t || sffs_dev_read(&dev, leaves[i].addr, t, leaves[i].len)) {
			free(t);
			continue;
		}
		pages++;
		first = le32toh(t->first);
		count = le32toh(t->count);
		if (first != (leaves[i].tv & SFFS_KEY_VALUE_MASK) * SFFS_EBT_RECS ||
		    !count || count > SFFS_EBT_RECS || first >= dev.eb_count ||
		    count > dev.eb_count - first ||
		    leaves[i].len != sizeof(*t) + count * sizeof(t->rec[0])) {
			err("table page at %llu describes blocks %u to %u",
			    ULL(leaves[i].addr), first, first + count - 1);
			free(t);
			continue;
		}
		for (uint32_t r = 0; r < count; r++) {
			uint32_t eb = first + r, ec = le32toh(t->rec[r].ec);

			state[eb] = t->rec[r].state;
			if (state[eb] > SFFS_EB_SCRUB)
				err("block %u: unknown state %u", eb, state[eb]);
			if (dev.bad[eb] || anchor_block(eb))
				continue;
			lo = ec < lo ? ec : lo;
			hi = ec > hi ? ec : hi;
			sum += ec;
			counted++;
		}
		free(t);
	}
	for (uint32_t eb = 0; eb < dev.eb_count; eb++) {
		if (dev.bad[eb] && !anchor_block(eb)) {
			nbad++;
			if (eb < alloc && state[eb] != SFFS_EB_BAD)
				warn("block %u is bad on the device, not in the table", eb);
			continue;
		}
		if (anchor_block(eb))
			continue;
		used += live[eb];
		if (state[eb] == SFFS_EB_FREE)
			nfree++;
		if (!live[eb] || journal_block(eb))
			continue;
		if (state[eb] == SFFS_EB_FREE || state[eb] == SFFS_EB_BAD)
			err("block %u holds %llu bytes of live nodes but the table calls it %s",
			    eb, ULL(live[eb]),
			    state[eb] == SFFS_EB_FREE ? "free" : "bad");
	}
	/* the live bytes of the checkpoint also count the journal's nodes */
	if (used > le64toh(cp.used_bytes))
		warn("the index holds %llu bytes of nodes, the checkpoint counts %llu used",
		     ULL(used), ULL(le64toh(cp.used_bytes)));
	printf("table_pages: %lu\nfree_blocks: %lu\nbad_blocks: %lu\n", pages,
	       nfree, nbad);
	if (counted)
		printf("erase_counts: min %u max %u avg %llu\n", lo, hi,
		       ULL(sum / counted));
}

static int cmp_ino(const void *a, const void *b)
{
	const struct ino *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static unsigned int dt_of(uint32_t mode)
{
	return S_ISDIR(mode) ? 4 : S_ISREG(mode) ? 8 : S_ISLNK(mode) ? 10 :
	       S_ISCHR(mode) ? 2 : S_ISBLK(mode) ? 6 : S_ISFIFO(mode) ? 1 :
	       S_ISSOCK(mode) ? 12 : 0;
}

static void check_files(void)
{
	bool orphan_list = le32toh(cp.feat_ro_compat) &
			   SFFS_FEAT_RO_COMPAT_ORPHAN;
	size_t i, norphans = 0;

	inos = calloc(nleaves + 1, sizeof(*inos));
	if (!inos)
		exit(8);
	for (i = 0; i < nleaves; i++) {
		struct sffs_inode_node *in;

		if (leaves[i].tv || leaves[i].ino == SFFS_META_INO)
			continue;
		in = malloc(leaves[i].len);
		if (!in || sffs_dev_read(&dev, leaves[i].addr, in, leaves[i].len) ||
		    sffs_check(in, leaves[i].len)) {
			free(in);
			continue;
		}
		inos[ninos++] = (struct ino){
			.ino = leaves[i].ino, .size = le64toh(in->size),
			.mode = le32toh(in->mode), .nlink = le32toh(in->nlink),
			.xattr_cnt = le32toh(in->xattr_cnt),
		};
		if (le64toh(in->key.ino) >= le64toh(cp.next_ino))
			err("inode %llu is not below next_ino %llu",
			    ULL(leaves[i].ino), ULL(le64toh(cp.next_ino)));
		free(in);
	}
	qsort(inos, ninos, sizeof(*inos), cmp_ino);
	if (!find_ino(SFFS_ROOT_INO) || !S_ISDIR(find_ino(SFFS_ROOT_INO)->mode)) {
		err("no root directory");
		return;
	}

	for (i = 0; i < nleaves; i++) {
		unsigned int ktype = leaves[i].tv >> SFFS_KEY_TYPE_SHIFT;
		struct ino *owner = find_ino(leaves[i].ino), *t;
		struct sffs_dentry_node *de;
		struct sffs_data_node *dn;
		uint16_t nlen;

		if (leaves[i].ino == SFFS_META_INO && ktype == SFFS_KEY_ORPHAN) {
			uint64_t ino = leaves[i].tv & SFFS_KEY_VALUE_MASK;

			t = find_ino(ino);
			norphans++;
			if (!t)
				err("orphan record of inode %llu, which does not exist",
				    ULL(ino));
			else if (t->nlink)
				err("orphan record of inode %llu, which has %u links",
				    ULL(ino), t->nlink);
			else
				t->orphan = true;
			continue;
		}
		if (leaves[i].ino == SFFS_META_INO || ktype == SFFS_KEY_INODE)
			continue;
		if (!owner) {
			err("key (%llu, %#llx): no inode %llu", ULL(leaves[i].ino),
			    ULL(leaves[i].tv), ULL(leaves[i].ino));
			continue;
		}
		if (ktype == SFFS_KEY_XATTR) {
			owner->xattrs++;
			continue;
		}
		if (ktype == SFFS_KEY_DATA) {
			uint64_t blk = leaves[i].tv & SFFS_KEY_VALUE_MASK;

			if (!S_ISREG(owner->mode))
				err("inode %llu: data in a file that is not regular",
				    ULL(owner->ino));
			else if (blk << SFFS_BLOCK_SHIFT >= owner->size)
				err("inode %llu: data block %llu beyond its size %llu",
				    ULL(owner->ino), ULL(blk), ULL(owner->size));
			dn = malloc(leaves[i].len);
			if (dn && !sffs_dev_read(&dev, leaves[i].addr, dn,
						 leaves[i].len) &&
			    (!le32toh(dn->size) || le32toh(dn->size) > SFFS_BLOCK_SIZE ||
			     dn->compr >= SFFS_COMPR_TYPES))
				err("inode %llu block %llu: size %u, compression %u",
				    ULL(owner->ino), ULL(blk), le32toh(dn->size),
				    dn->compr);
			free(dn);
			continue;
		}
		if (ktype != SFFS_KEY_DENTRY)
			continue;
		de = malloc(leaves[i].len);
		if (!de || sffs_dev_read(&dev, leaves[i].addr, de, leaves[i].len)) {
			free(de);
			continue;
		}
		nlen = le16toh(de->name_len);
		if (!S_ISDIR(owner->mode))
			err("inode %llu: names in a file that is not a directory",
			    ULL(owner->ino));
		if (!nlen || nlen > SFFS_MAX_NAME_LEN ||
		    sizeof(*de) + nlen != leaves[i].len ||
		    memchr(de->name, '/', nlen) || memchr(de->name, 0, nlen)) {
			err("directory %llu: a name of %u bytes is invalid",
			    ULL(owner->ino), nlen);
		} else if (sffs_crc(de->name, nlen) !=
			   (uint32_t)((leaves[i].tv & SFFS_KEY_VALUE_MASK) >>
				      SFFS_HASH_SHIFT)) {
			err("directory %llu: name %.*s is filed under another hash",
			    ULL(owner->ino), nlen, de->name);
		}
		t = find_ino(le64toh(de->target));
		if (!t) {
			err("directory %llu: %.*s names inode %llu, which does not exist",
			    ULL(owner->ino), nlen, de->name,
			    ULL(le64toh(de->target)));
		} else {
			if (de->type != dt_of(t->mode))
				err("directory %llu: %.*s has type %u, inode %llu is %u",
				    ULL(owner->ino), nlen, de->name, de->type,
				    ULL(t->ino), dt_of(t->mode));
			t->names++;
			t->parent = owner->ino;
			if (S_ISDIR(t->mode))
				owner->subdirs++;
			if (t->ino == SFFS_ROOT_INO)
				err("directory %llu: %.*s names the root",
				    ULL(owner->ino), nlen, de->name);
		}
		free(de);
	}

	/* reachability: follow each directory's parent up to the root */
	for (i = 0; i < ninos; i++) {
		struct ino *p = &inos[i];
		size_t steps = 0;

		while (p && p->ino != SFFS_ROOT_INO && p->names && steps++ <= ninos)
			p = find_ino(p->parent);
		inos[i].reached = p && p->ino == SFFS_ROOT_INO;
	}
	for (i = 0; i < ninos; i++) {
		struct ino *n = &inos[i];
		uint32_t want = S_ISDIR(n->mode) ? 2 + n->subdirs : n->names;

		if (!n->nlink && !n->orphan) {
			/*
			 * Without the orphan list (an older kernel made it),
			 * an unlinked inode may have been open at a power
			 * cut: it leaks, but nothing is damaged.
			 */
			if (orphan_list)
				err("inode %llu has no link and no orphan record: it leaks",
				    ULL(n->ino));
			else
				warn("inode %llu is an orphan: unlinked, not yet deleted",
				     ULL(n->ino));
		}
		if (!n->names && n->ino != SFFS_ROOT_INO) {
			if (n->nlink)
				err("inode %llu (nlink %u) has no name: lost",
				    ULL(n->ino), n->nlink);
			continue;
		}
		if (S_ISDIR(n->mode) && n->names > 1)
			err("directory %llu has %u names", ULL(n->ino), n->names);
		else if (!n->reached)
			err("inode %llu is not reachable from the root",
			    ULL(n->ino));
		if (n->nlink != want)
			err("inode %llu: link count %u, should be %u", ULL(n->ino),
			    n->nlink, want);
		if (n->xattrs != n->xattr_cnt)
			err("inode %llu: %u extended attributes, the inode says %u",
			    ULL(n->ino), n->xattrs, n->xattr_cnt);
		if (verbose)
			printf("inode %llu: mode %o nlink %u size %llu\n",
			       ULL(n->ino), n->mode, n->nlink, ULL(n->size));
	}
	printf("inodes: %zu\n", ninos);
	printf("orphans: %zu\n", norphans);
}

/* The nodes written after the checkpoint: the next mount replays them */
static void check_journal(void)
{
	unsigned int jcnt = le16toh(cp.journal_cnt), nodes = 0, blocks = 0;
	uint64_t addr = le64toh(cp.jhead);
	uint8_t *blk = malloc(dev.erase_size);
	bool torn = false;

	if (!blk)
		return;
	for (unsigned int i = 0; i < jcnt && !torn; i++) {
		uint32_t eb = le32toh(cp.journal_eb[i]), off;

		if (eb >= dev.eb_count || dev.bad[eb] ||
		    sffs_dev_read(&dev, (uint64_t)eb * dev.erase_size, blk,
				  dev.erase_size))
			break;
		off = i ? 0 : addr % dev.erase_size;
		if (sffs_check(blk + off, dev.erase_size - off) == 1)
			break;
		blocks++;
		while (off + sizeof(struct sffs_node_hdr) <= dev.erase_size) {
			struct sffs_node_hdr *h = (void *)(blk + off);
			int r = sffs_check(h, dev.erase_size - off);

			if (r) {
				torn = r < 0;
				break;
			}
			if (le64toh(h->sqnum) > le64toh(cp.max_sqnum))
				nodes++;
			off += ALIGN8(le32toh(h->len));
		}
		if (torn)
			break;
	}
	free(blk);
	printf("journal: %u nodes in %u blocks to replay%s\n", nodes, blocks,
	       torn ? ", the last write torn" : "");
}

int main(int argc, char **argv)
{
	uint64_t esize = 128 << 10, wsize = 2048;
	unsigned int reads, height, fanout;
	int opt;

	while ((opt = getopt(argc, argv, "ve:m:h")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case 'e':
			esize = sffs_parse_size(optarg);
			break;
		case 'm':
			wsize = sffs_parse_size(optarg);
			break;
		default:
			fputs(USAGE, stderr);
			return opt == 'h' ? 0 : 8;
		}
	}
	if (optind != argc - 1) {
		fputs(USAGE, stderr);
		return 8;
	}
	if (sffs_dev_open(&dev, argv[optind], false, esize, wsize, 0) ||
	    sffs_find_anchor(&dev))
		return 8;
	live = calloc(dev.eb_count, sizeof(*live));
	state = calloc(dev.eb_count, 1);
	if (!live || !state)
		return 8;
	if (sffs_find_checkpoint(&dev, &cp, &reads)) {
		printf("error: no valid SFFS checkpoint (%u units read)\n", reads);
		return 4;
	}
	printf("commit: %llu\n", ULL(le64toh(cp.commit)));
	check_checkpoint();
	height = le16toh(cp.index_height);
	fanout = le16toh(cp.fanout);
	if (!height || height > 16 || fanout < SFFS_MIN_FANOUT ||
	    fanout > SFFS_MAX_FANOUT) {
		err("index height %u, fan-out %u", height, fanout);
	} else if (!errors) {
		walk(le64toh(cp.index_root), le32toh(cp.index_root_len),
		     height - 1, fanout);
		printf("index_nodes: %lu\nleaves: %zu\n", index_nodes, nleaves);
		if (max_sqnum_seen > le64toh(cp.max_sqnum))
			err("a node of the index is newer (%llu) than its checkpoint (%llu)",
			    ULL(max_sqnum_seen), ULL(le64toh(cp.max_sqnum)));
		check_shared();
		check_table();
		check_files();
	}
	check_journal();
	printf("errors: %lu\nwarnings: %lu\n", errors, warnings);
	sffs_dev_close(&dev, argv[optind]);
	return errors ? 4 : 0;
}
