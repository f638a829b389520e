# The bench kernel: no debug options, so measured costs are the code's own.
# CONFIG_DEBUG_KERNEL is not set
# CONFIG_KUNIT is not set
