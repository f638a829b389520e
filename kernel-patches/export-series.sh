#!/bin/bash
# Write the commits of a development tree since "pristine" as the numbered
# series in this folder, replacing the old patches, and list them in
# "series".  The development tree is a git worktree of the prepared source:
#   git -C "$(make -s print-ksrc)" worktree add -b dev DEVTREE pristine
#
# usage: export-series.sh DEVTREE
set -eu

dev=$1
here=$(cd "$(dirname "$0")" && pwd)
rm -f "$here"/[0-9][0-9][0-9][0-9]-*.patch
git -C "$dev" format-patch -q --no-signature -o "$here" pristine
# Blank context lines become empty lines, which git am reads the same way.
# checkpatch.pl run on these files from this repository takes them for
# source files (they are tracked by git) and reports each " " line as
# trailing whitespace; without them it is clean from anywhere.
sed -i 's/^ $//' "$here"/[0-9][0-9][0-9][0-9]-*.patch
{
	echo "# Our kernel series, applied in this order to a pristine linux-source-6.12."
	(cd "$here" && ls [0-9][0-9][0-9][0-9]-*.patch)
} >"$here/series"
cat "$here/series"
