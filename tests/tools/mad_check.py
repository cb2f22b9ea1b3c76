#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect's MADs on QP0/QP1 (IBTA Vol1 13.4, CM 12.6, SA 15.2, SM 14.2).

usage: mad_check.py RK_INSPECT

Writes captures of RoCEv2 UD SENDs to QP1 carrying every CM message
(REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP, LAP, APR,
ClassPortInfo), SA and SM MADs, and QP traffic on the QPs the REQ and REP
name, and checks the names and key fields in the packet lines, the
per-packet JSON and the summary (the QP flows paired to their connection).
Short and bad MADs must raise their counted findings, never a crash.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from check_util import check, finish

RK = sys.argv[1]

A = bytes([198, 18, 0, 1])
B = bytes([198, 18, 0, 2])


def pcap(frames):
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for i, f in enumerate(frames):
        out += struct.pack("<IIII", 1, i * 1000, len(f), len(f)) + f
    return out


def roce(src, dst, bth, payload):
    """Ethernet + IPv4 + UDP 4791 + BTH(+ext) + payload + ICRC (not valid:
    the checks run with --no-icrc)."""
    body = bth + payload + b"\0\0\0\0"
    udp = struct.pack(">HHHH", 49152, 4791, 8 + len(body), 0) + body
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst)
    eth = b"\x02\0\0\0\0\x01\x02\0\0\0\0\x02\x08\x00"
    return eth + ip + udp


def bth(opcode, dest_qp, psn, ack_req=False):
    return struct.pack(">BBHI I", opcode, 0, 0xFFFF, dest_qp,
                       (0x80000000 if ack_req else 0) | psn)


def mad(mgmt_class, method, attr, data=b"", tid=0x1234, class_version=2, status=0,
        attr_mod=0, length=256):
    hdr = struct.pack(">BBBBHHQHHI", 1, mgmt_class, class_version, method, status, 0,
                      tid, attr, 0, attr_mod)
    m = hdr + data
    return (m + bytes(256))[:length]


def qp1(src, dst, m, psn=0):
    deth = struct.pack(">II", 0x80010000, 1)
    return roce(src, dst, bth(0x64, 1, psn) + deth, m)


def cm_data(fields):
    """CM data (MAD bytes 24..255) from {offset: bytes}."""
    d = bytearray(232)
    for off, b in fields.items():
        d[off:off + len(b)] = b
    return bytes(d)


def be24(v):
    return struct.pack(">I", v)[1:]


LID_A, LID_B = 0x11112222, 0x33334444
QPN_A, QPN_B = 0x000123, 0x000456
PSN_A, PSN_B = 1000, 2000
SID = 0x0000000001060001

REQ = cm_data({0: struct.pack(">I", LID_A), 8: struct.pack(">Q", SID),
               32: be24(QPN_A), 44: be24(PSN_A), 48: struct.pack(">H", 0xFFFF)})
REP = cm_data({0: struct.pack(">I", LID_B), 4: struct.pack(">I", LID_A),
               12: be24(QPN_B), 20: be24(PSN_B)})
RTU = cm_data({0: struct.pack(">I", LID_A), 4: struct.pack(">I", LID_B)})
MRA = cm_data({0: struct.pack(">I", LID_B), 4: struct.pack(">I", LID_A), 8: b"\x00"})
DREQ = cm_data({0: struct.pack(">I", LID_A), 4: struct.pack(">I", LID_B), 8: be24(QPN_B)})
DREP = cm_data({0: struct.pack(">I", LID_B), 4: struct.pack(">I", LID_A)})
LAP = cm_data({0: struct.pack(">I", LID_A), 4: struct.pack(">I", LID_B), 12: be24(QPN_B)})
APR = cm_data({0: struct.pack(">I", LID_B), 4: struct.pack(">I", LID_A), 9: b"\x00"})
SIDR_REQ = cm_data({0: struct.pack(">I", 0x55), 4: struct.pack(">H", 0xFFFF),
                    8: struct.pack(">Q", SID)})
SIDR_REP = cm_data({0: struct.pack(">I", 0x55), 4: b"\x00", 8: be24(0x789),
                    12: struct.pack(">Q", SID), 20: struct.pack(">I", 0x11)})
# A second connection rejected: REJ from B, MsgRejected REQ, reason 28.
REQ2 = cm_data({0: struct.pack(">I", 0x77), 8: struct.pack(">Q", SID), 32: be24(0x999),
                44: be24(5)})
REJ2 = cm_data({0: struct.pack(">I", 0), 4: struct.pack(">I", 0x77), 8: b"\x00",
                10: struct.pack(">H", 28)})

frames = [
    qp1(A, B, mad(0x07, 0x01, 0x0001, tid=1)),                 # 1 ClassPortInfo Get
    qp1(A, B, mad(0x07, 0x03, 0x0010, REQ, tid=2)),            # 2 REQ
    qp1(B, A, mad(0x07, 0x03, 0x0011, MRA, tid=2)),            # 3 MRA
    qp1(B, A, mad(0x07, 0x03, 0x0013, REP, tid=2)),            # 4 REP
    qp1(A, B, mad(0x07, 0x03, 0x0014, RTU, tid=2)),            # 5 RTU
    roce(A, B, bth(0x04, QPN_B, PSN_A, True), b"x" * 8),      # 6 RC SEND Only A->B
    roce(B, A, bth(0x11, QPN_A, PSN_A) + b"\0\0\0\0", b""),    # 7 ACK B->A
    qp1(A, B, mad(0x07, 0x03, 0x0019, LAP, tid=3)),            # 8 LAP
    qp1(B, A, mad(0x07, 0x03, 0x001a, APR, tid=3)),            # 9 APR
    qp1(A, B, mad(0x07, 0x03, 0x0015, DREQ, tid=4)),           # 10 DREQ
    qp1(B, A, mad(0x07, 0x03, 0x0016, DREP, tid=4)),           # 11 DREP
    qp1(A, B, mad(0x07, 0x03, 0x0017, SIDR_REQ, tid=5)),       # 12 SIDR_REQ
    qp1(B, A, mad(0x07, 0x03, 0x0018, SIDR_REP, tid=5)),       # 13 SIDR_REP
    qp1(A, B, mad(0x07, 0x03, 0x0010, REQ2, tid=6)),           # 14 REQ (2)
    qp1(B, A, mad(0x07, 0x03, 0x0012, REJ2, tid=6)),           # 15 REJ
    qp1(A, B, mad(0x03, 0x01, 0x0035, tid=7)),                 # 16 SA Get PathRecord
    qp1(B, A, mad(0x03, 0x81, 0x0035, tid=7)),                 # 17 SA GetResp PathRecord
    qp1(A, B, mad(0x03, 0x12, 0x0038, tid=8)),                 # 18 SA GetTable MCMemberRecord
    qp1(A, B, mad(0x01, 0x01, 0x0011, tid=9, class_version=1)),  # 19 SM Get NodeInfo
    qp1(A, B, mad(0x07, 0x03, 0x0010, REQ, tid=10, length=20)),  # 20 cut: no header
    qp1(A, B, mad(0x07, 0x03, 0x0010, REQ, tid=11, length=40)),  # 21 short MAD
    qp1(A, B, mad(0x07, 0x03, 0x00ee, tid=12)),                # 22 unknown CM attribute
]
# 23: BaseVersion 2
bad = bytearray(mad(0x07, 0x03, 0x0010, REQ, tid=13))
bad[0] = 2
frames.append(qp1(A, B, bytes(bad)))

tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "mads.pcap")
with open(path, "wb") as f:
    f.write(pcap(frames))


def run(*args):
    p = subprocess.run([RK, "--no-icrc"] + list(args) + [path], capture_output=True,
                       text=True, timeout=60)
    check(f"exit status of {' '.join(args) or 'lines'}", p.returncode, 0)
    check(f"no stderr for {' '.join(args) or 'lines'}", p.stderr, "")
    return p.stdout


lines = {int(l.split()[0]): l for l in run().splitlines()}
want_in_line = {
    1: "{CM ComMgtGet ClassPortInfo TID=0x0000000000000001}",
    2: "{CM ComMgtSend REQ TID=0x0000000000000002 LocalCommID=0x11112222 "
       "ServiceID=0x0000000001060001 LocalQPN=0x000123 StartingPSN=1000}",
    3: "MRA TID=0x0000000000000002 LocalCommID=0x33334444 RemoteCommID=0x11112222 "
       "MsgMRAed=REQ}",
    4: "REP TID=0x0000000000000002 LocalCommID=0x33334444 RemoteCommID=0x11112222 "
       "LocalQPN=0x000456 StartingPSN=2000}",
    5: "RTU TID=0x0000000000000002 LocalCommID=0x11112222 RemoteCommID=0x33334444}",
    8: "LAP TID=0x0000000000000003 LocalCommID=0x11112222 RemoteCommID=0x33334444 "
       "RemoteQPN=0x000456}",
    9: "APR TID=0x0000000000000003 LocalCommID=0x33334444 RemoteCommID=0x11112222 "
       "APStatus=0}",
    10: "DREQ TID=0x0000000000000004 LocalCommID=0x11112222 RemoteCommID=0x33334444 "
        "RemoteQPN=0x000456}",
    11: "DREP TID=0x0000000000000004 LocalCommID=0x33334444 RemoteCommID=0x11112222}",
    12: "SIDR_REQ TID=0x0000000000000005 RequestID=0x00000055 "
        "ServiceID=0x0000000001060001}",
    13: "SIDR_REP TID=0x0000000000000005 RequestID=0x00000055 "
        "ServiceID=0x0000000001060001 QPN=0x000789 Status=0}",
    15: "REJ TID=0x0000000000000006 LocalCommID=0x00000000 RemoteCommID=0x00000077 "
        "MsgRejected=REQ Reason=28(consumer reject)}",
    16: "{SA SubnAdmGet PathRecord TID=",
    17: "{SA SubnAdmGetResp PathRecord TID=",
    18: "{SA SubnAdmGetTable MCMemberRecord TID=",
    19: "{SM SubnGet NodeInfo TID=",
    22: "{CM ComMgtSend AttributeID=0x00ee TID=",
    23: "{MAD BaseVersion=2}",
}
for n, want in want_in_line.items():
    check(f"line {n} has {want!r}", want in lines.get(n, ""), True)
check("line 20 (no MAD header) decodes no MAD", "{" in lines.get(20, ""), False)
check("line 20 finding", "findings=mad.truncated" in lines.get(20, ""), True)
check("line 21 finding", "mad.length.bad" in lines.get(21, ""), True)
check("line 21 keeps the fields it holds", "LocalCommID=0x11112222" in lines.get(21, ""),
      True)
check("line 21 drops the fields it lacks", "StartingPSN" in lines.get(21, ""), False)
check("line 22 finding", "mad.cm.attr.unknown" in lines.get(22, ""), True)
check("line 23 finding", "mad.base_version.unknown" in lines.get(23, ""), True)
check("whole MADs raise no finding",
      [n for n in (1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
       if "findings=" in lines.get(n, "")], [])

pk = {o["frame"]: o for o in map(json.loads, run("-p").splitlines())}
req = pk[2]["mad"]
check("json REQ class", (req["mgmt_class"], req["class_name"], req["class_version"]),
      (7, "CM", 2))
check("json REQ method", (req["method"], req["method_name"], req["response"]),
      (3, "ComMgtSend", False))
check("json REQ attribute", (req["attr_id"], req["attr_name"]), (0x10, "REQ"))
check("json REQ tid", req["tid"], "0x0000000000000002")
check("json REQ cm", {k: req["cm"].get(k) for k in
                      ("local_comm_id", "local_qpn", "starting_psn", "service_id")},
      {"local_comm_id": LID_A, "local_qpn": QPN_A, "starting_psn": PSN_A,
       "service_id": "0x0000000001060001"})
rej = pk[15]["mad"]["cm"]
check("json REJ reason", (rej["reason"], rej["reason_name"], rej["msg_rejected"],
                          rej["remote_comm_id"]), (28, "consumer reject", "REQ", 0x77))
sa = pk[17]["mad"]
check("json SA GetResp", (sa["class_name"], sa["method_name"], sa["response"],
                          sa["attr_name"]), ("SA", "SubnAdmGetResp", True, "PathRecord"))
check("json SA has no cm", "cm" in sa, False)
check("json SM", (pk[19]["mad"]["class_name"], pk[19]["mad"]["method_name"],
                  pk[19]["mad"]["attr_name"]), ("SM", "SubnGet", "NodeInfo"))
check("json short MAD has no mad", "mad" in pk[20], False)
check("json short MAD finding", pk[20]["findings"], ["mad.truncated"])
check("json MAD of 40 bytes", (pk[21]["mad"]["cm"].get("local_comm_id"),
                               "starting_psn" in pk[21]["mad"]["cm"], pk[21]["findings"]),
      (LID_A, False, ["mad.length.bad"]))

doc = json.loads(run("-j"))
conns = doc["cm_connections"]
check("two CM connections", len(conns), 2)
c0 = conns[0]
check("connection 1 messages", c0["messages"],
      ["REQ", "MRA", "REP", "RTU", "DREQ", "DREP", "LAP", "APR"])
check("connection 1 state", c0["state"], "disconnected")
check("connection 1 sides", [(s["addr"], s["local_comm_id"], s["local_qpn"],
                              s["starting_psn"]) for s in c0["sides"]],
      [("198.18.0.1", LID_A, QPN_A, PSN_A), ("198.18.0.2", LID_B, QPN_B, PSN_B)])
c1 = conns[1]
check("connection 2 rejected", (c1["state"], c1["messages"], c1["rej_reason"],
                                c1["rej_reason_name"]),
      ("rejected", ["REQ", "REJ"], 28, "consumer reject"))
flows = {(q["src"], q["dest_qp"]): q for q in doc["qps"]}
fa = flows[("198.18.0.1", QPN_B)]["cm"]
fb = flows[("198.18.0.2", QPN_A)]["cm"]
check("flow A->B paired", (fa["side"], fa["local_comm_id"], fa["remote_comm_id"],
                           fa["src_qpn"]), ("active", LID_A, LID_B, QPN_A))
check("flow B->A paired", (fb["side"], fb["local_comm_id"], fb["remote_comm_id"],
                           fb["src_qpn"]), ("passive", LID_B, LID_A, QPN_B))
check("QP1 flow not paired", flows[("198.18.0.1", 1)]["cm"], None)
f = doc["totals"]
check("findings counted", {k: v for k, v in doc["findings"].items()
                           if k.startswith("mad.")} if isinstance(doc.get("findings"), dict)
      else None,
      {"mad.truncated": 1, "mad.length.bad": 1, "mad.cm.attr.unknown": 1,
       "mad.base_version.unknown": 1})

text = run("-s")
check("summary: flow CM line",
      "    CM (active side): LocalCommID 0x11112222 <-> 0x33334444 "
      "ServiceID=0x0000000001060001, REQ LocalQPN=0x000123 StartingPSN=1000, "
      "REP LocalQPN=0x000456 StartingPSN=2000, disconnected: "
      "REQ MRA REP RTU DREQ DREP LAP APR" in text, True)
check("summary: CM section", "\nCM connections (2):\n" in text, True)
check("summary: REJ reason", "rejected: REQ REJ (Reason=28(consumer reject))" in text, True)

sys.exit(finish())
