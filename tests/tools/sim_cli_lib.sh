# SPDX-License-Identifier: BSD-3-Clause
# Shared by sim_cli_check.sh and sim_scenarios_check.sh (sourced): the
# temporary directory, the counters and expect(). $1 is rk-sim.
set -u
sim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0

# $1 expected exit status, $2 text stderr must hold, then rk-sim's arguments.
# Every message is rk-sim's own: "rk-sim: ", not the path it ran as.
expect() {
	want_rc=$1 want=$2
	shift 2
	timeout 20 "$sim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	first=$(head -1 "$tmp/err")
	if [ $rc -ne "$want_rc" ] || { [ -n "$want" ] && ! grep -qF -- "$want" "$tmp/err"; }; then
		echo "FAIL rk-sim $*: exit $rc, stderr '$first', expected $want_rc '$want'"
		fail=$((fail + 1))
	elif [ -n "$first" ] && [ "${first#rk-sim: }" = "$first" ]; then
		echo "FAIL rk-sim $*: stderr '$first' does not start with 'rk-sim: '"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}
