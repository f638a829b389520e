# Runs last: the kernel log of the whole test boot holds no lockdep report,
# no sleeping-in-atomic report, no BUG, oops, hung task or kernel WARNING.
set -eu
. "$LAB_GUEST/lib.sh"

bad='BUG:|Oops|WARNING:|possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|blocked for more than|INFO: lockdep|UBSAN:|KASAN:'
if dmesg | grep -E "$bad"; then
	fail "kernel log reports a problem: $(dmesg | grep -m1 -E "$bad")"
fi
