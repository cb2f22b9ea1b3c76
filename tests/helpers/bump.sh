# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's impair engine as a bump in the wire between two veths of
# a namespace, driven through a fifo on fd 3; sourced by the tests that
# put it between two endpoints. Needs $MEM (dpdk-mem.sh) and $tmp.
#
# bump_start RK_TESTPMD NS IFACE0 IFACE1 CMDFILE TIMEOUT: rk-testpmd on
# net_af_packet ports IFACE0 (port 0) and IFACE1 (port 1) in NS, CMDFILE
# run first ("set fwd impair", the rules), then "start"; returns once it
# forwards. Its output in $tmp/tp.out, its PID in $tp_pid.
bump_start() {
	mkfifo "$tmp/tp.fifo"
	# shellcheck disable=SC2086
	ip netns exec "$2" timeout "$6" "$1" $MEM --no-pci --log-level='*:warning' -l 0-1 \
		--file-prefix="rkb$$" --vdev=net_af_packet0,iface="$3" --vdev=net_af_packet1,iface="$4" \
		-- -i --cmdline-file "$5" <"$tmp/tp.fifo" >"$tmp/tp.out" 2>&1 &
	tp_pid=$!
	exec 3>"$tmp/tp.fifo"
	echo start >&3
	for _ in $(seq 100); do
		grep -q "packet forwarding - ports" "$tmp/tp.out" && break
		sleep 0.1
	done
}

# bump_stop: "stop", "impair show" (the rules' counters and the reaction
# report into $tmp/tp.out), "quit"; waits for rk-testpmd to end.
bump_stop() {
	printf 'stop\nimpair show\nquit\n' >&3
	exec 3>&-
	wait "$tp_pid"
	tp_pid=
}
