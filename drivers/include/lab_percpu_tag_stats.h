/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a percpu tag pool's counters (enum percpu_tag_stat), as
 * percpu_tag_stat_names[] in lib/percpu_tags.c has them: that array is
 * static there, and our modules print the counters under these names,
 * which bench/labbench reads (labbench.fio.POOL_COUNTERS).
 */
#ifndef LAB_PERCPU_TAG_STATS_H
#define LAB_PERCPU_TAG_STATS_H

#include <linux/array_size.h>
#include <linux/build_bug.h>
#include <linux/percpu_tags.h>

#ifdef CONFIG_PERCPU_TAGS_STATS
static const char *const lab_percpu_tag_stat_names[] = {
	[PERCPU_TAG_ALLOC_LOCAL]	= "alloc_local",
	[PERCPU_TAG_ALLOC_SHARED]	= "alloc_shared",
	[PERCPU_TAG_ALLOC_STOLEN]	= "alloc_stolen",
	[PERCPU_TAG_REFILLS]		= "refills",
	[PERCPU_TAG_RETURNS]		= "returns",
	[PERCPU_TAG_SCARCE_ENTRIES]	= "scarce_entries",
	[PERCPU_TAG_WAITS]		= "waits",
	[PERCPU_TAG_FAILS]		= "fails",
};

static_assert(ARRAY_SIZE(lab_percpu_tag_stat_names) == PERCPU_TAG_NR_STATS);
#endif

#endif /* LAB_PERCPU_TAG_STATS_H */
