#!/usr/bin/env bash
# The main job: install the Debian packages, build rdmakit, and inspect the
# bundled captures of real Linux RDMA peers (Soft-RoCE rxe and soft-iWARP
# siw): one line per packet for a short exchange, then per-QP and
# per-connection summaries with findings for a RoCE run with 5% loss and an
# iWARP run with MPA CRC, then a one-line verdict per capture.
# Run as root on Debian 12. Build tree: build/release (RK_BUILD_ROOT).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${RK_BUILD_ROOT:-build}

bash tools/setup-debian.sh
if [ ! -f "$ROOT/release/build.ninja" ]; then
	meson setup "$ROOT/release" -Dbuildtype=release -Db_ndebug=false >/dev/null
fi
ninja -C "$ROOT/release" >/dev/null
RK="$ROOT/release/tools/rk-inspect"

banner() { printf '\n===== %s\n' "$*"; }

banner "ibv_rc_pingpong between two rxe guests, one line per packet"
"$RK" pcaps/roce/rxe_rc_pingpong_s64.pcap | head -24

banner "ib_write_bw over rxe with 5% of the writer's frames dropped: per-QP summary"
"$RK" --summary pcaps/roce/rxe_write_bw_loss5.pcap

banner "rping over siw with MPA CRC: per-connection summary"
"$RK" --summary pcaps/iwarp/siwcrc_rping.pcap

banner "every bundled capture: frames, RDMA frames, ICRC/CRC verdicts, findings"
printf '%-36s %7s %7s %9s %7s  %s\n' capture frames rdma icrc_bad fpdus findings
for f in pcaps/roce/*.pcap pcaps/iwarp/*.pcap ../shared/pcaps-public/*.pcap; do
	[ -f "$f" ] || continue
	"$RK" --json "$f" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["totals"]
f = ", ".join("%s=%d" % kv for kv in d["findings"].items()) or "none"
print("%-36s %7d %7d %9d %7d  %s" % (sys.argv[1], t["frames"], t["rdma_frames"],
      t["icrc_bad"] + t["mpa_crc_bad"], t["fpdus"], f))
' "$(basename "$f")"
done
echo
echo "rk-inspect: $RK (--help for options; doc/inspect.md for the JSON schema)"
