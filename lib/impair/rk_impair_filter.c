/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pre-filter of a stage's rules: with rules that take a few QPs, the
 * other frames pass after a few compares instead of a walk of every rule.
 */
#include "rk_impair.h"

#include <string.h>

#define QP_MAX 0xffffffu

static void
set_bit(uint32_t *bits, unsigned int b)
{
	bits[b >> 5] |= 1u << (b & 31);
}

void
rk_impair_filter_init(struct rk_impair_filter *f, const struct rk_impair_rule *rules,
		      unsigned int n_rules)
{
	memset(f, 0, sizeof(*f));
	f->qp_min = QP_MAX;
	for (unsigned int i = 0; rules != NULL && i < n_rules; i++) {
		const struct rk_impair_match *m = &rules[i].match;
		uint32_t qlo = 0, qhi = QP_MAX;
		unsigned int olo = 0, ohi = 255;

		if (!m->by_qp && !m->by_opcode && !m->by_psn) {
			if (m->ip_proto == 0)
				f->every = true;
			else
				set_bit(f->protos, m->ip_proto);
			continue;
		}
		/* a BTH comes only with UDP: a rule on another protocol takes nothing */
		if (m->ip_proto != 0 && m->ip_proto != 17)
			continue;
		if (m->by_qp) {
			if (m->qp_min > m->qp_max)
				continue;
			qlo = m->qp_min;
			qhi = m->qp_max < QP_MAX ? m->qp_max : QP_MAX;
		}
		if (m->by_opcode) {
			if (m->opcode_min > m->opcode_max)
				continue;
			olo = m->opcode_min;
			ohi = m->opcode_max;
		}
		f->roce = true;
		if (qlo < f->qp_min)
			f->qp_min = qlo;
		if (qhi > f->qp_max)
			f->qp_max = qhi;
		for (unsigned int o = olo; o <= ohi; o++)
			set_bit(f->opcodes, o);
	}
}
