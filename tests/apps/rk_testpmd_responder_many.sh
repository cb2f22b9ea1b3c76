#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's responder engine serving three perftest clients at once (as
# rk-interop plays them): rk-testpmd and three rk-interop processes, each
# on its own net_af_packet port, all ports on one Linux bridge in a
# network namespace the test makes; the TCP exchange over the namespace's
# loopback, or with rdma_cm perftest -R's RDMA-CM over QP1. The clients
# (write_bw, read_bw, send_bw for 20 s each, from 198.18.0.11, .12, .13)
# start 0.3 s apart (a loaded machine may take seconds to start each). All three must be connected at the same time ("show
# responder" then says "serving 3 client(s)", and every client's line
# "perftest ..., QPN" comes before the first "result:"), each client must
# exit 0 with its "result: ok" (READ data checked), and the responder's
# line for each must name the tool that client ran with "result: ok".
# Then, after "set responder clients 2", a third client while two are
# served is refused (the exchange closed; with rdma_cm a REJ "no
# resources available") and the two go on. Then (TCP exchange only; with
# rdma_cm refused) UC clients: write_bw and send_bw -c UC at once.
# The clients' ACK timeout is 1 s (-u 18): four busy-polling processes
# share two cores, and one descheduled long enough must not fail the test.
# Each client sends at most 100 Mb/s: unpaced, write_bw alone fills the
# responder's af_packet ring, which then drops the other clients' frames
# (a lossy fabric with no PFC; a READ dropped 8 times fails its client).
# usage: rk_testpmd_responder_many.sh RK_TESTPMD RK_INTEROP [rdma_cm]
# Exit 77 (skip) where no namespace can be made.
set -u
tp=$1
rki=$2
cm=${3:-}
tmp=$(mktemp -d)
ns=rkrm$$
pids=""
tpid=""
cleanup() {
	for p in $pids $tpid; do kill "$p" 2>/dev/null; done
	exec 3>&- 2>/dev/null
	ip netns del $ns 2>/dev/null
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
if ! why=$(bridge_ns_up $ns rkmsw rkm rkn r c1 c2 c3); then
	echo "SKIP: $why"
	exit 77
fi
TCP=$((20000 + $$ % 20000))
if [ -n "$cm" ]; then
	server=198.18.0.1       # the responder's device
	copts=-R
else
	server=127.0.0.1        # the exchange over the namespace's loopback
	copts=
fi

cat >"$tmp/resp.cmd" <<CMD
set responder clients 17
set responder clients x
show responder
set fwd responder
responder start 0 $TCP 65536 $cm
start
CMD
mkfifo "$tmp/in"
exec 3<>"$tmp/in"
# shellcheck disable=SC2086
ip netns exec $ns timeout -k 5 170 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 \
	--file-prefix rkrmr$$ --vdev=net_af_packet0,iface=rkmr \
	-- -i --cmdline-file "$tmp/resp.cmd" <"$tmp/in" >"$tmp/tp.out" 2>&1 &
tpid=$!
wait_line "$tmp/tp.out" "^responder packet forwarding"

# rk-testpmd's output without its prompt (-i: lines may start with it)
out() { sed 's/^\(rk-testpmd> \)*//' "$tmp/tp.out"; }

for v in 17 x; do
	out | grep -qx "Bad number of clients \"$v\": 1..16" &&
		ok "set responder clients $v: refused in one line" || ko "set responder clients $v: not refused"
done
out | grep -qx "Responder: not running (at most 16 client(s) at once when started)" &&
	ok "show responder before start: the limit" || ko "show responder before start: $(out | grep -m1 '^Responder: not')"

tools=(write_bw read_bw send_bw)
sizes=(65536 16384 4096)
# start_client K NAME SECS: client K (port rkmcK, address 198.18.0.1K) runs
# tool K for SECS seconds in the background; its output in $tmp/NAME.
start_client() {
	local k=$1
	# shellcheck disable=SC2086
	ip netns exec $ns timeout -k 5 90 "$rki" $MEM --no-pci --log-level='*:warning' -l 0 \
		--file-prefix rkrmc$k$$ --vdev=net_af_packet0,iface=rkmc$k \
		-- "${tools[k - 1]}" -D "$3" -s "${sizes[k - 1]}" -u 18 --rate_limit 0.1 $copts -I 198.18.0.1$k \
		-p $TCP $server >"$tmp/$2" 2>&1 &
	pids="$pids $!"
}
# connected N: wait until N clients' "perftest ..., QPN" lines are out
connected() {
	for _ in $(seq 1 300); do
		[ "$(out | grep -c '^responder: client [0-9]* (.*): perftest .*QPN')" -ge "$1" ] && return
		sleep 0.1
	done
}
# wait_clients: wait for every client started; their exit codes in rcs[1..]
wait_clients() {
	local p k=0
	rcs=()
	for p in $pids; do
		k=$((k + 1))
		wait "$p"
		rcs[k]=$?
	done
	pids=""
}
# await PATTERN: up to 5 s for a line of rk-testpmd's output to match PATTERN
await() {
	for _ in $(seq 1 50); do
		out | grep -q "$1" && return
		sleep 0.1
	done
}
for k in 1 2 3; do
	start_client $k c$k 20
	sleep 0.3
done

# all three connected: then the responder serves three at once
connected 3
echo "show responder" >&3
await "^Responder: port 0, .*serving"
line=$(out | grep "^Responder: port 0, ")
if grep -q "serving 3 client(s)" <<<"$line"; then
	ok "three clients served at once: \"${line#*bytes, }\""
else
	ko "three clients at once: \"${line:-no line}\""
fi

wait_clients
for k in 1 2 3; do
	if [ "${rcs[k]}" = 0 ] && grep -q "^result: ok" "$tmp/c$k"; then
		ok "client $k (${tools[k - 1]}): exit 0, $(grep '^result:' "$tmp/c$k")"
	else
		ko "client $k (${tools[k - 1]}): exit ${rcs[k]}: $(tail -n 2 "$tmp/c$k" | tr '\n' ' ')"
	fi
done
grep -q "^result: ok (READ data checked)" "$tmp/c2" && ok "read_bw: READ data checked" ||
	ko "read_bw: $(grep result "$tmp/c2")"

for _ in $(seq 1 50); do
	[ "$(out | grep -c '^responder: client .*result:')" -ge 3 ] && break
	sleep 0.1
done
# connected lines before the first verdict: they overlapped
first_result=$(out | grep -n "^responder: client .*result:" | head -1 | cut -d: -f1)
last_connect=$(out | grep -n "^responder: client .*: perftest .*QPN" | sed -n 3p | cut -d: -f1)
if [ -n "$first_result" ] && [ -n "$last_connect" ] && [ "$last_connect" -lt "$first_result" ]; then
	ok "the three clients connected before the first one ended"
else
	ko "not concurrent: third connect at line ${last_connect:-none}, first result at ${first_result:-none}"
fi
for k in 1 2 3; do
	line=$(out | grep "^responder: client [0-9]* (198.18.0.1$k\|^responder: client [0-9]* (127.0.0.1" |
		grep "result:" | grep "${tools[k - 1]}, ${sizes[k - 1]} bytes")
	if grep -q "result: ok" <<<"$line"; then
		ok "the responder's verdict on ${tools[k - 1]}: ${line#*result: }"
	else
		ko "the responder's verdict on ${tools[k - 1]}: \"${line:-no line}\""
	fi
done

# At most two at once: the third client to come is refused, the two go on.
echo "set responder clients 2" >&3
start_client 1 d1 12
start_client 2 d2 12
connected 5
start_client 3 d3 4
wait_clients
for k in 1 2; do
	[ "${rcs[k]}" = 0 ] && grep -q "^result: ok" "$tmp/d$k" &&
		ok "at most 2: client $k served ($(grep '^result:' "$tmp/d$k"))" ||
		ko "at most 2: client $k: exit ${rcs[k]}: $(tail -n 1 "$tmp/d$k")"
done
if [ -n "$cm" ]; then
	want="no resources available"
else
	want="closed|reset|exchange"
fi
[ "${rcs[3]}" != 0 ] && grep -qiE "$want" "$tmp/d3" &&
	ok "at most 2: the third refused: $(grep -iE "$want" "$tmp/d3" | head -1)" ||
	ko "at most 2: the third: exit ${rcs[3]}: $(tail -n 1 "$tmp/d3")"
out | grep -q "^responder: a client from \(127.0.0.1\|198.18.0.13\) refused: 2 client(s) being served, the most at once" &&
	ok "the responder says why it refused" ||
	ko "no refusal line: $(out | grep refused | head -1)"

echo "show responder" >&3
# UC clients (perftest -c UC): write_bw and send_bw at once, TCP exchange only.
if [ -n "$cm" ]; then
	echo "responder start 0 $((TCP + 1)) 65536 rdma_cm uc" >&3
	await '^Bad "uc" with "rdma_cm"'
	out | grep -q '^Bad "uc" with "rdma_cm": UC clients over perftest.s TCP exchange only$' &&
		ok "uc with rdma_cm: refused in one line" || ko "uc with rdma_cm: not refused"
else
	printf "responder stop\nset responder clients 16\nresponder start 0 %s 65536 uc\n" \
		$((TCP + 1)) >&3
	await "^Responder on port 0 .*port $((TCP + 1)), UC QPs"
	TCP=$((TCP + 1)) copts="-c UC" start_client 1 u1 3
	TCP=$((TCP + 1)) copts="-c UC" start_client 3 u3 3
	wait_clients
	for f in u1:1 u3:2; do
		[ "${rcs[${f#*:}]}" = 0 ] && grep -q "^result: ok" "$tmp/${f%:*}" &&
			ok "UC client ${f%:*}: $(grep '^result:' "$tmp/${f%:*}")" ||
			ko "UC client ${f%:*}: exit ${rcs[${f#*:}]}: $(tail -n 1 "$tmp/${f%:*}")"
	done
	for t in "write_bw, 65536 bytes, .*result: ok (.* WRITE packets placed)" \
		 "send_bw, 4096 bytes, .*result: ok (.* receives, each 4096 bytes)"; do
		# the lines after the UC responder's start (its clients are numbered from 1)
		for _ in $(seq 1 50); do
			out | sed -n '/, UC QPs, messages/,$p' | grep -q "^responder: client .*$t" && break
			sleep 0.1
		done
		out | sed -n '/, UC QPs, messages/,$p' | grep -q "^responder: client .*$t" &&
			ok "UC: the responder's verdict: ${t%%,*} ok" ||
			ko "UC: no \"$t\": $(out | grep '^responder: client' | tail -n 2 | tr '\n' ' ')"
	done
fi
printf "show rdma 0\nshow port stats 0\nquit\n" >&3
wait "$tpid"
rc=$?
tpid=""
[ "$rc" = 0 ] && ok "rk-testpmd exits 0" || ko "rk-testpmd: exit $rc"
out | grep -q "^  refused: 1 " && ok "show responder: refused 1" ||
	ko "show responder: $(out | grep '^  refused' || echo 'no refused line')"
all=$([ -n "$cm" ] && echo 5 || echo 7)
out | grep -q "^Responder stopped after $all client(s)" && ok "$all clients in all" ||
	ko "$(grep 'Responder stopped' "$tmp/tp.out" || echo 'no stop line')"
echo "$pass passed, $fail failed"
if [ "$fail" -ne 0 ]; then
	echo "---- rk-testpmd:"
	grep -v "^TELEMETRY" "$tmp/tp.out" | tail -n 40
	for f in c1 c2 c3 d1 d2 d3; do echo "---- client $f:"; tail -n 5 "$tmp/$f"; done
	exit 1
fi
