#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect's timing view over captures written here with exact times.

usage: timing_check.py RK_INSPECT GEN_CAPTURES

rtt.pcap: 198.18.0.1 > 198.18.0.2, RoCEv2 RC. Ten WRITE ONLY requests of
1024 bytes (PSN 0..9) 1 ms apart, each ACKed 10, 20, ..., 100 us later;
two READ requests of 256 bytes (PSN 10, 11) at 10 and 11 ms, answered by a
READ response ONLY 30 and 40 us later. Checked: per flow duration,
goodput and wire Gb/s; ACK RTT count 10, p50 50 us (within the
histogram's 1/128), p99 and max 100 us exactly; READ latency count 2, p50
30 us (within 1/128), max 40 us; the same in the text summary.

iwarp_timing.pcap (gen_captures.c): one iWARP connection, client FPDUs
at T, T+1 ms, T+3 ms (a SEND of 1000 bytes, two READs), server FPDUs at
T+1050 us, T+1060 us (READ 1's response in two segments), T+3120 us (READ
2's), T+3200 us (a SEND of 100 bytes). Checked per direction: duration
3000 and 2150 us, goodput bytes 1000 and 2660 (RDMAP payload), READ
latency count 2, p50 50 us, p99 and max 120 us on the client's side and
none on the server's; the text line; no timing with --no-congestion.

series.pcap, --interval 1: second 0 holds 100 frames (95 WRITEs of 1000
bytes, 5 of them CE-marked, 2 CNPs, 3 PFC frames), second 1 none, second 2
50 frames (40 new WRITEs, then 10 resent: duplicates). Checked: every CSV
cell (rates from the frame sizes), the JSON array the same, --interval
0.5 giving six rows, --plot writing a PNG (skipped with its reason when
gnuplot is not installed), a clear error without gnuplot, and the
option errors.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from check_util import check, failures, finish

BASE_S = 1700000000
A = bytes([198, 18, 0, 1])
B = bytes([198, 18, 0, 2])


def ipv4(src, dst, payload_len, ecn=0):
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, ecn, 20 + payload_len, 0, 0x4000,
                              64, 17, 0, src, dst))
    s = sum(struct.unpack("!10H", h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    h[10:12] = struct.pack("!H", ~s & 0xffff)
    return bytes(h)


def roce(src, dst, opcode, qp, psn, ext=b"", payload=b"", ecn=0, ackreq=False):
    """Ethernet + IPv4 + UDP 4791 + BTH + ext + payload + ICRC (zeros: --no-icrc)."""
    pad = (4 - len(payload) % 4) % 4
    bth = struct.pack("!BBHII", opcode, pad << 4 | 0x40, 0xffff, qp & 0xffffff,
                      (0x80000000 if ackreq else 0) | (psn & 0xffffff))
    l4 = bth + ext + payload + bytes(pad) + bytes(4)
    udp = struct.pack("!HHHH", 49152, 4791, 8 + len(l4), 0)
    eth = bytes.fromhex("020000000002020000000001") + b"\x08\x00"
    return eth + ipv4(src, dst, 8 + len(l4), ecn) + udp + l4


def reth(length):
    return struct.pack("!QII", 0x10000, 0x1234, length)


def aeth(msn, syndrome=0x1f):
    return struct.pack("!I", syndrome << 24 | msn)


def pfc():
    f = bytes.fromhex("0180c2000001020000000001") + b"\x88\x08" + struct.pack("!HH", 0x0101, 0x08)
    f += struct.pack("!8H", 0, 0, 0, 0xffff, 0, 0, 0, 0)
    return f + bytes(60 - len(f))


def write_pcap(path, frames, in_time_order=True):
    """@frames: (ns since BASE_S, bytes); nanosecond pcap, Ethernet."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for t, fr in sorted(frames, key=lambda x: x[0]) if in_time_order else frames:
            f.write(struct.pack("<IIII", BASE_S + t // 10**9, t % 10**9, len(fr), len(fr)))
            f.write(fr)


US = 1000
MS = 1000 * US


def rate(gbps):
    """rk-inspect's text for a rate of @gbps Gb/s: three decimals in the
    unit that keeps them in sight."""
    bps = gbps * 1e9
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return "%.3f %s" % (bps / scale, unit)
    return "%.0f b/s" % bps
WRITE_ONLY, READ_REQ, READ_RESP_ONLY, ACK, CNP = 0x0a, 0x0c, 0x10, 0x11, 0x81


def rtt_capture(path):
    frames = []
    for i in range(10):
        t = i * MS
        frames.append((t, roce(A, B, WRITE_ONLY, 0x11, i, reth(1024), bytes(1024), ackreq=True)))
        frames.append((t + (i + 1) * 10 * US, roce(B, A, ACK, 0x22, i, aeth(i + 1))))
    for j, lat in enumerate((30, 40)):
        t = (10 + j) * MS
        frames.append((t, roce(A, B, READ_REQ, 0x11, 10 + j, reth(256))))
        frames.append((t + lat * US, roce(B, A, READ_RESP_ONLY, 0x22, 10 + j, aeth(11 + j),
                                          bytes(256))))
    write_pcap(path, frames)
    return frames


def series_capture(path):
    """Rows of the expected CSV for --interval 1 come back with the frames."""
    frames = []
    rows = []
    w = lambda psn, ecn=0: roce(A, B, WRITE_ONLY, 0x11, psn, reth(1000), bytes(1000), ecn)
    # second 0: 95 WRITEs (5 CE), 2 CNPs, 3 PFC frames, 9 ms apart
    kinds = ["w"] * 95 + ["cnp"] * 2 + ["pfc"] * 3
    kinds = kinds[0::2] + kinds[1::2]   # mixed in time
    row = dict(frames=0, bytes=0, payload=0, rtx=0, ce=0, cnps=0, pause=0)
    psn = 0
    for i, k in enumerate(kinds):
        if k == "w":
            ce = psn % 19 == 3
            fr = w(psn, 3 if ce else 2)
            psn += 1
            row["payload"] += 1000
            row["ce"] += ce
        elif k == "cnp":
            fr = roce(B, A, CNP, 0x22, 0, bytes(16))
            row["cnps"] += 1
        else:
            fr = pfc()
            row["pause"] += 1
        row["frames"] += 1
        row["bytes"] += len(fr)
        frames.append((i * 9 * MS, fr))
    rows.append(row)
    rows.append(dict(frames=0, bytes=0, payload=0, rtx=0, ce=0, cnps=0, pause=0))
    # second 2: 40 new WRITEs, then PSNs 125..134 again (go-back-N)
    row = dict(frames=0, bytes=0, payload=0, rtx=0, ce=0, cnps=0, pause=0)
    for i in range(50):
        p = 95 + i if i < 40 else 125 + (i - 40)
        fr = w(p, 2)
        row["frames"] += 1
        row["bytes"] += len(fr)
        if i < 40:
            row["payload"] += 1000
        else:
            row["rtx"] += 1
        frames.append((2000 * MS + i * 15 * MS, fr))
    rows.append(row)
    write_pcap(path, frames)
    return rows, frames


def run(args, code=0, env=None):
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if p.returncode != code:
        failures.append(f"{' '.join(args)}: exit {p.returncode}, want {code}: {p.stderr}")
    return p


def near(got, want, rel):
    return got is not None and abs(got - want) <= abs(want) * rel


def check_rtt(rk, tmp):
    cap = os.path.join(tmp, "rtt.pcap")
    rtt_capture(cap)
    doc = json.loads(run([rk, "--no-icrc", "-j", cap]).stdout)
    qps = {q["dest_qp"]: q for q in doc["qps"]}
    req, resp = qps[0x11], qps[0x22]
    t = req["timing"]
    check("requester duration", t["duration_ns"], 11 * MS)
    wire = 10 * (14 + 20 + 8 + 12 + 16 + 1024 + 4) + 2 * (14 + 20 + 8 + 12 + 16 + 4)
    check("requester bytes", req["bytes"], wire)
    check("requester goodput bytes", t["goodput_bytes"], 10240)
    check("requester goodput", near(t["goodput_gbps"], 10240 * 8 / (11 * MS), 1e-12), True)
    check("requester wire", near(t["wire_gbps"], wire * 8 / (11 * MS), 1e-12), True)
    r = t["ack_rtt_ns"]
    check("RTT count", r and r["count"], 10)
    check("RTT p50 within 1/128", 50 * US <= r["p50"] <= 50 * US * 129 // 128, True)
    check("RTT p99", r["p99"], 100 * US)
    check("RTT max", r["max"], 100 * US)
    rd = t["read_latency_ns"]
    check("READ count", rd and rd["count"], 2)
    check("READ p50 within 1/128", 30 * US <= rd["p50"] <= 30 * US * 129 // 128, True)
    check("READ p99", rd["p99"], 40 * US)
    check("READ max", rd["max"], 40 * US)
    # The responder's own requests: none, so nothing measured for it.
    rt = resp["timing"]
    check("responder RTT", rt["ack_rtt_ns"], None)
    check("responder READ", rt["read_latency_ns"], None)
    check("responder duration", rt["duration_ns"], 11 * MS + 40 * US - 10 * US)
    check("timing totals", doc["timing"], {"flows_timed": 2, "untimed_flows": 0,
                                           "unpaired_responses": 0})

    text = run([rk, "--no-icrc", "-s", cap]).stdout
    line = [l for l in text.splitlines() if l.startswith("    time 0.011000 s")]
    check("summary timing line", len(line), 1)
    want = ("    time 0.011000 s, goodput %s, wire %s; ACK RTT p50/p99/max "
            "%.3f/100.000/100.000 us (10); READ latency p50/p99/max %.3f/40.000/40.000 us (2)"
            % (rate(10240 * 8 / (11 * MS)), rate(wire * 8 / (11 * MS)), r["p50"] / 1e3,
               rd["p50"] / 1e3))
    check("summary timing text", line[0] if line else None, want)


def csv_want(rows, interval=1.0):
    out = ["start_s,frames,wire_gbps,goodput_gbps,rtx_frames,ce,cnps,pause_frames"]
    for i, r in enumerate(rows):
        out.append("%.9g,%d,%.6f,%.6f,%d,%d,%d,%d" % (
            i * interval, r["frames"], r["bytes"] * 8 / 1e9 / interval,
            r["payload"] * 8 / 1e9 / interval, r["rtx"], r["ce"], r["cnps"], r["pause"]))
    return out


def check_series(rk, tmp):
    cap = os.path.join(tmp, "series.pcap")
    rows, frames = series_capture(cap)
    check("pattern frames", [r["frames"] for r in rows], [100, 0, 50])
    check("pattern CE", rows[0]["ce"], 5)
    got = run([rk, "--no-icrc", "--interval", "1", "--csv", "-", cap]).stdout.splitlines()
    want = csv_want(rows)
    check("CSV rows", len(got), 4)
    for i, (g, w) in enumerate(zip(got, want)):
        check(f"CSV row {i}", g, w)
    csvf = os.path.join(tmp, "s.csv")
    p = run([rk, "--no-icrc", "-q", "--interval", "1", "--csv", csvf, cap])
    check("CSV file, nothing on stdout", p.stdout, "")
    with open(csvf) as f:
        check("CSV file", f.read().splitlines(), want)

    doc = json.loads(run([rk, "--no-icrc", "-j", "--interval", "1", cap]).stdout)
    check("JSON interval_s", doc.get("interval_s"), 1.0)
    iv = doc.get("intervals", [])
    check("JSON rows", [(x["start_s"], x["frames"], x["bytes"], x["rtx_frames"], x["ce"],
                         x["cnps"], x["pause_frames"]) for x in iv],
          [(float(i), r["frames"], r["bytes"], r["rtx"], r["ce"], r["cnps"], r["pause"])
           for i, r in enumerate(rows)])
    check("JSON goodput", [round(x["goodput_gbps"], 9) for x in iv],
          [round(r["payload"] * 8 / 1e9, 9) for r in rows])
    check("no series without --interval",
          "intervals" in json.loads(run([rk, "--no-icrc", "-j", cap]).stdout), False)

    half = run([rk, "--no-icrc", "--interval", "0.5", "--csv", "-", cap]).stdout.splitlines()
    check("--interval 0.5 rows", [l.split(",")[0] for l in half[1:]],
          ["0", "0.5", "1", "1.5", "2", "2.5"])
    bins = [[0, 0] for _ in range(6)]
    for t, fr in frames:
        bins[t // (500 * MS)][0] += 1
        bins[t // (500 * MS)][1] += len(fr)
    check("--interval 0.5 frames and wire", [l.split(",")[1:3] for l in half[1:]],
          [[str(n), "%.6f" % (b * 8 / 1e9 / 0.5)] for n, b in bins])

    png = os.path.join(tmp, "s.png")
    if shutil.which("gnuplot"):
        run([rk, "--no-icrc", "--interval", "1", "--plot", png, cap])
        data = open(png, "rb").read() if os.path.exists(png) else b""
        check("PNG magic", data[:8], b"\x89PNG\r\n\x1a\n")
        check("PNG not tiny", len(data) > 1000, True)
    else:
        print("SKIP --plot PNG: gnuplot is not installed (Debian package gnuplot-nox)")
    # Without gnuplot on the PATH: one clear line, exit 2, no file.
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    nopng = os.path.join(tmp, "none.png")
    p = run([rk, "--no-icrc", "--interval", "1", "--plot", nopng, cap], code=2,
            env=dict(os.environ, PATH=empty))
    check("no gnuplot: message", p.stderr.splitlines()[:1],
          ["rk-inspect: --plot needs gnuplot, not found on the PATH "
           "(Debian: apt-get install gnuplot-nox)"])
    check("no gnuplot: no file", os.path.exists(nopng), False)

    for bad in ["0", "-1", "abc", "nan", "inf", "", "1s", "0.0000000001", "1e9"]:
        p = run([rk, "--interval", bad, "-j", cap], code=2)
        check(f"--interval {bad!r} error", p.stderr.startswith(f"rk-inspect: --interval {bad}: "),
              True)
        check(f"--interval {bad!r} one line", len(p.stderr.splitlines()), 2)
    p = run([rk, "--csv", "-", cap], code=2)
    check("--csv without --interval", p.stderr.splitlines()[:1],
          ["rk-inspect: --csv and --plot need --interval S"])
    p = run([rk, "--interval", "1", cap], code=2)
    check("--interval alone", p.stderr.splitlines()[:1],
          ["rk-inspect: --interval writes its series with --json, --csv or --plot"])
    p = run([rk, "-s", "--interval", "1", "--csv", "-", cap], code=2)
    check("--csv - with -s", p.stderr.startswith("rk-inspect: --csv - takes standard output"),
          True)
    # A run that fails after the analysis leaves the files as they were:
    # 1 us intervals over the capture's 2.7 s are too many.
    kept = os.path.join(tmp, "kept.csv")
    with open(kept, "w") as f:
        f.write("an older series\n")
    fresh = os.path.join(tmp, "fresh.csv")
    p = run([rk, "--no-icrc", "-q", "--interval", "0.000001", "--csv", kept, cap], code=2)
    check("too many intervals: error", "more than" in p.stderr, True)
    with open(kept) as f:
        check("too many intervals: the existing --csv file kept", f.read(), "an older series\n")
    run([rk, "--no-icrc", "-q", "--interval", "0.000001", "--csv", fresh, cap], code=2)
    check("too many intervals: no --csv file made", os.path.exists(fresh), False)


def check_backwards(rk, tmp):
    """Frames stamped before the frame before them: counted, the first named once."""
    cap = os.path.join(tmp, "back.pcap")
    write_pcap(cap, [((3 - i) * MS, roce(A, B, WRITE_ONLY, 0x11, i, reth(8), bytes(8)))
                     for i in range(3)], in_time_order=False)
    p = run([rk, "--no-icrc", "-j", cap])
    check("backwards: ts_backwards", json.loads(p.stdout)["totals"]["ts_backwards"], 2)
    check("backwards: one warning naming frame 2",
          (p.stderr.count("\n"), "frame 2 is stamped 0.001000000 s before" in p.stderr),
          (1, True))
    text = run([rk, "--no-icrc", "-s", cap]).stdout
    check("backwards: summary line",
          "timestamps: 2 frames stamped before the frame before\n" in text, True)
    p = run([rk, "--no-icrc", "-j", os.path.join(tmp, "rtt.pcap")])
    check("in order: no count, no warning",
          (json.loads(p.stdout)["totals"]["ts_backwards"], p.stderr), (0, ""))


def check_no_congestion(rk, tmp):
    """--no-congestion: no timing, no congestion view, the rest the same."""
    cap = os.path.join(tmp, "rtt.pcap")
    full = json.loads(run([rk, "--no-icrc", "-j", cap]).stdout)
    bare = json.loads(run([rk, "--no-icrc", "-j", "--no-congestion", cap]).stdout)
    check("--no-congestion: no qos, no timing", ("qos" in bare, "timing" in bare),
          (False, False))
    check("--no-congestion: full run has them", ("qos" in full, "timing" in full),
          (True, True))
    check("--no-congestion: QPs without timing",
          [("timing" in q, "qos" in q) for q in bare["qps"]], [(False, False)] * len(full["qps"]))
    strip = lambda q: {k: v for k, v in q.items() if k not in ("timing", "qos")}
    check("--no-congestion: the rest as without it", [strip(q) for q in bare["qps"]],
          [strip(q) for q in full["qps"]])
    check("--no-congestion: totals and findings", (bare["totals"], bare["findings"]),
          (full["totals"], full["findings"]))
    text = run([rk, "--no-icrc", "-s", "--no-congestion", cap]).stdout
    check("--no-congestion: no time line in the summary", "ACK RTT" in text or
          "\n    time " in text, False)


def check_iwarp(rk, gen, tmp):
    """iWARP directions: duration, goodput, READ latency (iwarp_timing.pcap)."""
    run([gen, tmp])
    cap = os.path.join(tmp, "iwarp_timing.pcap")
    d = json.loads(run([rk, "-j", cap]).stdout)
    dirs = {x["from"]: x["timing"] for c in d["connections"] for x in c["directions"]}
    cl, sv = dirs.get("10.0.1.1:40020"), dirs.get("10.0.1.2:5001")
    check("iwarp: client duration, goodput bytes",
          (cl["duration_ns"], cl["goodput_bytes"]) if cl else None, (3000000, 1000))
    check("iwarp: server duration, goodput bytes",
          (sv["duration_ns"], sv["goodput_bytes"]) if sv else None, (2150000, 2660))
    check("iwarp: client READ latency", cl["read_latency_ns"] if cl else None,
          {"count": 2, "p50": 50000, "p99": 120000, "max": 120000})
    check("iwarp: server READ latency", sv["read_latency_ns"] if sv else "?", None)
    check("iwarp: goodput Gb/s", round(cl["goodput_gbps"], 6) if cl else None,
          round(1000 * 8 / 3000000, 6))
    text = run([rk, "-s", cap]).stdout
    line = [l for l in text.splitlines() if l.startswith("      time 0.003000 s")]
    check("iwarp: text line", line[:1], ["      time 0.003000 s, goodput 2.667 Mb/s, wire 4.229 Mb/s; "
          "READ latency p50/p99/max 50.000/120.000/120.000 us (2)"])
    bare = json.loads(run([rk, "-j", "--no-congestion", cap]).stdout)
    check("iwarp: --no-congestion: no timing",
          ["timing" in x for c in bare["connections"] for x in c["directions"]], [False, False])


def main():
    rk, gen = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        check_iwarp(rk, gen, tmp)
        check_rtt(rk, tmp)
        check_no_congestion(rk, tmp)
        check_backwards(rk, tmp)
        check_series(rk, tmp)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
