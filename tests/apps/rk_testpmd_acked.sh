#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's impair engine when the copy a rule drops is a resend the
# responder did not need (a requester's retry timer fired while the
# ACKs were late: seen with rxe guests under TCG). The responder's ACK
# covering that PSN closes the hole: a forge= rule behind it must still
# answer (not be held back forever), and the reaction report says the
# drop was acknowledged without a resend. Crafted frames on two veth
# pairs in a namespace the test creates (198.18.0.0/15 addresses):
#   requester tra0 --veth-- tra1 (port 0) rk-testpmd (port 1) trb1 --veth-- trb0 responder
# usage: rk_testpmd_acked.sh RK_TESTPMD TRAFFIC_PY
# Exit 77 (skip) without namespaces.
set -u
tp=$1
traffic=$2
ns=rkta$$
tmp=$(mktemp -d /tmp/rk-testpmd-acked.XXXXXX)
pass=0
fail=0
tp_pid=
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cleanup() {
	[ -n "$tp_pid" ] && kill "$tp_pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM

# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
if ! why=$(ns_veths_up "$ns" tra0:tra1 trb0:trb1); then
	echo "SKIP: $why"
	exit 77
fi

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
# PSN 7's first copy passes, its second is dropped; PSN 10 gets an RNR NAK.
cat >"$tmp/rules.cmd" <<'CMD'
set fwd impair
impair add qp=0x11 psn=7 count=1
impair add qp=0x11 psn=7 count=1 drop-every=1
impair add qp=0x11 psn=10 count=1 forge=rnr:10
CMD
# shellcheck source=../helpers/bump.sh
. "$(dirname "$0")/../helpers/bump.sh"
bump_start "$tp" "$ns" tra1 trb1 "$tmp/rules.cmd" 60
# The forged RNR NAK leaves by port 0 toward the requester: counted on tra0.
ip netns exec "$ns" python3 "$traffic" count tra0 4 >"$tmp/back.txt" &
cnt=$!
sleep 0.5
ip netns exec "$ns" python3 "$traffic" acked tra0 trb0
wait "$cnt"
bump_stop

rule() { grep -A1 "^rule $1: " "$tmp/tp.out" | tail -1; }
[[ "$(rule 1)" == *"dropped 1 "* ]] && ok "rule 1 dropped PSN 7's second copy" || ko "rule 1: $(rule 1)"
grep -q "^reaction: 2 request(s) dropped or answered by a rule, 1 answer(s) forged (not forged: 0 with no requester QP learned yet, 0 behind" "$tmp/tp.out" &&
	ok "the ACK of PSN 9 closed the hole: the RNR NAK for PSN 10 was forged" ||
	ko "reaction: $(grep '^reaction' "$tmp/tp.out")"
grep -qE "^  rule 1: PSN 7 of QP 0x11 dropped: not resent, acknowledged after [0-9.]+ us \(the responder had an earlier copy\)$" "$tmp/tp.out" &&
	ok "report: $(grep '^  rule 1' "$tmp/tp.out" | cut -d: -f2-)" || ko "drop report: $(grep '^  rule 1' "$tmp/tp.out")"
# Back on the requester's side: the 6 ACKs and the forged RNR NAK.
[ "$(cat "$tmp/back.txt")" = 7 ] && ok "7 frames back to the requester (6 ACKs, 1 RNR NAK)" ||
	ko "frames back to the requester: '$(cat "$tmp/back.txt")', expected 7"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { cat "$tmp/tp.out"; exit 1; }
