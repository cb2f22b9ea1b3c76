#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Cost of the rdmakit Wireshark plugin: tshark with the plugin against the
# same tshark without it, over the same (page-cached) RoCEv2 capture, in
# interleaved rounds; the fastest CPU time (user + system, bench/runstat)
# of each counts. Two workloads:
#   fields  tshark -T fields -e frame.number -e infiniband.bth.psn
#   tree    tshark -q -z io,stat,0 -z expert  (builds every protocol tree)
# and, for information, -T fields with the reassemble preference on.
# Ratio = CPU time with the plugin / without it (target <= 1.5).
# As root, tshark runs as nobody (it ignores personal plugin folders for
# root); the plugin is copied to a folder that user can read.
#
# usage: bench_plugin.sh [options] [CAPTURE]
#   --build-dir DIR    build directory holding dissectors/rdmakit.so and
#                      bench/ (default: build-bench next to this directory)
#   --size SIZE        size of the generated capture (default 256M)
#   --reps N           rounds (default 3)
#   CAPTURE            use this capture instead of generating one
# Machine-readable lines start with "@result" (read by run-bench.sh).

set -u

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build-bench"
size=256M
reps=3
capture=

die() {
	echo "bench_plugin: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) build=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	-h|--help) sed -n '3,/^# Machine/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) capture=$1; shift ;;
	esac
done

plugin="$build/dissectors/rdmakit.so"
gen="$build/bench/gen-capture"
runstat="$build/bench/runstat"
tshark=$(command -v tshark) || { echo "@result plugin_vs_tshark missing - - -"; die "tshark not installed"; }
[ -f "$plugin" ] || { echo "@result plugin_vs_tshark missing - - -"; die "plugin not built: $plugin"; }
[ -x "$gen" ] && [ -x "$runstat" ] || die "gen-capture or runstat not built in $build"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-bench-plugin.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$tmp"
mkdir -p "$tmp/with/4.0/epan" "$tmp/without/4.0/epan" "$tmp/home"
cp "$plugin" "$tmp/with/4.0/epan/rdmakit.so"
chmod -R a+rX "$tmp"

if [ -z "$capture" ]; then
	capture="$tmp/rocev2.pcap"
	echo "capture: generating $size of RoCEv2 traffic"
	"$gen" -o "$capture" --size "$size" 2>"$tmp/gen.err" || { cat "$tmp/gen.err" >&2; die "gen-capture failed"; }
	sed 's/^/  /' "$tmp/gen.err"
else
	cp "$capture" "$tmp/given.pcap" || die "cannot read $capture"
	capture="$tmp/given.pcap"
fi
chmod 644 "$capture"
cat "$capture" >/dev/null

as_user=
[ "$(id -u)" = 0 ] && as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"

# run TAG PLUGINDIR ARGS...: one timed tshark run; sets CPU_NS and RC
run() {
	tag=$1 dir=$2
	shift 2
	$runstat -o "$tmp/$tag.stat" $as_user env HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$dir" \
		"$tshark" -r "$capture" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
	RC=$?
	set -- $(cat "$tmp/$tag.stat" 2>/dev/null) x x x x x
	CPU_NS=${4:-0}
	[ "$RC" = 0 ] || { tail -5 "$tmp/$tag.err" >&2; die "tshark ($tag) failed (exit $RC)"; }
}

best() { # TAG: keep the smallest CPU_NS in BEST_<TAG>
	eval "b=\${BEST_$1:-0}"
	if [ "$b" = 0 ] || [ "$CPU_NS" -lt "$b" ]; then eval "BEST_$1=$CPU_NS"; fi
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'
}

i=0
while [ "$i" -lt "$reps" ]; do
	run fields_without "$tmp/without" -T fields -e frame.number -e infiniband.bth.psn; best fw
	run fields_with "$tmp/with" -T fields -e frame.number -e infiniband.bth.psn; best fp
	run tree_without "$tmp/without" -q -z io,stat,0 -z expert; best tw
	run tree_with "$tmp/with" -q -z io,stat,0 -z expert; best tp
	run reasm_with "$tmp/with" -o rdmakit.reassemble:TRUE -T fields -e frame.number \
		-e infiniband.bth.psn; best rp
	i=$((i + 1))
done
# The plugin must really have run: its expert items appear only with it.
frames=$(sed -n 's/^| 0.000 <> [^|]*| *\([0-9]*\) .*/\1/p' "$tmp/tree_with.out" | head -n 1)
$as_user env HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/with" "$tshark" -G protocols |
	grep -q '^rdmakit RDMA analysis' || die "tshark did not load the plugin"

rf=$(ratio "$BEST_fp" "$BEST_fw")
rt=$(ratio "$BEST_tp" "$BEST_tw")
echo "tshark -T fields: $(awk -v n="$BEST_fw" 'BEGIN{printf "%.2f", n/1e9}') s CPU without the plugin," \
     "$(awk -v n="$BEST_fp" 'BEGIN{printf "%.2f", n/1e9}') s with it (best of $reps, ${frames:-?} frames)"
echo "ratio plugin/no plugin, fields: $rf (target <= 1.5)"
echo "tshark -q -z io,stat -z expert: $(awk -v n="$BEST_tw" 'BEGIN{printf "%.2f", n/1e9}') s CPU without," \
     "$(awk -v n="$BEST_tp" 'BEGIN{printf "%.2f", n/1e9}') s with"
echo "ratio plugin/no plugin, trees: $rt (target <= 1.5)"
rr=$(ratio "$BEST_rp" "$BEST_fw")
echo "ratio with message payloads kept (-o rdmakit.reassemble:TRUE, off by default), fields: $rr"
echo "@result plugin_vs_tshark_fields $rf <= 1.5 ratio"
echo "@result plugin_vs_tshark_tree $rt <= 1.5 ratio"
echo "@result plugin_reassemble_vs_tshark_fields $rr - - ratio"
