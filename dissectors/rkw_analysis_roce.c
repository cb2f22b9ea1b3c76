/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * First-pass analysis for the Wireshark plugin: lib/analysis (rk-inspect's
 * flow, iWARP and request/response analysis) runs once per frame in
 * capture order, and what each frame needs to show is stored in a
 * per-frame record.
 */
#include "rkw_analysis.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rk_insp_flow.h"
#include "rk_insp_iwarp.h"
#include "rk_insp_qp.h"
#include "rk_psn.h"
#include "rk_bth.h"
#include "rk_cm.h"
#include "rk_xeth.h"

/* TCP segments remembered per direction to map FPDUs back to frames. */
#define RKW_SEG_RING 256
/* Frames of one sequence waiting for a verdict: the flow analysis takes it before
 * its chain grows longer. */
#define RKW_PEND_MAX 64

struct rkw_key {
	uint8_t src[16], dst[16];
	uint32_t qp;            /* DestQP, or ports for TCP */
	uint32_t kind;
};

struct rkw_msg {
	bool open;
	bool incomplete;
	GByteArray *data;        /* payload so far (keep_payload), NULL when too long */
	uint64_t len;
	uint32_t first_frame, packets;
};

struct rkw_qp {
	uint32_t idx;
	struct rkw_key key;
	struct rk_insp_flow_key ikey;
	struct rk_insp_qp an;    /* requests, ACK coverage, pairing (lib/analysis) */
	struct rkw_msg msg[2][2]; /* [requests, responses][first transmissions, go-back-N run] */
	uint32_t pend[2][RKW_PEND_MAX]; /* [requests, READ responses]: frames waiting */
	unsigned int npend[2];
	/* Per sequence: the PSNs the frames with a verdict show lost (missing
	 * less not_lost), and the last such frame. */
	uint64_t shown[2];
	uint32_t last_frame[2];
};

struct rkw_iwmsg {
	GByteArray *data;        /* payload so far (keep_payload), NULL when too long */
	bool open, gap;
	uint32_t msn, next_mo, segments, first_frame;
	uint64_t bytes;
	uint32_t stag;
	uint64_t next_to;
};

struct rkw_tdir {
	uint32_t idx;
	struct {
		uint32_t seq, len, frame, off;
	} seg[RKW_SEG_RING];
	unsigned int head, n;
	struct rkw_iwmsg untagged[5];
	struct rkw_iwmsg tagged;
};

struct rkw_state {
	struct rkw_opts opts;
	struct rk_parse_opts popts;
	struct rk_insp_flows flows;
	struct rk_insp_iw iw;
	GHashTable *frames;      /* frame number -> struct rkw_frame */
	GHashTable *qps;         /* struct rk_insp_flow * -> struct rkw_qp */
	GHashTable *hostpairs;   /* src+dst (32 bytes) -> GPtrArray of struct rkw_qp */
	struct rk_insp_cm cm;    /* QPs the CM REQ/REP MADs named */
	GHashTable *tdirs;       /* struct rkw_key -> struct rkw_tdir */
	GPtrArray *flowinfo;     /* struct rkw_flow_info, index - 1 */
	uint32_t cur_num;
	uint64_t cur_ts;
	bool roce_ended;         /* rkw_end_roce() ran */
};

/* The plugin's record of the flow whose analysis is @p an. */
static struct rkw_qp *
qp_from_an(struct rk_insp_qp *an)
{
	return an == NULL ? NULL : (struct rkw_qp *)((char *)an - offsetof(struct rkw_qp, an));
}

static guint
key_hash(gconstpointer p)
{
	const uint8_t *b = p;
	guint h = 2166136261u;

	for (size_t i = 0; i < sizeof(struct rkw_key); i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static gboolean
key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct rkw_key)) == 0;
}

static guint
pair_hash(gconstpointer p)
{
	const uint8_t *b = p;
	guint h = 2166136261u;

	for (size_t i = 0; i < 32; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static gboolean
pair_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, 32) == 0;
}

static void
frame_free(gpointer p)
{
	struct rkw_frame *f = p;

	g_free(f->roce.found);
	if (f->roce.msg_data != NULL)
		g_bytes_unref(f->roce.msg_data);
	for (uint32_t i = 0; i < f->nfpdu; i++)
		if (f->fpdu[i].msg_data != NULL)
			g_bytes_unref(f->fpdu[i].msg_data);
	g_free(f->fpdu);
	g_free(f);
}

static void
ptrarray_free(gpointer p)
{
	g_ptr_array_free(p, TRUE);
}

static void on_iw_event(void *ctx, const struct rk_insp_iw_event *ev);

/* Payload copies for message reassembly (keep_payload). */
static void
data_reset(GByteArray **d, bool keep)
{
	if (*d != NULL)
		g_byte_array_set_size(*d, 0);
	else if (keep)
		*d = g_byte_array_new();
}

static void
data_add(GByteArray **d, const uint8_t *p, uint32_t len)
{
	if (*d == NULL)
		return;
	if ((*d)->len + (uint64_t)len > RKW_MSG_DATA_MAX) {
		g_byte_array_free(*d, TRUE);
		*d = NULL;
		return;
	}
	g_byte_array_append(*d, p, len);
}

/* Some bytes of the message were not captured: keep nothing of it. */
static void
data_drop(GByteArray **d)
{
	if (*d != NULL) {
		g_byte_array_free(*d, TRUE);
		*d = NULL;
	}
}

/* The message's bytes as an immutable buffer; @p d starts empty again. */
static GBytes *
data_take(GByteArray **d)
{
	GBytes *b;

	if (*d == NULL)
		return NULL;
	b = g_byte_array_free_to_bytes(*d);
	*d = NULL;
	return b;
}

static void
qp_free(gpointer p)
{
	struct rkw_qp *q = p;

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (q->msg[i][j].data != NULL)
				g_byte_array_free(q->msg[i][j].data, TRUE);
	rk_insp_qp_fini(&q->an);
	g_free(q);
}

static void
tdir_free(gpointer p)
{
	struct rkw_tdir *d = p;

	for (int i = 0; i < 5; i++)
		if (d->untagged[i].data != NULL)
			g_byte_array_free(d->untagged[i].data, TRUE);
	if (d->tagged.data != NULL)
		g_byte_array_free(d->tagged.data, TRUE);
	g_free(d);
}

struct rkw_state *
rkw_new(const struct rkw_opts *opts)
{
	struct rkw_state *s = g_new0(struct rkw_state, 1);
	struct rk_insp_flow_opts fo = { .pmtu = opts->pmtu, .max_flows = 0 };
	struct rk_insp_iw_opts io = { .tcp_buffer = 0 };

	s->opts = *opts;
	s->popts.check_icrc = opts->check_icrc;
	s->popts.pmtu = opts->pmtu;
	if (rk_insp_flows_init(&s->flows, &fo) != 0 ||
	    rk_insp_iw_init(&s->iw, &io, on_iw_event, s) != 0)
		g_error("rdmakit: out of memory");
	s->frames = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, frame_free);
	s->qps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, qp_free);
	s->hostpairs = g_hash_table_new_full(pair_hash, pair_equal, g_free, ptrarray_free);
	rk_insp_cm_init(&s->cm);
	s->tdirs = g_hash_table_new_full(key_hash, key_equal, g_free, tdir_free);
	s->flowinfo = g_ptr_array_new_with_free_func(g_free);
	return s;
}

void
rkw_free(struct rkw_state *s)
{
	if (s == NULL)
		return;
	rk_insp_flows_fini(&s->flows);
	rk_insp_iw_fini(&s->iw);
	g_hash_table_destroy(s->frames);
	g_hash_table_destroy(s->qps);
	g_hash_table_destroy(s->hostpairs);
	rk_insp_cm_fini(&s->cm);
	g_hash_table_destroy(s->tdirs);
	g_ptr_array_free(s->flowinfo, TRUE);
	g_free(s);
}

struct rkw_frame *
rkw_lookup(struct rkw_state *s, uint32_t num)
{
	return g_hash_table_lookup(s->frames, GUINT_TO_POINTER(num));
}

static struct rkw_frame *
frame_rec(struct rkw_state *s, uint32_t num)
{
	struct rkw_frame *f = rkw_lookup(s, num);

	if (f == NULL) {
		f = g_new0(struct rkw_frame, 1);
		g_hash_table_insert(s->frames, GUINT_TO_POINTER(num), f);
	}
	return f;
}

uint32_t
rkw_nflows(const struct rkw_state *s)
{
	return s->flowinfo->len;
}

const struct rkw_flow_info *
rkw_flow(const struct rkw_state *s, uint32_t idx)
{
	if (idx == 0 || idx > s->flowinfo->len)
		return NULL;
	return g_ptr_array_index(s->flowinfo, idx - 1);
}

const struct rk_parse_opts *
rkw_parse_opts(const struct rkw_state *s)
{
	return &s->popts;
}

static void
addr_str(const uint8_t a[16], char *buf, size_t len)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(a, v4mapped, 12) == 0) {
		snprintf(buf, len, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
		return;
	}
	/* Full IPv6 form: short, stable and unambiguous enough for a label. */
	snprintf(buf, len, "%x:%x:%x:%x:%x:%x:%x:%x",
		 a[0] << 8 | a[1], a[2] << 8 | a[3], a[4] << 8 | a[5], a[6] << 8 | a[7],
		 a[8] << 8 | a[9], a[10] << 8 | a[11], a[12] << 8 | a[13], a[14] << 8 | a[15]);
}

static uint32_t
new_flow(struct rkw_state *s, const char *label, bool iwarp)
{
	struct rkw_flow_info *fi = g_new0(struct rkw_flow_info, 1);

	g_strlcpy(fi->label, label, sizeof(fi->label));
	fi->iwarp = iwarp;
	g_ptr_array_add(s->flowinfo, fi);
	return s->flowinfo->len;
}

/* ---- RoCE ---- */

static void
key_from_insp(struct rkw_key *k, const struct rk_insp_flow_key *ik)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, ik->src, 16);
	memcpy(k->dst, ik->dst, 16);
	k->qp = ik->dest_qp;
	k->kind = (uint32_t)ik->kind << 8 | ik->lid;
}

static struct rkw_qp *
qp_of(struct rkw_state *s, const struct rk_insp_flow *flow, const struct rk_insp_roce *r)
{
	struct rkw_qp *q = g_hash_table_lookup(s->qps, flow);
	char a[64], b[64], label[160];
	uint8_t pair[32];
	GPtrArray *list;

	if (q != NULL)
		return q;
	q = g_malloc0(sizeof(*q));
	key_from_insp(&q->key, &r->key);
	q->ikey = r->key;
	if (r->key.lid) {
		snprintf(a, sizeof(a), "LID %u", r->key.src[14] << 8 | r->key.src[15]);
		snprintf(b, sizeof(b), "LID %u", r->key.dst[14] << 8 | r->key.dst[15]);
	} else {
		addr_str(r->key.src, a, sizeof(a));
		addr_str(r->key.dst, b, sizeof(b));
	}
	snprintf(label, sizeof(label), "%s > %s DestQP 0x%06x", a, b, r->key.dest_qp);
	q->idx = new_flow(s, label, false);
	g_hash_table_insert(s->qps, (gpointer)flow, q);
	memcpy(pair, q->key.src, 16);
	memcpy(pair + 16, q->key.dst, 16);
	list = g_hash_table_lookup(s->hostpairs, pair);
	if (list == NULL) {
		list = g_ptr_array_new();
		g_hash_table_insert(s->hostpairs, g_memdup2(pair, 32), list);
	}
	g_ptr_array_add(list, q);
	return q;
}

/* The request flow answered by response flow @p r (same QP, other way). */
static struct rkw_qp *
request_flow(struct rkw_state *s, struct rkw_qp *r, uint32_t psn)
{
	uint8_t pair[32];
	GPtrArray *list;
	struct rk_insp_qp_cand *cand;
	struct rkw_qp *best = NULL;
	unsigned int n = 0;
	uint32_t cm_qpn;
	int i;

	if (r->an.peer != NULL)
		return qp_from_an(r->an.peer);
	memcpy(pair, r->key.dst, 16);
	memcpy(pair + 16, r->key.src, 16);
	list = g_hash_table_lookup(s->hostpairs, pair);
	if (list == NULL)
		return NULL;
	cand = g_new(struct rk_insp_qp_cand, list->len);
	for (unsigned int k = 0; k < list->len; k++) {
		struct rkw_qp *q = g_ptr_array_index(list, k);

		if (q->key.kind == r->key.kind)
			cand[n++] = (struct rk_insp_qp_cand){ .qp = &q->an, .dest_qp = q->key.qp };
	}
	i = rk_insp_qp_match(&r->an, cand, n, psn,
			     rk_insp_cm_peer(&s->cm, &r->ikey, &cm_qpn) ? &cm_qpn : NULL);
	if (i >= 0)
		best = qp_from_an(cand[i].qp);
	g_free(cand);
	return best;
}

/* CM REQ / REP over the GSI (QP1) name both QPs of a connection. */
static void
cm_mad(struct rkw_state *s, const struct rk_pkt *pkt, uint32_t dest_qp)
{
	struct rk_cm_msg msg;

	if (dest_qp != 1 || pkt->payload_off + pkt->payload_len > pkt->caplen ||
	    rk_cm_decode(pkt->frame + pkt->payload_off, pkt->payload_len, &msg) != 0)
		return;
	/* Out of memory only loses the pairing. */
	if (msg.hdr.attr_id == RK_CM_REQ)
		(void)rk_insp_cm_req(&s->cm, pkt->src_ip, pkt->dst_ip, msg.req.local_comm_id,
				     msg.req.local_qpn);
	else if (msg.hdr.attr_id == RK_CM_REP)
		(void)rk_insp_cm_rep(&s->cm, msg.rep.remote_comm_id, msg.rep.local_qpn,
				     (uint8_t)pkt->kind);
}

/*
 * Message lengths: first transmissions and the current go-back-N run are
 * summed apart (a run may restart mid-message); whether a LAST ends a
 * message is rk-inspect's decision (the flow analysis's message counters).
 */
static void
msg_account(struct rkw_msg m[2], struct rkw_roce *o, uint32_t opflags, const uint8_t *payload,
	    uint32_t len, bool keep, uint32_t num)
{
	struct rkw_msg *a = &m[o->seq == RKW_SEQ_DUP];

	if (opflags & RK_OPF_FIRST || !a->open) {
		a->open = true;
		a->incomplete = !(opflags & RK_OPF_FIRST);
		a->len = 0;
		a->packets = 0;
		a->first_frame = num;
		data_reset(&a->data, keep);
	}
	if (o->missing != 0)
		a->incomplete = true;
	a->len += len;
	a->packets++;
	if (payload == NULL)
		data_drop(&a->data);
	else if (len != 0)
		data_add(&a->data, payload, len);
	if (opflags & RK_OPF_LAST) {
		o->msg_len = a->len;
		o->msg_first_frame = a->first_frame;
		o->msg_packets = a->packets;
		o->msg_incomplete = a->incomplete;
		if (o->msg_end && !a->incomplete)
			o->msg_data = data_take(&a->data);
		a->open = false;
	}
}

/* Missing PSNs the flow analysis counts on sequence @p c (0 requests, 1 responses). */
static uint64_t
seq_missing(const struct rk_insp_flow *flow, int c)
{
	if (flow == NULL)
		return 0;
	return c ? flow->resp.missing : flow->req.missing + flow->req.rtx_missing;
}

/*
 * The verdict on the frames of sequence @p c waiting in @p q: their records
 * become what it says, and the PSNs they show lost count as shown.
 * @return the READ response messages the verdict ended in them.
 */
static unsigned int
pend_settle(struct rkw_state *s, struct rkw_qp *q, int c, enum rk_insp_verdict v)
{
	unsigned int msgs = 0;

	for (unsigned int i = 0; i < q->npend[c]; i++) {
		struct rkw_frame *f = rkw_lookup(s, q->pend[c][i]);
		struct rkw_roce *o;

		if (f == NULL)
			continue;
		o = &f->roce;
		if (v == RK_INSP_VERDICT_LATE) {
			o->seq = o->pending_rtx ? RKW_SEQ_DUP : RKW_SEQ_LATE;
			o->out_of_order = true;
			o->rtx_start = false;
			o->missing = 0;
		}
		q->shown[c] += o->missing;
		/* rk-inspect counts a READ response message on a late LAST, and
		 * on a replayed one unless it went back. */
		if (c == 1 && o->pending_last &&
		    (v == RK_INSP_VERDICT_LATE || o->seq != RKW_SEQ_DUP)) {
			o->msg_end = true;
			msgs++;
		}
	}
	q->npend[c] = 0;
	return msgs;
}

/*
 * Make the PSNs the frames of sequence @p c show lost agree with the flow
 * analysis's count: a verdict, a late copy or a skip found out of the run
 * may take back PSNs counted before (not_lost), and a replayed chain may
 * count other PSNs than its frames showed while pending. The difference
 * goes to frame @p num (0: none yet; it waits for the next one).
 */
static void
shown_reconcile(struct rkw_state *s, struct rkw_qp *q, const struct rk_insp_flow *flow, int c,
		uint32_t num)
{
	uint64_t counted = seq_missing(flow, c);
	struct rkw_frame *f = num != 0 ? rkw_lookup(s, num) : NULL;
	uint64_t d;

	if (f == NULL || counted == q->shown[c])
		return;
	if (counted < q->shown[c]) {
		d = q->shown[c] - counted;
		if (d > UINT32_MAX - f->roce.not_lost)
			d = UINT32_MAX - f->roce.not_lost;
		f->roce.not_lost += (uint32_t)d;
		q->shown[c] -= d;
	} else {
		d = counted - q->shown[c];
		if (d > UINT32_MAX - f->roce.missing)
			d = UINT32_MAX - f->roce.missing;
		f->roce.missing += (uint32_t)d;
		q->shown[c] += d;
	}
}

static void
roce_frame(struct rkw_state *s, struct rkw_frame *rec, const struct rk_pkt *pkt, uint32_t num)
{
	struct rk_insp_roce r;
	struct rk_insp_seq_result seq;
	struct rk_findings found;
	struct rk_insp_flow *flow;
	struct rkw_roce *o = &rec->roce;
	struct rkw_qp *q, *f;
	uint64_t msgs_before;
	unsigned int settled_msgs = 0;
	uint32_t settled_at = 0;
	int c;
	/* The payload, when every byte of it was captured. */
	const uint8_t *payload = pkt->payload_off + (uint64_t)pkt->payload_len <= pkt->caplen ?
				 pkt->frame + pkt->payload_off : NULL;

	rec->is_roce = true;
	rk_insp_roce_from_pkt(&r, pkt, num);
	if (r.opcode == 0x64 && r.transport == 3) /* UD SEND Only: maybe a MAD */
		cm_mad(s, pkt, r.key.dest_qp);
	memset(&found, 0, sizeof(found));
	flow = rk_insp_flow_find(&s->flows, &r.key);
	c = (r.opflags & RK_OPF_RESP) != 0;
	msgs_before = flow != NULL ? flow->messages + flow->read_resp_messages : 0;
	flow = rk_insp_flow_packet(&s->flows, &r, &found, &seq);
	if (flow == NULL)
		return;
	q = qp_of(s, flow, &r);
	if (seq.resolved != RK_INSP_VERDICT_NONE) {
		/* LATE takes back PSNs counted before its chain; a replay
		 * corrects what its frames showed, after them. */
		if (q->npend[c] != 0)
			settled_at = q->pend[c][seq.resolved == RK_INSP_VERDICT_LATE ?
						   0 : q->npend[c] - 1];
		settled_msgs = pend_settle(s, q, c, seq.resolved);
	}
	/* Counted by rk-inspect as a message here (READ requests included). */
	o->msg_end = flow->messages + flow->read_resp_messages > msgs_before + settled_msgs;
	if (found.count != 0) {
		o->found = g_memdup2(&found, sizeof(found));
		rk_insp_flow_count_findings(flow, &found);
	}
	o->flow = q->idx;
	o->seq = (uint8_t)seq.note;
	o->seq_is_resp = (r.opflags & RK_OPF_RESP) != 0;
	o->missing = seq.missing;
	o->rtx_start = seq.rtx_start;
	o->expected = seq.expected;
	if (seq.pending) {
		o->pending_rtx = seq.pending_rtx;
		o->pending_last = (r.opflags & RK_OPF_LAST) != 0;
		if (q->npend[c] < RKW_PEND_MAX)
			q->pend[c][q->npend[c]++] = num;
	} else {
		q->shown[c] += o->missing;
		q->last_frame[c] = num;
	}
	/* What the counts changed by beyond what the frames show: on a
	 * frame a verdict settled (see above), else
	 * on this one, or the last one with a verdict while this one waits. */
	shown_reconcile(s, q, flow, c, settled_at != 0 ? settled_at :
			!seq.pending ? num : q->last_frame[c]);

	if (r.opflags & RK_OPF_REQ) {
		rk_insp_qp_request(&q->an, r.psn, num, s->cur_ts,
				   (r.opflags & RK_OPF_READ_REQ) != 0);
		if (r.opflags & (RK_OPF_SEND | RK_OPF_WRITE))
			msg_account(q->msg[0], o, r.opflags, payload, r.payload_len,
				    s->opts.keep_payload, num);
		else if (o->msg_end) {
			/* READ, atomic: one packet; a READ's length is its DMALen. */
			o->msg_first_frame = num;
			o->msg_packets = 1;
			o->msg_len = r.has_reth ? r.dma_len : 0;
		}
	}
	if (r.opflags & RK_OPF_READ_RESP)
		msg_account(q->msg[1], o, r.opflags, payload, r.payload_len,
			    s->opts.keep_payload, num);

	if (r.has_aeth) {
		uint8_t kind = (uint8_t)rk_aeth_kind(r.syndrome);

		if (kind == RK_AETH_NAK) {
			o->nak = true;
			o->nak_code = r.syndrome & RK_AETH_VALUE_MASK;
		} else if (kind == RK_AETH_RNR_NAK) {
			o->rnr = true;
			o->rnr_timer = r.syndrome & RK_AETH_VALUE_MASK;
		}
	}

	if (!(r.opflags & RK_OPF_RESP))
		goto peer;
	f = request_flow(s, q, r.psn);
	if (f == NULL)
		goto peer;
	o->req_flow = f->idx;
	if (r.opflags & (RK_OPF_ACK | RK_OPF_ATOMIC_ACK) && !o->rnr) {
		struct rk_insp_qp_ack ack;

		rk_insp_qp_ack(&f->an, r.psn, o->nak, s->cur_ts, &ack);
		o->ack_range = true;
		o->ack_first = ack.first;
		o->ack_last = ack.last;
		o->ack_count = ack.count;
		o->ack_req_frame = ack.req_frame;
		o->ack_rtt_ns = ack.rtt_ns;
	}
	if (r.opflags & RK_OPF_READ_RESP && r.opflags & RK_OPF_FIRST)
		(void)rk_insp_qp_read_response(&f->an, r.psn, s->cur_ts, &o->read_req_frame,
					       &o->read_rt_ns);
peer:
	if (r.transport == RK_TR_UD) {
		const uint8_t *d = rk_insp_xeth(pkt, RK_HDR_DETH, RK_DETH_LEN);

		if (d != NULL) {
			o->peer_qp = rk_deth_src_qp(d);
			o->peer_src = RK_INSP_PEER_DETH;
		}
	} else if (q->an.peer == NULL) {
		uint32_t qpn;

		if (rk_insp_cm_peer(&s->cm, &q->ikey, &qpn)) {
			o->peer_qp = qpn;
			o->peer_src = RK_INSP_PEER_CM;
		}
	} else {
		o->peer_qp = qp_from_an(q->an.peer)->key.qp;
		o->peer_src = q->an.peer_src;
	}
}

/* ---- iWARP ---- */

static void
tcp_key(struct rkw_key *k, const uint8_t src[16], const uint8_t dst[16], uint16_t sport,
	uint16_t dport)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, src, 16);
	memcpy(k->dst, dst, 16);
	k->qp = (uint32_t)sport << 16 | dport;
	k->kind = 0xffff;
}

static struct rkw_tdir *
tdir_of(struct rkw_state *s, const struct rkw_key *k, bool create)
{
	struct rkw_tdir *d = g_hash_table_lookup(s->tdirs, k);

	if (d == NULL && create) {
		d = g_new0(struct rkw_tdir, 1);
		g_hash_table_insert(s->tdirs, g_memdup2(k, sizeof(*k)), d);
	}
	return d;
}

static void
iw_message(struct rkw_state *s, struct rkw_tdir *d, struct rkw_fpdu *u, uint32_t frame,
	   const uint8_t *payload)
{
	struct rkw_iwmsg *m;

	if (!u->ddp_ok)
		return;
	if (u->t) {
		m = &d->tagged;
		if (!m->open || m->stag != u->stag || m->next_to != u->to) {
			/* Same STag, wrong TO: a segment between is missing. */
			m->gap = m->open && m->stag == u->stag;
			m->open = true;
			m->stag = u->stag;
			m->bytes = 0;
			m->segments = 0;
			m->first_frame = frame;
			data_reset(&m->data, s->opts.keep_payload);
		}
		m->bytes += u->payload_len;
		m->next_to = u->to + u->payload_len;
		m->segments++;
		u->msg_len = m->bytes;
	} else {
		if (u->qn >= 5)
			return;
		m = &d->untagged[u->qn];
		if (!m->open || m->msn != u->msn) {
			m->open = true;
			m->gap = u->mo != 0;
			m->msn = u->msn;
			m->bytes = 0;
			m->segments = 0;
			m->first_frame = frame;
			m->next_mo = 0;
			data_reset(&m->data, s->opts.keep_payload);
		}
		if (u->mo != m->next_mo)
			m->gap = true;
		m->bytes += u->payload_len;
		m->next_mo = u->mo + u->payload_len;
		m->segments++;
		u->msg_len = (uint64_t)u->mo + u->payload_len;
	}
	if (payload == NULL && u->payload_len != 0)
		data_drop(&m->data);
	else if (u->payload_len != 0)
		data_add(&m->data, payload, u->payload_len);
	u->msg_segments = m->segments;
	u->msg_first_frame = m->first_frame;
	u->msg_mo_gap = m->gap;
	if (u->l) {
		u->msg_end = true;
		m->open = false;
		if (!m->gap)
			u->msg_data = data_take(&m->data);
	}
}

static void
fpdu_fill(struct rkw_fpdu *u, const struct rk_insp_iw_event *ev)
{
	const struct rk_rdmap_msg *m = &ev->msg;

	u->kind = (uint8_t)ev->kind;
	u->tcp_seq = ev->tcp_seq;
	u->stream_len = ev->stream_len;
	u->end_frame = (uint32_t)ev->frame;
	u->lost_reason = ev->lost_reason;
	u->rev = ev->rev;
	u->m = ev->m;
	u->c = ev->c;
	u->r = ev->r;
	u->enhanced = ev->enhanced;
	u->pd_len = ev->pd_len;
	u->ird = ev->ird;
	u->ord = ev->ord;
	u->ulpdu_len = ev->ulpdu_len;
	u->pad = ev->pad;
	u->markers = (uint16_t)ev->markers;
	u->crc = (uint8_t)ev->crc;
	u->crc_value = ev->crc_value;
	u->findings = ev->findings;
	if (ev->kind != RK_INSP_IW_FPDU)
		return;
	u->ddp_ok = m->ddp_ok;
	u->rdmap_ok = m->rdmap_hdr_ok;
	u->t = m->t;
	u->l = m->l;
	u->dv = m->dv;
	u->rv = m->rv;
	u->opcode = m->opcode;
	u->stag = m->stag;
	u->to = m->to;
	u->qn = m->qn;
	u->msn = m->msn;
	u->mo = m->mo;
	u->payload_len = m->payload_len;
	if (m->rdmap_hdr_ok && m->opcode == RK_RDMAP_READ_REQ)
		u->read_req = m->u.read_req;
	if (m->rdmap_hdr_ok && m->opcode == RK_RDMAP_TERMINATE) {
		u->term = m->u.term.ctrl;
		u->term_text = m->u.term.text;
	}
}

static void
frame_add_fpdu(struct rkw_state *s, uint32_t frame, const struct rkw_fpdu *u)
{
	struct rkw_frame *f = frame_rec(s, frame);

	f->fpdu = g_renew(struct rkw_fpdu, f->fpdu, f->nfpdu + 1);
	f->fpdu[f->nfpdu++] = *u;
}

static void
on_iw_event(void *ctx, const struct rk_insp_iw_event *ev)
{
	struct rkw_state *s = ctx;
	const struct rk_insp_iw_conn *c = ev->conn;
	int dir = ev->dir & 1;
	struct rkw_key k;
	struct rkw_tdir *d;
	struct rkw_fpdu u;
	uint32_t first = 0, end = ev->tcp_seq + ev->stream_len;
	bool attached = false;
	int end_seg = -1;

	memset(&u, 0, sizeof(u));
	fpdu_fill(&u, ev);
	tcp_key(&k, c->addr[dir], c->addr[!dir], c->port[dir], c->port[!dir]);
	d = tdir_of(s, &k, false);
	if (d == NULL) {
		frame_add_fpdu(s, (uint32_t)ev->frame, &u);
		return;
	}
	u.conn = d->idx;
	/* The first frame holding a byte of the unit (oldest first). */
	for (unsigned int i = d->n; i > 0; i--) {
		unsigned int j = (d->head + RKW_SEG_RING - i) % RKW_SEG_RING;
		uint32_t a = d->seg[j].seq, b = a + d->seg[j].len;

		if (rk_insp_seq_diff(b, ev->tcp_seq) > 0 && rk_insp_seq_diff(end, a) > 0) {
			first = d->seg[j].frame;
			break;
		}
	}
	u.start_frame = first != 0 ? first : (uint32_t)ev->frame;
	if (ev->kind == RK_INSP_IW_FPDU)
		iw_message(s, d, &u, u.start_frame, ev->msg.payload);
	/* The segment completing the unit: the current frame when it holds
	 * the last byte, else the latest frame that does (a hole filled late). */
	for (unsigned int i = 1; i <= d->n; i++) {
		unsigned int j = (d->head + RKW_SEG_RING - i) % RKW_SEG_RING;
		uint32_t a = d->seg[j].seq, b = a + d->seg[j].len;

		if (ev->stream_len == 0 || !(rk_insp_seq_diff(end - 1, a) >= 0 &&
					     rk_insp_seq_diff(b, end - 1) > 0))
			continue;
		if (end_seg < 0 || d->seg[j].frame == (uint32_t)ev->frame)
			end_seg = (int)j;
		if (d->seg[j].frame == (uint32_t)ev->frame)
			break;
	}
	for (unsigned int i = d->n; i > 0; i--) {
		unsigned int j = (d->head + RKW_SEG_RING - i) % RKW_SEG_RING;
		uint32_t a = d->seg[j].seq, b = a + d->seg[j].len;
		uint32_t lo, hi;
		struct rkw_fpdu v;

		if (!(rk_insp_seq_diff(b, ev->tcp_seq) > 0 && rk_insp_seq_diff(end, a) > 0))
			continue;
		lo = rk_insp_seq_diff(ev->tcp_seq, a) > 0 ? ev->tcp_seq : a;
		hi = rk_insp_seq_diff(end, b) < 0 ? end : b;
		v = u;
		v.frame_off = d->seg[j].off + (lo - a);
		v.frame_len = hi - lo;
		v.unit_off = lo - ev->tcp_seq;
		v.starts_here = lo == ev->tcp_seq;
		v.complete_here = (int)j == end_seg;
		v.end_frame = end_seg >= 0 ? d->seg[end_seg].frame : (uint32_t)ev->frame;
		/* Only the copy in the completing frame shows the message bytes. */
		v.msg_data = v.complete_here && u.msg_data != NULL ? g_bytes_ref(u.msg_data) : NULL;
		frame_add_fpdu(s, d->seg[j].frame, &v);
		attached = true;
	}
	if (attached && end_seg < 0) {
		/* No segment holds the last byte (cut by the snap length): the
		 * unit completes in the frame that reported it. */
		u.complete_here = true;
		u.frame_len = 0;
		frame_add_fpdu(s, (uint32_t)ev->frame, &u);
		u.msg_data = NULL;  /* the record owns it now */
	}
	if (!attached) {
		u.complete_here = true;
		frame_add_fpdu(s, (uint32_t)ev->frame, &u);
		u.msg_data = NULL;  /* the record owns it now */
	}
	if (u.msg_data != NULL)
		g_bytes_unref(u.msg_data);
	if (ev->kind == RK_INSP_IW_FPDU) {
		struct rkw_frame *ef = frame_rec(s, (uint32_t)ev->frame);

		ef->iw_fpdus++;
		ef->iw_crc_bad += ev->crc == RK_INSP_CRC_BAD;
		ef->iw_terms += u.rdmap_ok && u.opcode == RK_RDMAP_TERMINATE;
		if (u.msg_end) {
			ef->iw_msgs++;
			ef->iw_msg_bytes += u.msg_len;
		}
	}
}

static void
tcp_frame(struct rkw_state *s, const struct rk_pkt *pkt, uint32_t num, uint64_t ts)
{
	struct rkw_key k;
	struct rkw_tdir *d;
	uint32_t plen = pkt->l4_payload_len, seq = pkt->tcp_seq;
	bool iw;

	if (pkt->l4_payload_off >= pkt->caplen)
		plen = 0;
	else if (plen > pkt->caplen - pkt->l4_payload_off)
		plen = pkt->caplen - pkt->l4_payload_off;
	if (pkt->tcp_flags & RK_INSP_TCP_SYN)
		seq++;
	tcp_key(&k, pkt->src_ip, pkt->dst_ip, pkt->src_port, pkt->dst_port);
	d = tdir_of(s, &k, true);
	if (plen != 0) {
		d->seg[d->head].seq = seq;
		d->seg[d->head].len = plen;
		d->seg[d->head].frame = num;
		d->seg[d->head].off = pkt->l4_payload_off;
		d->head = (d->head + 1) % RKW_SEG_RING;
		if (d->n < RKW_SEG_RING)
			d->n++;
	}
	iw = rk_insp_iw_frame(&s->iw, pkt, num, ts);
	if (iw) {
		struct rkw_frame *rec = frame_rec(s, num);

		if (d->idx == 0) {
			char a[64], b[64], label[160];

			addr_str(pkt->src_ip, a, sizeof(a));
			addr_str(pkt->dst_ip, b, sizeof(b));
			snprintf(label, sizeof(label), "%s:%u > %s:%u iWARP", a, pkt->src_port,
				 b, pkt->dst_port);
			d->idx = new_flow(s, label, true);
		}
		rec->is_iwarp = true;
		rec->iw_flow = d->idx;
	}
}

struct rkw_frame *
rkw_feed(struct rkw_state *s, uint32_t num, const uint8_t *frame, uint32_t caplen,
	 uint32_t wirelen, enum rk_linktype link, uint64_t ts_ns, struct rk_pkt *pkt)
{
	s->cur_num = num;
	s->cur_ts = ts_ns;
	if (rk_pkt_parse(pkt, frame, caplen, wirelen, link, &s->popts) != 0)
		return NULL;
	if (rk_pkt_has_bth(pkt)) {
		struct rkw_frame *rec = frame_rec(s, num);

		roce_frame(s, rec, pkt, num);
		return rec;
	}
	if (pkt->kind == RK_PKT_TCP) {
		tcp_frame(s, pkt, num, ts_ns);
		return rkw_lookup(s, num);
	}
	return NULL;
}

/* A verdict still open at the end: retransmissions, as rk-inspect says. */
static void
settled(void *ctx, struct rk_insp_flow *flow, const void *chain, enum rk_insp_verdict v)
{
	struct rkw_state *s = ctx;
	struct rkw_qp *q = g_hash_table_lookup(s->qps, flow);
	int c = chain == &flow->resp;
	uint32_t first;

	if (q == NULL)
		return;
	first = q->npend[c] == 0 ? q->last_frame[c] :
		q->pend[c][v == RK_INSP_VERDICT_LATE ? 0 : q->npend[c] - 1];
	pend_settle(s, q, c, v);
	shown_reconcile(s, q, flow, c, first);
}

void
rkw_end_roce(struct rkw_state *s)
{
	GHashTableIter it;
	gpointer flow, q;

	if (s->roce_ended)
		return;
	s->roce_ended = true;
	rk_insp_flows_end(&s->flows, settled, s);
	/* A difference still waiting for a frame (the flow's frames all
	 * waited for a verdict when it came). */
	g_hash_table_iter_init(&it, s->qps);
	while (g_hash_table_iter_next(&it, &flow, &q))
		for (int c = 0; c < 2; c++)
			shown_reconcile(s, q, flow, c, ((struct rkw_qp *)q)->last_frame[c]);
}

void
rkw_finish(struct rkw_state *s)
{
	rkw_end_roce(s);
	rk_insp_iw_finish(&s->iw);
}
