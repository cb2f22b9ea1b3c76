#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect on iWARP captures that start mid-connection.

usage: iwarp_midstream_check.py RK_INSPECT GEN_CAPTURES

iwarp_long.pcap (gen_captures.c) holds two connections of many FPDUs: one
without markers nor CRC, one with both. Each is cut after its first N frames
(no SYN, no MPA frames left; N lands inside an FPDU stream) for several N.
rk-inspect must say it joined mid-connection, find the framing and decode
exactly the FPDUs the full capture decodes from the first FPDU that starts
after the cut (with markers, RFC 5044 4.3, the first one a marker points
at vouches for the grid and those before it are framed back from it). No
finding may be raised. A TCP stream that is not iWARP, joined
mid-connection, is not reported.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from check_util import check, finish

RK, GEN = sys.argv[1:3]
GRID = 512


def frames_of(path):
    d = open(path, "rb").read()
    hdr, off, out = d[:24], 24, []
    while off < len(d):
        cl = struct.unpack("<I", d[off + 8:off + 12])[0]
        out.append(d[off:off + 16 + cl])
        off += 16 + cl
    return hdr, out


def tcp_of(rec):
    """(src port, dst port, seq, payload length) of an Ethernet/IPv4/TCP record."""
    f = rec[16:]
    ihl = (f[14] & 15) * 4
    tot = struct.unpack(">H", f[16:18])[0]
    t = 14 + ihl
    sp, dp, seq = struct.unpack(">HHI", f[t:t + 8])
    doff = (f[t + 12] >> 4) * 4
    return sp, dp, seq, tot - ihl - doff


def run(path, *args):
    p = subprocess.run([RK] + list(args) + [path], capture_output=True, text=True,
                       timeout=120)
    check(f"{os.path.basename(path)} {' '.join(args)}: exit status", p.returncode, 0)
    return p.stdout


def fpdus(path):
    """FPDU events by (src port, dst port), in order, and the MPA frames."""
    out, mpa = {}, {}
    for line in run(path, "-p").splitlines():
        o = json.loads(line)
        if o["kind"] != "iWARP":
            continue
        key = (o["tcp_src_port"], o["tcp_dst_port"])
        if o["unit"] == "fpdu":
            out.setdefault(key, []).append((o["tcp_seq"], o["mpa"]["ulpdu_len"],
                                            o["mpa"]["pad"], o["mpa"]["markers"],
                                            o["rdmap"]["opcode"], o["ddp"]["l"],
                                            o["ddp"].get("msn"), o["ddp"].get("stag"),
                                            o["payload_len"]))
        elif o["unit"] in ("mpa_request", "mpa_reply"):
            mpa[key] = o["tcp_seq"] + 20 + o["mpa"]["pd_len"]
    return out, mpa


def after(a, b):
    """Sequence number a is at or after b (RFC 9293 3.4)."""
    return (a - b) & 0xFFFFFFFF < 0x80000000


def expected_first(full, b, seq_start, markers):
    """Index in @full of the first FPDU the cut capture can trust: the
    first after the cut. With markers, the first marker after the cut that
    points at an FPDU start there vouches for the grid, and the FPDUs
    before it are framed back from it; when there is none (a few small
    FPDUs), the CRC vouches for them at the stream's end (the marker
    connection has CRC on), framed without markers, none falling in those
    FPDUs. @return the index and whether markers framed it."""
    first = next((k for k, x in enumerate(full) if after(x[0], b)), None)
    if not markers:
        return first, False
    if first is not None:
        hdr = full[first][0]
        if (hdr - 4 - seq_start) % GRID == 0 and not after(hdr - 4, b):
            # The cut is inside its leading marker, which its CRC covered:
            # it cannot be checked, the next FPDU is the first.
            first = first + 1 if first + 1 < len(full) else None
    # The FPDUs before the one a marker points at run into it: from the
    # first after the cut on.
    i = first_by_marker(full, b, seq_start)
    return first, i is not None


def first_by_marker(full, b, seq_start):
    for i, (hdr, ulen, pad, nmk, *_rest) in enumerate(full):
        if not after(hdr, b):
            continue
        lead = (hdr - 4 - seq_start) % GRID == 0
        start = hdr - 4 if lead else hdr
        end = start + 2 + ulen + pad + 4 + 4 * nmk
        g = start + (-(start - seq_start)) % GRID
        while (g - end) & 0xFFFFFFFF >= 0x80000000:  # g before end
            target = g if (lead and g == start) else hdr
            if after(g, b) and after(target, b):
                return i
            g += GRID
    return None


tmp = tempfile.mkdtemp()
subprocess.run([GEN, tmp], check=True)
hdr, recs = frames_of(os.path.join(tmp, "iwarp_long.pcap"))
full, seq_start = fpdus(os.path.join(tmp, "iwarp_long.pcap"))

# The frames of each connection (by the client's port).
conns = {}
for i, r in enumerate(recs):
    sp, dp, _, _ = tcp_of(r)
    conns.setdefault(min(sp, dp) if min(sp, dp) != 5001 else max(sp, dp), []).append(i)
check("two connections in iwarp_long.pcap", sorted(conns), [40010, 40012])

for port, markers in ((40010, False), (40012, True)):
    idx = conns[port]
    total = len(idx)
    for cut in (7, 12, 25, 40, 77, 110, 150, total - 30):
        name = f"conn {port} cut {cut}"
        keep = [recs[i] for i in idx[cut:]]
        path = os.path.join(tmp, f"cut_{port}_{cut}.pcap")
        with open(path, "wb") as f:
            f.write(hdr + b"".join(keep))
        got, _ = fpdus(path)
        doc = json.loads(run(path, "-j"))
        check(f"{name}: no findings", doc["findings"], {})
        check(f"{name}: one iWARP connection", len(doc["connections"]), 1)
        if len(doc["connections"]) != 1:
            continue
        c = doc["connections"][0]
        check(f"{name}: joined mid-connection", c["joined_mid_connection"], True)
        firsts = {}
        for r in keep:
            sp, dp, seq, plen = tcp_of(r)
            if plen > 0:
                firsts.setdefault((sp, dp), seq)
        for key, b in firsts.items():
            f = full[key]
            want_i, want_markers = expected_first(f, b, seq_start[key], markers)
            g = got.get(key, [])
            if want_i is None:
                check(f"{name} {key}: nothing to trust, nothing decoded", g, [])
                continue
            want = f[want_i:]
            check(f"{name} {key}: first FPDU decoded", g[:1], want[:1])
            check(f"{name} {key}: FPDUs decoded = the full capture's from there "
                  f"({len(want)} of {len(f)})", g, want)
            d = c["directions"][0 if key[0] == port else 1]
            mid = d["mid_connection"]
            check(f"{name} {key}: framing", (mid["framing_found"], mid["seq"] is not None,
                                             mid["markers"], mid["crc"]),
                  (True, True, want_markers, markers))
            check(f"{name} {key}: messages", d["messages"], sum(1 for x in want if x[5]))
        text = run(path, "-s")
        check(f"{name}: summary says so", "joined mid-connection: no SYN" in text, True)

# A connection joined mid-connection, then a new one on the same ports from
# its SYN: two connections, the second decoded whole.
c1 = [recs[i] for i in conns[40010]]
path = os.path.join(tmp, "reuse.pcap")
with open(path, "wb") as f:
    f.write(hdr + b"".join(c1[60:150] + c1))
doc = json.loads(run(path, "-j"))
check("joined, then the same ports from a SYN: two connections",
      [c["joined_mid_connection"] for c in doc["connections"]], [True, False])
check("the second is decoded whole",
      [d["fpdus"] for d in doc["connections"][1]["directions"]],
      [len(full[(40010, 5001)]), len(full[(5001, 40010)])])
check("reuse: no findings", doc["findings"], {})

# Not iWARP: the plain TCP connection of iwarp_scenarios.pcap, its SYN cut off,
# and the iWARP connection's bytes shifted into garbage (every byte + 1).
hdr2, recs2 = frames_of(os.path.join(tmp, "iwarp_scenarios.pcap"))
plain = [r for r in recs2 if 80 in tcp_of(r)[:2]]
path = os.path.join(tmp, "plain_mid.pcap")
with open(path, "wb") as f:
    f.write(hdr2 + b"".join(plain[2:]))
doc = json.loads(run(path, "-j"))
check("plain TCP joined mid-connection: no iWARP connection", doc["connections"], [])
check("plain TCP joined mid-connection: no findings", doc["findings"], {})
garbled = []
for i in conns[40010][20:]:
    r = bytearray(recs[i])
    sp, dp, seq, plen = tcp_of(bytes(r))
    for k in range(len(r) - plen, len(r)):
        r[k] = (r[k] + 1) & 0xFF
    garbled.append(bytes(r))
path = os.path.join(tmp, "garbled_mid.pcap")
with open(path, "wb") as f:
    f.write(hdr + b"".join(garbled))
doc = json.loads(run(path, "-j"))
check("garbled stream joined mid-connection: no iWARP connection", doc["connections"], [])
check("garbled stream joined mid-connection: no findings", doc["findings"], {})

sys.exit(finish())
