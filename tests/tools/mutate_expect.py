#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Mutated copies of real captures raise exactly the expected findings.

usage: mutate_expect.py RK_INSPECT PCAPS_DIR GEN_CAPTURES

Each case copies a capture, changes it in one way, runs `rk-inspect -j` and
requires the findings to equal the unmutated capture's findings plus exactly
the expected ones (same IDs, same counts), and nothing to crash:

  payload byte flipped (RoCEv2)        icrc.bad
  PadCnt wrong, ICRC left / recomputed  bth.padcnt.invalid + icrc.bad /
                                        + msg.length.mismatch
  frames cut by the snap length         frame.truncated per frame, no icrc.bad
  opcode 0xff, ICRC recomputed          bth.opcode.unsupported_transport
  UDP payload shorter than a BTH        bth.headers.too_short
  wrong MPA CRC (siw with CRC)          mpa.crc.bad
  broken marker (FPDUPTR off by 4)      mpa.marker.fpduptr + mpa.crc.bad
  a retransmitted TCP segment (siw,     tcp.retransmission.conflict; the
  5% loss) with one byte changed        unmutated copy: every retransmitted
                                        byte compared, none differing
  FPDU headers split across two TCP     no new finding, and the same FPDUs
  segments at every offset              decoded field for field
  IP version 5, IPv4 header length 4,   ip.version.mismatch, ip.header.bad,
  MAC Control opcode 0x0002, RoCEv2     mac_control.opcode.unknown,
  frame with More Fragments set         ipv4.fragment: counted, and the
                                        frame has a line in the default
                                        output and in --packets-json

Unmutated captures, text summary (-s) against the JSON summary:

  every capture                         the per-kind frame counts add up to
                                        the frames
  iWARP with reordering and loss        out-of-order segments and bytes and
                                        retransmitted bytes per direction

The ICRC is recomputed by an implementation written here from Annex A17
(zlib's CRC-32), independent of lib/wire's.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib
from collections import Counter

RK = None
TMP = None


def read_pcap(path):
    data = open(path, "rb").read()
    assert data[:4] == b"\xd4\xc3\xb2\xa1", "little-endian microsecond pcap expected"
    hdr, recs, off = data[:24], [], 24
    while off + 16 <= len(data):
        ts, tu, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        recs.append([ts, tu, bytearray(data[off + 16:off + 16 + incl]), orig])
        off += 16 + incl
    return hdr, recs


def write_pcap(path, hdr, recs):
    with open(path, "wb") as f:
        f.write(hdr)
        for ts, tu, body, orig in recs:
            f.write(struct.pack("<IIII", ts, tu, len(body), max(orig, len(body))))
            f.write(body)


def inspect(path, mode="-j"):
    args = [RK, mode, path] if mode else [RK, path]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1) or p.stderr.strip().startswith("==") or "runtime error" in p.stderr:
        raise RuntimeError(f"rk-inspect {mode} {path}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout


def findings(path):
    return Counter(json.loads(inspect(path))["findings"])


def icrc_v2(frame, l3):
    """ICRC of an Ethernet/IPv4/UDP RoCEv2 frame (Annex A17.3.3)."""
    ihl = (frame[l3] & 0x0F) * 4
    ip = bytearray(frame[l3:l3 + ihl])
    ip[1] = 0xFF
    ip[8] = 0xFF
    ip[10:12] = b"\xff\xff"
    udp = bytearray(frame[l3 + ihl:l3 + ihl + 8])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(frame[l3 + ihl + 8:l3 + ihl + 20])
    bth[4] = 0xFF
    end = l3 + struct.unpack(">H", frame[l3 + 2:l3 + 4])[0] - 4
    crc = zlib.crc32(b"\xff" * 8)
    for part in (ip, udp, bth, frame[l3 + ihl + 20:end]):
        crc = zlib.crc32(part, crc)
    return end, crc


def fix_icrc(frame):
    end, crc = icrc_v2(frame, 14)
    frame[end:end + 4] = struct.pack("<I", crc)


def roce_frames(recs, opcodes):
    """Indexes of Ethernet/IPv4/UDP 4791 frames with one of the opcodes."""
    out = []
    for i, (_, _, b, _) in enumerate(recs):
        if len(b) > 54 and b[12:14] == b"\x08\x00" and b[23] == 17 and \
                struct.unpack(">H", b[36:38])[0] == 4791 and b[42] in opcodes:
            out.append(i)
    return out


cases = []


def case(fn):
    cases.append(fn)
    return fn


def expect(name, src, mutate, delta):
    hdr, recs = read_pcap(src)
    base = findings(src)
    mutate(recs)
    path = os.path.join(TMP, name + ".pcap")
    write_pcap(path, hdr, recs)
    got = findings(path)
    want = base + Counter(delta)
    for m in ("", "-s", "-p"):  # every mode survives the mutant
        inspect(path, m) if m else inspect(path, "-q")
    if got != want:
        print(f"FAIL {name}: findings {dict(got)}, expected {dict(want)}")
        return False
    print(f"ok   {name}: {dict(Counter(delta))}")
    return True


@case
def payload_flip(pc, gen):
    src = os.path.join(pc, "roce", "rxe_write_bw.pcap")

    def m(recs):
        i = roce_frames(recs, {0x07})[3]            # an RDMA WRITE Middle
        recs[i][2][60] ^= 0x40                      # a payload byte
    return expect("payload_flip", src, m, {"icrc.bad": 1})


@case
def padcnt_wrong(pc, gen):
    src = os.path.join(pc, "roce", "rxe_write_bw.pcap")
    ok = True

    def m(recs):
        i = roce_frames(recs, {0x07})[5]
        recs[i][2][43] |= 0x20                      # PadCnt 2 on a MIDDLE
    ok &= expect("padcnt_wrong", src, m, {"bth.padcnt.invalid": 1, "icrc.bad": 1})

    def m2(recs):
        i = roce_frames(recs, {0x07})[5]
        recs[i][2][43] |= 0x20
        fix_icrc(recs[i][2])
    # Accepted by the ICRC, the packet now carries 2 bytes less, so its WRITE
    # message no longer adds up to the RETH DMALen (a dropped packet, above,
    # does not count towards the message).
    ok &= expect("padcnt_wrong_icrc_fixed", src, m2,
                 {"bth.padcnt.invalid": 1, "msg.length.mismatch": 1})
    return ok


@case
def truncated(pc, gen):
    src = os.path.join(pc, "roce", "rxe_read_bw.pcap")

    def m(recs):
        for i in roce_frames(recs, {0x0d, 0x0e, 0x0f})[:5]:
            recs[i][3] = len(recs[i][2])            # wire length kept
            del recs[i][2][80:]                     # snap length 80
    return expect("truncated", src, m, {"frame.truncated": 5})


@case
def opcode_ff(pc, gen):
    src = os.path.join(pc, "roce", "rxe_send_lat.pcap")

    def m(recs):
        i = roce_frames(recs, {0x04})[2]
        recs[i][2][42] = 0xFF
        fix_icrc(recs[i][2])
    return expect("opcode_ff", src, m, {"bth.opcode.unsupported_transport": 1})


@case
def udp_shorter_than_bth(pc, gen):
    src = os.path.join(pc, "roce", "rxe_rc_pingpong.pcap")

    def m(recs):
        i = roce_frames(recs, {0x11})[1]            # an ACK
        b = recs[i][2]
        del b[14 + 20 + 8 + 8:]                     # 8 bytes of UDP payload
        b[16:18] = struct.pack(">H", 20 + 8 + 8)
        b[14 + 24:14 + 26] = struct.pack(">H", 8 + 8)
        recs[i][3] = len(b)
    return expect("udp_shorter_than_bth", src, m, {"bth.headers.too_short": 1})


def frame_lines(path, frame):
    """The default-output lines and --packets-json objects of one frame."""
    lines = [ln for ln in inspect(path, "").splitlines()
             if ln.split(None, 1)[0] == str(frame)]
    objs = [o for o in map(json.loads, inspect(path, "-p").splitlines())
            if o["frame"] == frame]
    return lines, objs


def expect_shown(name, src, idx, mutate, fid):
    """The finding @fid of frame @idx is counted once and shown in lines and -p."""
    if not expect(name, src, mutate, {fid: 1}):
        return False
    hdr, recs = read_pcap(src)
    mutate(recs)
    path = os.path.join(TMP, name + ".pcap")
    write_pcap(path, hdr, recs)
    lines, objs = frame_lines(path, idx + 1)
    if not any("findings=" in ln and fid in ln for ln in lines) or \
            not any(fid in o.get("findings", []) for o in objs):
        print(f"FAIL {name}: frame {idx + 1} not shown with {fid}: {lines} {objs}")
        return False
    return True


@case
def non_rdma_frames_shown(pc, gen):
    src = os.path.join(pc, "roce", "rxe_rc_pingpong.pcap")
    hdr, recs = read_pcap(src)
    i = roce_frames(recs, {0x11})[1]               # an ACK
    ok = True

    def version(recs):
        recs[i][2][14] = 0x55                       # IP version 5
    ok &= expect_shown("ip_version_5", src, i, version, "ip.version.mismatch")

    def ihl(recs):
        recs[i][2][14] = 0x44                       # header length 16 bytes
    ok &= expect_shown("ipv4_ihl_4", src, i, ihl, "ip.header.bad")

    def mac_control(recs):
        b = recs[i][2]
        b[12:16] = b"\x88\x08\x00\x02"              # MAC Control, opcode 2
    ok &= expect_shown("mac_control_opcode_2", src, i, mac_control,
                       "mac_control.opcode.unknown")

    def fragment(recs):
        recs[i][2][20] |= 0x20                      # More Fragments
    ok &= expect_shown("ipv4_more_fragments", src, i, fragment, "ipv4.fragment")
    return ok


@case
def summary_totals(pc, gen):
    import glob
    import re
    ok = True
    caps = sorted(glob.glob(os.path.join(pc, "roce", "*.pcap")) +
                  glob.glob(os.path.join(pc, "iwarp", "*.pcap")) +
                  glob.glob(os.path.join(gen, "*.pcap")))
    for path in caps:
        text = inspect(path, "-s")
        doc = json.loads(inspect(path, "-j"))
        frames = int(re.search(r"^frames (\d+),", text, re.M).group(1))
        kinds = re.search(r"^RoCEv2 .*$", text, re.M).group(0)
        total = sum(int(v) for v in re.findall(r" (\d+)(?:,|$)", kinds))
        if total != frames:
            print(f"FAIL {os.path.basename(path)}: kinds '{kinds}' add up to "
                  f"{total}, not {frames}")
            ok = False
        want = []
        for c in doc["connections"]:
            for d in c["directions"]:
                want.append(f"out of order {d['out_of_order_segments']} segments "
                            f"({d['out_of_order_bytes']} bytes), retransmitted "
                            f"{d['retransmitted_bytes']} bytes, gaps {d['gaps']} "
                            f"({d['gap_bytes']} bytes)")
        got = re.findall(r"out of order .*bytes\)$", text, re.M)
        if got != want:
            print(f"FAIL {os.path.basename(path)}: TCP lines {got}, expected {want}")
            ok = False
    loss = json.loads(inspect(os.path.join(pc, "iwarp", "siw_write_bw_loss5.pcap"), "-j"))
    if not any(d["out_of_order_segments"] for c in loss["connections"]
               for d in c["directions"]):
        print("FAIL siw_write_bw_loss5: no out-of-order segments")
        ok = False
    if ok:
        print(f"ok   summary totals and TCP lines of {len(caps)} captures")
    return ok


def tcp_frames(recs):
    """(index, payload offset, seq, payload length, src port) of TCP/IPv4 frames."""
    out = []
    for i, (_, _, b, _) in enumerate(recs):
        if len(b) < 54 or b[12:14] != b"\x08\x00" or b[23] != 6:
            continue
        ihl = (b[14] & 0x0F) * 4
        tot = struct.unpack(">H", b[16:18])[0]
        t = 14 + ihl
        doff = (b[t + 12] >> 4) * 4
        plen = 14 + tot - (t + doff)
        seq = struct.unpack(">I", b[t + 4:t + 8])[0]
        out.append((i, t + doff, seq, plen, struct.unpack(">H", b[t:t + 2])[0]))
    return out


@case
def mpa_crc_wrong(pc, gen):
    src = os.path.join(pc, "iwarp", "siwcrc_write_bw_rdmacm.pcap")

    def m(recs):
        # A segment of the WRITE stream that ends an FPDU: its last 4 bytes are the CRC.
        big = [t for t in tcp_frames(recs) if t[3] > 1000]
        i, off, seq, plen, _ = big[10]
        recs[i][2][off + plen - 1] ^= 0x01
    return expect("mpa_crc_wrong", src, m, {"mpa.crc.bad": 1})


@case
def rtx_conflict(pc, gen):
    src = os.path.join(pc, "iwarp", "siw_write_bw_loss5.pcap")
    base = json.loads(inspect(src, "-j"))
    dirs = [d for c in base["connections"] for d in c["directions"]]
    if not any(d["retransmitted_bytes"] for d in dirs):
        print("FAIL rtx_conflict: no retransmitted bytes in the unmutated capture")
        return False
    for d in dirs:
        if (d["retransmitted_bytes_compared"] != d["retransmitted_bytes"]
                or d["retransmission_conflicts"] != 0):
            print(f"FAIL rtx_conflict: unmutated direction {d['from']}: "
                  f"{d['retransmitted_bytes_compared']} of {d['retransmitted_bytes']} "
                  f"retransmitted bytes compared, {d['retransmission_conflicts']} conflicts")
            return False

    def m(recs):
        # A data segment whose every byte an earlier segment of its
        # direction already carried (the streams here stay far from the
        # 32-bit wrap).
        seen = {}
        for i, off, seq, plen, port in tcp_frames(recs):
            if plen == 0:
                continue
            spans = seen.setdefault(port, [])
            if plen >= 8 and any(a <= seq and seq + plen <= b for a, b in spans):
                recs[i][2][off + plen // 2] ^= 0x10
                return
            spans.append((seq, seq + plen))
            spans.sort()
            merged = [spans[0]]
            for a, b in spans[1:]:
                if a <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], b))
                else:
                    merged.append((a, b))
            seen[port] = merged
        raise AssertionError("no retransmitted segment")
    return expect("rtx_conflict", src, m, {"tcp.retransmission.conflict": 1})


@case
def marker_broken(pc, gen):
    src = os.path.join(gen, "iwarp_scenarios.pcap")

    def m(recs):
        # Second connection (markers on): the initiator's grid starts right
        # after its MPA Request; break the marker at SeqStart + 1024.
        tf = [t for t in tcp_frames(recs) if t[4] == 40002]
        req = [t for t in tf if bytes(recs[t[0]][2][t[1]:t[1] + 16]) == b"MPA ID Req Frame"][0]
        pd = struct.unpack(">H", recs[req[0]][2][req[1] + 18:req[1] + 20])[0]
        s0 = (req[2] + 20 + pd) & 0xFFFFFFFF
        target = (s0 + 1024) & 0xFFFFFFFF
        for i, off, seq, plen, _ in tf:
            d = (target - seq) & 0xFFFFFFFF
            if d + 4 <= plen:
                recs[i][2][off + d + 3] ^= 0x04     # FPDUPTR low byte
                return
        raise AssertionError("marker not found")
    return expect("marker_broken", src, m, {"mpa.marker.fpduptr": 1, "mpa.crc.bad": 1})


def fpdus(path):
    out = []
    for line in inspect(path, "-p").splitlines():
        r = json.loads(line)
        if r.get("unit") == "fpdu":
            out.append((r["src"], r["tcp_src_port"], json.dumps(r.get("mpa")),
                        json.dumps(r.get("ddp")), json.dumps(r.get("rdmap")),
                        r.get("payload_len"), json.dumps(r.get("findings"))))
    return out


@case
def headers_split_every_offset(pc, gen):
    """Split the segment holding an FPDU's start at every byte of its headers."""
    src = os.path.join(pc, "iwarp", "siwcrc_read_bw_rdmacm.pcap")
    hdr, recs = read_pcap(src)
    base_f, base_u = findings(src), fpdus(src)
    # A segment that starts with an FPDU carrying a Read Response (tagged, 14-byte DDP header).
    cand = [t for t in tcp_frames(recs) if t[3] > 200]
    i, off, seq, plen, _ = cand[5]
    ok = True
    for k in range(1, 40):
        b = recs[i][2]
        ihl = (b[14] & 0x0F) * 4
        first = bytearray(b[:off + k])
        second = bytearray(b[:off]) + b[off + k:off + plen]
        for seg, ln, sq in ((first, k, seq), (second, plen - k, (seq + k) & 0xFFFFFFFF)):
            seg[16:18] = struct.pack(">H", off - 14 + ln)
            seg[14 + ihl + 4:14 + ihl + 8] = struct.pack(">I", sq)
        new = recs[:i] + [[recs[i][0], recs[i][1], first, len(first)],
                          [recs[i][0], recs[i][1], second, len(second)]] + recs[i + 1:]
        path = os.path.join(TMP, f"split{k}.pcap")
        write_pcap(path, hdr, new)
        if findings(path) != base_f or fpdus(path) != base_u:
            print(f"FAIL split at offset {k}: findings {dict(findings(path))}")
            ok = False
    if ok:
        print("ok   headers split at offsets 1..39: same findings and FPDUs")
    return ok


def main():
    global RK, TMP
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    RK, pc, gen_exe = sys.argv[1:]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
        gen = os.path.join(tmp, "gen")
        os.mkdir(gen)
        subprocess.run([gen_exe, gen], check=True, capture_output=True)
        for c in cases:
            try:
                r = c(pc, gen)
            except Exception as e:  # a crash or a capture that lost its shape
                print(f"FAIL {c.__name__}: {e}")
                r = False
            passed, failed = (passed + 1, failed) if r else (passed, failed + 1)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
