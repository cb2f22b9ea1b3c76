#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-sim's scenario commands (incast, victim, deadlock, unfair, recovery,
# storm, stagger): each run's line, CSV, JSON and PNG against one another
# and the numbers the scenario must show; their option errors; --csv -.
# usage: sim_scenarios_check.sh RK_SIM
. "$(dirname "$0")/sim_cli_lib.sh"
# rk-sim incast: 4 line-rate senders into one 100 Gb/s port for 5 ms. With
# PFC nothing is dropped and the port sends at line rate (5 ms of 1078-byte
# frames back to back, the model counting no preamble or gap: 57977), pausing
# its senders;
# without PFC the excess is dropped. The JSON agrees with the line.
timeout 60 "$sim" incast --senders 4 --pfc on --duration 5 --json "$tmp/on.json" >"$tmp/on" 2>&1
timeout 60 "$sim" incast --senders 4 --pfc off --duration 5 >"$tmp/off" 2>&1
if python3 - "$tmp/on" "$tmp/on.json" "$tmp/off" <<'PY'
import json, re, sys
def line(p):
    m = re.search(r"out (\d+) frames, marked (\d+), queue peak (\d+) B, dropped (\d+)", open(p).read())
    return [int(x) for x in m.groups()]
on, off = line(sys.argv[1]), line(sys.argv[3])
d = json.load(open(sys.argv[2]))
ok = (57900 <= on[0] <= 57977 and on[3] == 0 and d["pfc_events_total"] > 0 and
      off[3] > 0 and sum(p["drops"] for p in d["ports_prio3"]) == 0)
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim incast: $(cat "$tmp/on" "$tmp/off")"
	fail=$((fail + 1))
fi
# rk-sim incast --dcqcn: 2 DCQCN RC QPs at 40 Gb/s for 20 ms: no drop, CE
# marks answered, each flow near its fair share of 20 Gb/s over the run, the
# queue under 250 KB at its peak; CSV, JSON (and PNG with gnuplot) agree.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--png $tmp/dq.png"
# shellcheck disable=SC2086
timeout 120 "$sim" incast --dcqcn --senders 2 --duration 20 --csv "$tmp/dq.csv" \
	--json "$tmp/dq.json" $png_arg >"$tmp/dq" 2>&1
if python3 - "$tmp/dq" "$tmp/dq.csv" "$tmp/dq.json" "${png_arg:+$tmp/dq.png}" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
m = re.search(r"queue avg ([\d.]+) KB, peak (\d+) B, marked (\d+), dropped (\d+)", out)
flows = [float(x) for x in re.findall(r"flow \d+: ([\d.]+) Gb/s", out)]
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
ok = (m and int(m.group(4)) == 0 and int(m.group(3)) > 0 and int(m.group(2)) < 250000 and
      len(flows) == 2 and all(15 <= f <= 25 for f in flows) and len(rows) == 4000 and
      max(int(r["cnps"]) for r in rows) > 0 and d["dropped"] == 0 and
      abs(d["queue_avg_bytes"] / 1000 - float(m.group(1))) < 0.1 and len(d["trace"]) == 400)
if sys.argv[4]:
    ok = ok and open(sys.argv[4], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim incast --dcqcn: $(cat "$tmp/dq")"
	fail=$((fail + 1))
fi
# --stagger: flow 1 starts 10 ms after flow 0; the line says from when both
# stay within 10 % of 20 Gb/s, and the JSON agrees with it and the trace.
if timeout 120 "$sim" incast --dcqcn=nvidia-default --stagger 10 --duration 40 --json "$tmp/sg.json" \
	>"$tmp/sg" 2>&1 && python3 - "$tmp/sg" "$tmp/sg.json" <<'PY'
import json, re, sys
out = open(sys.argv[1]).read()
m = re.search(r"staggered by 10 ms, last start at 10 ms: each flow within 10 % of its "
              r"share of the link from (\d+) ms on \((\d+) ms after the last start\)", out)
d = json.load(open(sys.argv[2]))
early = [r for r in d["trace"] if r["flow"] == 1 and r["t_ns"] <= 10000000]
sys.exit(0 if m and int(m.group(1)) == d["fair_from_ms"] and 10 <= d["fair_from_ms"] <= 30 and
         int(m.group(2)) == d["fair_from_ms"] - 10 and d["stagger_ms"] == 10 and early and
         all(r["rate_gbps"] == 0 for r in early) else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim incast --dcqcn --stagger: $(cat "$tmp/sg")"
	fail=$((fail + 1))
fi
expect 2 "--stagger needs 2 senders or more" incast --dcqcn --senders 1 --stagger 5
expect 2 "--stagger needs 2 senders or more" incast --dcqcn --stagger 19
expect 2 "--stagger 1..1000" incast --dcqcn --stagger 0
expect 2 "unknown --dcqcn profile 'bogus'" incast --dcqcn=bogus
expect 2 "No such file or directory" incast --dcqcn --json "$tmp/no/x.json"
expect 2 "unexpected argument 'extra'" incast extra
expect 2 "No such file or directory" incast --json "$tmp/no/x.json"
# rk-sim victim: 8 senders and a victim, 20 ms: with PFC alone the victim
# gets about a ninth of the uplink (5 Gb/s) while the uplink is paused
# most of the run; with DCQCN the pauses stop and the victim gains; the
# table, CSV and JSON agree; nothing dropped.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--png $tmp/v.png"
# shellcheck disable=SC2086
timeout 120 "$sim" victim --duration 20 --csv "$tmp/v.csv" --json "$tmp/v.json" $png_arg \
	>"$tmp/v" 2>&1
if python3 - "$tmp/v" "$tmp/v.csv" "$tmp/v.json" "${png_arg:+$tmp/v.png}" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
tab = {m[0]: [float(x) for x in m[1:]] for m in
       re.findall(r"^(pfc|pfc\+dcqcn) +([\d.]+) +([\d.]+) +([\d.]+) +(\d+) +(\d+) +(\d+)$",
                  out, re.M)}
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
runs = {r["run"]: r for r in d["runs"]}
p, q = tab.get("pfc"), tab.get("pfc+dcqcn")
ok = (p is not None and q is not None and p[0] < 6 and p[2] > 15 and q[2] < 1 and
      q[0] > 2 * p[0] and p[5] == 0 and q[5] == 0 and p[1] > 38 and
      len(rows) == 400 and {r["run"] for r in rows} == {"pfc", "pfc+dcqcn"} and
      abs(runs["pfc"]["victim_gbps"] - p[0]) < 0.01 and
      runs["pfc+dcqcn"]["uplink_paused_ns"] == int(rows[-1]["uplink_paused_ns"]) and
      len(d["trace"]) == 400)
if sys.argv[4]:
    ok = ok and open(sys.argv[4], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim victim: $(cat "$tmp/v")"
	fail=$((fail + 1))
fi
# --storm: from 8 ms the receiver pauses its port forever; by 10 ms nothing
# moves in either run, the victim included.
if timeout 60 "$sim" victim --duration 12 --storm 8 --json "$tmp/st.json" >"$tmp/st" 2>&1 &&
	python3 - "$tmp/st.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
late = [r for r in d["trace"] if r["t_ns"] > 10000000]
sys.exit(0 if d["storm_ms"] == 8 and late and
         all(r["victim_gbps"] == 0 and r["incast_gbps"] == 0 for r in late) and
         all(r["victim_gbps"] < 0.5 for r in d["runs"]) else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim victim --storm: $(cat "$tmp/st")"
	fail=$((fail + 1))
fi
expect 2 "--storm must start before" victim --storm 30
expect 2 "--storm 1..999" victim --storm 0
expect 2 "--pfcwd 1..999" victim --storm 5 --pfcwd 0
expect 2 "--senders 1..32" victim --senders 0
expect 2 "--pmax" victim --pmax 1.5
expect 2 "--kmax" victim --kmax 10
expect 2 "unknown --dcqcn profile 'bogus'" victim --dcqcn=bogus
expect 2 "No such file or directory" victim --json "$tmp/no/x.json"
expect 2 "unexpected argument 'extra'" victim extra
# rk-sim deadlock: with a flow on each of 4 switches the pauses form a
# cycle and frames stay held for good; without the last two flows the ring
# drains; the PFC watchdog breaks the cycle by dropping what it held. The
# table, CSV and JSON agree.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--png $tmp/dl.png"
# shellcheck disable=SC2086
timeout 60 "$sim" deadlock --csv "$tmp/dl.csv" --json "$tmp/dl.json" $png_arg >"$tmp/dl" 2>&1
timeout 60 "$sim" deadlock --pfcwd 1 --json "$tmp/dlw.json" >"$tmp/dlw" 2>&1
if python3 - "$tmp/dl" "$tmp/dl.csv" "$tmp/dl.json" "$tmp/dlw.json" "${png_arg:+$tmp/dl.png}" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
tab = {m[0]: [int(m[1]), int(m[2]), int(m[3]), int(m[4])] for m in
       re.findall(r"^(cyclic|acyclic) +(\d+) +(\d+) +(\d+) +(\d+) +[\d.]+ +\d+ +\d+  ", out, re.M)}
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
w = {r["run"]: r for r in json.load(open(sys.argv[4]))["runs"]}
runs = {r["run"]: r for r in d["runs"]}
cy, ac = tab.get("cyclic"), tab.get("acyclic")
last = {r["run"]: r for r in rows}
ok = (cy is not None and ac is not None and cy[0] == 4 and ac[0] == 2 and
      cy[3] > 0 and cy[1] == cy[2] + cy[3] and "deadlocked" in out and
      ac[3] == 0 and ac[1] == ac[2] and ac[2] > 10000 and "drained at" in out and
      runs["cyclic"]["deadlocked"] and not runs["acyclic"]["deadlocked"] and
      runs["cyclic"]["held_frames"] == cy[3] == int(last["cyclic"]["held_frames"]) and
      runs["cyclic"]["buffered_bytes"] == 1000 * cy[3] and
      runs["cyclic"]["headroom_drops"] == 0 and
      float(last["cyclic"]["delivered_gbps"]) == 0 and len(rows) == 200 and
      int(last["cyclic"]["ring_links_paused"]) == 4 and
      int(last["acyclic"]["ring_links_paused"]) == 0 and
      len(d["trace"]) == 200 and
      not w["cyclic"]["deadlocked"] and w["cyclic"]["pfcwd_drops"] == cy[3] and
      w["cyclic"]["held_frames"] == 0)
if sys.argv[5]:
    ok = ok and open(sys.argv[5], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim deadlock: $(cat "$tmp/dl" "$tmp/dlw")"
	fail=$((fail + 1))
fi
expect 2 "--switches 3..8" deadlock --switches 2
expect 2 "--send must end before --duration" deadlock --send 10
expect 2 "--pfcwd 1..100" deadlock --pfcwd 0
expect 2 "--duration 2..200" deadlock --duration 1000
expect 2 "unexpected argument 'extra'" deadlock extra
# rk-sim unfair: PFC gives the lone sender half the receiver's port and
# each of the three behind the uplink a sixth; DCQCN a quarter each. The
# table, CSV and JSON agree.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--png $tmp/uf.png"
# shellcheck disable=SC2086
timeout 120 "$sim" unfair --duration 20 --csv "$tmp/uf.csv" --json "$tmp/uf.json" $png_arg \
	>"$tmp/uf" 2>&1
if python3 - "$tmp/uf" "$tmp/uf.csv" "$tmp/uf.json" "${png_arg:+$tmp/uf.png}" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
tab = {m[0]: [float(x) for x in m[1].split()] for m in
       re.findall(r"^(pfc|pfc\+dcqcn) +([\d. ]+)$", out, re.M)}
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
runs = {r["run"]: r for r in d["runs"]}
p, q = tab.get("pfc"), tab.get("pfc+dcqcn")
ok = (p is not None and q is not None and len(p) == 8 and len(q) == 8 and
      18 < p[3] < 22 and all(5 < x < 8 for x in p[:3]) and p[4] < 0.8 and
      all(7 < x < 13 for x in q[:4]) and q[4] >= 0.97 and p[7] == 0 and q[7] == 0 and
      all(abs(a - b) < 0.01 for a, b in zip(runs["pfc"]["gbps"], p[:4])) and
      abs(runs["pfc+dcqcn"]["jain"] - q[4]) < 0.001 and
      len(rows) == 400 and list(rows[0])[2:] == ["flow%d_gbps" % i for i in range(4)] and
      len(d["trace"]) == 400 and len(d["trace"][0]["gbps"]) == 4)
if sys.argv[4]:
    ok = ok and open(sys.argv[4], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim unfair: $(cat "$tmp/uf")"
	fail=$((fail + 1))
fi
expect 2 "--senders 2..7" unfair --senders 1
expect 2 "--senders 2..7" unfair --senders 8
expect 2 "--duration 2..1000" unfair --duration 0
expect 2 "unknown --dcqcn profile 'bogus'" unfair --dcqcn=bogus
expect 2 "unexpected argument 'extra'" unfair extra
# rk-sim recovery: without PFC the incast drops, go-back-N resends far
# more than selective repeat and gets less; with PFC nothing is dropped and
# the two runs are the same. The table, CSV and JSON agree.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--plot $tmp/rc.png"
# shellcheck disable=SC2086
timeout 120 "$sim" recovery --duration 10 --csv "$tmp/rc.csv" --json "$tmp/rc.json" $png_arg \
	>"$tmp/rc" 2>&1 &&
timeout 120 "$sim" recovery --duration 10 --pfc on --json "$tmp/rcp.json" >"$tmp/rcp" 2>&1
if python3 - "$tmp/rc" "$tmp/rc.csv" "$tmp/rc.json" "$tmp/rcp.json" "${png_arg:+$tmp/rc.png}" "$tmp/rcp" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
tab = {m[0]: [float(x) for x in m[1].split()] for m in
       re.findall(r"^(gbn|sr) +([\d. ]+)$", out, re.M)}
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
p = json.load(open(sys.argv[4]))
runs = {r["recovery"]: r for r in d["runs"]}
prun = {r["recovery"]: r for r in p["runs"]}
g, s = tab.get("gbn"), tab.get("sr")
# Gb/s, f0..f3, sent, resent, timeouts, rto_low, drops, PFC, failed: RTO_low
# is selective repeat's alone, and the table and JSON count the same.
ok = (g is not None and s is not None and len(g) == 12 and len(s) == 12 and
      g[9] > 0 and s[9] > 0 and g[6] > 5 * s[6] and s[0] > g[0] + 2 and
      g[8] == 0 and s[8] <= s[7] and
      abs(runs["gbn"]["goodput_gbps"] - g[0]) < 0.01 and runs["sr"]["resent"] == s[6] and
      runs["sr"]["rto_low_timeouts"] == s[8] and runs["sr"]["timeouts"] == s[7] and
      d["rto_low_us"] == 100 and
      abs(sum(runs["sr"]["flow_gbps"]) - s[0]) < 0.02 and
      d["senders"] == 4 and d["pfc"] is False and len(rows) == 200 and
      list(rows[0])[2:] == ["flow%d_gbps" % i for i in range(4)] + ["total_gbps", "queue_bytes", "drops"] and
      int(rows[99]["drops"]) == runs["gbn"]["drops"] and int(rows[199]["drops"]) == runs["sr"]["drops"] and
      len(d["trace"]) == 200 and
      prun["gbn"]["drops"] == 0 and prun["sr"]["drops"] == 0 and prun["gbn"]["resent"] == 0 and
      abs(prun["gbn"]["goodput_gbps"] - prun["sr"]["goodput_gbps"]) < 0.01)
# Each 100 us row counts the payload placed in it: never above what the
# 40 Gb/s link carries in 1082-byte frames of 1024 (37.86 Gb/s), give or
# take a packet at each end of the interval (0.08 Gb/s).
top = max(float(r["total_gbps"]) for r in rows)
if not 30 < top <= 37.86 + 0.1:
    print("a 100 us row has %.2f Gb/s of payload: above the link" % top)
    ok = False
# The header names the queue limit only when it applies (without PFC).
head = open(sys.argv[6]).read().splitlines()[0]
if "limit" not in out.splitlines()[0] or "limit" in head:
    print("header: %r / with PFC %r" % (out.splitlines()[0], head))
    ok = False
if sys.argv[5]:
    ok = ok and open(sys.argv[5], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim recovery: $(cat "$tmp/rc" "$tmp/rcp")"
	fail=$((fail + 1))
fi
expect 2 "--senders 2..16" recovery --senders 1
expect 2 "--senders 2..16" recovery --senders 17
expect 2 "--pfc takes on or off" recovery --pfc maybe
expect 2 "--duration 2..1000" recovery --duration 0
expect 2 "--timeout 4..16" recovery --timeout 30
expect 2 "--window 8..1024" recovery --window 2
expect 2 "--limit 20000..16000000" recovery --limit 10
expect 2 "--seed 0..4294967295" recovery --seed -1
expect 2 "--rto-low 0..100000 us" recovery --rto-low x
expect 2 "unexpected argument 'extra'" recovery extra
# rk-sim storm: without a watchdog the innocent flow stops with the
# stormed one; with one it runs again and the drops are the stormed
# port's. The table, CSV and JSON agree.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--png $tmp/st.png"
# shellcheck disable=SC2086
timeout 120 "$sim" storm --duration 16 --csv "$tmp/st.csv" --json "$tmp/st.json" $png_arg \
	>"$tmp/st" 2>&1
if python3 - "$tmp/st" "$tmp/st.csv" "$tmp/st.json" "${png_arg:+$tmp/st.png}" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
tab = {m[0]: m[1].split() for m in re.findall(r"^(pfc|pfc\+wd) +(.+)$", out, re.M)}
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
runs = {r["run"]: r for r in d["runs"]}
p, w = tab.get("pfc"), tab.get("pfc+wd")
# units in the header, a number (or never, or the hops a/b/c) in each cell
num = re.compile(r"^(-?[\d.]+|never|-?\d+/-?\d+/-?\d+)$")
ok = (re.search(r"^run +innocent before Gb/s +after Gb/s +stormed Gb/s +stop us +run again us ",
                out, re.M) is not None and
      all(len(r) == 10 and all(num.match(c) for c in r) for r in tab.values()))
ok = (ok and p is not None and w is not None and float(p[0]) > 35 and float(p[1]) < 1 and
      p[4] == "never" and float(w[1]) > 30 and w[4] != "never" and
      abs(runs["pfc+wd"]["innocent_after_gbps"] - float(w[1])) < 0.01 and
      runs["pfc"]["pfcwd_drops"] == 0 and runs["pfc+wd"]["pfcwd_drops_at_port"] > 0 and
      runs["pfc+wd"]["pfcwd_drops_at_port"] == int(w[-1]) and
      900 <= runs["pfc+wd"]["innocent_recovered_us"] <= 2000 and
      d["watchdog_ms"] == 1 and d["storm_ms"] == 10 and d["dcqcn"] is None and
      list(rows[0]) == ["t_ns", "run", "flow", "rate_gbps", "rc_gbps", "alpha", "queue_bytes",
                        "cnps", "pfc_rx", "paused_us"] and
      len(rows) == 2 * 1600 * 2 and len(d["trace"]) == 2 * 160 * 2 and
      float([r for r in rows if r["run"] == "pfc"][-1]["paused_us"]) > 5000)
if sys.argv[4]:
    ok = ok and open(sys.argv[4], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim storm: $(cat "$tmp/st")"
	fail=$((fail + 1))
fi
expect 2 "--senders 1..8" storm --senders 9
expect 2 "--at 2..997" storm --at 1
expect 2 "--watchdog-ms 1..498" storm --watchdog-ms 0
expect 2 "storm: --duration 20: with --at 10 and --watchdog-ms 5, 21..1000 ms" storm --at 10 --watchdog-ms 5 --duration 20
expect 2 "--at 997 and --watchdog-ms 2 need a --duration of 1002 ms, over 1000: with this watchdog --at is at most 995" storm --at 997 --watchdog-ms 2
expect 2 "--at 2..997" storm --at 998
expect 2 "--watchdog-ms 1..498" storm --watchdog-ms 499
expect 2 "storm: --duration 4: with --at 10 and --watchdog-ms 1, 13..1000 ms" storm --duration 4
expect 2 "storm: --duration 1001: with --at 10 and --watchdog-ms 1, 13..1000 ms" storm --duration 1001
expect 2 "stagger: --duration 5: with --stagger 10, 15..1000 ms" stagger --duration 5
expect 2 "unknown --dcqcn profile 'bogus'" storm --dcqcn=bogus
expect 2 "unexpected argument 'extra'" storm extra
# rk-sim stagger: B's start spikes the queue, both flows settle within
# 10 % of C/2 and stay fair; the line, CSV and JSON agree.
png_arg=
command -v gnuplot >/dev/null 2>&1 && png_arg="--png $tmp/sg.png"
# shellcheck disable=SC2086
timeout 120 "$sim" stagger --stagger 5 --duration 20 --profile nvidia-default --csv "$tmp/sg.csv" \
	--json "$tmp/sg.json" $png_arg >"$tmp/sg" 2>&1
if python3 - "$tmp/sg" "$tmp/sg.csv" "$tmp/sg.json" "${png_arg:+$tmp/sg.png}" <<'PY'
import csv, json, re, sys
out = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2])))
d = json.load(open(sys.argv[3]))
fl = {f["flow"]: f for f in d["flows"]}
m = re.search(r"^Jain over 1 ms windows from then on: min ([\d.]+)", out, re.M)
ok = (m is not None and abs(float(m[1]) - d["jain_min"]) < 1e-4 and d["jain_min"] >= 0.99 and
      d["profile"] == "nvidia-default" and d["stagger_ms"] == 5 and
      d["queue_peak_after_bytes"] > 20 * d["queue_peak_before_bytes"] and
      all(0 < fl[f]["within_10pct_ms"] <= 10 for f in "AB") and
      all(18 <= fl[f]["then_gbps"] <= 22 for f in "AB") and
      re.search(r"^B +[\d.]+ +[\d.]+ +%d after B" % fl["B"]["within_10pct_ms"], out, re.M) and
      len(rows) == 2000 * 2 and len(d["trace"]) == 200 * 2 and
      max(float(r["rate_gbps"]) for r in rows if r["flow"] == "1" and int(r["t_ns"]) <= 5000000) == 0)
if sys.argv[4]:
    ok = ok and open(sys.argv[4], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
sys.exit(0 if ok else 1)
PY
then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim stagger: $(cat "$tmp/sg")"
	fail=$((fail + 1))
fi
expect 2 "--stagger 1..995" stagger --stagger 0
expect 2 "unknown --dcqcn profile 'bogus'" stagger --profile bogus
expect 2 "stagger: --duration 10: with --stagger 8, 13..1000 ms" stagger --stagger 8 --duration 10
expect 2 "stagger: --duration 60 (the default): with --stagger 100, 105..1000 ms" stagger --stagger 100
expect 2 "--stagger 1..995" stagger --stagger 996 --duration 1000
expect 2 "stagger: --duration x: with --stagger 10, 15..1000 ms" stagger --duration x
expect 2 "unexpected argument 'extra'" stagger extra
expect 0 "" stagger --help
# A flow that never settles has no rate "from then on": "never" and "-", no 0.00.
if timeout 60 "$sim" stagger --stagger 1 --duration 6 >"$tmp/sgn" 2>&1 &&
   [ "$(grep -cE '^[AB] +[0-9.]+ +[0-9.]+ +never +- +[0-9]+$' "$tmp/sgn")" = 2 ]; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim stagger, flows never settled: $(grep -E '^[AB] ' "$tmp/sgn" | tr '\n' ' ')"
	fail=$((fail + 1))
fi
# The least --duration a refusal states runs (it depends on the options
# the message names, given before or after --duration).
for args in "stagger --duration 5" "stagger --duration 5 --stagger 3" "storm --duration 4" \
	    "storm --duration 4 --watchdog-ms 3" "storm --at 2 --duration 4"; do
	# shellcheck disable=SC2086
	lo=$(timeout 20 "$sim" $args 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\)\.\.1000 ms$/\1/p')
	# shellcheck disable=SC2086
	if [ -n "$lo" ] && timeout 120 "$sim" $args --duration "$lo" >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL rk-sim $args: the least --duration stated (${lo:-none}) does not run"
		fail=$((fail + 1))
	fi
done
# Outputs that cannot be written are refused before the run (no PNG bytes
# on the terminal after it), and --json - names no file "-".
expect 2 "--png /nonexistent/x.png" recovery --png /nonexistent/x.png
expect 2 "--png /nonexistent/x.png" victim --png /nonexistent/x.png
expect 2 "--json /nonexistent/x.json" unfair --json /nonexistent/x.json
expect 2 "storm: --csv /nonexistent/x.csv: No such file" storm --csv /nonexistent/x.csv
expect 2 "incast: --csv /nonexistent/x.csv: No such file" incast --csv /nonexistent/x.csv
expect 2 "--json -: a file name is needed" recovery --json -
# --csv - is standard output: the CSV alone there, the same rows as a file
# gives, the table on standard error, and no file named "-".
sim_abs=$(realpath "$sim")
for cmd in deadlock incast recovery; do
	(cd "$tmp" && timeout 60 "$sim_abs" $cmd --duration 2 --csv - >"$tmp/$cmd.stdout" 2>"$tmp/$cmd.stderr")
	rc=$?
	timeout 60 "$sim" $cmd --duration 2 --csv "$tmp/$cmd.file.csv" >/dev/null 2>&1
	if [ $rc -eq 0 ] && cmp -s "$tmp/$cmd.stdout" "$tmp/$cmd.file.csv" &&
	   [ "$(wc -l <"$tmp/$cmd.stdout")" -gt 1 ] && [ -s "$tmp/$cmd.stderr" ] && [ ! -e "$tmp/-" ]; then
		echo "ok   $cmd --csv -: $(wc -l <"$tmp/$cmd.stdout") CSV lines on stdout, the table on stderr"
		pass=$((pass + 1))
	else
		echo "FAIL $cmd --csv -: exit $rc; stdout $(head -c 80 "$tmp/$cmd.stdout" | head -1); file '-' $([ -e "$tmp/-" ] && echo made || echo absent)"
		fail=$((fail + 1))
	fi
	rm -f "$tmp/-"
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
