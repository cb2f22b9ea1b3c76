#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's impair engine as a bump in the wire between two rdmakit
# endpoints (rk-perf send_bw over net_af_packet, veth pairs in a namespace
# the test creates, 198.18.0.0/15 addresses):
#   client tfa0 --veth-- tfa1 (port 0) rk-testpmd (port 1) tfb1 --veth-- tfb0 server
# Rules on RC SEND Only requests, each for a counted number of frames:
# one RNR NAK forged as soon as the requester's QP is known (the first
# SENDs pass before any answer: nothing to answer them with, and the rule
# stays armed), one SEND dropped once, one answered by a forged RNR NAK (timer 10:
# 0.32 ms), one by a forged NAK (PSN sequence error), one followed by a
# forged CNP; 300 requests between them, more than the requester's window,
# so each is recovered before the next (a NAK forged behind a request not
# yet resent would acknowledge what the responder threw away: the bump
# holds such a forge back). Checked: the transfer completes with its data verified; the
# requester's counters show exactly what was forged (one RNR NAK obeyed,
# the server's own NAK for the drop plus the forged one, one CNP); the
# rules count what they took; the reaction report has the resend of each
# PSN, the RNR wait no shorter than its timer, and the go-back-N range.
# usage: rk_testpmd_forge.sh RK_TESTPMD RK_PERF
# Exit 77 (skip) without namespaces.
set -u
tp=$1
perf=$2
ns=rktf$$
tmp=$(mktemp -d /tmp/rk-testpmd-forge.XXXXXX)
pass=0
fail=0
pids=""
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM
trap '' PIPE

# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
if ! why=$(ns_veths_up "$ns" tfa0:tfa1 tfb0:tfb1); then
	echo "SKIP: $why"
	exit 77
fi

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
LOG="--no-pci --log-level=*:warning"
PORT=$((22000 + $$ % 1000))

cat >"$tmp/rules.cmd" <<'CMD'
set fwd impair
impair add opcode=4 count=1 forge=rnr:10
impair add opcode=4 count=40
impair add opcode=4 count=1 drop-every=1
impair add opcode=4 count=300
impair add opcode=4 count=1 forge=rnr:10
impair add opcode=4 count=300
impair add opcode=4 count=1 forge=nak-seq
impair add opcode=4 count=100
impair add opcode=4 count=1 forge=cnp
CMD
# shellcheck source=../helpers/bump.sh
. "$(dirname "$0")/../helpers/bump.sh"
bump_start "$tp" "$ns" tfa1 tfb1 "$tmp/rules.cmd" 120
pids="$tp_pid"

args="send_bw -s 64 -n 1000 --verify"
ip netns exec "$ns" timeout 90 "$perf" $MEM $LOG -l 1 --file-prefix=rkfs$$ \
	--vdev=net_af_packet0,iface=tfb0 -- $args --ip 198.18.0.2 -p "$PORT" --counters \
	>"$tmp/srv.out" 2>&1 &
srv=$!
pids="$pids $srv"
sleep 1
ip netns exec "$ns" timeout 90 "$perf" $MEM $LOG -l 0 --file-prefix=rkfc$$ \
	--vdev=net_af_packet0,iface=tfa0 -- $args --ip 198.18.0.1 -p "$PORT" \
	--counters --dcqcn 127.0.0.1 >"$tmp/cli.out" 2>&1
crc=$?
wait "$srv"
src=$?
bump_stop
echo "rc=$?" >>"$tmp/tp.out"

[ "$crc" = 0 ] && [ "$src" = 0 ] && ok "send_bw through the bump: both ends exit 0, data verified" ||
	ko "send_bw: client exit $crc, server exit $src: $(tail -3 "$tmp/cli.out" "$tmp/srv.out" | tr '\n' '|')"
counter() { awk -v n="$1" '$1 == n {print $2}' "$tmp/cli.out"; }
rnr=$(counter rnr_nak_retry_err)
seq=$(counter packet_seq_err)
cnp=$(( $(counter rp_cnp_handled || echo 0) + $(counter rp_cnp_ignored || echo 0) ))
[ "$rnr" = 2 ] && ok "requester obeyed 2 forged RNR NAKs (rnr_nak_retry_err 2)" ||
	ko "rnr_nak_retry_err '$rnr', expected 2"
# Every request taken away makes the responder NAK the requests behind it
# (once, out of sequence); the requester counts the NAKs that sent it back
# (a second NAK for the PSN it is already resending from is no new one):
# at least the drop's and the forged one, at most the server's and ours.
srv_seq=$(awk '$1 == "out_of_sequence" {print $2}' "$tmp/srv.out")
[ -n "$seq" ] && [ -n "$srv_seq" ] && [ "$seq" -ge 2 ] && [ "$seq" -le $((srv_seq + 1)) ] &&
	ok "packet_seq_err $seq: between 2 and the server's $srv_seq NAK(s) and the forged one" ||
	ko "packet_seq_err '$seq', the server's out_of_sequence '$srv_seq'"
[ "$cnp" = 1 ] && ok "the requester's RP took 1 forged CNP" || ko "CNPs at the requester: $cnp, expected 1"

for r in 4 6 8; do
	grep -A1 "^rule $r: " "$tmp/tp.out" | grep -q "forged 1$" &&
		ok "impair show: rule $r forged 1" || ko "rule $r: $(grep -A1 "^rule $r: " "$tmp/tp.out" | tr '\n' ' ')"
done
# Rule 0 let the SENDs before the first answer pass, and forged once.
grep -A1 "^rule 0: " "$tmp/tp.out" | grep -qE "matched 1 .* forged 1 unforged [1-9][0-9]*$" &&
	ok "impair show: rule 0 forged 1 after $(grep -A1 "^rule 0: " "$tmp/tp.out" | grep -o 'unforged [0-9]*')" ||
	ko "rule 0: $(grep -A1 "^rule 0: " "$tmp/tp.out" | tr '\n' ' ')"
grep -qE "^reaction: 4 request\(s\) dropped or answered by a rule, 4 answer\(s\) forged \(not forged: [1-9][0-9]* with no requester QP learned yet, 0 behind" "$tmp/tp.out" &&
	ok "reaction: 4 events, 4 answers forged" || ko "reaction: $(grep '^reaction' "$tmp/tp.out")"
# The RNR wait: at least the timer the NAK carried (0.32 ms).
wait_us=$(sed -n 's/^  rule 4: PSN [0-9]* of QP 0x[0-9a-f]* RNR NAK (timer 10: 0.32 ms): resent after \([0-9.]*\) us.*/\1/p' "$tmp/tp.out")
[ -n "$wait_us" ] && awk -v w="$wait_us" 'BEGIN { exit !(w >= 320) }' &&
	ok "RNR NAK: resent after $wait_us us (timer 320 us)" || ko "RNR wait: $(grep '^  rule 4' "$tmp/tp.out")"
grep -q "^  rule 2: PSN [0-9]* of QP 0x[0-9a-f]* dropped: resent after [0-9.]* us, go-back-N [0-9]*\.\.[0-9]*: [0-9]* of [0-9]* frames resent$" "$tmp/tp.out" &&
	ok "drop: resent with its go-back-N range: $(grep '^  rule 2' "$tmp/tp.out" | cut -d: -f2-)" ||
	ko "drop reaction: $(grep '^  rule 2' "$tmp/tp.out")"
grep -q "^  rule 6: PSN [0-9]* of QP 0x[0-9a-f]* NAK 0x60: resent after" "$tmp/tp.out" &&
	ok "forged NAK: the NAKed PSN resent" || ko "NAK reaction: $(grep '^  rule 6' "$tmp/tp.out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { [ -n "${KEEP:-}" ] && cp -r "$tmp" /tmp/forge-keep; for f in "$tmp"/*.out; do echo "== $f"; cat "$f"; done; exit 1; }
