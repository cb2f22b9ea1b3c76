#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen's stateful client of a perftest bw server (--perftest) over a
# net_memif pair, rk-interop playing the server (perftest's TCP exchange,
# as ib_read_bw, ib_write_bw and ib_atomic_bw):
#  1. read_bw -q 16: 16 QPs, 20 READs each, every READ of a QP the bytes
#     of its first; both exit 0, rk-interop's server finds its region
#     unchanged;
#  2. write_bw -q 16: 320 plain WRITEs (the server posts no receive for an
#     Immediate), the report says they are not checked;
#  3. atomic_bw: 20 FETCH_ADDs, each the previous result plus one, and
#     the server's word grew by 20;
#  4. a server of fewer or more QPs than the client's: said at the
#     exchange, exit 1; READs past the server's -s: the remote access
#     error names the likely cause;
#  5. a mix, a SEND, a size range, --ip-count or --perftest at the
#     responder: one line each, exit 2.
# usage: rk_gen_perftest_check.sh RK_GEN RK_INTEROP
set -u
gen=$1
rki=$2
tmp=$(mktemp -d)
spid=""
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

. "$(dirname "$0")/../helpers/dpdk-mem.sh"
. "$(dirname "$0")/../helpers/memif-wait.sh"
NCPU=$(nproc)
CORE_S=$((NCPU > 1 ? 1 : 0))
OOB=$((20000 + $$ % 20000))

# run NAME "server args" "rk-gen args": rk-interop's server, then rk-gen;
# rk-gen's JSON in $tmp/NAME.json, the server's output in $tmp/NAME.server
run() {
	name=$1
	# shellcheck disable=SC2086
	timeout -k 5 120 "$rki" $MEM --no-pci --log-level='*:error' -l $CORE_S \
		--file-prefix rkps$$ --vdev=net_memif0,role=server,socket=$tmp/$name.sock -- \
		$2 -p $OOB -I 198.18.0.1 >"$tmp/$name.server" 2>&1 &
	spid=$!
	# a client before the server's memif socket listens finds no peer
	memif_wait "$tmp/$name.sock" "$spid"
	# shellcheck disable=SC2086
	timeout -k 5 120 "$gen" $MEM --no-pci --log-level='*:error' -l 0 --file-prefix rkpc$$ \
		--vdev=net_memif0,role=client,socket=$tmp/$name.sock -- --perftest --port net_memif0 \
		--ip 198.18.0.2 --oob-port $OOB --timeout 20 --json $3 127.0.0.1 \
		>"$tmp/$name.json" 2>"$tmp/$name.err"
	crc=$?
	wait "$spid"
	src=$?
	spid=""
}

# field NAME KEY: a value of rk-gen's JSON report
field() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' \
		"$tmp/$1.json" "$2" 2>/dev/null
}

# verdict NAME OP COUNT CHECK SERVER-RESULT
verdict() {
	if [ $crc = 0 ] && [ $src = 0 ] && [ "$(field "$1" ok)" = True ] &&
	   [ "$(field "$1" "$2")" = "$3" ] && [ "$(field "$1" data_errors)" = 0 ] &&
	   [ "$(field "$1" completion_errors)" = 0 ] &&
	   field "$1" data_check | grep -q "$4" && grep -q "^result: ok $5" "$tmp/$1.server"; then
		ok "$1: $3 ${2}s, $(field "$1" data_check); the server: $(grep '^result:' "$tmp/$1.server")"
	else
		ko "$1: rk-gen exit $crc, server exit $src, $2 $(field "$1" "$2"), check '$(field "$1" data_check)'"
		tail -n 3 "$tmp/$1.err" "$tmp/$1.server"
	fi
}

run read "read_bw -q 16 -s 4096 -n 20" "--stateful 16 --op read --size 4096 --iters 20"
verdict read read 320 "each READ checked against its QP's first" "(READ data checked)"
run write "write_bw -q 16 -s 2048 -n 20" "--stateful 16 --op write --size 2048 --iters 20"
verdict write write 320 "WRITEs not checked" ""
run atomic "atomic_bw -s 8 -n 20" "--stateful 1 --op atomic --size 8 --iters 20"
verdict atomic atomic 20 "previous result plus one" "(FETCH_AND_ADD results checked)"

# a server of another -q: said at the exchange, before any traffic, exit 1
for qq in "2 4 fewer" "4 2 more"; do
	set -- $qq
	run "q$1" "read_bw -q $1 -s 4096 -n 20" "--stateful $2 --op read --size 4096 --iters 20"
	if [ $crc = 1 ] && grep -q "^rk-gen: error: the perftest server has $3 QPs than --stateful $2 .*start it with -q $2$" "$tmp/q$1.err"; then
		ok "server -q $1, rk-gen --stateful $2: $(cat "$tmp/q$1.err")"
	else
		ko "server -q $1, rk-gen --stateful $2: exit $crc, $(cat "$tmp/q$1.err")"
	fi
done

# READs past the server's region (--size above its -s): the remote access
# error says so, and the QP's errors count it
run big "read_bw -s 4096 -n 5" "--stateful 1 --op read --size 65536 --iters 5"
if [ $crc = 1 ] && grep -q "remote access error (message 0); is --size above the server's -s?" "$tmp/big.err" &&
   [ "$(field big completion_errors)" = 1 ] &&
   python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["worst_qps"][0]["errors"] != 1)' "$tmp/big.json"; then
	ok "--size above the server's -s: $(grep error "$tmp/big.err")"
else
	ko "--size above the server's -s: exit $crc, $(cat "$tmp/big.err")"
fi

# refused before any port: one line, exit 2
for bad in "--op write:1,read:1|--op write, read or atomic" "--op send|--op write, read or atomic" \
	"--op read --size 64-128|one --size" "--op read --ip-count 2|not with --ip-count"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- --stateful 2 --perftest ${bad%%|*} --port p --ip 198.18.0.2 h \
		>/dev/null 2>"$tmp/bad.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] &&
	   grep -qF -- "--perftest: ${bad#*|}" "$tmp/bad.err"; then
		ok "refused: ${bad%%|*}"
	else
		ko "${bad%%|*}: exit $rc, $(cat "$tmp/bad.err")"
	fi
done
"$gen" --no-pci -- --responder --perftest --port p --ip 198.18.0.2 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "^rk-gen: --perftest is the client's" "$tmp/bad.err" &&
	ok "refused: --perftest at the responder" || ko "--responder --perftest: exit $rc, $(cat "$tmp/bad.err")"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
