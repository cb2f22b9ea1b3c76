#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-gen --replay: a capture replayed is the same frame sequence, after
the maps asked for, with valid ICRCs and checksums, at the timing asked for.

usage: rk_gen_replay_check.py RK_GEN RK_INSPECT PCAPS_DIR [port|no-port]

- every capture under pcaps/roce and pcaps/iwarp replayed to pcap without
  maps: the same bytes, the same relative timestamps;
- with MAC, IP and DestQP maps: the bytes a map names changed and no
  other byte but the IPv4, TCP and UDP checksums and the ICRC; rk-inspect
  finds every ICRC good and the same findings as in the original; tshark
  finds every IP and TCP checksum good;
- --speed 4 divides every gap by 4; --rate 1kpps puts 1 ms between frames;
  --loop 3 sends the capture three times, each loop after the one before;
- a frame with a bad ICRC stays bad after its DestQP is mapped;
- a missing file, a capture that is not Ethernet, one with no frames, one
  cut inside a frame, and bad options: one line (no counts after it) and
  exit 1 or 2;
- on a DPDK port (net_af_packet on a veth pair in namespaces this test
  makes), the frames tcpdump records at the other end are the frames sent.
"""
import glob
import ipaddress
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

GEN, RK, PCAPS = sys.argv[1:4]
PORT = sys.argv[4:5] != ["no-port"]
passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def ko(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def read_pcap(path):
    """[(ts_ns, bytes)] of a pcap file (either timestamp precision)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    nano = struct.unpack(end + "I", data[:4])[0] == 0xa1b23c4d
    out, off = [], 24
    while off + 16 <= len(data):
        sec, sub, caplen, _ = struct.unpack(end + "IIII", data[off:off + 16])
        out.append((sec * 10**9 + sub * (1 if nano else 1000), data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out


def gen(*args):
    return subprocess.run([GEN] + list(args), capture_output=True, text=True, timeout=120)


def inspect(path):
    p = subprocess.run([RK, "-j", path], capture_output=True, text=True, timeout=120)
    d = json.loads(p.stdout)
    return d["findings"], d["totals"]


def offsets(fr):
    """(l3, ip version, l4, proto, bth or None) of an Ethernet frame."""
    l3, et = 14, struct.unpack(">H", fr[12:14])[0]
    while et == 0x8100:
        et, l3 = struct.unpack(">H", fr[l3 + 2:l3 + 4])[0], l3 + 4
    if et == 0x0800:
        l4, proto, ver = l3 + 4 * (fr[l3] & 15), fr[l3 + 9], 4
    elif et == 0x86dd:
        l4, proto, ver = l3 + 40, fr[l3 + 6], 6
    else:
        return l3, 0, None, None, None
    bth = l4 + 8 if proto == 17 and struct.unpack(">H", fr[l4 + 2:l4 + 4])[0] == 4791 else None
    return l3, ver, l4, proto, bth


def apply_maps(fr, macs, ips, qpns):
    """The frame as the maps make it, and the byte ranges left to the
    checksums and the ICRC."""
    b = bytearray(fr)
    for off in (0, 6):
        b[off:off + 6] = macs.get(bytes(b[off:off + 6]), b[off:off + 6])
    l3, ver, l4, proto, bth = offsets(fr)
    skip = []
    if ver:
        n = 4 if ver == 4 else 16
        for off in ((l3 + 12, l3 + 16) if ver == 4 else (l3 + 8, l3 + 24)):
            b[off:off + n] = ips.get(bytes(b[off:off + n]), b[off:off + n])
        if ver == 4:
            skip.append((l3 + 10, l3 + 12))
        skip.append((l4 + 6, l4 + 8) if proto == 17 else (l4 + 16, l4 + 18))
    if bth is not None:
        b[bth + 5:bth + 8] = qpns.get(bytes(b[bth + 5:bth + 8]), b[bth + 5:bth + 8])
        skip.append((len(b) - 4, len(b)))
    return bytes(b), skip


def masked(fr, skip):
    b = bytearray(fr)
    for a, e in skip:
        b[a:e] = b"\0" * (e - a)
    return bytes(b)


def check_identity(caps, tmp):
    bad = []
    for cap in caps:
        out = os.path.join(tmp, "id.pcap")
        p = gen("--replay", cap, "--pcap", out)
        if p.returncode != 0:
            bad.append(f"{os.path.basename(cap)}: exit {p.returncode}: {p.stderr.strip()}")
            continue
        a, b = read_pcap(cap), read_pcap(out)
        if [f for _, f in a] != [f for _, f in b]:
            bad.append(f"{os.path.basename(cap)}: frames differ")
        elif [t - a[0][0] for t, _ in a] != [t for t, _ in b]:
            bad.append(f"{os.path.basename(cap)}: timestamps differ")
    if bad:
        ko("identity replay: " + "; ".join(bad[:4]))
    else:
        ok(f"identity replay: {len(caps)} captures, same bytes and timing")


def map_args(frames):
    """Maps for the first frame's two MACs, two addresses and one DestQP."""
    fr = next(f for _, f in frames if offsets(f)[4] is not None)
    l3, ver, l4, proto, bth = offsets(fr)
    n, a = (4, l3 + 12) if ver == 4 else (16, l3 + 8)
    src, dst = ipaddress.ip_address(fr[a:a + n]), ipaddress.ip_address(fr[a + n:a + 2 * n])
    nsrc = ipaddress.ip_address("198.19.7.1" if ver == 4 else "2001:db8::71")
    ndst = ipaddress.ip_address("198.19.7.2" if ver == 4 else "2001:db8::72")
    qpn = int.from_bytes(fr[bth + 5:bth + 8], "big")
    macs = {fr[0:6]: bytes.fromhex("020000000a01"), fr[6:12]: bytes.fromhex("020000000a02")}
    ips = {src.packed: nsrc.packed, dst.packed: ndst.packed}
    qpns = {fr[bth + 5:bth + 8]: (qpn ^ 0x5a5a5).to_bytes(3, "big")}
    args = []
    for old, new in macs.items():
        args += ["--map-mac", f"{old.hex(':')}={new.hex(':')}"]
    args += ["--map-ip", f"{src}={nsrc}", "--map-ip", f"{dst}={ndst}"]
    args += ["--map-qpn", f"{qpn:#x}={qpn ^ 0x5a5a5:#x}"]
    return args, macs, ips, qpns


def check_maps(caps, tmp):
    for cap in caps:
        name = os.path.basename(cap)
        frames = read_pcap(cap)
        args, macs, ips, qpns = map_args(frames)
        out = os.path.join(tmp, "map.pcap")
        p = gen("--replay", cap, "--pcap", out, *args)
        if p.returncode != 0:
            ko(f"maps {name}: exit {p.returncode}: {p.stderr.strip()}")
            continue
        got = read_pcap(out)
        wrong = 0
        for (_, f), (_, g) in zip(frames, got):
            want, skip = apply_maps(f, macs, ips, qpns)
            wrong += masked(want, skip) != masked(g, skip)
        f0, t0 = inspect(cap)
        f1, t1 = inspect(out)
        ts = subprocess.run(["tshark", "-r", out, "-o", "ip.check_checksum:TRUE", "-o",
                             "tcp.check_checksum:TRUE", "-T", "fields", "-e",
                             "ip.checksum.status", "-e", "tcp.checksum.status"],
                            capture_output=True, text=True, timeout=120).stdout
        bad_csum = sum(1 for line in ts.splitlines() if "0" in line.split("\t"))
        problems = []
        if len(got) != len(frames) or wrong:
            problems.append(f"{wrong} frames not as mapped of {len(frames)} ({len(got)} out)")
        if t1["icrc_good"] != t0["rocev2_frames"] or t1["icrc_bad"]:
            problems.append(f"ICRC good {t1['icrc_good']} bad {t1['icrc_bad']}")
        if f1 != f0:
            problems.append(f"findings {f1}, original {f0}")
        if bad_csum:
            problems.append(f"{bad_csum} frames with a bad IP or TCP checksum (tshark)")
        if problems:
            ko(f"maps {name}: " + "; ".join(problems))
        else:
            ok(f"maps {name}: {len(got)} frames as mapped, {t1['icrc_good']} ICRCs good")


def check_timing(cap, tmp):
    frames = read_pcap(cap)
    base = [t - frames[0][0] for t, _ in frames]
    out = os.path.join(tmp, "t.pcap")
    gen("--replay", cap, "--pcap", out, "--speed", "4")
    got = [t for t, _ in read_pcap(out)]
    if len(got) == len(base) and all(abs(g - b / 4) <= 1 for g, b in zip(got, base)):
        ok(f"--speed 4: {len(got)} frames at a quarter of the capture's gaps")
    else:
        ko(f"--speed 4: {got[:4]} for {base[:4]}")
    gen("--replay", cap, "--pcap", out, "--rate", "1kpps")
    got = [t for t, _ in read_pcap(out)]
    if got == [i * 1000000 for i in range(len(frames))]:
        ok("--rate 1kpps: 1 ms between frames")
    else:
        ko(f"--rate 1kpps: {got[:4]}")
    gen("--replay", cap, "--pcap", out, "--loop", "3")
    got = read_pcap(out)
    n = len(frames)
    if (len(got) == 3 * n and [f for _, f in got] == [f for _, f in frames] * 3 and
            all(got[i][0] < got[i + 1][0] for i in range(n - 1, 3 * n - 1, n)) and
            [t - got[n][0] for t, _ in got[n:2 * n]] == base):
        ok(f"--loop 3: {len(got)} frames, each loop after the one before, same gaps")
    else:
        ko(f"--loop 3: {len(got)} frames for {n}")


def check_bad_icrc(tmp):
    src = os.path.join(tmp, "bad.pcap")
    out = os.path.join(tmp, "bad2.pcap")
    gen("--op", "WRITE_ONLY", "--count", "5", "--icrc", "bad", "--set", "bth.dest_qp=0x17",
        "--pcap", src)
    p = gen("--replay", src, "--pcap", out, "--map-qpn", "0x17=0x18")
    _, t = inspect(out)
    qpns = {offsets(f)[4] and f[offsets(f)[4] + 7] for _, f in read_pcap(out)}
    if t["icrc_bad"] == 5 and qpns == {0x18} and "5 left bad" in p.stderr:
        ok("a bad ICRC stays bad after its DestQP is mapped")
    else:
        ko(f"bad ICRC: {t['icrc_bad']} bad, DestQPs {qpns}, '{p.stderr.strip()}'")
    # a map whose OLD is in no frame (a typo) is said, the others not
    p = gen("--replay", src, "--pcap", out, "--map-qpn", "0x17=0x18", "--map-qpn", "0x99=0x18")
    said = [x for x in p.stderr.splitlines() if "changed nothing" in x]
    if said == [f"rk-gen: --map-qpn 0x99=0x18: no frame of {src} holds its OLD value "
                "(it changed nothing)"]:
        ok("a map that matches no frame is said")
    else:
        ko(f"a map that matches no frame: '{p.stderr.strip()}'")


def check_errors(cap, tmp):
    raw = os.path.join(tmp, "raw.pcap")
    with open(raw, "wb") as f:  # LINKTYPE_RAW, one IPv4 header
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
        f.write(struct.pack("<IIII", 0, 0, 20, 20) + bytes([0x45]) + bytes(19))
    empty = os.path.join(tmp, "empty.pcap")
    with open(empty, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    cut = os.path.join(tmp, "cut.pcap")
    with open(cap, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) - 30])
    out = os.path.join(tmp, "e.pcap")
    cases = [
        ("missing file", ["--replay", os.path.join(tmp, "nope.pcap")], 1, "nope.pcap"),
        ("not Ethernet", ["--replay", raw], 1, "Ethernet captures only"),
        ("no frames", ["--replay", empty], 1, "no frames"),
        ("cut inside a frame", ["--replay", cut], 1, "truncated"),
        ("bad map", ["--replay", cap, "--map-ip", "198.18.0.1=2001:db8::1"], 2, "--map-ip"),
        ("bad QPN", ["--replay", cap, "--map-qpn", "0x1000000=1"], 2, "--map-qpn"),
        ("one OLD twice", ["--replay", cap, "--map-qpn", "0x15=0x16", "--map-qpn", "0x15=0x17"],
         2, "maps the same OLD value already"),
        ("speed and rate", ["--replay", cap, "--speed", "2", "--rate", "1kpps"], 2,
         "exclude each other"),
        ("replay and op", ["--replay", cap, "--op", "SEND_ONLY"], 2, "--replay excludes"),
        ("speed without replay", ["--op", "SEND_ONLY", "--speed", "2"], 2,
         "go with --replay"),
        ("bad speed", ["--replay", cap, "--speed", "0"], 2, "--speed"),
    ]
    # one line: no frame counts or replay summary after the error, the file named once
    for name, args, want, text in cases:
        p = gen(*args, "--pcap", out)
        lines = p.stderr.splitlines()
        if (p.returncode == want and text in p.stderr and len(lines) == 1
                and p.stderr.count(args[1]) <= 1):
            ok(f"{name}: exit {want}, '{lines[0]}'")
        else:
            ko(f"{name}: exit {p.returncode} (want {want}), '{p.stderr.strip()}'")
    if not PORT:
        return
    # on a port too: the cut capture's frames sent, then its error alone
    eal = "--no-huge -m 256 --no-shconf --no-pci --log-level=*:error -l 0 --vdev=net_null0"
    for json_out in ([], ["--json"]):
        p = subprocess.run([GEN] + eal.split() + ["--", "--replay", cut, "--port", "net_null0"]
                           + json_out, capture_output=True, text=True, timeout=120)
        lines = p.stderr.splitlines()
        if p.returncode == 1 and len(lines) == 1 and "truncated" in lines[0] and not p.stdout:
            ok(f"cut inside a frame, on a port{' with --json' if json_out else ''}: exit 1, "
               "one line, no report")
        else:
            ko(f"cut, on a port {json_out}: exit {p.returncode}, '{p.stderr.strip()}', "
               f"stdout '{p.stdout.strip()[:200]}'")


def check_port(cap, tmp):
    """Replayed on net_af_packet, recorded by tcpdump at the veth's other end."""
    if not PORT:
        print("skip port: rk-gen was built without DPDK")
        return
    if os.geteuid() != 0 or shutil.which("tcpdump") is None:
        print("skip port: needs root and tcpdump")
        return
    ns = f"rkrp{os.getpid()}"
    helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers",
                          "veth-pair.sh")
    up = subprocess.run(["bash", "-c", f'. "{helper}"; veth_pair_up {ns}'],
                        capture_output=True, text=True)
    try:
        if up.returncode != 0:
            print(f"skip port: {up.stdout.strip() or up.stderr.strip()}")
            return
        frames = read_pcap(cap)
        args = map_args(frames)[0]
        rec = os.path.join(tmp, "other-end.pcap")
        td = subprocess.Popen(["ip", "netns", "exec", ns + "b", "tcpdump", "-i", "rkvb", "-U", "--immediate-mode", "-B", "16384",
                               "-w", rec, "-s", "0"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        line = td.stderr.readline()  # "listening on rkvb ..."
        mem = "--no-huge -m 512 --no-shconf"
        eal = f"{mem} --no-pci --log-level=*:warning -l 0 --vdev=net_af_packet0,iface=rkva"
        p = subprocess.run(["ip", "netns", "exec", ns + "a", GEN] + eal.split() +
                           ["--", "--replay", cap, "--rate", "20kpps", "--port",
                            "net_af_packet0"] + args, capture_output=True, text=True,
                           timeout=120)
        # until the recording stops growing
        size, still = -1, 0
        while still < 5:
            time.sleep(0.1)
            now = os.path.getsize(rec) if os.path.exists(rec) else 0
            still, size = (still + 1, size) if now == size else (0, now)
        td.terminate()
        td_stats = " ".join(td.communicate(timeout=10)[1].split())
        if p.returncode != 0:
            ko(f"port: rk-gen exit {p.returncode}: {p.stderr.strip()[-300:]} ({line.strip()})")
            return
        got = [f for _, f in read_pcap(rec)]
        ref = os.path.join(tmp, "ref.pcap")
        gen("--replay", cap, "--pcap", ref, *args)
        ref_frames = [f for _, f in read_pcap(ref)]
        _, t = inspect(rec)
        if got == ref_frames and len(got) == len(frames) and t["icrc_bad"] == 0:
            ok(f"port: {len(got)} frames recorded at the other end, the same as sent, "
               f"{t['icrc_good']} ICRCs good")
        else:
            ko(f"port: {len(got)} frames recorded, {len(ref_frames)} sent ({p.stderr.strip()}); "
               f"missing: {[i for i, f in enumerate(ref_frames) if f not in got][:8]}; "
               f"tcpdump: {td_stats}")
    finally:
        subprocess.run(["ip", "netns", "del", ns + "a"], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns + "b"], capture_output=True)


def main():
    caps = sorted(glob.glob(os.path.join(PCAPS, "roce", "*.pcap")) +
                  glob.glob(os.path.join(PCAPS, "iwarp", "*.pcap")))
    roce = sorted(glob.glob(os.path.join(PCAPS, "roce", "*.pcap")))
    with tempfile.TemporaryDirectory(prefix="rk-replay-") as tmp:
        check_identity(caps, tmp)
        check_maps(roce, tmp)
        check_timing(os.path.join(PCAPS, "roce", "rxe_rc_pingpong.pcap"), tmp)
        check_bad_icrc(tmp)
        check_errors(os.path.join(PCAPS, "roce", "rxe_rc_pingpong.pcap"), tmp)
        check_port(os.path.join(PCAPS, "roce", "rxe_write_bw.pcap"), tmp)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
