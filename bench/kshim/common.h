/* SPDX-License-Identifier: GPL-2.0 */
/* What rt-native.c and rt-model.c share: memory accounting and warnings. */
#ifndef _KSHIM_COMMON_H
#define _KSHIM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

/* Bytes SLUB hands out for a kmalloc() of @size (a page order above 8 KiB). */
size_t kshim_slab_size(size_t size);
/* Record an allocation of @bytes at @p (per-CPU: bytes of one CPU's copy). */
void kshim_mem_note(const void *p, size_t bytes, int kind);
/* Forget the allocation at @p; returns its bytes, or 0 if unknown. */
size_t kshim_mem_forget(const void *p);
void kshim_mem_clear(void);
/* The allocation @addr is in (its first line, for per-CPU ones), or NULL. */
const void *kshim_mem_find(const void *addr, size_t *bytes);
/* Deterministic 64-bit generator (splitmix64). */
uint64_t kshim_rng_next(uint64_t *state);

#endif /* _KSHIM_COMMON_H */
