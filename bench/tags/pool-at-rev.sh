#!/bin/bash
# Write into DEST the tag allocator sources as this repository's series had
# them at revision REV: lib/percpu_tags.c, lib/tag_ida.c and their headers
# from REV's kernel-patches/, lib/sbitmap.c and its header from the pristine
# tree KSRC.  For measuring an earlier pool beside the current one
# (make bench-scale POOL_BASE=REV).
#
# usage: pool-at-rev.sh REV KSRC DEST
set -eu

rev=$1 ksrc=$2 dest=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)

if ! git -C "$repo" rev-parse -q --verify "$rev^{commit}" >/dev/null; then
	echo "pool-at-rev: $rev is not a commit of $repo" >&2
	exit 2
fi
rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/include/linux"
git -C "$ksrc" show pristine:lib/sbitmap.c >"$dest/lib/sbitmap.c"
git -C "$ksrc" show pristine:include/linux/sbitmap.h >"$dest/include/linux/sbitmap.h"
git -C "$repo" show "$rev:kernel-patches/series" | grep -v '^#' |
while read -r patch; do
	[ -n "$patch" ] || continue
	git -C "$repo" show "$rev:kernel-patches/$patch" |
		(cd "$dest" && git apply --unsafe-paths \
			--include=lib/percpu_tags.c --include=lib/tag_ida.c \
			--include=include/linux/percpu_tags.h \
			--include=include/linux/tag_ida.h -)
done
for f in lib/percpu_tags.c lib/tag_ida.c include/linux/percpu_tags.h include/linux/tag_ida.h; do
	[ -f "$dest/$f" ] || { echo "pool-at-rev: $rev's series has no $f" >&2; exit 1; }
done
git -C "$repo" rev-parse --short "$rev" >"$dest/REV"
