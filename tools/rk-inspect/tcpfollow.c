/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP direction follower: in-order delivery from captured segments.
 * All sequence comparisons are signed 32-bit differences (RFC 9293 3.4).
 */
#include "tcpfollow.h"

#include <stdlib.h>
#include <string.h>

#include "psn.h"

/* Segments further ahead than this are not part of the stream (port
 * reuse, garbage): at most half of the sequence space is meaningful, and
 * no real window comes near a quarter of it. */
#define MAX_AHEAD (1u << 30)

struct rk_insp_tcp_seg {
	struct rk_insp_tcp_seg *next;
	uint32_t seq;
	uint32_t len;
	uint8_t data[];
};

/* Bookkeeping charged per queued segment, so tiny segments cannot grow
 * the buffer without bound. */
#define SEG_COST(len) ((uint32_t)sizeof(struct rk_insp_tcp_seg) + (len))

void
rk_insp_tcp_init(struct rk_insp_tcp_dir *d, uint32_t max_ooo)
{
	memset(d, 0, sizeof(*d));
	d->max_ooo = max_ooo != 0 ? max_ooo : RK_INSP_TCP_MAX_OOO_DEFAULT;
}

void
rk_insp_tcp_fini(struct rk_insp_tcp_dir *d)
{
	struct rk_insp_tcp_seg *s = d->ooo;

	while (s != NULL) {
		struct rk_insp_tcp_seg *n = s->next;

		free(s);
		s = n;
	}
	d->ooo = NULL;
	d->ooo_bytes = 0;
}

static void
deliver(struct rk_insp_tcp_dir *d, const uint8_t *p, uint32_t len,
	const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (len == 0)
		return;
	if (ops != NULL && ops->data != NULL)
		ops->data(ctx, d->next, p, len);
	d->next += len;
	d->delivered += len;
}

static void
declare_gap(struct rk_insp_tcp_dir *d, uint32_t upto,
	    const struct rk_insp_tcp_ops *ops, void *ctx)
{
	int32_t n = rk_insp_seq_diff(upto, d->next);

	if (n <= 0)
		return;
	if (ops != NULL && ops->gap != NULL)
		ops->gap(ctx, d->next, (uint32_t)n);
	d->gaps++;
	d->gap_bytes += (uint32_t)n;
	d->next = upto;
}

/* Deliver queued segments that have become contiguous with next. */
static void
drain(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	struct rk_insp_tcp_seg *s;

	while ((s = d->ooo) != NULL && rk_insp_seq_diff(s->seq, d->next) <= 0) {
		uint32_t covered = d->next - s->seq;

		d->ooo = s->next;
		d->ooo_bytes -= SEG_COST(s->len);
		if (covered < s->len) {
			d->rtx_bytes += covered;
			deliver(d, s->data + covered, s->len - covered, ops, ctx);
		} else {
			d->rtx_bytes += s->len;
		}
		free(s);
	}
}

static void
end_if_fin(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (d->state == RK_INSP_TCP_OPEN && d->fin_seen && d->next == d->fin_seq &&
	    d->ooo == NULL) {
		d->next++;
		d->state = RK_INSP_TCP_CLOSED;
		if (ops != NULL && ops->end != NULL)
			ops->end(ctx, false);
	}
}

static struct rk_insp_tcp_seg *
new_seg(uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct rk_insp_tcp_seg *s = malloc(sizeof(*s) + len);

	if (s == NULL)
		return NULL;
	s->next = NULL;
	s->seq = seq;
	s->len = len;
	memcpy(s->data, p, len);
	return s;
}

/*
 * Queue [seq, seq + len), all ahead of next, keeping queued segments
 * sorted and disjoint: bytes already queued win, the rest fills holes.
 */
static void
queue_insert(struct rk_insp_tcp_dir *d, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct rk_insp_tcp_seg **link = &d->ooo;

	while (len > 0) {
		struct rk_insp_tcp_seg *e = *link;
		uint32_t piece = len;

		if (e != NULL) {
			int32_t start = rk_insp_seq_diff(e->seq, seq);
			int32_t e_end = rk_insp_seq_diff(e->seq + e->len, seq);

			if (e_end <= 0) {
				/* e lies wholly before the new bytes. */
				link = &e->next;
				continue;
			}
			if (start <= 0) {
				/* New bytes start inside e: drop the overlap. */
				uint32_t ov = (uint32_t)e_end < len ? (uint32_t)e_end : len;

				d->rtx_bytes += ov;
				seq += ov;
				p += ov;
				len -= ov;
				link = &e->next;
				continue;
			}
			if ((uint32_t)start < piece)
				piece = (uint32_t)start;
		}
		{
			struct rk_insp_tcp_seg *s = new_seg(seq, p, piece);

			if (s == NULL)
				return; /* out of memory: the bytes become a gap later */
			s->next = e;
			*link = s;
			d->ooo_bytes += SEG_COST(piece);
			link = &s->next;
		}
		seq += piece;
		p += piece;
		len -= piece;
	}
}

/* Give up on the hole before the first queued segment. */
static void
skip_to_queue(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (d->ooo == NULL)
		return;
	declare_gap(d, d->ooo->seq, ops, ctx);
	drain(d, ops, ctx);
}

void
rk_insp_tcp_peer_ack(struct rk_insp_tcp_dir *d, uint32_t ack)
{
	if (!d->peer_ack_valid || rk_insp_seq_diff(ack, d->peer_ack) > 0) {
		d->peer_ack = ack;
		d->peer_ack_valid = true;
	}
}

/*
 * The peer acknowledged bytes beyond next and the sender has moved on:
 * the receiver got bytes the capture lost, and nobody will resend them.
 */
static void
skip_acked_hole(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops,
		void *ctx)
{
	uint32_t upto;
	int32_t ahead;

	if (!d->peer_ack_valid || d->ooo == NULL)
		return;
	ahead = rk_insp_seq_diff(d->peer_ack, d->next);
	if (ahead <= 0 || (uint32_t)ahead > MAX_AHEAD)
		return;
	upto = d->peer_ack;
	if (d->fin_seen && rk_insp_seq_diff(upto, d->fin_seq) > 0)
		upto = d->fin_seq;
	if (rk_insp_seq_diff(d->ooo->seq, upto) < 0)
		upto = d->ooo->seq;
	declare_gap(d, upto, ops, ctx);
	drain(d, ops, ctx);
}

static void
add_data(struct rk_insp_tcp_dir *d, uint32_t seq, const uint8_t *p, uint32_t len,
	 const struct rk_insp_tcp_ops *ops, void *ctx)
{
	int32_t off = rk_insp_seq_diff(seq, d->next);

	if (len == 0)
		return;
	if (off < 0) {
		uint32_t behind = (uint32_t)-(int64_t)off;

		if (behind >= len) {
			d->rtx_bytes += len;
			d->rtx_segments++;
			return;
		}
		/* Partly old: keep only the new tail. */
		d->rtx_bytes += behind;
		seq += behind;
		p += behind;
		len -= behind;
		off = 0;
	}
	if (off == 0) {
		deliver(d, p, len, ops, ctx);
		drain(d, ops, ctx);
		return;
	}
	if ((uint32_t)off > MAX_AHEAD) {
		d->ignored++;
		return;
	}
	d->ooo_segments++;
	queue_insert(d, seq, p, len);
	skip_acked_hole(d, ops, ctx);
	/* Bounded buffer: a hole that outlives it is never going to fill. */
	while (d->ooo != NULL && d->ooo_bytes > d->max_ooo)
		skip_to_queue(d, ops, ctx);
}

void
rk_insp_tcp_segment(struct rk_insp_tcp_dir *d, uint32_t seq, uint8_t flags,
		    const uint8_t *data, uint32_t len,
		    const struct rk_insp_tcp_ops *ops, void *ctx)
{
	d->segments++;
	if (data == NULL)
		len = 0;
	if (d->state == RK_INSP_TCP_CLOSED) {
		if (len > 0 && rk_insp_seq_diff(seq + len, d->next) <= 0) {
			d->rtx_bytes += len;
			d->rtx_segments++;
		} else if (len > 0) {
			d->ignored++;
		}
		return;
	}
	if (flags & RK_INSP_TCP_SYN) {
		if (!d->syn_seen && d->state == RK_INSP_TCP_NONE) {
			d->syn_seen = true;
			d->isn = seq;
			d->next = seq + 1;
			d->state = RK_INSP_TCP_OPEN;
		} else if (!d->syn_seen || seq != d->isn) {
			/* A SYN with another ISN on a followed stream:
			 * not this connection (or a reuse): ignore. */
			d->ignored++;
			return;
		}
		/* Data carried on the SYN starts after it. */
		seq++;
	} else if (d->state == RK_INSP_TCP_NONE) {
		/* Capture started mid-connection: the stream starts here. */
		d->next = seq;
		d->state = RK_INSP_TCP_OPEN;
	}
	if (flags & RK_INSP_TCP_FIN) {
		uint32_t f = seq + len;

		/* Keep the first FIN position that is not already behind us. */
		if (!d->fin_seen && rk_insp_seq_diff(f, d->next) >= 0) {
			d->fin_seen = true;
			d->fin_seq = f;
		}
	}
	if (d->fin_seen && len > 0 && rk_insp_seq_diff(seq + len, d->fin_seq) > 0) {
		/* Bytes past the FIN are not part of the stream. */
		int32_t keep = rk_insp_seq_diff(d->fin_seq, seq);

		len = keep > 0 ? (uint32_t)keep : 0;
		d->ignored++;
	}
	add_data(d, seq, data, len, ops, ctx);
	if (flags & RK_INSP_TCP_RST) {
		rk_insp_tcp_flush(d, ops, ctx);
		if (d->state != RK_INSP_TCP_CLOSED) {
			d->state = RK_INSP_TCP_CLOSED;
			if (ops != NULL && ops->end != NULL)
				ops->end(ctx, true);
		}
		return;
	}
	end_if_fin(d, ops, ctx);
}

void
rk_insp_tcp_flush(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops,
		  void *ctx)
{
	while (d->ooo != NULL)
		skip_to_queue(d, ops, ctx);
	/* A FIN whose preceding bytes never came: the stream still ended. */
	if (d->state == RK_INSP_TCP_OPEN && d->fin_seen) {
		declare_gap(d, d->fin_seq, ops, ctx);
		end_if_fin(d, ops, ctx);
	}
}

void
rk_insp_tcp_lost(struct rk_insp_tcp_dir *d, uint32_t seq, uint32_t len,
		 const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (d->state != RK_INSP_TCP_OPEN || len == 0 || seq != d->next)
		return;
	declare_gap(d, seq + len, ops, ctx);
	drain(d, ops, ctx);
	end_if_fin(d, ops, ctx);
}
