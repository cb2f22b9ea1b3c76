#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check an rk-perf --dcqcn-trace CSV (QP 0's reaction point, a row per
event: time_s,event,rc_mbps,rt_mbps,alpha,tx_frames) for a run whose
first frames were CE-marked and the rest not.

usage: dcqcn_trace_check.py TRACE FRAME_BYTES MAX_MBPS [WINDOW_S]

Prints four words and the figures:
  slowed     a CNP row, and R_C below half of MAX_MBPS
  recovered  a row after the last CNP, R_C back within 10 % of MAX_MBPS
  paced      over every WINDOW_S (default 5 ms) between rows the frames
             sent stayed within 20 % of the mean R_C allowed (the pacer's
             slack; a window should hold 20 frames or more), and some of
             those windows were a quarter or more under MAX_MBPS: the
             sender slowed as its trace says
  rows       at least one row
each True or False.
"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
frame = int(sys.argv[2])
top = float(sys.argv[3])
win = float(sys.argv[4]) if len(sys.argv) > 4 else 0.005
t = [float(r["time_s"]) for r in rows]
rc = [float(r["rc_mbps"]) for r in rows]
tx = [int(r["tx_frames"]) for r in rows]
cnp = [i for i, r in enumerate(rows) if r["event"] == "cnp"]
slowed = bool(cnp) and min(rc) < top / 2
recovered = bool(cnp) and t[-1] > t[cnp[-1]] and rc[-1] >= 0.9 * top
# R_C holds from one row to the next: its mean over a window, by time.
worst, low, i = 0.0, 0, 0
while i < len(rows) - 1:
    j = i + 1
    while j < len(rows) and t[j] - t[i] < win:
        j += 1
    if j == len(rows):
        break
    allowed = sum(rc[k] * (t[k + 1] - t[k]) for k in range(i, j)) / (t[j] - t[i])
    achieved = (tx[j] - tx[i]) * frame * 8 / (t[j] - t[i]) / 1e6
    worst = max(worst, achieved / allowed)
    low += allowed < 0.75 * top
    i = j
print(slowed, recovered, worst <= 1.2 and low > 0, bool(rows),
      "rows=%d cnps=%d min_rc=%.1f last_rc=%.1f worst=%.2f low_windows=%d"
      % (len(rows), len(cnp), min(rc) if rc else -1, rc[-1] if rc else -1, worst, low))
