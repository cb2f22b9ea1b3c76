/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iWARP connections in a capture: TCP connection table, per-direction
 * stream following (rk_insp_tcp.c), classification by the MPA key at the start of
 * the stream (RFC 5044 7.1), and the MPA deframer of lib/wire (rk_mpa.h),
 * whose events become per-connection counters and output events.
 */
#include "rk_insp_iwarp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_insp_iwsync.h"
#include "rk_insp_timing.h"

/* Both MPA keys start with this: enough to tell MPA from anything else,
 * and a wrong key after it is the deframer's mpa.key.bad to report. */
#define MPA_KEY_PREFIX "MPA ID "
#define MPA_KEY_PREFIX_LEN 7

enum conn_state {
	CONN_PENDING = 0,   /* followed, first stream bytes not seen yet */
	CONN_IWARP,
	CONN_NOT_IWARP,     /* dropped after the segment that decided it */
	CONN_IGNORED,       /* joined mid-connection, no framing found: kept
			       so its later segments are not searched again */
};

/* Below this many kept bytes a direction joined mid-connection is
 * searched at each piece of data; past it, at each doubling. */
#define MID_FIRST_TRY 2048u

static uint64_t
ep_hash(const uint8_t *a, uint16_t pa, const uint8_t *b, uint16_t pb)
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0xcbf29ce484222325ull;

	/* Order-independent: each endpoint hashed alone, then combined. */
	for (int i = 0; i < 16; i++) {
		h1 = (h1 ^ a[i]) * 0x100000001b3ull;
		h2 = (h2 ^ b[i]) * 0x100000001b3ull;
	}
	h1 = (h1 ^ pa) * 0x100000001b3ull;
	h2 = (h2 ^ pb) * 0x100000001b3ull;
	h1 ^= h2;
	return h1 ^ (h1 >> 31);
}

static uint64_t
conn_hash(const struct rk_insp_iw_conn *c)
{
	return ep_hash(c->addr[0], c->port[0], c->addr[1], c->port[1]);
}

int
rk_insp_iw_init(struct rk_insp_iw *t, const struct rk_insp_iw_opts *opts,
		rk_insp_iw_emit_fn emit, void *ctx)
{
	memset(t, 0, sizeof(*t));
	if (opts != NULL)
		t->opts = *opts;
	t->emit = emit;
	t->emit_ctx = ctx;
	return rk_insp_htab_init(&t->hash, 256, 1u << 24);
}

static void
free_dir(struct rk_insp_iw_dir *d)
{
	rk_insp_tcp_fini(&d->tcp);
	free(d->deframer);
	d->deframer = NULL;
	free(d->mid_buf);
	d->mid_buf = NULL;
	rk_insp_lat_free(d->read_lat);
	d->read_lat = NULL;
	free(d->rd_pend);
	d->rd_pend = NULL;
}

/*
 * Timing of FPDU @p m at @p ts_ns in direction @p d (the other @p o): a
 * Read Request waits for its response in @p d; a Read Response segment at
 * a waiting request's sink STag and TO, the first of its response, gives
 * the latency to @p o.
 */
static void
fpdu_timing(struct rk_insp_iw_dir *d, struct rk_insp_iw_dir *o, const struct rk_rdmap_msg *m,
	    uint64_t ts_ns)
{
	if (d->fpdus == 1)
		d->first_fpdu_ns = ts_ns;
	d->last_fpdu_ns = ts_ns;
	if (!m->ddp_ok)
		return;
	switch (m->opcode) {
	case RK_RDMAP_WRITE:
	case RK_RDMAP_READ_RESP:
	case RK_RDMAP_SEND:
	case RK_RDMAP_SEND_INV:
	case RK_RDMAP_SEND_SE:
	case RK_RDMAP_SEND_SE_INV:
		d->data_bytes += m->payload_len;
		break;
	default:
		break;
	}
	if (m->opcode == RK_RDMAP_READ_REQ && m->rdmap_hdr_ok) {
		/* Out of memory only loses the latency. */
		if (d->rd_pend == NULL &&
		    (d->rd_pend = calloc(RK_INSP_IW_READS, sizeof(*d->rd_pend))) == NULL)
			return;
		d->rd_pend[d->rd_pos].stag = m->u.read_req.sink_stag;
		d->rd_pend[d->rd_pos].to = m->u.read_req.sink_to;
		d->rd_pend[d->rd_pos].ts_ns = ts_ns;
		d->rd_pos = (d->rd_pos + 1) % RK_INSP_IW_READS;
		if (d->rd_n < RK_INSP_IW_READS)
			d->rd_n++;
	} else if (m->opcode == RK_RDMAP_READ_RESP && m->t) {
		for (unsigned int i = 0; i < o->rd_n; i++) {
			unsigned int k = (o->rd_pos + RK_INSP_IW_READS - 1 - i) % RK_INSP_IW_READS;

			if (o->rd_pend[k].stag != m->stag || o->rd_pend[k].to != m->to)
				continue;
			if (ts_ns >= o->rd_pend[k].ts_ns)
				rk_insp_lat_add(&o->read_lat, ts_ns - o->rd_pend[k].ts_ns);
			/* answered: the oldest waiting takes its place */
			o->rd_pend[k] = o->rd_pend[(o->rd_pos + RK_INSP_IW_READS - o->rd_n) %
						   RK_INSP_IW_READS];
			o->rd_n--;
			break;
		}
	}
}

void
rk_insp_iw_fini(struct rk_insp_iw *t)
{
	struct rk_insp_iw_conn *c = t->head;

	while (c != NULL) {
		struct rk_insp_iw_conn *n = c->next;

		free_dir(&c->dir[0]);
		free_dir(&c->dir[1]);
		free(c);
		c = n;
	}
	rk_insp_htab_fini(&t->hash);
	memset(t, 0, sizeof(*t));
}

bool
rk_insp_iw_is_iwarp(const struct rk_insp_iw_conn *c)
{
	return c->state == CONN_IWARP;
}

void
rk_insp_iw_count_findings(struct rk_insp_iw_conn *c, const struct rk_findings *f)
{
	for (unsigned int i = 0; i < f->count; i++)
		if (f->list[i].id < RK_F_COUNT)
			c->findings[f->list[i].id]++;
}

static struct rk_insp_iw_conn *
find_conn(const struct rk_insp_iw *t, const struct rk_pkt *pkt, int *dir)
{
	uint64_t h = ep_hash(pkt->src_ip, pkt->src_port, pkt->dst_ip, pkt->dst_port);
	for (struct rk_insp_hlink *l = rk_insp_htab_chain(&t->hash, h); l != NULL; l = l->next) {
		struct rk_insp_iw_conn *c = rk_insp_hlink_elem(l, struct rk_insp_iw_conn, hl);

		if (l->hash != h)
			continue;
		if (c->port[0] == pkt->src_port && c->port[1] == pkt->dst_port &&
		    memcmp(c->addr[0], pkt->src_ip, 16) == 0 &&
		    memcmp(c->addr[1], pkt->dst_ip, 16) == 0) {
			*dir = 0;
			return c;
		}
		if (c->port[1] == pkt->src_port && c->port[0] == pkt->dst_port &&
		    memcmp(c->addr[1], pkt->src_ip, 16) == 0 &&
		    memcmp(c->addr[0], pkt->dst_ip, 16) == 0) {
			*dir = 1;
			return c;
		}
	}
	return NULL;
}

/* Remove a connection entirely (not iWARP: nothing of it is reported). */
static void
drop_conn(struct rk_insp_iw *t, struct rk_insp_iw_conn *c)
{
	rk_insp_htab_del(&t->hash, &c->hl);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		t->head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		t->tail = c->prev;
	free_dir(&c->dir[0]);
	free_dir(&c->dir[1]);
	free(c);
	t->nconns--;
}

static struct rk_insp_iw_conn *
new_conn(struct rk_insp_iw *t, const struct rk_pkt *pkt, bool initiator_is_src, bool mid)
{
	struct rk_insp_iw_conn *c = calloc(1, sizeof(*c));
	int s = initiator_is_src ? 0 : 1;

	if (c == NULL)
		return NULL;
	memcpy(c->addr[s], pkt->src_ip, 16);
	memcpy(c->addr[!s], pkt->dst_ip, 16);
	c->port[s] = pkt->src_port;
	c->port[!s] = pkt->dst_port;
	c->ip_version = pkt->ip_version;
	c->state = CONN_PENDING;
	c->joined_mid = mid;
	c->table = t;
	for (int d = 0; d < 2; d++) {
		rk_insp_tcp_init(&c->dir[d].tcp, t->opts.tcp_buffer);
		if (mid)
			c->dir[d].mid_state = RK_INSP_IW_MID_SEARCH;
		c->dctx[d].conn = c;
		c->dctx[d].dir = d;
	}
	rk_insp_htab_add(&t->hash, &c->hl, conn_hash(c));
	c->prev = t->tail;
	if (t->tail != NULL)
		t->tail->next = c;
	else
		t->head = c;
	t->tail = c;
	t->nconns++;
	return c;
}

/* ------------------------------------------------------ deframer glue */

static const char *
lost_name(enum rk_mpa_lost_reason r)
{
	switch (r) {
	case RK_MPA_LOST_NOT_MPA:
		return "not_mpa";
	case RK_MPA_LOST_KEY_BAD:
		return "key_bad";
	case RK_MPA_LOST_GAP:
		return "gap";
	case RK_MPA_LOST_TRUNCATED:
		return "truncated";
	default:
		return "unknown";
	}
}

static void
on_mpa_event(const struct rk_mpa_event *mev, void *ctx)
{
	struct rk_insp_iw_dctx *dc = ctx;
	struct rk_insp_iw_conn *c = dc->conn;
	struct rk_insp_iw *t = c->table;
	struct rk_insp_iw_dir *d = &c->dir[dc->dir];
	struct rk_insp_iw_dir *o = &c->dir[!dc->dir];
	struct rk_insp_iw_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.frame = t->cur_frame;
	ev.ts_ns = t->cur_ts_ns;
	ev.conn = c;
	ev.dir = dc->dir;
	ev.tcp_seq = mev->seq;
	ev.stream_len = mev->wire_len;
	ev.findings = mev->findings;

	switch (mev->kind) {
	case RK_MPA_EV_REQUEST:
	case RK_MPA_EV_REPLY: {
		const struct rk_mpa_rr *rr = &mev->rr;

		ev.kind = mev->kind == RK_MPA_EV_REQUEST ? RK_INSP_IW_MPA_REQUEST :
			  RK_INSP_IW_MPA_REPLY;
		ev.rev = rr->rev;
		ev.m = rr->m;
		ev.c = rr->c;
		ev.r = rr->r;
		ev.pd_len = rr->pd_len;
		ev.enhanced = rr->has_ird_ord;
		ev.ird = rr->ird_ord.ird;
		ev.ord = rr->ird_ord.ord;
		d->mpa_seen = true;
		d->rev = rr->rev;
		d->reject = rr->r;
		d->pd_len = rr->pd_len;
		/* This frame's M and C set the options of the opposite
		 * direction (RFC 5044 7.1.1). */
		if (o->deframer != NULL)
			rk_mpa_stream_apply_peer(o->deframer, rr);
		if (mev->kind == RK_MPA_EV_REQUEST) {
			t->mpa_requests++;
			c->req = *rr;
			c->req.ulp_pd = NULL;
			c->req.ulp_pd_len = 0;
			c->have_req = true;
		} else {
			t->mpa_replies++;
			if (c->have_req)
				rk_mpa_rtr_check(&c->req, rr, &ev.findings);
		}
		break;
	}
	case RK_MPA_EV_FPDU: {
		const struct rk_mpa_fpdu *fp = &mev->fpdu;

		ev.kind = RK_INSP_IW_FPDU;
		ev.tcp_seq = fp->hdr_seq;
		ev.ulpdu_len = fp->ulpdu_len;
		ev.pad = fp->pad_len;
		ev.markers = fp->nmarkers;
		ev.crc_value = fp->crc_carried;
		ev.crc = !fp->crc_checked ? RK_INSP_CRC_NONE :
			 fp->crc_ok ? RK_INSP_CRC_GOOD : RK_INSP_CRC_BAD;
		ev.msg = fp->msg;
		d->markers = mev->params.markers;
		d->crc = mev->params.crc;
		d->fpdus++;
		d->ulp_bytes += fp->ulpdu_len;
		if (ev.crc != RK_INSP_CRC_BAD)
			fpdu_timing(d, o, &fp->msg, t->cur_ts_ns);
		d->markers_removed += fp->nmarkers;
		if (ev.crc == RK_INSP_CRC_BAD)
			d->crc_errors++;
		if (fp->msg.ddp_ok) {
			d->rdmap_ops[fp->msg.opcode & 0x0f]++;
			if (fp->msg.l)
				d->messages++;
			if (fp->msg.opcode == RK_RDMAP_TERMINATE && fp->msg.rdmap_hdr_ok) {
				if (d->terminates < 4) {
					d->term[d->terminates].layer = fp->msg.u.term.ctrl.layer;
					d->term[d->terminates].etype = fp->msg.u.term.ctrl.etype;
					d->term[d->terminates].err_code =
						fp->msg.u.term.ctrl.err_code;
					d->term[d->terminates].frame = t->cur_frame;
				}
				d->terminates++;
			}
		}
		break;
	}
	case RK_MPA_EV_LOST_SYNC:
		ev.kind = RK_INSP_IW_SYNC_LOST;
		ev.lost_reason = lost_name(mev->lost);
		d->sync_lost++;
		break;
	case RK_MPA_EV_RESYNC:
		ev.kind = RK_INSP_IW_RESYNC;
		break;
	}
	rk_insp_iw_count_findings(c, &ev.findings);
	t->events++;
	if (t->emit != NULL)
		t->emit(t->emit_ctx, &ev);
}

static bool
start_deframers(struct rk_insp_iw_conn *c)
{
	for (int i = 0; i < 2; i++) {
		struct rk_insp_iw_dir *d = &c->dir[i];

		d->deframer = malloc(sizeof(*d->deframer));
		if (d->deframer == NULL)
			return false;
		rk_mpa_stream_init(d->deframer);
	}
	return true;
}

static void
feed(struct rk_insp_iw_conn *c, int dir, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct rk_insp_iw_dir *d = &c->dir[dir];

	if (d->deframer != NULL && len > 0)
		rk_mpa_stream_feed(d->deframer, seq, p, len, on_mpa_event, &c->dctx[dir]);
}

/* ------------------------------------------- joined mid-connection */

/* Framing found at sync->seq: decode the kept bytes from there on. */
static void
mid_synced(struct rk_insp_iw_conn *c, int dir, const struct rk_insp_iwsync *sync)
{
	struct rk_insp_iw_dir *d = &c->dir[dir];
	struct rk_insp_iw *t = c->table;
	struct rk_insp_iw_event ev;
	uint32_t skip = sync->seq - d->mid_seq0;

	d->deframer = malloc(sizeof(*d->deframer));
	if (d->deframer == NULL) {
		d->mid_state = RK_INSP_IW_MID_FAILED;
		d->mid_skipped += d->mid_len;
		return;
	}
	rk_mpa_stream_init_fpdu(d->deframer, &sync->params, sync->seq, sync->marker_seq0);
	d->mid_state = RK_INSP_IW_MID_SYNCED;
	d->sync_seq = sync->seq;
	d->sync_params = sync->params;
	d->mid_skipped += skip;
	d->markers = sync->params.markers;
	d->crc = sync->params.crc;
	if (c->state == CONN_PENDING) {
		c->state = CONN_IWARP;
		t->niwarp++;
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = RK_INSP_IW_RESYNC;
	ev.frame = t->cur_frame;
	ev.ts_ns = t->cur_ts_ns;
	ev.conn = c;
	ev.dir = dir;
	ev.tcp_seq = sync->seq;
	ev.stream_len = skip;
	ev.lost_reason = "joined_mid_connection";
	t->events++;
	if (t->emit != NULL)
		t->emit(t->emit_ctx, &ev);
	rk_mpa_stream_feed(d->deframer, sync->seq, d->mid_buf + skip, d->mid_len - skip,
			   on_mpa_event, &c->dctx[dir]);
	free(d->mid_buf);
	d->mid_buf = NULL;
	d->mid_len = 0;
}

static void
mid_failed(struct rk_insp_iw_conn *c, int dir)
{
	struct rk_insp_iw_dir *d = &c->dir[dir];

	d->mid_state = RK_INSP_IW_MID_FAILED;
	d->mid_skipped += d->mid_len;
	free(d->mid_buf);
	d->mid_buf = NULL;
	d->mid_len = 0;
}

/* Search the kept bytes of @p dir; @return whether framing was found. */
static bool
mid_search(struct rk_insp_iw_conn *c, int dir, bool final)
{
	struct rk_insp_iw_dir *d = &c->dir[dir];
	struct rk_insp_iwsync sync;
	struct rk_mpa_stream *scratch = malloc(sizeof(*scratch));
	int rc;

	if (scratch == NULL)
		return false;
	rc = d->mid_buf != NULL ? rk_insp_iwsync_find(d->mid_buf, d->mid_len, d->mid_seq0,
						      final, scratch, &sync) : (final ? -1 : 0);
	free(scratch);
	if (rc == 1) {
		mid_synced(c, dir, &sync);
		return true;
	}
	if (rc < 0) {
		mid_failed(c, dir);
		/* Bytes enough and no framing: not iWARP, whatever the other side. */
		if (!final && c->state == CONN_PENDING)
			c->state = CONN_IGNORED;
	}
	return false;
}

/* In-order bytes of a direction joined mid-connection. */
static void
mid_data(struct rk_insp_iw_conn *c, int dir, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct rk_insp_iw_dir *d = &c->dir[dir];
	uint32_t take, cap;

	if (d->mid_state == RK_INSP_IW_MID_FAILED) {
		d->mid_skipped += len;
		return;
	}
	if (d->mid_len == 0)
		d->mid_seq0 = seq;
	take = RK_INSP_IWSYNC_MAX - d->mid_len;
	if (take > len)
		take = len;
	/* Room doubles with the bytes kept, up to the search's limit. */
	for (cap = MID_FIRST_TRY; cap < d->mid_len + take; cap *= 2)
		;
	if (d->mid_buf == NULL || cap > MID_FIRST_TRY) {
		uint8_t *n = realloc(d->mid_buf, cap);

		if (n == NULL) {
			mid_failed(c, dir);
			d->mid_skipped += len;
			return;
		}
		d->mid_buf = n;
	}
	memcpy(d->mid_buf + d->mid_len, p, take);
	d->mid_len += take;
	/* Small: search at every piece (the FPDUs' frames stay close);
	 * then at each doubling, so the searches cost twice the bytes. */
	if (d->mid_try == 0)
		d->mid_try = 2 * MID_FIRST_TRY;
	if (d->mid_len >= MID_FIRST_TRY && d->mid_len < d->mid_try &&
	    d->mid_len < RK_INSP_IWSYNC_MAX)
		return;
	if (d->mid_len >= d->mid_try)
		d->mid_try = d->mid_try >= RK_INSP_IWSYNC_MAX / 2 ? RK_INSP_IWSYNC_MAX :
			     d->mid_try * 2;
	if (mid_search(c, dir, false)) {
		if (take < len)
			feed(c, dir, seq + take, p + take, len - take);
	} else if (d->mid_state == RK_INSP_IW_MID_FAILED) {
		d->mid_skipped += len - take;
	}
}

/* Decide from the first bytes of either direction whether this is MPA. */
static void
classify(struct rk_insp_iw_conn *c, int dir, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct rk_insp_iw_dir *d = &c->dir[dir];
	uint32_t take = MPA_KEY_PREFIX_LEN - d->prefix_len;
	bool is_mpa;

	if (take > len)
		take = len;
	if (d->prefix_len == 0)
		d->prefix_seq = seq;
	memcpy(d->prefix + d->prefix_len, p, take);
	d->prefix_len = (uint8_t)(d->prefix_len + take);
	if (d->prefix_len < MPA_KEY_PREFIX_LEN)
		return;
	is_mpa = memcmp(d->prefix, MPA_KEY_PREFIX, MPA_KEY_PREFIX_LEN) == 0;
	if (!is_mpa || !start_deframers(c)) {
		c->state = CONN_NOT_IWARP;
		return;
	}
	c->state = CONN_IWARP;
	c->table->niwarp++;
	/* Replay what each direction held back, then the rest of this piece. */
	for (int i = 0; i < 2; i++) {
		struct rk_insp_iw_dir *x = &c->dir[i];
		uint32_t n = i == dir ? x->prefix_len - take : x->prefix_len;

		feed(c, i, x->prefix_seq, x->prefix, n);
	}
	feed(c, dir, seq, p, len);
}

static void
on_data(void *ctx, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct rk_insp_iw_dctx *dc = ctx;
	struct rk_insp_iw_conn *c = dc->conn;

	if (c->dir[dc->dir].mid_state == RK_INSP_IW_MID_SEARCH ||
	    c->dir[dc->dir].mid_state == RK_INSP_IW_MID_FAILED) {
		if (c->state == CONN_PENDING || c->state == CONN_IWARP)
			mid_data(c, dc->dir, seq, p, len);
	} else if (c->state == CONN_PENDING) {
		classify(c, dc->dir, seq, p, len);
	} else if (c->state == CONN_IWARP) {
		feed(c, dc->dir, seq, p, len);
	}
}

static void
on_gap(void *ctx, uint32_t seq, uint32_t len)
{
	struct rk_insp_iw_dctx *dc = ctx;
	struct rk_insp_iw_conn *c = dc->conn;
	struct rk_insp_iw_dir *d = &c->dir[dc->dir];

	if (d->mid_state == RK_INSP_IW_MID_SEARCH) {
		/* The kept bytes end at a hole: search again after it. */
		d->mid_skipped += d->mid_len;
		d->mid_len = 0;
		return;
	}
	if (c->state == CONN_PENDING) {
		/* The stream start is lost: it can no longer be classified. */
		c->state = CONN_NOT_IWARP;
		return;
	}
	if (d->deframer != NULL)
		rk_mpa_stream_gap(d->deframer, seq + len, on_mpa_event, &c->dctx[dc->dir]);
}

static void
on_end(void *ctx, bool rst)
{
	struct rk_insp_iw_dctx *dc = ctx;
	struct rk_insp_iw_conn *c = dc->conn;
	struct rk_insp_iw_dir *d = &c->dir[dc->dir];

	(void)rst;
	d->ended = true;
	if (d->mid_state == RK_INSP_IW_MID_SEARCH &&
	    (c->state == CONN_PENDING || c->state == CONN_IWARP))
		(void)mid_search(c, dc->dir, true);
	if (d->deframer != NULL) {
		rk_mpa_stream_finish(d->deframer, on_mpa_event, &c->dctx[dc->dir]);
		/* 66 KiB per direction: give it back as soon as it is done. */
		free(d->deframer);
		d->deframer = NULL;
	}
}

/* The same sequence numbers carried other bytes: one of the two ends
 * keeps data the other end never sent as it was first (RFC 9293 3.4). */
static void
on_conflict(void *ctx, uint32_t seq, uint32_t ndiff)
{
	struct rk_insp_iw_dctx *dc = ctx;
	struct rk_insp_iw_conn *c = dc->conn;
	struct rk_insp_iw *t = c->table;
	struct rk_insp_iw_event ev;

	if (c->state == CONN_NOT_IWARP)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = RK_INSP_IW_TCP_CONFLICT;
	ev.frame = t->cur_frame;
	ev.ts_ns = t->cur_ts_ns;
	ev.conn = c;
	ev.dir = dc->dir;
	ev.tcp_seq = seq;
	ev.stream_len = ndiff;
	rk_findings_add(&ev.findings, RK_F_TCP_RTX_CONFLICT, 0);
	rk_insp_iw_count_findings(c, &ev.findings);
	t->events++;
	if (t->emit != NULL)
		t->emit(t->emit_ctx, &ev);
}

static const struct rk_insp_tcp_ops follow_ops = {
	.data = on_data,
	.gap = on_gap,
	.end = on_end,
	.conflict = on_conflict,
};

bool
rk_insp_iw_frame(struct rk_insp_iw *t, const struct rk_pkt *pkt, uint64_t frame,
		 uint64_t ts_ns)
{
	struct rk_insp_iw_conn *c;
	struct rk_insp_iw_dir *d;
	const uint8_t *payload = NULL;
	uint32_t len = 0;
	bool syn = pkt->tcp_flags & RK_INSP_TCP_SYN;
	bool ack = pkt->tcp_flags & RK_INSP_TCP_ACK;
	int dir = 0;

	if (pkt->kind != RK_PKT_TCP || !(pkt->layers & RK_L_TCP))
		return false;
	t->cur_frame = frame;
	t->cur_ts_ns = ts_ns;
	c = find_conn(t, pkt, &dir);
	if (c != NULL && c->state == CONN_IGNORED) {
		if (!syn)
			return false;
		drop_conn(t, c);
		c = NULL;
	}
	if (c != NULL && syn && !ack && (c->joined_mid || (dir == 0 && c->dir[0].tcp.syn_seen &&
					     pkt->tcp_seq != c->dir[0].tcp.isn))) {
		/* Port reuse (or the end of one joined mid-connection): a new
		 * connection; the old record stays listed. */
		rk_insp_htab_del(&t->hash, &c->hl);
		c = NULL;
	}
	if (c == NULL && syn) {
		c = new_conn(t, pkt, !ack, false);
		if (c == NULL)
			return false;
		dir = ack ? 1 : 0;
		c->first_frame = frame;
	} else if (c == NULL) {
		/* Joined mid-connection: followed from its first data, the
		 * side with the higher port taken as the initiator. */
		bool src_init = pkt->src_port >= pkt->dst_port;

		if (pkt->l4_payload_len == 0 || (pkt->tcp_flags & RK_INSP_TCP_RST))
			return false;
		c = new_conn(t, pkt, src_init, true);
		if (c == NULL)
			return false;
		dir = src_init ? 0 : 1;
		c->first_frame = frame;
	}
	c->last_frame = frame;
	d = &c->dir[dir];
	d->packets++;
	d->bytes += pkt->wirelen;
	if (pkt->l4_payload_off < pkt->caplen) {
		uint64_t avail = pkt->caplen - pkt->l4_payload_off;

		payload = pkt->frame + pkt->l4_payload_off;
		len = pkt->l4_payload_len;
		/* Bytes cut by the snap length are a hole in the stream. */
		if (len > avail)
			len = (uint32_t)avail;
	}
	d->payload_bytes += pkt->l4_payload_len;
	if (ack)
		rk_insp_tcp_peer_ack(&c->dir[!dir].tcp, pkt->tcp_ack);
	rk_insp_tcp_segment(&d->tcp, pkt->tcp_seq, pkt->tcp_flags, payload, len,
			    &follow_ops, &c->dctx[dir]);
	if (len < pkt->l4_payload_len && c->state != CONN_NOT_IWARP)
		/* The bytes cut by the snap length will never be seen. */
		rk_insp_tcp_lost(&d->tcp, pkt->tcp_seq + (syn ? 1u : 0u) + len,
				 pkt->l4_payload_len - len, &follow_ops, &c->dctx[dir]);
	if (pkt->tcp_flags & RK_INSP_TCP_RST) {
		/* The other direction ends with the connection. */
		rk_insp_tcp_flush(&c->dir[!dir].tcp, &follow_ops, &c->dctx[!dir]);
		if (!c->dir[!dir].ended)
			on_end(&c->dctx[!dir], true);
	}
	if (c->state == CONN_NOT_IWARP) {
		drop_conn(t, c);
		return false;
	}
	if (c->state == CONN_IGNORED) {
		for (int i = 0; i < 2; i++) {
			free_dir(&c->dir[i]);
			c->dir[i].tcp.state = RK_INSP_TCP_CLOSED;
		}
		return false;
	}
	if (c->state == CONN_PENDING && c->dir[0].ended && c->dir[1].ended) {
		drop_conn(t, c);
		return false;
	}
	return c->state == CONN_IWARP;
}

void
rk_insp_iw_finish(struct rk_insp_iw *t)
{
	for (struct rk_insp_iw_conn *c = t->head; c != NULL; c = c->next) {
		if (c->state != CONN_IWARP && !(c->state == CONN_PENDING && c->joined_mid))
			continue;
		for (int d = 0; d < 2; d++) {
			rk_insp_tcp_flush(&c->dir[d].tcp, &follow_ops, &c->dctx[d]);
			if (!c->dir[d].ended)
				on_end(&c->dctx[d], false);
		}
	}
}
