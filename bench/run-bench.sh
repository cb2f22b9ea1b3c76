#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Build what the benchmarks need and run them all: bench_icrc (ICRC verify
# rate against ISA-L), bench_inspect.sh (rk-inspect against a bare libpcap
# loop and tshark), bench_rc.sh (the RC engine and the impairment matrix
# through rk-sim) and bench_dpdk.sh (rdmakit over DPDK memif against raw
# DPDK on the same link, QP memory), then print one summary block of ratios with
# their targets and PASS/BELOW markers. Not a test: exit status is 0 unless
# a benchmark could not run, whatever the ratios.
# bench_plugin.sh: tshark with the Wireshark plugin against tshark without it.
#
# usage: run-bench.sh [options] [CAPTURE]
#   --build-dir DIR    build directory (default: build-bench next to bench/;
#                      set up as a release build when missing)
#   --no-build         use the build directory as it is
#   --size SIZE        size of the generated capture (default 1G; e.g. 64M
#                      for a quick run)
#   --tshark-size SIZE tshark on a prefix of the capture (default all)
#   --time SECONDS     length of one bench_icrc measurement (default 1)
#   --reps N           minimum rounds per reader in bench_inspect.sh (default 3)
#   --rc-ops N         operations per impairment-matrix cell (default 100000)
#   --dpdk-time S      seconds per throughput run in bench_dpdk.sh (default 3)
#   --dpdk-rounds N    rounds of each DPDK measurement and its reference (default 3)
#   --no-dpdk          skip bench_dpdk.sh
#   CAPTURE            reuse a capture instead of generating one

set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build="$src/build-bench"
do_build=1
size=1G
tshark_size=all
icrc_time=1
reps=3
rc_ops=100000
dpdk_time=3
dpdk_rounds=3
dpdk=1
capture=

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) build=$2; shift 2 ;;
	--no-build) do_build=0; shift ;;
	--size) size=$2; shift 2 ;;
	--tshark-size) tshark_size=$2; shift 2 ;;
	--time) icrc_time=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--rc-ops) rc_ops=$2; shift 2 ;;
	--dpdk-time) dpdk_time=$2; shift 2 ;;
	--dpdk-rounds) dpdk_rounds=$2; shift 2 ;;
	--no-dpdk) dpdk=0; shift ;;
	-h|--help) sed -n '3,/^#   CAPTURE/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-bench: unknown option $1" >&2; exit 2 ;;
	*) capture=$1; shift ;;
	esac
done

if [ "$do_build" = 1 ]; then
	if [ ! -f "$build/build.ninja" ]; then
		meson setup "$build" "$src" -Dbuildtype=release >"$build.setup.log" 2>&1 || {
			tail -n 20 "$build.setup.log" >&2
			echo "run-bench: meson setup failed (log: $build.setup.log)" >&2
			exit 2
		}
	fi
	ninja -C "$build" bench/bench_icrc bench/bench_gen_icrc bench/gen-capture bench/pcap_loop bench/runstat \
		bench/bench_engine bench/bench_hop || {
		echo "run-bench: build of the benchmarks failed" >&2
		exit 2
	}
	# rk-inspect is optional: bench_inspect.sh reports it missing.
	ninja -C "$build" tools/rk-sim/rk-sim || {
		echo "run-bench: build of rk-sim failed" >&2
		exit 2
	}
	ninja -C "$build" tools/rk-inspect >/dev/null 2>&1 ||
		echo "run-bench: rk-inspect did not build; measuring without it"
	ninja -C "$build" dissectors/rdmakit.so >/dev/null 2>&1 ||
		echo "run-bench: the Wireshark plugin did not build; measuring without it"
	# DPDK parts are optional too: bench_dpdk.sh needs all three.
	ninja -C "$build" bench/bench_qpmem bench/bench_gen_stateful bench/memif_raw apps/rk-perf apps/rk-gen >/dev/null 2>&1 ||
		echo "run-bench: rk-perf or memif_raw did not build (no DPDK?)"
fi

log=$(mktemp "${TMPDIR:-/tmp}/rk-bench-log.XXXXXX") || exit 2
trap 'rm -f "$log"' EXIT
status=0

echo "==== bench_icrc"
"$build/bench/bench_icrc" --time "$icrc_time" | tee -a "$log" | grep -v '^@'
[ "$(grep -c '^@result icrc_verify' "$log")" -gt 0 ] || status=1

echo "==== bench_gen_icrc"
"$build/bench/bench_gen_icrc" | tee -a "$log"

echo "==== bench_inspect.sh"
set -- --build-dir "$build" --size "$size" --tshark-size "$tshark_size" --reps "$reps" ${capture:+"$capture"}
"$here/bench_inspect.sh" "$@" | tee -a "$log" | grep -v '^@'
grep -q '^@result libpcap_loop' "$log" || status=1

echo "==== bench_rc.sh"
"$here/bench_rc.sh" "$build/tools/rk-sim/rk-sim" "$rc_ops" "$build/bench/bench_engine" | tee -a "$log" | grep -v '^@'
grep -q '^@result rc_write64k_vs_floor' "$log" || status=1

echo "==== bench_hop"
if hop=$("$build/bench/bench_hop"); then
	echo "$hop"
	echo "$hop" | awk '
		$1 == "hop:" && $2 == "send64" {
			print "@result hop_send64_stack_ns", $4, "- -"
			print "@result hop_send64_floor_ns", $8, "- -"
			print "@result hop_send64_raw_ns", $6, "- -" }
		$1 == "hop:" && $2 == "idle_poll_ns" { print "@result hop_idle_poll_ns", $3, "- -" }
		$1 == "hop:" && $2 == "write4k" {
			print "@result hop_write4k_stack_ns", $4, "- -"
			print "@result hop_write4k_floor_ns", $8, "- -" }' >>"$log"
	grep -q '^@result hop_send64_stack_ns' "$log" || status=1
else
	echo "run-bench: bench_hop failed" >&2
	status=1
fi

echo "==== bench_sim.sh"
if "$here/bench_sim.sh" "$build" | tee -a "$log" | grep -v '^@'; then
	grep -q '^@result sim_incast16_peak_rss_mib' "$log" || status=1
else
	echo "run-bench: bench_sim failed" >&2
	status=1
fi

if [ "$dpdk" = 1 ] && [ -x "$build/apps/rk-perf" ] && [ -x "$build/bench/memif_raw" ]; then
	echo "==== bench_dpdk.sh"
	"$here/bench_dpdk.sh" "$build" "$dpdk_time" "$dpdk_rounds" | tee -a "$log" | grep -v '^@'
	grep -q '^@result dpdk_write64k_vs_raw' "$log" || status=1
	echo "==== bench_iwarp.sh"
	"$here/bench_iwarp.sh" "$build" "$dpdk_time" "$dpdk_rounds" | tee -a "$log" | grep -v '^@'
	grep -q '^@result iwarp_write64k_vs_roce' "$log" || status=1
fi

echo "==== bench_plugin.sh"
if [ -f "$build/dissectors/rdmakit.so" ]; then
	"$here/bench_plugin.sh" --build-dir "$build" --reps "$reps" ${capture:+"$capture"} |
		tee -a "$log" | grep -v '^@'
	grep -q '^@result plugin_vs_tshark' "$log" || status=1
else
	echo "Wireshark plugin not built (libwireshark-dev missing?)"
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
ncpu=$(getconf _NPROCESSORS_ONLN)
mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 2^20 }' /proc/meminfo)
capinfo=$(sed -n 's/^capture: \([0-9.]* GiB\);.*/\1/p' "$log" | head -n 1)

echo
echo "==== rdmakit benchmark summary ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine: $cpu, $ncpu CPUs, $mem RAM; capture ${capinfo:-?}"
awk '
BEGIN {
	label["icrc_verify_4k"] = "ICRC verify, 4 KiB payload / ISA-L crc32"
	label["icrc_bare_4k"] = "  rk_rocev2_icrc alone, 4 KiB / ISA-L"
	label["icrc_verify_1k"] = "ICRC verify, 1 KiB payload / ISA-L crc32"
	label["icrc_bare_1k"] = "  rk_rocev2_icrc alone, 1 KiB / ISA-L"
	label["icrc_verify_64"] = "ICRC verify, 64 B payload / ISA-L crc32"
	label["icrc_bare_64"] = "  rk_rocev2_icrc alone, 64 B / ISA-L"
	label["inspect_vs_libpcap"] = "rk-inspect / bare libpcap loop (CPU time)"
	label["inspect_vs_libpcap_wall"] = "  same on wall time"
	label["inspect_vs_libpcap_buf"] = "  against the loop with a 1 MiB buffer"
	label["inspect_vs_tshark"] = "rk-inspect / tshark"
	label["inspect_rss_over_loop_mib"] = "rk-inspect peak RSS - loop peak RSS, MiB"
	label["inspect_json_rss_over_loop_mib"] = "  same with --json, MiB"
	label["inspect_findings"] = "rk-inspect findings on the capture"
	label["inspect_qp_flows"] = "QP flows seen by rk-inspect"
	label["isal_crc32_4k"] = "ISA-L crc32 4 KiB, GB/s"
	label["libpcap_loop_gbps"] = "libpcap loop, GB/s of CPU time"
	label["libpcap_loopbuf_gbps"] = "  with a 1 MiB stdio buffer, GB/s"
	label["tshark_gbps"] = "tshark, GB/s of CPU time"
	label["rc_write64k_vs_floor"] = "RC WRITE 64 KiB no I/O / memcpy+2 CRC floor"
	label["rc_write64k_runs"] = "  each round (engine and floor interleaved)"
	label["rc_send64_msgs_per_s"] = "64 B SEND messages/s, one core"
	label["rc_qp_state_bytes"] = "one RC QP state, bytes"
	label["rc_matrix_cells_ok"] = "impairment matrix cells fully correct"
	label["rc_matrix_cells"] = "  of cells run"
	label["dpdk_write64k_vs_raw"] = "RC WRITE 64 KiB over memif / raw (median)"
	label["dpdk_write64k_gbps"] = "  RC WRITE 64 KiB goodput, Gb/s"
	label["dpdk_raw_memif_gbps"] = "  raw memif, same frame size, Gb/s"
	label["dpdk_write64k_icrc_ceiling"] = "  raw + software ICRC / raw (ceiling, median)"
	label["dpdk_write64k_vs_ceiling"] = "  RC WRITE / raw + software ICRC (median)"
	label["dpdk_write64k_naks"] = "  NAK-sequence in any round"
	label["dpdk_write64k_rounds"] = "  each round, RC / raw"
	label["dpdk_write64k_best"] = "  best RC run / best raw run"
	label["dpdk_send_lat_rounds"] = "  each round, SEND/RECV / raw"
	label["dpdk_send_lat_best"] = "  best SEND/RECV run / best raw run"
	label["dpdk_send64_msgs_per_s"] = "64 B SEND messages/s over memif"
	label["dpdk_send_lat_vs_raw"] = "SEND/RECV ping-pong / raw (median)"
	label["dpdk_send_lat_icrc_floor"] = "  raw + software ICRC / raw (floor, median)"
	label["dpdk_send_lat_vs_floor"] = "  SEND/RECV / raw + software ICRC (median)"
	label["dpdk_send_lat_us"] = "  SEND/RECV 64 B half round trip (best), us"
	label["dpdk_raw_pingpong_us"] = "  raw ping-pong half round trip (best), us"
	label["iwarp_write64k_vs_roce"] = "iWARP WRITE 64 KiB / RoCEv2 WRITE (median)"
	label["iwarp_write64k_vs_raw"] = "iWARP WRITE 64 KiB / raw memif 1514 B"
	label["iwarp_write64k_gbps"] = "  iWARP WRITE 64 KiB goodput (lwIP), Gb/s"
	label["iwarp_roce_write64k_gbps"] = "  RoCEv2 WRITE 64 KiB, same run, Gb/s"
	label["iwarp_raw_memif1514_gbps"] = "  raw memif 1514 B frames, Gb/s"
	label["iwarp_write64k_4qp_vs_1qp"] = "  iWARP 4 QPs (4 TCP conns) / 1 QP"
	label["hop_send64_stack_ns"] = "SEND 64 B hop, stack CPU (no port), ns"
	label["hop_send64_floor_ns"] = "  raw hop + ICRC check and make, ns"
	label["hop_send64_raw_ns"] = "  raw hop (copies only), ns"
	label["hop_idle_poll_ns"] = "  empty rk_poll_cq, ns"
	label["hop_write4k_stack_ns"] = "WRITE 4 KiB frame, both ends, stack CPU, ns"
	label["hop_write4k_floor_ns"] = "  3 copies + 2 ICRCs of the frame, ns"
	label["dpdk_qp10k_mib"] = "10,000 RC QPs (depth 128), MiB"
	label["dpdk_qp10k_rss_mib"] = "  of it resident (RSS), MiB"
	label["plugin_vs_tshark_fields"] = "tshark+plugin / tshark, -T fields (CPU)"
	label["plugin_vs_tshark_tree"] = "tshark+plugin / tshark, trees (CPU)"
	label["plugin_reassemble_vs_tshark_fields"] = "  fields, message payloads kept"
	n = 0
}
/^@result / {
	name = $2; val = $3; op = $4; tgt = $5
	if (name == "rk_inspect") {
		lines[n++] = sprintf("%-44s %s", "rk-inspect", "not built")
		next
	}
	if (!(name in label))
		next
	mark = ""
	if (op == ">=")
		mark = (val + 0 >= tgt + 0) ? "PASS" : "BELOW"
	else if (op == "<")
		mark = (val + 0 < tgt + 0) ? "PASS" : "OVER"
	else if (op == "<=")
		mark = (val + 0 <= tgt + 0) ? "PASS" : "OVER"
	else if (op == "==")
		mark = (val + 0 == tgt + 0) ? "PASS" : "FAIL"
	t = op == "-" ? "" : "target " op " " tgt
	line = sprintf("%-44s %8s   %-14s %s", label[name], val, t, mark)
	sub(/ +$/, "", line)
	lines[n++] = line
}
END {
	for (i = 0; i < n; i++)
		print lines[i]
}' "$log"
exit $status
