#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-conform end to end against rdmakit's own engine.

1. rk-conform --dut self: every case passes; the JSON summary and the JUnit
   XML (testsuite/testcase/failure/skipped, the counts in the testsuite's
   attributes) agree with the cases run; no pcap is written.
2. The same program built with deliberate engine faults (rk-conform-mutant,
   RK_IB_MUTANTS=bits): TVer and P_Key accepted -> exactly rc.bth.tver and
   rc.bth.pkey fail, exit status 1, each with a pcap under --pcap-dir that
   holds only that case's frames (as many as the JSON counts; read back by
   tshark when installed, every frame RoCEv2 of the case's QP pair).
3. --list --markdown names every case; bad options exit 2.
4. The catalog in doc/conformance.md equals --list --markdown.
Usage: rk_conform_check.py RK_CONFORM RK_CONFORM_MUTANT DOC_CONFORMANCE_MD
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TVER, PKEY = 1 << 4, 1 << 5


def run(exe, args, env=None, want=0):
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != want:
        sys.exit(f"FAIL: {exe} {' '.join(args)}: exit {p.returncode}, wanted {want}\n"
                 f"{p.stdout[-3000:]}\n{p.stderr}")
    return p


def junit_check(path, cases):
    """The XML parses, and its counts match its testcases and the JSON."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if root.tag not in ("testsuites", "testsuite") or len(suites) != 1:
        sys.exit(f"FAIL: {path}: not one testsuite")
    s = suites[0]
    tcs = s.findall("testcase")
    fails = [t for t in tcs if t.find("failure") is not None]
    skips = [t for t in tcs if t.find("skipped") is not None]
    for attr, n in (("tests", len(tcs)), ("failures", len(fails)), ("skipped", len(skips)),
                    ("errors", 0)):
        if int(s.get(attr)) != n:
            sys.exit(f"FAIL: {path}: {attr}={s.get(attr)} but {n} elements")
    for t in tcs:
        if not t.get("name") or not t.get("classname") or float(t.get("time")) < 0:
            sys.exit(f"FAIL: {path}: testcase without name/classname/time")
        f = t.find("failure")
        if f is not None and (not f.get("message") or not f.get("type")):
            sys.exit(f"FAIL: {path}: failure of {t.get('name')} without message or rule")
    want = {c["id"]: c["verdict"] for c in cases}
    got = {t.get("name"): "FAIL" if t in fails else "n/a" if t in skips else "pass"
           for t in tcs}
    if want != got:
        sys.exit(f"FAIL: {path}: JUnit and JSON verdicts differ")
    return {t.get("name") for t in fails}


def pcap_frames(path):
    """Frame count of a classic pcap file (little-endian, as libpcap writes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] not in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4"):
        sys.exit(f"FAIL: {path}: not a pcap file")
    order = "little" if data[:4] == b"\xd4\xc3\xb2\xa1" else "big"
    off, n = 24, 0
    while off + 16 <= len(data):
        caplen = int.from_bytes(data[off + 8:off + 12], order)
        off += 16 + caplen
        n += 1
    if off != len(data):
        sys.exit(f"FAIL: {path}: truncated record")
    return n


def main():
    exe, mutant = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="rk-conform-")
    try:
        js, xml, pcaps = (os.path.join(tmp, x) for x in ("r.json", "r.xml", "pcaps"))
        p = run(exe, ["--json", js, "--junit", xml, "--pcap-dir", pcaps])
        rep = json.load(open(js))
        cases = rep["cases"]
        if len(cases) < 60 or rep["summary"]["fail"] != 0 or rep["summary"]["pass"] != len(cases):
            sys.exit(f"FAIL: against self: {rep['summary']}\n{p.stdout}")
        if junit_check(xml, cases):
            sys.exit("FAIL: JUnit failures against self")
        if os.listdir(pcaps):
            sys.exit("FAIL: pcaps written although nothing failed")
        for c in cases:
            if c["id"] not in p.stdout or not c["rule"]:
                sys.exit(f"FAIL: {c['id']}: not in the table, or no rule")

        env = dict(os.environ, RK_IB_MUTANTS=str(TVER | PKEY))
        shutil.rmtree(pcaps)
        p = run(mutant, ["--json", js, "--junit", xml, "--pcap-dir", pcaps], env=env, want=1)
        cases = json.load(open(js))["cases"]
        failed = junit_check(xml, cases)
        if failed != {"rc.bth.tver", "rc.bth.pkey"}:
            sys.exit(f"FAIL: with TVer and P_Key accepted, failed: {sorted(failed)}")
        if sorted(os.listdir(pcaps)) != ["rc.bth.pkey.pcap", "rc.bth.tver.pcap"]:
            sys.exit(f"FAIL: pcaps {sorted(os.listdir(pcaps))}")
        for c in cases:
            if c["verdict"] != "FAIL":
                continue
            path = os.path.join(pcaps, c["id"] + ".pcap")
            n = pcap_frames(path)
            if n != c["frames_tx"] + c["frames_rx"] or c.get("pcap") != path:
                sys.exit(f"FAIL: {path}: {n} frames, the case had "
                         f"{c['frames_tx']} + {c['frames_rx']}")
            if shutil.which("tshark"):
                t = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "udp.dstport",
                                    "-e", "infiniband.bth.destqp"],
                                   capture_output=True, text=True, timeout=120)
                lines = [ln for ln in t.stdout.splitlines() if ln.strip()]
                if t.returncode != 0 or len(lines) != n or \
                        any(not ln.startswith("4791") for ln in lines):
                    sys.exit(f"FAIL: tshark on {path}: {t.returncode}\n{t.stdout}{t.stderr}")

        p = run(exe, ["--list", "--markdown"])
        for c in cases:
            if f"`{c['id']}`" not in p.stdout:
                sys.exit(f"FAIL: {c['id']} not in --list --markdown")
        doc = open(sys.argv[3]).read()
        begin, end = "<!-- catalog begin -->\n", "<!-- catalog end -->"
        if begin not in doc or doc[doc.index(begin) + len(begin):doc.index(end)] != p.stdout:
            sys.exit(f"FAIL: the catalog of {sys.argv[3]} differs from --list --markdown; "
                     "regenerate it")
        run(exe, ["--dut", "nosuch"], want=2)
        run(exe, ["--timeout-ms", "0"], want=2)
        run(exe, ["--markdown"], want=2)
        # An option without its argument: one line naming it, nothing after.
        # Nor with the next option in its place ("--json --list" wrote a
        # file named "--list").
        for o, rest in (("--json", []), ("--junit", []), ("--json", ["--list"]),
                        ("--cases", ["--list"])):
            p = run(exe, [o] + rest, want=2)
            if p.stderr != f"rk-conform: option {o} needs an argument\n":
                sys.exit(f"FAIL: rk-conform {o}: {p.stderr!r}")
        # Said before the run, exit 2: a glob no case matches (a typo must not
        # pass as "0 cases"), an output file that cannot be written, --list
        # with outputs of a run.
        for args, msg in ((["--cases", "nomatch*"], "no case ID matches"),
                          (["--cases", "iw.ddp.*, iw.rdmap.*"],
                           "' iw.rdmap.*' matches no case ID"),
                          (["--cases", "iw.ddp.*,nosuch*"], "'nosuch*' matches no case ID"),
                          (["--cases", ","], "no case ID matches"),
                          (["--serve", "rping=1", "--serve", "rping=2"],
                           "rping=2: rping has a listener already"),
                          (["--json", os.path.join(tmp, "no", "x.json")], "No such file"),
                          (["--junit", os.path.join(tmp, "no", "x.xml")], "No such file"),
                          (["--list", "--json", os.path.join(tmp, "l.json")], "runs nothing"),
                          (["--timeout-ms", "abc"], "abc: not a number"),
                          (["--connect-timeout", "0"], "0: not in 0.1..3600 seconds"),
                          (["--max-setup-failures", "2"],
                           "--max-setup-failures, --port, --oob-netns and --record go with "
                           "--dut perftest"),
                          (["--serve", "write=1", "--serve", "write=2"],
                           "write=2: write has a server already"),
                          (["--serve", "all=1", "--serve", "read=2"],
                           "read=2: read has a server already")):
            p = run(exe, args, want=2)
            if msg not in p.stderr or "ID " in p.stdout:
                sys.exit(f"FAIL: rk-conform {' '.join(args)}: {p.stderr!r}")
        # A live DUT with no port to reach it by (no --port, no --vdev), or a
        # --port no device has: bad options too, one line, exit 2.
        eal = ["--no-huge", "-m", "64", "--no-pci", "--no-shconf", "--log-level=*:critical",
               "--"]
        live = ["--dut", "perftest", "--server", "127.0.0.1", "--ip", "198.18.0.1"]
        for args in (eal + live, eal + live + ["--port", "nosuch"]):
            p = run(exe, args, want=2)
            errs = [l for l in p.stderr.splitlines() if l.startswith("rk-conform:")]
            if len(errs) != 1 or "ID " in p.stdout:
                sys.exit(f"FAIL: rk-conform {' '.join(args)}: {p.stderr!r}")
    finally:
        shutil.rmtree(tmp)
    print("rk-conform: all cases pass against self; JUnit/JSON agree; mutants fail their "
          "cases with one pcap each")


if __name__ == "__main__":
    main()
