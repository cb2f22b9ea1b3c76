#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-perf's recording snap length (--snaplen) over net_memif: a bandwidth
# test records the headers only by default (each RoCEv2 frame cut where its
# payload starts, by its opcode's header length, or whole when nothing but
# the ICRC follows; its length kept; rk-inspect follows every PSN), --snaplen
# 128 cuts at 128 bytes, --snaplen 0 keeps whole frames (every ICRC checked
# good), a latency test whole frames by default; a bad value is one line
# and exit 2.
# usage: snaplen_check.sh RK_PERF RK_INSPECT
set -u
perf=$1
rk=$2
tmp=$(mktemp -d)
spid=""
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:critical"
CORE_S=$(( $(nproc) > 1 ? 1 : 0 ))
PORT=$((21000 + $$ % 1000))

# run NAME TEST CLIENT-ARGS...: server and client over memif, the client recording
run() {
	local name=$1 t=$2 sock="rk-snap-$$-$1.sock"
	shift 2
	PORT=$((PORT + 1))
	timeout 60 "$perf" $EAL -l "$CORE_S" --vdev=net_memif0,role=server,bsize=9216,socket="$sock" \
		-- "$t" --ip 198.18.0.1 -p "$PORT" >"$tmp/$name.srv" 2>&1 &
	spid=$!
	timeout 60 "$perf" $EAL -l 0 --vdev=net_memif0,role=client,bsize=9216,socket="$sock" \
		-- "$t" --ip 198.18.0.2 -p "$PORT" --pcap "$tmp/$name.pcapng" "$@" 127.0.0.1 \
		>"$tmp/$name.cli" 2>&1
	local rc=$?
	wait "$spid"
	spid=""
	return $rc
}

# caps FILE: "frames longest_caplen cut not_at_headers" from the pcapng's
# packet blocks; the last counts frames not cut exactly where their
# headers end (Ethernet, IPv4, UDP, BTH and the opcode's extended headers,
# IBTA Vol 1 9.2.1), or cut though only the ICRC followed them.
caps() {
	python3 - "$1" <<'PY'
import struct, sys
# Extended header bytes after the BTH, by RC opcode.
XETH = {0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4, 0x06: 16, 0x07: 0,
        0x08: 0, 0x09: 4, 0x0a: 16, 0x0b: 20, 0x0c: 16, 0x0d: 4, 0x0e: 0, 0x0f: 4,
        0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28}
d = open(sys.argv[1], "rb").read()
off, n, longest, cut, wrong = 0, 0, 0, 0, 0
while off + 12 <= len(d):
    t, blen = struct.unpack_from("<II", d, off)
    if t == 6:
        cap, orig = struct.unpack_from("<II", d, off + 20)
        f = d[off + 28:off + 28 + cap]
        n += 1
        longest = max(longest, cap)
        cut += cap < orig
        if len(f) >= 54 and f[12:14] == b"\x08\x00" and f[23] == 17 and f[36:38] == b"\x12\xb7":
            h = 14 + (f[14] & 15) * 4 + 8 + 12 + XETH.get(f[42], 1000)
            want = orig if orig - h <= 8 else h
            wrong += cap != want
    off += blen
print(n, longest, cut, wrong)
PY
}
inspect() { # FILE -> "findings rdma_frames icrc_good truncated gaps ts_backwards"
	"$rk" -j "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["totals"]
print(" ".join("%s=%d" % kv for kv in sorted(d["findings"].items())) or "none",
      t["rdma_frames"], t["icrc_good"], t["truncated_frames"],
      sum(q["psn"]["gaps"] for q in d["qps"] if q.get("psn")), t.get("ts_backwards", -1))'
}

if run bw write_bw -s 16384 -n 300 --verify --counters; then
	read -r n longest cut wrong <<<"$(caps "$tmp/bw.pcapng")"
	read -r f rdma good trunc gaps back <<<"$(inspect "$tmp/bw.pcapng")"
	# Frames are recorded as the engine takes them, stamped per burst:
	# the file's times still never go back.
	[ "$back" = 0 ] && ok "write_bw: no recorded frame stamped before the one before it" ||
		ko "write_bw: $back recorded frames stamped before the one before them"
	# WRITE First 70 bytes, Middle and Last 54; the ACKs whole, ICRC good.
	if [ "$longest" = 70 ] && [ "$cut" -gt 0 ] && [ "$wrong" = 0 ] && [ "$gaps" = 0 ] &&
	   [ "$rdma" -gt 0 ] && [ "$good" -gt 0 ] && [ "$f" = "frame.truncated=$trunc" ]; then
		ok "write_bw by default: $n frames, $cut cut where their headers end, $good whole with ICRC good, no PSN gap"
	else
		ko "write_bw by default: $n frames, longest $longest, $cut cut, $wrong not at the headers; rk-inspect: $f $rdma $good $trunc $gaps"
	fi
	# The recording thread wrote every frame the port counted as recorded.
	pf=$(awk '$1 == "pcap_frames" {print $2}' "$tmp/bw.cli")
	if [ "$pf" = "$n" ]; then
		ok "the counters' pcap_frames $pf equal the frames in the file"
	else
		ko "pcap_frames '${pf}' against $n frames in the file"
	fi
else
	ko "write_bw by default: $(tail -2 "$tmp/bw.cli")"
fi
if run read read_bw -s 16384 -n 300 --verify --snaplen headers; then
	read -r n longest cut wrong <<<"$(caps "$tmp/read.pcapng")"
	read -r f rdma good trunc gaps back <<<"$(inspect "$tmp/read.pcapng")"
	[ "$back" = 0 ] && ok "read_bw: no recorded frame stamped before the one before it" ||
		ko "read_bw: $back recorded frames stamped before the one before them"
	# READ requests whole, 74 bytes (only the ICRC follows their RETH);
	# responses cut at 58 (AETH) or 54.
	[ "$longest" = 74 ] && [ "$cut" -gt 0 ] && [ "$wrong" = 0 ] && [ "$gaps" = 0 ] &&
		ok "read_bw --snaplen headers: $n frames, $cut cut where their headers end" ||
		ko "read_bw --snaplen headers: $n frames, longest $longest, $cut cut, $wrong not at the headers; rk-inspect: $f $gaps"
else
	ko "read_bw --snaplen headers: $(tail -2 "$tmp/read.cli")"
fi
if run fixed write_bw -s 16384 -n 300 --snaplen 128; then
	read -r n longest cut wrong <<<"$(caps "$tmp/fixed.pcapng")"
	[ "$longest" = 128 ] && [ "$cut" -gt 0 ] && ok "--snaplen 128: $n frames, at most 128 bytes, $cut cut" ||
		ko "--snaplen 128: $n frames, longest $longest, $cut cut"
else
	ko "--snaplen 128: $(tail -2 "$tmp/fixed.cli")"
fi
if run whole write_bw -s 16384 -n 300 --verify --snaplen 0; then
	read -r n longest cut wrong <<<"$(caps "$tmp/whole.pcapng")"
	read -r f rdma good trunc gaps back <<<"$(inspect "$tmp/whole.pcapng")"
	[ "$cut" = 0 ] && [ "$f" = none ] && [ "$good" = "$rdma" ] && [ "$longest" -gt 1000 ] &&
		ok "--snaplen 0: $n whole frames, $good ICRCs good" ||
		ko "--snaplen 0: $n frames, $cut cut; rk-inspect: $f $rdma $good"
else
	ko "--snaplen 0: $(tail -2 "$tmp/whole.cli")"
fi
if run lat write_lat -s 4096 -n 50 --warmup 0; then
	read -r n longest cut wrong <<<"$(caps "$tmp/lat.pcapng")"
	[ "$cut" = 0 ] && [ "$longest" -gt 1000 ] && ok "write_lat: $n whole frames by default" ||
		ko "write_lat: $n frames, $cut cut, longest $longest"
else
	ko "write_lat: $(tail -2 "$tmp/lat.cli")"
fi
"$perf" write_bw --ip 198.18.0.2 --snaplen 5 127.0.0.1 >"$tmp/bad" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- "--snaplen: expected headers, 0 (whole frames) or 14..65535" "$tmp/bad" &&
	ok "--snaplen 5: exit 2, said" || ko "--snaplen 5: exit $rc, $(cat "$tmp/bad")"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
