/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful mode (doc/gen.md, "Stateful mode"): N RC QPs through
 * lib/verbs on one DPDK port, the client's messages round-robin over them
 * with each window kept full, the data checked, the counters reported.
 * The out-of-band exchange (apps/common/oob.c) carries the hello of
 * lib/gen (rk_gen_hello.h), then the end of the run: the client says how
 * many WRITEs and SENDs completed, the responder what it received. The
 * command line: stateful_opts.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk_app.h"
#include "rk_app_oob.h"
#include "rk_app_rdma.h"
#include "rk_io_dpdk.h"
#include "stateful.h"
#include "stateful_run.h"

#define EXIT_BAD 2

/* Wait up to @p ms for the peer to close the connection @p fd. */
static void
wait_eof(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char b[64];

	while (poll(&p, 1, ms) > 0 && read(fd, b, sizeof(b)) > 0)
		;
}

int
rk_sf_main(int argc, char **argv, const struct rk_io_dpdk_args *da)
{
	static struct rk_sf_opts o;
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_device_attr attr = { 0 };
	struct rk_sf_run r = { .o = &o, .lfd = -1, .fd = -1 };
	int rc;

	rc = rk_sf_parse(&o, argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : EXIT_BAD;
	rk_app_signals();
	/* before the port: a bad path is the recording's fault, said so */
	if (!rk_app_recording_writable("rk-gen", o.record))
		return 1;
	rc = rk_app_eal_init("rk-gen", da);
	if (rc != 0)
		return rc;
	if (o.responder && (rc = rk_oob_listen_open(o.oob_port, &r.lfd)) != 0) {
		fprintf(stderr, "rk-gen: error: cannot listen on TCP port %u: %s\n", o.oob_port,
			strerror(-rc));
		return 1;
	}
	cfg.port_name = o.port;
	cfg.pcapng_path = o.record;
	cfg.snaplen = RK_IO_SNAP_HEADERS;
	memcpy(cfg.ip, o.ip, 4);
	cfg.ip4_count = o.ip_count;
	cfg.tx_drop_rate = o.tx_drop_rate;
	cfg.tx_drop_seed = o.seed;
	cfg.cancel = &rk_app_stop;
	/* --timeout bounds the wait for the link too (at least 1 ms, 0 is the default) */
	cfg.link_timeout_ms = o.timeout_s * 1e3 < 1 ? 1 : (uint32_t)(o.timeout_s * 1e3);
	cfg.nb_mbufs = 16383;
	cfg.tx_queue = 8192;
	r.io = rk_app_port_open("rk-gen", &cfg);
	if (r.io == NULL) {
		if (r.lfd >= 0)
			close(r.lfd);
		return 1;
	}
	rk_io_dpdk_mac(r.io, attr.mac);
	attr.ip[10] = attr.ip[11] = 0xff;
	memcpy(attr.ip + 12, o.ip, 4);
	attr.ip_version = 4;
	attr.max_qp = (o.responder ? o.max_qps : o.cfg.count) + 2;
	attr.max_mr = attr.max_qp + 16;
	attr.max_inflight_pkts = 1024;
	r.ctx = rk_open_device(&rk_io_dpdk_ops, r.io, &attr);
	if (r.ctx == NULL) {
		fprintf(stderr, "rk-gen: cannot open the RDMA device: %s\n", strerror(errno));
		rc = 1;
	} else
		rc = rk_sf_session(&r);
	/*
	 * The responder's port goes first, then its TCP connection: the
	 * client waits for that close before closing its own port (22.11's
	 * memif PMD can fault when the peer leaves while it still polls).
	 */
	if (!o.responder && r.fd >= 0)
		wait_eof(r.fd, 2000);
	if (r.lfd >= 0)
		close(r.lfd);
	rk_sf_destroy(&r.s);
	free(r.remote);
	for (uint32_t k = 0; r.peers != NULL && k < o.clients; k++) {
		rk_sf_destroy(&r.peers[k].s);
		free(r.peers[k].remote);
	}
	if (r.ctx != NULL)
		rk_close_device(r.ctx);
	if (rk_app_port_close("rk-gen", r.io, NULL) != 0)
		rc = 1;
	if (r.fd >= 0)
		close(r.fd);
	for (uint32_t k = 0; r.peers != NULL && k < o.clients; k++)
		if (r.peers[k].fd >= 0)
			close(r.peers[k].fd);
	free(r.peers);
	return rc;
}
