#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-perf and perftest's options. Every letter of perftest's option string
# and its long-only options is either taken with perftest's meaning or
# refused with one line on stderr and exit 2 (never read another way);
# -I and -w are not --ip and --pcap. Then, over net_memif, the effects:
# -T/-L/-S (with --vlan) in the recorded headers, -w/-y failing a run
# below the limit and passing one above, -H/-U's latency lists and
# --run_infinitely's intervals ended by SIGINT with exit 0.
# usage: rk_perf_opts_check.sh RK_PERF
set -u
perf=$1
tmp=$(mktemp -d)
spid="" cpid=""
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# ---------------------------------------------------------------- parsing
# A refused option: exit 2, one line, "is perftest's", a hint after ';'.
refused() { # TEST ARGS...
	"$perf" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$? n
	n=$(wc -l <"$tmp/err")
	if [ $rc = 2 ] && [ "$n" = 1 ] && grep -q "is perftest's .*, which rk-perf does not implement; ." "$tmp/err" &&
	   [ ! -s "$tmp/out" ]; then
		return 0
	fi
	echo "  $*: exit $rc, $n lines: $(cat "$tmp/err")"
	return 1
}
# An option taken: parsing goes on to the missing --ip (exit 2, that line).
taken() { # ARGS... (no --ip)
	"$perf" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] && grep -q "^rk-perf: --ip A.B.C.D or --ip6 ADDR is required" "$tmp/err" && return 0
	echo "  $*: exit $rc: $(cat "$tmp/err")"
	return 1
}

# --dcqcn[=profile] and --dcqcn-param: taken when valid, refused with one line otherwise.
dbad=0
taken write_bw --dcqcn || dbad=$((dbad + 1))
taken write_bw --dcqcn=paper --dcqcn-param rpg_ai_rate=10 --dcqcn-param clamp_tgt_rate=1 ||
	dbad=$((dbad + 1))
for args in "--dcqcn=fast" "--dcqcn-param rpg_ai_rate=10" "--dcqcn --dcqcn-param nope=1" \
	    "--dcqcn --dcqcn-param rpg_gd=99" "--dcqcn --dcqcn-param rpg_gd" \
	    "--dcqcn --transport iwarp --ip 198.18.0.1"; do
	# shellcheck disable=SC2086
	"$perf" write_bw $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "dcqcn" "$tmp/err"; then
		echo "  $args: exit $rc: $(cat "$tmp/err")"
		dbad=$((dbad + 1))
	fi
done
[ $dbad = 0 ] && ok "--dcqcn, --dcqcn-param taken or refused" || ko "--dcqcn options ($dbad wrong)"

# perftest's getopt string (perftest_parameters.c), letter by letter.
letters="w:y:p:d:i:m:s:n:t:u:S:x:c:q:I:o:M:r:Q:A:l:D:f:B:T:L:E:J:j:K:k:X:W:aFegzRvhbNVCHUOZP"
bad=0 nref=0 ntaken=0
for l in $(echo "$letters" | tr -d ':' | fold -w1); do
	case $l in
	h|V) "$perf" "-$l" >/dev/null 2>&1 || { echo "  -$l: exit $?"; bad=$((bad + 1)); }
	     ntaken=$((ntaken + 1)) ;;
	w|y) taken write_bw "-$l" 1 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	p) taken write_bw -p 20000 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	d) taken write_bw -d net_memif0 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	i) taken write_bw -i 1 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	m) taken write_bw -m 2048 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	s|n|t|q|r) taken write_bw "-$l" 64 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	D) taken write_bw -D 1 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	Q) taken write_bw -Q 8 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	b) taken write_bw -b || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	l) taken write_bw -l 8 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	u) taken write_bw -u 12 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	N) taken write_bw -N || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	o) taken read_bw -o 4 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	S) taken write_bw -S 3 --vlan 5 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	T) taken write_bw -T 104 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	L) taken write_bw -L 9 || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	c) taken write_bw -c RC || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	A) taken atomic_bw -A CMP_AND_SWAP || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	a|F) taken write_bw "-$l" || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	H|U) taken write_lat "-$l" || bad=$((bad + 1)); ntaken=$((ntaken + 1)) ;;
	*) if [[ $letters == *"$l:"* ]]; then
		refused write_bw "-$l" 1 || bad=$((bad + 1))
	   else
		refused write_bw "-$l" || bad=$((bad + 1))
	   fi
	   nref=$((nref + 1)) ;;
	esac
done
[ $bad = 0 ] && ok "perftest's letters: $ntaken taken, $nref refused with a hint" ||
	ko "perftest's letters: $bad wrong"

# perftest's long names: those of rk-perf's letters, then the long-only ones.
bad=0 n=0
for o in inline_size gid-index events vector MGID mcg comm_rdma_cm rdma_cm \
	 report-cycles dualport margin source_mac dest_mac \
	 dest_ip source_ip dest_port source_port ethertype server client mac_fwd use_rss \
	 report-counters use-srq use-null-mr report-both reversed pkey_index burst_size \
	 typical_pkt_size output cpu_util out_json \
	 out_json_file latency_gap flow_label retry_count dont_xchg_versions payload_file_path \
	 use_cuda use_rocm mmap ipv6 ipv6-addr raw_ipv6 report-per-port odp use_hugepages \
	 use_old_post_send promiscuous raw_mcast mr_per_qp dlid wait_destroy flows flows_burst \
	 reply_every perform_warm_up vlan_en vlan_pcp recv_post_list force-link remote_mac \
	 local_mac remote_ip local_ip remote_port local_port; do
	refused write_bw "--$o" || bad=$((bad + 1))
	n=$((n + 1))
done
for o in "--limit_bw=1" "--limit_msgrate=1" "--tos=8" "--tclass=8" "--hop_limit=3" \
	 "--sl=1 --vlan=2" "--ib-port=1" "--connection=RC" "--report_gbits" "--CPU-freq" \
	 "--rate_limit=2" "--rate_limit=5 --rate_units=M" "--rate_limit=9 --rate_limit_type=SW" \
	 "--run_infinitely" "--cq-mod=4" "--bidirectional" "--post_list=4" "--qp-timeout=10" "--noPeak"; do
	# shellcheck disable=SC2086
	taken write_bw $o || bad=$((bad + 1))
	n=$((n + 1))
done
for o in "--outs=2" "--outs 16"; do
	# shellcheck disable=SC2086
	taken read_bw $o || bad=$((bad + 1))
	n=$((n + 1))
done
for o in "--report-histogram" "--report-histogrm" "--report-unsorted"; do
	taken write_lat $o || bad=$((bad + 1))
	n=$((n + 1))
done
[ $bad = 0 ] && ok "perftest's long options: $n checked" || ko "perftest's long options: $bad wrong"

# The letters rdmakit used to give other meanings.
"$perf" write_bw -I 198.18.0.1 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "^rk-perf: -I is perftest's inline size (--inline_size), .*the local IP is --ip$" "$tmp/err" &&
	ok "-I: perftest's inline size, refused; --ip named" || ko "-I: exit $rc, $(cat "$tmp/err")"
"$perf" write_bw --ip 198.18.0.1 -w x.pcapng 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "limit_bw: expected .*bandwidth.*the recording is --pcap FILE" "$tmp/err" &&
	ok "-w FILE: read as perftest's --limit_bw, --pcap named" || ko "-w FILE: exit $rc, $(cat "$tmp/err")"
# Usage errors of the options taken.
usage() { # WANT ARGS...
	local want=$1
	shift
	"$perf" "$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$want" "$tmp/err" && return 0
	echo "  $*: exit $rc: $(cat "$tmp/err")"
	return 1
}
bad=0
usage "-T 105: the ECN bits" write_bw --ip 198.18.0.1 -T 105 || bad=$((bad + 1))
usage "needs a tag: give --vlan" write_bw --ip 198.18.0.1 -S 3 || bad=$((bad + 1))
usage "PCP), 0..7" write_bw --ip 198.18.0.1 -S 9 --vlan 2 || bad=$((bad + 1))
usage "-c UD: rk-perf runs RC only" write_bw --ip 198.18.0.1 -c UD || bad=$((bad + 1))
usage "-i 2: a DPDK port has one port" write_bw --ip 198.18.0.1 -i 2 || bad=$((bad + 1))
usage "goes with the bandwidth tests" write_lat --ip 198.18.0.1 -w 5 || bad=$((bad + 1))
usage "write the profile as --dcqcn=paper" write_bw --ip 198.18.0.2 --dcqcn paper 127.0.0.1 ||
	bad=$((bad + 1))
usage "goes with the latency tests" write_bw --ip 198.18.0.1 -H || bad=$((bad + 1))
# Numbers take no sign and no leading space (strtoull would take both).
usage "--snaplen: expected headers" write_bw --ip 198.18.0.1 --snaplen +20 || bad=$((bad + 1))
usage "--snaplen: expected headers" write_bw --ip 198.18.0.1 --snaplen " 20" || bad=$((bad + 1))
usage "run_infinitely goes with the bandwidth" read_lat --ip 198.18.0.1 --run_infinitely ||
	bad=$((bad + 1))
usage "not -n" write_bw --ip 198.18.0.1 --run_infinitely -n 10 || bad=$((bad + 1))
usage "runs one size" write_bw --ip 198.18.0.1 --run_infinitely -a || bad=$((bad + 1))
usage "software only (SW)" write_bw --ip 198.18.0.1 --rate_limit 1 --rate_limit_type HW ||
	bad=$((bad + 1))
usage "rate_units: expected g" write_bw --ip 198.18.0.1 --rate_limit 1 --rate_units k ||
	bad=$((bad + 1))
usage "rate_limit goes with the bandwidth" send_lat --ip 198.18.0.1 --rate_limit 1 ||
	bad=$((bad + 1))
usage "-b runs write_bw and read_bw both ways; send_bw" send_bw --ip 198.18.0.1 -b ||
	bad=$((bad + 1))
usage "-b goes without --verify" write_bw --ip 198.18.0.1 -b --verify || bad=$((bad + 1))
usage "-o bounds RoCE's READs and atomics" write_bw --ip 198.18.0.1 -o 2 || bad=$((bad + 1))
usage "-N goes with the bandwidth tests" send_lat --ip 198.18.0.1 -N || bad=$((bad + 1))
usage "qp-timeout: expected 0..31" write_bw --ip 198.18.0.1 -u 32 || bad=$((bad + 1))
usage "a multiple of -Q 3" write_bw --ip 198.18.0.1 -l 8 -Q 3 || bad=$((bad + 1))
usage "more than -t 16" write_bw --ip 198.18.0.1 -l 32 -t 16 || bad=$((bad + 1))
usage "-l goes with the bandwidth tests" read_lat --ip 198.18.0.1 -l 2 || bad=$((bad + 1))
usage "-Q goes with the bandwidth tests" write_lat --ip 198.18.0.1 -Q 4 || bad=$((bad + 1))
usage "cq-mod: expected 1..1024" write_bw --ip 198.18.0.1 -Q 0 || bad=$((bad + 1))
usage "over --transport iwarp" write_bw --ip 198.18.0.1 --transport iwarp -T 8 || bad=$((bad + 1))
[ $bad = 0 ] && ok "bad values of the options taken: one line, exit 2" || ko "bad values: $bad wrong"
# An unknown option: a line and the hint, not the help.
"$perf" write_bw --no-such-option >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "unknown option --no-such-option" "$tmp/err" && grep -q -- "--help for usage" "$tmp/err" &&
	ok "unknown option: a line and the hint" || ko "unknown option: exit $rc, $(cat "$tmp/err")"
# An option without its argument: that one line says it all.
# Nor with the next option taken for it.
for o in --size -s "--size --ip" "-s --iters"; do
	# shellcheck disable=SC2086
	"$perf" write_bw $o >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "rk-perf: option ${o%% *} needs an argument" ] && [ ! -s "$tmp/out" ] &&
		ok "$o without its argument: one line" || ko "$o without its argument: exit $rc, $(cat "$tmp/err")"
done

# ----------------------------------------------------------- over memif
if [ "${2:-}" = no-port ]; then
	echo "$pass passed, $fail failed (no DPDK port)"
	[ "$fail" = 0 ]
	exit
fi
# shellcheck source=../helpers/dpdk-mem.sh
. "$(dirname "$0")/../helpers/dpdk-mem.sh"
# shellcheck source=../helpers/wait-line.sh
. "$(dirname "$0")/../helpers/wait-line.sh"
EAL="$MEM --no-pci --log-level=*:critical"
CORE_S=$(( $(nproc) > 1 ? 1 : 0 ))
PORT=$((22000 + $$ % 1000))

# start NAME TEST "SERVER-ARGS" CLIENT-ARGS...: the pair over memif, the client in the
# background; with WRAP="" the client is rk-perf itself (timeout(1) would pass a signal
# to its process group as well: two signals, the second one's immediate exit).
WRAP="timeout 90"
start() {
	local name=$1 t=$2 sargs=$3 sock="rk-popt-$$-$1.sock"
	shift 3
	PORT=$((PORT + 1))
	# shellcheck disable=SC2086
	timeout 90 "$perf" $EAL -l "$CORE_S" --vdev=net_memif0,role=server,socket="$sock" \
		-- "$t" --ip 198.18.0.1 -p "$PORT" $sargs >"$tmp/$name.srv" 2>&1 &
	spid=$!
	# shellcheck disable=SC2086
	$WRAP "$perf" $EAL -l 0 --vdev=net_memif0,role=client,socket="$sock" \
		-- "$t" --ip 198.18.0.2 -p "$PORT" "$@" 127.0.0.1 >"$tmp/$name.cli" 2>"$tmp/$name.err" &
	cpid=$!
}
# finish: the client's exit status; the server's in $src
finish() {
	wait "$cpid"
	local rc=$?
	cpid=""
	wait "$spid"
	src=$?
	spid=""
	return $rc
}
run() { start "$@"; finish; }

# --json when the run fails before it starts (a recording that cannot be
# written, no peer on the port): the document still comes, status "error"
# with the reason, as after a failed run.
json_error() { # NAME EXPECTED-ERROR-START ARGS...
	local name=$1 want=$2
	shift 2
	# shellcheck disable=SC2086
	timeout 60 "$perf" $EAL -l 0 --vdev=net_memif0,role=client,socket="rk-popt-$$-$name.sock" \
		-- write_bw --json --ip 198.18.0.2 "$@" 127.0.0.1 >"$tmp/$name.json" 2>"$tmp/$name.err"
	local rc=$?
	python3 - "$tmp/$name.json" "$want" <<'PY' && [ $rc = 1 ] &&
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["status"] == "error" and d["error"].startswith(sys.argv[2]) else 1)
PY
		ok "--json, $name: a document with status error" ||
		ko "--json, $name: exit $rc, '$(head -c 300 "$tmp/$name.json")', $(cat "$tmp/$name.err")"
}
json_error no-recording "cannot write the recording /nonexistent/" --pcap /nonexistent/x.pcapng
json_error no-peer "cannot open port 0: link down" --link-timeout 2

# heads FILE: for each IPv4 UDP/4791 frame "src tos ttl pcp vid" (pcp/vid -: untagged)
heads() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 0
while off + 12 <= len(d):
    t, blen = struct.unpack_from("<II", d, off)
    if t == 6:
        cap = struct.unpack_from("<I", d, off + 20)[0]
        f = d[off + 28:off + 28 + cap]
        et, l3, pcp, vid = struct.unpack_from(">H", f, 12)[0], 14, "-", "-"
        if et == 0x8100:
            tci = struct.unpack_from(">H", f, 14)[0]
            pcp, vid, et, l3 = tci >> 13, tci & 0xfff, struct.unpack_from(">H", f, 16)[0], 18
        if et == 0x0800 and f[l3 + 9] == 17 and struct.unpack_from(">H", f, l3 + 22)[0] == 4791:
            print("%d.%d.%d.%d" % tuple(f[l3 + 12:l3 + 16]), f[l3 + 1], f[l3 + 8], pcp, vid)
    off += blen
PY
}

# -T, -L, -S with --vlan: the client's RoCEv2 frames carry them, the server's its own.
if run qos write_bw "--vlan 7" -n 200 -s 4096 --vlan 7 -S 5 -T 104 -L 9 \
	--pcap "$tmp/qos.pcapng" --snaplen 0; then
	heads "$tmp/qos.pcapng" >"$tmp/qos.heads"
	cli=$(awk '$1 == "198.18.0.2"' "$tmp/qos.heads" | sort | uniq -c)
	srv=$(awk '$1 == "198.18.0.1"' "$tmp/qos.heads" | sort | uniq -c)
	if [ "$(echo "$cli" | wc -l)" = 1 ] && [[ $cli == *" 198.18.0.2 104 9 5 7" ]] &&
	   [ "$(echo "$srv" | wc -l)" = 1 ] && [[ $srv == *" 198.18.0.1 0 64 0 7" ]]; then
		ok "-T 104 -L 9 -S 5 --vlan 7: every client frame ToS 104 (DSCP 26), TTL 9, PCP 5; the server's ToS 0, TTL 64, PCP 0 ($(echo "$cli" | awk '{print $1}') and $(echo "$srv" | awk '{print $1}') frames)"
	else
		ko "-T/-L/-S: client frames: $cli; server frames: $srv"
	fi
else
	ko "-T/-L/-S run: $(tail -2 "$tmp/qos.err")"
fi

# -w/-y: a limit far above fails the run (exit 1, said), one below passes.
if run wlo write_bw "" -n 2000 -s 65536 --report_gbits -w 0.001 -y 0.000001 -N; then
	# -N: perftest's peak of 0.
	awk '$1 == 65536 && NF == 5 { exit !($3 == "0.00" && $4 > 0) }' "$tmp/wlo.cli" &&
		ok "-w 0.001 -y 0.000001 (Gb/s, Mpps): passed; -N: peak 0.00" ||
		ko "-N: $(grep '^ 65536' "$tmp/wlo.cli")"
else
	ko "-w 0.001: exit $?, $(tail -2 "$tmp/wlo.err")"
fi
run whi write_bw "" -n 2000 -s 65536 --report_gbits -w 100000
rc=$?
[ $rc = 1 ] && [ $src = 0 ] && grep -q "rk-perf: error: BW average .* Gb/sec at 65536 bytes is below -w, --limit_bw 100000" "$tmp/whi.err" &&
	grep -q "^ 65536 " "$tmp/whi.cli" &&
	ok "-w 100000: the result printed, exit 1, said; the server ended cleanly" ||
	ko "-w 100000: exit $rc (server $src), $(tail -2 "$tmp/whi.err")"
run yhi send_bw "" -n 2000 -s 64 -y 1000000
rc=$?
[ $rc = 1 ] && grep -q "message rate .* is below -y, --limit_msgrate 1e+06" "$tmp/yhi.err" &&
	ok "-y 1000000: exit 1, said" || ko "-y 1000000: exit $rc, $(tail -2 "$tmp/yhi.err")"

# -b: both ends send the test's requests (BTH opcodes per source address, the
# recording cut to the headers); the client's JSON sums the server's direction.
ops() { # FILE -> "src:opcode-class count" lines
	python3 - "$1" <<'PY'
import collections, struct, sys
d, off, c = open(sys.argv[1], "rb").read(), 0, collections.Counter()
names = {6: "write", 7: "write", 8: "write", 10: "write", 12: "read_req", 17: "ack"}
while off + 12 <= len(d):
    t, blen = struct.unpack_from("<II", d, off)
    if t == 6:
        cap = struct.unpack_from("<I", d, off + 20)[0]
        f = d[off + 28:off + 28 + cap]
        if struct.unpack_from(">H", f, 12)[0] == 0x0800 and f[23] == 17 and \
           struct.unpack_from(">H", f, 36)[0] == 4791:
            c["%d:%s" % (f[29], names.get(f[42], "other"))] += 1
    off += blen
for k in sorted(c):
    print(k, c[k])
PY
}
bidir() { # NAME -> "client's part server's part sum"
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["iterations"], r["bw_avg_gbps"] - r["server_bw_avg_gbps"], r["server_bw_avg_gbps"], r["bw_avg_gbps"])' "$1"
}
if run bw1 write_bw "" -n 100 -s 4096 --pcap "$tmp/bw1.pcapng" --json &&
   run bwb write_bw "" -n 100 -s 4096 -b --pcap "$tmp/bwb.pcapng" --json &&
   run brd read_bw "" -n 100 -s 4096 -b --pcap "$tmp/brd.pcapng" --json; then
	o1=$(ops "$tmp/bw1.pcapng" | grep write | tr '\n' ' ')
	ob=$(ops "$tmp/bwb.pcapng" | grep write | tr '\n' ' ')
	orr=$(ops "$tmp/brd.pcapng" | grep read_req | tr '\n' ' ')
	read -r it mine theirs sum <<<"$(bidir "$tmp/bwb.cli")"
	# 4096 bytes at MTU 1024: FIRST, 2 MIDDLE, LAST per message.
	[ "$o1" = "2:write 400 " ] && [ "$ob" = "1:write 400 2:write 400 " ] &&
	[ "$orr" = "1:read_req 100 2:read_req 100 " ] &&
	awk -v a="$mine" -v b="$theirs" 'BEGIN { exit !(a > 0 && b > 0) }' &&
		ok "-b: write_bw 400 WRITE packets from each end (without: the client's only), read_bw 100 READ requests each; JSON $mine + $theirs = $sum Gb/s" ||
		ko "-b: without $o1; with $ob; read $orr; JSON $mine $theirs $sum"
else
	ko "-b runs: $(tail -1 "$tmp"/b*.err)"
fi

# -Q: one completion per N WRs (JSON "completions"), the data still checked;
# a timed run ends on a signalled WR.
comps() { python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["iterations"], r["completions"], r["post_calls"])' "$1"; }
if run qall write_bw "" -n 4000 --json && run q16 write_bw "" -n 4000 -Q 16 --json &&
   run qrd read_bw "" -n 3000 -Q 16 --verify --json && run qsend send_bw "" -n 1001 -Q 7 --verify --json &&
   run qdur write_bw "" -D 1 -Q 10 --json; then
	read -r ia ca pa <<<"$(comps "$tmp/qall.cli")"
	read -r i16 c16 _ <<<"$(comps "$tmp/q16.cli")"
	read -r ird crd _ <<<"$(comps "$tmp/qrd.cli")"
	read -r isd csd _ <<<"$(comps "$tmp/qsend.cli")"
	read -r idu cdu _ <<<"$(comps "$tmp/qdur.cli")"
	[ "$ia $ca $pa" = "4000 4000 4000" ] && [ "$i16 $c16" = "4000 250" ] && [ "$ird $crd" = "3000 188" ] &&
	[ "$isd $csd" = "1001 143" ] && [ $((idu % 10)) = 0 ] && [ "$cdu" = $((idu / 10)) ] &&
		ok "-Q: 4000 WRITEs 4000 completions, -Q 16 250; verified READs 3000/188, SENDs 1001/143 (-Q 7); -D 1 -Q 10: $idu WRs, $cdu completions" ||
		ko "-Q: $ia/$ca, $i16/$c16, $ird/$crd, $isd/$csd, $idu/$cdu"
else
	ko "-Q runs: $(tail -1 "$tmp"/q*.err)"
fi

# -o: READ requests outstanding (by PSN: a request sent again after a
# timeout on a loaded machine is the same READ) in the client's recording
# (frames in the order the port saw them): at most -o, more without it.
# A response's Last or Only ends the latest request at or before its PSN.
inflight() {
	python3 - "$1" <<'PY'
import struct, sys
d, off, out, top = open(sys.argv[1], "rb").read(), 0, set(), 0
while off + 12 <= len(d):
    t, blen = struct.unpack_from("<II", d, off)
    if t == 6:
        cap = struct.unpack_from("<I", d, off + 20)[0]
        f = d[off + 28:off + 28 + cap]
        if struct.unpack_from(">H", f, 12)[0] == 0x0800 and f[23] == 17 and \
           struct.unpack_from(">H", f, 36)[0] == 4791:
            psn = int.from_bytes(f[51:54], "big")
            if f[42] == 0x0c and f[29] == 2:
                out.add(psn)
            elif f[42] in (0x0f, 0x10) and f[29] == 1:
                done = [p for p in out if (psn - p) & 0xffffff < 0x800000]
                if done:
                    out.discard(min(done, key=lambda p: (psn - p) & 0xffffff))
            top = max(top, len(out))
    off += blen
print(top)
PY
}
if run o2 read_bw "" -n 300 -s 4096 -o 2 --pcap "$tmp/o2.pcapng" &&
   run o16 read_bw "" -n 300 -s 4096 --pcap "$tmp/o16.pcapng"; then
	a=$(inflight "$tmp/o2.pcapng") b=$(inflight "$tmp/o16.pcapng")
	[ "$a" -ge 1 ] && [ "$a" -le 2 ] && [ "$b" -gt 2 ] &&
		ok "-o 2: at most $a READs in flight (default: $b)" || ko "-o 2: $a in flight, default $b"
else
	ko "-o runs: $(tail -1 "$tmp"/o*.err)"
fi

# -u: the last of 3 WRITEs dropped, no later packet to NAK it: one ACK timeout,
# the phase lasts about 4.096 us * 2^u (16.8 ms at 12, 537 ms at 17).
tmo() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%.4f" % d["results"][0]["seconds"], d["counters"]["local_ack_timeout_err"])' "$1"; }
if run u12 write_bw "" -n 3 -s 2 --tx-drop-every 3 -u 12 --json --counters &&
   run u17 write_bw "" -n 3 -s 2 --tx-drop-every 3 -u 17 --json --counters; then
	read -r s12 t12 <<<"$(tmo "$tmp/u12.cli")"
	read -r s17 t17 <<<"$(tmo "$tmp/u17.cli")"
	[ "$t12 $t17" = "1 1" ] && awk -v a="$s12" -v b="$s17" \
		'BEGIN { exit !(a >= 0.0168 && a < 0.2 && b >= 0.537 && b < 1.2) }' &&
		ok "-u 12: one ACK timeout, the phase $s12 s; -u 17: $s17 s" ||
		ko "-u: 12: $s12 s, $t12 timeouts; 17: $s17 s, $t17 timeouts"
else
	ko "-u runs: $(tail -1 "$tmp"/u1*.err)"
fi

# -l: N WRs per post call (JSON "post_calls"), the last of each list signalled
# unless -Q; -n not a multiple ends on a short list; -D ends on a whole list.
if run l8 read_bw "" -n 4001 -l 8 --verify --json && run l16 send_bw "" -n 3000 -l 16 -Q 4 --verify --json &&
   run ldur write_bw "" -D 1 -q 2 -l 10 --json; then
	read -r i8 c8 p8 <<<"$(comps "$tmp/l8.cli")"
	read -r i16 c16 p16 <<<"$(comps "$tmp/l16.cli")"
	read -r idu cdu pdu <<<"$(comps "$tmp/ldur.cli")"
	[ "$i8 $c8 $p8" = "4001 501 501" ] && [ "$i16 $c16 $p16" = "3000 750 188" ] &&
	[ $((idu % 10)) = 0 ] && [ "$cdu" = $((idu / 10)) ] && [ "$pdu" = "$cdu" ] &&
		ok "-l: 4001 verified READs in 501 posts and completions (-l 8), 3000 verified SENDs in 188 posts, 750 completions (-l 16 -Q 4), -D 1 -q 2 -l 10: $idu WRs in $pdu posts" ||
		ko "-l: $i8/$c8/$p8, $i16/$c16/$p16, $idu/$cdu/$pdu"
else
	ko "-l runs: $(tail -1 "$tmp"/l*.err)"
fi

# --dcqcn: the run's JSON records the profile and every parameter as used
# (--dcqcn-param's change included); without it, "dcqcn" is null.
if run dq write_bw "" -n 200 --json --dcqcn=paper --dcqcn-param rpg_ai_rate=10 &&
   run nodq write_bw "" -n 200 --json; then
	got=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
d = a["dcqcn"]
print(d["profile"], d["params"]["rpg_ai_rate"], len(d["params"]), b["dcqcn"])' 		"$tmp/dq.cli" "$tmp/nodq.cli" 2>&1)
	[ "$got" = "paper 10 19 None" ] && ok "--dcqcn in the JSON: $got" ||
		ko "--dcqcn in the JSON: '$got'"
else
	ko "--dcqcn runs: $(tail -1 "$tmp"/dq.err "$tmp"/nodq.err)"
fi

# --rx-ecn-ce with --dcqcn at both ends: the server's impairment stage marks
# about 5% of the WRITEs CE, its NP counts exactly those and answers with
# CNPs, and the client's RP takes every CNP (handled or ignored): none lost.
if run ce write_bw "--dcqcn --rx-ecn-ce 0.05 --json --counters" -n 2000 --dcqcn --json --counters
then
	got=$(python3 - "$tmp/ce.srv" "$tmp/ce.cli" <<'PY' 2>&1
import json, re, sys
srv = open(sys.argv[1]).read()
m = re.search(r"--rx-ecn-ce: (\d+) of (\d+) frames received marked CE", srv)
s = json.loads("\n".join(l for l in srv.splitlines() if not l.startswith(("rk-perf:", "TELEMETRY"))))
c = json.load(open(sys.argv[2]))
marked, seen = int(m.group(1)), int(m.group(2))
sc, cc = s["counters"], c["counters"]
print(0.03 < marked / seen < 0.07, sc["np_ecn_marked_roce_packets"] == marked,
      sc["np_cnp_sent"] > 0, cc["rp_cnp_handled"] + cc["rp_cnp_ignored"] == sc["np_cnp_sent"])
PY
)
	[ "$got" = "True True True True" ] && ok "--rx-ecn-ce: marks, NP counts and CNPs, RP takes them all" ||
		ko "--rx-ecn-ce: '$got'"
else
	ko "--rx-ecn-ce run: $(tail -2 "$tmp"/ce.err "$tmp"/ce.srv)"
fi

# --rx-ecn-ce P:N and --dcqcn-trace: 80% of the first 3000 WRITEs the
# server receives are marked CE, then none. The client's reaction point
# (the paper's profile), starting at rpg_max_rate 200 Mb/s, cuts R_C below
# half on the CNPs and climbs back to within 10% of 200 once the marks
# stop; over every 5 ms between trace rows the WRITEs it sent never
# exceed the R_C it was allowed on average (by more than 20%: the pacer's
# slack), windows where that was a quarter or more under the line rate
# among them: the sender slowed down as its trace says.
if run trace write_bw "--dcqcn=paper --dcqcn-param rpg_max_rate=200 --rx-ecn-ce 0.8:3000" \
	-D 2 -s 1024 -m 1024 --dcqcn=paper --dcqcn-param rpg_max_rate=200 --dcqcn-trace "$tmp/rp.csv"
then
	marks=$(sed -n 's/.*--rx-ecn-ce: \([0-9]*\) of 3000 frames received marked CE (the first ones).*/\1/p' "$tmp/trace.srv")
	# 1098-byte frames: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, 1024, ICRC 4
	got=$(python3 "$(dirname "$0")/../helpers/dcqcn_trace_check.py" "$tmp/rp.csv" 1098 200 2>&1)
	if [ "${marks:-0}" -ge 2250 ] && [ "${marks:-0}" -le 2550 ] && [ "${got#True True True True }" != "$got" ]; then
		ok "--dcqcn-trace: R_C cut on CE marks and recovered, pacing held (${got#True True True True })"
	else
		ko "--dcqcn-trace: marks '$marks' $got; server: $(grep -e --rx-ecn-ce "$tmp/trace.srv")"
	fi
else
	ko "--dcqcn-trace run: $(tail -2 "$tmp"/trace.err "$tmp"/trace.srv)"
fi
run badtrace write_bw "" -n 10 --dcqcn-trace "$tmp/x.csv" >/dev/null 2>&1
grep -q "dcqcn-trace goes with --dcqcn" "$tmp/badtrace.err" && ok "--dcqcn-trace without --dcqcn: refused" ||
	ko "--dcqcn-trace without --dcqcn: $(tail -1 "$tmp/badtrace.err")"

# --rate_limit: the average within 20% of the limit, which is binding (unpaced is faster).
avg() { awk '$1 == '"$2"' && NF == 5 {print $'"$3"'}' "$1"; }
within() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(v >= 0.8 * w && v <= 1.2 * w) }'; }
if run free write_bw "" -n 2000 -s 65536 --report_gbits &&
   run paced write_bw "" -n 1000 -s 65536 --report_gbits --rate_limit 0.5; then
	f=$(avg "$tmp/free.cli" 65536 4) v=$(avg "$tmp/paced.cli" 65536 4)
	awk -v f="$f" 'BEGIN { exit !(f > 0.6) }' && within "$v" 0.5 &&
		ok "--rate_limit 0.5 (Gb/s): $v Gb/s average (unpaced $f)" ||
		ko "--rate_limit 0.5: $v Gb/s average (unpaced $f)"
else
	ko "--rate_limit 0.5 runs: $(tail -2 "$tmp/free.err" "$tmp/paced.err")"
fi
if run pps send_bw "" -n 3000 -s 64 --rate_limit 3000 --rate_units p; then
	v=$(avg "$tmp/pps.cli" 64 5)
	within "$v" 0.003 && ok "--rate_limit 3000 --rate_units p: $v Mpps" ||
		ko "--rate_limit 3000 --rate_units p: $v Mpps"
else
	ko "--rate_units p run: $(tail -2 "$tmp/pps.err")"
fi

# -H: the sorted latencies; -U: the measured order, then sorted.
lists() { # FILE N -> "lists sorted..." e.g. "2 0 1"
	python3 - "$1" "$2" <<'PY'
import sys
lines, n, out, cur = open(sys.argv[1]).read().splitlines(), int(sys.argv[2]), [], None
for l in lines:
    if l == "#, usec":
        cur = []
        out.append(cur)
    elif cur is not None and len(cur) < n and l.split(", ")[0] == str(len(cur) + 1):
        cur.append(float(l.split(", ")[1]))
    else:
        cur = None
print(len(out), " ".join("%d:%d" % (len(v), v == sorted(v)) for v in out))
PY
}
if run hist write_lat "" -n 300 --warmup 10 -H; then
	r=$(lists "$tmp/hist.cli" 300)
	[ "$r" = "1 300:1" ] && grep -q "^ 2 *300 " "$tmp/hist.cli" &&
		ok "-H: 300 latencies, sorted, then the result" || ko "-H: lists $r"
else
	ko "-H run: $(tail -2 "$tmp/hist.err")"
fi
if run uns write_lat "" -n 300 --warmup 10 -U; then
	r=$(lists "$tmp/uns.cli" 300)
	# The measured order is sorted only by chance (300 round trips).
	[ "$r" = "2 300:0 300:1" ] && ok "-U: 300 latencies as measured, then sorted" ||
		ko "-U: lists $r"
else
	ko "-U run: $(tail -2 "$tmp/uns.err")"
fi

# --run_infinitely: intervals of -D 1 until SIGINT, then exit 0.
WRAP="" start inf write_bw "" -s 4096 -D 1 --run_infinitely
wait_line "$tmp/inf.cli" "^ 4096 " 30 "$cpid"
sleep 2
kill -INT "$cpid" 2>/dev/null
# Not timeout(1)'s child: killed here if the signal did not end it.
for _ in $(seq 100); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$cpid" 2>/dev/null
finish
rc=$?
n=$(grep -c "^ 4096 " "$tmp/inf.cli")
[ $rc = 0 ] && [ $src = 0 ] && [ "$n" -ge 2 ] && grep -q -- "^-----" <(tail -1 "$tmp/inf.cli") &&
	ok "--run_infinitely -D 1: $n interval lines, SIGINT after the first + 2 s, both ends exit 0" ||
	ko "--run_infinitely: client $rc, server $src, $n lines; $(tail -2 "$tmp/inf.err")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
