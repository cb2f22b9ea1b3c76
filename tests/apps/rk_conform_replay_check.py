#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-conform --replay against rdmakit's own engine.

1. Linux rxe's recorded conversations (pcaps/roce: WRITE, READ, ATOMIC,
   SEND ping-pong, IPv6, RDMA-CM) replayed against --dut self: every
   recorded answer comes alike (coalesced ACKs matched by PSN), exit 0,
   the verdict "pass" in the JSON, as many requests sent as recorded.
2. Edited recordings, each reported at the edited frame with exit 1:
   one of rxe's ACKs turned into a NAK (PSN sequence error; --pcap-dir
   holds the replay's frames), an ACK moved 256 PSNs ahead, a READ
   RESPONSE FIRST recorded as a LAST.
   --replay-qp picks another conversation of a recording (the RDMA-CM
   recording's data QP), its case ID naming the QP; a DestQP it lacks is
   n/a, naming those it has; --replay-qp all replays every conversation,
   a case each, and --expect compares those; two hosts' QPs of one number
   are two conversations (QPN@ADDRESS picks one). A recording begun inside a
   message (its first request a Middle) is n/a.
3. A recording without RC traffic is n/a (exit 0); a file that is no
   capture, a truncated one, and --replay with --cases give a clear error.
   Frames cut by the capture's snaplen are counted and never replayed:
   n/a when they belong to the conversation, else only said.
5. Path MTU 4096 (rxe's WRITEs of 4096-byte segments with an ACK added,
   and, given rk-sim, READ responses of 4096 bytes): the live QP takes the
   recording's path MTU, every answer alike.
4. --verdicts then --expect of the same run: 0 differences; an edited
   file gives exactly the DIFF, NEW and GONE lines and exit 1; a
   malformed line, an ID listed twice, a NUL byte, a directory and an
   unwritable --verdicts are refused before the run (exit 2).
Usage: rk_conform_replay_check.py RK_CONFORM PCAPS_DIR [RK_SIM]
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ALIKE = {  # recording: (requests, answers) rxe's requester sent and its peer gave
    "rxe_write_bw.pcap": (320, 20),
    "rxe_read_bw.pcap": (20, 320),
    "rxe_atomic_bw.pcap": (20, 20),
    "rxe_rc_pingpong.pcap": (28, 13),
    "rxe_write_bw_ipv6.pcap": (40, 10),
    "rxe_write_bw_rdmacm.pcap": (16, 16),   # the first QP: perftest -R's exchange
}
# --replay-qp: the same recording's data QP (its answers, not the exchange's)
CHOSEN = {"rxe_write_bw_rdmacm.pcap": ("0x1b", 320, 20)}


def run(exe, args, want):
    p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != want:
        sys.exit(f"FAIL: rk-conform {' '.join(args)}: exit {p.returncode}, wanted {want}\n"
                 f"{p.stdout[-2000:]}\n{p.stderr}")
    return p


def records(data):
    """(offset of each record's frame, its length) in a classic pcap."""
    out, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append((off + 16, incl))
        off += 16 + incl
    return out


def keep(data, path, want):
    """The records of classic pcap @p data whose frame @p want takes, into @p path."""
    out = bytearray(data[:24])
    for off, n in records(data):
        if want(data, off):
            out += data[off - 16:off + n]
    open(path, "wb").write(out)
    return path


def snap(data, path, snaplen, which=lambda i, d, off, n: True):
    """Classic pcap @p data with the records @p which picks cut to
    @p snaplen bytes (their wire length kept), into @p path; how many were cut."""
    out, cut = bytearray(data[:24]), 0
    for i, (off, n) in enumerate(records(data)):
        hdr = bytearray(data[off - 16:off])
        if n > snaplen and which(i, data, off, n):
            struct.pack_into("<I", hdr, 8, snaplen)
            out += hdr + data[off:off + snaplen]
            cut += 1
        else:
            out += hdr + data[off:off + n]
    open(path, "wb").write(out)
    return cut


def ipv4_csum(h):
    s = sum(struct.unpack("!10H", bytes(h)))
    s = (s & 0xffff) + (s >> 16)
    return (~((s & 0xffff) + (s >> 16))) & 0xffff


def mtu4096_acked(path, out):
    """rxe's MTU 4096 WRITEs (no answer was recorded: the peer dropped
    them), the first transmission only, with the ACK of its last PSN a
    responder would give, into @p out."""
    data = open(path, "rb").read()
    res, seen, last = bytearray(data[:24]), set(), None
    for off, n in records(data):
        f = data[off:off + n]
        if f[12:14] == b"\x08\x00" and f[23] == 17 and f[36:38] == b"\x12\xb7":
            psn = f[51] << 16 | f[52] << 8 | f[53]
            if psn in seen:
                continue
            seen.add(psn)
            last = f
        res += data[off - 16:off + n]
    ack = bytearray(last[6:12] + last[0:6] + last[12:42])   # MACs swapped
    ack[26:30], ack[30:34] = last[30:34], last[26:30]       # IPs swapped
    struct.pack_into("!H", ack, 16, 48)                     # IP, UDP, BTH, AETH, ICRC
    ack[24:26] = b"\0\0"
    struct.pack_into("!H", ack, 24, ipv4_csum(ack[14:34]))
    struct.pack_into("!HH", ack, 38, 28, 0)
    ack += bytes([0x11, 0, 0xff, 0xff, 0, 0, 0, 0x11, 0]) + last[51:54]  # to QP 0x11
    ack += b"\x1f\0\0\0" + b"\0\0\0\0"                    # AETH: ACK, MSN; ICRC
    res += struct.pack("<IIII", 0, 0, len(ack), len(ack)) + ack
    open(out, "wb").write(res)
    return out


def edit_first(path, opcode, out, edit):
    """Copy the recording at @path to @out with @edit(frame bytes, offset)
    applied to the first IPv4 RoCEv2 frame of BTH opcode @opcode; its
    frame number (from 1), and the edited bytes."""
    data = bytearray(open(path, "rb").read())
    for i, (off, n) in enumerate(records(data)):
        if n > 58 and data[off + 12:off + 14] == b"\x08\x00" and data[off + 23] == 17 and \
                data[off + 36:off + 38] == b"\x12\xb7" and data[off + 42] == opcode:
            edit(data, off)
            open(out, "wb").write(data)
            return i + 1, data
    sys.exit(f"FAIL: no frame of opcode 0x{opcode:02x} in {path}")


def main():
    exe, pcaps = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for name, (nreq, nans) in ALIKE.items():
            js = os.path.join(tmp, name + ".json")
            p = run(exe, ["--replay", os.path.join(pcaps, "roce", name), "--json", js], 0)
            want = f"replayed {nreq} requests of "
            if want not in p.stdout or f"{nans} of {nans} recorded answers alike, 0 differences" \
                    not in p.stdout:
                sys.exit(f"FAIL: {name}: wanted {nreq} requests, {nans} answers alike:\n"
                         f"{p.stdout}")
            c = json.load(open(js))["cases"]
            if len(c) != 1 or c[0]["id"] != "replay." + name or c[0]["verdict"] != "pass" or \
                    c[0]["frames_tx"] != nreq or c[0]["elapsed_ns"] <= 0:
                sys.exit(f"FAIL: {name}: JSON {c}")
            print(f"ok   {name}: {nreq} requests, {nans} answers alike")
        for name, (qp, nreq, nans) in CHOSEN.items():
            path = os.path.join(pcaps, "roce", name)
            js, ju = os.path.join(tmp, "qp.json"), os.path.join(tmp, "qp.xml")
            p = run(exe, ["--replay", path, "--replay-qp", qp, "--json", js, "--junit", ju], 0)
            if f"replayed {nreq} requests of " not in p.stdout or \
                    f"{nans} of {nans} recorded answers alike, 0 differences" not in p.stdout:
                sys.exit(f"FAIL: {name} --replay-qp {qp}: wanted {nreq} requests, {nans} "
                         f"answers alike:\n{p.stdout}")
            # Two QPs of one recording are two cases: the ID names the QP.
            qid = f"replay.{name}.qp0x{int(qp, 0):06x}"
            c = json.load(open(js))["cases"]
            if [x["id"] for x in c] != [qid] or f'"{qid}"' not in open(ju).read() or \
                    qid not in p.stdout:
                sys.exit(f"FAIL: {name} --replay-qp {qp}: ID {[x['id'] for x in c]}, "
                         f"wanted {qid}")
            p = run(exe, ["--replay", path, "--replay-qp", "0x55"], 0)
            if "n/a" not in p.stdout or "no RC request to DestQP 0x000055; its requests go " \
                    "to 0x00001a, 0x00001b" not in p.stdout:
                sys.exit(f"FAIL: {name} --replay-qp 0x55: {p.stdout}")
            for bad in ("0", "0x1000000", "-1", "x"):
                p = run(exe, ["--replay", path, "--replay-qp", bad], 2)
                if "--replay-qp" not in p.stderr or p.stdout:
                    sys.exit(f"FAIL: --replay-qp {bad}: {p.stderr!r}")
            p = run(exe, ["--replay", path, "--replay", path], 2)
            if "one recording per run" not in p.stderr or p.stdout:
                sys.exit(f"FAIL: --replay twice: {p.stderr!r}")
            p = run(exe, ["--replay-qp", qp], 2)
            if "--replay-qp goes with --replay" not in p.stderr:
                sys.exit(f"FAIL: --replay-qp alone: {p.stderr!r}")
            print(f"ok   {name} --replay-qp {qp}: {nreq} requests, {nans} answers alike; "
                  "a QP not in it n/a with the ones that are; bad values refused")

        # A capture begun inside a message: n/a, the DUT not blamed for
        # NAKing a Middle it never saw the First of (it did, as FAIL).
        for name, frame in (("rxe_write_bw_loss5_rtx_skip.pcap", 1),
                            ("rxe_write_bw_bidir_rtx_shift.pcap", 4)):
            js = os.path.join(tmp, "mid.json")
            p = run(exe, ["--replay", os.path.join(pcaps, "roce", name), "--json", js], 0)
            c = json.load(open(js))["cases"]
            if c[0]["verdict"] != "n/a" or "the recording starts inside a message: its first " \
                    f"request (frame {frame}) is a RC RDMA WRITE Middle" not in c[0]["reason"]:
                sys.exit(f"FAIL: {name}: {c}")
        print("ok   recordings begun inside a message: n/a, naming the first request's frame")

        # --replay-qp all: every conversation of the recording in one run, a
        # case each; --expect compares those cases' lines only.
        name = "rxe_write_bw_rdmacm.pcap"
        path = os.path.join(pcaps, "roce", name)
        js, ju, ver = (os.path.join(tmp, "all." + x) for x in ("json", "xml", "verdicts"))
        p = run(exe, ["--replay", path, "--replay-qp", "all", "--json", js, "--junit", ju,
                      "--verdicts", ver], 0)
        # perftest -R's exchange QPs have one number on both hosts: two
        # conversations, told apart by requester, the ID naming it.
        ids = [f"replay.{name}.qp0x00001a@198.18.0.12", f"replay.{name}.qp0x00001a@198.18.0.11",
               f"replay.{name}.qp0x00001b"]
        c = json.load(open(js))["cases"]
        if [x["id"] for x in c] != ids or [x["verdict"] for x in c] != ["pass"] * 3 or \
                [x["frames_tx"] for x in c] != [16, 16, 320] or \
                f"3 conversations in {path}" not in p.stdout or \
                "3 cases: 3 pass" not in p.stdout or \
                any(f'"{i}"' not in open(ju).read() for i in ids):
            sys.exit(f"FAIL: --replay-qp all: cases {c}\n{p.stdout}")
        run(exe, ["--replay", path, "--replay-qp", "all", "--expect", ver], 0)
        wrong = os.path.join(tmp, "all.wrong")
        with open(wrong, "w") as w:
            w.write(open(ver).read().replace(f"{ids[2]} pass", f"{ids[2]} FAIL"))
        p = run(exe, ["--replay", path, "--replay-qp", "all", "--expect", wrong], 1)
        if "1 difference" not in p.stdout:
            sys.exit(f"FAIL: --replay-qp all --expect, one line changed: {p.stdout}")
        print(f"ok   {name} --replay-qp all: 3 conversations (each host's exchange QP "
              "0x1a, the data QP), 3 cases (16, 16 and 320 requests), --expect compares them")

        # ibv_rc_pingpong between two hosts' first QPs (both 0x11): each
        # host's requests are a conversation of their own; QPN@ADDRESS
        # picks one.
        name = "rxe_rc_pingpong.pcap"
        path = os.path.join(pcaps, "roce", name)
        p = run(exe, ["--replay", path, "--replay-qp", "all", "--json", js], 0)
        c = json.load(open(js))["cases"]
        ids = [f"replay.{name}.qp0x000011@198.18.0.12", f"replay.{name}.qp0x000011@198.18.0.11"]
        if [x["id"] for x in c] != ids or [x["verdict"] for x in c] != ["pass"] * 2 or \
                [x["frames_tx"] for x in c] != [28, 20] or \
                "5 of 5 recorded answers alike" not in p.stdout:
            sys.exit(f"FAIL: {name} --replay-qp all: cases {c}\n{p.stdout}")
        p = run(exe, ["--replay", path, "--replay-qp", "0x11@198.18.0.11", "--json", js], 0)
        c = json.load(open(js))["cases"]
        if [(x["id"], x["verdict"], x["frames_tx"]) for x in c] != [(ids[1], "pass", 20)] or \
                "replayed 20 requests of " not in p.stdout:
            sys.exit(f"FAIL: {name} --replay-qp 0x11@198.18.0.11: {c}\n{p.stdout}")
        p = run(exe, ["--replay", path, "--replay-qp", "0x11@198.18.0.99"], 0)
        if "no RC request to DestQP 0x000011 from that requester; its requests to it come " \
                "from 198.18.0.12, 198.18.0.11" not in p.stdout:
            sys.exit(f"FAIL: {name} --replay-qp 0x11@198.18.0.99: {p.stdout}")
        # an IPv4 requester named in its mapped IPv6 form is the same; ::1 stays IPv6
        p = run(exe, ["--replay", path, "--replay-qp", "0x11@::ffff:198.18.0.11", "--json", js], 0)
        if [x["id"] for x in json.load(open(js))["cases"]] != [ids[1]]:
            sys.exit(f"FAIL: {name} --replay-qp 0x11@::ffff:198.18.0.11: {p.stdout}")
        p = run(exe, ["--replay", path, "--replay-qp", "0x11@::1", "--json", js], 0)
        if [x["id"] for x in json.load(open(js))["cases"]] != [f"replay.{name}.qp0x000011@::1"]:
            sys.exit(f"FAIL: {name} --replay-qp 0x11@::1: {p.stdout}")
        # no RC request at all: 0 conversations, one n/a case of the file
        rping = os.path.join(pcaps, "iwarp", "siwcrc_rping.pcap")
        p = run(exe, ["--replay", rping, "--replay-qp", "all", "--json", js], 0)
        c = json.load(open(js))["cases"]
        if f"0 conversations in {rping}" not in p.stdout or \
                [(x["id"], x["verdict"]) for x in c] != [("replay.siwcrc_rping.pcap", "n/a")] \
                or "1 case: 0 pass, 0 fail, 1 not applicable" not in p.stdout:
            sys.exit(f"FAIL: --replay-qp all of a recording without RC: {c}\n{p.stdout}")
        for bad in ("0x11@", "0x11@x", "@198.18.0.11", "0x11@198.18.0.1@"):
            p = run(exe, ["--replay", path, "--replay-qp", bad], 2)
            if "--replay-qp" not in p.stderr or p.stdout:
                sys.exit(f"FAIL: --replay-qp {bad}: {p.stderr!r}")
        print(f"ok   {name}: two hosts' QPs 0x11, two conversations (28 and 20 requests); "
              "--replay-qp 0x11@198.18.0.11 (or ::ffff:198.18.0.11) picks the second; another "
              "host n/a naming the two; bad forms refused; no RC: 0 conversations")

        # One of rxe's ACKs made a NAK-SEQ: the replay must say where.
        wr = os.path.join(pcaps, "roce", "rxe_write_bw.pcap")
        bad = os.path.join(tmp, "nak.pcap")
        edited, data = edit_first(wr, 0x11, bad,    # AETH syndrome: NAK, PSN sequence error
                                  lambda d, off: d.__setitem__(off + 54, 0x60))
        pdir = os.path.join(tmp, "fails")
        p = run(exe, ["--replay", bad, "--pcap-dir", pdir], 1)
        diffs = [l for l in p.stdout.splitlines() if l.startswith("DIFF ")]
        if len(diffs) < 1 or not diffs[0].startswith(f"DIFF frame {edited}: recorded NAK-SEQ"):
            sys.exit(f"FAIL: the edited frame {edited}: {diffs[:3]}\n{p.stdout}")
        # named by the case's ID, which ends in the recording's name already
        if sorted(os.listdir(pdir)) != ["replay.nak.pcap"]:
            sys.exit(f"FAIL: no pcap of the failed replay in {os.listdir(pdir)}")
        print(f"ok   an ACK made a NAK-SEQ (frame {edited}): reported, exit 1, pcap written")

        # A recorded ACK moved 256 PSNs ahead: no live ACK reaches it.
        path = os.path.join(tmp, "ahead.pcap")
        moved, _ = edit_first(wr, 0x11, path,       # PSN bits 8..15 plus one
                              lambda d, off: d.__setitem__(off + 51, (d[off + 51] + 1) & 0xff))
        p = run(exe, ["--replay", path], 1)
        if f"DIFF frame {moved}: recorded ACK" not in p.stdout:
            sys.exit(f"FAIL: an ACK 256 PSNs ahead (frame {moved}) not reported:\n{p.stdout}")
        print(f"ok   an ACK moved 256 PSNs ahead (frame {moved}): reported")

        # rxe's first READ RESPONSE FIRST recorded as a LAST: the opcode differs.
        path = os.path.join(tmp, "rdlast.pcap")
        first, _ = edit_first(os.path.join(pcaps, "roce", "rxe_read_bw.pcap"), 0x0d, path,
                              lambda d, off: d.__setitem__(off + 42, 0x0f))
        p = run(exe, ["--replay", path], 1)
        want = f"DIFF frame {first}: recorded READ-RESP"
        if not any(l.startswith(want) and "(opcode 0x0f), live READ-RESP" in l and
                   l.endswith("(opcode 0x0d)") for l in p.stdout.splitlines()):
            sys.exit(f"FAIL: a READ response's opcode (frame {first}) not reported:\n{p.stdout}")
        print(f"ok   a READ RESPONSE FIRST recorded as LAST (frame {first}): reported")

        # No RC traffic (the TCP exchange only): n/a.
        only = keep(data, os.path.join(tmp, "tcp.pcap"), lambda d, off: d[off + 23] == 6)
        p = run(exe, ["--replay", only], 0)
        if "n/a" not in p.stdout or "no RC request" not in p.stdout:
            sys.exit(f"FAIL: a recording without RC: {p.stdout}")
        print("ok   a recording without RC requests: n/a")

        # The requester's side alone (rxe's WRITEs, no ACK): nothing to
        # compare, n/a, not a pass.
        half = keep(data, os.path.join(tmp, "requests.pcap"),      # UDP, not ACK
                    lambda d, off: d[off + 23] == 17 and d[off + 42] != 0x11)
        p = run(exe, ["--replay", half], 0)
        if "n/a" not in p.stdout or "no answer to the requests" not in p.stdout:
            sys.exit(f"FAIL: requests without answers: {p.stdout}")
        print("ok   requests without a recorded answer: n/a, not a pass")

        # --verdicts then --expect: equal; one verdict edited, one line
        # dropped, one added: DIFF, NEW and GONE, exit 1.
        vf = os.path.join(tmp, "v.txt")
        run(exe, ["--cases", "rc.psn.*", "--verdicts", vf], 0)
        p = run(exe, ["--cases", "rc.psn.*", "--expect", vf], 0)
        if "0 differences" not in p.stdout:
            sys.exit(f"FAIL: --expect of its own verdicts: {p.stdout}")
        lines = open(vf).read().splitlines()
        lines = [l.replace("rc.psn.ahead pass", "rc.psn.ahead FAIL") for l in lines
                 if not l.startswith("rc.psn.wrap ")] + ["rc.psn.gone pass"]
        open(vf, "w").write("\n".join(lines) + "\n")
        p = run(exe, ["--cases", "rc.psn.*", "--expect", vf], 1)
        got = sorted(l.split(":")[0] for l in p.stdout.splitlines()
                     if l.startswith(("DIFF ", "NEW ", "GONE ")))
        if got != ["DIFF rc.psn.ahead", "GONE rc.psn.gone", "NEW  rc.psn.wrap"] or \
                "3 differences" not in p.stdout:
            sys.exit(f"FAIL: --expect of an edited file: {got}\n{p.stdout}")
        # Refused before the run (exit 2), each with its reason.
        for text, why in (("rc.psn.ahead maybe\n", 'v.txt:1: "rc.psn.ahead maybe": expected'),
                          ("rc.psn.ahead pass\nrc.psn.ahead FAIL\n", "v.txt:2: rc.psn.ahead "
                           "listed twice"),
                          ("rc.psn.ahead p\0ss\n", "v.txt:1: a NUL byte")):
            open(vf, "w").write(text)
            p = run(exe, ["--cases", "rc.psn.*", "--expect", vf], 2)
            if why not in p.stderr or p.stdout:
                sys.exit(f"FAIL: verdicts file {text!r}: {p.stderr!r} {p.stdout[:80]!r}")
        p = run(exe, ["--expect", tmp], 2)
        if "Is a directory" not in p.stderr:
            sys.exit(f"FAIL: --expect DIR: {p.stderr!r}")
        run(exe, ["--verdicts", os.path.join(tmp, "no", "v.txt")], 2)
        print("ok   --verdicts and --expect: equal, then DIFF, NEW, GONE; a bad line, an ID "
              "twice, a NUL, a directory, an unwritable --verdicts refused before the run")

        junk = os.path.join(tmp, "junk.pcap")
        open(junk, "wb").write(b"not a capture at all" * 10)
        p = run(exe, ["--replay", junk], 2)
        if "--replay" not in p.stderr:
            sys.exit(f"FAIL: junk: {p.stderr!r}")
        cut = os.path.join(tmp, "cut.pcap")
        open(cut, "wb").write(bytes(data[:len(data) // 2 + 7]))
        # the frames before the cut are replayed, their verdicts printed, then
        # exit 2: part of the input could not be read
        p = run(exe, ["--replay", cut], 2)
        if "replay." not in p.stdout or "exit status 2" not in p.stderr:
            sys.exit(f"FAIL: a truncated recording: {p.stdout!r} {p.stderr!r}")
        # the answers cut off are not the DUT's fault: n/a saying so, no FAIL
        if " FAIL " in p.stdout or "the recording is cut inside a record" not in p.stdout:
            sys.exit(f"FAIL: a truncated recording's verdict: {p.stdout!r}")
        # cut before its first request: n/a, and still exit 2 (it was exit 0)
        cut0 = os.path.join(tmp, "cut0.pcap")
        open(cut0, "wb").write(bytes(data[:1000]))
        p = run(exe, ["--replay", cut0], 2)
        if " n/a " not in p.stdout:
            sys.exit(f"FAIL: a recording cut before its first request: {p.stdout!r}")
        run(exe, ["--replay", only, "--cases", "rc.*"], 2)
        p = run(exe, ["--replay", os.path.join(tmp, "absent.pcap")], 2)
        if p.stderr.count("absent.pcap") != 1:
            sys.exit(f"FAIL: a missing recording: {p.stderr!r}")
        print("ok   junk, a truncated recording, a missing file, --cases: clear errors")

        # Cut by a snaplen of 128: every WRITE, none replayable, n/a saying so.
        data = open(wr, "rb").read()
        path = os.path.join(tmp, "snap128.pcap")
        ncut = snap(data, path, 128)
        p = run(exe, ["--replay", path], 0)
        if "n/a" not in p.stdout or f"{ncut} of its " not in p.stdout or \
                "cut by the capture's snaplen" not in p.stdout:
            sys.exit(f"FAIL: snaplen 128 ({ncut} frames cut): {p.stdout}")
        # One ACK cut (its ICRC): a frame of the conversation, n/a.
        acks = [i for i, (off, n) in enumerate(records(data))
                if data[off + 23] == 17 and data[off + 42] == 0x11]
        path = os.path.join(tmp, "snap_ack.pcap")
        snap(data, path, 58, lambda i, d, off, n: i == acks[3])
        p = run(exe, ["--replay", path], 0)
        if "n/a" not in p.stdout or "1 frame of the conversation cut by the capture's " \
                "snaplen" not in p.stdout:
            sys.exit(f"FAIL: an ACK cut by the snaplen: {p.stdout}")
        # A cut TCP frame of the exchange: not the conversation, said, replayed.
        tcp = [i for i, (off, n) in enumerate(records(data)) if data[off + 23] == 6 and n > 80]
        path = os.path.join(tmp, "snap_tcp.pcap")
        snap(data, path, 70, lambda i, d, off, n: i == tcp[0])
        p = run(exe, ["--replay", path], 0)
        if "1 frame cut by the capture's snaplen (caplen < len), not replayed" not in p.stdout \
                or "20 of 20 recorded answers alike, 0 differences" not in p.stdout:
            sys.exit(f"FAIL: a TCP frame cut by the snaplen: {p.stdout}")
        print(f"ok   snaplen 128: {ncut} frames cut, n/a, a cut ACK n/a, a cut TCP frame counted")

        # Path MTU 4096: rxe's WRITE FIRST/MIDDLE carry 4096 bytes; a QP
        # of MTU 1024 would NAK them.
        path = mtu4096_acked(os.path.join(pcaps, "roce", "rxe_write_bw_mtu4096_noack.pcap"),
                             os.path.join(tmp, "mtu4096.pcap"))
        p = run(exe, ["--replay", path], 0)
        if "replayed 40 requests of " not in p.stdout or "path MTU 4096, learnt" not in \
                p.stdout or "1 of 1 recorded answers alike, 0 differences" not in p.stdout:
            sys.exit(f"FAIL: rxe's MTU 4096 WRITEs: {p.stdout}")
        if len(sys.argv) > 3 and os.path.exists(sys.argv[3]):
            # READ responses of 4096-byte segments, rdmakit against itself in rk-sim.
            path = os.path.join(tmp, "read4096.pcap")
            subprocess.run([sys.argv[3], "-M", "4096", "-O", "read", "-F", "-m", "16384",
                            "-o", "10", "-w", path], check=True, capture_output=True,
                           timeout=120)
            p = run(exe, ["--replay", path], 0)
            if "40 of 40 recorded answers alike, 0 differences" not in p.stdout or \
                    "path MTU 4096" not in p.stdout:
                sys.exit(f"FAIL: READ responses at MTU 4096: {p.stdout}")
        print("ok   path MTU 4096 recordings: the live QP takes it, every answer alike")


if __name__ == "__main__":
    main()
