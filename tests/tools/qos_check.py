#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rk-inspect's QoS and congestion view over a capture rk-gen writes.

usage: qos_check.py RK_GEN RK_INSPECT STREAM_FILE REACTION_FILE

STREAM_FILE (tests/tools/qos/ce-cnp-pfc.yaml) holds, at known times:
100 RDMA WRITEs 198.18.0.1 > 198.18.0.2 every 10 us on VLAN 10 PCP 3,
DSCP 26, ECT(0), CE-marked at 30, 620 and 630 us; 3 CNPs back at 0, 500
and 1000 us on PCP 6, DSCP 48; 2 ACKs back on PCP 3, DSCP 26; 20 PFC
frames 10 ms apart pausing priority 3 for 65535 quanta.

Checked, exactly: the per-packet marks (line and JSON), the per-flow
marks, the per-class table, the CE-to-CNP delays (470 and 380 us: p50 380,
max 470, one CNP with no CE pending), pause time at 100 Gb/s (20 runs of
335.539 us, no storm) and at 1 Gb/s (one run of 190 ms + 33.55392 ms: a
storm past 100 ms, none past 300 ms), the text summary's lines, and the
option errors.

REACTION_FILE (tests/tools/qos/reaction.yaml): a sender slowing down after
a CNP: its rate before the first CNP and after it, to the bit per second.
"""
import json
import os
import subprocess
import sys
import tempfile

from check_util import check, failures, finish



def run(args, code=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != code:
        failures.append(f"{' '.join(args)}: exit {p.returncode}, want {code}: {p.stderr}")
    return p


def main():
    rk_gen, rk, streams, reaction = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "qos.pcap")
        run([rk_gen, "--stream", streams, "--pcap", cap])

        # Per packet: the line and the JSON object.
        lines = run([rk, cap]).stdout.splitlines()
        ce = [l for l in lines if "ECN=CE" in l]
        check("CE lines", len(ce), 3)
        check("CE line marks", " VLAN=10 PCP=3 DSCP=26 ECN=CE " in ce[0], True)
        cnp = [l for l in lines if " CNP " in l]
        check("CNP lines", len(cnp), 3)
        check("CNP line marks", " VLAN=10 PCP=6 DSCP=48 len=" in cnp[0], True)
        pkts = [json.loads(l) for l in run([rk, "-p", cap]).stdout.splitlines()]
        marks = {(p["vlan"]["pcp"], p["dscp"], p["ecn"]) for p in pkts}
        check("packet marks", marks, {(3, 26, 2), (3, 26, 3), (6, 48, 0), (3, 26, 0)})
        check("packet vid", {p["vlan"]["vid"] for p in pkts}, {10})

        doc = json.loads(run([rk, "-j", cap]).stdout)
        q = doc["qos"]
        check("link rate", q["link_rate_bps"], 100 * 10**9)
        check("storm threshold", q["storm_threshold_ns"], 100 * 10**6)
        check("ecn", q["ecn"], {"not_ect": 5, "ect1": 0, "ect0": 97, "ce": 3})
        check("cnps", q["cnps"], 3)
        check("tagged", q["tagged"], 105)
        check("pcp rows", [(r["pcp"], r["data"], r["acks"], r["cnps"], r["ect"], r["ce"])
                           for r in q["pcp"]], [(3, 100, 2, 0, 97, 3), (6, 0, 0, 3, 0, 0)])
        check("dscp rows", [(r["dscp"], r["data"], r["acks"], r["cnps"], r["ce"])
                            for r in q["dscp"]], [(26, 100, 2, 0, 3), (48, 0, 0, 3, 0)])
        check("congestion pairs", len(q["congestion"]), 1)
        c = q["congestion"][0]
        check("pair", (c["src"], c["dst"]), ("198.18.0.1", "198.18.0.2"))
        check("pair counts", (c["packets"], c["ect"], c["ce"], c["cnps"],
                              c["cnps_unprompted"], c["ce_unanswered"]),
              (100, 97, 3, 3, 1, False))
        check("ce_to_cnp", (c["ce_to_cnp_count"], c["ce_to_cnp_p50_ns"],
                            c["ce_to_cnp_max_ns"]), (2, 380000, 470000))
        # The first CNP came with the first packet: no window before it.
        check("rates", (c["rate_before_cnp_bps"], c["rate_after_cnp_bps"]), (None, None))
        check("pause rows", len(q["pause"]), 1)
        p = q["pause"][0]
        check("pause 100G", (p["priority"], p["frames"], p["resume_frames"], p["quanta"],
                             p["quanta_ns"], p["paused_ns"], p["longest_ns"], p["storms"],
                             p["first_storm_ns"]),
              (3, 20, 0, 20 * 65535, 6710784, 20 * 335539, 335539, 0, None))
        ll = q["lossless"]
        check("lossless", (ll["data_pcp"], ll["ack_pcp"], ll["cnp_pcp"], ll["paused_pcp"],
                           ll["notes"]), ([3], [3], [6], [3], []))
        flows = {f["dest_qp"]: f["qos"] for f in doc["qps"]}
        check("flow 0x101 qos", flows[0x101], {
            "vlan": {"vid": 10, "pcp": 3}, "dscp": 26,
            "ecn": {"not_ect": 0, "ect1": 0, "ect0": 97, "ce": 3}, "class_changes": 0,
            "ce_to_cnp_count": 2, "ce_to_cnp_p50_ns": 380000, "ce_to_cnp_max_ns": 470000,
            "cnps_paired": 2, "cnps_paired_unprompted": 0, "cnps_unpaired": 0})
        # The CNP at 0 came before the ACK that ties QP 0x201 to 0x101.
        check("flow 0x201", (flows[0x201]["class_changes"], flows[0x201]["cnps_unpaired"],
                             flows[0x201]["ce_to_cnp_count"]), (2, 1, 0))

        # At 1 Gb/s each frame asks 33.55392 ms: one run from 0 to
        # 190 ms + 33.55392 ms, a storm past 100 ms.
        doc = json.loads(run([rk, "-j", "--link-rate", "1", cap]).stdout)
        p = doc["qos"]["pause"][0]
        check("pause 1G", (p["quanta_ns"], p["paused_ns"], p["longest_ns"], p["storms"],
                           p["first_storm_ns"]),
              (671078400, 223553920, 223553920, 1, 0))
        check("storm note", doc["qos"]["lossless"]["notes"],
              ["PFC storm on PCP 3: 1 run paused longer than 100 ms"])
        doc = json.loads(run([rk, "-j", "--link-rate", "1", "--storm-ms", "300",
                              cap]).stdout)
        check("no storm past 300 ms", doc["qos"]["pause"][0]["storms"], 0)

        text = run([rk, "-s", "--link-rate", "1", cap]).stdout
        for want in [
            "QoS (link 1 Gb/s, storm threshold 100 ms):",
            "  ECN: Not-ECT 5, ECT(0) 97, ECT(1) 0, CE 3; CNPs 3",
            "  PCP 3           100        2      0       97      3       20 223553.920 us",
            "  DSCP 48           0        0      3        0      0",
            "  PFC PCP 3: 20 frames (0 resume), 1310700 quanta = 671078.400 us, paused "
            "223553.920 us, longest 223553.920 us, STORMS 1 (first at 0.000000000)",
            "  198.18.0.1 > 198.18.0.2: 100 packets, ECT 97, CE 3; CNPs back 3 (1 with no "
            "CE pending); CE to CNP 2x: p50 380.000 us, max 470.000 us",
            "  lossless: data on PCP 3; ACK/NAK on PCP 3; CNPs on PCP 6; PFC pauses on PCP 3",
            "  note: PFC storm on PCP 3: 1 run paused longer than 100 ms",
            "    QoS: VLAN 10 PCP 3 DSCP 26; ECT(0) 97, CE 3; CE to CNP 2x: p50 380.000 us, "
            "max 470.000 us",
            "    QoS: VLAN 10 PCP 6 DSCP 48 (2 packets in another class); 1 CNP before its "
            "QP was tied to a data flow",
        ]:
            check(f"summary line {want!r}", want in text.splitlines(), True)

        cap = os.path.join(tmp, "reaction.pcap")
        run([rk_gen, "--stream", reaction, "--pcap", cap])
        q = json.loads(run([rk, "-j", cap]).stdout)["qos"]
        pairs = {(c["src"], c["dst"]): c for c in q["congestion"]}
        c = pairs[("198.18.0.1", "198.18.0.2")]
        check("reaction counts", (c["packets"], c["ce"], c["cnps"], c["ce_to_cnp_p50_ns"]),
              (90, 50, 1, 500000))
        check("reaction rates", (c["rate_before_cnp_bps"], c["rate_after_cnp_bps"]),
              (61 * 1098 * 8 * 10**9 // 500000, 29 * 1098 * 8 * 10**9 // 1450000))
        c = pairs[("198.18.0.9", "198.18.0.2")]
        check("CNP to a host that sent nothing", (c["packets"], c["cnps_unprompted"]), (0, 1))
        text = run([rk, "-s", cap]).stdout.splitlines()
        check("reaction line",
              "    sender rate 1.071 Gb/s before the first CNP, 0.175 Gb/s after" in text, True)

        for bad in (["--link-rate", "0"], ["--link-rate", "x"], ["--storm-ms", "0"]):
            p = run([rk, "-s"] + bad + [cap], code=2)
            check(f"{bad} message", "rk-inspect: --" in p.stderr, True)

    return finish()


if __name__ == "__main__":
    sys.exit(main())
