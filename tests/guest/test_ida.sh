# The kernel's own IDA self test (CONFIG_TEST_IDA).  Loading the module runs
# it; it refuses to stay loaded (-EINVAL) when all checks pass, so the verdict
# is the line it prints: "IDA: PASSED of RUN tests passed".
set -eu
. "$LAB_GUEST/lib.sh"

lab_modprobe test_ida 2>/dev/null || true
line=$(dmesg | grep -o 'IDA: [0-9]* of [0-9]* tests passed' | tail -n1)
[ -n "$line" ] || fail "test_ida printed no result"
echo "$line"
read -r _ passed _ run _ <<<"$line"
if [ "$passed" -eq 0 ] || [ "$passed" != "$run" ]; then
	fail "$line"
fi
