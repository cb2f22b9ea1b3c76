/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_rdma_types.h
 * Value types shared by both transport engines (lib/ib's rk_ib.h, lib/iwarp's
 * rk_iw.h) and the public verbs API (rk_verbs.h), below all three: work
 * requests, SGEs, completions, QP attributes, access flags. Shaped and numbered like libibverbs (verbs.h) so that
 * ibverbs users recognise them: enum values equal their IBV_* counterparts.
 *
 * Differences from libibverbs: immediate data and invalidate R_Keys are host
 * order (ibverbs carries imm_data as __be32), addresses are uint64_t.
 */
#ifndef RK_RDMA_TYPES_H
#define RK_RDMA_TYPES_H

#include <stdint.h>

#include "rk_enum.h"

/** QP transport service (IBV_QPT_*). */
enum rk_qp_type {
	RK_QPT_RC = 2,
	RK_QPT_UC = 3,
	RK_QPT_UD = 4,
};

/** QP states (IBV_QPS_*, in their order), IBTA Vol1 ch. 10. */
#define RK_QP_STATES(X, P) X(P, RESET) X(P, INIT) X(P, RTR) X(P, RTS) X(P, SQD) X(P, SQE) X(P, ERR)
enum rk_qp_state { RK_QP_STATES(RK_ENUM_MEMBER, RK_QPS_) RK_QPS_COUNT };

/** Path MTU codes (IBV_MTU_*): 256 << (code - 1) bytes. */
enum rk_mtu {
	RK_MTU_256 = 1,
	RK_MTU_512 = 2,
	RK_MTU_1024 = 3,
	RK_MTU_2048 = 4,
	RK_MTU_4096 = 5,
};

/** Bytes of path MTU code @p m (256 << (m - 1)); 0 for a code outside 1..5. */
static inline uint32_t
rk_mtu_bytes(enum rk_mtu m)
{
	return m >= RK_MTU_256 && m <= RK_MTU_4096 ? 128u << m : 0;
}

/** The path MTU code of @p bytes (256, 512, 1024, 2048 or 4096); 0 for other values. */
static inline enum rk_mtu
rk_mtu_from_bytes(uint32_t bytes)
{
	for (int m = RK_MTU_256; m <= RK_MTU_4096; m++)
		if (rk_mtu_bytes((enum rk_mtu)m) == bytes)
			return (enum rk_mtu)m;
	return (enum rk_mtu)0;
}

/**
 * Bytes of headers a RoCEv2 packet may carry around its payload inside
 * the IP MTU: IPv6 40, UDP 8, BTH 12, RETH 16 and ICRC 4. A path MTU
 * needs an IP MTU of at least its size plus this; Linux rxe reserves the
 * same 80 bytes when it derives a port's active MTU from its netdev's.
 */
#define RK_ROCE_HDR_RESERVE 80u

/**
 * The active MTU of a RoCE port whose IP MTU is @p ip_mtu bytes: the
 * largest path MTU whose packets, with RK_ROCE_HDR_RESERVE bytes of
 * headers, fit (1500 gives RK_MTU_1024, 9000 RK_MTU_4096), as rxe derives
 * it; 0 when not even 256 bytes fit.
 */
static inline enum rk_mtu
rk_roce_active_mtu(uint32_t ip_mtu)
{
	for (int m = RK_MTU_4096; m >= RK_MTU_256; m--)
		if ((256u << (m - 1)) + RK_ROCE_HDR_RESERVE <= ip_mtu)
			return (enum rk_mtu)m;
	return (enum rk_mtu)0;
}

/** Memory region and QP access flags (IBV_ACCESS_*). */
enum rk_access_flags {
	RK_ACCESS_LOCAL_WRITE = 1,
	RK_ACCESS_REMOTE_WRITE = 1 << 1,
	RK_ACCESS_REMOTE_READ = 1 << 2,
	RK_ACCESS_REMOTE_ATOMIC = 1 << 3,
	/**
	 * rdmakit extension, no IBV_* value: the R_Key may be invalidated by
	 * a peer's SEND with Invalidate (the role of a fast-registration MR
	 * or type 2 MW; an ordinary ibv_reg_mr MR cannot be, MEM-INV-01).
	 */
	RK_ACCESS_REMOTE_INVALIDATE = 1 << 30,
};

/** Attribute mask bits of modify/query QP (IBV_QP_*). */
enum rk_qp_attr_mask {
	RK_QP_STATE = 1 << 0,
	RK_QP_CUR_STATE = 1 << 1,
	RK_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	RK_QP_ACCESS_FLAGS = 1 << 3,
	RK_QP_PKEY_INDEX = 1 << 4,
	RK_QP_PORT = 1 << 5,
	RK_QP_QKEY = 1 << 6,
	RK_QP_AV = 1 << 7,
	RK_QP_PATH_MTU = 1 << 8,
	RK_QP_TIMEOUT = 1 << 9,
	RK_QP_RETRY_CNT = 1 << 10,
	RK_QP_RNR_RETRY = 1 << 11,
	RK_QP_RQ_PSN = 1 << 12,
	RK_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	RK_QP_ALT_PATH = 1 << 14,
	RK_QP_MIN_RNR_TIMER = 1 << 15,
	RK_QP_SQ_PSN = 1 << 16,
	RK_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	RK_QP_PATH_MIG_STATE = 1 << 18,
	RK_QP_CAP = 1 << 19,
	RK_QP_DEST_QPN = 1 << 20,
};

/** Work request opcodes (IBV_WR_*). */
enum rk_wr_opcode {
	RK_WR_RDMA_WRITE = 0,
	RK_WR_RDMA_WRITE_WITH_IMM = 1,
	RK_WR_SEND = 2,
	RK_WR_SEND_WITH_IMM = 3,
	RK_WR_RDMA_READ = 4,
	RK_WR_ATOMIC_CMP_AND_SWP = 5,
	RK_WR_ATOMIC_FETCH_AND_ADD = 6,
	RK_WR_SEND_WITH_INV = 9,
};

/** Send flags (IBV_SEND_*). */
enum rk_send_flags {
	RK_SEND_FENCE = 1 << 0,
	RK_SEND_SIGNALED = 1 << 1,
	RK_SEND_SOLICITED = 1 << 2,
	RK_SEND_INLINE = 1 << 3,
};

/**
 * Work completion status (IBV_WC_*, the same values) and its text, as
 * libibverbs' ibv_wc_status_str() gives it: rows X(NAME, value, text).
 */
#define RK_WC_STATUSES(X) \
	X(SUCCESS, 0, "success") \
	X(LOC_LEN_ERR, 1, "local length error") \
	X(LOC_QP_OP_ERR, 2, "local QP operation error") \
	X(LOC_EEC_OP_ERR, 3, "local EE context operation error") \
	X(LOC_PROT_ERR, 4, "local protection error") \
	X(WR_FLUSH_ERR, 5, "Work Request Flushed Error") \
	X(MW_BIND_ERR, 6, "memory management operation error") \
	X(BAD_RESP_ERR, 7, "bad response error") \
	X(LOC_ACCESS_ERR, 8, "local access error") \
	X(REM_INV_REQ_ERR, 9, "remote invalid request error") \
	X(REM_ACCESS_ERR, 10, "remote access error") \
	X(REM_OP_ERR, 11, "remote operation error") \
	X(RETRY_EXC_ERR, 12, "transport retry counter exceeded") \
	X(RNR_RETRY_EXC_ERR, 13, "RNR retry counter exceeded") \
	X(LOC_RDD_VIOL_ERR, 14, "local RDD violation error") \
	X(REM_INV_RD_REQ_ERR, 15, "remote invalid RD request") \
	X(REM_ABORT_ERR, 16, "aborted error") \
	X(INV_EECN_ERR, 17, "invalid EE context number") \
	X(INV_EEC_STATE_ERR, 18, "invalid EE context state") \
	X(FATAL_ERR, 19, "fatal error") \
	X(RESP_TIMEOUT_ERR, 20, "response timeout error") \
	X(GENERAL_ERR, 21, "general error")
#define RK_WC_STATUS_MEMBER(n, v, text) RK_WC_##n = v,
enum rk_wc_status { RK_WC_STATUSES(RK_WC_STATUS_MEMBER) };

/** Work completion opcodes (IBV_WC_*). */
enum rk_wc_opcode {
	RK_WC_SEND = 0,
	RK_WC_RDMA_WRITE = 1,
	RK_WC_RDMA_READ = 2,
	RK_WC_COMP_SWAP = 3,
	RK_WC_FETCH_ADD = 4,
	RK_WC_RECV = 1 << 7,
	RK_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1,
};

/**
 * The completion opcode of a send work request's opcode, as
 * ibv_poll_cq() reports it: WRITE with Immediate completes as a WRITE,
 * every SEND variant as a SEND.
 */
static inline enum rk_wc_opcode
rk_wc_opcode_of(enum rk_wr_opcode op)
{
	switch (op) {
	case RK_WR_RDMA_WRITE:
	case RK_WR_RDMA_WRITE_WITH_IMM:
		return RK_WC_RDMA_WRITE;
	case RK_WR_RDMA_READ:
		return RK_WC_RDMA_READ;
	case RK_WR_ATOMIC_CMP_AND_SWP:
		return RK_WC_COMP_SWAP;
	case RK_WR_ATOMIC_FETCH_AND_ADD:
		return RK_WC_FETCH_ADD;
	default:
		return RK_WC_SEND;
	}
}

/** Work completion flags (IBV_WC_*). */
enum rk_wc_flags {
	RK_WC_GRH = 1 << 0,
	RK_WC_WITH_IMM = 1 << 1,
	RK_WC_WITH_INV = 1 << 3,
};

/** Scatter/gather element (ibv_sge). */
struct rk_sge {
	uint64_t addr;          /**< host address of the first byte */
	uint32_t length;        /**< bytes */
	uint32_t lkey;
};

/**
 * Address vector of a RoCEv2 peer (the parts of ibv_ah_attr RoCEv2 uses).
 * The IP version is the device's.
 */
struct rk_ah_attr {
	uint8_t dmac[6];
	uint8_t dip[16];        /**< IPv6, or IPv4 in the last 4 bytes */
	uint8_t dscp;           /**< 6 bits (traffic class >> 2) */
	uint8_t hop_limit;      /**< 0 means 64 */
	/**
	 * This end's source address, the device's version (an sgid): one
	 * port may stand for several hosts. All zero: the device's own.
	 * A connected QP takes only frames sent to it.
	 */
	uint8_t sip[16];
};

/** Address handle for UD sends (ibv_ah). */
struct rk_ah {
	struct rk_ah_attr attr;
	void *context;          /**< owner's use; rk_create_ah keeps its rk_pd here */
};

/** Send work request (ibv_send_wr). */
struct rk_send_wr {
	uint64_t wr_id;
	struct rk_send_wr *next;
	struct rk_sge *sg_list;
	int num_sge;
	enum rk_wr_opcode opcode;
	unsigned int send_flags;        /**< enum rk_send_flags */
	union {
		uint32_t imm_data;      /**< host order */
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct rk_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

/** Receive work request (ibv_recv_wr). */
struct rk_recv_wr {
	uint64_t wr_id;
	struct rk_recv_wr *next;
	struct rk_sge *sg_list;
	int num_sge;
};

/** Work completion (ibv_wc). */
struct rk_wc {
	uint64_t wr_id;
	enum rk_wc_status status;
	enum rk_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		uint32_t imm_data;      /**< host order */
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;  /**< enum rk_wc_flags */
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

/** QP capacities (ibv_qp_cap). */
struct rk_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

/** QP attributes for modify/query (ibv_qp_attr, RoCEv2 subset). */
struct rk_qp_attr {
	enum rk_qp_state qp_state;
	enum rk_qp_state cur_qp_state;
	enum rk_mtu path_mtu;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;   /**< enum rk_access_flags */
	struct rk_qp_cap cap;
	struct rk_ah_attr ah_attr;
	uint16_t pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;          /**< initiator depth: outstanding READ/ATOMIC we send */
	uint8_t max_dest_rd_atomic;     /**< responder resources */
	uint8_t min_rnr_timer;          /**< 5-bit RNR NAK timer code we send */
	uint8_t port_num;
	uint8_t timeout;                /**< local ACK timeout: 4.096 us * 2^timeout, 0 = infinite */
	uint8_t retry_cnt;              /**< 0..7 transport retries */
	uint8_t rnr_retry;              /**< 0..7 RNR retries, 7 = infinite */
};

#endif /* RK_RDMA_TYPES_H */
