# SPDX-License-Identifier: BSD-3-Clause
# Sourced by run.sh (rxe) and siw.sh (siw), after they set $here and
# $LAB_NS: the lab tool, guest commands bounded on our side, and the checks
# that make a suite report skipped (77) with the reason when the lab cannot
# run here.
#
# The lab is the project's own tools/rk-lab/rk-lab; RDMA_PEER may name
# another tool with the same commands (up, down, exec, link, loss, status).
peer=${RDMA_PEER:-$(cd "$here/../.." && pwd)/tools/rk-lab/rk-lab}
# Which lab: its namespace, told to either tool.
export RK_LAB_NS=$LAB_NS RDMA_PEER_NS=$LAB_NS

# A guest command, bounded on our side as well: the lab's exec waits
# without limit for a free command channel when earlier commands hold them.
pexec() { # SECS GUEST CMD
	local t=$1
	shift
	timeout -k 5 $((t + 45)) "$peer" exec -t "$t" "$@"
}

skip() { echo "SKIP: $*"; exit 77; }

# A failed case's evidence: both exit codes, both logs (a tool's stdout is
# block-buffered into a pipe, so its stderr lines come before its report:
# the last lines alone can hide the error) and the guest kernel's last
# lines (siw and rxe log refused connections and protocol errors there).
case_evidence() { # RK_LOG RK_RC TOOL_LOG TOOL_RC
	echo "---- rk-interop ($1, exit $2):"
	grep -v '^TELEMETRY:' "$1" | log_excerpt
	echo "---- tool (exit $4):"
	log_excerpt <"$3"
	echo "---- guest kernel:"
	pexec 10 1 'dmesg | tail -8' 2>&1 | tail -8
}

# A log of at most 60 lines whole; a longer one as its first 20 and last
# 30 lines (the tool's error sits above its report, rk-interop's below).
log_excerpt() {
	awk '{ l[NR] = $0 } END {
		if (NR <= 60) { for (i = 1; i <= NR; i++) print l[i]; exit }
		for (i = 1; i <= 20; i++) print l[i]
		print "[... " NR - 50 " lines ...]"
		for (i = NR - 29; i <= NR; i++) print l[i] }'
}

# lab_seen_ok RK_LOG TOOL_LOG: the case's SEEN=REGEX, when set, is a line
# one of the two logs holds.
lab_seen_ok() { [ -z "${SEEN:-}" ] || grep -qE "$SEEN" "$1" "$2"; }

# lab_retry_note WHY RK_LOG RK_RC TOOL_LOG TOOL_RC: a failed case that
# will run once more (the suites' known intermittent guest failures): the
# RETRY line with the evidence, counted in $retried for the summary.
# lab_may_retry: true unless this run of the case is already the retry.
lab_may_retry() { [ -z "${RETRYING:-}" ]; }
lab_retry_note() {
	local x base=${2%.rk}
	echo "RETRY $1"
	case_evidence "$2" "$3" "$4" "$5"
	retried=$((retried + 1))
	# The retry writes the same names: the first try's files become NAME.try1.*.
	for x in "$base".*; do
		[ -e "$x" ] && mv "$x" "$base.try1.${x#"$base".}"
	done
}

lab_checks() { # RK_INTEROP
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, QEMU)"
	[ -x "$peer" ] || skip "no lab tool at $peer"
	[ -x "$1" ] || skip "$(basename "$1") not built"
	[ -c /dev/net/tun ] || skip "no /dev/net/tun"
	ip netns list >/dev/null 2>&1 || skip "no network namespace support"
	command -v qemu-system-x86_64 >/dev/null || skip "QEMU is not installed (run tools/setup-debian.sh)"
	command -v python3 >/dev/null || skip "python3 is not installed"
	case $LAB_NS in *[!A-Za-z0-9_.-]*) skip "lab namespace '$LAB_NS' is not a plain name" ;; esac
}

# lab_up LOG [up args]: boots the lab. rk-lab exits 3 when this machine
# cannot run it (no root, tun, QEMU or package mirror): a skip, with the
# reason; any other failure fails the suite.
lab_up() {
	local log=$1 rc=0
	shift
	# 9>&-: QEMU daemonizes; it must not inherit (and keep) the run's lock.
	"$peer" up --guests 1 "$@" >"$log" 2>&1 9>&- || rc=$?
	[ $rc = 0 ] && return 0
	tail -5 "$log"
	if [ $rc = 3 ]; then
		skip "the lab cannot run here: $(grep 'unavailable:' "$log" | tail -1)"
	elif [ -n "${RDMA_PEER:-}" ] && grep -qiE "apt|download|mirror|resolve|kvm|qemu|tun" "$log"; then
		skip "the lab did not start: $(grep -iE 'error|fail' "$log" | tail -1)"
	fi
	echo "FAIL: the lab did not come up"
	exit 1
}

lab_running() {
	ip netns list | grep -qw "^$LAB_NS" && "$peer" status 2>/dev/null | grep -q "guest1.*running"
}

# The lab's first bridge (guest1's), whichever tool built the lab.
lab_bridge() {
	ip -n "$LAB_NS" -o link show type bridge | awk -F': ' 'NR == 1 { sub(/@.*/, "", $2); print $2 }'
}

# The guest's package versions, one line.
lab_versions() {
	pexec 20 1 'uname -r; cat /etc/rk-lab/manifest /etc/rdma-peer/manifest 2>/dev/null |
		grep -E "^ *(perftest|rdmacm-utils|ibverbs-providers) "' 2>/dev/null | tr -s ' \n' ' '
}

# A suite that boots the lab records its PID in $LAB_OWNER; a lab whose
# recorded owner is gone (a run killed by its time limit cannot clean up)
# is taken down and booted afresh, never reused as someone's running lab.
# Likewise the exchange namespaces (rkoobPID) of runs that are gone.
LAB_OWNER=/run/rk-interop-$LAB_NS.owner
lab_reap_stale() {
	local owner ns
	owner=$(cat "$LAB_OWNER" 2>/dev/null)
	if [ -n "$owner" ] && [ ! -d "/proc/$owner" ]; then
		echo "taking down the lab $LAB_NS left by run $owner"
		"$peer" down >/dev/null 2>&1 9>&-
		rm -f "$LAB_OWNER"
	fi
	for ns in $(ip netns list | awk '$1 ~ /^rkoob[0-9]+$/ { print $1 }'); do
		[ -d "/proc/${ns#rkoob}" ] || ip netns del "$ns" 2>/dev/null
	done
}
lab_own() { echo $$ >"$LAB_OWNER"; }
lab_disown() { rm -f "$LAB_OWNER"; }

# lab_use_or_up LOG [rk-lab up options]: the running lab of LAB_NS, else
# one booted here (booted=1: the caller's cleanup takes it down).
lab_use_or_up() {
	local log=$1
	shift
	lab_reap_stale
	if lab_running; then
		echo "using the running lab $LAB_NS"
	else
		booted=1
		lab_own
		lab_up "$log" "$@"
	fi
}

# lab_conform SECS ARGS: rk-conform ($rkc) --dut perftest on the lab's
# host port dpdk0 (our address 198.18.0.100) against guest1
# (198.18.0.11), with rk-conform's options ARGS, within SECS; MEM from
# tests/helpers/dpdk-mem.sh.
lab_conform() {
	local secs=$1
	shift
	# shellcheck disable=SC2086
	timeout -k 10 "$secs" ip netns exec "$LAB_NS" "$rkc" $MEM --no-pci --log-level='*:warning' \
		--vdev=net_af_packet0,iface=dpdk0 --file-prefix="rkcf$$" -- --dut perftest \
		--server 198.18.0.11 --ip 198.18.0.100 "$@"
}

# conform_matched RC OUT: an rk-conform run with --expect exited 0 and
# found its verdicts as expected.
conform_matched() { [ "$1" = 0 ] && grep -q "^expected verdicts (.*): 0 differences" "$2"; }

# conform_twice WHAT OUT FN [ARGS]: FN OUT ARGS, an rk-conform run with
# --expect; one that differs runs once more (a guest under TCG on a busy
# host now and then answers a case late, or a server is not back in its
# loop yet), shown as RETRY with what differed. Sets rc.
conform_twice() {
	local what=$1 out=$2 fn=$3
	shift 3
	"$fn" "$out" "$@"
	rc=$?
	conform_matched "$rc" "$out" && return 0
	echo "RETRY: $what differed (exit $rc):"
	grep -E "^(DIFF|NEW|GONE)|setup failed" "$out" | head -20
	mv "$out" "$out.try1"
	"$fn" "$out" "$@"
	rc=$?
}

# tool_wait_listening SECS TOOLCMD: before rk-interop connects to a tool
# the guest runs as the server, wait (at most SECS) until the tool
# listens: under TCG on a busy host a tool can take seconds to start, and
# a client that meets refusals retries with new QPs. RDMA-CM tools (rping,
# perftest -R) listen with an RDMA-CM ID (rdma res show cm_id), the others
# on a TCP port (ss).
tool_wait_listening() { # SECS TOOLCMD
	local port=18515 probe
	case "$2" in
	*rping*) port=7174 ;;
	*ib_* | *ibv_*) ;;
	*) # not a listening tool
		sleep 1.5
		return 0
		;;
	esac
	[[ "$2" =~ \ -p\ ([0-9]+) ]] && port=${BASH_REMATCH[1]}
	case "$2" in
	*rping* | *" -R "*) probe="rdma res show cm_id | grep -q 'LISTEN.*:$port\\b'" ;;
	*) probe="ss -ltnH 'sport = :$port' | grep -q ." ;;
	esac
	pexec "$1" 1 "for i in \$(seq $((5 * $1))); do $probe && exit 0; sleep 0.2; done; exit 1" \
		>/dev/null 2>&1 || sleep 1.5
	sleep 0.3
}

# rk_wait_listening SECS [NETNS PORT]: after starting rk-interop as the
# server, wait (at most SECS) until it can take the tool's connection:
# its TCP exchange socket listening in NETNS, or, without one (RDMA-CM,
# or iWARP over lwIP on the DPDK port), until rk-interop answers ARP for
# 198.18.0.100 on the lab link, seen from the guest. DPDK's start takes
# seconds under TCG on a busy host.
rk_wait_listening() { # SECS [NETNS PORT]
	local i
	if [ -n "${2:-}" ]; then
		for ((i = 0; i < 5 * $1; i++)); do
			ip netns exec "$2" ss -ltnH "sport = :$3" 2>/dev/null | grep -q . && break
			sleep 0.2
		done
	else
		pexec "$1" 1 "for i in \$(seq $1); do arping -q -c 1 -w 1 -I eth0 198.18.0.100 && exit 0; done; exit 1" \
			>/dev/null 2>&1
	fi
	sleep 0.3
}
