/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_iwsync.h
 * Where FPDUs start in a TCP stream joined mid-connection: no SYN, no MPA
 * Request/Reply seen, so neither the stream origin nor the MPA options
 * are known (RFC 5044 4, 7.1).
 *
 * With markers (RFC 5044 4.3) a 4-byte marker sits every 512 bytes of
 * sequence space; its Reserved half is 0 and its FPDUPTR (a multiple of 4
 * on a conforming stream) counts back to the start of the FPDU it falls
 * in. Every grid phase whose markers all look so is tried, and the first
 * marker pointing at an FPDU start inside the bytes seen gives the
 * candidate; the FPDUs before it are then framed back from it (the
 * earliest offset whose FPDUs, on that grid, run cleanly into it). Without markers, each byte offset is tried as an FPDU start:
 * its ULPDU_Length must frame a DDP segment whose DDP/RDMAP headers pass
 * rk_rdmap_parse() without a finding, and the next FPDU (2 + ULPDU_Length
 * + pad + CRC further) likewise. A candidate is kept only when the MPA
 * deframer, started there with those options (CRC on when every CRC32c
 * checks, else off), frames the rest of the bytes seen into FPDUs that
 * raise no finding: at least two spanning more than a marker
 * interval (516 bytes) with every CRC good, or three spanning twice that
 * without CRC, so that markers the candidate leaves out or puts in would
 * have broken the framing; once the stream has ended, one FPDU with a
 * good CRC or two without suffice (and one marker, with CRCs good). When
 * both kinds of candidate fit, a CRC-checked one wins, then the one that
 * spans more bytes.
 * libc, lib/wire only.
 */
#ifndef RK_INSP_IWSYNC_H
#define RK_INSP_IWSYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_mpa.h"

/** Bytes of a direction kept for the search (room for two FPDUs of the
 * largest size, markers included, twice over); past them it gives up. */
#define RK_INSP_IWSYNC_MAX (256u << 10)

/** Where framing was found. */
struct rk_insp_iwsync {
	uint32_t seq;               /**< sequence number of the first FPDU trusted */
	uint32_t marker_seq0;       /**< a marker position (markers on) */
	struct rk_mpa_params params;/**< markers, CRC (rev 0: not known) */
	uint32_t fpdus;             /**< FPDUs that vouched for it */
	uint32_t span;              /**< stream bytes they take from seq */
};

/**
 * Look for the first FPDU boundary to trust in @p n stream bytes @p buf
 * whose first byte has sequence number @p seq0; @p final when no more
 * bytes will come. @p scratch is a deframer the search may overwrite.
 * @return 1 with @p out filled; 0 when more bytes may decide (never once
 *         @p n reaches RK_INSP_IWSYNC_MAX, nor with @p final); -1 when
 *         these bytes hold no MPA framing to trust.
 */
int rk_insp_iwsync_find(const uint8_t *buf, uint32_t n, uint32_t seq0, bool final,
			struct rk_mpa_stream *scratch, struct rk_insp_iwsync *out);

#endif /* RK_INSP_IWSYNC_H */
