#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's verbs commands and its rdma engine, in one command-file
# session over a net_memif pair inside one process (port 0 the server,
# port 1 the client of the same socket: a cable between two ports):
# MRs and RC and UD QPs on both ports, connected to each other; a WRITE
# and a READ of three packets each, a SEND to a posted RECV, a fetch-add
# and a compare-swap, a UD SEND (its 40-byte GRH in front), a WRITE to an
# MR without remote access. Every completion's status, opcode and
# byte_len, and the bytes that landed ("mr check"), are checked; a check
# against the wrong pattern must report the mismatch. Bad arguments give
# one line and the next command still runs. "help responder" and "help
# rdma" list their group's commands, and only those. The commands that
# fail make the run exit 1.
# usage: rk_testpmd_verbs_check.sh RK_TESTPMD
set -u
tp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"

cat >"$tmp/verbs.cmd" <<'CMD'
set fwd rdma
start
mr reg 0 8192
mr reg 1 8192
mr reg 1 64 none
qp create 0 rc
qp create 1 rc
qp connect 0 1
qp connect 1 0
qp create 0 ud
qp create 1 ud
qp connect 2 3
qp connect 3 2
mr fill 0 0 3000 inc:7
post write 0 0 3000 1:512
poll cq 0 1 5000
mr check 1 512 3000 inc:7
mr check 1 512 3000 inc:8
mr fill 1 4096 2500 0xa5
post read 0 0:4096 2500 1:4096
poll cq 0 1 5000
mr check 0 4096 2500 0xa5
post recv 1 1:7000 100
mr fill 0 100 64 inc:200
post send 0 0:100 64
poll cq 0 1 5000
poll cq 1 1 5000
mr check 1 7000 64 inc:200
post atomic fadd 0 0:7680 1:7680 5
poll cq 0 1 5000
post atomic cswap 0 0:7688 1:7680 5 0x0909090909090909
poll cq 0 1 5000
mr check 0 7680 8 0
mr check 0 7688 1 5
mr check 0 7689 7 0
mr check 1 7680 8 9
post recv 3 1:7200 200
mr fill 0 7300 64 inc:50
post send 2 0:7300 64
poll cq 2 1 5000
poll cq 3 1 5000
mr check 1 7240 64 inc:50
post write 0 0 64 2
poll cq 0 1 5000
post write 0 0
qp create 0 xx
poll cq 9
mr check 0 0 1 300
qp show
show rdma 1
post send 2 0:0 1025
poll cq 2 1 5000
help responder
help rdma
quit
CMD

# shellcheck disable=SC2086
timeout -k 5 60 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 --file-prefix rktv$$ \
	--vdev="net_memif0,role=server,socket=$tmp/memif.sock" \
	--vdev="net_memif1,role=client,socket=$tmp/memif.sock" \
	-- --cmdline-file "$tmp/verbs.cmd" >"$tmp/out" 2>&1
rc=$?
# 5 commands fail on purpose (a wrong pattern, bad arguments, no QP 9)
last=$(grep -v TELEMETRY "$tmp/out" | tail -n 1)
[ "$rc" = 1 ] && [ "$last" = "5 of 55 commands failed" ] &&
	ok "session exits 1 after \"$last\"" || ko "session: exit $rc, last line \"$last\""

# want LINE WHAT: LINE is a whole line of the output
want() {
	grep -Fxq -- "$1" "$tmp/out" && ok "$2" || ko "$2: no line \"$1\""
}
want "QP 0: wc wr_id=1 status=success (0) opcode=RDMA_WRITE byte_len=3000" "WRITE completes"
want "MR 1: 3000 bytes at offset 512 match inc:7" "WRITE: the 3000 bytes landed"
want "MR 1: mismatch at offset 512: 0x07, inc:8 wants 0x08" "a wrong pattern is reported"
want "QP 0: wc wr_id=2 status=success (0) opcode=RDMA_READ byte_len=2500" "READ completes"
want "MR 0: 2500 bytes at offset 4096 match 0xa5" "READ: the 2500 bytes landed"
want "QP 0: wc wr_id=4 status=success (0) opcode=SEND byte_len=64" "SEND completes"
want "QP 1: wc wr_id=3 status=success (0) opcode=RECV byte_len=64" "RECV completes"
want "MR 1: 64 bytes at offset 7000 match inc:200" "SEND: the bytes landed in the RECV's buffer"
want "QP 0: wc wr_id=5 status=success (0) opcode=FETCH_ADD byte_len=8" "fetch-add completes"
want "QP 0: wc wr_id=6 status=success (0) opcode=COMP_SWAP byte_len=8" "compare-swap completes"
want "MR 0: 8 bytes at offset 7680 match 0" "fetch-add returned the old 0"
want "MR 0: 1 bytes at offset 7688 match 5" "compare-swap returned 5 (the add's result) ..."
want "MR 0: 7 bytes at offset 7689 match 0" "... in host (here little-endian) order"
want "MR 1: 8 bytes at offset 7680 match 9" "compare-swap swapped in 0x0909090909090909"
want "QP 2: wc wr_id=8 status=success (0) opcode=SEND byte_len=64" "UD SEND completes"
want "QP 3: wc wr_id=7 status=success (0) opcode=RECV byte_len=104 src_qp=0x000012" \
	"UD RECV completes: 40-byte GRH and 64 bytes, the sender's QPN"
want "MR 1: 64 bytes at offset 7240 match inc:50" "UD SEND: the bytes landed after the GRH"
want "QP 0: wc wr_id=9 status=remote access error (10) opcode=RDMA_WRITE byte_len=64" \
	"WRITE to an MR without remote write: remote access error"
want "Usage: post write <qp> <mr>[:<offset>] <len> <remote-mr>[:<offset>]" \
	"missing arguments: the usage line"
want 'Bad QP type "xx": rc, uc or ud' "bad QP type: one line"
want 'No QP 9 ("qp show" lists them)' "unknown QP: one line"
want 'Bad pattern "300": a byte value (0..255) or inc[:START]' "bad pattern: one line"
want "QP 2: port 0 UD, QPN 0x000012, RTS, first PSN $(sed -n 's/^QP 2: port 0 UD, QPN 0x000012, PSN \(0x[0-9a-f]*\), INIT$/\1/p' "$tmp/out"), peer QP 3 (QPN 0x000012)" \
	"qp show: the UD QP in RTS with its PSN and peer"
n=$(grep -c "mismatch" "$tmp/out")
[ "$n" = 1 ] && ok "no other mismatch" || ko "$n mismatch lines"
# memif's 1500-byte MTU: active MTU 1024, so a UD SEND of 1025 bytes is
# one packet too big (it went out as a 1100-byte frame before).
want "QP 2: wc wr_id=10 status=local length error (1) opcode=SEND byte_len=1025" \
	"UD SEND past the port's active MTU (1024): local length error"
n=$(grep -c "status=" "$tmp/out")
[ "$n" = 10 ] && ok "10 completions in all, none more" || ko "$n completions"
grep -q "frames handed to the device 9, freed: queue full 0, too long 0; sent 8, TX dropped 0; ARP requests answered 0" \
	"$tmp/out" && ok "show rdma: port 1's device got 9 frames and sent 8" ||
	ko "show rdma: $(grep 'frames handed' "$tmp/out")"
# help GROUP: the lines after the command up to the next prompt
help_of() {
	tr -d '\r' <"$tmp/out" | sed -n "/^rk-testpmd> help $1\$/,/^rk-testpmd> /p" | sed '1d;$d'
}
# the responder's commands are the lines of the full list naming them
# as a command (not "set fwd ...|responder")
help_of responder >"$tmp/help.resp"
first=$(head -1 "$tmp/help.resp")
n=$(grep -cE '^  (responder (start|stop)|show responder|set responder clients)[ :]' "$tmp/help.resp")
[ "$first" = "Commands of responder:" ] && [ "$n" = 4 ] &&
	[ "$(wc -l <"$tmp/help.resp")" = 5 ] && ! grep -q "Bad arguments" "$tmp/help.resp" &&
	ok "help responder: the 4 responder commands, nothing else" ||
	ko "help responder: '$(cat "$tmp/help.resp")'"
help_of rdma >"$tmp/help.rdma"
[ "$(head -1 "$tmp/help.rdma")" = "Commands of rdma:" ] &&
	grep -q '^  mr reg <port>' "$tmp/help.rdma" && grep -q '^  poll cq <qp>' "$tmp/help.rdma" &&
	! grep -qE '^  (responder|port|set fwd|load streams)' "$tmp/help.rdma" &&
	ok "help rdma: the verbs commands only" || ko "help rdma: '$(cat "$tmp/help.rdma")'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { cat "$tmp/out"; exit 1; }
