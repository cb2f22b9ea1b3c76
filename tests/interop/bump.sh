#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's impair engine as a bump in the wire between two Linux rxe
# guests: the lab's split topology (tools/rk-lab up --guests 2 --split),
# where guest1 (198.18.0.11, bridge rkbr0, host port dpdk0) and guest2
# (198.18.0.12, bridge rkbr1, host port dpdk1) reach each other only
# through rk-testpmd forwarding between dpdk0 and dpdk1 (net_af_packet).
#
#   1. no rule: ib_write_bw and ibv_rc_pingpong -c (server guest2, client
#      guest1) pass through the engine.
#   2. rules on RC RDMA WRITE requests (opcodes 6-10), each counted, with
#      300 requests between them (more than rxe keeps in flight): one PSN
#      dropped once, a share CE-marked (ib_write_bw --tclass 2: ECT(0)),
#      one request answered by a forged RNR NAK. ib_write_bw completes;
#      the reaction report shows rxe's go-back-N from the dropped PSN and
#      its RNR wait. Both bridges are recorded at once; rk-inspect's
#      per-packet JSON of the two recordings must differ by exactly what
#      the rules did: the dropped PSN's first copy and the request taken
#      for the RNR NAK on guest1's side only, the forged RNR NAK on
#      guest1's side only, the CE marks on guest2's side only (as many as
#      the rule counted), every other RoCE frame on both sides.
#   3. rules on RC SEND Only (opcode 4), 40 SENDs between them (pingpong
#      keeps one in flight each way): ibv_rc_pingpong -c (buffer
#      validated) completes through one drop and one forged RNR NAK.
#
#   bump.sh RK_TESTPMD RK_INSPECT
#
# Exit 0 when all passed, 1 on a failure, 77 (skip) with the reason when
# the lab cannot run here. Environment: RK_LAB_NS (default rklabbump),
# RK_BUMP_KEEP=1 keeps the recordings and logs, RK_BUMP_KEEP_LAB=1 leaves
# a lab this script booted running.
set -u
tp=$1
rki=$2
here=$(cd "$(dirname "$0")" && pwd)
LAB_NS=${RK_LAB_NS:-rklabbump}
# shellcheck source=lab-common.sh
. "$here/lab-common.sh"
lab_checks "$tp"
[ -x "$rki" ] || skip "rk-inspect not built"
NS=$LAB_NS
tmp=$(mktemp -d /tmp/rk-bump.XXXXXX)
chmod 755 "$tmp"
booted=0
tp_pid=
lock=/run/rk-interop-$NS.lock
exec 9>"$lock"
flock -w 600 9 || skip "another interop run holds $lock"
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
t0=$(date +%s)

cleanup() {
	"$peer" capture stop >/dev/null 2>&1
	exec 3>&- 2>/dev/null
	if [ -n "$tp_pid" ]; then
		kill "$tp_pid" 2>/dev/null
		wait "$tp_pid" 2>/dev/null
	fi
	if [ "$booted" = 1 ] && [ -z "${RK_BUMP_KEEP_LAB:-}" ]; then
		"$peer" down >/dev/null 2>&1 9>&-
		lab_disown
	fi
	[ -n "${RK_BUMP_KEEP:-}" ] && echo "recordings kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

lab_reap_stale
if lab_running && ip -n "$NS" link show dpdk1 >/dev/null 2>&1; then
	echo "using the running lab $NS"
else
	lab_running && { "$peer" down >/dev/null 2>&1 9>&-; }
	booted=1
	lab_own
	lab_up "$tmp/up.log" --guests 2 --split
	echo "lab up: $(tail -1 "$tmp/up.log")"
fi
pexec 20 2 true >/dev/null 2>&1 || { echo "FAIL: guest2 does not answer"; exit 1; }

# shellcheck source=../helpers/dpdk-mem.sh
. "$here/../helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:warning --file-prefix=rkbump$$"
EAL="$EAL --vdev=net_af_packet0,iface=dpdk0 --vdev=net_af_packet1,iface=dpdk1"

# rk-testpmd reads its prompt from a FIFO; tp_cmd sends commands and waits
# (at most 20 s) for a line matching REGEX written after them.
mkfifo "$tmp/tp.fifo"
printf 'set fwd impair\nstart\n' >"$tmp/first.cmd"
ip netns exec "$NS" timeout 1200 "$tp" $EAL -l 0-1 -- -i --cmdline-file "$tmp/first.cmd" \
	<"$tmp/tp.fifo" >"$tmp/tp.out" 2>&1 &
tp_pid=$!
exec 3>"$tmp/tp.fifo"
tp_cmd() { # REGEX CMD...
	local re=$1 n i
	shift
	n=$(wc -l <"$tmp/tp.out")
	printf '%s\n' "$@" >&3
	if [ -z "$re" ]; then # commands answering nothing but errors
		sleep 1
		! tail -n +$((n + 1)) "$tmp/tp.out" | grep -iE 'bad|not found|refused|error|invalid' && return 0
		echo "rk-testpmd refused '$*'"
		return 1
	fi
	for ((i = 0; i < 200; i++)); do
		tail -n +$((n + 1)) "$tmp/tp.out" | grep -qE "$re" && { sleep 0.3; return 0; }
		sleep 0.1
	done
	echo "rk-testpmd did not answer '$*' with /$re/:"
	tail -n +$((n + 1)) "$tmp/tp.out" | tail -5
	return 1
}
# The output of the last impair show.
tp_show() { awk '/frames matched none$/ { n = 0; delete l } !/^rk-testpmd>/ { l[++n] = $0 } END { for (i = 1; i <= n; i++) print l[i] }' "$tmp/tp.out"; }
for _ in $(seq 300); do
	grep -q "packet forwarding - ports" "$tmp/tp.out" && break
	kill -0 "$tp_pid" 2>/dev/null || break
	sleep 0.1
done
grep -q "packet forwarding - ports" "$tmp/tp.out" || {
	echo "FAIL: rk-testpmd did not start forwarding:"
	tail -10 "$tmp/tp.out"
	exit 1
}

# Server on guest2, client on guest1; the server's listening TCP port is
# waited for. run_pair NAME SECS SERVER_CMD CLIENT_CMD: both exit 0.
run_pair() {
	local name=$1 secs=$2 s=$3 c=$4 src crc t
	pexec "$secs" 2 "$s" >"$tmp/$name.srv" 2>&1 &
	local spid=$!
	pexec 20 2 "for i in \$(seq 100); do ss -ltnH 'sport = :18515' | grep -q . && exit 0; sleep 0.2; done; exit 1" \
		>/dev/null 2>&1
	sleep 0.3
	t=$(date +%s.%N)
	pexec "$secs" 1 "$c" >"$tmp/$name.cli" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	t=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ "$crc" = 0 ] && [ "$src" = 0 ]; then
		ok "$name: both ends exit 0 (${t} s)$(summary "$name")"
	else
		ko "$name: client exit $crc, server exit $src"
		echo "---- server:"; log_excerpt <"$tmp/$name.srv"
		echo "---- client:"; log_excerpt <"$tmp/$name.cli"
		echo "---- guest kernel:"; pexec 10 1 'dmesg | tail -5' 2>&1
	fi
}
# A tool's result line: ib_write_bw's iterations and BW average (perftest
# prints 0.00 for some runs through the rules, so the wall time above is
# the measure), pingpong's rate.
summary() {
	local l
	l=$(awk '$1 == 1024 && NF >= 5 { print $2 " x " $1 " B, perftest BW average " $4 " MB/s" }' "$tmp/$1.cli" | tail -1)
	[ -n "$l" ] || l=$(grep -m1 'iters in' "$tmp/$1.cli")
	[ -n "$l" ] && echo ": $l"
}
# -u 17: a retry timeout of 0.5 s. With perftest's 14 (67 ms) rxe's timer
# fires when the TCG guests or the bump stall, and the requester resends
# requests the responder has: a rule can then take such a needless copy
# instead of the first one.
WBW="ib_write_bw -d rxe0 -x 1 -F -s 1024 -n 3000 -u 17 --tclass 2"
PP="ibv_rc_pingpong -d rxe0 -g 1 -c -s 1024 -n 100"

# 1. No rule.
run_pair write_bw_norule 120 "$WBW" "$WBW 198.18.0.12"
run_pair pingpong_norule 120 "$PP" "$PP 198.18.0.12"
tp_cmd 'frames matched none$' stop 'impair show' || exit 1
tp_show | head -1 | grep -qE '^0 rule\(s\), [1-9][0-9]* frames matched none' &&
	ok "no rule: $(tp_show | head -1)" || ko "impair show without rules: $(tp_show | head -1)"

# 2. WRITE rules, both bridges recorded.
tp_cmd '' 'impair add opcode=6-10 count=300' \
	'impair add opcode=6-10 count=1 drop-every=1' \
	'impair add opcode=6-10 count=300' \
	'impair add opcode=6-10 count=400 ecn-ce=0.5 seed=7' \
	'impair add opcode=6-10 count=300' \
	'impair add opcode=6-10 count=1 forge=rnr:10' || exit 1
tp_cmd 'packet forwarding - ports' start || exit 1
"$peer" capture start "$tmp/g1.pcap" -b 1 udp port 4791 || exit 1
"$peer" capture start "$tmp/g2.pcap" -b 2 udp port 4791 || exit 1
run_pair write_bw_rules 180 "$WBW" "$WBW 198.18.0.12"
sleep 0.5
"$peer" capture stop
tp_cmd '^reaction:' stop 'impair show' || exit 1
tp_show >"$tmp/write.show"
sed 's/^/    /' "$tmp/write.show"
counter() { # RULE FIELD
	awk -v r="rule $1:" -v f="$2" 'index($0, r) == 1 { getline; for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' \
		"$tmp/write.show"
}
[ "$(counter 1 dropped)" = 1 ] && ok "rule 1 dropped 1 WRITE" || ko "rule 1 dropped '$(counter 1 dropped)'"
ce=$(counter 3 ce-marked)
[ -n "$ce" ] && [ "$ce" -gt 0 ] && ok "rule 3 CE-marked $ce of $(counter 3 matched)" || ko "rule 3 ce-marked '$ce'"
[ "$(counter 5 forged)" = 1 ] && grep -q '^reaction: 2 request(s) dropped or answered by a rule, 1 answer(s) forged' "$tmp/write.show" &&
	ok "rule 5 forged 1 RNR NAK" || ko "rule 5 forged '$(counter 5 forged)': $(grep '^reaction' "$tmp/write.show")"
drop=$(grep '^  rule 1: ' "$tmp/write.show")
rnr=$(grep '^  rule 5: ' "$tmp/write.show")
[[ "$drop" =~ dropped:\ resent\ after\ [0-9.]+\ us,\ go-back-N\ [0-9]+\.\.[0-9]+ ]] &&
	ok "rxe's go-back-N from the dropped PSN:${drop#*:}" || ko "drop reaction: '$drop'"
wait_us=$(sed -n 's/.*RNR NAK (timer 10: 0.32 ms): resent after \([0-9.]*\) us.*/\1/p' <<<"$rnr")
[ -n "$wait_us" ] && awk -v w="$wait_us" 'BEGIN { exit !(w >= 320) }' &&
	ok "rxe's RNR wait: $wait_us us (timer 320 us):${rnr#*:}" || ko "RNR reaction: '$rnr'"

# Both sides of the bump, frame by frame.
"$rki" --packets-json "$tmp/g1.pcap" >"$tmp/g1.json" 2>"$tmp/g1.err" &&
	"$rki" --packets-json "$tmp/g2.pcap" >"$tmp/g2.json" 2>"$tmp/g2.err" ||
	ko "rk-inspect: $(cat "$tmp/g1.err" "$tmp/g2.err" | head -3)"
dpsn=$(sed -n 's/^  rule 1: PSN \([0-9]*\) of QP 0x\([0-9a-f]*\) .*/\1 \2/p' "$tmp/write.show")
rpsn=$(sed -n 's/^  rule 5: PSN \([0-9]*\) of QP 0x\([0-9a-f]*\) .*/\1 \2/p' "$tmp/write.show")
if out=$(python3 "$here/bump_diff.py" "$tmp/g1.json" "$tmp/g2.json" ${dpsn:-x x} ${rpsn:-x x} "${ce:-0}" 2>&1); then
	while read -r l; do ok "captures: $l"; done <<<"$out"
else
	while read -r l; do ko "captures: $l"; done <<<"$out"
fi

# 3. SEND rules: ibv_rc_pingpong -c through a drop and an RNR NAK. Its
# retry timeout is fixed at 14 (67 ms), which a stalled TCG guest can
# overrun: a rule may then take a needless resend of a SEND the responder
# already had ("the responder had an earlier copy"), which says nothing of
# how rxe recovers a loss, so such a run is repeated (at most 3 runs).
for try in 1 2 3; do
	tp_cmd '' 'impair clear' 'impair add opcode=4 count=40' \
		'impair add opcode=4 count=1 drop-every=1' 'impair add opcode=4 count=40' \
		'impair add opcode=4 count=1 forge=rnr:10' || exit 1
	tp_cmd 'packet forwarding - ports' start || exit 1
	run_pair pingpong_rules 180 "$PP" "$PP 198.18.0.12"
	tp_cmd '^reaction:' stop 'impair show' || exit 1
	tp_show >"$tmp/send.show"
	sed 's/^/    /' "$tmp/send.show"
	grep -q '^  rule [13]: .*the responder had an earlier copy' "$tmp/send.show" || break
	[ "$try" = 3 ] || echo "note: run $try: a rule took a needless resend; once more"
done
grep -qE '^  rule 1: PSN [0-9]+ of QP 0x[0-9a-f]+ dropped: resent after' "$tmp/send.show" &&
	ok "pingpong: dropped SEND resent" || ko "pingpong drop: $(grep '^  rule 1' "$tmp/send.show")"
grep -qE '^  rule 3: PSN [0-9]+ of QP 0x[0-9a-f]+ RNR NAK .*resent after' "$tmp/send.show" &&
	ok "pingpong: RNR NAK obeyed" || ko "pingpong RNR: $(grep '^  rule 3' "$tmp/send.show")"
printf 'quit\n' >&3
exec 3>&-
wait "$tp_pid"
tp_pid=

echo "$pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ "$fail" = 0 ] || {
	echo "---- rk-testpmd:"
	log_excerpt <"$tmp/tp.out"
	exit 1
}
