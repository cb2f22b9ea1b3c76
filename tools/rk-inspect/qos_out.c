/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect writers of the QoS and congestion view: VLAN, PCP, DSCP and
 * ECN per packet and per flow (IEEE 802.1Q 9.6, RFC 2474, RFC 3168 5),
 * the per-class table, CE marks and CNPs per host pair (IBTA Annex
 * A17.9.3), PAUSE and PFC per priority (IEEE 802.3 Annex 31B, IEEE
 * 802.1Qbb) and the lossless-class check. The numbers come from
 * lib/analysis/rk_insp_qos.c; JSON keys are listed in doc/inspect.md.
 */
#include "output.h"

#include <inttypes.h>
#include <string.h>

static const char *const ecn_names[4] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };
static const char *const ecn_keys[4] = { "not_ect", "ect1", "ect0", "ce" };

#define JI(v) json_integer((json_int_t)(v))

/* Counters as integer members of a JSON object, in order. */
struct kv {
	const char *key;
	uint64_t v;
};

static void
put_counts(json_t *o, const struct kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, kv[i].key, JI(kv[i].v));
}

#define PUT_COUNTS(o, ...) do {						\
	const struct kv kv_[] = { __VA_ARGS__ };			\
	put_counts((o), kv_, sizeof(kv_) / sizeof(kv_[0]));		\
} while (0)

void
rk_insp_qos_marks_text(char *buf, size_t len, const struct rk_insp_qos_marks *m)
{
	size_t n = 0;

	buf[0] = '\0';
	if (m->tagged)
		n += (size_t)snprintf(buf + n, len - n, " VLAN=%u PCP=%u", m->vid, m->pcp);
	if (n < len && m->has_ip && m->dscp != 0)
		n += (size_t)snprintf(buf + n, len - n, " DSCP=%u", m->dscp);
	if (n < len && m->has_ip && m->ecn != RK_INSP_ECN_NOT_ECT)
		snprintf(buf + n, len - n, " ECN=%s", ecn_names[m->ecn & 3]);
}

static json_t *
vlan_json(const struct rk_insp_qos_marks *m)
{
	json_t *v;

	if (!m->tagged)
		return json_null();
	v = json_object();
	json_object_set_new(v, "vid", JI(m->vid));
	json_object_set_new(v, "pcp", JI(m->pcp));
	return v;
}

void
rk_insp_qos_marks_json(json_t *o, const struct rk_insp_qos_marks *m)
{
	json_object_set_new(o, "vlan", vlan_json(m));
	json_object_set_new(o, "dscp", m->has_ip ? JI(m->dscp) : json_null());
	json_object_set_new(o, "ecn", m->has_ip ? JI(m->ecn) : json_null());
}

static json_t *
ecn_json(const uint64_t ecn[4])
{
	json_t *e = json_object();

	for (int i = 0; i < 4; i++)
		json_object_set_new(e, ecn_keys[i], JI(ecn[i]));
	return e;
}

/* "ce_to_cnp_count", "ce_to_cnp_p50_ns", "ce_to_cnp_max_ns" of @p d. */
static void
delays_json(json_t *o, const struct rk_insp_delays *d)
{
	json_object_set_new(o, "ce_to_cnp_count", JI(d->n));
	json_object_set_new(o, "ce_to_cnp_p50_ns", d->n ? JI(rk_insp_delays_pct(d, 50)) :
			    json_null());
	json_object_set_new(o, "ce_to_cnp_max_ns", d->n ? JI(rk_insp_delays_max(d)) :
			    json_null());
}

/* "; CE to CNP Nx: p50 .., max .." of @p d, nothing when empty. */
static void
print_delays(FILE *out, const struct rk_insp_delays *d)
{
	uint64_t p50 = rk_insp_delays_pct(d, 50), max = rk_insp_delays_max(d);

	if (d->n == 0)
		return;
	fprintf(out, "; CE to CNP %" PRIu64 "x: p50 %" PRIu64 ".%03" PRIu64 " us, max %" PRIu64
		".%03" PRIu64 " us", d->n, p50 / 1000u, p50 % 1000u, max / 1000u, max % 1000u);
}

json_t *
rk_insp_flow_qos_json(const struct rk_insp_flow_qos *q)
{
	json_t *o = json_object();

	json_object_set_new(o, "vlan", vlan_json(&q->first));
	json_object_set_new(o, "dscp", q->first.has_ip ? JI(q->first.dscp) : json_null());
	json_object_set_new(o, "ecn", ecn_json(q->ecn));
	json_object_set_new(o, "class_changes", JI(q->changed));
	delays_json(o, &q->delay);
	PUT_COUNTS(o, { "cnps_paired", q->cnps },
		   { "cnps_paired_unprompted", q->cnps_unprompted },
		   { "cnps_unpaired", q->cnps_unpaired });
	return o;
}

void
rk_insp_print_flow_qos(FILE *out, const struct rk_insp_flow *f)
{
	const struct rk_insp_flow_qos *q = &f->qos;
	const char *sep = ",";
	bool ecn = q->ecn[1] || q->ecn[2] || q->ecn[3];

	if (!q->first.tagged && q->first.dscp == 0 && !ecn && q->changed == 0 &&
	    q->delay.n == 0 && q->cnps_unpaired == 0)
		return;
	fprintf(out, "    QoS:");
	if (q->first.tagged)
		fprintf(out, " VLAN %u PCP %u", q->first.vid, q->first.pcp);
	else
		fprintf(out, " untagged");
	if (q->first.has_ip)
		fprintf(out, " DSCP %u", q->first.dscp);
	if (q->changed)
		fprintf(out, " (%" PRIu64 " packet%s in another class)", q->changed,
			q->changed == 1 ? "" : "s");
	if (ecn) {
		fprintf(out, ";");
		sep = "";
		for (int i = 0; i < 4; i++) {
			if (q->ecn[i] == 0)
				continue;
			fprintf(out, "%s %s %" PRIu64, sep, ecn_names[i], q->ecn[i]);
			sep = ",";
		}
	}
	print_delays(out, &q->delay);
	if (q->cnps_unpaired)
		fprintf(out, "; %" PRIu64 " CNP%s before its QP was tied to a data flow",
			q->cnps_unpaired, q->cnps_unpaired == 1 ? "" : "s");
	fputc('\n', out);
}

/* ---------------------------------------------------------------- JSON */

static bool
class_used(const struct rk_insp_qos_class *c)
{
	return c->data + c->acks + c->cnps != 0;
}

static json_t *
class_json(const char *key, json_t *id, const struct rk_insp_qos_class *c)
{
	json_t *o = json_object();

	json_object_set_new(o, key, id);
	PUT_COUNTS(o, { "data", c->data }, { "acks", c->acks }, { "cnps", c->cnps },
		   { "ect", c->ect }, { "ce", c->ce }, { "bytes", c->bytes });
	return o;
}

static json_t *
pause_json(const struct rk_insp_qos *q, int i)
{
	const struct rk_insp_pause_prio *p = &q->pause[i];
	json_t *o = json_object();

	json_object_set_new(o, "priority", i == RK_INSP_QOS_LINK_PAUSE ? json_string("link") :
			    JI(i));
	PUT_COUNTS(o, { "frames", p->frames }, { "resume_frames", p->xon },
		   { "quanta", p->quanta },
		   { "quanta_ns", rk_insp_pause_ns(p->quanta, q->opts.link_bps) },
		   { "paused_ns", p->paused_ns }, { "longest_ns", p->longest_ns },
		   { "storms", p->storms });
	json_object_set_new(o, "first_storm_ns", p->storms ? JI(p->storm_start_ns) : json_null());
	return o;
}

static json_t *
cong_json(const struct rk_insp_cong *c)
{
	json_t *o = json_object();
	char src[64], dst[64];
	uint64_t before, after;

	rk_insp_format_addr(src, sizeof(src), c->src, false);
	rk_insp_format_addr(dst, sizeof(dst), c->dst, false);
	json_object_set_new(o, "src", json_string(src));
	json_object_set_new(o, "dst", json_string(dst));
	PUT_COUNTS(o, { "packets", c->packets }, { "ect", c->ect }, { "ce", c->ce },
		   { "cnps", c->cnps }, { "cnps_unprompted", c->cnps_unprompted });
	json_object_set_new(o, "ce_unanswered", json_boolean(c->ce_pending));
	delays_json(o, &c->delay);
	if (rk_insp_cong_rates(c, &before, &after)) {
		json_object_set_new(o, "rate_before_cnp_bps", JI(before));
		json_object_set_new(o, "rate_after_cnp_bps", JI(after));
	} else {
		json_object_set_new(o, "rate_before_cnp_bps", json_null());
		json_object_set_new(o, "rate_after_cnp_bps", json_null());
	}
	return o;
}

/* The PCPs (0..7) whose class has @p what, as bits. */
enum role_sel { SEL_DATA, SEL_ACKS, SEL_CNPS };

static uint64_t
class_sel(const struct rk_insp_qos_class *c, enum role_sel what)
{
	return what == SEL_DATA ? c->data : what == SEL_ACKS ? c->acks : c->cnps;
}

static uint8_t
pcp_bits(const struct rk_insp_qos *q, enum role_sel what)
{
	uint8_t b = 0;

	for (int i = 0; i < 8; i++)
		if (class_sel(&q->pcp[i], what) != 0)
			b |= (uint8_t)(1u << i);
	return b;
}

static uint8_t
paused_bits(const struct rk_insp_qos *q)
{
	uint8_t b = 0;

	for (int i = 0; i < 8; i++)
		if (q->pause[i].quanta != 0)
			b |= (uint8_t)(1u << i);
	return b;
}

static json_t *
bits_json(uint8_t bits)
{
	json_t *a = json_array();

	for (int i = 0; i < 8; i++)
		if (bits & (1u << i))
			json_array_append_new(a, JI(i));
	return a;
}

/*
 * Remarks on the lossless set-up, one at a time through @p cb: data on a
 * priority PFC never paused while PFC paused others, CNPs sharing the
 * data priority, data on more than one priority, storms.
 */
typedef void note_fn(void *ctx, const char *text);

static void
lossless_notes(const struct rk_insp_qos *q, note_fn *cb, void *ctx)
{
	uint8_t data = pcp_bits(q, SEL_DATA), cnps = pcp_bits(q, SEL_CNPS);
	uint8_t paused = paused_bits(q);
	char t[160];

	for (int i = 0; i < 8; i++) {
		if (paused && (data & (1u << i)) && !(paused & (1u << i))) {
			snprintf(t, sizeof(t), "data on PCP %d, a priority PFC never paused", i);
			cb(ctx, t);
		}
		if (data & cnps & (1u << i)) {
			snprintf(t, sizeof(t), "CNPs share PCP %d with data", i);
			cb(ctx, t);
		}
		if ((paused & (1u << i)) && !(data & (1u << i))) {
			snprintf(t, sizeof(t), "PFC paused PCP %d, which carries no RDMA data", i);
			cb(ctx, t);
		}
		if (q->pause[i].storms) {
			snprintf(t, sizeof(t), "PFC storm on PCP %d: %" PRIu64 " run%s paused "
				 "longer than %" PRIu64 " ms", i, q->pause[i].storms,
				 q->pause[i].storms == 1 ? "" : "s", q->opts.storm_ns / 1000000u);
			cb(ctx, t);
		}
	}
	if (data & (data - 1)) {
		snprintf(t, sizeof(t), "data on more than one PCP");
		cb(ctx, t);
	}
	if (q->pause[RK_INSP_QOS_LINK_PAUSE].storms) {
		snprintf(t, sizeof(t), "PAUSE storm on the link: %" PRIu64 " run%s paused longer "
			 "than %" PRIu64 " ms", q->pause[8].storms,
			 q->pause[8].storms == 1 ? "" : "s", q->opts.storm_ns / 1000000u);
		cb(ctx, t);
	}
}

static void
note_json(void *ctx, const char *text)
{
	json_array_append_new(ctx, json_string(text));
}

json_t *
rk_insp_qos_json(const struct rk_insp_qos *q)
{
	json_t *o = json_object(), *pcp = json_array(), *dscp = json_array();
	json_t *pause = json_array(), *cong = json_array(), *ll = json_object();
	json_t *notes = json_array();

	PUT_COUNTS(o, { "link_rate_bps", q->opts.link_bps },
		   { "storm_threshold_ns", q->opts.storm_ns }, { "tagged", q->tagged });
	json_object_set_new(o, "ecn", ecn_json(q->ecn));
	json_object_set_new(o, "cnps", JI(q->cnps));
	for (int i = 0; i < 9; i++)
		if (class_used(&q->pcp[i]))
			json_array_append_new(pcp, class_json("pcp", i == RK_INSP_QOS_UNTAGGED ?
							      json_null() : JI(i), &q->pcp[i]));
	json_object_set_new(o, "pcp", pcp);
	for (int i = 0; i < 64; i++)
		if (class_used(&q->dscp[i]))
			json_array_append_new(dscp, class_json("dscp", JI(i), &q->dscp[i]));
	json_object_set_new(o, "dscp", dscp);
	for (int i = 0; i < 9; i++)
		if (q->pause[i].frames)
			json_array_append_new(pause, pause_json(q, i));
	json_object_set_new(o, "pause", pause);
	for (const struct rk_insp_cong *c = q->head; c != NULL; c = c->next)
		if (c->ce || c->cnps)
			json_array_append_new(cong, cong_json(c));
	json_object_set_new(o, "congestion", cong);
	json_object_set_new(ll, "data_pcp", bits_json(pcp_bits(q, SEL_DATA)));
	json_object_set_new(ll, "ack_pcp", bits_json(pcp_bits(q, SEL_ACKS)));
	json_object_set_new(ll, "cnp_pcp", bits_json(pcp_bits(q, SEL_CNPS)));
	json_object_set_new(ll, "paused_pcp", bits_json(paused_bits(q)));
	lossless_notes(q, note_json, notes);
	json_object_set_new(ll, "notes", notes);
	json_object_set_new(o, "lossless", ll);
	return o;
}

/* ---------------------------------------------------------------- text */

/* @p ns as microseconds with three decimals. */
static void
us_text(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " us", ns / 1000u, ns % 1000u);
}

static void
print_class(FILE *out, const char *name, const struct rk_insp_qos_class *c,
	    const struct rk_insp_qos *q, int pcp)
{
	fprintf(out, "  %-8s %10" PRIu64 " %8" PRIu64 " %6" PRIu64 " %8" PRIu64 " %6" PRIu64,
		name, c->data, c->acks, c->cnps, c->ect, c->ce);
	if (pcp >= 0 && pcp < 8 && q->pause[pcp].frames) {
		char t[40];

		us_text(t, sizeof(t), q->pause[pcp].paused_ns);
		fprintf(out, " %8" PRIu64 " %s", q->pause[pcp].frames, t);
	}
	fputc('\n', out);
}

static void
print_pause(FILE *out, const struct rk_insp_qos *q, int i)
{
	const struct rk_insp_pause_prio *p = &q->pause[i];
	char asked[40], paused[40], longest[40];

	us_text(asked, sizeof(asked), rk_insp_pause_ns(p->quanta, q->opts.link_bps));
	us_text(paused, sizeof(paused), p->paused_ns);
	us_text(longest, sizeof(longest), p->longest_ns);
	if (i == RK_INSP_QOS_LINK_PAUSE)
		fprintf(out, "  PAUSE link:");
	else
		fprintf(out, "  PFC PCP %d:", i);
	fprintf(out, " %" PRIu64 " frames (%" PRIu64 " resume), %" PRIu64 " quanta = %s,"
		" paused %s, longest %s", p->frames, p->xon, p->quanta, asked, paused, longest);
	if (p->storms)
		fprintf(out, ", STORMS %" PRIu64 " (first at %" PRIu64 ".%09" PRIu64 ")", p->storms,
			p->storm_start_ns / 1000000000u, p->storm_start_ns % 1000000000u);
	fputc('\n', out);
}

static void
print_cong(FILE *out, const struct rk_insp_cong *c)
{
	char src[64], dst[64];
	uint64_t before, after;

	rk_insp_format_addr(src, sizeof(src), c->src, false);
	rk_insp_format_addr(dst, sizeof(dst), c->dst, false);
	fprintf(out, "  %s > %s: %" PRIu64 " packets, ECT %" PRIu64 ", CE %" PRIu64
		"; CNPs back %" PRIu64, src, dst, c->packets, c->ect, c->ce, c->cnps);
	if (c->cnps_unprompted)
		fprintf(out, " (%" PRIu64 " with no CE pending)", c->cnps_unprompted);
	print_delays(out, &c->delay);
	if (c->ce_pending)
		fprintf(out, "; CE unanswered at the end");
	fputc('\n', out);
	if (rk_insp_cong_rates(c, &before, &after))
		fprintf(out, "    sender rate %" PRIu64 ".%03" PRIu64 " Gb/s before the first CNP, %"
			PRIu64 ".%03" PRIu64 " Gb/s after\n", before / 1000000000u,
			before % 1000000000u / 1000000u, after / 1000000000u,
			after % 1000000000u / 1000000u);
}

/* " WHAT on PCP a,b" after @p *sep; nothing when @p bits is 0. */
static void
print_bits(FILE *out, const char **sep, const char *what, uint8_t bits)
{
	const char *comma = " ";

	if (bits == 0)
		return;
	fprintf(out, "%s%s on PCP", *sep, what);
	for (int i = 0; i < 8; i++)
		if (bits & (1u << i)) {
			fprintf(out, "%s%d", comma, i);
			comma = ",";
		}
	*sep = "; ";
}

static void
note_text(void *ctx, const char *text)
{
	fprintf(ctx, "  note: %s\n", text);
}

void
rk_insp_print_qos(FILE *out, const struct rk_insp_qos *q)
{
	char name[16];

	if (!rk_insp_qos_any(q))
		return;
	fprintf(out, "\nQoS (link %" PRIu64 " Gb/s, storm threshold %" PRIu64 " ms):\n",
		q->opts.link_bps / 1000000000u, q->opts.storm_ns / 1000000u);
	if (q->ecn[1] || q->ecn[2] || q->ecn[3])
		fprintf(out, "  ECN: Not-ECT %" PRIu64 ", ECT(0) %" PRIu64 ", ECT(1) %" PRIu64
			", CE %" PRIu64 "; CNPs %" PRIu64 "\n", q->ecn[0], q->ecn[2], q->ecn[1],
			q->ecn[3], q->cnps);
	fprintf(out, "  %-8s %10s %8s %6s %8s %6s %8s %s\n", "class", "data", "ACK/NAK",
		"CNP", "ECT", "CE", "pauses", "paused");
	for (int i = 0; i < 9; i++) {
		if (!class_used(&q->pcp[i]) && (i == 8 || q->pause[i].frames == 0))
			continue;
		if (i == RK_INSP_QOS_UNTAGGED)
			snprintf(name, sizeof(name), "untagged");
		else
			snprintf(name, sizeof(name), "PCP %d", i);
		print_class(out, name, &q->pcp[i], q, i);
	}
	for (int i = 0; i < 64; i++) {
		if (!class_used(&q->dscp[i]))
			continue;
		snprintf(name, sizeof(name), "DSCP %d", i);
		print_class(out, name, &q->dscp[i], q, -1);
	}
	for (int i = 0; i < 9; i++)
		if (q->pause[i].frames)
			print_pause(out, q, i);
	for (const struct rk_insp_cong *c = q->head; c != NULL; c = c->next)
		if (c->ce || c->cnps)
			print_cong(out, c);
	if (pcp_bits(q, SEL_DATA) || paused_bits(q)) {
		const char *sep = " ";

		fprintf(out, "  lossless:");
		print_bits(out, &sep, "data", pcp_bits(q, SEL_DATA));
		print_bits(out, &sep, "ACK/NAK", pcp_bits(q, SEL_ACKS));
		print_bits(out, &sep, "CNPs", pcp_bits(q, SEL_CNPS));
		print_bits(out, &sep, "PFC pauses", paused_bits(q));
		fputc('\n', out);
	}
	lossless_notes(q, note_text, out);
}
