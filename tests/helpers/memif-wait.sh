# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests that join two DPDK processes with net_memif.
# memif_wait SOCKET PID: wait (up to 30 s) until the server-role process
# PID listens on its memif socket (abstract, memif's default name space),
# so that a client started next finds its peer; returns early when PID
# ends. A loaded machine starts DPDK slowly.
memif_wait() {
	for _ in $(seq 300); do
		grep -qF "@$1" /proc/net/unix && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
