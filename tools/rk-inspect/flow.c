/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-QP analysis for rk-inspect: flow table, PSN sequence tracking
 * (gaps, duplicates, go-back-N episodes, READ PSN reservation), message
 * tracking (opcode sequence and length findings) and AETH accounting.
 */
#include "flow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "psn.h"
#include "rk_bth.h"
#include "rk_opcode.h"
#include "rk_xeth.h"

/* Outstanding READ requests remembered per host pair and direction, to
 * match READ responses (by PSN) to the DMALen they must total. */
#define READ_RING 32

/* NAK PSNs remembered per host pair and direction. */
#define NAK_RING 8

/* Spans beyond this would make modular PSN comparisons meaningless; such
 * DMALen values are already reported as reth.dma_len.over_2g. */
#define MAX_READ_SPAN (1u << 22)

/* Bits of the bitmap that counts untracked flows: 1 MiB, next to the
 * hundreds of MiB the full table already holds. */
#define UNTRACKED_BITS (1u << 23)

/* The smallest IBA path MTU: a READ of at most this many bytes takes one PSN
 * whatever the PMTU. */
#define MIN_PMTU 256u

struct pending_read {
	uint32_t psn;
	uint32_t dma_len;
	uint8_t used;
};

/* One unordered host pair: PMTU seen on any QP between the two hosts, and
 * the READ requests each side sent. */
struct rk_insp_path {
	uint8_t a[16], b[16];   /* a sorts before b */
	uint8_t lid;
	struct rk_insp_path *hnext;
	struct rk_insp_path *next;
	uint32_t pmtu;
	struct pending_read reads[2][READ_RING]; /* [0]: requester a, [1]: b */
	unsigned int rpos[2];
	/* PSNs of the last NAKs (sequence error, RNR) each side sent: where
	 * the peer's requester will resend from. */
	uint32_t naks[2][NAK_RING];
	unsigned int nak_pos[2], nak_n[2];
};

static void seqx_free(struct rk_insp_seqx *x);

enum msg_st {
	MSG_UNKNOWN = 0,
	MSG_IDLE = 1,
	MSG_INSIDE = 2,
};

static uint64_t
mix(uint64_t h, uint64_t v)
{
	/* One multiply-xorshift round per 64-bit word: the per-packet
	 * lookup is on the hot path, byte-wise hashing was not cheap. */
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static uint64_t
word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t
addr_hash(uint64_t h, const uint8_t *a)
{
	return mix(mix(h, word(a)), word(a + 8));
}

static uint64_t
key_hash(const struct rk_insp_flow_key *k)
{
	uint64_t h = 0x243f6a8885a308d3ull;

	h = addr_hash(h, k->src);
	h = addr_hash(h, k->dst);
	return mix(h, (uint64_t)k->dest_qp << 16 | (uint64_t)k->kind << 8 | k->lid);
}

static bool
key_eq(const struct rk_insp_flow_key *a, const struct rk_insp_flow_key *b)
{
	return a->dest_qp == b->dest_qp && a->kind == b->kind &&
	       a->lid == b->lid && memcmp(a->src, b->src, 16) == 0 &&
	       memcmp(a->dst, b->dst, 16) == 0;
}

int
rk_insp_flows_init(struct rk_insp_flows *t, const struct rk_insp_flow_opts *opts)
{
	memset(t, 0, sizeof(*t));
	if (opts != NULL)
		t->opts = *opts;
	if (t->opts.max_flows == 0)
		t->opts.max_flows = RK_INSP_MAX_FLOWS_DEFAULT;
	t->nbuckets = 256;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	t->npbuckets = 64;
	t->pbuckets = calloc(t->npbuckets, sizeof(*t->pbuckets));
	if (t->buckets == NULL || t->pbuckets == NULL) {
		free(t->buckets);
		free(t->pbuckets);
		return -ENOMEM;
	}
	return 0;
}

void
rk_insp_flows_fini(struct rk_insp_flows *t)
{
	struct rk_insp_flow *f = t->head;
	struct rk_insp_path *p = t->phead;

	while (f != NULL) {
		struct rk_insp_flow *n = f->next;

		free(f->lost);
		seqx_free(f->req.x);
		seqx_free(f->resp.x);
		free(f);
		f = n;
	}
	while (p != NULL) {
		struct rk_insp_path *n = p->next;

		free(p);
		p = n;
	}
	free(t->buckets);
	free(t->pbuckets);
	free(t->untracked_bits);
	memset(t, 0, sizeof(*t));
}

struct rk_insp_flow *
rk_insp_flow_find(const struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	struct rk_insp_flow *f = t->buckets[key_hash(key) & (t->nbuckets - 1)];

	while (f != NULL && !key_eq(&f->key, key))
		f = f->hnext;
	return f;
}

/* Lookup with a one-entry cache: packets of a flow come in bursts. */
static struct rk_insp_flow *
find_cached(struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	struct rk_insp_flow *f = t->last;

	if (f != NULL && key_eq(&f->key, key))
		return f;
	f = rk_insp_flow_find(t, key);
	if (f != NULL)
		t->last = f;
	return f;
}

static void
grow_flows(struct rk_insp_flows *t)
{
	uint32_t n = t->nbuckets * 2;
	struct rk_insp_flow **b = calloc(n, sizeof(*b));

	/* Out of memory here only costs lookup speed. */
	if (b == NULL)
		return;
	for (struct rk_insp_flow *f = t->head; f != NULL; f = f->next) {
		uint64_t i = key_hash(&f->key) & (n - 1);

		f->hnext = b[i];
		b[i] = f;
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
}

/*
 * A packet of a flow the full table does not track. Distinct flows are
 * counted by the bits their key hashes set in a fixed bitmap: bounded
 * memory whatever the capture holds, at the price of hash collisions (an
 * undercount of about n / 2^24 relative: 5% at a million flows).
 */
static void
untracked(struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	uint64_t h;
	uint8_t bit;

	t->untracked_packets++;
	if (t->untracked_bits == NULL) {
		t->untracked_bits = calloc(UNTRACKED_BITS / 8, 1);
		if (t->untracked_bits == NULL)
			return;
	}
	h = key_hash(key) & (UNTRACKED_BITS - 1);
	bit = (uint8_t)(1u << (h & 7));
	if (!(t->untracked_bits[h >> 3] & bit)) {
		t->untracked_bits[h >> 3] |= bit;
		t->untracked_flows++;
	}
}

static struct rk_insp_flow *
flow_get(struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	struct rk_insp_flow *f = find_cached(t, key);
	uint64_t i;

	if (f != NULL)
		return f;
	if (t->nflows >= t->opts.max_flows) {
		untracked(t, key);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->key = *key;
	i = key_hash(key) & (t->nbuckets - 1);
	f->hnext = t->buckets[i];
	t->buckets[i] = f;
	if (t->tail != NULL)
		t->tail->next = f;
	else
		t->head = f;
	t->tail = f;
	t->nflows++;
	t->last = f;
	if (t->nflows > (uint64_t)t->nbuckets * 2 && t->nbuckets < (1u << 26))
		grow_flows(t);
	return f;
}

static uint64_t
path_hash(const uint8_t *a, const uint8_t *b, uint8_t lid)
{
	return mix(addr_hash(addr_hash(0x13198a2e03707344ull, a), b), lid);
}

static void
grow_paths(struct rk_insp_flows *t)
{
	uint32_t n = t->npbuckets * 2;
	struct rk_insp_path **b = calloc(n, sizeof(*b));

	if (b == NULL)
		return;
	for (struct rk_insp_path *p = t->phead; p != NULL; p = p->next) {
		uint64_t i = path_hash(p->a, p->b, p->lid) & (n - 1);

		p->hnext = b[i];
		b[i] = p;
	}
	free(t->pbuckets);
	t->pbuckets = b;
	t->npbuckets = n;
}

static struct rk_insp_path *
path_lookup(const struct rk_insp_flows *t, const struct rk_insp_flow_key *k,
	    int *dir)
{
	const uint8_t *a = k->src, *b = k->dst;
	struct rk_insp_path *p;

	*dir = 0;
	if (memcmp(a, b, 16) > 0) {
		a = k->dst;
		b = k->src;
		*dir = 1;
	}
	p = t->pbuckets[path_hash(a, b, k->lid) & (t->npbuckets - 1)];
	while (p != NULL && !(p->lid == k->lid && memcmp(p->a, a, 16) == 0 &&
			      memcmp(p->b, b, 16) == 0))
		p = p->hnext;
	return p;
}

/* The host pair of a flow; @p dir is 0 when the flow's source is side a. */
static struct rk_insp_path *
path_get(struct rk_insp_flows *t, const struct rk_insp_flow_key *k, int *dir)
{
	struct rk_insp_path *p = path_lookup(t, k, dir);
	uint64_t i;

	if (p != NULL)
		return p;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	memcpy(p->a, *dir ? k->dst : k->src, 16);
	memcpy(p->b, *dir ? k->src : k->dst, 16);
	p->lid = k->lid;
	i = path_hash(p->a, p->b, p->lid) & (t->npbuckets - 1);
	p->hnext = t->pbuckets[i];
	t->pbuckets[i] = p;
	p->next = t->phead;
	t->phead = p;
	t->npaths++;
	if (t->npaths > (uint64_t)t->npbuckets * 2 && t->npbuckets < (1u << 24))
		grow_paths(t);
	return p;
}

uint32_t
rk_insp_flow_pmtu(const struct rk_insp_flows *t, const struct rk_insp_flow *flow)
{
	struct rk_insp_path *p;
	int dir;

	if (t->opts.pmtu != 0)
		return t->opts.pmtu;
	if (flow->pmtu_seen != 0)
		return flow->pmtu_seen;
	p = path_lookup(t, &flow->key, &dir);
	return p != NULL ? p->pmtu : 0;
}

static void
count_opcode(struct rk_insp_flow *f, uint8_t op)
{
	for (unsigned int i = 0; i < f->nops; i++) {
		if (f->ops[i].opcode == op) {
			f->ops[i].count++;
			return;
		}
	}
	if (f->nops < RK_INSP_OPHIST) {
		f->ops[f->nops].opcode = op;
		f->ops[f->nops].count = 1;
		f->nops++;
		return;
	}
	f->ops_other++;
}

uint64_t
rk_insp_flow_opcount(const struct rk_insp_flow *flow, uint8_t op)
{
	for (unsigned int i = 0; i < flow->nops; i++)
		if (flow->ops[i].opcode == op)
			return flow->ops[i].count;
	return 0;
}

void
rk_insp_flow_count_findings(struct rk_insp_flow *flow, const struct rk_findings *f)
{
	for (unsigned int i = 0; i < f->count; i++)
		if (f->list[i].id < RK_F_COUNT)
			flow->findings[f->list[i].id]++;
}

static bool
is_pmtu_value(uint32_t v)
{
	return v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096;
}

/* PSNs a READ request reserves (IBTA Vol1 ch. 9): one per
 * response packet, ceil(DMALen / PMTU), at least one. */
static uint32_t
read_span(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
	  const struct rk_insp_path *path, uint32_t dma_len, bool *unknown)
{
	uint32_t pmtu = t->opts.pmtu;
	uint64_t span;

	*unknown = false;
	if (dma_len <= MIN_PMTU)
		return 1;
	if (pmtu == 0)
		pmtu = flow->pmtu_seen;
	if (pmtu == 0 && path != NULL)
		pmtu = path->pmtu;
	if (pmtu == 0) {
		*unknown = true;
		return 1;
	}
	span = ((uint64_t)dma_len + pmtu - 1) / pmtu;
	if (span > MAX_READ_SPAN)
		span = MAX_READ_SPAN;
	return (uint32_t)span;
}

static void
remember_read(struct rk_insp_path *p, int dir, uint32_t psn, uint32_t dma_len)
{
	struct pending_read *ring = p->reads[dir];

	/* A retransmitted READ replaces its first copy. */
	for (unsigned int i = 0; i < READ_RING; i++) {
		if (ring[i].used && ring[i].psn == psn) {
			ring[i].dma_len = dma_len;
			return;
		}
	}
	ring[p->rpos[dir]].psn = psn;
	ring[p->rpos[dir]].dma_len = dma_len;
	ring[p->rpos[dir]].used = 1;
	p->rpos[dir] = (p->rpos[dir] + 1) % READ_RING;
}

static const struct pending_read *
find_read(const struct rk_insp_path *p, int dir, uint32_t psn)
{
	for (unsigned int i = 0; i < READ_RING; i++)
		if (p->reads[dir][i].used && p->reads[dir][i].psn == psn)
			return &p->reads[dir][i];
	return NULL;
}

/*
 * Holes and verdicts.
 *
 * A gap counts PSNs missing the moment a later PSN shows up: their packets
 * were lost before the capture point, or they come later (reordered on the
 * way). Each gap is remembered with the PSNs it counted (its holes) until
 * their own packets show up; a retransmitted copy does not close a hole,
 * since the late packet may still follow it. A packet at a hole is either
 * a retransmission (in a go-back-N run, or a replayed READ response) or
 * the hole's own packet, late. The packet alone cannot tell; the packets
 * of its sequence after it can: a retransmission goes on from it through
 * the following PSNs (perhaps losing some: the next one is then further
 * on), while after a late packet the sequence goes on where it stood (new
 * PSNs, the next PSN of the current run, another late packet elsewhere,
 * or the requester's own go-back to the late packet's PSN, NAKed before
 * it came). Until then the packet is pending and counts nothing; several
 * in a row make a chain with one verdict. A late packet's PSNs are no
 * longer missing, and a gap whose PSNs all came late was no gap.
 */

/* Gaps remembered per flow, and how far behind the highest PSN; gaps of
 * more PSNs than a mask holds are not remembered. A packet at a forgotten
 * hole is taken as a retransmission. */
#define GAPS_MAX 256u
#define GAP_AGE_MAX (1 << 14)
#define GAP_PSNS_MAX 64u
/* Packets in one pending chain; a longer one is a go-back-N run. */
#define CHAIN_MAX 64u

/* A gap of PSNs [psn, psn + len) while some of them are holes. */
struct gap_ev {
	uint32_t psn, len;
	uint64_t late;         /* PSNs (bit i: psn + i) whose packet came late */
	uint64_t pend;         /* PSNs claimed by the pending chain */
	bool rtx;              /* a gap inside a go-back-N run */
};

/* A packet of the pending chain, and the PSNs it reserves. */
struct pend_pkt {
	struct rk_insp_roce r;
	uint32_t span;
};

struct rk_insp_seqx {
	struct gap_ev *evs;    /* oldest first */
	unsigned int nevs, evs_cap;
	unsigned int n, n_rtx; /* chain packets, those at holes of go-back-N runs */
	struct pend_pkt *pkt;  /* CHAIN_MAX, allocated with the first chain */
	struct rk_insp_msg_state vm; /* READ responses: the state a replay would leave */
};

static void request_message(struct rk_insp_msg_state *m, const struct rk_insp_roce *r,
			    bool checkable, bool taint, struct rk_findings *found,
			    uint32_t off_hint);

static void
seqx_free(struct rk_insp_seqx *x)
{
	if (x == NULL)
		return;
	free(x->evs);
	free(x->pkt);
	free(x);
}

static uint64_t
psn_mask(uint32_t len)
{
	return len >= 64 ? ~0ull : (1ull << len) - 1;
}

static void
gap_drop(struct rk_insp_seqx *x, unsigned int i)
{
	memmove(&x->evs[i], &x->evs[i + 1], (x->nevs - i - 1) * sizeof(x->evs[0]));
	x->nevs--;
}

/*
 * Remember the gap of PSNs [psn, psn + len) just counted missing (@p rtx:
 * skipped inside a go-back-N run), forgetting the ones too far behind
 * @p top, the sequence's next new PSN, first.
 */
static void
gap_add(struct rk_insp_psn_track *tr, uint32_t top, uint32_t psn, uint32_t len, bool rtx)
{
	struct rk_insp_seqx *x = tr->x;
	unsigned int old = 0;

	if (len == 0 || len > GAP_PSNS_MAX)
		return;
	if (x == NULL) {
		x = tr->x = calloc(1, sizeof(*tr->x));
		if (x == NULL)
			return;
	}
	while (old < x->nevs && rk_insp_psn_diff(top, x->evs[old].psn) > GAP_AGE_MAX)
		old++;
	if (old != 0) {
		memmove(x->evs, x->evs + old, (x->nevs - old) * sizeof(x->evs[0]));
		x->nevs -= old;
	}
	if (x->nevs == x->evs_cap) {
		unsigned int cap = x->evs_cap ? x->evs_cap * 2 : 8;
		struct gap_ev *n;

		if (x->evs_cap >= GAPS_MAX) {
			gap_drop(x, 0);
		} else {
			n = realloc(x->evs, cap * sizeof(*n));
			if (n == NULL)
				return;
			x->evs = n;
			x->evs_cap = cap;
		}
	}
	x->evs[x->nevs++] = (struct gap_ev){ .psn = psn, .len = len, .rtx = rtx };
}

/* The oldest gap with @p psn still a hole (neither late nor claimed), or -1. */
static int
hole_at(const struct rk_insp_psn_track *tr, uint32_t psn)
{
	const struct rk_insp_seqx *x = tr->x;

	if (x == NULL)
		return -1;
	for (unsigned int i = 0; i < x->nevs; i++) {
		const struct gap_ev *e = &x->evs[i];
		int32_t off = rk_insp_psn_diff(psn, e->psn);

		if (off >= 0 && (uint32_t)off < e->len &&
		    !((e->late | e->pend) >> off & 1))
			return (int)i;
	}
	return -1;
}

/*
 * A LATE verdict on the chain of @p tr: its PSNs were not lost, and the
 * gaps whose PSNs all came late were no gaps.
 */
static void
chain_late(struct rk_insp_psn_track *tr)
{
	struct rk_insp_seqx *x = tr->x;

	for (unsigned int i = 0; i < x->nevs;) {
		struct gap_ev *e = &x->evs[i];
		uint64_t *missing = e->rtx ? &tr->rtx_missing : &tr->missing;
		uint64_t *gaps = e->rtx ? &tr->rtx_gaps : &tr->gaps;
		uint64_t n = (uint64_t)__builtin_popcountll(e->pend);

		if (n == 0) {
			i++;
			continue;
		}
		*missing -= n < *missing ? n : *missing;
		e->late |= e->pend;
		e->pend = 0;
		if (e->late == psn_mask(e->len)) {
			if (*gaps > 0)
				(*gaps)--;
			gap_drop(x, i);
			continue;
		}
		i++;
	}
	tr->reordered += x->n;
}

/* The chain's claims on the holes end: they stay holes. */
static void
chain_unclaim(struct rk_insp_seqx *x)
{
	for (unsigned int i = 0; i < x->nevs; i++)
		x->evs[i].pend = 0;
}

/* The verdict on the pending chain of requests is known: count it. */
static void
chain_settle(struct rk_insp_flow *flow, enum rk_insp_verdict v)
{
	struct rk_insp_psn_track *tr = &flow->req;
	struct rk_insp_seqx *x = tr->x;

	if (x == NULL || x->n == 0)
		return;
	if (v == RK_INSP_VERDICT_LATE) {
		/* Late copies of retransmitted packets are still retransmissions;
		 * the run goes on where it stood. */
		chain_late(tr);
		tr->duplicates += x->n_rtx;
		x->n = 0;
		x->n_rtx = 0;
		return;
	}
	chain_unclaim(x);
	/* Count them as retransmissions, as at once: the first starts an
	 * episode when it goes back, a skip between two is a loss in the
	 * run. The run's message state follows; their opcode order is not
	 * judged, since findings can no longer go to their frames. */
	for (unsigned int i = 0; i < x->n; i++) {
		const struct pend_pkt *pp = &x->pkt[i];
		int32_t dr = rk_insp_psn_diff(pp->r.psn, tr->next);
		struct rk_findings scratch;

		tr->duplicates++;
		if (dr < 0) {
			tr->rtx_episodes++;
			flow->rtx_msg.state = MSG_UNKNOWN;
		} else if (dr > 0) {
			tr->rtx_gaps++;
			tr->rtx_missing += (uint32_t)dr;
			gap_add(tr, tr->hw, tr->next, (uint32_t)dr, true);
		}
		tr->next = rk_insp_psn_add(pp->r.psn, pp->span);
		if (rk_insp_psn_diff(tr->next, tr->hw) > 0)
			tr->hw = tr->next;
		memset(&scratch, 0, sizeof(scratch));
		request_message(&flow->rtx_msg, &pp->r, false, dr != 0, &scratch, 0);
	}
	x->n = 0;
	x->n_rtx = 0;
}

/*
 * Add @p r (reserving @p span PSNs) to the pending chain of @p tr, at the
 * hole of gap @p h. @return false when out of memory (then it is not
 * pending).
 */
static bool
chain_add(struct rk_insp_psn_track *tr, int h, const struct rk_insp_roce *r, uint32_t span)
{
	struct rk_insp_seqx *x = tr->x;
	struct gap_ev *e = &x->evs[h];
	uint32_t off = (uint32_t)rk_insp_psn_diff(r->psn, e->psn);

	if (x->pkt == NULL && (x->pkt = calloc(CHAIN_MAX, sizeof(*x->pkt))) == NULL)
		return false;
	/* Its PSNs in the gap are its own if it came late. */
	e->pend |= (span >= 64 ? ~0ull : ((1ull << span) - 1)) << off & psn_mask(e->len) & ~e->late;
	x->n_rtx += e->rtx;
	x->pkt[x->n].r = *r;
	x->pkt[x->n].span = span;
	x->n++;
	return true;
}

/* PSNs from the end of the chain's last packet to @p psn. */
static int32_t
chain_skip(const struct rk_insp_seqx *x, uint32_t psn)
{
	const struct pend_pkt *last = &x->pkt[x->n - 1];

	return rk_insp_psn_diff(psn, rk_insp_psn_add(last->r.psn, last->span));
}

/* Whether the peer of @p flow's requester NAKed @p psn lately. */
static bool
nak_names(const struct rk_insp_flows *t, const struct rk_insp_flow *flow, uint32_t psn)
{
	int dir;
	const struct rk_insp_path *p = path_lookup(t, &flow->key, &dir);

	if (p == NULL)
		return false;
	/* The responder is the flow's destination: the other side. */
	for (unsigned int i = 0; i < p->nak_n[!dir]; i++)
		if (p->naks[!dir][i] == psn)
			return true;
	return false;
}

/*
 * What request @p psn (at a hole when @p at_hole) says of the pending
 * chain. NONE: it joins the chain (a hole right after the chain's last
 * packet, or further on inside what was sent). GO_BACK: a retransmission
 * goes on from the chain's last packet, right after it or further on (a
 * loss in the run) unless the responder NAKed that PSN (the requester
 * resends from there: the chain came late). LATE: anything else the
 * chain does not explain: new PSNs, a jump back, the next PSN of the run
 * the chain interrupted. A chain that starts at the next PSN of the
 * current run is that run, unless the run's own copy of the chain's first
 * packet follows. On a flow that has already shown reordering, a run that
 * would have lost more packets than the chain holds is taken as late
 * packets too.
 */
static enum rk_insp_verdict
chain_verdict(const struct rk_insp_flows *t, const struct rk_insp_flow *flow, uint32_t psn,
	      bool at_hole)
{
	const struct rk_insp_psn_track *tr = &flow->req;
	const struct rk_insp_seqx *x = tr->x;
	int32_t d = chain_skip(x, psn);
	bool run = x->pkt[0].r.psn == tr->next && tr->next != tr->hw;

	if (rk_insp_psn_diff(psn, tr->hw) >= 0)
		return run ? RK_INSP_VERDICT_GO_BACK : RK_INSP_VERDICT_LATE;
	if (d < 0)
		return run && psn != x->pkt[0].r.psn ? RK_INSP_VERDICT_GO_BACK :
		       RK_INSP_VERDICT_LATE;
	if (d > 0 && psn == tr->next)
		return RK_INSP_VERDICT_LATE;
	if (at_hole && x->n < CHAIN_MAX)
		return RK_INSP_VERDICT_NONE;
	if (d > 0 && !run && nak_names(t, flow, psn))
		return RK_INSP_VERDICT_LATE;
	if (!run && tr->reordered > 0) {
		uint32_t lost = (uint32_t)d;

		for (unsigned int i = 1; i < x->n; i++) {
			const struct pend_pkt *a = &x->pkt[i - 1];
			int32_t k = rk_insp_psn_diff(x->pkt[i].r.psn,
						     rk_insp_psn_add(a->r.psn, a->span));

			if (k > 0)
				lost += (uint32_t)k;
		}
		if (lost > x->n)
			return RK_INSP_VERDICT_LATE;
	}
	return RK_INSP_VERDICT_GO_BACK;
}

/*
 * Advance a request sequence by one packet reserving @p span PSNs.
 *
 * A packet at or below the highest PSN seen is a retransmission. It starts
 * a go-back-N episode when it goes back from where the current run (or the
 * first transmissions) would continue; otherwise it continues the run, and
 * a forward skip inside the run is a loss of retransmitted packets, not a
 * new episode. A packet at a hole waits for a verdict (see "Holes and
 * verdicts").
 */
static void
track_request(struct rk_insp_flows *t, struct rk_insp_flow *flow, const struct rk_insp_roce *r,
	      uint32_t span, bool span_unknown, struct rk_insp_seq_result *res)
{
	struct rk_insp_psn_track *tr = &flow->req;
	struct rk_insp_seqx *x;
	uint32_t psn = r->psn;
	int32_t d, dr;
	int h;

	if (!tr->valid) {
		tr->valid = true;
		tr->first = psn;
		tr->last = psn;
		tr->hw = rk_insp_psn_add(psn, span);
		tr->next = tr->hw;
		tr->resync = span_unknown;
		res->note = RK_INSP_SEQ_FIRST;
		res->expected = psn;
		return;
	}
	d = rk_insp_psn_diff(psn, tr->hw);
	h = d < 0 ? hole_at(tr, psn) : -1;
	if (tr->x != NULL && tr->x->n != 0) {
		enum rk_insp_verdict v = chain_verdict(t, flow, psn, h >= 0);

		if (v != RK_INSP_VERDICT_NONE) {
			chain_settle(flow, v);
			res->resolved = v;
			res->chain = tr;
			d = rk_insp_psn_diff(psn, tr->hw);
			h = d < 0 ? hole_at(tr, psn) : -1;
		}
	}
	if (d >= 0) {
		res->expected = tr->hw;
		if (d > 0 && tr->resync) {
			res->note = RK_INSP_SEQ_RESYNC;
			tr->resyncs++;
		} else if (d > 0) {
			res->note = RK_INSP_SEQ_GAP;
			res->missing = (uint32_t)d;
			tr->gaps++;
			tr->missing += (uint32_t)d;
			gap_add(tr, tr->hw, tr->hw, (uint32_t)d, false);
		} else {
			res->note = RK_INSP_SEQ_IN_ORDER;
		}
		/* A run that stops short of the highest PSN is not a loss: an
		 * ACK may have covered the rest. */
		tr->hw = rk_insp_psn_add(psn, span);
		tr->next = tr->hw;
		tr->last = psn;
		tr->resync = span_unknown;
		return;
	}
	res->note = RK_INSP_SEQ_DUP;
	res->expected = tr->next;
	dr = rk_insp_psn_diff(psn, tr->next);
	x = tr->x;
	if (h >= 0) {
		bool rtx = x->evs[h].rtx;

		/* The go-back-N verdict as it stands; LATE is the other. */
		if (x->n == 0) {
			res->rtx_start = dr < 0;
			res->missing = dr > 0 ? (uint32_t)dr : 0;
		} else {
			d = chain_skip(x, psn);
			res->missing = d > 0 ? (uint32_t)d : 0;
		}
		if (chain_add(tr, h, r, span)) {
			res->pending = true;
			res->pending_rtx = rtx;
			res->chain = tr;
			return;
		}
		res->rtx_start = false;
		res->missing = 0;
	}
	tr->duplicates++;
	/* Outside a run next equals hw, so any retransmission goes back. */
	if (dr < 0) {
		res->rtx_start = true;
		tr->rtx_episodes++;
	} else if (dr > 0) {
		res->missing = (uint32_t)dr;
		tr->rtx_gaps++;
		tr->rtx_missing += (uint32_t)dr;
		gap_add(tr, tr->hw, tr->next, (uint32_t)dr, true);
	}
	tr->next = rk_insp_psn_add(psn, span);
	/* A retransmitted READ whose span is now known may reserve more than
	 * the first copy did when the PMTU was unknown. */
	if (rk_insp_psn_diff(tr->next, tr->hw) > 0)
		tr->hw = tr->next;
}

/* Room for one more lost range; false at the limit or out of memory. */
static bool
lost_room(struct rk_insp_flow *flow)
{
	struct rk_insp_psn_range *n;
	unsigned int cap;

	if (flow->nlost < flow->lost_cap)
		return true;
	if (flow->lost_cap >= RK_INSP_LOST_RANGES)
		return false;
	cap = flow->lost_cap ? flow->lost_cap * 2 : 8;
	n = realloc(flow->lost, cap * sizeof(*n));
	if (n == NULL)
		return false;
	flow->lost = n;
	flow->lost_cap = cap;
	return true;
}

/* Remember PSNs lost in first transmission; the oldest range goes first. */
static void
lost_add(struct rk_insp_flow *flow, uint32_t psn, uint32_t len)
{
	if (!lost_room(flow)) {
		if (flow->nlost == 0)
			return;
		memmove(flow->lost, flow->lost + 1, (flow->nlost - 1) * sizeof(flow->lost[0]));
		flow->nlost--;
	}
	flow->lost[flow->nlost].psn = psn;
	flow->lost[flow->nlost].len = len;
	flow->nlost++;
}

/*
 * Whether @p psn lies in a lost range; it is taken out so a later copy of
 * the same packet does not count again.
 */
static bool
lost_take(struct rk_insp_flow *flow, uint32_t psn)
{
	for (unsigned int i = 0; i < flow->nlost; i++) {
		struct rk_insp_psn_range *g = &flow->lost[i];
		int32_t off = rk_insp_psn_diff(psn, g->psn);

		if (off < 0 || (uint32_t)off >= g->len)
			continue;
		if (off == 0) {
			g->psn = rk_insp_psn_add(g->psn, 1);
			g->len--;
		} else if ((uint32_t)off == g->len - 1) {
			g->len--;
		} else if (lost_room(flow)) {
			/* Split: the tail becomes a range of its own. */
			g = &flow->lost[i];     /* the array may have moved */
			flow->lost[flow->nlost].psn = rk_insp_psn_add(psn, 1);
			flow->lost[flow->nlost].len = g->len - (uint32_t)off - 1;
			flow->nlost++;
			g->len = (uint32_t)off;
		} else {
			/* No room to split: keep the part the run reaches next. */
			g->psn = rk_insp_psn_add(psn, 1);
			g->len -= (uint32_t)off + 1;
		}
		if (g->len == 0) {
			memmove(g, g + 1, (flow->nlost - i - 1) * sizeof(*g));
			flow->nlost--;
		}
		return true;
	}
	return false;
}

/* Bits of the opcode flags that name the message kind. */
#define MSG_KINDS (RK_OPF_SEND | RK_OPF_WRITE | RK_OPF_READ_RESP)

static bool
is_first_only(uint32_t fl)
{
	return (fl & RK_OPF_ONLY) == RK_OPF_FIRST;
}

static bool
is_last_only(uint32_t fl)
{
	return (fl & RK_OPF_ONLY) == RK_OPF_LAST;
}

static bool
is_only(uint32_t fl)
{
	return (fl & RK_OPF_ONLY) == RK_OPF_ONLY;
}

/*
 * Opcode sequence and message length of the request side (IBTA Vol1
 * ch. 9, C9-92). @p checkable: the packet continues the
 * sequence with no gap, so a missing FIRST or LAST cannot be explained by
 * lost packets.
 */
static void
request_message(struct rk_insp_msg_state *m, const struct rk_insp_roce *r,
		bool checkable, bool taint, struct rk_findings *found,
		uint32_t off_hint)
{
	uint32_t fl = r->opflags;
	uint32_t kind = fl & MSG_KINDS;
	bool middle = (fl & RK_OPF_MIDDLE) != 0;
	bool first = is_first_only(fl), last = is_last_only(fl), only = is_only(fl);
	bool cont = middle || last;

	/* READ requests, atomics, FLUSH: single packets, no message kind. */
	if (kind == 0) {
		cont = false;
		only = true;
	}
	if (checkable && m->state != MSG_UNKNOWN) {
		bool bad;

		if (m->state == MSG_INSIDE)
			bad = !(cont && kind == m->kind);
		else
			bad = cont;
		if (bad)
			rk_findings_add(found, RK_F_MSG_OPCODE_SEQUENCE, off_hint);
	}

	if (first) {
		m->state = MSG_INSIDE;
		m->kind = kind;
		m->len_known = (fl & RK_OPF_WRITE) && r->has_reth;
		m->expected_len = r->dma_len;
		m->got_len = r->payload_len;
		m->tainted = r->truncated;
		return;
	}
	if (cont) {
		if (m->state != MSG_INSIDE || m->kind != kind) {
			/* Joined a message in its middle: no length verdict. */
			m->kind = kind;
			m->len_known = false;
			m->got_len = 0;
		}
		m->got_len += r->payload_len;
		if (taint || r->truncated)
			m->tainted = true;
		if (last) {
			if (m->len_known && !m->tainted &&
			    m->got_len != m->expected_len)
				rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, off_hint);
			m->state = MSG_IDLE;
		} else {
			m->state = MSG_INSIDE;
		}
		return;
	}
	if (only) {
		if ((fl & RK_OPF_WRITE) && r->has_reth && !r->truncated &&
		    r->payload_len != r->dma_len)
			rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, off_hint);
		m->state = MSG_IDLE;
	}
}

static void
count_aeth(struct rk_insp_flow *flow, const struct rk_insp_roce *r)
{
	uint8_t s = r->syndrome;

	switch (rk_aeth_kind(s)) {
	case RK_AETH_ACK:
		if (r->opflags & RK_OPF_ACK)
			flow->acks++;
		break;
	case RK_AETH_RNR_NAK:
		flow->rnr_naks++;
		flow->rnr_timer[s & RK_AETH_VALUE_MASK]++;
		break;
	case RK_AETH_NAK:
		flow->naks_total++;
		flow->naks[s & RK_AETH_VALUE_MASK]++;
		break;
	case RK_AETH_RESERVED:
		flow->aeth_reserved++;
		break;
	}
}

/* The READ response sequence and message state, for one READ response. */
static void
read_response(struct rk_insp_flow *flow, const struct rk_insp_path *path, int dir,
	      const struct rk_insp_roce *r, struct rk_findings *found,
	      struct rk_insp_seq_result *res)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_msg_state *m = &flow->resp_msg;
	uint32_t fl = r->opflags;
	uint32_t psn = r->psn;

	/* A READ response starting at or before the previous READ response
	 * packet replays an earlier READ (duplicate READ request). ACKs and
	 * NAKs may carry the same PSN as a later READ response, so only READ
	 * responses are compared with each other. */
	if ((fl & RK_OPF_FIRST) && m->rr_seen && rk_insp_psn_diff(psn, m->next_psn) < 0) {
		tr->duplicates++;
		res->note = RK_INSP_SEQ_DUP;
	}
	if (fl & RK_OPF_FIRST) {
		/* A new response while the last one is open, with no PSN
		 * missing in between: its LAST was never sent. */
		if (m->state == MSG_INSIDE && psn == m->next_psn)
			rk_findings_add(found, RK_F_MSG_OPCODE_SEQUENCE, 0);
		m->state = MSG_INSIDE;
		m->kind = RK_OPF_READ_RESP;
		m->got_len = r->payload_len;
		m->tainted = r->truncated;
		m->len_known = false;
		m->next_psn = rk_insp_psn_add(psn, 1);
		m->rr_seen = true;
		if (path != NULL) {
			/* The request came from this packet's destination. */
			const struct pending_read *pr = find_read(path, !dir, psn);

			if (pr != NULL) {
				m->len_known = true;
				m->expected_len = pr->dma_len;
			}
		}
	} else {
		int32_t d;

		if (m->state != MSG_INSIDE) {
			/* MIDDLE/LAST right after the LAST of the previous READ
			 * response. A replay of a re-issued READ may start with
			 * a MIDDLE anywhere else (rxe does so too). */
			if (m->state == MSG_IDLE && m->rr_seen && psn == m->next_psn)
				rk_findings_add(found, RK_F_MSG_OPCODE_SEQUENCE, 0);
			m->state = MSG_INSIDE;
			m->kind = RK_OPF_READ_RESP;
			m->len_known = false;
			m->got_len = 0;
			m->next_psn = psn;
			m->rr_seen = true;
		}
		d = rk_insp_psn_diff(psn, m->next_psn);
		if (d > 0) {
			tr->gaps++;
			tr->missing += (uint32_t)d;
			res->note = RK_INSP_SEQ_GAP;
			res->missing = (uint32_t)d;
			m->tainted = true;
			gap_add(tr, rk_insp_psn_add(tr->last, 1), m->next_psn, (uint32_t)d, false);
		} else if (d < 0) {
			tr->duplicates++;
			res->note = RK_INSP_SEQ_DUP;
			m->tainted = true;
		}
		m->got_len += r->payload_len;
		if (r->truncated)
			m->tainted = true;
		m->next_psn = rk_insp_psn_add(psn, 1);
	}
	if (fl & RK_OPF_LAST) {
		if (m->len_known && !m->tainted && m->got_len != m->expected_len)
			rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, 0);
		if (res->note != RK_INSP_SEQ_DUP)
			flow->read_resp_messages++;
		m->state = MSG_IDLE;
	}
}

/*
 * The sequence note read_response() gives @p r after state @p m, which it
 * advances the same way (counters aside).
 */
static enum rk_insp_seq_note
resp_note(struct rk_insp_msg_state *m, const struct rk_insp_roce *r, uint32_t *missing)
{
	enum rk_insp_seq_note note = RK_INSP_SEQ_IN_ORDER;
	uint32_t psn = r->psn;

	*missing = 0;
	if (r->opflags & RK_OPF_FIRST) {
		if (m->rr_seen && rk_insp_psn_diff(psn, m->next_psn) < 0)
			note = RK_INSP_SEQ_DUP;
		m->state = MSG_INSIDE;
	} else {
		int32_t d;

		if (m->state != MSG_INSIDE) {
			m->state = MSG_INSIDE;
			m->next_psn = psn;
		}
		d = rk_insp_psn_diff(psn, m->next_psn);
		if (d > 0) {
			note = RK_INSP_SEQ_GAP;
			*missing = (uint32_t)d;
		} else if (d < 0) {
			note = RK_INSP_SEQ_DUP;
		}
	}
	m->next_psn = rk_insp_psn_add(psn, 1);
	m->rr_seen = true;
	if (r->opflags & RK_OPF_LAST)
		m->state = MSG_IDLE;
	return note;
}

/* The verdict on the pending chain of READ responses is known: count it. */
static void
resp_settle(const struct rk_insp_flows *t, struct rk_insp_flow *flow, enum rk_insp_verdict v)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_seqx *x = tr->x;
	const struct rk_insp_path *path;
	int dir = 0;

	if (x == NULL || x->n == 0)
		return;
	if (v == RK_INSP_VERDICT_LATE) {
		/* The response stays where it stood; a late LAST still ends
		 * its message. */
		chain_late(tr);
		for (unsigned int i = 0; i < x->n; i++)
			if (x->pkt[i].r.opflags & RK_OPF_LAST)
				flow->read_resp_messages++;
		x->n = 0;
		x->n_rtx = 0;
		return;
	}
	/* A replay: counted as it would have been at once. Findings can no
	 * longer go to their frames and are not raised. */
	chain_unclaim(x);
	path = path_lookup(t, &flow->key, &dir);
	for (unsigned int i = 0; i < x->n; i++) {
		struct rk_insp_seq_result scratch_res = { .note = RK_INSP_SEQ_IN_ORDER };
		struct rk_findings scratch;

		memset(&scratch, 0, sizeof(scratch));
		read_response(flow, path, dir, &x->pkt[i].r, &scratch, &scratch_res);
	}
	x->n = 0;
	x->n_rtx = 0;
}

/*
 * What READ response @p psn (at a hole when @p at_hole) says of the
 * pending chain of READ responses: a replay when it goes on from the
 * chain's last packet (NONE while at a hole too: the chain grows); LATE
 * when the response goes on where it stood, jumps back, or is new.
 */
static enum rk_insp_verdict
resp_verdict(const struct rk_insp_flow *flow, uint32_t psn, bool at_hole)
{
	const struct rk_insp_seqx *x = flow->resp.x;
	int32_t d = chain_skip(x, psn);

	if (d == 0)
		return at_hole && x->n < CHAIN_MAX ? RK_INSP_VERDICT_NONE : RK_INSP_VERDICT_GO_BACK;
	if (psn == flow->resp_msg.next_psn || d < 0 ||
	    rk_insp_psn_diff(psn, flow->resp.last) > 0)
		return RK_INSP_VERDICT_LATE;
	return at_hole && x->n < CHAIN_MAX ? RK_INSP_VERDICT_NONE : RK_INSP_VERDICT_GO_BACK;
}

/* Responses: ACK, atomic ACK and READ responses of this side's responder. */
static void
response(struct rk_insp_flows *t, struct rk_insp_flow *flow,
	 struct rk_insp_path *path, int dir, const struct rk_insp_roce *r,
	 struct rk_findings *found, struct rk_insp_seq_result *res)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_msg_state *m = &flow->resp_msg;
	uint32_t fl = r->opflags;
	uint32_t psn = r->psn;
	int h = -1;

	if (r->has_aeth)
		count_aeth(flow, r);
	if (fl & RK_OPF_ATOMIC_ACK)
		flow->atomic_acks++;
	/* A READ response at a PSN counted missing: a replay, or late (see
	 * "Holes and verdicts"); the next READ response tells. */
	if ((fl & RK_OPF_READ_RESP) && m->rr_seen && rk_insp_psn_diff(psn, tr->last) <= 0)
		h = hole_at(tr, psn);
	if ((fl & RK_OPF_READ_RESP) && tr->x != NULL && tr->x->n != 0) {
		enum rk_insp_verdict v = resp_verdict(flow, psn, h >= 0);

		if (v != RK_INSP_VERDICT_NONE) {
			resp_settle(t, flow, v);
			res->resolved = v;
			res->chain = tr;
			h = m->rr_seen && rk_insp_psn_diff(psn, tr->last) <= 0 ?
			    hole_at(tr, psn) : -1;
		}
	}

	/* The highest response PSN; coalesced ACKs jump ahead by design. */
	if (!tr->valid) {
		tr->valid = true;
		tr->first = psn;
		tr->last = psn;
		res->note = RK_INSP_SEQ_FIRST;
	} else {
		if (rk_insp_psn_diff(psn, tr->last) > 0)
			tr->last = psn;
		res->note = RK_INSP_SEQ_IN_ORDER;
	}
	if (!(fl & RK_OPF_READ_RESP))
		return;
	if (h >= 0) {
		struct rk_insp_seqx *x = tr->x;
		struct rk_insp_msg_state vm = x->n != 0 ? x->vm : *m;
		uint32_t missing;
		/* The replay verdict as read_response() will count it; LATE is
		 * the other. */
		enum rk_insp_seq_note note = resp_note(&vm, r, &missing);

		if (chain_add(tr, h, r, 1)) {
			x->vm = vm;
			res->note = note;
			res->missing = missing;
			res->pending = true;
			res->chain = tr;
			return;
		}
	}
	read_response(flow, path, dir, r, found, res);
}

/*
 * The request after a READ of unknown span shows the span: when exactly
 * one IBA PMTU gives ceil(DMALen / PMTU) == span, that is the PMTU (the
 * usual case with pipelined READs before any response is seen).
 */
static void
learn_pmtu_from_read(struct rk_insp_flows *t, struct rk_insp_flow *flow,
		     struct rk_insp_path **path, int *dir, uint32_t psn)
{
	int32_t span = rk_insp_psn_diff(psn, flow->req.resync_psn);
	uint32_t found = 0;
	int n = 0;

	if (span <= 0)
		return;
	for (uint32_t pmtu = MIN_PMTU; pmtu <= 4096; pmtu *= 2) {
		if (((uint64_t)flow->req.resync_len + pmtu - 1) / pmtu == (uint64_t)span) {
			found = pmtu;
			n++;
		}
	}
	if (n != 1)
		return;
	flow->pmtu_seen = found;
	if (*path == NULL)
		*path = path_get(t, &flow->key, dir);
	if (*path != NULL && (*path)->pmtu == 0)
		(*path)->pmtu = found;
}

struct rk_insp_flow *
rk_insp_flow_packet(struct rk_insp_flows *t, const struct rk_insp_roce *r,
		    struct rk_findings *found, struct rk_insp_seq_result *res)
{
	struct rk_insp_flow *flow;
	struct rk_insp_path *path;
	uint32_t fl = r->opflags;
	int dir = 0;

	memset(res, 0, sizeof(*res));
	flow = flow_get(t, &r->key);
	if (flow == NULL)
		return NULL;
	if (flow->packets == 0) {
		flow->first_frame = r->frame;
		flow->transport = r->transport;
	}
	flow->last_frame = r->frame;
	flow->packets++;
	flow->bytes += r->wirelen;
	flow->payload_bytes += r->payload_len;
	count_opcode(flow, r->opcode);
	if (r->truncated)
		flow->truncated++;
	else if (r->icrc == RK_ICRC_BAD)
		flow->icrc_bad++;
	else if (r->icrc == RK_ICRC_GOOD)
		flow->icrc_good++;
	flow->fecn += r->fecn;
	flow->becn += r->becn;
	flow->ack_req += r->ack_req;

	/* The receiver drops a packet with a bad ICRC, and none of its
	 * header can be trusted: count it, keep it out of the sequence. */
	if (r->icrc == RK_ICRC_BAD)
		return flow;
	if (fl & RK_OPF_CNP) {
		flow->cnps++;
		return flow;
	}
	if (!(fl & RK_OPF_VALID))
		return flow;

	/* The host pair is needed only to match READs with their responses
	 * and to share a newly inferred PMTU. */
	path = NULL;
	if (fl & (RK_OPF_READ_REQ | RK_OPF_READ_RESP))
		path = path_get(t, &r->key, &dir);

	/* A FIRST or MIDDLE packet carries exactly one PMTU of payload. */
	if ((fl & RK_OPF_MIDDLE || is_first_only(fl)) && !r->truncated &&
	    is_pmtu_value(r->payload_len) && flow->pmtu_seen != r->payload_len) {
		flow->pmtu_seen = r->payload_len;
		if (path == NULL)
			path = path_get(t, &r->key, &dir);
		if (path != NULL)
			path->pmtu = r->payload_len;
	}

	/* UD carries no reliable sequence; PSNs of several senders mix. */
	if (r->transport == RK_TR_UD) {
		flow->messages++;
		return flow;
	}

	if (fl & RK_OPF_REQ) {
		bool unknown = false;
		uint32_t span = 1;
		bool checkable, taint;

		/* Learn the PMTU first: this packet may be a READ too. */
		if (flow->req.valid && flow->req.resync &&
		    rk_insp_psn_diff(r->psn, flow->req.hw) > 0)
			learn_pmtu_from_read(t, flow, &path, &dir, r->psn);
		if (fl & RK_OPF_READ_REQ) {
			span = read_span(t, flow, path, r->dma_len, &unknown);
			if (path != NULL)
				remember_read(path, dir, r->psn, r->dma_len);
		}
		track_request(t, flow, r, span, unknown, res);
		if (unknown) {
			flow->req.resync_psn = r->psn;
			flow->req.resync_len = r->dma_len;
		}
		checkable = res->note == RK_INSP_SEQ_IN_ORDER ||
			    (res->note == RK_INSP_SEQ_DUP && !res->rtx_start &&
			     res->missing == 0);
		taint = res->note == RK_INSP_SEQ_GAP ||
			res->note == RK_INSP_SEQ_RESYNC || res->rtx_start ||
			res->missing != 0;
		if (res->pending) {
			/* No message state until the verdict (chain_settle);
			 * an ONLY is judged on its own. */
			if (is_only(fl) && (fl & RK_OPF_WRITE) && r->has_reth &&
			    !r->truncated && r->payload_len != r->dma_len)
				rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, 0);
		} else if (res->note == RK_INSP_SEQ_DUP) {
			if (res->rtx_start)
				flow->rtx_msg.state = MSG_UNKNOWN;
			request_message(&flow->rtx_msg, r, checkable, taint, found, 0);
		} else {
			request_message(&flow->req_msg, r, checkable, taint, found, 0);
		}
		if (res->note == RK_INSP_SEQ_GAP)
			lost_add(flow, res->expected, res->missing);
		/* A message counts once, by its LAST/ONLY (or READ) PSN: on its
		 * first transmission, or on the retransmission of a lost one. */
		if ((fl & RK_OPF_LAST) || (fl & MSG_KINDS) == 0) {
			if (res->note != RK_INSP_SEQ_DUP || lost_take(flow, r->psn)) {
				if (fl & RK_OPF_READ_REQ)
					flow->read_requests++;
				flow->messages++;
			}
		}
	} else if (fl & RK_OPF_RESP) {
		if (r->has_aeth && (rk_aeth_kind(r->syndrome) == RK_AETH_RNR_NAK ||
				    (rk_aeth_kind(r->syndrome) == RK_AETH_NAK &&
				     (r->syndrome & RK_AETH_VALUE_MASK) == RK_AETH_NAK_PSN_SEQ_ERR))) {
			if (path == NULL)
				path = path_get(t, &r->key, &dir);
			if (path != NULL) {
				path->naks[dir][path->nak_pos[dir]] = r->psn;
				path->nak_pos[dir] = (path->nak_pos[dir] + 1) % NAK_RING;
				if (path->nak_n[dir] < NAK_RING)
					path->nak_n[dir]++;
			}
		}
		response(t, flow, path, dir, r, found, res);
	}
	return flow;
}

void
rk_insp_flow_settle(struct rk_insp_flows *t, struct rk_insp_flow *flow,
		    rk_insp_settled_fn *cb, void *ctx)
{
	if (flow->req.x != NULL && flow->req.x->n != 0) {
		chain_settle(flow, RK_INSP_VERDICT_GO_BACK);
		if (cb != NULL)
			cb(ctx, flow, &flow->req, RK_INSP_VERDICT_GO_BACK);
	}
	if (flow->resp.x != NULL && flow->resp.x->n != 0) {
		resp_settle(t, flow, RK_INSP_VERDICT_GO_BACK);
		if (cb != NULL)
			cb(ctx, flow, &flow->resp, RK_INSP_VERDICT_GO_BACK);
	}
}

void
rk_insp_flows_settle(struct rk_insp_flows *t, rk_insp_settled_fn *cb, void *ctx)
{
	for (struct rk_insp_flow *f = t->head; f != NULL; f = f->next)
		rk_insp_flow_settle(t, f, cb, ctx);
}

const uint8_t *
rk_insp_xeth(const struct rk_pkt *pkt, enum rk_hdr h, uint32_t len)
{
	const uint8_t *x = rk_pkt_xeth(pkt, h);

	/* A frame cut by the snap length may end inside the header. */
	if (x == NULL || x < pkt->frame ||
	    (uint64_t)(x - pkt->frame) + len > pkt->caplen)
		return NULL;
	return x;
}

void
rk_insp_roce_from_pkt(struct rk_insp_roce *r, const struct rk_pkt *pkt,
		      uint64_t frame)
{
	const uint8_t *bth = rk_pkt_bth(pkt);
	const uint8_t *x;

	memset(r, 0, sizeof(*r));
	r->frame = frame;
	r->key.kind = (uint8_t)pkt->kind;
	if (pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH)) {
		memcpy(r->key.src, pkt->src_ip, 16);
		memcpy(r->key.dst, pkt->dst_ip, 16);
	} else {
		/* Native IB without GRH: LIDs name the ports. */
		r->key.lid = 1;
		r->key.src[14] = (uint8_t)(pkt->src_lid >> 8);
		r->key.src[15] = (uint8_t)pkt->src_lid;
		r->key.dst[14] = (uint8_t)(pkt->dst_lid >> 8);
		r->key.dst[15] = (uint8_t)pkt->dst_lid;
	}
	r->key.dest_qp = rk_bth_dest_qp(bth);
	r->opcode = pkt->opcode;
	r->opflags = pkt->op != NULL ? pkt->op->flags : 0;
	r->transport = pkt->op != NULL ? pkt->op->transport : (uint8_t)(pkt->opcode >> 5);
	r->psn = rk_bth_psn(bth);
	r->ack_req = rk_bth_ack_req(bth);
	r->fecn = rk_bth_fecn(bth);
	r->becn = rk_bth_becn(bth);
	x = rk_insp_xeth(pkt, RK_HDR_RETH, RK_RETH_LEN);
	if (x != NULL) {
		r->has_reth = true;
		r->dma_len = rk_reth_dma_len(x);
	}
	x = rk_insp_xeth(pkt, RK_HDR_AETH, RK_AETH_LEN);
	if (x != NULL) {
		r->has_aeth = true;
		r->syndrome = rk_aeth_syndrome(x);
		r->msn = rk_aeth_msn(x);
	}
	r->payload_len = pkt->payload_len;
	r->wirelen = pkt->wirelen;
	r->truncated = pkt->truncated;
	r->icrc = pkt->icrc_status;
}
