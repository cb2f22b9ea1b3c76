#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# rk-inspect throughput and memory, as ratios to references measured in the
# same run over the same (page-cached) capture:
#   (a) pcap_loop: bare libpcap read loop (pcap_open_offline + pcap_next_ex);
#       also run with a 1 MiB stdio buffer, as rk-inspect opens its file
#   (b) rk-inspect --summary -q: full decode, ICRC check, per-QP analysis
#   (c) tshark -q -z io,stat,0 -z expert: Wireshark dissecting every packet
# Throughputs count the bytes of the capture file over the CPU time (user +
# system) of the process, which time spent descheduled by other load on a
# shared machine does not inflate; wall-clock rates are printed too. The
# readers run in interleaved rounds, at least --reps of them and more for
# small captures, and the fastest run of each counts. Peak RSS is the
# kernel's ru_maxrss of the child (bench/runstat).
#
# usage: bench_inspect.sh [options] [CAPTURE]
#   CAPTURE            reuse this capture instead of generating one
#   --build-dir DIR    where bench/ and tools/ were built (default: build-bench
#                      next to this directory)
#   --size SIZE        size of the generated capture (default 1G)
#   --tshark-size SIZE run tshark (and a matching rk-inspect run) on a
#                      prefix of the capture of about SIZE bytes (default
#                      all; pcap files only)
#   --reps N           at least N interleaved rounds (default 3)
#   --keep             keep the temporary directory
# Machine-readable lines start with "@result" (read by run-bench.sh).

set -u

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build-bench"
size=1G
tshark_size=all
reps=3
keep=0
capture=

die() {
	echo "bench_inspect: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) build=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--tshark-size) tshark_size=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '3,/^# Machine/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) capture=$1; shift ;;
	esac
done

gen="$build/bench/gen-capture"
loop="$build/bench/pcap_loop"
runstat="$build/bench/runstat"
[ -x "$gen" ] && [ -x "$loop" ] && [ -x "$runstat" ] ||
	die "gen-capture, pcap_loop or runstat not built in $build (needs libpcap)"

# The inspector's executable sits in tools/ (meson puts a target in the
# directory of its meson.build); tools/rk-inspect/rk-inspect is accepted too.
insp=
for c in "$build/tools/rk-inspect" "$build/tools/rk-inspect/rk-inspect"; do
	if [ -f "$c" ] && [ -x "$c" ]; then
		insp=$c
		break
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-bench.XXXXXX") || die "mktemp failed"
cleanup() {
	if [ "$keep" = 1 ]; then
		echo "bench_inspect: kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bytes_of() {
	stat -c %s "$1"
}

# gb BYTES NS: decimal GB/s
gb() {
	awk -v b="$1" -v t="$2" 'BEGIN { printf "%.2f", b / t }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'
}

# timed NAME CMD...: run CMD, stdout to $tmp/NAME.out; set WALL_NS, CPU_NS,
# RSS_KB and RC
timed() {
	name=$1
	shift
	"$runstat" -o "$tmp/$name.stat" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	RC=$?
	set -- $(cat "$tmp/$name.stat" 2>/dev/null) x x x x x x x x x x x x
	WALL_NS=${2:-0}
	CPU_NS=${4:-0}
	RSS_KB=${10:-0}
}

# Keep the best CPU and wall time and the peak RSS of a tool:
# CPU_<tag>, WALL_<tag>, PEAK_<tag>, and the CPU time summed, SUM_<tag>.
note() {
	tag=$1
	eval "c=\${CPU_$tag:-0} w=\${WALL_$tag:-0} p=\${PEAK_$tag:-0} t=\${SUM_$tag:-0}"
	[ "$c" = 0 ] || [ "$CPU_NS" -lt "$c" ] && eval "CPU_$tag=$CPU_NS"
	[ "$w" = 0 ] || [ "$WALL_NS" -lt "$w" ] && eval "WALL_$tag=$WALL_NS"
	[ "$RSS_KB" -gt "$p" ] && eval "PEAK_$tag=$RSS_KB"
	eval "SUM_$tag=$((t + CPU_NS))"
}

# rounds TAG CMD...: the reader alone, same rules as the main rounds.
rounds() {
	tag=$1
	shift
	i=0
	while [ "$i" -lt "$reps" ] || { [ "$i" -lt 20 ] && eval "[ \${SUM_$tag:-0} -lt 1000000000 ]"; }; do
		timed "$tag" "$@"
		[ "$RC" = 0 ] || { cat "$tmp/$tag.err" >&2; die "$1 failed (exit $RC)"; }
		note "$tag"
		i=$((i + 1))
	done
}

# ---------------------------------------------------------------- capture
qps=
if [ -n "$capture" ]; then
	[ -r "$capture" ] || die "cannot read $capture"
	echo "capture: $capture (given)"
else
	capture="$tmp/rocev2.pcap"
	echo "capture: generating $size of RoCEv2 traffic into $capture"
	"$gen" -o "$capture" --size "$size" 2>"$tmp/gen.err" || {
		cat "$tmp/gen.err" >&2
		die "gen-capture failed"
	}
	sed 's/^/  /' "$tmp/gen.err"
	qps=$(sed -n 's/.* \([0-9]*\) QPs .*/\1/p' "$tmp/gen.err" | head -n 1)
fi
fbytes=$(bytes_of "$capture")
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
awk -v f="$fbytes" -v m="$mem_kb" -v a="$avail_kb" 'BEGIN {
	fits = "the file stays in the page cache"
	if (f >= a * 1024 / 2)
		fits = "WARNING: the file may not stay cached, reads may hit the disk"
	printf "capture: %.2f GiB; RAM %.1f GiB, available %.1f GiB: %s\n", f / 2^30, m / 2^20, a / 2^20, fits
}'
# Warm the page cache so no run pays for the disk.
cat "$capture" >/dev/null

# ---------------------------------------------------------------- runs
# Interleaved rounds, so drift in the machine's load hits both readers
# alike; small captures get more rounds (up to 20, or 1 s of CPU time).
i=0
while [ "$i" -lt "$reps" ] || { [ "$i" -lt 20 ] && [ "${SUM_loop:-0}" -lt 1000000000 ]; }; do
	timed loop "$loop" "$capture"
	[ "$RC" = 0 ] || { cat "$tmp/loop.err" >&2; die "pcap_loop failed"; }
	note loop
	timed loopbuf "$loop" --buffer 1048576 "$capture"
	[ "$RC" = 0 ] || { cat "$tmp/loopbuf.err" >&2; die "pcap_loop --buffer failed"; }
	note loopbuf
	if [ -n "$insp" ]; then
		timed insp "$insp" --summary -q "$capture"
		[ "$RC" = 0 ] || { cat "$tmp/insp.err" >&2; die "rk-inspect failed (exit $RC)"; }
		note insp
		# The summary as it was before the congestion view and the timing,
		# and with them and a series of 1 ms intervals.
		timed inspnc "$insp" --summary -q --no-congestion "$capture"
		[ "$RC" = 0 ] || { cat "$tmp/inspnc.err" >&2; die "rk-inspect --no-congestion failed"; }
		note inspnc
		timed inspiv "$insp" --summary -q --interval 0.001 --csv "$tmp/series.csv" "$capture"
		[ "$RC" = 0 ] || { cat "$tmp/inspiv.err" >&2; die "rk-inspect --interval failed"; }
		note inspiv
	fi
	i=$((i + 1))
done
nrounds=$i

frames=$(sed -n 's/^frames \([0-9]*\) .*/\1/p' "$tmp/loop.out")
echo "libpcap loop: $(gb "$fbytes" "$CPU_loop") GB/s of CPU time, $(gb "$fbytes" "$WALL_loop") GB/s" \
     "wall ($frames frames, best of $nrounds), peak RSS $PEAK_loop KiB"
echo "@result libpcap_loop_gbps $(gb "$fbytes" "$CPU_loop") - - GB/s"
echo "libpcap loop, 1 MiB stdio buffer: $(gb "$fbytes" "$CPU_loopbuf") GB/s of CPU time," \
     "$(gb "$fbytes" "$WALL_loopbuf") GB/s wall, peak RSS $PEAK_loopbuf KiB"
echo "@result libpcap_loopbuf_gbps $(gb "$fbytes" "$CPU_loopbuf") - - GB/s"

if [ -z "$insp" ]; then
	echo "rk-inspect: not built"
	echo "@result rk_inspect missing - - -"
else
	echo "rk-inspect --summary -q: $(gb "$fbytes" "$CPU_insp") GB/s of CPU time," \
	     "$(gb "$fbytes" "$WALL_insp") GB/s wall (best of $nrounds), peak RSS $PEAK_insp KiB"
	r=$(ratio "$CPU_loop" "$CPU_insp")
	echo "ratio rk-inspect/libpcap $r (target >= 0.5); on wall time $(ratio "$WALL_loop" "$WALL_insp")"
	echo "@result inspect_vs_libpcap $r >= 0.5 ratio"
	echo "@result inspect_vs_libpcap_wall $(ratio "$WALL_loop" "$WALL_insp") - - ratio"
	# rk-inspect gives its stream a 1 MiB buffer: against a loop that does
	# the same, the ratio shows the cost of decoding alone.
	r=$(ratio "$CPU_loopbuf" "$CPU_insp")
	echo "ratio rk-inspect/libpcap with the same 1 MiB buffer $r (information)"
	echo "@result inspect_vs_libpcap_buf $r - - ratio"
	r=$(ratio "$CPU_inspnc" "$CPU_inspiv")
	echo "rk-inspect with the congestion view, timing and a 1 ms series against" \
	     "--no-congestion: ratio $r of CPU time (target >= 0.8); default summary" \
	     "$(ratio "$CPU_inspnc" "$CPU_insp")"
	echo "@result inspect_views_vs_plain $r >= 0.8 ratio"
	d=$(awk -v a="$PEAK_insp" -v b="$PEAK_loop" 'BEGIN { printf "%.1f", (a - b) / 1024 }')
	echo "peak RSS rk-inspect - libpcap loop: $d MiB (target < 64)"
	echo "@result inspect_rss_over_loop_mib $d < 64 MiB"

	# One --json run: findings and per-QP records (its time is information).
	timed json "$insp" --json "$capture"
	nfind=
	nflows=
	if [ "$RC" = 0 ] && command -v python3 >/dev/null; then
		set -- $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(d.get("findings", {}).values()), len(d.get("qps", [])))' "$tmp/json.out")
		nfind=$1
		nflows=$2
	fi
	echo "rk-inspect --json: $(gb "$fbytes" "$CPU_NS") GB/s of CPU time, peak RSS $RSS_KB KiB," \
	     "findings ${nfind:-?}, QP flows ${nflows:-?}${qps:+ (gen-capture: $qps QPs, both directions)}"
	if [ -n "$nfind" ]; then
		echo "@result inspect_findings $nfind == 0 count"
		echo "@result inspect_qp_flows $nflows - - count"
	fi
	d=$(awk -v a="$RSS_KB" -v b="$PEAK_loop" 'BEGIN { printf "%.1f", (a - b) / 1024 }')
	echo "@result inspect_json_rss_over_loop_mib $d - - MiB"
fi

# ---------------------------------------------------------------- tshark
if ! command -v tshark >/dev/null; then
	echo "tshark: not installed"
	exit 0
fi
tfile=$capture
if [ "$tshark_size" != all ]; then
	limit=$(numfmt --from=iec "$tshark_size" 2>/dev/null) || die "bad --tshark-size"
	if [ "$limit" -lt "$fbytes" ]; then
		tfile="$tmp/prefix.pcap"
		# Whole records only, so both readers see a well-formed file.
		python3 - "$capture" "$tfile" "$limit" <<'EOF' || die "cannot cut a prefix (pcap files only)"
import struct, sys
src, dst, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src, "rb") as f, open(dst, "wb") as o:
    hdr = f.read(24)
    magic = hdr[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        sys.exit(1)
    o.write(hdr)
    n = 24
    while n < limit:
        rh = f.read(16)
        if len(rh) < 16:
            break
        cap = struct.unpack(end + "IIII", rh)[2]
        o.write(rh + f.read(cap))
        n += 16 + cap
EOF
		cat "$tfile" >/dev/null
	fi
fi
tbytes=$(bytes_of "$tfile")
if [ "$tfile" = "$capture" ]; then
	echo "tshark: whole capture ($tbytes bytes)"
else
	echo "tshark: on a prefix of $tbytes bytes of the capture (--tshark-size $tshark_size)" \
	     "${insp:+; rk-inspect runs on the same prefix for the ratio}"
fi

# Never dissect as root; tshark reads the capture from stdin so the file's
# permissions do not matter, and gets no personal configuration.
asuser=
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || die "running as root needs setpriv to drop tshark's privileges"
	asuser="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
# tshark_run NAME FILE: one tshark run, timed like the others.
tshark_run() {
	timed "$1" env HOME=/nonexistent $asuser \
		tshark -n -r - -q -z io,stat,0 -z expert <"$2"
}
# tshark spends a fixed time loading its dissectors: measure it on the
# capture's file header alone and take it off, which favours tshark.
TS_START=0
if [ "$(head -c 4 "$tfile" | od -An -tx1 | tr -d ' ')" != 0a0d0d0a ]; then
	head -c 24 "$tfile" >"$tmp/empty.pcap"
	tshark_run tshark_empty "$tmp/empty.pcap"
	[ "$RC" = 0 ] && TS_START=$CPU_NS
fi
tshark_run tshark "$tfile"
if [ "$RC" != 0 ]; then
	cat "$tmp/tshark.err" >&2
	echo "tshark: failed (exit $RC)"
	exit 0
fi
TS_NS=$((CPU_NS - TS_START))
tframes=$(awk -F'|' '/<>/ { gsub(/ /, "", $3); print $3; exit }' "$tmp/tshark.out")
echo "tshark -q -z io,stat,0 -z expert: $(gb "$tbytes" "$TS_NS") GB/s of CPU time ($tframes frames," \
     "one run, $((TS_START / 1000000)) ms of startup CPU time taken off), peak RSS $RSS_KB KiB"
echo "@result tshark_gbps $(gb "$tbytes" "$TS_NS") - - GB/s"
sed -n '/^Errors\|^Warnings/,/^$/p' "$tmp/tshark.out" | sed 's/^/  tshark expert: /' | head -n 12

if [ -n "$insp" ]; then
	if [ "$tfile" = "$capture" ]; then
		tb=$CPU_insp
	else
		rounds insp_prefix "$insp" --summary -q "$tfile"
		tb=$CPU_insp_prefix
	fi
	r=$(ratio "$TS_NS" "$tb")
	echo "ratio rk-inspect/tshark $r (information)"
	echo "@result inspect_vs_tshark $r - - ratio"
fi
