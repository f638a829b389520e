# The bench kernel: no debug options, so measured costs are the code's own.
# (tinyconfig's EXPERT selects DEBUG_KERNEL, which by itself costs nothing.)
# CONFIG_PROVE_LOCKING is not set
# CONFIG_DEBUG_ATOMIC_SLEEP is not set
# CONFIG_DEBUG_SPINLOCK is not set
# CONFIG_KUNIT is not set
# CONFIG_FAULT_INJECTION is not set
# The pool, for drivers/tagbench and our drivers until blk-mq selects it.
CONFIG_PERCPU_TAGS=y
