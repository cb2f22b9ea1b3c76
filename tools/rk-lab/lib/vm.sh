# SPDX-License-Identifier: BSD-3-Clause
# rk-lab's guests: QEMU processes started daemonized in the lab namespace,
# each recorded by PID in $RK_LAB_RUN/gN/ and ended only by that PID.

gdir() { echo "$RK_LAB_RUN/g$1"; }

# PID of guest N's QEMU while it runs (the PID file alone could be stale).
guest_pid() {
	local f pid
	f="$(gdir "$1")/qemu.pid"
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	pid_is "$pid" "rklab.name=guest$1 " && echo "$pid"
	return 0
}

guest_arg() { # guest1 | g1 | 1 -> 1, the guest must run
	local g=${1#guest}
	g=${g#g}
	[[ $g =~ ^[12]$ ]] || die "no guest '$1' (1 or 2)"
	[ -n "$(guest_pid "$g")" ] || die "guest$g is not running (rk-lab up)"
	echo "$g"
}

# No KVM is assumed: /dev/kvm is used only when it exists and the CPU
# advertises vmx or svm (nested setups may offer a /dev/kvm that cannot
# boot a stock kernel); the first boot is the real test.
choose_accel() {
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then echo kvm; else echo tcg; fi
}

vm_start() { # GUEST RDMA MTU ACCEL
	local g=$1 rdma=$2 mtu=$3 accel=$4 dir img nic chan=() k cpu=max
	dir=$(gdir "$g") img="$RK_LAB_CACHE/image"
	rm -rf "$dir" && mkdir -p "$dir"
	[ "$accel" = kvm ] && cpu=host
	for ((k = 0; k < CTL_PORTS; k++)); do
		chan+=(-chardev "socket,id=ctl$k,path=$dir/ctl$k.sock,server=on,wait=off"
			-device "virtserialport,bus=ser.0,chardev=ctl$k,name=rklab.ctl$k")
	done
	# Every offload off: the wire carries what a NIC would, complete
	# checksums and MTU-sized frames, never GSO super-frames.
	nic="virtio-net-pci,netdev=lan,mac=$(guest_mac "$g"),mrg_rxbuf=off,csum=off,gso=off"
	nic+=",guest_csum=off,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off"
	nic+=",host_tso4=off,host_tso6=off,host_ecn=off,host_ufo=off"
	# Without mergeable buffers the guest sizes its receive buffers for
	# 1518-byte frames unless the device announces the MTU: host_mtu does,
	# else every bigger frame vanishes without a trace.
	[ "$mtu" -gt 1500 ] && nic+=",host_mtu=$mtu"
	in_ns qemu-system-x86_64 -name "rk-lab-guest$g" -machine q35 -accel "$accel" -cpu "$cpu" \
		-smp "$RK_LAB_SMP" -m "$RK_LAB_MEM" -nodefaults -no-user-config -display none \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
		-append "console=ttyS0 panic=-1 rklab.name=guest$g rklab.ip=$(guest_ip "$g")/24 rklab.mtu=$mtu rklab.rdma=$rdma " \
		-serial "file:$dir/console.log" \
		-netdev "tap,id=lan,ifname=tap$g,script=no,downscript=no" -device "$nic" \
		-device virtio-serial-pci,id=ser "${chan[@]}" \
		-no-reboot -daemonize -pidfile "$dir/qemu.pid" 2>"$dir/qemu.err" ||
		{
			say "guest$g: QEMU did not start: $(cat "$dir/qemu.err")"
			return 1
		}
}

# Waits for guest N's ready line; fails on a silent console after 120 s
# (a hung early boot), a dead QEMU or SECS without the line.
vm_wait() { # GUEST SECS
	local g=$1 t0=$SECONDS log
	log="$(gdir "$g")/console.log"
	while [ $((SECONDS - t0)) -lt "$2" ]; do
		grep -q '^RK-LAB-READY' "$log" 2>/dev/null && return 0
		[ -n "$(guest_pid "$g")" ] || {
			say "guest$g: QEMU ended during boot"
			tail -n 20 "$log" >&2
			return 1
		}
		if [ $((SECONDS - t0)) -gt 120 ] && [ ! -s "$log" ]; then
			say "guest$g: no console output in 120 s"
			return 1
		fi
		sleep 0.2
	done
	say "guest$g: not ready after $2 s"
	tail -n 20 "$log" >&2
	return 1
}

vm_stop() { # GUEST
	local pid
	pid=$(guest_pid "$1")
	[ -n "$pid" ] && end_pid "$pid"
	rm -rf "$(gdir "$1")"
}

cmd_up() {
	need_root
	local guests=1 rdma=rxe mtu=1500 ports=1 split=0 accel g t0 ok
	while [ $# -gt 0 ]; do
		case $1 in
		--guests) guests=$2 && shift ;;
		--rdma) rdma=$2 && shift ;;
		--mtu) mtu=$2 && shift ;;
		--split) split=1 ;;
		--no-hostport) ports=0 ;;
		*) die "up: unknown option $1 (rk-lab help)" ;;
		esac
		shift
	done
	[[ $guests =~ ^[12]$ ]] || die "--guests is 1 or 2"
	[[ $rdma =~ ^(rxe|siw|none)$ ]] || die "--rdma is rxe, siw or none"
	[[ $mtu =~ ^[0-9]+$ ]] && [ "$mtu" -ge 576 ] && [ "$mtu" -le 9000 ] || die "--mtu is 576..9000"
	if [ $split = 1 ] && { [ "$guests" != 2 ] || [ $ports = 0 ]; }; then
		die "--split needs --guests 2 and the host ports"
	fi
	[ -c /dev/net/tun ] || unavailable "no /dev/net/tun"
	command -v qemu-system-x86_64 >/dev/null || apt_install qemu-system-x86
	local want="$split $mtu"
	if ns_exists && [ -s "$RK_LAB_RUN/shape" ] && [ "$(cat "$RK_LAB_RUN/shape")" != "$want" ]; then
		die "the lab runs with another topology or MTU: rk-lab down first"
	fi
	cmd_build
	mkdir -p "$RK_LAB_RUN"
	net_up "$guests" "$mtu" "$ports" "$split"
	echo "$want" >"$RK_LAB_RUN/shape"
	accel=$(choose_accel)
	t0=$(date +%s.%N)
	for try in 1 2; do
		ok=1
		for ((g = 1; g <= guests; g++)); do
			[ -n "$(guest_pid $g)" ] && continue
			vm_start $g "$rdma" "$mtu" "$accel" || ok=0
		done
		for ((g = 1; g <= guests; g++)); do
			vm_wait $g 300 || {
				ok=0
				vm_stop $g
			}
		done
		[ $ok = 1 ] && break
		# A KVM that cannot run the guest, or a rare hung boot under TCG.
		[ "$accel" = kvm ] && accel=tcg
		say "booting again (accel $accel)"
	done
	[ $ok = 1 ] || die "the guests did not come up"
	echo "$accel" >"$RK_LAB_RUN/accel"
	say "up: $guests guest(s), rdma $rdma, mtu $mtu${split:+$([ $split = 1 ] && echo ', split')}, accel $accel, ready after $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s"
}

cmd_down() {
	need_root
	local d
	cmd_capture stop 2>/dev/null
	for d in "$RK_LAB_RUN"/g*; do
		[ -d "$d" ] && vm_stop "${d##*/g}"
	done
	net_down
	rm -f "$RK_LAB_RUN/shape" "$RK_LAB_RUN/accel"
	return 0
}

# rk-lab exec [-t SECS] GUEST CMD...: a free channel is taken (flock), or
# the caller waits for channel 0.
cmd_exec() {
	need_root
	local limit=0 g dir k fd
	if [ "${1:-}" = -t ]; then
		limit=$2
		shift 2
	fi
	[ $# -ge 2 ] || die "usage: rk-lab exec [-t SECS] GUEST CMD..."
	g=$(guest_arg "$1")
	shift
	dir=$(gdir "$g")
	for ((k = 0; k < CTL_PORTS; k++)); do
		exec {fd}>"$dir/ctl$k.lock"
		flock -n "$fd" && break
		exec {fd}>&-
		fd=
	done
	if [ -z "$fd" ]; then
		k=0
		exec {fd}>"$dir/ctl0.lock"
		flock "$fd"
	fi
	python3 "$LAB_DIR/lib/ctl.py" "$dir/ctl$k.sock" "$limit" "$*"
}

# rk-lab link GUEST|all rxe|siw|siw-crc|none: the guest's RDMA link on eth0.
cmd_link() {
	need_root
	local which=${1:-} kind=${2:-} g d script
	[[ $kind =~ ^(rxe|siw|siw-crc|none)$ ]] || die "usage: rk-lab link GUEST|all rxe|siw|siw-crc|none"
	script='for l in $(rdma link show | awk "{ print \$2 }" | cut -d/ -f1); do rdma link delete "$l"; done'
	case $kind in
	rxe) script+='; rdma link add rxe0 type rxe netdev eth0' ;;
	siw) script+='; rmmod siw 2>/dev/null; modprobe siw && rdma link add siw0 type siw netdev eth0' ;;
	siw-crc) script+='; rmmod siw 2>/dev/null; insmod /usr/lib/rk-lab/siw-crc.ko && rdma link add siw0 type siw netdev eth0' ;;
	esac
	script+='; rdma link show'
	if [ "$which" = all ]; then
		for d in "$RK_LAB_RUN"/g*; do
			[ -d "$d" ] && { cmd_exec -t 60 "${d##*/g}" "$script" || return 1; }
		done
		return 0
	fi
	g=$(guest_arg "$which")
	cmd_exec -t 60 "$g" "$script"
}

cmd_status() {
	local d g pid
	ns_exists && echo "namespace $RK_LAB_NS: up ($(cat "$RK_LAB_RUN/shape" 2>/dev/null | awk '{ print ($1 ? "split, " : "") "mtu " $2 }'))" ||
		echo "namespace $RK_LAB_NS: down"
	for d in "$RK_LAB_RUN"/g*; do
		[ -d "$d" ] || continue
		g=${d##*/g}
		pid=$(guest_pid "$g")
		if [ -n "$pid" ]; then
			echo "guest$g: running (QEMU PID $pid, $(cat "$RK_LAB_RUN/accel" 2>/dev/null))"
		else
			echo "guest$g: stopped"
		fi
	done
	[ -s "$RK_LAB_RUN/capture.pid" ] && echo "capture: tcpdump PID $(cat "$RK_LAB_RUN/capture.pid")"
	[ -s "$RK_LAB_RUN/capture2.pid" ] && echo "capture -b 2: tcpdump PID $(cat "$RK_LAB_RUN/capture2.pid")"
	return 0
}

cmd_info() {
	local d g split
	split=$(cut -d' ' -f1 "$RK_LAB_RUN/shape" 2>/dev/null)
	echo "namespace $RK_LAB_NS, subnet $SUBNET.0/24, no IP stack of its own"
	echo "host port $(port_name 1) on $(bridge_name 1): MAC $(port_mac 1); use IP $SUBNET.100, GID ::ffff:$SUBNET.100"
	[ "$split" = 1 ] && echo "host port $(port_name 2) on $(bridge_name 2): MAC $(port_mac 2); use IP $SUBNET.102 (split: guest2 is behind it)"
	for d in "$RK_LAB_RUN"/g*; do
		[ -d "$d" ] || continue
		g=${d##*/g}
		echo "guest$g: IP $(guest_ip "$g"), MAC $(guest_mac "$g")"
		cmd_exec -t 20 "$g" 'rdma link show; uname -r' | sed 's/^/  /'
	done
}

cmd_console() {
	local g
	g=$(guest_arg "${1:-}")
	cat "$(gdir "$g")/console.log"
}
