/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful client against a perftest bw server (--perftest):
 * ib_write_bw, ib_read_bw or ib_atomic_bw started with -q N, an RNIC's
 * or Linux rxe's. perftest's TCP exchange (apps/common/rk_app_perftest.h)
 * as its client with N QPs: the preamble, each QP's keys, the
 * connections, each QP's keys again (the first barrier), one more (the
 * second); after the traffic, keys, the bw report, keys, "done". The
 * server is passive and checks nothing: the set checks what the protocol
 * fixes (rk_sf_foreign()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rk_app_oob.h"
#include "rk_app_perftest.h"
#include "stateful_run.h"

/* One step in the client's order: ours first (rk_pt_xchg_fn). */
static int
xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct rk_sf_run *r = ctx;
	int rc = rk_oob_send(r->fd, mine, len);

	if (rc == 0)
		rc = rk_oob_recv(r->fd, theirs, len, r->o->timeout_s, rk_sf_serve, r);
	if (rc != 0)
		rk_sf_fail_rc(rc, "perftest exchange: %s", rc == -ECONNRESET ?
			      "the server closed the connection" : strerror(-rc));
	return rc == 0 ? 0 : -1;
}

/* QP i's key message, the server's into *@p d (may be NULL). */
static int
keys(struct rk_sf_run *r, uint32_t i, struct rk_pt_dest *d)
{
	const struct rk_sf_qp *q = &r->s.q[i];
	struct rk_pt_dest mine = { .out_reads = 16, .qpn = q->qp->qp_num, .psn = q->psn,
				   .rkey = q->mr->rkey, .vaddr = (uint64_t)(uintptr_t)q->buf,
				   .gid = { [10] = 0xff, [11] = 0xff } };
	char bad[41];
	int rc;

	memcpy(mine.gid + 12, r->o->ip, 4);
	rc = rk_pt_keys_xchg(xchg, r, &mine, d, bad);
	if (rc == -EINVAL)
		rk_sf_fail("perftest exchange: the server's key message is malformed: \"%s\"", bad);
	return rc == 0 ? 0 : -1;
}

static int
pt_open(struct rk_sf_run *r, struct rk_gen_hello_qp *local)
{
	const struct rk_sf_opts *o = r->o;
	char mtu[2] = { (char)('0' + rk_mtu_from_bytes(o->cfg.mtu)), 0 }, rmtu[3], rver[RK_PT_VERSION_LEN + 1];
	struct rk_pt_dest d;
	uint32_t cycle, out_reads = 16;
	unsigned int rm;
	int rc;

	(void)local;
	if (rk_sf_foreign(&r->s) != 0)
		return rk_sf_fail("%s", r->s.err);
	r->remote = calloc(r->s.n, sizeof(*r->remote));
	if (r->remote == NULL)
		return rk_sf_fail("out of memory for %u QP%s", r->s.n, r->s.n == 1 ? "" : "s");
	rc = rk_oob_connect(o->server, o->oob_port, o->timeout_s, &r->fd, rk_sf_serve, r);
	if (rc != 0)
		return rk_sf_fail_rc(rc, "cannot reach the perftest server %s:%u: %s", o->server,
				     o->oob_port, rk_oob_strerror(rc));
	rc = rk_pt_preamble(xchg, r, mtu, rmtu, rver, &cycle);
	if (rc == -EPROTO)
		return rk_sf_fail("the server %s:%u is not perftest 5.70 or later (version \"%.16s\")",
				  o->server, o->oob_port, rver);
	if (rc != 0)
		return 1;
	if (sscanf(rmtu, "%u", &rm) != 1 || rm < 1 || rm > 5)
		return rk_sf_fail("the perftest server's MTU \"%.2s\" is not an IB MTU", rmtu);
	/* both ends take the smaller MTU, as perftest does */
	if (rk_mtu_bytes((enum rk_mtu)rm) < r->s.cfg.mtu)
		r->s.cfg.mtu = rk_mtu_bytes((enum rk_mtu)rm);
	for (uint32_t i = 0; i < r->s.n; i++) {
		if (keys(r, i, &d) != 0)
			return 1;
		/* a server of fewer QPs is in its barrier: QP 0's keys again */
		for (uint32_t k = 0; k < i; k++)
			if (r->remote[k].qpn == d.qpn)
				return rk_sf_fail("the perftest server has fewer QPs than --stateful %u "
						  "(its key message %u repeats QPN 0x%06x of its QP %u): "
						  "start it with -q %u", r->s.n, i + 1, d.qpn, k, r->s.n);
		/* every QP of the server is on its one address */
		if (i == 0)
			memcpy(r->peer_ip, d.gid + 12, 4);
		if (d.out_reads > 0 && d.out_reads < out_reads)
			out_reads = d.out_reads;
		r->remote[i] = (struct rk_gen_hello_qp){ .qpn = d.qpn, .psn = d.psn, .rkey = d.rkey,
							 .va = d.vaddr, .len = r->s.cfg.size_max };
	}
	r->peer_ip_count = 1;
	r->s.max_rd_atomic = (uint8_t)out_reads;
	if (rk_sf_resolve_connect(r) != 0)
		return 1;
	/* the barriers: every QP's keys, then QP 0's; a server of more QPs
	 * still sends its next QPs' keys here */
	for (uint32_t i = 0; i < r->s.n; i++) {
		if (keys(r, i, &d) != 0)
			return 1;
		if (d.qpn != r->remote[i].qpn)
			return rk_sf_fail("the perftest server has more QPs than --stateful %u (its "
					  "barrier brought QPN 0x%06x, not its QP %u's 0x%06x): start it "
					  "with -q %u", r->s.n, d.qpn, i, r->remote[i].qpn, r->s.n);
	}
	if (keys(r, 0, NULL) != 0)
		return 1;
	snprintf(r->peer_desc, sizeof(r->peer_desc), "perftest %.8s server at %s:%u, path MTU %u",
		 rver, o->server, o->oob_port, r->s.cfg.mtu);
	return 0;
}

static int
pt_end(struct rk_sf_run *r)
{
	struct rk_pt_report mine = { .size = r->s.cfg.size_max, .iters = r->s.t.msgs / r->s.n },
			    theirs;

	if (r->s.cfg.ops & RK_GEN_OP_ATOMIC)
		mine.size = 8;
	if (keys(r, 0, NULL) != 0 || rk_pt_reports(xchg, r, &mine, &theirs) != 0 ||
	    keys(r, 0, NULL) != 0)
		return 1;
	if (rk_oob_send(r->fd, "done", 5) != 0)
		return rk_sf_fail("perftest exchange: cannot send its last message");
	return 0;
}

const struct rk_sf_peer_ops rk_sf_peer_perftest = {
	.name = "perftest", .open = pt_open, .end = pt_end,
};
