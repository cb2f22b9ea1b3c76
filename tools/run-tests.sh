#!/usr/bin/env bash
# Build rdmakit twice (release, and ASan+UBSan), run every test suite in
# both, run the libFuzzer targets for a bounded time, and print one summary
# line "tests: N passed, N failed, N skipped". Exit status 0 only when no test
# failed. Build trees go under build/ (override with RK_BUILD_ROOT);
# RK_NO_LAB=1 leaves out the interop suite (the QEMU lab).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=${RK_BUILD_ROOT:-build}
FUZZ_SECONDS=${RK_FUZZ_SECONDS:-20}
mkdir -p "$ROOT"
status=0

# Progress while a long step is silent: on a terminal a line rewritten once
# a second, in a log (CI) a line a minute. PROGRESS_CMD prints the step's
# own count (ninja's [n/m], tests done), if it has one.
ticker=
ticker_start() { # LABEL PROGRESS_CMD [tty: yes|no]
	local label=$1 cmd=$2 on_tty=${3:-yes}
	(
		trap 'exit 0' TERM
		n=0
		while sleep 1; do
			kill -0 $$ 2>/dev/null || exit 0 # the script is gone
			n=$((n + 1))
			if [ -t 1 ]; then
				[ "$on_tty" = yes ] && printf '  %s: %s, %d s\r' "$label" "$(eval "$cmd")" "$n"
			elif [ $((n % 60)) = 0 ]; then
				printf '  %s: %s, %d min so far\n' "$label" "$(eval "$cmd")" $((n / 60))
			fi
		done
	) &
	ticker=$!
}
ticker_stop() {
	[ -n "$ticker" ] || return 0
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null
	ticker=
	if [ -t 1 ]; then printf '\033[K'; fi
}
# No INT or TERM trap: a Ctrl-C is meson's (it stops the longest-running
# test and goes on), a TERM to the whole group (timeout, CI) meson's too
# (it ends every test); bash runs the EXIT trap when a signal ends it.
trap ticker_stop EXIT

setup() { # dir, meson args...
	local dir=$1 rc=0; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || {
			cat "$dir.setup.log"; return 1; }
	fi
	ticker_start "building $dir (log $dir.build.log)" \
		"grep -o '^\\[[0-9]*/[0-9]*\\]' '$dir.build.log' 2>/dev/null | tail -1"
	ninja -C "$dir" >"$dir.build.log" 2>&1 || rc=1
	ticker_stop
	[ $rc = 0 ] || { tail -50 "$dir.build.log"; return 1; }
}

# Builds that failed, for the summary: their suites never ran ("skip:"
# marks a part that could not run here, counted as skipped).
broken=()

run_suite() { # dir, label, extra meson test arguments...
	local dir=$1 label=$2
	shift 2
	local total
	total=$(meson test -C "$dir" --list --no-rebuild "$@" 2>/dev/null | grep -c ' / ')
	echo "== $label: meson test ($total tests)"
	if [ -t 1 ]; then
		# meson shows the running tests itself on a terminal
		meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=1
		return
	fi
	# a log gets a line a minute (one test can take minutes), counted from
	# meson's own lines, one per finished test
	ticker_start "$label tests" \
		"echo \"\$(grep -c '^ *[0-9]*/[0-9]* ' '$dir.test.log' 2>/dev/null) of $total done\"" no
	# tee ignores INT and TERM: meson, signalled with it, must still be able
	# to write "Received SIGTERM" before it ends the tests (a write to a
	# closed pipe would stop it first, and the tests would run on)
	PYTHONUNBUFFERED=1 meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" 2>&1 |
		(trap '' INT TERM; exec tee "$dir.test.log") ||
		status=1
	ticker_stop
}

# An earlier run's results must not stand in for a build that failed now.
rm -f "$ROOT"/release/meson-logs/testlog.json "$ROOT"/san/meson-logs/testlog.json

echo "== release build"
if setup "$ROOT/release" -Dbuildtype=release -Db_ndebug=false; then
	if [ "${RK_NO_LAB:-0}" != 0 ]; then
		echo "== the interop suite left out (RK_NO_LAB set)"
		broken+=("skip:interop suite: left out (RK_NO_LAB set)")
		run_suite "$ROOT/release" release --no-suite interop
	else
		run_suite "$ROOT/release" release
	fi
else
	status=1
	broken+=("release build")
fi

echo "== ASan+UBSan build"
if setup "$ROOT/san" -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all; then
	# The DPDK integration suite runs in the release build only: EAL's
	# memory management and ASan's shadow memory do not mix.
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		run_suite "$ROOT/san" sanitizers --no-suite dpdk --no-suite interop
else
	status=1
	broken+=("ASan+UBSan build")
fi

fuzz_pass=0 fuzz_fail=0
if command -v clang >/dev/null; then
	echo "== libFuzzer targets (${FUZZ_SECONDS}s each)"
	if CC=clang setup "$ROOT/fuzz" -Dbuildtype=debugoptimized -Dfuzz=true -Dtests=disabled \
		-Dc_args=-fsanitize=fuzzer-no-link \
		-Db_sanitize=address,undefined -Db_lundef=false; then
		for f in "$ROOT"/fuzz/tests/fuzz/fuzz_*; do
			[ -f "$f" ] && [ -x "$f" ] || continue
			name=$(basename "$f")
			corpus="$ROOT/fuzz/corpus-$name"
			mkdir -p "$corpus"
			seeds=tests/fuzz/seeds/${name#fuzz_}
			if "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 \
				-print_final_stats=0 "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) \
				>"$ROOT/fuzz/$name.log" 2>&1; then
				echo "ok   $name ($(grep -o 'Done [0-9]* runs' "$ROOT/fuzz/$name.log"))"
				fuzz_pass=$((fuzz_pass + 1))
			else
				echo "FAIL $name"; tail -40 "$ROOT/fuzz/$name.log"
				fuzz_fail=$((fuzz_fail + 1)); status=1
			fi
		done
	else
		status=1
		broken+=("fuzz build")
	fi
else
	echo "== libFuzzer targets skipped: clang is not installed (run tools/setup-debian.sh)"
	broken+=("skip:fuzzing: clang is not installed")
fi

# Totals from meson's machine-readable logs (one entry per test).
python3 - "$ROOT" "$fuzz_pass" "$fuzz_fail" "${broken[@]}" <<'PY'
import json, os, re, sys
root, fp, ff = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
broken = sys.argv[4:]
p = f = s = 0
skipped = []
partly = []
for b in ("release", "san"):
    log = os.path.join(root, b, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        continue
    for line in open(log):
        t = json.loads(line)
        r = t.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            p += 1
            # a part it could not run here (a tool missing) is named too
            for x in (t.get("stdout") or "").splitlines():
                if re.match(r"(SKIP|skip)[ :]", x):
                    partly.append(f"{b}: {t.get('name')}: {x.strip()}")
        elif r == "SKIP":
            s += 1
            why = [x for x in (t.get("stdout") or "").splitlines() if "SKIP" in x]
            skipped.append(f"{b}: {t.get('name')}: {why[0].strip() if why else 'no reason given'}")
        else:
            f += 1
# A skip is never a pass: each one is named, with the reason it gave.
for x in skipped:
    print(f"skipped {x}")
for x in partly:
    print(f"passed, part skipped {x}")
# A build that failed is a failure of its own, its suites not run.
nb = ns = 0
for x in broken:
    if x.startswith("skip:"):
        print(f"skipped {x[5:]}")
        ns += 1
    else:
        print(f"failed {x}: its tests did not run")
        nb += 1
print(f"tests: {p + fp} passed, {f + ff + nb} failed, {s + ns} skipped")
PY
exit $status
