#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-interop against itself: its server role and its client role speak the
# same tools' protocols (perftest's TCP and RDMA-CM exchanges, rping, siw's
# MPA over lwIP), so one process of each on a veth pair runs every mode
# without the lab's guests. This guards the wire shape of the options the
# tools take (perftest -a, -q, -T, -A, -o, -b and --run_infinitely, rping
# -S/-C/-P) where no QEMU is at hand; the lab suites (run.sh, siw.sh) hold
# the same options against rxe and siw.
#
#   self.sh RK_INTEROP RK_INSPECT
#
# A case passes when both ends exit 0 with their "result: ok" or "data
# verified" line, the client's recording gives rk-inspect no finding,
# and, for -a, the client printed the 8 MiB size's line. Exit 0 when all
# passed, 1 on a failure, 77 (skip) without root or network namespaces.
set -u
rki=$1
rk=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
[ -x "$rki" ] || { echo "SKIP: rk-interop not built"; exit 77; }
ns=rkself$$
tmp=$(mktemp -d /tmp/rk-self.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	ip netns del "${ns}a" 2>/dev/null
	ip netns del "${ns}b" 2>/dev/null
	[ -n "${RK_SELF_KEEP:-}" ] && echo "logs kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
if ! why=$(veth_pair_up "$ns"); then
	echo "SKIP: $why"
	exit 77
fi

if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 64 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
eal() { # SIDE
	echo "$MEM --no-pci --log-level=*:warning --file-prefix=rkself$1$$" \
		"--vdev=net_af_packet0,iface=rkv$1,blocksz=8192,framesz=8192,framecnt=2048"
}
pass=0 fail=0 n=0

# case_ NAME SERVER-HOST ARGS...: SERVER-HOST is what the client names, the
# exchange's address (tcp) or the server's RDMA address (rdma).
case_() {
	local name=$1 via=$2 host sp rs rc ok=1 why=""
	shift 2
	[[ "$name" =~ ${RK_SELF_ONLY:-.} ]] || return 0
	n=$((n + 1))
	host=198.18.1.1
	[ "$via" = rdma ] && host=198.18.0.1
	local f="$tmp/$n"
	# SERVER_ARGS: options for the server only.
	ip netns exec "${ns}a" timeout -k 5 120 "$rki" $(eal a) -- "$@" ${SERVER_ARGS:-} \
		-I 198.18.0.1 >"$f.server" 2>&1 &
	sp=$!
	pids+=("$sp")
	sleep 1.5
	ip netns exec "${ns}b" timeout -k 5 120 "$rki" $(eal b) -- "$@" -I 198.18.0.2 \
		-w "$f.pcapng" "$host" >"$f.client" 2>&1
	rc=$?
	wait "$sp"
	rs=$?
	[ "$rc" = 0 ] && [ "$rs" = 0 ] || { ok=0; why="exit $rc/$rs"; }
	for side in client server; do
		grep -qE "^result: ok|data verified" "$f.$side" || { ok=0; why="$why; no result in $side"; }
	done
	if [ -n "${SERVER_SEEN:-}" ] && ! grep -qE "$SERVER_SEEN" "$f.server"; then
		ok=0
		why="$why; the server printed no '$SERVER_SEEN'"
	fi
	# -D S: the client ran about S seconds (its own clock), and did work.
	if [[ " $* " =~ " -D "([0-9]+) ]]; then
		local d=${BASH_REMATCH[1]} secs its
		secs=$(sed -n 's/.*#iterations \([0-9]*\)  \([0-9.]*\) s.*/\2/p' "$f.client" | head -1)
		its=$(sed -n 's/.*#iterations \([0-9]*\)  \([0-9.]*\) s.*/\1/p' "$f.client" | head -1)
		if [ -z "$secs" ] || [ "${its:-0}" -lt 1 ] ||
		   [ "$(echo "$secs >= $d && $secs < $d + 3" | bc)" != 1 ]; then
			ok=0
			why="$why; -D $d: ran ${secs:-?} s, ${its:-?} iterations"
		fi
	fi
	# RATE_MBS=X: --rate_limit held the client's average to X MB/s (2^20), within 20%.
	if [ -n "${RATE_MBS:-}" ]; then
		local mbs
		mbs=$(sed -n 's/.* s  \([0-9.]*\) MB\/sec.*/\1/p' "$f.client" | head -1)
		if [ -z "$mbs" ] ||
		   [ "$(echo "$mbs >= $RATE_MBS * 0.8 && $mbs <= $RATE_MBS * 1.2" | bc)" != 1 ]; then
			ok=0
			why="$why; --rate_limit: ${mbs:-no} MB/sec, want $RATE_MBS +-20%"
		fi
	fi
	# FRAMES="REGEX=N": exactly N frames of the recording match REGEX (rk-inspect's lines).
	if [ -n "${FRAMES:-}" ]; then
		local got
		got=$("$rk" "$f.pcapng" 2>/dev/null | grep -cE "${FRAMES%=*}")
		[ "$got" = "${FRAMES##*=}" ] ||
			{ ok=0; why="$why; ${got:-no} frames of '${FRAMES%=*}', want ${FRAMES##*=}"; }
	fi
	# UC=1: the data went over UC (opcodes 0x20..0x2b), no ACK came back.
	if [ -n "${UC:-}" ]; then
		local kinds
		kinds=$("$rk" "$f.pcapng" 2>/dev/null | grep -v "DestQP=0x000001 " |
			grep -oE "RoCEv2 (RC|UC|UD)" | sort -u | tr '\n' ' ')
		[ "$kinds" = "RoCEv2 UC " ] || { ok=0; why="$why; transports seen: ${kinds:-none}"; }
	fi
	if [[ " $* " == *" -a "* ]] && ! grep -q "#bytes 8388608  #iterations" "$f.client"; then
		ok=0
		why="$why; no 8 MiB line"
	fi
	# DSCP=N: every RoCE frame (both ends ran with -T) carries that DSCP.
	if [ -n "${DSCP:-}" ] && command -v tshark >/dev/null; then
		local seen
		seen=$(tshark -r "$f.pcapng" -Y "udp.dstport == 4791 && infiniband.bth.destqp != 1" \
			-T fields -e ip.dsfield.dscp \
			2>/dev/null | sort -u | tr '\n' ' ')
		[ "$seen" = "$DSCP " ] || { ok=0; why="$why; DSCP seen: ${seen:-none}"; }
	fi
	local nf
	nf=$("$rk" -j "$f.pcapng" 2>/dev/null | python3 -c \
		'import json,sys; d=json.load(sys.stdin); print(sum(d["findings"].values()))' 2>/dev/null)
	[ "${nf:-x}" = 0 ] || { ok=0; why="$why; rk-inspect findings ${nf:-?}"; }
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		printf 'PASS %-28s %s\n' "$name" "$(grep -hE '^result:|data verified' "$f.client" | head -1)"
	else
		fail=$((fail + 1))
		printf 'FAIL %-28s %s\n' "$name" "$why"
		echo "---- server:"; grep -v '^TELEMETRY' "$f.server" | tail -n 8
		echo "---- client:"; grep -v '^TELEMETRY' "$f.client" | tail -n 8
	fi
}

# The client names a port nobody listens on: the server answers the REQ
# with REJ "invalid service ID", as the Linux CM does, and the client ends
# at once with that reason (not after its 30 s exchange timeout).
no_listener_case() {
	local f sp rc t0 secs
	[[ "rping no-listener" =~ ${RK_SELF_ONLY:-.} ]] || return 0
	n=$((n + 1))
	f="$tmp/$n"
	ip netns exec "${ns}a" timeout -k 5 60 "$rki" $(eal a) -- rping -I 198.18.0.1 \
		>"$f.server" 2>&1 &
	sp=$!
	pids+=("$sp")
	sleep 1.5
	t0=$SECONDS
	ip netns exec "${ns}b" timeout -k 5 60 "$rki" $(eal b) -- rping -p 7999 -C 2 \
		-I 198.18.0.2 198.18.0.1 >"$f.client" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	if [ $rc = 1 ] && grep -q "invalid service ID" "$f.client" && [ $secs -lt 10 ]; then
		pass=$((pass + 1))
		printf 'PASS %-28s %s\n' "rping no-listener" "$(grep -h 'error' "$f.client" | head -1)"
	else
		fail=$((fail + 1))
		printf 'FAIL %-28s exit %s after %s s\n' "rping no-listener" "$rc" "$secs"
		echo "---- client:"; tail -n 5 "$f.client"
	fi
}

# rping -P: one server serves three clients in turn, each on a fresh
# connection, and ends with exit 0 on SIGTERM while it waits for a fourth.
persistent_case() {
	local f sp rc=0 rs i served
	[[ "rping -P, 3 clients" =~ ${RK_SELF_ONLY:-.} ]] || return 0
	n=$((n + 1))
	f="$tmp/$n"
	ip netns exec "${ns}a" timeout -k 5 120 "$rki" $(eal a) -- rping -P -C 5 -I 198.18.0.1 \
		>"$f.server" 2>&1 &
	sp=$!
	pids+=("$sp")
	sleep 1.5
	for i in 1 2 3; do
		ip netns exec "${ns}b" timeout -k 5 60 "$rki" $(eal b) -- rping -C 5 \
			-I 198.18.0.2 198.18.0.1 >>"$f.client" 2>&1 || rc=$?
	done
	sleep 0.5
	# rk-interop itself (timeout's child): timeout would signal it twice.
	kill -TERM "$(pgrep -P "$sp")" 2>/dev/null
	wait "$sp"
	rs=$?
	served=$(grep -c "served 5 pings" "$f.server")
	if [ $rc = 0 ] && [ $rs = 0 ] && [ "$served" = 3 ] &&
	   grep -q "stopped after 3 clients" "$f.server"; then
		pass=$((pass + 1))
		printf 'PASS %-28s %s\n' "rping -P, 3 clients" "$(tail -n 1 "$f.server")"
	else
		fail=$((fail + 1))
		printf 'FAIL %-28s exit %s/%s, %s clients served\n' "rping -P, 3 clients" \
			"$rc" "$rs" "$served"
		echo "---- server:"; tail -n 8 "$f.server"
		echo "---- client:"; tail -n 5 "$f.client"
	fi
}

# forever_case NAME SIDE ARGS...: --run_infinitely at both ends; once SIDE
# (client or server) printed 3 interval lines, SIGINT to it (its PID);
# the other end then sees the exchange close. Both must exit 0 with
# "result: ok", every interval line of SIDE must count work, and the
# recording must give rk-inspect no finding.
forever_case() {
	local name=$1 side=$2 f sp cp rc rs i lines pid ok=1 why=""
	shift 2
	[[ "$name" =~ ${RK_SELF_ONLY:-.} ]] || return 0
	n=$((n + 1))
	f="$tmp/$n"
	ip netns exec "${ns}a" timeout -k 5 120 "$rki" $(eal a) -- "$@" -I 198.18.0.1 \
		>"$f.server" 2>&1 &
	sp=$!
	pids+=("$sp")
	sleep 1.5
	ip netns exec "${ns}b" timeout -k 5 120 "$rki" $(eal b) -- "$@" -I 198.18.0.2 \
		-w "$f.pcapng" 198.18.1.1 >"$f.client" 2>&1 &
	cp=$!
	pids+=("$cp")
	local re='^ [0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$'
	for i in $(seq 1 300); do
		lines=$(grep -cE "$re" "$f.$side")
		[ "$lines" -ge 3 ] && break
		sleep 0.1
	done
	pid=$sp
	[ "$side" = client ] && pid=$cp
	# rk-interop itself, timeout's child.
	kill -INT "$(pgrep -P "$pid")" 2>/dev/null
	wait "$cp"; rc=$?
	wait "$sp"; rs=$?
	[ "$rc" = 0 ] && [ "$rs" = 0 ] || { ok=0; why="exit $rc/$rs"; }
	[ "${lines:-0}" -ge 3 ] || { ok=0; why="$why; $side printed ${lines:-0} interval lines"; }
	# No interval without work (the second column counts it).
	if grep -E "$re" "$f.$side" | awk '$2 == 0 { z = 1 } END { exit !z }'; then
		ok=0
		why="$why; an interval of $side without operations"
	fi
	grep -q "stopped by a signal" "$f.$side" || { ok=0; why="$why; $side: not stopped by the signal"; }
	for s in client server; do
		grep -q "^result: ok" "$f.$s" || { ok=0; why="$why; no result in $s"; }
	done
	local nf
	nf=$("$rk" -j "$f.pcapng" 2>/dev/null | python3 -c \
		'import json,sys; d=json.load(sys.stdin); print(sum(d["findings"].values()))' 2>/dev/null)
	[ "${nf:-x}" = 0 ] || { ok=0; why="$why; rk-inspect findings ${nf:-?}"; }
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		printf 'PASS %-28s %s\n' "$name" "$(grep -h "run_infinitely:" "$f.$side" | cut -c1-70)"
	else
		fail=$((fail + 1))
		printf 'FAIL %-28s %s\n' "$name" "$why"
		echo "---- server:"; grep -v '^TELEMETRY' "$f.server" | tail -n 8
		echo "---- client:"; grep -v '^TELEMETRY' "$f.client" | tail -n 8
	fi
}

# usage_ REGEX ARGS...: bad options: exit 2 with a message matching REGEX.
usage_() {
	local want=$1 out rc
	shift
	n=$((n + 1))
	out=$("$rki" "$@" 2>&1)
	rc=$?
	if [ $rc = 2 ] && grep -qE "$want" <<<"$out"; then
		pass=$((pass + 1))
		printf 'PASS %-28s %s\n' "usage: $*" "${out:0:60}"
	else
		fail=$((fail + 1))
		printf 'FAIL %-28s exit %s: %s\n' "usage: $*" "$rc" "${out:0:200}"
	fi
}
usage_ "^rk-interop: -a \(every size" -a -s 4 -I 198.18.0.1 write_bw
usage_ "^rk-interop: -a \(every size" -a -I 198.18.0.1 atomic_bw
usage_ "^rk-interop: -q \(several QPs\)" -q 2 -R -I 198.18.0.1 write_bw
usage_ "^rk-interop: --qp: expected 1..64" -q 65 -I 198.18.0.1 write_bw
usage_ "^rk-interop: --tos/--tclass: expected" -T 3 -I 198.18.0.1 write_bw
usage_ "^rk-interop: --atomic_type: expected" -A SWAP -I 198.18.0.1 atomic_bw
usage_ "^rk-interop: --outs: expected 1..16" -o 17 -I 198.18.0.1 read_bw
usage_ "^rk-interop: --size \(-s, rping's -S\): expected 1..8388608" -S 0 -I 198.18.0.1 rping
usage_ "^rk-interop: rping: --size \(-S\) 65536: rping's sizes are 32..65535" -S 65536 \
	-I 198.18.0.1 rping
usage_ "^rk-interop: -S is rping's size" -S 3 -I 198.18.0.1 write_bw
usage_ "^rk-interop: two modes" -I 198.18.0.1 write_bw read_bw
usage_ "^rk-interop: --netmask: expected" --netmask foo --transport iwarp -I 198.18.0.1 write_bw
usage_ "^rk-interop: --mpa-rev, --crc" --crc -I 198.18.0.1 write_bw
usage_ "^rk-interop: --p2p: MPA revision 2" --p2p --mpa-rev 1 --transport iwarp \
	-I 198.18.0.1 rping
usage_ "^rk-interop: -A \(--atomic_type\): atomic_bw only" -A CMP_AND_SWAP -I 198.18.0.1 write_bw
usage_ "^rk-interop: -o \(--outs\)" -o 4 -I 198.18.0.1 write_bw
usage_ "^rk-interop: -R: the perftest modes" -R -I 198.18.0.1 rping
usage_ "^rk-interop: -T/--tclass: RoCE frames only" -T 4 --transport iwarp -I 198.18.0.1 write_bw
usage_ "^rk-interop: -P \(persistent server\): the rping server only" -P -I 198.18.0.1 \
	rping 198.18.0.2
usage_ "^rk-interop: -P \(persistent server\): the rping server only" -P -I 198.18.0.1 write_bw
usage_ "^rk-interop: -P \(persistent server\): RoCE only" -P --transport iwarp \
	-I 198.18.0.1 rping
usage_ "^rk-interop: --help for usage" --bogus -I 198.18.0.1 write_bw
usage_ "^rk-interop: -D \(run for a duration" -D 2 -n 5 -I 198.18.0.1 write_bw
usage_ "^rk-interop: -D \(run for a duration" -D 2 -I 198.18.0.1 write_lat
usage_ "^rk-interop: --rate_limit: write_bw, read_bw" --rate_limit 1 -q 2 -I 198.18.0.1 write_bw
usage_ "^rk-interop: --rate_limit: write_bw, read_bw" --rate_limit 1 -I 198.18.0.1 write_lat
usage_ "^rk-interop: --rate_limit_type HW: rk-interop paces in software" --rate_limit 1 \
	--rate_limit_type HW -I 198.18.0.1 write_bw
usage_ "^rk-interop: --rate_units and --rate_limit_type go with" --rate_units M \
	-I 198.18.0.1 write_bw
usage_ "^rk-interop: --duration \(-D\): expected seconds" -D 0.5 -I 198.18.0.1 write_bw
usage_ "^rk-interop: -b \(bidirectional" -b -I 198.18.0.1 atomic_bw
usage_ "^rk-interop: -b \(bidirectional" -b -q 2 -I 198.18.0.1 write_bw
usage_ "^rk-interop: -b with send_bw" -b -D 2 -I 198.18.0.1 send_bw
usage_ "^rk-interop: --run_infinitely \(a result line" --run_infinitely -n 5 -I 198.18.0.1 write_bw
usage_ "^rk-interop: --run_infinitely \(a result line" --run_infinitely -I 198.18.0.1 write_lat
usage_ "^rk-interop: --run_infinitely with -b" --run_infinitely -b -I 198.18.0.1 send_bw
usage_ "^rk-interop: -c UC: write_bw, send_bw" -c UC -I 198.18.0.1 read_bw
usage_ "^rk-interop: -c UD: rk-interop plays perftest's RC and UC" -c UD -I 198.18.0.1 send_bw
usage_ "^rk-interop: -c \(--connection\): expected RC or UC" -c rc -I 198.18.0.1 send_bw

for m in write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat; do
	case_ "$m" tcp "$m" -n 50 -s 4096
done
for m in write_bw read_bw send_bw; do
	case_ "$m -a" tcp "$m" -a -n 3
done
case_ "write_bw -R" rdma write_bw -R -n 50
DSCP=26 case_ "read_bw --tclass 104" tcp read_bw --tclass 104 -n 50
DSCP=26 case_ "write_bw -R -T 104" rdma write_bw -R -T 104 -n 50
case_ "atomic_bw -A CMP_AND_SWAP" tcp atomic_bw -A CMP_AND_SWAP -n 50
SERVER_SEEN="OUT_READS 2$" case_ "read_bw -o 2" tcp read_bw -o 2 -n 50
for m in write_bw read_bw send_bw; do
	case_ "$m -q 4" tcp "$m" -q 4 -n 50
done
for m in write_bw read_bw send_bw atomic_bw; do
	case_ "$m -D 2" tcp "$m" -D 2 -s 4096
done
case_ "send_bw -q 2 -D 2" tcp send_bw -q 2 -D 2 -s 4096
# --perform_warm_up (perftest's): -t 16 WRITEs / FETCH_AND_ADDs before the
# measured 100 / 50; the atomic server expects the 16 in its buffer too.
FRAMES="RDMA WRITE Only=116" case_ "write_bw --perform_warm_up" tcp write_bw -n 100 -s 1024 \
	-m 1024 -t 16 --perform_warm_up
FRAMES="RC FetchAdd =66" case_ "atomic_bw --perform_warm_up" tcp atomic_bw -n 50 -t 16 \
	--perform_warm_up
usage_ "^rk-interop: --perform_warm_up: write_bw, read_bw and atomic_bw" --perform_warm_up \
	-I 198.18.0.1 send_bw
# --rate_limit (perftest's software limiter): 0.2 Gb/s is 23.84 MiB/s; 10 MiB/s of READs.
RATE_MBS=23.84 case_ "write_bw --rate_limit 0.2" tcp write_bw -D 2 -s 65536 --rate_limit 0.2
RATE_MBS=10 case_ "read_bw --rate_limit 10 M" tcp read_bw -D 2 -s 65536 --rate_limit 10 \
	--rate_units M --rate_limit_type SW
# -b: both ends post towards each other; each prints both directions and their sum.
for m in write_bw read_bw send_bw; do
	SERVER_SEEN="peer: 50 iterations .* both ways" case_ "$m -b" tcp "$m" -b -n 50 -s 4096
done
SERVER_SEEN="both ways" case_ "write_bw -b -D 2" tcp write_bw -b -D 2 -s 4096
# --run_infinitely: a line per -D interval until a signal; either end stopped.
for m in write_bw read_bw send_bw; do
	forever_case "$m --run_infinitely" client "$m" --run_infinitely -D 1 -s 4096
done
forever_case "send_bw --run_infinitely, server" server send_bw --run_infinitely -D 1 -s 4096
forever_case "write_bw -b --run_infinitely" client write_bw -b --run_infinitely -D 1 -s 4096
for m in write_bw send_bw write_lat send_lat; do
	UC=1 case_ "$m -c UC" tcp "$m" -c UC -n 50 -s 4096
done
case_ "send_bw -R -a" rdma send_bw -R -a -n 2
case_ "rping -S 65535 -C 5" rdma rping -S 65535 -C 5
case_ "rping -S 32" rdma rping -S 32 -C 5
no_listener_case
persistent_case
for m in write_bw read_bw send_bw; do
	case_ "iwarp $m" rdma "$m" --transport iwarp -n 50
done
case_ "iwarp send_bw -a" rdma send_bw --transport iwarp -a -n 2
case_ "iwarp send_bw -D 2" rdma send_bw --transport iwarp -D 2 -s 4096
# A passive server waits for the last exchange message through the whole
# data phase: longer than --oob-timeout, while the data QP is busy.
SERVER_ARGS="--oob-timeout 5" case_ "write_bw -R -a, 5 s exchange" rdma write_bw -R -a -n 80
SERVER_ARGS="--oob-timeout 5" case_ "iwarp write_bw -a, 5 s exchange" rdma write_bw \
	--transport iwarp -a -n 40
case_ "iwarp rping -S 65535" rdma rping --transport iwarp -S 65535 -C 5

echo "== $pass passed, $fail failed ($n cases)"
[ "$fail" = 0 ]
