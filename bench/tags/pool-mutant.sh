#!/bin/bash
# Write into OUT the tag allocator sources of the kernel tree SRC with a known
# wait bug of the pool put back, for showing that bench/tags/exhaust finds
# it: lib/{percpu_tags,tag_ida,sbitmap}.c and include/linux/ their headers,
# in the same layout, as bench/tags/build.sh reads them.
#
# MUTANT is one of
#   finish_wait   percpu_tag_finish_wait() decides whether the task was woken
#                 from its entry before taking the queue's lock, then
#                 dequeues it, and only then sets TASK_RUNNING: a wake-up
#                 that removes the entry in between is taken for none, and
#                 not passed on when the task got its tag otherwise (the
#                 lost wake-up the lock fixed).  The early TASK_RUNNING alone
#                 hides the unlocked look: a wake-up of a running task fails
#                 and leaves the entry queued, so both are put back.
#   free_order    a free looks for waiters before it puts the tag back, the
#                 wrong order against percpu_tag_prepare_wait()'s queue bit
#                 then try: a waiter that queues and tries in between finds
#                 no tag, and the free wakes nobody.
# It fails if the text to change is not there exactly once.
#
# usage: pool-mutant.sh MUTANT SRC OUT
set -eu

[ $# -eq 3 ] || { echo "usage: pool-mutant.sh MUTANT SRC OUT" >&2; exit 2; }
mutant=$1 src=$2 out=$3
case $mutant in
finish_wait|free_order) ;;
*)	echo "pool-mutant: unknown mutant '$mutant' (known: finish_wait free_order)" >&2
	exit 2 ;;
esac

out=$(realpath -m "$out")
rm -rf "$out"
mkdir -p "$out"
(cd "$src" && cp --parents lib/{percpu_tags,tag_ida,sbitmap}.c \
	include/linux/{percpu_tags,tag_ida,sbitmap}.h "$out")

python3 - "$mutant" "$out/lib/percpu_tags.c" <<'PY'
import sys

mutant, path = sys.argv[1:]
edits = {
    "finish_wait": (
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
    "free_order": (
        """	if (!percpu_tag_put(pool, i, tag)) {
		tag_ida_free(&pool->ida, tag);
		/* As the cmpxchg() of a put into a cache: a full barrier. */
		smp_mb();
	}
	/* Pairs with set_current_state() in percpu_tag_prepare_wait(). */
	state = READ_ONCE(pool->state);
""",
        """	state = READ_ONCE(pool->state);
	if (!percpu_tag_put(pool, i, tag)) {
		tag_ida_free(&pool->ida, tag);
		smp_mb();
	}
"""),
}
old, new = edits[mutant]
with open(path) as f:
    text = f.read()
if text.count(old) != 1:
    sys.exit(f"pool-mutant: the text of {mutant} found {text.count(old)} times "
             f"in {path}, not once: nothing changed")
with open(path, "w") as f:
    f.write(text.replace(old, new))
PY
echo "$mutant" >"$out/MUTANT"
