#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen on DPDK's net_null0 at top speed, one core, a PSN changed every
# frame: Mpps with the incremental ICRC and with the ICRC recomputed in
# full, for a 58-byte frame (64 on the wire) and a 1 KiB payload, and
# their ratio, from rk-gen's own summary line (best of ROUNDS).
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
EAL="$MEM --no-pci --log-level=*:warning -l 0 --vdev=net_null0"

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

printf '%-8s %-16s %-16s %s\n' payload incremental_Mpps full_Mpps ratio
for p in 0 1024; do
	i=$(mpps "$p" incremental)
	f=$(mpps "$p" full)
	printf '%-8s %-16s %-16s %s\n' "$p" "$i" "$f" "$(python3 -c "print(round($i / $f, 2) if $f else 0)")"
	echo "@result gen_dpdk_payload$p incremental_mpps=$i full_mpps=$f"
done
