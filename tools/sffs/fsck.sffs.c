// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsck.sffs: check every structure of an SFFS.
 *
 *   fsck.sffs [-v] [-y] [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE
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
 * The journal written since the checkpoint is applied to what the index
 * holds before the files are checked, as the next mount will apply it, so
 * that the files are checked as the kernel will see them.
 *
 * Problems are printed one per line as "error: ..." (the file system is
 * damaged) or "warning: ..." (it mounts and works, but something leaks
 * or is inexact).  The exit status follows fsck(8): 0 when no error was
 * found, 1 when errors were found and all of them repaired, 4 when errors
 * are left, 8 when the device could not be read or written.
 *
 * A file system that only lost power needs no repair: the kernel replays
 * its journal.  With -y, fsck.sffs repairs the damage to the files it
 * finds by appending operations to the journal, which the next mount
 * replays and commits like any other, and by writing a checkpoint with
 * the space counted right; it then checks the result once more.  A file
 * with no name goes to /lost+found as "#INODE".  Damage to the index or
 * the anchor is reported, not repaired.
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
#include <time.h>
#include "sffs_tool.h"

#define USAGE "usage: fsck.sffs [-v] [-y] [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE\n"

struct ino {
	uint64_t ino, size;
	uint32_t mode, nlink, xattr_cnt;
	uint32_t names, subdirs, xattrs;
	uint64_t parent;
	bool reached;
	bool orphan;		/* has an orphan record */
	/* with -y: the names and subdirectories left once repaired */
	uint32_t knames, ksubdirs;
	uint64_t xattr_size;
	uint64_t iaddr;		/* the inode node */
	uint32_t ilen;
};

/* With -y: an operation to append to the journal, its nodes in order */
struct op {
	unsigned int n;
	void *node[3];
};

static struct sffs_dev dev;
static struct sffs_checkpoint_node cp;
static struct sffs_leaves lv;
static struct ino *inos;
static size_t ninos;
static uint64_t *live;		/* per erase block, bytes of live nodes */
static uint8_t *state;		/* per erase block, from the table */
static uint32_t nlive;		/* entries of @live and @state */
static uint64_t last_ino, last_tv, max_sqnum_seen;
static bool have_last, verbose, repair;
static unsigned long errors, warnings, index_nodes;
static unsigned int jnodes;	/* journal nodes the next mount replays */
static uint64_t next_ino;	/* as the journal's replay leaves it */
static bool jtorn;
static struct op *ops;
static size_t nops;
static bool fix_space;

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

/* Room for one more leaf */
static void leaves_room(void)
{
	if (sffs_leaves_room(&lv)) {
		perror("fsck.sffs");
		exit(8);
	}
}

/*
 * A key a repair is about to use, without a node yet.  Out of memory ends
 * the run, as for every other allocation here: a key missing would let
 * the next repair take the same name.
 */
static void leaf_set(uint64_t ino, uint64_t tv)
{
	if (sffs_leaf_set(&lv, ino, tv, 0, 0)) {
		perror("fsck.sffs");
		exit(8);
	}
}

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
	leaves_room();
	lv.v[lv.n++] = (struct sffs_leaf){ ino, tv, addr, len };
}

static void walk(uint64_t addr, uint32_t len, int level, unsigned int fanout)
{
	struct sffs_index_node *ix = read_node(addr, len, "index node");
	struct sffs_branch *br = NULL;
	unsigned int cnt;

	if (!ix)
		return;
	index_nodes++;
	cnt = le16toh(ix->count);
	if (ix->hdr.type == SFFS_NODE_INDEX && le16toh(ix->level) == level &&
	    cnt && cnt <= fanout)
		br = sffs_index_branches(ix, len);
	if (!br) {
		err("bad index node at %llu (level %u, want %d, %u branches)",
		    ULL(addr), le16toh(ix->level), level, cnt);
		free(ix);
		return;
	}
	if (ix->flags & SFFS_INDEX_PACKED &&
	    !(le32toh(cp.feat_incompat) & SFFS_FEAT_INCOMPAT_PACKED))
		err("index node at %llu is packed, and the checkpoint does not allow it",
		    ULL(addr));
	for (unsigned int i = 0; i < cnt; i++) {
		struct sffs_branch *b = &br[i];

		if (level)
			walk(le64toh(b->addr), le32toh(b->len), level - 1, fanout);
		else
			add_leaf(le64toh(b->key.ino), le64toh(b->key.tv),
				 le64toh(b->addr), le32toh(b->len));
	}
	free(br);
	free(ix);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct sffs_leaf *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Two branches to one node: freeing one would free the other */
static void check_shared(void)
{
	struct sffs_leaf *l = malloc((lv.n + 1) * sizeof(*l));

	if (!l)
		return;
	memcpy(l, lv.v, lv.n * sizeof(*l));
	qsort(l, lv.n, sizeof(*l), cmp_addr);
	for (size_t i = 1; i < lv.n; i++)
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
	    le64toh(cp.dirty_bytes) != cap) {
		fix_space = true;
		err("free %llu + used %llu + dirty %llu bytes is not the %llu there are",
		    ULL(le64toh(cp.free_bytes)), ULL(le64toh(cp.used_bytes)),
		    ULL(le64toh(cp.dirty_bytes)), ULL(cap));
	}
}

/* The erase-block table, then what the index uses against it */
static void check_table(void)
{
	uint32_t alloc = le32toh(cp.alloc_eb), lo = UINT32_MAX, hi = 0;
	uint64_t sum = 0, used = 0;
	unsigned long pages = 0, nfree = 0, nbad = 0, counted = 0;

	/* a page never written: as the kernel reads it (sffs_ebt_read()) */
	for (uint32_t eb = 0; eb < dev.eb_count; eb++)
		state[eb] = dev.bad[eb] ? SFFS_EB_BAD :
			    eb < alloc ? SFFS_EB_MAIN : SFFS_EB_FREE;
	for (size_t i = 0; i < lv.n; i++) {
		struct sffs_eb_rec *rec = NULL;
		struct sffs_ebt_node *t;
		uint32_t first, count;

		if (lv.v[i].ino != SFFS_META_INO ||
		    lv.v[i].tv >> SFFS_KEY_TYPE_SHIFT != SFFS_KEY_EBT)
			continue;
		t = malloc(lv.v[i].len);
		if (!t || sffs_dev_read(&dev, lv.v[i].addr, t, lv.v[i].len)) {
			free(t);
			continue;
		}
		pages++;
		first = le32toh(t->first);
		count = le32toh(t->count);
		if (first == (lv.v[i].tv & SFFS_KEY_VALUE_MASK) * SFFS_EBT_RECS &&
		    count && count <= SFFS_EBT_RECS && first < dev.eb_count &&
		    count <= dev.eb_count - first)
			rec = sffs_ebt_records(t, lv.v[i].len);
		if (!rec) {
			err("table page at %llu describes blocks %u to %u",
			    ULL(lv.v[i].addr), first, first + count - 1);
			free(t);
			continue;
		}
		if (t->hdr.flags & SFFS_EBT_FL_PACKED &&
		    !(le32toh(cp.feat_incompat) & SFFS_FEAT_INCOMPAT_PACKED))
			err("table page at %llu is packed, and the checkpoint does not allow it",
			    ULL(lv.v[i].addr));
		for (uint32_t r = 0; r < count; r++) {
			uint32_t eb = first + r, ec = le32toh(rec[r].ec);

			state[eb] = rec[r].state;
			if (state[eb] > SFFS_EB_SCRUB)
				err("block %u: unknown state %u", eb, state[eb]);
			if (dev.bad[eb] || anchor_block(eb))
				continue;
			lo = ec < lo ? ec : lo;
			hi = ec > hi ? ec : hi;
			sum += ec;
			counted++;
		}
		free(rec);
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

/*
 * The journal written since the checkpoint, applied to the leaves as the
 * next mount replays it.
 */
static void apply_journal(void)
{
	struct sffs_replay r;

	if (sffs_replay_journal(&dev, &cp, &lv, &r)) {
		perror("fsck.sffs");
		exit(8);
	}
	jnodes = r.nodes;
	jtorn = r.torn;
	next_ino = r.next_ino;
	printf("journal: %u nodes in %u blocks to replay%s\n", jnodes,
	       jnodes ? r.blocks : 0, jtorn ? ", the last write torn" : "");
}

/* With -y */

static void *read_at(uint64_t addr, uint32_t len)
{
	void *node = len ? malloc(len) : NULL;

	if (!node || sffs_dev_read(&dev, addr, node, len) ||
	    sffs_check(node, len)) {
		free(node);
		return NULL;
	}
	return node;
}

static void *read_leaf(size_t i)
{
	return read_at(lv.v[i].addr, lv.v[i].len);
}

static void plan(void *n0, void *n1, void *n2)
{
	struct op *o;

	if (!n0)
		return;
	ops = realloc(ops, (nops + 1) * sizeof(*ops));
	if (!ops) {
		perror("fsck.sffs");
		exit(8);
	}
	o = &ops[nops++];
	o->node[0] = n0;
	o->node[1] = n1;
	o->node[2] = n2;
	o->n = n2 ? 3 : n1 ? 2 : 1;
}

/* A node of @len bytes, zeroed, its header filled but not sealed */
static void *new_node(unsigned int type, uint32_t len, unsigned int flags)
{
	struct sffs_node_hdr *h = calloc(1, len);

	if (!h) {
		perror("fsck.sffs");
		exit(8);
	}
	h->type = type;
	h->len = htole32(len);
	h->flags = flags;
	return h;
}

/* The entry at leaf @i goes: a copy with target 0 deletes it */
static void plan_unname(size_t i)
{
	struct sffs_dentry_node *de = read_leaf(i);

	if (!de)
		return;
	de->target = 0;
	plan(de, NULL, NULL);
}

static void plan_orphan(uint64_t ino, bool del)
{
	struct sffs_orphan_node *on = new_node(SFFS_NODE_ORPHAN, sizeof(*on),
					       del ? SFFS_ORPHAN_FL_DELETE : 0);

	on->key.ino = htole64(SFFS_META_INO);
	on->key.tv = htole64(sffs_tv(SFFS_KEY_ORPHAN, ino));
	plan(on, NULL, NULL);
}

static void plan_trunc(uint64_t ino, uint64_t size, bool del)
{
	struct sffs_trunc_node *tn = new_node(SFFS_NODE_TRUNC, sizeof(*tn),
					      del ? SFFS_TRUNC_FL_DELETE : 0);

	tn->ino = htole64(ino);
	tn->old_size = htole64(size);
	tn->new_size = htole64(size);
	plan(tn, NULL, NULL);
}

/* A free key for @name in directory @dir: its hash and a free index */
static uint64_t free_name_key(uint64_t dir, const char *name, size_t len)
{
	uint64_t tv = sffs_tv(SFFS_KEY_DENTRY,
			    (uint64_t)sffs_crc(name, len) << SFFS_HASH_SHIFT);

	for (unsigned int c = 0; c < SFFS_MAX_COLLISIONS; c++)
		if (!sffs_leaf_has(&lv, dir, tv + c))
			return tv + c;
	return 0;
}

static struct sffs_dentry_node *new_dentry(uint64_t dir, uint64_t tv,
					   const char *name, uint64_t target,
					   unsigned int type)
{
	size_t len = strlen(name);
	struct sffs_dentry_node *de = new_node(SFFS_NODE_DENTRY,
					       sizeof(*de) + len, 0);

	de->key.ino = htole64(dir);
	de->key.tv = htole64(tv);
	de->target = htole64(target);
	de->type = type;
	de->name_len = htole16(len);
	memcpy(de->name, name, len);
	return de;
}

/* With -y: the inode node of @n, rewritten with what is right */
static void plan_inode(struct ino *n, uint32_t nlink)
{
	struct sffs_inode_node *in = read_at(n->iaddr, n->ilen);

	if (!in)
		return;
	in->nlink = htole32(nlink);
	in->xattr_cnt = htole32(n->xattrs);
	in->xattr_size = htole32(n->xattr_size);
	plan(in, NULL, NULL);
}

static uint64_t xattr_bytes(size_t i)
{
	struct sffs_xattr_node *xn = read_leaf(i);
	uint64_t n = 0;

	if (xn && lv.v[i].len >= sizeof(*xn))
		n = le16toh(xn->name_len) + le16toh(xn->value_len);
	free(xn);
	return n;
}

/*
 * With -y: give the files that lost every name one in /lost+found, made
 * if it is not there.  Returns the inode of /lost+found, or 0.
 */
static uint64_t plan_lost_found(struct ino *root)
{
	static const char lf[] = "lost+found";
	uint64_t tv = sffs_tv(SFFS_KEY_DENTRY,
			    (uint64_t)sffs_crc(lf, strlen(lf)) << SFFS_HASH_SHIFT);
	uint64_t ino = 0, next = next_ino;
	struct sffs_inode_node *in;
	struct timespec now;
	uint32_t lost_dirs = 0;
	char name[32];
	struct ino *d = NULL;
	size_t i, lost = 0;

	for (i = 0; i < ninos; i++) {
		struct ino *n = &inos[i];

		if (n->ino != SFFS_ROOT_INO && n->nlink && !n->knames) {
			lost++;
			lost_dirs += S_ISDIR(n->mode);
		}
		if (n->ino >= next)
			next = n->ino + 1;
	}
	if (!lost)
		return 0;
	/* an existing /lost+found, if a directory */
	for (unsigned int c = 0; c < SFFS_MAX_COLLISIONS && !d; c++) {
		struct sffs_dentry_node *de;
		size_t k = sffs_leaf_pos(&lv, SFFS_ROOT_INO, tv + c);

		/* a deleted name leaves its collision index free */
		if (k >= lv.n || lv.v[k].ino != SFFS_ROOT_INO ||
		    lv.v[k].tv != tv + c)
			continue;
		de = read_leaf(k);
		if (de && le16toh(de->name_len) == strlen(lf) &&
		    !memcmp(de->name, lf, strlen(lf)))
			d = find_ino(le64toh(de->target));
		free(de);
		if (d && !S_ISDIR(d->mode))
			return 0;
	}
	if (d) {
		ino = d->ino;
		d->ksubdirs += lost_dirs;
	} else {
		tv = free_name_key(SFFS_ROOT_INO, lf, strlen(lf));
		if (!tv)
			return 0;
		ino = next;
		clock_gettime(CLOCK_REALTIME, &now);
		in = new_node(SFFS_NODE_INODE, sizeof(*in), 0);
		in->key.ino = htole64(ino);
		in->atime.sec = htole64(now.tv_sec);
		in->atime.nsec = htole32(now.tv_nsec);
		in->mtime = in->atime;
		in->ctime = in->atime;
		in->mode = htole32(S_IFDIR | 0700);
		in->nlink = htole32(2 + lost_dirs);
		plan(in, new_dentry(SFFS_ROOT_INO, tv, lf, ino, 4), NULL);
		root->ksubdirs++;
		/* its names go in before the index has them: count them here */
		leaf_set(SFFS_ROOT_INO, tv);
	}
	for (i = 0; i < ninos; i++) {
		struct ino *n = &inos[i];

		if (n->ino == SFFS_ROOT_INO || !n->nlink || n->knames)
			continue;
		snprintf(name, sizeof(name), "#%llu", ULL(n->ino));
		tv = free_name_key(ino, name, strlen(name));
		if (!tv)
			continue;
		plan(new_dentry(ino, tv, name, n->ino, dt_of(n->mode)), NULL,
		     NULL);
		leaf_set(ino, tv);
		n->knames = 1;
		printf("repair: inode %llu goes to /lost+found/%s\n",
		       ULL(n->ino), name);
	}
	return ino;
}

static void check_files(void)
{
	bool orphan_list = le32toh(cp.feat_ro_compat) &
			   SFFS_FEAT_RO_COMPAT_ORPHAN;
	size_t i, norphans = 0;
	uint64_t gone = 0, cut = 0;

	inos = calloc(lv.n + 1, sizeof(*inos));
	if (!inos)
		exit(8);
	for (i = 0; i < lv.n; i++) {
		struct sffs_inode_node *in;

		if (lv.v[i].tv || lv.v[i].ino == SFFS_META_INO)
			continue;
		in = malloc(lv.v[i].len);
		if (!in || sffs_dev_read(&dev, lv.v[i].addr, in, lv.v[i].len) ||
		    sffs_check(in, lv.v[i].len)) {
			free(in);
			continue;
		}
		inos[ninos++] = (struct ino){
			.ino = lv.v[i].ino, .size = le64toh(in->size),
			.mode = le32toh(in->mode), .nlink = le32toh(in->nlink),
			.xattr_cnt = le32toh(in->xattr_cnt),
			.iaddr = lv.v[i].addr, .ilen = lv.v[i].len,
		};
		if (lv.v[i].len >= sizeof(*in) &&
		    le16toh(in->data_len) > SFFS_SHORT_SYMLINK_LEN &&
		    !(le32toh(cp.feat_incompat) &
		      SFFS_FEAT_INCOMPAT_LONG_SYMLINK))
			/* a kernel without the feature cannot read it */
			err("inode %llu: symlink of %u bytes, but no long-symlink feature",
			    ULL(lv.v[i].ino), le16toh(in->data_len));
		if (le64toh(in->key.ino) >= next_ino) {
			err("inode %llu is not below next_ino %llu",
			    ULL(lv.v[i].ino), ULL(next_ino));
			/* replay raises next_ino past the inodes it meets */
			if (repair) {
				plan(in, NULL, NULL);
				in = NULL;
			}
		}
		free(in);
	}
	qsort(inos, ninos, sizeof(*inos), cmp_ino);
	if (!find_ino(SFFS_ROOT_INO) || !S_ISDIR(find_ino(SFFS_ROOT_INO)->mode)) {
		err("no root directory");
		return;
	}

	for (i = 0; i < lv.n; i++) {
		unsigned int ktype = lv.v[i].tv >> SFFS_KEY_TYPE_SHIFT;
		struct ino *owner = find_ino(lv.v[i].ino), *t;
		struct sffs_dentry_node *de;
		struct sffs_data_node *dn;
		bool keep = true;
		uint16_t nlen;

		if (lv.v[i].ino == SFFS_META_INO && ktype == SFFS_KEY_ORPHAN) {
			uint64_t ino = lv.v[i].tv & SFFS_KEY_VALUE_MASK;

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
			if (repair && (!t || t->nlink))
				plan_orphan(ino, true);
			continue;
		}
		if (lv.v[i].ino == SFFS_META_INO || ktype == SFFS_KEY_INODE)
			continue;
		if (!owner) {
			err("key (%llu, %#llx): no inode %llu", ULL(lv.v[i].ino),
			    ULL(lv.v[i].tv), ULL(lv.v[i].ino));
			/* the keys of an inode that is gone go too */
			if (repair && gone != lv.v[i].ino)
				plan_trunc(lv.v[i].ino, 0, true);
			gone = lv.v[i].ino;
			continue;
		}
		if (ktype == SFFS_KEY_XATTR) {
			owner->xattrs++;
			owner->xattr_size += repair ? xattr_bytes(i) : 0;
			continue;
		}
		if (ktype == SFFS_KEY_DATA) {
			uint64_t blk = lv.v[i].tv & SFFS_KEY_VALUE_MASK;
			bool beyond = false;

			if (!S_ISREG(owner->mode)) {
				err("inode %llu: data in a file that is not regular",
				    ULL(owner->ino));
				beyond = true;
			} else if (blk << SFFS_BLOCK_SHIFT >= owner->size) {
				/*
				 * Blocks written back before the inode node
				 * that was to give the file its new size: a
				 * power cut left them, and the kernel drops
				 * them before the file grows again.
				 */
				warn("inode %llu: data block %llu past its size %llu (a power cut)",
				     ULL(owner->ino), ULL(blk),
				     ULL(owner->size));
				beyond = true;
			}
			/* a truncation to the size drops what is beyond */
			if (repair && beyond && cut != owner->ino)
				plan_trunc(owner->ino, S_ISREG(owner->mode) ?
					   owner->size : 0, false);
			if (beyond)
				cut = owner->ino;
			dn = malloc(lv.v[i].len);
			if (dn && !sffs_dev_read(&dev, lv.v[i].addr, dn,
						 lv.v[i].len) &&
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
		de = malloc(lv.v[i].len);
		if (!de || sffs_dev_read(&dev, lv.v[i].addr, de, lv.v[i].len)) {
			free(de);
			continue;
		}
		nlen = le16toh(de->name_len);
		if (!S_ISDIR(owner->mode)) {
			err("inode %llu: names in a file that is not a directory",
			    ULL(owner->ino));
			keep = false;
		}
		if (!nlen || nlen > SFFS_MAX_NAME_LEN ||
		    sizeof(*de) + nlen != lv.v[i].len ||
		    memchr(de->name, '/', nlen) || memchr(de->name, 0, nlen)) {
			err("directory %llu: a name of %u bytes is invalid",
			    ULL(owner->ino), nlen);
			keep = false;
		} else if (sffs_crc(de->name, nlen) !=
			   (uint32_t)((lv.v[i].tv & SFFS_KEY_VALUE_MASK) >>
				      SFFS_HASH_SHIFT)) {
			err("directory %llu: name %.*s is filed under another hash",
			    ULL(owner->ino), nlen, de->name);
			/* lookups cannot find it: it goes */
			keep = false;
		}
		t = find_ino(le64toh(de->target));
		if (!t) {
			err("directory %llu: %.*s names inode %llu, which does not exist",
			    ULL(owner->ino), nlen, de->name,
			    ULL(le64toh(de->target)));
			keep = false;
		} else {
			if (t->ino == SFFS_ROOT_INO) {
				err("directory %llu: %.*s names the root",
				    ULL(owner->ino), nlen, de->name);
				keep = false;
			}
			/* a second name of a directory goes */
			if (S_ISDIR(t->mode) && t->knames)
				keep = false;
			if (de->type != dt_of(t->mode)) {
				err("directory %llu: %.*s has type %u, inode %llu is %u",
				    ULL(owner->ino), nlen, de->name, de->type,
				    ULL(t->ino), dt_of(t->mode));
				if (repair && keep) {
					de->type = dt_of(t->mode);
					plan(de, NULL, NULL);
					de = NULL;
				}
			}
			t->names++;
			t->parent = owner->ino;
			if (S_ISDIR(t->mode))
				owner->subdirs++;
			if (keep) {
				t->knames++;
				if (S_ISDIR(t->mode))
					owner->ksubdirs++;
			}
		}
		if (repair && !keep)
			plan_unname(i);
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
	if (repair)
		plan_lost_found(find_ino(SFFS_ROOT_INO));
	for (i = 0; i < ninos; i++) {
		struct ino *n = &inos[i];
		uint32_t want = S_ISDIR(n->mode) ? 2 + n->subdirs : n->names;
		uint32_t kwant = S_ISDIR(n->mode) ? 2 + n->ksubdirs : n->knames;
		bool fix = false;

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
			/* the next mount deletes it */
			if (repair && orphan_list && !n->knames)
				plan_orphan(n->ino, false);
		}
		if (repair && n->ino != SFFS_ROOT_INO && n->knames &&
		    (n->nlink != kwant || n->xattrs != n->xattr_cnt)) {
			fix = true;
			/* linked again: the mount must not delete it */
			if (n->orphan)
				plan_orphan(n->ino, true);
		}
		if (!n->names && n->ino != SFFS_ROOT_INO) {
			if (n->nlink)
				err("inode %llu (nlink %u) has no name: lost",
				    ULL(n->ino), n->nlink);
			if (fix)
				plan_inode(n, kwant);
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
		if (repair && n->ino == SFFS_ROOT_INO &&
		    (n->nlink != kwant || n->xattrs != n->xattr_cnt))
			fix = true;
		if (fix)
			plan_inode(n, kwant);
		if (verbose)
			printf("inode %llu: mode %o nlink %u size %llu\n",
			       ULL(n->ino), n->mode, n->nlink, ULL(n->size));
	}
	printf("inodes: %zu\n", ninos);
	printf("orphans: %zu\n", norphans);
}

/* The journal block repairs are written to, as it is on the flash */
struct jblock {
	uint8_t *buf;
	uint64_t base;		/* its address */
	uint64_t start;		/* first byte repairs write */
	uint64_t at;		/* where the next node goes */
};

static int jblock_begin(struct jblock *jb, uint64_t addr)
{
	jb->base = addr / dev.erase_size * dev.erase_size;
	jb->start = addr;
	jb->at = addr;
	if (sffs_dev_read(&dev, jb->base, jb->buf, dev.erase_size))
		return -1;
	for (uint64_t p = addr - jb->base; p < dev.erase_size; p++) {
		if (jb->buf[p] != 0xff) {
			printf("repair: journal block %llu is not erased after the journal head\n",
			       ULL(jb->base / dev.erase_size));
			return -1;
		}
	}
	return 0;
}

/* Write what was put in the block, padded to the write unit */
static int jblock_flush(struct jblock *jb, unsigned int unit)
{
	uint64_t stop = (jb->at + unit - 1) / unit * unit;

	if (stop - jb->at >= sizeof(struct sffs_node_hdr))
		sffs_seal(jb->buf + (jb->at - jb->base), SFFS_NODE_PAD,
			  stop - jb->at, 0, 0);
	if (stop == jb->start)
		return 0;
	return sffs_dev_write(&dev, jb->start, jb->buf + (jb->start - jb->base),
			      stop - jb->start);
}

/* Count the space right: what is missing is dirty, never free */
static void recount_space(void)
{
	uint64_t cap = 0, fr = le64toh(cp.free_bytes), t;
	uint64_t used = le64toh(cp.used_bytes), dirty = le64toh(cp.dirty_bytes);
	uint64_t sum = fr + used + dirty, over;

	for (uint32_t eb = 0; eb < dev.eb_count; eb++)
		if (!dev.bad[eb] && !anchor_block(eb))
			cap += dev.erase_size;
	if (sum < cap) {
		/* garbage collection finds what is not counted */
		dirty += cap - sum;
	} else {
		/* never promise space there is not */
		over = sum - cap;
		t = over < fr ? over : fr;
		fr -= t;
		over -= t;
		t = over < dirty ? over : dirty;
		dirty -= t;
		over -= t;
		used -= over < used ? over : used;
	}
	cp.free_bytes = htole64(fr);
	cp.used_bytes = htole64(used);
	cp.dirty_bytes = htole64(dirty);
}

/*
 * Write the planned operations at the journal head, as the kernel would
 * have written them, then a checkpoint with the space counted right.
 * Only into an empty journal: after a power cut the last page written
 * may be torn, and the mount that replays the journal starts a new one.
 */
static int write_repairs(unsigned int slot, uint32_t next_unit)
{
	unsigned int jcnt = le16toh(cp.journal_cnt), i = 0;
	unsigned int unit = dev.write_size < SFFS_NODE_ALIGN ?
			    SFFS_NODE_ALIGN : dev.write_size;
	uint64_t sqnum = le64toh(cp.max_sqnum);
	struct jblock jb = { .buf = malloc(dev.erase_size) };
	int ret = -1;

	if (!jb.buf)
		return -1;
	if (jnodes || jtorn) {
		printf("repair: there is a journal to replay: mount and unmount first\n");
		goto out;
	}
	if (nops && jblock_begin(&jb, le64toh(cp.jhead)))
		goto out;
	for (size_t o = 0; o < nops; o++) {
		uint64_t len = 0;

		for (unsigned int n = 0; n < ops[o].n; n++)
			len += ALIGN8(le32toh(((struct sffs_node_hdr *)
					       ops[o].node[n])->len));
		/* an operation never straddles two blocks */
		if (jb.at + len > jb.base + dev.erase_size) {
			if (jblock_flush(&jb, unit))
				goto out;
			if (++i >= jcnt) {
				printf("repair: journal full: mount, unmount, repair again\n");
				goto out;
			}
			if (jblock_begin(&jb, (uint64_t)le32toh(cp.journal_eb[i]) *
					 dev.erase_size))
				goto out;
		}
		for (unsigned int n = 0; n < ops[o].n; n++) {
			struct sffs_node_hdr *h = ops[o].node[n];
			uint32_t nlen = le32toh(h->len);

			sffs_seal(h, h->type, nlen, ++sqnum,
				  h->flags | (n + 1 < ops[o].n ?
					      SFFS_NODE_FL_CONT : 0));
			memcpy(jb.buf + (jb.at - jb.base), h, nlen);
			jb.at += ALIGN8(nlen);
		}
	}
	if (nops && jblock_flush(&jb, unit))
		goto out;
	if (nops)
		printf("repair: %zu operations written to the journal\n", nops);
	if (fix_space) {
		recount_space();
		cp.commit = htole64(le64toh(cp.commit) + 1);
		sffs_seal(&cp, SFFS_NODE_CHECKPOINT, sizeof(cp),
			  le64toh(cp.max_sqnum), 0);
		if (sffs_write_checkpoint(&dev, &cp, slot, next_unit))
			goto out;
		printf("repair: checkpoint %llu written: free %llu, used %llu, dirty %llu bytes\n",
		       ULL(le64toh(cp.commit)), ULL(le64toh(cp.free_bytes)),
		       ULL(le64toh(cp.used_bytes)), ULL(le64toh(cp.dirty_bytes)));
	}
	ret = 0;
out:
	free(jb.buf);
	return ret;
}

/* Forget what a check found, to check again after a repair */
static void reset(void)
{
	free(lv.v);
	lv.v = NULL;
	lv.n = 0;
	lv.cap = 0;
	free(inos);
	inos = NULL;
	ninos = 0;
	memset(live, 0, dev.eb_count * sizeof(*live));
	memset(state, 0, dev.eb_count);
	last_ino = 0;
	last_tv = 0;
	max_sqnum_seen = 0;
	have_last = false;
	errors = 0;
	warnings = 0;
	index_nodes = 0;
	for (size_t o = 0; o < nops; o++)
		for (unsigned int n = 0; n < ops[o].n; n++)
			free(ops[o].node[n]);
	free(ops);
	ops = NULL;
	nops = 0;
	fix_space = false;
}

/* Check everything; where the next checkpoint goes in *slot, *next */
static void check(unsigned int *slot, uint32_t *next)
{
	unsigned int reads, height, fanout;
	unsigned long fatal;

	reset();
	if (sffs_find_checkpoint(&dev, &cp, &reads, slot, next)) {
		err("no valid SFFS checkpoint (%u units read)", reads);
		return;
	}
	/* an image cut short by mkfs.sffs -t is taken whole from here on */
	if (dev.eb_count > nlive) {
		free(live);
		free(state);
		nlive = dev.eb_count;
		live = calloc(nlive, sizeof(*live));
		state = calloc(nlive, 1);
		if (!live || !state) {
			fprintf(stderr, "fsck.sffs: out of memory\n");
			exit(8);
		}
	}
	printf("commit: %llu\n", ULL(le64toh(cp.commit)));
	check_checkpoint();
	/* space counted wrong does not keep the index from being read */
	fatal = errors - fix_space;
	height = le16toh(cp.index_height);
	fanout = le16toh(cp.fanout);
	if (!height || height > 16 || fanout < SFFS_MIN_FANOUT ||
	    fanout > SFFS_MAX_FANOUT) {
		err("index height %u, fan-out %u", height, fanout);
	} else if (!fatal) {
		walk(le64toh(cp.index_root), le32toh(cp.index_root_len),
		     height - 1, fanout);
		printf("index_nodes: %lu\nleaves: %zu\n", index_nodes, lv.n);
		if (max_sqnum_seen > le64toh(cp.max_sqnum))
			err("a node of the index is newer (%llu) than its checkpoint (%llu)",
			    ULL(max_sqnum_seen), ULL(le64toh(cp.max_sqnum)));
		check_shared();
		check_table();
		apply_journal();
		check_files();
	} else {
		apply_journal();
	}
	printf("errors: %lu\nwarnings: %lu\n", errors, warnings);
}

int main(int argc, char **argv)
{
	uint64_t esize = 128 << 10, wsize = 2048;
	unsigned int slot = 0;
	uint32_t next = 0;
	int opt, ret;

	while ((opt = getopt(argc, argv, "vye:m:h")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case 'y':
			repair = true;
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
	if (sffs_dev_open(&dev, argv[optind], repair, esize, wsize, 0) ||
	    sffs_find_anchor(&dev))
		return 8;
	nlive = dev.eb_count;
	live = calloc(nlive, sizeof(*live));
	state = calloc(nlive, 1);
	if (!live || !state)
		return 8;
	check(&slot, &next);
	ret = errors ? 4 : 0;
	if (repair && errors) {
		if (!nops && !fix_space) {
			printf("repair: nothing here fsck.sffs can repair\n");
		} else if (!write_repairs(slot, next)) {
			/* the same checks, on the file system as repaired */
			repair = false;
			printf("checking the repaired file system\n");
			check(&slot, &next);
			ret = errors ? 4 : 1;
		}
	}
	if (sffs_dev_close(&dev, argv[optind]))
		ret = 8;
	return ret;
}
