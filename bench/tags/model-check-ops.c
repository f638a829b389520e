// SPDX-License-Identifier: GPL-2.0
/*
 * Operations for the model's known-answer cases (model-check.c), compiled
 * like the kernel files: instrumented, with the kshim.
 */
#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "model-check.h"

void *check_alloc(unsigned long bytes)
{
	return kzalloc(bytes, GFP_KERNEL);
}

void check_inc(long *counter)
{
	atomic_long_inc((atomic_long_t *)counter);
}

/* counter++ as C code writes it: a load, then a store. */
void check_add_plain(long *counter)
{
	*(volatile long *)counter = *(volatile long *)counter + 1;
}

long check_read(long *word)
{
	return READ_ONCE(*word);
}

void check_write(long *word, long value)
{
	WRITE_ONCE(*word, value);
}

void check_lock(void *lock)
{
	spin_lock(lock);
}

void check_unlock(void *lock)
{
	spin_unlock(lock);
}

/*
 * A word on the calling CPU's stack: written once, its address given to
 * @publish, then read after each of @rounds calls of @between.
 */
void check_stack_word(int rounds, void (*publish)(long *word),
		      void (*between)(void))
{
	long word;

	WRITE_ONCE(word, 0);
	publish(&word);
	while (rounds--) {
		between();
		(void)READ_ONCE(word);
	}
}

void check_waitqueue_init(void *wq)
{
	init_waitqueue_head(wq);
}

/*
 * @rounds times: queue an entry on the calling CPU's stack on @wq, call
 * @between, sleep until woken, dequeue.
 */
void check_sleep_rounds(void *wq, int rounds, void (*between)(void))
{
	while (rounds--) {
		DEFINE_WAIT(wait);

		prepare_to_wait(wq, &wait, TASK_UNINTERRUPTIBLE);
		between();
		schedule();
		finish_wait(wq, &wait);
	}
}

void check_wake(void *wq)
{
	wake_up(wq);
}
