#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd -i in a real terminal (tmux, over two net_null ports): Tab
# completes a partial command, a double Tab lists the choices with their
# help line, "help" lists every command, a bad command gives one line
# naming it with its usage and the prompt comes back, Ctrl-C during "start" stops forwarding and the app
# lives on ("stop", "quit" still work, exit 0).
# usage: rk_testpmd_tmux.sh RK_TESTPMD
set -u
tp=$1
if ! command -v tmux >/dev/null; then
	echo "SKIP: no tmux (tools/setup-debian.sh installs it)"
	exit 77
fi
S=rktp$$
tmp=$(mktemp -d /tmp/rk-testpmd-tmux.XXXXXX)
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cleanup() {
	tmux kill-session -t "$S" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM
# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
EAL="$MEM --no-pci --log-level=*:warning -l 0-1 --vdev=net_null0 --vdev=net_null1"

screen() { tmux capture-pane -p -J -S -200 -t "$S"; }
# wait_for TEXT: up to 10 s for TEXT on the screen
wait_for() {
	for _ in $(seq 100); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# the last non-empty line of the screen
last_line() { screen | grep -v '^$' | tail -1; }

tmux new-session -d -s "$S" -x 200 -y 50 \
	"$tp $EAL -- -i; echo \"EXITED rc=\$?\"; sleep 60"
wait_for "rk-testpmd> " && ok "prompt shown" || { ko "no prompt: $(screen)"; exit 1; }

# Tab completes a unique prefix, word by word.
tmux send-keys -t "$S" "show po" Tab
sleep 0.3
tmux send-keys -t "$S" "inf" Tab
sleep 0.3
[ "$(last_line)" = "rk-testpmd> show port info " ] && ok "Tab: show po<Tab>inf<Tab> -> show port info" ||
	ko "Tab completion: '$(last_line)'"
tmux send-keys -t "$S" "0" Enter
wait_for "Driver name: net_null" && ok "the completed command ran" || ko "show port info 0: $(screen | tail -5)"

# Double Tab on an ambiguous word: the choices, each with its help line.
tmux send-keys -t "$S" "set fwd " Tab Tab
wait_for "gen [Mul-choice STRING]: set fwd io|mac|rxonly|impair|gen|rdma|responder: the forwarding engine" &&
	ok "Tab Tab: engines listed with the help line" || ko "Tab Tab: $(screen | tail -6)"
tmux send-keys -t "$S" C-a C-k "help" Enter
wait_for "impair add <key=value ...>: a rule" && ok "help: command help lines" || ko "help: $(screen | tail -4)"

# A bad command: one line of error, then the prompt again.
tmux send-keys -t "$S" "port frobnicate 0" Enter
sleep 0.5
screen | grep -v '^$' | tail -3 >"$tmp/bad"
if grep -qx "rk-testpmd> port frobnicate 0" "$tmp/bad" &&
	grep -qxF "bad arguments for 'port': usage: port start|stop <port_id>|all: start or stop ports" "$tmp/bad" &&
	[ "$(last_line)" = "rk-testpmd> " ]; then
	ok "bad command: one error line, prompt back"
else
	ko "bad command: $(cat "$tmp/bad")"
fi

# Ctrl-C during start: forwarding stops, the app answers the next commands.
tmux send-keys -t "$S" "start" Enter
wait_for "io packet forwarding - ports=2" || ko "start: $(screen | tail -3)"
sleep 1
tmux send-keys -t "$S" C-c
wait_for "Forwarding stopped by a signal" && ok "Ctrl-C: forwarding stopped" || ko "Ctrl-C: $(screen | tail -4)"
tmux send-keys -t "$S" "stop" Enter
wait_for "stream port 0 -> port 1: received" && ok "after Ctrl-C: stop prints the statistics" ||
	ko "after Ctrl-C: $(screen | tail -6)"
n=$(screen | sed -n 's/.*stream port 0 -> port 1: received \([0-9]*\) .*/\1/p' | tail -1)
[ "${n:-0}" -gt 0 ] && ok "forwarded $n frames before Ctrl-C" || ko "nothing forwarded"
tmux send-keys -t "$S" "quit" Enter
wait_for "EXITED rc=0" && ok "quit: exit 0" || ko "quit: $(screen | tail -3)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || { screen; exit 1; }
