# SPDX-License-Identifier: BSD-3-Clause
#
# Shared by bench_dpdk.sh and bench_iwarp.sh (sourced, POSIX sh): two
# processes over one net_memif link, server pinned to CPU 1, client to
# CPU 0, both busy-polling, and the helpers that turn paired rounds into
# ratios. Before sourcing set: build (the build directory), bench_name (for
# messages and socket names), pair_timeout (seconds a pair may run).
# Sets perf, raw, tmp (removed on exit), EAL, CS.

perf=$build/apps/rk-perf
raw=$build/bench/memif_raw

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-$bench_name.XXXXXX") || exit 2
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Hugepages when free, anonymous memory otherwise; no PCI scan.
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 64 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
EAL="$MEM --no-pci --log-level=*:critical"
CS=$(($(nproc) > 1 ? 1 : 0))
n=0
# Every frame in one memif buffer (RK_IO_MEMIF_BSIZE in lib/io).
vdev() { # role
	echo "--vdev=net_memif0,role=$1,socket=rk-$bench_name-$$-$n.sock,bsize=9216"
}

# pair NAME "SERVER CMD ARGS" "CLIENT CMD ARGS": server on CPU 1, client on
# CPU 0, each with its own memif end; logs in $tmp/NAME.{srv,cli}.
pair() {
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout "$pair_timeout" $2 >"$tmp/$1.srv" 2>&1 &
	sp=$!
	pids="$pids $sp"
	# shellcheck disable=SC2086
	timeout "$pair_timeout" $3 >"$tmp/$1.cli" 2>&1
	rc=$?
	wait "$sp"
	rs=$?
	if [ $rc -ne 0 ] || [ $rs -ne 0 ]; then
		echo "$bench_name: $1 failed (client $rc, server $rs)" >&2
		tail -n 3 "$tmp/$1.cli" "$tmp/$1.srv" >&2
		return 1
	fi
}

perf_pair() { # NAME TEST ARGS...
	name=$1
	t=$2
	shift 2
	# Two ports a pair: iWARP's data connection may take the next one.
	port=$((21000 + ($$ + 2 * n) % 20000))
	pair "$name" \
		"$perf $EAL -l $CS $(vdev server) -- $t --ip 198.18.0.1 -p $port --idle spin $*" \
		"$perf $EAL -l 0 $(vdev client) -- $t --ip 198.18.0.2 -p $port --idle spin $* 127.0.0.1"
}

raw_pair() { # NAME "SERVER MODE" "CLIENT MODE"
	pair "$1" "$raw $EAL -l $CS $(vdev server) -- $2" "$raw $EAL -l 0 $(vdev client) -- $3"
}

# raw_tput NAME "SERVER MODE" "CLIENT MODE" LABEL: one raw throughput run;
# sets v to its Gb/s, or "-" (and status=1) when it failed.
raw_tput() {
	v=-
	if raw_pair "$1" "$2" "$3"; then
		v=$(sed -n 's/^raw_rx: .* \([0-9.]*\) Gb\/s$/\1/p' "$tmp/$1.srv")
		echo "$4: $v Gb/s"
		v=${v:--}
	else
		status=1
	fi
}

# raw_lat NAME "SERVER MODE" "CLIENT MODE" LABEL: one raw ping-pong run;
# sets v to its median half round trip in us, or "-" (and status=1).
raw_lat() {
	v=-
	if raw_pair "$1" "$2" "$3"; then
		v=$(sed -n 's/^raw_pingpong: .* \([0-9.]*\) us$/\1/p' "$tmp/$1.cli")
		echo "$4: median half round trip $v us"
		v=${v:--}
	else
		status=1
	fi
}

# max / min / median of the numbers on stdin (empty when none).
max() { awk 'NF { if (!n++ || $1 + 0 > m) m = $1 + 0 } END { if (n) print m }'; }
min() { awk 'NF { if (!n++ || $1 + 0 < m) m = $1 + 0 } END { if (n) print m }'; }
median() { sort -g | awk 'NF { v[n++] = $1 } END { if (n) print (n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) }'; }
# pair_ratios "A1 A2 .." "B1 B2 ..": A_i / B_i, one a line (rounds where both ran).
pair_ratios() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ");
		for (i = 1; i <= n; i++) if (x[i] != "-" && y[i] != "-" && y[i] + 0 > 0)
			printf "%.3f\n", x[i] / y[i] }'
}
# The numbers of a space-separated list of rounds, one a line ("-" left out).
nums() { echo "$1" | tr ' ' '\n' | grep -v '^-*$'; }
