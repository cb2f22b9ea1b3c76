#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Command line of rk-inspect: option errors, help text, repeated modes,
# --max-flows, and the link type name of raw IP captures.
# usage: cli_check.sh RK_INSPECT PCAP_DIR
set -u
rk=$1
pcaps=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
cap=$pcaps/roce/rxe_write_bw_loss5.pcap

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# $1 name, $2 expected exit status, $3 text stderr must hold, then the command
expect_err() {
	name=$1 want_rc=$2 want=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	first=$(head -1 "$tmp/err")
	if [ $rc -ne "$want_rc" ]; then
		bad "$name: exit $rc, expected $want_rc ($first)"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		bad "$name: stderr '$first', expected '$want'"
	elif grep -q "unrecognized option\|invalid option\|requires an argument" "$tmp/err" ||
	     [ "${first#rk-inspect: }" = "$first" ]; then
		# getopt's own messages start with the path the program ran as.
		bad "$name: stderr '$first' is not rk-inspect's own"
	else
		ok
	fi
}

# getopt's messages carry the program name.
expect_err "unknown long option" 2 "rk-inspect: unknown option --no-such" "$rk" --no-such "$cap"
expect_err "unknown short option" 2 "rk-inspect: unknown option -z" "$rk" -z "$cap"
expect_err "missing argument" 2 "rk-inspect: option --pmtu needs an argument" "$rk" "$cap" --pmtu
expect_err "missing short argument" 2 "rk-inspect: option -c needs an argument" "$rk" "$cap" -c
# a missing argument is said in full on one line: no hint line after it
for o in --pmtu -c --filter; do
	"$rk" "$cap" $o >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "rk-inspect: option $o needs an argument" ] && ok ||
		bad "missing argument of $o: exit $rc, '$(cat "$tmp/err")'"
done
# a forgotten value: the next option is not taken for it
expect_err "value forgotten" 2 "rk-inspect: option --pmtu needs an argument" "$rk" "$cap" --pmtu --json
expect_err "short value forgotten" 2 "rk-inspect: option -c needs an argument" "$rk" -c --json "$cap"
# --finding's hint gives IDs that exist: each of its examples is taken
hint=$("$rk" --finding no.such "$cap" 2>&1 >/dev/null | sed -n 's/.*its start (\(.*\); --list-findings).*/\1/p')
[ -n "$hint" ] && ok || bad "--finding no.such: no hint with examples"
for id in $(echo "$hint" | tr ',' ' '); do
	"$rk" --finding "$id" -q "$cap" >/dev/null 2>&1
	rc=$?
	[ $rc -lt 2 ] && ok || bad "--finding's hint gives $id, which is refused (exit $rc)"
done
# an --interval too short for the capture stops the read when the series
# is full, not after printing every frame (213 lines here)
"$rk" --interval 1e-9 --csv "$tmp/tiny.csv" "$cap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/out")" -lt 10 ] && grep -q "more than .* intervals" "$tmp/err" &&
	ok || bad "--interval 1e-9: exit $rc, $(wc -l <"$tmp/out") lines, '$(cat "$tmp/err")'"
# ... and its JSON report says why it is partial
"$rk" --interval 1e-9 -j "$cap" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["totals"]["read_error"]
sys.exit(0 if e and "--interval" in e else 1)' "$tmp/out" &&
	ok || bad "--interval 1e-9 -j: exit $rc, read_error not said: $(head -c 300 "$tmp/out")"
expect_err "count 0" 2 "rk-inspect: -c, --count '0': a frame count above 0" "$rk" --count 0 "$cap"
expect_err "count out of range" 2 "rk-inspect: -c, --count 99999999999999999999999: out of range" \
	"$rk" -c 99999999999999999999999 "$cap"
expect_err "two modes" 2 "exclude each other" "$rk" -s -j "$cap"
expect_err "bare read with a mode" 2 "rk-inspect: --bare-read decodes nothing" \
	"$rk" --bare-read -j "$cap"
expect_err "list-findings with a file" 2 "rk-inspect: --list-findings takes no capture file" \
	"$rk" --list-findings "$cap"
if "$rk" --bare-read "$cap" | grep -q "^frames 257 bytes 211856 first-byte parity [01]$"; then
	ok
else
	bad "--bare-read: $("$rk" --bare-read "$cap" 2>&1 | head -1)"
fi

# The same mode twice is not an error.
if "$rk" -s -s "$cap" >"$tmp/ss" 2>"$tmp/err" && "$rk" -s "$cap" | cmp -s - "$tmp/ss"; then
	ok
else
	bad "-s -s: $(head -1 "$tmp/err")"
fi

# Every option is in --help.
"$rk" --help >"$tmp/help"
for o in --summary --json --packets-json --no-icrc --pmtu --tcp-buffer --max-flows \
	--count --quiet --fail-on-findings --list-findings --bare-read --help --version; do
	grep -q -- "$o" "$tmp/help" || bad "--help lacks $o"
done
ok

# --max-flows: the second QP flow of the capture is not tracked, said once.
"$rk" --max-flows 1 -j "$cap" >"$tmp/j" 2>"$tmp/err"
rc=$?
got=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["qps"], t["untracked_flows"], t["untracked_packets"], t["rdma_frames"])' "$tmp/j" 2>/dev/null)
if [ $rc -ne 0 ] || [ "$got" != "1 1 23 213" ] || [ "$(grep -c "max-flows" "$tmp/err")" != 1 ]; then
	bad "--max-flows 1: exit $rc, qps/untracked/packets/frames '$got', stderr '$(cat "$tmp/err")'"
else
	ok
fi
if "$rk" -s "$cap" 2>&1 | grep -q "untracked"; then
	bad "untracked flows reported without --max-flows"
else
	ok
fi
expect_err "max-flows 0" 2 "--max-flows needs a positive count" "$rk" --max-flows 0 "$cap"

# One flow is "1 flow".
"$rk" --max-flows 1 -s "$cap" 2>/dev/null | grep -q "^QPs (1 flow):" && ok || bad "plural of 1 flow"

# Link type 14 (raw IP on some BSDs) is named, not "unknown".
python3 - "$pcaps/roce/rxe_rc_pingpong.pcap" "$tmp/raw14.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
out = bytearray(d[:20]) + struct.pack("<I", 14)
off = 24
while off + 16 <= len(d):
    ts, tu, incl, orig = struct.unpack("<IIII", d[off:off + 16])
    body = d[off + 16 + 14:off + 16 + incl]
    out += struct.pack("<IIII", ts, tu, len(body), orig - 14) + body
    off += 16 + incl
open(sys.argv[2], "wb").write(out)
PY
if "$rk" -s "$tmp/raw14.pcap" 2>"$tmp/err" | head -1 | grep -q "(RAW)$"; then
	ok
else
	bad "DLT 14: $("$rk" -s "$tmp/raw14.pcap" 2>&1 | head -1)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
