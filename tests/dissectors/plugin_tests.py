#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the rdmakit Wireshark plugin through tshark.

usage: plugin_tests.py MODE --plugin SO --pcaps DIR [options]

MODE
  golden      every capture in pcaps/{roce,iwarp}: fields and the -z table
              equal the golden files (--update rewrites them); RoCE fields
              are the same in one pass and with -2
  crosscheck  loss captures: lost/retransmitted PSNs, go-back-N episodes,
              NAKs, RNR NAKs, CNPs, packets and messages per QP (iWARP:
              FPDUs, messages, CRC errors, Terminates per direction) equal
              rk-inspect -j; with --rk-sim, the same for frames rk-sim
              reordered (two passes)
  icrc        one RoCE frame corrupted: flagged exactly once, at that frame;
              nothing flagged with the ICRC preference off
  gso         the GSO-style iWARP capture of gen_gso: every FPDU decoded,
              segments with several FPDUs and FPDUs across segments as
              counted by the generator, message lengths
  fuzz        mutants of every capture (tests/tools/mutate.py) never crash
              tshark with the plugin

options: --rk-inspect EXE  --rk-sim EXE  --golden DIR  --gen GEN_GSO  --mutate MUTATE_PY
         --gen-captures GEN (tests/tools/gen_captures: synthetic captures
         added to the golden set)
         -n N (mutants per capture)  --asan LIBS (LD_PRELOAD for an ASan
         plugin, colon-separated)  --update

tshark ignores personal plugin folders when run as root, so as root every
tshark runs as nobody (setpriv) with the plugin copied to a folder that
user can read. Exit 77 (skip) when tshark or setpriv is missing.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77

FIELDS = [
    "frame.number", "rdmakit.kind", "rdmakit.bth.opname", "rdmakit.bth.psn",
    "rdmakit.icrc.status", "rdmakit.flow", "rdmakit.qp.src", "rdmakit.qp.pairing",
    "rdmakit.psn.expected", "rdmakit.analysis.lost", "rdmakit.analysis.retransmission",
    "rdmakit.analysis.out_of_order", "rdmakit.analysis.go_back_n", "rdmakit.analysis.nak",
    "rdmakit.analysis.rnr", "rdmakit.ack.first_psn", "rdmakit.ack.last_psn",
    "rdmakit.msg.length", "rdmakit.fpdu.count", "rdmakit.fpdu.kind", "rdmakit.rdmap.opcode",
    "rdmakit.mpa.crc.status", "rdmakit.ddp.msg.length", "rdmakit.term.meaning",
    "rdmakit.finding",
]


class Env:
    def __init__(self, opts):
        self.tshark = shutil.which("tshark")
        if self.tshark is None:
            skip("tshark is not installed (apt-get install tshark)")
        if not os.path.isfile(opts["plugin"]):
            skip("plugin not built: " + opts["plugin"])
        self.tmp = tempfile.mkdtemp(prefix="rk-ws-")
        os.chmod(self.tmp, 0o755)
        epan = os.path.join(self.tmp, "plugins", "4.0", "epan")
        os.makedirs(epan)
        for d in ("plugins", "plugins/4.0", "plugins/4.0/epan"):
            os.chmod(os.path.join(self.tmp, d), 0o755)
        shutil.copy(opts["plugin"], os.path.join(epan, "rdmakit.so"))
        os.chmod(os.path.join(epan, "rdmakit.so"), 0o644)
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        os.chmod(self.home, 0o755)
        self.prefix = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                skip("running as root and setpriv (util-linux) is missing")
            self.prefix = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        self.env = dict(os.environ)
        self.env.update({"WIRESHARK_PLUGIN_DIR": os.path.join(self.tmp, "plugins"),
                         "HOME": self.home, "LC_ALL": "C"})
        if opts.get("asan"):
            self.env["LD_PRELOAD"] = opts["asan"]
            self.env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
            self.env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        out = self.run(["-G", "protocols"]).stdout
        if not re.search(r"^rdmakit RDMA analysis\trdmakit\trdmakit$", out, re.M):
            fail("tshark did not load the plugin from " + epan)

    def place(self, path):
        """Copy a capture where the unprivileged tshark can read it."""
        dst = os.path.join(self.tmp, os.path.basename(path))
        if os.path.abspath(path) != dst:
            shutil.copy(path, dst)
        os.chmod(dst, 0o644)
        return dst

    def run(self, args, check=True):
        p = subprocess.run(self.prefix + [self.tshark] + args, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace")
        if check and (p.returncode != 0 or "Sanitizer" in p.stderr):
            fail("tshark %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-3000:]))
        return p

    def fields(self, cap, extra=(), fields=FIELDS):
        args = ["-r", cap, "-Y", "rdmakit", "-T", "fields", "-E", "occurrence=a",
                "-E", "aggregator=,"] + list(extra)
        for f in fields:
            args += ["-e", f]
        return self.run(args).stdout

    def table(self, cap, extra=()):
        return self.run(["-r", cap, "-q", "-z", "rdmakit,qp"] + list(extra)).stdout

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def captures(pcaps):
    out = []
    for sub in ("roce", "iwarp"):
        d = os.path.join(pcaps, sub)
        if os.path.isdir(d):
            out += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".pcap"))
    if not out:
        fail("no captures under " + pcaps)
    return out


def parse_table(text):
    """-z rdmakit,qp output -> {label: {key: value}}."""
    rows, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^flow (\d+): (.*)$", line)
        if m:
            cur = rows.setdefault(m.group(2), {})
            continue
        if cur is not None and line.startswith("  "):
            for k, v in re.findall(r"(\w+)=(\S+)", line):
                cur[k] = v
    return rows


# ------------------------------------------------------------------ modes

def synthetic(env, o):
    """rk-inspect's synthetic captures (CNP, RNR NAK, bad ICRC, markers,
    bad MPA CRC, Terminate, ...), written by tests/tools/gen_captures."""
    if not o.get("gen_captures"):
        return []
    d = os.path.join(env.tmp, "synthetic")
    os.makedirs(d)
    if subprocess.run([o["gen_captures"], d], stdout=subprocess.DEVNULL).returncode != 0:
        fail("gen_captures failed")
    return [os.path.join(d, f) for f in ("roce_scenarios.pcap", "roce_snaplen.pcap",
                                         "iwarp_scenarios.pcap")]


def mode_golden(env, o):
    gold = o["golden"]
    failed = 0
    for cap in captures(o["pcaps"]) + synthetic(env, o):
        name = os.path.splitext(os.path.basename(cap))[0]
        c = env.place(cap)
        got = env.fields(c, ["-2"]) + env.table(c, ["-2"])
        if "roce" in name and env.fields(c) != env.fields(c, ["-2"]):
            print("FAIL %s: fields differ between one pass and -2" % name)
            failed += 1
        path = os.path.join(gold, name + ".txt")
        if o.get("update"):
            with open(path, "w") as f:
                f.write(got)
            print("wrote " + path)
            continue
        if not os.path.exists(path):
            print("FAIL %s: no golden file %s (run with --update)" % (name, path))
            failed += 1
            continue
        with open(path) as f:
            want = f.read()
        if got != want:
            import difflib
            diff = difflib.unified_diff(want.splitlines(), got.splitlines(), "golden", "now",
                                        lineterm="", n=1)
            print("FAIL %s:\n%s" % (name, "\n".join(list(diff)[:40])))
            failed += 1
        else:
            print("ok   " + name)
    return failed


def rk_json(o, cap):
    if not o.get("rk_inspect"):
        skip("rk-inspect not built (needs libpcap and jansson)")
    p = subprocess.run([o["rk_inspect"], "-j", cap], stdout=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        fail("rk-inspect -j %s: exit %d" % (cap, p.returncode))
    return json.loads(p.stdout)


def rtx_conflict_check(env, o):
    """A retransmitted TCP segment of the siw loss capture with one byte
    changed: the plugin raises tcp.retransmission.conflict on the frame
    rk-inspect names, and nowhere else."""
    src = os.path.join(o["pcaps"], "iwarp", "siw_write_bw_loss5.pcap")
    out = env.run(["-r", env.place(src), "-Y", "tcp.analysis.retransmission && tcp.len >= 8",
                   "-T", "fields", "-e", "frame.number", "-e", "frame.cap_len",
                   "-e", "tcp.len"]).stdout.split("\n")
    data = open(src, "rb").read()
    recs = pcap_records(data)
    for line in out:
        if not line:
            continue
        n, caplen, tlen = (int(x) for x in line.split("\t"))
        off, incl = recs[n - 1]
        mut = bytearray(data)
        mut[off + caplen - tlen + tlen // 2] ^= 0x10
        cap = os.path.join(env.tmp, "rtx_conflict.pcap")
        with open(cap, "wb") as f:
            f.write(mut)
        os.chmod(cap, 0o644)
        p = subprocess.run([o["rk_inspect"], "--packets-json", cap],
                           stdout=subprocess.PIPE, text=True)
        units = [json.loads(x) for x in p.stdout.splitlines() if '"tcp_rtx_conflict"' in x]
        if not units:
            continue        # the first copy was not in the capture
        want = sorted({u["frame"] for u in units})
        got = env.run(["-r", cap, "-Y", 'rdmakit.finding == "tcp.retransmission.conflict"',
                       "-T", "fields", "-e", "frame.number"]).stdout.split()
        if [int(x) for x in got] != want or want != [n]:
            print("FAIL rtx_conflict: frame %d changed; rk-inspect names %s, plugin %s"
                  % (n, want, got))
            return 1
        print("ok   rtx_conflict: plugin and rk-inspect flag frame %d" % n)
        return 0
    print("FAIL rtx_conflict: no retransmission whose first copy is captured")
    return 1


def mode_crosscheck(env, o):
    failed = 0
    checked = {"lost": 0, "retransmissions": 0, "naks": 0, "fpdus": 0}
    caps = []
    for sub, name in (("roce", "rxe_write_bw_loss5.pcap"), ("iwarp", "siw_write_bw_loss5.pcap"),
                      ("roce", "rxe_write_bw_loss5_rtx_skip.pcap")):
        cap = os.path.join(o["pcaps"], sub, name)
        if not os.path.exists(cap):
            fail("missing capture " + cap)
        caps.append((cap, name, (), True))
    if o.get("rk_sim"):
        # Frames delivered out of order: a packet's verdict comes with a
        # later one, so the records are final in two passes (-2). A 10 Tb/s
        # link, where a held frame is overtaken by new ones, and rk-sim's
        # 100 Gb/s default, where it is overtaken by its own replays and
        # verdicts change what earlier frames counted (issue 21).
        for rate, tag in (("10000000000000", ""), ("100000000000", "_100g")):
            cap = os.path.join(env.tmp, "sim_reorder%s.pcap" % tag)
            p = subprocess.run([o["rk_sim"], "-s", "1", "-o", "300", "-O", "all",
                                "-r", "0.05:2000", "-R", rate, "-W", cap],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                fail("rk-sim: " + p.stdout[-500:])
            caps.append((cap, "sim_reorder%s.pcap (rk-sim -r 0.05:2000 -R %s, tshark -2)"
                         % (tag, rate), ("-2",), False))
    for cap, name, extra, lossy in caps:
        rk = rk_json(o, cap)
        rows = parse_table(env.table(env.place(cap), extra))
        want = {}
        for q in rk["qps"]:
            label = "%s > %s DestQP 0x%06x" % (q["src"], q["dst"], q["dest_qp"])
            psn = q["psn"] or {}
            resp = q["response_psn"] or {}
            # The plugin counts both sequences of a flow in one row.
            want[label] = {
                "packets": q["packets"], "messages": q["messages"] + q["read_response_messages"],
                "lost": psn.get("missing", 0) + resp.get("missing", 0),
                "retransmissions": psn.get("duplicates", 0) + resp.get("duplicates", 0),
                "go_back_n": psn.get("retransmission_episodes", 0),
                "naks": sum(n["count"] for n in q["naks"]), "rnr_naks": q["rnr_naks"],
                "cnps": q["cnps"], "icrc_errors": q["icrc_bad"],
            }
        for c in rk["connections"]:
            ends = {"%s:%d" % (c["initiator"], c["initiator_port"]):
                    "%s:%d" % (c["responder"], c["responder_port"])}
            ends[list(ends.values())[0]] = list(ends.keys())[0]
            for d in c["directions"]:
                label = "%s > %s iWARP" % (d["from"], ends[d["from"]])
                want[label] = {"fpdus": d["fpdus"], "messages": d["messages"],
                               "crc_errors": d["crc_errors"], "terminates": d["terminates"]}
        if set(want) != set(rows):
            print("FAIL %s: flows differ: rk-inspect %s, plugin %s" %
                  (name, sorted(want), sorted(rows)))
            failed += 1
            continue
        for label, w in want.items():
            for k, v in w.items():
                got = int(rows[label].get(k, -1))
                if got != v:
                    print("FAIL %s [%s] %s: plugin %d, rk-inspect %d" % (name, label, k, got, v))
                    failed += 1
                if k in checked and lossy:
                    checked[k] += v
        print("ok   %s: %d flows agree" % (name, len(want)))
    failed += rtx_conflict_check(env, o)
    # The captures have loss: make sure the comparison compared something.
    for k, v in checked.items():
        if v == 0:
            print("FAIL: the loss captures show no %s at all" % k)
            failed += 1
    print("compared totals: %s" % checked)
    return failed


def pcap_records(data):
    import struct
    end = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    recs, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        recs.append((off + 16, incl))
        off += 16 + incl
    return recs


def mode_icrc(env, o):
    src = os.path.join(o["pcaps"], "roce", "rxe_write_bw.pcap")
    data = bytearray(open(src, "rb").read())
    roce = []
    for i, (off, n) in enumerate(pcap_records(data)):
        b = data[off:off + n]
        # Ethernet / IPv4 / UDP to 4791 with payload past the BTH
        if n > 60 and b[12:14] == b"\x08\x00" and b[23] == 17 and b[36:38] == b"\x12\xb7":
            roce.append((i + 1, off, n))
    if len(roce) < 20:
        fail("too few RoCEv2 frames in " + src)
    frame, off, n = roce[len(roce) // 2]
    data[off + n - 10] ^= 0x01            # a payload byte: the ICRC no longer matches
    bad = os.path.join(env.tmp, "icrc_one_bad.pcap")
    open(bad, "wb").write(bytes(data))
    bad = env.place(bad)
    failed = 0
    out = env.fields(bad, ["-2"], ["frame.number", "rdmakit.icrc.status", "rdmakit.finding"])
    flagged = [l.split("\t") for l in out.splitlines() if l.split("\t")[1] == "2"]
    findings = sum(l.split("\t")[2].split(",").count("icrc.bad") for l in out.splitlines())
    good = sum(1 for l in out.splitlines() if l.split("\t")[1] == "1")
    if [int(f[0]) for f in flagged] != [frame]:
        print("FAIL: frames with ICRC status Bad: %s, corrupted frame %d" %
              ([f[0] for f in flagged], frame))
        failed += 1
    if findings != 1:
        print("FAIL: icrc.bad raised %d times, want 1" % findings)
        failed += 1
    if good != len(roce) - 1:
        print("FAIL: %d frames with a good ICRC, want %d" % (good, len(roce) - 1))
        failed += 1
    ex = env.run(["-r", bad, "-2", "-Y", "rdmakit.expert.icrc.bad", "-T", "fields",
                  "-e", "frame.number"]).stdout.split()
    if ex != [str(frame)]:
        print("FAIL: expert item rdmakit.expert.icrc.bad on frames %s, want [%d]" % (ex, frame))
        failed += 1
    off_out = env.fields(bad, ["-o", "rdmakit.check_icrc:FALSE"],
                         ["frame.number", "rdmakit.icrc.status", "rdmakit.finding"])
    if any(l.split("\t")[1] != "0" or "icrc.bad" in l for l in off_out.splitlines()):
        print("FAIL: with check_icrc off some frame still has an ICRC verdict")
        failed += 1
    if o.get("rk_inspect"):
        rk = rk_json(o, bad)
        if rk["totals"]["icrc_bad"] != 1:
            print("FAIL: rk-inspect counts %d bad ICRCs" % rk["totals"]["icrc_bad"])
            failed += 1
    if not failed:
        print("ok   frame %d flagged once; %d others good; none with checking off" %
              (frame, good))
    return failed


def mode_gso(env, o):
    cap = os.path.join(env.tmp, "gso_iwarp.pcap")
    p = subprocess.run([o["gen"], cap])
    if p.returncode != 0:
        fail("gen_gso failed")
    want = {"msglen": [], "taglen": []}
    for line in open(cap + ".expect"):
        k, *v = line.split()
        if k in want:
            want[k].append(v)
        else:
            want[k] = int(v[0])
    cap = env.place(cap)
    failed = 0
    rows = parse_table(env.table(cap, ["-2"]))
    fpdus = sum(int(r.get("fpdus", 0)) for r in rows.values())
    msgs = sum(int(r.get("messages", 0)) for r in rows.values())
    crc = sum(int(r.get("crc_errors", 0)) for r in rows.values())
    out = env.fields(cap, ["-2"], ["frame.number", "rdmakit.fpdu.count",
                                   "rdmakit.fpdu.first_frame", "rdmakit.fpdu.last_frame",
                                   "rdmakit.ddp.msg.length", "rdmakit.ddp.stag",
                                   "rdmakit.mpa.crc.status"])
    multi, spans, lengths = 0, set(), []
    for line in out.splitlines():
        f = line.split("\t")
        if f[1] and int(f[1]) >= 2:
            multi += 1
        if f[2]:
            spans.update(zip(f[2].split(","), f[3].split(",")))
        if f[4]:
            lengths += [int(x) for x in f[4].split(",")]
        if "2" in f[6].split(","):
            crc += 1
    checks = [("FPDUs", fpdus, want["fpdus"]), ("messages", msgs, want["messages"]),
              ("segments with several FPDUs", multi, want["multi"]),
              ("FPDUs across segments", len(spans), want["spans"]), ("CRC errors", crc, 0)]
    for what, got, exp in checks:
        if got != exp:
            print("FAIL: %s: plugin %d, generator %d" % (what, got, exp))
            failed += 1
    for kind in ("msglen", "taglen"):
        for v in want[kind]:
            if int(v[1]) not in lengths:
                print("FAIL: no DDP message of %s bytes (%s %s)" % (v[1], kind, v[0]))
                failed += 1
    if want["multi"] == 0 or want["spans"] == 0:
        print("FAIL: the generated capture lacks multi-FPDU segments or spanning FPDUs")
        failed += 1
    # The reassembled 40000-byte SEND: DDP segments of 1400 bytes, each
    # payload byte i of a segment is i * 7 + 1 (gen_gso.c).
    want_send = bytes(((i % 1400) * 7 + 1) & 0xff for i in range(40000))
    out = env.fields(cap, ["-2", "-o", "rdmakit.reassemble:TRUE",
                           "-Y", "rdmakit.ddp.msg.length == 40000"],
                     ["rdmakit.ddp.msg.data"])
    blobs = [b for l in out.splitlines() for b in l.split(",") if b]
    if len(blobs) != 2 or any(bytes.fromhex(b.replace(":", "")) != want_send for b in blobs):
        print("FAIL: reassembled 40000-byte SEND: %d copies, %s" %
              (len(blobs), "content differs" if blobs else "none"))
        failed += 1
    off = env.fields(cap, [], ["rdmakit.ddp.msg.data"])
    if off.strip():
        print("FAIL: message data kept with the reassemble preference off (the default)")
        failed += 1
    if o.get("rk_inspect"):
        rk = rk_json(o, cap)
        if rk["totals"]["fpdus"] != fpdus:
            print("FAIL: rk-inspect finds %d FPDUs, plugin %d" % (rk["totals"]["fpdus"], fpdus))
            failed += 1
    if not failed:
        print("ok   %d FPDUs, %d segments with several, %d across segments, %d messages" %
              (fpdus, multi, len(spans), msgs))
    return failed


def mode_fuzz(env, o):
    sys.path.insert(0, os.path.dirname(o["mutate"]))
    import mutate
    rng = random.Random(7)
    caps = captures(o["pcaps"])
    failed = runs = 0
    for cap in caps:
        data = open(cap, "rb").read()
        for i in range(o["n"]):
            m = os.path.join(env.tmp, "mutant.pcap")
            with open(m, "wb") as f:
                f.write(mutate.mutant(rng, data))
            os.chmod(m, 0o644)
            # every other run: two passes, and message payloads kept
            args = ["-r", m, "-V"] + (["-2", "-o", "rdmakit.reassemble:TRUE"] if i % 2 else [])
            p = env.run(args, check=False)
            runs += 1
            err = p.stderr
            # Wireshark's own dissectors have known bugs on such input
            # (RPCoRDMA); only ours fail the test.
            ours = "Dissector bug, protocol rdmakit"
            bad = p.returncode < 0 or p.returncode not in (0, 1, 2) or "Sanitizer" in err \
                or "runtime error" in err or ours in p.stdout or ours in err
            if bad:
                keep = os.path.join(env.tmp, "..", "rk-ws-crash-%d.pcap" % runs)
                shutil.copy(m, keep)
                print("FAIL %s mutant %d: exit %d, kept %s\n%s" %
                      (os.path.basename(cap), i, p.returncode, keep, err[-2000:]))
                failed += 1
    print("%d tshark runs on mutants, %d failed" % (runs, failed))
    return failed


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    mode = args.pop(0)
    o = {"n": 4}
    while args:
        a = args.pop(0)
        if a == "--update":
            o["update"] = True
        elif a == "-n":
            o["n"] = int(args.pop(0))
        elif a.startswith("--"):
            o[a[2:].replace("-", "_")] = args.pop(0)
        else:
            print("unknown argument " + a)
            return 2
    env = Env(o)
    try:
        failed = {"golden": mode_golden, "crosscheck": mode_crosscheck, "icrc": mode_icrc,
                  "gso": mode_gso, "fuzz": mode_fuzz}[mode](env, o)
    finally:
        env.close()
    print("%s: %s" % (mode, "FAIL" if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
