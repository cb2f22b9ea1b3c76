/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rkw_analysis_int.h
 * Private to the plugin's analysis (rkw_analysis.c, rkw_analysis_roce.c,
 * rkw_analysis_iwarp.c): the state, the per-QP and per-TCP-direction
 * records, and the helpers the files share.
 */
#ifndef RKW_ANALYSIS_INT_H
#define RKW_ANALYSIS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "rkw_analysis.h"
#include "rk_insp_flow.h"
#include "rk_insp_iwarp.h"
#include "rk_insp_qp.h"

/* TCP segments remembered per direction to map FPDUs back to frames. */
#define RKW_SEG_RING 256
/* Frames of one sequence waiting for a verdict: the flow analysis takes it before
 * its chain grows longer. */
#define RKW_PEND_MAX 64

struct rkw_key {
	uint8_t src[16], dst[16];
	uint32_t qp;            /* DestQP, or ports for TCP */
	uint32_t kind;
};

struct rkw_msg {
	bool open;
	bool incomplete;
	GByteArray *data;        /* payload so far (keep_payload), NULL when too long */
	uint64_t len;
	uint32_t first_frame, packets;
};

struct rkw_qp {
	uint32_t idx;
	struct rkw_key key;
	struct rk_insp_flow_key ikey;
	struct rk_insp_qp an;    /* requests, ACK coverage, pairing (lib/analysis) */
	struct rkw_msg msg[2][2]; /* [requests, responses][first transmissions, go-back-N run] */
	uint32_t pend[2][RKW_PEND_MAX]; /* [requests, READ responses]: frames waiting */
	unsigned int npend[2];
	/* Per sequence: the PSNs the frames with a verdict show lost (missing
	 * less not_lost), and the last such frame. */
	uint64_t shown[2];
	uint32_t last_frame[2];
};

struct rkw_iwmsg {
	GByteArray *data;        /* payload so far (keep_payload), NULL when too long */
	bool open, gap;
	uint32_t msn, next_mo, segments, first_frame;
	uint64_t bytes;
	uint32_t stag;
	uint64_t next_to;
};

struct rkw_tdir {
	uint32_t idx;
	struct {
		uint32_t seq, len, frame, off;
	} seg[RKW_SEG_RING];
	unsigned int head, n;
	struct rkw_iwmsg untagged[5];
	struct rkw_iwmsg tagged;
};

struct rkw_state {
	struct rkw_opts opts;
	struct rk_parse_opts popts;
	struct rk_insp_flows flows;
	struct rk_insp_iw iw;
	GHashTable *frames;      /* frame number -> struct rkw_frame */
	GHashTable *qps;         /* struct rk_insp_flow * -> struct rkw_qp */
	GHashTable *hostpairs;   /* src+dst (32 bytes) -> GPtrArray of struct rkw_qp */
	struct rk_insp_cm cm;    /* QPs the CM REQ/REP MADs named */
	GHashTable *tdirs;       /* struct rkw_key -> struct rkw_tdir */
	GPtrArray *flowinfo;     /* struct rkw_flow_info, index - 1 */
	uint32_t cur_num;
	uint64_t cur_ts;
	bool roce_ended;         /* rkw_end_roce() ran */
};

/* Payload copies for message reassembly (keep_payload). */
void rkw_data_reset(GByteArray **d, bool keep);
void rkw_data_add(GByteArray **d, const uint8_t *p, uint32_t len);
/* Some bytes of the message were not captured: keep nothing of it. */
void rkw_data_drop(GByteArray **d);
/* The message's bytes as an immutable buffer; @p d starts empty again. */
GBytes *rkw_data_take(GByteArray **d);

/* The record of frame @p num, created empty when there is none. */
struct rkw_frame *rkw_frame_rec(struct rkw_state *s, uint32_t num);
/* @p a (IPv4-mapped or IPv6) as text for a flow label. */
void rkw_addr_str(const uint8_t a[16], char *buf, size_t len);
/* A new flow labelled @p label; @return its index (1-based). */
uint32_t rkw_new_flow(struct rkw_state *s, const char *label, bool iwarp);

/* A frame with a BTH (rkw_analysis_roce.c). */
void rkw_roce_frame(struct rkw_state *s, struct rkw_frame *rec, const struct rk_pkt *pkt,
		    uint32_t num);

/* A TCP frame (rkw_analysis_iwarp.c). */
void rkw_tcp_frame(struct rkw_state *s, const struct rk_pkt *pkt, uint32_t num, uint64_t ts);
/* The iWARP follower's callback: each MPA frame or FPDU goes to the frames
 * holding its bytes. */
void rkw_iw_event(void *ctx, const struct rk_insp_iw_event *ev);

#endif /* RKW_ANALYSIS_INT_H */
