#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Impair a nanosecond pcap of frames carrying rk-gen's sequence slot by a
known pattern: frames named by stream id and sequence number are dropped,
swapped with the next frame of their stream, moved later, duplicated, and
every timestamp is shifted by a constant delay. A frame that is not
RoCEv2 can be added. The receive side must then report exactly that.

usage: pcap_impair.py IN OUT --slot-at BYTES [--delay-ns N] [--drop S:N,...]
       [--swap S:N,...] [--move S:N:K,...] [--dup S:N,...] [--junk]
  --slot-at  the slot's offset in the frame (Ethernet header on)
  --swap     frame N of stream S after frame N+1 of S
  --move     frame N of stream S after frame N+K of S
  --dup      frame N of stream S twice, the copy right after it
"""
import argparse
import struct
import sys

MAGIC_NS = 0xA1B23C4D


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack_from("<I", data, 0)
    if magic != MAGIC_NS:
        sys.exit("%s: not a little-endian nanosecond pcap" % path)
    head, off, frames = data[:24], 24, []
    while off + 16 <= len(data):
        sec, nsec, caplen, wirelen = struct.unpack_from("<IIII", data, off)
        frames.append([sec * 10**9 + nsec, data[off + 16:off + 16 + caplen], wirelen])
        off += 16 + caplen
    return head, frames


def write_pcap(path, head, frames):
    with open(path, "wb") as f:
        f.write(head)
        for ts, frame, wirelen in frames:
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(frame), wirelen))
            f.write(frame)


def keys(spec, n):
    out = []
    for item in filter(None, (spec or "").split(",")):
        parts = [int(x, 0) for x in item.split(":")]
        if len(parts) != n:
            sys.exit("bad item '%s'" % item)
        out.append(tuple(parts))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--slot-at", type=int, required=True)
    ap.add_argument("--delay-ns", type=int, default=0)
    ap.add_argument("--drop")
    ap.add_argument("--swap")
    ap.add_argument("--move")
    ap.add_argument("--dup")
    ap.add_argument("--junk", action="store_true")
    a = ap.parse_args()
    head, frames = read_pcap(a.inp)

    def slot(fr):
        return struct.unpack_from(">II", fr[1], a.slot_at)

    for fr in frames:
        fr[0] += a.delay_ns
    order = [slot(fr) for fr in frames]
    by_key = dict(zip(order, frames))
    if len(by_key) != len(frames):
        sys.exit("two frames with the same stream and sequence number")
    drops = set(keys(a.drop, 2))
    moves = [(s, n, 1) for s, n in keys(a.swap, 2)] + keys(a.move, 3)
    for s, n, k in moves:
        order.remove((s, n))
        order.insert(order.index((s, n + k)) + 1, (s, n))
    out = []
    dups = set(keys(a.dup, 2))
    for key in order:
        if key in drops:
            continue
        out.append(by_key[key])
        if key in dups:
            out.append(by_key[key])
    if a.junk:
        # an ARP request: no BTH, no slot
        arp = bytes.fromhex("ffffffffffff020000000001" "0806" "0001080006040001"
                            "020000000001c6120001" "000000000000c6120002") + bytes(18)
        out.append([out[-1][0], arp, len(arp)])
    write_pcap(a.out, head, out)
    print("%d frames in, %d out" % (len(frames), len(out)))


if __name__ == "__main__":
    main()
