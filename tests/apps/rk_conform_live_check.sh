#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-conform against a live DUT over a port: rk-testpmd's responder
# engine (rdmakit's engine behind net_af_packet, namespace a) as the DUT,
# rk-conform --dut perftest in namespace b, a fresh perftest exchange and
# QP per case over the second veth pair. Checks: the run's verdicts equal
# the committed ones (every RC case that the responder can be tested for
# passes; the rest n/a with the reason), no case fails, the JUnit XML and
# JSON agree, the verdicts file is written; a --serve of one perftest
# tool per verb makes the cases needing another verb n/a, not failed;
# and a DUT whose QP never answers (no port on the other end) gets a
# verdict for a case within the timeouts.
# With --serve cm=PORT the cm.* cases run against the responder's
# rdma_cm listener. Given rk-sim, a recording of path MTU 512 is replayed: the perftest
# exchange offers the recording's MTU, not --mtu's default 1024 (with
# --mtu 1024 given, n/a naming both).
# usage: rk_conform_live_check.sh RK_TESTPMD RK_CONFORM EXPECTED [RK_SIM]
# Exit 77 (skip) where no namespace can be made.
set -u
tp=$1
rkc=$2
expected=$3
rksim=${4:-}
tmp=$(mktemp -d)
tpid=""
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	exec 3>&- 2>/dev/null
	ip netns del "${ns}a" 2>/dev/null
	ip netns del "${ns}b" 2>/dev/null
	[ -n "${RK_CONFORM_KEEP:-}" ] && echo "logs kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
# shellcheck source=../helpers/wait-line.sh
. "$(dirname "$0")/../helpers/wait-line.sh"
# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
ns=rkcl$$
if ! why=$(veth_pair_up "$ns"); then
	echo "SKIP: $why"
	exit 77
fi
TCP=$((20000 + $$ % 20000))

mkfifo "$tmp/in"
# responder_up OUT [rdma_cm]: rk-testpmd's responder in namespace a (its
# output in OUT, $tpid), stopped by a line on fd 3
responder_up() {
	printf 'set fwd responder\nresponder start 0 %s 65536 %s\nstart\n' "$TCP" "${2:-}" \
		>"$tmp/resp.cmd"
	exec 3<>"$tmp/in"
	# shellcheck disable=SC2086
	ip netns exec "${ns}a" timeout -k 5 280 "$tp" $MEM --no-pci --log-level='*:warning' \
		-l 0-1 --file-prefix rkcla$$ --vdev=net_af_packet0,iface=rkva \
		-- --cmdline-file "$tmp/resp.cmd" <"$tmp/in" >"$1" 2>&1 &
	tpid=$!
	wait_line "$1" "^responder packet forwarding"
}
responder_up "$tmp/tp.out"

# conform NAME ARGS...: one rk-conform run in namespace b; exit status in $rc.
conform() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	ip netns exec "${ns}b" timeout -k 5 200 "$rkc" $MEM --no-pci --log-level='*:warning' -l 1 \
		--file-prefix rkclb$$ --vdev=net_af_packet0,iface=rkvb \
		-- --dut perftest --server 198.18.1.1 --ip 198.18.0.2 --size 65536 \
		--timeout-ms 200 "$@" >"$tmp/$name.out" 2>&1
	rc=$?
}

# interrupt NAME SECS ARGS: rk-conform with ARGS in the background, SIGINT
# after SECS; rc, the seconds it took (secs) and the outputs $tmp/NAME.*.
interrupt() {
	local name=$1 wait=$2 ipid t0
	shift 2
	t0=$(date +%s)
	# shellcheck disable=SC2086
	ip netns exec "${ns}b" "$rkc" $MEM --no-pci --log-level='*:warning' -l 1 \
		--file-prefix rkcli$$ --vdev=net_af_packet0,iface=rkvb -- --dut perftest \
		--server 198.18.1.1 --ip 198.18.0.2 --size 65536 --timeout-ms 200 "$@" \
		--verdicts "$tmp/$name.v" --json "$tmp/$name.json" >"$tmp/$name.out" 2>&1 &
	ipid=$!
	sleep "$wait"
	kill -INT "$ipid"
	wait "$ipid"
	rc=$?
	secs=$(($(date +%s) - t0))
}

conform all --serve "all=$TCP" --expect "$expected" --verdicts "$tmp/v.txt" \
	--json "$tmp/r.json" --junit "$tmp/r.xml" --pcap-dir "$tmp/fails"
[ "$rc" = 0 ] && ok "the verdicts equal the committed ones (exit 0)" ||
	ko "exit $rc: $(grep -E '^(DIFF|NEW|GONE)|expected verdicts' "$tmp/all.out" | head -5)"
grep -q "^expected verdicts (.*): 0 differences" "$tmp/all.out" && ok "0 differences reported" ||
	ko "no '0 differences' line"
ncases=$("$rkc" --list | grep -c .)
sum=$(grep -E "^[0-9]+ cases:" "$tmp/all.out")
if [[ "$sum" =~ ^$ncases\ cases:\ ([0-9]+)\ pass,\ 0\ fail ]] && [ "${BASH_REMATCH[1]}" -ge 50 ]; then
	ok "$sum"
else
	ko "summary: ${sum:-none}"
fi
if python3 - "$tmp/r.json" "$tmp/r.xml" "$tmp/v.txt" "$ncases" <<'PY'; then
import json, sys, xml.etree.ElementTree as ET
j = json.load(open(sys.argv[1]))
x = ET.parse(sys.argv[2]).getroot()
v = [l.split() for l in open(sys.argv[3]) if not l.startswith('#')]
cases = {c['id']: c['verdict'] for c in j['cases']}
assert j['dut'] == 'perftest', j['dut']
assert len(x.findall('.//testcase')) == len(cases) == len(v) == int(sys.argv[4])
assert len(x.findall('.//skipped')) == j['summary']['not_applicable']
assert dict(v) == cases
# What the live DUT gave: a real QP per case, frames both ways.
live = [c for c in j['cases'] if c['verdict'] == 'pass']
assert all(c['frames_tx'] > 0 and c['frames_rx'] > 0 for c in live
           if c['id'] not in ('rc.opcode.uc_to_rc',)), 'a passing case saw no frame'
PY
	ok "JSON, JUnit XML and the verdicts file agree; every passing case sent and read frames"
else
	ko "JSON / JUnit / verdicts disagree"
fi
n=$(grep -c "result: failed: the client closed the exchange" "$tmp/tp.out")
[ "$n" -ge 50 ] && ok "the responder served a fresh client per case ($n)" || ko "responder clients: $n"

# One perftest tool per verb, here only write: cases needing receives,
# remote read or atomics are n/a with the reason, none fails. (Not the
# rc.r* cases: a write_bw server posts no receives, the responder does,
# so the RNR cases would rightly fail against it.)
conform write --serve "write=$TCP" --cases 'rc.[!r]*'
if [ "$rc" = 0 ] && grep -qE "^rc\.atomic\.fetch_add +n/a .*no DUT server for atomic" "$tmp/write.out" &&
   grep -qE "^rc\.psn\.expected +n/a .*no DUT server for send" "$tmp/write.out" &&
   grep -qE "^rc\.psn\.ahead_write +pass" "$tmp/write.out"; then
	ok "--serve write=PORT: other verbs' cases n/a, WRITE cases pass"
else
	ko "--serve write: exit $rc: $(grep -E 'rc\.(atomic\.fetch_add|psn\.expected|psn\.ahead_write) ' "$tmp/write.out" | tr -s ' ' | head -3)"
fi

# A recording of path MTU 512 (rdmakit against itself in rk-sim, WRITEs
# of 4 segments): the exchange offers 512, every answer alike; the
# user's --mtu 1024 is kept, and the replay is n/a naming both.
if [ -n "$rksim" ]; then
	"$rksim" -M 512 -O write -F -m 2048 -o 10 -w "$tmp/w512.pcap" >/dev/null 2>&1
	conform r512 --serve "all=$TCP" --replay "$tmp/w512.pcap"
	if [ "$rc" = 0 ] && grep -q "^path MTU 512, learnt" "$tmp/r512.out" &&
	   grep -q "^replayed 40 requests of .*; 10 of 10 recorded answers alike, 0 differences" "$tmp/r512.out"; then
		ok "a recording of path MTU 512 replayed: the exchange offered 512, 10 of 10 answers alike"
	else
		ko "replay at MTU 512: exit $rc: $(grep -E '^(replayed|path|replay\.)' "$tmp/r512.out" | tr '\n' ' ')"
	fi
	conform r512m --serve "all=$TCP" --replay "$tmp/w512.pcap" --mtu 1024
	if [ "$rc" = 0 ] && grep -qE "^replay\.w512\.pcap +n/a .*the DUT's QP has path MTU 1024, the recording 512" "$tmp/r512m.out"; then
		ok "the same with --mtu 1024: kept, n/a naming both MTUs"
	else
		ko "replay at MTU 512 with --mtu 1024: exit $rc: $(grep -E '^replay\.' "$tmp/r512m.out")"
	fi
fi

# Ctrl-C mid-run: exit 130 at once; the outputs hold the cases that ended
# before the signal, each with the verdict the full run gives it (the case
# the signal cut short is no verdict on the DUT and is left out).
interrupt int1 2 --serve "all=$TCP" --cases 'rc.*'
k=$(grep -vc '^#' "$tmp/int1.v")
if [ "$rc" = 130 ] && [ "$secs" -le 12 ] && [ "$k" -ge 1 ] &&
   grep -q "^interrupted: the outputs hold the $k cases\? run before the signal" "$tmp/int1.out" &&
   python3 - "$tmp/int1.v" "$tmp/v.txt" "$tmp/int1.json" <<'PY'; then
import json, sys
part = dict(l.split() for l in open(sys.argv[1]) if not l.startswith('#'))
full = dict(l.split() for l in open(sys.argv[2]) if not l.startswith('#'))
j = json.load(open(sys.argv[3]))
assert {c['id']: c['verdict'] for c in j['cases']} == part
assert all(full[i] == v for i, v in part.items()), [(i, v, full[i]) for i, v in part.items() if full[i] != v]
PY
	ok "Ctrl-C mid-run: exit 130 after $secs s, $k cases in the outputs, each as in the full run"
else
	ko "Ctrl-C mid-run: exit $rc after $secs s, $k cases: $(grep -E '^interrupted|cases:' "$tmp/int1.out" | tr '\n' ' ')"
fi

echo >&3
wait "$tpid"
tpid=""
# The responder gone: its QP answers nothing, the exchange finds no
# server. A case still ends in a verdict, bounded.
t0=$(date +%s)
conform gone --serve "all=$TCP" --cases rc.psn.expected --connect-timeout 3
t1=$(date +%s)
if [ "$rc" = 1 ] && grep -qE "^rc\.psn\.expected +FAIL .*setup failed" "$tmp/gone.out" &&
   [ $((t1 - t0)) -le 20 ]; then
	ok "no server, --connect-timeout 3: FAIL with the reason in $((t1 - t0)) s"
else
	ko "no server, --connect-timeout 3: exit $rc in $((t1 - t0)) s: $(grep rc.psn.expected "$tmp/gone.out")"
fi
# Every setup failing (the servers gone): after 3 cases in a row the run
# stops, with the cases run in the outputs, rather than waiting the
# connect timeout for each of the rest.
t0=$(date +%s)
conform stop --serve "all=$TCP" --cases 'rc.psn.*' --connect-timeout 1 --verdicts "$tmp/stop.v"
t1=$(date +%s)
if [ "$rc" = 1 ] && [ $((t1 - t0)) -le 20 ] && [ "$(grep -c 'FAIL .*setup failed' "$tmp/stop.out")" = 3 ] &&
   grep -q "^stopped: 3 cases in a row got no QP from the DUT (--max-setup-failures); the outputs hold the 3 cases run" "$tmp/stop.out" &&
   [ "$(grep -vc '^#' "$tmp/stop.v")" = 3 ]; then
	ok "servers gone: stopped after 3 setup failures in a row, in $((t1 - t0)) s"
else
	ko "servers gone: exit $rc in $((t1 - t0)) s: $(grep -E '^stopped|cases:' "$tmp/stop.out" | tr '\n' ' ')"
fi
conform stop0 --serve "all=$TCP" --cases 'rc.psn.*' --max-setup-failures x
if [ "$rc" = 2 ] && grep -q "^rk-conform: --max-setup-failures x: not a number in 0..1000" "$tmp/stop0.out"; then
	ok "--max-setup-failures x: refused, exit 2"
else
	ko "--max-setup-failures x: exit $rc: $(head -n 1 "$tmp/stop0.out")"
fi
# A path MTU whose frames the port cannot carry: said at start, naming
# rk-conform's own option.
conform mtu --serve "all=$TCP" --mtu 4096 --cases rc.psn.expected
if [ "$rc" = 1 ] && grep -qF "rk-conform: error: frames of 4190 bytes (--mtu 4096): net_af_packet0 takes frames of at most" "$tmp/mtu.out"; then
	ok "--mtu 4096 on a port of 2 KiB frames: refused at start, naming --mtu"
else
	ko "--mtu 4096: exit $rc: $(grep -v TELEMETRY "$tmp/mtu.out" | head -n 2 | tr '\n' ' ')"
fi
# A server name that does not resolve: a wrong option (exit 2) at start,
# not a setup failure per case after its timeout.
t0=$(date +%s)
conform badname --serve "all=$TCP" --server no-such-dut.invalid --cases 'rc.psn.*'
t1=$(date +%s)
if [ "$rc" = 2 ] && [ $((t1 - t0)) -le 10 ] &&
   grep -q "^rk-conform: --server no-such-dut.invalid: " "$tmp/badname.out" &&
   ! grep -qE "^rc\.psn" "$tmp/badname.out"; then
	ok "--server that does not resolve: exit 2 at start, naming the option"
else
	ko "--server no-such-dut.invalid: exit $rc after $((t1 - t0)) s: $(grep -v TELEMETRY "$tmp/badname.out" | head -n 2 | tr '\n' ' ')"
fi
# Ctrl-C while the first case waits for a server (30 s by default): exit
# 130 at once, and that case is in no output.
interrupt int0 4 --serve "all=$TCP" --cases 'rc.psn.*'
if [ "$rc" = 130 ] && [ "$secs" -le 10 ] && grep -q "^interrupted: the outputs hold the 0 cases run" "$tmp/int0.out" &&
   [ "$(grep -vc '^#' "$tmp/int0.v")" = 0 ] &&
   python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['cases'] == []" "$tmp/int0.json"; then
	ok "Ctrl-C while waiting for a server: exit 130 after $secs s, the case left out"
else
	ko "Ctrl-C while waiting for a server: exit $rc after $secs s: $(grep -E '^interrupted|cases:|FAIL' "$tmp/int0.out" | tr '\n' ' ')"
fi
# The cm.* cases against the responder's RDMA-CM listener ("responder
# start ... rdma_cm"): REQs to its RoCE address, the QP its CM connects
# checked by a SEND (it names no region to WRITE to); every one passes.
responder_up "$tmp/tpcm.out" rdma_cm
conform cm --serve "cm=$TCP" --dut-ip 198.18.0.1 --cases 'cm.*' --verdicts "$tmp/cm.v"
ncm=$("$rkc" --list --cases 'cm.*' | grep -c .)
if [ "$rc" = 0 ] && grep -q "^$ncm cases: $ncm pass, 0 fail" "$tmp/cm.out" &&
   [ "$(grep -c ' pass$' "$tmp/cm.v")" = "$ncm" ]; then
	ok "--serve cm=PORT against the responder's rdma_cm: $ncm cm.* cases pass"
else
	ko "cm.* against the responder: exit $rc: $(grep -E '^cm\.' "$tmp/cm.out" | grep -v ' pass ' | tr -s ' ' | head -4 | tr '\n' '|')"
fi
conform cmbad --serve "cm=$TCP" --server rk-dut --cases 'cm.*'
if [ "$rc" = 2 ] && grep -q "^rk-conform: --serve cm=$TCP needs --dut-ip A.B.C.D" "$tmp/cmbad.out"; then
	ok "--serve cm= with a --server name and no --dut-ip: exit 2, one line"
else
	ko "--serve cm= without --dut-ip: exit $rc: $(head -n 2 "$tmp/cmbad.out")"
fi
echo >&3
wait "$tpid"
tpid=""

echo "$pass passed, $fail failed"
if [ "$fail" -ne 0 ]; then
	echo "---- rk-conform:"
	tail -n 30 "$tmp/all.out"
	exit 1
fi
