#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# iWARP over DPDK (rk-perf --transport iwarp: lwIP's TCP on the port)
# against RoCEv2 and raw DPDK on the same link in the same run: two
# processes over net_memif (server on CPU 1, client on CPU 0, busy-polling),
# rounds interleaved as in bench_dpdk.sh:
#
#   - iWARP WRITE 64 KiB goodput (write_bw, one QP: one TCP connection;
#     counted until the data is placed at the peer) / RoCEv2 WRITE 64 KiB
#     (MTU 4096) in the same round;
#   - the same / raw memif throughput with frames of iWARP's size (1514 B:
#     MSS 1460 + TCP/IP/Ethernet headers);
#   - iWARP with 4 QPs (4 TCP connections): when it is well above one QP,
#     the single connection's 64 KiB window (Debian's lwIP build) is what
#     limits one QP.
#
# usage: bench_iwarp.sh BUILD_DIR [SECONDS [ROUNDS]]
# Machine-readable lines start with "@result" (read by run-bench.sh).
set -u
build=$1
secs=${2:-3}
rounds=${3:-3}
bench_name=bench_iwarp
pair_timeout=90
# shellcheck source=memif_pairs.sh
. "$(dirname "$0")/memif_pairs.sh"

gbps() { awk '$1 == 65536 && NF == 5 {print $4}' "$1"; }

status=0
iwframe=1514
raw_t="" roce_t="" iw_t="" iw4_t=""
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	echo "-- round $r of $rounds"
	raw_tput raw "rx" "tx $iwframe $secs" "raw memif, $iwframe B frames, ${secs} s"
	raw_t="$raw_t $v"
	if perf_pair roce write_bw -m 4096 -s 65536 -D "$secs" --report_gbits; then
		v=$(gbps "$tmp/roce.cli")
		echo "RoCEv2 write_bw 64 KiB, MTU 4096: $v Gb/s"
		roce_t="$roce_t ${v:--}"
	else
		roce_t="$roce_t -"
		status=1
	fi
	if perf_pair iw write_bw --transport iwarp -s 65536 -D "$secs" --report_gbits; then
		v=$(gbps "$tmp/iw.cli")
		echo "iWARP write_bw 64 KiB, 1 QP (lwIP, MSS 1460): $v Gb/s"
		iw_t="$iw_t ${v:--}"
	else
		iw_t="$iw_t -"
		status=1
	fi
	if perf_pair iw4 write_bw --transport iwarp -q 4 -s 65536 -D "$secs" --report_gbits; then
		v=$(gbps "$tmp/iw4.cli")
		echo "iWARP write_bw 64 KiB, 4 QPs (4 TCP connections): $v Gb/s"
		iw4_t="$iw4_t ${v:--}"
	else
		iw4_t="$iw4_t -"
		status=1
	fi
done
vs_roce=$(pair_ratios "$iw_t" "$roce_t" | median)
vs_raw=$(pair_ratios "$iw_t" "$raw_t" | median)
q4_vs_q1=$(pair_ratios "$iw4_t" "$iw_t" | median)
echo "rounds, iWARP / RoCEv2: $(pair_ratios "$iw_t" "$roce_t" | tr '\n' ' ')"
echo "rounds, iWARP / raw: $(pair_ratios "$iw_t" "$raw_t" | tr '\n' ' ')"
echo "rounds, iWARP 4 QPs / 1 QP: $(pair_ratios "$iw4_t" "$iw_t" | tr '\n' ' ')"
[ -n "${vs_roce:-}" ] && echo "@result iwarp_write64k_vs_roce $vs_roce - -"
[ -n "${vs_raw:-}" ] && echo "@result iwarp_write64k_vs_raw $vs_raw - -"
v=$(nums "$iw_t" | max); [ -n "${v:-}" ] && echo "@result iwarp_write64k_gbps $v - -"
v=$(nums "$roce_t" | max); [ -n "${v:-}" ] && echo "@result iwarp_roce_write64k_gbps $v - -"
v=$(nums "$raw_t" | max); [ -n "${v:-}" ] && echo "@result iwarp_raw_memif1514_gbps $v - -"
[ -n "${q4_vs_q1:-}" ] && echo "@result iwarp_write64k_4qp_vs_1qp $q4_vs_q1 - -"
exit $status
