/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_cm.h
 * InfiniBand Communication Management over the GSI (QP1): the MAD header
 * (IBTA Vol 1 13.4.3), the CM messages REQ, MRA, REJ, REP, RTU, DREQ and
 * DREP (12.6), the RDMA-CM IP addressing private data of a REQ (Annex
 * A11), and a connection state machine (12.9) that rdma_cm peers (Linux
 * rxe, librdmacm) accept. libc only: MADs are 256-byte buffers; the
 * caller carries them in UD SENDs to and from QP1 (DETH Q_Key 0x80010000).
 *
 * Byte layouts: every CM message is a 24-byte MAD header followed by 232
 * bytes of CM data; multi-byte fields are big endian. Offsets below are
 * from the start of the CM data (MAD byte 24).
 *
 * Errors are negative errno: -EINVAL (bad argument, short buffer),
 * -EPROTO (not a CM MAD, wrong version, reserved method), -EBADMSG (a field
 * outside its range).
 */
#ifndef RK_CM_H
#define RK_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RK_MAD_LEN 256
#define RK_MAD_HDR_LEN 24
#define RK_CM_DATA_LEN 232
#define RK_MAD_CLASS_CM 0x07
#define RK_CM_CLASS_VERSION 2
#define RK_MAD_METHOD_SEND 0x03
#define RK_GSI_QKEY 0x80010000u         /**< well-known Q_Key of QP1 */

/** CM attribute IDs (IBTA Vol1 ch. 12). */
enum rk_cm_attr {
	RK_CM_REQ = 0x0010,
	RK_CM_MRA = 0x0011,
	RK_CM_REJ = 0x0012,
	RK_CM_REP = 0x0013,
	RK_CM_RTU = 0x0014,
	RK_CM_DREQ = 0x0015,
	RK_CM_DREP = 0x0016,
};

/** Private data sizes (12.6). */
enum {
	RK_CM_REQ_PD = 92, RK_CM_MRA_PD = 222, RK_CM_REJ_PD = 148, RK_CM_REP_PD = 196,
	RK_CM_RTU_PD = 224, RK_CM_DREQ_PD = 220, RK_CM_DREP_PD = 224,
	RK_CM_REJ_ARI = 72,
};

/** Common MAD header (13.4.3), host order. */
struct rk_mad_hdr {
	uint8_t base_version;           /**< 1 */
	uint8_t mgmt_class;             /**< 0x07 for CM */
	uint8_t class_version;          /**< 2 for CM */
	uint8_t method;                 /**< bit 7 R (response), 0..6 method */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;                   /**< TransactionID */
	uint16_t attr_id;
	uint32_t attr_mod;
};

/** One path of a REQ (primary or alternate), bytes 52..95 / 96..139. */
struct rk_cm_path {
	uint16_t local_lid, remote_lid; /**< 0xffff on RoCE */
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;            /**< 20 bits */
	uint8_t packet_rate;            /**< 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;                     /**< 4 bits */
	uint8_t subnet_local;           /**< 1 bit */
	uint8_t local_ack_timeout;      /**< 5 bits: 4.096 us * 2^x */
};

/** ConnectRequest (12.6.5). */
struct rk_cm_req {
	uint32_t local_comm_id;         /**< 0 */
	uint64_t service_id;            /**< 8 */
	uint64_t local_ca_guid;         /**< 16 */
	uint32_t local_qkey;            /**< 28 */
	uint32_t local_qpn;             /**< 32, 24 bits */
	uint8_t responder_resources;    /**< 35 */
	uint32_t local_eecn;            /**< 36, 24 bits */
	uint8_t initiator_depth;        /**< 39 */
	uint32_t remote_eecn;           /**< 40, 24 bits */
	uint8_t remote_cm_response_timeout; /**< 43, 5 bits */
	uint8_t transport_service_type; /**< 2 bits: 0 RC, 1 UC, 3 XRC */
	uint8_t e2e_flow_control;       /**< 1 bit */
	uint32_t starting_psn;          /**< 44, 24 bits */
	uint8_t local_cm_response_timeout; /**< 47, 5 bits */
	uint8_t retry_count;            /**< 3 bits */
	uint16_t pkey;                  /**< 48 */
	uint8_t path_mtu;               /**< 50, 4 bits: enum rk_mtu (3 = 1024) */
	uint8_t rdc_exists;             /**< 1 bit */
	uint8_t rnr_retry_count;        /**< 3 bits */
	uint8_t max_cm_retries;         /**< 51, 4 bits */
	uint8_t srq;                    /**< 1 bit */
	uint8_t ext_transport;          /**< 3 bits */
	struct rk_cm_path primary;      /**< 52 */
	struct rk_cm_path alternate;    /**< 96 */
	uint8_t private_data[RK_CM_REQ_PD]; /**< 140 */
};

/** MessageReceiptAcknowledgement (12.6.6). */
struct rk_cm_mra {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_mraed;          /**< 8, 2 bits: 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout;        /**< 9, 5 bits */
	uint8_t private_data[RK_CM_MRA_PD];
};

/** Reject (12.6.7). */
struct rk_cm_rej {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_rejected;       /**< 8, 2 bits: 0 REQ, 1 REP, 2 other */
	uint8_t reject_info_length;     /**< 9, 7 bits */
	uint16_t reason;                /**< 10 */
	uint8_t ari[RK_CM_REJ_ARI];     /**< 12 */
	uint8_t private_data[RK_CM_REJ_PD]; /**< 84 */
};

/** ConnectReply (12.6.8). */
struct rk_cm_rep {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t local_qkey;            /**< 8 */
	uint32_t local_qpn;             /**< 12, 24 bits */
	uint32_t local_eecn;            /**< 16, 24 bits */
	uint32_t starting_psn;          /**< 20, 24 bits */
	uint8_t responder_resources;    /**< 24 */
	uint8_t initiator_depth;        /**< 25 */
	uint8_t target_ack_delay;       /**< 26, 5 bits */
	uint8_t failover_accepted;      /**< 2 bits */
	uint8_t e2e_flow_control;       /**< 1 bit */
	uint8_t rnr_retry_count;        /**< 27, 3 bits */
	uint8_t srq;                    /**< 1 bit */
	uint64_t local_ca_guid;         /**< 28 */
	uint8_t private_data[RK_CM_REP_PD]; /**< 36 */
};

/** ReadyToUse (12.6.9), DisconnectReply (12.6.11): ids and private data. */
struct rk_cm_rtu {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[RK_CM_RTU_PD];
};

/** DisconnectRequest (12.6.10). */
struct rk_cm_dreq {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t remote_qpn;            /**< 8, 24 bits */
	uint8_t private_data[RK_CM_DREQ_PD];
};

/** A decoded CM MAD. */
struct rk_cm_msg {
	struct rk_mad_hdr hdr;
	union {
		struct rk_cm_req req;
		struct rk_cm_mra mra;
		struct rk_cm_rej rej;
		struct rk_cm_rep rep;
		struct rk_cm_rtu rtu;   /**< also DREP */
		struct rk_cm_dreq dreq;
	};
};

/** REJ reasons used here (IBTA Vol1 12.6.7.2; the full table is lib/wire rk_mad_cm_rej_reasons). */
enum rk_cm_rej_reason {
	RK_CM_REJ_NO_RESOURCES = 3,
	RK_CM_REJ_TIMEOUT = 4,
	RK_CM_REJ_INVALID_COMM_ID = 6,
	RK_CM_REJ_INVALID_SERVICE_ID = 8,
	RK_CM_REJ_STALE_CONN = 10,
	RK_CM_REJ_INVALID_MTU = 26,
	RK_CM_REJ_CONSUMER_REJECT = 28,
};

/**
 * Decode a CM MAD.
 * @param mad   @p len bytes from the MAD header on; @p len >= 256.
 * @return 0, -EINVAL (NULL, len < 256), -EPROTO (base version != 1,
 *         class != CM, class version != 2, or an attribute that is not
 *         one of REQ, MRA, REJ, REP, RTU, DREQ, DREP).
 */
int rk_cm_decode(const uint8_t *mad, size_t len, struct rk_cm_msg *out);

/**
 * Encode a CM MAD: the header from @p m->hdr (attr_id chooses the body),
 * reserved bits zero. Values wider than their field are masked.
 * @param mad   at least 256 bytes.
 * @return 256, -EINVAL (NULL, len < 256), -EPROTO (unknown attr_id).
 */
int rk_cm_encode(const struct rk_cm_msg *m, uint8_t *mad, size_t len);

/** Name of a CM attribute ("REQ", ...), "?" when unknown. */
const char *rk_cm_attr_name(uint16_t attr_id);

/** Name of a REJ reason, "reason N" style text for others (static buffer-free). */
const char *rk_cm_rej_reason_name(uint16_t reason);

/**
 * RDMA-CM IP addressing private data (Annex A11): the first 36 bytes of
 * a REQ's private data. Byte 0: MajV (4 bits) | MinV (4 bits), both 0;
 * byte 1: IPV (4 bits: 4 or 6) | reserved; 2..3 source port; 4..19 source
 * IP; 20..35 destination IP (IPv4: in the last 4 bytes, the rest zero).
 * The consumer's private data follows (56 bytes).
 */
struct rk_cm_ip_pd {
	uint8_t ip_version;             /**< 4 or 6 */
	uint16_t src_port;
	uint8_t src_ip[16], dst_ip[16]; /**< IPv4 in bytes 12..15 */
};
#define RK_CM_IP_PD_LEN 36

/**
 * Parse the A11 header of a REQ's private data.
 * @return 0, -EINVAL (NULL), -EBADMSG (version not 0.0 or IPV not 4/6).
 */
int rk_cm_ip_pd_decode(const uint8_t pd[RK_CM_REQ_PD], struct rk_cm_ip_pd *out);
/** Write the A11 header into a REQ's private data. @return 0 or -EINVAL. */
int rk_cm_ip_pd_encode(const struct rk_cm_ip_pd *ip, uint8_t pd[RK_CM_REQ_PD]);

/**
 * ServiceID of an RDMA-CM port space and port (Annex A11.2):
 * 0x0000000001 | PS (8 bits: 0x06 TCP, 0x11 UDP, 0x3f IB) | port (16 bits).
 */
static inline uint64_t
rk_cm_service_id(uint8_t ps, uint16_t port)
{
	return ((uint64_t)1 << 24) | ((uint64_t)ps << 16) | port;
}

#define RK_CM_PS_TCP 0x06

/* ------------------------------------------------------------------------
 * Connection state machine (12.9, simplified to what rdma_cm uses: RC, no
 * alternate path, no LAP/APR). One struct rk_cm_conn per connection; the
 * caller demultiplexes received MADs by rk_cm_conn_match(). Every call
 * that must send a MAD writes it to @p out (256 bytes) and returns
 * RK_CM_SEND in its action; time enters as @p now_ns.
 * ------------------------------------------------------------------------ */

enum rk_cm_state {
	RK_CM_IDLE,
	RK_CM_REQ_SENT,         /**< active: waiting for REP (MRA extends the wait) */
	RK_CM_REQ_RCVD,         /**< passive: the consumer decides (accept/reject) */
	RK_CM_REP_SENT,         /**< passive: waiting for RTU */
	RK_CM_ESTABLISHED,
	RK_CM_DREQ_SENT,        /**< waiting for DREP */
	RK_CM_TIMEWAIT,         /**< disconnected; duplicates still answered */
	RK_CM_CLOSED,           /**< REJ sent or received, timeout, or time wait over */
};

/** What a call asks the caller to do or tells it (bits). */
enum rk_cm_action {
	RK_CM_SEND = 1 << 0,            /**< transmit @p out to the peer's QP1 */
	RK_CM_EV_REQ = 1 << 1,          /**< passive: a REQ arrived; see peer; accept or reject */
	RK_CM_EV_REP = 1 << 2,          /**< active: REP arrived; peer filled; QP to RTR/RTS now */
	RK_CM_EV_ESTABLISHED = 1 << 3,
	RK_CM_EV_REJECTED = 1 << 4,     /**< REJ received; rej_reason set */
	RK_CM_EV_DISCONNECTED = 1 << 5, /**< DREQ or DREP: move the QP to error */
	RK_CM_EV_TIMEOUT = 1 << 6,      /**< no answer after every retry */
	RK_CM_EV_IGNORED = 1 << 7,      /**< a MAD that fits no state (counted, dropped) */
};

/** One side's connection parameters. */
struct rk_cm_params {
	uint32_t qpn;                   /**< 24 bits */
	/**
	 * Starting PSN of the REQ/REP, 24 bits. Linux's CM (and so rdma_cm
	 * over rxe) announces the PSN its receive queue expects: the other
	 * side starts sending with it (rxe_rping.pcap: the client's first
	 * SEND carries the REP's PSN, the server's first READ the REQ's).
	 * So program RTR rq_psn = local.psn and RTS sq_psn = peer.psn.
	 */
	uint32_t psn;
	uint8_t responder_resources;    /**< READ/ATOMIC we accept at once */
	uint8_t initiator_depth;        /**< READ/ATOMIC we issue at once */
	uint8_t path_mtu;               /**< enum rk_mtu */
	uint8_t retry_count, rnr_retry_count; /**< 3 bits each */
	uint8_t local_ack_timeout;      /**< 5 bits */
	/**
	 * The REQ's primary path Traffic Class (12.6.5): the passive side's
	 * frames of the connection carry it (Linux takes it for its address
	 * vector; on RoCEv2 it is the IP TOS). The REQ's, on the passive side.
	 */
	uint8_t traffic_class;
	uint8_t gid[16];                /**< our GID (IPv4-mapped for RoCEv2 IPv4) */
	uint64_t ca_guid;
	uint32_t qkey;                  /**< 0 for RC */
	uint8_t private_data[RK_CM_REP_PD]; /**< consumer's; REQ keeps the first 56 */
	uint8_t private_data_len;
};

struct rk_cm_conn {
	enum rk_cm_state state;
	bool active;
	uint32_t local_comm_id, remote_comm_id;
	uint64_t tid;                   /**< of REQ/REP/RTU */
	struct rk_cm_params local;
	/** The peer's, from its REQ (passive) or REP (active); negotiated values. */
	struct rk_cm_params peer;
	struct rk_cm_ip_pd ip;          /**< A11 addressing of the REQ */
	uint64_t service_id;
	uint16_t rej_reason;            /**< of a received REJ */
	/** Retransmission of our last request (REQ, REP, DREQ). */
	uint8_t last[RK_MAD_LEN];
	uint64_t timer_ns;              /**< 0: none */
	uint64_t timeout_ns;
	unsigned int retries_left;
	uint8_t last_reply[RK_MAD_LEN]; /**< RTU or DREP, resent on a duplicate */
	bool have_reply;
	uint64_t timewait_ns;
	uint32_t ignored;               /**< MADs that fit no state */
	/**
	 * Passive: the REQ's Local CM Response Timeout (5 bits: 4.096 us *
	 * 2^t) and Max CM Retries (4 bits), how long and how often our REP
	 * waits for the RTU (IBTA Vol1 12.6.5, as Linux's CM).
	 */
	uint8_t req_cm_response_timeout, req_max_cm_retries;
};

/** 4.096 us * 2^t in ns (t = 0..31): CM response and ACK timeouts. */
static inline uint64_t
rk_cm_timeout_ns(uint8_t t)
{
	return 4096ull << (t & 0x1f);
}

/**
 * Active side: build a REQ for @p svc (rk_cm_service_id()) to the peer at
 * @p ip (A11 header: source and destination addresses, source port).
 * @return RK_CM_SEND, or -EINVAL (NULL, PSN/QPN too wide, private data
 *         over 56 bytes, not IDLE).
 */
int rk_cm_connect(struct rk_cm_conn *c, const struct rk_cm_params *p, uint64_t svc,
		  const struct rk_cm_ip_pd *ip, uint32_t comm_id, uint64_t tid,
		  uint64_t now_ns, uint8_t out[RK_MAD_LEN]);

/**
 * Whether a decoded MAD belongs to @p c: a REP/REJ/MRA/RTU/DREQ/DREP whose
 * remote communication ID is our local one, or a duplicate REQ (same remote
 * ID). A new REQ belongs to no connection (the listener creates one).
 */
bool rk_cm_conn_match(const struct rk_cm_conn *c, const struct rk_cm_msg *m);

/**
 * Passive side: take a new REQ into an IDLE @p c; returns RK_CM_EV_REQ with
 * c->peer, c->ip and c->service_id filled, then the consumer calls
 * rk_cm_accept() or rk_cm_reject(). -EBADMSG for a REQ we cannot serve
 * (not RC, bad A11 header): answer with rk_cm_reject().
 */
int rk_cm_listen_req(struct rk_cm_conn *c, const struct rk_cm_msg *req, uint32_t comm_id,
		     uint64_t now_ns);

/**
 * Passive side: accept with our parameters; negotiates responder resources
 * and initiator depth (each side's initiator depth at most the other's
 * responder resources) and the path MTU: p->path_mtu is the largest we
 * carry (enum rk_mtu; 0: any). The REP has no MTU field, so the smaller of
 * the two is the REQ's when we carry it; when the REQ's is larger the REQ
 * is rejected (REJ reason 26, Invalid Path MTU, IBTA Vol1 12.6.7).
 * c->peer holds the result to program the QP with (RTR: peer.qpn, rq_psn
 * local.psn, local.path_mtu, local.responder_resources; RTS: sq_psn
 * peer.psn, local.initiator_depth).
 * @return RK_CM_SEND (REP in @p out); -EMSGSIZE: @p out holds the REJ to
 *         send and the connection is CLOSED; -EINVAL.
 */
int rk_cm_accept(struct rk_cm_conn *c, const struct rk_cm_params *p, uint64_t now_ns,
		 uint8_t out[RK_MAD_LEN]);

/** Reject a REQ (passive) or a REP (active) with @p reason. @return RK_CM_SEND. */
int rk_cm_reject(struct rk_cm_conn *c, uint16_t reason, uint8_t out[RK_MAD_LEN]);

/**
 * Passive side: reject a REQ that no connection takes (a ServiceID nobody
 * listens on, IBTA Vol1 12.6.7 reason 8; no room), from a connection of
 * its own that ends there. @p comm_id is the REJ's Local Comm ID.
 * @return RK_CM_SEND (REJ in @p out); 0 when @p req is not a REQ one can
 *         answer at all (nothing to send); -EINVAL for a NULL argument.
 */
int rk_cm_reject_req(const struct rk_cm_msg *req, uint16_t reason, uint32_t comm_id,
		     uint64_t now_ns, uint8_t out[RK_MAD_LEN]);

/**
 * A DREP for a DREQ that no connection takes (its TimeWait over, or a
 * Comm ID never known): the DREQ's Comm IDs swapped, its TID, so the
 * peer's disconnect ends (as Linux's CM does; IBTA Vol1 12.6.11, 12.9).
 * @return RK_CM_SEND (DREP in @p out); 0 when @p dreq is no DREQ;
 *         -EINVAL for a NULL argument.
 */
int rk_cm_drep_unknown(const struct rk_cm_msg *dreq, uint8_t out[RK_MAD_LEN]);

/**
 * Feed a decoded MAD that matched @p c. May ask to send (RTU after REP,
 * DREP after DREQ, a resent reply after a duplicate) and report events.
 * @return enum rk_cm_action bits (0: nothing), -EINVAL.
 */
int rk_cm_rx(struct rk_cm_conn *c, const struct rk_cm_msg *m, uint64_t now_ns,
	     uint8_t out[RK_MAD_LEN]);

/** Start a disconnect from ESTABLISHED. @return RK_CM_SEND (DREQ), -EINVAL. */
int rk_cm_disconnect(struct rk_cm_conn *c, uint64_t tid, uint64_t now_ns,
		     uint8_t out[RK_MAD_LEN]);

/**
 * Run the timer: resend the last request while retries last, then give up
 * (RK_CM_EV_TIMEOUT, CLOSED; a DREQ timeout just closes, IBTA Vol1 ch. 12).
 * @return action bits, 0 when nothing was due.
 */
int rk_cm_timer(struct rk_cm_conn *c, uint64_t now_ns, uint8_t out[RK_MAD_LEN]);

/** Name of a state ("ESTABLISHED", ...). */
const char *rk_cm_state_name(enum rk_cm_state s);

#endif /* RK_CM_H */
