#!/usr/bin/env bash
# The main demo: install the Debian packages, build rdmakit, then run two
# rdmakit endpoints as two processes over a DPDK net_memif link, each pinned
# to its own core with the spin-then-sleep idle policy: RDMA WRITE, READ,
# SEND and ATOMIC with every byte verified, each endpoint recording what it
# sends and receives to pcapng; rk-inspect then summarises a recording.
# A last, short section inspects the bundled captures of Linux rxe and siw.
# Run as root on Debian 12 (no hugepage setup needed). Build tree:
# build/release (RK_BUILD_ROOT); recordings in build/demo.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${RK_BUILD_ROOT:-build}

bash tools/setup-debian.sh --no-lab
if [ ! -f "$ROOT/release/build.ninja" ]; then
	meson setup "$ROOT/release" -Dbuildtype=release -Db_ndebug=false >/dev/null
	echo "demo: building (about two minutes on two cores)"
else
	echo "demo: bringing the build in $ROOT/release up to date"
fi
ninja -C "$ROOT/release" >/dev/null
# The man pages and bash completion (under /usr/local): man rk-inspect.
meson install -C "$ROOT/release" --tags man --no-rebuild --quiet >/dev/null
RK="$ROOT/release/tools/rk-inspect"
PERF="$ROOT/release/apps/rk-perf"
OUT="$ROOT/demo"
mkdir -p "$OUT"

banner() { printf '\n===== %s\n' "$*"; }

# Hugepages if some are free, anonymous memory otherwise; no PCI scan.
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 64 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
# rk-perf reports its own errors; critical only hides DPDK 22.11's stray
# "Invalid memory" line at memif teardown after large transfers.
EAL="$MEM --no-pci --log-level=*:critical"
CORE_S=$(( $(nproc) > 1 ? 1 : 0 ))
SOCK="rk-demo-$$.sock"          # abstract socket: nothing left behind
# bsize: every frame in one memif buffer (see RK_IO_MEMIF_BSIZE in lib/io).
MEMIF="bsize=9216,socket=$SOCK"
PORT=$((18515 + $$ % 1000))
spid=""
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; true' EXIT

# run TEST ARGS...: server on core 1, client on core 0, both bounded.
run() {
	local t=$1
	shift
	PORT=$((PORT + 1))
	timeout 60 "$PERF" $EAL -l "$CORE_S" --vdev=net_memif0,role=server,"$MEMIF" -- \
		"$t" --ip 198.18.0.1 -p "$PORT" --pcap "$OUT/$t.server.pcapng" --snaplen 0 "$@" \
		>"$OUT/$t.server.log" 2>&1 &
	spid=$!
	if ! timeout 60 "$PERF" $EAL -l 0 --vdev=net_memif0,role=client,"$MEMIF" -- \
		"$t" --ip 198.18.0.2 -p "$PORT" --pcap "$OUT/$t.client.pcapng" --snaplen 0 "$@" 127.0.0.1 \
		>"$OUT/$t.client.log" 2>&1; then
		cat "$OUT/$t.client.log" "$OUT/$t.server.log" >&2
		echo "demo: $t failed (logs in $OUT)" >&2
		exit 1
	fi
	wait "$spid"
	spid=""
	# perftest's table: the title and the result rows (not the progress
	# line rk-perf writes once a second on stderr, in the same log).
	awk '/Test$/ {print} /^ #bytes/ {p = 1} p && /^---/ {p = 0}
	     p && !/^rk-perf:/ {print} /verify:/ {print}' \
		"$OUT/$t.client.log"
}

banner "RDMA WRITE bandwidth, 1 KiB to 1 MiB, MTU 4096, data verified"
run write_bw -m 4096 --sizes 1024,65536,1048576 -n 200 --verify --report_gbits
banner "RDMA READ bandwidth, 64 KiB, MTU 1024, data verified"
run read_bw -s 65536 -n 500 --verify --report_gbits
banner "SEND bandwidth with 2% of the frames dropped on transmit: recovered, data verified"
run send_bw -s 65536 -n 200 --verify --tx-drop-rate 0.02 --seed 3 --counters --report_gbits
grep -E 'packet_seq_err|out_of_sequence|local_ack_timeout_err|duplicate_request|tx_injected' \
	"$OUT/send_bw.client.log" "$OUT/send_bw.server.log" | sed 's|.*/||; s/\.log:/: /'
echo "(RC recovers by go-back-N: after a lost frame the responder NAKs the next one"
echo " (its out_of_sequence; the requester counts the NAK as packet_seq_err) and the"
echo " requester resends every frame it had in flight from the"
echo " lost PSN on. rk-perf keeps up to 1024 frames in flight, so over memif each loss"
echo " costs hundreds of frames and resent frames can outnumber first sends here.)"
banner "ATOMIC FETCH_AND_ADD bandwidth, results verified"
run atomic_bw -n 2000 --verify
banner "SEND/RECV ping-pong latency (half round trip), 64 B"
run send_lat -s 64 -n 2000 --verify

banner "rk-inspect on the WRITE client's recording ($OUT/write_bw.client.pcapng)"
"$RK" --summary "$OUT/write_bw.client.pcapng"

banner "every recording: RDMA frames and findings (rk-inspect --fail-on-findings)"
for f in "$OUT"/*.pcapng; do
	"$RK" -j --fail-on-findings "$f" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["totals"]
f = ", ".join("%s=%d" % kv for kv in d["findings"].items()) or "none"
print("%-30s %8d RDMA frames, ICRC bad %d, findings: %s" % (sys.argv[1], t["rdma_frames"],
      t["icrc_bad"], f))
' "$(basename "$f")"
done

banner "bundled captures of Linux rxe and siw peers"
"$RK" --summary pcaps/roce/rxe_write_bw_loss5.pcap
"$RK" --summary pcaps/iwarp/siwcrc_rping.pcap
echo
echo "recordings and logs: $OUT; rk-perf: $PERF --help; rk-inspect: $RK --help"
