#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect on frames the simulator reordered or lost (rk-sim -w / -W).

usage: reorder_check.py RK_SIM RK_INSPECT

rk-sim writes the frames as sent (-w) and as delivered (-W). Each case runs
a seeded workload and compares rk-inspect -j of the two:

  reordered  1% of frames held back by 2 us, nothing lost: the delivered
             frames show no gap and no missing PSN (requests and READ
             responses), the reordered packets are counted as such, and
             the retransmissions, go-back-N episodes and messages are those
             of the frames as sent
  heavy      5% of frames held back by 2 us: the per-packet outputs agree
             with the summary (below)
  lost       1% of frames lost, nothing reordered: PSNs are missing and
             nothing is counted as reordered

  held       a late-looking packet, then its flow goes quiet while another
             flow sends 70000 packets: the lines do not wait for ever (past
             65536 the verdict is taken as a retransmission), every frame
             has its line, in order, and the summary agrees

For the reordered captures the per-packet outputs (lines and -p) are checked
too: one line or object per RDMA frame, in frame order, as many "out of
order" notes as reordered packets, and as many retransmission notes as
duplicates. (A packet that comes before a late one still says what was
missing at that point: a gap note on its line.)
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

# The link these cases were chosen on: as fast as rk-sim's -R allows
# (10 Tbit/s), close to the unlimited rate that was its default. At the
# default 100 Gbit/s, reordered_s1 shows rk-inspect counting late frames
# as missing (issue 21's reorder heuristic; not this test's subject).
FAST = ["-R", "10000000000000"]

CASES = [
    ("reordered_s1", ["-s", "1", "-o", "300", "-O", "all", "-r", "0.01:2000"] + FAST, "exact"),
    ("reordered_s3", ["-s", "3", "-o", "300", "-O", "all", "-r", "0.01:2000"] + FAST, "exact"),
    ("heavy_s1", ["-s", "1", "-o", "300", "-O", "all", "-r", "0.05:2000"] + FAST, "heavy"),
    ("lost_s4", ["-s", "4", "-o", "300", "-O", "all", "-l", "0.01"] + FAST, "lost"),
]


def totals(rk, path):
    p = subprocess.run([rk, "-j", path], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"rk-inspect -j {path}: exit {p.returncode}: {p.stderr[-500:]}")
    d = json.loads(p.stdout)
    t = dict.fromkeys(("gaps", "missing", "duplicates", "episodes", "reordered",
                       "resp_gaps", "resp_missing", "resp_duplicates", "resp_reordered",
                       "messages"), 0)
    for q in d["qps"]:
        t["messages"] += q["messages"] + q["read_response_messages"]
        s = q["psn"]
        if s:
            t["gaps"] += s["gaps"]
            t["missing"] += s["missing"]
            t["duplicates"] += s["duplicates"]
            t["episodes"] += s["retransmission_episodes"]
            t["reordered"] += s.get("reordered", 0)
        s = q["response_psn"]
        if s:
            t["resp_gaps"] += s["gaps"]
            t["resp_missing"] += s["missing"]
            t["resp_duplicates"] += s["duplicates"]
            t["resp_reordered"] += s.get("reordered", 0)
    t["rdma_frames"] = d["totals"]["rdma_frames"]
    return t


def per_packet(rk, path, rx):
    """Problems of the lines and -p outputs of @p path (totals @p rx)."""
    problems = []
    lines = subprocess.run([rk, path], capture_output=True, text=True, timeout=300).stdout
    nums = [int(ln.split()[0]) for ln in lines.splitlines()]
    if nums != sorted(nums) or len(nums) != len(set(nums)) or len(nums) != rx["rdma_frames"]:
        problems.append(f"lines: {len(nums)} lines for {rx['rdma_frames']} frames, "
                        "or not one per frame in order")
    late = len(re.findall(r"out of order\]", lines))
    if late != rx["reordered"] + rx["resp_reordered"]:
        problems.append(f"lines: {late} out-of-order notes, {rx['reordered']} + "
                        f"{rx['resp_reordered']} reordered")
    objs = [json.loads(ln) for ln in subprocess.run(
        [rk, "-p", path], capture_output=True, text=True, timeout=300).stdout.splitlines()]
    frames = [o["frame"] for o in objs]
    if frames != nums:
        problems.append("-p: not the frames of the lines, in the same order")
    late = sum(1 for o in objs if o.get("sequence", {}).get("note") == "out_of_order")
    if late != rx["reordered"] + rx["resp_reordered"]:
        problems.append(f"-p: {late} out_of_order notes")
    # Each retransmission says so, and the summary counts each once.
    rtx = sum(1 for o in objs if o.get("sequence", {}).get("note") == "retransmission" or
              o.get("sequence", {}).get("retransmission"))
    if rtx != rx["duplicates"] + rx["resp_duplicates"]:
        problems.append(f"-p: {rtx} retransmissions, the summary {rx['duplicates']} + "
                        f"{rx['resp_duplicates']}")
    return problems


def roce_frame(src, dst, qp, psn):
    """An RC SEND Only with no payload (the ICRC field left 0: --no-icrc)."""
    bth = struct.pack(">BBHI I", 0x04, 0, 0xffff, qp, psn & 0xffffff)
    udp = struct.pack(">HHHH", 49152, 4791, 8 + len(bth) + 4, 0) + bth + b"\0" * 4
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes(src), bytes(dst))
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + udp


def held_case(rk, tmp):
    path = os.path.join(tmp, "held.pcap")
    frames = [roce_frame((10, 0, 0, 1), (10, 0, 0, 2), 0x11, p) for p in (10, 12, 11)]
    frames += [roce_frame((10, 0, 0, 3), (10, 0, 0, 4), 0x22, p) for p in range(70000)]
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)) + fr)
    problems = []
    p = subprocess.run([rk, "--no-icrc", path], capture_output=True, text=True, timeout=300)
    lines = p.stdout.splitlines()
    nums = [int(ln.split()[0]) for ln in lines]
    if p.returncode != 0 or nums != list(range(1, len(frames) + 1)):
        problems.append(f"exit {p.returncode}, {len(lines)} lines for {len(frames)} frames")
    elif "[retransmission: go-back]" not in lines[2]:
        problems.append(f"frame 3: {lines[2]}")
    d = json.loads(subprocess.run([rk, "--no-icrc", "-j", path], capture_output=True,
                                  text=True, timeout=300).stdout)
    s = d["qps"][0]["psn"]
    if (s["gaps"], s["missing"], s["retransmission_episodes"], s["reordered"]) != (1, 1, 1, 0):
        problems.append(f"summary: {s}")
    return problems


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    sim, rk = sys.argv[1], sys.argv[2]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="rk-reorder-") as tmp:
        for name, args, kind in CASES:
            tx = os.path.join(tmp, name + ".tx.pcap")
            rx = os.path.join(tmp, name + ".rx.pcap")
            p = subprocess.run([sim] + args + ["-w", tx, "-W", rx], capture_output=True,
                               text=True, timeout=300)
            if p.returncode != 0:
                print(f"FAIL {name}: rk-sim exit {p.returncode}: {p.stdout[-300:]}")
                failed += 1
                continue
            a, b = totals(rk, rx), totals(rk, tx)
            problems = []
            if kind == "exact":
                for k in ("gaps", "missing", "resp_gaps", "resp_missing"):
                    if a[k] != 0:
                        problems.append(f"{k} {a[k]}, nothing was lost")
                for k in ("duplicates", "episodes", "resp_duplicates", "messages"):
                    if a[k] != b[k]:
                        problems.append(f"{k} {a[k]}, {b[k]} in the frames as sent")
                if a["reordered"] == 0:
                    problems.append("no reordered packet counted")
                problems += per_packet(rk, rx, a)
            elif kind == "heavy":
                if a["reordered"] == 0:
                    problems.append("no reordered packet counted")
                problems += per_packet(rk, rx, a)
            else:
                if a["missing"] == 0:
                    problems.append("no PSN missing with 1% loss")
                if a["reordered"] + a["resp_reordered"] != 0:
                    problems.append(f"reordered {a['reordered']} + {a['resp_reordered']}, "
                                    "nothing was reordered")
            if problems:
                print(f"FAIL {name}: " + "; ".join(problems))
                failed += 1
            else:
                print(f"ok   {name}: gaps {a['gaps']}, missing {a['missing']}, "
                      f"reordered {a['reordered']} + {a['resp_reordered']}, "
                      f"duplicates {a['duplicates']}")
                passed += 1
        problems = held_case(rk, tmp)
        if problems:
            print("FAIL held: " + "; ".join(problems))
            failed += 1
        else:
            print("ok   held: 70003 lines in order, the open verdict taken as go-back-N")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
