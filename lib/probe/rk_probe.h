/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_probe.h
 * Hostile-peer probes: frames crafted toward a QP under test by intent
 * (opcode, PSN offset from the PSN it expects, R_Key, VA, DMALen, payload,
 * PadCnt), and the answers classified (ACK, NAK and its code, RNR NAK,
 * READ response, atomic ACK; for iWARP the Terminate's layer, EType and
 * error code, RFC 5040 7.4.1). The QP under test may be rdmakit's own
 * engine (the tests of lib/ib and lib/iwarp) or a live peer reached
 * through any struct rk_io_ops (lib/common/rk_io.h): a conformance tester
 * sends with rk_probe_send() and reads with rk_probe_collect().
 *
 * Crafting and classifying use lib/wire and lib/common only; the engines
 * are never needed to build or read a frame.
 */
#ifndef RK_PROBE_H
#define RK_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_build.h"
#include "rk_io.h"
#include "rk_rdmap.h"

/** The QP under test, as a RoCEv2 peer addresses it. */
struct rk_probe_target {
	uint8_t src_mac[6], dst_mac[6];   /**< ours, the target's */
	uint8_t ip_version;               /**< 4 or 6; 0 means 4 */
	uint8_t src_ip[16], dst_ip[16];   /**< IPv4: last 4 bytes (rk_roce_addr form) */
	uint16_t src_port;                /**< UDP source port; 0 means 0xC000 */
	uint32_t dest_qp;                 /**< the target's QP number */
	uint16_t p_key;                   /**< 0 means 0xFFFF (default partition) */
	uint32_t epsn;                    /**< the PSN the target expects next */
};

/** What to send: one packet, described by what it means. */
struct rk_probe_intent {
	uint8_t opcode;                   /**< IBTA Vol1 9.2 opcode (rk_opcode.h) */
	int32_t psn_off;                  /**< PSN = target epsn + psn_off (mod 2^24) */
	bool ack_req;
	const struct rk_xeth_fields *x;   /**< extended headers (RETH, AtomicETH, ...), or NULL */
	const void *payload;
	uint32_t len;                     /**< payload bytes */
	int pad_cnt;                      /**< -1: what len needs; 0..3: BTH.PadCnt forced */
};

/**
 * Build the frame of @p in toward @p t into @p buf (@p cap bytes):
 * Ethernet, IPv4/IPv6, UDP 4791, BTH, the extended headers, payload, pad
 * and a correct ICRC (IBTA Annex A17 A17.4), even when PadCnt lies.
 * @return the frame length, or -EINVAL (bad intent) / -ENOSPC.
 */
int rk_probe_craft(const struct rk_probe_target *t, const struct rk_probe_intent *in,
		   uint8_t *buf, uint32_t cap);

/**
 * Rewrite BTH.PadCnt (IBTA Vol1 9.2, 2 bits) of RoCEv2 frame @p frame to
 * @p pad and fix its ICRC, leaving the bytes as they are.
 * @return 0, or -EINVAL when the frame does not parse as RoCEv2.
 */
int rk_probe_set_pad_cnt(uint8_t *frame, uint32_t len, uint8_t pad);

/** Kind of answer. */
enum rk_probe_kind {
	RK_PROBE_NONE = 0,       /**< not a frame of the transport */
	RK_PROBE_ACK,            /**< Acknowledge with an ACK syndrome */
	RK_PROBE_NAK,            /**< NAK: code in @c code (IBTA Vol1 9.7.5.2.2) */
	RK_PROBE_RNR_NAK,        /**< RNR NAK: timer in @c code */
	RK_PROBE_READ_RESP,      /**< RDMA READ response packet */
	RK_PROBE_ATOMIC_ACK,     /**< atomic Acknowledge */
	RK_PROBE_REQUEST,        /**< a request of the target's own requester */
	RK_PROBE_TERMINATE,      /**< iWARP Terminate (RFC 5040 5.3.1, 7.4) */
	RK_PROBE_IW_OTHER,       /**< another iWARP message */
	RK_PROBE_CNP,            /**< RoCEv2 CNP (IBTA Annex A17 A17.9, opcode 0x81) */
};

/** One answer of the target, classified. */
struct rk_probe_answer {
	enum rk_probe_kind kind;
	uint8_t opcode;          /**< BTH opcode, or RDMAP opcode (iWARP) */
	uint32_t psn;            /**< BTH PSN (24 bits) */
	uint8_t syndrome;        /**< AETH syndrome, when the packet has an AETH */
	uint8_t code;            /**< NAK code (syndrome & 0x1f) or RNR timer */
	uint32_t msn;            /**< AETH MSN (RoCE), DDP MSN (iWARP untagged) */
	uint32_t payload_len;
	uint8_t term_layer, term_etype, term_code; /**< Terminate: RFC 5040 7.4.1 */
	/* RoCE, every kind: what a CNP's format is checked by (Annex A17 Figure 6) */
	uint32_t dest_qp;        /**< BTH DestQP */
	uint16_t p_key;          /**< BTH P_Key */
	uint8_t bth_flags;       /**< BTH byte 1: SE, MigReq, PadCnt, TVer (0 in a CNP) */
	bool icrc_good;          /**< the ICRC checked and right */
	bool resv_zero;          /**< CNP: its 16 reserved bytes are 0 */
};

/**
 * Classify RoCEv2 frame @p frame (@p len bytes) from the target.
 * @return 0, or -EINVAL when it is no RoCE packet (kind NONE).
 */
int rk_probe_answer(const uint8_t *frame, uint32_t len, struct rk_probe_answer *a);

/**
 * Classify a DDP/RDMAP message decoded from the target's stream
 * (rk_rdmap_parse(), or an rk_mpa_stream FPDU event). @return 0, or
 * -EINVAL when its DDP header was incomplete (kind NONE).
 */
int rk_probe_iw_answer(const struct rk_rdmap_msg *m, struct rk_probe_answer *a);

/*
 * iWARP ULPDUs by intent (DDP header, RDMAP header, payload) into @p u;
 * each returns the ULPDU length. The caller frames them (MPA FPDU).
 */

/** Tagged RDMA Write segment (RFC 5040 4.3): STag, TO, L bit, @p n bytes. */
uint16_t rk_probe_iw_write(uint8_t *u, uint32_t stag, uint64_t to, bool last, const void *data,
			   uint32_t n);
/** Untagged DDP header only (RFC 5041 4.3) with RDMAP opcode @p op. */
uint16_t rk_probe_iw_untagged(uint8_t *u, uint8_t op, uint32_t qn, uint32_t msn, uint32_t mo,
			      bool last);
/** Send-type message segment on queue 0, Invalidate STag @p inv, @p n bytes. */
uint16_t rk_probe_iw_send(uint8_t *u, uint8_t op, uint32_t msn, uint32_t mo, bool last,
			  uint32_t inv, const void *data, uint32_t n);
/** RDMA Read Request (RFC 5040 4.4) on queue 1. */
uint16_t rk_probe_iw_read_req(uint8_t *u, uint32_t msn,
			      const struct rk_rdmap_read_req_fields *rr);

/** A conformance tester's link to a live RoCE target. */
struct rk_probe {
	const struct rk_io_ops *ops;
	void *io;
	struct rk_probe_target target;
};

/**
 * Craft @p in toward the target and transmit it with the backend.
 * @return 0, or a negative errno from crafting or from ops->tx.
 */
int rk_probe_send(struct rk_probe *p, const struct rk_probe_intent *in);

/**
 * Read every frame the backend has now (ops->rx until it returns 0) and
 * classify those of the target into @p out (at most @p max; frames that
 * are no RoCE packet are skipped). @return the answers stored, or a
 * negative errno from ops->rx.
 */
int rk_probe_collect(struct rk_probe *p, struct rk_probe_answer *out, unsigned int max);

#endif /* RK_PROBE_H */
