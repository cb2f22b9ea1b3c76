#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect -i: capturing on an interface, with the running summary.

usage: live_iface_check.py RK_INSPECT CAPTURE

In a network namespace of its own, with a veth pair (rkla, rklb), the test
runs rk-inspect -i rkla and sends the RoCEv2 frames of CAPTURE out of rklb
with an AF_PACKET socket, 100 ms apart. It checks:
  - every frame sent gets its line, each within 500 ms of being sent, and
    the lines are those of the same frames read from a file (the frame
    number and time columns aside: the times are the capture's own);
  - the running summary (--summary-every 0.2) comes on stderr while the
    capture goes on, also while the link is quiet before the first frame,
    and its last line counts the frames;
  - SIGINT ends the capture with exit status 0;
  - -i of an interface that does not exist, and -i with a capture file,
    are refused with one line and exit status 2.
Needs root for the namespace; without it the test is skipped (77).
"""
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

RK, CAP = sys.argv[1:3]
NS = "rklive%d" % os.getpid()


def frames(path):
    d = open(path, "rb").read()
    out, off = [], 24
    while off + 16 <= len(d):
        n = struct.unpack_from("<I", d, off + 8)[0]
        out.append(d[off + 16:off + 16 + n])
        off += 16 + n
    return d[:24], out


def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def setup():
    r = sh("ip", "netns", "add", NS)
    if r.returncode != 0:
        return "cannot create a network namespace: " + r.stderr.strip()
    for c in (["ip", "-n", NS, "link", "add", "rkla", "type", "veth", "peer", "name", "rklb"],
              ["ip", "-n", NS, "link", "set", "rkla", "up"],
              ["ip", "-n", NS, "link", "set", "rklb", "up"],
              ["ip", "netns", "exec", NS, "sysctl", "-qw",
               "net.ipv6.conf.all.disable_ipv6=1"]):
        r = sh(*c)
        if r.returncode != 0:
            return " ".join(c) + ": " + r.stderr.strip()
    return None


def sender(recs, sent):
    # The socket is made inside the namespace: setns for this thread only
    # is not available in Python, so a child process sends.
    code = ("import socket,sys,time,struct\n"
            "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW)\n"
            "s.bind(('rklb',0))\n"
            "d=sys.stdin.buffer.read()\n"
            "o=0\n"
            "while o<len(d):\n"
            " n=struct.unpack_from('<I',d,o)[0]\n"
            " s.send(d[o+4:o+4+n]); print(time.monotonic(),flush=True); time.sleep(0.1)\n"
            " o+=4+n\n")
    blob = b"".join(struct.pack("<I", len(r)) + r for r in recs)
    p = subprocess.run(["ip", "netns", "exec", NS, sys.executable, "-c", code], input=blob,
                       capture_output=True)
    sent.extend(float(x) for x in p.stdout.decode().split())


def strip_cols(line):
    # "   N T.TTTTTTTTT rest": the frame number and time differ from the file's.
    return re.sub(r"^\s*\d+\s+\S+\s+", "", line)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (a network namespace of its own)")
        return 77
    why = setup()
    if why is not None:
        sh("ip", "netns", "del", NS)
        print("SKIP: " + why)
        return 77
    ok = True
    try:
        head, recs = frames(CAP)
        recs = [r for r in recs if len(r) > 38 and r[12:14] == b"\x08\x00" and r[23] == 17 and
                r[36:38] == b"\x12\xb7"][:12]
        p = subprocess.Popen(["ip", "netns", "exec", NS, RK, "-i", "rkla", "--summary-every",
                              "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got, err = [], []

        def reader():
            for line in p.stdout:
                got.append((time.monotonic(), line.decode().rstrip("\n")))

        def ereader():
            for line in p.stderr:
                err.append((time.monotonic(), line.decode().rstrip("\n")))

        ts = [threading.Thread(target=reader), threading.Thread(target=ereader)]
        for t in ts:
            t.start()
        time.sleep(1.0)
        sent = []
        sender(recs, sent)
        time.sleep(0.6)
        os.kill(p.pid, 2)
        rc = p.wait(timeout=10)
        for t in ts:
            t.join(timeout=10)
        with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
            for r in recs:
                head += struct.pack("<IIII", 0, 0, len(r), len(r)) + r
            f.write(head)
            f.flush()
            whole = subprocess.run([RK, f.name], capture_output=True, text=True).stdout
        want = [strip_cols(x) for x in whole.splitlines()]
        have = [strip_cols(g[1]) for g in got]
        delays = [g[0] - s for g, s in zip(got, sent)]
        during = [e for e in err if sent and e[0] < sent[-1] and "frames" in e[1]]
        quiet = [e for e in err if sent and e[0] < sent[0] and "frames" in e[1]]
        last = err[-1][1] if err else ""
        m = re.search(r": (\d+) frames \((\d+) RDMA\)", last)
        checks = [
            ("exit status 0 on SIGINT", rc == 0),
            ("%d frames sent, %d lines" % (len(sent), len(got)), len(got) == len(recs) == len(sent)),
            ("lines as from a file", have == want),
            ("each line within 500 ms (max %.0f ms)" % (1e3 * max(delays) if delays else -1),
             bool(delays) and max(delays) <= 0.5),
            ("%d running summary lines while sending" % len(during), len(during) >= 3),
            ("%d before the first frame (a quiet link)" % len(quiet), len(quiet) >= 3),
            ("last summary counts the frames: %r" % last,
             m is not None and int(m.group(2)) == len(recs)),
        ]
        for name, good in checks:
            print(("ok   " if good else "FAIL ") + name)
            ok &= good
        if not ok:
            print("stderr:", [e[1] for e in err][-5:])
        # the summary of a live capture names the interface, not a file
        p = subprocess.Popen(["ip", "netns", "exec", NS, RK, "-i", "rkla", "-s"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        os.kill(p.pid, 2)
        out, _ = p.communicate(timeout=10)
        good = p.returncode == 0 and out.splitlines()[:1] == ["interface rkla (EN10MB)"]
        print(("ok   " if good else "FAIL ") + "-i -s: the summary's first line %r, exit %d" %
              (out.splitlines()[:1], p.returncode))
        ok &= good
        for args, pat in ((["-i", "rk-no-such-if0"], "no such interface"),
                          (["-i", "rkla", CAP], "not both")):
            r = subprocess.run(["ip", "netns", "exec", NS, RK] + args, capture_output=True,
                               text=True)
            good = (r.returncode == 2 and len(r.stderr.strip().splitlines()) <= 2 and
                    pat in r.stderr)
            print(("ok   " if good else "FAIL ") + "%s: exit %d, %r" %
                  (" ".join(args), r.returncode, r.stderr.strip()))
            ok &= good
    finally:
        sh("ip", "netns", "del", NS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
