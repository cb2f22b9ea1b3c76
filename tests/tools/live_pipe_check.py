#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect on a pipe prints each frame's line as the frame arrives.

usage: live_pipe_check.py RK_INSPECT CAPTURE

A slow feeder writes the capture's header, then one RoCEv2 frame every
300 ms into rk-inspect's stdin; each frame's line must be read back within
100 ms of the write (the median; none over 500 ms, for a loaded machine),
and the lines must be those of the whole file read at once.
"""
import statistics
import struct
import subprocess
import sys
import threading
import time

RK, CAP = sys.argv[1:3]


def frames(path):
    d = open(path, "rb").read()
    out, off = [], 24
    while off + 16 <= len(d):
        n = struct.unpack_from("<I", d, off + 8)[0]
        out.append(d[off:off + 16 + n])
        off += 16 + n
    return d[:24], out


def main():
    head, recs = frames(CAP)
    # RoCEv2 frames only (every one gets a line): IPv4, UDP, port 4791.
    recs = [r for r in recs if len(r) > 54 and r[16 + 23] == 17 and r[16 + 36:16 + 38] == b"\x12\xb7"]
    recs = recs[:8]
    p = subprocess.Popen([RK, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    got = []

    def reader():
        for line in p.stdout:
            got.append((time.monotonic(), line.decode().rstrip("\n")))

    t = threading.Thread(target=reader)
    t.start()
    p.stdin.write(head)
    p.stdin.flush()
    sent = []
    for r in recs:
        p.stdin.write(r)
        p.stdin.flush()
        sent.append(time.monotonic())
        time.sleep(0.3)
    p.stdin.close()
    p.wait(timeout=30)
    t.join(timeout=30)
    whole = subprocess.run([RK, "-c", str(len(recs) + 1000), "-"],
                           input=head + b"".join(recs), capture_output=True).stdout.decode()
    delays = [g[0] - s for g, s in zip(got, sent)]
    lines = [g[1] for g in got]
    ok = (len(got) == len(recs) and lines == whole.splitlines() and
          statistics.median(delays) <= 0.1 and max(delays) <= 0.5)
    print(("ok  " if ok else "FAIL") + " %d frames fed 300 ms apart, %d lines; delay median %.1f ms, "
          "max %.1f ms; same lines as the whole file: %s" %
          (len(recs), len(got), 1e3 * statistics.median(delays) if delays else -1,
           1e3 * max(delays) if delays else -1, lines == whole.splitlines()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
