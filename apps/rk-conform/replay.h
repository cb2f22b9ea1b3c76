/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file replay.h
 * rk-conform --replay: a recording read with libpcap (pcap or pcapng,
 * Ethernet), replayed against the DUT with rk_conform_replay(), each
 * conversation's result as one outcome ("replay.FILE", or
 * "replay.FILE.qp0xQPN" when a DestQP picks it, "...@ADDRESS" when two
 * requesters' QPs have that number) for the table, JSON,
 * JUnit XML and verdicts file.
 */
#ifndef RK_CONFORM_APP_REPLAY_H
#define RK_CONFORM_APP_REPLAY_H

#include <stdbool.h>

#include "expect.h"

/** A recording's frames in memory. */
struct rk_cf_recording {
	struct rk_conform_rec_frame *f;
	uint8_t *bytes;
	unsigned int n;
	bool truncated;         /**< the file ends inside a record: the frames before it */
};

/**
 * Read every Ethernet frame of @p path into @p r (rk_cf_recording_free()
 * after); frames cut by the capture's snaplen keep their wire length.
 * @return 0, or -1 when the file cannot be read, is not Ethernet or holds
 *         no frame (said on stderr)
 */
int rk_cf_recording_load(const char *path, struct rk_cf_recording *r);

/** Free what rk_cf_recording_load() took (a zeroed @p r is fine). */
void rk_cf_recording_free(struct rk_cf_recording *r);

/** How a replay's case is named: which parts of its conversation the ID shows. */
enum rk_cf_replay_name {
	RK_CF_NAME_FILE,        /**< replay.FILE */
	RK_CF_NAME_QP,          /**< replay.FILE.qp0xQPN */
	RK_CF_NAME_QP_FROM,     /**< replay.FILE.qp0xQPN@ADDRESS: two requesters, one QPN */
};

/**
 * Replay recording @p r (read from @p path) against @p env: the
 * conversation @p conv (NULL: the first RC request's; a zero requester
 * and dest_qp 0x000000 likewise), its requester only when @p name is
 * RK_CF_NAME_QP_FROM; each difference printed on stdout as it is found.
 * @p c (its ID kept in @p id, 96 bytes, formed as @p name says) becomes
 * the outcome's case.
 * @return 0 with *@p out filled, -1 on an error of the replay (said on stderr)
 */
int rk_cf_replay(const struct rk_cf_recording *r, const char *path,
		 const struct rk_conform_conv *conv, enum rk_cf_replay_name name,
		 const struct rk_conform_env *env, struct rk_conform_case *c, char id[96],
		 struct rk_cf_outcome *out);

#endif /* RK_CONFORM_APP_REPLAY_H */
