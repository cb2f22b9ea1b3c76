/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test harness for lib/iwarp: two engines joined by an in-memory byte
 * pipe with chosen segmentation, and a raw peer that speaks MPA/DDP/RDMAP
 * by hand (built with lib/wire) against one engine.
 */
#ifndef RK_IW_HARNESS_H
#define RK_IW_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_iw.h"
#include "rk_mpa.h"
#include "rk_probe.h"
#include "rk_probe_mpa.h"
#include "rk_rdmap.h"

#define IWP_WIRE_MAX (4u << 20)
#define IWP_CUTS_MAX 8

/* Two engines: side 0 is the MPA Initiator, side 1 the Responder. */
struct iw_pair {
	struct rk_iw_dev *dev[2];
	struct rk_iw_pd *pd[2];
	struct rk_iw_cq *cq[2];
	struct rk_iw_qp *qp[2];
	uint8_t *wire[2];       /* every byte each side sent, in order */
	size_t wlen[2];
	size_t delivered[2];    /* bytes of wire[i] given to the other side */
	uint64_t now;
	/* Segmentation of delivery: cut points (stream offsets) first, then
	 * seg_fixed bytes (0: random 1..seg_max, 0 both: all at once). */
	size_t cuts[2][IWP_CUTS_MAX];
	unsigned int ncuts[2];
	size_t seg_fixed, seg_max;
	size_t tx_cap;          /* bytes per rk_iw_tx call (0: 64 KiB) */
	uint64_t max_fpdus_per_rx;  /* most FPDUs one rk_iw_rx call delivered */
	uint64_t rx_calls;
};

/* Default connection attributes for a role. */
void iwp_conn_default(struct rk_iw_conn_attr *c, enum rk_iw_role role);

/* Create both sides; ext enables RFC 7306 on both. */
void iwp_init(struct iw_pair *p, const struct rk_iw_conn_attr *ci,
	      const struct rk_iw_conn_attr *cr, bool ext);

/* Move bytes until neither side has anything to send or deliver. */
void iwp_run(struct iw_pair *p);

void iwp_fini(struct iw_pair *p);

/* A hand-driven MPA Initiator facing one engine (the Responder); the
 * MPA side (framing, reading back, decoding) is lib/probe's. */
struct raw_peer {
	struct rk_iw_dev *dev;
	struct rk_iw_pd *pd;
	struct rk_iw_cq *cq;
	struct rk_iw_qp *qp;
	uint64_t now;
	struct rk_probe_mpa_peer mp;
};

/*
 * Connect a raw peer: its Request carries @p req (reply false, key etc.
 * filled by rk_mpa_rr_build), the engine answers per @p cr.
 */
void rp_init(struct raw_peer *rp, const struct rk_iw_conn_attr *cr,
	     const struct rk_mpa_rr *req, bool ext);

/* Send one FPDU around @p ulpdu; split_at > 0 delivers it in two pieces. */
void rp_send(struct raw_peer *rp, const uint8_t *ulpdu, uint16_t len, bool bad_crc,
	     size_t split_at);

/* Raw stream bytes to the engine (for framing attacks). */
void rp_send_raw(struct raw_peer *rp, const uint8_t *b, size_t n);

/* Take everything the engine sends and decode it into rp->msgs. */
void rp_pump(struct raw_peer *rp);

void rp_fini(struct raw_peer *rp);

/* ULPDUs by intent: rk_probe_iw_write(), _send(), _read_req(),
 * _untagged() (lib/probe). */

/* Poll everything from a CQ (up to @p n). */
int iw_poll_all(struct rk_iw_cq *cq, struct rk_wc *wc, int n);

#endif /* RK_IW_HARNESS_H */
