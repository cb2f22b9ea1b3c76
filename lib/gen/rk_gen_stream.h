/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_stream.h
 * Stateless streams of crafted frames: a template built from a header
 * stack, any field of it overridden with any value (invalid ones
 * included), per-packet variations, and frames written one at a time.
 *
 * A RoCEv2 frame (IBTA Annex A17.3) is laid out as
 *
 *     Ethernet 14 B [802.1Q tag 4 B] | IPv4 20 B or IPv6 40 B | UDP 8 B
 *     | BTH 12 B | extended headers of the opcode (IBTA Vol1 9.3)
 *     | payload | pad to 4 B | ICRC 4 B (little-endian, A17.3.3)
 *
 * and the other kinds are an IEEE 802.3x PAUSE or IEEE 802.1Qbb PFC MAC
 * Control frame of 60 bytes (no FCS). A CNP (Annex A17.9.3) is the RoCEv2
 * kind with opcode 0x81.
 *
 * Fields are named by header and field as the tables of lib/wire name
 * them (rk_field.h): the spec name ("PSN", "DestQP") or its key ("psn",
 * "dest_qp"). Building order: the header stack from the opcode, VLAN and
 * IP version (rk_build_rocev2: lengths, PadCnt, checksum, ICRC), then the
 * overrides in the order given, then the IPv4 Header Checksum again
 * (unless overridden) and the ICRC over the result (icrc: full and
 * incremental; bad writes its complement). Truncation cuts the frame
 * last, so a truncated frame keeps the headers it still holds.
 *
 * Frame i of a stream: each variation writes its value for i into the
 * template, the ICRC follows (recomputed, or patched from the changed bytes
 * with rk_gen_icrc.h), an IPv4 header field's change is folded into the
 * Header Checksum (RFC 1624), and the frame is copied out.
 *
 * The sequence slot, when asked for, is 16 payload bytes at a chosen
 * offset: stream id (32 bits), sequence number i (32 bits) and TX time
 * (64 bits, ns; given to rk_gen_stream_next_at() or rk_gen_stream_stamp(),
 * else 0), all big-endian.
 *
 * libc and ISA-L only: no clock, no I/O; the caller supplies time.
 */
#ifndef RK_GEN_STREAM_H
#define RK_GEN_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_field.h"

/** Headers a field reference can name. */
enum rk_gen_hdr {
	RK_GEN_H_ETH = 0,
	RK_GEN_H_VLAN,
	RK_GEN_H_IPV4,
	RK_GEN_H_IPV6,
	RK_GEN_H_UDP,
	RK_GEN_H_BTH,
	RK_GEN_H_RDETH,
	RK_GEN_H_DETH,
	RK_GEN_H_XRCETH,
	RK_GEN_H_FETH,
	RK_GEN_H_RETH,
	RK_GEN_H_ATMETH,
	RK_GEN_H_AETH,
	RK_GEN_H_ATMACK,
	RK_GEN_H_IMMDT,
	RK_GEN_H_IETH,
	RK_GEN_H_PAYLOAD, /**< bytes of the payload: off and size of the ref */
	RK_GEN_H_ANY,     /**< unqualified name: BTH, extended headers, UDP, resolved per template */
	RK_GEN_H_COUNT
};

/** Frame kinds. */
enum rk_gen_kind {
	RK_GEN_ROCEV2 = 0,
	RK_GEN_PAUSE,     /**< IEEE 802.3x annex 31B */
	RK_GEN_PFC,       /**< IEEE 802.1Qbb 36.1.3 */
};

/** What the ICRC of each frame is. */
enum rk_gen_icrc_mode {
	RK_GEN_ICRC_INCREMENTAL = 0, /**< valid, patched from the varied bytes */
	RK_GEN_ICRC_FULL,            /**< valid, recomputed over the frame */
	RK_GEN_ICRC_BAD,             /**< the complement of the valid value */
};

/** Payload fill. */
enum rk_gen_pattern {
	RK_GEN_PAT_ZERO = 0,
	RK_GEN_PAT_INC,   /**< byte k is k mod 256 */
	RK_GEN_PAT_BYTE,  /**< every byte pattern_byte */
	RK_GEN_PAT_RANDOM, /**< pseudo-random from the stream's seed */
};

/** Variation operators (a field engine's). */
enum rk_gen_vary_op {
	RK_GEN_VARY_INC = 0, /**< start, start+step, ... wrapping from max to min */
	RK_GEN_VARY_DEC,     /**< start, start-step, ... wrapping from min to max */
	RK_GEN_VARY_RANDOM,  /**< uniform in [min, max], seeded, same for the same i */
	RK_GEN_VARY_LIST,    /**< values[0], values[1], ... cyclically */
};

/** Message trains: the opcodes of each packet of a message. */
enum rk_gen_train_op {
	RK_GEN_TRAIN_NONE = 0,
	RK_GEN_TRAIN_WRITE,   /**< RC RDMA WRITE First/Middle.../Last, or Only */
	RK_GEN_TRAIN_SEND,    /**< RC SEND First/Middle.../Last, or Only */
	RK_GEN_TRAIN_READ_RESP, /**< RC RDMA READ Response First/Middle.../Last, or Only */
	/** RC RDMA READ Requests, one per message: DMALen the message, each
	 * reserving ceil(message / PMTU) PSNs (IBTA Vol1 9.4.4), the VA
	 * advancing by the message. */
	RK_GEN_TRAIN_READ,
	/** RC ACKs, one per message of the requester's train: the PSN advancing
	 * by the message's packets, the MSN by one (a coalesced ACK per
	 * message, IBTA Vol1 9.7.5.1.2). */
	RK_GEN_TRAIN_ACK,
};

/** A field of the template. */
struct rk_gen_ref {
	uint8_t hdr;               /**< enum rk_gen_hdr */
	const struct rk_field *f;  /**< row of the header's table; NULL for the payload */
	char name[24];             /**< the name as given, for RK_GEN_H_ANY */
	uint32_t off;              /**< payload: offset in bytes from its start */
	uint8_t size;              /**< payload: bytes, 1..8 */
};

/** One field set to one value. */
struct rk_gen_override {
	struct rk_gen_ref ref;
	uint64_t value;            /**< fits the field's width (the parser checks) */
	uint32_t line;             /**< source line, for errors; 0 if none */
};

#define RK_GEN_LIST_MAX 128

/** One variation. */
struct rk_gen_vary {
	struct rk_gen_ref ref;
	uint8_t op;                /**< enum rk_gen_vary_op */
	uint64_t min, max;         /**< inclusive range; max 0 = the field's all-ones */
	uint64_t step;             /**< 0 means 1 */
	uint64_t start;            /**< first value when has_start; else the template's */
	bool has_start;
	uint32_t every;            /**< keep each value for this many frames; 0 means 1 */
	uint64_t seed;             /**< RK_GEN_VARY_RANDOM */
	uint32_t nvalues;          /**< RK_GEN_VARY_LIST */
	uint64_t values[RK_GEN_LIST_MAX];
	uint32_t line;
};

#define RK_GEN_OVERRIDES_MAX 64
#define RK_GEN_VARY_MAX 16
/** Largest template: a 9 KiB jumbo payload with every header. */
#define RK_GEN_FRAME_MAX 9400
/** payload_len meaning "the opcode's default". */
#define RK_GEN_PAYLOAD_DEFAULT UINT32_MAX
/** Bytes of the sequence slot in the payload. */
#define RK_GEN_SEQ_LEN 16

/** Rate units (kept for the sender; the core does not pace). */
enum rk_gen_rate_unit {
	RK_GEN_RATE_NONE = 0,
	RK_GEN_RATE_PPS,     /**< packets per second */
	RK_GEN_RATE_BPS,     /**< bits per second of frame bytes */
	RK_GEN_RATE_PERCENT, /**< percent of the port's line rate */
};

/**
 * A stream as configured: what rk_gen_stream_compile() builds from.
 * Start from rk_gen_cfg_init(); the parser and the command line fill it.
 */
/** Ports a stream's `ports` may name: bits 0..7 of rk_gen_cfg.ports. */
#define RK_GEN_PORT_BITS 8

struct rk_gen_cfg {
	char name[48];
	uint32_t line;            /**< where the stream starts in its file */
	uint8_t kind;             /**< enum rk_gen_kind */
	bool vlan;                /**< one 802.1Q tag */
	uint8_t ip_version;       /**< 4 or 6 */
	uint8_t opcode;           /**< BTH OpCode: decides the extended headers */
	uint32_t payload_len;     /**< bytes, before pad; trains: message size;
				       RK_GEN_PAYLOAD_DEFAULT: 64 if the opcode carries
				       payload, else 0 */
	uint8_t pattern;          /**< enum rk_gen_pattern */
	uint8_t pattern_byte;
	uint64_t seed;            /**< payload RK_GEN_PAT_RANDOM */
	bool seq;                 /**< write the sequence slot */
	uint32_t seq_off;         /**< its offset in the payload, bytes */
	uint32_t stream_id;       /**< written in the slot */
	uint8_t icrc;             /**< enum rk_gen_icrc_mode */
	uint32_t truncate;        /**< cut frames to this many bytes; 0 = whole */
	uint64_t count;           /**< frames when count_set; 0 = endless */
	bool count_set;           /**< else: one frame, or one message of a train */
	uint8_t train;            /**< enum rk_gen_train_op */
	uint32_t pmtu;            /**< train: payload bytes per packet (256..4096) */
	uint16_t pause_quanta;    /**< PAUSE: pause time, 512 bit times */
	uint8_t pfc_class_enable; /**< PFC: priority n enabled by bit n */
	bool pfc_class_enable_set; /**< else: the priorities with non-zero quanta */
	uint16_t pfc_quanta[8];   /**< PFC: pause time per priority */
	uint8_t rate_unit;        /**< enum rk_gen_rate_unit */
	double rate;
	/* Bursts: after every burst_frames frames (at the rate), an idle gap
	 * of burst_gap_us; 0 frames: no bursts. */
	uint32_t burst_frames;
	uint32_t burst_gap_us;
	/* On/off: the stream sends for on_us, then is silent for off_us, and
	 * again; 0: always on. Times are the sender's (rk-gen's scheduler). */
	uint32_t on_us, off_us;
	/* Bit k: sent on the k-th port of the run (rk-gen's k-th --port,
	 * rk-testpmd's port k); 0: on every port. A pcap file gets them all. */
	uint8_t ports;
	uint32_t noverrides;
	struct rk_gen_override overrides[RK_GEN_OVERRIDES_MAX];
	uint32_t nvary;
	struct rk_gen_vary vary[RK_GEN_VARY_MAX];
};

/**
 * The defaults: RoCEv2 over IPv4, 02:00:00:00:00:01 -> 02:00:00:00:00:02,
 * 198.18.0.1 -> 198.18.0.2 (RFC 2544 benchmarking range), TTL 64, DF,
 * UDP source port 0xC000, RC SEND Only to DestQP 0x11 with P_Key 0xFFFF,
 * PSN 0, 64 payload bytes of zeros, incremental ICRC, one frame.
 */
void rk_gen_cfg_init(struct rk_gen_cfg *c);

/** Where and why a configuration was refused. */
struct rk_gen_err {
	uint32_t line;       /**< source line of the offending entry, 0 if unknown */
	char field[64];      /**< the field as written: "bth.psn", "vary[1]" */
	char reason[160];
};

/**
 * Find header @p name: its key ("eth", "vlan", "ipv4", "ipv6", "udp", "bth",
 * "rdeth", "deth", "xrceth", "feth", "reth", "atomiceth", "aeth",
 * "atomicacketh", "immdt", "ieth") or its table's name ("BTH", "802.1Q"),
 * case-insensitively.
 * @return enum rk_gen_hdr, or -1.
 */
int rk_gen_hdr_find(const char *name);

/** Key of header @p h ("bth"); "payload" and "?" for the others. */
const char *rk_gen_hdr_key(enum rk_gen_hdr h);

/** Field table of header @p h, NULL for the payload and unqualified names. */
const struct rk_header_desc *rk_gen_hdr_desc(enum rk_gen_hdr h);

/**
 * Resolve "field" or "header.field" into @p ref. An unqualified name is
 * looked up in the BTH, the extended headers and UDP (R_Key and VA resolve
 * to whichever of RETH, AtomicETH, IETH the frame carries); Ethernet,
 * 802.1Q and IP fields need their header. "payload" gives a payload ref
 * (off 0, size 4; the caller may change both).
 * @return 0, or -ENOENT with @p why set (unknown header, unknown field,
 *         ambiguous name).
 */
int rk_gen_ref_parse(struct rk_gen_ref *ref, const char *name, const char **why);

/** Largest value the field of @p ref holds (all ones of its width). */
uint64_t rk_gen_ref_max(const struct rk_gen_ref *ref);

/**
 * Parse an opcode: a number 0..255, or a name of the opcode table with
 * spaces, '_' or '-' alike and case ignored, "RDMA" optional and "RC"
 * implied ("RC_RDMA_WRITE_ONLY", "WRITE_ONLY", "UD SEND Only", "CNP").
 * @return 0, or -EINVAL.
 */
int rk_gen_opcode_parse(const char *s, uint8_t *opcode);

/** The train names, for messages: "WRITE, SEND, READ_RESPONSE, READ or ACK". */
#define RK_GEN_TRAIN_NAMES "WRITE, SEND, READ_RESPONSE, READ or ACK"

/**
 * Parse a train name (RK_GEN_TRAIN_NAMES, case ignored).
 * @return its enum rk_gen_train_op, or -EINVAL.
 */
int rk_gen_train_parse(const char *s);

struct rk_gen_stream;

/**
 * Build stream @p c: its templates (one, or First/Middle/Last for a train),
 * the overrides, and the tables of its varied fields.
 * @param out  receives the stream (free with rk_gen_stream_free())
 * @param err  filled on failure (may be NULL)
 * @return 0; -EINVAL for a field the frame lacks (an extended header the
 *         opcode does not carry, an IPv6 field on IPv4), a bad train or
 *         variation range, -EMSGSIZE when the frame exceeds
 *         RK_GEN_FRAME_MAX or the sequence slot does not fit the payload,
 *         -ENOMEM.
 */
int rk_gen_stream_compile(const struct rk_gen_cfg *c, struct rk_gen_stream **out,
			  struct rk_gen_err *err);

/** Free a stream (NULL is fine). */
void rk_gen_stream_free(struct rk_gen_stream *s);

/**
 * Write the stream's next frame into @p buf.
 * @return frame bytes (after truncation), 0 when the count is reached,
 *         or -ENOSPC when @p cap is smaller than the frame.
 */
int rk_gen_stream_next(struct rk_gen_stream *s, uint8_t *buf, uint32_t cap);

/**
 * rk_gen_stream_next() with TX time @p tx_ns (ns, the caller's clock) in
 * the sequence slot, the ICRC kept by the slot's prepared tables: what a
 * sender uses when it knows the time before it builds the frame.
 * rk_gen_stream_next() writes 0.
 */
int rk_gen_stream_next_at(struct rk_gen_stream *s, uint8_t *buf, uint32_t cap, uint64_t tx_ns);

/** Start over from frame 0. */
void rk_gen_stream_reset(struct rk_gen_stream *s);

/** Index of the frame the next rk_gen_stream_next() writes. */
uint64_t rk_gen_stream_index(const struct rk_gen_stream *s);

/** The configuration the stream was compiled from. */
const struct rk_gen_cfg *rk_gen_stream_cfg(const struct rk_gen_stream *s);

/** A byte range of a frame: offset and length. */
struct rk_gen_range {
	uint16_t off, len;
};

/** What rk_gen_stream_next_ref() tells of the frame it made. */
struct rk_gen_ref_frame {
	uint32_t len;                    /**< bytes (after truncation) */
	uint32_t tmpl;                   /**< its template, 0..2 (a train's First, Middle, Last) */
	const struct rk_gen_range *dirty; /**< the only bytes in which frames of
					       this template differ */
	uint32_t ndirty;
};

/**
 * rk_gen_stream_next_at() without the copy: the frame is built in the
 * stream's template @p f->tmpl and stays valid until the next call on
 * @p s. Two frames of the same template differ only in @p f->dirty, so a
 * buffer that holds an earlier frame of that template becomes this one
 * by copying those ranges alone (a generator's send path).
 * @return the frame, or NULL when the count is reached.
 */
const uint8_t *rk_gen_stream_next_ref(struct rk_gen_stream *s, uint64_t tx_ns,
				      struct rk_gen_ref_frame *f);

/**
 * A sender's burst of rk_gen_stream_next_ref() frames, for a stream
 * without the sequence slot: the frame the last rk_gen_stream_next_ref()
 * made (described by @p f) is written into @p bufs[0], the next one made
 * and written into @p bufs[1], and so on while they are of @p f's
 * template, up to @p n; then the frame after the last one written is made
 * and @p f describes it as rk_gen_stream_next_ref() would, @p *data set
 * to its bytes as rk_gen_stream_next_ref() returns them (f->len 0 when
 * the count is reached: nothing made). Each buffer holds a frame of
 * @p held[k] bytes of that template from before (0: none): then only the
 * bytes that change are written, else all of it. The bytes are those of
 * rk_gen_stream_next_ref() frame by frame.
 * @return frames written; 0 when there is nothing to write (@p f->len 0,
 *         no frame made yet, or a stream with a slot: its frames need a
 *         TX time each)
 */
uint32_t rk_gen_stream_copy_next(struct rk_gen_stream *s, uint8_t *const *bufs,
				 const uint32_t *held, uint32_t n, struct rk_gen_ref_frame *f,
				 const uint8_t **data);

/**
 * Frames per message of a train stream (1 without a train).
 */
uint32_t rk_gen_stream_train_len(const struct rk_gen_stream *s);

/**
 * Bytes of every frame of template @p tmpl (the index
 * rk_gen_stream_next_ref() gives: 0, or a train's 0 First, 1 Middle,
 * 2 Last), or 0 when the stream's frames never come from it.
 */
uint32_t rk_gen_stream_tmpl_len(const struct rk_gen_stream *s, uint32_t tmpl);

/**
 * Write TX time @p tx_ns into the sequence slot of frame @p buf (@p len
 * bytes, as rk_gen_stream_next() returned it) and keep its ICRC as it was
 * (valid stays valid, bad stays bad) by patching it.
 * @return 0, or -EINVAL when the stream has no slot or the frame was cut
 *         before the slot or the ICRC.
 */
int rk_gen_stream_stamp(const struct rk_gen_stream *s, uint8_t *buf, uint32_t len,
			uint64_t tx_ns);

/**
 * rk_gen_stream_stamp() for the frame the last rk_gen_stream_next() or
 * rk_gen_stream_next_at() of @p s wrote (@p len bytes, unchanged since):
 * the slot's place and the ICRC patch come from the stream's prepared
 * tables, with no parse; what a sender uses to write the time a frame
 * leaves at full rate.
 * @return 0, or -EINVAL when no frame was written yet, that frame has no
 *         slot, @p len is not its length, or it was cut before the slot
 *         or the ICRC.
 */
int rk_gen_stream_stamp_last(const struct rk_gen_stream *s, uint8_t *buf, uint32_t len,
			     uint64_t tx_ns);

/**
 * The value variation @p v gives frame @p i (what the frame carries in
 * the field, before any ICRC or checksum update).
 * @param tmpl  the template's value, the start when none is given
 */
uint64_t rk_gen_vary_value(const struct rk_gen_vary *v, uint64_t fmax, uint64_t tmpl,
			   uint64_t i);

#endif /* RK_GEN_STREAM_H */
