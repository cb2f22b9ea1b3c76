#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Bad input never crashes rk-inspect.

usage: mutate.py RK_INSPECT [-n N] [--seed S] [--gen GEN_CAPTURES] [--dir DIR]... [CAPTURE...]

Writes N deterministic mutants of each classic pcap capture (bit flips in
frame bytes, caplen/len changes, records cut short, whole-file cuts,
garbage headers, swapped records, duplicated and reordered records) and
runs every output mode over each. A run fails when rk-inspect dies from a
signal, exits with a status other than 0, 1 or 2, or a sanitizer reports
anything. Build with -Db_sanitize=address,undefined to make it bite.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

MODES = [[], ["-s"], ["-j"], ["-p"]]


def records(data):
    """Split a classic pcap into (global header, [(hdr, body)]), or None."""
    if len(data) < 24:
        return None
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        return None
    out = []
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        body = data[off + 16:off + 16 + incl]
        out.append([bytearray(data[off:off + 16]), bytearray(body)])
        off += 16 + incl
    return data[:24], out, end


def build(gh, recs):
    return gh + b"".join(bytes(h) + bytes(b) for h, b in recs)


def mutant(rng, data):
    parsed = records(data)
    if parsed is None:
        buf = bytearray(data)
        for _ in range(8):
            if buf:
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        return bytes(buf)
    gh, recs, end = parsed
    kind = rng.randrange(8)
    if kind == 0 or not recs:
        # cut the file anywhere (a truncated final record, or mid header)
        return data[:rng.randrange(len(data) + 1)]
    if kind == 1:
        # garbage in the global header
        buf = bytearray(data)
        buf[rng.randrange(4, 24)] = rng.randrange(256)
        return bytes(buf)
    if kind == 2:
        # record header lies about caplen or len
        h, b = rng.choice(recs)
        field = rng.choice([8, 12])
        val = rng.choice([0, 1, len(b) + 1, 0xffff, 0x7fffffff, 0xffffffff,
                          rng.randrange(0, 70000)])
        h[field:field + 4] = struct.pack(end + "I", val)
        return build(gh, recs)
    if kind == 3:
        # shorten a frame (caplen and len both, so the file stays valid)
        i = rng.randrange(len(recs))
        h, b = recs[i]
        n = rng.randrange(len(b) + 1)
        recs[i][1] = b[:n]
        h[8:12] = struct.pack(end + "I", n)
        if rng.randrange(2):
            h[12:16] = struct.pack(end + "I", n)
        return build(gh, recs)
    if kind == 4:
        # reorder and duplicate records
        rng.shuffle(recs)
        recs += [list(map(bytearray, r)) for r in rng.sample(recs, min(5, len(recs)))]
        return build(gh, recs)
    # flip bits in frame bytes, biased to the headers
    for _ in range(rng.randrange(1, 12)):
        h, b = rng.choice(recs)
        if b:
            i = rng.randrange(min(len(b), 96 if rng.randrange(3) else len(b)))
            if rng.randrange(4):
                b[i] ^= 1 << rng.randrange(8)
            else:
                b[i] = rng.choice([0, 0xff, rng.randrange(256)])
    return build(gh, recs)


def run(rk, path):
    bad = []
    for m in MODES:
        p = subprocess.run([rk] + m + [path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace")
        err = p.stderr
        if p.returncode < 0 or p.returncode not in (0, 1, 2) or \
           "Sanitizer" in err or "runtime error" in err:
            bad.append((m, p.returncode, err[-2000:]))
    return bad


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    rk = args.pop(0)
    n, seed, gen = 40, 1, None
    caps = []
    while args:
        a = args.pop(0)
        if a == "-n":
            n = int(args.pop(0))
        elif a == "--seed":
            seed = int(args.pop(0))
        elif a == "--gen":
            gen = args.pop(0)
        elif a == "--dir":
            d = args.pop(0)
            if os.path.isdir(d):
                caps += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".pcap"))
            else:
                print(f"SKIP {d}: not found")
        else:
            caps.append(a)
    rng = random.Random(seed)
    failed = runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        if gen is not None:
            os.mkdir(os.path.join(tmp, "gen"))
            subprocess.run([gen, os.path.join(tmp, "gen")], check=True)
            caps += sorted(os.path.join(tmp, "gen", f)
                           for f in os.listdir(os.path.join(tmp, "gen")))
        for cap in caps:
            data = open(cap, "rb").read()
            for i in range(n):
                path = os.path.join(tmp, f"m{i}.pcap")
                with open(path, "wb") as f:
                    f.write(mutant(rng, data))
                for m, rc, err in run(rk, path):
                    failed += 1
                    keep = os.path.join(tempfile.gettempdir(),
                                        f"rk-inspect-crash-{os.path.basename(cap)}-{i}.pcap")
                    with open(keep, "wb") as f:
                        f.write(open(path, "rb").read())
                    print(f"FAIL {cap} mutant {i} {' '.join(m)}: exit {rc}, kept {keep}\n{err}")
                runs += len(MODES)
        for junk in (b"", b"\0" * 10, os.urandom(1000)):
            path = os.path.join(tmp, "junk.pcap")
            with open(path, "wb") as f:
                f.write(junk)
            for m, rc, err in run(rk, path):
                failed += 1
                print(f"FAIL junk input {' '.join(m)}: exit {rc}\n{err}")
            runs += len(MODES)
    print(f"{runs - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
