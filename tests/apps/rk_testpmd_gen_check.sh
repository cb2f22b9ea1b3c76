#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's gen engine (rk-gen's stateless engine) over net_af_packet on
# a veth pair in a namespace the test creates (198.18.0.0/15 addresses in
# the frames, no kernel addresses):
#   tga0 --veth-- tga1 (port 0)  rk-testpmd  (port 1) tgb1 --veth-- tgb0
# Port 0 alone is its own TX port: the streams go out on tga1 and are
# captured on tga0 (tcpdump), then read back by rk-gen --receive (frames
# per stream, loss, duplicates, order) and rk-inspect (no finding, every
# ICRC good).
#   refused:  "start" with no streams loaded says so, forwards nothing.
#   bad file: "load streams" of a bad file answers one line naming the
#             file, line and field; the streams loaded stay unchanged.
#   finite:   two streams, 300 frames at 1 kpps and 200 at 500 pps: all
#             500 arrive, 300 and 200, none lost or twice; "stop" reports
#             sent 300 and 200; the 300 take about 0.3 s (their rate).
#   endless:  count 0 at 2 kpps, stopped after about a second: "stop"
#             reports as many frames sent as arrived.
#   two ports: each sends both streams on a schedule of its own: 300 and
#             200 frames captured on tga0 and on tgb0 alike.
#   examples: the stream files of doc/gen-examples whose frames fit the
#             veth's MTU, sent by rk-testpmd: rk-inspect says of the
#             capture what it says of rk-gen's pcap of the same file
#             (findings, frames, good ICRCs, PSN gaps, missing PSNs).
# usage: rk_testpmd_gen_check.sh RK_TESTPMD RK_GEN RK_INSPECT EXAMPLES_DIR
# Exit 77 (skip) without namespaces, tcpdump or tshark.
set -u
tp=$1
gen=$2
inspect=$3
examples=$4
ns=rktg$$
tmp=$(mktemp -d /tmp/rk-testpmd-gen.XXXXXX)
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cleanup() {
	[ -n "${tp_pid:-}" ] && kill "$tp_pid" 2>/dev/null
	[ -n "${cap_pid:-}" ] && kill "$cap_pid" 2>/dev/null
	[ -n "${capb_pid:-}" ] && kill "$capb_pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM
trap '' PIPE

if ! command -v tcpdump >/dev/null || ! command -v tshark >/dev/null; then
	echo "SKIP: no tcpdump or tshark"
	exit 77
fi
# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
# shellcheck source=../helpers/wait-line.sh
. "$(dirname "$0")/../helpers/wait-line.sh"
if ! why=$(ns_veths_up "$ns" tga0:tga1 tgb0:tgb1); then
	echo "SKIP: $why"
	exit 77
fi

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:warning -l 0-1 --vdev=net_af_packet0,iface=tga1"
EAL2="$EAL --vdev=net_af_packet1,iface=tgb1"

cat >"$tmp/two.yaml" <<'YAML'
streams:
  - name: writes
    count: 300
    rate: 1kpps
    ipv4: {src: 198.18.0.1, dst: 198.18.0.2}
    bth: {opcode: RC_RDMA_WRITE_ONLY, dest_qp: 0x21}
    reth: {va: 0x1000, r_key: 0x1234}
    payload: {len: 256, pattern: inc, seq: true}
    vary:
      - {field: psn, op: inc}
  - name: sends
    count: 200
    rate: 500pps
    ipv4: {src: 198.18.0.1, dst: 198.18.0.2}
    bth: {opcode: RC_SEND_ONLY, dest_qp: 0x22}
    payload: {len: 64, seq: true}
    vary:
      - {field: psn, op: inc}
YAML
cat >"$tmp/endless.yaml" <<'YAML'
streams:
  - name: endless
    count: 0
    rate: 2kpps
    ipv4: {src: 198.18.0.1, dst: 198.18.0.2}
    bth: {opcode: RC_SEND_ONLY, dest_qp: 0x23}
    payload: {len: 128, seq: true}
    vary:
      - {field: psn, op: inc}
YAML
# line 5: a field BTH does not have
cat >"$tmp/far.yaml" <<'YAML'
streams:
  - name: far
    count: 3
    rate: 1kpps
    ports: 5
    bth: {opcode: RC_SEND_ONLY}
YAML
cat >"$tmp/bad.yaml" <<'YAML'
streams:
  - name: broken
    count: 10
    rate: 1kpps
    bth: {opcode: RC_SEND_ONLY, no_such_field: 1}
YAML

# session NAME SECS "COMMANDS BEFORE START": rk-testpmd -i fed through a
# FIFO, tcpdump on tga0 and tgb0 meanwhile (--immediate-mode: each frame
# handed over at once; its ring then has a slot per frame, and the default
# 2 MiB holds only about 30 of the 64 KiB slots a veth with offloads gets:
# -s 9216 -B 16384 make it about 1800); "start", SECS seconds,
# "stop", "quit". EAL options: ${EALS:-$EAL}; capture filter: ${FILTER}
# (default: RoCEv2 only). Output: $tmp/NAME.out, the
# captures $tmp/NAME.pcap (tga0) and $tmp/NAME.b.pcap (tgb0).
session() {
	local name=$1 secs=$2 before=$3 fifo=$tmp/$1.fifo
	mkfifo "$fifo"
	ip netns exec "$ns" tcpdump -i tga0 -U --immediate-mode -s 9216 -B 16384 -w "$tmp/$name.pcap" ${FILTER-udp port 4791} \
		2>"$tmp/$name.tcpdump" &
	cap_pid=$!
	ip netns exec "$ns" tcpdump -i tgb0 -U --immediate-mode -s 9216 -B 16384 -w "$tmp/$name.b.pcap" ${FILTER-udp port 4791} \
		2>"$tmp/$name.b.tcpdump" &
	capb_pid=$!
	for _ in $(seq 50); do
		grep -q "listening on" "$tmp/$name.tcpdump" && grep -q "listening on" "$tmp/$name.b.tcpdump" &&
			break
		sleep 0.1
	done
	ip netns exec "$ns" timeout 60 "$tp" ${EALS:-$EAL} -- -i <"$fifo" >"$tmp/$name.out" 2>&1 &
	tp_pid=$!
	exec 3>"$fifo"
	printf '%s\n' "$before" start >&3
	# SECS count from forwarding's start: a loaded machine can spend more
	# than a session's SECS in the EAL's start-up alone.
	wait_line "$tmp/$name.out" "packet forwarding - ports=" 30
	sleep "$secs"
	printf '%s\n' stop quit >&3
	exec 3>&-
	wait "$tp_pid"
	echo "rc=$?" >>"$tmp/$name.out"
	tp_pid=
	# Until both files stop growing (0.3 s unchanged, at most 5 s): on a
	# loaded machine tcpdump is behind, and its stop drops what it holds.
	local size last=-1
	for _ in $(seq 17); do
		size=$(cat "$tmp/$name.pcap" "$tmp/$name.b.pcap" 2>/dev/null | wc -c)
		[ "$size" = "$last" ] && break
		last=$size
		sleep 0.3
	done
	kill "$cap_pid" "$capb_pid"
	wait "$cap_pid" "$capb_pid" 2>/dev/null
	cap_pid=
	capb_pid=
}

# receive CAPTURE: "frames stream:frames:unique:lost:duplicates:reordered ..."
receive() {
	"$gen" --receive --pcap-in "$1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["frames"], " ".join("%d:%d:%d:%d:%d:%d" % (s["stream_id"], s["frames"], s["unique"],
      s["lost"], s["duplicates"], s["reordered"]) for s in d["streams"]))'
}

# summary CAPTURE: "FINDINGS FRAMES ICRC_GOOD PSN_GAPS PSN_MISSING"
summary() {
	"$inspect" -j "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s=%d" % kv for kv in d["findings"].items())) or "none",
      d["totals"]["frames"], d["totals"]["icrc_good"],
      sum(q["psn"]["gaps"] for q in d["qps"] if q.get("psn")),
      sum(q["psn"]["missing"] for q in d["qps"] if q.get("psn")))'
}

# findings CAPTURE: "FINDINGS FRAMES ICRC_GOOD"
findings() {
	"$inspect" -j "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(sorted("%s=%d" % kv for kv in d["findings"].items())) or "none",
      d["totals"]["frames"], d["totals"]["icrc_good"])'
}

# --- refused, a bad file, then two finite streams
session finite 2 "set fwd gen
start
load streams $tmp/bad.yaml
show streams
load streams $tmp/no-such.yaml
load streams $tmp/far.yaml
start
load streams $tmp/two.yaml
show streams"
out=$tmp/finite.out
grep -q '^gen: no streams loaded: "load streams FILE" first' "$out" &&
	! grep -q "^gen packet forwarding" <(sed -n '1,/bad.yaml/p' "$out") &&
	ok "refused: start without streams says so" || ko "refused: $(grep -m2 -i 'gen' "$out")"
# a stream bound to a port not in use: start refused, nothing sent
grep -q '^gen: stream 0 (far, line 2) goes to no port in use' "$out" &&
	[ "$(grep -c '^gen packet forwarding' "$out")" = 1 ] &&
	ok "ports: 5 on a one-port run: start refused" ||
	ko "ports: 5: $(grep -m2 'far\|^gen packet' "$out")"
# the bad file: exactly one line, naming file, line and field
bad=$(sed -n "s|.*\($tmp/bad.yaml:[0-9]*: field '[^']*':.*\)|\1|p" "$out")
[ "$(grep -c "bad.yaml:" "$out")" = 1 ] && [[ "$bad" == "$tmp/bad.yaml:5: field 'bth.no_such_field': "* ]] &&
	ok "bad file: one line: $bad" || ko "bad file: $(grep 'bad.yaml' "$out")"
grep -q "^No streams loaded" "$out" && ok "bad file: nothing loaded (show streams)" ||
	ko "bad file: show streams: $(grep -A2 'show streams' "$out" | head -3)"
grep -q "Cannot load streams: $tmp/no-such.yaml: No such file or directory" "$out" &&
	ok "missing file: says why" || ko "missing file: $(grep no-such "$out")"
grep -q "0: writes (line 2): 300 frames at 1000 pps" "$out" &&
	grep -q "1: sends (line 11): 200 frames at 500 pps" "$out" &&
	ok "show streams: both listed with count and rate" || ko "show streams: $(grep -A3 '2 stream' "$out")"
grep -q "stream 0 writes: sent 300 frames" "$out" && grep -q "stream 1 sends: sent 200 frames" "$out" &&
	grep -q "gen: port 0: all streams done" "$out" &&
	ok "stop: per-stream frames sent 300 and 200" || ko "stop: $(grep -A3 '^gen: port' "$out")"
grep -q "rc=0" "$out" && ok "finite: quit, exit 0" || ko "finite: $(grep rc= "$out")"
got=$(receive "$tmp/finite.pcap")
[ "$got" = "500 0:300:300:0:0:0 1:200:200:0:0:0" ] &&
	ok "finite: captured 500 frames, 300 and 200 by stream, none lost, twice or out of order" ||
	ko "finite: rk-gen --receive: $got"
got=$(findings "$tmp/finite.pcap")
[ "$got" = "none 500 500" ] && ok "finite: rk-inspect: no finding, 500 ICRCs good" ||
	ko "finite: rk-inspect: $got"
# stream 0's frames (DestQP 0x21) span 299 gaps of 1 ms
span=$(tshark -r "$tmp/finite.pcap" -T fields -e frame.time_epoch -e infiniband.bth.destqp \
	2>/dev/null | python3 -c '
import sys
t = [float(f[0]) for f in (l.split() for l in sys.stdin) if f[1:] == ["0x000021"]]
print("%.3f" % (t[-1] - t[0]) if len(t) > 1 else "none")')
python3 -c "import sys; sys.exit(0 if 0.25 <= float('$span') <= 0.36 else 1)" 2>/dev/null &&
	ok "finite: 300 frames at 1 kpps took ${span} s" || ko "finite: 300 frames at 1 kpps took ${span} s"

# --- endless, stopped: as many sent as arrived
session endless 1.5 "set fwd gen
load streams $tmp/endless.yaml"
out=$tmp/endless.out
sent=$(sed -n 's/.*stream 0 endless: sent \([0-9]*\) frames.*/\1/p' "$out")
got=$(receive "$tmp/endless.pcap")
grep -q "gen: port 0: streams stopped" "$out" && [ -n "$sent" ] && [ "$sent" -gt 1000 ] &&
	[ "$got" = "$sent 0:$sent:$sent:0:0:0" ] &&
	ok "endless: stopped after $sent frames sent, all captured in order" ||
	ko "endless: sent ${sent:-?}, captured $got"

# --- two ports: a schedule each, both streams whole on both
EALS=$EAL2 session two 2 "set fwd gen
load streams $tmp/two.yaml"
out=$tmp/two.out
grep -q "gen packet forwarding - ports=2" "$out" && grep -q "gen: port 0: all streams done" "$out" &&
	grep -q "gen: port 1: all streams done" "$out" &&
	[ "$(grep -c "stream 0 writes: sent 300 frames" "$out")" = 2 ] &&
	[ "$(grep -c "stream 1 sends: sent 200 frames" "$out")" = 2 ] &&
	ok "two ports: stop reports 300 and 200 sent on each" || ko "two ports: $(grep -A3 '^gen: port' "$out")"
a=$(receive "$tmp/two.pcap")
b=$(receive "$tmp/two.b.pcap")
[ "$a" = "500 0:300:300:0:0:0 1:200:200:0:0:0" ] && [ "$b" = "$a" ] &&
	ok "two ports: 300 and 200 captured on tga0 and on tgb0" || ko "two ports: tga0 $a, tgb0 $b"
got=$(findings "$tmp/two.b.pcap")
[ "$got" = "none 500 500" ] && ok "two ports: rk-inspect on tgb0: no finding, 500 ICRCs good" ||
	ko "two ports: rk-inspect on tgb0: $got"

# --- the examples of doc/gen-examples (incast's 4 KiB frames exceed the MTU)
for ex in cnp-pfc negative psn-gap read-ack-trains write-train; do
	"$gen" --stream "$examples/$ex.yaml" --pcap "$tmp/$ex.want.pcap" 2>/dev/null
	want=$(summary "$tmp/$ex.want.pcap")
	FILTER= session "$ex" 1 "set fwd gen
load streams $examples/$ex.yaml"
	got=$(summary "$tmp/$ex.pcap")
	[ "$got" = "$want" ] && ok "example $ex: rk-inspect as of rk-gen's pcap: $got" ||
		ko "example $ex: rk-inspect: $got; of rk-gen's pcap: $want"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { for f in "$tmp"/*.out; do echo "== $f"; cat "$f"; done; exit 1; }
