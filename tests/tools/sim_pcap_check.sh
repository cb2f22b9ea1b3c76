#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Frames the simulator writes pass rk-inspect with zero findings and dissect
# in tshark with no malformed packet and no error-level expert item.
# usage: sim_pcap_check.sh RK_SIM RK_INSPECT
set -u
sim=$1
rk=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
skip=0

run() { # name, rk-sim options...
	name=$1
	shift
	if ! "$sim" -O all -w "$tmp/$name.pcap" "$@" >"$tmp/$name.log" 2>&1; then
		echo "FAIL $name: rk-sim: $(tail -3 "$tmp/$name.log")"
		fail=$((fail + 1))
		return
	fi
	out=$("$rk" -j --fail-on-findings "$tmp/$name.pcap")
	rc=$?
	nf=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(d["findings"].values()), d["totals"]["rdma_frames"])')
	frames=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["frames"])')
	if [ $rc -ne 0 ] || [ "${nf%% *}" != 0 ] || [ "${nf#* }" = 0 ]; then
		echo "FAIL $name: rk-inspect exit $rc, findings/frames $nf"
		fail=$((fail + 1))
		return
	fi
	if ! command -v tshark >/dev/null; then
		echo "SKIP $name tshark: not installed"
		skip=$((skip + 1))
	else
		# Wireshark's heuristics guess at SEND payloads (random bytes
		# here: RPC-over-RDMA, Ethernet over IB); the RoCE headers are
		# what is checked. tshark 4.0 refuses "--disable-heuristic
		# rpcordma" and then dissects nothing, so tshark must have
		# dissected every frame for "none malformed" to mean anything.
		# A zero UDP checksum is what RoCEv2 sends (IBTA Annex A17.3.2.4),
		# over IPv6 too, where Wireshark calls it an error.
		seen=$(tshark -n -r "$tmp/$name.pcap" --disable-protocol rpcordma \
			--disable-heuristic eth_over_ib 2>/dev/null | wc -l)
		bad=$(tshark -n -r "$tmp/$name.pcap" --disable-protocol rpcordma \
			--disable-heuristic eth_over_ib \
			-Y '(_ws.malformed || _ws.expert.severity == error) && !udp.checksum.zero' \
			2>/dev/null | wc -l)
		if [ "$seen" != "$frames" ]; then
			echo "FAIL $name: tshark dissected $seen of $frames frames"
			fail=$((fail + 1))
			return
		fi
		if [ "$bad" != 0 ]; then
			echo "FAIL $name: tshark: $bad malformed or error frames"
			fail=$((fail + 1))
			return
		fi
	fi
	echo "ok   $name: ${nf#* } RDMA frames, 0 findings"
	pass=$((pass + 1))
}

run clean -o 300 -s 3
run loss1 -o 300 -s 4 -l 0.01
run reorder_dup -o 300 -s 5 -r 0.05:20000 -u 0.05
run mtu4096 -o 200 -s 6 -M 4096 -m 262144
run mtu256 -o 200 -s 7 -M 256 -m 8192
run ipv6_loss1 -o 300 -s 8 -6 -l 0.01
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
