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

setup() { # dir, meson args...
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || {
			cat "$dir.setup.log"; return 1; }
	fi
	ninja -C "$dir" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log"; return 1; }
}

# Builds that failed, for the summary: their suites never ran ("skip:"
# marks a part that could not run here, counted as skipped).
broken=()

run_suite() { # dir, label, extra meson test arguments...
	local dir=$1 label=$2
	shift 2
	echo "== $label: meson test"
	meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" ||
		status=1
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
