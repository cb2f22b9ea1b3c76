/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_probe_mpa.h
 * A hand-driven MPA peer on a byte stream (after TCP): it builds the MPA
 * Request (RFC 5044 7.1), frames ULPDUs into FPDUs with the negotiated
 * CRC and markers (RFC 5044 4), and reads the DUT's bytes back: the MPA
 * Reply first, then FPDUs deframed, decoded (RFC 5041, RFC 5040) and
 * classified with rk_probe_iw_answer(). It moves no bytes itself: the
 * caller writes what it returns to the stream and feeds what it reads,
 * so the same peer serves an in-memory pipe and a live TCP connection.
 * lib/common and lib/wire only.
 */
#ifndef RK_PROBE_MPA_H
#define RK_PROBE_MPA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_mpa.h"
#include "rk_probe.h"
#include "rk_rdmap.h"

/** One unit the peer received from the DUT, decoded. */
struct rk_probe_iw_msg {
	uint8_t opcode, t, l;           /**< RDMAP opcode, DDP T and L flags */
	uint32_t stag, qn, msn, mo, inval;
	uint64_t to;
	uint32_t payload_len;
	uint8_t payload[4096];          /**< first 4096 bytes of the payload */
	struct rk_rdmap_read_req_fields rr;
	struct rk_rdmap_term_fields term;       /**< Terminate: layer, EType, code */
	uint16_t term_seg_len;
	uint8_t term_ddp[RK_DDP_UNTAGGED_LEN];  /**< DDP header the Terminate quotes */
	uint8_t term_rdmap[RK_RDMAP_READ_REQ_LEN];
	uint64_t immdt;
	struct rk_rdmap_atomic_resp_fields aresp;
	bool crc_ok, markers_ok;        /**< the FPDU's CRC and markers were right */
	struct rk_probe_answer ans;     /**< classified */
};

#define RK_PROBE_MPA_MSGS_MAX 256

/** The peer's state; rk_probe_mpa_init() fills it. */
struct rk_probe_mpa_peer {
	bool crc;                       /**< FPDUs carry a CRC (negotiated) */
	bool markers_to_dut;            /**< the DUT asked for markers (Reply M) */
	bool markers_from_dut;          /**< we asked for markers (Request M) */
	uint32_t seq, seq0;             /**< our stream: next byte, first FPDU byte */
	uint32_t rseq, risn;            /**< the DUT's stream: next byte, its first byte */
	struct rk_mpa_stream *ds;       /**< deframes the DUT's FPDUs */
	struct rk_mpa_rr reply;         /**< the DUT's Reply, once got_reply */
	uint8_t reply_buf[RK_MPA_RR_HDR_LEN + RK_MPA_PD_MAX];
	size_t reply_have;
	bool got_reply;
	struct rk_probe_iw_msg msgs[RK_PROBE_MPA_MSGS_MAX];
	unsigned int nmsgs;             /**< units received (at most MSGS_MAX kept) */
	uint32_t msn[5];                /**< next MSN we send per untagged queue */
};

/**
 * The usual MPA Request of a tester: Rev 2 with the enhanced mode's
 * IRD/ORD (RFC 6581, IRD = ORD = 4), CRC asked for, no markers
 * (RFC 5044 7.1). Cases change what they test from here.
 */
void rk_probe_mpa_default_req(struct rk_mpa_rr *req);

/**
 * Start a peer and build its MPA Request from @p req (key, revision, M,
 * C, private data: RFC 5044 7.1) into @p out (@p cap bytes). @p isn and
 * @p dut_isn are the sequence numbers of the first byte each side sends
 * (the Request's, the Reply's): markers sit at offsets from them.
 * @return the Request's length, or -EINVAL / -ENOSPC / -ENOMEM.
 */
int rk_probe_mpa_init(struct rk_probe_mpa_peer *p, const struct rk_mpa_rr *req, uint32_t isn,
		      uint32_t dut_isn, uint8_t *out, size_t cap);

/**
 * Frame @p ulpdu (@p len bytes) as one FPDU (RFC 5044 4: length, markers
 * every 512 bytes of stream when the DUT asked, pad, CRC32c when
 * negotiated) into @p out; @p bad_crc flips a bit of the CRC.
 * @return the FPDU's length (the stream advanced by it), or -EINVAL/-ENOSPC.
 */
int rk_probe_mpa_fpdu(struct rk_probe_mpa_peer *p, const uint8_t *ulpdu, uint16_t len,
		      bool bad_crc, uint8_t *out, size_t cap);

/** Count @p n raw bytes written to the stream outside rk_probe_mpa_fpdu(). */
void rk_probe_mpa_sent(struct rk_probe_mpa_peer *p, size_t n);

/**
 * Feed @p n bytes the DUT sent, in order, in pieces of any size: the MPA
 * Reply, then FPDUs decoded into p->msgs.
 * @return 0, or -EPROTO when the bytes before the Reply are no MPA Reply.
 */
int rk_probe_mpa_feed(struct rk_probe_mpa_peer *p, const uint8_t *b, size_t n);

/** Free the peer's deframer. */
void rk_probe_mpa_fini(struct rk_probe_mpa_peer *p);

#endif /* RK_PROBE_MPA_H */
