/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP direction follower: in-order delivery from captured segments.
 * All sequence comparisons are signed 32-bit differences (RFC 9293 3.4).
 */
#include "rk_insp_tcp.h"

#include <stdlib.h>
#include <string.h>

/* Segments further ahead than this are not part of the stream (port
 * reuse, garbage): at most half of the sequence space is meaningful, and
 * no real window comes near a quarter of it. */
#define MAX_AHEAD (1u << 30)

/*
 * A queued byte range. Its buffer keeps free room at both ends so bytes
 * that arrive just before or just after it are added in amortised
 * constant time: in-order bursts after a hole and descending arrival both
 * stay linear.
 */
struct rk_insp_tcp_seg {
	uint32_t seq;           /* sequence number of buf[off] */
	uint32_t len;
	uint32_t off;           /* free bytes before the data */
	uint32_t cap;           /* bytes of buf */
	uint8_t buf[];
};

/* Bookkeeping charged per queued range, so tiny segments cannot grow the
 * buffer without bound. */
#define SEG_COST(cap) ((uint32_t)sizeof(struct rk_insp_tcp_seg) + (cap))

void
rk_insp_tcp_init(struct rk_insp_tcp_dir *d, uint32_t max_ooo)
{
	memset(d, 0, sizeof(*d));
	d->max_ooo = max_ooo != 0 ? max_ooo : RK_INSP_TCP_MAX_OOO_DEFAULT;
	d->max_segs = RK_INSP_TCP_MAX_SEGS_DEFAULT;
	d->hist_max = RK_INSP_TCP_HISTORY_DEFAULT;
}

void
rk_insp_tcp_fini(struct rk_insp_tcp_dir *d)
{
	for (uint32_t i = 0; i < d->nooo; i++)
		free(d->ooo[i]);
	free(d->ooo);
	d->ooo = NULL;
	d->nooo = 0;
	d->ooo_slots = 0;
	d->ooo_bytes = 0;
	free(d->hist);
	d->hist = NULL;
	d->hist_cap = 0;
	d->hist_len = 0;
}

static uint32_t
seg_end(const struct rk_insp_tcp_seg *s)
{
	return s->seq + s->len;
}

/* Bytes from sequence number @p seq on that sit contiguously in a ring of
 * @p cap bytes (a power of two), at most @p n. */
static uint32_t
ring_run(uint32_t cap, uint32_t seq, uint32_t n)
{
	uint32_t room = cap - (seq & (cap - 1));

	return room < n ? room : n;
}

/* Copy @p n bytes at sequence number @p seq into a ring of @p cap bytes. */
static void
ring_put(uint8_t *ring, uint32_t cap, uint32_t seq, const uint8_t *p, uint32_t n)
{
	while (n > 0) {
		uint32_t k = ring_run(cap, seq, n);

		memcpy(ring + (seq & (cap - 1)), p, k);
		seq += k;
		p += k;
		n -= k;
	}
}

/* Keep the bytes about to be delivered at next. The ring starts small and
 * doubles with the stream, so short connections stay cheap; without
 * memory the history just stays shorter. */
static void
hist_push(struct rk_insp_tcp_dir *d, const uint8_t *p, uint32_t len)
{
	uint32_t want = d->hist_len + len, seq = d->next;

	if (d->hist_max == 0)
		return;
	if (d->hist_cap < d->hist_max && want > d->hist_cap) {
		uint32_t cap = d->hist_cap != 0 ? d->hist_cap : 4096;
		uint8_t *g;

		while (cap < want && cap < d->hist_max)
			cap *= 2;
		g = malloc(cap);
		if (g != NULL) {
			/* Each run of the old ring lands where its bytes' sequence
			 * numbers put them in the new one. */
			for (uint32_t s = d->next - d->hist_len, n = d->hist_len; n > 0;) {
				uint32_t k = ring_run(d->hist_cap, s, n);

				ring_put(g, cap, s, d->hist + (s & (d->hist_cap - 1)), k);
				s += k;
				n -= k;
			}
			free(d->hist);
			d->hist = g;
			d->hist_cap = cap;
		}
	}
	if (d->hist == NULL)
		return;
	if (len > d->hist_cap) {
		p += len - d->hist_cap;
		seq += len - d->hist_cap;
		len = d->hist_cap;
	}
	ring_put(d->hist, d->hist_cap, seq, p, len);
	d->hist_len = d->hist_len + len > d->hist_cap ? d->hist_cap : d->hist_len + len;
	d->hist_end = seq + len;
}

/* Compare @p n bytes at @p seq with the first copy @p first. */
static void
compare(struct rk_insp_tcp_dir *d, uint32_t seq, const uint8_t *p,
	const uint8_t *first, uint32_t n)
{
	d->rtx_checked += n;
	if (memcmp(p, first, n) == 0)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (p[i] == first[i])
			continue;
		if (d->diff_n++ == 0)
			d->diff_seq = seq + i;
		d->rtx_conflict_bytes++;
	}
}

/*
 * Compare [seq, seq + n), all behind next, with the delivered bytes still
 * in the history, [hist_end - hist_len, hist_end); the rest goes
 * unchecked. Distances are taken back from next, unsigned and in 64 bits:
 * seq may be up to 2^31 behind, where a signed 32-bit difference wraps.
 */
static void
hist_compare(struct rk_insp_tcp_dir *d, uint32_t seq, const uint8_t *p, uint32_t n)
{
	uint64_t back = d->next - seq;              /* seq's distance, 1..2^31 */
	uint64_t end_back = d->next - d->hist_end;  /* 1 after a FIN, else 0 */
	uint64_t oldest_back = end_back + d->hist_len;

	if (d->hist == NULL || d->hist_len == 0 || n == 0 || back <= end_back)
		return;
	if (back > oldest_back) {
		if (back - oldest_back >= n)
			return;
		seq += (uint32_t)(back - oldest_back);
		p += back - oldest_back;
		n -= (uint32_t)(back - oldest_back);
		back = oldest_back;
	}
	if (n > back - end_back)
		n = (uint32_t)(back - end_back);
	while (n > 0) {
		uint32_t k = ring_run(d->hist_cap, seq, n);

		compare(d, seq, p, d->hist + (seq & (d->hist_cap - 1)), k);
		seq += k;
		p += k;
		n -= k;
	}
}

/* Report the differences found since the last call, once. */
static void
report_conflict(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (d->diff_n == 0)
		return;
	d->rtx_conflicts++;
	if (ops != NULL && ops->conflict != NULL)
		ops->conflict(ctx, d->diff_seq, d->diff_n);
	d->diff_n = 0;
}

static void
deliver(struct rk_insp_tcp_dir *d, const uint8_t *p, uint32_t len,
	const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (len == 0)
		return;
	hist_push(d, p, len);
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
	/* The history holds bytes up to next only. */
	d->hist_len = 0;
}

/* Drop entries [i, i + n) of the queue array (the ranges are freed by the
 * caller); the array goes when it empties. */
static void
queue_remove(struct rk_insp_tcp_dir *d, uint32_t i, uint32_t n)
{
	memmove(d->ooo + i, d->ooo + i + n, (d->nooo - i - n) * sizeof(*d->ooo));
	d->nooo -= n;
	if (d->nooo == 0) {
		free(d->ooo);
		d->ooo = NULL;
		d->ooo_slots = 0;
	}
}

/* Deliver queued ranges that have become contiguous with next. */
static void
drain(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	uint32_t k = 0;

	while (k < d->nooo && rk_insp_seq_diff(d->ooo[k]->seq, d->next) <= 0) {
		struct rk_insp_tcp_seg *s = d->ooo[k];
		uint32_t covered = d->next - s->seq;

		d->ooo_bytes -= SEG_COST(s->cap);
		hist_compare(d, s->seq, s->buf + s->off, covered < s->len ? covered : s->len);
		if (covered < s->len) {
			d->rtx_bytes += covered;
			deliver(d, s->buf + s->off + covered, s->len - covered, ops, ctx);
		} else {
			d->rtx_bytes += s->len;
		}
		free(s);
		k++;
	}
	if (k != 0)
		queue_remove(d, 0, k);
}

static void
end_if_fin(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (d->state == RK_INSP_TCP_OPEN && d->fin_seen && d->next == d->fin_seq &&
	    d->nooo == 0) {
		d->next++;
		d->state = RK_INSP_TCP_CLOSED;
		if (ops != NULL && ops->end != NULL)
			ops->end(ctx, false);
	}
}

/* A buffer of @p cap bytes holding @p len bytes at offset @p off. */
static struct rk_insp_tcp_seg *
seg_alloc(uint32_t seq, uint32_t len, uint32_t off, uint32_t cap)
{
	struct rk_insp_tcp_seg *s = malloc(sizeof(*s) + cap);

	if (s == NULL)
		return NULL;
	s->seq = seq;
	s->len = len;
	s->off = off;
	s->cap = cap;
	return s;
}

/* Room for twice the bytes, at least @p need, within the 32-bit size. */
static uint32_t
grown(uint32_t len, uint32_t need)
{
	uint64_t c = (uint64_t)len * 2;

	if (c < need)
		c = need;
	return c > UINT32_MAX - sizeof(struct rk_insp_tcp_seg) ?
	       need : (uint32_t)c;
}

/* Append @p n bytes to queued range @p i. */
static bool
seg_append(struct rk_insp_tcp_dir *d, uint32_t i, const uint8_t *p, uint32_t n)
{
	struct rk_insp_tcp_seg *s = d->ooo[i];

	if (s->cap - s->off - s->len < n) {
		uint32_t cap = grown(s->off + s->len, s->off + s->len + n);
		struct rk_insp_tcp_seg *g = realloc(s, sizeof(*s) + cap);

		if (g == NULL)
			return false;
		d->ooo_bytes += cap - g->cap;
		g->cap = cap;
		d->ooo[i] = s = g;
	}
	memcpy(s->buf + s->off + s->len, p, n);
	s->len += n;
	return true;
}

/* Prepend @p n bytes to queued range @p i. */
static bool
seg_prepend(struct rk_insp_tcp_dir *d, uint32_t i, const uint8_t *p, uint32_t n)
{
	struct rk_insp_tcp_seg *s = d->ooo[i];

	if (s->off < n) {
		/* New buffer with the free room at the front. */
		uint32_t cap = grown(s->len, s->len + n);
		struct rk_insp_tcp_seg *g = seg_alloc(s->seq, s->len, cap - s->len, cap);

		if (g == NULL)
			return false;
		memcpy(g->buf + g->off, s->buf + s->off, s->len);
		d->ooo_bytes += SEG_COST(cap) - SEG_COST(s->cap);
		free(s);
		d->ooo[i] = s = g;
	}
	s->off -= n;
	s->seq -= n;
	s->len += n;
	memcpy(s->buf + s->off, p, n);
	return true;
}

/* Insert a new range at position @p i of the queue. */
static bool
seg_insert(struct rk_insp_tcp_dir *d, uint32_t i, uint32_t seq, const uint8_t *p,
	   uint32_t n)
{
	struct rk_insp_tcp_seg *s;

	if (d->nooo == d->ooo_slots) {
		uint32_t slots = d->ooo_slots != 0 ? d->ooo_slots * 2 : 8;
		struct rk_insp_tcp_seg **a = realloc(d->ooo, slots * sizeof(*a));

		if (a == NULL)
			return false;
		d->ooo = a;
		d->ooo_slots = slots;
	}
	s = seg_alloc(seq, n, 0, n);
	if (s == NULL)
		return false;
	memcpy(s->buf, p, n);
	memmove(d->ooo + i + 1, d->ooo + i, (d->nooo - i) * sizeof(*d->ooo));
	d->ooo[i] = s;
	d->nooo++;
	d->ooo_bytes += SEG_COST(n);
	return true;
}

/*
 * Fill the hole between ranges @p i - 1 and @p i exactly with @p n bytes:
 * the two become one. The smaller side is copied into the larger, so each
 * byte is copied O(log) times over any sequence of merges.
 */
static bool
seg_bridge(struct rk_insp_tcp_dir *d, uint32_t i, const uint8_t *p, uint32_t n)
{
	struct rk_insp_tcp_seg *l = d->ooo[i - 1], *r = d->ooo[i];

	if ((uint64_t)l->len + n >= r->len) {
		if (!seg_append(d, i - 1, p, n))
			return false;
		if (!seg_append(d, i - 1, r->buf + r->off, r->len)) {
			/* Keep the queue consistent: undo the first append. */
			d->ooo[i - 1]->len -= n;
			return false;
		}
		d->ooo_bytes -= SEG_COST(r->cap);
		free(r);
		queue_remove(d, i, 1);
	} else {
		if (!seg_prepend(d, i, p, n))
			return false;
		if (!seg_prepend(d, i, l->buf + l->off, l->len)) {
			r = d->ooo[i];
			r->off += n;
			r->seq += n;
			r->len -= n;
			return false;
		}
		d->ooo_bytes -= SEG_COST(l->cap);
		free(l);
		queue_remove(d, i - 1, 1);
	}
	return true;
}

/* Index of the first queued range that ends after @p seq. All queued
 * bytes are ahead of next, so distances from next order them. */
static uint32_t
find_after(const struct rk_insp_tcp_dir *d, uint32_t seq)
{
	uint32_t lo = 0, hi = d->nooo;
	uint32_t key = seq - d->next;

	/* Arrival in order after a hole: the new bytes go last. */
	if (hi != 0 && seg_end(d->ooo[hi - 1]) - d->next <= key)
		return hi;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (seg_end(d->ooo[mid]) - d->next <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Queue [seq, seq + len), all ahead of next: bytes already queued win,
 * the rest fills holes, and bytes touching a queued range join its buffer.
 */
static void
queue_insert(struct rk_insp_tcp_dir *d, uint32_t seq, const uint8_t *p, uint32_t len)
{
	while (len > 0) {
		uint32_t i = find_after(d, seq);
		uint32_t piece = len;
		bool left, right, ok;

		if (i < d->nooo) {
			const struct rk_insp_tcp_seg *e = d->ooo[i];
			int32_t start = rk_insp_seq_diff(e->seq, seq);

			if (start <= 0) {
				/* New bytes start inside e: drop the overlap. */
				uint32_t ov = seg_end(e) - seq;

				if (ov > len)
					ov = len;
				compare(d, seq, p, e->buf + e->off + (seq - e->seq), ov);
				d->rtx_bytes += ov;
				seq += ov;
				p += ov;
				len -= ov;
				continue;
			}
			if ((uint32_t)start < piece)
				piece = (uint32_t)start;
		}
		left = i > 0 && seg_end(d->ooo[i - 1]) == seq;
		right = i < d->nooo && d->ooo[i]->seq == seq + piece;
		if (left && right)
			ok = seg_bridge(d, i, p, piece);
		else if (left)
			ok = seg_append(d, i - 1, p, piece);
		else if (right)
			ok = seg_prepend(d, i, p, piece);
		else
			ok = seg_insert(d, i, seq, p, piece);
		if (!ok)
			return; /* out of memory: the bytes become a gap later */
		seq += piece;
		p += piece;
		len -= piece;
	}
}

/* Give up on the hole before the first queued segment. */
static void
skip_to_queue(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	if (d->nooo == 0)
		return;
	declare_gap(d, d->ooo[0]->seq, ops, ctx);
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

	if (!d->peer_ack_valid || d->nooo == 0)
		return;
	ahead = rk_insp_seq_diff(d->peer_ack, d->next);
	if (ahead <= 0 || (uint32_t)ahead > MAX_AHEAD)
		return;
	upto = d->peer_ack;
	if (d->fin_seen && rk_insp_seq_diff(upto, d->fin_seq) > 0)
		upto = d->fin_seq;
	if (rk_insp_seq_diff(d->ooo[0]->seq, upto) < 0)
		upto = d->ooo[0]->seq;
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

		hist_compare(d, seq, p, behind < len ? behind : len);
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
	d->ooo_data += len;
	queue_insert(d, seq, p, len);
	skip_acked_hole(d, ops, ctx);
	/* Bounded buffer: a hole that outlives it is never going to fill. The
	 * cap on ranges also bounds the cost of each insertion. */
	while (d->nooo != 0 && (d->ooo_bytes > d->max_ooo || d->nooo > d->max_segs))
		skip_to_queue(d, ops, ctx);
}

static void
segment(struct rk_insp_tcp_dir *d, uint32_t seq, uint8_t flags,
	const uint8_t *data, uint32_t len, const struct rk_insp_tcp_ops *ops, void *ctx)
{
	d->segments++;
	if (data == NULL)
		len = 0;
	if (d->state == RK_INSP_TCP_CLOSED) {
		if (len > 0 && rk_insp_seq_diff(seq + len, d->next) <= 0) {
			hist_compare(d, seq, data, len);
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
rk_insp_tcp_segment(struct rk_insp_tcp_dir *d, uint32_t seq, uint8_t flags,
		    const uint8_t *data, uint32_t len,
		    const struct rk_insp_tcp_ops *ops, void *ctx)
{
	segment(d, seq, flags, data, len, ops, ctx);
	report_conflict(d, ops, ctx);
}

void
rk_insp_tcp_flush(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops,
		  void *ctx)
{
	while (d->nooo != 0)
		skip_to_queue(d, ops, ctx);
	/* A FIN whose preceding bytes never came: the stream still ended. */
	if (d->state == RK_INSP_TCP_OPEN && d->fin_seen) {
		declare_gap(d, d->fin_seq, ops, ctx);
		end_if_fin(d, ops, ctx);
	}
	report_conflict(d, ops, ctx);
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
	report_conflict(d, ops, ctx);
}
