#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README names where each tool's binary is, in a build directory of one's
# own (build/...) and in the scripts' one (build/release/...), and every
# build/.../tools/... path it names is an executable of this build.
# usage: readme_paths.sh README BUILD_ROOT TOOL_EXE...
set -u
readme=$1
root=$2
shift 2
pass=0
fail=0

for exe in "$@"; do
	rel=${exe#"$root"/}
	for p in "build/$rel" "build/release/$rel"; do
		if grep -qE "(^|[ \`])$p([ \`]|\$)" "$readme"; then
			pass=$((pass + 1))
		else
			echo "FAIL README does not name $p"
			fail=$((fail + 1))
		fi
	done
done
for p in $(grep -oE "build/(release/)?tools/[A-Za-z0-9_./-]*" "$readme" | sort -u); do
	rel=${p#build/}
	rel=${rel#release/}
	if [ -f "$root/$rel" ] && [ -x "$root/$rel" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL README names $p, which is not a program of the build"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
