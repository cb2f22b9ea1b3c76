#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Captures that end inside a record, or hold a corrupt one, in pcap and pcapng.

usage: read_error_check.py RK_INSPECT PCAP_DIR

From pcaps/roce/rxe_write_bw_loss5.pcap (257 frames) and a pcapng copy of
it, each case writes a damaged file and checks rk-inspect's exit status, its
message on standard error (file, record, byte offset) and that the frames
before the damage are still analysed (-j totals.frames, read_error):

  cut        the file ends inside the last record (a capture stopped mid-write)
  mid        record 100 claims a length within the snap length that runs
             past the end of the file: libpcap sees the same short read as
             for a cut final record
  header     the file ends inside the last record header (pcap only)
  corrupt    record 100 claims a length above libpcap's maximum (not at the
             end of the file)
  cut after 1  one RoCEv2 frame, then the file ends inside record 2: "the 1
             frame before it is reported"
  clean      the undamaged file: exit 0, no read_error
  stdin      the cut file through a pipe: record number, no offset
  short      an empty file and a 3-byte one: "not a capture", exit 2
  head -c    pcaps/roce/rxe_write_bw.pcap (and a pcapng copy) cut 100 bytes
             short: the summary's read error says truncated, its count of
             frames the snap length cut is snaplen-cut, not "truncated 0"

Every damaged capture exits 2 (doc/inspect.md, "Exit status").
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

SRC = "roce/rxe_write_bw_loss5.pcap"
K = 100  # the damaged record (1-based)


def records(data):
    """(offset, header, body) of each pcap record."""
    out = []
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append((off, data[off:off + 16], data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


def to_pcapng(data):
    """The pcap as pcapng: SHB, one IDB, one EPB per record; block offsets."""
    snap, link = struct.unpack_from("<II", data, 16)
    shb = struct.pack("<IIIHHqI", 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1, 28)
    idb = struct.pack("<IIHHII", 1, 20, link, 0, snap, 20)
    out = bytearray(shb + idb)
    offs = []
    for _, hdr, body in records(data):
        ts, tu, incl, orig = struct.unpack("<IIII", hdr)
        usec = ts * 1000000 + tu
        pad = (4 - len(body) % 4) % 4
        total = 32 + len(body) + pad
        offs.append(len(out))
        out += struct.pack("<IIIIIII", 6, total, 0, usec >> 32, usec & 0xffffffff,
                           incl, orig)
        out += body + b"\0" * pad + struct.pack("<I", total)
    return bytes(out), offs


def run(rk, args, feed=None):
    """Run rk-inspect; @p feed: bytes written to its standard input (a pipe)."""
    p = subprocess.run([rk] + args, input=feed if feed is not None else b"",
                       capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    rk, pcaps = sys.argv[1], sys.argv[2]
    data = open(os.path.join(pcaps, SRC), "rb").read()
    recs = records(data)
    nrec = len(recs)
    ng, ng_offs = to_pcapng(data)
    tmp = tempfile.mkdtemp(prefix="rk-readerr-")
    passed = failed = 0

    def write(name, blob):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(blob)
        return path

    cases = []
    # pcap
    off_last = recs[-1][0]
    cases.append(("pcap cut", write("cut.pcap", data[:off_last + 16 + 10]),
                  2, [f"record {nrec} ", f"byte {off_last}"], nrec - 1))
    off_k = recs[K - 1][0]
    rest = len(data) - off_k - 16
    mid = bytearray(data)
    struct.pack_into("<II", mid, off_k + 8, rest + 100, rest + 100)
    cases.append(("pcap mid", write("mid.pcap", bytes(mid)),
                  2, [f"record {K} ", f"byte {off_k}"], K - 1))
    cases.append(("pcap header", write("header.pcap", data[:off_last + 9]),
                  2, [f"record {nrec} ", f"byte {off_last}"], nrec - 1))
    bad = bytearray(data)
    struct.pack_into("<II", bad, off_k + 8, 0x7fffffff, 0x7fffffff)
    cases.append(("pcap corrupt", write("corrupt.pcap", bytes(bad)),
                  2, [f"record {K} ", f"byte {off_k}", "corrupt"], K - 1))
    cases.append(("pcap clean", os.path.join(pcaps, SRC), 0, [], nrec))
    # One frame before the damage: "frame ... is", not "frames ... are". The
    # first RoCEv2 frame (UDP port 4791), so the lines mode has a line to print.
    i = next(i for i, (_, _, b) in enumerate(recs)
             if len(b) > 38 and b[12:14] == b"\x08\x00" and b[23] == 17 and
             b[36:38] == b"\x12\xb7")
    one = data[:24] + recs[i][1] + recs[i][2] + recs[i + 1][1] + recs[i + 1][2][:10]
    cases.append(("pcap cut after 1", write("cut1.pcap", one),
                  2, ["record 2 ", f"byte {24 + 16 + len(recs[i][2])}", "the 1 frame before it is reported"], 1))
    # pcapng
    ng_last = ng_offs[-1]
    cases.append(("pcapng cut", write("cut.pcapng", ng[:ng_last + 40]),
                  2, [f"after frame {nrec - 1}", f"byte {ng_last}"], nrec - 1))
    ng_k = ng_offs[K - 1]
    mid = bytearray(ng)
    struct.pack_into("<I", mid, ng_k + 4, (len(ng) - ng_k + 100 + 3) & ~3)
    cases.append(("pcapng mid", write("mid.pcapng", bytes(mid)),
                  2, [f"after frame {K - 1}", f"byte {ng_k}"], K - 1))
    cases.append(("pcapng clean", write("clean.pcapng", ng), 0, [], nrec))

    for name, path, want_rc, want_err, want_frames in cases:
        problems = []
        rc, out, err = run(rk, ["-j", path])
        if rc != want_rc:
            problems.append(f"exit {rc}, expected {want_rc}")
        if want_rc != 0:
            if path not in err:
                problems.append("stderr does not name the file")
            for w in want_err:
                if w not in err:
                    problems.append(f"stderr lacks '{w}'")
        elif err.strip():
            problems.append("unexpected stderr")
        try:
            t = json.loads(out)["totals"]
            if t["frames"] != want_frames:
                problems.append(f"totals.frames {t['frames']}, expected {want_frames}")
            if (t["read_error"] is None) != (want_rc == 0):
                problems.append(f"totals.read_error {t['read_error']!r}")
        except (ValueError, KeyError) as e:
            problems.append(f"no JSON summary ({e})")
        # The default output still lists the frames read before the damage.
        rc2, out2, _ = run(rk, [path])
        if rc2 != want_rc or len(out2.splitlines()) == 0:
            problems.append(f"lines mode: exit {rc2}, {len(out2.splitlines())} lines")
        if problems:
            print(f"FAIL {name}: " + "; ".join(problems) + f"\n  stderr: {err.strip()}")
            failed += 1
        else:
            print(f"ok   {name}: exit {rc}: {err.strip()}")
            passed += 1

    # A pipe on standard input: no offset to give, the record number still.
    rc, out, err = run(rk, ["-q", "-"], feed=data[:off_last + 16 + 10])
    if rc != 2 or f"record {nrec} " not in err or "-:" not in err or "(byte " in err:
        print(f"FAIL stdin cut: exit {rc}: {err.strip()}")
        failed += 1
    else:
        print(f"ok   stdin cut: exit {rc}: {err.strip()}")
        passed += 1

    # A bundled capture cut mid-record by head -c, pcap and pcapng: the
    # summary's read error says truncated, and the count of frames the snap
    # length cut (snaplen-cut) is not named "truncated" beside it.
    cut_src = os.path.join(pcaps, "roce", "rxe_write_bw.pcap")
    ngsrc = write("whole.pcapng", to_pcapng(open(cut_src, "rb").read())[0])
    for kind, src in (("pcap", cut_src), ("pcapng", ngsrc)):
        dst = os.path.join(tmp, "headc." + kind)
        size = os.path.getsize(src)
        with open(dst, "wb") as f:
            subprocess.run(["head", "-c", str(size - 100), src], stdout=f, check=True)
        rc, out, err = run(rk, ["--summary", dst])
        tot = [ln for ln in out.splitlines() if ln.startswith("frames ")]
        if (rc != 2 or "read error: truncated capture" not in out or len(tot) != 1 or
                ", snaplen-cut 0, " not in tot[0] or "truncated" in tot[0]):
            print(f"FAIL head -c {kind}: exit {rc}: {tot} {err.strip()}")
            failed += 1
        else:
            print(f"ok   head -c {kind}: {tot[0]}")
            passed += 1

    # Files shorter than any capture header (empty, a 3-byte text): not a capture.
    for name, blob in (("empty", b""), ("3 bytes", b"ab\n")):
        rc, out, err = run(rk, ["-q", write(name.replace(" ", "_") + ".pcap", blob)])
        if rc != 2 or "not a capture: shorter than a pcap or pcapng file header" not in err:
            print(f"FAIL {name}: exit {rc}: {err.strip()}")
            failed += 1
        else:
            print(f"ok   {name}: exit {rc}: {err.strip()}")
            passed += 1

    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
