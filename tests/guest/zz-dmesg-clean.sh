# Runs last: the kernel log of the whole test boot holds no lockdep report,
# no sleeping-in-atomic report, no BUG, oops, hung task or kernel WARNING,
# but for the warnings KUnit suites announce and trigger on purpose, each
# tolerated once, only where announced and only from the announced code:
# - percpu_tags_kunit's double free: a line "expect a warning: percpu_tags:
#   freeing tag N", then the pool's "percpu_tags: freeing tag N, which is
#   not handed out", then one WARNING at lib/percpu_tags.c;
# - tag_ida_kunit's frees of unallocated ids: a line "expect a warning from
#   freeing unallocated ids", then WARNINGs at lib/tag_ida.c until that
#   case's result line (its frees reach each WARN_ON_ONCE() site of
#   tag_ida once, and the compiler may duplicate a site: 2 in the 6.12
#   test kernel of 2026-12-07);
# - the kernel's test_ida module (lib/test_ida.c): WARNINGs at lib/idr.c
#   between its own markers "vvv Ignore" and "^^^ Warnings over".
# Any other match of the patterns below fails, a second pool WARNING after
# one announcement too.
#
# usage: zz-dmesg-clean.sh [LOG]: LOG instead of dmesg (the host test
# dmesg-clean, tests/test-dmesg-clean, feeds it made-up logs).
set -eu
. "$LAB_GUEST/lib.sh"

bad='BUG:|Oops|WARNING:|possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|blocked for more than|INFO: lockdep|UBSAN:|KASAN:'

# Prints the lines of the log that report a problem, the tolerated
# warnings on stderr; exits 1 if it printed any.
check() {
	awk -v bad="$bad" '
		# An announcement arms its rule, until its warning comes.
		/expect a warning: percpu_tags: freeing tag [0-9]+/ {
			pool_tag = $0
			sub(/.*expect a warning: percpu_tags: freeing tag /, "", pool_tag)
			sub(/[^0-9].*/, "", pool_tag)
			pool_msg = 0
			next
		}
		pool_tag != "" && index($0, "percpu_tags: freeing tag " pool_tag ", which is not handed out") {
			pool_msg = 1
			next
		}
		/expect a warning from freeing unallocated ids/ { ida_armed = 1; next }
		/ok [0-9]+ tag_ida_test_free_unallocated_changes_nothing/ { ida_armed = 0; next }
		/vvv Ignore/ { test_ida = 1; next }
		/\^\^\^ Warnings over/ { test_ida = 0; next }
		$0 ~ bad {
			if (pool_msg && /WARNING: .* at lib\/percpu_tags\.c:/) {
				print "expected (percpu_tags_kunit): " $0 > "/dev/stderr"
				pool_tag = ""; pool_msg = 0
				next
			}
			if (test_ida && /WARNING: .* at lib\/idr\.c:/) {
				print "expected (test_ida): " $0 > "/dev/stderr"
				next
			}
			if (ida_armed && /WARNING: .* at lib\/tag_ida\.c:/) {
				print "expected (tag_ida_kunit): " $0 > "/dev/stderr"
				next
			}
			print; found = 1
		}
		END { exit found }'
}

status=0
if [ $# -gt 0 ]; then
	log=$(check <"$1") || status=$?
else
	log=$(dmesg | check) || status=$?
fi
if [ "$status" != 0 ]; then
	printf '%s\n' "$log"
	fail "kernel log reports a problem: $(printf '%s\n' "$log" | head -n 1)"
fi
