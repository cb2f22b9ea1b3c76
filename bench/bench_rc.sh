#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The RC engine's benchmarks, through rk-sim: RC WRITE 64 KiB through
# requester and responder with no I/O as a ratio to a floor measured in the
# same run (one memcpy plus two ISA-L CRC passes per packet), 64 B SEND
# messages per second on one core, the size of one QP's own state, and the
# impairment matrix with OPS operations per cell (goodput per cell). The
# engine benchmark runs 5 times; ratio and rate are the medians.
#
# The WRITE ratio comes from bench_engine when given (interleaved rounds,
# thread CPU time, median: steady under other load), else from the median
# of the rk-sim runs.
#
# usage: bench_rc.sh RK_SIM [OPS [BENCH_ENGINE]]     (OPS default 100000)
# Machine-readable lines start with "@result" (read by run-bench.sh).
set -u
sim=$1
ops=${2:-100000}
engine=${3:-}

# Each "rk-sim bench" measures the engine and its floor back to back; other
# work on a shared machine moves one run's ratio by +-0.1, so it runs
# $reps times and the median ratio (and the median SEND rate) is reported.
reps=5
all=""
i=0
while [ $i -lt $reps ]; do
	i=$((i + 1))
	out=$("$sim" bench) || { echo "bench_rc: rk-sim bench failed" >&2; exit 2; }
	echo "$out"
	all="$all
$out"
done
med() { sort -g | awk '{ v[n++] = $1 } END { if (n) print v[int((n - 1) / 2)] }'; }
r=$(echo "$all" | sed -n 's/^ratio to floor: \([0-9.]*\).*/\1/p')
echo "ratio to floor, each rk-sim run: $(echo $r)"
if [ -n "$engine" ] && eo=$("$engine"); then
	echo "$eo"
	echo "$eo" | sed -n 's/^engine: write64k_vs_floor \([0-9.]*\) rounds \([0-9.,]*\) .*/@result rc_write64k_vs_floor \1 >= 0.5\
@result rc_write64k_runs \2 - -/p'
else
	[ -n "$engine" ] && echo "bench_rc: $engine failed; using the rk-sim runs" >&2
	echo "@result rc_write64k_vs_floor $(echo "$r" | med) >= 0.5"
	echo "@result rc_write64k_runs $(echo $r | tr ' ' ',') - -"
fi
echo "@result rc_send64_msgs_per_s $(echo "$all" | sed -n 's/^64 B SEND: \([0-9]*\) messages.*/\1/p' | med) - -"
echo "$out" | sed -n 's/^QP state: \([0-9]*\) bytes.*/@result rc_qp_state_bytes \1 <= 4096/p'

echo
echo "impairment matrix, $ops operations per cell (every completion and byte checked):"
m=$("$sim" matrix -o "$ops")
echo "$m"
total=$(echo "$m" | awk 'NR > 1 && NF > 0' | wc -l)
ok=$(echo "$m" | awk 'NR > 1 && $NF == "ok"' | wc -l)
echo "@result rc_matrix_cells_ok $ok - -"
echo "@result rc_matrix_cells $total - -"
