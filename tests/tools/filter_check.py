#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect's filters.

usage: filter_check.py RK_INSPECT PCAPS_DIR

Display filters (--qp, --host, --opcode, --finding, --from/--to) print
exactly the lines of the whole output that match, and leave the analysis
(the JSON summary) as it was; the capture filter (-f, BPF) drops frames
before the analysis: the frames left are those tshark's display filter
of the same meaning keeps. Bad values: one line, exit 2.
"""
import json
import os
import re
import subprocess
import sys

RK, PCAPS = sys.argv[1:3]
passed = failed = 0


def check(ok, msg):
    global passed, failed
    ok = bool(ok)
    print(("ok   " if ok else "FAIL ") + msg)
    passed += bool(ok)
    failed += not ok


def run(*args):
    return subprocess.run([RK] + list(args), capture_output=True, text=True, timeout=120)


def lines(*args):
    return run(*args).stdout.splitlines()


def summary(*args):
    d = json.loads(run("-j", *args).stdout)
    d["totals"].pop("duration", None)
    return d


cap = os.path.join(PCAPS, "roce", "rxe_write_bw.pcap")
every = lines(cap)
first = [ln for ln in every if "RDMA WRITE First" in ln]
got = lines("--opcode", "RC_RDMA_WRITE_FIRST", cap)
check(got == first and len(got) > 0, f"--opcode RC_RDMA_WRITE_FIRST: {len(got)} lines, "
      f"those of the whole output that say so")
check(lines("--opcode", "6", cap) == first, "--opcode 6 (the number) the same lines")
check(lines("--opcode", "WRITE_FIRST", cap) == first, "--opcode WRITE_FIRST (rk-gen's short name) the same lines")
qp = re.search(r"DestQP=(0x[0-9a-f]+)", every[0]).group(1)
got = lines("--qp", qp, cap)
check(got == [ln for ln in every if f"DestQP={qp}" in ln] and got,
      f"--qp {qp}: {len(got)} of {len(every)} lines, each of that QP")
check(lines("--qp", "0xabcdef", cap) == [], "--qp 0xabcdef (no such QP): no line")
host = every[0].split()[2]
got = lines("--host", host, cap)
check(got == [ln for ln in every if f" {host} " in ln], f"--host {host}: {len(got)} lines")
times = [float(ln.split()[1]) for ln in every]
lo, hi = times[len(times) // 4], times[len(times) // 2]
got = lines("--from", str(lo), "--to", str(hi), cap)
check(got == [ln for ln, t in zip(every, times) if lo - 1e-9 <= t <= hi + 1e-9] and got,
      f"--from {lo} --to {hi}: {len(got)} lines inside the window")
check(summary("--qp", qp, "--opcode", "6", cap) == summary(cap),
      "display filters leave the JSON summary as it was")
# a capture with findings: only those frames
bad = os.path.join(PCAPS, "iwarp", "siw_write_bw_rdmacm.pcap")
allb = lines(bad)
got = lines("--finding", "mpa.pad", bad)
want = [ln for ln in allb if "mpa.pad.nonzero" in ln]
check(got == want and 0 < len(got) < len(allb),
      f"--finding mpa.pad: {len(got)} of {len(allb)} lines, those that name it")
# the capture filter
tshark = subprocess.run(["tshark", "-n", "-r", cap, "-Y", f"ip.src == {host}"],
                        capture_output=True, text=True).stdout.splitlines()
d = summary("-f", f"ip src {host}", cap)
check(d["totals"]["frames"] == len(tshark) and 0 < len(tshark) < summary(cap)["totals"]["frames"],
      f"-f 'ip src {host}': {d['totals']['frames']} frames analysed, tshark keeps {len(tshark)}")
for args, text in ((["--opcode", "bogus"], "--opcode 'bogus'"), (["--qp", "0x1000000"], "--qp"),
                   (["--from", "-1"], "--from"), (["-f", "ip src ("], "--filter"),
                   (["--from", "5", "--to", "1"], "window is empty"),
                   # A typo must not look like a capture without findings.
                   (["--finding", "icrc.bda"], "--finding 'icrc.bda'"),
                   # Output that cannot be written: said before the analysis.
                   (["--interval", "1", "--csv", "/nonexistent/dir/x.csv"], "--csv")):
    p = run(*args, cap)
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and err and text in err[0] and len(err) <= 2,
          f"{' '.join(args)}: exit {p.returncode}, '{err[0] if err else ''}'")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
