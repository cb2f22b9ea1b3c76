#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A test script that traps INT or TERM must end there: a trap that only
# cleans up (removes its directory, kills its servers) lets the script
# carry on without its files after meson's SIGTERM, printing errors until
# the SIGKILL. Every trap naming INT or TERM in tests/ and tools/ must
# exit (the EXIT trap does the cleaning).
# usage: signal_traps_check.sh SOURCE_ROOT
root=$1
bad=$(cd "$root" && grep -rnE "^[[:space:]]*trap .*[[:space:]](INT|TERM)([[:space:]]|\$)" \
	--include='*.sh' tests tools | grep -v "exit")
n=$(cd "$root" && grep -rlE "^[[:space:]]*trap .*[[:space:]](INT|TERM)([[:space:]]|\$)" \
	--include='*.sh' tests tools | wc -l)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/FAIL a trap that does not exit: /'
	exit 1
fi
[ "$n" -gt 10 ] || { echo "FAIL only $n scripts with INT/TERM traps found: the scan is broken"; exit 1; }
echo "ok: the INT/TERM traps of $n scripts exit"
