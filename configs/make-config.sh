#!/bin/bash
# Write KBUILD/.config for one guest kernel flavour: tinyconfig plus
# common.config plus FLAVOUR.config (fragments of this folder, as the
# kernel's kernel/configs/*.config), after the fragment of the flavour it
# names on a "# base: FLAVOUR" line, if any (kasan: the test kernel's
# options, then its own).  The config is generated in a
# scratch folder and copied into KBUILD only when it differs, so an existing
# build folder is never reset by tinyconfig and rebuilds only what changed.
# Fails, naming the option, when a fragment asks for something Kconfig refused.
#
# usage: make-config.sh FLAVOUR KSRC KBUILD
set -eu

flavour=$1 ksrc=$2 kbuild=$3
here=$(cd "$(dirname "$0")" && pwd)
own=$here/$flavour.config
[ -f "$own" ] || { echo "make-config: no fragment $own (flavour '$flavour')" >&2; exit 1; }
base=$(sed -n 's/^# base: *//p' "$own")
frags=("$here/common.config" ${base:+"$here/$base.config"} "$own")
scratch=$kbuild.config-scratch

for f in "${frags[@]}"; do
	[ -f "$f" ] || { echo "make-config: no fragment $f (flavour '$flavour')" >&2; exit 1; }
done

mkdir -p "$scratch" "$kbuild"
make -s -C "$ksrc" O="$scratch" tinyconfig >/dev/null
"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$scratch" "$scratch/.config" "${frags[@]}" >/dev/null
make -s -C "$ksrc" O="$scratch" olddefconfig >/dev/null

bad=0
for f in "${frags[@]}"; do
	frag=$(basename "$f")
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want=$line ;;
		'# CONFIG_'*' is not set') want=$line ;;
		*) continue ;;
		esac
		sym=${want#\# }; sym=${sym%%[= ]*}
		got=$(grep -E "^($sym=|# $sym is not set)" "$scratch/.config" || true)
		if [ "$got" != "$want" ] && ! { [ -z "$got" ] && [ "${want#\#}" != "$want" ]; }; then
			echo "make-config: $frag asks for '$want', Kconfig gave '${got:-nothing}'" >&2
			bad=1
		fi
	done <"$f"
done
[ "$bad" = 0 ] || exit 1

if ! cmp -s "$scratch/.config" "$kbuild/.config"; then
	cp "$scratch/.config" "$kbuild/.config"
	echo "make-config: $flavour config updated in $kbuild"
fi
