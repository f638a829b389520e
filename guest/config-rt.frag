# The PREEMPT_RT kernel: the test kernel's checks (lockdep, sleeping in
# atomic context, KUnit) on a fully preemptible kernel, where spinlock_t
# sleeps and interrupt handlers run in threads.  make test boots it for the
# pool's KUnit suite and a null_blk fio verify with tags from the pool.
# CONFIG_PREEMPT_NONE is not set
CONFIG_PREEMPT_RT=y
CONFIG_DEBUG_KERNEL=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_SOFTLOCKUP_DETECTOR=y
CONFIG_KUNIT=y
CONFIG_KUNIT_DEBUGFS=y
CONFIG_RUNTIME_TESTING_MENU=y
CONFIG_PERCPU_TAGS_KUNIT_TEST=m
CONFIG_PERCPU_TAGS=y
