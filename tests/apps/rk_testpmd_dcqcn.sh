#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DCQCN over real ports with the CE marks made on the path: rk-testpmd's
# impair engine as the congested switch between two rk-perf endpoints
# (write_bw 1 KiB, --dcqcn=paper at both ends, net_af_packet on veth pairs
# in a namespace the test creates, 198.18.0.0/15 addresses):
#   client tda0 --veth-- tda1 (port 0) rk-testpmd (port 1) tdb1 --veth-- tdb0 server
# One rule marks CE on 80 % of the first 3000 RDMA WRITE Only frames, then
# nothing is marked. Checked: the transfer ends well; the rule marked
# about 2400; the server's NP counted exactly those as CE-marked and sent
# CNPs, every one of which the client's RP took; and the client's RP trace
# (rpg_max_rate 200 Mb/s) shows R_C cut below half, back within 10 % of
# 200 once the marks stopped, and the WRITEs sent following R_C (the
# checks of tests/helpers/dcqcn_trace_check.py).
# usage: rk_testpmd_dcqcn.sh RK_TESTPMD RK_PERF
# Exit 77 (skip) without namespaces.
set -u
tp=$1
perf=$2
ns=rktd$$
tmp=$(mktemp -d /tmp/rk-testpmd-dcqcn.XXXXXX)
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
if ! why=$(ns_veths_up "$ns" tda0:tda1 tdb0:tdb1); then
	echo "SKIP: $why"
	exit 77
fi

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
LOG="--no-pci --log-level=*:warning"
PORT=$((23000 + $$ % 1000))

# opcode 10: RDMA WRITE Only
cat >"$tmp/rules.cmd" <<'CMD'
set fwd impair
impair add opcode=10 count=1000 ecn-ce=0.8
CMD
# shellcheck source=../helpers/bump.sh
. "$(dirname "$0")/../helpers/bump.sh"
bump_start "$tp" "$ns" tda1 tdb1 "$tmp/rules.cmd" 120
pids="$tp_pid"

cc="--dcqcn=paper --dcqcn-param rpg_max_rate=20 --dcqcn-param rpg_time_reset=1000 --dcqcn-param dce_tcp_rtt=1000 --dcqcn-param rpg_min_rate=5 --counters"
ip netns exec "$ns" timeout 90 "$perf" $MEM $LOG -l 0 --file-prefix=rkds$$ \
	--vdev=net_af_packet0,iface=tdb0 -- write_bw --ip 198.18.0.2 -p "$PORT" $cc \
	>"$tmp/srv.out" 2>&1 &
srv=$!
pids="$pids $srv"
sleep 1
ip netns exec "$ns" timeout 90 "$perf" $MEM $LOG -l 0 --file-prefix=rkdc$$ \
	--vdev=net_af_packet0,iface=tda0 -- write_bw --ip 198.18.0.1 -p "$PORT" $cc \
	-D 3 -s 1024 -m 1024 --dcqcn-trace "$tmp/rp.csv" 127.0.0.1 >"$tmp/cli.out" 2>&1
crc=$?
wait "$srv"
src=$?
bump_stop

[ "$crc" = 0 ] && [ "$src" = 0 ] && ok "write_bw through the marking bump: both ends exit 0" ||
	ko "write_bw: client exit $crc, server exit $src: $(tail -3 "$tmp/cli.out" "$tmp/srv.out" | tr '\n' '|')"
marked=$(grep -A1 "^rule 0: " "$tmp/tp.out" | sed -n 's/.* ce-marked \([0-9]*\).*/\1/p')
[ -n "$marked" ] && [ "$marked" -ge 740 ] && [ "$marked" -le 860 ] &&
	ok "impair show: rule 0 marked $marked of the first 1000 WRITEs" ||
	ko "rule 0 marked '$marked': $(grep -A1 "^rule 0: " "$tmp/tp.out" | tr '\n' ' ')"
counter() { awk -v n="$2" '$1 == n {print $2}' "$tmp/$1.out"; }
np_marked=$(counter srv np_ecn_marked_roce_packets)
np_cnp=$(counter srv np_cnp_sent)
rp=$(( $(counter cli rp_cnp_handled || echo 0) + $(counter cli rp_cnp_ignored || echo 0) ))
[ -n "$np_marked" ] && [ "$np_marked" = "$marked" ] &&
	ok "the server's NP counted the $marked marked frames" ||
	ko "np_ecn_marked_roce_packets '$np_marked', the bump marked '$marked'"
[ -n "$np_cnp" ] && [ "$np_cnp" -gt 0 ] && [ "$rp" = "$np_cnp" ] &&
	ok "$np_cnp CNPs sent, all taken by the client's RP" ||
	ko "np_cnp_sent '$np_cnp', rp_cnp_handled + rp_cnp_ignored $rp"
# 1098-byte frames: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, 1024, ICRC 4
got=$(python3 "$(dirname "$0")/../helpers/dcqcn_trace_check.py" "$tmp/rp.csv" 1098 20 0.02 2>&1)
case $got in
"True True True True "*) ok "RP trace: R_C cut on the marks and recovered, pacing held (${got#True True True True })" ;;
*) ko "RP trace: $got" ;;
esac

echo "$pass passed, $fail failed"
# KEEP=DIR keeps the run's files for a look
[ -n "${KEEP:-}" ] && cp -r "$tmp" "$KEEP"
[ "$fail" -eq 0 ] || { for f in "$tmp"/*.out; do echo "== $f"; cat "$f"; done; exit 1; }
