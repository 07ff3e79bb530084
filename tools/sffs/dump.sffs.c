// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump.sffs: print the newest checkpoint of an SFFS and check its index.
 *
 *   dump.sffs [-l] [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE
 *
 * The checkpoint is found as the kernel finds it (binary search of the
 * anchor slots); then every node of the index is read and checked: its
 * checksums, its type against its key, key order across the whole tree,
 * levels and lengths.  With -l the tree of files is listed.  The exit
 * status is 0 only if everything checked is valid, so tests use this as
 * a consistency check.
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

#define USAGE "usage: dump.sffs [-l] [-e ERASESIZE -m WRITESIZE] DEVICE_OR_IMAGE\n"

struct leaf {
	uint64_t ino, tv, addr;
	uint32_t len;
};

static struct sffs_dev dev;
static struct leaf *leaves;
static size_t nleaves, cap_leaves;
static unsigned long errors, index_nodes, per_type[SFFS_NODE_TYPES];
static uint64_t leaf_bytes, last_ino, last_tv;
static bool have_last;

static void report(const char *fmt, ...) __printf(1, 2);

static void report(const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	errors++;
}

static void *read_node(uint64_t addr, uint32_t len)
{
	uint8_t *buf = malloc(len ? len : 1);

	if (!buf || !len || sffs_dev_read(&dev, addr, buf, len) ||
	    sffs_check(buf, len) ||
	    le32toh(((struct sffs_node_hdr *)buf)->len) != len) {
		report("bad node at %llu, length %u",
		       (unsigned long long)addr, len);
		free(buf);
		return NULL;
	}
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

static void check_leaf(uint64_t ino, uint64_t tv, uint64_t addr, uint32_t len)
{
	unsigned int ktype = tv >> SFFS_KEY_TYPE_SHIFT;
	uint8_t *node;
	struct sffs_key *k;

	if (have_last && (ino < last_ino || (ino == last_ino && tv <= last_tv)))
		report("key (%llu, %#llx) out of order", (unsigned long long)ino,
		       (unsigned long long)tv);
	have_last = true;
	last_ino = ino;
	last_tv = tv;
	node = read_node(addr, len);
	if (!node)
		return;
	if (ktype > SFFS_KEY_ORPHAN ||
	    ((struct sffs_node_hdr *)node)->type != key_node_type[ktype]) {
		report("node at %llu has type %u for a key of type %u",
		       (unsigned long long)addr,
		      ((struct sffs_node_hdr *)node)->type, ktype);
	} else if (ktype == SFFS_KEY_ORPHAN && !sffs_orphan_ino(node, len)) {
		report("orphan record at %llu is invalid",
		       (unsigned long long)addr);
	} else if (ktype != SFFS_KEY_EBT) {
		k = (void *)(node + sizeof(struct sffs_node_hdr));
		if (le64toh(k->ino) != ino || le64toh(k->tv) != tv)
			report("node at %llu has another key than its branch",
			       (unsigned long long)addr);
	}
	per_type[((struct sffs_node_hdr *)node)->type % SFFS_NODE_TYPES]++;
	leaf_bytes += len;
	free(node);
	if (nleaves == cap_leaves) {
		cap_leaves = cap_leaves ? 2 * cap_leaves : 4096;
		leaves = realloc(leaves, cap_leaves * sizeof(*leaves));
		if (!leaves) {
			perror("dump.sffs");
			exit(1);
		}
	}
	leaves[nleaves++] = (struct leaf){ ino, tv, addr, len };
}

static void walk(uint64_t addr, uint32_t len, int level, unsigned int fanout)
{
	struct sffs_index_node *ix = read_node(addr, len);
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
		report("bad index node at %llu (level %u, want %d, %u branches)",
		       (unsigned long long)addr, le16toh(ix->level), level, cnt);
		free(ix);
		return;
	}
	for (unsigned int i = 0; i < cnt; i++) {
		struct sffs_branch *b = &br[i];

		if (level)
			walk(le64toh(b->addr), le32toh(b->len), level - 1,
			     fanout);
		else
			check_leaf(le64toh(b->key.ino), le64toh(b->key.tv),
				   le64toh(b->addr), le32toh(b->len));
	}
	free(br);
	free(ix);
}

static struct leaf *find(uint64_t ino, uint64_t tv)
{
	size_t lo = 0, hi = nleaves;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct leaf *l = &leaves[mid];

		if (l->ino < ino || (l->ino == ino && l->tv < tv))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nleaves ? &leaves[lo] : NULL;
}

static void list(uint64_t dir, const char *prefix, int depth)
{
	uint64_t from = (uint64_t)SFFS_KEY_DENTRY << SFFS_KEY_TYPE_SHIFT;
	uint64_t to = (uint64_t)SFFS_KEY_XATTR << SFFS_KEY_TYPE_SHIFT;
	struct leaf *l;

	if (depth > 64) {
		report("directories nested too deep");
		return;
	}
	for (l = find(dir, from); l && l < leaves + nleaves && l->ino == dir &&
	     l->tv < to; l++) {
		struct sffs_dentry_node *de = read_node(l->addr, l->len);
		struct sffs_inode_node *in;
		struct leaf *il;
		char path[4096];
		uint32_t mode;

		if (!de)
			continue;
		snprintf(path, sizeof(path), "%s/%.*s", prefix,
			 le16toh(de->name_len), de->name);
		il = find(le64toh(de->target), 0);
		if (!il || il->ino != le64toh(de->target) || il->tv) {
			report("%s: inode %llu is not in the index", path,
			       (unsigned long long)le64toh(de->target));
			free(de);
			continue;
		}
		in = read_node(il->addr, il->len);
		if (!in) {
			free(de);
			continue;
		}
		mode = le32toh(in->mode);
		printf("%c %04o %u %llu %llu %s",
		       S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' :
		       S_ISREG(mode) ? '-' : S_ISCHR(mode) ? 'c' :
		       S_ISBLK(mode) ? 'b' : S_ISFIFO(mode) ? 'p' : 's',
		       mode & 07777, le32toh(in->nlink),
		       (unsigned long long)le64toh(in->size),
		       (unsigned long long)le64toh(de->target), path);
		if (S_ISLNK(mode))
			printf(" -> %.*s", le16toh(in->data_len), in->data);
		putchar('\n');
		if (S_ISDIR(mode))
			list(le64toh(de->target), path, depth + 1);
		free(in);
		free(de);
	}
}

int main(int argc, char **argv)
{
	uint64_t esize = 128 << 10, wsize = 2048;
	struct sffs_checkpoint_node cp;
	unsigned int reads, height, fanout;
	bool do_list = false;
	int opt;

	while ((opt = getopt(argc, argv, "le:m:h")) != -1) {
		switch (opt) {
		case 'l':
			do_list = true;
			break;
		case 'e':
			esize = sffs_parse_size(optarg);
			break;
		case 'm':
			wsize = sffs_parse_size(optarg);
			break;
		default:
			fputs(USAGE, stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (optind != argc - 1) {
		fputs(USAGE, stderr);
		return 1;
	}
	if (sffs_dev_open(&dev, argv[optind], false, esize, wsize, 0) ||
	    sffs_find_anchor(&dev))
		return 1;
	if (sffs_find_checkpoint(&dev, &cp, &reads, NULL, NULL)) {
		printf("error: no valid SFFS checkpoint (%u units read)\n", reads);
		return 1;
	}
	height = le16toh(cp.index_height);
	fanout = le16toh(cp.fanout);
	printf("anchor_units_read: %u\n", reads);
	printf("version: %u\nfanout: %u\n", le16toh(cp.version), fanout);
	printf("features: compat %#x ro_compat %#x incompat %#x\n",
	       le32toh(cp.feat_compat), le32toh(cp.feat_ro_compat),
	       le32toh(cp.feat_incompat));
	printf("uuid: ");
	for (int i = 0; i < 16; i++)
		printf("%02x", cp.uuid[i]);
	printf("\nerase_size: %u\nwrite_size: %u\neb_count: %u\n",
	       le32toh(cp.erase_size), le32toh(cp.write_size),
	       le32toh(cp.eb_count));
	printf("anchor_eb: %u %u %u %u\n", le32toh(cp.anchor_eb[0]),
	       le32toh(cp.anchor_eb[1]), le32toh(cp.anchor_eb[2]),
	       le32toh(cp.anchor_eb[3]));
	/* the device's bad blocks the file system's numbers pass over */
	printf("skipped:");
	for (unsigned int i = 0; i < dev.nskip; i++)
		printf(" %u", dev.skip[i]);
	printf("\n");
	printf("default_compr: %u\ncommit: %llu\nmax_sqnum: %llu\nnext_ino: %llu\n",
	       cp.default_compr, (unsigned long long)le64toh(cp.commit),
	       (unsigned long long)le64toh(cp.max_sqnum),
	       (unsigned long long)le64toh(cp.next_ino));
	printf("index_root: %llu\nindex_root_len: %u\nindex_height: %u\n",
	       (unsigned long long)le64toh(cp.index_root),
	       le32toh(cp.index_root_len), height);
	printf("jhead: %llu\njournal_cnt: %u\nalloc_eb: %u\n",
	       (unsigned long long)le64toh(cp.jhead), le16toh(cp.journal_cnt),
	       le32toh(cp.alloc_eb));
	printf("free_bytes: %llu\ndirty_bytes: %llu\nused_bytes: %llu\n",
	       (unsigned long long)le64toh(cp.free_bytes),
	       (unsigned long long)le64toh(cp.dirty_bytes),
	       (unsigned long long)le64toh(cp.used_bytes));
	if (le16toh(cp.version) != SFFS_FORMAT_VERSION)
		report("unknown format version");
	if (le32toh(cp.erase_size) != dev.erase_size ||
	    le32toh(cp.write_size) != dev.write_size)
		report("geometry differs from the device's (use -e and -m)");
	if (!height || height > 16 || fanout < SFFS_MIN_FANOUT ||
	    fanout > SFFS_MAX_FANOUT)
		report("bad index height or fan-out");
	else
		walk(le64toh(cp.index_root), le32toh(cp.index_root_len),
		     height - 1, fanout);
	printf("index_nodes: %lu\nleaves: %zu\nleaf_bytes: %llu\n", index_nodes,
	       nleaves, (unsigned long long)leaf_bytes);
	printf("inodes: %lu\ndata_nodes: %lu\ndentries: %lu\nxattrs: %lu\n",
	       per_type[SFFS_NODE_INODE], per_type[SFFS_NODE_DATA],
	       per_type[SFFS_NODE_DENTRY], per_type[SFFS_NODE_XATTR]);
	/* unlinked while in use: the next mount deletes them */
	printf("orphans: %lu\n", per_type[SFFS_NODE_ORPHAN]);
	if (!find(SFFS_ROOT_INO, 0) || find(SFFS_ROOT_INO, 0)->ino != SFFS_ROOT_INO)
		report("no root inode");
	else if (do_list)
		list(SFFS_ROOT_INO, "", 0);
	printf("errors: %lu\n", errors);
	sffs_dev_close(&dev, argv[optind]);
	return errors ? 1 : 0;
}
