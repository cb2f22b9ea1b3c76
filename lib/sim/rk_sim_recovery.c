/* SPDX-License-Identifier: BSD-3-Clause */
/* Go-back-N against selective repeat on a lossy link (rk_sim_recovery.h). */
#include "rk_sim_recovery.h"

#include <errno.h>
#include <stdlib.h>

int
rk_sim_recovery_run(const char *algo, double loss, uint64_t seed, uint32_t ops,
		    struct rk_sim_recovery_point *p)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = seed,
		.ops = ops,
		.max_size = 64 * 1024,
		.fixed_size = true,
		.opmask = 1u << RK_SIM_WRITE,
		.mtu = RK_MTU_1024,
		.depth = 16,
		.impair = { .loss = loss, .delay_ns = 5000, .rate_bps = 10000000000ull },
		.paced = true,
		.timeout = 10,
		.retry_cnt = 7,
		.window = 256,
		.recovery = algo,
	};
	struct rk_sim_wl_result *r = calloc(1, sizeof(*r));
	int rc;

	if (r == NULL)
		return -ENOMEM;
	rc = rk_sim_wl_run(&cfg, r);
	p->loss = loss;
	p->virtual_ns = r->virtual_ns;
	p->goodput_gbps = r->virtual_ns ? (double)r->payload_bytes * 8 / (double)r->virtual_ns : 0;
	p->req_pkts = r->stats[0].req_pkts;
	p->retx_pkts = r->stats[0].req_retx_pkts;
	p->timeouts = r->stats[0].req_retransmit_timeouts;
	p->nak_seq = r->stats[1].resp_nak_seq;
	free(r);
	return rc;
}
