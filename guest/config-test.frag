# The test kernel: KUnit and the debug options that catch locking and
# sleeping-in-atomic bugs, plus fault injection for error paths.
CONFIG_DEBUG_KERNEL=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_SOFTLOCKUP_DETECTOR=y
CONFIG_KUNIT=y
CONFIG_KUNIT_DEBUGFS=y
CONFIG_RUNTIME_TESTING_MENU=y
CONFIG_TEST_IDA=m
CONFIG_FAULT_INJECTION=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_FAILSLAB=y
CONFIG_FAIL_PAGE_ALLOC=y
CONFIG_FAULT_INJECTION_CONFIGFS=y
CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION=y
# Our library code and its KUnit suites (modules, loaded by guest/tests).
CONFIG_TAG_IDA_KUNIT_TEST=m
CONFIG_PERCPU_TAGS_KUNIT_TEST=m
CONFIG_PERCPU_TAGS=y
# Leak checks of our modules (scanned on demand by the tests).
CONFIG_DEBUG_KMEMLEAK=y
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
# blk-mq's other users and paths the tests reach: BFQ with cgroups (its
# shallow depth of one), SCSI with scsi_debug (host-wide tags, many submit
# queues), ext4 on loop and on SCSI.
CONFIG_CGROUPS=y
CONFIG_BLK_CGROUP=y
CONFIG_BFQ_GROUP_IOSCHED=y
CONFIG_SCSI=y
CONFIG_BLK_DEV_SD=y
CONFIG_SCSI_LOWLEVEL=y
CONFIG_SCSI_DEBUG=m
CONFIG_EXT4_FS=y
