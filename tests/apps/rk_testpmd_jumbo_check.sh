#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's gen engine with frames longer than an mbuf's 2048-byte room,
# over a net_memif pair (9216-byte buffers): rk-testpmd (memif client)
# sends 300 SENDs of 4000-byte payload (4058-byte frames) and 200 of 64
# bytes, each with the sequence slot; rk-gen --receive (memif server)
# counts them. The long frames go out as chains of mbufs: all 500 arrive,
# none lost, twice or out of order, and the recording holds 4058-byte
# frames whose ICRCs are good. Before chains, "stop" reported the 300
# skipped and none arrived.
# usage: rk_testpmd_jumbo_check.sh RK_TESTPMD RK_GEN RK_INSPECT
set -u
tp=$1
gen=$2
inspect=$3
tmp=$(mktemp -d)
rpid=""
trap '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
memif() { # role
	echo "--vdev=net_memif0,role=$1,socket=$tmp/memif.sock,bsize=9216"
}
cat >"$tmp/jumbo.yaml" <<'YAML'
streams:
  - name: long
    count: 300
    rate: 1kpps
    ipv4: {src: 198.18.0.1, dst: 198.18.0.2}
    bth: {opcode: RC_SEND_ONLY, dest_qp: 0x31}
    payload: {len: 4000, pattern: inc, seq: true}
    vary:
      - {field: psn, op: inc}
  - name: short
    count: 200
    rate: 1kpps
    ipv4: {src: 198.18.0.1, dst: 198.18.0.2}
    bth: {opcode: RC_SEND_ONLY, dest_qp: 0x32}
    payload: {len: 64, seq: true}
    vary:
      - {field: psn, op: inc}
YAML

# shellcheck disable=SC2046
timeout -k 5 60 "$gen" $MEM --no-pci --log-level='*:warning' -l 1 --file-prefix rkjr$$ \
	$(memif server) -- --receive --port net_memif0 --idle 3 --duration 30 --json \
	--record "$tmp/rx.pcapng" >"$tmp/rx.json" 2>"$tmp/rx.err" &
rpid=$!
sleep 1
# shellcheck disable=SC2046
{ printf 'set fwd gen\nload streams %s\nstart\n' "$tmp/jumbo.yaml"; sleep 1.5
  printf 'stop\nquit\n'; } |
	timeout -k 5 30 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 --file-prefix rkjt$$ \
	$(memif client) -- -i >"$tmp/tp.out" 2>&1
echo "rc=$?" >>"$tmp/tp.out"
wait "$rpid"
rc=$?
rpid=""
[ "$rc" = 0 ] && ok "receiver exits 0" || ko "receiver: exit $rc: $(tail -3 "$tmp/rx.err")"
grep -q "stream 0 long: sent 300 frames$" "$tmp/tp.out" &&
	grep -q "stream 1 short: sent 200 frames$" "$tmp/tp.out" && grep -q "rc=0" "$tmp/tp.out" &&
	ok "rk-testpmd: stop reports 300 and 200 sent, none skipped" ||
	ko "rk-testpmd: $(grep -A3 '^gen: port' "$tmp/tp.out")"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["frames"], " ".join("%d:%d:%d:%d:%d:%d" % (s["stream_id"], s["frames"], s["unique"],
      s["lost"], s["duplicates"], s["reordered"]) for s in d["streams"]))' "$tmp/rx.json" 2>&1)
[ "$got" = "500 0:300:300:0:0:0 1:200:200:0:0:0" ] &&
	ok "rk-gen --receive: 300 and 200 frames, none lost, twice or out of order" ||
	ko "rk-gen --receive: $got"
got=$("$inspect" -j "$tmp/rx.pcapng" | python3 -c '
import json, sys
d = json.load(sys.stdin)
q = {x["dest_qp"]: x for x in d["qps"]}
long_ = q.get(0x31, {})
print(d["totals"]["frames"], d["totals"]["icrc_good"], long_.get("packets"),
      long_.get("bytes"), " ".join(sorted(d["findings"])) or "none")' 2>&1)
[ "$got" = "500 500 300 1217400 none" ] &&
	ok "recording: 500 frames, ICRCs good, 300 of 4058 bytes on QP 0x31, no finding" ||
	ko "recording: frames icrc_good long_packets long_bytes findings: $got"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { cat "$tmp/tp.out" "$tmp/rx.err"; exit 1; }
