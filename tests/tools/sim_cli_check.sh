#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rk-sim's command line: every bad number, probability or argument ends
# at once with exit 2 and a message naming the option (no run, no crash);
# a recording that cannot be written is an error, not a success; the link
# counters it prints balance under loss, reordering, delay and duplication,
# and each endpoint reports the corrupted frames it dropped itself.
# usage: sim_cli_check.sh RK_SIM
. "$(dirname "$0")/sim_cli_lib.sh"

expect 2 "--jitter needs a whole number" -j -1
expect 2 "--max-size needs a whole number" -m 99999999999
expect 2 "--max-size needs a whole number" -m -5
expect 2 "--depth needs a whole number" -d 0
expect 2 "--depth needs a whole number" -d 100000
expect 2 "--retry-cnt needs a whole number" -C 8
expect 2 "--timeout needs a whole number" -t 40
expect 2 "--ops needs a whole number" -o -1
expect 2 "--ops needs a whole number" -o 99999999999999999999
expect 2 "--ops needs a whole number" -o 12abc
expect 2 "--loss needs a probability" --loss 2
expect 2 "--loss needs a probability" --loss abc
expect 2 "--loss needs a probability" --loss -0.1
expect 2 "--corrupt needs a probability" -c 1.5
expect 2 "--dup needs a probability" -u 1.5
expect 2 "--reorder needs a probability" -r 2:100
expect 2 "--reorder NS needs a whole number" -r 0.1:-3
expect 2 "--burst needs a probability" -b 2:3
expect 2 "--rate needs a whole number" -R -1
expect 2 "--rate needs a whole number from 1" -R 0
expect 2 "--queue needs a whole number" -Q -1
expect 2 "--delay needs a whole number" -D -5
expect 2 "--drop-every needs a whole number" -e x
expect 2 "--drop-every needs a whole number from 2" -e 0
expect 2 "--drop-every needs a whole number from 2" -e 0:a2b
expect 2 "direction must be a2b, b2a or both" -e 5:sideways
expect 2 "rk-sim: --mtu needs 256, 512, 1024, 2048 or 4096, not '100'" -M 100
expect 2 "rk-sim: --mtu needs 256, 512, 1024, 2048 or 4096, not '1024abc'" -M 1024abc
expect 2 "names no operation" -O ,
expect 2 "unexpected argument 'stray'" -o 10 stray
expect 2 "bench -n needs a whole number" bench -n -1
expect 2 "usage: rk-sim matrix" matrix --bogus
expect 2 "matrix -o needs a whole number" matrix -o -1
expect 2 "rk-sim: unknown option --bogus" --bogus
expect 2 "rk-sim: unknown option -z" -z
expect 2 "rk-sim: option --max-size needs an argument" --max-size
expect 2 "rk-sim: option -m needs an argument" -m
expect 2 "rk-sim: option --fixed-size takes no argument" --fixed-size=1
# An option without its argument: one line naming it (no usage, no hint
# line after it), the scenario commands' and bench's and matrix's too.
for a in ":--max-size" ":-m" "incast:--json" "incast:-j" "incast --dcqcn:--png" "victim:--json" \
	"unfair:-j" "deadlock:--send" "recovery:--seed" "storm:--duration" "stagger:--stagger" \
	"bench:-n" "matrix:-o" "incast:--json --senders" "victim:-j --json"; do
	cmd=${a%%:*}
	o=${a#*:}
	# shellcheck disable=SC2086
	timeout 20 "$sim" $cmd $o >/dev/null 2>"$tmp/err"
	rc=$?
	want="rk-sim: ${cmd:+${cmd%% *}: }option ${o%% *} needs an argument"
	if [ $rc = 2 ] && [ "$(cat "$tmp/err")" = "$want" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL rk-sim $cmd $o: exit $rc, stderr '$(cat "$tmp/err")', expected 2 '$want'"
		fail=$((fail + 1))
	fi
done
# A file that cannot be made: its path once, then why.
for o in -w -W; do
	expect 1 "rk-sim: $tmp/no/x.pcap: No such file or directory" -o 10 $o "$tmp/no/x.pcap"
	if [ "$(grep -o "$tmp/no/x.pcap" "$tmp/err" | wc -l)" != 1 ]; then
		echo "FAIL rk-sim $o $tmp/no/x.pcap: stderr '$(head -1 "$tmp/err")' names the path more than once"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
if [ -w /dev/full ]; then
	expect 1 "writing /dev/full failed" -o 10 -w /dev/full
fi
# Both recordings: what was sent (before impairment) and what was
# delivered (after it). With 5% loss the receivers get fewer frames, and
# only the delivered recording holds the corrupted frames (bad ICRC).
if [ -n "${2:-}" ]; then
	rk=$2
	expect 0 "" -o 300 -l 0.05 -c 0.05 -s 7 -w "$tmp/tx.pcap" -W "$tmp/rx.pcap"
	sent=$(sed -n 's/^pcap: *\([0-9]*\) frames sent.*/\1/p' "$tmp/out")
	got=$(sed -n 's/^pcap-rx: *\([0-9]*\) frames delivered.*/\1/p' "$tmp/out")
	tx_bad=$("$rk" -j "$tmp/tx.pcap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["icrc_bad"])')
	rx_bad=$("$rk" -j "$tmp/rx.pcap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["icrc_bad"])')
	tx_n=$("$rk" -j "$tmp/tx.pcap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["frames"])')
	rx_n=$("$rk" -j "$tmp/rx.pcap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["frames"])')
	if [ -n "$sent" ] && [ -n "$got" ] && [ "$got" -lt "$sent" ] && [ "$tx_n" = "$sent" ] &&
	   [ "$rx_n" = "$got" ] && [ "$tx_bad" = 0 ] && [ "${rx_bad:-0}" -gt 0 ]; then
		pass=$((pass + 1))
	else
		echo "FAIL recordings: sent $sent (file $tx_n, bad ICRC $tx_bad), delivered $got (file $rx_n, bad ICRC $rx_bad)"
		fail=$((fail + 1))
	fi
	expect 2 "name the same file" -o 10 -w "$tmp/same.pcap" -W "$tmp/same.pcap"
	expect 2 "name the same file" -o 10 -w "$tmp/same2.pcap" -W "$tmp/./same2.pcap"
	if [ -w /dev/full ]; then
		expect 1 "writing /dev/full failed" -o 10 -W /dev/full
	fi
fi
# Each endpoint counts the corrupted frames it dropped itself: the
# requester (A) those of B>A, the responder (B) those of A>B, never more
# than the link corrupted that way. READs make B>A the busier direction.
expect 0 "" -c 0.02 -O read -o 300
# $1 the line's label: that endpoint's "bad ICRC dropped" plus "malformed
# dropped" (0 when not printed), "-" when the line has no ICRC count.
drops() {
	awk -v l="$1:" '$1 == l {
		n = "-"; m = 0
		if (match($0, /bad ICRC dropped [0-9]+/))
			n = substr($0, RSTART + 17, RLENGTH - 17)
		if (match($0, /malformed dropped [0-9]+/))
			m = substr($0, RSTART + 18, RLENGTH - 18)
		print n, m
	}' "$tmp/out"
}
corrupted() {
	awk -v l="$1:" '$1 == "link" && $2 == l {
		for (i = 3; i < NF; i++) if ($i == "corrupted") print $(i + 1) }' "$tmp/out"
}
# $1 endpoint, $2 the direction it receives
check_drops() {
	c=$(corrupted "$2")
	set -- "$1" "$2" $(drops "$1")
	if [ "$3" != - ] && [ "$3" -gt 0 ] && [ $(($3 + $4)) -le "$c" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL rk-sim -c 0.02 -O read: the $1 dropped $3 for bad ICRC and $4" \
			"malformed, the link corrupted $c $2"
		grep -E '^(link|requester|responder)' "$tmp/out"
		fail=$((fail + 1))
	fi
}
check_drops responder 'A>B'
check_drops requester 'B>A'
# A workload whose buffers exceed the machine's memory is refused at once
# (1), saying how much it needs, before it writes any recording.
expect 1 "of buffers, more than the" -m 1073741824 -d 1024 -w "$tmp/big.pcap"
if [ -e "$tmp/big.pcap" ]; then
	echo "FAIL a refused workload left a recording"
	fail=$((fail + 1))
fi
# Out of memory is a failed run (1), not bad usage (2). Under a limit of
# address space, where the build can start under one (not ASan's).
if (ulimit -v 2000000 && "$sim" -o 1 -m 0 >/dev/null 2>&1); then
	(ulimit -v 2000000 && exec timeout 60 "$sim" -o 1 -F -O write -m 1073741824) \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 1 ] && grep -q "^rk-sim: out of memory" "$tmp/err"; then
		pass=$((pass + 1))
	else
		echo "FAIL rk-sim -m 1073741824 under ulimit -v 2000000: exit $rc," \
			"stderr '$(head -1 "$tmp/err")', expected 1 'rk-sim: out of memory'"
		fail=$((fail + 1))
	fi
else
	echo "SKIP out of memory: rk-sim does not start under ulimit -v"
fi
# Memory: peak resident size of rk-sim, measured from outside; not under
# ASan, whose shadow and quarantine are not rk-sim's.
# $1 the most KiB it may take, $2 why, then rk-sim's arguments
peak_check() {
	max=$1 why=$2
	shift 2
	kib=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, timeout=60).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r == 0 else "exit %d" % r)' \
		"$sim" "$@" 2>"$tmp/err")
	case $kib in
	*[!0-9]* | '') ok=false ;;
	*) ok=$([ "$kib" -le "$max" ] && echo true || echo false) ;;
	esac
	if $ok; then
		pass=$((pass + 1))
	else
		echo "FAIL rk-sim $*: peak resident $kib KiB, more than $max KiB ($why)" \
			"$(head -1 "$tmp/err")"
		fail=$((fail + 1))
	fi
}
if ! { command -v ldd >/dev/null && ldd "$sim" 2>/dev/null | grep -q libasan; }; then
	# One 64 MiB operation: its buffer at A (and a receive buffer at B for
	# a SEND), the target region of twice its size and the model of it,
	# frames on the link; not 16 buffers of it at each end.
	for op in write send read; do
		peak_check $((8 * 65536)) "8 x 64 MiB" -o 1 -F -O $op -m 67108864
	done
	# Four 16 MiB READs outstanding, paced so that few frames wait on the
	# link: their buffers, the region and the model, no copy per READ.
	peak_check $((9 * 16384)) "9 x 16 MiB" -o 16 -d 4 -F -O read -m 16777216 \
		-P -R 100000000000
fi
# Good options still run.
expect 0 "" -o 20 -l 0.01 -r 0.1:5000 -b 0.1:3 -u 0.01 -c 0.01 -j 100 -D 1000 -Q 1000
# The link counters balance in both directions: every frame sent, and
# every copy duplication made, was delivered, lost, dropped (MTU, full
# queue, receiver buffer) or is still in flight when the run ends. A
# 500 us delay leaves frames in flight; the others mix the impairments.
inflight=0
for args in "-l 0.05 -s 7" "-r 0.2:50000 -s 3" "-u 0.1 -s 5" "-D 500000 -j 20000 -s 2" \
	"-l 0.02 -r 0.1:30000 -u 0.05 -D 100000 -j 5000 -b 0.2:3 -c 0.01 -s 11" \
	"-l 0.01 -u 0.05 -D 20000 -Q 64 -s 13"; do
	# shellcheck disable=SC2086
	expect 0 "" -o 300 $args
	# Each "link" line: its balance (0 when it balances), then in-flight.
	bal=$(awk '/^link / {
		delete v
		for (i = 3; i < NF; i += 2)
			v[$i] = $(i + 1)
		if (!("in-flight" in v) || !("rx-dropped" in v)) {
			print "missing"
			next
		}
		print v["sent"] + v["dup"] - v["delivered"] - v["lost"] - v["mtu-drops"] - \
			v["overflow"] - v["rx-dropped"] - v["in-flight"], v["in-flight"]
	}' "$tmp/out")
	lines=$(printf '%s\n' "$bal" | grep -c .)
	if [ "$lines" = 2 ] && ! printf '%s\n' "$bal" | grep -qv '^0 '; then
		pass=$((pass + 1))
		inflight=$((inflight + $(printf '%s\n' "$bal" | awk '{n += $2} END {print n}')))
	else
		echo "FAIL rk-sim -o 300 $args: link counters do not balance" \
			"(per direction: sent + dup - delivered - lost - mtu-drops - overflow" \
			"- rx-dropped - in-flight, then in-flight): $(printf '%s' "$bal" | tr '\n' ';')"
		grep '^link' "$tmp/out"
		fail=$((fail + 1))
	fi
done
if [ "$inflight" -gt 0 ]; then
	pass=$((pass + 1))
else
	echo "FAIL no frame was in flight at the end of any run: the check proves nothing"
	fail=$((fail + 1))
fi
# The workload line says what was run: fixed sizes, the periodic loss.
says() { # text args...: rk-sim ARGS exits 0 and prints TEXT on stdout
	want=$1
	shift
	if timeout 20 "$sim" "$@" >"$tmp/out" 2>"$tmp/err" && grep -qF -- "$want" "$tmp/out"; then
		pass=$((pass + 1))
	else
		echo "FAIL rk-sim $*: no '$want' in: $(head -2 "$tmp/out" | tr '\n' ';')"
		fail=$((fail + 1))
	fi
}
says "sizes 4096 (fixed)," -o 20 -F -m 4096
says "sizes 0..4096," -o 20 -m 4096
says "periodic:    1 frame in every 50 lost, a2b" -o 20 -e 50:a2b
# The link has a rate unless -R says another: 100 Gbit/s, said in --help
# and in the workload line, and no goodput above it.
says "100 Gbit/s" --help
says "rate 100 Gbit/s" -o 200
gp=$(sed -n 's/^virtual: .*goodput \([0-9.]*\) Gbit\/s/\1/p' "$tmp/out")
if [ -n "$gp" ] && awk -v g="$gp" 'BEGIN { exit !(g > 1 && g <= 100) }'; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim -o 200: goodput '$gp' Gbit/s over a 100 Gbit/s link"
	fail=$((fail + 1))
fi
says "rate 25 Gbit/s" -o 20 -R 25000000000
# Latency percentiles and the retransmission amplification: a clean link
# needs no retransmission (1.000), a lossy one more than one frame per frame.
says "amplification: 1.000 (" -o 200
lat=$(sed -n 's/^latency: *p50 \([0-9.]*\) us, p99 \([0-9.]*\) us, max \([0-9.]*\) us.*/\1 \2 \3/p' "$tmp/out")
# shellcheck disable=SC2086
if [ -n "$lat" ] && awk -v a="${lat%% *}" -v m="${lat##* }" -v b="$(echo $lat | cut -d' ' -f2)" \
	'BEGIN { exit !(a > 0 && a <= b && b <= m) }'; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim -o 200: latency line '$lat' (p50 <= p99 <= max, all > 0)"
	fail=$((fail + 1))
fi
says "amplification: " -o 300 -l 0.05 -s 7
amp=$(sed -n 's/^amplification: \([0-9.]*\) .*/\1/p' "$tmp/out")
if [ -n "$amp" ] && awk -v a="$amp" 'BEGIN { exit !(a > 1.0) }'; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim -o 300 -l 0.05: amplification '$amp', expected above 1"
	fail=$((fail + 1))
fi
# A failed run: the operations listed per kind are the completed ones
# (they add up to "completed"), and the result names the PSN and the
# timeouts that ended it.
expect 1 "" -o 300 -l 0.5 -C 1
sum=$(awk '/^  [A-Z_]+ +[0-9]+$/ { n += $2 } END { print n + 0 }' "$tmp/out")
done_n=$(sed -n 's/^operations: *\([0-9]*\) completed.*/\1/p' "$tmp/out")
if [ "$sum" = "$done_n" ]; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim -o 300 -l 0.5 -C 1: per-operation list adds up to $sum, $done_n completed"
	fail=$((fail + 1))
fi
if grep -Eq '^result: .*first PSN 0x[0-9a-f]{6}\): .*after [0-9]+ retransmission timeouts' "$tmp/out"; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim -o 300 -l 0.5 -C 1: result names no PSN or timeouts: $(grep '^result' "$tmp/out")"
	fail=$((fail + 1))
fi
# The matrix: the same operations in every cell, so a clean link is not
# slower than a lossy one, and cells without lost operations moved the
# same bytes.
timeout 120 "$sim" matrix -o 300 >"$tmp/out" 2>"$tmp/err"
if awk 'NR > 2 && $NF == "ok" { cell = $1 " " $2; b = $(NF - 5); g = $(NF - 3)
		if ($(NF - 1) == 0) { if (bytes == "") bytes = b; else if (b != bytes) bad = bad " " cell ": bytes " b }
		if (cell == "loss 0") g0 = g
		else if ($1 == "loss" && g0 != "" && g > g0 + 0) bad = bad " " cell " faster than loss 0" }
	END { if (bad != "" || bytes == "" || g0 == "") { print bad; exit 1 } }' "$tmp/out"; then
	pass=$((pass + 1))
else
	echo "FAIL rk-sim matrix -o 300: cells differ in work:"
	cat "$tmp/out"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
