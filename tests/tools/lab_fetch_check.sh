#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-lab's package fetch under the options rk-lab runs with (errexit,
# pipefail, inherit_errexit): with nothing cached, as on a fresh machine,
# it downloads and names the .deb; cached, it names it without a
# download; a download that leaves nothing is "unavailable" (exit 3).
# No network: apt-get is replaced by a function that writes the file.
# usage: lab_fetch_check.sh LAB_DIR
set -euo pipefail
shopt -s inherit_errexit
LAB_DIR=$1
# shellcheck source=/dev/null
. "$LAB_DIR/lib/common.sh"
# shellcheck source=/dev/null
. "$LAB_DIR/lib/image.sh"
RK_LAB_CACHE=$(mktemp -d)
trap 'rm -rf "$RK_LAB_CACHE"' EXIT
mkdir -p "$RK_LAB_CACHE/debs"
downloads=0
fake_apt() { # ... download PKG=VER: writes PKG_VER_all.deb here
	local spec=${*: -1}
	[ "${FAKE_APT_EMPTY:-}" = 1 ] && return 0
	: >"${spec%%=*}_${spec#*=}_all.deb"
}
APT=(fake_apt)
fail=0
check() { # what, got, want
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got '$2', want '$3'"; fail=1; fi
}

got=$(fetch_deb linux-source-6.1 6.1.192-3)
check "nothing cached: downloaded" "$got" "$RK_LAB_CACHE/debs/linux-source-6.1_6.1.192-3_all.deb"
touch "$RK_LAB_CACHE/debs/cached_1.0_amd64.deb"
APT=(false)
got=$(fetch_deb cached 1.0)
check "cached: no download" "$got" "$RK_LAB_CACHE/debs/cached_1.0_amd64.deb"
APT=(fake_apt)
rc=0
(FAKE_APT_EMPTY=1 fetch_deb missing 2.0 >/dev/null 2>&1) || rc=$?
check "a download that leaves nothing: exit 3" "$rc" 3
[ $fail = 0 ] && echo "all passed"
exit $fail
