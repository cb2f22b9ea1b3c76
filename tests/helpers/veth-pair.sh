# SPDX-License-Identifier: BSD-3-Clause
# Two network namespaces NSa and NSb joined by two veth pairs, sourced by
# the tests that run two DPDK endpoints over net_af_packet:
#   rkva/rkvb  RDMA: no kernel addresses (the DPDK ends answer ARP), MTU 9000
#   rkoa/rkob  the TCP exchange: 198.18.1.1/24 (NSa), 198.18.1.2/24 (NSb)
# IPv6 is off in both, so no neighbour discovery or router solicitation
# shows up in the recordings. One endpoint per namespace also keeps
# net_af_packet's PACKET_FANOUT group ids (per namespace, derived from
# the PID) from colliding.
#
# veth_pair_up NS: 0, or 1 with the reason on stdout when no namespace
# can be made here (the caller skips). The caller deletes NSa and NSb.
veth_pair_up() {
	local ns=$1 n err
	if ! err=$(ip netns add "${ns}a" 2>&1); then
		echo "cannot create a network namespace: $err"
		return 1
	fi
	ip netns add "${ns}b"
	for n in "${ns}a" "${ns}b"; do
		ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	ip link add rkva netns "${ns}a" type veth peer name rkvb netns "${ns}b"
	ip link add rkoa netns "${ns}a" type veth peer name rkob netns "${ns}b"
	ip -n "${ns}a" link set rkva mtu 9000 up
	ip -n "${ns}b" link set rkvb mtu 9000 up
	ip -n "${ns}a" addr add 198.18.1.1/24 dev rkoa
	ip -n "${ns}b" addr add 198.18.1.2/24 dev rkob
	ip -n "${ns}a" link set rkoa up
	ip -n "${ns}b" link set rkob up
}

# ns_up NS: the namespace NS, lo up, IPv6 off. 0, or 1 with the reason
# on stdout when no namespace can be made here.
ns_up() {
	local err
	if ! err=$(ip netns add "$1" 2>&1); then
		echo "cannot create a network namespace: $err"
		return 1
	fi
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
}

# ns_veths_up NS A0:A1 [B0:B1 ...]: one namespace NS with a veth pair per
# argument, all up, IPv6 off, no addresses (the DPDK programs on them
# answer ARP themselves). 0, or 1 with the reason on stdout when no
# namespace can be made here (the caller skips). The caller deletes NS.
ns_veths_up() {
	local ns=$1 p
	shift
	ns_up "$ns" || return 1
	for p in "$@"; do
		ip -n "$ns" link add "${p%%:*}" type veth peer name "${p##*:}"
		ip -n "$ns" link set "${p%%:*}" up
		ip -n "$ns" link set "${p##*:}" up
	done
}

# bridge_ns_up NS BR PFX PEER END...: one namespace NS (lo up, IPv6 off)
# with a Linux bridge BR and, per END, a veth pair PFX<END> (for a DPDK
# net_af_packet port) / PEER<END> (enslaved to BR), all MTU 9000 and up.
# DPDK 22.11's af_packet joins a PACKET_FANOUT group numbered
# (pid ^ ifindex) & 0xffff, one set of numbers per namespace: two
# processes whose numbers met failed "could not set PACKET_FANOUT"
# (EINVAL), 1 run in 5. Ports numbered 4096 apart keep apart the numbers
# of processes started a few PIDs from each other. 0, or 1 with the
# reason on stdout when no namespace can be made here (the caller skips).
# The caller deletes NS.
bridge_ns_up() {
	local ns=$1 br=$2 pfx=$3 peer=$4 e idx=4096
	shift 4
	ns_up "$ns" || return 1
	ip -n "$ns" link add "$br" type bridge
	ip -n "$ns" link set "$br" mtu 9000 up
	for e in "$@"; do
		ip -n "$ns" link add "$pfx$e" index $idx type veth peer name "$peer$e"
		idx=$((idx + 4096))
		ip -n "$ns" link set "$peer$e" master "$br"
		ip -n "$ns" link set "$pfx$e" mtu 9000 up
		ip -n "$ns" link set "$peer$e" mtu 9000 up
	done
}
