#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's errors over net_null, from a command file: a bad MAC,
# IPv4 address or number says which value is wrong and its form; "help
# port bogus" names the topic it does not know; "responder start ud" and
# a word before the numbers say what is wrong, not "Bad port"; without
# -i, a command that failed fails the run: a last line counts them, exit
# 1; a file whose commands all ran exits 0; with -i the exit is 0 as
# before. "help qp" lists the commands beginning with qp; a perftest -R
# server that is no IPv4 address is said first. A --cmdline-file that
# cannot be read is exit 2 before the EAL; a --portmask that takes no
# port says so.
# usage: rk_testpmd_errors_check.sh RK_TESTPMD
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
# run NAME [OPTIONS]: rk-testpmd on $tmp/NAME.cmd, output in $tmp/NAME.out, exit in $rc
run() {
	name=$1
	shift
	# shellcheck disable=SC2086
	timeout -k 5 60 "$tp" $MEM --no-pci --log-level='*:warning' -l 0 --file-prefix rkte$$ \
		--vdev=net_null0 -- "$@" --cmdline-file "$tmp/$name.cmd" </dev/null \
		>"$tmp/$name.out" 2>&1
	rc=$?
}
# want NAME LINE WHAT: LINE is a whole line of NAME's output
want() {
	grep -Fxq -- "$2" "$tmp/$1.out" && ok "$3" || ko "$3: no line \"$2\""
}

# 14 commands, a comment and a blank line; 10 of them fail
cat >"$tmp/bad.cmd" <<'CMD'
# errors, each one line
set eth-peer 0 zz
set eth-peer 0 00:11:22:33:44:55
set ip 0 1.2.3
set ip 0 198.18.0.1
set eth-peer x 00:11:22:33:44:55
set eth-peer 0 ff:ff:ff:ff:ff:ff
set eth-peer 0 01:00:5e:00:00:01
set ip 0 0.0.0.0
set ip 0 224.0.0.1

set mtu 0 abc
help port bogus
help bogus
help port
responder start ud
responder start ud 0
responder start 0 ud 18515
no such command
help qp
qp connect 0 perftest ::1 0 write rdma_cm
qp connect 0 perftest host.example 0 write rdma_cm
quit
CMD
run bad
want bad 'Bad MAC address "zz": not of the form aa:bb:cc:dd:ee:ff (usage: set eth-peer <port_id> <mac>)' \
	"set eth-peer 0 zz: not a MAC address"
want bad "Port 0: peer MAC 00:11:22:33:44:55" "set eth-peer: a good MAC is taken"
want bad 'Bad IPv4 address "1.2.3": not of the form a.b.c.d (usage: set ip <port_id> <a.b.c.d>)' \
	"set ip 0 1.2.3: not an IPv4 address"
want bad 'Bad port_id "x": a number, at most 65535 (usage: set eth-peer <port_id> <mac>)' \
	"set eth-peer x: the port is no number"
want bad 'Bad number "abc": a number, at most 65535 (usage: set vlan|mtu <port_id> <n>)' \
	"set mtu 0 abc: no number"
want bad "help: no topic 'port bogus' (help takes one group: port fwd gen rdma responder)" \
	"help port bogus: no such topic, the groups listed"
want bad "help: no group 'bogus' (groups: port fwd gen rdma responder)" "help bogus: no such group"
want bad 'Missing port before "ud": responder start <port> [<tcp-port> [<size>]] [rdma_cm] [uc|ud]' \
	"responder start ud: the port is missing"
want bad 'Bad "ud" before "0": rdma_cm, uc and ud come last: responder start <port> [<tcp-port> [<size>]] [rdma_cm] [uc|ud]' \
	"responder start ud 0: ud comes last"
want bad 'Bad "ud" before "18515": rdma_cm, uc and ud come last: responder start <port> [<tcp-port> [<size>]] [rdma_cm] [uc|ud]' \
	"responder start 0 ud 18515: ud comes last"
grep -q '^Bad port "ud"\|^Bad TCP port "ud"' "$tmp/bad.out" &&
	ko "responder start: ud taken for a number" || ok "responder start: ud not taken for a number"
want bad 'Bad peer MAC FF:FF:FF:FF:FF:FF: a group (multicast or broadcast) address; give the host'"'"'s or its gateway'"'"'s (usage: set eth-peer <port_id> <mac>)' \
	"set eth-peer broadcast: refused"
want bad 'Bad peer MAC 01:00:5E:00:00:01: a group (multicast or broadcast) address; give the host'"'"'s or its gateway'"'"'s (usage: set eth-peer <port_id> <mac>)' \
	"set eth-peer multicast: refused"
want bad 'Bad IPv4 address 0.0.0.0 for a port: not a unicast address (usage: set ip <port_id> <a.b.c.d>)' \
	"set ip 0.0.0.0: refused"
want bad 'Bad IPv4 address 224.0.0.1 for a port: not a unicast address (usage: set ip <port_id> <a.b.c.d>)' \
	"set ip 224.0.0.1: refused"
want bad "Commands of port:" "help port still lists the port commands"
want bad "Commands beginning with qp:" "help qp: the commands that begin with qp"
grep -q "^  qp connect <qp> <peer-qp>" "$tmp/bad.out" && ok "help qp lists qp connect" ||
	ko "help qp: no qp connect line"
want bad 'Bad perftest -R server "::1": an IPv4 address' \
	"qp connect ... ::1 ... rdma_cm: the address named whole, before the QP or MAC checks"
want bad 'Bad perftest -R server "host.example": an IPv4 address' \
	"qp connect ... host.example ... rdma_cm: an IPv4 address asked first"
last=$(grep -v TELEMETRY "$tmp/bad.out" | tail -n 1)
[ "$rc" = 1 ] && [ "$last" = "16 of 21 commands failed" ] &&
	ok "without -i: exit 1 after \"$last\"" || ko "without -i: exit $rc, last line \"$last\""

printf 'set ip 0 198.18.0.1\n# fine\nshow port info 0\nquit\n' >"$tmp/good.cmd"
run good
[ "$rc" = 0 ] && ! grep -q "commands failed" "$tmp/good.out" &&
	ok "without -i, no command failed: exit 0" || ko "good commands: exit $rc"

run bad -i
[ "$rc" = 0 ] && ! grep -q "commands failed" "$tmp/bad.out" &&
	ok "with -i: exit 0 as before" || ko "with -i: exit $rc"

# Start-up errors said before the EAL or in terms of the options given.
"$tp" --no-pci -- --cmdline-file "$tmp/none.cmd" >"$tmp/nofile.out" 2>&1
rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/nofile.out")" = "rk-testpmd: cannot read command file $tmp/none.cmd: No such file or directory" ] &&
	ok "--cmdline-file missing: one line, exit 2" || ko "--cmdline-file missing: exit $rc: $(cat "$tmp/nofile.out")"
# its file not given: one line, before the EAL
"$tp" --no-pci -- --cmdline-file >"$tmp/noarg.out" 2>&1
rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/noarg.out")" = "rk-testpmd: option --cmdline-file needs an argument" ] &&
	ok "--cmdline-file without its file: one line, exit 2" ||
	ko "--cmdline-file without its file: exit $rc: $(cat "$tmp/noarg.out")"
"$tp" --no-pci -- --cmdline-file "$tmp" >"$tmp/dir.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "^rk-testpmd: cannot read command file $tmp: Is a directory$" "$tmp/dir.out" &&
	ok "--cmdline-file a directory: exit 2" || ko "--cmdline-file a directory: exit $rc"
# shellcheck disable=SC2086
timeout -k 5 60 "$tp" $MEM --no-pci --log-level='*:error' -l 0 --file-prefix rkte$$ \
	--vdev=net_null0 -- --portmask 0x2 </dev/null >"$tmp/mask.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "^rk-testpmd: --portmask 0x2 takes none of the 1 ports$" "$tmp/mask.out" &&
	ok "--portmask past the ports: said so" || ko "--portmask 0x2: exit $rc: $(grep -v TELEMETRY "$tmp/mask.out" | tail -n 1)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { cat "$tmp"/*.out; exit 1; }
