/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A live DUT through its perftest bw servers (see dut_perftest.h): a fresh
 * connection and QP of the DUT per case, perftest's TCP exchange as the
 * client, the case's frames over a DPDK port.
 */
#include "dut_perftest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk_app.h"
#include "rk_app_oob.h"
#include "rk_app_perftest.h"
#include "rk_pkt.h"
#ifdef RK_CONFORM_LWIP
#include "dut_iwarp.h"
#endif

#define OUR_PSN 0xfffffeu       /* every case crosses the 24-bit wrap */
#define XCHG_TIMEOUT_S 10.0
#define ARP_TIMEOUT_MS 3000u

struct rk_cpt {
	struct rk_cpt_cfg cfg;
	struct rk_io_dpdk *io;
	struct rk_conform_env *env;
	struct rk_io_ops ops;           /* the port's, rx keeping the case's QP only */
	int fd;                         /* the running case's exchange, or -1 */
	uint32_t qpn;                   /* our QPN in the running case */
	uint32_t next_qpn;
	uint8_t dut_ip[4];
	bool dut_mac_known;
	uint64_t foreign;
	struct rk_ciw *iw;              /* the iWARP listener's connections, or NULL */
};

static const char *const verb_name[RK_CPT_VERBS] = { "write", "read", "send", "atomic" };
static const char *const tool_name[RK_CPT_VERBS] = {
	"ib_write_bw server", "ib_read_bw server", "ib_send_bw server", "ib_atomic_bw server",
};

/* Frames of the running case's QP only: a previous case's DUT QP may
 * still answer (a retransmitted NAK, a late READ response). */
static int
cpt_rx(void *io, uint8_t *buf, uint32_t cap)
{
	struct rk_cpt *p = io;
	int n = rk_io_dpdk_ops.rx(p->io, buf, cap);
	struct rk_pkt pkt;

	if (n <= 0)
		return n;
	if (rk_pkt_parse(&pkt, buf, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET, NULL) == 0 &&
	    pkt.bth_off != 0) {
		const uint8_t *bth = buf + pkt.bth_off;
		uint32_t dqp = (uint32_t)bth[5] << 16 | (uint32_t)bth[6] << 8 | bth[7];

		/* QP1 too: a CM case's MADs */
		if (dqp != p->qpn && dqp != 1) {
			p->foreign++;
			return 0;
		}
	}
	return n;
}

static int
cpt_tx(void *io, const uint8_t *frame, uint32_t len)
{
	return rk_io_dpdk_ops.tx(((struct rk_cpt *)io)->io, frame, len);
}

static uint64_t
cpt_now(void *io)
{
	return rk_io_dpdk_ops.now_ns(((struct rk_cpt *)io)->io);
}

static void
cpt_flush(void *io)
{
	if (rk_io_dpdk_ops.flush != NULL)
		rk_io_dpdk_ops.flush(((struct rk_cpt *)io)->io);
}

/* While a socket waits: answer ARP, keep TX moving. */
static int
serve(void *arg)
{
	rk_io_dpdk_service(((struct rk_cpt *)arg)->io);
	/* Ctrl-C ends a wait for the server at once. */
	return rk_app_stop ? -1 : 0;
}

/* One exchange step, the client's order: send, then receive as much. */
static int
xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct rk_cpt *p = ctx;

	if (rk_oob_send(p->fd, mine, len) != 0)
		return -1;
	return rk_oob_recv(p->fd, theirs, len, XCHG_TIMEOUT_S, serve, p) == 0 ? 0 : -1;
}

/* The MTU message's digit; 1024's for a size that is no path MTU. */
static char
mtu_digit(uint32_t bytes)
{
	enum rk_mtu m = rk_mtu_from_bytes(bytes);

	return (char)('0' + (m != 0 ? m : RK_MTU_1024));
}

/*
 * The path MTU we offer in the preamble (perftest takes the smaller of
 * the two): the case's own (a replay's recording's) when it asks for one
 * the port carries and --mtu was not given; else --mtu.
 */
static uint32_t
offer_mtu(const struct rk_cpt_cfg *cfg, const struct rk_conform_need *need)
{
	uint32_t max = cfg->mtu_max != 0 ? cfg->mtu_max : cfg->mtu;

	if (cfg->mtu_fixed || need->pmtu == 0 || rk_mtu_from_bytes(need->pmtu) == 0 ||
	    need->pmtu > max)
		return cfg->mtu;
	return need->pmtu;
}

/* The verb whose server gives what @p need asks; -1 with @p why when none does. */
static int
pick_verb(const struct rk_cpt *p, const struct rk_conform_need *need, char *why, size_t len)
{
	const uint8_t rd = RK_CONFORM_ACC_READ | RK_CONFORM_ACC_RO;
	uint8_t a = need->access & ~RK_CONFORM_ACC_NO_RECV;

	if (need->transport != RK_CONFORM_RC) {
		snprintf(why, len, "the perftest servers are reached as RC only");
		return -1;
	}
	if (p->cfg.one_server)
		return RK_CPT_WRITE;
	if (need->recvs > 0 && a != 0) {
		snprintf(why, len, "no perftest server posts receives and allows remote access");
		return -1;
	}
	if (need->recvs > 0)
		return RK_CPT_SEND;
	if ((a & rd) && (a & ~rd)) {
		snprintf(why, len, "no perftest server allows remote read and write or atomics");
		return -1;
	}
	if (a & rd)
		return RK_CPT_READ;
	if ((a & RK_CONFORM_ACC_ATOMIC) && (a & RK_CONFORM_ACC_WRITE)) {
		snprintf(why, len, "no perftest server allows remote write and atomics");
		return -1;
	}
	return a & RK_CONFORM_ACC_ATOMIC ? RK_CPT_ATOMIC : RK_CPT_WRITE;
}

/* The DUT's address from its GID (::ffff:a.b.c.d); its MAC by ARP. */
static int
learn_dut(struct rk_cpt *p, const uint8_t gid[16], char *why, size_t len)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	int rc;

	if (memcmp(gid, v4, 12) != 0) {
		snprintf(why, len, "the server's GID is not IPv4-mapped (RoCEv2 over IPv4 only)");
		return -EPROTO;
	}
	if (p->dut_mac_known && memcmp(p->dut_ip, gid + 12, 4) == 0)
		return 0;
	memcpy(p->dut_ip, gid + 12, 4);
	rc = rk_io_dpdk_resolve(p->io, p->dut_ip, p->env->dst_mac, ARP_TIMEOUT_MS);
	if (rc != 0) {
		snprintf(why, len, "no ARP answer from %u.%u.%u.%u: %s", p->dut_ip[0], p->dut_ip[1],
			 p->dut_ip[2], p->dut_ip[3], strerror(-rc));
		return rc;
	}
	memset(p->env->dst_ip, 0, 16);
	memcpy(p->env->dst_ip + 12, p->dut_ip, 4);
	p->dut_mac_known = true;
	return 0;
}

static void
cpt_teardown(void *ctx)
{
	struct rk_cpt *p = ctx;

	/* The server sees the exchange end and exits; its loop starts the next. */
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
#ifdef RK_CONFORM_LWIP
	rk_ciw_teardown(p->iw);
#endif
}

/*
 * A CM case: no exchange; the DUT's MAC by ARP, our QPN for the REQ (its
 * ACKs come there); no region known, the QP the DUT's CM connects.
 */
static int
cm_setup(struct rk_cpt *p, struct rk_conform_dut *dut, char *why, size_t why_len)
{
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
	int rc;

	memcpy(gid + 12, p->cfg.dut_ip, 4);
	if ((rc = learn_dut(p, gid, why, why_len)) != 0)
		return rc;
	p->qpn = p->next_qpn;
	p->next_qpn = p->next_qpn >= 0xfff0 ? 0x100 : p->next_qpn + 1;
	*dut = (struct rk_conform_dut){ .pmtu = p->cfg.mtu, .peer_qpn = p->qpn,
					.min_rnr_timer = p->cfg.min_rnr_timer };
	return 0;
}

static int
cpt_setup(void *ctx, const struct rk_conform_need *need, struct rk_conform_dut *dut,
	  char *why, size_t why_len)
{
	static const uint8_t access[RK_CPT_VERBS] = {
		[RK_CPT_WRITE] = RK_CONFORM_ACC_WRITE | RK_CONFORM_ACC_NO_RECV,
		/* Not RK_CONFORM_ACC_RO: read_bw's QP refuses WRITEs and atomics
		 * itself (NAK-INV, ATOM-QPACC-01) before its region is asked. */
		[RK_CPT_READ] = RK_CONFORM_ACC_READ | RK_CONFORM_ACC_NO_RECV,
		[RK_CPT_ATOMIC] = RK_CONFORM_ACC_ATOMIC | RK_CONFORM_ACC_NO_RECV,
	};
	struct rk_cpt *p = ctx;
	int v = need->transport == RK_CONFORM_CM ? 0 : pick_verb(p, need, why, why_len);
	const char *tool;
	uint32_t ours = offer_mtu(&p->cfg, need);
	char mtu[2] = { mtu_digit(ours), 0 }, rmtu[3], rver[RK_PT_VERSION_LEN + 1];
	char mine[RK_PT_KEY_LEN], theirs[RK_PT_KEY_LEN];
	struct rk_pt_dest local = { .out_reads = 16, .psn = OUR_PSN,
				    .gid = { [10] = 0xff, [11] = 0xff } }, remote;
	uint32_t cycle, len, pmtu;
	int rc;

	if (need->transport == RK_CONFORM_CM)
		return cm_setup(p, dut, why, why_len);
#ifdef RK_CONFORM_LWIP
	if (need->transport == RK_CONFORM_IWARP && p->iw != NULL)
		return rk_ciw_setup(p->iw, need, dut, why, why_len);
#endif
	if (v < 0)
		return -ENOTSUP;
	tool = p->cfg.one_server ? "the DUT's server" : tool_name[v];
	if (p->cfg.tcp_port[v] == 0) {
		snprintf(why, why_len, "no DUT server for %s (--serve %s=PORT)", verb_name[v],
			 verb_name[v]);
		return -ENOTSUP;
	}
	rc = rk_oob_connect(p->cfg.server, p->cfg.tcp_port[v], p->cfg.connect_timeout_s, &p->fd,
			    serve, p);
	if (rc != 0) {
		p->fd = -1;
		snprintf(why, why_len, "%s %s:%u: %s", tool, p->cfg.server,
			 p->cfg.tcp_port[v], rk_oob_strerror(rc));
		return -EIO;
	}
	p->qpn = p->next_qpn;
	p->next_qpn = p->next_qpn >= 0xfff0 ? 0x100 : p->next_qpn + 1;
	local.qpn = p->qpn;
	memcpy(local.gid + 12, p->cfg.ip, 4);
	if (rk_pt_preamble(xchg, p, mtu, rmtu, rver, &cycle) != 0) {
		snprintf(why, why_len, "%s: perftest's preamble failed", tool);
		goto fail;
	}
	rk_pt_keys_encode(&local, mine);
	if (xchg(p, mine, theirs, RK_PT_KEY_LEN) != 0 || rk_pt_keys_decode(&remote, theirs) != 0) {
		snprintf(why, why_len, "%s: no valid key message", tool);
		goto fail;
	}
	/* perftest's barriers: the keys again, twice (three times for send_bw,
	 * whose last comes once its receives are posted). */
	for (int i = 0; i < (v == RK_CPT_SEND ? 3 : 2); i++)
		if (xchg(p, mine, theirs, RK_PT_KEY_LEN) != 0) {
			snprintf(why, why_len, "%s: barrier %d failed", tool, i + 1);
			goto fail;
		}
	if ((rc = learn_dut(p, remote.gid, why, why_len)) != 0)
		goto fail;
	pmtu = rk_mtu_bytes((enum rk_mtu)(rmtu[0] - '0'));
	if (pmtu == 0 || pmtu > ours)
		pmtu = ours;
	len = p->cfg.size > 4096 ? p->cfg.size : 4096;
	len = (len + 63) & ~63u;
	*dut = (struct rk_conform_dut){
		.qpn = remote.qpn, .epsn = OUR_PSN, .pmtu = pmtu,
		.va = remote.vaddr, .r_key = remote.rkey, .len = len,
		.recv_len = v == RK_CPT_SEND ? p->cfg.size : 0,
		.min_rnr_timer = p->cfg.min_rnr_timer, .access = access[v], .peer_qpn = p->qpn,
	};
	if (p->cfg.one_server) {
		/* rk-testpmd's responder: one region for every verb, receives posted. */
		dut->access = RK_CONFORM_ACC_WRITE | RK_CONFORM_ACC_READ | RK_CONFORM_ACC_ATOMIC;
		dut->recv_len = p->cfg.size;
		return 0;
	}
	return 0;
fail:
	cpt_teardown(p);
	return -EIO;
}

struct rk_cpt *
rk_cpt_create(const struct rk_cpt_cfg *cfg, struct rk_io_dpdk *io, struct rk_conform_env *env)
{
	struct rk_cpt *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->cfg = *cfg;
	p->io = io;
	p->env = env;
	p->fd = -1;
	p->next_qpn = 0x100;
	p->ops = (struct rk_io_ops){ .name = "perftest-dut", .tx = cpt_tx, .rx = cpt_rx,
				     .now_ns = cpt_now, .flush = cpt_flush };
	env->ops = &p->ops;
	env->io = p;
	env->ip_version = 4;
	rk_io_dpdk_mac(io, env->src_mac);
	memset(env->src_ip, 0, 16);
	memcpy(env->src_ip + 12, cfg->ip, 4);
	env->setup = cpt_setup;
	env->teardown = cpt_teardown;
	env->ctx = p;
	return p;
}

#ifdef RK_CONFORM_LWIP
static int
cpt_stream_write(void *ctx, const uint8_t *b, size_t n)
{
	return rk_ciw_write(((struct rk_cpt *)ctx)->iw, b, n);
}

static int
cpt_stream_read(void *ctx, uint8_t *b, size_t cap)
{
	return rk_ciw_read(((struct rk_cpt *)ctx)->iw, b, cap);
}

static const struct rk_conform_stream_ops cpt_stream = {
	.write = cpt_stream_write,
	.read = cpt_stream_read,
};

void
rk_cpt_attach_iwarp(struct rk_cpt *p, struct rk_ciw *w)
{
	p->iw = w;
	p->env->stream = &cpt_stream;
}
#endif

uint64_t
rk_cpt_foreign_frames(const struct rk_cpt *p)
{
	return p->foreign;
}

void
rk_cpt_destroy(struct rk_cpt *p)
{
	if (p == NULL)
		return;
	cpt_teardown(p);
#ifdef RK_CONFORM_LWIP
	rk_ciw_destroy(p->iw);
#endif
	free(p);
}
