/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iWARP frames of the plugin's analysis: the TCP segments of each direction,
 * the MPA frames and FPDUs the connection follower delivers mapped back to
 * the frames holding their bytes, and the DDP messages they complete.
 */
#include <stdio.h>
#include <string.h>

#include "rkw_analysis_int.h"
#include "rk_rdmap.h"

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
			rkw_data_reset(&m->data, s->opts.keep_payload);
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
			rkw_data_reset(&m->data, s->opts.keep_payload);
		}
		if (u->mo != m->next_mo)
			m->gap = true;
		m->bytes += u->payload_len;
		m->next_mo = u->mo + u->payload_len;
		m->segments++;
		u->msg_len = (uint64_t)u->mo + u->payload_len;
	}
	if (payload == NULL && u->payload_len != 0)
		rkw_data_drop(&m->data);
	else if (u->payload_len != 0)
		rkw_data_add(&m->data, payload, u->payload_len);
	u->msg_segments = m->segments;
	u->msg_first_frame = m->first_frame;
	u->msg_mo_gap = m->gap;
	if (u->l) {
		u->msg_end = true;
		m->open = false;
		if (!m->gap)
			u->msg_data = rkw_data_take(&m->data);
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
	struct rkw_frame *f = rkw_frame_rec(s, frame);

	f->fpdu = g_renew(struct rkw_fpdu, f->fpdu, f->nfpdu + 1);
	f->fpdu[f->nfpdu++] = *u;
}

void
rkw_iw_event(void *ctx, const struct rk_insp_iw_event *ev)
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
		struct rkw_frame *ef = rkw_frame_rec(s, (uint32_t)ev->frame);

		ef->iw_fpdus++;
		ef->iw_crc_bad += ev->crc == RK_INSP_CRC_BAD;
		ef->iw_terms += u.rdmap_ok && u.opcode == RK_RDMAP_TERMINATE;
		if (u.msg_end) {
			ef->iw_msgs++;
			ef->iw_msg_bytes += u.msg_len;
		}
	}
}

void
rkw_tcp_frame(struct rkw_state *s, const struct rk_pkt *pkt, uint32_t num, uint64_t ts)
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
		struct rkw_frame *rec = rkw_frame_rec(s, num);

		if (d->idx == 0) {
			char a[64], b[64], label[160];

			rkw_addr_str(pkt->src_ip, a, sizeof(a));
			rkw_addr_str(pkt->dst_ip, b, sizeof(b));
			snprintf(label, sizeof(label), "%s:%u > %s:%u iWARP", a, pkt->src_port,
				 b, pkt->dst_port);
			d->idx = rkw_new_flow(s, label, true);
		}
		rec->is_iwarp = true;
		rec->iw_flow = d->idx;
	}
}
