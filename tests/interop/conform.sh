#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-conform against Linux Soft-RoCE (rxe) in the project's lab: the guest
# runs perftest's four bw servers in loops (write 18515, read 18516, send
# 18517, atomic 18518, -s 4096, GID index 1), rk-conform --dut perftest on
# the lab's host port dpdk0 takes a fresh server and QP per case, and the
# verdicts are compared with the committed ones (EXPECTED): a change in
# the kernel's behaviour, or in rk-conform's, shows as DIFF lines and
# fails the suite. Then the cm.* cases against rxe's CM (an ib_write_bw
# -R server in a loop on 18519), compared alike. Then rxe's own recordings (pcaps/roce/rxe_atomic_bw,
# rxe_write_bw_ipv6) are replayed against it (rk-conform --replay), each
# compared with its line of EXPECTED. Each failing case's pcap, the JSON
# and JUnit XML are kept with RK_CONFORM_KEEP=1.
#
#   conform.sh RK_CONFORM EXPECTED
#
# Exit 0 when the verdicts match, 1 when they differ or the run broke,
# 77 (skip) with the reason when the lab cannot run here. Environment:
# RK_LAB_NS (default rkconf: a lab of its own, so interop_rxe's is not
# disturbed), RK_CONFORM_KEEP=1 keeps the outputs, RK_CONFORM_CASES=GLOB.
set -u
rkc=$1
expected=$2
here=$(cd "$(dirname "$0")" && pwd)
LAB_NS=${RK_LAB_NS:-rkconf}
# shellcheck source=lab-common.sh
. "$here/lab-common.sh"
lab_checks "$rkc"

OOB_NS=rkoob$$
OOB_IF=rko$$
tmp=$(mktemp -d /tmp/rk-conform.XXXXXX)
booted=0
srv=""
lock=/run/rk-interop-$LAB_NS.lock
exec 9>"$lock"
flock -w 600 9 || skip "another run holds $lock"

cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	ip netns del "$OOB_NS" 2>/dev/null
	if [ "$booted" = 1 ]; then
		"$peer" down >/dev/null 2>&1
		lab_disown
	fi
	[ -n "${RK_CONFORM_KEEP:-}" ] && echo "outputs kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

lab_use_or_up "$tmp/up.log"
echo "guest: $(lab_versions)"

# The exchange needs a kernel IP stack on the lab link: a namespace of ours.
mtu=$(ip -n "$LAB_NS" link show dpdk0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
ip netns add "$OOB_NS" || skip "cannot create a network namespace"
ip -n "$OOB_NS" link set lo up
ip netns exec "$OOB_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip link add "$OOB_IF" netns "$OOB_NS" address 52:54:00:18:00:67 mtu "$mtu" \
	type veth peer name "${OOB_IF}b" netns "$LAB_NS" mtu "$mtu" || { echo "FAIL: veth"; exit 1; }
ip -n "$LAB_NS" link set "${OOB_IF}b" master "$(lab_bridge)" up
ip -n "$OOB_NS" addr add 198.18.0.101/24 dev "$OOB_IF"
ip -n "$OOB_NS" link set "$OOB_IF" up

# One guest command holds the four server loops (the lab's command
# channels are few). ib_send_bw's server waits for its SENDs whatever the
# exchange does: its timeout ends it.
loops='srv() { local p=$1; shift; while :; do "$@" -d rxe0 -x 1 -p $p >/dev/null 2>&1; sleep 0.2; done; }
srv 18515 ib_write_bw -s 4096 & srv 18516 ib_read_bw -s 4096 &
srv 18517 timeout 8 ib_send_bw -s 4096 & srv 18518 ib_atomic_bw &
while :; do timeout 8 ib_write_bw -R -s 4096 -d rxe0 -p 18519 >/dev/null 2>&1; sleep 0.2; done &
wait'
pexec 1500 1 "$loops" >"$tmp/servers.log" 2>&1 &
srv=$!
pexec 60 1 'for i in $(seq 300); do n=$(ss -ltnH | grep -cE ":1851[5-8]\b"); [ "$n" = 4 ] && exit 0; sleep 0.2; done; exit 1' \
	>/dev/null 2>&1 || { echo "FAIL: the guest's perftest servers did not listen"; exit 1; }

. "$here/../helpers/dpdk-mem.sh"
# run_conform OUT: one rk-conform run, its output in OUT, exit status returned.
run_conform() {
	lab_conform 1200 --oob-netns "$OOB_NS" --serve write=18515 --serve read=18516 \
		--serve send=18517 --serve atomic=18518 --size 4096 --timeout-ms 500 \
		--cases "${RK_CONFORM_CASES:-rc.*}" --expect "$expected" --verdicts "$tmp/rxe.verdicts" \
		--json "$tmp/rxe.json" --junit "$tmp/rxe.xml" --pcap-dir "$tmp/fails" >"$1" 2>&1
}
# run_replay NAME OUT: pcaps/roce/NAME.pcap replayed against the write or
# atomic server, compared with its line in the verdicts file (one retry).
run_replay() {
	local try
	for try in 1 2; do
		lab_conform 300 --oob-netns "$OOB_NS" --serve write=18515 --serve read=18516 \
			--serve send=18517 --serve atomic=18518 \
			--size 4096 --timeout-ms 500 --replay "$here/../../pcaps/roce/$1.pcap" \
			--expect "$expected" >"$2" 2>&1 && break
		echo "RETRY: replay of $1: $(grep -E '^(DIFF|replayed)' "$2" | head -3 | tr '\n' ' ')"
	done
	grep -E "^(replayed|DIFF|expected verdicts)" "$2"
	grep -q "^expected verdicts (.*): 0 differences" "$2"
}

t0=$(date +%s)
conform_twice "the first run" "$tmp/out" run_conform
t1=$(date +%s)
grep -vE "^(TELEMETRY|ID )" "$tmp/out"
echo "rk-conform against rxe: exit $rc in $((t1 - t0)) s"
# The cm.* cases against rxe's CM: ib_write_bw -R's RDMA-CM listener on
# 18519 in its loop (a REQ goes again while it restarts between cases;
# each case ends the connection it made; a server left waiting for an
# exchange that never comes ends after 8 s).
run_cm() {
	lab_conform 600 --oob-netns "$OOB_NS" --serve cm=18519 --timeout-ms 500 \
		--cases 'cm.*' --expect "$expected" --verdicts "$tmp/cm.verdicts" \
		--pcap-dir "$tmp/fails" >"$1" 2>&1
}
if conform_matched "$rc" "$tmp/out"; then
	frc=$rc
	conform_twice "the cm.* run" "$tmp/cm.out" run_cm
	grep -E "^(cm\.|[0-9]+ cases|expected verdicts)" "$tmp/cm.out"
	conform_matched "$rc" "$tmp/cm.out" && rc=$frc || rc=1
fi
if conform_matched "$rc" "$tmp/out"; then
	# rxe's own recordings replayed against rxe: its answers again.
	for rec in rxe_atomic_bw rxe_write_bw_ipv6; do
		run_replay "$rec" "$tmp/replay-$rec" || { rc=1; break; }
	done
fi
if [ "$rc" = 0 ] && conform_matched "$rc" "$tmp/out"; then
	echo "PASS: the verdicts equal $expected"
	exit 0
fi
echo "FAIL: the verdicts differ from $expected (or the run broke)"
echo "---- guest kernel:"
pexec 10 1 'dmesg | tail -8' 2>&1 | tail -8
exit 1
