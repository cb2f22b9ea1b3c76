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
perf=$build/apps/rk-perf
raw=$build/bench/memif_raw

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-bench-iwarp.XXXXXX") || exit 2
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 64 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
EAL="$MEM --no-pci --log-level=*:critical"
CS=$(($(nproc) > 1 ? 1 : 0))
n=0
vdev() { # role
	echo "--vdev=net_memif0,role=$1,socket=rk-bench-iw-$$-$n.sock,bsize=9216"
}

pair() { # NAME "SERVER CMD" "CLIENT CMD"
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 90 $2 >"$tmp/$1.srv" 2>&1 &
	sp=$!
	pids="$pids $sp"
	# shellcheck disable=SC2086
	timeout 90 $3 >"$tmp/$1.cli" 2>&1
	rc=$?
	wait "$sp"
	rs=$?
	if [ $rc -ne 0 ] || [ $rs -ne 0 ]; then
		echo "bench_iwarp: $1 failed (client $rc, server $rs)" >&2
		tail -n 3 "$tmp/$1.cli" "$tmp/$1.srv" >&2
		return 1
	fi
}

perf_pair() { # NAME TEST ARGS...
	name=$1
	t=$2
	shift 2
	port=$((21000 + ($$ + 2 * n) % 20000))
	pair "$name" \
		"$perf $EAL -l $CS $(vdev server) -- $t --ip 198.18.0.1 -p $port --idle spin $*" \
		"$perf $EAL -l 0 $(vdev client) -- $t --ip 198.18.0.2 -p $port --idle spin $* 127.0.0.1"
}

raw_pair() { # NAME "SERVER MODE" "CLIENT MODE"
	pair "$1" "$raw $EAL -l $CS $(vdev server) -- $2" "$raw $EAL -l 0 $(vdev client) -- $3"
}

gbps() { awk '$1 == 65536 && NF == 5 {print $4}' "$1"; }
max() { awk 'NF { if (!n++ || $1 + 0 > m) m = $1 + 0 } END { if (n) print m }'; }
median() { sort -g | awk 'NF { v[n++] = $1 } END { if (n) print (n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) }'; }
pair_ratios() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ");
		for (i = 1; i <= n; i++) if (x[i] != "-" && y[i] != "-" && y[i] + 0 > 0)
			printf "%.3f\n", x[i] / y[i] }'
}
nums() { echo "$1" | tr ' ' '\n' | grep -v '^-*$'; }

status=0
iwframe=1514
raw_t="" roce_t="" iw_t="" iw4_t=""
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	echo "-- round $r of $rounds"
	if raw_pair raw "rx" "tx $iwframe $secs"; then
		v=$(sed -n 's/^raw_rx: .* \([0-9.]*\) Gb\/s$/\1/p' "$tmp/raw.srv")
		echo "raw memif, $iwframe B frames, ${secs} s: $v Gb/s"
		raw_t="$raw_t ${v:--}"
	else
		raw_t="$raw_t -"
		status=1
	fi
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
