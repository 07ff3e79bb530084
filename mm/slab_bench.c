// SPDX-License-Identifier: GPL-2.0
/*
 * Slab allocator benchmark: the same workloads for SLAB, SLUB, SLOB and
 * the segregated-fit SLOB, run from user space through a parameter:
 *
 *   echo churn > /sys/module/slab_bench/parameters/run
 *   echo ops > /sys/module/slab_bench/parameters/run
 *
 * "churn" allocates CHURN_STEPS kmalloc() objects of 8 to 4096 bytes with
 * a size mix and lifetimes like those of a running kernel - most objects
 * small and short-lived, some living for thousands of allocations, a few
 * for good - and keeps the long-lived ones, so that /proc/meminfo read
 * afterwards shows what fragmentation the churn left behind.  "ops"
 * times alloc+free pairs of the same size mix, on one CPU and then on two
 * CPUs at once.  Both use a fixed seed: every allocator sees the same
 * sequence.  Results are printed as "# METRIC name value unit" lines.
 */

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#define CHURN_STEPS	40000
#define CHURN_WHEEL	2048	/* longest finite lifetime, in allocations */
#define OPS_BATCH	64
#define OPS_ROUNDS	400
#define OPS_REPEAT	5

/* A size from a mix like that of kmalloc() in a small running system. */
static unsigned int bench_size(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd);

	switch (r % 100) {
	case 0 ... 49:
		return 8 + (r >> 8) % 57;		/* 8..64 */
	case 50 ... 79:
		return 65 + (r >> 8) % 192;		/* 65..256 */
	case 80 ... 94:
		return 257 + (r >> 8) % 768;		/* 257..1024 */
	default:
		return 1025 + (r >> 8) % 3072;		/* 1025..4096 */
	}
}

/* Lifetime in allocations; 0 for an object that is never freed. */
static unsigned int bench_lifetime(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd);

	switch (r % 100) {
	case 0 ... 69:
		return 1 + (r >> 8) % 16;
	case 70 ... 96:
		return 17 + (r >> 8) % (CHURN_WHEEL - 17);
	default:
		return 0;
	}
}

/* Objects link through their first word: a list per death step. */
static void *churn_survivors;

static void bench_churn(void)
{
	void **wheel;
	struct rnd_state rnd;
	unsigned long bytes = 0, count = 0, failed = 0;
	unsigned int step;
	u64 t0 = ktime_get_ns();

	wheel = kcalloc(CHURN_WHEEL, sizeof(*wheel), GFP_KERNEL);
	if (!wheel)
		return;
	prandom_seed_state(&rnd, 0x5eed);
	for (step = 0; step < CHURN_STEPS + CHURN_WHEEL; step++) {
		void **slot = &wheel[step % CHURN_WHEEL];

		while (*slot) {
			void *obj = *slot;

			*slot = *(void **)obj;
			kfree(obj);
		}
		if (step < CHURN_STEPS) {
			unsigned int size = bench_size(&rnd);
			unsigned int life = bench_lifetime(&rnd);
			void **obj = kmalloc(size, GFP_KERNEL);

			if (!obj) {
				failed++;
				continue;
			}
			memset(obj, 0x42, size);
			if (life) {
				slot = &wheel[(step + life) % CHURN_WHEEL];
			} else {
				slot = &churn_survivors;
				bytes += size;
				count++;
			}
			*obj = *slot;
			*slot = obj;
		}
		if (!(step % 1024))
			cond_resched();
	}
	kfree(wheel);
	pr_info("# METRIC churn_allocs %u\n", CHURN_STEPS);
	pr_info("# METRIC churn_failed %lu\n", failed);
	pr_info("# METRIC churn_survivors %lu\n", count);
	pr_info("# METRIC churn_survivor_bytes %lu B\n", bytes);
	pr_info("# METRIC churn_time %llu ms\n",
		div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
}

struct ops_run {
	struct completion *start;
	struct completion done;
	u64 ns;
	unsigned long ops;
};

/* Best of OPS_REPEAT runs of OPS_ROUNDS batches of alloc, then free. */
static void bench_ops_loop(struct ops_run *run)
{
	unsigned int sizes[OPS_BATCH];
	void *objs[OPS_BATCH];
	struct rnd_state rnd;
	unsigned int rep, round, i;
	u64 best = U64_MAX;

	prandom_seed_state(&rnd, 0x0b5);
	for (i = 0; i < OPS_BATCH; i++)
		sizes[i] = bench_size(&rnd);
	for (rep = 0; rep < OPS_REPEAT; rep++) {
		u64 t0 = ktime_get_ns(), t;

		for (round = 0; round < OPS_ROUNDS; round++) {
			for (i = 0; i < OPS_BATCH; i++)
				objs[i] = kmalloc(sizes[i], GFP_KERNEL);
			for (i = 0; i < OPS_BATCH; i++)
				kfree(objs[i]);
		}
		t = ktime_get_ns() - t0;
		best = min(best, t);
		cond_resched();
	}
	run->ns = best;
	run->ops = OPS_ROUNDS * OPS_BATCH;
}

static int bench_ops_thread(void *arg)
{
	struct ops_run *run = arg;

	wait_for_completion(run->start);
	bench_ops_loop(run);
	complete(&run->done);
	return 0;
}

static void bench_ops(void)
{
	DECLARE_COMPLETION_ONSTACK(start);
	struct ops_run one = { }, two[2] = { };
	unsigned int cpu, n = 0;
	u64 ns = 0;

	bench_ops_loop(&one);
	pr_info("# METRIC ops_1cpu_ns %llu ns\n", div_u64(one.ns, one.ops));

	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (n == 2)
			break;
		two[n].start = &start;
		init_completion(&two[n].done);
		t = kthread_create(bench_ops_thread, &two[n], "slab_bench/%u",
				   cpu);
		if (IS_ERR(t))
			return;
		kthread_bind(t, cpu);
		wake_up_process(t);
		n++;
	}
	if (n < 2) {
		pr_info("slab_bench: one CPU, no two-CPU run\n");
		return;
	}
	complete_all(&start);
	wait_for_completion(&two[0].done);
	wait_for_completion(&two[1].done);
	ns = max(two[0].ns, two[1].ns);
	pr_info("# METRIC ops_2cpu_ns %llu ns\n", div_u64(ns, two[0].ops));
}

static int bench_run_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "churn"))
		bench_churn();
	else if (sysfs_streq(val, "ops"))
		bench_ops();
	else
		return -EINVAL;
	return 0;
}

static const struct kernel_param_ops bench_run_ops = {
	.set = bench_run_set,
};
module_param_cb(run, &bench_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "churn or ops");

MODULE_DESCRIPTION("Slab allocator benchmark");
MODULE_LICENSE("GPL");
