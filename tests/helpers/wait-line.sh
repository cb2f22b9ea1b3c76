# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests that start a program in the background and wait for a
# line of its output before going on.
# wait_line FILE REGEX [SECONDS [PID]]: wait until a line of FILE matches
# the extended REGEX, up to SECONDS (10 by default);
# returns 1 on the timeout, or as soon as PID, when given, has ended.
wait_line() {
	local file=$1 re=$2 tenths pid=${4:-}
	tenths=$(( ${3:-10} * 10 ))
	for _ in $(seq "$tenths"); do
		grep -qE -- "$re" "$file" 2>/dev/null && return 0
		[ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
