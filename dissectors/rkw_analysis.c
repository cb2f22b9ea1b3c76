/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * First-pass analysis for the Wireshark plugin: lib/analysis (rk-inspect's
 * flow, iWARP and request/response analysis) runs once per frame in
 * capture order, and what each frame needs to show is stored in a
 * per-frame record. This file holds the state, the records, the flow
 * labels and rkw_feed(); RoCE frames are in rkw_analysis_roce.c, iWARP
 * ones in rkw_analysis_iwarp.c.
 */
#include "rkw_analysis.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rkw_analysis_int.h"

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

/* Payload copies for message reassembly (keep_payload). */
void
rkw_data_reset(GByteArray **d, bool keep)
{
	if (*d != NULL)
		g_byte_array_set_size(*d, 0);
	else if (keep)
		*d = g_byte_array_new();
}

void
rkw_data_add(GByteArray **d, const uint8_t *p, uint32_t len)
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
void
rkw_data_drop(GByteArray **d)
{
	if (*d != NULL) {
		g_byte_array_free(*d, TRUE);
		*d = NULL;
	}
}

/* The message's bytes as an immutable buffer; @p d starts empty again. */
GBytes *
rkw_data_take(GByteArray **d)
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
	    rk_insp_iw_init(&s->iw, &io, rkw_iw_event, s) != 0)
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

struct rkw_frame *
rkw_frame_rec(struct rkw_state *s, uint32_t num)
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

void
rkw_addr_str(const uint8_t a[16], char *buf, size_t len)
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

uint32_t
rkw_new_flow(struct rkw_state *s, const char *label, bool iwarp)
{
	struct rkw_flow_info *fi = g_new0(struct rkw_flow_info, 1);

	g_strlcpy(fi->label, label, sizeof(fi->label));
	fi->iwarp = iwarp;
	g_ptr_array_add(s->flowinfo, fi);
	return s->flowinfo->len;
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
		struct rkw_frame *rec = rkw_frame_rec(s, num);

		rkw_roce_frame(s, rec, pkt, num);
		return rec;
	}
	if (pkt->kind == RK_PKT_TCP) {
		rkw_tcp_frame(s, pkt, num, ts_ns);
		return rkw_lookup(s, num);
	}
	return NULL;
}

void
rkw_finish(struct rkw_state *s)
{
	rkw_end_roce(s);
	rk_insp_iw_finish(&s->iw);
}
