// SPDX-License-Identifier: GPL-2.0
/*
 * Segregated-fit SLOB: a small-footprint slab allocator.
 *
 * SLOB keeps one K&R heap spread over pages: kmalloc() prepends a size
 * header to every object, and an allocation walks the partially free
 * pages and the free blocks in each, first fit, under one global lock.
 * The walk is slow and gets slower as the heap fragments.
 *
 * This allocator keeps what makes SLOB small - no per-cache pages, no
 * kmalloc cache array, little code - and replaces the heap with size
 * classes:
 *
 *  - Objects up to SEG_MAX bytes are served from size classes spaced
 *    8 bytes apart for small objects and then so that a page is cut
 *    into a whole number of objects with little left over.  Every page
 *    ("slab", struct slab) holds objects of a single class; its free
 *    objects form a singly linked list through the objects themselves,
 *    so allocation and free are list operations in O(1).
 *
 *  - A class has a pool per kind of memory: normal, reclaimable (caches
 *    with SLAB_RECLAIM_ACCOUNT, kmalloc with __GFP_RECLAIMABLE, so that
 *    SReclaimable in /proc/meminfo is right) and DMA.  Each pool has its
 *    own lock, so two CPUs contend only when they allocate the same size.
 *
 *  - Each CPU keeps a few free objects of each class of normal memory
 *    (at most 8, and at most 512 bytes of them) and exchanges half of
 *    them with the pool under one lock, so most allocations and frees
 *    take no lock at all.
 *
 *  - All caches whose objects fall in the same class share its pages,
 *    as in SLOB.  A kmem_cache only remembers its pool.  Constructors
 *    run at every allocation and SLAB_TYPESAFE_BY_RCU objects are freed
 *    after a grace period, again as in SLOB.
 *
 *  - kmalloc() needs no header: the slab knows the class, which gives
 *    ksize() and kfree() the size.  Classes are multiples of their
 *    natural alignment, so kmalloc() objects of a power-of-two size are
 *    aligned to it and cache objects to the cache's alignment.
 *
 *  - Slabs with free objects are on the pool's partial list; a slab that
 *    had been full goes to its head, so allocations fill the fullest
 *    slabs first and the emptiest ones drain and go back to the page
 *    allocator.  A couple of empty pages are kept for any class so that
 *    a class at the edge of a page does not allocate and free one at
 *    every call.
 *
 *  - The largest classes have slabs of two or four pages (compound
 *    pages), which hold their objects with less left over.  A cache
 *    whose objects a class would fit badly, objects above the classes
 *    included, gets a pool of its own with slots of its exact size.
 *
 *  - Larger objects are whole pages from the page allocator, as in SLOB.
 *
 * With CONFIG_SLOB_SEG_DEBUG every object ends in a tail that holds a red
 * zone, the free pointer, the size asked for and the object's state: a
 * write past the size asked for is found when the object is freed, a
 * write to a free object (which is poisoned) when it is allocated again,
 * a double free at once.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/swap.h>
#include <linux/cache.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/init.h>
#include <linux/export.h>
#include <linux/rcupdate.h>
#include <linux/list.h>
#include <linux/kmemleak.h>
#include <linux/poison.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include <trace/events/kmem.h>

#include "internal.h"
#include "slab.h"
#include "slob_seg.h"

#define SEG_QUANTUM	8
#define SEG_MAX		3264
#define SEG_MAX_ORDER	2

/*
 * Object sizes of the classes.  Up to 128 bytes, where most objects
 * are, the steps are 8 or 16 bytes; above, most sizes cut a 4 KiB page
 * into 14, 12, 10, 9, 8, 7, 6, 5, 4, 3 and 2 objects with at most a few
 * dozen bytes left over, which SLUB's power-of-two kmalloc caches do not.
 * 320, 384, 640 and 768 are there for kmalloc() where it aligns objects
 * to 64 bytes (ARCH_KMALLOC_MINALIGN on 32-bit ARM), and so are 1344,
 * 2688 and 3264, which are multiples of 64 too: three objects in a page,
 * in two pages and five in four (seg_order()).
 */
static const unsigned short seg_sizes[] = {
	8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224,
	256, 288, 320, 336, 384, 400, 448, 512, 576, 640, 672, 768, 816,
	1024, 1344, 2048, 2688, 3264,
};

#define SEG_NR_CLASSES	ARRAY_SIZE(seg_sizes)

enum seg_kind {
	SEG_NORMAL,
	SEG_RECLAIM,
#ifdef CONFIG_ZONE_DMA
	SEG_DMA,
#endif
	SEG_NR_KINDS
};

struct slob_seg_pool {
	spinlock_t lock;		/* the pool and its slabs */
	unsigned int nr_slabs;
	struct list_head partial;	/* slabs with a free object */
	unsigned short size;		/* bytes per object slot */
	unsigned short objs;		/* slots per slab */
	unsigned char kind;
	unsigned char class;		/* index in seg_sizes, or SEG_OWN */
	unsigned char order;		/* a slab is 2^order pages */
	unsigned long nr_objs;		/* objects out of the slabs */
};

/* The class of a pool that belongs to one cache. */
#define SEG_OWN		SEG_NR_CLASSES

/* DMA pages go straight back to the page allocator, never to the spares. */
#ifdef CONFIG_ZONE_DMA
#define SEG_DMA_KIND	SEG_DMA
#define SEG_GFP_DMA	__GFP_DMA
#define SEG_CACHE_DMA	SLAB_CACHE_DMA
#else
#define SEG_DMA_KIND	SEG_NR_KINDS
#define SEG_GFP_DMA	0
#define SEG_CACHE_DMA	0
#endif

static struct slob_seg_pool seg_pools[SEG_NR_KINDS][SEG_NR_CLASSES];

/*
 * kmalloc(size): class index by seg_kmalloc_index(size), which counts
 * steps of SEG_QUANTUM up to 512 bytes and of 32 bytes above.
 */
#define SEG_KMALLOC_STEPS	(512 / SEG_QUANTUM + (SEG_MAX - 512) / 32)
static u8 seg_kmalloc_class[SEG_KMALLOC_STEPS + 1] __ro_after_init;
static unsigned int seg_kmalloc_max __ro_after_init;

/*
 * Each CPU keeps a few free objects of each class of normal memory, at
 * most SEG_CPU_BYTES of them and never more than SEG_CPU_MAX, and moves
 * half of that between itself and the pool under one lock, so that most
 * allocations and frees take no lock and two CPUs rarely meet on one.
 * The objects are few so that what a CPU holds costs little memory.
 */
#define SEG_CPU_MAX	SLOB_SEG_CPU_MAX
#define SEG_CPU_BYTES	512

struct seg_cpu_stack {
	unsigned int n;
	void *objs[SEG_CPU_MAX];
};

/* Stacks for the classes up to SEG_CPU_BYTES (8 to 512 bytes): 23 of them. */
#define SEG_CPU_CLASSES	23

static DEFINE_PER_CPU(struct seg_cpu_stack [SEG_CPU_CLASSES], seg_cpu);
static u8 seg_cpu_cap[SEG_NR_CLASSES + 1] __ro_after_init;

/* Empty pages kept for any class; see the comment at the top. */
#define SEG_SPARE_MAX	2
static DEFINE_SPINLOCK(seg_spare_lock);
static struct page *seg_spare[SEG_SPARE_MAX];
static unsigned int seg_nr_spare;

#ifdef CONFIG_SLOB_SEG_DEBUG
/*
 * The tail of every slot.  The red zone comes first so that an overflow
 * of the object hits it before anything else.
 */
struct seg_tail {
	u8 redzone[8];
	void *fp;		/* next free slot */
	u32 orig;		/* bytes asked for */
	u32 state;
};

#define SEG_TAIL	sizeof(struct seg_tail)
#define SEG_LIVE	0x4c495645	/* "LIVE" */
#define SEG_FREE	0x46524545	/* "FREE" */
#define SEG_RCU		0x52435520	/* "RCU ": free after a grace period */

static atomic_long_t seg_debug_errors;

static inline struct seg_tail *seg_tail(void *obj, unsigned int size)
{
	return obj + size - SEG_TAIL;
}

static inline void *seg_get_fp(void *obj, unsigned int size)
{
	return seg_tail(obj, size)->fp;
}

static inline void seg_set_fp(void *obj, unsigned int size, void *fp)
{
	seg_tail(obj, size)->fp = fp;
}
#else
#define SEG_TAIL	0

static inline void *seg_get_fp(void *obj, unsigned int size)
{
	return *(void **)obj;
}

static inline void seg_set_fp(void *obj, unsigned int size, void *fp)
{
	*(void **)obj = fp;
}
#endif

/* Bytes of a slot the caller may use. */
static inline unsigned int seg_usable(const struct slob_seg_pool *p)
{
	return p->size - SEG_TAIL;
}

static inline enum node_stat_item seg_stat(const struct slob_seg_pool *p)
{
	return p->kind == SEG_RECLAIM ? NR_SLAB_RECLAIMABLE_B :
					NR_SLAB_UNRECLAIMABLE_B;
}

static inline unsigned int seg_kmalloc_index(size_t size)
{
	if (size <= 512)
		return DIV_ROUND_UP(size, SEG_QUANTUM);
	return 512 / SEG_QUANTUM + DIV_ROUND_UP(size - 512, 32);
}

/* The largest size of step @n of seg_kmalloc_index(). */
static inline unsigned int seg_kmalloc_step(unsigned int n)
{
	if (n <= 512 / SEG_QUANTUM)
		return n * SEG_QUANTUM;
	return 512 + (n - 512 / SEG_QUANTUM) * 32;
}

/* The pool of kmalloc(size, gfp); size is at most seg_kmalloc_max. */
static inline struct slob_seg_pool *seg_kmalloc_pool(size_t size, gfp_t gfp)
{
	unsigned int class = seg_kmalloc_class[seg_kmalloc_index(size)];
	unsigned int kind = SEG_NORMAL;

	if (unlikely(gfp & (SEG_GFP_DMA | __GFP_RECLAIMABLE)))
		kind = gfp & SEG_GFP_DMA ? SEG_DMA_KIND : SEG_RECLAIM;
	return &seg_pools[kind][class];
}

#ifdef CONFIG_SLOB_SEG_DEBUG
static void seg_report(const char *what, void *obj, unsigned int size,
		       unsigned int offset)
{
	atomic_long_inc(&seg_debug_errors);
	pr_err("slob_seg: %s: object %p, slot of %u bytes, offset %u\n",
	       what, obj, size, offset);
	print_hex_dump(KERN_ERR, "slob_seg: ", DUMP_PREFIX_OFFSET, 16, 1, obj,
		       min_t(unsigned int, size, 64), false);
	dump_stack();
}

/* Red zone bytes from @from to the end of the usable area, and the tail's. */
static bool seg_check_redzone(void *obj, struct slob_seg_pool *p,
			      unsigned int from)
{
	struct seg_tail *t = seg_tail(obj, p->size);
	u8 *bad;

	bad = memchr_inv(obj + from, SLUB_RED_ACTIVE, seg_usable(p) - from);
	if (!bad)
		bad = memchr_inv(t->redzone, SLUB_RED_ACTIVE, sizeof(t->redzone));
	if (!bad)
		return true;
	seg_report("write past the end of the object", obj, p->size,
		   bad - (u8 *)obj);
	memset(obj + from, SLUB_RED_ACTIVE, seg_usable(p) - from);
	memset(t->redzone, SLUB_RED_ACTIVE, sizeof(t->redzone));
	return false;
}

static void seg_debug_alloc(void *obj, struct slob_seg_pool *p,
			    unsigned int orig)
{
	struct seg_tail *t = seg_tail(obj, p->size);
	u8 *bad;

	if (t->state != SEG_FREE)
		seg_report("free slot with a corrupted tail", obj, p->size,
			   (u8 *)&t->state - (u8 *)obj);
	bad = memchr_inv(obj, POISON_FREE, seg_usable(p));
	if (bad)
		seg_report("write to a free object", obj, p->size,
			   bad - (u8 *)obj);
	t->orig = orig;
	t->state = SEG_LIVE;
	memset(obj + orig, SLUB_RED_ACTIVE, seg_usable(p) - orig);
	memset(t->redzone, SLUB_RED_ACTIVE, sizeof(t->redzone));
}

/*
 * Check an object that is being freed.  False if it must not be freed:
 * it is not an object of this slab or it is free already.
 */
static bool seg_debug_free(void *obj, struct slab *slab, bool rcu)
{
	struct slob_seg_pool *p = slab->pool;
	unsigned long off = obj - slab_address(slab);
	struct seg_tail *t;

	if (off % p->size || off / p->size >= p->objs) {
		seg_report("free of a pointer into an object", obj, p->size,
			   off % p->size);
		return false;
	}
	t = seg_tail(obj, p->size);
	if (t->state == SEG_FREE || t->state == SEG_RCU) {
		seg_report("double free", obj, p->size, 0);
		return false;
	}
	if (t->state != SEG_LIVE) {
		seg_report("object with a corrupted tail", obj, p->size,
			   (u8 *)&t->state - (u8 *)obj);
		return false;
	}
	if (t->orig <= seg_usable(p))
		seg_check_redzone(obj, p, t->orig);
	if (rcu)
		t->state = SEG_RCU;
	return true;
}

static void seg_debug_poison(void *obj, struct slob_seg_pool *p)
{
	memset(obj, POISON_FREE, seg_usable(p));
	seg_tail(obj, p->size)->state = SEG_FREE;
}

/* ksize() lets the caller use the whole slot: no red zone before its end. */
static void seg_debug_ksize(void *obj, struct slob_seg_pool *p)
{
	seg_tail(obj, p->size)->orig = seg_usable(p);
}

#else
static inline void seg_debug_alloc(void *obj, struct slob_seg_pool *p,
				   unsigned int orig) { }

static inline bool seg_debug_free(void *obj, struct slab *slab, bool rcu)
{
	return true;
}

static inline void seg_debug_poison(void *obj, struct slob_seg_pool *p) { }
static inline void seg_debug_ksize(void *obj, struct slob_seg_pool *p) { }
#endif

#if IS_ENABLED(CONFIG_SLOB_SEG_KUNIT_TEST)
/* For the KUnit tests only. */
unsigned long slob_seg_debug_errors(void)
{
#ifdef CONFIG_SLOB_SEG_DEBUG
	return atomic_long_read(&seg_debug_errors);
#else
	return 0;
#endif
}
EXPORT_SYMBOL_GPL(slob_seg_debug_errors);
#endif

/*
 * Objects larger than the classes are compound pages from the page
 * allocator, as are objects of a multi-page class when no slab can be had.
 */
static void *seg_alloc_pages(size_t size, gfp_t gfp, int node)
{
	unsigned int order = get_order(size);
	struct page *page;

	page = alloc_pages_node(node, gfp | __GFP_COMP, order);
	if (!page)
		return NULL;
	mod_node_page_state(page_pgdat(page), NR_SLAB_UNRECLAIMABLE_B,
			    PAGE_SIZE << order);
	return page_address(page);
}

static void seg_free_pages(struct folio *folio)
{
	unsigned int order = folio_order(folio);

	mod_node_page_state(folio_pgdat(folio), NR_SLAB_UNRECLAIMABLE_B,
			    -(PAGE_SIZE << order));
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += 1 << order;
	__free_pages(folio_page(folio, 0), order);
}

/* The page allocator's flags for a pool's memory. */
static inline gfp_t seg_gfp(const struct slob_seg_pool *p, gfp_t gfp)
{
	if (p->kind == SEG_RECLAIM)
		gfp |= __GFP_RECLAIMABLE;
	else if (p->kind == SEG_DMA_KIND)
		gfp |= SEG_GFP_DMA;
	return gfp;
}

/*
 * Pages: a new slab comes from the spare pages or the page allocator and
 * goes back to them when its last object is freed.  Spare pages count as
 * unreclaimable slab memory.
 */
static struct slab *seg_new_slab(struct slob_seg_pool *p, gfp_t gfp, int node)
{
	struct page *page = NULL;
	struct folio *folio;
	struct slab *slab;
	unsigned long flags;
	void *base, *obj;
	unsigned int i;

	if (READ_ONCE(seg_nr_spare) && !p->order && p->kind != SEG_DMA_KIND) {
		spin_lock_irqsave(&seg_spare_lock, flags);
		if (seg_nr_spare)
			page = seg_spare[--seg_nr_spare];
		spin_unlock_irqrestore(&seg_spare_lock, flags);
		if (page)
			mod_node_page_state(page_pgdat(page),
					    NR_SLAB_UNRECLAIMABLE_B,
					    -(int)PAGE_SIZE);
	}
	if (!page) {
		gfp = seg_gfp(p, gfp & ~__GFP_ZERO);
		if (p->order)
			gfp |= __GFP_COMP | __GFP_NOWARN | __GFP_NORETRY;
		page = alloc_pages_node(node, gfp, p->order);
		if (!page)
			return NULL;
	}
	mod_node_page_state(page_pgdat(page), seg_stat(p),
			    PAGE_SIZE << p->order);

	folio = page_folio(page);
	__folio_set_slab(folio);
	slab = folio_slab(folio);
	slab->pool = p;
	slab->units = 0;
	INIT_LIST_HEAD(&slab->slab_list);

	base = page_address(page);
	for (i = 0, obj = base; i < p->objs; i++, obj += p->size) {
		seg_set_fp(obj, p->size, i + 1 < p->objs ? obj + p->size : NULL);
		seg_debug_poison(obj, p);
	}
	slab->freelist = base;
	return slab;
}

static void seg_free_slab(struct slab *slab, struct slob_seg_pool *p)
{
	struct page *page = slab_page(slab);
	unsigned long flags;

	mod_node_page_state(page_pgdat(page), seg_stat(p),
			    -(PAGE_SIZE << p->order));
	slab->pool = NULL;
	if (!p->order && p->kind != SEG_DMA_KIND) {
		spin_lock_irqsave(&seg_spare_lock, flags);
		if (seg_nr_spare < SEG_SPARE_MAX) {
			seg_spare[seg_nr_spare++] = page;
			page = NULL;
		}
		spin_unlock_irqrestore(&seg_spare_lock, flags);
		if (!page) {
			mod_node_page_state(page_pgdat(slab_page(slab)),
					    NR_SLAB_UNRECLAIMABLE_B, PAGE_SIZE);
			return;
		}
	}
	__folio_clear_slab(slab_folio(slab));
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += 1 << p->order;
	__free_pages(page, p->order);
}

/* An object from the first partial slab, or NULL; the pool is locked. */
static void *seg_take(struct slob_seg_pool *p)
{
	struct slab *slab;
	void *obj;

	slab = list_first_entry_or_null(&p->partial, struct slab, slab_list);
	if (!slab)
		return NULL;
	obj = slab->freelist;
	slab->freelist = seg_get_fp(obj, p->size);
	p->nr_objs++;
	if (++slab->units == p->objs)
		list_del(&slab->slab_list);
	return obj;
}

/*
 * Put an object back into its slab; the pool is locked.  Returns the slab
 * if it is now empty, off the lists, for the caller to free unlocked.
 */
static struct slab *seg_put(struct slob_seg_pool *p, void *obj)
{
	struct slab *slab = virt_to_slab(obj);

	seg_set_fp(obj, p->size, slab->freelist);
	slab->freelist = obj;
	p->nr_objs--;
	if (!--slab->units) {
		/* A slab of one object was full, so on no list. */
		if (p->objs > 1)
			list_del(&slab->slab_list);
		p->nr_slabs--;
		return slab;
	}
	/* Was full: fill it first, so emptier slabs can drain. */
	if (slab->units == p->objs - 1)
		list_add(&slab->slab_list, &p->partial);
	return NULL;
}

/* Refill this CPU's stack, interrupts off, and take an object from it. */
static void *seg_cpu_refill(struct slob_seg_pool *p, struct seg_cpu_stack *st)
{
	unsigned int want = seg_cpu_cap[p->class] / 2 + 1;
	void *obj;

	spin_lock(&p->lock);
	while (st->n < want) {
		obj = seg_take(p);
		if (!obj)
			break;
		st->objs[st->n++] = obj;
	}
	spin_unlock(&p->lock);
	return st->n ? st->objs[--st->n] : NULL;
}

/*
 * Bounded best fit: before a class that has no slab starts one, take a
 * free slot of one of the next two classes, up to one and a half times
 * the size, that keep the alignment of the class.  A class that few
 * objects use then fills the holes of its neighbours instead of holding a
 * page of its own; a class with a slab of its own uses it, so that two
 * classes do not take each other's free slots in turn.  The object
 * belongs to the slab it is in, which gives kfree() and ksize().
 * Only for caches: ksize() of a kmalloc() object is what
 * kmalloc_size_roundup() said it would be.
 */
static void *seg_borrow(struct slob_seg_pool **pp)
{
	struct slob_seg_pool *p = *pp, *q;
	unsigned int i, align = p->size & -p->size;
	unsigned long flags;
	void *obj;

	for (i = p->class + 1; i < SEG_NR_CLASSES && i <= p->class + 2; i++) {
		q = &seg_pools[p->kind][i];
		if (q->size > p->size + p->size / 2 || q->size % align ||
		    list_empty(&q->partial))
			continue;
		spin_lock_irqsave(&q->lock, flags);
		obj = seg_take(q);
		spin_unlock_irqrestore(&q->lock, flags);
		if (obj) {
			*pp = q;
			return obj;
		}
	}
	return NULL;
}

/*
 * An object of pool *@pp, or with @borrow of a larger class, whose pool is
 * then returned in *@pp.
 */
static void *seg_alloc(struct slob_seg_pool **pp, gfp_t gfp, int node,
		       bool borrow)
{
	struct slob_seg_pool *p = *pp;
	struct slab *new;
	unsigned long flags;
	void *obj;

	if (seg_cpu_cap[p->class] && p->kind == SEG_NORMAL) {
		struct seg_cpu_stack *st;

		local_irq_save(flags);
		st = this_cpu_ptr(&seg_cpu[p->class]);
		obj = st->n ? st->objs[--st->n] : seg_cpu_refill(p, st);
		local_irq_restore(flags);
		if (obj)
			return obj;
	} else {
		spin_lock_irqsave(&p->lock, flags);
		obj = seg_take(p);
		spin_unlock_irqrestore(&p->lock, flags);
		if (obj)
			return obj;
	}

	if (borrow && p->class < SEG_OWN && !READ_ONCE(p->nr_slabs)) {
		obj = seg_borrow(pp);
		if (obj)
			return obj;
	}
	new = seg_new_slab(p, gfp, node);
	if (!new) {
		/* No high-order page: the object gets pages of its own. */
		if (!p->order)
			return NULL;
		obj = seg_alloc_pages(p->size, seg_gfp(p, gfp), node);
		/* What the debug checks expect of a free slot. */
		if (obj)
			seg_debug_poison(obj, p);
		return obj;
	}
	spin_lock_irqsave(&p->lock, flags);
	/* Another CPU may have added a slab meanwhile: use it first. */
	list_add_tail(&new->slab_list, &p->partial);
	p->nr_slabs++;
	obj = seg_take(p);
	spin_unlock_irqrestore(&p->lock, flags);
	return obj;
}

/* Give half of a CPU stack back to the pool; interrupts are off. */
static void seg_cpu_flush(struct slob_seg_pool *p, struct seg_cpu_stack *st,
			  unsigned int keep)
{
	struct slab *empty[SEG_CPU_MAX];
	unsigned int n = 0;

	spin_lock(&p->lock);
	while (st->n > keep) {
		struct slab *slab = seg_put(p, st->objs[--st->n]);

		if (slab)
			empty[n++] = slab;
	}
	spin_unlock(&p->lock);
	while (n)
		seg_free_slab(empty[--n], p);
}

static void seg_free_obj(void *obj, struct slab *slab)
{
	struct slob_seg_pool *p = slab->pool;
	unsigned long flags;

	seg_debug_poison(obj, p);
	if (seg_cpu_cap[p->class] && p->kind == SEG_NORMAL) {
		struct seg_cpu_stack *st;

		local_irq_save(flags);
		st = this_cpu_ptr(&seg_cpu[p->class]);
		if (unlikely(st->n == seg_cpu_cap[p->class]))
			seg_cpu_flush(p, st, seg_cpu_cap[p->class] / 2);
		st->objs[st->n++] = obj;
		local_irq_restore(flags);
		return;
	}
	spin_lock_irqsave(&p->lock, flags);
	slab = seg_put(p, obj);
	spin_unlock_irqrestore(&p->lock, flags);
	if (slab)
		seg_free_slab(slab, p);
}

/* Give back every object @cpu holds. */
static void seg_cpu_drain(unsigned int cpu)
{
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < SEG_CPU_CLASSES; i++)
		seg_cpu_flush(&seg_pools[SEG_NORMAL][i],
			      per_cpu_ptr(&seg_cpu[i], cpu), 0);
	local_irq_restore(flags);
}

static void seg_cpu_drain_local(void *unused)
{
	seg_cpu_drain(smp_processor_id());
}

static int seg_cpu_dead(unsigned int cpu)
{
	seg_cpu_drain(cpu);
	return 0;
}

/* Free an object of any kind, checked unless it was checked before RCU. */
static void seg_free(const void *block, bool checked)
{
	struct folio *folio = virt_to_folio(block);
	struct slab *slab;
	void *obj = (void *)block;

	if (unlikely(!folio_test_slab(folio))) {
		seg_free_pages(folio);
		return;
	}
	slab = folio_slab(folio);
	if (!checked && !seg_debug_free(obj, slab, false))
		return;
	seg_free_obj(obj, slab);
}

/*
 * A new object of @orig bytes: set up its red zone, zero @zero bytes if
 * asked to.
 */
static void seg_init_obj(void *obj, struct slob_seg_pool *p,
			 unsigned int orig, unsigned int zero, gfp_t gfp)
{
	seg_debug_alloc(obj, p, orig);
	if (want_init_on_alloc(gfp))
		memset(obj, 0, zero);
}

#ifdef CONFIG_PRINTK
void __kmem_obj_info(struct kmem_obj_info *kpp, void *object, struct slab *slab)
{
	struct slob_seg_pool *p = slab->pool;

	kpp->kp_ptr = object;
	kpp->kp_slab = slab;
	if (p) {
		unsigned long off = object - slab_address(slab);

		kpp->kp_objp = object - off % p->size;
		kpp->kp_data_offset = 0;
	}
}
#endif

/*
 * kmalloc() and kfree().
 */
/* One copy for the three entry points: SLOB_SEG is about small code. */
static noinline void *
__do_kmalloc_node(size_t size, gfp_t gfp, int node, unsigned long caller)
{
	struct slob_seg_pool *p;
	void *ret;

	gfp &= gfp_allowed_mask;
	might_alloc(gfp);
	if (unlikely(gfp & GFP_SLAB_BUG_MASK))
		gfp = kmalloc_fix_flags(gfp);

	if (likely(size <= seg_kmalloc_max)) {
		if (unlikely(!size))
			return ZERO_SIZE_PTR;
		p = seg_kmalloc_pool(size, gfp);
		ret = seg_alloc(&p, gfp, node, false);
		/*
		 * kmalloc() objects may use their whole slot (ksize()), so
		 * zero all of it, but for the red zone of debug kernels.
		 */
		if (ret)
			seg_init_obj(ret, p, size, IS_ENABLED(CONFIG_SLOB_SEG_DEBUG) ?
				     size : seg_usable(p), gfp);
		trace_kmalloc(caller, ret, size, p->size, gfp, node);
	} else {
		ret = seg_alloc_pages(size, gfp, node);
		trace_kmalloc(caller, ret, size, PAGE_SIZE << get_order(size),
			      gfp, node);
	}
	kmemleak_alloc(ret, size, 1, gfp);
	return ret;
}

void *__kmalloc(size_t size, gfp_t gfp)
{
	return __do_kmalloc_node(size, gfp, NUMA_NO_NODE, _RET_IP_);
}
EXPORT_SYMBOL(__kmalloc);

void *__kmalloc_node(size_t size, gfp_t gfp, int node)
{
	return __do_kmalloc_node(size, gfp, node, _RET_IP_);
}
EXPORT_SYMBOL(__kmalloc_node);

void *__kmalloc_node_track_caller(size_t size, gfp_t gfp,
				  int node, unsigned long caller)
{
	return __do_kmalloc_node(size, gfp, node, caller);
}
EXPORT_SYMBOL(__kmalloc_node_track_caller);

void kfree(const void *block)
{
	trace_kfree(_RET_IP_, block);

	if (unlikely(ZERO_OR_NULL_PTR(block)))
		return;
	kmemleak_free(block);
	seg_free(block, false);
}
EXPORT_SYMBOL(kfree);

size_t kmalloc_size_roundup(size_t size)
{
	if (unlikely(size == 0))
		return 0;
	if (unlikely(size == SIZE_MAX))
		return SIZE_MAX;
	if (size <= seg_kmalloc_max)
		return seg_usable(seg_kmalloc_pool(size, 0));
	return PAGE_SIZE << get_order(size);
}
EXPORT_SYMBOL(kmalloc_size_roundup);

/* Unlike SLOB's, works on objects of caches too. */
size_t __ksize(const void *block)
{
	struct folio *folio;
	struct slab *slab;

	if (unlikely(ZERO_OR_NULL_PTR(block)))
		return 0;

	folio = virt_to_folio(block);
	if (unlikely(!folio_test_slab(folio)))
		return folio_size(folio);
	slab = folio_slab(folio);
	seg_debug_ksize((void *)block, slab->pool);
	return seg_usable(slab->pool);
}

/*
 * Caches.
 */
static noinline struct slob_seg_pool *seg_find_pool(unsigned int size,
						    unsigned int align,
						    unsigned int kind)
{
	unsigned int i;

	for (i = 0; i < SEG_NR_CLASSES; i++) {
		if (seg_sizes[i] >= size + SEG_TAIL && !(seg_sizes[i] % align))
			return &seg_pools[kind][i];
	}
	return NULL;
}

/* Bytes of slab per object of @size in slabs of 2^@order pages. */
static noinline unsigned int seg_cost(unsigned int size, unsigned int order)
{
	unsigned int n = (PAGE_SIZE << order) / size;

	return n ? (PAGE_SIZE << order) / n : UINT_MAX;
}

/*
 * The order of the slabs for objects of @size: a larger one only for
 * objects of more than a quarter page, and only if it holds them in a
 * sixteenth less memory per object.  A larger slab takes longer to fill,
 * which costs more than it saves where objects are few.
 */
static unsigned int seg_order(unsigned int size)
{
	unsigned int o, best = 0, cost = seg_cost(size, 0);

	for (o = 1; o <= SEG_MAX_ORDER && size > PAGE_SIZE / 4; o++) {
		if (seg_cost(size, o) < cost / 16 * 15) {
			best = o;
			cost = seg_cost(size, o);
		}
	}
	return best;
}

/* Not inlined: kmem_cache_init() and seg_own_pool() share one copy. */
static noinline void seg_init_pool(struct slob_seg_pool *p,
				   unsigned int size, unsigned int kind,
				   unsigned int class)
{
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->partial);
	p->size = size;
	p->order = seg_order(size);
	p->objs = (PAGE_SIZE << p->order) / size;
	p->kind = kind;
	p->class = class;
}

/*
 * A cache whose objects would waste a sixteenth of their slabs or more in
 * the best class gets a pool of its own, with slots of its exact size:
 * the few big caches of a small system (kernfs nodes, inodes, dentries,
 * tasks) are where rounding up to a class costs most, and objects larger
 * than the classes would otherwise get whole pages.
 */
static struct slob_seg_pool *seg_own_pool(struct kmem_cache *c,
					  struct slob_seg_pool *class,
					  unsigned int align, unsigned int kind)
{
	unsigned int slot = ALIGN(c->size + SEG_TAIL, align);
	unsigned int order = seg_order(slot);
	struct slob_seg_pool *p;

	/* Two objects a slab at least, or whole pages do as well. */
	if (align > PAGE_SIZE || slot > (PAGE_SIZE << order) / 2 ||
	    seg_cost(slot, order) >=
	    (class ? seg_cost(class->size, class->order) : UINT_MAX) / 16 * 15)
		return class;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return class;
	seg_init_pool(p, slot, kind, SEG_OWN);
	return p;
}

static inline bool seg_is_own(const struct slob_seg_pool *p)
{
	return p && p->class == SEG_OWN;
}

int __kmem_cache_create(struct kmem_cache *c, slab_flags_t flags)
{
	unsigned int align = max(c->align, 1U);
	unsigned int kind = SEG_NORMAL;

	/* The rcu_head for SLAB_TYPESAFE_BY_RCU goes after the object. */
	if (flags & SLAB_TYPESAFE_BY_RCU)
		c->size = ALIGN(c->size, sizeof(void *)) +
			  sizeof(struct rcu_head);
	c->size = ALIGN(c->size, sizeof(void *));
	c->flags = flags;

	if (flags & SEG_CACHE_DMA)
		kind = SEG_DMA_KIND;
	else if (flags & SLAB_RECLAIM_ACCOUNT)
		kind = SEG_RECLAIM;
	/*
	 * DMA32 caches and objects larger than the classes are whole pages
	 * from the page allocator.
	 */
	c->pool = NULL;
	if (!(flags & SLAB_CACHE_DMA32))
		c->pool = seg_own_pool(c, seg_find_pool(c->size, align, kind),
				       align, kind);
	return 0;
}

static void *slob_alloc_node(struct kmem_cache *c, gfp_t gfp, int node)
{
	struct slob_seg_pool *p = c->pool;
	void *b;

	gfp &= gfp_allowed_mask;
	might_alloc(gfp);

	if (likely(p)) {
		b = seg_alloc(&p, gfp, node, true);
		if (b)
			seg_init_obj(b, p, c->object_size, c->object_size, gfp);
	} else {
		if (c->flags & SLAB_CACHE_DMA32)
			gfp |= GFP_DMA32;
		if (c->flags & SLAB_RECLAIM_ACCOUNT)
			gfp |= __GFP_RECLAIMABLE;
		b = seg_alloc_pages(c->size, gfp & ~__GFP_ZERO, node);
		if (b && want_init_on_alloc(gfp))
			memset(b, 0, c->object_size);
	}
	trace_kmem_cache_alloc(_RET_IP_, b, c, gfp, node);

	if (b && c->ctor) {
		WARN_ON_ONCE(gfp & __GFP_ZERO);
		c->ctor(b);
	}

	kmemleak_alloc_recursive(b, c->size, 1, c->flags, gfp);
	return b;
}

void *kmem_cache_alloc(struct kmem_cache *cachep, gfp_t flags)
{
	return slob_alloc_node(cachep, flags, NUMA_NO_NODE);
}
EXPORT_SYMBOL(kmem_cache_alloc);

void *kmem_cache_alloc_lru(struct kmem_cache *cachep, struct list_lru *lru,
			   gfp_t flags)
{
	return slob_alloc_node(cachep, flags, NUMA_NO_NODE);
}
EXPORT_SYMBOL(kmem_cache_alloc_lru);

void *kmem_cache_alloc_node(struct kmem_cache *cachep, gfp_t gfp, int node)
{
	return slob_alloc_node(cachep, gfp, node);
}
EXPORT_SYMBOL(kmem_cache_alloc_node);

/* The start of the object whose slot holds @addr. */
static void *seg_obj_start(void *addr)
{
	struct folio *folio = virt_to_folio(addr);
	struct slab *slab;
	unsigned long off;

	if (!folio_test_slab(folio))
		return folio_address(folio);
	slab = folio_slab(folio);
	off = addr - slab_address(slab);
	return addr - off % slab->pool->size;
}

static void seg_rcu_free(struct rcu_head *head)
{
	seg_free(seg_obj_start(head), true);
}

void kmem_cache_free(struct kmem_cache *c, void *b)
{
	struct folio *folio;

	kmemleak_free_recursive(b, c->flags);
	trace_kmem_cache_free(_RET_IP_, b, c);
	if (unlikely(c->flags & SLAB_TYPESAFE_BY_RCU)) {
		struct rcu_head *head;

		folio = virt_to_folio(b);
		if (folio_test_slab(folio) &&
		    !seg_debug_free(b, folio_slab(folio), true))
			return;
		head = b + c->size - sizeof(struct rcu_head);
		call_rcu(head, seg_rcu_free);
		return;
	}
	seg_free(b, false);
}
EXPORT_SYMBOL(kmem_cache_free);

void kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (s)
			kmem_cache_free(s, p[i]);
		else
			kfree(p[i]);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t nr,
			  void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		void *x = p[i] = kmem_cache_alloc(s, flags);

		if (!x) {
			kmem_cache_free_bulk(s, i, p);
			return 0;
		}
	}
	return i;
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk);

/*
 * Pages of a class are shared; a cache's own pool must be empty.  The
 * objects of a SLAB_TYPESAFE_BY_RCU cache are freed after a grace period,
 * and the cache is released after the frees queued before it have run.
 */
int __kmem_cache_shutdown(struct kmem_cache *c)
{
	return seg_is_own(c->pool) && !(c->flags & SLAB_TYPESAFE_BY_RCU) &&
	       READ_ONCE(c->pool->nr_objs);
}

/* An RCU cache destroyed with objects left keeps their pool. */
void __kmem_cache_release(struct kmem_cache *c)
{
	if (seg_is_own(c->pool) && !READ_ONCE(c->pool->nr_objs))
		kfree(c->pool);
}

/* Give back what the CPUs hold, then the spare pages. */
int __kmem_cache_shrink(struct kmem_cache *d)
{
	struct page *page;
	unsigned long flags;

	on_each_cpu(seg_cpu_drain_local, NULL, 1);
	for (;;) {
		page = NULL;
		spin_lock_irqsave(&seg_spare_lock, flags);
		if (seg_nr_spare)
			page = seg_spare[--seg_nr_spare];
		spin_unlock_irqrestore(&seg_spare_lock, flags);
		if (!page)
			return 0;
		mod_node_page_state(page_pgdat(page), NR_SLAB_UNRECLAIMABLE_B,
				    -(int)PAGE_SIZE);
		__folio_clear_slab(page_folio(page));
		__free_page(page);
	}
}

#if IS_ENABLED(CONFIG_SLOB_SEG_KUNIT_TEST)
/* For the KUnit tests only. */
bool slob_seg_kmalloc_usage(size_t size, struct slob_seg_usage *u)
{
	struct slob_seg_pool *p;

	if (!size || size > seg_kmalloc_max)
		return false;
	p = seg_kmalloc_pool(size, 0);
	u->slot = p->size;
	u->objects = READ_ONCE(p->nr_objs);
	u->slabs = READ_ONCE(p->nr_slabs);
	return true;
}
EXPORT_SYMBOL_GPL(slob_seg_kmalloc_usage);
#endif

static struct kmem_cache kmem_cache_boot = {
	.name = "kmem_cache",
	.object_size = sizeof(struct kmem_cache),
	.size = sizeof(struct kmem_cache),
	.flags = SLAB_PANIC,
	.align = ARCH_KMALLOC_MINALIGN,
};

void __init kmem_cache_init(void)
{
	unsigned int minalign = max_t(unsigned int, ARCH_KMALLOC_MINALIGN,
				      arch_slab_minalign());
	struct slob_seg_pool *p;
	unsigned int i, k, n;

	for (k = 0; k < SEG_NR_KINDS; k++) {
		for (i = 0; i < SEG_NR_CLASSES; i++) {
			seg_init_pool(&seg_pools[k][i], seg_sizes[i], k, i);
			if (i < SEG_CPU_CLASSES)
				seg_cpu_cap[i] = min(SEG_CPU_MAX,
						     SEG_CPU_BYTES / seg_sizes[i]);
		}
	}

	/*
	 * kmalloc(n): the smallest class that holds n bytes (and the debug
	 * tail), aligned to ARCH_KMALLOC_MINALIGN and, for a power of two,
	 * to n.  A size that rounds up to a power of two gets its alignment
	 * too, which does no harm.
	 */
	for (n = 1; n <= SEG_KMALLOC_STEPS; n++) {
		unsigned int bytes = seg_kmalloc_step(n);
		unsigned int align = minalign;

		if (is_power_of_2(bytes))
			align = max(align, bytes);
		p = seg_find_pool(bytes, align, SEG_NORMAL);
		if (!p)
			break;
		seg_kmalloc_class[n] = p->class;
		seg_kmalloc_max = bytes;
	}

	kmem_cache_boot.pool = seg_find_pool(kmem_cache_boot.size,
					     kmem_cache_boot.align, SEG_NORMAL);
	kmem_cache = &kmem_cache_boot;
	slab_state = UP;
}

void __init kmem_cache_init_late(void)
{
	/* SLUB's state: SLUB is not built when this is. */
	cpuhp_setup_state_nocalls(CPUHP_SLUB_DEAD, "mm/slob_seg:dead", NULL,
				  seg_cpu_dead);
	slab_state = FULL;
}

#ifdef CONFIG_PROC_FS
static void seg_slabinfo_line(struct seq_file *m, const char *name,
			      unsigned long objs, unsigned int size,
			      unsigned int per_slab, unsigned int order,
			      unsigned int slabs)
{
	seq_printf(m, "%-17s %6lu %6lu %6u %4u %4d : tunables %4u %4u %4u : slabdata %6u %6u %6u\n",
		   name, objs, (unsigned long)slabs * per_slab, size, per_slab,
		   1 << order, 0, 0, 0, slabs, slabs, 0);
}

static void seg_slabinfo_pool(struct seq_file *m, const char *name,
			      struct slob_seg_pool *p)
{
	unsigned int slabs = READ_ONCE(p->nr_slabs);

	if (slabs)
		seg_slabinfo_line(m, name, READ_ONCE(p->nr_objs), p->size,
				  p->objs, p->order, slabs);
}

/*
 * /proc/slabinfo in the format of SLAB and SLUB, with a line per pool:
 * "seg-<size>" (normal), "seg-rcl-<size>" (reclaimable), "seg-dma-<size>",
 * the name of a cache for its own pool, and "seg-spare" for the empty
 * pages kept.
 */
static int seg_slabinfo_show(struct seq_file *m, void *v)
{
	static const char * const prefix[] = { "seg-", "seg-rcl-", "seg-dma-" };
	struct kmem_cache *c;
	unsigned int i, k;
	char name[20];

	seq_puts(m, "slabinfo - version: 2.1\n");
	seq_puts(m, "# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n");
	for (k = 0; k < SEG_NR_KINDS; k++) {
		for (i = 0; i < SEG_NR_CLASSES; i++) {
			snprintf(name, sizeof(name), "%s%u", prefix[k],
				 seg_sizes[i]);
			seg_slabinfo_pool(m, name, &seg_pools[k][i]);
		}
	}
	mutex_lock(&slab_mutex);
	list_for_each_entry(c, &slab_caches, list)
		if (seg_is_own(c->pool))
			seg_slabinfo_pool(m, c->name, c->pool);
	mutex_unlock(&slab_mutex);
	seg_slabinfo_line(m, "seg-spare", 0, PAGE_SIZE, 1, 0,
			  READ_ONCE(seg_nr_spare));
	return 0;
}

static int __init seg_proc_init(void)
{
	proc_create_single("slabinfo", 0400, NULL, seg_slabinfo_show);
	return 0;
}
module_init(seg_proc_init);
#endif
