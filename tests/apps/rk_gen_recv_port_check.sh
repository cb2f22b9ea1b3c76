#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen's receive side live, over a net_memif pair: one rk-gen sends a
# stream with the sequence slot (TX time: the wall clock), another
# receives it through the impairment stage (lib/impair) dropping every
# 10th frame and holding every frame 200 us. The report must count
# exactly the frames the stage dropped (plus any the port never
# delivered, counted from the receiver's recording), no reordering or
# duplicate, and no latency below the 200 us the stage held each frame.
# The recording read back with --pcap-in holds every frame delivered.
# Then the same in one process (--rx-port) over net_af_packet on a veth
# pair in a namespace the test makes (skipped where it cannot).
# usage: rk_gen_recv_port_check.sh RK_GEN
set -u
gen=$1
tmp=$(mktemp -d)
rpid=""
trap '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 128 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
NCPU=$(nproc)
CORE_R=$((NCPU > 1 ? 1 : 0))
memif() { # role
	echo "--vdev=net_memif0,role=$1,socket=$tmp/memif.sock,bsize=9216"
}
N=2000
DELAY=200000

# shellcheck disable=SC2046
timeout -k 5 120 "$gen" $MEM --no-pci --log-level='*:warning' -l $CORE_R --file-prefix rkrx$$ \
	$(memif server) -- --receive --port net_memif0 --rx-drop-every 10 --rx-delay $DELAY \
	--expect $N --idle 2 --duration 90 --json --interval 0.05 --record "$tmp/rx.pcapng" \
	>"$tmp/rx.json" 2>"$tmp/rx.err" &
rpid=$!
sleep 1
# shellcheck disable=SC2046
if ! timeout -k 5 60 "$gen" $MEM --no-pci --log-level='*:warning' -l 0 --file-prefix rktx$$ \
	$(memif client) -- --op SEND_ONLY --seq --count $N --rate 10kpps --port net_memif0 \
	2>"$tmp/tx.err"; then
	ko "sender: $(tail -2 "$tmp/tx.err")"
fi
wait "$rpid"
rc=$?
rpid=""
[ "$rc" = 0 ] && ok "receiver exits 0" || ko "receiver: exit $rc: $(tail -3 "$tmp/rx.err")"

# The report against what the stage saw (stderr: "impairment on RX: N
# frames, D dropped"): D is every 10th of N, the report's loss is exactly
# N_sent - (N - D), nothing reordered or duplicated, no latency below DELAY.
check_report() { # NAME JSON STDERR
	local name=$1 seen dropped got unique want
	seen=$(sed -n 's/.*impairment on RX: \([0-9]*\) frames.*/\1/p' "$3")
	dropped=$(sed -n 's/.*impairment on RX: [0-9]* frames, \([0-9]*\) dropped.*/\1/p' "$3")
	echo "     $name: the stage saw ${seen:-?} of $N frames, dropped ${dropped:-?}"
	# A receiver starved of CPU on a busy machine lets the port drop
	# frames: counted exactly below; here only that most came.
	[ "${seen:-0}" -ge $((N / 4)) ] && ok "$name: the port delivered $seen frames" ||
		ko "$name: the port delivered ${seen:-no} frames"
	[ "${dropped:-x}" = "$((${seen:-0} / 10))" ] && ok "$name: the stage dropped every 10th" ||
		ko "$name: the stage dropped ${dropped:-?}, want $((${seen:-0} / 10))"
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["streams"][0]; l = s["latency_ns"]
print(len(d["streams"]), s["frames"], s["unique"], s["lost"], s["reordered"], s["duplicates"],
      s["stale"], l["negative"], l["min"], l["p50"], l["p99"], l["p99_9"], l["max"])' \
		"$2" 2>&1)
	echo "     streams frames unique lost reordered duplicates stale negative min p50 p99 p99.9 max:"
	echo "     $got"
	# shellcheck disable=SC2086
	set -- $got
	unique=$((${seen:-0} - ${seen:-0} / 10))
	want="1 $unique $unique $((N - unique)) 0 0 0 0"
	[ "$1 $2 $3 $4 $5 $6 $7 $8" = "$want" ] && ok "$name: counts $want" ||
		ko "$name: counts '$1 $2 $3 $4 $5 $6 $7 $8', want '$want'"
	[ "${9:-0}" -ge $DELAY ] 2>/dev/null && ok "$name: latency floor: min ${9} ns >= $DELAY" ||
		ko "$name: latency floor: min ${9:-?} ns < $DELAY ns"
	[ "${9:-0}" -le "${10:-0}" ] && [ "${10:-0}" -le "${11:-0}" ] &&
		[ "${11:-0}" -le "${12:-0}" ] && [ "${12:-0}" -le "${13:-0}" ] &&
		[ "${13:-0}" -lt 60000000000 ] &&
		ok "$name: min <= p50 <= p99 <= p99.9 <= max < 60 s" ||
		ko "$name: quantiles out of order: $got"
}
check_report "two processes, memif" "$tmp/rx.json" "$tmp/rx.err"

# The live series: its rows add up to the report, every latency is past
# the stage's delay, and 2000 frames at 10 kpps take 4 or more rows of 50 ms.
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["series"]
ok = all(r["lat_p50_ns"] >= int(sys.argv[2]) for r in rows if r["lat_count"])
# the --idle 2 wait after the last frame adds no rows: 0.2 s of frames, about 4 rows, not 44
print(4 <= len(rows) <= 8 and rows[-1]["frames"] > 0, sum(r["frames"] for r in rows) == d["frames"],
      sum(r["lat_count"] for r in rows) == d["streams"][0]["latency_ns"]["count"], ok)' \
	"$tmp/rx.json" $DELAY 2>&1)
[ "$got" = "True True True True" ] && ok "live series: rows add up, latency past the delay" ||
	ko "live series: $got"

# The recording read back: every frame the port delivered (lib/io records
# before the stage), none lost but what the port lost.
seen=$(sed -n 's/.*impairment on RX: \([0-9]*\) frames.*/\1/p' "$tmp/rx.err")
got=$("$gen" --receive --pcap-in "$tmp/rx.pcapng" --expect $N --json 2>/dev/null |
	python3 -c 'import json,sys; s=json.load(sys.stdin)["streams"][0]; print(s["unique"], s["lost"])')
[ "$got" = "$seen $((N - ${seen:-0}))" ] && ok "the pcapng recording read back: $got" ||
	ko "the pcapng recording read back: '$got'"

# One process sending on one port and receiving on another (--rx-port):
# net_af_packet on the two ends of a veth pair in a namespace of its own.
ns=rkgenrx$$
if ! err=$(ip netns add $ns 2>&1); then
	echo "skip one process over a veth pair: cannot create a network namespace: $err"
else
	trap '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; ip netns del '$ns' 2>/dev/null; rm -rf "$tmp"' EXIT
	trap 'exit 1' INT TERM
	ip -n $ns link set lo up
	ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n $ns link add rkga type veth peer name rkgb
	ip -n $ns link set rkga mtu 9000 up
	ip -n $ns link set rkgb mtu 9000 up
	timeout -k 5 120 ip netns exec $ns "$gen" $MEM --no-pci --log-level='*:warning' -l 0 \
		--file-prefix rkrx1$$ --vdev=net_af_packet0,iface=rkga --vdev=net_af_packet1,iface=rkgb \
		-- --op SEND_ONLY --seq --count $N --rate 10kpps --port net_af_packet0 \
		--rx-port net_af_packet1 --rx-drop-every 10 --rx-delay $DELAY --expect $N --json \
		>"$tmp/one.json" 2>"$tmp/one.err"
	rc=$?
	[ "$rc" = 0 ] && ok "one process: exit 0" || ko "one process: exit $rc: $(tail -3 "$tmp/one.err")"
	check_report "one process, veth" "$tmp/one.json" "$tmp/one.err"
	ip netns del $ns
fi

echo "rk_gen_recv_port_check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
