/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_cmconn.h
 * Connections a capture's CM MADs set up and tear down (IBTA Vol1 12.6,
 * 12.9): each REQ opens a record keyed by its sender's address and
 * LocalCommID; the REP names the passive side's Communication ID, QPN and
 * starting PSN; MRA, REJ, RTU, DREQ, DREP, LAP and APR are matched to it by
 * the Communication IDs they carry. The QP flows of the capture are then
 * paired to their connection by their DestQP (the REQ's and REP's QPNs).
 * libc, lib/wire only.
 */
#ifndef RK_INSP_CMCONN_H
#define RK_INSP_CMCONN_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_insp_hash.h"
#include "rk_mad.h"

/** Most connections remembered; later REQs are counted in @c dropped. */
#define RK_INSP_CMCONN_MAX 65536u

/** One connection; side 0 sent the REQ (active), side 1 the REP (passive). */
struct rk_insp_cmconn {
	uint8_t addr[2][16];        /**< as in struct rk_insp_flow_key */
	bool lid;                   /**< addresses are LIDs */
	bool rep_seen;              /**< comm_id[1], qpn[1], psn[1] are known */
	uint32_t comm_id[2];        /**< LocalCommID of each side */
	uint32_t qpn[2];            /**< Local QPN of each side */
	uint32_t psn[2];            /**< Starting PSN of each side */
	uint64_t service_id;
	/** CM messages seen, bit (AttributeID - 0x10) per message of 12.6. */
	uint32_t seen;
	uint16_t rej_reason;        /**< reason of the last REJ (with its bit in seen) */
	uint64_t first_frame, last_frame;
	uint32_t mads;              /**< CM MADs matched to it */
	struct rk_insp_hlink hl;    /* in the table's hash, by comm_id[0] */
	struct rk_insp_hlink hq[2]; /* in the QPN hash once the REP is seen: [d]
				       by the QPN that receives side d's flow */
	struct rk_insp_cmconn *next;
};

/** The table (rk_insp_cmconn_init()). */
struct rk_insp_cmconns {
	struct rk_insp_htab hash;
	struct rk_insp_htab qhash[2]; /* [d]: connections by side d's address and
				         the QPN its flow goes to */
	struct rk_insp_cmconn *head, *tail;
	uint64_t n;
	uint64_t unmatched;         /**< CM MADs that named no known connection */
	uint64_t dropped;           /**< REQs past RK_INSP_CMCONN_MAX (or out of memory) */
};

/** Initialise @p t; @return 0 or -ENOMEM. */
int rk_insp_cmconn_init(struct rk_insp_cmconns *t);

/** The bit of @p attr in rk_insp_cmconn.seen (0 when not a 12.6 message). */
static inline uint32_t
rk_insp_cmconn_bit(uint16_t attr)
{
	return attr >= RK_MAD_CM_REQ && attr <= RK_MAD_CM_APR ? 1u << (attr - RK_MAD_CM_REQ) : 0;
}

/**
 * Account CM MAD @p m (mgmt_class CM) sent from @p src to @p dst in frame
 * @p frame. Other classes and SIDR messages are ignored.
 * @return the connection it belongs to, or NULL (unmatched, not CM, or
 *         out of room).
 */
const struct rk_insp_cmconn *rk_insp_cmconn_mad(struct rk_insp_cmconns *t,
						const uint8_t src[16], const uint8_t dst[16],
						bool lid, const struct rk_mad *m, uint64_t frame);

/**
 * The connection whose QP receives the flow @p src -> @p dst with DestQP
 * @p dest_qp: side 0 to side 1 with the REP's QPN, or side 1 to side 0 with
 * the REQ's. The latest such connection wins. @p side, when not NULL, is
 * set to the sending side. @return it, or NULL.
 */
const struct rk_insp_cmconn *rk_insp_cmconn_of_flow(const struct rk_insp_cmconns *t,
						    const uint8_t src[16], const uint8_t dst[16],
						    uint32_t dest_qp, int *side);

/** Free the table. */
void rk_insp_cmconn_fini(struct rk_insp_cmconns *t);

#endif /* RK_INSP_CMCONN_H */
