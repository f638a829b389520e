# KUnit suite of the tag_ida ID allocator (lib/tag_ida_kunit.c): one result
# line per case.
set -eu
. "$LAB_GUEST/lib.sh"
lab_kunit tag_ida_kunit tag_ida
