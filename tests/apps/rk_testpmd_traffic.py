#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Frames for rk-testpmd's tests, on a Linux interface (AF_PACKET):
#   rk_testpmd_traffic.py send IFACE N      N RoCEv2 RC SEND Only frames,
#       198.18.0.1 -> 198.18.0.2, DestQP 0x11, PSN 0..N-1, ICRC good
#   rk_testpmd_traffic.py count IFACE SECS  print how many RoCEv2 frames
#       (UDP port 4791) arrive on IFACE within SECS (ends 1 s after the
#       last one; frames sent on IFACE are not counted)
#   rk_testpmd_traffic.py acked REQ_IFACE RESP_IFACE  a requester's resend
#       the responder did not need: SEND Only PSN 0..9 on REQ_IFACE, ACKs
#       (198.18.0.2 -> .1, DestQP 0x12) of PSN 0..4 and 9 on RESP_IFACE,
#       PSN 7 sent twice before the ACK of 9, then PSN 10; 20 ms apart
import socket
import struct
import sys
import time
import zlib


def roce_frame(psn, opcode=0x04, qp=0x11, src=1, dst=2, ext=b"", payload=bytes(64)):
    bth = struct.pack("!BBHI I", opcode, 0x40, 0xFFFF, qp, psn & 0xFFFFFF) + ext
    udp_len = 8 + len(bth) + len(payload) + 4
    udp = struct.pack("!HHHH", 49152, 4791, udp_len, 0)
    ip_len = 20 + udp_len
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0x02, ip_len, 0, 0x4000, 64, 17, 0,
                     bytes([198, 18, 0, src]), bytes([198, 18, 0, dst]))
    s = sum(struct.unpack("!10H", ip))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    ip = ip[:10] + struct.pack("!H", ~s & 0xFFFF) + ip[12:]
    eth = bytes([2, 0, 0, 0, 0, dst, 2, 0, 0, 0, 0, src, 8, 0])
    # ICRC, IBTA Vol1 Annex A17: the variant fields masked to ones
    mip = ip[:1] + b"\xff" + ip[2:8] + b"\xff" + ip[9:10] + b"\xff\xff" + ip[12:]
    mudp = udp[:6] + b"\xff\xff"
    mbth = bth[:4] + b"\xff" + bth[5:]
    icrc = zlib.crc32(b"\xff" * 8 + mip + mudp + mbth + payload)
    return eth + ip + udp + bth + payload + struct.pack("<I", icrc)


def ack(psn):
    # RC Acknowledge, AETH: ACK, credits not tracked (0x1f), MSN = PSN + 1
    return roce_frame(psn, 0x11, 0x12, 2, 1, struct.pack("!I", 0x1F << 24 | (psn + 1)), b"")


def acked(req_iface, resp_iface):
    a = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    a.bind((req_iface, 0))
    b = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    b.bind((resp_iface, 0))
    seq = [(a, roce_frame(p)) for p in range(5)] + [(b, ack(p)) for p in range(5)]
    seq += [(a, roce_frame(p)) for p in (5, 6, 7, 8, 9, 7)] + [(b, ack(9)), (a, roce_frame(10))]
    for sock, f in seq:
        sock.send(f)
        time.sleep(0.02)  # the two ports are two streams: keep their order


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "acked":
        acked(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 4 or sys.argv[1] not in ("send", "count"):
        sys.exit("usage: rk_testpmd_traffic.py send IFACE N | count IFACE SECS | acked REQ_IFACE RESP_IFACE")
    mode, iface, n = sys.argv[1], sys.argv[2], sys.argv[3]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((iface, 0))
    if mode == "send":
        for psn in range(int(n)):
            s.send(roce_frame(psn))
            # af_packet's ring has room for bursts only: 16 frames per 2 ms
            # leave the forwarder 64 ms of being descheduled (a loaded machine)
            if psn % 16 == 15:
                time.sleep(0.002)
        return
    end = time.time() + float(n)
    got = 0
    s.settimeout(0.2)
    last = None
    while time.time() < end and (last is None or time.time() - last < 1.0):
        try:
            f, addr = s.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING:  # our own, sent on IFACE
            continue
        if len(f) > 38 and f[12:14] == b"\x08\x00" and f[23] == 17 and f[36:38] == b"\x12\xb7":
            got += 1
            last = time.time()
    print(got)


main()
