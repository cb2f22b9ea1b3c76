/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "qp connect <qp> perftest ..." and "qp disconnect <qp>": a QP of the
 * prompt as the client of a remote perftest bw server (an RNIC's or
 * rxe's ib_write_bw and the others), over perftest's TCP exchange
 * (apps/common/rk_app_perftest.h holds the messages). The server is
 * passive: between connect and disconnect the user posts what they
 * like at its region.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "rdma.h"
#include "rk_app_cm.h"
#include "rk_app_oob.h"
#include "rk_app_perftest.h"
#include "rk_app_qp.h"
#include "testpmd.h"

/* The exchange of each QP connected this way. */
static struct pt_conn {
	bool open;              /* the TCP connection fd (or RDMA-CM's cm) is up */
	int fd;
	struct rk_tp_pt_cm *cm; /* perftest -R's connections */
	enum rk_tp_pt_tool tool;
	struct rk_pt_dest local;
	uint64_t size;          /* the MR's bytes: the report's size */
	double timeout_s;
	FILE *out;
} conns[RK_TP_MAX_QPS];

static const char *const tool_names[] = { "write_bw", "read_bw", "atomic_bw", "send_bw" };

/* One step in the client's order: ours first (rk_pt_xchg_fn). */
static int
xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct pt_conn *c = ctx;
	int rc;

	if (c->cm != NULL)
		return rk_tp_pt_cm_xchg(c->cm, mine, theirs, len, c->timeout_s);
	rc = rk_oob_send(c->fd, mine, len);

	if (rc == 0)
		rc = rk_oob_recv(c->fd, theirs, len, c->timeout_s, NULL, NULL);
	if (rc != 0)
		fprintf(c->out, "perftest exchange: %s\n", rc == -ECONNRESET ?
			"the server closed the connection" : strerror(-rc));
	return rc == 0 ? 0 : -1;
}

/* Our key message, theirs into *@p d (may be NULL; -R: its last real one). */
static int
keys(struct pt_conn *c, struct rk_pt_dest *d)
{
	char bad[41];
	int rc;

	if (c->cm != NULL)
		return rk_pt_keys_bin_xchg(xchg, c, &c->local, d);
	rc = rk_pt_keys_xchg(xchg, c, &c->local, d, bad);

	if (rc == -EINVAL)
		fprintf(c->out, "perftest exchange: the server's key message is malformed: "
			"\"%s\"\n", bad);
	return rc == 0 ? 0 : -1;
}

/* Close the exchange; with RDMA-CM, DREQ both connections first. @return 0, or -1 after a line */
static int
drop(struct pt_conn *c)
{
	int rc = 0;

	if (c->cm != NULL) {
		rc = rk_tp_pt_cm_close(c->cm, 3.0);
		if (rc == -ETIMEDOUT)
			fprintf(c->out, "perftest -R server: no DREP to our DREQ within 3 s\n");
		else if (rc != 0)
			fprintf(c->out, "perftest -R server: cannot send the DREQ\n");
	} else if (c->open) {
		close(c->fd);
	}
	c->cm = NULL;
	c->open = false;
	return rc == 0 ? 0 : -1;
}

int
rk_tp_pt_connect(FILE *out, unsigned int id, const char *host, uint16_t tcp_port,
		 unsigned int mr, enum rk_tp_pt_tool tool, bool rdma_cm, double timeout_s)
{
	struct pt_conn *c;
	struct rk_app_qp_path p = { 0 };
	struct rk_tp_rdma_dev *d;
	struct rk_pt_dest remote = { 0 };
	uint8_t ip[4];
	uint16_t port, mport;
	uint32_t qpn, psn, rkey;
	uint64_t va, len, posted;
	char mtu[2], rmtu[3], rver[RK_PT_VERSION_LEN + 1];
	uint32_t cycle;
	enum rk_mtu pmtu;
	unsigned int rm;
	/* -R: two more, as perftest's first key messages may be zeros */
	int rc, mr_id, barriers = (tool == RK_TP_PT_SEND ? 3 : 2) + (rdma_cm ? 2 : 0);

	/* RDMA-CM addresses the server's RoCE GID: said before the QP's checks */
	if (rdma_cm && inet_pton(AF_INET, host, ip) != 1) {
		fprintf(out, "Bad perftest -R server \"%s\": an IPv4 address\n", host);
		return -EINVAL;
	}
	if (rk_tp_qp_ends(out, id, true, &port, &qpn, &psn, &posted) != 0 ||
	    rk_tp_mr_keys(out, mr, &mport, &va, &rkey, &len) != 0)
		return -EINVAL;
	c = &conns[id];
	if (c->open) {
		fprintf(out, "QP %u has a perftest exchange open already\n", id);
		return -EISCONN;
	}
	if (mport != port) {
		fprintf(out, "MR %u is on port %u, QP %u on port %u: use an MR of the QP's port\n",
			mr, mport, id, port);
		return -EINVAL;
	}
	if (!rk_tp.ports[port].eth_peer_set) {
		fprintf(out, "Port %u has no peer MAC: \"set eth-peer %u <mac>\" (the server's, or "
			"its gateway's)\n", port, port);
		return -EINVAL;
	}
	/* the server asks for our MAC by ARP: the rdma engine answers it */
	if (!rk_tp.forwarding || rk_tp.engine != &rk_tp_fwd_rdma) {
		fprintf(out, "The rdma engine is not forwarding: \"set fwd rdma\" and \"start\" "
			"first (it answers the server's ARP and carries the QP's frames)\n");
		return -EINVAL;
	}
	pmtu = rk_tp_rdma_path_mtu(port);
	*c = (struct pt_conn){ .tool = tool, .size = len, .timeout_s = timeout_s, .out = out };
	c->local = (struct rk_pt_dest){ .out_reads = 16, .qpn = qpn, .psn = psn, .rkey = rkey,
					.vaddr = va, .gid = { [10] = 0xff, [11] = 0xff } };
	/* the device's address: "set ip", or its default when none was set */
	rte_ticketlock_lock(&rk_tp_rdma_lock);
	d = rk_tp_rdma_dev(port, false, NULL);
	if (d != NULL)
		memcpy(c->local.gid + 12, d->ip, 4);
	rte_ticketlock_unlock(&rk_tp_rdma_lock);
	if (d == NULL) {
		fprintf(out, "Port %u has no verbs device\n", port);
		return -ENODEV;
	}
	if (rdma_cm) {
		rc = rk_tp_pt_cm_open(out, port, ip, tcp_port, pmtu, timeout_s, &c->cm);
		if (rc != 0) {
			(void)drop(c);  /* what was made of it */
			return rc;
		}
		c->open = true;
	} else {
		rc = rk_oob_connect(host, tcp_port, timeout_s, &c->fd, NULL, NULL);
		if (rc != 0) {
			fprintf(out, "perftest server %s:%u: %s\n", host, tcp_port,
				rk_oob_strerror(rc));
			return rc;
		}
		c->open = true;
	}
	mtu[0] = (char)('0' + pmtu);
	mtu[1] = '\0';
	rc = rk_pt_preamble(xchg, c, mtu, rmtu, rver, &cycle);
	if (rc == -EPROTO)
		fprintf(out, "perftest server %s:%u: version \"%.16s\" is not perftest 5.70 or "
			"later\n", host, tcp_port, rver);
	if (rc != 0)
		goto fail;
	if (sscanf(rmtu, "%u", &rm) != 1 || rm < RK_MTU_256 || rm > RK_MTU_4096) {
		fprintf(out, "perftest server: its MTU \"%.2s\" is not an IB MTU\n", rmtu);
		goto fail;
	}
	if (keys(c, &remote) != 0)
		goto fail;
	if (c->cm != NULL) {
		if (rk_tp_pt_cm_data(c->cm, qpn, psn, rm < pmtu ? (enum rk_mtu)rm : pmtu, timeout_s,
				     &p) != 0)
			goto fail;
	} else {
		p = (struct rk_app_qp_path){
		.mtu = rm < pmtu ? (enum rk_mtu)rm : pmtu, .dest_qpn = remote.qpn,
		.rq_psn = remote.psn, .sq_psn = psn, .dmac = rk_tp.ports[port].eth_peer,
		.dgid = remote.gid, .max_dest_rd_atomic = 16,
		.max_rd_atomic = (uint8_t)(remote.out_reads > 0 && remote.out_reads < 16 ?
					   remote.out_reads : 16),
		.min_rnr_timer = 12, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		};
	}
	if (rk_tp_qp_connect_remote(out, id, &p) != 0)
		goto fail;
	for (int i = 0; i < barriers; i++)
		if (keys(c, c->cm != NULL ? &remote : NULL) != 0)
			goto fail;
	if (c->cm != NULL && tool != RK_TP_PT_SEND && remote.rkey == 0 && remote.vaddr == 0) {
		fprintf(out, "perftest -R server %s:%u: no R_Key and VA in its key messages\n",
			host, tcp_port);
		goto fail;
	}
	if (c->cm != NULL)
		remote.psn = rk_tp_pt_cm_conn(c->cm, true)->conn.peer.psn & 0xffffff;
	fprintf(out, "QP %u: connected to perftest %s %s%s at %s:%u: QPN 0x%06x, PSN 0x%06x, GID "
		"::ffff:%u.%u.%u.%u, path MTU %u, RTS\n", id, rver, tool_names[tool],
		c->cm != NULL ? " -R" : "", host, tcp_port, remote.qpn, remote.psn, remote.gid[12],
		remote.gid[13], remote.gid[14], remote.gid[15], 128u << p.mtu);
	mr_id = tool == RK_TP_PT_SEND ? 0 : rk_tp_mr_add_remote(out, port, remote.vaddr,
								 remote.rkey);
	return mr_id < 0 ? mr_id : 0;
fail:
	rk_tp_qp_disconnect_remote(id);
	(void)drop(c);
	return -EPROTO;
}

int
rk_tp_pt_disconnect(FILE *out, unsigned int id, double timeout_s)
{
	struct pt_conn *c = id < RK_TP_MAX_QPS ? &conns[id] : NULL;
	struct rk_pt_report mine = { 0 }, theirs;
	uint16_t port;
	uint32_t qpn, psn;
	bool cm;
	int rc = 0;

	if (rk_tp_qp_ends(out, id, false, &port, &qpn, &psn, &mine.iters) != 0)
		return -EINVAL;
	if (c == NULL || !c->open) {
		fprintf(out, "QP %u has no perftest exchange (\"qp connect %u perftest ...\")\n", id,
			id);
		return -ENOTCONN;
	}
	c->out = out;
	c->timeout_s = timeout_s;
	mine.size = c->tool == RK_TP_PT_ATOMIC ? 8 : c->size;
	/* send_bw ends without the report (as perftest's client) */
	if (rc == 0 && c->tool != RK_TP_PT_SEND &&
	    (keys(c, NULL) != 0 || rk_pt_reports(xchg, c, &mine, &theirs) != 0))
		rc = -EPROTO;
	if (rc == 0 && (keys(c, NULL) != 0 ||
			(c->cm == NULL && rk_oob_send(c->fd, "done", 5) != 0)))
		rc = -EPROTO;
	cm = c->cm != NULL;
	rk_tp_qp_disconnect_remote(id);
	if (drop(c) != 0 && rc == 0)
		rc = -ETIMEDOUT;
	if (rc == 0)
		fprintf(out, "QP %u: perftest exchange ended (%" PRIu64 " iterations reported)%s, "
			"QP in ERR\n", id, mine.iters, cm ? ", both connections disconnected" : "");
	return rc;
}
