#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Captures as people have them: gzip-compressed, and merged pcapng.

usage: capture_in_check.py RK_INSPECT PCAP_DIR

  gzip       every capture of PCAP_DIR/roce and PCAP_DIR/iwarp, gzipped:
             the same -j document and the same lines as the plain file;
             also through a pipe
  cut gzip   a gzipped capture cut mid-stream, at a record boundary of the
             decompressed bytes and mid-record: exit 2, "truncated capture",
             zlib's "unexpected end of file", the frames before reported
  bad gzip   a gzip header followed by garbage: exit 2, zlib's message
  merged     a pcapng with an Ethernet, a raw-IP (if_tsresol 9) and a
             LINKTYPE_USER0 interface, then a big-endian section with one
             Ethernet interface: libpcap 1.10 refuses it; rk-inspect reads
             every frame, decodes the Ethernet and raw-IP ones, counts the
             USER0 ones (unknown_linktype_frames), exit 0; gzipped too
  cut merged the merged file cut inside a block: exit 2, the block's offset
"""
import glob
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile

from check_util import check, finish


def run(rk, args, stdin=None):
    p = subprocess.run([rk] + args, capture_output=True, stdin=stdin)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def doc(rk, path):
    rc, out, err = run(rk, ["-j", path])
    return rc, json.loads(out) if out else None, err


def pcap_frames(path):
    """(ts_us, bytes) of each record of a little-endian microsecond pcap."""
    d = open(path, "rb").read()
    assert struct.unpack("<I", d[:4])[0] == 0xA1B2C3D4, path
    off, out = 24, []
    while off + 16 <= len(d):
        s, u, cl, _ = struct.unpack("<IIII", d[off:off + 16])
        out.append((s * 1000000 + u, d[off + 16:off + 16 + cl]))
        off += 16 + cl
    return out


def block(e, btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n)


def shb(e):
    return block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1))


def idb(e, linktype, tsresol=None):
    opts = b""
    if tsresol is not None:
        opts = struct.pack(e + "HH", 9, 1) + bytes([tsresol, 0, 0, 0]) + \
            struct.pack(e + "HH", 0, 0)
    return block(e, 1, struct.pack(e + "HHI", linktype, 0, 65535) + opts)


def epb(e, ifid, ts, data):
    return block(e, 6, struct.pack(e + "IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF,
                                   len(data), len(data)) + data)


def merged(frames):
    """Section 1 (little-endian): Ethernet (us), raw IP (ns), USER0 (us);
    section 2 (big-endian): Ethernet (us)."""
    out = shb("<") + idb("<", 1) + idb("<", 101, 9) + idb("<", 147)
    for ts, f in frames:
        out += epb("<", 0, ts, f)
        out += epb("<", 1, ts * 1000 + 1, f[14:])  # untagged IPv4 after Ethernet
        out += epb("<", 2, ts + 2, b"\x01\x02\x03\x04")
    out += shb(">") + idb(">", 1)
    for ts, f in frames:
        out += epb(">", 0, ts + 3, f)
    return out


def main():
    rk, pcapdir = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        caps = sorted(glob.glob(os.path.join(pcapdir, "roce", "*.pcap*")) +
                      glob.glob(os.path.join(pcapdir, "iwarp", "*.pcap*")))
        check("captures found", len(caps) > 10, True)
        for c in caps:
            name = os.path.basename(c)
            gz = os.path.join(tmp, name + ".gz")
            with open(c, "rb") as f, gzip.open(gz, "wb") as g:
                g.write(f.read())
            rc1, d1, _ = doc(rk, c)
            rc2, d2, err = doc(rk, gz)
            check(f"{name}.gz exit", rc2, rc1)
            if d1 is not None and d2 is not None:
                d2["file"] = d1["file"]
            check(f"{name}.gz -j", d2, d1)
            check(f"{name}.gz lines", run(rk, [gz])[1], run(rk, [c])[1])

        src = os.path.join(pcapdir, "roce", "rxe_write_bw_loss5.pcap")
        rc, plain, _ = doc(rk, src)
        gz = os.path.join(tmp, "loss5.pcap.gz")
        with open(src, "rb") as f, gzip.open(gz, "wb") as g:
            g.write(f.read())
        with open(gz, "rb") as f:
            rc, out, _ = run(rk, ["-j", "-"], stdin=f)
        check("gzip through stdin", json.loads(out)["totals"], plain["totals"])
        with open(src, "rb") as f:
            p = subprocess.run(["sh", "-c", f'cat "$1" | "$2" -j -', "sh", gz, rk],
                               capture_output=True)
        check("gzip through a pipe", json.loads(p.stdout)["totals"], plain["totals"])

        data = open(gz, "rb").read()
        # Cut inside the deflate stream: libpcap sees a short record; cut
        # before the trailer only: libpcap sees a clean end, zlib does not.
        for cut, what in ((len(data) // 2, "mid-record"), (len(data) - 8, "trailer")):
            bad = os.path.join(tmp, f"cut-{what}.pcap.gz")
            open(bad, "wb").write(data[:cut])
            rc, d, err = doc(rk, bad)
            check(f"cut gzip {what} exit", rc, 2)
            check(f"cut gzip {what} message", "truncated capture" in err and
                  "zlib: unexpected end of file" in err, True)
            check(f"cut gzip {what} read_error", d is not None and
                  d["totals"]["read_error"] is not None and d["totals"]["frames"] > 0, True)
        bad = os.path.join(tmp, "garbage.gz")
        open(bad, "wb").write(b"\x1f\x8b\x08\x00" + b"garbage" * 20)
        rc, _, err = run(rk, ["-s", bad])
        check("bad gzip exit", rc, 2)
        check("bad gzip message", "zlib: " in err, True)

        src = os.path.join(pcapdir, "roce", "rxe_rc_pingpong.pcap")
        frames = pcap_frames(src)
        n = len(frames)
        rc, plain, _ = doc(rk, src)
        mg = os.path.join(tmp, "merged.pcapng")
        open(mg, "wb").write(merged(frames))
        p = subprocess.run(["tshark", "-r", mg], capture_output=True)
        if p.returncode == 0:
            check("tshark reads the merged file", len(p.stdout.decode().splitlines()), 4 * n)
        for path in (mg, mg + ".gz"):
            if path.endswith(".gz"):
                with gzip.open(path, "wb") as g:
                    g.write(open(mg, "rb").read())
            rc, d, err = doc(rk, path)
            t = d["totals"]
            # Section 2 starts over in time: one step back, named once.
            check(f"{path} exit", (rc, err.count("\n"), f"frame {3 * n + 1} is stamped" in err),
                  (0, 1, True))
            check(f"{path} ts_backwards", t["ts_backwards"], 1)
            check(f"{path} linktype", d["linktype"], "EN10MB+RAW+LINKTYPE_147")
            check(f"{path} frames", t["frames"], 4 * n)
            check(f"{path} unknown", t["unknown_linktype_frames"], n)
            check(f"{path} rocev2", t["rocev2_frames"], 3 * plain["totals"]["rocev2_frames"])
            check(f"{path} qp packets", sorted(q["packets"] for q in d["qps"]),
                  sorted(3 * q["packets"] for q in plain["qps"]))
        # Time: the raw-IP copy in ns, 1 ns after its Ethernet original.
        rc, out, _ = run(rk, ["-p", mg])
        pk = [x for x in map(json.loads, out.splitlines()) if x["kind"] == "RoCEv2"][:2]
        ns = [int(x["time"].replace(".", "")) for x in pk]
        check("ns timestamps", (pk[0]["frame"] + 1, ns[1] - ns[0]), (pk[1]["frame"], 1))

        cut = os.path.join(tmp, "cut.pcapng")
        whole = merged(frames)
        open(cut, "wb").write(whole[:len(whole) // 2 + 3])
        rc, d, err = doc(rk, cut)
        check("cut merged exit", rc, 2)
        check("cut merged message", "truncated capture: pcapng block at byte" in err, True)
        check("cut merged frames before", d["totals"]["frames"] > 0, True)

    return finish()


if __name__ == "__main__":
    sys.exit(main())
