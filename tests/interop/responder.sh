#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rk-testpmd's responder engine answering Linux Soft-RoCE's (rxe) perftest
# clients in the project's lab, over perftest's TCP exchange and then -R
# (RDMA-CM: "responder start ... rdma_cm", the clients name 198.18.0.100). rk-testpmd
# runs in a namespace of this test with two veths on the guest's bridge:
# one its DPDK port (net_af_packet, RoCEv2 address 198.18.0.100, "set fwd
# responder", "responder start"), one the kernel's 198.18.0.101 for the TCP
# exchange (the lab's own namespace lets no traffic into its kernel
# stack). The guest runs ib_write_bw,
# ib_read_bw, ib_send_bw and ib_atomic_bw (-d rxe0 -x 1) against it, one
# after another; then, over the TCP exchange, ib_write_bw and ib_read_bw
# at once, and ib_write_bw -q 4; ib_send_bw -c UD against UD QPs; last, rk-testpmd's prompt as the client
# of the guest's ib_write_bw and ib_read_bw servers (qp connect ... perftest), and of its
# ib_write_bw -R server (qp connect ... rdma_cm). Each client must exit 0 and the responder print its
# line for it with its own checks (WRITE packets placed, READ region
# unchanged, one per FETCH_AND_ADD, every SEND received with the same
# length): perftest's bw tools check no data themselves.
#
# Then rk-gen's stateful client (--perftest, when RK_GEN is given) with 16
# QPs against the guest's ib_read_bw -q 16 (every READ of a QP returns
# what its first did: the region is static) and ib_atomic_bw -q 16 (each
# FETCH_ADD returns the one before plus one).
#
#   responder.sh RK_TESTPMD [RK_GEN]
#
# Exit 0 when every client was served, 1 otherwise, 77 (skip) with the
# reason when the lab cannot run here. RK_LAB_NS (default rkresp: a lab
# of its own), RK_RESP_KEEP=1 keeps the logs.
set -u
tp=$1
gen=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
LAB_NS=${RK_LAB_NS:-rkresp}
# shellcheck source=lab-common.sh
. "$here/lab-common.sh"
lab_checks "$tp"

OOB_NS=rkoob$$
TCP=18515
tmp=$(mktemp -d /tmp/rk-responder.XXXXXX)
booted=0
tpid=""
lock=/run/rk-interop-$LAB_NS.lock
exec 9>"$lock"
flock -w 600 9 || skip "another run holds $lock"

cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	ip netns del "$OOB_NS" 2>/dev/null
	if [ "$booted" = 1 ]; then
		"$peer" down >/dev/null 2>&1 9>&-
		lab_disown
	fi
	[ -n "${RK_RESP_KEEP:-}" ] && echo "logs kept in $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

lab_use_or_up "$tmp/up.log"
echo "guest: $(lab_versions)"

# The namespace: rkd (the DPDK port) and rko (198.18.0.101) on the bridge.
# arp_ignore 1: the kernel answers ARP for .101 on rko only, never with
# the DPDK port's MAC; rk-testpmd answers for .100 itself.
mtu=$(ip -n "$LAB_NS" link show dpdk0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
ip netns add "$OOB_NS" || skip "cannot create a network namespace"
ip -n "$OOB_NS" link set lo up
ip netns exec "$OOB_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv4.conf.all.arp_ignore=1
# Fixed MACs, and the guest forgets what it knew: a run after another
# must not send to the last run's veths.
for i in d o; do
	ip link add "rk$i$$" netns "$OOB_NS" mtu "$mtu" address "52:54:00:18:01:$([ $i = d ] && echo 64 || echo 65)" \
		type veth peer name "rk$i$$"b netns "$LAB_NS" mtu "$mtu" || { echo "FAIL: veth"; exit 1; }
	ip -n "$LAB_NS" link set "rk$i$$"b master "$(lab_bridge)" up
	ip -n "$OOB_NS" link set "rk$i$$" up
done
ip -n "$OOB_NS" addr add 198.18.0.101/24 dev "rko$$"
pexec 20 1 'ip neigh flush to 198.18.0.100; ip neigh flush to 198.18.0.101' >/dev/null 2>&1

. "$here/../helpers/dpdk-mem.sh"
# responder_up MODE: rk-testpmd's responder with the TCP exchange (MODE
# empty) or RDMA-CM (MODE rdma_cm), its output in $tmp/tp.$MODE.out.
responder_up() {
	out=$tmp/tp.${1:-tcp}.out
	printf 'set ip 0 198.18.0.100\nset fwd responder\nresponder start 0 %s 65536 %s\nstart\n' \
		"$TCP" "$1" >"$tmp/resp.cmd"
	rm -f "$tmp/in"
	mkfifo "$tmp/in"
	exec 3<>"$tmp/in"
	# shellcheck disable=SC2086
	ip netns exec "$OOB_NS" timeout -k 5 600 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 \
		--file-prefix rkresp$$ --vdev=net_af_packet0,iface="rkd$$" \
		-- --cmdline-file "$tmp/resp.cmd" <"$tmp/in" >"$out" 2>&1 &
	tpid=$!
	[ "$1" != rdma_cm ] && rk_wait_listening 60 "$OOB_NS" "$TCP"
	for _ in $(seq 1 300); do
		grep -q "^responder packet forwarding" "$out" && return 0
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: rk-testpmd did not start the responder:"
	tail -n 10 "$out"
	exit 1
}
# responder_down CLIENTS: rk-testpmd exits 0 after serving CLIENTS clients.
responder_down() {
	local rc
	echo >&3
	wait "$tpid"
	rc=$?
	tpid=""
	exec 3>&-
	if [ "$rc" = 0 ] && grep -q "^Responder stopped after $1 client(s)" "$out"; then
		ok "rk-testpmd exits 0 after $1 clients"
	else
		ko "rk-testpmd: exit $rc, $(grep 'Responder stopped' "$out" || echo 'no stop line')"
		echo "---- rk-testpmd:"
		grep -v "^TELEMETRY" "$out" | tail -n 30
	fi
}

# client NAME REGEX TOOL ARGS: the guest's tool, to the responder at
# $TARGET, exits 0 and the responder's next line for a client matches
# REGEX (k: the responder's number for the client; served: clients it
# saw). -F: perftest's CPU clock check fails under TCG ("Correlation
# coefficient r^2 < 0.9", exit 1 after the run). rxe under TCG on a busy
# host now and then stalls a client: a failed client runs once more,
# shown as RETRY.
k=""
served=0
# next_line BEFORE: the responder's client line after its first BEFORE
# ones, in $line (empty when none came within 10 s)
next_line() {
	line=""
	for _ in $(seq 1 100); do
		line=$(grep "^responder: client [0-9]* (.*result:" "$out" | sed -n "$(($1 + 1))p")
		[ -n "$line" ] && return
		sleep 0.1
	done
}
client() {
	local name=$1 re=$2 try rc line before
	shift 2
	for try in 1 2; do
		before=$(grep -c "^responder: client [0-9]* (.*result:" "$out")
		pexec 120 1 "timeout 100 $* -F -d rxe0 $TARGET" >"$tmp/$name.$try.cli" 2>&1
		rc=$?
		next_line "$before"
		[ -n "$line" ] && served=$((served + 1))
		k=$(sed -n 's/^responder: client \([0-9]*\) .*/\1/p' <<<"$line")
		[ "$rc" = 0 ] && grep -qE "$re" <<<"$line" && break
		[ "$try" = 1 ] && echo "RETRY $name: exit $rc, responder: \"${line:-no line}\""
	done
	if [ "$rc" = 0 ] && grep -qE "$re" <<<"$line"; then
		ok "$name: ${line#*: }"
	else
		ko "$name: client exit $rc, responder: \"${line:-no line}\""
		tail -n 5 "$tmp/$name.$try.cli"
	fi
}

# Sizes and counts small enough for rxe under TCG (a few MB/s).
N=200
# every_tool LABEL: the five clients against the running responder.
every_tool() {
	local pmtu placed
	client "$1ib_write_bw" "write_bw, 16384 bytes, $N iterations, result: ok \([0-9]+ WRITE packets placed\)" \
		ib_write_bw -s 16384 -n $N
	# Every packet of every WRITE placed: 16 KiB over the path MTU each.
	pmtu=$(sed -n "s/^responder: client $k (.*path MTU \([0-9][0-9]*\).*/\1/p" "$out")
	placed=$(sed -n "s/^responder: client $k (.*result: ok (\([0-9]*\) WRITE packets placed)$/\1/p" "$out")
	if [ -n "$pmtu" ] && [ "${placed:-0}" = $((N * 16384 / pmtu)) ]; then
		ok "$1ib_write_bw: $placed WRITE packets at path MTU $pmtu, none missing"
	else
		ko "$1ib_write_bw: ${placed:-no} WRITE packets placed at path MTU ${pmtu:-unknown}, want $N x 16384 / MTU"
	fi
	client "$1ib_read_bw" "read_bw, 16384 bytes, $N iterations, result: ok \(region unchanged, $N READ requests\)" \
		ib_read_bw -s 16384 -n $N
	client "$1ib_send_bw" "send_bw, 4096 bytes, $N iterations, result: ok \($N receives, each 4096 bytes\)" \
		ib_send_bw -s 4096 -n $N
	client "$1ib_atomic_bw" "atomic_bw, 8 bytes, $N iterations, result: ok \(region grew by $N, one per FETCH_AND_ADD" \
		ib_atomic_bw -n $N
	client "$1ib_atomic_bw_cas" "atomic_bw, 8 bytes, 50 iterations, result: ok \(region unchanged: CMP_AND_SWAP" \
		ib_atomic_bw -A CMP_AND_SWAP -n 50
}

# together: ib_write_bw and ib_read_bw started at once from the guest;
# both exit 0, each gets its own result line, and the second connected
# before the first was done (they were served side by side).
together() {
	local before rc1 rc2 lines w r
	before=$(grep -c "^responder: client [0-9]* (" "$out")
	# 4 s each (-D): long enough to overlap however late the second starts
	pexec 120 1 "timeout 100 ib_write_bw -s 16384 -D 4 -F -d rxe0 $TARGET" >"$tmp/tw.cli" 2>&1 &
	local p1=$!
	pexec 120 1 "timeout 100 ib_read_bw -s 16384 -D 4 -F -d rxe0 $TARGET" >"$tmp/tr.cli" 2>&1 &
	local p2=$!
	wait "$p1"
	rc1=$?
	wait "$p2"
	rc2=$?
	sleep 1
	lines=$(grep "^responder: client [0-9]* (" "$out" | tail -n +$((before + 1)))
	w=$(grep -cE "write_bw, 16384 bytes, [0-9]+ iterations, result: ok" <<<"$lines")
	r=$(grep -cE "read_bw, 16384 bytes, [0-9]+ iterations, result: ok \(region unchanged" <<<"$lines")
	served=$((served + $(grep -c "result:" <<<"$lines")))
	# connect, connect, result, result: the second connected while the first ran
	if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$w" = 1 ] && [ "$r" = 1 ] &&
		[ "$(grep -v "result:" <<<"$lines" | head -2 | wc -l)" = 2 ] &&
		[ "$(sed -n 2p <<<"$lines" | grep -c "result:")" = 0 ]; then
		ok "ib_write_bw and ib_read_bw at once: both served side by side"
	else
		ko "two clients at once: exits $rc1 $rc2, responder: $(tr '\n' '|' <<<"$lines")"
		tail -n 3 "$tmp/tw.cli" "$tmp/tr.cli"
	fi
}

# perftest's TCP exchange to the kernel's address; the RoCE GID index 1.
responder_up ""
TARGET="-x 1 -p $TCP 198.18.0.101"
served=0
every_tool ""
together
client "ib_write_bw -q 4" "write_bw over 4 QPs, 16384 bytes, $((4 * N)) iterations, result: ok \([0-9]+ WRITE packets placed\)" \
	ib_write_bw -s 16384 -n $N -q 4
grep -qE "^responder: client $k \(.*, 4 QP\(s\)$" "$out" &&
	ok "ib_write_bw -q 4: the responder made 4 QPs for it" ||
	ko "ib_write_bw -q 4: $(grep "^responder: client $k (" "$out" | head -1)"
responder_down "$served"
# -c UD: UD QPs ("responder start ... ud"), send_bw only; each receive
# holds the GRH first, the responder's line gives the payload's length.
responder_up ud
served=0
client "ib_send_bw -c UD" "send_bw, 1024 bytes, $N iterations, result: ok \($N receives, each 1024 bytes\)" \
	ib_send_bw -c UD -s 1024 -n $N
grep -q "^responder: client 1 (198.18.0.11): perftest .*QPN 0x" "$out" &&
	grep -q "UD QPs" "$out" && ok "-c UD: the responder made a UD QP" || ko "-c UD: $(grep -m1 '^Responder on' "$out")"
responder_down "$served"
# -R: RDMA-CM to the device's own address, the exchange over a CM-connected QP.
responder_up rdma_cm
TARGET="-R -p $TCP 198.18.0.100"
served=0
every_tool "-R "
grep -q "^responder: client 1 (198.18.0.11): perftest .* -R," "$out" &&
	ok "-R: the responder saw RDMA-CM clients" || ko "-R: no RDMA-CM client line"
# -R -q 2: one data connection per client over RDMA-CM, so the second
# data REQ gets REJ (consumer reject); perftest gives up after its
# retries (exit not 0) and the responder's line names the cause.
before=$(grep -c "^responder: client [0-9]* (.*result:" "$out")
pexec 120 1 "timeout 100 ib_write_bw -s 4096 -n 10 -q 2 -F -d rxe0 $TARGET" >"$tmp/rq.cli" 2>&1
rc=$?
next_line "$before"
# (the guest's perftest has crashed there, exit 139, after its retries)
if [ "$rc" != 0 ] && grep -q "result: failed: perftest -R with -q N: several data connections (RDMA-CM) not supported, use the TCP exchange" <<<"$line"; then
	ok "ib_write_bw -R -q 2: refused, the client exits $rc; ${line#*: }"
else
	ko "ib_write_bw -R -q 2: client exit $rc, responder: \"${line:-no line}\""
	tail -n 5 "$tmp/rq.cli"
fi
served=$(grep -c "^responder: client [0-9]* (.*result:" "$out")
responder_down "$served"

# The other way round: the prompt as the client of rxe's perftest servers
# ("qp connect ... perftest"). Each server's QP takes only its own
# operation (rxe NAKs a WRITE to read_bw's as an invalid request), so:
# ib_write_bw's server takes a WRITE; ib_read_bw's server gives the same
# 4096 bytes to two READs (its region is static; perftest checks no
# data). "qp disconnect" each time; both servers exit 0.
gmac=$(pexec 10 1 'cat /sys/class/net/eth0/address' 2>/dev/null | tr -d '\r' | tail -n 1)
# pt_client TOOL OPS...: rxe's ib_TOOL_bw server, then rk-testpmd posting
# OPS (command lines) after the connect; its output in $tmp/pt.TOOL.out.
# PT_CM=rdma_cm: the server's -R (RDMA-CM on the port, no TCP), the
# connect "... rdma_cm" to the guest's RoCE address; the output in
# $tmp/pt.TOOL-R.out.
PT_CM=""
pt_client() {
	local tool=$1 gpid ropt="" name=$1
	shift
	[ -n "$PT_CM" ] && ropt="-R " && name="$tool-R"
	pexec 90 1 "timeout 80 ib_${tool}_bw ${ropt}-F -d rxe0 -x 1 -s 4096 -n 5 -p $((TCP + 1))" \
		>"$tmp/gserver.$name" 2>&1 &
	gpid=$!
	{
		printf '%s\n' "set ip 0 198.18.0.100" "set eth-peer 0 $gmac" "mr reg 0 4096" \
			"mr reg 0 4096" "mr fill 0 0 4096 inc:5" "qp create 0 rc" "set fwd rdma" "start" \
			"qp connect 0 perftest 198.18.0.11:$((TCP + 1)) 0 $tool${PT_CM:+ $PT_CM}"
		printf '%s\n' "$@" "qp disconnect 0" "show rdma 0" "stop" "quit"
	} >"$tmp/client.cmd"
	# shellcheck disable=SC2086
	ip netns exec "$OOB_NS" timeout -k 5 120 "$tp" $MEM --no-pci --log-level='*:warning' -l 0-1 \
		--file-prefix rkrc$$ --vdev=net_af_packet0,iface="rkd$$" -- -i \
		--cmdline-file "$tmp/client.cmd" </dev/null >"$tmp/pt.$name.out" 2>&1
	ptrc=$?
	wait "$gpid"
	gsrc=$?
}
pt_has() { grep -qE "$2" "$tmp/pt.$1.out"; }
pt_client write "post write 0 0 4096 2" "poll cq 0 1 10000"
if [ "$ptrc" = 0 ] && [ "$gsrc" = 0 ] &&
	pt_has write "^QP 0: connected to perftest .* write_bw at 198.18.0.11:" &&
	pt_has write "wc wr_id=1 status=success \(0\) opcode=RDMA_WRITE byte_len=4096" &&
	pt_has write "^QP 0: perftest exchange ended \(1 iterations reported\)"; then
	ok "qp connect ... perftest to rxe's ib_write_bw server: a WRITE of 4096 bytes, disconnect"
else
	ko "prompt as ib_write_bw's client: rk-testpmd exit $ptrc, server exit $gsrc"
	grep -v '^TELEMETRY' "$tmp/pt.write.out" | grep -v "^  [a-z_]* *[0-9]*$" | tail -n 12
	tail -n 5 "$tmp/gserver.write"
fi
# MR 0 holds inc:5 and MR 1 inc:9 before: equal dumps after are the READs' bytes
pt_client read "mr fill 1 0 4096 inc:9" "post read 0 0 4096 2" "poll cq 0 1 10000" \
	"post read 0 1 4096 2" "poll cq 0 1 10000" "mr dump 0 0 256" "mr dump 1 0 256"
# the two dumps: 16 lines each after their commands
d0=$(sed -n '/^rk-testpmd> mr dump 0 0 256/,/^rk-testpmd> /p' "$tmp/pt.read.out" | sed '1d;$d' | cut -c9-)
d1=$(sed -n '/^rk-testpmd> mr dump 1 0 256/,/^rk-testpmd> /p' "$tmp/pt.read.out" | sed '1d;$d' | cut -c9-)
if [ "$ptrc" = 0 ] && [ "$gsrc" = 0 ] &&
	pt_has read "^QP 0: connected to perftest .* read_bw at 198.18.0.11:" &&
	pt_has read "wc wr_id=1 status=success \(0\) opcode=RDMA_READ byte_len=4096" &&
	pt_has read "wc wr_id=2 status=success \(0\) opcode=RDMA_READ byte_len=4096" &&
	[ "$(wc -l <<<"$d0")" = 16 ] && [ "$d0" = "$d1" ] &&
	pt_has read "^QP 0: perftest exchange ended \(2 iterations reported\)"; then
	ok "qp connect ... perftest to rxe's ib_read_bw server: two READs give the same bytes, disconnect"
else
	ko "prompt as ib_read_bw's client: rk-testpmd exit $ptrc, server exit $gsrc; dumps $(wc -l <<<"$d0") lines"
	grep -v '^TELEMETRY' "$tmp/pt.read.out" | grep -v "^  [a-z_]* *[0-9]*$" | tail -n 12
	tail -n 5 "$tmp/gserver.read"
fi
# -R: the exchange QP and the data QP connected by RDMA-CM over QP1 (the
# guest's server retries nothing: our REQ comes once it listens, or is
# sent again after its REJ "invalid service ID"); a WRITE, then "qp
# disconnect" ends with a DREQ of each connection, answered.
PT_CM=rdma_cm
pt_client write "post write 0 0 4096 2" "poll cq 0 1 10000"
PT_CM=""
if [ "$ptrc" = 0 ] && [ "$gsrc" = 0 ] &&
	pt_has write-R "^QP 0: connected to perftest .* write_bw -R at 198.18.0.11:$((TCP + 1)): .*GID ::ffff:198.18.0.11, " &&
	pt_has write-R "wc wr_id=1 status=success \(0\) opcode=RDMA_WRITE byte_len=4096" &&
	pt_has write-R "^QP 0: perftest exchange ended \(1 iterations reported\), both connections disconnected, QP in ERR$" &&
	pt_has write-R "CM MADs no connect waited for 0$"; then
	ok "qp connect ... rdma_cm to rxe's ib_write_bw -R server: a WRITE of 4096 bytes, DREQs answered"
else
	ko "prompt as ib_write_bw -R's client: rk-testpmd exit $ptrc, server exit $gsrc"
	grep -v '^TELEMETRY' "$tmp/pt.write-R.out" | grep -v "^  [a-z_]* *[0-9]*$" | tail -n 12
	tail -n 5 "$tmp/gserver.write-R"
fi

# gen_client OP TOOL SIZE: rxe's ib_TOOL_bw -q 16 server, rk-gen's 16 QPs
# doing 10 OPs each; rk-gen's JSON report in $tmp/gen.OP.json
gen_client() {
	local op=$1 tool=$2 size=$3 gpid grc rc why
	pexec 120 1 "timeout 100 ib_${tool}_bw -F -d rxe0 -x 1 -q 16 -s $size -n 10 -p $((TCP + 2))" \
		>"$tmp/gserver.gen.$op" 2>&1 &
	gpid=$!
	# shellcheck disable=SC2086
	ip netns exec "$OOB_NS" timeout -k 5 150 "$gen" $MEM --no-pci --log-level='*:warning' -l 0 \
		--file-prefix rkg$$ --vdev=net_af_packet0,iface="rkd$$" -- --stateful 16 --perftest \
		--op "$op" --size "$size" --iters 10 --timeout 30 --port net_af_packet0 \
		--ip 198.18.0.100 --oob-port $((TCP + 2)) --json 198.18.0.11 \
		>"$tmp/gen.$op.json" 2>"$tmp/gen.$op.err"
	rc=$?
	wait "$gpid"
	grc=$?
	why=$(python3 - "$tmp/gen.$op.json" "$op" <<-'PY'
		import json, sys
		try:
		    j = json.load(open(sys.argv[1]))
		except Exception as e:
		    print("no JSON report: %s" % e); sys.exit()
		want = {"ok": True, "qps": 16, "messages": 160, sys.argv[2]: 160,
		        "data_errors": 0, "sequence_errors": 0, "completion_errors": 0}
		bad = ["%s %s (want %s)" % (k, j.get(k), v) for k, v in want.items() if j.get(k) != v]
		if "checked" not in j.get("data_check", "") or "not checked" in j.get("data_check", ""):
		    bad.append("data_check %r" % j.get("data_check"))
		print("; ".join(bad))
		PY
	)
	if [ "$rc" = 0 ] && [ "$grc" = 0 ] && [ -z "$why" ]; then
		ok "rk-gen --stateful 16 --perftest --op $op to rxe's ib_${tool}_bw -q 16: 160 ${op}s, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data_check"])' "$tmp/gen.$op.json")"
	else
		ko "rk-gen --perftest --op $op to rxe's ib_${tool}_bw -q 16: rk-gen exit $rc, server exit $grc; $why"
		tail -n 5 "$tmp/gen.$op.err"
		tail -n 5 "$tmp/gserver.gen.$op"
	fi
}
if [ -n "$gen" ]; then
	gen_client read read 4096
	gen_client atomic atomic 8
fi

echo "$pass passed, $fail failed"
if [ "$fail" -ne 0 ]; then
	for f in "$tmp"/tp.*.out; do
		echo "---- rk-testpmd ($f):"
		grep -v "^TELEMETRY" "$f" | tail -n 25
	done
	echo "---- guest kernel:"
	pexec 10 1 'dmesg | tail -8' 2>&1 | tail -8
	exit 1
fi
