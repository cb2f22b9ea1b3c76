#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's prompt as the client of a remote perftest bw server:
# "qp connect <qp> perftest <host>:<port> <mr> write" against rk-interop
# playing ib_write_bw's server (the exchange an RNIC's or rxe's server
# speaks), net_af_packet on a veth pair in namespaces the test creates,
# the TCP exchange over a second pair (198.18.1.1 / 198.18.1.2), RoCE
# 198.18.0.1 (the device's default: no "set ip") / 198.18.0.2. Checked:
# a QP without a peer MAC, a bad tool, a bad TCP port and a connect
# before the rdma engine forwards are refused in one line each; the connect line, the server's region as
# a remote MR; a WRITE of a pattern into it and a READ back into a second
# MR both complete and the bytes read match; the server found our MAC by
# ARP (answered by the rdma engine); "qp disconnect" ends the exchange
# (the server reads 2 iterations in our report), a second one and a
# second connect of the used QP are refused; the server exits 0.
# With rdma_cm the server is write_bw -R and the connect "... rdma_cm":
# the exchange and the data QP connected by RDMA-CM over QP1 (no TCP),
# the same WRITE and READ back, "qp disconnect" ends with DREQs of both
# connections; a bad word after the tool and a server that is no IPv4
# address are refused in one line each, so is a second such connect on
# the port, and a connect once the server is gone fails in one line
# within the step's timeout.
# usage: rk_testpmd_perftest_client.sh RK_TESTPMD RK_INTEROP [rdma_cm]
# Exit 77 (skip) where no namespace can be made.
set -u
tp=$1
rki=$2
mode=${3:-tcp}
tmp=$(mktemp -d /tmp/rk-testpmd-ptc.XXXXXX)
spid=""
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	ip netns del "${ns}a" 2>/dev/null
	ip netns del "${ns}b" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
ns=rkpc$$
if ! why=$(veth_pair_up "$ns"); then
	echo "SKIP: $why"
	exit 77
fi
SMAC=02:00:c6:12:00:02
ip -n "${ns}b" link set rkvb address "$SMAC"
TCP=$((20000 + $$ % 20000))

sopts=()
[ "$mode" = rdma_cm ] && sopts=(-R)
ip netns exec "${ns}b" timeout -k 5 60 "$rki" $MEM --no-pci --log-level='*:warning' -l 1 \
	--file-prefix rkps$$ --vdev=net_af_packet0,iface=rkvb -- write_bw -s 4096 -n 2 \
	-I 198.18.0.2 -p "$TCP" --oob-timeout 30 "${sopts[@]}" >"$tmp/server" 2>&1 &
spid=$!

# No "set ip": the device's default, 198.18.0.1, goes in the key message.
# Both modes, once connected: a WRITE, a READ back, the bytes compared,
# the disconnect twice.
ops="post write 0 0 4096 2
poll cq 0 1 5000
post read 0 1 4096 2
poll cq 0 1 5000
mr check 1 0 4096 inc:7
show rdma 0
qp disconnect 0
qp disconnect 0"
if [ "$mode" = rdma_cm ]; then
	# QP 1's connect comes after the server exited: nobody answers its REQ.
	cat >"$tmp/cmds" <<CMD
mr reg 0 4096
mr reg 0 4096
mr fill 0 0 4096 inc:7
qp create 0 rc
qp create 0 rc
set eth-peer 0 $SMAC
set fwd rdma
start
qp connect 0 perftest 198.18.0.2:$TCP 0 write rdma
qp connect 0 perftest rk-server:$TCP 0 write rdma_cm
qp connect 0 perftest 198.18.0.2:$TCP 0 write rdma_cm
qp connect 1 perftest 198.18.0.2:$TCP 0 write rdma_cm
$ops
qp connect 1 perftest 198.18.0.2:$TCP 0 write rdma_cm
qp show
stop
quit
CMD
else
cat >"$tmp/cmds" <<CMD
mr reg 0 4096
mr reg 0 4096
mr fill 0 0 4096 inc:7
qp create 0 rc
qp connect 0 perftest 198.18.1.2:$TCP 0 write
qp connect 0 perftest 198.18.1.2:$TCP 0 bogus
qp connect 0 perftest 198.18.1.2:abc 0 write
set eth-peer 0 $SMAC
qp connect 0 perftest 198.18.1.2:$TCP 0 write
set fwd rdma
start
qp connect 0 perftest 198.18.1.2:$TCP 0 write
$ops
qp disconnect 9
qp connect 0 perftest 198.18.1.2:$TCP 0 write
stop
quit
CMD
fi
# shellcheck disable=SC2086
ip netns exec "${ns}a" timeout -k 5 90 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 \
	--file-prefix rkpt$$ --vdev=net_af_packet0,iface=rkva -- -i --cmdline-file "$tmp/cmds" \
	</dev/null >"$tmp/out" 2>&1
trc=$?
wait "$spid"
src=$?
spid=""

has() { grep -qE "$1" "$tmp/out"; }
check() { # REGEX WHAT
	if has "$1"; then ok "$2"; else ko "$2: no line like \"$1\""; fi
}
[ "$trc" = 0 ] && ok "rk-testpmd exits 0" || ko "rk-testpmd exit $trc"
if [ "$mode" = rdma_cm ]; then
check "^Bad \"rdma\" after the tool: rdma_cm \(the server's -R\) or nothing$" \
	"a bad word after the tool: refused in one line"
check "^Bad perftest -R server \"rk-server\": an IPv4 address$" \
	"a server that is no IPv4 address: refused in one line"
check "^QP 0: connected to perftest [0-9.]+ write_bw -R at 198.18.0.2:$TCP: QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:198.18.0.2, path MTU [0-9]+, RTS$" \
	"qp connect ... rdma_cm: connected to the server's QP"
check "^MR 2: port 0, the peer's region at VA 0x[0-9a-f]+, R_Key 0x[0-9a-f]{8}$" "the server's region is MR 2"
check "^Port 0 has a perftest -R connection already: \"qp disconnect\" it first \(one per port\)$" \
	"a second -R connect on the port: refused in one line"
check "wc wr_id=1 status=success \(0\) opcode=RDMA_WRITE byte_len=4096" "WRITE of 4096 bytes into the server's region"
check "wc wr_id=2 status=success \(0\) opcode=RDMA_READ byte_len=4096" "READ of them back"
check "^MR 1: 4096 bytes at offset 0 match inc:7$" "the bytes read back are the pattern written"
check "CM MADs no connect waited for 0$" "every CM MAD reached the connecting command"
check "^QP 0: perftest exchange ended \(2 iterations reported\), both connections disconnected, QP in ERR$" \
	"qp disconnect: the exchange ended, DREQs answered"
check "^QP 0 has no perftest exchange" "a second qp disconnect: refused"
n=$(grep -c "^perftest -R server 198.18.0.2:$TCP: " "$tmp/out")
[ "$n" = 1 ] && has "^perftest -R server 198.18.0.2:$TCP: the exchange connection failed: no answer( to the REQ)?$" &&
	ok "no server: one line, no answer" ||
	ko "no server: $n lines: $(grep '^perftest -R server' "$tmp/out" | tr '\n' '|')"
grep -q "^QP 1 has a perftest exchange\|^QP 1: connected" "$tmp/out" &&
	ko "no server: QP 1 kept an exchange" || ok "no server: no exchange kept"
[ "$src" = 0 ] && grep -q "the client reported 2 iterations" "$tmp/server" &&
	ok "the server exits 0 and read our report" ||
	ko "server: exit $src, $(tail -n 3 "$tmp/server" | tr '\n' '|')"
else
check "^Port 0 has no peer MAC: \"set eth-peer 0 <mac>\"" "connect without a peer MAC: refused in one line"
check "^Bad perftest tool \"bogus\": write, read, atomic or send" "a bad tool: refused in one line"
n=$(grep -c '^Bad TCP port' "$tmp/out")
[ "$n" = 1 ] && has '^Bad TCP port "abc": a number, at most 65535$' &&
	ok "a bad TCP port: one line" || ko "a bad TCP port: $n lines: $(grep '^Bad TCP port' "$tmp/out" | tr '\n' '|')"
check "^The rdma engine is not forwarding: \"set fwd rdma\" and \"start\" first" \
	"connect before the rdma engine forwards: refused in one line"
check "^QP 0: connected to perftest [0-9.]+ write_bw at 198.18.1.2:$TCP: QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:198.18.0.2, path MTU [0-9]+, RTS$" \
	"qp connect ... perftest: connected to the server's QP"
check "^MR 2: port 0, the peer's region at VA 0x[0-9a-f]+, R_Key 0x[0-9a-f]{8}$" "the server's region is MR 2"
check "wc wr_id=1 status=success \(0\) opcode=RDMA_WRITE byte_len=4096" "WRITE of 4096 bytes into the server's region"
check "wc wr_id=2 status=success \(0\) opcode=RDMA_READ byte_len=4096" "READ of them back"
check "^MR 1: 4096 bytes at offset 0 match inc:7$" "the bytes read back are the pattern written"
check "ARP requests answered [1-9]" "the server found our MAC by ARP"
check "^QP 0: perftest exchange ended \(2 iterations reported\), QP in ERR$" "qp disconnect: the exchange ended"
check "^QP 0 has no perftest exchange" "a second qp disconnect: refused"
check "^No QP 9 " "qp disconnect of no QP: says so"
check "^QP 0 was connected already: a QP connects once" "a used QP: refused before any exchange"
[ "$src" = 0 ] && grep -q "the client reported 2 iterations" "$tmp/server" &&
	ok "the server exits 0 and read our report" ||
	ko "server: exit $src, $(tail -n 3 "$tmp/server" | tr '\n' '|')"
fi

echo "$pass passed, $fail failed"
# KEEP=DIR keeps the run's files for a look
[ -n "${KEEP:-}" ] && cp -r "$tmp" "$KEEP"
if [ "$fail" -ne 0 ]; then
	echo "---- rk-testpmd:"; grep -v '^TELEMETRY' "$tmp/out" | tail -n 40
	echo "---- server:"; tail -n 20 "$tmp/server"
	exit 1
fi
