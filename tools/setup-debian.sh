#!/usr/bin/env bash
# Install every Debian 12 package rdmakit builds, tests and benchmarks with.
# Run as root on a fresh machine; safe to run again. It also installs the
# host packages of the interop lab, tools/rk-lab (--no-lab: not).
set -euo pipefail

PKGS=(
	# build
	gcc clang meson ninja-build pkg-config python3
	# protocol core
	libisal-dev
	# tools: capture reading (gzip through zlib), JSON
	libpcap-dev zlib1g-dev libjansson-dev
	# rk-gen stream files
	libyaml-dev
	# tests and fuzzing (libFuzzer ships in libclang-rt-14-dev)
	libcmocka-dev libclang-rt-14-dev tshark
	# DPDK I/O backend and apps; dpdk-dev has dpdk-testpmd, the reference
	# of rk-gen's benchmark
	libdpdk-dev dpdk dpdk-dev
	# Wireshark plugin (headers need GLib's)
	libwireshark-dev libglib2.0-dev
	# TCP for iWARP on DPDK
	liblwip-dev
	# captures and namespaces in tests; pgrep and sysctl (procps), bc for
	# timings in the DPDK tests
	tcpdump iproute2 util-linux procps bc
	# a slowed endpoint in the DPDK error tests
	strace
	# man pages from the tools' --help, and man to read them
	help2man man-db
	# rk-inspect --plot
	gnuplot-nox
	# rk-testpmd's prompt driven through a real terminal in its tests
	tmux
	# loads the tools' completions that tools/demo.sh installs under /usr/local
	bash-completion
)

if [ "$(id -u)" -ne 0 ]; then
	echo "setup-debian.sh: run as root (it calls apt-get)" >&2
	exit 2
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "setup-debian.sh: all ${#PKGS[@]} packages present"
else
	echo "setup-debian.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no.
	echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The interop lab (Linux rxe and siw in QEMU guests, tools/rk-lab): QEMU,
# nftables, the build tools and the headers of Debian's current
# kernel for siw.ko. The guest image itself is built by the first
# "rk-lab up" (or "rk-lab build"), from Debian's mirror, and cached.
# --no-lab skips it (the demo needs no lab).
if [ "${1:-}" != --no-lab ]; then
	echo "setup-debian.sh: interop lab packages (tools/rk-lab/rk-lab deps)"
	"$(dirname "$0")/rk-lab/rk-lab" deps ||
		echo "setup-debian.sh: the lab's packages did not install; the interop suites will skip"
fi
