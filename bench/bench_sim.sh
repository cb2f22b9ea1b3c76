#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The simulator's switch under a 16:1 incast, and DCQCN hosts on it:
#   (a) rk-sim incast --senders 16 --duration 100: 16 fixed-rate senders at
#       100 Gb/s into one 100 Gb/s port, PFC on, 100 ms of virtual time.
#       Packet events are the frames the switch's ports received and sent;
#       printed per CPU second (information) with the process's peak RSS
#       (target <= 256 MiB);
#   (b) rk-sim incast --dcqcn --senders 16 --duration 20: sixteen rdmakit
#       RC QPs with DCQCN through the switch (engines, CNPs, pacers):
#       virtual milliseconds per CPU second and peak RSS (information).
# CPU time and peak RSS are the child's (bench/runstat, wait4 rusage).
#
# usage: bench_sim.sh BUILD_DIR
# Machine-readable lines start with "@result" (read by run-bench.sh).
set -u
build=$1
sim=$build/tools/rk-sim/rk-sim
runstat=$build/bench/runstat
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-bench-sim.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
[ -x "$sim" ] && [ -x "$runstat" ] || { echo "bench_sim: build $sim and $runstat first" >&2; exit 2; }

stat() { # FILE KEY
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

if ! "$runstat" -o "$tmp/a.stat" "$sim" incast --senders 16 --duration 100 \
	--json "$tmp/a.json" >"$tmp/a.out" 2>&1; then
	echo "bench_sim: rk-sim incast failed: $(tail -1 "$tmp/a.out")" >&2
	exit 1
fi
events=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(p["rx-frames"] + p["tx-frames"] for p in d["ports_prio3"]))' "$tmp/a.json")
cpu=$(stat "$tmp/a.stat" cpu_ns)
rss=$(stat "$tmp/a.stat" maxrss_kib)
awk -v e="$events" -v c="$cpu" -v r="$rss" 'BEGIN {
	printf "rk-sim incast 16:1, 100 Gb/s, PFC, 100 ms virtual: %d packet events in %.2f s of CPU: %.2f M events per CPU second; peak RSS %.1f MiB (target <= 256)\n", e, c / 1e9, e / (c / 1e9) / 1e6, r / 1024
	printf "@result sim_incast16_mevents_per_cpu_s %.2f - - Mevents/s\n", e / (c / 1e9) / 1e6
	printf "@result sim_incast16_peak_rss_mib %.1f <= 256 MiB\n", r / 1024 }'

if ! "$runstat" -o "$tmp/b.stat" "$sim" incast --dcqcn --senders 16 --duration 20 \
	>"$tmp/b.out" 2>&1; then
	echo "bench_sim: rk-sim incast --dcqcn failed: $(tail -1 "$tmp/b.out")" >&2
	exit 1
fi
cpu=$(stat "$tmp/b.stat" cpu_ns)
rss=$(stat "$tmp/b.stat" maxrss_kib)
awk -v c="$cpu" -v r="$rss" 'BEGIN {
	printf "rk-sim incast --dcqcn 16:1, 20 ms virtual: %.2f s of CPU (%.1f virtual ms per CPU second); peak RSS %.1f MiB\n", c / 1e9, 20 / (c / 1e9), r / 1024
	printf "@result sim_dcqcn16_virtual_ms_per_cpu_s %.1f - - ms/s\n", 20 / (c / 1e9)
	printf "@result sim_dcqcn16_peak_rss_mib %.1f - - MiB\n", r / 1024 }'
