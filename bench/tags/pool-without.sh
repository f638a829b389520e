#!/bin/bash
# Write into OUT the tag allocator sources of the kernel tree SRC with one of
# the pool's optimisations taken out, for measuring the pool without it
# beside the pool with it (make bench-scale POOL_WITHOUT=FEATURE):
# lib/{percpu_tags,tag_ida,sbitmap}.c and include/linux/ their headers, in
# the same layout, as bench/tags/build.sh reads them.
#
# FEATURE is one of
#   free_to   percpu_tag_free_to(): its kernel-doc, body and export, and its
#             prototype; bench/tags/alloc.c then frees with percpu_tag_free()
#             on the completing CPU (its weak fallback for older pools).
# It fails if the text to remove is not there exactly once, so that a
# changed series cannot be measured unchanged under the ablated name.
#
# usage: pool-without.sh FEATURE SRC OUT
set -eu

[ $# -eq 3 ] || { echo "usage: pool-without.sh FEATURE SRC OUT" >&2; exit 2; }
feature=$1 src=$2 out=$3

case $feature in
free_to) fn=percpu_tag_free_to ;;
*)	echo "pool-without: unknown feature '$feature' (known: free_to)" >&2
	exit 2 ;;
esac

rm -rf "$out"
mkdir -p "$out/lib" "$out/include/linux"
for f in lib/percpu_tags.c lib/tag_ida.c lib/sbitmap.c \
	 include/linux/percpu_tags.h include/linux/tag_ida.h include/linux/sbitmap.h; do
	cp "$src/$f" "$out/$f"
done

# An exported function: "/**\n * FN - ..." through "EXPORT_SYMBOL_GPL(FN);"
# and the blank line after it in the .c file; its prototype, with its
# continuation lines up to the ");", in the header.
python3 - "$fn" "$out/lib/percpu_tags.c" "$out/include/linux/percpu_tags.h" <<'EOF'
import re, sys

fn, c_file, h_file = sys.argv[1:]
cuts = [
    (c_file, re.compile(r"^/\*\*\n \* %s - (?:.*\n)*?EXPORT_SYMBOL(?:_GPL)?\(%s\);\n\n?"
                        % (fn, fn), re.M)),
    (h_file, re.compile(r"^void %s\([^;]*\);\n" % fn, re.M)),
]
for path, pattern in cuts:
    with open(path) as f:
        text = f.read()
    new, n = pattern.subn("", text)
    if n != 1:
        sys.exit(f"pool-without: {fn} found {n} times in {path}, not once: "
                 "nothing removed")
    # The match must not have swallowed another function's kernel-doc.
    if re.search(r"^/\*\*\n \* (?!%s )\w+ - " % fn, pattern.search(text).group(0), re.M):
        sys.exit(f"pool-without: the text removed from {path} spans more than {fn}")
    with open(path, "w") as f:
        f.write(new)
EOF
echo "$feature" >"$out/WITHOUT"
