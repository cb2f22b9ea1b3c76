#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# The two sides of a bump in the wire, from rk-inspect --packets-json of a
# recording on each side: guest1's (before the bump for guest1's requests)
# and guest2's. Every RoCE frame must be on both sides except exactly:
# the dropped request's first copy and the request answered by the forged
# RNR NAK (guest1's side only), the forged RNR NAK (guest1's side only);
# CE marks only on guest2's side, as many as the rule counted.
#   bump_diff.py G1.json G2.json DROP_PSN DROP_QP_HEX RNR_PSN RNR_QP_HEX CE
# One line per check on stdout; exit 1 when one fails.
import collections
import json
import sys

g1, g2 = sys.argv[1], sys.argv[2]
try:
    drop = (int(sys.argv[3]), int(sys.argv[4], 16))
    rnr = (int(sys.argv[5]), int(sys.argv[6], 16))
except ValueError:
    print("no dropped or RNR-answered PSN in the reaction report")
    sys.exit(1)
ce_want = int(sys.argv[7])


def frames(path):
    out = []
    with open(path) as f:
        for line in f:
            p = json.loads(line)
            if p.get("kind") == "RoCEv2" and "bth" in p:
                out.append(p)
    return out


def key(p):
    b = p["bth"]
    syn = p["aeth"]["syndrome"] if "aeth" in p else None
    return (p["src"], p["dst"], b["opcode"], b["dest_qp"], b["psn"], syn)


a, b = frames(g1), frames(g2)
ca = collections.Counter(key(p) for p in a)
cb = collections.Counter(key(p) for p in b)
only1 = ca - cb
only2 = cb - ca
fails = 0


def check(cond, text):
    global fails
    print(text)
    if not cond:
        fails += 1


G1, G2 = "198.18.0.11", "198.18.0.12"
want1 = collections.Counter()
dropk = [k for k in only1 if k[0] == G1 and (k[4], k[3]) == drop and 6 <= k[2] <= 10]
rnrk = [k for k in only1 if k[0] == G1 and (k[4], k[3]) == rnr and 6 <= k[2] <= 10]
nakk = [k for k in only1 if k[0] == G2 and k[2] == 17 and k[5] is not None
        and k[5] >> 5 == 1 and k[4] == rnr[0]]
for k in dropk + rnrk + nakk:
    want1[k] = 1
check(len(dropk) == 1 and ca[dropk[0]] >= 2,
      "dropped PSN %d of QP 0x%x: %d copies on guest1's side, %d on guest2's"
      % (drop[0], drop[1], ca[dropk[0]] if dropk else 0, cb[dropk[0]] if dropk else 0))
check(len(rnrk) == 1,
      "PSN %d answered by the forged RNR NAK: %d copies on guest1's side, %d on guest2's"
      % (rnr[0], ca[rnrk[0]] if rnrk else 0, cb[rnrk[0]] if rnrk else 0))
check(len(nakk) == 1 and cb[nakk[0]] == 0,
      "forged RNR NAK (syndrome 0x%02x, PSN %d, to QP 0x%x) on guest1's side only"
      % ((nakk[0][5], nakk[0][4], nakk[0][3]) if nakk else (0, rnr[0], 0)))
check(only1 == want1 and not only2,
      "%d RoCE frames on guest1's side, %d on guest2's: the rest identical%s"
      % (len(a), len(b), "" if only1 == want1 and not only2 else
         " (guest1 only: %s; guest2 only: %s)" % (list(only1 - want1)[:4], list(only2)[:4])))
ce1 = sum(1 for p in a if p.get("ecn") == 3)
ce2 = sum(1 for p in b if p.get("ecn") == 3)
ce2w = sum(1 for p in b if p.get("ecn") == 3 and p["src"] == G1 and 6 <= p["bth"]["opcode"] <= 10)
ect = sum(1 for p in a if p["src"] == G1 and p.get("ecn") == 2)
check(ce1 == 0 and ce2 == ce_want and ce2w == ce2,
      "CE marks: %d on guest1's side, %d on guest2's (the rule counted %d), all on WRITEs; "
      "guest1's ECT(0) frames before the bump: %d" % (ce1, ce2, ce_want, ect))
bad = sum(1 for p in a + b if p.get("icrc") != "good")
check(bad == 0, "ICRC good on every frame of both sides (%d not good)" % bad)
cnp1 = sum(1 for p in a if p["bth"]["opcode"] == 129)
print("CNPs: %d on guest1's side, %d on guest2's" % (cnp1, sum(1 for p in b if p["bth"]["opcode"] == 129)))
sys.exit(1 if fails else 0)
