#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen on DPDK's net_null0 at top speed, one core, a PSN changed every
# frame: Mpps with the incremental ICRC and with the ICRC recomputed in
# full, for a 58-byte frame (64 on the wire) and a 1 KiB payload, and
# their ratio, from rk-gen's own summary line (best of ROUNDS); then each
# as a ratio to dpdk-testpmd's txonly engine on the same device (target
# >= 0.9).
# usage: bench_gen_dpdk.sh BUILD [FRAMES [ROUNDS]]
set -u
build=${1:?usage: bench_gen_dpdk.sh BUILD [FRAMES [ROUNDS]]}
frames=${2:-5000000}
rounds=${3:-3}
gen=$build/apps/rk-gen
[ -x "$gen" ] || { echo "bench_gen_dpdk: $gen missing (built without DPDK or libyaml?)" >&2; exit 2; }
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 64 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
# rk-gen sends on the core dpdk-testpmd forwards on (its lcore 1; lcore 0
# reads the console): core 0 takes the machine's interrupts and chores,
# and one sender measured 35 Mpps there against 51 on core 1.
GEN_CORE=$(( $(nproc) > 1 ? 1 : 0 ))
EAL="$MEM --no-pci --log-level=*:warning -l $GEN_CORE --vdev=net_null0"

mpps() { # payload icrc -> best Mpps of the rounds
	best=0
	for r in $(seq "$rounds"); do
		m=$("$gen" $EAL -- --op SEND_ONLY --payload "$1" --count 0 --vary psn:inc \
			--icrc "$2" --top-speed --limit "$frames" --port net_null0 2>&1 |
			sed -n 's/.* s: \([0-9.]*\) Mpps.*/\1/p')
		best=$(python3 -c "print(max($best, ${m:-0}))")
	done
	echo "$best"
}

# The reference: dpdk-testpmd --forward-mode=txonly on net_null0, frames of
# the same length, one forwarding core (lcore 1; lcore 0 only reads the
# console), its per-second Tx-pps: the best of ROUNDS runs of 4 s.
testpmd_mpps() { # frame length -> Mpps, or 0 without dpdk-testpmd
	command -v dpdk-testpmd >/dev/null || { echo 0; return; }
	best=0
	for r in $(seq "$rounds"); do
		m=$(timeout -s INT 4 dpdk-testpmd $MEM --no-pci --log-level=*:warning -l 0,1 \
			--vdev=net_null0 -- --forward-mode=txonly --txpkts="$1" --total-num-mbufs=16384 \
			--auto-start \
			--stats-period 1 2>&1 | sed -n 's/.*Tx-pps: *\([0-9]*\).*/\1/p' | sort -n | tail -1)
		best=$(python3 -c "print(max($best, ${m:-0} / 1e6))")
	done
	echo "$best"
}

printf '%-8s %-16s %-16s %-8s %-16s %s\n' payload incremental_Mpps full_Mpps ratio \
	testpmd_Mpps gen/testpmd
for p in 0 1024; do
	i=$(mpps "$p" incremental)
	f=$(mpps "$p" full)
	t=$(testpmd_mpps $((58 + p)))
	printf '%-8s %-16s %-16s %-8s %-16s %s\n' "$p" "$i" "$f" \
		"$(python3 -c "print(round($i / $f, 2) if $f else 0)")" "$t" \
		"$(python3 -c "print(round($i / $t, 3) if $t else 'n/a')")"
	echo "@result gen_dpdk_payload$p incremental_mpps=$i full_mpps=$f testpmd_txonly_mpps=$t"
done
