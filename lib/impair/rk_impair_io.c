/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An impairment stage around any rk_io_ops backend: frames sent pass the
 * TX rules, frames received the RX rules; delayed copies wait in a queue
 * per direction until the inner backend's clock reaches them.
 */
#include "rk_impair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_QUEUE 65536
#define MAX_FRAME 16384

struct rk_impair_io {
	const struct rk_io_ops *inner;
	void *inner_io;
	struct rk_impair *stage[2];     /* 0 TX, 1 RX */
	struct rk_impair_queue q[2];
	uint32_t max_queue;
	struct rk_impair_io_stats st;
	uint8_t scratch[MAX_FRAME];
};

/* One endpoint's stage sees one direction: it cannot learn whom to answer. */
static bool
forges(const struct rk_impair_rule *r, unsigned int n)
{
	for (unsigned int i = 0; r != NULL && i < n; i++)
		if (r[i].forge != RK_IMPAIR_FORGE_NONE)
			return true;
	return false;
}

struct rk_impair_io *
rk_impair_io_create(const struct rk_impair_io_cfg *cfg)
{
	struct rk_impair_io *io;

	if (cfg == NULL || cfg->inner == NULL || cfg->inner->tx == NULL ||
	    cfg->inner->rx == NULL || cfg->inner->now_ns == NULL ||
	    forges(cfg->tx_rules, cfg->n_tx_rules) || forges(cfg->rx_rules, cfg->n_rx_rules)) {
		errno = EINVAL;
		return NULL;
	}
	io = calloc(1, sizeof(*io));
	if (io == NULL)
		return NULL;
	io->inner = cfg->inner;
	io->inner_io = cfg->inner_io;
	io->max_queue = cfg->max_queue ? cfg->max_queue : DEFAULT_MAX_QUEUE;
	io->stage[0] = rk_impair_create(cfg->tx_rules, cfg->n_tx_rules);
	io->stage[1] = io->stage[0] != NULL ? rk_impair_create(cfg->rx_rules, cfg->n_rx_rules) :
					      NULL;
	if (io->stage[1] == NULL) {
		int err = errno;

		rk_impair_io_destroy(io);
		errno = err;
		return NULL;
	}
	return io;
}

void
rk_impair_io_destroy(struct rk_impair_io *io)
{
	if (io == NULL)
		return;
	for (int d = 0; d < 2; d++) {
		rk_impair_destroy(io->stage[d]);
		rk_impair_queue_clear(&io->q[d]);
	}
	free(io);
}

const struct rk_impair *
rk_impair_io_stage(const struct rk_impair_io *io, bool rx)
{
	return io->stage[rx ? 1 : 0];
}

const struct rk_impair_io_stats *
rk_impair_io_stats(const struct rk_impair_io *io)
{
	struct rk_impair_io *w = (struct rk_impair_io *)io;

	w->st.tx_held = io->q[0].n;
	w->st.rx_held = io->q[1].n;
	return &io->st;
}

/* Hand the inner backend the held TX frames now due. */
static void
release_tx(struct rk_impair_io *io, uint64_t now)
{
	int len;

	while ((len = rk_impair_queue_pop(&io->q[0], now, io->scratch, sizeof(io->scratch))) > 0)
		(void)io->inner->tx(io->inner_io, io->scratch, (uint32_t)len);
}

/*
 * One copy @p c of a frame of direction @p d at @p now: due now, to the
 * inner backend (TX) or into @p rx_buf when empty (RX, @p got 0);
 * delayed, held. Returns the length in @p rx_buf.
 */
static int
put_copy(struct rk_impair_io *io, int d, uint64_t now, const struct rk_impair_verdict *v,
	 const struct rk_impair_copy *c, const uint8_t *frame, uint32_t len, uint8_t *rx_buf,
	 uint32_t rx_cap, int got)
{
	uint8_t *copy;

	if (c->delay_ns == 0 && d == 1 && got == 0 && len <= rx_cap) {
		memcpy(rx_buf, frame, len);
		rk_impair_apply(io->stage[d], v, c, rx_buf, len);
		return (int)len;
	}
	if (c->delay_ns == 0 && d == 0 && !c->corrupt && !c->ce) {
		(void)io->inner->tx(io->inner_io, frame, len);
		return got;
	}
	if (io->q[d].n >= io->max_queue ||
	    rk_impair_queue_push(&io->q[d], now + c->delay_ns, frame, len, &copy) != 0) {
		if (d == 0)
			io->st.tx_overflow++;
		else
			io->st.rx_overflow++;
		return got;
	}
	rk_impair_apply(io->stage[d], v, c, copy, len);
	return got;
}

/*
 * Impair one frame of direction @p d at @p now: copies due now go to
 * the inner backend (TX) or the first into @p rx_buf, the rest held (RX);
 * delayed ones are held. Returns the length put in @p rx_buf (RX).
 */
static int
impair_frame(struct rk_impair_io *io, int d, uint64_t now, const uint8_t *frame, uint32_t len,
	     uint8_t *rx_buf, uint32_t rx_cap)
{
	struct rk_impair_verdict v;
	int got = 0;

	rk_impair_decide(io->stage[d], frame, len, &v);
	for (unsigned int k = 0; k < v.copies; k++) {
		struct rk_impair_copy c;

		rk_impair_next_copy(io->stage[d], &v, &c);
		got = put_copy(io, d, now, &v, &c, frame, len, rx_buf, rx_cap, got);
	}
	if (d == 0)
		release_tx(io, now);
	return got;
}

static int
io_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rk_impair_io *io = arg;
	uint64_t now = io->inner->now_ns(io->inner_io);

	if (frame == NULL && len > 0)
		return -EINVAL;
	release_tx(io, now);
	(void)impair_frame(io, 0, now, frame, len, NULL, 0);
	/* An impaired frame is lost on the wire, not refused. */
	return 0;
}

/* The inner backend's lent buffer, when it lends one (else tx() copies). */
static uint8_t *
io_tx_frame(void *arg)
{
	struct rk_impair_io *io = arg;

	if (io->inner->tx_frame == NULL || io->inner->tx_commit == NULL)
		return NULL;
	return io->inner->tx_frame(io->inner_io);
}

/*
 * A frame built in the inner backend's lent buffer: one copy due now,
 * untouched, is committed there (no copy); a dropped frame is never
 * committed, so the buffer is lent again; other fates (duplicated,
 * delayed, corrupted, marked) go as tx() would, by copy.
 */
static int
io_tx_commit(void *arg, uint8_t *frame, uint32_t len)
{
	struct rk_impair_io *io = arg;
	uint64_t now = io->inner->now_ns(io->inner_io);
	struct rk_impair_verdict v;
	int rc = 0;

	if (frame == NULL || io->inner->tx_commit == NULL)
		return -EINVAL;
	release_tx(io, now);
	rk_impair_decide(io->stage[0], frame, len, &v);
	for (unsigned int k = 0; k < v.copies; k++) {
		struct rk_impair_copy c;

		rk_impair_next_copy(io->stage[0], &v, &c);
		if (v.copies == 1 && c.delay_ns == 0 && !c.corrupt && !c.ce)
			rc = io->inner->tx_commit(io->inner_io, frame, len);
		else
			(void)put_copy(io, 0, now, &v, &c, frame, len, NULL, 0, 0);
	}
	release_tx(io, now);
	return rc;
}

/*
 * A frame in three pieces: passed on by reference when the inner backend
 * takes them and the frame goes untouched now; else made whole in the
 * lent buffer (which holds any frame the engine builds) and committed as
 * above.
 */
static int
io_tx_commit_sg(void *arg, uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
		uint32_t plen, const uint8_t *trailer, uint32_t tlen)
{
	struct rk_impair_io *io = arg;
	uint64_t now = io->inner->now_ns(io->inner_io);
	struct rk_impair_verdict v;
	struct rk_impair_copy c;

	if (frame == NULL || io->inner->tx_commit == NULL ||
	    (uint64_t)hdr_len + plen + tlen > sizeof(io->scratch))
		return -EINVAL;
	if (io->inner->tx_commit_sg == NULL) {
		memcpy(frame + hdr_len, payload, plen);
		memcpy(frame + hdr_len + plen, trailer, tlen);
		return io_tx_commit(arg, frame, hdr_len + plen + tlen);
	}
	release_tx(io, now);
	/* The rules' predicates read the headers only. */
	rk_impair_decide(io->stage[0], frame, hdr_len + plen + tlen, &v);
	if (v.copies == 0)
		return 0;
	rk_impair_next_copy(io->stage[0], &v, &c);
	if (v.copies == 1 && c.delay_ns == 0 && !c.corrupt && !c.ce)
		return io->inner->tx_commit_sg(io->inner_io, frame, hdr_len, payload, plen,
					       trailer, tlen);
	/* Whole in scratch, then each copy as tx() would. */
	memcpy(io->scratch, frame, hdr_len);
	memcpy(io->scratch + hdr_len, payload, plen);
	memcpy(io->scratch + hdr_len + plen, trailer, tlen);
	for (unsigned int k = 0;;) {
		(void)put_copy(io, 0, now, &v, &c, io->scratch, hdr_len + plen + tlen, NULL, 0, 0);
		if (++k == v.copies)
			break;
		rk_impair_next_copy(io->stage[0], &v, &c);
	}
	release_tx(io, now);
	return 0;
}

static int
io_rx(void *arg, uint8_t *buf, uint32_t cap)
{
	struct rk_impair_io *io = arg;
	uint64_t now = io->inner->now_ns(io->inner_io);
	int len;

	release_tx(io, now);
	for (;;) {
		len = rk_impair_queue_pop(&io->q[1], now, buf, cap);
		if (len != 0)
			return len;
		/* Into scratch: a second copy must be the frame as received. */
		len = io->inner->rx(io->inner_io, io->scratch, sizeof(io->scratch));
		if (len <= 0)
			return len;
		/* Held from when it was taken: this loop may outlast a time slice. */
		now = io->inner->now_ns(io->inner_io);
		len = impair_frame(io, 1, now, io->scratch, (uint32_t)len, buf, cap);
		if (len > 0)
			return len;
		/* Dropped or held: try the next one. */
	}
}

static uint64_t
io_now(void *arg)
{
	struct rk_impair_io *io = arg;

	return io->inner->now_ns(io->inner_io);
}

static void
io_flush(void *arg)
{
	struct rk_impair_io *io = arg;

	release_tx(io, io->inner->now_ns(io->inner_io));
	if (io->inner->flush != NULL)
		io->inner->flush(io->inner_io);
}

static unsigned int
io_tx_room(void *arg)
{
	struct rk_impair_io *io = arg;

	return io->inner->tx_room != NULL ? io->inner->tx_room(io->inner_io) : ~0u;
}

/* The impairment stage carries what its backend carries. */
static uint32_t
io_mtu(void *arg)
{
	struct rk_impair_io *io = arg;

	return io->inner->mtu != NULL ? io->inner->mtu(io->inner_io) : 0;
}

const struct rk_io_ops rk_impair_io_ops = {
	.name = "impair",
	.tx = io_tx,
	.rx = io_rx,
	.now_ns = io_now,
	.flush = io_flush,
	.tx_room = io_tx_room,
	.tx_frame = io_tx_frame,
	.tx_commit = io_tx_commit,
	.tx_commit_sg = io_tx_commit_sg,
	.mtu = io_mtu,
};
