# SPDX-License-Identifier: BSD-3-Clause
"""Counted checks for the test scripts of tests/tools: check() compares and
records, finish() prints the failures and the closing "N passed, N failed"
line and gives the exit status."""

failures = []
passed = 0


def check(what, got, want):
    """Record whether @got equals @want, named @what in a failure."""
    global passed
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")
    else:
        passed += 1


def finish():
    """Print the failures and the closing line; return the exit status."""
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0
