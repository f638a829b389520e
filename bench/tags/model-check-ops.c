// SPDX-License-Identifier: GPL-2.0
/*
 * Operations for the model's known-answer cases (model-check.c), compiled
 * like the kernel files: instrumented, with the kshim.
 */
#include <linux/atomic.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "model-check.h"

void *check_alloc(unsigned long bytes)
{
	return kzalloc(bytes, GFP_KERNEL);
}

void check_inc(long *counter)
{
	atomic_long_inc((atomic_long_t *)counter);
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
