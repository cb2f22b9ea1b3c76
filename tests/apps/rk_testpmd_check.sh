#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd over net_af_packet on two veth pairs in a namespace the test
# creates (198.18.0.0/15 addresses in the frames, no kernel addresses):
#   tpa0 --veth-- tpa1 (port 0)  rk-testpmd  (port 1) tpb1 --veth-- tpb0
# N RoCEv2 frames are sent on tpa0 and counted on tpb0.
#   io:     a command file sets the engine; every frame arrives, the
#           forward statistics and "show counters" say N.
#   impair: "impair add qp=0x11 drop-every=10": exactly N/10 lost, N-N/10
#           arrive, "impair show" counts them; a rule for another QP
#           matches nothing.
#   rxonly + verbose: every frame decoded on one line in rk-inspect's
#           format (PSN by PSN, ICRC ok), nothing sent on.
#           Port 0's interface goes down meanwhile: "Port 0: link down".
#   errors: a bad command gives one line and the next command still runs.
# usage: rk_testpmd_check.sh RK_TESTPMD TRAFFIC_PY
# Exit 77 (skip) without namespaces.
set -u
tp=$1
traffic=$2
N=1000
ns=rktp$$
tmp=$(mktemp -d /tmp/rk-testpmd.XXXXXX)
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cleanup() {
	[ -n "${tp_pid:-}" ] && kill "$tp_pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM
# A session that died early leaves its FIFO without a reader: say so in
# the checks below rather than die of SIGPIPE on the next command written.
trap '' PIPE

# shellcheck source=../helpers/veth-pair.sh
. "$(dirname "$0")/../helpers/veth-pair.sh"
# shellcheck source=../helpers/wait-line.sh
. "$(dirname "$0")/../helpers/wait-line.sh"
if ! why=$(ns_veths_up "$ns" tpa0:tpa1 tpb0:tpb1); then
	echo "SKIP: $why"
	exit 77
fi

# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:warning -l 0-1 --vdev=net_af_packet0,iface=tpa1 --vdev=net_af_packet1,iface=tpb1"

# session NAME CMDFILE "LATER COMMANDS" : rk-testpmd -i after CMDFILE, the
# prompt fed through a FIFO; N frames sent after "start"; the later
# commands (after "stop") typed when the count is done. Output: $tmp/NAME.out,
# frames counted on tpb0: $tmp/NAME.count
session() {
	local name=$1 file=$2 later=$3 fifo=$tmp/$1.fifo
	mkfifo "$fifo"
	ip netns exec "$ns" timeout 60 "$tp" $EAL -- -i --cmdline-file "$file" \
		<"$fifo" >"$tmp/$name.out" 2>&1 &
	tp_pid=$!
	exec 3>"$fifo"
	echo start >&3
	# The forwarding loop is up once "start" has answered.
	wait_line "$tmp/$name.out" "packet forwarding - ports"
	ip netns exec "$ns" python3 "$traffic" count tpb0 10 >"$tmp/$name.count" &
	local cnt=$!
	sleep 0.5
	ip netns exec "$ns" python3 "$traffic" send tpa0 "${COUNT:-$N}"
	wait "$cnt"
	[ -n "${BEFORE_STOP:-}" ] && eval "$BEFORE_STOP"
	printf '%s\n' stop "$later" quit >&3
	exec 3>&-
	wait "$tp_pid"
	echo "rc=$?" >>"$tmp/$name.out"
	tp_pid=
}

# --- io, set by a command file; bad commands in it do not end it
cat >"$tmp/io.cmd" <<'CMD'
show port info all
set fwd nosuchengine
no such command
help bogus
set mtu abc
set fwd io
CMD
session io "$tmp/io.cmd" "show counters"
got=$(cat "$tmp/io.count")
[ "$got" = "$N" ] && ok "io: $N frames sent, $got arrived" || ko "io: $N sent, ${got:-none} arrived"
grep -q "stream port 0 -> port 1: received $N forwarded $N dropped 0" "$tmp/io.out" &&
	ok "io: forward statistics: received $N forwarded $N" ||
	ko "io: forward statistics: $(grep 'stream port 0' "$tmp/io.out")"
# show counters: port 0 received N frames (and maybe nothing else), port 1 sent N.
python3 - "$tmp/io.out" "$N" <<'PY' && ok "io: show counters port_rcv_packets/port_xmit_packets $N" || ko "io: show counters"
import re, sys
t = open(sys.argv[1]).read().split("show counters", 1)[1]
ports = re.split(r"^port (\d+):", t, flags=re.M)
c = {int(ports[i]): dict(re.findall(r"^\s+(\w+)\s+(\d+)$", ports[i + 1], re.M)) for i in range(1, len(ports), 2)}
n = sys.argv[2]
sys.exit(0 if c[0]["port_rcv_packets"] == n and c[1]["port_xmit_packets"] == n else 1)
PY
# show port info: a port without an address says so (not 0.0.0.0)
grep -qxF "IPv4 address: none (set ip 0 <a.b.c.d>)" "$tmp/io.out" && ! grep -q "^IPv4 address: 0.0.0.0" "$tmp/io.out" &&
	ok "show port info: no address yet is none" || ko "show port info: $(grep '^IPv4 address' "$tmp/io.out")"
# each says what is wrong (not librte_cmdline's bare "Bad arguments")
grep -qxF "bad arguments for 'set fwd': usage: set fwd io|mac|rxonly|impair|gen|rdma|responder: the forwarding engine" "$tmp/io.out" &&
	grep -qxF "unknown command 'no' (help lists the commands)" "$tmp/io.out" &&
	grep -qxF "help: no group 'bogus' (groups: port fwd gen rdma responder)" "$tmp/io.out" &&
	grep -qxF 'Bad port_id "abc": a number, at most 65535 (usage: set vlan|mtu <port_id> <n>)' "$tmp/io.out" &&
	! grep -q "^Bad arguments\|^Command not found\|^Ambiguous" "$tmp/io.out" &&
	grep -q "Set io packet forwarding mode" "$tmp/io.out" &&
	ok "errors: one line each saying what is wrong, the commands after them ran" ||
	ko "errors: $(grep -i "bad\|unknown\|no group\|not found" "$tmp/io.out")"
grep -q "rc=0" "$tmp/io.out" && ok "io: quit, exit 0" || ko "io: $(grep rc= "$tmp/io.out")"

# --- impair: one rule drops every 10th frame of QP 0x11, one never matches
cat >"$tmp/impair.cmd" <<'CMD'
set fwd impair
impair add qp=0x11 drop-every=10
impair add qp=0x999 loss=1
impair add qp=0x11 bogus=1
CMD
session impair "$tmp/impair.cmd" "impair show"
drop=$((N / 10))
got=$(cat "$tmp/impair.count")
[ "$got" = "$((N - drop))" ] && ok "impair: $N sent, $got arrived ($drop dropped)" ||
	ko "impair: $N sent, ${got:-none} arrived, expected $((N - drop))"
grep -q "stream port 0 -> port 1: received $N forwarded $((N - drop)) dropped $drop" "$tmp/impair.out" &&
	ok "impair: forward statistics" || ko "impair: forward statistics: $(grep 'stream port 0' "$tmp/impair.out")"
grep -A1 "^rule 0: qp=0x11-0x11 proto=17 drop-every=10" "$tmp/impair.out" |
	grep -q "matched $N dropped $drop (periodic $drop" &&
	ok "impair show: rule 0 matched $N dropped $drop" || ko "impair show: $(grep -A1 '^rule 0' "$tmp/impair.out")"
grep -A1 "^rule 1:" "$tmp/impair.out" | grep -q "matched 0 dropped 0" &&
	ok "impair show: rule 1 matched nothing" || ko "impair show: rule 1: $(grep -A1 '^rule 1' "$tmp/impair.out")"
grep -q '^Bad rule: unknown key: "bogus"' "$tmp/impair.out" && grep -q "^2 rule(s)" "$tmp/impair.out" &&
	ok "impair add: a bad rule refused in one line, not loaded" || ko "impair add: bad rule"

# --- rxonly, verbose: rk-inspect's line per frame, nothing forwarded
printf 'set fwd rxonly\nset verbose 1\n' >"$tmp/rxonly.cmd"
COUNT=5 session rxonly "$tmp/rxonly.cmd" "show port stats 1"
lines=$(grep -cE "^(rk-testpmd> )?port 0: +[0-9]+ [0-9.]+ 198\.18\.0\.1 > 198\.18\.0\.2 RoCEv2 RC SEND Only DestQP=0x000011 PSN=[0-4] .*ICRC=ok$" "$tmp/rxonly.out")
[ "$lines" = 5 ] && ok "verbose: 5 frames, 5 decoded lines" || ko "verbose: $lines decoded lines of 5"
got=$(cat "$tmp/rxonly.count")
[ "$got" = 0 ] && grep -q "TX-packets: 0 " "$tmp/rxonly.out" && ok "rxonly: nothing sent on" || ko "rxonly: ${got:-?} frames went on"

# --- a link that goes down while forwarding (net_memif: its peer, a
# dpdk-testpmd, connects, then is killed): reported, the session goes on.
# net_af_packet reports no link changes, so memif here.
if command -v dpdk-testpmd >/dev/null; then
	sock=$tmp/m.sock
	mkfifo "$tmp/link.fifo"
	timeout 90 "$tp" $MEM --no-pci --log-level=*:warning -l 0-1 --file-prefix=rktpl$$ \
		--vdev=net_memif0,role=server,socket="$sock",socket-abstract=no -- -i \
		<"$tmp/link.fifo" >"$tmp/link.out" 2>&1 &
	tp_pid=$!
	exec 3>"$tmp/link.fifo"
	echo "start" >&3
	tail -f /dev/null | dpdk-testpmd $MEM --no-pci --log-level=*:critical -l 0-1 --main-lcore 1 --file-prefix=rktpp$$ \
		--vdev=net_memif0,role=client,socket="$sock",socket-abstract=no -- \
		--forward-mode=rxonly --nb-cores=1 --total-num-mbufs=4096 >"$tmp/peer.out" 2>&1 &
	peer=$!
	# up to 30 s each: on a loaded machine the peer's start-up alone took over 10 s
	wait_line "$tmp/link.out" "^Port 0: link up" 30
	# the pipeline's last process is dpdk-testpmd
	kill "$peer"
	wait_line "$tmp/link.out" "^Port 0: link down" 30
	printf 'stop\nshow port info 0\nquit\n' >&3
	exec 3>&-
	wait "$tp_pid"
	echo "rc=$?" >>"$tmp/link.out"
	tp_pid=
	grep -q "^Port 0: link up" "$tmp/link.out" && grep -q "^Port 0: link down" "$tmp/link.out" &&
		grep -q "^Link status: down" "$tmp/link.out" && grep -q "rc=0" "$tmp/link.out" &&
		ok "memif peer gone while forwarding: link down reported, quit exits 0" ||
		ko "link down: $(grep -i link "$tmp/link.out" | tr '\n' ' ')"
else
	echo "skip link down: no dpdk-testpmd"
fi

# --- command files: a line too long for the prompt's buffer is skipped whole
# (it used to run as pieces: "xport stop all" and then the rest), a tab is
# a space, an output file that cannot be written says why, a directory is
# no command file.
NULLS="$MEM --no-pci --log-level=*:warning -l 0 --file-prefix=rktpn$$ --vdev=net_null0 --vdev=net_null1"
python3 -c "print('show counters ' + 'x' * 4086 + 'port stop all'); print('show\tport info 0')
print('pcap start 0 $tmp/no/such/dir.pcap'); print('pcap stop 0'); print('quit')" >"$tmp/long.cmd"
timeout 60 "$tp" $NULLS -- --cmdline-file "$tmp/long.cmd" >"$tmp/long.out" 2>&1
grep -q "line 1: 4113 characters, at most 500: skipped" "$tmp/long.out" &&
	! grep -q "stopped" "$tmp/long.out" && grep -q "^MTU: " "$tmp/long.out" &&
	grep -q "cannot record to .*: No such file or directory" "$tmp/long.out" &&
	grep -q "Port 0: not recording" "$tmp/long.out" &&
	ok "command file: a long line skipped whole, tab as space, pcap errors say why" ||
	ko "command file: $(grep -v TELEMETRY "$tmp/long.out" | head -12 | tr '\n' '|')"
timeout 60 "$tp" $NULLS -- --cmdline-file "$tmp" >"$tmp/dir.out" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q "cannot read command file $tmp: Is a directory" "$tmp/dir.out" &&
	ok "command file: a directory refused (exit $rc)" ||
	ko "command file: a directory: exit $rc: $(grep -v TELEMETRY "$tmp/dir.out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { for f in "$tmp"/*.out; do echo "== $f"; cat "$f"; done; exit 1; }
