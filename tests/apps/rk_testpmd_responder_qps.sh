#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's responder engine serving perftest clients with several QPs
# each (perftest -q 4, as rk-interop plays it): rk-testpmd on one end of
# a veth pair (net_af_packet, namespace a), one rk-interop after another
# on the other end (namespace b), the TCP exchange over a second veth
# pair. perftest does not send its QP count: the responder makes a QP for
# each key message until the first QP's keys come again (the barrier).
# write_bw, read_bw and send_bw with -q 4: each client must exit 0 with
# its "result: ok" (READ data checked on every QP), the responder's line
# for it must say "4 QP(s)" when connected and name the tool "over 4 QPs"
# with its checks summed over the QPs; "show responder" while read_bw
# runs lists the client with 4 QP(s). A -q 17 client fails (16 at most),
# the responder saying why; then a -q 1 client is still served.
# usage: rk_testpmd_responder_qps.sh RK_TESTPMD RK_INTEROP
# Exit 77 (skip) where no namespace can be made.
set -u
tp=$1
rki=$2
tmp=$(mktemp -d)
tpid=""
cpid=""
cleanup() {
	for p in $cpid $tpid; do kill "$p" 2>/dev/null; done
	exec 3>&- 2>/dev/null
	ip netns del "${ns}a" 2>/dev/null
	ip netns del "${ns}b" 2>/dev/null
	[ -n "${RK_RESP_KEEP:-}" ] && echo "logs kept in $tmp" || rm -rf "$tmp"
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
ns=rkrq$$
if ! why=$(veth_pair_up "$ns"); then
	echo "SKIP: $why"
	exit 77
fi
TCP=$((20000 + $$ % 20000))
N=500
peer=198.18.1.2
server=198.18.1.1

cat >"$tmp/resp.cmd" <<CMD
set fwd responder
responder start 0 $TCP 65536
start
CMD
mkfifo "$tmp/in"
exec 3<>"$tmp/in"
# shellcheck disable=SC2086
ip netns exec "${ns}a" timeout -k 5 110 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 \
	--file-prefix rkrq$$ --vdev=net_af_packet0,iface=rkva \
	-- -i --cmdline-file "$tmp/resp.cmd" <"$tmp/in" >"$tmp/tp.out" 2>&1 &
tpid=$!
wait_line "$tmp/tp.out" "^responder packet forwarding"

# rk-testpmd's output without its prompt (-i: lines may start with it)
out() { sed 's/^\(rk-testpmd> \)*//' "$tmp/tp.out"; }

# start_client NAME ARGS...: one rk-interop in the background; its output in $tmp/NAME.
start_client() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	ip netns exec "${ns}b" timeout -k 5 40 "$rki" $MEM --no-pci --log-level='*:warning' -l 1 \
		--file-prefix rkrqc$$ --vdev=net_af_packet0,iface=rkvb \
		-- "$@" -I 198.18.0.2 -p "$TCP" $server >"$tmp/$name" 2>&1 &
	cpid=$!
}
# client_done NAME: wait for it; exit 0 and "result: ok" wanted
client_done() {
	local rc
	wait "$cpid"
	rc=$?
	cpid=""
	if [ "$rc" = 0 ] && grep -q "^result: ok" "$tmp/$1"; then
		ok "$1: client exit 0, $(grep '^result:' "$tmp/$1")"
	else
		ko "$1: client exit $rc: $(tail -n 2 "$tmp/$1" | tr '\n' ' ')"
	fi
}
# await PATTERN: up to 5 s for a line of rk-testpmd's output to match PATTERN
await() {
	for _ in $(seq 1 50); do
		out | grep -qE "$1" && return
		sleep 0.1
	done
}
# resp_line K REGEX WHAT: the responder's result line for client K matches REGEX.
resp_line() {
	local line
	await "^responder: client $1 \($peer\): .*result:"
	line=$(out | grep "^responder: client $1 ($peer): .*result:")
	if grep -qE "$2" <<<"$line"; then
		ok "$3"
	else
		ko "$3: \"${line:-no line}\""
	fi
}
# connected K QPS: client K's connect line names QPS QP(s)
connected() {
	local line
	await "^responder: client $1 \($peer\): perftest .*QPN"
	line=$(out | grep "^responder: client $1 ($peer): perftest .*QPN")
	grep -q ", $2 QP(s)$" <<<"$line" && ok "client $1 connected with $2 QP(s)" ||
		ko "client $1: $2 QP(s) wanted: \"${line:-no line}\""
}

start_client write_bw write_bw -q 4 -n $N -s 4096
client_done write_bw
connected 1 4
# 4096 bytes at the path MTU of 1024: 4 packets each, on each of the 4 QPs.
resp_line 1 "write_bw over 4 QPs, 4096 bytes, $N iterations, result: ok \($((N * 16)) WRITE packets placed\)" \
	"write_bw -q 4: 4 WRITE packets for each of $N WRITEs on each QP"

# long enough to ask "show responder" while it runs
start_client read_bw read_bw -q 4 -n $((N * 20)) -s 8192
connected 2 4
echo "show responder" >&3
await "^  client 2: [0-9]+ QP"
out | grep -q "^  client 2: 4 QP(s)$" && ok "show responder: client 2 with 4 QP(s)" ||
	ko "show responder: $(out | grep -E '^(Responder: port|  client )' | tr '\n' ' ')"
client_done read_bw
grep -q "^result: ok (READ data checked)" "$tmp/read_bw" && ok "read_bw -q 4: READ data checked" ||
	ko "read_bw: $(grep result "$tmp/read_bw")"
resp_line 2 "read_bw over 4 QPs, 8192 bytes, $((N * 20)) iterations, result: ok \(region unchanged, $((N * 80)) READ requests\)" \
	"read_bw -q 4: every QP's region unchanged, $((N * 80)) READs"

start_client send_bw send_bw -q 4 -n $N -s 1000
client_done send_bw
connected 3 4
resp_line 3 "send_bw over 4 QPs, 1000 bytes, $((N * 4)) iterations, result: ok \($((N * 4)) receives, each 1000 bytes\)" \
	"send_bw -q 4: $((N * 4)) SENDs of 1000 bytes received"

# past the most QPs per client: that client fails, in one line
start_client q17 write_bw -q 17 -n 20 -s 4096
wait "$cpid"
rc=$?
cpid=""
[ "$rc" != 0 ] && ok "-q 17: the client fails (exit $rc)" ||
	ko "-q 17: the client exits 0: $(tail -n 1 "$tmp/q17")"
resp_line 4 "result: failed: more than 16 QPs \(perftest -q N: N up to 16\)$" \
	"-q 17: the responder says why"

start_client one write_bw -n $N -s 4096
client_done one
connected 5 1
resp_line 5 "write_bw, 4096 bytes, $N iterations, result: ok" "-q 1 after them: served as before"

printf "quit\n" >&3
wait "$tpid"
rc=$?
tpid=""
[ "$rc" = 0 ] && ok "rk-testpmd exits 0" || ko "rk-testpmd: exit $rc"
out | grep -q "^Responder stopped after 5 client(s)" && ok "5 clients in all" ||
	ko "$(out | grep 'Responder stopped' || echo 'no stop line')"
echo "$pass passed, $fail failed"
if [ "$fail" -ne 0 ]; then
	echo "---- rk-testpmd:"
	grep -v "^TELEMETRY" "$tmp/tp.out" | tail -n 40
	exit 1
fi
