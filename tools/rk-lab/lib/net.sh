# SPDX-License-Identifier: BSD-3-Clause
# rk-lab's network: one namespace it creates, acting as a plain layer-2
# switch. Bridge rkbr0 joins guest1, guest2 and host port dpdk0; in the
# split topology guest2 and host port dpdk1 sit on bridge rkbr1, so the
# guests reach each other only through a program forwarding between the
# two host ports. Nothing is attached to a host interface.

# The namespace's own IP stack takes no part: no address, no IPv6, and a
# guard table drops whatever its kernel would receive or send (so it never
# answers ARP, or UDP 4791 with port unreachable). Packet sockets, as
# tcpdump and DPDK's net_af_packet use, see every frame regardless.
net_guard() {
	in_ns nft -f - <<'NFT'
table inet rklab_guard
delete table inet rklab_guard
table inet rklab_guard {
	chain in { type filter hook input priority 0; policy drop; }
	chain out { type filter hook output priority 0; policy drop; }
}
NFT
}

net_bridge() { # INDEX MTU
	local br
	br=$(bridge_name "$1")
	in_ns ip link show "$br" >/dev/null 2>&1 ||
		in_ns ip link add "$br" type bridge stp_state 0 forward_delay 0 mcast_snooping 0
	in_ns ip link set "$br" mtu "$2" up
}

# Host port N: a veth pair, dpdkN-1 free for a DPDK program, its peer on
# bridge BRIDGE-INDEX.
net_port() { # N BRIDGE-INDEX MTU
	local name
	name=$(port_name "$1")
	in_ns ip link show "$name" >/dev/null 2>&1 ||
		in_ns ip link add "$name" address "$(port_mac "$1")" mtu "$3" type veth \
			peer name "$name-sw" mtu "$3"
	in_ns ip link set "$name-sw" master "$(bridge_name "$2")" mtu "$3" up
	in_ns ip link set "$name" mtu "$3" up
}

net_tap() { # GUEST BRIDGE-INDEX MTU
	in_ns ip link show "tap$1" >/dev/null 2>&1 || in_ns ip tuntap add dev "tap$1" mode tap
	in_ns ip link set "tap$1" master "$(bridge_name "$2")" mtu "$3" up
}

net_up() { # GUESTS MTU PORTS(0|1) SPLIT(0|1)
	local guests=$1 mtu=$2 ports=$3 split=$4 g
	ns_exists || ip netns add "$RK_LAB_NS" || unavailable "cannot create namespace $RK_LAB_NS"
	in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	in_ns ip link set lo up
	net_guard
	net_bridge 1 "$mtu"
	[ "$split" = 1 ] && net_bridge 2 "$mtu"
	for ((g = 1; g <= guests; g++)); do
		if [ "$split" = 1 ] && [ $g = 2 ]; then net_tap $g 2 "$mtu"; else net_tap $g 1 "$mtu"; fi
	done
	if [ "$ports" = 1 ]; then
		net_port 1 1 "$mtu"
		[ "$split" = 1 ] && net_port 2 2 "$mtu"
	fi
	return 0
}

net_down() {
	ns_exists && ip netns del "$RK_LAB_NS"
	return 0
}

# rk-lab loss PCT|off [GUEST]: drops PCT % of the IPv4 frames entering a
# bridge (from GUEST's tap only, or from every port). A capture on the
# bridge then shows what a receiver saw: the gap, not the lost frame.
cmd_loss() {
	need_root
	ns_exists || die "the lab is not up"
	local pct=${1:-} g=${2:-} from=
	in_ns nft delete table bridge rklab_loss 2>/dev/null || true
	case $pct in
	off | 0) return 0 ;;
	*[!0-9]* | '') die "loss: PCT is a whole number 0..100 or off" ;;
	esac
	[ "$pct" -le 100 ] || die "loss: PCT is at most 100"
	[ -n "$g" ] && from="iifname \"tap${g#guest}\""
	in_ns nft -f - <<NFT
table bridge rklab_loss {
	chain drop_some {
		type filter hook prerouting priority 0;
		$from ether type ip numgen random mod 100 < $pct counter drop
	}
}
NFT
	say "dropping $pct % of IPv4 frames${g:+ from guest${g#guest}}"
}

# Wait until capture file $1 has not grown for 0.3 s (at most 5 s).
capture_settle() {
	local f=$1 last=-1 now same=0 k

	[ -n "$f" ] || return 0
	for ((k = 0; k < 50 && same < 3; k++)); do
		now=$(stat -c %s "$f" 2>/dev/null || echo 0)
		if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; fi
		last=$now
		sleep 0.1
	done
}

# rk-lab capture start FILE [-b 2] [FILTER...] | stop | FILE -- CMD...
# One capture per bridge may run (capture.pid, capture2.pid: in the split
# topology both sides of a program forwarding between the bridges are
# recorded at once); stop ends them all.
cmd_capture() {
	need_root
	local pidf pid br k b=1 log
	case ${1:-} in
	stop)
		for pidf in "$RK_LAB_RUN"/capture.pid "$RK_LAB_RUN"/capture[0-9].pid; do
			[ -s "$pidf" ] || continue
			pid=$(cat "$pidf")
			if pid_is "$pid" "tcpdump"; then
				# On a loaded machine tcpdump may still be behind the
				# traffic: a SIGINT now drops what the socket holds.
				# Let its file stop growing first (up to 5 s).
				capture_settle "$(cat "$pidf.file" 2>/dev/null)"
				kill -INT "$pid" 2>/dev/null
				for ((k = 0; k < 50; k++)); do
					[ -d "/proc/$pid" ] || break
					sleep 0.1
				done
			fi
			rm -f "$pidf" "$pidf.file"
		done
		;;
	start)
		local file=${2:?capture start FILE}
		shift 2
		if [ "${1:-}" = -b ]; then
			b=$2
			shift 2
		fi
		br=$(bridge_name "$b")
		pidf="$RK_LAB_RUN/capture.pid" log="$RK_LAB_RUN/capture.log"
		[ "$b" = 1 ] || pidf="$RK_LAB_RUN/capture$b.pid" log="$RK_LAB_RUN/capture$b.log"
		[ -s "$pidf" ] && die "a capture of bridge $b runs already (rk-lab capture stop)"
		ns_exists || die "the lab is not up"
		# exec: the PID recorded is tcpdump's own. --immediate-mode: writing
		# a file, tcpdump otherwise takes packets a ring block at a time (up
		# to its 1 s timeout), and a stop loses the block not yet handed over.
		# That ring has a slot per frame: -s 9216 (a 9000-byte MTU's frames)
		# and -B 32768 give it about 3500, where the default 2 MiB of 64 KiB
		# slots held about 30.
		(exec ip netns exec "$RK_LAB_NS" tcpdump -i "$br" -s 9216 -B 32768 -U --immediate-mode -Z root \
			-w "$file" "$@" \
			</dev/null >"$log" 2>&1) &
		echo $! >"$pidf"
		echo "$file" >"$pidf.file"
		for ((k = 0; k < 50; k++)); do
			grep -q listening "$log" 2>/dev/null && return 0
			sleep 0.1
		done
		say "tcpdump did not start: $(cat "$log")"
		return 1
		;;
	'') die "usage: rk-lab capture start FILE [-b 2] [FILTER] | stop | FILE -- CMD..." ;;
	*)
		local file=$1 rc=0
		shift
		[ "${1:-}" = -- ] && shift
		cmd_capture start "$file" || return 1
		"$@" || rc=$?
		sleep 0.5
		cmd_capture stop
		return $rc
		;;
	esac
}

cmd_ns() {
	need_root
	ns_exists || die "the lab is not up"
	in_ns "$@"
}
