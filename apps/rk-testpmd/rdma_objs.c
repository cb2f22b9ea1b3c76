/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MRs and QPs of rk-testpmd's verbs commands: registration, the
 * data of an MR (fill, check, dump), QPs made and connected to another
 * QP of this process, work posted, completions polled. Every verbs call
 * holds rk_tp_rdma_lock (the rdma engine pumps the same contexts on the
 * forwarding lcore).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "rdma.h"
#include "rk_app_qp.h"
#include "testpmd.h"

struct tp_mr {
	struct rk_mr *mr;
	uint8_t *buf;
	uint16_t port;
	int access;
	/* A peer's region (mr NULL): known by its VA and R_Key only. */
	bool remote;
	uint64_t rva;
	uint32_t rrkey;
};

struct tp_qp {
	struct rk_qp *qp;
	struct rk_cq *cq;
	struct rk_ah *ah;               /* UD: to the peer */
	uint16_t port;
	uint32_t psn;                   /* first send PSN */
	int peer;                       /* QP id connected to; PEER_NONE, PEER_REMOTE */
	uint32_t peer_qpn;
	uint64_t posted;                /* send WRs posted since connected */
};

#define PEER_NONE (-1)
#define PEER_REMOTE (-2)                /* a QP of another host (qp connect ... perftest) */

static struct tp_mr mrs[RK_TP_MAX_MRS];
static struct tp_qp qps[RK_TP_MAX_QPS];
static uint64_t next_wr_id = 1;
static bool seeded;

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)

const char *
rk_tp_qp_type_name(enum rk_qp_type t)
{
	return t == RK_QPT_RC ? "RC" : t == RK_QPT_UC ? "UC" : "UD";
}

static const char *const state_names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

static void
access_str(int a, char *s, size_t len)
{
	snprintf(s, len, "local%s%s%s", (a & RK_ACCESS_REMOTE_WRITE) ? ",write" : "",
		 (a & RK_ACCESS_REMOTE_READ) ? ",read" : "",
		 (a & RK_ACCESS_REMOTE_ATOMIC) ? ",atomic" : "");
}

/* A region of this process, or with @p remote_ok also a peer's. */
static struct tp_mr *
mr_find(FILE *out, unsigned int id, bool remote_ok)
{
	if (id >= RK_TP_MAX_MRS || (mrs[id].mr == NULL && !mrs[id].remote)) {
		fprintf(out, "No MR %u (\"mr show\" lists them)\n", id);
		return NULL;
	}
	if (mrs[id].remote && !remote_ok) {
		fprintf(out, "MR %u is a peer's region: only the remote MR of a WRITE, READ or "
			"atomic\n", id);
		return NULL;
	}
	return &mrs[id];
}

static struct tp_mr *
mr_get(FILE *out, unsigned int id)
{
	return mr_find(out, id, false);
}

static struct tp_qp *
qp_get(FILE *out, unsigned int id)
{
	if (id >= RK_TP_MAX_QPS || qps[id].qp == NULL) {
		fprintf(out, "No QP %u (\"qp show\" lists them)\n", id);
		return NULL;
	}
	return &qps[id];
}

/* ---------------------------------------------------------------- MRs */

int
rk_tp_mr_reg(FILE *out, uint16_t port, uint64_t bytes, int access)
{
	unsigned int id;
	struct rk_tp_rdma_dev *d;
	struct tp_mr *m;
	char acc[48];

	if (!rk_tp_port_valid(port, out))
		return -EINVAL;
	if (bytes == 0 || bytes > RK_TP_MR_MAX_BYTES) {
		fprintf(out, "Bad MR length %" PRIu64 ": 1..%u bytes\n", bytes, RK_TP_MR_MAX_BYTES);
		return -EINVAL;
	}
	for (id = 0; id < RK_TP_MAX_MRS && (mrs[id].mr != NULL || mrs[id].remote); id++)
		;
	if (id == RK_TP_MAX_MRS) {
		fprintf(out, "No room for another MR (at most %u)\n", RK_TP_MAX_MRS);
		return -ENOSPC;
	}
	m = &mrs[id];
	LOCK();
	d = rk_tp_rdma_dev(port, true, out);
	if (d == NULL) {
		UNLOCK();
		return -ENODEV;
	}
	m->buf = aligned_alloc(64, (bytes + 63) & ~UINT64_C(63));
	if (m->buf != NULL) {
		memset(m->buf, 0, bytes);
		m->mr = rk_reg_mr(d->pd, m->buf, bytes, RK_ACCESS_LOCAL_WRITE | access);
	}
	UNLOCK();
	if (m->mr == NULL) {
		fprintf(out, "Cannot register %" PRIu64 " bytes: %s\n", bytes,
			strerror(m->buf == NULL ? ENOMEM : errno));
		free(m->buf);
		m->buf = NULL;
		return -ENOMEM;
	}
	m->port = port;
	m->access = RK_ACCESS_LOCAL_WRITE | access;
	access_str(m->access, acc, sizeof(acc));
	fprintf(out, "MR %u: port %u, %" PRIu64 " bytes at VA 0x%" PRIx64 ", L_Key 0x%08x, "
		"R_Key 0x%08x, access %s\n", id, port, bytes, (uint64_t)(uintptr_t)m->buf,
		m->mr->lkey, m->mr->rkey, acc);
	return (int)id;
}

void
rk_tp_mr_show(FILE *out)
{
	unsigned int n = 0;

	for (unsigned int id = 0; id < RK_TP_MAX_MRS; id++) {
		struct tp_mr *m = &mrs[id];
		char acc[48];

		if (m->remote) {
			fprintf(out, "MR %u: port %u, a peer's region at VA 0x%" PRIx64 ", R_Key "
				"0x%08x\n", id, m->port, m->rva, m->rrkey);
			n++;
		}
		if (m->mr == NULL)
			continue;
		access_str(m->access, acc, sizeof(acc));
		fprintf(out, "MR %u: port %u, %zu bytes at VA 0x%" PRIx64 ", L_Key 0x%08x, "
			"R_Key 0x%08x, access %s\n", id, m->port, m->mr->length,
			(uint64_t)(uintptr_t)m->buf, m->mr->lkey, m->mr->rkey, acc);
		n++;
	}
	if (n == 0)
		fprintf(out, "No MR (\"mr reg <port> <bytes>\" makes one)\n");
}

/* "inc[:S]" or a byte value: *inc and *v. */
static int
pattern_parse(const char *s, bool *inc, uint8_t *v)
{
	char *end;
	unsigned long x = 0;

	*inc = strncmp(s, "inc", 3) == 0;
	if (*inc) {
		s += 3;
		if (*s == '\0') {
			*v = 0;
			return 0;
		}
		if (*s++ != ':')
			return -EINVAL;
	}
	x = strtoul(s, &end, 0);
	if (*s == '\0' || *end != '\0' || x > 255)
		return -EINVAL;
	*v = (uint8_t)x;
	return 0;
}

int
rk_tp_mr_data(FILE *out, char op, unsigned int id, uint64_t off, uint64_t len,
	      const char *pattern)
{
	struct tp_mr *m = mr_get(out, id);
	bool inc = false;
	uint8_t v = 0;
	int rc = 0;

	if (m == NULL)
		return -EINVAL;
	if (len == 0 || off > m->mr->length || len > m->mr->length - off) {
		fprintf(out, "Bad range %" PRIu64 "+%" PRIu64 ": MR %u holds %zu bytes\n", off, len,
			id, m->mr->length);
		return -EINVAL;
	}
	if (op != 'd' && (pattern == NULL || pattern_parse(pattern, &inc, &v) != 0)) {
		fprintf(out, "Bad pattern \"%s\": a byte value (0..255) or inc[:START]\n",
			pattern != NULL ? pattern : "");
		return -EINVAL;
	}
	/* The engine writes MRs on the forwarding lcore (WRITE, READ
	 * responses, receives): read and write them under its lock. */
	LOCK();
	if (op == 'f') {
		for (uint64_t i = 0; i < len; i++)
			m->buf[off + i] = inc ? (uint8_t)(v + i) : v;
		fprintf(out, "MR %u: %" PRIu64 " bytes at offset %" PRIu64 " filled with %s\n", id,
			len, off, pattern);
	} else if (op == 'c') {
		uint64_t i;

		for (i = 0; i < len; i++)
			if (m->buf[off + i] != (inc ? (uint8_t)(v + i) : v))
				break;
		if (i == len) {
			fprintf(out, "MR %u: %" PRIu64 " bytes at offset %" PRIu64 " match %s\n", id,
				len, off, pattern);
		} else {
			fprintf(out, "MR %u: mismatch at offset %" PRIu64 ": 0x%02x, %s wants 0x%02x\n",
				id, off + i, m->buf[off + i], pattern,
				(uint8_t)(inc ? (uint8_t)(v + i) : v));
			rc = -EBADMSG;
		}
	} else {
		if (len > 256)
			len = 256;
		for (uint64_t i = 0; i < len; i += 16) {
			fprintf(out, "%08" PRIx64 ":", off + i);
			for (uint64_t k = i; k < i + 16 && k < len; k++)
				fprintf(out, " %02x", m->buf[off + k]);
			fputc('\n', out);
		}
	}
	UNLOCK();
	return rc;
}

/* ---------------------------------------------------------------- QPs */

int
rk_tp_qp_create(FILE *out, uint16_t port, enum rk_qp_type type)
{
	struct rk_qp_init_attr ia = {
		.qp_type = type, .sq_sig_all = 1,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .port_num = 1 };
	int mask = RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT, rc = -ENOMEM;
	struct rk_tp_rdma_dev *d;
	struct tp_qp *q;
	unsigned int id;

	if (!rk_tp_port_valid(port, out))
		return -EINVAL;
	for (id = 0; id < RK_TP_MAX_QPS && qps[id].qp != NULL; id++)
		;
	if (id == RK_TP_MAX_QPS) {
		fprintf(out, "No room for another QP (at most %u)\n", RK_TP_MAX_QPS);
		return -ENOSPC;
	}
	q = &qps[id];
	mask |= rk_tp_qp_init_attr(type, &a);
	LOCK();
	d = rk_tp_rdma_dev(port, true, out);
	if (d == NULL) {
		UNLOCK();
		return -ENODEV;
	}
	q->cq = rk_create_cq(d->ctx, 256, NULL);
	ia.send_cq = ia.recv_cq = q->cq;
	q->qp = q->cq != NULL ? rk_create_qp(d->pd, &ia) : NULL;
	if (q->qp != NULL)
		rc = rk_modify_qp(q->qp, &a, mask);
	else
		rc = -errno;
	if (rc != 0) {
		if (q->qp != NULL)
			rk_destroy_qp(q->qp);
		if (q->cq != NULL)
			rk_destroy_cq(q->cq);
		memset(q, 0, sizeof(*q));
	}
	UNLOCK();
	if (rc != 0) {
		fprintf(out, "Cannot create a %s QP on port %u: %s\n", rk_tp_qp_type_name(type), port,
			strerror(-rc));
		return rc;
	}
	q->port = port;
	q->peer = PEER_NONE;
	if (!seeded) {
		srand48((long)(rte_get_timer_cycles() ^ (uint64_t)getpid()));
		seeded = true;
	}
	q->psn = (uint32_t)lrand48() & 0xffffff;
	fprintf(out, "QP %u: port %u %s, QPN 0x%06x, PSN 0x%06x, INIT\n", id, port,
		rk_tp_qp_type_name(type), q->qp->qp_num, q->psn);
	return (int)id;
}

int
rk_tp_qp_connect(FILE *out, unsigned int id, unsigned int peer)
{
	struct tp_qp *q = qp_get(out, id), *r = q != NULL ? qp_get(out, peer) : NULL;
	struct rk_tp_rdma_dev *d;
	struct rk_app_qp_path p = { 0 };
	const char *state = "RTR";
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
	enum rk_mtu m1, m2;
	int rc;

	if (r == NULL)
		return -EINVAL;
	if (q->qp->qp_type != r->qp->qp_type) {
		fprintf(out, "QP %u is %s, QP %u %s: connect QPs of one type\n", id,
			rk_tp_qp_type_name(q->qp->qp_type), peer, rk_tp_qp_type_name(r->qp->qp_type));
		return -EINVAL;
	}
	if (q->peer >= 0) {
		fprintf(out, "QP %u is connected already (to QP %d)\n", id, q->peer);
		return -EISCONN;
	}
	m1 = rk_tp_rdma_path_mtu(q->port);
	m2 = rk_tp_rdma_path_mtu(r->port);
	LOCK();
	d = rk_tp_rdma_dev(r->port, false, out);
	memcpy(gid + 12, d->ip, 4);
	p.mtu = m1 < m2 ? m1 : m2;
	p.dest_qpn = r->qp->qp_num;
	p.rq_psn = r->psn;
	p.sq_psn = q->psn;
	p.dmac = d->mac;
	p.dgid = gid;
	p.uc = q->qp->qp_type == RK_QPT_UC;
	p.max_dest_rd_atomic = 16;
	p.max_rd_atomic = 16;
	p.min_rnr_timer = 12;           /* 0.64 ms (IBTA Vol1 table 45) */
	p.timeout = 14;                 /* 4.096 us * 2^14: 67 ms */
	p.retry_cnt = 7;
	p.rnr_retry = 7;
	if (q->qp->qp_type != RK_QPT_UD) {
		rc = rk_app_qp_connect(q->qp, &p, &state);
	} else {
		/* UD: RTR and RTS carry no peer; the address handle does. */
		struct rk_qp_attr a = { .qp_state = RK_QPS_RTR };
		struct rk_ah_attr ah = { 0 };

		rc = rk_modify_qp(q->qp, &a, RK_QP_STATE);
		if (rc == 0) {
			state = "RTS";
			memset(&a, 0, sizeof(a));
			a.qp_state = RK_QPS_RTS;
			a.sq_psn = q->psn;
			rc = rk_modify_qp(q->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN);
		}
		memcpy(ah.dmac, d->mac, 6);
		memcpy(ah.dip, gid, 16);
		if (rc == 0 && (q->ah = rk_create_ah(q->qp->pd, &ah)) == NULL) {
			state = "an address handle";
			rc = -errno;
		}
	}
	UNLOCK();
	if (rc != 0) {
		fprintf(out, "QP %u: cannot move to %s: %s\n", id, state, strerror(-rc));
		return rc;
	}
	q->peer = (int)peer;
	q->peer_qpn = r->qp->qp_num;
	fprintf(out, "QP %u: connected to QP %u (port %u, QPN 0x%06x, PSN 0x%06x), path MTU %u, "
		"RTS\n", id, peer, r->port, r->qp->qp_num, r->psn, 128u << p.mtu);
	return 0;
}

int
rk_tp_mr_add_remote(FILE *out, uint16_t port, uint64_t va, uint32_t rkey)
{
	unsigned int id;

	for (id = 0; id < RK_TP_MAX_MRS && (mrs[id].mr != NULL || mrs[id].remote); id++)
		;
	if (id == RK_TP_MAX_MRS) {
		fprintf(out, "No room for another MR (at most %u)\n", RK_TP_MAX_MRS);
		return -ENOSPC;
	}
	mrs[id] = (struct tp_mr){ .port = port, .remote = true, .rva = va, .rrkey = rkey };
	fprintf(out, "MR %u: port %u, the peer's region at VA 0x%" PRIx64 ", R_Key 0x%08x\n", id,
		port, va, rkey);
	return (int)id;
}

int
rk_tp_mr_keys(FILE *out, unsigned int id, uint16_t *port, uint64_t *va, uint32_t *rkey,
	      uint64_t *len)
{
	struct tp_mr *m = mr_get(out, id);

	if (m == NULL)
		return -EINVAL;
	*port = m->port;
	*va = (uint64_t)(uintptr_t)m->buf;
	*rkey = m->mr->rkey;
	*len = m->mr->length;
	return 0;
}

int
rk_tp_qp_ends(FILE *out, unsigned int id, bool unconnected, uint16_t *port, uint32_t *qpn,
	      uint32_t *psn, uint64_t *posted)
{
	struct tp_qp *q = qp_get(out, id);

	if (q == NULL)
		return -EINVAL;
	*port = q->port;
	*qpn = q->qp->qp_num;
	*psn = q->psn;
	*posted = q->posted;
	if (q->qp->qp_type != RK_QPT_RC) {
		fprintf(out, "QP %u is %s: perftest's bw tools connect RC QPs\n", id,
			rk_tp_qp_type_name(q->qp->qp_type));
		return -EINVAL;
	}
	if (unconnected && q->peer != PEER_NONE) {
		fprintf(out, "QP %u was connected already: a QP connects once (\"qp create\" "
			"another)\n", id);
		return -EINVAL;
	}
	return 0;
}

int
rk_tp_qp_connect_remote(FILE *out, unsigned int id, const struct rk_app_qp_path *p)
{
	struct tp_qp *q = qp_get(out, id);
	const char *state = "RTR";
	int rc;

	if (q == NULL)
		return -EINVAL;
	if (q->peer != PEER_NONE) {
		fprintf(out, "QP %u is connected already\n", id);
		return -EISCONN;
	}
	LOCK();
	rc = rk_app_qp_connect(q->qp, p, &state);
	UNLOCK();
	if (rc != 0) {
		fprintf(out, "QP %u: cannot move to %s: %s\n", id, state, strerror(-rc));
		return rc;
	}
	q->peer = PEER_REMOTE;
	q->peer_qpn = p->dest_qpn;
	q->posted = 0;
	return 0;
}

void
rk_tp_qp_disconnect_remote(unsigned int id)
{
	struct rk_qp_attr a = { .qp_state = RK_QPS_ERR };

	if (id >= RK_TP_MAX_QPS || qps[id].qp == NULL || qps[id].peer != PEER_REMOTE)
		return;
	LOCK();
	(void)rk_modify_qp(qps[id].qp, &a, RK_QP_STATE);
	UNLOCK();
}

int
rk_tp_qp_init_attr(enum rk_qp_type type, struct rk_qp_attr *a)
{
	if (type == RK_QPT_UD) {
		a->qkey = RK_TP_QKEY;
		return RK_QP_QKEY;
	}
	/* UC: no READ or atomics (IBTA Vol1 9.7.3, table 38's UC column) */
	a->qp_access_flags = type == RK_QPT_UC ? RK_ACCESS_REMOTE_WRITE :
			     RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC;
	return RK_QP_ACCESS_FLAGS;
}

void
rk_tp_qp_show(FILE *out)
{
	unsigned int n = 0;

	for (unsigned int id = 0; id < RK_TP_MAX_QPS; id++) {
		struct tp_qp *q = &qps[id];
		struct rk_qp_attr a;

		if (q->qp == NULL)
			continue;
		memset(&a, 0, sizeof(a));
		LOCK();
		rk_query_qp(q->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_RQ_PSN, NULL);
		UNLOCK();
		fprintf(out, "QP %u: port %u %s, QPN 0x%06x, %s, first PSN 0x%06x, ", id, q->port,
			rk_tp_qp_type_name(q->qp->qp_type), q->qp->qp_num,
			a.qp_state < RTE_DIM(state_names) ? state_names[a.qp_state] : "?", q->psn);
		if (q->peer >= 0)
			fprintf(out, "peer QP %d (QPN 0x%06x)\n", q->peer, q->peer_qpn);
		else if (q->peer == PEER_REMOTE)
			fprintf(out, "remote QPN 0x%06x\n", q->peer_qpn);
		else
			fprintf(out, "not connected\n");
		n++;
	}
	if (n == 0)
		fprintf(out, "No QP (\"qp create <port> rc|uc|ud\" makes one)\n");
}

/* ------------------------------------------------------- post, poll */

static const char *
wr_name(enum rk_wr_opcode op)
{
	switch (op) {
	case RK_WR_RDMA_WRITE: return "RDMA_WRITE";
	case RK_WR_RDMA_READ: return "RDMA_READ";
	case RK_WR_ATOMIC_FETCH_AND_ADD: return "ATOMIC_FETCH_AND_ADD";
	case RK_WR_ATOMIC_CMP_AND_SWP: return "ATOMIC_CMP_AND_SWP";
	default: return "SEND";
	}
}

int
rk_tp_post(FILE *out, const struct rk_tp_post *p)
{
	struct tp_qp *q = qp_get(out, p->qp);
	struct tp_mr *m = q != NULL ? mr_get(out, p->mr) : NULL, *rm = NULL;
	bool remote = !p->recv && p->op != RK_WR_SEND;
	struct rk_sge sge;
	uint64_t wr_id;
	int rc;

	if (m == NULL || (remote && (rm = mr_find(out, p->rmr, true)) == NULL))
		return -EINVAL;
	if (rk_tp.forwarding && rk_tp.engine != &rk_tp_fwd_rdma) {
		fprintf(out, "The %s engine is forwarding on the ports: \"stop\", then "
			"\"set fwd rdma\" and \"start\"\n", rk_tp.engine->name);
		return -EBUSY;
	}
	if (m->port != q->port) {
		fprintf(out, "MR %u is on port %u, QP %u on port %u: use an MR of the QP's port\n",
			p->mr, m->port, p->qp, q->port);
		return -EINVAL;
	}
	if (p->off > m->mr->length || p->len > m->mr->length - p->off) {
		fprintf(out, "Bad range %" PRIu64 "+%u: MR %u holds %zu bytes\n", p->off, p->len,
			p->mr, m->mr->length);
		return -EINVAL;
	}
	if (!p->recv && q->peer == PEER_NONE) {
		fprintf(out, "QP %u is not connected (\"qp connect %u <peer>\")\n", p->qp, p->qp);
		return -ENOTCONN;
	}
	sge = (struct rk_sge){ (uint64_t)(uintptr_t)(m->buf + p->off), p->len, m->mr->lkey };
	LOCK();
	wr_id = next_wr_id;
	if (p->recv) {
		struct rk_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

		rc = rk_post_recv(q->qp, &wr, &bad);
	} else {
		struct rk_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
					 .opcode = p->op, .send_flags = RK_SEND_SIGNALED }, *bad;
		uint64_t raddr = rm == NULL ? 0 : rm->remote ? rm->rva + p->roff :
				 (uint64_t)(uintptr_t)(rm->buf + p->roff);
		uint32_t rkey = rm == NULL ? 0 : rm->remote ? rm->rrkey : rm->mr->rkey;

		if (p->op == RK_WR_RDMA_WRITE || p->op == RK_WR_RDMA_READ) {
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rkey;
		} else if (p->op != RK_WR_SEND) {
			wr.wr.atomic.remote_addr = raddr;
			wr.wr.atomic.rkey = rkey;
			wr.wr.atomic.compare_add = p->add;
			wr.wr.atomic.swap = p->swap;
		} else if (q->qp->qp_type == RK_QPT_UD) {
			wr.wr.ud.ah = q->ah;
			wr.wr.ud.remote_qpn = q->peer_qpn;
			wr.wr.ud.remote_qkey = RK_TP_QKEY;
		}
		rc = rk_post_send(q->qp, &wr, &bad);
	}
	if (rc == 0) {
		next_wr_id++;
		q->posted += !p->recv;
	}
	UNLOCK();
	if (rc != 0) {
		fprintf(out, "QP %u: cannot post: %s\n", p->qp, strerror(-rc));
		return rc;
	}
	if (p->recv)
		fprintf(out, "QP %u: posted RECV wr_id %" PRIu64 ", %u bytes at MR %u+%" PRIu64 "\n",
			p->qp, wr_id, p->len, p->mr, p->off);
	else if (rm != NULL)
		fprintf(out, "QP %u: posted %s wr_id %" PRIu64 ", %u bytes, MR %u+%" PRIu64
			" <-> MR %u+%" PRIu64 " (VA 0x%" PRIx64 ", R_Key 0x%08x)\n", p->qp,
			wr_name(p->op), wr_id, p->len, p->mr, p->off, p->rmr, p->roff,
			rm->remote ? rm->rva + p->roff : (uint64_t)(uintptr_t)(rm->buf + p->roff),
			rm->remote ? rm->rrkey : rm->mr->rkey);
	else
		fprintf(out, "QP %u: posted SEND wr_id %" PRIu64 ", %u bytes from MR %u+%" PRIu64
			"\n", p->qp, wr_id, p->len, p->mr, p->off);
	return 0;
}

static const char *
wc_name(enum rk_wc_opcode op)
{
	switch (op) {
	case RK_WC_SEND: return "SEND";
	case RK_WC_RDMA_WRITE: return "RDMA_WRITE";
	case RK_WC_RDMA_READ: return "RDMA_READ";
	case RK_WC_COMP_SWAP: return "COMP_SWAP";
	case RK_WC_FETCH_ADD: return "FETCH_ADD";
	case RK_WC_RECV: return "RECV";
	case RK_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

int
rk_tp_poll_cq(FILE *out, unsigned int id, unsigned int want, unsigned int wait_ms)
{
	struct tp_qp *q = qp_get(out, id);
	uint64_t end = rte_get_timer_cycles() + (uint64_t)wait_ms * rte_get_timer_hz() / 1000;
	unsigned int got = 0;

	if (q == NULL)
		return -EINVAL;
	for (;;) {
		struct rk_wc wc[16];
		int n;

		LOCK();
		n = rk_poll_cq(q->cq, (int)RTE_DIM(wc), wc);
		UNLOCK();
		if (n < 0) {
			fprintf(out, "QP %u: poll_cq: %s\n", id, strerror(-n));
			return n;
		}
		for (int i = 0; i < n; i++) {
			fprintf(out, "QP %u: wc wr_id=%" PRIu64 " status=%s (%d) opcode=%s byte_len=%u",
				id, wc[i].wr_id, rk_wc_status_str(wc[i].status), (int)wc[i].status,
				wc_name(wc[i].opcode), wc[i].byte_len);
			if (q->qp->qp_type == RK_QPT_UD && (wc[i].opcode & RK_WC_RECV))
				fprintf(out, " src_qp=0x%06x", wc[i].src_qp);
			fputc('\n', out);
		}
		got += (unsigned int)n;
		if (got >= want || rte_get_timer_cycles() >= end)
			break;
		if (n == 0)
			rte_delay_us_sleep(200);
	}
	fprintf(out, "QP %u: %u completion(s)%s\n", id, got,
		got < want ? ", fewer than waited for" : "");
	return (int)got;
}

void
rk_tp_rdma_objs_free(void)
{
	LOCK();
	for (unsigned int id = 0; id < RK_TP_MAX_QPS; id++) {
		struct tp_qp *q = &qps[id];

		if (q->qp == NULL)
			continue;
		rk_destroy_qp(q->qp);
		if (q->ah != NULL)
			rk_destroy_ah(q->ah);
		rk_destroy_cq(q->cq);
		memset(q, 0, sizeof(*q));
	}
	for (unsigned int id = 0; id < RK_TP_MAX_MRS; id++) {
		struct tp_mr *m = &mrs[id];

		if (m->mr == NULL) {
			memset(m, 0, sizeof(*m));
			continue;
		}
		rk_dereg_mr(m->mr);
		free(m->buf);
		memset(m, 0, sizeof(*m));
	}
	UNLOCK();
}
