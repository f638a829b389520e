#!/bin/bash
# Make a patched kernel source tree: Debian's linux-source tarball, unpacked
# once into a pristine git commit, then the series in kernel-patches/series
# applied on top with "git am".  Re-running resets the tree to the pristine
# commit first, so nothing is ever applied twice; git rewrites only the files
# that differ, so the kernel build folders rebuild only what changed.
#
# usage: prepare-source.sh TARBALL KSRC PATCHDIR
set -eu

tarball=$1 ksrc=$2 patchdir=$(cd "$3" && pwd)
pkg_version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
git_k() { git -C "$ksrc" -c user.name=lab -c user.email=lab@localhost "$@"; }

if [ ! -f "$tarball" ]; then
	echo "prepare-source: $tarball is missing (apt-get install linux-source-6.12)" >&2
	exit 1
fi

if [ "$(cat "$ksrc/.git/lab-source-version" 2>/dev/null)" != "$pkg_version" ]; then
	echo "prepare-source: unpacking linux-source-6.12 $pkg_version into $ksrc"
	rm -rf "$ksrc" "$ksrc.tmp"
	mkdir -p "$ksrc.tmp"
	tar -xf "$tarball" -C "$ksrc.tmp" --strip-components=1
	git -C "$ksrc.tmp" init -q
	git -C "$ksrc.tmp" config core.autocrlf false
	git -C "$ksrc.tmp" config gc.auto 0
	git -C "$ksrc.tmp" add -A -f
	git -C "$ksrc.tmp" -c user.name=lab -c user.email=lab@localhost \
		commit -q -m "pristine $(basename "$tarball")"
	git -C "$ksrc.tmp" tag pristine
	echo "$pkg_version" >"$ksrc.tmp/.git/lab-source-version"
	mv "$ksrc.tmp" "$ksrc"
fi

git_k am --abort >/dev/null 2>&1 || true
git_k checkout -q -f -B lab pristine
git_k clean -q -fdx

n=0
while read -r patch _; do
	case "$patch" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	if [ ! -f "$patchdir/$patch" ]; then
		echo "prepare-source: series names $patch, which is not in $patchdir" >&2
		exit 1
	fi
	if ! out=$(git_k am -q --whitespace=nowarn "$patchdir/$patch" 2>&1); then
		echo "prepare-source: $patch does not apply to $(basename "$tarball"):" >&2
		echo "$out" | grep -E '^(error|Patch failed)' >&2 || echo "$out" >&2
		git_k am --abort >/dev/null 2>&1 || true
		exit 1
	fi
done <"$patchdir/series"
echo "prepare-source: $n patch(es) applied to linux-source-6.12 $pkg_version"
