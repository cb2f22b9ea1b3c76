/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the engine counters (struct rk_ib_stats). */
#include "rk_ib.h"
#include "rk_ib_xstats.h"

#define S(field, name) RK_XSTAT(struct rk_ib_stats, field, name)

static const struct rk_xstat_desc ib_desc[] = {
	S(resp_nak_seq, "out_of_sequence"),
	S(req_nak_seq_retries, "packet_seq_err"),
	S(req_read_retries, "implied_nak_seq_err"),
	S(req_retransmit_timeouts, "local_ack_timeout_err"),
	S(req_rnr_retries, "rnr_nak_retry_err"),
	S(resp_rnr_nak, "out_of_buffer"),
	S(resp_dup, "duplicate_request"),
	S(resp_write_reqs, "rx_write_requests"),
	S(resp_read_reqs, "rx_read_requests"),
	S(resp_atomic_reqs, "rx_atomic_requests"),
	S(resp_send_reqs, "rx_send_requests"),
	S(rx_drop_icrc, "rx_icrc_encapsulated"),
	S(resp_nak_fatal, "resp_remote_access_errors"),
	S(req_retry_exceeded, "retry_exceeded_err"),
	S(req_rnr_retry_exceeded, "retry_rnr_exceeded_err"),
	S(tx_frames, "sent_pkts"),
	S(rx_frames, "rcvd_pkts"),
	S(req_retx_pkts, "retransmitted_pkts"),
	S(rx_drop_qp, "rx_dropped_unknown_qp"),
	S(rx_drop_malformed, "rx_dropped_malformed"),
	S(rx_drop_state, "rx_dropped_state"),
	S(rx_drop_addr, "rx_dropped_addr"),
	S(np_cnp_sent, "np_cnp_sent"),
	S(np_ecn_marked_roce_packets, "np_ecn_marked_roce_packets"),
	S(rp_cnp_handled, "rp_cnp_handled"),
	S(rp_cnp_ignored, "rp_cnp_ignored"),
};

const struct rk_xstat_table rk_ib_xstats = RK_XSTAT_TABLE("rk_ib_stats", struct rk_ib_stats,
							  ib_desc);
