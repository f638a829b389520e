#!/bin/bash
# Write into OUT the tag allocator sources of the kernel tree SRC, changed
# as VARIANT says: lib/{percpu_tags,tag_ida,sbitmap}.c and include/linux/
# their headers, in the same layout, as bench/tags/build.sh reads them.
#
# VARIANT is one of
#   without-free_to     the pool with an optimisation taken out, measured
#                       beside it (make bench-scale POOL_WITHOUT=free_to):
#                       percpu_tag_free_to()'s kernel-doc, body and export,
#                       and its prototype; bench/tags/alloc.c then frees with
#                       percpu_tag_free() on the completing CPU (its weak
#                       fallback for older pools).
#   without-free_to_rule  percpu_tag_free_to() with its rule taken out:
#                       it puts every tag into the cache of the CPU it is
#                       given, not only with batches below a word of slots
#                       or in scarce mode (make bench-scale
#                       POOL_WITHOUT=free_to_rule).
#   mutant-finish_wait  a known wait bug put back, for showing that
#                       bench/tags/exhaust finds it (make model-mutants):
#                       percpu_tag_finish_wait() decides whether the task was
#                       woken from its entry before taking the queue's lock,
#                       then dequeues it, and only then sets TASK_RUNNING: a
#                       wake-up that removes the entry in between is taken
#                       for none, and not passed on when the task got its tag
#                       otherwise (the lost wake-up the lock fixed).  The
#                       early TASK_RUNNING alone hides the unlocked look: a
#                       wake-up of a running task fails and leaves the entry
#                       queued, so both are put back.
#   mutant-free_order   a free looks for waiters before it puts the tag back,
#                       the wrong order against percpu_tag_prepare_wait()'s
#                       queue bit then try: a waiter that queues and tries in
#                       between finds no tag, and the free wakes nobody.
#   mutant-refill_bit   a refill does not set its cache's summary bit when it
#                       finds the pool scarce after its puts: the tags it put
#                       stay free where no steal looks (the series' bug until
#                       2026-12-06, found by exhaust's case "refill").
#   mutant-rt_wake      an allocation that set a summary bit wakes a waiter
#                       before it enables preemption: a wait queue's
#                       spinlock_t taken with preemption disabled, which
#                       sleeps on PREEMPT_RT (the series' bug until
#                       2026-12-06, found by the model's check of that rule).
#   mutant-wake_batch   a free that sees waiters wakes one only every eighth
#                       time on its CPU, as sbitmap defers its wake-ups to
#                       batches of up to 8: a waiter sleeps while the tags
#                       of the frees that did not wake it are free.
#                       NOTES.md (2026-12-07, fewer wake-ups) measures it
#                       on bench-scale's scarce shared scenarios.
#   mutant-flush_one    a free wakes one waiter also when a full cache gave
#                       tags back to the shared allocator first: waiters that
#                       tried while those tags moved stay asleep beside them
#                       (the series' bug until 2026-12-07, found by exhaust's
#                       case "flush").
#   whatif-limited_one_path  a what-if, measured beside the pool (make
#                       bench-scale POOL_WHATIF=limited_one_path):
#                       percpu_tag_alloc_limited() takes the path of every
#                       other allocation with a floor (this CPU's cache, the
#                       shared allocator, scarce mode's summary), and a steal
#                       visits each named cache once; the diff in
#                       bench/tags/variants/.  NOTES.md (2026-12-07, a
#                       shallow depth) measures it.  Its diff is against
#                       the series of 2a54962 (POOL_BASE=2a54962's pool).
#   whatif-own_first_not_scarce  percpu_tag_alloc_limited() looks in its
#                       CPU's cache first only outside scarce mode; in it,
#                       the shared allocator's range first, as before
#                       b82f36e (a reviewer's question; NOTES.md, 2026-12-07,
#                       this CPU's cache first).
#   whatif-limited_scan_from_own  percpu_tag_alloc_limited() scans the
#                       other caches from the one after its CPU's, as a
#                       steal does, instead of from cache 0 (the second
#                       review's question; NOTES.md, 2026-12-07).  Its
#                       diff is against the series of 635bf7a.
#   whatif-limited_wake_filter  a free wakes a limited waiter only if the
#                       tag it freed is in the waiter's range (its wait
#                       entry holds its limit; a wake-up of unknown tags,
#                       a give-back or a pass-on, wakes it as before), so
#                       frees of low tags do not wake the whole herd of
#                       limited waiters (bench/tags/alloc.c sets the limit
#                       when the variant's header defines
#                       PERCPU_TAG_WAIT_LIMIT).  Its diff is against the
#                       series of 2166fc4.
# It fails if the text to change is not there exactly once (a what-if: if
# its diff does not apply), so that a changed series is not measured
# unchanged under the variant's name.
#
# usage: pool-variant.sh VARIANT SRC OUT
set -eu

[ $# -eq 3 ] || { echo "usage: pool-variant.sh VARIANT SRC OUT" >&2; exit 2; }
variant=$1 src=$2 out=$3
known="without-free_to without-free_to_rule mutant-finish_wait mutant-free_order"
known="$known mutant-refill_bit mutant-rt_wake mutant-wake_batch mutant-flush_one"
known="$known whatif-limited_one_path whatif-own_first_not_scarce"
known="$known whatif-limited_scan_from_own whatif-limited_wake_filter"
case " $known " in
*" $variant "*) ;;
*)	echo "pool-variant: unknown variant '$variant' (known: $known)" >&2
	exit 2 ;;
esac

rm -rf "$out"
mkdir -p "$out/lib" "$out/include/linux"
for f in lib/percpu_tags.c lib/tag_ida.c lib/sbitmap.c \
	 include/linux/percpu_tags.h include/linux/tag_ida.h include/linux/sbitmap.h; do
	cp "$src/$f" "$out/$f"
done

case $variant in
whatif-*)
	git apply --directory="$out" -p1 --unsafe-paths \
		"$(dirname "$0")/variants/$variant.diff"
	echo "$variant" >"$out/VARIANT"
	exit 0 ;;
esac

python3 - "$variant" "$out/lib/percpu_tags.c" "$out/include/linux/percpu_tags.h" <<'EOF'
import re, sys

variant, c_file, h_file = sys.argv[1:]


def without(fn):
    """An exported function: "/**\n * FN - ..." through "EXPORT_SYMBOL_GPL(FN);"
    and the blank line after it in the .c file; its prototype, with its
    continuation lines up to the ");", in the header."""
    return [(c_file, re.compile(r"^/\*\*\n \* %s - (?:.*\n)*?EXPORT_SYMBOL(?:_GPL)?\(%s\);\n\n?"
                                % (fn, fn), re.M), "", fn),
            (h_file, re.compile(r"^void %s\([^;]*\);\n" % fn, re.M), "", fn)]


def replace(old, new, path=None):
    return [(path or c_file, re.compile(re.escape(old)), new, None)]


edits = {
    "without-free_to": without("percpu_tag_free_to"),
    "without-free_to_rule": replace(
        """	i = this_cpu_read(pool->cpu->cache);
	if (READ_ONCE(pool->batch) < PERCPU_TAG_SLOTS_PER_WORD ||
	    test_bit(PERCPU_TAG_SCARCE, &pool->state))
		i = per_cpu_ptr(pool->cpu, cpu)->cache;
""",
        """	i = per_cpu_ptr(pool->cpu, cpu)->cache;
"""),
    "mutant-finish_wait": replace(
        """	__set_current_state(TASK_RUNNING);
	if (!w->queued)
		return;
	w->queued = false;
	if (!list_empty_careful(&w->entry.entry)) {
		spin_lock_irqsave(&q->wq.lock, flags);
		woken = list_empty(&w->entry.entry);
		if (!woken) {
			list_del_init(&w->entry.entry);
			percpu_tag_update_waiting(pool, w->queue);
		}
		spin_unlock_irqrestore(&q->wq.lock, flags);
	}
""",
        """	if (!w->queued) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	w->queued = false;
	woken = list_empty_careful(&w->entry.entry);
	if (!woken) {
		spin_lock_irqsave(&q->wq.lock, flags);
		list_del_init(&w->entry.entry);
		percpu_tag_update_waiting(pool, w->queue);
		spin_unlock_irqrestore(&q->wq.lock, flags);
	}
	__set_current_state(TASK_RUNNING);
"""),
    "mutant-free_order": replace(
        """	if (!percpu_tag_put(pool, i, tag, &moved)) {
		tag_ida_free(&pool->ida, tag);
		/* As the cmpxchg() of a put into a cache: a full barrier. */
		smp_mb();
	}
	/* Pairs with set_current_state() in percpu_tag_prepare_wait(). */
	state = READ_ONCE(pool->state);
""",
        """	state = READ_ONCE(pool->state);
	if (!percpu_tag_put(pool, i, tag, &moved)) {
		tag_ida_free(&pool->ida, tag);
		smp_mb();
	}
"""),
    "mutant-refill_bit": replace(
        """		if (test_bit(PERCPU_TAG_SCARCE, &pool->state) && !test_bit(i, pool->nonempty))
			set_bit(i, pool->nonempty);
		percpu_tag_published(pool, wakes, k - 1);""",
        """		percpu_tag_published(pool, wakes, k - 1);"""),
    "mutant-rt_wake": replace(
        """	preempt_enable();
	if (wakes.nr)
		percpu_tag_wake(pool, wakes.state, wakes.nr);
""",
        """	if (wakes.nr)
		percpu_tag_wake(pool, wakes.state, wakes.nr);
	preempt_enable();
"""),
    "mutant-wake_batch": replace(
        """	preempt_enable();
	if (state & PERCPU_TAG_WAITING)
		percpu_tag_wake(pool, state, 1 + moved);
}
""",
        """	if ((state & PERCPU_TAG_WAITING) &&
	    (__this_cpu_inc_return(pool->cpu->wake_skip) & 7))
		state &= ~PERCPU_TAG_WAITING;
	preempt_enable();
	if (state & PERCPU_TAG_WAITING)
		percpu_tag_wake(pool, state, 1 + moved);
}
""") + replace("""	u8 wake_next;
""", """	u8 wake_next;
	unsigned int wake_skip;
""", h_file),
    "mutant-flush_one": replace(
        """		percpu_tag_wake(pool, state, 1 + moved);
""",
        """		percpu_tag_wake(pool, state, 1);
"""),
}
for path, pattern, new, fn in edits[variant]:
    with open(path) as f:
        text = f.read()
    changed, n = pattern.subn(lambda m: new, text)
    if n != 1:
        sys.exit(f"pool-variant: the text of {variant} found {n} times in {path}, "
                 "not once: nothing changed")
    # A function taken out must not take another's kernel-doc with it.
    if fn and re.search(r"^/\*\*\n \* (?!%s )\w+ - " % fn, pattern.search(text).group(0), re.M):
        sys.exit(f"pool-variant: the text removed from {path} spans more than {fn}")
    with open(path, "w") as f:
        f.write(changed)
EOF
echo "$variant" >"$out/VARIANT"
