#!/bin/bash
# Check that the series bisects: apply it one patch at a time to the
# pristine tree and, at every step, run checkpatch.pl --strict on that patch
# and build with W=1 the objects of every .c file the series has touched so
# far (a header a patch changes rebuilds what includes it), in a scratch
# worktree and build folder under WORK.  The build is configured from CONFIG
# (the test kernel's .config) at the first step and at every step that
# changes a Kconfig file, so that options a later patch adds are on as soon
# as it is applied.  A patch that changes only tools/ and Documentation/
# changes no kernel object: its step runs checkpatch alone.  Ends with one
# line per patch and "series-check: N patches, N failed".
#
# usage: series-check.sh KSRC PATCHDIR CONFIG WORK
set -eu

ksrc=$1 patchdir=$(cd "$2" && pwd) config=$3 work=$4
tree=$work/tree build=$work/build
jobs=${JOBS:-3}
mkdir -p "$work" "$build"
git -C "$ksrc" worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
git -C "$ksrc" worktree prune
git -C "$ksrc" worktree add -q --detach "$tree" pristine
git_t() { git -C "$tree" -c user.name=lab -c user.email=lab@localhost "$@"; }

# configure: the build's .config from CONFIG at the first build and after a
# patch that changed a Kconfig file (a new build.log either way).
configure() {
	: >"$work/build.log"
	[ -z "$configured" ] || [ -n "$(git_t show --pretty= --name-only HEAD -- '*Kconfig*')" ] || return 0
	configured=yes
	cp "$config" "$build/.config"
	make -s -C "$tree" O="$build" olddefconfig >"$work/build.log" 2>&1
}

objects=() n=0 failed=0 configured=
while read -r patch _; do
	case "$patch" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	why=
	if ! git_t am -q --whitespace=nowarn "$patchdir/$patch" >"$work/am.log" 2>&1; then
		echo "series-check: $patch does not apply:" >&2
		cat "$work/am.log" >&2
		exit 1
	fi
	# UNKNOWN_COMMIT_ID: the tree is Debian's tarball, without upstream
	# history, so a Fixes: tag's commit cannot be looked up.
	if ! (cd "$tree" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --terse \
		--ignore UNKNOWN_COMMIT_ID "$patchdir/$patch") >"$work/checkpatch.log" 2>&1; then
		why="checkpatch: $(grep -m1 -E ': (ERROR|WARNING|CHECK):' "$work/checkpatch.log" || tail -n1 "$work/checkpatch.log")"
	fi
	# Kernel objects only: tools/ holds userspace programs with their own
	# makefiles.
	for f in $(git_t show --pretty= --name-only HEAD -- '*.c' ':!tools/'); do
		[ -f "$tree/$f" ] || continue
		case " ${objects[*]} " in *" ${f%.c}.o "*) ;; *) objects+=("${f%.c}.o") ;; esac
	done
	note="${#objects[@]} objects"
	if [ -z "$(git_t show --pretty= --name-only HEAD -- ':!tools/' ':!Documentation/')" ]; then
		note="tools/ and Documentation/ only: no build"
	elif ! configure || { [ ${#objects[@]} -gt 0 ] &&
	     ! make -s -C "$tree" O="$build" -j"$jobs" W=1 "${objects[@]}" >>"$work/build.log" 2>&1; }; then
		why="${why:+$why; }build failed: $(grep -m1 -E 'error' "$work/build.log" || tail -n1 "$work/build.log")"
	elif grep -E ' warning: ' "$work/build.log" | grep -v -E '^(scripts|arch)/' >"$work/warnings" &&
	     [ -s "$work/warnings" ]; then
		why="${why:+$why; }W=1: $(head -n1 "$work/warnings")"
	fi
	if [ -n "$why" ]; then
		failed=$((failed + 1))
		echo "not ok $n - $patch # $why"
	else
		echo "ok $n - $patch ($note)"
	fi
done <"$patchdir/series"
git -C "$ksrc" worktree remove --force "$tree"
echo "series-check: $n patches, $failed failed"
[ "$failed" = 0 ]
