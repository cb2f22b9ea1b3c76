/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file replay.h
 * rk-conform --replay: a recording read with libpcap (pcap or pcapng,
 * Ethernet), replayed against the DUT with rk_conform_replay(), its
 * result as one outcome ("replay.FILE") for the table, JSON, JUnit XML
 * and verdicts file.
 */
#ifndef RK_CONFORM_APP_REPLAY_H
#define RK_CONFORM_APP_REPLAY_H

#include "expect.h"

/**
 * Replay @p path against @p env: the conversation to DestQP @p dest_qp
 * (0: the first RC request's); each difference printed on stdout as it
 * is found. @p c (its ID kept in @p id, 96 bytes) becomes the outcome's
 * case.
 * @return 0 with *@p out filled, or -1 when the file cannot be read or
 *         holds no Ethernet frames (said on stderr).
 */
int rk_cf_replay(const char *path, uint32_t dest_qp, const struct rk_conform_env *env,
		 struct rk_conform_case *c, char id[96], struct rk_cf_outcome *out);

#endif /* RK_CONFORM_APP_REPLAY_H */
