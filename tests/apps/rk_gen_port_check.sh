#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen on a DPDK port (net_null0, recorded to pcapng by lib/io): every
# example of doc/gen.md sent on the port gives rk-inspect the same findings,
# frames and PSN figures as the same file written to pcap; a stream at a
# rate takes its time; several ports each send every stream; frames too
# large for the port are refused with a line saying so; bad EAL options
# exit 2.
# usage: rk_gen_port_check.sh RK_GEN RK_INSPECT EXAMPLES_DIR
set -u
gen=$1
rk=$2
examples=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# EAL: hugepages when free, else anonymous memory; no PCI scan, one core.
# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:warning -l 0 --vdev=net_null0"

inspect() {
	"$rk" -j "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s=%d" % kv for kv in d["findings"].items())) or "none",
      d["totals"]["frames"], d["totals"]["icrc_good"],
      sum(q["psn"]["gaps"] for q in d["qps"] if q.get("psn")),
      sum(q["psn"]["missing"] for q in d["qps"] if q.get("psn")))'
}

# same_frames A.pcap B.pcapng [exact]: the same frames, byte for byte, in
# order (but the slot's TX time and the ICRC, which the port stamps with the
# wall clock, unless exact)
same_frames() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import struct, sys
def pcap(p):
    d = open(p, "rb").read(); off, out = 24, []
    while off + 16 <= len(d):
        n = struct.unpack_from("<I", d, off + 8)[0]
        out.append(d[off + 16:off + 16 + n]); off += 16 + n
    return out
def pcapng(p):
    d = open(p, "rb").read(); off, out = 0, []
    while off + 12 <= len(d):
        t, blen = struct.unpack_from("<II", d, off)
        if t == 6:
            n = struct.unpack_from("<I", d, off + 20)[0]
            out.append(d[off + 28:off + 28 + n])
        off += blen
    return out
def same(x, y):
    # On a port the sequence slot's TX time is the wall clock as the frame
    # is queued (its ICRC patched): those 8 bytes and the ICRC may differ.
    if x == y:
        return True
    if len(x) != len(y) or sys.argv[3] == "exact":
        return False
    d = [i for i in range(len(x)) if x[i] != y[i] and i < len(x) - 4]
    # the first byte that differs is the TX time's top byte (ns since the
    # start against ns since 1970); the rest of it may happen to agree
    return not d or (d[-1] - d[0] < 8 and int.from_bytes(y[d[0]:d[0] + 8], "big") > 10**18)
a, b = pcap(sys.argv[1]), pcapng(sys.argv[2])
bad = next((i for i, (x, y) in enumerate(zip(a, b)) if not same(x, y)), None)
print("same" if len(a) == len(b) and bad is None else
      "%d and %d frames, first difference at frame %s" % (len(a), len(b), bad))
PY
}

for y in "$examples"/*.yaml; do
	name=$(basename "$y" .yaml)
	if ! "$gen" --stream "$y" --pcap "$tmp/$name.pcap" 2>"$tmp/err" ||
	   ! timeout -k 5 60 "$gen" $EAL -- --stream "$y" --port net_null0 \
		--record "$tmp/$name.pcapng" >"$tmp/out" 2>"$tmp/err"; then
		ko "$name: rk-gen: $(tail -2 "$tmp/err")"
		continue
	fi
	want=$(inspect "$tmp/$name.pcap")
	got=$(inspect "$tmp/$name.pcapng")
	same=$(same_frames "$tmp/$name.pcap" "$tmp/$name.pcapng")
	[ "$got" = "$want" ] && [ "$same" = same ] && ok "$name on the port: $got, same bytes" ||
		ko "$name on the port: '$got', written to pcap: '$want'; bytes: $same"
done

# kept mbufs refilled with the changing bytes only, over and over: a
# train (three templates) with the slot and varied fields, at top speed,
# enough frames to wrap every ring; the port sends what the pcap holds
args="--train WRITE:3000:1024 --count 9000 --seq --vary dest_qp:random:1:0xffff --vary ipv4.src:inc"
if "$gen" $args --pcap "$tmp/wrap.pcap" 2>"$tmp/err" &&
   timeout -k 5 60 "$gen" $EAL -- $args --top-speed --port net_null0 \
	--record "$tmp/wrap.pcapng" >"$tmp/out" 2>"$tmp/err"; then
	same=$(same_frames "$tmp/wrap.pcap" "$tmp/wrap.pcapng")
	got=$(inspect "$tmp/wrap.pcapng")
	[ "$same" = same ] && [ "$got" = "none 9000 9000 0 0" ] &&
		ok "kept mbufs: 9000 frames of 3 templates, the same bytes, every ICRC good" ||
		ko "kept mbufs: $same; rk-inspect: $got"
else
	ko "kept mbufs: rk-gen: $(tail -2 "$tmp/err")"
fi

# bursts: one stream without the slot at top speed goes 32 frames at a
# time (rk_gen_stream_copy_next, the bench's case): the very bytes the
# stream gives frame by frame (the pcap), every ICRC valid, through a
# partial last burst, the PSN's byte carries and its wrap in the range,
# down by a step of 7, each value kept for 3 frames
for args in "--payload 1024 --count 3001" "--payload 0 --count 20001 --vary psn:inc:0xffc000:0xffffff" \
	"--payload 64 --count 5001 --vary psn:dec:0:0x3ff:7:3"; do
	case $args in *vary*) ;; *) args="$args --vary psn:inc" ;; esac
	args="--op SEND_ONLY $args --icrc incremental"
	if "$gen" $args --pcap "$tmp/burst.pcap" 2>"$tmp/err" &&
	   timeout -k 5 60 "$gen" $EAL -- $args --top-speed --port net_null0 \
		--record "$tmp/burst.pcapng" >"$tmp/out" 2>"$tmp/err"; then
		same=$(same_frames "$tmp/burst.pcap" "$tmp/burst.pcapng" exact)
		want=$(inspect "$tmp/burst.pcap")
		got=$(inspect "$tmp/burst.pcapng")
		n=${args#*--count }; n=${n%% *}
		[ "$same" = same ] && [ "$got" = "$want" ] && [ "$(echo "$got" | cut -d' ' -f2,3)" = "$n $n" ] &&
			ok "bursts ($args): $n frames, the same bytes, every ICRC good" ||
			ko "bursts ($args): $same; rk-inspect: '$got', the pcap: '$want'"
	else
		ko "bursts ($args): rk-gen: $(tail -2 "$tmp/err")"
	fi
done

# several ports: every stream on each, on a schedule of its own; each
# recording holds what the pcap does, and --limit counts per port
EAL2="$EAL --vdev=net_null1 --vdev=net_null2"
args="--train WRITE:2000:1024 --count 3000 --vary ipv4.src:inc --rate 2Mpps"
if "$gen" $args --pcap "$tmp/multi.pcap" 2>"$tmp/err" &&
   timeout -k 5 60 "$gen" $EAL2 -- $args --port net_null0 --port net_null1 --port net_null2 \
	--record "$tmp/m0.pcapng" --record "$tmp/m1.pcapng" >"$tmp/out" 2>"$tmp/err"; then
	got="$(same_frames "$tmp/multi.pcap" "$tmp/m0.pcapng") $(same_frames "$tmp/multi.pcap" \
		"$tmp/m1.pcapng") $(grep -c '^rk-gen: 3000 frames .* to port net_null[012] ' "$tmp/err")"
	tot=$(grep -c '^rk-gen: 9000 frames .* to 3 ports' "$tmp/err")
	rows=$(grep -c '^net_null[012] .* 3000 .* yes$' "$tmp/out")
	[ "$got" = "same same 3" ] && [ "$tot" = 1 ] && [ ! -e "$tmp/m2.pcapng" ] && [ "$rows" = 3 ] &&
		ok "three ports: 3000 frames each, two recorded as the pcap, a total line, the table" ||
		ko "three ports: $got, total lines $tot, table rows $rows: $(tail -4 "$tmp/err")"
else
	ko "three ports: rk-gen: $(tail -2 "$tmp/err")"
fi
timeout -k 5 60 "$gen" $EAL2 -- --stream "$examples/incast.yaml" --top-speed --limit 100 \
	--port net_null0 --port net_null1 --json >"$tmp/out" 2>"$tmp/err"
n=$(grep -c '^rk-gen: 100 frames .* to port net_null[01] ' "$tmp/err")
j=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["ports"]
print(d["frames"], len(p), [x["frames"] for x in p], [x["port_tx_frames"] for x in p],
      [sum(s["frames"] for s in x["streams"]) for x in p], len(p[0]["streams"]),
      sum(s["bytes"] for x in p for s in x["streams"]) == d["bytes"])' "$tmp/out" 2>&1)
[ "$n" = 2 ] && [ "$j" = "200 2 [100, 100] [100, 100] [100, 100] 3 True" ] &&
	ok "--limit 100 on two ports, --json: 100 each, per stream, bytes add up" ||
	ko "--limit per port, --json: lines $n, json '$j': $(cat "$tmp/err")"
# streams bound to ports: 'a' on the first, 'b' on the second and third,
# 'all' everywhere; a stream naming a port past those given: exit 2
cat >"$tmp/ports.yaml" <<'EOF'
streams:
  - {name: a, count: 100, rate: 1Mpps, ports: 0, bth: {opcode: SEND_ONLY}}
  - {name: b, count: 50, rate: 1Mpps, ports: [1, 2], bth: {opcode: SEND_ONLY}}
  - {name: all, count: 10, rate: 1Mpps, bth: {opcode: SEND_ONLY}}
EOF
timeout -k 5 60 "$gen" $EAL2 -- --stream "$tmp/ports.yaml" --port net_null0 --port net_null1 \
	--port net_null2 >"$tmp/out" 2>"$tmp/err"
got=$(awk '$1 ~ /^net_null/ { printf "%s:%s:%s ", $1, $2, $3 }' "$tmp/out")
want="net_null0:a:100 net_null0:all:10 net_null1:b:50 net_null1:all:10 net_null2:b:50 net_null2:all:10 "
[ "$got" = "$want" ] && ok "ports: keys: each port sent its streams" || ko "ports: keys: '$got'"
timeout -k 5 60 "$gen" $EAL2 -- --stream "$tmp/ports.yaml" --port net_null0 --port net_null1 \
	>/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "stream 'b' (line 3): its ports go past the 2 --port given" "$tmp/err" &&
	ok "a stream's port past the --port given: named, exit 2" ||
	ko "ports past --port: exit $rc, $(cat "$tmp/err")"
# a train's Middle and Last rings are ready before the clock starts: 64
# frames of 4 KiB at top speed take well under 50 ms (making their pools
# on the way took about 150 ms)
timeout -k 5 60 "$gen" $EAL -- --train WRITE:131072:4096 --count 64 --top-speed \
	--port net_null0 2>"$tmp/err" >/dev/null
secs=$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' "$tmp/err")
python3 -c "import sys; sys.exit(not float('${secs:-9}') < 0.05)" &&
	ok "a train at top speed: 64 frames in $secs s" || ko "a train at top speed: $(cat "$tmp/err")"

# a port that is done sends its last frames then, and reports its own
# time: 100 frames at 1 Mpps on the first port, 3 at 2 pps on the second
cat >"$tmp/early.yaml" <<'EOF'
streams:
  - {name: fast, count: 100, rate: 1Mpps, ports: 0, bth: {opcode: SEND_ONLY}}
  - {name: slow, count: 3, rate: 2pps, ports: 1, bth: {opcode: SEND_ONLY}}
EOF
timeout -k 5 60 "$gen" $EAL2 -- --stream "$tmp/early.yaml" --port net_null0 --port net_null1 \
	--record "$tmp/early.pcapng" --json >"$tmp/out" 2>"$tmp/err"
got=$("$rk" -j "$tmp/early.pcapng" | python3 -c '
import json, sys
d = json.load(sys.stdin)
j = json.load(open(sys.argv[1]))
print(float(d["totals"]["duration"]) < 0.05, j["ports"][0]["seconds"] < 0.05, j["ports"][1]["seconds"] > 0.9,
      j["seconds"] > 0.9)' "$tmp/out" 2>&1)
[ "$got" = "True True True True" ] &&
	ok "a port done early: its frames out then (recording under 50 ms), its own time" ||
	ko "a port done early: '$got' $(cat "$tmp/err")"

for bad in "--record $tmp/a.pcapng --record $tmp/b.pcapng --port net_null0" \
	   "$(for i in 0 1 2 3 4 5 6 7 8; do printf -- '--port net_null0 '; done)" \
	   "--receive --port net_null0 --port net_null1" "--port net_null0 --port net_null0" \
	   "--port net_null0 --port net_null1 --record $tmp/a.pcapng --record $tmp/a.pcapng"; do
	case "$bad" in --receive*) op= ;; *) op="--op SEND_ONLY" ;; esac
	"$gen" $EAL -- $op $bad >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" -le 2 ] && ok "bad ports: exit 2, $(head -1 "$tmp/err")" ||
		ko "bad ports '$bad': exit $rc, $(cat "$tmp/err")"
done

# 200 frames at 20 kpps take about 10 ms; at top speed far less
timeout -k 5 60 "$gen" $EAL -- --op WRITE_ONLY --count 200 --vary psn:inc --rate 20kpps \
	--port net_null0 2>"$tmp/err"
secs=$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' "$tmp/err")
if python3 -c "import sys; sys.exit(not 0.009 <= float('${secs:-0}') < 0.5)"; then
	ok "paced: 200 frames at 20 kpps in $secs s"
else
	ko "paced: '$(cat "$tmp/err")'"
fi

# an endless stream for 0.2 s at 50 kpps: 10000 frames, fewer if the
# machine held the process back near the end
timeout -k 5 60 "$gen" $EAL -- --op SEND_ONLY --count 0 --rate 50kpps --duration 0.2 \
	--port net_null0 2>"$tmp/err"
n=$(sed -n 's/^rk-gen: \([0-9]*\) frames.*/\1/p' "$tmp/err")
if [ "${n:-0}" -ge 9000 ] && [ "${n:-0}" -le 10001 ]; then
	ok "duration: $n frames in 0.2 s at 50 kpps"
else
	ko "duration: '$(cat "$tmp/err")'"
fi

# a line a second while sending: 2.5 s at 100 kpps give the lines of
# seconds 1 and 2, each at 0.1 Mpps (the pacing holds within 10 %)
timeout -k 5 60 "$gen" $EAL -- --op SEND_ONLY --count 0 --rate 100kpps --duration 2.5 \
	--port net_null0 2>"$tmp/err"
lines=$(sed -n 's/^rk-gen: \([0-9]*\) s: sent [0-9]* frames, \([0-9.]*\) Mpps.*/\1:\2/p' \
	"$tmp/err" | tr '\n' ' ')
if python3 -c "
import sys
l = [x.split(':') for x in sys.argv[1].split()]
sys.exit(not ([s for s, _ in l] == ['1', '2'] and all(0.09 <= float(m) <= 0.11 for _, m in l)))" \
	"$lines"; then
	ok "a line a second: $lines"
else
	ko "a line a second: '$(cat "$tmp/err")'"
fi

# a slow stream gets its line a second too (200 pps: 1024 frames would
# take 5 s), and with two ports each port has its own, named
timeout -k 5 60 "$gen" $EAL2 -- --op SEND_ONLY --count 0 --rate 200pps --duration 2.5 \
	--port net_null0 --port net_null1 2>"$tmp/err"
lines=$(sed -n 's/^rk-gen: \([0-9]*\) s: \(net_null[01]\): sent \([0-9]*\) frames.*/\1:\2:\3/p' \
	"$tmp/err" | sort | tr '\n' ' ')
if python3 -c "
import sys
l = [x.split(':') for x in sys.argv[1].split()]
sys.exit(not ([(s, p) for s, p, _ in l] == [('1', 'net_null0'), ('1', 'net_null1'),
                                             ('2', 'net_null0'), ('2', 'net_null1')]
              and all(abs(int(n) - 200 * int(s)) <= 2 for s, _, n in l)))" "$lines"; then
	ok "a line a second at 200 pps, per port: $lines"
else
	ko "a line a second at 200 pps: '$lines' $(cat "$tmp/err")"
fi

# a frame the port cannot take: said once, exit 1
timeout -k 5 60 "$gen" $EAL -- --op WRITE_ONLY --payload 8000 --port net_null0 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "a frame of 8074 bytes" "$tmp/err" && ok "jumbo frame refused, exit 1" ||
	ko "jumbo frame: exit $rc, '$(cat "$tmp/err")'"

# a recording that cannot be written: said as the recording's, exit 1
timeout -k 5 60 "$gen" $EAL -- --op SEND_ONLY --count 5 --port net_null0 \
	--record "$tmp/no/such/dir.pcapng" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "cannot write the recording $tmp/no/such/dir.pcapng" "$tmp/err" &&
	ok "unwritable --record: named, exit 1" || ko "unwritable --record: exit $rc, '$(cat "$tmp/err")'"

# --timeout bounds the port's start: a memif without its peer fails in
# about 1 s (lib/io's default wait is 10 s), one line, exit 1; for the
# receiver too; a bad value: exit 2
for mode in "--op WRITE_ONLY --count 5" "--receive"; do
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	timeout -k 5 60 "$gen" $MEM --no-pci --log-level='*:error' -l 0 --file-prefix rkto$$ \
		--vdev=net_memif0,role=client,socket="$tmp/nopeer.sock" -- $mode --port net_memif0 \
		--timeout 1 >/dev/null 2>"$tmp/err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc = 1 ] && [ $ms -lt 6000 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q "cannot open port net_memif0" "$tmp/err" &&
		ok "${mode%% *} --timeout 1, no memif peer: one line, exit 1 in $ms ms" ||
		ko "${mode%% *} --timeout 1, no memif peer: exit $rc in $ms ms, '$(cat "$tmp/err")'"
done
timeout -k 5 60 "$gen" $EAL -- --op WRITE_ONLY --port net_null0 --timeout 0 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "^rk-gen: --timeout '0': seconds above 0" "$tmp/err" &&
	ok "--timeout 0: exit 2" || ko "--timeout 0: exit $rc, '$(cat "$tmp/err")'"
# --timeout is a port's: refused toward a pcap file and on a capture read back
"$gen" --op WRITE_ONLY -w "$tmp/t.pcap" --timeout 5 2>"$tmp/err"
rc=$?
"$gen" --receive --pcap-in "$tmp/t.pcap" --timeout 5 2>>"$tmp/err"
rc2=$?
[ $rc = 2 ] && [ $rc2 = 2 ] && [ "$(grep -c "timeout and --rx-\|and --timeout go with --port" "$tmp/err")" = 2 ] &&
	ok "--timeout without --port: exit 2, twice" || ko "--timeout without --port: exit $rc/$rc2, '$(cat "$tmp/err")'"

# bad EAL options: exit 2
timeout -k 5 60 "$gen" --no-such-eal-option -- --op WRITE_ONLY --port net_null0 \
	>/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && ok "bad EAL option: exit 2" || ko "bad EAL option: exit $rc"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
