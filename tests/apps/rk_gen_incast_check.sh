#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-gen's stateful N:1 incast of real connections: three client
# processes into one `rk-gen --responder --clients 3`, each on its own
# net_af_packet port, all ports on one Linux bridge in a network
# namespace the test makes (net_memif joins exactly two ports, so it
# cannot put three senders onto one receiver's port). The clients start
# at different times with different QP counts and mixes (CMP_SWAPs and
# FETCH_ADDs among them); every process exits 0, and for each client the
# responder's report has its own entry (by address) whose messages are
# that client's WRITEs and SENDs, its QPs the client's, no data, sequence
# or completion error at either end, every atomic's original value right
# at the client. Then a client beyond --qps (all clients together) is
# refused at both ends, and --clients outside 1..64 or on a client exits 2.
# The responder's series (--interval, --csv): a row per client and one of
# all per interval, each client's adding up to its own messages and the
# clients' to all's (one client of two addresses, --ip-count, among them).
# Skipped where no namespace can be made.
# usage: rk_gen_incast_check.sh RK_GEN   (RK_KEEP=1 keeps its files)
set -u
gen=$1
tmp=$(mktemp -d)
ns=rkgi$$
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	ip netns del $ns 2>/dev/null
	[ -n "${RK_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
# a signal ends the run (the EXIT trap cleans up), never carries on without its files
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

. "$(dirname "$0")/../helpers/dpdk-mem.sh"
. "$(dirname "$0")/../helpers/veth-pair.sh"
NCPU=$(nproc)
CORE_R=$((NCPU > 1 ? 1 : 0))
OOB=$((20000 + $$ % 20000))

# the option errors need no namespace
for bad in "--responder --clients 0" "--responder --clients 65" "--stateful 2 --clients 2"; do
	# shellcheck disable=SC2086
	"$gen" --no-pci -- $bad --port x --ip 198.18.0.1 $(case $bad in --st*) echo 127.0.0.1;; esac) \
		>/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] && head -1 "$tmp/bad.err" | grep -q "^rk-gen: --clients" &&
		ok "$bad: exit 2, $(head -1 "$tmp/bad.err")" || ko "$bad: exit $rc, $(cat "$tmp/bad.err")"
done

if ! err=$(bridge_ns_up $ns rkgsw rkg rkb r c1 c2 c3); then
	echo "skip the incast: $err"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
fi

# dpdk EAL options of end E (r, c1, c2, c3) on core C
eal() {
	echo "$MEM --no-pci --log-level=*:error -l $2 --file-prefix rkgi$1$$ --vdev=net_af_packet0,iface=rkg$1"
}

# incast NAME K "responder options" "client 1 options" "client 2 options" ...
incast() {
	name=$1
	k=$2
	ropts=$3
	shift 3
	# shellcheck disable=SC2046,SC2086
	timeout -k 5 200 ip netns exec $ns "$gen" $(eal r $CORE_R) -- --responder --clients $k \
		--port net_af_packet0 --ip 198.18.0.10 --oob-port $OOB --json $ropts \
		>"$tmp/$name.r.json" 2>"$tmp/$name.r.err" &
	rpid=$!
	pids="$rpid"
	sleep 1
	c=0
	for copts in "$@"; do
		c=$((c + 1))
		# shellcheck disable=SC2046,SC2086
		timeout -k 5 200 ip netns exec $ns "$gen" $(eal c$c 0) -- --port net_af_packet0 \
			--ip 198.18.0.$c --oob-port $OOB --json $copts 127.0.0.1 \
			>"$tmp/$name.c$c.json" 2>"$tmp/$name.c$c.err" &
		pids="$pids $!"
		echo "$!" >"$tmp/$name.c$c.pid"
		sleep 0.5
	done
	crcs=""
	c=0
	for copts in "$@"; do
		c=$((c + 1))
		wait "$(cat "$tmp/$name.c$c.pid")"
		crcs="$crcs $?"
	done
	wait "$rpid"
	rrc=$?
	pids=""
	OOB=$((OOB + 1))
}

incast three 3 "" \
	"--stateful 8 --op write:2,read,cmp_swap:2 --size 8-1024 --iters 200 --depth 4" \
	"--stateful 16 --op send,atomic,cmp_swap --size 16-512 --iters 150 --depth 2" \
	"--stateful 4 --op write,read,send,atomic,cmp_swap:3 --size 8-4000 --iters 300"
got=$(python3 - "$tmp/three" 3 "8 16 4" "200 150 300" <<'PY' 2>&1
import json, sys
base, n = sys.argv[1], int(sys.argv[2])
qps = [int(x) for x in sys.argv[3].split()]
iters = [int(x) for x in sys.argv[4].split()]
bad = []
r = json.load(open(base + ".r.json"))
by_ip = {e["client"]: e for e in r.get("clients", [])}
if not r.get("ok") or len(by_ip) != n:
    bad.append("responder ok %s, %d client entries" % (r.get("ok"), len(by_ip)))
tot = 0
for k in range(1, n + 1):
    c = json.load(open("%s.c%d.json" % (base, k)))
    e = by_ip.get("198.18.0.%d" % k)
    if e is None:
        bad.append("client %d: no entry at the responder" % k)
        continue
    ws = c["write"] + c["send"]
    tot += e["messages"]
    for what, got, want in (("QPs", c["qps"], qps[k - 1]), ("responder's QPs", e["qps"], qps[k - 1]),
                            ("messages", c["messages"], qps[k - 1] * iters[k - 1]),
                            ("WRITE+SEND at the responder", e["messages"], ws),
                            ("peer count at the client", c.get("peer_messages"), e["messages"]),
                            ("client ok", c["ok"], True), ("entry ok", e["ok"], True)):
        if got != want:
            bad.append("client %d %s: %s, expected %s" % (k, what, got, want))
    for side, j in (("client", c), ("responder", e)):
        for f in ("data_errors", "sequence_errors", "completion_errors"):
            if j[f] != 0:
                bad.append("client %d, %s %s: %s" % (k, side, f, j[f]))
    if c.get("cmp_swap", 0) == 0 or c["latency"]["cmp_swap"]["count"] != c["cmp_swap"]:
        bad.append("client %d: cmp_swap %s" % (k, c.get("cmp_swap")))
if r.get("messages") != tot or r.get("qps") != sum(qps):
    bad.append("responder totals: %s messages, %s QPs" % (r.get("messages"), r.get("qps")))
print("ok" if not bad else "; ".join(bad))
PY
)
[ "$crcs" = " 0 0 0" ] && [ "$rrc" = 0 ] && [ "$got" = ok ] &&
	ok "3:1 incast: 28 QPs from three processes, every client's messages checked and counted apart" ||
	ko "3:1 incast: clients$crcs, responder $rrc: $got: $(tail -2 "$tmp/three.r.err")"

# the responder's series: per-client rows, their sums, all's
plot=""
command -v gnuplot >/dev/null && plot="--plot $tmp/series.png"
incast series 3 "--interval 0.05 --csv $tmp/series.csv $plot" \
	"--stateful 4 --op write,read --duration 0.6 --depth 2" \
	"--stateful 8 --op send --duration 0.4 --depth 2" \
	"--stateful 2 --ip 198.18.0.20 --ip-count 2 --op write --duration 0.5"
got=$(python3 - "$tmp/series" <<'PY' 2>&1
import csv, json, sys
base = sys.argv[1]
r = json.load(open(base + ".r.json"))
rows = list(csv.DictReader(open(base + ".csv")))
bad = []
if not rows or list(rows[0].keys())[:2] != ["time", "client"]:
    bad.append("CSV columns %s" % (list(rows[0].keys()) if rows else None))
by = {}
for x in rows:
    by.setdefault(x["client"], []).append(x)
if sorted(by) != ["1", "2", "3", "all"]:
    bad.append("CSV clients %s" % sorted(by))
end = r.get("seconds", 0)
def msgs(rs):
    t = [float(x["time"]) for x in rs]
    return sum(float(x["messages_per_s"]) * ((t[i + 1] if i + 1 < len(t) else end) - t[i])
               for i, x in enumerate(rs))
alls = by.get("all", [])
if len(alls) < 5 or len(r.get("series", [])) != len(alls):
    bad.append("%d rows of all, %d in the JSON" % (len(alls), len(r.get("series", []))))
if abs(msgs(alls) - r["messages"]) >= 2:
    bad.append("all's rows: %.1f messages of %d" % (msgs(alls), r["messages"]))
ents = r.get("clients", [])
want_ip = ["198.18.0.1", "198.18.0.2", "198.18.0.20"]
for k, e in enumerate(ents):
    rs = by.get(str(k + 1), [])
    if e.get("client") != want_ip[k] or len(e.get("series", [])) != len(rs) or not rs:
        bad.append("client %d: %s, %d rows, %d in its JSON" % (k + 1, e.get("client"), len(rs),
                                                              len(e.get("series", []))))
    elif abs(msgs(rs) - e["messages"]) >= 2 or e["messages"] == 0:
        bad.append("client %d's rows: %.1f messages of %d" % (k + 1, msgs(rs), e["messages"]))
# at each time, the clients' rates add up to all's
for x in alls:
    s = sum(float(y["messages_per_s"]) for c in ("1", "2", "3") for y in by.get(c, [])
            if y["time"] == x["time"])
    if abs(s - float(x["messages_per_s"])) > 1e-6 * max(1.0, s):
        bad.append("at %s: clients %.3f, all %s" % (x["time"], s, x["messages_per_s"]))
        break
if sum(e["messages"] for e in ents) != r["messages"] or sum(e["bytes"] for e in ents) != r.get("bytes"):
    bad.append("totals: messages %s, bytes %s" % (r["messages"], r.get("bytes")))
if ents and ents[2].get("addresses") != ["198.18.0.20", "198.18.0.21"]:
    bad.append("client 3's addresses: %s" % ents[2].get("addresses"))
print("ok" if not bad else "; ".join(bad))
PY
)
png=ok
[ -n "$plot" ] && [ "$(head -c 4 "$tmp/series.png" 2>/dev/null | tail -c 3)" != PNG ] && png="no PNG"
[ "$crcs" = " 0 0 0" ] && [ "$rrc" = 0 ] && [ "$got" = ok ] && [ "$png" = ok ] &&
	ok "responder series of 3 clients: per-client rows add up to each client's and to all's${plot:+, drawn}" ||
	ko "responder series: clients$crcs, responder $rrc: $got, $png: $(tail -2 "$tmp/series.r.err")"

# a client beyond --qps (all clients together) is refused at both ends
incast over 2 "--qps 12" "--stateful 8 --iters 20" "--stateful 8 --iters 20"
[ "$crcs" = " 0 1" ] && [ "$rrc" = 1 ] &&
	grep -q "client 2 asks for 8 QPs; this end takes at most 4" "$tmp/over.r.err" &&
	grep -q "the responder refused this client: the client 2 asks for 8 QPs; this end takes at most 4 (--qps)" "$tmp/over.c2.err" &&
	ok "a second client beyond --qps 12: refused and told why, the first's run completed" ||
	ko "over --qps: clients$crcs, responder $rrc: $(tail -1 "$tmp/over.r.err") / $(tail -1 "$tmp/over.c2.err")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
