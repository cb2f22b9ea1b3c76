/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_conform.h
 * Conformance cases: each drives a device under test (DUT) with frames
 * crafted by lib/probe and judges its classified answers against one
 * rule (IBTA Vol1 chapter 9, Annex A17, RFC 5040/5041/5044). A verdict
 * is pass, fail with a reason, or not applicable with a reason, and is
 * reached within a bounded time: every wait ends at a deadline read from
 * the backend's clock (rk_io_ops.now_ns), so a silent, babbling or reset
 * DUT still gets a verdict.
 *
 * The DUT is reached through a struct rk_conform_env: an rk_io_ops that
 * moves frames, and a setup() that gives the tester a fresh QP of the DUT
 * for each case (QP number, the PSN it expects, a registered region).
 * rdmakit's own engine is one such environment (rk_conform_self.h); a
 * live peer behind a port is another, once something gives the tester a
 * fresh QP of it per case.
 *
 * iWARP cases reach the DUT through a byte stream instead (struct
 * rk_conform_stream_ops: a TCP connection, MPA not yet started, fresh per
 * case); the tester is the MPA Initiator (lib/probe's rk_probe_mpa).
 */
#ifndef RK_CONFORM_H
#define RK_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_io.h"
#include "rk_probe.h"
#include "rk_probe_mpa.h"

/** Transport a case exercises. */
enum rk_conform_transport {
	RK_CONFORM_RC = 0,      /**< RoCEv2 Reliable Connected */
	RK_CONFORM_UC,          /**< RoCEv2 Unreliable Connected */
	RK_CONFORM_UD,          /**< RoCEv2 Unreliable Datagram */
	RK_CONFORM_IWARP,       /**< iWARP (MPA/DDP/RDMAP over TCP) */
	/** Communication Management (IBTA Vol1 ch. 12): CM MADs in UD SENDs to
	 *  the DUT's QP1, then its RC QP that the CM connected. */
	RK_CONFORM_CM,
};

/** Outcome of one case. */
enum rk_conform_verdict {
	RK_CONFORM_PASS = 0,
	RK_CONFORM_FAIL,
	RK_CONFORM_NA,          /**< not applicable: the DUT lacks what the case needs */
};

/**
 * Remote access to the DUT's region (IBTA Vol1 10.6.3 access rights): what
 * a case needs (rk_conform_need.access) and what the DUT's region allows
 * (rk_conform_dut.access). RK_CONFORM_ACC_RO asks for a second region
 * with remote read only (ro_va, ro_r_key); a DUT may offer its only
 * region as both when that region allows remote read only.
 */
enum rk_conform_access {
	RK_CONFORM_ACC_WRITE = 1u << 0,
	RK_CONFORM_ACC_READ = 1u << 1,
	RK_CONFORM_ACC_ATOMIC = 1u << 2,
	RK_CONFORM_ACC_RO = 1u << 3,
	RK_CONFORM_ACC_ALL = 0xfu,      /**< the four above */
	/** Not an access right: need: the QP must have no receive posted
	 *  (RNR cases); dut: it has none. */
	RK_CONFORM_ACC_NO_RECV = 1u << 4,
};

/** What a case needs of the DUT's fresh QP. */
struct rk_conform_need {
	enum rk_conform_transport transport;
	uint32_t recvs;         /**< receive WQEs to post before the case (0: none) */
	/**
	 * RK_CONFORM_ACC_* the case's valid requests need. A DUT that gives
	 * a region with less may still run it: the case sees dut.access and
	 * says n/a where it must; "is the QP still alive" probes use what
	 * the region allows (a WRITE, a READ, an atomic, or a SEND).
	 */
	uint8_t access;
	/**
	 * The case sends CE-marked packets: a DUT that has congestion control
	 * it can turn on per QP does so (rdmakit's engine: DCQCN; its pacer
	 * otherwise stays off, as a replay of pipelined requests needs).
	 */
	bool cc;
	/**
	 * Path MTU in bytes (256..4096) the QP must use; 0: the DUT's own.
	 * A DUT that cannot set it reports the one it has in dut.pmtu.
	 */
	uint32_t pmtu;
};

/** The DUT's QP as setup() left it, the values frames toward it carry. */
struct rk_conform_dut {
	uint32_t qpn;           /**< DestQP of frames toward it */
	uint32_t epsn;          /**< the PSN its responder expects next */
	uint32_t pmtu;          /**< path MTU in bytes (256..4096) */
	uint64_t va;            /**< a region with remote read, write, atomic */
	uint32_t r_key, len;    /**< its R_Key and length in bytes (>= 4096) */
	uint64_t ro_va;         /**< a region with remote read only, or 0 */
	uint32_t ro_r_key, ro_len;
	uint32_t recv_len;      /**< bytes of each posted receive */
	uint32_t q_key;         /**< UD: the QP's Q_Key */
	uint8_t min_rnr_timer;  /**< encoded (IBTA Vol1 9.7.5.2.8); 0xff: unknown */
	uint8_t max_rd_atomic;  /**< responder resources; 0: unknown */
	uint8_t access;         /**< RK_CONFORM_ACC_* the region (va, r_key) allows */
	/* iWARP (the region above: va, r_key = its STag, len; ro_*: remote read only) */
	uint32_t isn, dut_isn;  /**< TCP sequence numbers of our and the DUT's first
				 *   stream byte (MPA markers sit at offsets from them) */
	uint16_t ird;           /**< Read Requests the DUT takes at once; 0: unknown */
	bool p2p;               /**< the DUT accepts peer-to-peer RTR (RFC 6581) */
	uint32_t other_stag;    /**< an STag of another protection domain, or 0 */
	uint64_t other_va;      /**< its base */
	uint32_t peer_qpn;      /**< RoCE: the tester's QP the DUT's is connected to
				 *   (a CNP's DestQP); 0: unknown */
};

/**
 * A byte stream to the DUT (iWARP: TCP payload in order, both ways). The
 * backend's now_ns (rk_conform_env.ops) still bounds every wait.
 */
struct rk_conform_stream_ops {
	/** Write all @p n bytes toward the DUT. @return 0 or a negative errno. */
	int (*write)(void *ctx, const uint8_t *b, size_t n);
	/**
	 * Read bytes the DUT sent, at most @p cap. @return bytes, 0 when none
	 * now, -ECONNRESET once the DUT closed the stream and all was read,
	 * other negative errnos for failures.
	 */
	int (*read)(void *ctx, uint8_t *b, size_t cap);
};

/** How the tester reaches the DUT. */
struct rk_conform_env {
	const struct rk_io_ops *ops;    /**< moves frames; its now_ns bounds every wait */
	void *io;
	uint8_t src_mac[6], dst_mac[6]; /**< ours, the DUT's */
	uint8_t ip_version;             /**< 4 or 6; 0 means 4 */
	uint8_t src_ip[16], dst_ip[16]; /**< IPv4: last 4 bytes */
	uint64_t timeout_ns;            /**< longest wait for an answer; 0: 50 ms */
	/**
	 * Give the tester a fresh QP of @p need->transport with
	 * @p need->recvs receives posted; fill @p dut. Return 0, or -ENOTSUP
	 * with a reason in @p why (@p why_len bytes) when the DUT cannot.
	 */
	int (*setup)(void *ctx, const struct rk_conform_need *need, struct rk_conform_dut *dut,
		     char *why, size_t why_len);
	/** Optional: post @p n more receives on the QP (NULL: the case is N/A). */
	int (*post_recv)(void *ctx, uint32_t n);
	/** Optional: read @p n bytes of the region at offset @p off (NULL: not checked). */
	int (*read_mem)(void *ctx, uint32_t off, void *out, uint32_t n);
	/** Optional: receives completed successfully since setup() (NULL: not checked). */
	int (*recv_done)(void *ctx);
	/** Optional: done with the QP of setup(). */
	void (*teardown)(void *ctx);
	/** Optional: every frame sent (@p tx true) or received, for captures. */
	void (*on_frame)(void *frame_ctx, bool tx, const uint8_t *frame, uint32_t len,
			 uint64_t ns);
	void *frame_ctx;                /**< on_frame's context */
	void *ctx;                      /**< the DUT hooks' context */
	/** iWARP: the stream of setup()'s fresh connection (NULL: the DUT is
	 *  reached by frames only, iWARP cases are not applicable). Its
	 *  context is @p ctx. */
	const struct rk_conform_stream_ops *stream;
	/**
	 * iWARP: how long the tester waits after the DUT's MPA Reply before
	 * its first FPDU, reading what comes (0: none). Linux's tools lose an
	 * FPDU that reaches them before their process took the connection's
	 * ESTABLISHED event, so a live DUT gets a moment, as siw's own
	 * Initiator gives (about 10 ms, an event round trip).
	 */
	uint64_t iw_settle_ns;
	/**
	 * CM: a ServiceID the DUT's CM listens on; setup() of an
	 * RK_CONFORM_CM case leaves the QP it fills in for that listener to
	 * connect (in INIT, waiting for a REQ). 0: CM cases are not applicable.
	 */
	uint64_t cm_service_id;
	/**
	 * CM: how long a REQ is sent again while the DUT answers REJ
	 * "invalid service ID" for cm_service_id itself (its listener away:
	 * a perftest -R server restarting between cases), 200 ms apart, as
	 * perftest's client does. 0: never.
	 */
	uint64_t cm_listen_wait_ns;
};

/** One case's verdict. */
struct rk_conform_result {
	enum rk_conform_verdict verdict;
	char reason[192];               /**< why it failed or is not applicable */
	uint32_t frames_tx, frames_rx;  /**< frames the case sent and read */
	uint64_t elapsed_ns;            /**< by the backend's clock */
	bool setup_failed;              /**< FAIL: setup() gave no QP (the DUT, not the rule) */
};

struct rk_conform_run;

/** A case of the catalog. */
struct rk_conform_case {
	const char *id;                 /**< stable, dotted: "rc.psn.duplicate" */
	const char *rule;               /**< "IBTA Vol1 ch. 9 (C9-105) [PSN-DUP-01]" */
	const char *must;               /**< one line: what the DUT must do */
	enum rk_conform_transport transport;
	uint32_t recvs;                 /**< receives the case needs posted */
	uint8_t access;                 /**< RK_CONFORM_ACC_* its valid requests need */
	/** Run the case; sets the verdict with rk_conform_fail()/_na(). */
	void (*run)(struct rk_conform_run *r, const void *arg);
	const void *arg;
	bool cc;                        /**< rk_conform_need.cc: it sends CE marks */
};

/** The catalog, in a fixed order (RoCEv2, its CE/CNP cases, iWARP, then CM), joined on
 *  the first call (make that call before starting threads); @p n receives its length. */
const struct rk_conform_case *rk_conform_cases(unsigned int *n);

/** "RC", "UC", "UD", "iWARP", "CM". */
const char *rk_conform_transport_name(enum rk_conform_transport t);
/** "pass", "FAIL", "n/a". */
const char *rk_conform_verdict_name(enum rk_conform_verdict v);

/**
 * Run case @p c against @p env: setup(), the case, teardown(). The result
 * is reached within a bounded time (each wait ends after env->timeout_ns
 * of the backend's clock; a case waits a few times at most).
 * @return 0, or -EINVAL for a NULL argument.
 */
int rk_conform_run_case(const struct rk_conform_env *env, const struct rk_conform_case *c,
			struct rk_conform_result *res);

/**
 * Whether case ID @p id matches @p globs: shell globs (fnmatch) separated
 * by commas, "iw.ddp.*,iw.rdmap.*"; NULL matches every ID.
 */
bool rk_conform_id_match(const char *globs, const char *id);

/**
 * Write the catalog as a Markdown table (ID, transport, rule, what the
 * DUT must do), cases matching @p glob (rk_conform_id_match; NULL: all).
 * @return cases written, or -errno from writing.
 */
int rk_conform_markdown(void *file, const char *glob);

/* ---- for the cases (rk_conform_cases*.c) */

/** State of one running case. */
struct rk_conform_run {
	const struct rk_conform_env *env;
	struct rk_conform_dut dut;
	struct rk_probe probe;          /**< target = the DUT's QP */
	struct rk_conform_result *res;
	unsigned int waits;             /**< waits so far (bounded by the runner) */
	struct rk_probe_mpa_peer *mpa;  /**< iWARP: the tester's MPA side */
	bool closed;                    /**< iWARP: the DUT closed the stream */
	/** CM: this case's Local Comm ID (0 until its first REQ): a live DUT
	 *  may still hold an earlier case's connection of another. */
	uint32_t cm_comm_id;
	/** CM: the DUT's Local Comm ID from this case's REP (0: none yet), and
	 *  whether the case left that connection open: ended at the case's end. */
	uint32_t cm_dut_comm_id;
	bool cm_open, cm_established;
};

/**
 * Aim @p r's probe at the DUT's QP that setup() filled in r->dut: the
 * environment's frame ops, MACs and addresses, the QP's DestQP and the
 * PSN it expects.
 */
void rk_conform_aim(struct rk_conform_run *r);

/** Frame edits after crafting; the ICRC is recomputed unless BAD_ICRC. */
enum rk_conform_mangle {
	RK_CONFORM_M_NONE = 0,
	RK_CONFORM_M_BAD_ICRC,          /**< flip a bit of the ICRC */
	RK_CONFORM_M_TVER,              /**< BTH.TVer = 1 */
	RK_CONFORM_M_PKEY,              /**< BTH.P_Key = 0x7123 (no such partition) */
	RK_CONFORM_M_MIGREQ,            /**< BTH.MigReq = 1 */
	RK_CONFORM_M_RESV_BTH,          /**< BTH reserved bits (Resv8a) set */
	RK_CONFORM_M_BAD_QPN,           /**< DestQP of no QP */
	RK_CONFORM_M_UDP_CSUM,          /**< a wrong non-zero UDP checksum */
	RK_CONFORM_M_ECN_CE,            /**< IP ECN = 11, Congestion Experienced (RFC 3168 5) */
	RK_CONFORM_M_ECN_CE_BAD_ICRC,   /**< both of the above: CE and a bad ICRC */
	RK_CONFORM_M_FECN_BECN,         /**< BTH FECN and BECN set (Annex A17 A17.3.4) */
};

/**
 * Send one crafted frame toward the DUT: @p in, then @p m applied.
 * @return 0, or a negative errno (the case then fails with that reason).
 */
int rk_conform_send(struct rk_conform_run *r, const struct rk_probe_intent *in,
		    enum rk_conform_mangle m);

/**
 * Wait for answers of the DUT until @p want have come or the timeout
 * passed; store at most @p max in @p out. @return answers stored (0 on
 * silence), or a negative errno from the backend.
 */
int rk_conform_wait(struct rk_conform_run *r, struct rk_probe_answer *out, unsigned int max,
		    unsigned int want);

/** Set the verdict FAIL with a printf reason; returns false for chaining. */
bool rk_conform_fail(struct rk_conform_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** Set the verdict NA with a printf reason. */
void rk_conform_na(struct rk_conform_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** "ACK", "NAK-SEQ", "RNR-NAK(14)", "READ-RESP", "nothing", ... for reasons. */
const char *rk_conform_answer_str(const struct rk_probe_answer *a, unsigned int n, char *buf,
				  size_t len);

/* ---- iWARP cases (the stream of rk_conform_env) */


/**
 * Send the MPA Request @p req (RFC 5044 7.1) and wait for the Reply.
 * @return 1 when a Reply came, 0 when none did (the stream closed or the
 * wait ended), a negative errno when the tester failed (verdict FAIL).
 */
int rk_conform_iw_request(struct rk_conform_run *r, const struct rk_mpa_rr *req);

/**
 * Set up full operation: the default Request, an accepting Reply (R = 0)
 * with CRC. @return true, or false with the verdict FAIL.
 */
bool rk_conform_iw_connect(struct rk_conform_run *r);

/** Frame @p ulpdu as one FPDU (bad_crc: its CRC wrong) and send it. @return 0 or -errno. */
int rk_conform_iw_send(struct rk_conform_run *r, const uint8_t *ulpdu, uint16_t len,
		       bool bad_crc);

/** Send raw stream bytes (counted in the stream's position). @return 0 or -errno. */
int rk_conform_iw_send_raw(struct rk_conform_run *r, const uint8_t *b, size_t n);

/**
 * Read the DUT's stream until r->mpa->nmsgs >= @p want, the DUT closed
 * it, or the timeout passed. @return messages decoded so far, or -errno.
 */
int rk_conform_iw_wait(struct rk_conform_run *r, unsigned int want);

/**
 * The DUT's next message must be a Terminate (RFC 5040 7.4.1) with Layer
 * @p layer, EType @p etype and Error Code @p code, and a good CRC.
 * @return true, or false with the verdict FAIL saying what came instead.
 */
bool rk_conform_iw_expect_term(struct rk_conform_run *r, uint8_t layer, uint8_t etype,
			       uint8_t code);

/** The CE and CNP cases (rk_conform_ecn.c); @p n their number. */
const struct rk_conform_case *rk_conform_ecn_cases(unsigned int *n);

/** The Communication Management cases (rk_conform_cm.c); @p n their number. */
const struct rk_conform_case *rk_conform_cm_cases(unsigned int *n);

/** The iWARP part of the catalog (rk_conform_iw.c); @p n its length. */
const struct rk_conform_case *rk_conform_iw_cases(unsigned int *n);

/* ---- re-animation of a recording against a live DUT */

/** One frame of a recording (Ethernet, as captured). */
struct rk_conform_rec_frame {
	const uint8_t *data;
	uint32_t len;           /**< bytes captured */
	/** Bytes on the wire; more than len when the capture's snaplen cut
	 *  the frame (0: len). A cut frame is never replayed. */
	uint32_t wire_len;
};

/** What a replay found. */
struct rk_conform_replay_result {
	enum rk_conform_verdict verdict; /**< pass: every recorded answer came alike */
	char reason[320];               /**< why it failed or is not applicable */
	char first_diff[256];
	unsigned int requests;          /**< recorded requests sent, rewritten */
	unsigned int answers;           /**< recorded answers waited for */
	unsigned int matched;           /**< ... that the live DUT gave alike */
	unsigned int diffs;             /**< differences (the replay stops at 16) */
	unsigned int extra;             /**< live answers but ACKs past the recording's last */
	unsigned int cut;               /**< frames cut by the capture's snaplen */
	/** The recording's path MTU: exact from a FIRST or MIDDLE packet's
	 *  payload, else the least that carries its largest payload; 0: none. */
	uint32_t pmtu;
	bool pmtu_exact;                /**< pmtu came from a FIRST or MIDDLE packet */
	uint32_t frames_tx, frames_rx;
	uint64_t elapsed_ns;            /**< the replay's time, by the backend's clock */
	/**
	 * Input: the conversation to replay, by the DestQP of its requests
	 * (24 bits); 0 (QP0 carries no RC): the first RC request's.
	 */
	uint32_t dest_qp;
	/**
	 * Input, with requester_set: the requester's address as well (the
	 * form of rk_conform_conv.requester), for a DestQP that two hosts'
	 * requests name (each host's first QP often has one number).
	 */
	uint8_t requester[16];
	bool requester_set;
	/** Optional: each difference as a line ("frame 12: recorded ACK ..., live ..."). */
	void (*on_diff)(void *ctx, const char *line);
	void *diff_ctx;
};

/**
 * Replay the requester's side of a recorded RC conversation against the
 * DUT of @p env: the requester is the source of the first RC request of
 * @p f (of the first to res->dest_qp when that is set, from
 * res->requester when that is set too), its peer's
 * answers toward the requester's QP are the recorded answers (that QP is
 * learnt from the first answer whose PSN falls among the requests'). The DUT
 * gets a fresh QP (setup() with the receives, remote access and RC the
 * requests need); every request is sent in recorded order with its
 * DestQP, PSN (the recorded first PSN mapped to the DUT's expected one,
 * 24-bit arithmetic), R_Key and VA (the same offset from the lowest
 * recorded VA, folded into the DUT's region when the recording spans
 * more) rewritten, the addresses of @p env and a recomputed ICRC (IBTA
 * Annex A17.3.3). At each recorded answer the replay waits for the live
 * one (at most env->timeout_ns) and compares kind, opcode, NAK code and
 * mapped PSN: the diff of two implementations answering the same
 * requests. Payload bytes are not compared. The DUT's QP is asked for
 * the recording's path MTU (res->pmtu, rk_conform_need.pmtu): the
 * segments of READ responses and long requests depend on it.
 * @return 0 with @p res filled (n/a when the recording holds no RC
 *         request, none to res->dest_qp (the reason lists the DestQPs
 *         it has), no answer to its requests, frames of the
 *         conversation cut by the capture's snaplen (res->cut counts
 *         every cut frame), a QP of another path MTU, or the DUT cannot
 *         give such a QP), -EINVAL for NULL arguments, -ENOMEM.
 */
int rk_conform_replay(const struct rk_conform_env *env, const struct rk_conform_rec_frame *f,
		      unsigned int n, struct rk_conform_replay_result *res);

/** One conversation of a recording: who sends its requests, and to which QP. */
struct rk_conform_conv {
	uint32_t dest_qp;               /**< DestQP of its requests (24 bits) */
	/** The requester's IP source address: IPv6 as is; IPv4 mapped,
	 *  ::ffff:a.b.c.d (RFC 4291 2.5.5.2), as a RoCEv2 GID holds it. */
	uint8_t requester[16];
};

/**
 * Requester address @p a (rk_conform_conv.requester's form) as text into
 * @p s (@p len bytes, INET6_ADDRSTRLEN enough): dotted IPv4 for a mapped
 * one, else IPv6 (RFC 5952).
 */
void rk_conform_conv_addr(const uint8_t a[16], char *s, size_t len);

/**
 * The conversations of a recording, for replaying each in turn: the
 * distinct (requester address, DestQP) pairs of its whole RC request
 * packets (BTH opcode a request, IBTA Vol1 9.2; cut frames left out), in
 * the order first seen, at most @p max of them into @p cv; *@p more (may
 * be NULL) says whether requests of another conversation came after
 * @p cv was full. Two hosts' requests to QPs of one number (a
 * bidirectional run between two hosts' first QPs) are two conversations.
 * @return how many are in @p cv, 0 when the recording holds no RC request
 */
unsigned int rk_conform_replay_convs(const struct rk_conform_rec_frame *f, unsigned int n,
				     struct rk_conform_conv *cv, unsigned int max, bool *more);

#endif /* RK_CONFORM_H */
