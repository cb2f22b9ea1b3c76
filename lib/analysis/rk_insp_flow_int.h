/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals shared by the files of the per-QP analysis: the flow table
 * (rk_insp_flow.c), the PSN sequences (rk_insp_seq_request.c,
 * rk_insp_seq_response.c and their holes, rk_insp_seq_holes.c) and the
 * message state (rk_insp_msg.c). Not installed; not for the users of the
 * library.
 */
#ifndef RK_INSP_FLOW_INT_H
#define RK_INSP_FLOW_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_insp_flow.h"
#include "rk_opcode.h"

/* Outstanding READ requests remembered per host pair and direction, to
 * match READ responses (by PSN) to the DMALen they must total. */
#define READ_RING 32

/* NAK PSNs remembered per host pair and direction. */
#define NAK_RING 8

/* Spans beyond this would make modular PSN comparisons meaningless; such
 * DMALen values are already reported as reth.dma_len.over_2g. */
#define MAX_READ_SPAN (1u << 22)

/* Bits of the bitmap that counts untracked flows: 1 MiB, next to the
 * hundreds of MiB the full table already holds. */
#define UNTRACKED_BITS (1u << 23)

/* The smallest IBA path MTU: a READ of at most this many bytes takes one PSN
 * whatever the PMTU. */
#define MIN_PMTU 256u

struct pending_read {
	uint32_t psn;
	uint32_t dma_len;
	uint32_t serial;        /* the path's READ request count at its last copy */
	uint32_t first_serial;  /* and at its first */
	uint16_t copies;        /* copies of it seen (saturating) */
	uint8_t used;
};

/* One unordered host pair: PMTU seen on any QP between the two hosts, and
 * the READ requests each side sent. */
struct rk_insp_path {
	uint8_t a[16], b[16];   /* a sorts before b */
	uint8_t lid;
	struct rk_insp_hlink hl;
	struct rk_insp_path *next;
	uint32_t pmtu;
	struct pending_read reads[2][READ_RING]; /* [0]: requester a, [1]: b */
	unsigned int rpos[2];
	uint32_t read_serial[2]; /* READ requests seen (copies included) */
	/* PSNs of the last NAKs (sequence error, RNR) each side sent: where
	 * the peer's requester will resend from. */
	uint32_t naks[2][NAK_RING];
	unsigned int nak_pos[2], nak_n[2];
	/* The highest PSN each side's responder has acknowledged (ACK, or the
	 * PSN before a NAK): its peer's requester need not resend up to it. */
	uint32_t acked[2];
	bool acked_valid[2];
	/* The flows of each requester side's READs and of their responses
	 * (struct rk_insp_read_copies); mixed when more than one of either. */
	struct rk_insp_flow *rd_req[2], *rd_resp[2];
	bool rd_mixed[2];
};

enum msg_st {
	MSG_UNKNOWN = 0,
	MSG_IDLE = 1,
	MSG_INSIDE = 2,
};

/* Bits of the opcode flags that name the message kind. */
#define MSG_KINDS (RK_OPF_SEND | RK_OPF_WRITE | RK_OPF_READ_RESP)

static inline bool
is_first_only(uint32_t fl)
{
	return (fl & RK_OPF_ONLY) == RK_OPF_FIRST;
}

static inline bool
is_last_only(uint32_t fl)
{
	return (fl & RK_OPF_ONLY) == RK_OPF_LAST;
}

static inline bool
is_only(uint32_t fl)
{
	return (fl & RK_OPF_ONLY) == RK_OPF_ONLY;
}

/* The host pair of @p k (rk_insp_flow.c); @p dir is 0 when its source is side a. */
struct rk_insp_path *rk_insp_path_lookup(const struct rk_insp_flows *t,
					 const struct rk_insp_flow_key *k, int *dir);

/* rk_insp_read.c: READ requests of a host pair (side @p dir: requester). */
uint32_t rk_insp_read_span(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
			   const struct rk_insp_path *path, uint32_t dma_len, bool *unknown);
void rk_insp_read_remember(struct rk_insp_path *p, int dir, uint32_t psn, uint32_t dma_len);
/* The remembered READ at @p psn, or NULL. */
const struct pending_read *rk_insp_read_find(const struct rk_insp_path *p, int dir, uint32_t psn);
/* The first PSN of the READ whose response PSNs hold @p psn (the latest
 * starting at or before it); false when no remembered READ does. */
bool rk_insp_read_start(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
			const struct rk_insp_path *p, int dir, uint32_t psn, uint32_t *start);
/* The READ request count at the first copy of the READ a response starting
 * at @p psn answers; 0 when unknown. */
uint32_t rk_insp_read_answered(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
			       const struct rk_insp_path *path, int dir, uint32_t psn);

/* The PSN sequences of a flow: rk_insp_seq_request.c, rk_insp_seq_response.c
 * (rk_insp_resp_take_back() and rk_insp_seqx_free(): rk_insp_seq_holes.c). */
void rk_insp_track_request(struct rk_insp_flows *t, struct rk_insp_flow *flow,
			   const struct rk_insp_roce *r, uint32_t span, bool span_unknown,
			   struct rk_insp_seq_result *res);
void rk_insp_response(struct rk_insp_flows *t, struct rk_insp_flow *flow,
		      struct rk_insp_path *path, int dir, const struct rk_insp_roce *r,
		      struct rk_findings *found, struct rk_insp_seq_result *res);
void rk_insp_chain_settle(const struct rk_insp_flows *t, struct rk_insp_flow *flow,
			  enum rk_insp_verdict v);
/*
 * The READ response copy count (rk_insp_copies.c). Request @p r of
 * @p flow, reserving @p span PSNs (@p unknown: the span is not known),
 * from side @p dir of @p path (NULL: none).
 */
void rk_insp_copies_request(struct rk_insp_flow *flow, struct rk_insp_path *path, int dir,
			    const struct rk_insp_roce *r, uint32_t span, bool unknown);
/* A READ response at @p psn from side @p dir of @p path, on @p flow. */
void rk_insp_copies_response(struct rk_insp_path *path, int dir, struct rk_insp_flow *flow,
			     uint32_t psn);
/* The READ response just counted a gap of @p missing PSNs before @p psn. */
void rk_insp_copies_gap(struct rk_insp_path *path, int dir, uint32_t psn, uint32_t missing);

/*
 * End of capture, no verdict pending: the holes of @p flow's READ
 * responses whose PSN @p arrived(@p ctx, PSN) says came are no longer
 * missing (a gap all of whose PSNs came is no gap).
 * @return the PSNs taken back from flow->resp.missing.
 */
uint64_t rk_insp_resp_take_back(struct rk_insp_flow *flow,
				bool (*arrived)(const void *ctx, uint32_t psn), const void *ctx);
void rk_insp_resp_settle(const struct rk_insp_flows *t, struct rk_insp_flow *flow,
			 enum rk_insp_verdict v);
void rk_insp_seqx_free(struct rk_insp_seqx *x);

/*
 * Holes and verdicts (rk_insp_seq_*.c).
 *
 * A gap counts PSNs missing the moment a later PSN shows up: their packets
 * were lost before the capture point, or they come later (reordered on the
 * way). Each gap is remembered with the PSNs it counted (its holes) until
 * their own packets show up; a retransmitted copy does not close a hole,
 * since the late packet may still follow it. A packet at a hole is either
 * a retransmission (in a go-back-N run, or a replayed READ response) or
 * the hole's own packet, late. The packet alone cannot tell; the packets
 * of its sequence after it can: a retransmission goes on from it through
 * the following PSNs (perhaps losing some: the next one is then further
 * on), while after a late packet the sequence goes on where it stood (new
 * PSNs, the next PSN of the current run, another late packet elsewhere,
 * or the requester's own go-back to the late packet's PSN, NAKed before
 * it came). Until then the packet is pending and counts nothing; several
 * in a row make a chain with one verdict. A late packet's PSNs are no
 * longer missing, and a gap whose PSNs all came late was no gap.
 */

/* Packets in one pending chain; a longer one is a go-back-N run. */
#define CHAIN_MAX 64u

/* A gap of PSNs [psn, psn + len) while some of them are holes. */
struct gap_ev {
	uint32_t psn, len;
	uint64_t late;         /* PSNs (bit i: psn + i) whose packet came late */
	uint64_t pend;         /* PSNs claimed by the pending chain */
	bool rtx;              /* a gap inside a go-back-N run */
	bool uncounted;        /* PSNs a run skipped as acknowledged: not missing */
	uint32_t id;           /* the gap this piece is of (a long gap is several) */
	/* READ responses: the path's READ request count at the first copy
	 * of the READ being answered when the gap was counted (0: unknown),
	 * and the PSNs a replay has filled since (a copy each). */
	uint32_t rd_serial;
	uint64_t replayed;
};

/* A packet of the pending chain, and the PSNs it reserves. */
struct pend_pkt {
	struct rk_insp_roce r;
	uint32_t span;
};

struct rk_insp_seqx {
	struct gap_ev *evs;    /* oldest first */
	unsigned int nevs, evs_cap;
	unsigned int n, n_rtx; /* chain packets, those at holes of go-back-N runs */
	struct pend_pkt *pkt;  /* CHAIN_MAX, allocated with the first chain */
	struct rk_insp_msg_state vm; /* READ responses: the state a replay would leave */
	/* The message state before a packet that went back at no hole,
	 * while the next packet has not told whether it came late (READ
	 * responses: the response's; requests: the run's, flow->rtx_msg). */
	struct rk_insp_msg_state back;
	bool back_valid;
	/* Requests: where the run stood before such a packet. */
	uint32_t back_next, back_psn;
	bool back_next_valid;
	/* Requests: a packet that skipped forward inside the run (counted
	 * fwd_missing PSNs from fwd_next, remembered as gaps fwd_id0 to
	 * fwd_id), while the next one has not told whether the run goes on
	 * where it stood (the packet was then a copy sent out of the run,
	 * not a loss in it). */
	uint32_t fwd_next, fwd_missing, fwd_id0, fwd_id;
	uint32_t fwd_psn;      /* requests: the skipping packet's PSN */
	bool fwd_valid;
	/* The message state before such a packet (READ responses; for
	 * requests the go-back-N run's, flow->rtx_msg). */
	struct rk_insp_msg_state fwd_msg;
	uint32_t gap_id;       /* of the last gap remembered */
	/* READ responses: a packet of the pending chain cannot be a replay
	 * (no READ issued after the one its gap was in has a copy of its PSN
	 * left): the chain came late. */
	bool late_only;
};

/* rk_insp_seq_holes.c: the holes and the pending chain of a sequence. */
/* The track's extension, allocated on first use; NULL when out of memory. */
struct rk_insp_seqx *rk_insp_seqx_get(struct rk_insp_psn_track *tr);
/* Remember the gap of @p len PSNs from @p psn just counted (@p top: the next new PSN). */
void rk_insp_seq_gap_add(struct rk_insp_psn_track *tr, uint32_t top, uint32_t psn, uint32_t len,
			 bool rtx, bool uncounted);
/* The oldest gap with @p psn still a hole (neither late nor claimed), or -1. */
int rk_insp_seq_hole_at(const struct rk_insp_psn_track *tr, uint32_t psn);
/* A LATE verdict on the chain of @p tr. */
void rk_insp_seq_chain_late(struct rk_insp_psn_track *tr);
/* The chain's claims on the holes end: they stay holes. */
void rk_insp_seq_chain_unclaim(struct rk_insp_seqx *x);
/* Add @p r to the pending chain at the hole of gap @p h; false when out of memory. */
bool rk_insp_seq_chain_add(struct rk_insp_psn_track *tr, int h, const struct rk_insp_roce *r,
			   uint32_t span);
/* The PSN after the chain's last packet. */
uint32_t rk_insp_seq_chain_end(const struct rk_insp_seqx *x);
/* PSNs from the end of the chain's last packet to @p psn. */
int32_t rk_insp_seq_chain_skip(const struct rk_insp_seqx *x, uint32_t psn);
/* The packet before skipped forward and was out of the run: take back its gap. */
void rk_insp_seq_fwd_undo(struct rk_insp_psn_track *tr, bool rtx);
/* Remember that the packet just skipped the PSNs from @p from. */
void rk_insp_seq_fwd_note(struct rk_insp_psn_track *tr, uint32_t from, uint32_t missing,
			  uint32_t id0);

/* rk_insp_msg.c: message state and the PSNs of lost first transmissions. */
void rk_insp_request_message(struct rk_insp_msg_state *m, const struct rk_insp_roce *r,
			     bool checkable, bool taint, struct rk_findings *found,
			     uint32_t off_hint);
void rk_insp_lost_add(struct rk_insp_flow *flow, uint32_t psn, uint32_t len);
bool rk_insp_lost_take(struct rk_insp_flow *flow, uint32_t psn);

#endif /* RK_INSP_FLOW_INT_H */
