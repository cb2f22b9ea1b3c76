#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen's stateful mode over a net_memif pair, two processes:
#  1. 4096 RC QPs, a WRITE/READ/SEND mix of 64..2048 bytes, data checked
#     at both ends: both exit 0, every QP did its messages, the WRITEs and
#     SENDs the client completed are those the responder received, the
#     responder took exactly the client's READs, no data, sequence or
#     completion error, and without loss the frames one end sent are the
#     frames the other received;
#  2. 16 QPs with the client dropping 2% of its frames (--tx-drop-rate):
#     the same agreement, and the loss shows in the counters
#     (retransmitted_pkts at the client, out_of_sequence or
#     duplicate_request at the responder);
#  3. a client asking for more QPs than the responder takes is refused
#     with a clear error at both ends.
#  Every client report holds its latency, per opcode and per QP.
#  4. --dscp per QP and --dcqcn at both ends, recorded: rk-inspect finds
#     each QP's DSCP and every frame ECT(0); bad values exit 2.
#  6. FETCH_ADDs in the mix: the originals they return are checked; so
#     are CMP_SWAPs' (with FETCH_ADDs, 2% of the client's frames dropped).
#  7. --interval with --csv, --plot and --json: the series adds up.
#  8. --ip-count: one client port plays 4 hosts; recorded, rk-inspect
#     finds each QP's frames from its own address and the responder's
#     answers to it, the responder's report names the 4; bad values exit 2.
#  8b. a responder killed mid-run: the client exits 1, its report gives
#     the seconds it ran (not 0).
#  8c. --csv -: the series on stdout.
#  8d. one QP: "1 RC QP connected", "1 QP" in both text reports.
#  9. a client without its peer: the link wait ends within --timeout.
#     The command line: an option without its value, an option of the
#     stateless mode or of the other end, --qps below --clients, a --csv,
#     --plot or --record path that cannot be written, an empty --op element,
#     --iters with --duration, --csv - with --json: one line each, exit 2,
#     before any port; a responder
#     interrupted while it waits for a client says "interrupted", exit 1.
# usage: rk_gen_stateful_check.sh RK_GEN RK_INSPECT
set -u
gen=$1
rk=$2
tmp=$(mktemp -d)
rpid=""
trap '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
# one: $tmp/bad.err if it is one line (an error is one line), else nothing
one() { [ "$(wc -l <"$tmp/bad.err")" = 1 ] && cat "$tmp/bad.err"; }

. "$(dirname "$0")/../helpers/dpdk-mem.sh"
# shellcheck source=../helpers/wait-line.sh
. "$(dirname "$0")/../helpers/wait-line.sh"
NCPU=$(nproc)
CORE_R=$((NCPU > 1 ? 1 : 0))
OOB=$((20000 + $$ % 20000))

. "$(dirname "$0")/../helpers/memif-wait.sh"
# listening NAME: the responder $rpid's memif socket listens
listening() {
	memif_wait "$tmp/$1.sock" "$rpid"
}

# run NAME "client options" "responder options": JSON in $tmp/NAME.{c,r}.json
# (REPORT= run ...: the text reports there instead)
run() {
	name=$1
	# shellcheck disable=SC2086
	timeout -k 5 200 "$gen" $MEM --no-pci --log-level='*:error' -l $CORE_R \
		--file-prefix rksr$$ \
		--vdev=net_memif0,role=server,socket=$tmp/$name.sock,bsize=9216 -- \
		--responder --port net_memif0 --ip 198.18.0.2 --oob-port $OOB ${REPORT---json} ${3:-} \
		>"$tmp/$name.r.json" 2>"$tmp/$name.r.err" &
	rpid=$!
	listening "$name"
	# shellcheck disable=SC2086
	timeout -k 5 200 "$gen" $MEM --no-pci --log-level='*:error' -l 0 --file-prefix rksc$$ \
		--vdev=net_memif0,role=client,socket=$tmp/$name.sock,bsize=9216 -- \
		--port net_memif0 --ip 198.18.0.1 --oob-port $OOB ${REPORT---json} $2 127.0.0.1 \
		>"$tmp/$name.c.json" 2>"$tmp/$name.c.err"
	crc=$?
	wait "$rpid"
	rrc=$?
	rpid=""
	OOB=$((OOB + 1))
}

# check NAME QPS ITERS LOSSY: the two reports agree
check() {
	python3 - "$tmp/$1.c.json" "$tmp/$1.r.json" "$2" "$3" "$4" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
qps, iters, lossy = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
cc, rc = c["counters"], r["counters"]
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append("%s: %s, expected %s" % (what, got, exp))
want("client QPs", c["qps"], qps)
want("responder QPs", r["qps"], qps)
want("client messages", c["messages"], qps * iters)
want("responder messages (client's WRITE+SEND)", r["messages"], c["write"] + c["send"])
want("peer count at the client", c.get("peer_messages"), r["messages"])
want("responder's READ requests", rc["rx_read_requests"], c["read"])
for side, j in (("client", c), ("responder", r)):
    for k in ("data_errors", "sequence_errors", "completion_errors"):
        want("%s %s" % (side, k), j[k], 0)
    want("%s ok" % side, j["ok"], True)
if c["write"] == 0 or c["read"] == 0 or c["send"] == 0:
    bad.append("the mix did not use every op: %s/%s/%s" % (c["write"], c["read"], c["send"]))
if c["goodput_gbps"] <= 0:
    bad.append("no goodput")
if not lossy:
    want("client sent_pkts = responder rcvd_pkts", cc["sent_pkts"], rc["rcvd_pkts"])
    want("responder sent_pkts = client rcvd_pkts", rc["sent_pkts"], cc["rcvd_pkts"])
    want("retransmitted_pkts", cc.get("retransmitted_pkts", 0), 0)
else:
    if cc.get("retransmitted_pkts", 0) == 0:
        bad.append("loss without retransmitted_pkts at the client")
    if rc.get("out_of_sequence", 0) + rc.get("duplicate_request", 0) == 0:
        bad.append("loss without out_of_sequence or duplicate_request at the responder")
    if cc["sent_pkts"] <= rc["rcvd_pkts"]:
        bad.append("the client's drops: sent_pkts %d not above the responder's rcvd_pkts %d"
                   % (cc["sent_pkts"], rc["rcvd_pkts"]))
if len(c["worst_qps"]) != min(5, qps):
    bad.append("worst_qps: %d entries" % len(c["worst_qps"]))
# the client's latency: per opcode its messages, per QP its own, in order
lat = c.get("latency", {})
for op in ("write", "read", "send"):
    n = lat.get(op, {}).get("count", 0)
    want("latency %s count" % op, n, c[op])
    if n and not (0 < lat[op]["min_ns"] <= lat[op]["p50_ns"] <= lat[op]["p99_ns"]
                  <= lat[op]["p99_9_ns"] <= lat[op]["max_ns"]):
        bad.append("latency %s out of order: %s" % (op, lat[op]))
for q in c["worst_qps"]:
    want("QP %#x latency count" % q["qpn"], q.get("latency", {}).get("count"), q["messages"])
if "latency" in r:
    bad.append("the responder reports a latency")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
}

# 1. 4096 QPs
run big "--stateful 4096 --op write:2,read:1,send:1 --size 64-2048 --iters 10 --depth 4"
if [ "$crc" = 0 ] && [ "$rrc" = 0 ]; then
	ok "4096 QPs: both ends exit 0"
else
	ko "4096 QPs: client $crc, responder $rrc: $(tail -2 "$tmp/big.c.err") / $(tail -2 "$tmp/big.r.err")"
fi
if check big 4096 10 0; then ok "4096 QPs: counts, data and counters agree"; else ko "4096 QPs: reports"; fi
grep -q "4096 RC QPs connected" "$tmp/big.c.err" && ok "4096 QPs: connected" ||
	ko "4096 QPs: no 'connected' line"

# 2. loss injected at the client
run loss "--stateful 16 --op write,read,send --size 1-5000 --iters 300 --depth 8 --tx-drop-rate 0.02 --seed 7 --ack-timeout 10"
if [ "$crc" = 0 ] && [ "$rrc" = 0 ]; then
	ok "2% loss: both ends exit 0"
else
	ko "2% loss: client $crc, responder $rrc: $(tail -2 "$tmp/loss.c.err") / $(tail -2 "$tmp/loss.r.err")"
fi
if check loss 16 300 1; then ok "2% loss: counts, data and counters agree"; else ko "2% loss: reports"; fi

# 3. more QPs than the responder takes (--timeout bounds the wait for the
#    link too: 5 s leaves a loaded machine's responder time to start its port)
run refuse "--stateful 40 --iters 1 --timeout 5" "--qps 32"
if [ "$crc" != 0 ] && [ "$rrc" != 0 ] &&
	grep -q "asks for 40 QPs; this end takes at most 32" "$tmp/refuse.r.err" &&
	grep -q "the responder refused this client: the client asks for 40 QPs; this end takes at most 32 (--qps)" "$tmp/refuse.c.err"; then
	ok "40 QPs to a responder of 32: refused at both ends, the client told why"
else
	ko "refusal: client $crc, responder $rrc: $(tail -1 "$tmp/refuse.r.err") / $(tail -1 "$tmp/refuse.c.err")"
fi

# 4. per-QP DSCP and DCQCN: the client's QPs alternate DSCP 26 and 46, the
#    responder's answers carry its 10, every request is ECT(0) (and the
#    READ responses; ACKs are Not-ECT)
run qos "--stateful 8 --op write,read,send --iters 50 --depth 4 --dscp 26,46 --dcqcn --record $tmp/qos.pcapng" \
	"--dscp 10 --dcqcn"
if [ "$crc" = 0 ] && [ "$rrc" = 0 ] && check qos 8 50 0; then
	got=$("$rk" -j "$tmp/qos.pcapng" | python3 -c '
import json, sys
d = json.load(sys.stdin)
out = {}
for q in d["qps"]:
    if q["kind"] != "RoCEv2" or not q.get("qos"):
        continue
    e = q["qos"]["ecn"]
    # requests all ECT(0); READ responses ECT(0), ACKs not
    ect = e["ect0"] == q["packets"] if q["src"] == "198.18.0.1" else e["ect0"] > 0
    key = (q["src"], q["qos"]["dscp"], ect)
    out[key] = out.get(key, 0) + 1
print(" ".join("%s:%s:%s:%d" % (k + (v,)) for k, v in sorted(out.items())))')
	want="198.18.0.1:26:True:4 198.18.0.1:46:True:4 198.18.0.2:10:True:8"
	[ "$got" = "$want" ] && ok "--dscp 26,46 and --dcqcn: DSCP per QP, every request ECT(0)" ||
		ko "--dscp and --dcqcn on the wire: '$got', want '$want'"
else
	ko "--dscp and --dcqcn: client $crc, responder $rrc: $(tail -2 "$tmp/qos.c.err")"
fi

# 5. bad --dscp, --dcqcn and --interval values: one line, exit 2
for bad in "--dscp 64" "--dscp 1,,2" "--dscp -1" "--dcqcn=fast" "--dcqcn-param rpg_ai_rate=5" \
	"--dcqcn --dcqcn-param no_such=1" "--interval 0" "--interval 1x"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- --stateful 1 $bad --port x --ip 198.18.0.1 127.0.0.1 >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(one | grep -c "^rk-gen: --[di]")" = 1 ] &&
		ok "bad $bad: exit 2, $(head -1 "$tmp/bad.err")" || ko "bad $bad: exit $rc, $(cat "$tmp/bad.err")"
done
# a --dcqcn-param value that is no number is said so, not "out of range"
for bad in "rpg_gd=abc:'abc' is not a number (an integer 0..31)" "rpg_gd=99:'99' out of range 0..31"; do
	"$gen" --no-pci -- --stateful 1 --dcqcn --dcqcn-param "${bad%%:*}" --port x --ip 198.18.0.1 \
		127.0.0.1 >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && one | grep -qxF "rk-gen: --dcqcn-param rpg_gd: value ${bad#*:} (--help for usage)" &&
		ok "--dcqcn-param ${bad%%:*}: exit 2, $(cat "$tmp/bad.err")" ||
		ko "--dcqcn-param ${bad%%:*}: exit $rc, $(cat "$tmp/bad.err")"
done

# QPs beyond what one device numbers (0xffff, two kept): one line, exit 2, not a failed open
for bad in "--stateful 65534 127.0.0.1" "--responder --qps 65534"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $bad --port x --ip 198.18.0.1 >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && one | grep -q "^rk-gen: --[a-z]* 65534: QPs are 1..65533 (--help for usage)$" &&
		ok "$bad: exit 2, $(head -1 "$tmp/bad.err")" || ko "$bad: exit $rc, $(cat "$tmp/bad.err")"
done

# 6. FETCH_ADDs in the mix over memif: every QP's k-th atomic found k
run atomic "--stateful 32 --op write,read,send,atomic:2 --size 8-512 --iters 100 --depth 4"
if [ "$crc" = 0 ] && [ "$rrc" = 0 ] && check atomic 32 100 0 &&
	python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not (c["atomic"] > 0 and c["latency"]["atomic"]["count"] == c["atomic"]
              and c["write"] + c["read"] + c["send"] + c["atomic"] == c["messages"]))' \
		"$tmp/atomic.c.json"; then
	ok "atomics in the mix: every original value right, counted and timed"
else
	ko "atomics: client $crc, responder $rrc: $(tail -2 "$tmp/atomic.c.err")"
fi
"$gen" --no-pci -- --stateful 1 --op atomic --size 4 --port x --ip 198.18.0.1 127.0.0.1 \
	>/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && one | grep -q "^rk-gen: --op atomic: --size must allow 8 bytes" &&
	ok "atomics with 4-byte messages: exit 2" || ko "atomic --size 4: exit $rc, $(cat "$tmp/bad.err")"
# CMP_SWAPs: every QP's k-th found the value k swaps leave, over a lossy link too
run cas "--stateful 32 --op write,read,send,atomic,cmp_swap:3 --size 8-512 --iters 100 --depth 4 --tx-drop-rate 0.02 --seed 7"
if [ "$crc" = 0 ] && [ "$rrc" = 0 ] && check cas 32 100 1 &&
	python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not (c["cmp_swap"] > 0 and c["atomic"] > 0
              and c["latency"]["cmp_swap"]["count"] == c["cmp_swap"]
              and c["write"] + c["read"] + c["send"] + c["atomic"] + c["cmp_swap"]
                  == c["messages"]
              and c["counters"]["retransmitted_pkts"] > 0))' \
		"$tmp/cas.c.json"; then
	ok "CMP_SWAPs in the mix, 2% loss: every original value right, counted and timed"
else
	ko "CMP_SWAPs: client $crc, responder $rrc: $(tail -2 "$tmp/cas.c.err")"
fi
"$gen" --no-pci -- --stateful 1 --op write,cmp_swap --size 2-6 --port x --ip 198.18.0.1 \
	127.0.0.1 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && one | grep -q "^rk-gen: --op cmp_swap: --size must allow 8 bytes" &&
	ok "CMP_SWAPs with 6-byte messages: exit 2" || ko "cmp_swap --size 2-6: exit $rc, $(cat "$tmp/bad.err")"
"$gen" --no-pci -- --stateful 1 --op cmp_swap:1,cmp_swap:2 --port x --ip 198.18.0.1 \
	127.0.0.1 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && one | grep -q "^rk-gen: --op cmp_swap:1,cmp_swap:2: write, read, send, atomic, cmp_swap" &&
	ok "cmp_swap twice in --op: exit 2" || ko "cmp_swap twice: exit $rc, $(cat "$tmp/bad.err")"

# 7. the series: a row each 50 ms as CSV, in the JSON, and drawn; the rows'
#    messages add up to the run's; the run's final sliver is no row of its
#    own (a rate over it spikes): the last row spans 25 to 75 ms
plot=""
command -v gnuplot >/dev/null && plot="--plot $tmp/series.png"
run series "--stateful 16 --op write,read --duration 0.5 --depth 2 --interval 0.05 --csv $tmp/series.csv $plot"
got=$(python3 -c '
import csv, json, sys
c = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
times = [float(x["time"]) for x in rows]
msgs = 0.0
for i, x in enumerate(rows):
    end = times[i + 1] if i + 1 < len(rows) else c["seconds"]
    msgs += float(x["messages_per_s"]) * (end - times[i])
iv = [float(x.get("interval_s", -1)) for x in rows]
ok = (len(rows) >= 3 and len(c["series"]) == len(rows) and abs(msgs - c["messages"]) < 2
      and all(float(x["latency_p50_us"]) <= float(x["latency_p99_us"]) for x in rows)
      and all(abs(times[i] - 0.05 * i) < 1e-6 for i in range(len(rows)))
      and all(abs(v - 0.05) < 1e-6 for v in iv[:-1]) and 0.025 <= iv[-1] < 0.075
      and abs(times[-1] + iv[-1] - c["seconds"]) < 1e-3)
print("ok" if ok else "rows %d json %d messages %.1f of %d, intervals %s" % (len(rows),
      len(c["series"]), msgs, c["messages"], iv[-3:]))' "$tmp/series.c.json" "$tmp/series.csv" 2>&1)
png=ok
[ -n "$plot" ] && [ "$(head -c 4 "$tmp/series.png" 2>/dev/null | tail -c 3)" != PNG ] && png="no PNG"
[ "$crc" = 0 ] && [ "$got" = ok ] && [ "$png" = ok ] &&
	ok "series: rows of 50 ms as CSV and JSON, messages add up${plot:+, drawn}" ||
	ko "series: client $crc, $got, $png: $(tail -2 "$tmp/series.c.err")"

# 8. several source addresses on the client's port: QP i from 198.18.0.(16 + i mod 4)
run addrs "--stateful 8 --ip 198.18.0.16 --ip-count 4 --op write,read,send --iters 50 --depth 4 --record $tmp/addrs.pcapng"
if [ "$crc" = 0 ] && [ "$rrc" = 0 ] && check addrs 8 50 0; then
	got=$("$rk" -j "$tmp/addrs.pcapng" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
want = ["198.18.0.%d" % (16 + k) for k in range(4)]
src, dst = {}, {}
for q in d["qps"]:
    if q["kind"] != "RoCEv2":
        continue
    if q["src"] == "198.18.0.2":
        dst[q["dst"]] = dst.get(q["dst"], 0) + 1
    else:
        src[q["src"]] = src.get(q["src"], 0) + 1
bad = []
if src != {a: 2 for a in want}:
    bad.append("the client sent from %s" % src)
if dst != {a: 2 for a in want}:
    bad.append("the responder answered to %s" % dst)
if r.get("addresses") != want or c.get("addresses") != want:
    bad.append("addresses in the reports: %s / %s" % (r.get("addresses"), c.get("addresses")))
ips = sorted(set(q.get("ip") for q in r["worst_qps"]))
if not set(ips) <= set(want) or len(r["worst_qps"]) != 5:
    bad.append("worst QPs ip: %s" % ips)
print("ok" if not bad else "; ".join(bad))' "$tmp/addrs.r.json" "$tmp/addrs.c.json" 2>&1)
	[ "$got" = ok ] && ok "--ip-count 4: each QP from its own address, answered there, reported" ||
		ko "--ip-count 4 on the wire: $got"
else
	ko "--ip-count 4: client $crc, responder $rrc: $(tail -2 "$tmp/addrs.c.err") / $(tail -2 "$tmp/addrs.r.err")"
fi
for bad in "--stateful 1 --ip-count 0" "--stateful 1 --ip-count 257" \
	"--stateful 1 --ip 198.18.0.250 --ip-count 7" "--responder --ip-count 2"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $bad --port x $(case $bad in *--ip\ *) ;; *) echo --ip 198.18.0.1;; esac) \
		$(case $bad in --st*) echo 127.0.0.1;; esac) >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(one | grep -c "^rk-gen: --ip-count")" = 1 ] &&
		ok "bad $bad: exit 2, $(head -1 "$tmp/bad.err")" || ko "bad $bad: exit $rc, $(cat "$tmp/bad.err")"
done

# 8b. the responder gone mid-run (killed): the client fails, and its
#    report still gives the time it ran and its goodput, not 0 s
# shellcheck disable=SC2086
# (not under timeout(1): its KILL would leave rk-gen running)
"$gen" $MEM --no-pci --log-level='*:error' -l $CORE_R --file-prefix rksg$$ \
	--vdev=net_memif0,role=server,socket=$tmp/gone.sock,bsize=9216 -- \
	--responder --port net_memif0 --ip 198.18.0.2 --oob-port $OOB >/dev/null 2>"$tmp/gone.r.err" &
rpid=$!
listening gone
# shellcheck disable=SC2086
timeout -k 5 200 "$gen" $MEM --no-pci --log-level='*:error' -l 0 --file-prefix rksh$$ \
	--vdev=net_memif0,role=client,socket=$tmp/gone.sock,bsize=9216 -- \
	--stateful 4 --duration 60 --timeout 1 --port net_memif0 --ip 198.18.0.1 \
	--oob-port $OOB --json 127.0.0.1 >"$tmp/gone.c.json" 2>"$tmp/gone.c.err" &
cpid=$!
wait_line "$tmp/gone.c.err" "RC QPs connected" 30 "$cpid"
sleep 1
kill -KILL "$rpid" 2>/dev/null
wait "$rpid"
rpid=""
wait "$cpid"
crc=$?
OOB=$((OOB + 1))
got=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
bad = []
if c["ok"]:
    bad.append("ok")
if not c["seconds"] >= 1:
    bad.append("seconds %s" % c["seconds"])
if c["messages"] > 0 and not c["goodput_gbps"] > 0:
    bad.append("goodput %s" % c["goodput_gbps"])
print("ok" if not bad else "; ".join(bad))' "$tmp/gone.c.json" 2>&1)
[ $crc = 1 ] && [ "$got" = ok ] &&
	ok "responder gone: client exit 1, its report the time it ran ($(tail -1 "$tmp/gone.c.err"))" ||
	ko "responder gone: client exit $crc, $got, $(tail -2 "$tmp/gone.c.err")"

# 8c. --csv -: the series on stdout (as the stateless mode's), no file "-"
# shellcheck disable=SC2086
"$gen" $MEM --no-pci --log-level='*:error' -l $CORE_R --file-prefix rksg$$ \
	--vdev=net_memif0,role=server,socket=$tmp/out.sock,bsize=9216 -- \
	--responder --port net_memif0 --ip 198.18.0.2 --oob-port $OOB >/dev/null 2>"$tmp/out.r.err" &
rpid=$!
listening out
gen_abs=$(cd "$(dirname "$gen")" && pwd)/$(basename "$gen")
# shellcheck disable=SC2086
(cd "$tmp" && timeout -k 5 200 "$gen_abs" $MEM --no-pci --log-level='*:error' -l 0 --file-prefix rksh$$ \
	--vdev=net_memif0,role=client,socket=$tmp/out.sock,bsize=9216 -- \
	--stateful 4 --duration 0.3 --interval 0.1 --csv - --port net_memif0 --ip 198.18.0.1 \
	--oob-port $OOB 127.0.0.1 >"$tmp/out.csv" 2>"$tmp/out.c.err")
crc=$?
wait "$rpid"
rrc=$?
rpid=""
OOB=$((OOB + 1))
[ $crc = 0 ] && [ $rrc = 0 ] && [ ! -e "$tmp/-" ] &&
	head -1 "$tmp/out.csv" | grep -q "^time,messages_per_s,gbit_s," &&
	[ "$(grep -c '^[0-9]' "$tmp/out.csv")" -ge 3 ] &&
	ok "--csv -: the series on stdout, $(grep -c '^[0-9]' "$tmp/out.csv") rows, no file '-'" ||
	ko "--csv -: client $crc, responder $rrc, $(ls "$tmp"), $(head -3 "$tmp/out.csv") $(tail -2 "$tmp/out.c.err")"

# 8d. one QP, reported as text: "1 RC QP connected", "client: 1 QP, ...",
#    "worst 1 QP:" at both ends, no "1 QPs"
REPORT= run one "--stateful 1 --iters 10"
[ $crc = 0 ] && [ $rrc = 0 ] &&
	grep -qx "rk-gen: 1 RC QP connected" "$tmp/one.c.err" &&
	grep -qx "rk-gen: 1 RC QP connected" "$tmp/one.r.err" &&
	grep -q "^client: 1 QP, 10 messages" "$tmp/one.c.json" &&
	grep -q "^responder: 1 QP, 10 messages" "$tmp/one.r.json" &&
	[ "$(cat "$tmp/one.c.json" "$tmp/one.r.json" | grep -cx "worst 1 QP:")" = 2 ] &&
	! cat "$tmp/one".* | grep -q "[^0-9]1 \(RC \)\?QPs" &&
	ok "one QP: 'QP' in the text reports, not 'QPs'" ||
	ko "one QP: client $crc, responder $rrc: $(cat "$tmp/one".* | grep "QP" | grep -v "^ ")"

# 9. the command line. An option without its value: getopt's line would
#    name the program's path; this is one line of rk-gen's own.
for bad in "--responder --qps" "--stateful 1 --size" "--stateful 2 --ip 198.18.0.1 --op"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $bad >/dev/null 2>"$tmp/bad.err"
	rc=$?
	want="rk-gen: option ${bad##* } needs an argument (--help for usage)"
	[ $rc = 2 ] && [ "$(cat "$tmp/bad.err")" = "$want" ] &&
		ok "$bad (no value): exit 2, $want" || ko "$bad (no value): exit $rc, '$(cat "$tmp/bad.err")'"
done
# "--stateful --help" (no count yet): the stateful help, exit 0
for h in "--stateful --help" "--stateful -h"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $h >"$tmp/help.out" 2>"$tmp/help.err"
	rc=$?
	[ $rc = 0 ] && grep -q "^usage: rk-gen .*--responder" "$tmp/help.out" && [ ! -s "$tmp/help.err" ] &&
		ok "$h: the stateful help, exit 0" || ko "$h: exit $rc, '$(head -1 "$tmp/help.err")'"
done
# an option of the stateless mode only: named as such
for bad in "--responder --rate 5" "--stateful 1 --pcap x.pcap"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $bad >/dev/null 2>"$tmp/bad.err"
	rc=$?
	opt=$(echo "$bad" | awk '{ print $(NF - 1) }')
	want="rk-gen: $opt belongs to the stateless mode (not with --stateful or --responder) (--help for usage)"
	[ $rc = 2 ] && [ "$(cat "$tmp/bad.err")" = "$want" ] &&
		ok "$bad: exit 2, $want" || ko "$bad: exit $rc, '$(cat "$tmp/bad.err")'"
done
# options of the other end: the client's hello sets the traffic, the
# responder its limits; refused naming the option and its end
for bad in "--responder --op write" "--responder --size 64" "--responder --iters 5" \
	"--responder --duration 1" "--responder --depth 2" "--responder --mtu 2048" \
	"--responder --no-verify" "--stateful 1 --qps 4" "--stateful 1 --clients 2"; do
	opt=$(echo "$bad" | awk '{ for (i = NF; i > 0; i--) if ($i ~ /^--/) { print $i; exit } }')
	end=client
	case $opt in --qps|--clients) end=responder;; esac
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $bad --port x --ip 198.18.0.1 $(case $bad in --st*) echo 127.0.0.1;; esac) \
		>/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && one | grep -q "^rk-gen: $opt is the $end's (" &&
		ok "$bad: exit 2, $(head -1 "$tmp/bad.err")" || ko "$bad: exit $rc, '$(cat "$tmp/bad.err")'"
done
"$gen" --no-pci -- --responder --clients 3 --qps 2 --port x --ip 198.18.0.1 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && one | grep -q "^rk-gen: --qps 2 with --clients 3: each client needs a QP" &&
	ok "--qps 2 below --clients 3: exit 2" || ko "--qps below --clients: exit $rc, '$(cat "$tmp/bad.err")'"
# a series file in a directory that does not exist: said at the start
# (exit 2; a port "x" opened would have been exit 1), nothing run
for o in "--csv $tmp/none/s.csv" "--plot $tmp/none/s.png"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- --stateful 1 $o --port x --ip 198.18.0.1 127.0.0.1 >/dev/null 2>"$tmp/bad.err"
	rc=$?
	if [ "${o%% *}" = --plot ] && ! command -v gnuplot >/dev/null; then
		one | grep -q "^rk-gen: --plot" && [ $rc = 2 ] && ok "$o without gnuplot: exit 2" ||
			ko "$o: exit $rc, '$(cat "$tmp/bad.err")'"
		continue
	fi
	[ $rc = 2 ] && one | grep -q "^rk-gen: ${o%% *} $tmp/none/s\.[a-z]*: No such file or directory (--help for usage)$" &&
		ok "$o (no such directory): exit 2 at the start" || ko "$o: exit $rc, '$(cat "$tmp/bad.err")'"
done
# --record's file too (exit 2 at the start, not 1 from the recorder)
"$gen" --no-pci -- --stateful 1 --record "$tmp/none/r.pcapng" --port x --ip 198.18.0.1 127.0.0.1 \
	>/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && one | grep -q "^rk-gen: --record $tmp/none/r\.pcapng: No such file or directory (--help for usage)$" &&
	ok "--record (no such directory): exit 2 at the start" || ko "--record: exit $rc, '$(cat "$tmp/bad.err")'"
# an empty element of --op (strtok would skip it), --iters with
# --duration (one ends the run), --csv - with --json (both stdout)
for bad in "--op write,:--op write,:" "--op ,read:--op ,read:" "--op write,,read:--op write,,read:" \
	"--iters 5 --duration 1:--iters and --duration" "--csv - --json:--csv - takes standard output"; do
	args=${bad%%:*}
	want=${bad#*:}
	# shellcheck disable=SC2086
	"$gen" --no-pci -- --stateful 1 $args --port x --ip 198.18.0.1 127.0.0.1 >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && one | grep -qF "rk-gen: $want" &&
		ok "$args: exit 2, $(head -1 "$tmp/bad.err")" || ko "$args: exit $rc, '$(cat "$tmp/bad.err")'"
done
# a memif client with no peer: the wait for the link ends within --timeout
# (not the port's default 10 s, nor twice it: under 8 s with the EAL on a
# loaded machine), one line says the link is down, and memif's line for
# each connect retried is not repeated
t0=$(date +%s%N)
# shellcheck disable=SC2086
"$gen" $MEM --no-pci -l 0 --file-prefix rksl$$ --vdev=net_memif0,role=client,socket=$tmp/nopeer.sock \
	-- --stateful 1 --timeout 1 --port net_memif0 --ip 198.18.0.1 127.0.0.1 >/dev/null 2>"$tmp/link.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 1 ] && [ $ms -lt 8000 ] && [ "$(grep -c "^rk-gen:" "$tmp/link.err")" = 1 ] &&
	grep -q "^rk-gen: cannot open port net_memif0: link down" "$tmp/link.err" &&
	[ "$(grep -c memif_connect_client "$tmp/link.err")" -le 1 ] &&
	ok "no peer, --timeout 1: link down in $ms ms, one line" ||
	ko "no peer, --timeout 1: exit $rc in $ms ms, $(grep -c . "$tmp/link.err") lines: $(tail -3 "$tmp/link.err")"
# a responder waiting for its client, SIGINT: "interrupted" as rk-perf
# says it, exit 1 (not "Interrupted system call")
for k in 1 2; do
	# rk-gen itself gets the signal (timeout(1) would add its own KILL
	# 5 s after forwarding it); 30 s to end, else killed and failed
	# shellcheck disable=SC2086
	"$gen" $MEM --no-pci --log-level='*:error' -l $CORE_R --file-prefix rksi$$ \
		--vdev=net_null0 -- --responder --clients $k --port net_null0 --ip 198.18.0.2 \
		--oob-port $OOB >/dev/null 2>"$tmp/int.err" &
	rpid=$!
	# until it listens (the EAL and the port first)
	for _ in $(seq 100); do
		ss -ltn 2>/dev/null | grep -q ":$OOB " && break
		sleep 0.1
	done
	sleep 0.2
	kill -INT "$rpid"
	for _ in $(seq 300); do
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$rpid" 2>/dev/null
	wait "$rpid"
	rc=$?
	rpid=""
	OOB=$((OOB + 1))
	[ $rc = 1 ] && grep -qx "rk-gen: error: interrupted" "$tmp/int.err" &&
		! grep -q "Interrupted system call" "$tmp/int.err" &&
		ok "responder of $k client(s) interrupted while waiting: 'interrupted', exit 1" ||
		ko "responder of $k interrupted: exit $rc, '$(cat "$tmp/int.err")'"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
