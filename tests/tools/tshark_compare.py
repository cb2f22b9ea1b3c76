#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare rk-inspect --packets-json with tshark, field by field.

usage: tshark_compare.py RK_INSPECT [--gen GEN_CAPTURES] [--dir DIR]... [CAPTURE...]

--gen runs the synthetic capture generator into a temporary directory and
compares its captures too.

For every frame that tshark decodes as InfiniBand/RoCE or as iWARP
(MPA/DDP/RDMAP), rk-inspect must decode the same frame and agree on:
RoCE: opcode, DestQP, PSN, AckReq, AETH syndrome and MSN, RETH VA, R_Key
and DMALen, ImmDt, IETH R_Key, DETH Q_Key and SrcQP, payload length and the
ICRC value; iWARP: MPA Rev, M, C, R, PD_Length and ULPDU_Length, DDP T, L,
STag, TO, QN, MSN, MO, RDMAP opcode, Read Request fields, Terminate layer,
etype and error code, and the payload length.

Several FPDUs in one frame are compared as per-field value lists in frame
order (tshark lists a field once per FPDU that has it). Frames that only
rk-inspect decodes (tshark's MPA dissector does not reassemble reordered
segments) are counted as extra, not failures; so are the frames tshark's
MPA heuristic decodes at a segment start that lies inside an FPDU
rk-inspect framed (payload bytes read as an FPDU header). Exit 0 when everything tshark
decoded matched, 1 otherwise, 77 (skip) when tshark is missing.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

# (tshark field, rk-inspect path, kind) for one RoCE packet.
ROCE = [
    ("infiniband.bth.opcode", ("bth", "opcode")),
    ("infiniband.bth.destqp", ("bth", "dest_qp")),
    ("infiniband.bth.psn", ("bth", "psn")),
    ("infiniband.bth.a", ("bth", "ack_req")),
    ("infiniband.bth.se", ("bth", "se")),
    ("infiniband.bth.padcnt", ("bth", "pad_cnt")),
    ("infiniband.bth.p_key", ("bth", "p_key")),
    ("infiniband.aeth.syndrome", ("aeth", "syndrome")),
    ("infiniband.aeth.msn", ("aeth", "msn")),
    # tshark shows the AtomicETH VA and R_Key under the RETH names
    ("infiniband.reth.va", ("reth", "va"), ("atomiceth", "va")),
    ("infiniband.reth.r_key", ("reth", "r_key"), ("atomiceth", "r_key")),
    ("infiniband.reth.dmalen", ("reth", "dma_len")),
    ("infiniband.immdt", ("immdt", "imm"), "bytes"),
    ("infiniband.ieth", ("ieth", "r_key"), "bytes"),
    ("infiniband.deth.q_key", ("deth", "q_key")),
    ("infiniband.deth.srcqp", ("deth", "src_qp")),
    ("infiniband.invariant.crc", ("icrc_value",), "swap"),
]

IWARP = [
    ("iwarp_mpa.rev", ("mpa", "rev")),
    ("iwarp_mpa.marker_flag", ("mpa", "m")),
    ("iwarp_mpa.crc_flag", ("mpa", "c")),
    ("iwarp_mpa.rej_flag", ("mpa", "r")),
    ("iwarp_mpa.pdlength", ("mpa", "pd_len")),
    ("iwarp_mpa.ulpdulength", ("mpa", "ulpdu_len")),
    ("iwarp_ddp.tagged_flag", ("ddp", "t")),
    ("iwarp_ddp.last_flag", ("ddp", "l")),
    ("iwarp_ddp.dv", ("ddp", "dv")),
    ("iwarp_ddp.stag", ("ddp", "stag")),
    ("iwarp_ddp.tagged_offset", ("ddp", "to")),
    ("iwarp_ddp.qn", ("ddp", "qn")),
    ("iwarp_ddp.msn", ("ddp", "msn")),
    ("iwarp_ddp.mo", ("ddp", "mo")),
    ("iwarp_rdma.version", ("rdmap", "rv")),
    ("iwarp_rdma.opcode", ("rdmap", "opcode")),
    ("iwarp_rdma.sinkstag", ("rdmap", "sink_stag")),
    ("iwarp_rdma.sinkto", ("rdmap", "sink_to")),
    ("iwarp_rdma.rdmardsz", ("rdmap", "rdma_rd_sz")),
    ("iwarp_rdma.srcstag", ("rdmap", "src_stag")),
    ("iwarp_rdma.srcto", ("rdmap", "src_to")),
    ("iwarp_rdma.term_layer", ("rdmap", "layer")),
    ("iwarp_rdma.term_etype", ("rdmap", "etype")),
    ("iwarp_rdma.term_errcode", ("rdmap", "err_code")),
]

# Payload length: tshark hands IB and RDMAP payload to the data dissector
# (pad bytes included for IB), unless it dissects it further (IPoIB, MADs,
# CM): then frame.protocols does not end in "infiniband:data" (or
# "iwarp_ddp_rdmap:data") and it is not compared.
PAYLOAD = ("data.len", ("payload_len",))


def num(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    v = str(v).strip()
    if v in ("True", "true"):
        return 1
    if v in ("False", "false"):
        return 0
    return int(v, 0)


def get(obj, path):
    for k in path:
        if not isinstance(obj, dict) or k not in obj or obj[k] is None:
            return None
        obj = obj[k]
    return obj


def tshark_rows(tshark, cap, fields, dfilter):
    # One FPDU, one payload: no reassembly of multi-segment Sends; raw TCP
    # sequence numbers to match FPDUs that rk-inspect reports in the frame
    # that completed them (after a reordering) rather than where they sat.
    cmd = [tshark, "-n", "-r", cap, "-Y", dfilter, "-T", "fields",
           "-o", "iwarp_ddp_rdmap.reassemble_iwarp_rdma_send:FALSE",
           "-o", "tcp.relative_sequence_numbers:FALSE",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,",
           "-e", "frame.number"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        cols = line.split("\t")
        frame = int(cols[0])
        vals = {}
        for f, c in zip(fields, cols[1:]):
            if c != "":
                vals[f] = [x for x in c.split(",") if x != ""]
        rows[frame] = vals
    return rows


def fpdus_at(units, port, seq, n):
    """The n FPDUs that rk-inspect found from TCP sequence number seq on."""
    fp = sorted((u for us in units.values() for u in us
                 if u.get("unit") == "fpdu" and u.get("tcp_src_port") == port),
                key=lambda u: u["frame"])
    for i, u in enumerate(fp):
        if u["tcp_seq"] == seq:
            return fp[i:i + n]
    return None


def inside_fpdu(units, port, seq):
    """Whether sequence number seq lies inside an FPDU rk-inspect framed
    (after its first byte): tshark's MPA heuristic then read payload bytes
    at a segment start as an FPDU header."""
    for us in units.values():
        for u in us:
            if u.get("unit") != "fpdu" or u.get("tcp_src_port") != port:
                continue
            m = u["mpa"]
            end = u["tcp_seq"] + 2 + m["ulpdu_len"] + m["pad"] + 4 + 4 * m["markers"]
            if 0 < (seq - u["tcp_seq"]) & 0xffffffff < end - u["tcp_seq"]:
                return True
    return False


def compare(tshark, rk, cap):
    ok = True
    out = subprocess.run([rk, "-p", cap], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        print(f"FAIL {cap}: rk-inspect exit {out.returncode}: {out.stderr.strip()}")
        return False
    units = {}
    for line in out.stdout.splitlines():
        o = json.loads(line)
        if o.get("kind") == "iWARP" and o.get("unit") not in ("fpdu", "mpa_request",
                                                              "mpa_reply"):
            continue
        units.setdefault(o["frame"], []).append(o)

    checked = fields_checked = extra = in_payload = 0
    for table, dfilter in ((ROCE, "infiniband"), (IWARP, "iwarp_mpa")):
        names = [t[0] for t in table] + [PAYLOAD[0], "frame.protocols", "tcp.seq",
                                          "tcp.srcport"]
        rows = tshark_rows(tshark, cap, names, dfilter)
        for frame, vals in sorted(rows.items()):
            mine = units.get(frame)
            if dfilter == "iwarp_mpa" and "iwarp_mpa.ulpdulength" in vals:
                # Match FPDUs by stream position first: rk-inspect reports
                # an FPDU in the frame that completed it in sequence order,
                # tshark where its segment sat (reordered captures). An FPDU
                # that began in an earlier segment is matched by frame; one
                # behind a leading marker 4 bytes on.
                port = int(vals["tcp.srcport"][0])
                seq = int(vals["tcp.seq"][0])
                n = len(vals["iwarp_mpa.ulpdulength"])
                by_seq = fpdus_at(units, port, seq, n)
                if by_seq is None and not mine:
                    by_seq = fpdus_at(units, port, (seq + 4) & 0xffffffff, n)
                if by_seq is not None:
                    mine = by_seq
                elif not mine and inside_fpdu(units, port, seq):
                    in_payload += 1
                    continue
            if not mine:
                print(f"FAIL {cap} frame {frame}: tshark decodes it, rk-inspect does not")
                ok = False
                continue
            checked += 1
            for row in table + [PAYLOAD]:
                tf = row[0]
                paths = [r for r in row[1:] if isinstance(r, tuple)]
                flag = row[-1] if isinstance(row[-1], str) else None
                if tf not in vals:
                    continue
                if tf == "data.len" and not vals.get("frame.protocols", [""])[-1].endswith(("infiniband:data", "iwarp_ddp_rdmap:data")):
                    continue
                if flag == "bytes":
                    # raw bytes, listed once for the header and once for the field
                    want = [int(vals[tf][0], 16)]
                else:
                    want = [num(x) for x in vals[tf]]
                if flag == "swap":
                    # tshark reads the ICRC bytes as a big-endian word; the
                    # CRC value is stored least significant byte first
                    want = [int.from_bytes(w.to_bytes(4, "big"), "little") for w in want]
                got = []
                for u in mine:
                    for pth in paths:
                        v = get(u, pth)
                        if v is not None:
                            got.append(num(v))
                            break
                if tf == "data.len":
                    if dfilter == "infiniband":
                        got = [g + num(get(u, ("bth", "pad_cnt")) or 0) for g, u in zip(got, mine)]
                    # tshark shows no data item for empty payloads
                    got = [g for g in got if g != 0]
                if want != got:
                    print(f"FAIL {cap} frame {frame} {tf}: tshark {want} rk-inspect {got}")
                    ok = False
                fields_checked += 1
        decoded = set(rows)
        extra += sum(1 for f in units if f not in decoded and
                     any(u.get("kind") == ("iWARP" if dfilter == "iwarp_mpa" else u.get("kind"))
                         for u in units[f]) and dfilter == "iwarp_mpa")
    print(f"{'ok' if ok else 'FAIL'} {cap}: {checked} frames, {fields_checked} fields "
          f"compared; {extra} iWARP frames decoded by rk-inspect only; {in_payload} "
          f"taken by tshark for FPDUs inside an FPDU's payload")
    return ok


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tshark = shutil.which("tshark")
    if tshark is None:
        print("SKIP: tshark not installed")
        return 77
    rk = sys.argv[1]
    args = sys.argv[2:]
    caps = []
    with tempfile.TemporaryDirectory() as tmp:
        while args:
            a = args.pop(0)
            if a == "--gen":
                subprocess.run([args.pop(0), tmp], check=True)
                caps += sorted(glob.glob(os.path.join(tmp, "*.pcap")))
            elif a == "--dir":
                d = args.pop(0)
                if os.path.isdir(d):
                    caps += sorted(glob.glob(os.path.join(d, "*.pcap")))
                else:
                    print(f"SKIP {d}: not found")
            else:
                caps.append(a)
        ok = bool(caps)
        passed = failed = 0
        for cap in caps:
            if compare(tshark, rk, cap):
                passed += 1
            else:
                failed += 1
                ok = False
        print(f"{passed} passed, {failed} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
