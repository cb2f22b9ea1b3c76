# SPDX-License-Identifier: BSD-3-Clause
# Sourced by run.sh (rxe) and siw.sh (siw), after they set $here: the lab
# script, guest commands bounded on our side, and the checks that make a
# suite report skipped (77) with the reason when the lab cannot run here.
peer=${RDMA_PEER:-$here/../../../shared/interop/rdma-peer}

# A guest command, bounded on our side as well: rdma-peer's exec waits
# without limit for a free command port when earlier commands hold them.
pexec() { # SECS GUEST CMD
	local t=$1
	shift
	timeout -k 5 $((t + 45)) "$peer" exec -t "$t" "$@"
}

skip() { echo "SKIP: $*"; exit 77; }

lab_checks() { # RK_INTEROP
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, QEMU)"
	[ -x "$peer" ] || skip "no rdma-peer lab script at $peer (set RDMA_PEER)"
	[ -x "$1" ] || skip "rk-interop not built"
	[ -c /dev/net/tun ] || skip "no /dev/net/tun"
	ip netns list >/dev/null 2>&1 || skip "no network namespace support"
	command -v qemu-system-x86_64 >/dev/null || skip "QEMU is not installed (rdma-peer deps needs apt)"
}
