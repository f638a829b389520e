/* SPDX-License-Identifier: GPL-2.0 */
/* The instrumented operations of the model's known-answer cases. */
#ifndef _BENCH_MODEL_CHECK_H
#define _BENCH_MODEL_CHECK_H

void *check_alloc(unsigned long bytes);
void check_inc(long *counter);
long check_read(long *word);
void check_write(long *word, long value);
void check_lock(void *lock);
void check_unlock(void *lock);

#endif
