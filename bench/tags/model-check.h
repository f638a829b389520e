/* SPDX-License-Identifier: GPL-2.0 */
/* The instrumented operations of the model's known-answer cases. */
#ifndef _BENCH_MODEL_CHECK_H
#define _BENCH_MODEL_CHECK_H

void *check_alloc(unsigned long bytes);
void check_inc(long *counter);
void check_add_plain(long *counter);
long check_read(long *word);
void check_write(long *word, long value);
void check_lock(void *lock);
void check_unlock(void *lock);
void check_stack_word(int rounds, void (*publish)(long *word),
		      void (*between)(void));
/* A wait queue head in @wq (kzalloc()ed, 64 bytes do). */
void check_waitqueue_init(void *wq);
void check_sleep_rounds(void *wq, int rounds, void (*between)(void));
void check_wake(void *wq);

#endif
