# base: test
# The KASAN kernel (make test-kasan): the test kernel's options and the
# generic KASAN, which reports out-of-bounds and use-after-free accesses of
# the pool, tag_ida, blk-mq and the drivers the tests load.  Outline
# checks: a smaller, faster build than inline ones.  KASAN needs the full
# SLUB (tinyconfig picks SLUB_TINY) and reports with stack traces.
# CONFIG_SLUB_TINY is not set
CONFIG_STACKTRACE=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_OUTLINE=y
