#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-lab's host end of a guest command channel (protocol: guest/init).

ctl.py SOCKET SECONDS SCRIPT: runs SCRIPT with bash in the guest, copies its
output to stdout as it comes, exits with its status (137 when the guest
killed it at SECONDS, 124 when the guest did not answer in SECONDS + 20)."""
import base64, os, re, socket, sys, time

path, limit, script = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tag = "%d.%d" % (os.getpid(), time.monotonic_ns())
deadline = time.monotonic() + limit + 20 if limit > 0 else None

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
payload = base64.b64encode(script.encode() + b"\n").decode()
sock.sendall(("%s %d %s\n" % (tag, limit, payload)).encode())

start = (tag + " start\n").encode()
end = re.compile(rb"\n" + re.escape(tag.encode()) + rb" exit (\d+)\n")
buf, started, out = b"", False, sys.stdout.buffer
while True:
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            sys.stderr.write("rk-lab: no answer from the guest in %d s\n" % (limit + 20))
            sys.exit(124)
        sock.settimeout(left)
    try:
        chunk = sock.recv(65536)
    except socket.timeout:
        continue
    if not chunk:
        sys.stderr.write("rk-lab: the guest closed the channel\n")
        sys.exit(125)
    buf += chunk
    if not started:
        i = buf.find(start)
        if i < 0:
            buf = buf[-len(start):]  # output of an earlier request, ended by its caller
            continue
        buf, started = buf[i + len(start):], True
    m = end.search(buf)
    if m:
        out.write(buf[:m.start()])
        out.flush()
        sys.exit(int(m.group(1)))
    # Hold back what could be the start of the end line.
    keep = len(tag) + 16
    if len(buf) > keep:
        out.write(buf[:-keep])
        out.flush()
        buf = buf[-keep:]
