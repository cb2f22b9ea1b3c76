#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The RC engine's benchmarks, through rk-sim: RC WRITE 64 KiB through
# requester and responder with no I/O as a ratio to a floor measured in the
# same run (one memcpy plus two ISA-L CRC passes per packet), 64 B SEND
# messages per second on one core, the size of one QP's own state, and the
# impairment matrix with OPS operations per cell (goodput per cell).
#
# usage: bench_rc.sh RK_SIM [OPS]     (OPS default 100000)
# Machine-readable lines start with "@result" (read by run-bench.sh).
set -u
sim=$1
ops=${2:-100000}

out=$("$sim" bench) || { echo "bench_rc: rk-sim bench failed" >&2; exit 2; }
echo "$out"
echo "$out" | sed -n 's/^ratio to floor: \([0-9.]*\).*/@result rc_write64k_vs_floor \1 >= 0.5/p'
echo "$out" | sed -n 's/^64 B SEND: \([0-9]*\) messages.*/@result rc_send64_msgs_per_s \1 - -/p'
echo "$out" | sed -n 's/^QP state: \([0-9]*\) bytes.*/@result rc_qp_state_bytes \1 <= 4096/p'

echo
echo "impairment matrix, $ops operations per cell (every completion and byte checked):"
m=$("$sim" matrix -o "$ops")
echo "$m"
total=$(echo "$m" | awk 'NR > 1 && NF > 0' | wc -l)
ok=$(echo "$m" | awk 'NR > 1 && $NF == "ok"' | wc -l)
echo "@result rc_matrix_cells_ok $ok - -"
echo "@result rc_matrix_cells $total - -"
