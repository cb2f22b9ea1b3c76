/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several perftest connections over RoCE in one process: the client of
 * two servers (--pair-port) and perftest -q N over the TCP exchange, the
 * data phases of all in one loop.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "perftest.h"

static void
err_prefix(struct ia *a, const char *prefix)
{
	char tmp[sizeof(a->err)];

	snprintf(tmp, sizeof(tmp), "%s%.200s", prefix, a->err);
	snprintf(a->err, sizeof(a->err), "%s", tmp);
}

/*
 * Two connections served by one process: the client of two servers of
 * the same bw tool (ports o.tcp_port and o.pair_port), both data phases in
 * one loop. The fault options apply to the first connection only; the
 * second must complete with its data checked whatever the first does.
 * The first one's failure is reported and its exchange closed (its tool
 * then fails), the loop keeps serving the second. Exit status 0 when the
 * second completed and the first either completed or failed under a fault
 * we injected.
 */
int
ia_perftest_pair(struct ia *a)
{
	struct pt t[2];
	char err0[sizeof(a->err)] = "";
	uint64_t done1_at_fail = 0;
	bool dead0 = false;
	int rc = -1;

	pt_roce_init(&t[0], a);
	pt_roce_init(&t[1], a);
	t[1].bad_rkey = false;
	t[1].psn_skew = 0;
	if (pt_roce_setup(&t[0]) != 0) {
		err_prefix(a, "connection 1: ");
		goto out;
	}
	a->fd = -1;
	a->o.tcp_port = a->o.pair_port;
	if (pt_roce_setup(&t[1]) != 0) {
		err_prefix(a, "connection 2: ");
		goto out;
	}
	if (pt_bw_client_begin(&t[0]) != 0 || pt_bw_client_begin(&t[1]) != 0)
		goto out;
	rk_app_watchdog_restart(&a->wd);
	while (t[1].done < t[1].iters || (!dead0 && t[0].done < t[0].iters)) {
		int work = 0;

		for (int i = 0; i < 2; i++) {
			int n;

			if ((i == 0 && dead0) || t[i].done == t[i].iters)
				continue;
			n = pt_bw_client_step(&t[i]);
			if (n < 0 && i == 1) {
				err_prefix(a, "connection 2: ");
				goto out;
			}
			if (n < 0) {
				/* The first connection broke: note it, keep serving the second. */
				snprintf(err0, sizeof(err0), "%s", a->err);
				a->err[0] = '\0';
				dead0 = true;
				done1_at_fail = t[1].done;
				printf("pair: connection 1 (QP %#x) failed: %s; connection 2 (QP %#x) "
				       "had completed %" PRIu64 " of %u\n", t[0].qp->qp_num, err0,
				       t[1].qp->qp_num, t[1].done, t[1].iters);
				fflush(stdout);
				if (t[0].fd >= 0) {
					close(t[0].fd);
					t[0].fd = -1;
				}
				continue;
			}
			work += n;
		}
		if (ia_watchdog(a, work) != 0)
			goto out;
		rk_io_dpdk_idle(a->io, work);
	}
	if (!dead0) {
		a->fd = t[0].fd;
		if (pt_roce_finish(&t[0], 0) != 0) {
			err_prefix(a, "connection 1: ");
			goto out;
		}
	}
	a->fd = t[1].fd;
	if (pt_roce_finish(&t[1], 0) != 0) {
		err_prefix(a, "connection 2: ");
		goto out;
	}
	/* Without a fault injected, the first connection had to complete as well. */
	if (dead0 && !t[0].bad_rkey && t[0].psn_skew == 0) {
		ia_fail(a, "connection 1: %s", err0);
		goto out;
	}
	if (dead0)
		printf("pair: connection 2 completed %u of %u (%" PRIu64 " after connection 1 "
		       "failed), data checked\n", t[1].iters, t[1].iters,
		       (uint64_t)t[1].iters - done1_at_fail);
	else
		printf("pair: both connections completed, data checked\n");
	rc = 0;
out:
	/* main closes a->fd; close the other exchange here. */
	for (int i = 0; i < 2; i++)
		if (t[i].fd >= 0 && t[i].fd != a->fd)
			close(t[i].fd);
	pt_release(&t[0]);
	pt_release(&t[1]);
	return rc;
}

/*
 * perftest -q N over the TCP exchange: N QPs, each with its buffers, keys
 * and --iters operations. The exchange as perftest's: the preamble, each
 * QP's keys, the connections, each QP's keys again, then the barriers of
 * one QP; the data phases of all QPs in one loop.
 */
int
ia_perftest_qps(struct ia *a)
{
	uint32_t q = a->o.qps;
	struct pt *t = calloc(q, sizeof(*t));
	int barriers, rc = -1;
	uint64_t left;

	if (t == NULL)
		return ia_fail(a, "out of memory");
	for (uint32_t i = 0; i < q; i++)
		pt_roce_init(&t[i], a);
	barriers = pt_bw_report(&t[0]) ? 2 : 3;
	if (ia_oob_open(a) != 0)
		goto out;
	for (uint32_t i = 0; i < q; i++)
		t[i].fd = a->fd;
	if (pt_roce_preamble(&t[0]) != 0)
		goto out;
	for (uint32_t i = 0; i < q; i++) {
		t[i].mtu_enum = t[0].mtu_enum;
		if (pt_roce_create(&t[i]) != 0)
			goto out;
	}
	for (uint32_t i = 0; i < q; i++)
		if (pt_roce_keys(&t[i], &t[i].remote) != 0)
			goto out;
	for (uint32_t i = 0; i < q; i++)
		if (pt_roce_connect(&t[i]) != 0)
			goto out;
	for (int b = 0; b < barriers; b++) {
		if (b == barriers - 1 && t[0].verb == PT_SEND)
			for (uint32_t i = 0; i < q; i++)
				if (pt_post_recvs(&t[i]) != 0)
					goto out;
		/* Every QP's keys again: the first barrier, send_bw's second. */
		for (uint32_t i = 0; i < (b == (t[0].verb == PT_SEND) ? q : 1); i++)
			if (pt_roce_keys(&t[i], NULL) != 0)
				goto out;
	}
	for (uint32_t i = 0; i < q; i++) {
		pt_roce_window(&t[i]);
		printf(" QP %u: local QPN %#06x, remote QPN %#06x RKey %#010x VAddr %#016" PRIx64
		       "\n", i, t[i].local.qpn, t[i].remote.qpn, t[i].remote.rkey,
		       t[i].remote.vaddr);
	}
	fflush(stdout);
	if (!t[0].client && t[0].verb != PT_SEND) {
		if (pt_roce_passive(&t[0]) != 0)
			goto out;
	} else {
		for (uint32_t i = 0; i < q && t[i].client; i++)
			if (pt_bw_client_begin(&t[i]) != 0)
				goto out;
		for (uint32_t i = 0; i < q && !t[i].client; i++)
			pt_duration_begin(&t[i]);
		rk_app_watchdog_restart(&a->wd);
		do {
			int work = 0;

			left = 0;
			for (uint32_t i = 0; i < q; i++) {
				int n;

				if (t[i].client ? t[i].done == t[i].iters : t[i].recvd == t[i].iters)
					continue;
				n = t[i].client ? pt_bw_client_step(&t[i]) : pt_send_server_step(&t[i]);
				if (n < 0) {
					char m[sizeof(a->err)];

					snprintf(m, sizeof(m), "%s", a->err);
					ia_fail(a, "QP %u: %.200s", i, m);
					goto out;
				}
				work += n;
				left += t[i].iters - (t[i].client ? t[i].done : t[i].recvd);
			}
			if (ia_watchdog(a, work) != 0)
				goto out;
			rk_io_dpdk_idle(a->io, work);
		} while (left > 0);
	}
	for (uint32_t i = 1; i < q; i++) {
		if (t[i].client)
			printf(" QP %u: #bytes %u  #iterations %u  %.2f s\n", i, t[i].size, t[i].iters,
			       t[i].seconds);
		if (!t[i].client && t[i].verb == PT_READ &&
		    !rk_app_check(t[i].buf + t[i].region_off, t[i].region_len, 0x5eed)) {
			ia_fail(a, "QP %u: READ-only buffer changed during the test", i);
			goto out;
		}
	}
	rc = pt_roce_finish(&t[0], 0);
out:
	for (uint32_t i = 0; i < q; i++)
		pt_release(&t[i]);
	free(t);
	return rc;
}
