#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen's receive side against a known pattern: two streams with the
# sequence slot written to pcap, then pcap_impair.py drops, swaps, moves
# and duplicates known frames, adds a frame that is not RoCEv2 and shifts
# every timestamp by 25 us; rk-gen --receive --pcap-in must report exactly
# those losses, reorders, duplicates and a latency of 25000 ns at every
# quantile. Then the errors: a capture that is not Ethernet, one that is
# no capture, bad usage.
# usage: rk_gen_recv_check.sh RK_GEN IMPAIR_PY
set -u
gen=$1
impair=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

cat >"$tmp/two.yaml" <<'EOF'
streams:
  - name: a
    count: 1000
    rate: 1Mpps
    bth: {opcode: SEND_ONLY, dest_qp: 0x11}
    payload: {len: 64, seq: true}
  - name: b
    count: 1000
    rate: 250kpps
    bth: {opcode: SEND_ONLY, dest_qp: 0x12}
    payload: {len: 64, seq: true}
EOF
"$gen" --stream "$tmp/two.yaml" --pcap "$tmp/clean.pcap" 2>"$tmp/err" ||
	ko "rk-gen writes the streams: $(cat "$tmp/err")"

# Stream 0: 5 lost, 4 reordered (extent 10 at most), 2 duplicates.
# Stream 1: its first and last frame lost, frame 1 after frame 2, 2 duplicates.
# Ethernet 14 + IPv4 20 + UDP 8 + BTH 12: the slot at byte 54.
python3 "$impair" "$tmp/clean.pcap" "$tmp/impaired.pcap" --slot-at 54 --delay-ns 25000 \
	--drop 0:5,0:17,0:18,0:500,0:998,1:0,1:999 \
	--swap 0:100,0:300,0:700,1:1 --move 0:400:10 --dup 0:50,0:600,1:10,1:11 --junk \
	>"$tmp/out" 2>&1 || ko "pcap_impair.py: $(cat "$tmp/out")"

# stream: frames unique lost reordered extent duplicates stale; latency min p50 p99 p99.9 max
figures() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
print("no_slot=%d" % d["no_slot"], "short=%d" % d["short_slot"])
for s in d["streams"]:
    l = s["latency_ns"]
    print(s["stream_id"], s["frames"], s["unique"], s["lost"], s["reordered"],
          s["reorder_extent_max"], s["duplicates"], s["stale"],
          l["count"], l["min"], l["p50"], l["p99"], l["p99_9"], l["max"], l["negative"])'
}

check() { # NAME EXPECTED ARGS...
	name=$1
	want=$2
	shift 2
	if ! "$gen" --receive --pcap-in "$tmp/impaired.pcap" --json "$@" >"$tmp/j" 2>"$tmp/err"; then
		ko "$name: exit status $?: $(cat "$tmp/err")"
		return
	fi
	got=$(figures <"$tmp/j" | tr '\n' '|')
	[ "$got" = "$want" ] && ok "$name: $got" || ko "$name: got '$got', want '$want'"
}

L="25000 25000 25000 25000 25000 0"
check "known pattern, count sent unknown" \
	"no_slot=1 short=0|0 997 995 5 4 10 2 0 995 $L|1 1000 998 1 1 1 2 0 998 $L|"
check "known pattern, --expect 1000" \
	"no_slot=1 short=0|0 997 995 5 4 10 2 0 995 $L|1 1000 998 2 1 1 2 0 998 $L|" \
	--expect 1000

# The table says the same.
"$gen" --receive --pcap-in "$tmp/impaired.pcap" --expect 1000 >"$tmp/t" 2>"$tmp/err"
row=$(awk '$1 == "0" { print $2, $3, $4, $6, $7, $8, $9, $10, $11, $12, $13 }' "$tmp/t")
[ "$row" = "997 995 5 4 2 0 25000 25000 25000 25000 25000" ] && ok "table: stream 0: $row" ||
	ko "table: stream 0: '$row'"

# The clean capture: nothing lost, latency 0 (the timestamps are the TX times).
"$gen" --receive --pcap-in "$tmp/clean.pcap" --json >"$tmp/j" 2>"$tmp/err"
got=$(figures <"$tmp/j" | tr '\n' '|')
want="no_slot=0 short=0|0 1000 1000 0 0 0 0 0 1000 0 0 0 0 0 0|1 1000 1000 0 0 0 0 0 1000 0 0 0 0 0 0|"
[ "$got" = "$want" ] && ok "clean capture: $got" || ko "clean capture: got '$got'"

# A slot at another offset than the sender's: a payload too short for it.
"$gen" --receive --pcap-in "$tmp/clean.pcap" --seq-offset 60 --json >"$tmp/j" 2>"$tmp/err"
got=$(figures <"$tmp/j" | tr '\n' '|')
[ "$got" = "no_slot=0 short=2000|" ] && ok "slot past the payload: $got" ||
	ko "slot past the payload: got '$got'"

# The series: 4000 frames at 1 Mpps, frames 1500..1509 dropped, 25 us late.
# Intervals of 1 ms from the first frame's RX time hold frames 1000k..1000k+999:
# frames 1000 990 1000 1000, lost 0 10 0 0, latency 25000 at each quantile.
"$gen" --op SEND_ONLY --count 4000 --rate 1Mpps --seq --payload 64 --pcap "$tmp/s.pcap" \
	2>"$tmp/err" || ko "rk-gen writes the series' stream: $(cat "$tmp/err")"
python3 "$impair" "$tmp/s.pcap" "$tmp/s_imp.pcap" --slot-at 54 --delay-ns 25000 \
	--drop "$(seq -s, -f '0:%g' 1500 1509)" >"$tmp/out" 2>&1 ||
	ko "pcap_impair.py (series): $(cat "$tmp/out")"
series() { # rows as frames/lost/reordered/lat_count/p50/p99/max, space-separated
	python3 -c '
import csv, sys
print(" ".join("%s/%s/%s/%s/%s/%s/%s" % (r["frames"], r["lost"], r["reordered"], r["lat_count"],
      r["lat_p50_ns"], r["lat_p99_ns"], r["lat_max_ns"]) for r in csv.DictReader(sys.stdin)))'
}
R=25000/25000/25000
want="1000/0/0/1000/$R 990/10/0/990/$R 1000/0/0/1000/$R 1000/0/0/1000/$R"
got=$("$gen" --receive --pcap-in "$tmp/s_imp.pcap" --interval 0.001 --csv - 2>"$tmp/err" | series)
[ "$got" = "$want" ] && ok "series, CSV: $got" || ko "series, CSV: got '$got', want '$want'"
got=$("$gen" --receive --pcap-in "$tmp/s_imp.pcap" --interval 0.001 --json 2>"$tmp/err" |
	python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["interval_s"], " ".join("%d/%d/%d/%d/%d/%d/%d" % (r["frames"], r["lost"], r["reordered"],
      r["lat_count"], r["lat_p50_ns"], r["lat_p99_ns"], r["lat_max_ns"]) for r in d["series"]))')
[ "$got" = "0.001 $want" ] && ok "series, JSON: $got" || ko "series, JSON: got '$got'"
# The final, partial interval ends with the last frame (3.999 ms): with
# 1 ms its row spans 0.999 ms; with 3.5 ms its 0.499 ms (under half the
# period) joins the first row, whose rate is then over 3.999 ms (no spike).
got=$("$gen" --receive --pcap-in "$tmp/s_imp.pcap" --interval 0.001 --csv - 2>"$tmp/err" |
	python3 -c 'import csv, sys; print(" ".join(r.get("interval_s") or "none" for r in csv.DictReader(sys.stdin)))')
want="0.001 0.001 0.001 0.000999"
[ "$got" = "$want" ] && ok "series: the last row spans its real length: $got" ||
	ko "series, rows' lengths: got '$got', want '$want'"
got=$("$gen" --receive --pcap-in "$tmp/s_imp.pcap" --interval 0.0035 --csv - 2>"$tmp/err" |
	python3 -c '
import csv, sys
print(" ".join("%s/%s/%s/%.3f/%s/%s" % (r["frames"], r["lost"], r.get("interval_s"),
      float(r["gbps"]), r["lat_count"], r["lat_p99_ns"]) for r in csv.DictReader(sys.stdin)))')
# 3990 frames of 122 bytes in 3.999 ms, the sliver's latencies with the row's
want="3990/10/0.003999/0.974/3990/25000"
[ "$got" = "$want" ] && ok "series: a final sliver joins the row before: $got" ||
	ko "series, a final sliver: got '$got', want '$want'"
# The known pattern's series adds up to its report: frames, first arrivals
# with a latency (duplicates stay out), loss and reorders.
got=$("$gen" --receive --pcap-in "$tmp/impaired.pcap" --interval 0.001 --json 2>"$tmp/err" |
	python3 -c '
import json, sys
d = json.load(sys.stdin); rows = d["series"]; st = d["streams"]
print(sum(r["frames"] for r in rows) == d["frames"],
      sum(r["lat_count"] for r in rows) == sum(s["latency_ns"]["count"] for s in st),
      sum(r["lost"] for r in rows), sum(r["reordered"] for r in rows),
      sum(r["duplicates"] for r in rows))')
[ "$got" = "True True 6 5 4" ] && ok "series adds up to the report: $got" ||
	ko "series adds up to the report: got '$got', want 'True True 6 5 4'"
# A capture with a gap: its empty intervals are rows of zeros.
python3 "$impair" "$tmp/s.pcap" "$tmp/s_gap.pcap" --slot-at 54 \
	--drop "$(seq -s, -f '0:%g' 1000 2999)" >"$tmp/out" 2>&1
got=$("$gen" --receive --pcap-in "$tmp/s_gap.pcap" --interval 0.001 --csv - 2>"$tmp/err" | series)
want="1000/0/0/1000/0/0/0 0/0/0/0/0/0/0 0/0/0/0/0/0/0 1000/2000/0/1000/0/0/0"
[ "$got" = "$want" ] && ok "series over a gap: $got" || ko "series over a gap: got '$got', want '$want'"
if command -v gnuplot >/dev/null; then
	"$gen" --receive --pcap-in "$tmp/s_imp.pcap" --interval 0.001 --plot "$tmp/s.png" \
		--csv "$tmp/s.csv" >/dev/null 2>"$tmp/err"
	if [ "$(head -c 4 "$tmp/s.png" | od -An -c | tr -d ' ')" = "211PNG" ] &&
	   [ "$(series <"$tmp/s.csv")" = "1000/0/0/1000/$R 990/10/0/990/$R 1000/0/0/1000/$R 1000/0/0/1000/$R" ]; then
		ok "series: --plot writes a PNG, --csv a file"
	else
		ko "series: --plot/--csv files: $(cat "$tmp/err")"
	fi
else
	echo "SKIP --plot: gnuplot is not installed (Debian package gnuplot-nox)"
fi

# Errors: exit 1 for a capture rk-gen cannot read, 2 for bad usage.
python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[20:24] = (101).to_bytes(4, "little")
open(sys.argv[2], "wb").write(d)' "$tmp/clean.pcap" "$tmp/raw.pcap"
expect_exit() { # NAME STATUS MESSAGE-PART ARGS...
	name=$1
	want=$2
	msg=$3
	shift 3
	"$gen" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$msg" "$tmp/err"; then
		ok "$name: exit $rc: $(head -1 "$tmp/err")"
	else
		ko "$name: exit $rc (want $want): $(cat "$tmp/err")"
	fi
}
expect_exit "not Ethernet" 1 "not Ethernet" --receive --pcap-in "$tmp/raw.pcap"
printf 'not a capture at all' >"$tmp/junk"
expect_exit "not a capture" 1 "junk: " --receive --pcap-in "$tmp/junk"
expect_exit "no such file" 1 "No such file" --receive --pcap-in "$tmp/none.pcap"
expect_exit "no source" 2 "needs --pcap-in" --receive
expect_exit "a stream too" 2 "takes no stream" --receive --pcap-in "$tmp/clean.pcap" --op SEND_ONLY
expect_exit "--json alone" 2 "go with --receive" --op SEND_ONLY --pcap "$tmp/x.pcap" --json
expect_exit "--idle on a capture" 2 "go with --port" --receive --pcap-in "$tmp/clean.pcap" --idle 1
expect_exit "--rx-delay on a capture" 2 "go with --port" --receive --pcap-in "$tmp/clean.pcap" --rx-delay 5
expect_exit "--rx-port without --port" 2 "goes with --port" --op SEND_ONLY --pcap "$tmp/x.pcap" --rx-port 0
expect_exit "--rx-port with --receive" 2 "exclude each other" --receive --port 0 --rx-port 1
expect_exit "--expect 0" 2 "above 0" --receive --pcap-in "$tmp/clean.pcap" --expect 0
expect_exit "--csv without --interval" 2 "need --interval" --receive --pcap-in "$tmp/clean.pcap" --csv -
expect_exit "--interval alone" 2 "with --json, --csv or --plot" --receive --pcap-in "$tmp/clean.pcap" --interval 1
expect_exit "--interval 0" 2 "--interval '0'" --receive --pcap-in "$tmp/clean.pcap" --interval 0 --json
expect_exit "--csv - with --json" 2 "not with --json" --receive --pcap-in "$tmp/clean.pcap" --interval 1 --json --csv -
expect_exit "--plot where none can be written" 2 "No such file" --receive --pcap-in "$tmp/clean.pcap" --interval 1 --plot "$tmp/no/x.png"
expect_exit "--interval when sending" 2 "go with --receive" --op SEND_ONLY --pcap "$tmp/x.pcap" --interval 1 --json

echo "rk_gen_recv_check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
