/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of SFFS: commits, garbage collection, scrubbing, static
 * wear levelling, blocks going bad and the journal replay after a power
 * cut.  Each event
 * names the MTD device by its number, as /sys/fs/sffs/mtdN does.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sffs

#if !defined(_TRACE_SFFS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SFFS_H

#include <linux/tracepoint.h>

TRACE_EVENT(sffs_commit,
	    TP_PROTO(int mtd, u64 commit, u64 free, u64 dirty, u64 used,
		     unsigned int jcnt, unsigned int freed),
	    TP_ARGS(mtd, commit, free, dirty, used, jcnt, freed),
	    TP_STRUCT__entry(__field(int, mtd)
			     __field(u64, commit)
			     __field(u64, free)
			     __field(u64, dirty)
			     __field(u64, used)
			     __field(unsigned int, jcnt)
			     __field(unsigned int, freed)
	    ),
	    TP_fast_assign(__entry->mtd = mtd;
			    __entry->commit = commit;
			    __entry->free = free;
			    __entry->dirty = dirty;
			    __entry->used = used;
			    __entry->jcnt = jcnt;
			    __entry->freed = freed;
	    ),
	    TP_printk("mtd%d commit %llu free %llu dirty %llu used %llu journal %u blocks, %u blocks freed",
		      __entry->mtd, __entry->commit, __entry->free, __entry->dirty,
		      __entry->used, __entry->jcnt, __entry->freed)
);

TRACE_EVENT(sffs_gc_block,
	    TP_PROTO(int mtd, u32 eb, const char *why, int result, u64 moved),
	    TP_ARGS(mtd, eb, why, result, moved),
	    TP_STRUCT__entry(__field(int, mtd)
			     __field(u32, eb)
			     __field(const char *, why)
			     __field(int, result)
			     __field(u64, moved)
	    ),
	    TP_fast_assign(__entry->mtd = mtd;
			    __entry->eb = eb;
			    __entry->why = why;
			    __entry->result = result;
			    __entry->moved = moved;
	    ),
	    TP_printk("mtd%d block %u (%s): %s, %llu bytes moved", __entry->mtd,
		      __entry->eb, __entry->why,
		      __entry->result < 0 ? "error" :
		      __entry->result == 1 ? "empty" :
		      __entry->result == 2 ? "refused" : "collected",
		      __entry->moved)
);

TRACE_EVENT(sffs_gc,
	    TP_PROTO(int mtd, u64 free_blocks, unsigned int freeable, int err),
	    TP_ARGS(mtd, free_blocks, freeable, err),
	    TP_STRUCT__entry(__field(int, mtd)
			     __field(u64, free_blocks)
			     __field(unsigned int, freeable)
			     __field(int, err)
	    ),
	    TP_fast_assign(__entry->mtd = mtd;
			    __entry->free_blocks = free_blocks;
			    __entry->freeable = freeable;
			    __entry->err = err;
	    ),
	    TP_printk("mtd%d %llu free blocks, %u emptied for the next commit, err %d",
		      __entry->mtd, __entry->free_blocks, __entry->freeable,
		      __entry->err)
);

TRACE_EVENT(sffs_scrub_queue,
	    TP_PROTO(int mtd, u32 eb),
	    TP_ARGS(mtd, eb),
	    TP_STRUCT__entry(__field(int, mtd)
			     __field(u32, eb)
	    ),
	    TP_fast_assign(__entry->mtd = mtd;
			    __entry->eb = eb;
	    ),
	    TP_printk("mtd%d block %u has bitflips: to scrub", __entry->mtd,
		      __entry->eb)
);

TRACE_EVENT(sffs_bad_block,
	    TP_PROTO(int mtd, u32 eb, const char *what),
	    TP_ARGS(mtd, eb, what),
	    TP_STRUCT__entry(__field(int, mtd)
			     __field(u32, eb)
			     __field(const char *, what)
	    ),
	    TP_fast_assign(__entry->mtd = mtd;
			    __entry->eb = eb;
			    __entry->what = what;
	    ),
	    TP_printk("mtd%d block %u: %s", __entry->mtd, __entry->eb,
		      __entry->what)
);

TRACE_EVENT(sffs_replay,
	    TP_PROTO(int mtd, u64 commit, unsigned long nodes, unsigned int blocks,
		     bool torn),
	    TP_ARGS(mtd, commit, nodes, blocks, torn),
	    TP_STRUCT__entry(__field(int, mtd)
			     __field(u64, commit)
			     __field(unsigned long, nodes)
			     __field(unsigned int, blocks)
			     __field(bool, torn)
	    ),
	    TP_fast_assign(__entry->mtd = mtd;
			    __entry->commit = commit;
			    __entry->nodes = nodes;
			    __entry->blocks = blocks;
			    __entry->torn = torn;
	    ),
	    TP_printk("mtd%d after commit %llu: %lu nodes from %u journal blocks%s",
		      __entry->mtd, __entry->commit, __entry->nodes,
		      __entry->blocks, __entry->torn ? ", last write torn" : "")
);

#endif /* _TRACE_SFFS_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
