#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's responder engine against perftest's client as rk-interop
# plays it (the same exchange as Linux rxe's ib_*_bw): rk-testpmd on one
# end of a veth pair (net_af_packet, namespace a: "set fwd responder",
# "responder start"), one rk-interop after another on the other end
# (namespace b), the TCP exchange over a second veth pair. Not memif: a
# memif client that leaves while the engine polls can crash DPDK 22.11's
# memif PMD (its disconnect unmaps the rings under rx_burst; seen here
# under ASan, 1 run in 3). write_bw, read_bw, send_bw and atomic_bw (FETCH_AND_ADD, then
# CMP_AND_SWAP) in turn; a client with a wrong R_Key must get a remote
# access error and the responder report it, then serve the next client.
# Each client must exit 0 with its "result: ok" (rk-interop checks READ
# data, FETCH_AND_ADD results, every completion), and the responder print
# its line for it: the tool it saw, size, iterations, its own checks
# (READ region unchanged, the region grown by one per FETCH_AND_ADD,
# every SEND received with the same length).
# With rdma_cm the clients are perftest's -R ones ("responder start ...
# rdma_cm"): the exchange and the data QP connected by RDMA-CM over QP1 on
# the veth pair (no TCP); instead of the wrong R_Key a client asks for
# another RDMA-CM port and must get the CM's REJ (invalid service ID),
# which the responder counts; a client with -q 2 (perftest -R -q N: a
# second data connection) must get a REJ (consumer reject) for it and the
# responder name the cause in its line and count it.
# usage: rk_testpmd_responder_check.sh RK_TESTPMD RK_INTEROP [rdma_cm]
# Exit 77 (skip) where no namespace can be made.
set -u
tp=$1
rki=$2
cm=${3:-}
tmp=$(mktemp -d)
tpid=""
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
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
ns=rkrs$$
if ! why=$(veth_pair_up "$ns"); then
	echo "SKIP: $why"
	exit 77
fi
TCP=$((20000 + $$ % 20000))
N=200
if [ -n "$cm" ]; then
	# the client's RoCE address, and the responder's device (198.18.0.1)
	peer=198.18.0.2
	server=198.18.0.1
	copts=-R
else
	peer=198.18.1.2
	server=198.18.1.1
	copts=
fi

cat >"$tmp/resp.cmd" <<CMD
set fwd responder
responder start 0 1 65536 rdma_cm ud
responder start 0 1 65536 uc ud
responder start 0 0 65536 $cm
responder start 0 $TCP 65536 $cm
start
CMD
mkfifo "$tmp/in"
exec 3<>"$tmp/in"
# shellcheck disable=SC2086
ip netns exec "${ns}a" timeout -k 5 280 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 \
	--file-prefix rkrs$$ --vdev=net_af_packet0,iface=rkva \
	-- --cmdline-file "$tmp/resp.cmd" <"$tmp/in" >"$tmp/tp.out" 2>&1 &
tpid=$!
wait_line "$tmp/tp.out" "^responder packet forwarding"
# Port 0 would listen where the kernel picks: refused, and the next start runs.
if grep -qE '^Bad (TCP|RDMA-CM) port "0": 1..65535' "$tmp/tp.out"; then
	ok "responder start 0 0: refused in one line"
else
	ko "responder start 0 0: $(grep -A1 'responder start 0 0' "$tmp/tp.out" | tail -n 1)"
fi

# UD QPs take perftest's TCP exchange only (lib/cm connects RC).
if grep -q '^Bad "ud" with "rdma_cm": UD clients over perftest.s TCP exchange only' "$tmp/tp.out"; then
	ok "responder start ... rdma_cm ud: refused in one line"
else
	ko "rdma_cm ud: $(grep -A1 'rdma_cm ud' "$tmp/tp.out" | tail -n 1)"
fi

if grep -q '^Bad "uc" with "ud": one QP type' "$tmp/tp.out"; then
	ok "responder start ... uc ud: refused in one line"
else
	ko "uc ud: $(grep -A1 'uc ud' "$tmp/tp.out" | tail -n 1)"
fi

# client NAME WANT-EXIT ARGS...: one rk-interop; its output in $tmp/NAME.
client() {
	local name=$1 want=$2 rc
	shift 2
	# shellcheck disable=SC2086
	ip netns exec "${ns}b" timeout -k 5 60 "$rki" $MEM --no-pci --log-level='*:warning' -l 1 \
		--file-prefix rkrc$$ --vdev=net_af_packet0,iface=rkvb \
		-- "$@" $copts -I 198.18.0.2 -p "${CPORT:-$TCP}" $server >"$tmp/$name" 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$name: client exit $rc"
	else
		ko "$name: client exit $rc, want $want: $(tail -n 2 "$tmp/$name" | tr '\n' ' ')"
	fi
}
# resp_line K REGEX WHAT: the responder's line for client K matches REGEX.
resp_line() {
	local line
	for _ in $(seq 1 50); do
		line=$(grep "^responder: client $1 ($peer): .*result:" "$tmp/tp.out")
		[ -n "$line" ] && break
		sleep 0.1
	done
	if grep -qE "$2" <<<"$line"; then
		ok "$3"
	else
		ko "$3: \"${line:-no line}\""
	fi
}

client write_bw 0 write_bw -n $N -s 4096
grep -q "^result: ok" "$tmp/write_bw" && ok "write_bw: client result ok" || ko "write_bw: no result"
# 4096 bytes at the path MTU of 1024: 4 packets each.
resp_line 1 "write_bw, 4096 bytes, $N iterations, result: ok \($((N * 4)) WRITE packets placed\)" \
	"write_bw: the responder placed 4 WRITE packets for each of 200 WRITEs"

client read_bw 0 read_bw -n $N -s 8192
grep -q "^result: ok (READ data checked)" "$tmp/read_bw" && ok "read_bw: READ data checked" ||
	ko "read_bw: $(grep result "$tmp/read_bw")"
resp_line 2 "read_bw, 8192 bytes, $N iterations, result: ok \(region unchanged, $N READ requests\)" \
	"read_bw: 200 READs answered, the region unchanged"

client send_bw 0 send_bw -n $N -s 1000
grep -q "^result: ok" "$tmp/send_bw" && ok "send_bw: client result ok" || ko "send_bw: no result"
resp_line 3 "send_bw, 1000 bytes, $N iterations, result: ok \($N receives, each 1000 bytes\)" \
	"send_bw: 200 SENDs of 1000 bytes received"

client atomic_bw 0 atomic_bw -n $N
grep -q "^result: ok (FETCH_AND_ADD results checked)" "$tmp/atomic_bw" &&
	ok "atomic_bw: FETCH_AND_ADD results checked" || ko "atomic_bw: $(grep result "$tmp/atomic_bw")"
resp_line 4 "atomic_bw, 8 bytes, $N iterations, result: ok \(region grew by $N, one per FETCH_AND_ADD" \
	"atomic_bw: the region grew by one per FETCH_AND_ADD"

client atomic_cas 0 atomic_bw -n 50 -A CMP_AND_SWAP
resp_line 5 "atomic_bw, 8 bytes, 50 iterations, result: ok \(region unchanged: CMP_AND_SWAP" \
	"atomic_bw -A CMP_AND_SWAP: no swap (no word is 0)"

if [ -n "$cm" ]; then
	CPORT=$((TCP + 1)) client other_port 1 write_bw -n 20 -s 4096 --oob-timeout 2
	grep -q "invalid service ID" "$tmp/other_port" &&
		ok "another RDMA-CM port: the client got the REJ (invalid service ID)" ||
		ko "another RDMA-CM port: $(tail -n 1 "$tmp/other_port")"
	# perftest -R -q 2: one data connection served, the second REQ refused
	client qps2 1 write_bw -n 20 -s 4096 -q 2
	grep -q "connection to $server:$TCP failed: consumer reject" "$tmp/qps2" &&
		ok "-R -q 2: the client's second data connection got the REJ (consumer reject)" ||
		ko "-R -q 2: $(tail -n 1 "$tmp/qps2")"
	why="perftest -R with -q N: several data connections \\(RDMA-CM\\) not supported"
	resp_line 6 "result: failed: $why, use the TCP exchange$" \
		"-R -q 2: the responder names the cause in one line"
	clients=7
else
	client bad_rkey 1 write_bw -n 20 -s 4096 --bad-rkey
	grep -q "remote access error" "$tmp/bad_rkey" &&
		ok "bad R_Key: the client got a remote access error" ||
		ko "bad R_Key: $(tail -n 1 "$tmp/bad_rkey")"
	resp_line 6 "write_bw, result: failed|none, result: failed" \
		"bad R_Key: the responder reports a failed client"
	clients=7
fi

client write_after 0 write_bw -n 50 -s 65536
resp_line $clients "write_bw, 65536 bytes, 50 iterations, result: ok" \
	"the next client is served (50 WRITEs of 64 KiB)"

echo >&3
wait "$tpid"
rc=$?
tpid=""
# the command file's 3 refused starts fail the run (no -i)
last=$(grep -v "^TELEMETRY" "$tmp/tp.out" | tail -n 1)
[ "$rc" = 1 ] && [ "$last" = "3 of 6 commands failed" ] &&
	ok "rk-testpmd exits 1 after \"$last\"" || ko "rk-testpmd: exit $rc, last line \"$last\""

grep -q "^Responder stopped after $clients client(s)" "$tmp/tp.out" && ok "$clients clients in all" ||
	ko "$(grep 'Responder stopped' "$tmp/tp.out" || echo 'no stop line')"
if [ -n "$cm" ]; then
	# as "show responder" counts them
	grep -qE "^  CM MADs: received [1-9][0-9]*, dropped \(queue full\) 0, .*other service ID [1-9]" \
		"$tmp/tp.out" && ok "CM MADs received, none dropped, the other port's REQ(s) rejected" ||
		ko "CM counters: $(grep '^  CM MADs' "$tmp/tp.out" || echo 'no line')"
	grep -q "^  CM MADs: .*; clients refused for -R -q N 1$" "$tmp/tp.out" &&
		ok "the -R -q 2 client counted" ||
		ko "-R -q N count: $(grep '^  CM MADs' "$tmp/tp.out" || echo 'no line')"
fi
echo "$pass passed, $fail failed"
if [ "$fail" -ne 0 ]; then
	echo "---- rk-testpmd:"
	grep -v "^TELEMETRY" "$tmp/tp.out" | tail -n 40
	exit 1
fi
