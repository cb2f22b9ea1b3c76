#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The man pages and the bash completion: each page renders, names its tool
# and lists every option and range (1..64) its --help has (rk-gen: and
# its stateful mode's); `meson install --tags man` puts
# the pages where man finds them and the completion where bash-completion
# does; the completion offers a tool's options from its --help.
# usage: man_check.sh BUILD_DIR TOOL=EXE...
set -u
build=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

if ! command -v man >/dev/null || ! command -v help2man >/dev/null; then
	echo "SKIP: man or help2man is not installed (tools/setup-debian.sh installs them)"
	exit 77
fi
DESTDIR=$tmp meson install -C "$build" --tags man --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	ko "meson install --tags man: $(tail -3 "$tmp/install.log")"
mandir=$(find "$tmp" -type d -name man1 | head -1)
compdir=$(find "$tmp" -type d -name completions | head -1)
for arg in "$@"; do
	name=${arg%%=*}
	exe=${arg#*=}
	page="$build/doc/man/$name.1"
	if [ ! -s "$page" ]; then
		ko "$name: no page built"
		continue
	fi
	text=$(MANWIDTH=200 man -l "$page" 2>"$tmp/err")
	missing=""
	# the help of a mode of its own too (rk-gen's stateful mode): its
	# options and their ranges (1..65533) belong in the page as well
	help=$("$exe" --help 2>/dev/null)
	case $name in
	rk-gen) help="$help
$("$exe" --responder --help 2>/dev/null)";;
	esac
	for o in $(grep -oE -- '--[a-z][a-z0-9_-]*' <<<"$help" | sort -u) \
		 $(grep -oE '[0-9]+\.\.[0-9]+' <<<"$help" | sort -u); do
		grep -qF -- "$o" <<<"$text" || missing="$missing $o"
	done
	if grep -q "^NAME" <<<"$text" && grep -q "$name - " <<<"$text" && [ -z "$missing" ] &&
	   [ ! -s "$tmp/err" ]; then
		ok "$name(1): renders, every --help option and range listed"
	else
		ko "$name(1): missing options or ranges:${missing:- none}; $(head -2 "$tmp/err")"
	fi
	# --version: one line, exit 0; a refused option: a line and a hint, exit 2
	v=$("$exe" --version 2>&1)
	rc=$?
	"$exe" --no-such-option >/dev/null 2>"$tmp/bad"
	rb=$?
	if [ $rc = 0 ] && grep -qE "^$name [0-9]+\.[0-9]+\.[0-9]+( |\$)" <<<"$v"; then
		if [ $rc = 0 ] && [ $rb = 2 ] && [ "$(wc -l <"$tmp/bad")" -le 2 ]; then
			ok "$name: --version '$v'; a bad option: exit 2, $(wc -l <"$tmp/bad") lines"
		else
			ko "$name: --version exit $rc; a bad option: exit $rb, $(wc -l <"$tmp/bad") lines"
		fi
	else
		ko "$name: --version said '$v' (exit $rc)"
	fi
	# installed where man looks for it
	if [ -n "$mandir" ] && MANPATH="${mandir%/man1}" man -w "$name" >/dev/null 2>&1; then
		ok "$name: man $name finds the installed page"
	else
		ko "$name: not installed in a man directory"
	fi
	# the completion offers the tool's options
	if [ -n "$compdir" ] && [ -f "$compdir/$name" ]; then
		# the last long option of --help, from its first four characters
		want=$("$exe" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9_-]*' | tail -1)
		# shellcheck disable=SC1090
		got=$(PATH="$(dirname "$exe"):$PATH" bash -c '. "$1"; COMP_WORDS=("$2" "$3");
			COMP_CWORD=1; _rdmakit_complete; printf "%s\n" "${COMPREPLY[@]}"' _ \
			"$compdir/$name" "$name" "${want:0:4}")
		grep -qx -- "$want" <<<"$got" && ok "$name: completion offers $want from ${want:0:4}" ||
			ko "$name: completion offered '$got' for ${want:0:4}, not $want"
		# a tool with commands: the command's own options after it, the
		# commands first (rk-sim incast --duration, not the top level's)
		if [ "$name" = rk-sim ]; then
			got=$(PATH="$(dirname "$exe"):$PATH" bash -c '. "$1"; COMP_WORDS=("$2" incast --d)
				COMP_CWORD=2; _rdmakit_complete; printf "%s\n" "${COMPREPLY[@]}"
				COMP_WORDS=("$2" incas); COMP_CWORD=1; _rdmakit_complete
				printf "%s\n" "${COMPREPLY[@]}"' _ "$compdir/$name" "$name" | sort | tr '\n' ' ')
			[ "$got" = "--dcqcn --duration incast " ] &&
				ok "$name: completion of a command and its options" ||
				ko "$name: completion of 'incast --d' and 'incas' gave '$got'"
		fi
	else
		ko "$name: no completion installed"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
