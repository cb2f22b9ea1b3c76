#!/usr/bin/env bash
# record-captures.sh OUTDIR [NAME...]
#
# Re-records the reference captures of pcaps/roce and pcaps/iwarp with the
# rdma-peer lab (two QEMU guests running Debian's kernel with rdma_rxe and
# siw, inside netns "rdmalab"; see doc/interop.md).  Guest1
# (198.18.0.11, 2001:2::11) is always the server, guest2 (198.18.0.12,
# 2001:2::12) the client.  One pcap per test goes to OUTDIR/<name>.pcap, the
# commands and their output to OUTDIR/logs/<name>.log.  With NAME arguments
# only those tests run.  Needs root.  The lab is left down at the end.
#
# This is the lab's capture-suite with smaller perftest messages (-s 16384 /
# -s 4096, to keep each capture well under 1 MiB) plus the extra tests
# (ib_send_bw, siw read/send, siw-crc perftest, IPv6, MTU 4096).
# Copy the results into pcaps/roce (rxe_*) and pcaps/iwarp (siw*_*).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
P=${RDMA_PEER:?set RDMA_PEER to the rdma-peer lab script (doc/interop.md)}
OUT=${1:?usage: record-captures.sh OUTDIR [NAME...]}; shift
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
ONLY=" $* "
S=198.18.0.11
S6=2001:2::11
T=${SUITE_TIMEOUT:-300}         # per command, seconds (TCG is slow)

want() { [[ $ONLY == "  " || $ONLY == *" $1 "* ]]; }
any() { local n; for n; do want "$n" && return 0; done; return 1; }

# pair NAME SERVER_CMD CLIENT_CMD: capture a server/client run.
pair() {
    local name=$1 srv=$2 cli=$3 rc=0 spid
    want "$name" || return 0
    echo "== $name"
    {
        echo "# guest1 (server): $srv"
        echo "# guest2 (client): $cli"
    } > "$OUT/logs/$name.log"
    "$P" capture start "$OUT/$name.pcap"
    "$P" exec -t "$T" 1 "$srv" > "$OUT/logs/$name.server.out" 2>&1 &
    spid=$!
    sleep "${SUITE_SERVER_DELAY:-3}"
    "$P" exec -t "$T" 2 "$cli" > "$OUT/logs/$name.client.out" 2>&1 || rc=$?
    wait "$spid" || rc=$((rc ? rc : $?))
    sleep 1
    "$P" capture stop
    {
        echo "## server output"; cat "$OUT/logs/$name.server.out"
        echo "## client output"; cat "$OUT/logs/$name.client.out"
        echo "## exit status: $rc"
    } >> "$OUT/logs/$name.log"
    rm -f "$OUT/logs/$name.server.out" "$OUT/logs/$name.client.out"
    echo "   exit $rc, $(stat -c %s "$OUT/$name.pcap") bytes"
}

"$P" down >/dev/null 2>&1 || true
"$P" up --guests 2 --rdma rxe
"$P" exec 1 'uname -r; cat /etc/rdma-peer/manifest' > "$OUT/logs/guest-manifest.txt" 2>&1 || true

# ---- Soft-RoCE (rdma_rxe), RoCEv2 over UDP 4791; GID index 1 = ::ffff:IPv4
"$P" link all rxe >/dev/null
pair rxe_rc_pingpong      "ibv_rc_pingpong -d rxe0 -g 1 -n 5" \
                          "ibv_rc_pingpong -d rxe0 -g 1 -n 5 $S"
pair rxe_rc_pingpong_s64  "ibv_rc_pingpong -d rxe0 -g 1 -n 5 -s 64" \
                          "ibv_rc_pingpong -d rxe0 -g 1 -n 5 -s 64 $S"
pair rxe_ud_pingpong      "ibv_ud_pingpong -d rxe0 -g 1 -n 5 -s 512" \
                          "ibv_ud_pingpong -d rxe0 -g 1 -n 5 -s 512 $S"
pair rxe_write_bw         "ib_write_bw -d rxe0 -x 1 -F -n 20 -s 16384" \
                          "ib_write_bw -d rxe0 -x 1 -F -n 20 -s 16384 $S"
pair rxe_read_bw          "ib_read_bw -d rxe0 -x 1 -F -n 20 -s 16384" \
                          "ib_read_bw -d rxe0 -x 1 -F -n 20 -s 16384 $S"
pair rxe_send_bw          "ib_send_bw -d rxe0 -x 1 -F -n 20 -s 16384" \
                          "ib_send_bw -d rxe0 -x 1 -F -n 20 -s 16384 $S"
pair rxe_send_lat         "ib_send_lat -d rxe0 -x 1 -F -n 20" \
                          "ib_send_lat -d rxe0 -x 1 -F -n 20 $S"
pair rxe_atomic_bw        "ib_atomic_bw -d rxe0 -x 1 -F -n 20" \
                          "ib_atomic_bw -d rxe0 -x 1 -F -n 20 $S"
pair rxe_rping            "rping -s -a $S -v -C 5" \
                          "rping -c -a $S -v -C 5"
pair rxe_write_bw_rdmacm  "ib_write_bw -d rxe0 -R -F -n 20 -s 16384" \
                          "ib_write_bw -d rxe0 -R -F -n 20 -s 16384 $S"

# ---- retransmission: drop 5% of the IPv4 frames sent by guest2 (the writer)
if want rxe_write_bw_loss5; then
    "$P" loss 5 2
    pair rxe_write_bw_loss5 "ib_write_bw -d rxe0 -x 1 -F -n 20 -s 4096" \
                            "ib_write_bw -d rxe0 -x 1 -F -n 20 -s 4096 $S"
    "$P" ns nft list table bridge rdma_peer_loss >> "$OUT/logs/rxe_write_bw_loss5.log" 2>&1 || true
    "$P" loss off
fi

# ---- soft-iWARP (siw), RDMAP/DDP/MPA over TCP
"$P" link all siw >/dev/null
pair siw_rping            "rping -s -a $S -v -C 5" \
                          "rping -c -a $S -v -C 5"
pair siw_write_bw_rdmacm  "ib_write_bw -d siw0 -R -F -n 20 -s 16384" \
                          "ib_write_bw -d siw0 -R -F -n 20 -s 16384 $S"
pair siw_read_bw_rdmacm   "ib_read_bw -d siw0 -R -F -n 20 -s 16384" \
                          "ib_read_bw -d siw0 -R -F -n 20 -s 16384 $S"
pair siw_send_bw_rdmacm   "ib_send_bw -d siw0 -R -F -n 20 -s 16384" \
                          "ib_send_bw -d siw0 -R -F -n 20 -s 16384 $S"
if want siw_write_bw_loss5; then
    "$P" loss 5 2
    pair siw_write_bw_loss5 "ib_write_bw -d siw0 -R -F -n 25 -s 16384" \
                            "ib_write_bw -d siw0 -R -F -n 25 -s 16384 $S"
    "$P" ns nft list table bridge rdma_peer_loss >> "$OUT/logs/siw_write_bw_loss5.log" 2>&1 || true
    "$P" loss off
fi

# ---- soft-iWARP built with mpa_crc_required = true (MPA CRC32c on every FPDU)
"$P" link all siw-crc >/dev/null
pair siwcrc_rping           "rping -s -a $S -v -C 5" \
                            "rping -c -a $S -v -C 5"
pair siwcrc_write_bw_rdmacm "ib_write_bw -d siw0 -R -F -n 20 -s 16384" \
                            "ib_write_bw -d siw0 -R -F -n 20 -s 16384 $S"
pair siwcrc_read_bw_rdmacm  "ib_read_bw -d siw0 -R -F -n 20 -s 16384" \
                            "ib_read_bw -d siw0 -R -F -n 20 -s 16384 $S"
pair siwcrc_send_bw_rdmacm  "ib_send_bw -d siw0 -R -F -n 20 -s 16384" \
                            "ib_send_bw -d siw0 -R -F -n 20 -s 16384 $S"

# ---- IPv6: guest-init disables IPv6; re-enable it on eth0 and add
# 2001:2::1N/64 (RFC 5180 benchmarking range).  rxe then adds an IPv6 GID.
# ibv_rc_pingpong and perftest (without -R) exchange QP data over a TCP socket
# whose server listens on IPv4 only, so their client still connects to $S.
if any rxe_rc_pingpong_ipv6 rxe_write_bw_ipv6 rxe_rping_ipv6 siw_rping_ipv6; then
    "$P" link all rxe >/dev/null
    for g in 1 2; do
        "$P" exec "$g" "sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0 && ip -6 addr replace 2001:2::1$g/64 dev eth0 nodad && sleep 2" >/dev/null
    done
    "$P" link all rxe >/dev/null
    GIDX=$("$P" exec 1 'cd /sys/class/infiniband/rxe0/ports/1/gids && for f in *; do echo "$f $(cat $f)"; done' \
           | awk '$2 ~ /^2001:0002/ && !n++ {print $1}')
    [[ -n $GIDX ]] || { echo "no IPv6 GID on guest1" >&2; exit 1; }
    echo "IPv6 GID index: $GIDX"
    pair rxe_rc_pingpong_ipv6 "ibv_rc_pingpong -d rxe0 -g $GIDX -n 5 -s 1024" \
                              "ibv_rc_pingpong -d rxe0 -g $GIDX -n 5 -s 1024 $S"
    pair rxe_write_bw_ipv6    "ib_write_bw -d rxe0 -x $GIDX -F -n 10 -s 4096" \
                              "ib_write_bw -d rxe0 -x $GIDX -F -n 10 -s 4096 $S"
    pair rxe_rping_ipv6       "rping -s -a $S6 -v -C 5" \
                              "rping -c -a $S6 -v -C 5"
    "$P" link all siw >/dev/null
    pair siw_rping_ipv6       "rping -s -a $S6 -v -C 5" \
                              "rping -c -a $S6 -v -C 5"
fi

# ---- rxe at MTU 9000 (rxe active MTU 4096).  The guests drop received
# frames longer than 1518 bytes (virtio-net without mergeable rx buffers and
# without TSO/host_mtu), so the responder never sees the 4 KiB packets and
# the requester retransmits until the timeout: only the first 102 frames
# (QP exchange, first transmission, one retransmission round) are kept.
if want rxe_write_bw_mtu4096_noack; then
    "$P" down
    "$P" up --guests 2 --rdma rxe --mtu 9000
    "$P" link all rxe >/dev/null
    T=30 pair rxe_write_bw_mtu4096_noack "ib_write_bw -d rxe0 -x 1 -F -n 10 -s 16384" \
                                         "ib_write_bw -d rxe0 -x 1 -F -n 10 -s 16384 $S"
    mv "$OUT/rxe_write_bw_mtu4096_noack.pcap" "$OUT/rxe_write_bw_mtu4096_full.pcap"
    editcap -F pcap -r "$OUT/rxe_write_bw_mtu4096_full.pcap" "$OUT/rxe_write_bw_mtu4096_noack.pcap" 1-102
    rm -f "$OUT/rxe_write_bw_mtu4096_full.pcap"
fi
"$P" down
echo "done: $OUT"
