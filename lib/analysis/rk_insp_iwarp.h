/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_iwarp.h
 * iWARP connections in a capture: TCP connections are followed from
 * their SYN; one whose stream starts with an MPA Request (RFC 5044 7.1)
 * is an iWARP connection. One joined mid-connection (no SYN seen) is
 * followed from its first data and is iWARP when FPDU framing is found in
 * its bytes (rk_insp_iwsync.h). Each direction's in-order byte stream
 * (rk_insp_tcp.h) goes through the MPA deframer, whose FPDUs are decoded
 * as DDP/RDMAP (rk_rdmap_parse) and reported as events.
 */
#ifndef RK_INSP_IWARP_H
#define RK_INSP_IWARP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_finding.h"
#include "rk_insp_hash.h"
#include "rk_mpa.h"
#include "rk_pkt.h"
#include "rk_rdmap.h"
#include "rk_insp_tcp.h"

/** Event kinds reported to the output. */
enum rk_insp_iw_ev_kind {
	RK_INSP_IW_MPA_REQUEST,
	RK_INSP_IW_MPA_REPLY,
	RK_INSP_IW_FPDU,
	RK_INSP_IW_SYNC_LOST,   /**< framing lost (gap, not MPA, cut short) */
	RK_INSP_IW_RESYNC,      /**< framing regained at a marker */
	RK_INSP_IW_TCP_CONFLICT, /**< a retransmission's bytes differ from the first copy */
};

/** MPA CRC verdict of one FPDU. */
enum rk_insp_crc {
	RK_INSP_CRC_NONE = 0,   /**< CRC not in use on this direction */
	RK_INSP_CRC_GOOD,
	RK_INSP_CRC_BAD,
};

struct rk_insp_iw_conn;

/** One event: an MPA frame or FPDU completed in frame @c frame. */
struct rk_insp_iw_event {
	enum rk_insp_iw_ev_kind kind;
	uint64_t frame;             /**< frame holding the unit's last byte */
	uint64_t ts_ns;             /**< its time, relative to the first frame */
	const struct rk_insp_iw_conn *conn;
	int dir;                    /**< 0: initiator to responder */
	uint32_t tcp_seq;           /**< sequence number of the unit's first byte */
	uint32_t stream_len;        /**< bytes the unit took in the stream (markers too);
	                                 TCP_CONFLICT: bytes that differ, from tcp_seq on */
	const char *lost_reason;    /**< SYNC_LOST: "gap", "not_mpa", "truncated", ... */

	/* MPA Request / Reply (RFC 5044 7.1, RFC 6581) */
	uint8_t rev;
	bool m, c, r;
	uint16_t pd_len;
	bool enhanced;              /**< RFC 6581 enhanced frame (Rev 2) */
	uint16_t ird, ord;          /**< RFC 6581 IRD/ORD when enhanced */

	/* FPDU (RFC 5044 4) */
	uint16_t ulpdu_len;         /**< MPA ULPDU_Length */
	uint8_t pad;
	unsigned int markers;       /**< markers removed from this FPDU */
	enum rk_insp_crc crc;
	uint32_t crc_value;
	struct rk_rdmap_msg msg;    /**< DDP + RDMAP, from rk_rdmap_parse */

	struct rk_findings findings;
};

/** Framing of a direction joined mid-connection. */
enum rk_insp_iw_mid {
	RK_INSP_IW_MID_NONE = 0,    /**< the stream start was seen */
	RK_INSP_IW_MID_SEARCH,      /**< bytes kept, boundary not found yet */
	RK_INSP_IW_MID_SYNCED,      /**< FPDUs decoded from sync_seq on */
	RK_INSP_IW_MID_FAILED,      /**< no MPA framing found: bytes skipped */
};

/** Per-direction record of a connection. */
/** Read Requests a direction keeps waiting for their response (an ORD). */
#define RK_INSP_IW_READS 64

struct rk_insp_lat;

struct rk_insp_iw_dir {
	uint64_t packets, bytes, payload_bytes;
	struct rk_insp_tcp_dir tcp;

	bool mpa_seen;              /**< this side sent its Request/Reply */
	uint8_t rev;
	bool markers;               /**< markers in this direction */
	bool crc;                   /**< CRC in this direction */
	bool reject;
	uint16_t pd_len;

	uint64_t fpdus, crc_errors, markers_removed, sync_lost, ulp_bytes;
	uint64_t rdmap_ops[16];
	uint64_t messages;          /**< DDP segments with L set */
	uint64_t terminates;
	struct {
		uint8_t layer, etype, err_code;
		uint64_t frame;
	} term[4];                  /**< the first Terminates */

	/* Timing (capture ns): the first and last FPDU, the RDMAP payload of
	 * Sends, Writes and Read Responses, and the READ latency of this
	 * side's Read Requests: to the first segment of the Read Response
	 * (RFC 5040 4.4), the one at the request's sink STag and TO. */
	uint64_t first_fpdu_ns, last_fpdu_ns;
	uint64_t data_bytes;
	struct rk_insp_iw_read {
		uint32_t stag;
		uint64_t to, ts_ns;
	} *rd_pend;                 /**< RK_INSP_IW_READS Read Requests not answered
				         yet; NULL until the first */
	unsigned int rd_n, rd_pos;
	struct rk_insp_lat *read_lat; /**< NULL until one (rk_insp_timing.h) */

	/* Joined mid-connection (no SYN): stream bytes kept until the FPDU
	 * framing is found in them (rk_insp_iwsync.h). */
	uint8_t mid_state;          /**< enum rk_insp_iw_mid */
	uint8_t *mid_buf;
	uint32_t mid_len, mid_seq0, mid_try;
	uint32_t sync_seq;          /**< first FPDU trusted (RK_INSP_IW_MID_SYNCED) */
	struct rk_mpa_params sync_params; /**< markers and CRC found there */
	uint64_t mid_skipped;       /**< stream bytes before it, or all when not found */

	struct rk_mpa_stream *deframer; /**< while the direction is open */
	uint8_t prefix[8];          /**< first bytes, before the stream is classified */
	uint8_t prefix_len;
	uint32_t prefix_seq;
	bool ended;
};

/** One TCP connection (addresses as in rk_pkt: IPv4 mapped). */
struct rk_insp_iw_conn {
	uint8_t addr[2][16];        /**< [0] initiator (sent the SYN), [1] responder */
	uint16_t port[2];
	uint8_t ip_version;
	uint8_t state;              /**< enum in rk_insp_iwarp.c */
	uint64_t first_frame, last_frame;
	uint64_t frames_before;     /**< frames before it was known to be iWARP */
	uint64_t bytes_before;
	struct rk_insp_iw_dir dir[2];
	uint32_t findings[RK_F_COUNT];
	struct rk_insp_hlink hl;    /* in the table's hash */
	struct rk_insp_iw_conn *next, *prev;
	struct rk_insp_iw *table;
	struct rk_insp_iw_dctx {
		struct rk_insp_iw_conn *conn;
		int dir;
	} dctx[2];
	bool joined_mid;            /**< no SYN seen: followed from its first data;
	                                 initiator is the side with the higher port */
	bool have_req;              /* the Request, for the RFC 6581 RTR check */
	struct rk_mpa_rr req;
};

/** Receives each event as it completes. */
typedef void (*rk_insp_iw_emit_fn)(void *ctx, const struct rk_insp_iw_event *ev);

/** Options. */
struct rk_insp_iw_opts {
	uint32_t tcp_buffer;        /**< reorder buffer per direction, 0: default */
};

/** All connections. */
struct rk_insp_iw {
	struct rk_insp_iw_opts opts;
	rk_insp_iw_emit_fn emit;
	void *emit_ctx;
	struct rk_insp_htab hash;
	uint64_t nconns;            /**< connections in the table */
	uint64_t niwarp;            /**< of which iWARP */
	struct rk_insp_iw_conn *head, *tail;
	uint64_t cur_frame;         /* frame being processed */
	uint64_t cur_ts_ns;
	uint64_t events;            /**< FPDUs and MPA frames reported */
	uint64_t mpa_requests, mpa_replies;
};

/** Initialise; @return 0 or -ENOMEM. */
int rk_insp_iw_init(struct rk_insp_iw *t, const struct rk_insp_iw_opts *opts,
		    rk_insp_iw_emit_fn emit, void *ctx);

/**
 * Feed a parsed TCP frame (pkt->kind == RK_PKT_TCP).
 * @return true when the frame belongs to an iWARP connection.
 */
bool rk_insp_iw_frame(struct rk_insp_iw *t, const struct rk_pkt *pkt,
		      uint64_t frame, uint64_t ts_ns);

/** End of capture: flush every direction (holes become gaps). */
void rk_insp_iw_finish(struct rk_insp_iw *t);

/** Free everything. */
void rk_insp_iw_fini(struct rk_insp_iw *t);

/** Whether @p c was recognised as an iWARP connection. */
bool rk_insp_iw_is_iwarp(const struct rk_insp_iw_conn *c);

/** Add the findings of @p f to @p c. */
void rk_insp_iw_count_findings(struct rk_insp_iw_conn *c, const struct rk_findings *f);

#endif /* RK_INSP_IWARP_H */
