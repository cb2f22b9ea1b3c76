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
trap 'rm -rf "$tmp"' EXIT INT TERM
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

echo "rk_gen_recv_check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
