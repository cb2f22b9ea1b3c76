#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen end to end: frames written to pcap, read back by rk-inspect and
# tshark. A valid stream (PSN, DestQP and UDP source port varied,
# incremental ICRC) has no finding and no malformed frame, and equals the
# same stream with the ICRC recomputed in full; invalid fields give exactly
# the findings they must; every example of doc/gen.md (doc/gen-examples)
# gives what its "# expect-" lines say; bad usage and bad files get one
# line and the documented exit status (an option of the stateful mode
# given without it says so).
# usage: rk_gen_check.sh RK_GEN RK_INSPECT EXAMPLES_DIR
set -u
gen=$1
rk=$2
examples=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
skip=0

ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# findings NAME.pcap: "id=count ..." sorted, or "none"; then frames and ICRC good.
inspect() {
	"$rk" -j "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["findings"]
print(" ".join(sorted("%s=%d" % kv for kv in f.items())) or "none",
      d["totals"]["rdma_frames"], d["totals"]["icrc_good"],
      sum(q["psn"]["gaps"] for q in d["qps"] if q.get("psn")),
      sum(q["psn"]["missing"] for q in d["qps"] if q.get("psn")))'
}

# tshark_clean NAME FILE FRAMES: all frames dissected, none malformed or in error.
tshark_clean() {
	if ! command -v tshark >/dev/null; then
		echo "skip $1 tshark: not installed"
		skip=$((skip + 1))
		return
	fi
	n=$(tshark -n -r "$2" 2>/dev/null | wc -l)
	bad=$(tshark -n -r "$2" -Y '_ws.malformed || _ws.expert.severity == error' 2>/dev/null | wc -l)
	if [ "$n" = "$3" ] && [ "$bad" = 0 ]; then
		ok "$1 tshark: $n frames, none malformed"
	else
		ko "$1 tshark: $n frames of $3, $bad malformed or in error"
	fi
}

# (a) a valid stream from the command line: 4 QPs in turn, each with PSNs in a row
vary="--vary psn:inc:0:0xffffff:1:4 --vary dest_qp:inc:0x10:0x13 --vary udp.src_port:random:49152:65535"
if "$gen" --op WRITE_ONLY --count 300 --payload 256 --seq $vary --icrc incremental \
	--pcap "$tmp/valid.pcap" 2>"$tmp/err" &&
   "$gen" --op WRITE_ONLY --count 300 --payload 256 --seq $vary --icrc full \
	--pcap "$tmp/full.pcap" 2>>"$tmp/err"; then
	got=$(inspect "$tmp/valid.pcap")
	[ "$got" = "none 300 300 0 0" ] && ok "valid: $got" || ko "valid: rk-inspect says '$got'"
	cmp -s "$tmp/valid.pcap" "$tmp/full.pcap" && ok "valid: incremental ICRC = full ICRC" ||
		ko "valid: incremental and full ICRC captures differ"
	tshark_clean valid "$tmp/valid.pcap" 300
else
	ko "valid: rk-gen: $(cat "$tmp/err")"
fi

# (b) invalid fields from the command line: exactly their findings
if "$gen" --op SEND_ONLY --count 5 --set bth.tver=1 --set bth.pad_cnt=1 --payload 0 \
	--icrc bad --vary psn:inc --pcap "$tmp/bad.pcap" 2>"$tmp/err"; then
	got=$(inspect "$tmp/bad.pcap")
	want="bth.padcnt.invalid=5 bth.tver.nonzero=5 icrc.bad=5 5 0 0 0"
	[ "$got" = "$want" ] && ok "invalid: $got" || ko "invalid: '$got', want '$want'"
else
	ko "invalid: rk-gen: $(cat "$tmp/err")"
fi

# a train and a rate from the command line: 10 frames, 1 ms apart
if "$gen" --train WRITE:10000:1024 --rate 1kpps --pcap "$tmp/train.pcap" 2>"$tmp/err"; then
	got=$(inspect "$tmp/train.pcap")
	dur=$("$rk" -j "$tmp/train.pcap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["duration"])')
	[ "$got" = "none 10 10 0 0" ] && [ "$dur" = "0.009000000" ] && ok "train: $got, $dur s" ||
		ko "train: rk-inspect '$got', duration $dur"
else
	ko "train: rk-gen: $(cat "$tmp/err")"
fi

# the sequence slot: number i and the TX time the pcap timestamp says
# (RDMA WRITE Only over IPv4, untagged: the payload starts at byte 70)
"$gen" --op WRITE_ONLY --count 50 --payload 64 --seq --rate 3kpps --pcap "$tmp/seq.pcap" 2>/dev/null
got=$(python3 - "$tmp/seq.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, i, bad = 24, 0, 0
while off < len(d):
    sec, nsec, incl, _ = struct.unpack_from("<IIII", d, off)
    f = d[off + 16:off + 16 + incl]
    seq, ns = struct.unpack_from(">IQ", f, 70 + 4)
    bad += seq != i or ns != sec * 1000000000 + nsec
    off += 16 + incl
    i += 1
print(i, bad)
PY
)
[ "$got" = "50 0" ] && ok "sequence slot: 50 frames, numbers and times right" ||
	ko "sequence slot: frames, wrong: $got"
magic=$(od -An -tx4 -N4 "$tmp/seq.pcap" | tr -d ' ')
[ "$magic" = a1b23c4d ] && ok "pcap: nanosecond timestamps" || ko "pcap: magic $magic"

# bursts and on/off periods: the times the stream's pattern gives (ns)
pcap_times() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, out = 24, []
while off < len(d):
    sec, nsec, incl, _ = struct.unpack_from("<IIII", d, off)
    out.append(str(sec * 1000000000 + nsec))
    off += 16 + incl
print(" ".join(out))
PY
}
"$gen" --op SEND_ONLY --count 7 --rate 1Mpps --burst 3:10 --pcap "$tmp/burst.pcap" 2>/dev/null
got=$(pcap_times "$tmp/burst.pcap")
want="0 1000 2000 13000 14000 15000 26000"
[ "$got" = "$want" ] && ok "bursts of 3, 10 us apart: $got" || ko "bursts: '$got', want '$want'"
"$gen" --op SEND_ONLY --count 7 --rate 1Mpps --on-off 2:5 --pcap "$tmp/onoff.pcap" 2>/dev/null
got=$(pcap_times "$tmp/onoff.pcap")
want="0 1000 7000 8000 14000 15000 21000"
[ "$got" = "$want" ] && ok "on 2 us, off 5 us: $got" || ko "on/off: '$got', want '$want'"

# a full disk: the error is said, exit 1 (not a truncated file called done)
if [ -w /dev/full ]; then
	"$gen" --op SEND_ONLY --count 1000 --pcap /dev/full 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && grep -q "write failed" "$tmp/err" && ok "a full disk: exit 1, said" ||
		ko "a full disk: exit $rc, $(cat "$tmp/err")"
fi
# SIGINT while writing: the frames so far kept whole and counted, exit 0
"$gen" --op SEND_ONLY --count 0 --limit 1000000000 --rate 1kpps --pcap "$tmp/int.pcap" \
	2>"$tmp/err" &
gp=$!
sleep 0.3
kill -INT "$gp"
wait "$gp"
rc=$?
tr=$("$rk" -j "$tmp/int.pcap" 2>/dev/null | python3 -c \
	'import json,sys; d=json.load(sys.stdin); print(d["totals"]["truncated_frames"], d["totals"]["read_error"])' 2>/dev/null)
[ $rc = 0 ] && grep -q "(interrupted)" "$tmp/err" && [ "$tr" = "0 None" ] &&
	ok "SIGINT: whole frames, said, exit 0" || ko "SIGINT: exit $rc, '$(cat "$tmp/err")', $tr"

# --op with --train: refused, as the stream file refuses bth.opcode in a train
"$gen" --op SEND_ONLY --train WRITE:10000:1024 --pcap "$tmp/x.pcap" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "exclude each other" "$tmp/err" && ok "--op with --train: exit 2" ||
	ko "--op with --train: exit $rc, '$(cat "$tmp/err")'"

# a count the frame limit cuts is said
"$gen" --op SEND_ONLY --count 20 --limit 5 --pcap "$tmp/lim.pcap" 2>"$tmp/err"
grep -q "stopped at the limit of 5 frames" "$tmp/err" && ok "--limit below a count: said" ||
	ko "--limit below a count: $(cat "$tmp/err")"

# every example of doc/gen.md
for y in "$examples"/*.yaml; do
	name=$(basename "$y" .yaml)
	want=$(sed -n 's/^# expect-findings: //p' "$y")
	gaps=$(sed -n 's/^# expect-gaps: //p' "$y")
	missing=$(sed -n 's/^# expect-missing: //p' "$y")
	if [ -z "$want" ]; then
		ko "$name: no '# expect-findings:' line"
		continue
	fi
	if ! "$gen" --stream "$y" --pcap "$tmp/$name.pcap" 2>"$tmp/err"; then
		ko "$name: rk-gen: $(cat "$tmp/err")"
		continue
	fi
	got=$(inspect "$tmp/$name.pcap")
	got_gaps=$(echo "$got" | awk '{ print $(NF - 1) }')
	got_missing=$(echo "$got" | awk '{ print $NF }')
	want=$(echo "$want" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$(echo "$got" | sed 's/ [0-9]* [0-9]* [0-9]* [0-9]*$//')" != "$want" ] ||
	   [ "$got_gaps" != "${gaps:-0}" ] || [ "$got_missing" != "${missing:-0}" ]; then
		ko "$name: rk-inspect '$got', want findings '$want' gaps ${gaps:-0} missing ${missing:-0}"
		continue
	fi
	ok "$name: $got"
	if [ "$want" = none ]; then
		tshark_clean "$name" "$tmp/$name.pcap" "$(tshark -n -r "$tmp/$name.pcap" 2>/dev/null | wc -l)"
	fi
done

# usage: one line naming the fault and --help, exit 2; a bad file: its line, exit 1
# (an option of the stateful mode, where rk-gen has it, is named as such)
sf_only=""
"$gen" --help 2>/dev/null | grep -q "^Stateful mode" &&
	sf_only="--ip-count|--clients=3|--qps|--ack-timeout|--oob-port"
for bad in "--bogus:unknown option --bogus" "--pcap:option --pcap needs an argument" \
	   "--rate:option --rate needs an argument" "--op:option --op needs an argument" \
	   "--seq=1:option --seq takes no argument" "-x:unknown option -x" \
	   $(echo "$sf_only" | tr '|' ' '); do
	case $bad in
	*:*) ;;
	*) bad="$bad:${bad%%=*} belongs to the stateful mode (--stateful N or --responder)";;
	esac
	"$gen" "${bad%%:*}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(cat "$tmp/err")" = "rk-gen: ${bad#*:} (--help for usage)" ]; then
		ok "usage: ${bad%%:*}"
	else
		ko "usage: ${bad%%:*}: exit $rc, '$(cat "$tmp/err")'"
	fi
done
# a value the stream refuses is a bad option (exit 2) named as the option,
# not a stream file's error (exit 1)
for bad in "--train WRITE:1000:1000|rk-gen: --train: 1000 is not an IB MTU" \
	   "--op WRITE_ONLY --set aeth.msn=1|rk-gen: --set aeth.msn: the frame has no such field"; do
	# shellcheck disable=SC2086
	"$gen" ${bad%%|*} --pcap "$tmp/bad.pcap" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "${bad#*|}" "$tmp/err" &&
		ok "${bad%%|*}: exit 2, said as the option" ||
		ko "${bad%%|*}: exit $rc, '$(cat "$tmp/err")'"
done
# one frame is "1 frame"
"$gen" --op WRITE_ONLY --count 1 --pcap "$tmp/one.pcap" >"$tmp/out" 2>"$tmp/err"
grep -q "^rk-gen: 1 frame from 1 stream to " "$tmp/err" && ok "--count 1: '1 frame'" ||
	ko "--count 1: '$(cat "$tmp/err")'"
# a forgotten value: the next option is not taken for it
"$gen" --pcap --rate 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "rk-gen: option --pcap needs an argument (--help for usage)" ] &&
	ok "usage: --pcap --rate 1" || ko "usage: --pcap --rate 1: exit $rc, '$(cat "$tmp/err")'"
"$gen" --op WRITE_ONLY --vary psn:sideways --pcap "$tmp/x.pcap" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok "usage: bad --vary" ||
	ko "usage: bad --vary: exit $rc, '$(cat "$tmp/err")'"
# values that parsed before and made broken output: NaN, infinite or
# vanishing rates, a message size that wraps, negative counts, a step of 0
for args in "--rate nanpps" "--rate infpps" "--rate 1e-300pps" "--line-rate nan --rate 50%" \
	    "--train WRITE:4294967295:1024" "--train WRITE:-1:1024" "--train WRITE:9:1024x" \
	    "--burst -1:5" "--on-off 5:-1" "--burst 1:4294967296" "--on-off 4294967296:1" \
	    "--burst 1:3000000000000000" "--vary psn:inc:0:10:0" "--vary psn:inc:0:10:1:0" \
	    "--vary psn:inc:5:1"; do
	# shellcheck disable=SC2086
	"$gen" $args --pcap "$tmp/x.pcap" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok "usage: $args: exit 2, one line" ||
		ko "usage: $args: exit $rc, '$(cat "$tmp/err")'"
done
# A pcap record's seconds are 32 bits: at 1e-5 pps (1e5 s apart) frame
# 42951 is due past 2^32 s; the run stops there and says so, no wrapped times.
"$gen" --op SEND_ONLY --payload 0 --rate 0.00001pps --count 50000 --pcap "$tmp/slow.pcap" 2>"$tmp/err"
rc=$?
times=$(pcap_times "$tmp/slow.pcap")
n=$(echo "$times" | wc -w)
last=${times##* }
[ $rc = 1 ] && [ "$n" = 42950 ] && [ "${last%?????????}" -ge 4294899999 ] &&
	grep -Eq "frame 42951 is due at 429(4999999|5000000) s" "$tmp/err" &&
	ok "pcap times past 2^32 s: stopped after 42950 frames, exit 1" ||
	ko "pcap times past 2^32 s: exit $rc, $n frames, '$(cat "$tmp/err")'"
printf 'streams:\n  - name: a\n    bth: {psn: 0x1000000}\n' >"$tmp/bad.yaml"
"$gen" --stream "$tmp/bad.yaml" --pcap "$tmp/x.pcap" 2>"$tmp/err"
rc=$?
want="$tmp/bad.yaml:3: field 'bth.psn': value 0x1000000 out of range for a 24-bit field"
[ $rc = 1 ] && [ "$(cat "$tmp/err")" = "$want" ] && ok "bad file: one line, exit 1" ||
	ko "bad file: exit $rc, '$(cat "$tmp/err")'"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
