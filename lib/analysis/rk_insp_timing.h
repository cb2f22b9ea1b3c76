/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_timing.h
 * Timing of the QP flows of a capture: per request flow, the percentiles
 * of the time from a request to the ACK naming its PSN (ACK RTT, IBTA
 * Vol1 9.7.5.1) and from a READ request to its first response (READ
 * latency), measured by rk_insp_qp.h as the Wireshark plugin does; and
 * the payload of duplicates, for goodput. Times are capture timestamps
 * (ns); struct rk_insp_flow holds each flow's first and last.
 *
 * Response flows are paired with their request flow as the Wireshark
 * plugin pairs them (rk_insp_qp_match()): the QP a CM REP named (the
 * caller feeds the CM MADs into rk_insp_timing::cm), else a flow between
 * the same hosts, the other way, that sent the PSN the response names, or
 * the only such flow.
 *
 * Memory: a timed flow costs about 18 KiB (the request rings), and 34 KiB
 * per histogram once it has a value; at most RK_INSP_TIMING_FLOWS_MAX
 * flows are timed, later ones are counted in untimed_flows. libc and
 * lib/common only.
 */
#ifndef RK_INSP_TIMING_H
#define RK_INSP_TIMING_H

#include <stdint.h>

#include "rk_hist.h"
#include "rk_insp_flow.h"
#include "rk_insp_hash.h"
#include "rk_insp_qp.h"

/** Most flows timed (reliable requesters and responders). */
#define RK_INSP_TIMING_FLOWS_MAX 4096u

/** Values a latency record keeps exactly before it takes a histogram. */
#define RK_INSP_LAT_EXACT 16

/**
 * Latencies of one flow, ns: the first RK_INSP_LAT_EXACT exactly (most
 * flows of a large capture have a few), then all in a sparse histogram
 * (rk_hist.h: 1 KiB per power of two the values reach), so memory
 * follows what a flow has to tell.
 */
struct rk_insp_lat {
	uint32_t n;                        /**< values in @c v while @c h is NULL */
	uint64_t v[RK_INSP_LAT_EXACT];
	struct rk_hist_sparse *h;          /**< every value, past RK_INSP_LAT_EXACT */
};

/** Add @p ns (ns) to @p *lp, allocated at its first value; out of memory loses it. */
void rk_insp_lat_add(struct rk_insp_lat **lp, uint64_t ns);

/** Free @p l (NULL: nothing). */
void rk_insp_lat_free(struct rk_insp_lat *l);

/** Timing of one flow (one direction of a QP). */
struct rk_insp_timing_flow {
	struct rk_insp_qp qp;          /**< its requests, and its peer once paired */
	struct rk_insp_flow *flow;
	struct rk_insp_hlink hl;       /* by source, destination, kind */
	struct rk_insp_timing_flow *next;
	struct rk_insp_lat *rtt;       /**< ACK RTTs of its requests; NULL until one */
	struct rk_insp_lat *read;      /**< READ latencies of its requests; NULL until one */
};

/** The timed flows of a capture. */
struct rk_insp_timing {
	struct rk_insp_htab hash;
	struct rk_insp_timing_flow *head;
	uint64_t nflows;               /**< flows timed */
	uint64_t untimed_flows;        /**< RC flows past RK_INSP_TIMING_FLOWS_MAX, or out of memory */
	uint64_t unpaired;             /**< responses whose request flow was not found */
	struct rk_insp_pool pool;      /* the flows' request tables */
	struct rk_insp_qp_cand *cand;  /* room for the candidates of a response */
	unsigned int cand_cap;
	struct rk_insp_cm cm;          /**< QPs the CM REQ/REP MADs named: the caller
					    decodes them (lib/cm) and fills it */
};

/** Initialise @p t. @return 0 or -ENOMEM. */
int rk_insp_timing_init(struct rk_insp_timing *t);

/** Free what @p t holds (the flows' timing pointers then dangle: free them first). */
void rk_insp_timing_fini(struct rk_insp_timing *t);

/**
 * Account packet @p r (r->ts_ns, r->frame set) of @p flow, after
 * rk_insp_flow_packet() gave @p seq: a duplicate's payload is added to
 * flow->dup_payload_bytes; an RC or XRC request is remembered; an ACK
 * (not an RNR NAK) or atomic ACK adds the RTT of the request it names,
 * a READ response FIRST or ONLY the latency of its READ request, to the
 * request flow. Packets with a bad ICRC are left out (the receiver drops
 * them). Out of memory only loses timing.
 */
void rk_insp_timing_packet(struct rk_insp_timing *t, struct rk_insp_flow *flow,
			   const struct rk_insp_roce *r, const struct rk_insp_seq_result *seq);

/** Percentile summary of latencies, ns (all 0 when there are none). */
struct rk_insp_pctl {
	uint64_t count, p50, p99, max;
};

/**
 * p50, p99 and max of @p l (NULL: none): the value of rank ceil(count x q)
 * exactly while @p l holds its values, else rk_hist_sparse_quantile()'s bucket.
 */
struct rk_insp_pctl rk_insp_pctl_of(const struct rk_insp_lat *l);

#endif /* RK_INSP_TIMING_H */
