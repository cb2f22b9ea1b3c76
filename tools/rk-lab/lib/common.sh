# SPDX-License-Identifier: BSD-3-Clause
# rk-lab: settings, naming and small helpers shared by every command.

: "${RK_LAB_NS:=rklab}"
: "${RK_LAB_RUN:=/run/rk-lab/$RK_LAB_NS}"
: "${RK_LAB_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/rk-lab}"
: "${RK_LAB_MEM:=768}"  # MiB per guest
: "${RK_LAB_SMP:=2}"    # vCPUs per guest (perftest spins on its CQ beside rxe's work)
CTL_PORTS=4             # command channels per guest (virtio-serial ports)
IMAGE_FORMAT=2          # bump when the image layout changes

# The lab network, 198.18.0.0/24 (RFC 2544 benchmarking range):
#   guest N      198.18.0.(10+N)   52:54:00:18:00:(10+N in hex)
#   host port 1  dpdk0             52:54:00:18:00:64, for 198.18.0.100
#   host port 2  dpdk1 (split)     52:54:00:18:00:66, for 198.18.0.102
SUBNET=198.18.0
guest_ip() { echo "$SUBNET.$((10 + $1))"; }
guest_mac() { printf '52:54:00:18:00:%02x' $((10 + $1)); }
port_name() { echo "dpdk$(($1 - 1))"; }
port_mac() { printf '52:54:00:18:00:%02x' $((0x64 + 2 * ($1 - 1))); }
bridge_name() { echo "rkbr$(($1 - 1))"; }

# Debian packages: the guest userland and the host's tools.
GUEST_PACKAGES=(busybox-static dash bash kmod iproute2
	ibverbs-utils ibverbs-providers libibverbs1 librdmacm1
	rdmacm-utils perftest libibumad3)
HOST_PACKAGES=(qemu-system-x86 tcpdump nftables kmod cpio gzip
	xz-utils make gcc binutils iproute2 util-linux python3)
# Loaded at boot, with their dependencies.
GUEST_MODULES=(virtio_pci virtio_net virtio_console ib_uverbs rdma_ucm
	ib_umad rdma_rxe siw sch_netem)
# In the image for loading on demand (CRC providers, qdiscs, filters).
GUEST_OPTIONAL_MODULES=(crc32_generic crc32c_generic crc32c_intel
	crc32_pclmul libcrc32c sch_tbf sch_prio cls_u32 act_gact)

say() { echo "rk-lab: $*" >&2; }
die() {
	say "error: $*"
	exit 1
}
# Exit status 3: this machine cannot run the lab (no root, no tun, no
# package mirror, no QEMU), as opposed to a lab that failed (1).
unavailable() {
	say "unavailable: $*"
	exit 3
}
need_root() { [ "$(id -u)" = 0 ] || unavailable "needs root (namespaces, taps, QEMU)"; }
in_ns() { ip netns exec "$RK_LAB_NS" "$@"; }
ns_exists() { [ -e "/run/netns/$RK_LAB_NS" ]; }

# True when process $1 is alive and its command line contains $2: a PID
# recorded earlier is ours only while both hold.
pid_is() {
	[ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$2"
}

# Ends process $1 (ours, checked with pid_is by the caller): TERM, then KILL.
end_pid() {
	local k
	kill "$1" 2>/dev/null || return 0
	for ((k = 0; k < 50; k++)); do
		[ -d "/proc/$1" ] || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
}

APT=(apt-get -q -o APT::Sandbox::User=root -o Dpkg::Use-Pty=0)
apt_lists_fresh() {
	[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ]
}
apt_refresh() {
	apt_lists_fresh || "${APT[@]}" -qq update >&2 || unavailable "apt-get update failed (no package mirror?)"
}
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
apt_install() {
	local p missing=()
	for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
	[ ${#missing[@]} = 0 ] && return 0
	apt_refresh
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive "${APT[@]}" -y -qq --no-install-recommends \
		install "${missing[@]}" >&2 || unavailable "cannot install ${missing[*]}"
}
