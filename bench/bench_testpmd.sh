#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# rk-testpmd's io engine against dpdk-testpmd --forward-mode=io, as the
# middle of the same loop: the middle owns two net_memif links (servers,
# forwarding on lcore 1); a peer dpdk-testpmd (client of both links,
# forwarding on lcore 0, --tx-first) forwards io the other way, so the
# frames it sent first circle through both. The peer measures both middles
# alike: the best of its per-second Rx-pps on port 0. Each round runs the
# reference right before rk-testpmd; the ratio is the median of the
# rounds' rk-testpmd / dpdk-testpmd (target >= 0.9). Then the impair
# engine with 8 rules loaded, none matching, against io (target >= 0.8).
# The loop carries 512 frames (two bursts of 256 sent first): 7.5 to 8.8
# Mpps on an idle 2-core machine; with other work on the machine it fell
# to 0.1-0.3 Mpps, each busy-polling process then waiting for a core.
#
# usage: bench_testpmd.sh BUILD_DIR [SECONDS [ROUNDS]]  (SECONDS of the peer, default 10:
# its link check takes a few of them)
# Machine-readable line: "@result testpmd_io ...".
set -u
build=$1
secs=${2:-10}
rounds=${3:-3}
tp=$build/apps/rk-testpmd
command -v dpdk-testpmd >/dev/null || { echo "SKIP: no dpdk-testpmd"; exit 77; }
[ -x "$tp" ] || { echo "SKIP: no $tp"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-bench-testpmd.XXXXXX") || exit 2
mid=""
cleanup() {
	[ -n "$mid" ] && kill "$mid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# Each process keeps to its own memory: --in-memory with hugepages, else anonymous.
# shellcheck source=../tests/helpers/dpdk-mem.sh
. "$(dirname "$0")/../tests/helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:critical"

# loop_pps MIDDLE_COMMAND...: the peer's best Rx-pps with that middle.
loop_pps() {
	a=$tmp/a.sock b=$tmp/b.sock
	rm -f "$a" "$b"
	# stdin that stays open: without -i, both programs end at end of input
	tail -f /dev/null | "$@" --vdev=net_memif0,role=server,socket="$a",socket-abstract=no \
		--vdev=net_memif1,role=server,socket="$b",socket-abstract=no \
		-- $MIDDLE_ARGS >"$tmp/mid.out" 2>&1 &
	mid=$!
	for _ in $(seq 50); do [ -S "$a" ] && [ -S "$b" ] && break; sleep 0.1; done
	tail -f /dev/null | timeout -s INT "$secs" dpdk-testpmd $EAL -l 0-1 --main-lcore 1 \
		--vdev=net_memif0,role=client,socket="$a",socket-abstract=no \
		--vdev=net_memif1,role=client,socket="$b",socket-abstract=no \
		-- --forward-mode=io --nb-cores=1 --tx-first --burst=256 --total-num-mbufs=16384 \
		--stats-period 1 2>&1 | sed -n 's/.*Rx-pps: *\([0-9]*\).*/\1/p' |
		sort -n | tail -1
	kill -INT "$mid" 2>/dev/null
	wait "$mid" 2>/dev/null
	mid=""
}

# 8 rules that match none of the peer's frames (UDP 9 to 1024, no BTH match)
rules=$tmp/rules.cmd
for q in 1 2 3 4 5 6 7 8; do echo "impair add qp=$((0x100 + q)) drop-every=2"; done >"$rules"

ratios="" iratios=""
best_tp=0 best_ref=0 best_imp=0
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	MIDDLE_ARGS="--forward-mode=io --nb-cores=1 --total-num-mbufs=16384"
	ref=$(loop_pps dpdk-testpmd $EAL -l 0-1 --main-lcore 0)
	MIDDLE_ARGS="--forward-mode io --nb-cores 1"
	got=$(loop_pps "$tp" $EAL -l 0-1 --main-lcore 0)
	MIDDLE_ARGS="--forward-mode impair --nb-cores 1 --cmdline-file $rules"
	imp=$(loop_pps "$tp" $EAL -l 0-1 --main-lcore 0)
	echo "round $r: rk-testpmd io ${got:-0} pps, impair (8 rules, none matching) ${imp:-0} pps, dpdk-testpmd io ${ref:-0} pps"
	ratios="$ratios $(python3 -c "print(${got:-0} / max(${ref:-0}, 1))")"
	iratios="$iratios $(python3 -c "print(${imp:-0} / max(${got:-0}, 1))")"
	best_imp=$(python3 -c "print(max($best_imp, ${imp:-0}))")
	best_tp=$(python3 -c "print(max($best_tp, ${got:-0}))")
	best_ref=$(python3 -c "print(max($best_ref, ${ref:-0}))")
done
median=$(python3 -c "import statistics,sys; print('%.3f' % statistics.median(map(float, sys.argv[1:])))" $ratios)
echo "io forwarding, memif loop: rk-testpmd / dpdk-testpmd = $median (median of $rounds rounds; target >= 0.9)"
imedian=$(python3 -c "import statistics,sys; print('%.3f' % statistics.median(map(float, sys.argv[1:])))" $iratios)
echo "impair with 8 rules, none matching / io: $imedian (median of $rounds rounds; target >= 0.8)"
echo "@result testpmd_io ratio=$median rk_testpmd_pps=$best_tp dpdk_testpmd_pps=$best_ref"
echo "@result testpmd_impair8 ratio=$imedian impair_pps=$best_imp io_pps=$best_tp"
