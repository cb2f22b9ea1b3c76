#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# rdmakit over DPDK, against raw DPDK on the same link in the same run: two
# processes over a net_memif link (server pinned to CPU 1, client to CPU 0,
# both busy-polling), and a QP memory count with no I/O.
#
#   - RC WRITE 64 KiB goodput (rk-perf write_bw, MTU 4096; without --verify
#     every WRITE goes from and to the same 64 KiB, as perftest's) / raw memif
#     throughput with frames of the same size (memif_raw tx -> rx: copy
#     into a fresh mbuf, tx_burst, count), target >= 0.7;
#   - 64 B SEND messages per second (rk-perf send_bw);
#   - SEND/RECV ping-pong half round trip, 64 B (rk-perf send_lat, median)
#     / raw ping-pong of the same 122 B frame (memif_raw ping/pong), target <= 1.5;
#   - the software-ICRC ceiling of both: the same raw runs with a RoCEv2
#     ICRC made on every frame sent and checked on every frame received
#     (memif_raw --icrc): three passes over each frame on the busier
#     core, as many as a RoCE receiver must make (memif's copy, the ICRC,
#     the copy into registered memory);
#   - memory of 10,000 RC QPs with send and receive queues of 128 on one
#     port (bench_qpmem through lib/verbs), target <= 256 MiB;
#   - memory of rk-gen's stateful mode, each end's 4096 QPs at depth 128
#     with 64 B messages, buffers included (bench_gen_stateful), target
#     <= 64 MiB;
#   - rk-gen's stateful mode with 64 QPs of 64 KiB WRITEs (4 in flight
#     each, data unchecked) / rk-perf write_bw -q 64 -t 4, target >= 0.9.
#
# usage: bench_dpdk.sh BUILD_DIR [SECONDS [ROUNDS]]
#   SECONDS per throughput run (default 3); ROUNDS of every measurement and
#   its reference, alternating (default 3): each ratio is best against best.
# Machine-readable lines start with "@result" (read by run-bench.sh).
set -u
build=$1
secs=${2:-3}
rounds=${3:-3}
qpmem=$build/bench/bench_qpmem
sfmem=$build/bench/bench_gen_stateful
gen=$build/apps/rk-gen
bench_name=bench_dpdk
pair_timeout=60
# shellcheck source=memif_pairs.sh
. "$(dirname "$0")/memif_pairs.sh"

status=0
# The size of a WRITE Middle frame at MTU 4096 (Ethernet + IPv4 + UDP + BTH + 4096 + ICRC).
wframe=$((14 + 20 + 8 + 12 + 4096 + 4))
# A 64 B SEND Only frame.
sframe=$((14 + 20 + 8 + 12 + 64 + 4))

# Each measurement right after its reference, $rounds times: other work on
# the machine comes and goes within seconds (raw memif moved 15x between
# two runs a minute apart; raw ping-pong flips between ~0.2 and ~0.8 us),
# so each ratio is the median over rounds of measurement / reference taken
# back to back. Best against best is printed too, for information.
raw_t="" rc_t="" naks_t="" mps_t="" raw_l="" rc_l="" ic_t="" ic_l="" rec_t="" q64p_t="" q64g_t=""
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	echo "-- round $r of $rounds"
	raw_tput raw_tput "rx" "tx $wframe $secs" "raw memif, $wframe B frames, ${secs} s"
	raw_t="$raw_t $v"
	raw_tput raw_icrc_tput "--icrc rx" "--icrc tx $wframe $secs" \
		"raw memif + ICRC made and checked, $wframe B frames, ${secs} s"
	ic_t="$ic_t $v"
	if perf_pair write write_bw -m 4096 -s 65536 -D "$secs" --report_gbits --counters; then
		v=$(awk '$1 == 65536 && NF == 5 {print $4}' "$tmp/write.cli")
		k=$(awk '$1 == "packet_seq_err" {print $2}' "$tmp/write.cli")
		x=$(awk '$1 == "retransmitted_pkts" {print $2}' "$tmp/write.cli")
		echo "rk-perf write_bw 64 KiB, MTU 4096: $v Gb/s, NAK-sequence $k, retransmitted $x"
		rc_t="$rc_t ${v:--}"
		naks_t="$naks_t $k"
	else
		rc_t="$rc_t -"
		status=1
	fi
	# The same WRITE run with the client recording (--pcap, the default snap
	# length of a bandwidth test): what recording costs.
	n=$((n + 1))
	port=$((21000 + ($$ + 2 * n) % 20000))
	args="write_bw -m 4096 -s 65536 -D $secs --idle spin -p $port"
	if pair record "$perf $EAL -l $CS $(vdev server) -- $args --ip 198.18.0.1" \
		"$perf $EAL -l 0 $(vdev client) -- $args --ip 198.18.0.2 --report_gbits \
		 --pcap $tmp/record.pcapng 127.0.0.1"; then
		v=$(awk '$1 == 65536 && NF == 5 {print $4}' "$tmp/record.cli")
		echo "rk-perf write_bw 64 KiB, MTU 4096, recording (--pcap): $v Gb/s"
		rec_t="$rec_t ${v:--}"
	else
		rec_t="$rec_t -"
		status=1
	fi
	rm -f "$tmp/record.pcapng"
	# 64 QPs of 64 KiB WRITEs, 4 in flight each: rk-gen's stateful mode
	# (data unchecked, as rk-perf's) against rk-perf with the same QPs.
	if [ -x "$gen" ] && perf_pair q64 write_bw -q 64 -t 4 -m 4096 -s 65536 -D "$secs" \
		--report_gbits; then
		v=$(awk '$1 == 65536 && NF == 5 {print $4}' "$tmp/q64.cli")
		echo "rk-perf write_bw 64 QPs, 64 KiB: $v Gb/s"
		q64p_t="$q64p_t ${v:--}"
		n=$((n + 1))
		port=$((21000 + ($$ + 2 * n) % 20000))
		if pair gen64 "$gen $EAL -l $CS $(vdev server) -- --responder --port net_memif0 \
			--ip 198.18.0.1 --oob-port $port --json" \
			"$gen $EAL -l 0 $(vdev client) -- --port net_memif0 --ip 198.18.0.2 \
			--oob-port $port --stateful 64 --depth 4 --op write --size 65536 --mtu 4096 \
			--duration $secs --no-verify --json 127.0.0.1"; then
			# The JSON document among the progress lines (stderr goes there too).
			v=$(python3 -c 'import json,sys; t="\n" + open(sys.argv[1]).read(); i=t.index("\n{") + 1; print("%.3f" % json.JSONDecoder().raw_decode(t[i:])[0]["goodput_gbps"])' \
				"$tmp/gen64.cli" 2>/dev/null)
			echo "rk-gen --stateful 64, 64 KiB WRITEs: $v Gb/s"
			q64g_t="$q64g_t ${v:--}"
		else
			q64g_t="$q64g_t -"
			status=1
		fi
	elif [ -x "$gen" ]; then
		q64p_t="$q64p_t -"
		q64g_t="$q64g_t -"
		status=1
	fi
	if perf_pair send send_bw -s 64 -D "$secs"; then
		v=$(awk '$1 == 64 && NF == 5 {print $5}' "$tmp/send.cli")
		echo "rk-perf send_bw 64 B: $v M messages/s"
		mps_t="$mps_t $v"
	else
		status=1
	fi
	raw_lat raw_lat "pong" "ping $sframe 20000" "raw memif ping-pong, $sframe B frames"
	raw_l="$raw_l $v"
	raw_lat raw_icrc_lat "--icrc pong" "--icrc ping $sframe 20000" \
		"raw memif ping-pong + ICRC made and checked"
	ic_l="$ic_l $v"
	if perf_pair lat send_lat -s 64 -n 20000; then
		# t_typical is perftest's median.
		v=$(awk '$1 == 64 && NF >= 9 {print $5}' "$tmp/lat.cli")
		echo "rk-perf send_lat 64 B: median half round trip $v us"
		rc_l="$rc_l ${v:--}"
	else
		rc_l="$rc_l -"
		status=1
	fi
done
raw_gbps=$(nums "$raw_t" | max)
rc_gbps=$(nums "$rc_t" | max)
naks=$(nums "$naks_t" | max)
mpps=$(nums "$mps_t" | max)
raw_us=$(nums "$raw_l" | min)
rc_us=$(nums "$rc_l" | min)
w_rounds=$(pair_ratios "$rc_t" "$raw_t" | tr '\n' ' ')
l_rounds=$(pair_ratios "$rc_l" "$raw_l" | tr '\n' ' ')
w_ratio=$(pair_ratios "$rc_t" "$raw_t" | median)
rec_ratio=$(pair_ratios "$rec_t" "$rc_t" | median)
l_ratio=$(pair_ratios "$rc_l" "$raw_l" | median)
# The ceiling against raw, and the stack against the ceiling.
wc_ratio=$(pair_ratios "$ic_t" "$raw_t" | median)
wf_ratio=$(pair_ratios "$rc_t" "$ic_t" | median)
lc_ratio=$(pair_ratios "$ic_l" "$raw_l" | median)
lf_ratio=$(pair_ratios "$rc_l" "$ic_l" | median)
q64_ratio=$(pair_ratios "$q64g_t" "$q64p_t" | median)
echo "rounds, WRITE / raw: ${w_rounds:-?}; SEND/RECV / raw ping-pong: ${l_rounds:-?}"
echo "rounds, raw + ICRC / raw: WRITE-size frames $(pair_ratios "$ic_t" "$raw_t" | tr '\n' ' ')" \
	"ping-pong $(pair_ratios "$ic_l" "$raw_l" | tr '\n' ' ')"
echo "best of $rounds: raw ${raw_gbps:-?} Gb/s, WRITE ${rc_gbps:-?} Gb/s, SEND ${mpps:-?} M/s," \
	"raw ping-pong ${raw_us:-?} us, SEND/RECV ${rc_us:-?} us"

echo "QP memory:"
qm=$("$qpmem" 10000 128) || status=1
echo "$qm"
sm=$("$sfmem" 4096 128 64) || status=1
echo "$sm"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.3f", a / b }'; }
# Each ratio first, then what it was computed from (the summary keeps this order).
[ -n "${w_ratio:-}" ] && echo "@result dpdk_write64k_vs_raw $w_ratio >= 0.7"
[ -n "${w_rounds:-}" ] && echo "@result dpdk_write64k_rounds $(echo $w_rounds | tr ' ' ',') - -"
[ -n "${raw_gbps:-}" ] && [ -n "${rc_gbps:-}" ] &&
	echo "@result dpdk_write64k_best $(ratio "$rc_gbps" "$raw_gbps") - -"
[ -n "${rc_gbps:-}" ] && echo "@result dpdk_write64k_gbps $rc_gbps - -"
[ -n "${raw_gbps:-}" ] && echo "@result dpdk_raw_memif_gbps $raw_gbps - -"
[ -n "${wc_ratio:-}" ] && echo "@result dpdk_write64k_icrc_ceiling $wc_ratio - -"
[ -n "${wf_ratio:-}" ] && echo "@result dpdk_write64k_vs_ceiling $wf_ratio - -"
[ -n "${naks:-}" ] && echo "@result dpdk_write64k_naks $naks == 0"
[ -n "${rec_ratio:-}" ] && echo "@result dpdk_write64k_recording_vs_not $rec_ratio >= 0.8"
[ -n "${q64_ratio:-}" ] && echo "@result gen_stateful_64q_vs_rk_perf $q64_ratio >= 0.9"
[ -n "${mpps:-}" ] &&
	echo "@result dpdk_send64_msgs_per_s $(awk -v m="$mpps" 'BEGIN {printf "%.0f", m * 1e6}') - -"
[ -n "${l_ratio:-}" ] && echo "@result dpdk_send_lat_vs_raw $l_ratio <= 1.5"
[ -n "${l_rounds:-}" ] && echo "@result dpdk_send_lat_rounds $(echo $l_rounds | tr ' ' ',') - -"
[ -n "${raw_us:-}" ] && [ -n "${rc_us:-}" ] &&
	echo "@result dpdk_send_lat_best $(ratio "$rc_us" "$raw_us") - -"
[ -n "${lc_ratio:-}" ] && echo "@result dpdk_send_lat_icrc_floor $lc_ratio - -"
[ -n "${lf_ratio:-}" ] && echo "@result dpdk_send_lat_vs_floor $lf_ratio - -"
[ -n "${rc_us:-}" ] && echo "@result dpdk_send_lat_us $rc_us - -"
[ -n "${raw_us:-}" ] && echo "@result dpdk_raw_pingpong_us $raw_us - -"
echo "$qm" | sed -n 's/^qpmem: .* rss_mib \([0-9.]*\) heap_mib \([0-9.]*\) .*/\1 \2/p' |
	while read -r r h; do
		echo "@result dpdk_qp10k_mib $(awk -v r="$r" -v h="$h" 'BEGIN {print (r > h ? r : h)}') <= 256"
		echo "@result dpdk_qp10k_rss_mib $r - -"
	done
echo "$sm" | sed -n 's/^gen_stateful: \([a-z]*\) .* mib \([0-9.]*\) buffers_mib.*/\1 \2/p' |
	while read -r end m; do
		echo "@result gen_stateful_4096q_${end}_mib $m <= 64"
	done
exit $status
