#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-conform's iw.* cases against Linux soft-iWARP (siw) in the project's
# lab: the guest runs a persistent `rping -s -P` server (port 18520; in a
# loop, should it end), rk-conform --dut perftest --serve rping=18520
# makes a TCP connection (lwIP on the lab's host port dpdk0) per case and
# is the MPA Initiator on it, and the verdicts are compared with the
# committed ones (EXPECTED): a change in siw's behaviour, or in
# rk-conform's, shows as DIFF lines and fails.
#
# iw.mpa.rtr_wrong runs last, alone: Linux 6.1's iw_cm hits a BUG() on
# it (drivers/infiniband/core/iwcm.c, doc/conformance.md) and the guest's
# iWARP connection manager serves no connection after that. Whether the
# BUG fired is printed, not judged.
#
#   conform_siw.sh RK_CONFORM EXPECTED
#
# Uses the running lab of RK_LAB_NS (default rklabsiw) when it runs siw
# (siw.sh runs this at its end, RK_LAB_LOCKED=1: it holds the lab's lock),
# else boots one. Exit 0 when the verdicts match, 1 when they differ or
# the run broke, 77 (skip) with the reason when the lab cannot run here.
# RK_CONFORM_KEEP=1 keeps the outputs (the failing cases' pcaps).
set -u
rkc=$1
expected=$2
here=$(cd "$(dirname "$0")" && pwd)
LAB_NS=${RK_LAB_NS:-rklabsiw}
# shellcheck source=lab-common.sh
. "$here/lab-common.sh"
lab_checks "$rkc"
export RDMA_PEER_RUN=${RDMA_PEER_RUN:-/run/rdma-peer-$LAB_NS}
tmp=$(mktemp -d /tmp/rk-conform-siw.XXXXXX)
booted=0
srv=""
if [ -z "${RK_LAB_LOCKED:-}" ]; then
	exec 9>"/run/rk-interop-$LAB_NS.lock"
	flock -w 600 9 || skip "another run holds the lab $LAB_NS"
fi

cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	if [ "$booted" = 1 ]; then
		"$peer" down >/dev/null 2>&1
		lab_disown
	fi
	[ -n "${RK_CONFORM_KEEP:-}" ] && echo "outputs kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$rkc" --help 2>&1 | grep -q "rping=PORT" || skip "rk-conform was built without lwIP (no iWARP)"
lab_use_or_up "$tmp/up.log" --rdma siw
pexec 10 1 'rdma link show' 2>/dev/null | grep -q siw || { echo "FAIL: the lab's guest has no siw link"; exit 1; }

# A persistent server takes every case's connection (one that ends after
# each client is still in the middle of ending when the next case comes,
# and its listener rejects it); rk-conform retries a connection refused.
pexec 900 1 'while :; do rping -s -P -a 198.18.0.11 -p 18520 >/dev/null 2>&1; sleep 0.2; done' \
	>"$tmp/server.log" 2>&1 &
srv=$!
pexec 30 1 "for i in \$(seq 100); do rdma res show cm_id | grep -q 'LISTEN.*:18520\\b' && exit 0; sleep 0.2; done; exit 1" \
	>/dev/null 2>&1 || { echo "FAIL: the guest's rping server did not listen"; exit 1; }

. "$here/../helpers/dpdk-mem.sh"
# run_conform OUT CASES
run_conform() {
	lab_conform 600 --serve rping=18520 --timeout-ms 1000 --connect-timeout 15 \
		--cases "$2" --expect "$expected" --verdicts "$1.verdicts" \
		--json "$1.json" --junit "$1.xml" --pcap-dir "$tmp/fails" >"$1" 2>&1
}
FIRST='iw.ddp.*,iw.rdmap.*,iw.mpa.[!r]*,iw.mpa.re*'
echo "guest: $(lab_versions)"
t0=$(date +%s)
conform_twice "the first run" "$tmp/out" run_conform "$FIRST"
grep -vE "^(TELEMETRY|ID )" "$tmp/out"
if conform_matched "$rc" "$tmp/out"; then
	run_conform "$tmp/last" iw.mpa.rtr_wrong
	lrc=$?
	grep -E "^(iw\.|DIFF|NEW|GONE|expected verdicts)" "$tmp/last"
	conform_matched "$lrc" "$tmp/last" || rc=1
	sleep 1
	bug=$(pexec 10 1 'dmesg | grep -m1 "kernel BUG at"' 2>/dev/null)
	echo "guest kernel after iw.mpa.rtr_wrong: ${bug:-no BUG}"
fi
t1=$(date +%s)
echo "rk-conform against siw: exit $rc in $((t1 - t0)) s"
if [ "$rc" = 0 ] && conform_matched 0 "$tmp/out"; then
	echo "PASS: the verdicts equal $expected"
	exit 0
fi
echo "FAIL: the verdicts differ from $expected (or the run broke)"
echo "---- guest kernel:"
pexec 10 1 'dmesg | tail -8' 2>&1 | tail -8
exit 1
