/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-gen's receive side: slot reading, per-stream accounting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_gen_rx.h"
#include "rk_gen_stream.h"
#include "rk_pkt.h"

int
rk_gen_slot_read(const uint8_t *frame, uint32_t caplen, uint32_t seq_off, struct rk_gen_slot *out)
{
	struct rk_pkt pkt;
	uint64_t end;

	if (frame == NULL ||
	    rk_pkt_parse(&pkt, frame, caplen, caplen, RK_LINK_ETHERNET,
			 &(struct rk_parse_opts){ .check_icrc = false }) != 0 ||
	    pkt.kind != RK_PKT_ROCEV2 || !rk_pkt_has_bth(&pkt))
		return -EPROTO;
	end = (uint64_t)pkt.payload_off + seq_off + RK_GEN_SEQ_LEN;
	if ((uint64_t)seq_off + RK_GEN_SEQ_LEN > pkt.payload_len || end > caplen)
		return -EMSGSIZE;
	frame += pkt.payload_off + seq_off;
	out->stream_id = rk_get_be32(frame);
	out->seq = rk_get_be32(frame + 4);
	out->tx_ns = rk_get_be64(frame + 8);
	return 0;
}

/* Streams. */

void
rk_gen_rx_init(struct rk_gen_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void
rk_gen_rx_fini(struct rk_gen_rx *rx)
{
	for (uint32_t i = 0; i < rx->n; i++)
		free(rx->st[i]);
	rk_gen_rx_init(rx);
}

const struct rk_gen_rx_stream *
rk_gen_rx_find(const struct rk_gen_rx *rx, uint32_t stream_id)
{
	for (uint32_t i = 0; i < rx->n; i++)
		if (rx->st[i]->stream_id == stream_id)
			return rx->st[i];
	return NULL;
}

/* The stream of @p id, made when new; NULL with errno-like *err. */
static struct rk_gen_rx_stream *
stream_get(struct rk_gen_rx *rx, uint32_t id, int *err)
{
	struct rk_gen_rx_stream *st;

	if (rx->last < rx->n && rx->st[rx->last]->stream_id == id)
		return rx->st[rx->last];
	for (uint32_t i = 0; i < rx->n; i++)
		if (rx->st[i]->stream_id == id) {
			rx->last = i;
			return rx->st[i];
		}
	if (rx->n == RK_GEN_RX_STREAMS_MAX) {
		*err = -ENOSPC;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (st == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	st->stream_id = id;
	rx->last = rx->n;
	rx->st[rx->n++] = st;
	return st;
}

static bool
seen_test_set(struct rk_gen_rx_stream *st, uint64_t n)
{
	uint64_t *w = &st->seen[(n % RK_GEN_RX_WINDOW) / 64];
	uint64_t bit = 1ull << (n % 64);
	bool was = (*w & bit) != 0;

	*w |= bit;
	return was;
}

/* Numbers from NextExp up to @p n enter the window: forget what their bits held. */
static void
window_advance(struct rk_gen_rx_stream *st, uint64_t n)
{
	if (n - st->next_exp + 1 >= RK_GEN_RX_WINDOW) {
		memset(st->seen, 0, sizeof(st->seen));
		return;
	}
	for (uint64_t k = st->next_exp; k <= n; k++)
		st->seen[(k % RK_GEN_RX_WINDOW) / 64] &= ~(1ull << (k % 64));
}

int
rk_gen_rx_add(struct rk_gen_rx *rx, const struct rk_gen_slot *s, uint64_t rx_ns)
{
	struct rk_gen_rx_stream *st;
	int64_t delta, ext;
	int verdict, err = 0;

	st = stream_get(rx, s->stream_id, &err);
	if (st == NULL) {
		rx->other_frames++;
		return err;
	}
	if (st->frames == 0)
		st->first_rx_ns = rx_ns;
	st->frames++;
	st->last_rx_ns = rx_ns;
	/* 32-bit number to 64 bits: the value nearest NextExp; the first as it is */
	delta = st->next_exp == 0 ? (int64_t)s->seq : (int32_t)(s->seq - (uint32_t)st->next_exp);
	ext = (int64_t)st->next_exp + delta;
	if (ext < 0 || (delta < 0 && (uint64_t)-delta > RK_GEN_RX_WINDOW)) {
		st->stale++;
		return RK_GEN_RX_STALE;
	}
	if (delta >= 0) {
		window_advance(st, (uint64_t)ext);
		seen_test_set(st, (uint64_t)ext);
		st->next_exp = (uint64_t)ext + 1;
		verdict = RK_GEN_RX_IN_ORDER;
	} else if (seen_test_set(st, (uint64_t)ext)) {
		st->duplicates++;
		return RK_GEN_RX_DUPLICATE;
	} else {
		uint64_t extent = st->next_exp - 1 - (uint64_t)ext;

		st->reordered++;
		if (extent > st->reorder_extent_max)
			st->reorder_extent_max = extent;
		verdict = RK_GEN_RX_REORDERED;
	}
	st->unique++;
	if (rx_ns >= s->tx_ns)
		rk_hist_add(&st->lat, rx_ns - s->tx_ns);
	else
		st->lat_negative++;
	return verdict;
}

uint64_t
rk_gen_rx_lost(const struct rk_gen_rx_stream *st, uint64_t sent)
{
	uint64_t expected = sent ? sent : st->next_exp;

	return expected > st->unique ? expected - st->unique : 0;
}
