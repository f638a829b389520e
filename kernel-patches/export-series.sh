#!/bin/bash
# Write the commits of a development tree since "pristine" as the numbered
# series in this folder, replacing the old patches, and list them in
# "series".  The development tree is a git worktree of the prepared source:
#   git -C "$(make -s print-ksrc)" worktree add -b dev DEVTREE pristine
#
# The cover letter, 0000-cover-letter.patch, gets its subject (first line)
# and text from cover-letter.txt in this folder.
#
# usage: export-series.sh DEVTREE
set -eu

dev=$1
here=$(cd "$(dirname "$0")" && pwd)
rm -f "$here"/[0-9][0-9][0-9][0-9]-*.patch
git -C "$dev" -c user.name="Tag Pool Lab" -c user.email=lab@localhost format-patch -q --no-signature --cover-letter -o "$here" pristine
python3 - "$here/0000-cover-letter.patch" "$here/cover-letter.txt" <<'PY'
import sys
patch, text = sys.argv[1], open(sys.argv[2]).read()
subject, _, blurb = text.partition("\n\n")
s = open(patch).read()
s = s.replace("*** SUBJECT HERE ***", subject.strip()).replace("*** BLURB HERE ***", blurb.strip())
# The diffstat's "create mode" lines name new files by their full paths,
# longer than a message line may be (checkpatch); the diffstat has them.
s = "".join(l for l in s.splitlines(True) if not l.startswith((" create mode ", " delete mode ")))
open(patch, "w").write(s)
PY
# Blank context lines become empty lines, which git am reads the same way.
# checkpatch.pl run on these files from this repository takes them for
# source files (they are tracked by git) and reports each " " line as
# trailing whitespace; without them it is clean from anywhere.
sed -i 's/^ $//' "$here"/[0-9][0-9][0-9][0-9]-*.patch
{
	echo "# Our kernel series, applied in this order to a pristine linux-source-6.12."
	for p in "$here"/[0-9][0-9][0-9][0-9]-*.patch; do
		case ${p##*/} in 0000-*) ;; *) echo "${p##*/}" ;; esac
	done
} >"$here/series"
cat "$here/series"
