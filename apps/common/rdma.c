/* SPDX-License-Identifier: BSD-3-Clause */
/* rk_app_rdma.h: the port, verbs objects, an rk_tcp connection as a stream. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "rk_app.h"
#include "rk_app_rdma.h"
#include "rk_tcp.h"

int
rk_app_start(const char *prog, int argc, char **argv, struct rk_io_dpdk_args *args,
	     int (*parse)(void *arg, int argc, char **argv), void *arg)
{
	long seed = (long)getpid() ^ (long)time(NULL);
	int rc;

	rk_io_dpdk_split_args(argc, argv, prog, args);
	rc = parse(arg, args->app_argc, args->app_argv);
	if (rc != 0)
		return rc;
	rk_app_signals();
	srand((unsigned int)seed);
	srand48(seed);
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	return 0;
}

int
rk_app_eal_init(const char *prog, const struct rk_io_dpdk_args *args)
{
	int rc = rk_io_dpdk_eal_init(args->eal_argc, args->eal_argv);

	if (rc >= 0)
		return 0;
	fprintf(stderr, "%s: DPDK EAL initialisation failed: %s\n", prog,
		rk_io_dpdk_eal_strerror(rc));
	return rk_io_dpdk_eal_usage_error(rc) ? 2 : 1;
}

struct rk_io_dpdk *
rk_app_port_open(const char *prog, const struct rk_io_dpdk_cfg *cfg)
{
	const char *name = cfg->port_name != NULL ? cfg->port_name : "0";
	struct rk_io_dpdk *io = rk_io_dpdk_open(cfg);
	int err = errno;

	if (io != NULL)
		return io;
	if (err == EINTR)
		fprintf(stderr, "%s: error: interrupted: port %s was still waiting for its peer\n",
			prog, name);
	else
		fprintf(stderr, "%s: cannot open port %s: %s\n", prog, name,
			rk_io_dpdk_open_strerror(err));
	errno = err;
	return NULL;
}

int
rk_app_roce_frame_check(struct rk_io_dpdk *io, uint32_t mtu, const char *mtu_opt, char *msg,
			size_t len)
{
	uint32_t frame = 14 + RK_ROCE_HDR_RESERVE + mtu;
	char why[192];

	if (rk_io_dpdk_check_frame(io, frame, why, sizeof(why)) == 0)
		return 0;
	snprintf(msg, len, "frames of %u bytes (%s %u): %s", frame, mtu_opt, mtu, why);
	return -1;
}

int
rk_app_port_close(const char *prog, struct rk_io_dpdk *io, const char *pcap_path)
{
	if (rk_io_dpdk_close(io) == 0)
		return 0;
	fprintf(stderr, "%s: error: the recording %s is incomplete\n", prog, pcap_path);
	return 1;
}

void
rk_app_release(const struct rk_app_verbs_objs *o)
{
	for (unsigned int i = 0; i < sizeof(o->qp) / sizeof(o->qp[0]); i++)
		if (o->qp[i] != NULL)
			rk_destroy_qp(o->qp[i]);
	if (o->ah != NULL)
		rk_destroy_ah(o->ah);
	for (unsigned int i = 0; i < sizeof(o->mr) / sizeof(o->mr[0]); i++)
		if (o->mr[i] != NULL)
			rk_dereg_mr(o->mr[i]);
	for (unsigned int i = 0; i < sizeof(o->cq) / sizeof(o->cq[0]); i++)
		if (o->cq[i] != NULL)
			rk_destroy_cq(o->cq[i]);
	if (o->pd != NULL)
		rk_dealloc_pd(o->pd);
}

static long
tcp_send(void *s, const uint8_t *b, size_t n)
{
	struct rk_tcp *t = s;

	return t->ops->send(t, b, n);
}

static long
tcp_recv(void *s, uint8_t *b, size_t cap)
{
	struct rk_tcp *t = s;

	return t->ops->recv(t, b, cap);
}

static void
tcp_close(void *s)
{
	struct rk_tcp *t = s;

	t->ops->close(t);
}

static uint64_t
tcp_now(void *env)
{
	(void)env;
	return rk_io_dpdk_now_ns();
}

const struct rk_stream_ops rk_app_tcp_stream_ops = {
	.name = "rk-app-tcp", .send = tcp_send, .recv = tcp_recv, .close = tcp_close,
	.now_ns = tcp_now,
};
