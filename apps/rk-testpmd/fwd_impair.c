/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The impair engine: forward between paired ports through lib/impair's
 * stage, with the rules "impair add" loaded (matched by DestQP, OpCode, PSN
 * range). Dropped frames are freed, duplicates are copied, corrupted and
 * CE-marked copies are changed in place, delayed ones wait in a queue per
 * stream and leave when due. Frames no rule matches pass untouched. A
 * rule with forge= answers the request toward its requester (forge.c),
 * which also follows each drop and answer to the requester's reaction.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rk_io_dpdk.h"
#include "testpmd.h"

static struct rk_impair_queue held[RK_TP_MAX_PORTS];    /* by rx port */


int
rk_tp_impair_add(const char *text, char *err, unsigned int errlen)
{
	struct rk_impair_rule r;
	int rc;

	if (rk_tp.forwarding) {
		snprintf(err, errlen, "stop forwarding first");
		return -EBUSY;
	}
	if (rk_tp.nb_rules >= RK_TP_MAX_RULES) {
		snprintf(err, errlen, "at most %u rules", RK_TP_MAX_RULES);
		return -ENOSPC;
	}
	if ((rc = rk_impair_rule_parse(text, &r, err, errlen)) != 0)
		return rc;
	rk_tp.rules[rk_tp.nb_rules++] = r;
	rk_impair_destroy(rk_tp.impair);
	rk_tp.impair = NULL;
	return 0;
}

void
rk_tp_impair_clear(void)
{
	rk_tp.nb_rules = 0;
	rk_impair_destroy(rk_tp.impair);
	rk_tp.impair = NULL;
	rk_tp.impair_passed = 0;
}

void
rk_tp_impair_show(FILE *out)
{
	fprintf(out, "%u rule(s), %" PRIu64 " frames matched none\n", rk_tp.nb_rules,
		rk_tp.impair_passed);
	for (unsigned int i = 0; i < rk_tp.nb_rules; i++) {
		char text[256];
		const struct rk_impair_rule_stats *s =
			rk_tp.impair != NULL ? rk_impair_stats(rk_tp.impair, i) : NULL;
		struct rk_impair_rule_stats zero = { 0 };

		if (s == NULL)
			s = &zero;
		rk_impair_rule_format(&rk_tp.rules[i], text, sizeof(text));
		fprintf(out, "rule %u: %s\n  matched %" PRIu64 " dropped %" PRIu64
			" (periodic %" PRIu64 ", mtu %" PRIu64 ") duplicated %" PRIu64
			" reordered %" PRIu64 " corrupted %" PRIu64 " ce-marked %" PRIu64
			" forged %" PRIu64,
			i, text, s->matched, s->lost + s->mtu_drops, s->periodic_drops,
			s->mtu_drops, s->dup, s->reordered, s->corrupted, s->ce_marked, s->forged);
		/* requests a forge rule let pass, since no answer could be made */
		if (s->unforged != 0)
			fprintf(out, " unforged %" PRIu64, s->unforged);
		fputc('\n', out);
	}
	if (rk_tp.nb_rules > 0)
		rk_tp_forge_report(out);
}

static int
impair_begin(uint16_t port)
{
	/* The reaction report covers one run. */
	if (rk_tp.nb_streams > 0 && port == rk_tp.streams[0].rx_port)
		rk_tp_forge_reset();
	if (rk_tp.impair == NULL) {
		rk_tp.impair = rk_impair_create(rk_tp.rules, rk_tp.nb_rules);
		if (rk_tp.impair == NULL)
			return -ENOMEM;
	}
	rk_impair_queue_clear(&held[port]);
	return 0;
}

static void
impair_end(uint16_t port)
{
	rk_impair_queue_clear(&held[port]);
}

/* Send the frames of this stream's queue that are due. */
static void
send_due(struct rk_tp_stream *fs, uint64_t now)
{
	struct rk_impair_queue *q = &held[fs->rx_port];

	while (q->n > 0 && rk_impair_queue_next_ns(q) <= now) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rk_tp.pool);
		uint8_t *p;
		int len;

		if (m == NULL)
			return;
		p = rte_pktmbuf_mtod(m, uint8_t *);
		len = rk_impair_queue_pop(q, now, p, rte_pktmbuf_tailroom(m));
		if (len <= 0) {
			rte_pktmbuf_free(m);
			if (len == 0)
				return;
			fs->dropped++;
			continue;
		}
		m->data_len = m->pkt_len = (uint32_t)len;
		rk_tp_send(fs->tx_port, &m, 1, fs);
	}
}

/* Answer the request @p f toward its requester, out of the port it came in
 * on. @return whether an answer went out. */
static bool
forge(struct rk_tp_stream *fs, const struct rk_impair_verdict *v, const uint8_t *f, uint32_t len)
{
	const struct rk_impair_rule *r = &rk_tp.rules[v->rule];
	struct rte_mbuf *m;
	int n;

	struct rk_tp_stream *back = fs;

	if ((m = rte_pktmbuf_alloc(rk_tp.pool)) == NULL)
		return false;
	n = rk_tp_forge_build(v->forge, r->forge_arg, f, len, rte_pktmbuf_mtod(m, uint8_t *),
			      rte_pktmbuf_tailroom(m));
	if (n <= 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	m->data_len = m->pkt_len = (uint32_t)n;
	if (v->forge != RK_IMPAIR_FORGE_CNP)
		rk_tp_forge_event(v->rule, v->forge, r->forge_arg, f, len);
	/* Counted on the stream whose port it leaves by. */
	for (unsigned int i = 0; i < rk_tp.nb_streams; i++)
		if (rk_tp.streams[i].tx_port == fs->rx_port)
			back = &rk_tp.streams[i];
	return rk_tp_send(fs->rx_port, &m, 1, back) == 1;
}

static void
impair_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST], *out[RK_TP_BURST * 2];
	uint16_t n = rk_tp_rx(fs, m), k = 0, passed = 0;
	uint64_t now = rk_io_dpdk_now_ns();
	const struct rk_impair_filter *flt;

	send_due(fs, now);
	if (n == 0)
		return;
	flt = rk_impair_filter_of(rk_tp.impair);
	for (uint16_t i = 0; i < n; i++) {
		uint8_t *f = rte_pktmbuf_mtod(m[i], uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(m[i]);
		struct rk_impair_verdict v;
		uint8_t proto;
		/* the headers once per frame; a frame no rule can take passes here */
		const uint8_t *bth = rk_impair_bth(f, len, &proto);

		/* only RoCEv2 frames teach the forger */
		if (bth != NULL && rk_tp.nb_rules > 0)
			rk_tp_forge_observe(f, len);
		if (rk_impair_filter_may(flt, proto, bth))
			rk_impair_decide_parsed(rk_tp.impair, len, proto, bth, &v);
		else
			v.rule = -1;
		if (v.rule < 0) {
			passed++;
			out[k++] = m[i];
			continue;
		}
		/* With no answer of the requester's QP seen yet there is no one to
		 * answer (counted unpaired in the report), and a NAK waits behind
		 * a hole: a NAK or RNR NAK rule's request passes, the rule still
		 * armed. */
		if (v.forge != RK_IMPAIR_FORGE_NONE && !forge(fs, &v, f, len)) {
			rk_impair_unforge(rk_tp.impair, &v);
			if (v.drop == RK_IMPAIR_DROP_FORGED) {
				out[k++] = m[i];
				continue;
			}
		}
		if (v.copies == 0) {
			if (v.drop != RK_IMPAIR_DROP_FORGED)
				rk_tp_forge_event(v.rule, RK_IMPAIR_FORGE_NONE, 0, f, len);
			fs->dropped++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		for (unsigned int c = 0; c < v.copies; c++) {
			struct rk_impair_copy cp;
			struct rte_mbuf *x = c + 1 == v.copies ? m[i]
						: rte_pktmbuf_copy(m[i], rk_tp.pool, 0, UINT32_MAX);
			uint8_t *xf;

			rk_impair_next_copy(rk_tp.impair, &v, &cp);
			if (x == NULL) {
				fs->dropped++;
				continue;
			}
			xf = rte_pktmbuf_mtod(x, uint8_t *);
			rk_impair_apply(rk_tp.impair, &v, &cp, xf, len);
			if (cp.delay_ns == 0) {
				out[k++] = x;
			} else {
				if (rk_impair_queue_push(&held[fs->rx_port], now + cp.delay_ns, xf, len,
							 NULL) != 0)
					fs->dropped++;
				rte_pktmbuf_free(x);
			}
		}
	}
	rk_tp.impair_passed += passed;
	if (k > 0)
		rk_tp_send(fs->tx_port, out, k, fs);
}

const struct rk_tp_engine rk_tp_fwd_impair = {
	.name = "impair",
	.help = "forward between paired ports through the impairment rules",
	.port_fwd_begin = impair_begin,
	.port_fwd_end = impair_end,
	.packet_fwd = impair_fwd,
};
