/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_mpa.h
 * MPA (RFC 5044, with RFC 6581 enhanced connection establishment): the
 * Request/Reply frames, FPDU framing with pad, CRC32c and markers, an FPDU
 * builder, and a deframer that follows one direction of a TCP stream.
 *
 * MPA Request / Reply frame (RFC 5044 7.1.1; RFC 6581):
 *
 *     bytes 0-15   Key: "MPA ID Req Frame" or "MPA ID Rep Frame" (ASCII, no NUL)
 *     byte 16      M(7) C(6) R(5) Enhanced(4) Res(3:0)
 *                  (Enhanced is RFC 6581's flag, used with Rev 2; in a
 *                  Rev 1 frame bits 4:0 are all Res)
 *     byte 17      Rev (1 = RFC 5044, 2 = RFC 6581)
 *     bytes 18-19  PD_Length (at most 512)
 *     bytes 20-    Private data. With Rev 2 and Enhanced set it starts with
 *                  the RFC 6581 IRD/ORD words:
 *                      bytes 0-1  A(15)=peer-to-peer B(14)=zero-length Send RTR IRD(13:0)
 *                      bytes 2-3  C(15)=zero-length Write RTR D(14)=zero-length Read RTR ORD(13:0)
 *                  (bit assignments as Linux siw and cxgb4 use them)
 *
 * M in a frame asks the *other* endpoint to put markers in the FPDUs it
 * sends to the frame's sender; C set in either frame turns CRC on in both
 * directions (RFC 5044 7.1.1). So one direction's markers are
 * decided by the frame travelling the opposite way.
 *
 * FPDU (RFC 5044 4.1), before markers are inserted:
 *
 *     bytes 0-1    ULPDU_Length: bytes of ULPDU (excludes itself, pad,
 *                  CRC and markers)
 *     ULPDU        the DDP segment (rk_ddp.h, rk_rdmap.h)
 *     pad          0-3 zero bytes: 2 + ULPDU_Length + pad is a multiple of 4
 *     CRC          CRC32c, present even when not negotiated; sent least
 *                  significant byte first, as iSCSI does (RFC 3720 B.4
 *                  vectors; Linux siw's crc32c digest bytes)
 *
 * Marker rule (RFC 5044 4.3; what Wireshark's MPA dissector
 * implements): when markers are on for a direction, a 4-byte marker
 * (16-bit Reserved = 0, 16-bit FPDUPTR) sits at every TCP sequence number
 * S with (S - SeqStart) mod 512 == 0, where SeqStart is the sequence number
 * of the first octet after that direction's MPA Request/Reply frame: a
 * marker therefore precedes the first FPDU, and the grid is laid on the
 * TCP stream, not on the ISN nor on FPDU boundaries. The 512 includes the
 * marker itself (508 data octets between markers). FPDUPTR counts the
 * octets from the first octet of the FPDU's ULPDU_Length to the first
 * octet of the marker; a marker that immediately precedes an FPDU's
 * ULPDU_Length belongs to that FPDU and carries 0. Markers are not counted
 * in ULPDU_Length and are covered by the CRC: the CRC runs over every
 * stream octet of the FPDU (its leading marker, ULPDU_Length, ULPDU, pad
 * and markers among them) up to the first CRC octet (RFC 5044 4.4).
 * FPDUs and the grid are both 4-aligned to SeqStart, so markers never split
 * ULPDU_Length or CRC on conforming streams; the builder and deframer still
 * handle any grid offset (a marker inside the CRC field is then not
 * covered by it).
 */
#ifndef RK_MPA_H
#define RK_MPA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_crc.h"
#include "rk_field.h"
#include "rk_finding.h"
#include "rk_rdmap.h"

#define RK_MPA_KEY_LEN 16
#define RK_MPA_KEY_REQ "MPA ID Req Frame"
#define RK_MPA_KEY_REP "MPA ID Rep Frame"
#define RK_MPA_RR_HDR_LEN 20
#define RK_MPA_PD_MAX 512
#define RK_MPA_REV_1 1
#define RK_MPA_REV_2 2

#define RK_MPA_FLAGS_OFF 16
#define RK_MPA_REV_OFF 17
#define RK_MPA_PD_LEN_OFF 18
#define RK_MPA_FLAG_M 0x80
#define RK_MPA_FLAG_C 0x40
#define RK_MPA_FLAG_R 0x20
#define RK_MPA_FLAG_ENHANCED 0x10
#define RK_MPA_FLAG_RES_MASK 0x0f

/* RFC 6581 IRD/ORD words at the start of the private data. */
#define RK_MPA_IRD_ORD_LEN 4
#define RK_MPA_IRD_ORD_MASK 0x3fff
#define RK_MPA_IRD_P2P 0x8000         /* A, in the IRD word */
#define RK_MPA_IRD_RTR_SEND 0x4000    /* B, in the IRD word */
#define RK_MPA_ORD_RTR_WRITE 0x8000   /* C, in the ORD word */
#define RK_MPA_ORD_RTR_READ 0x4000    /* D, in the ORD word */

#define RK_MPA_HDR_LEN 2              /* ULPDU_Length */
#define RK_MPA_CRC_LEN 4
#define RK_MPA_MARKER_LEN 4
#define RK_MPA_MARKER_SPACING 512
/** Largest FPDU without markers: 2 + 65535 + 3 + 4 bytes. */
#define RK_MPA_FPDU_MAX (RK_MPA_HDR_LEN + 65535 + 3 + RK_MPA_CRC_LEN)
/** Most markers one FPDU can contain (its leading one included). */
#define RK_MPA_FPDU_MARKERS_MAX 132

/*
 * Field lists, in wire order (rk_field.h explains the rows). Request/Reply
 * accessors take the key's first byte, IRD/ORD ones the first private data
 * byte, the others the FPDU's or the marker's first byte.
 */
#define RK_MPA_RR_FIELDS(X, T)                                                     \
	X(mpa_rr, m, "M", "m", RK_MPA_FLAGS_OFF, 1, RK_MPA_FLAG_M, uint8_t, "RFC 5044 7.1.1") \
	X(mpa_rr, c, "C", "c", RK_MPA_FLAGS_OFF, 1, RK_MPA_FLAG_C, uint8_t, "RFC 5044 7.1.1") \
	X(mpa_rr, r, "R", "r", RK_MPA_FLAGS_OFF, 1, RK_MPA_FLAG_R, uint8_t, "RFC 5044 7.1.1") \
	X(mpa_rr, enhanced, "Enhanced", "enhanced", RK_MPA_FLAGS_OFF, 1,                 \
	  RK_MPA_FLAG_ENHANCED, uint8_t, "RFC 6581")                                      \
	X(mpa_rr, res, "Res", "res", RK_MPA_FLAGS_OFF, 1, RK_MPA_FLAG_RES_MASK, uint8_t, \
	  "RFC 5044 7.1.1")                                                               \
	X(mpa_rr, rev, "Rev", "rev", RK_MPA_REV_OFF, 1, 0xff, uint8_t, "RFC 5044 7.1.1") \
	X(mpa_rr, pd_len, "PD_Length", "pd_len", RK_MPA_PD_LEN_OFF, 2, 0xffff, uint16_t, \
	  "RFC 5044 7.1.1")
#define RK_MPA_IRD_ORD_FIELDS(X, T)                                                \
	X(mpa, p2p, "A", "p2p", 0, 2, RK_MPA_IRD_P2P, uint8_t, "RFC 6581")               \
	X(mpa, rtr_send, "B", "rtr_send", 0, 2, RK_MPA_IRD_RTR_SEND, uint8_t, "RFC 6581") \
	X(mpa, ird, "IRD", "ird", 0, 2, RK_MPA_IRD_ORD_MASK, uint16_t, "RFC 6581")       \
	X(mpa, rtr_write, "C", "rtr_write", 2, 2, RK_MPA_ORD_RTR_WRITE, uint8_t, "RFC 6581") \
	X(mpa, rtr_read, "D", "rtr_read", 2, 2, RK_MPA_ORD_RTR_READ, uint8_t, "RFC 6581") \
	X(mpa, ord, "ORD", "ord", 2, 2, RK_MPA_IRD_ORD_MASK, uint16_t, "RFC 6581")
#define RK_MPA_FPDU_HDR_FIELDS(X, T) \
	X(mpa, ulpdu_len, "ULPDU_Length", "ulpdu_len", 0, 2, 0xffff, uint16_t, "RFC 5044 4.1")
#define RK_MPA_MARKER_FIELDS(X, T)                                                 \
	X(mpa_marker, rsvd, "Reserved", "rsvd", 0, 2, 0xffff, uint16_t, "RFC 5044 4.3")  \
	X(mpa_marker, fpduptr, "FPDUPTR", "fpduptr", 2, 2, 0xffff, uint16_t, "RFC 5044 4.3")

/* rk_mpa_rr_m() ... rk_mpa_marker_fpduptr() and their setters. */
RK_MPA_RR_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_MPA_IRD_ORD_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_MPA_FPDU_HDR_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_MPA_MARKER_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** Pad bytes after a ULPDU of @p ulpdu_len bytes (RFC 5044 4.1): 0..3. */
static inline uint8_t
rk_mpa_pad_len(uint16_t ulpdu_len)
{
	return (uint8_t)((4u - ((RK_MPA_HDR_LEN + (uint32_t)ulpdu_len) & 3u)) & 3u);
}

/** FPDU length without markers: ULPDU_Length field, ULPDU, pad and CRC. */
static inline uint32_t
rk_mpa_fpdu_len(uint16_t ulpdu_len)
{
	return RK_MPA_HDR_LEN + (uint32_t)ulpdu_len + rk_mpa_pad_len(ulpdu_len) +
	       RK_MPA_CRC_LEN;
}

/** RFC 6581 IRD/ORD words, host order. */
struct rk_mpa_ird_ord {
	uint16_t ird, ord;      /**< 14 bits each */
	uint8_t p2p;            /**< A: peer-to-peer (RTR) negotiation */
	uint8_t rtr_send;       /**< B: zero-length Send RTR */
	uint8_t rtr_write;      /**< C: zero-length RDMA Write RTR */
	uint8_t rtr_read;       /**< D: zero-length RDMA Read RTR */
};

/** An MPA Request or Reply frame in host form (parse / build). */
struct rk_mpa_rr {
	bool reply;             /**< key "MPA ID Rep Frame" (else "... Req ...") */
	uint8_t m, c, r, enhanced;
	uint8_t res;            /**< Res bits 3:0 */
	uint8_t rev;
	uint16_t pd_len;        /**< PD_Length as on the wire (parse only) */
	bool has_ird_ord;       /**< Rev 2, Enhanced and PD_Length >= 4 */
	struct rk_mpa_ird_ord ird_ord;
	const uint8_t *ulp_pd;  /**< private data after the IRD/ORD words */
	uint16_t ulp_pd_len;    /**< bytes at ulp_pd (parse: as available) */
};

/**
 * Parse an MPA Request or Reply frame and run its stateless checks
 * (mpa.key.bad, mpa.rev.unknown, mpa.request.r_set, mpa.pd_length.over,
 * mpa.reserved.nonzero, mpa.enhanced.pd_too_short). Finding offsets are
 * bytes from @p buf.
 * @param buf  the frame's first byte (the key)
 * @param len  bytes available at @p buf
 * @param rr   out: the frame; rr->ulp_pd points into @p buf
 * @param f    findings (may be NULL)
 * @return the frame length 20 + PD_Length when all of it is in @p buf;
 *         -EAGAIN when @p len is shorter (rr is filled from the 20-byte
 *         header when at least 20 bytes are there); -EPROTO when the key is
 *         not an MPA key (mpa.key.bad); -EINVAL on NULL arguments.
 */
int rk_mpa_rr_parse(const uint8_t *buf, size_t len, struct rk_mpa_rr *rr,
		    struct rk_findings *f);

/**
 * Build an MPA Request or Reply frame: key, flags (including Res as given,
 * so invalid frames can be built), Rev, PD_Length = (has_ird_ord ? 4 : 0)
 * + ulp_pd_len, the IRD/ORD words when has_ird_ord, then ulp_pd.
 * @return bytes written; -ENOSPC when @p cap is too small; -EINVAL on NULL
 *         arguments or a private data length above 65535.
 */
int rk_mpa_rr_build(uint8_t *buf, size_t cap, const struct rk_mpa_rr *rr);

/**
 * RFC 6581 RTR check of a Reply against the Request it answers: when both
 * carry IRD/ORD and the Reply sets the peer-to-peer flag A, it must select
 * exactly one RTR type (B, C or D) that the Request offered; otherwise
 * mpa.rtr.mismatch is added (offset 20, the IRD/ORD words of the Reply).
 * @return 1 when the finding was raised, 0 otherwise.
 */
int rk_mpa_rtr_check(const struct rk_mpa_rr *req, const struct rk_mpa_rr *rep,
		     struct rk_findings *f);

/** Where an FPDU goes in the sender's stream (rk_mpa_fpdu_build). */
struct rk_mpa_tx {
	bool markers;           /**< markers on for this direction */
	bool crc;               /**< CRC negotiated; else the CRC field is 0 */
	uint32_t seq;           /**< TCP sequence number of the FPDU's first byte */
	uint32_t marker_seq0;   /**< SeqStart: first octet after the MPA frame */
};

/**
 * Stream bytes an FPDU of @p ulpdu_len bytes takes at @p tx->seq:
 * rk_mpa_fpdu_len() plus 4 per marker that falls inside it (a marker at
 * its first byte included, one right after its CRC not).
 */
uint32_t rk_mpa_fpdu_wire_len(uint16_t ulpdu_len, const struct rk_mpa_tx *tx);

/**
 * Build one FPDU into @p buf: ULPDU_Length, a copy of @p ulpdu, zero pad,
 * markers at their grid positions (FPDUPTR as in the rule above, Reserved
 * 0) and the CRC32c (or 0 when !tx->crc). Advance tx->seq by the return
 * value to place the next FPDU.
 * @param ulpdu  @p ulpdu_len bytes (may be NULL when @p ulpdu_len is 0)
 * @return bytes written (rk_mpa_fpdu_wire_len()); -ENOSPC when @p cap is
 *         too small; -EINVAL on NULL arguments.
 */
int rk_mpa_fpdu_build(uint8_t *buf, size_t cap, const uint8_t *ulpdu,
		      uint16_t ulpdu_len, const struct rk_mpa_tx *tx);

/** What the deframer reports for one unit of the stream. */
enum rk_mpa_event_kind {
	RK_MPA_EV_REQUEST,  /**< MPA Request frame parsed */
	RK_MPA_EV_REPLY,    /**< MPA Reply frame parsed */
	RK_MPA_EV_FPDU,     /**< one FPDU (markers removed, CRC checked if in use) */
	RK_MPA_EV_LOST_SYNC,/**< framing lost: bytes are skipped (see lost, resync_possible) */
	RK_MPA_EV_RESYNC,   /**< framing regained at a marker: FPDUs follow from seq */
};

/** Why framing was lost (RK_MPA_EV_LOST_SYNC). */
enum rk_mpa_lost_reason {
	RK_MPA_LOST_NONE = 0,
	RK_MPA_LOST_NOT_MPA,    /**< the stream does not start with an MPA frame */
	RK_MPA_LOST_KEY_BAD,    /**< it starts with "MPA ID " but the key is wrong */
	RK_MPA_LOST_GAP,        /**< bytes missing (rk_mpa_stream_gap, sequence jump) */
	RK_MPA_LOST_TRUNCATED,  /**< the stream ended inside a frame or FPDU */
};

/** Negotiated MPA options of one direction. */
struct rk_mpa_params {
	uint8_t rev;        /**< 1 or 2 (Rev of this direction's frame) */
	bool markers;       /**< markers in this direction (M of the peer's frame) */
	bool crc;           /**< CRC in use (C set by either side) */
};

/** One marker found inside an FPDU. */
struct rk_mpa_marker_info {
	uint32_t seq;       /**< TCP sequence number of its first byte */
	uint32_t at;        /**< marker-free FPDU offset it precedes (0: before ULPDU_Length) */
	uint16_t rsvd;      /**< Reserved half (0 expected) */
	uint16_t fpduptr;   /**< FPDUPTR carried */
	uint16_t expected;  /**< FPDUPTR the rule requires */
	bool covered;       /**< inside the CRC coverage */
};

/** An FPDU as the deframer delivers it. */
struct rk_mpa_fpdu {
	uint32_t hdr_seq;        /**< TCP sequence number of ULPDU_Length's first byte */
	uint16_t ulpdu_len;      /**< ULPDU_Length */
	const uint8_t *ulpdu;    /**< ulpdu_len bytes, markers removed, stream-owned */
	uint8_t pad_len;
	const uint8_t *pad;      /**< pad_len bytes */
	uint32_t crc_carried;    /**< CRC field read as a CRC32c value */
	uint32_t crc_computed;   /**< valid when crc_checked */
	bool crc_checked;        /**< CRC in use (negotiated or inferred), so checked */
	bool crc_ok;             /**< crc_checked and equal */
	uint16_t nmarkers;
	const struct rk_mpa_marker_info *markers; /**< nmarkers entries, stream-owned */
	bool markers_ok;         /**< every FPDUPTR and Reserved as expected */
	struct rk_rdmap_msg msg; /**< DDP/RDMAP decoded from ulpdu (rk_rdmap_parse) */
};

/**
 * One deframer event. Finding offsets are bytes from the event's first
 * byte (@c seq), markers included. Pointers inside (private data, ULPDU,
 * markers) point into the stream and are valid only during the callback.
 */
struct rk_mpa_event {
	enum rk_mpa_event_kind kind;
	uint64_t stream_off;        /**< offset of the first byte from the stream's first byte */
	uint32_t seq;               /**< TCP sequence number of the first byte */
	uint32_t wire_len;          /**< stream bytes the event spans, markers included */
	struct rk_mpa_params params;/**< options in force for this direction */
	bool params_inferred;       /**< guessed from the bytes: no peer frame applied */
	enum rk_mpa_lost_reason lost;   /**< LOST_SYNC: why */
	bool resync_possible;       /**< LOST_SYNC: markers may regain framing */
	struct rk_mpa_rr rr;        /**< REQUEST / REPLY */
	struct rk_mpa_fpdu fpdu;    /**< FPDU */
	struct rk_findings findings;
};

/** Event callback of the deframer; @p ev is valid during the call only. */
typedef void (*rk_mpa_event_cb)(const struct rk_mpa_event *ev, void *ctx);

/**
 * Deframer state for one direction of a TCP connection. Pure (no I/O, no
 * clock, no allocation): the caller owns it (about 67 KiB: the marker-free
 * FPDU is copied into @c buf, which is also the 64 KiB history used to
 * resynchronise at markers after a gap). Fields are private.
 */
struct rk_mpa_stream {
	uint8_t state;
	bool seq_valid;
	uint32_t next_seq;          /* sequence number of the next byte expected */
	uint64_t off;               /* stream offset of that byte */
	/* negotiation */
	struct rk_mpa_params params;
	bool params_known;          /* peer frame applied or init_fpdu */
	bool params_inferred;
	bool own_seen;              /* this direction's frame parsed */
	bool own_c;
	bool peer_applied;
	bool peer_m, peer_c;
	uint8_t crc_mode;           /* 0 off, 1 on, 2 infer at the first FPDU */
	bool grid_valid;
	uint32_t marker_seq0;       /* SeqStart of the marker grid */
	/* MPA frame */
	uint8_t rr_buf[RK_MPA_RR_HDR_LEN + RK_MPA_PD_MAX];
	uint32_t rr_have;           /* frame bytes consumed */
	uint32_t rr_need;           /* 20 + PD_Length once known */
	/* current unit (frame or FPDU) */
	bool in_unit;
	uint32_t unit_seq;
	uint64_t unit_off;
	/* FPDU */
	bool probed;                /* markers decided for the first FPDU */
	uint8_t probe_have;
	bool len_known;
	uint32_t have;              /* marker-free bytes in buf */
	uint32_t need;              /* rk_mpa_fpdu_len() */
	uint32_t crc_start;         /* marker-free offset of the CRC field */
	uint32_t hdr_seq;
	rk_crc32c_state crc;
	uint8_t mk[RK_MPA_MARKER_LEN];
	uint8_t mk_have;
	uint32_t mk_seq;
	uint32_t mk_at;
	bool mk_covered;
	uint16_t nmarkers;
	struct rk_mpa_marker_info markers[RK_MPA_FPDU_MARKERS_MAX];
	/* lost / resync */
	uint32_t lost_from;         /* history in buf is valid from this seq */
	uint32_t skip_to;           /* resync target (state SKIP) */
	/* counters */
	uint64_t fpdus;             /* FPDU events emitted */
	uint64_t skipped;           /* bytes skipped while out of sync */
	struct rk_mpa_event ev;
	uint8_t buf[RK_MPA_FPDU_MAX];
};

/**
 * Start a deframer for a direction that begins with its MPA Request or
 * Reply; the first byte fed sets the stream origin.
 */
void rk_mpa_stream_init(struct rk_mpa_stream *s);

/**
 * Start a deframer on a direction already in full operation (no MPA
 * frame): the first FPDU starts at @p seq, options are @p p, and markers
 * (when p->markers) sit on the grid anchored at @p marker_seq0 (SeqStart).
 */
void rk_mpa_stream_init_fpdu(struct rk_mpa_stream *s, const struct rk_mpa_params *p,
			     uint32_t seq, uint32_t marker_seq0);

/**
 * Tell the deframer the MPA frame sent by the endpoint that *receives*
 * this direction's bytes (the frame of the opposite direction): its M
 * decides markers here, its C (or this direction's C) turns CRC on.
 * Call it before FPDU bytes are fed. Without it, the deframer infers the
 * options at the first FPDU: markers when its first two bytes are 0 (a
 * leading marker's Reserved; ULPDU_Length 0 is invalid), CRC when this
 * direction's C is set or the first FPDU's CRC matches; events then carry
 * params_inferred. Applied late, only the CRC setting still changes.
 */
void rk_mpa_stream_apply_peer(struct rk_mpa_stream *s, const struct rk_mpa_rr *peer);

/**
 * Feed in-order TCP payload bytes of this direction, in pieces of any size
 * (one byte at a time works). Events are delivered through @p cb as units
 * complete: several per call, or none until a later call completes one.
 * A @p seq ahead of the expected one is handled as rk_mpa_stream_gap();
 * bytes before the expected one (retransmissions) are skipped.
 * Never reads outside @p data[0..len).
 * @param seq  TCP sequence number of @p data[0] (modulo 2^32)
 * @return the number of events delivered; -EINVAL on NULL @p s or
 *         (@p data NULL with @p len > 0).
 */
int rk_mpa_stream_feed(struct rk_mpa_stream *s, uint32_t seq, const uint8_t *data,
		       size_t len, rk_mpa_event_cb cb, void *ctx);

/**
 * The bytes from the expected sequence number up to @p next_seq are
 * missing (a hole in the capture). The unit in progress is dropped and
 * RK_MPA_EV_LOST_SYNC is delivered (once per loss). With markers on, the
 * deframer looks at each later marker: one with FPDUPTR 0, or one whose
 * FPDU header was received after the hole, gives the next FPDU boundary
 * (RK_MPA_EV_RESYNC there). Without markers the rest is skipped.
 * @return the number of events delivered; -EINVAL on NULL @p s.
 */
int rk_mpa_stream_gap(struct rk_mpa_stream *s, uint32_t next_seq,
		      rk_mpa_event_cb cb, void *ctx);

/**
 * The stream ended (FIN or end of capture): a unit in progress is reported
 * as RK_MPA_EV_LOST_SYNC with reason RK_MPA_LOST_TRUNCATED.
 * @return the number of events delivered; -EINVAL on NULL @p s.
 */
int rk_mpa_stream_finish(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx);

/** Options in force for this direction (meaningful after the frame). */
const struct rk_mpa_params *rk_mpa_stream_params(const struct rk_mpa_stream *s);

/** Whether the deframer is in sync (parsing a frame or FPDUs). */
bool rk_mpa_stream_in_sync(const struct rk_mpa_stream *s);

/** Field tables: Request/Reply header after the key (relative to the key's
 * first byte), IRD/ORD words, ULPDU_Length, marker and CRC. */
extern const struct rk_header_desc rk_mpa_rr_desc, rk_mpa_ird_ord_desc,
	rk_mpa_fpdu_hdr_desc, rk_mpa_marker_desc, rk_mpa_crc_desc;

#endif /* RK_MPA_H */
