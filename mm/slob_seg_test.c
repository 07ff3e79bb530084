// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the segregated-fit SLOB (mm/slob_seg.c).
 *
 * The stress test runs two threads that allocate and free objects of
 * random sizes and lifetimes from kmalloc() and from caches with
 * different sizes, alignments and flags, while a third drains every
 * CPU's stacks again and again, and checks what the slab API
 * promises: alignment, ksize(), contents kept while an object is live
 * and across krealloc(), and no two live objects overlapping.  The debug
 * tests corrupt objects on purpose and check that the allocator reports
 * each corruption once.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmstat.h>

#include "slab.h"
#include "slob_seg.h"

#define CTOR_MAGIC	0xc0ffee11u

static void seg_test_ctor(void *obj)
{
	*(u32 *)obj = CTOR_MAGIC;
}

/* The caches every test uses; index 0 stands for kmalloc(). */
static const struct {
	const char *name;
	unsigned int size, align;
	slab_flags_t flags;
	bool ctor;
} seg_test_caches[] = {
	{ "kmalloc" },
	{ "seg_test_ctor24", 24, 0, 0, true },
	{ "seg_test_hw100", 100, 0, SLAB_HWCACHE_ALIGN },
	{ "seg_test_a64_700", 700, 64, 0 },
	{ "seg_test_rcl192", 192, 0, SLAB_RECLAIM_ACCOUNT },
	{ "seg_test_rcu200", 200, 0, SLAB_TYPESAFE_BY_RCU },
	{ "seg_test_big3000", 3000, 0, 0 },
};

#define NR_CACHES	ARRAY_SIZE(seg_test_caches)

struct seg_obj {
	u8 *p;
	unsigned int size;
	unsigned int cache;	/* index in seg_test_caches, 0: kmalloc */
	u8 fill;
};

#define STRESS_SLOTS	256
#define STRESS_ITERS	100000
#define STRESS_ROUNDS	3

struct seg_stress {
	struct kmem_cache **caches;
	struct seg_obj objs[STRESS_SLOTS];
	struct rnd_state rnd;
	struct completion done;
	struct cpumask *cpus;	/* the CPUs the stress threads ran on */
	unsigned long ops, bad_align, bad_ksize, bad_contents, bad_ctor;
	unsigned long nomem;
};

static struct kmem_cache *seg_caches[NR_CACHES];

static int seg_create_caches(void)
{
	unsigned int i;

	for (i = 1; i < NR_CACHES; i++) {
		seg_caches[i] = kmem_cache_create(seg_test_caches[i].name,
						  seg_test_caches[i].size,
						  seg_test_caches[i].align,
						  seg_test_caches[i].flags,
						  seg_test_caches[i].ctor ?
						  seg_test_ctor : NULL);
		if (!seg_caches[i])
			return -ENOMEM;
	}
	return 0;
}

static void seg_destroy_caches(void)
{
	unsigned int i;

	for (i = 1; i < NR_CACHES; i++) {
		kmem_cache_destroy(seg_caches[i]);
		seg_caches[i] = NULL;
	}
}

/* Bytes of an object that the test fills: not the constructed word. */
static unsigned int seg_fill_from(const struct seg_obj *o)
{
	return seg_test_caches[o->cache].ctor ? sizeof(u32) : 0;
}

static bool seg_aligned(const struct seg_obj *o)
{
	unsigned long addr = (unsigned long)o->p;

	if (o->cache)
		return IS_ALIGNED(addr, seg_caches[o->cache]->align);
	if (!IS_ALIGNED(addr, ARCH_KMALLOC_MINALIGN))
		return false;
	/* kmalloc() aligns power-of-two sizes to themselves. */
	return !is_power_of_2(o->size) || o->size > PAGE_SIZE ||
	       IS_ALIGNED(addr, o->size);
}

static unsigned int seg_random_size(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd);

	switch (r % 100) {
	case 0 ... 69:
		return 1 + (r >> 8) % 256;
	case 70 ... 89:
		return 257 + (r >> 8) % 1792;
	case 90 ... 97:
		return 2049 + (r >> 8) % 2048;
	default:
		return 4097 + (r >> 8) % 12288;
	}
}

static void seg_stress_alloc(struct seg_stress *s, struct seg_obj *o)
{
	u32 r = prandom_u32_state(&s->rnd);

	o->cache = r % 3 ? 0 : 1 + (r >> 8) % (NR_CACHES - 1);
	if (o->cache) {
		o->size = seg_test_caches[o->cache].size;
		o->p = kmem_cache_alloc(s->caches[o->cache], GFP_KERNEL);
	} else {
		o->size = seg_random_size(&s->rnd);
		o->p = kmalloc(o->size, GFP_KERNEL);
	}
	if (!o->p) {
		s->nomem++;
		return;
	}
	if (!seg_aligned(o))
		s->bad_align++;
	if (ksize(o->p) < o->size)
		s->bad_ksize++;
	if (seg_test_caches[o->cache].ctor && *(u32 *)o->p != CTOR_MAGIC)
		s->bad_ctor++;
	o->fill = r >> 24;
	memset(o->p + seg_fill_from(o), o->fill, o->size - seg_fill_from(o));
}

static bool seg_intact(const struct seg_obj *o, unsigned int len)
{
	unsigned int from = seg_fill_from(o);

	return !memchr_inv(o->p + from, o->fill, len - from);
}

static void seg_stress_free(struct seg_obj *o)
{
	if (o->cache)
		kmem_cache_free(seg_caches[o->cache], o->p);
	else
		kfree(o->p);
	o->p = NULL;
}

/* Grow or shrink a kmalloc() object; the common part must survive. */
static void seg_stress_realloc(struct seg_stress *s, struct seg_obj *o)
{
	unsigned int size = seg_random_size(&s->rnd);
	u8 *p = krealloc(o->p, size, GFP_KERNEL);

	if (!p) {
		s->nomem++;
		return;
	}
	o->p = p;
	if (!seg_intact(o, min(size, o->size)))
		s->bad_contents++;
	o->size = size;
	/*
	 * An object that still fits stays where it is: only the minimum
	 * alignment holds, not that of a power-of-two size.
	 */
	if (!IS_ALIGNED((unsigned long)p, ARCH_KMALLOC_MINALIGN))
		s->bad_align++;
	if (ksize(o->p) < size)
		s->bad_ksize++;
	memset(o->p, o->fill, size);
}

static int seg_stress_thread(void *arg)
{
	struct seg_stress *s = arg;
	unsigned int i;

	for (i = 0; i < STRESS_ITERS; i++) {
		u32 r = prandom_u32_state(&s->rnd);
		struct seg_obj *o = &s->objs[r % STRESS_SLOTS];

		s->ops++;
		if (!o->p) {
			seg_stress_alloc(s, o);
			continue;
		}
		if (!seg_intact(o, o->size))
			s->bad_contents++;
		if (!o->cache && (r >> 16) % 4 == 0)
			seg_stress_realloc(s, o);
		else
			seg_stress_free(o);
		if (!(i % 256)) {
			cpumask_set_cpu(raw_smp_processor_id(), s->cpus);
			cond_resched();
		}
	}
	complete(&s->done);
	return 0;
}

struct seg_span {
	unsigned long start, end;
};

static int seg_span_cmp(const void *a, const void *b)
{
	const struct seg_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* No two live objects of both threads may share a byte. */
static unsigned int seg_overlaps(struct kunit *test, struct seg_stress *st,
				 unsigned int nthreads)
{
	struct seg_span *spans;
	unsigned int n = 0, i, t, bad = 0;

	spans = kunit_kcalloc(test, nthreads * STRESS_SLOTS, sizeof(*spans),
			      GFP_KERNEL);
	/* no assertion: seg_test_stress() must stop its drainer first */
	if (!spans)
		return UINT_MAX;
	for (t = 0; t < nthreads; t++) {
		for (i = 0; i < STRESS_SLOTS; i++) {
			struct seg_obj *o = &st[t].objs[i];

			if (!o->p)
				continue;
			spans[n].start = (unsigned long)o->p;
			spans[n].end = spans[n].start + ksize(o->p);
			n++;
		}
	}
	sort(spans, n, sizeof(*spans), seg_span_cmp, NULL);
	for (i = 1; i < n; i++)
		if (spans[i].start < spans[i - 1].end)
			bad++;
	kunit_kfree(test, spans);
	return bad;
}

/*
 * While the stress threads run: drain every CPU's stacks, again and
 * again, as kmem_cache_shrink() does (memory pressure, cache destruction)
 * from whichever CPU calls it.  On two or more CPUs this runs against the
 * pushes and pops of the other CPUs: a drain that reached into another
 * CPU's stack instead of running there would lose or hand out objects
 * twice, and the checks of the stress would see it.  The drainer is a
 * KUnit resource: if the case dies half way, KUnit's cleanup stops it
 * before the suite destroys its caches.
 */
struct seg_drainer {
	struct kmem_cache *cache;
	struct task_struct *task;
	unsigned long drains;
};

static int seg_drain_thread(void *arg)
{
	struct seg_drainer *d = arg;

	while (!kthread_should_stop()) {
		kmem_cache_shrink(d->cache);
		d->drains++;
		usleep_range(50, 100);
	}
	return 0;
}

static void seg_drainer_stop(struct seg_drainer *d)
{
	if (d->task)
		kthread_stop(d->task);
	d->task = NULL;
}

static void seg_drainer_free(struct kunit_resource *res)
{
	seg_drainer_stop(res->data);
	kfree(res->data);
}

static void seg_test_stress(struct kunit *test)
{
	struct seg_drainer *drainer;
	struct task_struct *task;
	struct seg_stress *st;
	struct cpumask *used;
	unsigned int t, round, i;
	unsigned long ops = 0;

	st = kunit_kcalloc(test, 2, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	used = kunit_kzalloc(test, cpumask_size(), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, used);
	for (t = 0; t < 2; t++) {
		st[t].caches = seg_caches;
		st[t].cpus = used;
		prandom_seed_state(&st[t].rnd, get_random_u64());
	}

	drainer = kzalloc(sizeof(*drainer), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, drainer);
	drainer->cache = seg_caches[1];
	if (!kunit_alloc_resource(test, NULL, seg_drainer_free, GFP_KERNEL,
				  drainer)) {
		kfree(drainer);
		KUNIT_ASSERT_FAILURE(test, "no memory for a resource");
	}
	task = kthread_run(seg_drain_thread, drainer, "seg_drain");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	drainer->task = task;
	for (round = 0; round < STRESS_ROUNDS; round++) {
		for (t = 0; t < 2; t++) {
			init_completion(&st[t].done);
			task = kthread_run(seg_stress_thread, &st[t],
					   "seg_stress%u", t);
			if (IS_ERR(task)) {
				KUNIT_FAIL(test, "kthread_run: %ld",
					   PTR_ERR(task));
				break;
			}
		}
		/* the threads started read the array: wait for them */
		while (t--)
			wait_for_completion(&st[t].done);
		KUNIT_EXPECT_EQ_MSG(test, seg_overlaps(test, st, 2), 0,
				    "live objects overlap after round %u", round);
	}
	seg_drainer_stop(drainer);
	kunit_info(test, "%u CPUs online, %u used by the stress threads, %lu drains of every CPU's stacks\n",
		   num_online_cpus(), cpumask_weight(used), drainer->drains);
	KUNIT_EXPECT_GT(test, drainer->drains, 0UL);

	for (t = 0; t < 2; t++) {
		for (i = 0; i < STRESS_SLOTS; i++) {
			struct seg_obj *o = &st[t].objs[i];

			if (!o->p)
				continue;
			KUNIT_EXPECT_TRUE(test, seg_intact(o, o->size));
			seg_stress_free(o);
		}
		KUNIT_EXPECT_EQ(test, st[t].bad_align, 0);
		KUNIT_EXPECT_EQ(test, st[t].bad_ksize, 0);
		KUNIT_EXPECT_EQ(test, st[t].bad_contents, 0);
		KUNIT_EXPECT_EQ(test, st[t].bad_ctor, 0);
		KUNIT_EXPECT_EQ(test, st[t].nomem, 0);
		ops += st[t].ops;
	}
	KUNIT_EXPECT_EQ(test, ops, 2UL * STRESS_ROUNDS * STRESS_ITERS);
}

/* Every size up to three pages: alignment, ksize() and roundup agree. */
static void seg_test_kmalloc_sizes(struct kunit *test)
{
	unsigned int size;

	for (size = 1; size <= 3 * PAGE_SIZE; size += size < 512 ? 1 : 7) {
		struct seg_obj o = { .size = size };
		size_t ks;

		o.p = kmalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o.p);
		ks = ksize(o.p);
		KUNIT_EXPECT_TRUE_MSG(test, seg_aligned(&o), "size %u at %p",
				      size, o.p);
		KUNIT_EXPECT_GE(test, ks, (size_t)size);
		KUNIT_EXPECT_EQ_MSG(test, ks, kmalloc_size_roundup(size),
				    "size %u", size);
		/* The whole of ksize() is the caller's. */
		memset(o.p, 0x5a, ks);
		kfree(o.p);
	}
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), 0);
}

static void seg_test_kzalloc(struct kunit *test)
{
	unsigned int size;

	for (size = 8; size <= 2 * PAGE_SIZE; size = size * 3 / 2) {
		u8 *p = kmalloc(size, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		memset(p, 0xa5, size);
		kfree(p);
		p = kzalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(p, 0, size), "size %u",
				      size);
		kfree(p);
	}
}

static void seg_test_krealloc(struct kunit *test)
{
	static const unsigned int sizes[] = {
		5, 8, 13, 64, 100, 256, 700, 2000, 3000, 5000, 9000, 300, 16, 1,
	};
	unsigned int i, prev = 0;
	u8 *p = NULL, *q;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned int keep = min(prev, sizes[i]);

		q = krealloc(p, sizes[i], GFP_KERNEL);
		if (!q)
			kfree(p);
		KUNIT_ASSERT_NOT_NULL(test, q);
		p = q;
		KUNIT_EXPECT_GE(test, ksize(p), (size_t)sizes[i]);
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(p, i, keep),
				      "%u -> %u", prev, sizes[i]);
		memset(p, i + 1, sizes[i]);
		prev = sizes[i];
	}
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), 0);
}

/* Cache objects: alignment, constructor, no overlap among many. */
static void seg_test_caches_align(struct kunit *test)
{
	struct seg_stress *s;
	unsigned int i, c;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < STRESS_SLOTS; i++) {
		struct seg_obj *o = &s->objs[i];

		c = 1 + i % (NR_CACHES - 1);
		o->cache = c;
		o->size = seg_test_caches[c].size;
		o->p = kmem_cache_alloc(seg_caches[c], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o->p);
		KUNIT_EXPECT_TRUE_MSG(test, seg_aligned(o), "%s at %p",
				      seg_test_caches[c].name, o->p);
		if (seg_test_caches[c].flags & SLAB_HWCACHE_ALIGN) {
			unsigned int line = min_t(unsigned int,
						  cache_line_size(),
						  roundup_pow_of_two(o->size));

			KUNIT_EXPECT_TRUE(test,
					  IS_ALIGNED((unsigned long)o->p, line));
		}
		if (seg_test_caches[c].ctor)
			KUNIT_EXPECT_EQ(test, *(u32 *)o->p, CTOR_MAGIC);
		o->fill = i;
		memset(o->p + seg_fill_from(o), o->fill,
		       o->size - seg_fill_from(o));
	}
	KUNIT_EXPECT_EQ(test, seg_overlaps(test, s, 1), 0);
	for (i = 0; i < STRESS_SLOTS; i++) {
		KUNIT_EXPECT_TRUE(test, seg_intact(&s->objs[i],
						   s->objs[i].size));
		seg_stress_free(&s->objs[i]);
	}
}

/*
 * A SLAB_TYPESAFE_BY_RCU object must not be reused while a reader that
 * saw it may still look at it.
 */
static void seg_test_typesafe_rcu(struct kunit *test)
{
	struct kmem_cache *c = seg_caches[5];
	u8 *p, *q[16];
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, c->flags & SLAB_TYPESAFE_BY_RCU);
	rcu_read_lock();
	p = kmem_cache_alloc(c, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x3c, 200);
	kmem_cache_free(c, p);
	for (i = 0; i < ARRAY_SIZE(q); i++) {
		q[i] = kmem_cache_alloc(c, GFP_ATOMIC);
		KUNIT_EXPECT_PTR_NE(test, q[i], p);
	}
	/* Still readable, and not yet poisoned or reused. */
	KUNIT_EXPECT_NULL(test, memchr_inv(p, 0x3c, 200));
	rcu_read_unlock();
	for (i = 0; i < ARRAY_SIZE(q); i++)
		kmem_cache_free(c, q[i]);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), 0);
}

/*
 * A cache of objects larger than the classes has slots of its own size in
 * slabs of several pages, not two pages an object; an RCU cache too.
 */
static void seg_test_own_pool(struct kunit *test)
{
	static const slab_flags_t flags[] = { 0, SLAB_TYPESAFE_BY_RCU };
	const unsigned int size = 5000;
	struct kmem_cache *c;
	u8 *objs[12];
	unsigned int f, i, shared;

	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		c = kmem_cache_create("seg_test_own5000", size, 64, flags[f],
				      NULL);
		KUNIT_ASSERT_NOT_NULL(test, c);
		shared = 0;
		for (i = 0; i < ARRAY_SIZE(objs); i++) {
			objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[i]);
			KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)objs[i],
							   64));
			KUNIT_EXPECT_GE(test, ksize(objs[i]), size);
			KUNIT_EXPECT_LT(test, ksize(objs[i]), 2 * PAGE_SIZE);
			memset(objs[i], i, size);
			if (i && virt_to_folio(objs[i]) ==
				 virt_to_folio(objs[i - 1]))
				shared++;
		}
		KUNIT_EXPECT_GT(test, shared, 0);
		for (i = 0; i < ARRAY_SIZE(objs); i++) {
			KUNIT_EXPECT_NULL(test, memchr_inv(objs[i], i, size));
			kmem_cache_free(c, objs[i]);
		}
		kmem_cache_destroy(c);
	}
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), 0);
}

/*
 * /proc/meminfo: objects of a reclaimable cache count in SReclaimable,
 * and kmalloc() objects in their class.
 */
static void seg_test_accounting(struct kunit *test)
{
	struct kmem_cache *c = seg_caches[4];
	struct slob_seg_usage before, after;
	const unsigned int n = 8192;
	unsigned long rcl0, rcl1;
	void **objs;
	unsigned int i;

	objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);

	rcl0 = global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B);
	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	/*
	 * The per-CPU deltas of vmstat hold back up to 125 pages per CPU
	 * (MAX_THRESHOLD in mm/vmstat.c) from the global counter.
	 */
	rcl1 = global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B);
	KUNIT_EXPECT_GE(test, rcl1 + 125 * num_online_cpus(),
			rcl0 + n * 192UL / PAGE_SIZE);
	for (i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	KUNIT_EXPECT_LE(test,
			global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B),
			rcl1 + 125 * num_online_cpus() - n * 192UL / PAGE_SIZE);

	KUNIT_ASSERT_TRUE(test, slob_seg_kmalloc_usage(72, &before));
	for (i = 0; i < n; i++) {
		objs[i] = kmalloc(72, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	KUNIT_ASSERT_TRUE(test, slob_seg_kmalloc_usage(72, &after));
	/* Some may come from the free objects CPUs hold. */
	KUNIT_EXPECT_GE(test, after.objects + SLOB_SEG_CPU_MAX *
			num_possible_cpus(), before.objects + n);
	KUNIT_EXPECT_GE(test, after.slabs * (PAGE_SIZE / after.slot),
			after.objects);
	for (i = 0; i < n; i++)
		kfree(objs[i]);
}

#ifdef CONFIG_SLOB_SEG_DEBUG
/*
 * Two objects of one slab, so that freeing the second never frees the
 * slab.  Objects come from the CPU's stack of free objects first, which
 * may hold objects of several slabs: allocate until two share one.
 */
static void *seg_alloc_pair(struct kunit *test, size_t size, void **keep)
{
	void *objs[64], *p = NULL;
	unsigned int n, i, a = 0, b = 0;

	for (n = 0; n < ARRAY_SIZE(objs) && !p; n++) {
		objs[n] = kmalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[n]);
		for (i = 0; i < n; i++) {
			if (virt_to_page(objs[i]) == virt_to_page(objs[n])) {
				a = i;
				b = n;
				p = objs[n];
				break;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (i != a && i != b)
			kfree(objs[i]);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "no two objects of %zu bytes in one slab",
				  size);
	*keep = objs[a];
	return p;
}

static void seg_test_debug_overflow(struct kunit *test)
{
	unsigned long errors = slob_seg_debug_errors();
	u8 *p = kmalloc(40, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0, 40);
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors);

	/* One byte past what was asked for, though inside the slot. */
	p = kmalloc(37, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p[37] = 0;
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 1);
}

static void seg_test_debug_ksize(struct kunit *test)
{
	unsigned long errors = slob_seg_debug_errors();
	u8 *p = kmalloc(37, GFP_KERNEL);
	size_t ks;

	KUNIT_ASSERT_NOT_NULL(test, p);
	ks = ksize(p);
	/* After ksize(), all of it is the caller's... */
	memset(p, 1, ks);
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors);

	/* ...and no more. */
	p = kmalloc(37, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	ks = ksize(p);
	p[ks] = 1;
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 1);
}

static void seg_test_debug_cache_overflow(struct kunit *test)
{
	struct kmem_cache *c = seg_caches[2];
	unsigned long errors = slob_seg_debug_errors();
	u8 *p = kmem_cache_alloc(c, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p[c->object_size] = 0;
	kmem_cache_free(c, p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 1);
}

static void seg_test_debug_use_after_free(struct kunit *test)
{
	unsigned long errors = slob_seg_debug_errors();
	void *keep, *again[8];
	unsigned int n = 0;
	u8 *p;

	p = seg_alloc_pair(test, 96, &keep);
	kfree(p);
	p[10] = 0x42;
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors);
	/* The write shows when the slot is handed out again. */
	while (n < ARRAY_SIZE(again)) {
		again[n] = kmalloc(96, GFP_KERNEL);
		if (again[n++] == p)
			break;
	}
	KUNIT_EXPECT_PTR_EQ(test, again[n - 1], (void *)p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 1);
	while (n--)
		kfree(again[n]);
	kfree(keep);
}

static void seg_test_debug_double_free(struct kunit *test)
{
	unsigned long errors = slob_seg_debug_errors();
	void *keep, *p, *q, *r;

	p = seg_alloc_pair(test, 200, &keep);
	kfree(p);
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 1);
	/* The second free was refused: the slot is handed out once. */
	q = kmalloc(200, GFP_KERNEL);
	r = kmalloc(200, GFP_KERNEL);
	KUNIT_EXPECT_PTR_NE(test, q, r);
	kfree(q);
	kfree(r);
	kfree(keep);

	/* A pointer into an object is not an object. */
	p = kmalloc(200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kfree(p + 8);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 2);
	kfree(p);
	KUNIT_EXPECT_EQ(test, slob_seg_debug_errors(), errors + 2);
}
#endif

static int seg_suite_init(struct kunit_suite *suite)
{
	return seg_create_caches();
}

static void seg_suite_exit(struct kunit_suite *suite)
{
	seg_destroy_caches();
}

static struct kunit_case slob_seg_cases[] = {
	KUNIT_CASE(seg_test_kmalloc_sizes),
	KUNIT_CASE(seg_test_kzalloc),
	KUNIT_CASE(seg_test_krealloc),
	KUNIT_CASE(seg_test_caches_align),
	KUNIT_CASE(seg_test_typesafe_rcu),
	KUNIT_CASE(seg_test_own_pool),
	KUNIT_CASE(seg_test_accounting),
	KUNIT_CASE(seg_test_stress),
	{}
};

static struct kunit_suite slob_seg_suite = {
	.name = "slob_seg",
	.suite_init = seg_suite_init,
	.suite_exit = seg_suite_exit,
	.test_cases = slob_seg_cases,
};

#ifdef CONFIG_SLOB_SEG_DEBUG
static struct kunit_case slob_seg_debug_cases[] = {
	KUNIT_CASE(seg_test_debug_overflow),
	KUNIT_CASE(seg_test_debug_ksize),
	KUNIT_CASE(seg_test_debug_cache_overflow),
	KUNIT_CASE(seg_test_debug_use_after_free),
	KUNIT_CASE(seg_test_debug_double_free),
	{}
};

static struct kunit_suite slob_seg_debug_suite = {
	.name = "slob_seg_debug",
	.suite_init = seg_suite_init,
	.suite_exit = seg_suite_exit,
	.test_cases = slob_seg_debug_cases,
};

kunit_test_suites(&slob_seg_suite, &slob_seg_debug_suite);
#else
kunit_test_suites(&slob_seg_suite);
#endif

MODULE_LICENSE("GPL");
