# KUnit suite of the per-CPU tag pool (lib/percpu_tags_kunit.c), including
# the concurrent stress with CPU hotplug: one result line per case.
set -eu
. "$LAB_GUEST/lib.sh"
lab_kunit percpu_tags_kunit percpu_tags
