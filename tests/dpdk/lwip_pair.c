/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One end of a TCP connection between two lwIP stacks on DPDK ports
 * (rk_io_lwip.h), for tests/dpdk/dpdk_test.sh mode lwip:
 *
 *   lwip_pair [EAL --] server IP PORT BYTES [PCAPNG]
 *   lwip_pair [EAL --] client IP PEER_IP PORT BYTES [PCAPNG]
 *
 * The client sends BYTES of a pattern, the server checks every byte and
 * answers with the count it checked (8 bytes, big endian); both exit 0
 * only when the count matches and nothing differed. Exit 1 on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>

#include "rk_io_lwip.h"
#include "rk_tcp_lwip.h"

#define TIMEOUT_NS 30000000000ull

static uint8_t
pat(uint64_t i)
{
	return (uint8_t)(i * 7 + (i >> 9));
}

static int
die(const char *what)
{
	fprintf(stderr, "lwip_pair: %s\n", what);
	return 1;
}

int
main(int argc, char **argv)
{
	struct rk_io_dpdk_args args;
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_io_dpdk *io;
	struct rk_io_lwip *l;
	struct rk_tcp *t = NULL;
	struct rk_lwip_listener *ls = NULL;
	uint64_t total, done = 0, bad = 0, until;
	uint8_t buf[16384];
	bool server;
	char **a;
	int n, rc = 1;

	rk_io_dpdk_split_args(argc, argv, "lwip_pair", &args);
	a = args.app_argv;
	n = args.app_argc;
	if (n < 5)
		return die("usage: server IP PORT BYTES [PCAPNG] | client IP PEER PORT BYTES [PCAPNG]");
	server = strcmp(a[1], "server") == 0;
	if (!server && n < 6)
		return die("client needs IP PEER PORT BYTES");
	if (inet_pton(AF_INET, a[2], cfg.ip) != 1)
		return die("bad IP");
	total = strtoull(a[server ? 4 : 5], NULL, 0);
	cfg.pcapng_path = n > (server ? 5 : 6) ? a[server ? 5 : 6] : NULL;
	if (rk_io_dpdk_eal_init(args.eal_argc, args.eal_argv) < 0)
		return die("EAL init failed");
	io = rk_io_dpdk_open(&cfg);
	if (io == NULL)
		return die(rk_io_dpdk_open_strerror(errno));
	l = rk_io_lwip_attach(io, a[2], "255.255.255.0");
	if (l == NULL) {
		rk_io_dpdk_close(io);
		return die("attach failed");
	}
	if (server) {
		ls = rk_tcp_lwip_listen((uint16_t)atoi(a[3]));
		if (ls == NULL)
			goto out;
	} else {
		t = rk_tcp_lwip_connect(a[3], (uint16_t)atoi(a[4]));
		if (t == NULL)
			goto out;
	}
	until = rk_io_dpdk_now_ns() + TIMEOUT_NS;
	while (rk_io_dpdk_now_ns() < until) {
		int work = rk_io_lwip_poll(l);
		long k;

		if (server) {
			if (t == NULL) {
				t = rk_tcp_lwip_accept(ls);
				continue;
			}
			if (done < total) {
				k = t->ops->recv(t, buf, sizeof(buf));
				if (k < 0)
					break;
				for (long i = 0; i < k; i++)
					bad += buf[i] != pat(done + (uint64_t)i);
				done += (uint64_t)k;
				if (done == total) {
					uint8_t c[8];

					for (int i = 0; i < 8; i++)
						c[i] = (uint8_t)((done - bad) >> (56 - 8 * i));
					/* 8 bytes always fit an empty send buffer; retried until taken. */
					while (t->ops->send(t, c, 8) == 0 && rk_io_dpdk_now_ns() < until)
						rk_io_lwip_poll(l);
				}
			} else {
				/* Wait for the client's FIN after it read the count. */
				k = t->ops->recv(t, buf, sizeof(buf));
				if (k < 0) {
					rc = bad == 0 ? 0 : 1;
					break;
				}
			}
		} else {
			if (done < total) {
				size_t want = total - done < sizeof(buf) ? (size_t)(total - done) : sizeof(buf);

				for (size_t i = 0; i < want; i++)
					buf[i] = pat(done + i);
				k = t->ops->send(t, buf, want);
				if (k < 0)
					break;
				done += (uint64_t)k;
			} else {
				uint8_t c[8];
				uint64_t v = 0;

				k = t->ops->recv(t, c, 8);
				if (k < 0)
					break;
				if (k == 8) {
					for (int i = 0; i < 8; i++)
						v = v << 8 | c[i];
					rc = v == total ? 0 : 1;
					printf("lwip_pair: %" PRIu64 " bytes sent, %" PRIu64 " checked by the peer\n",
					       total, v);
					break;
				}
			}
		}
		rk_io_dpdk_idle(io, work);
	}
	if (server)
		printf("lwip_pair: %" PRIu64 " bytes received, %" PRIu64 " differed\n", done, bad);
out:
	{
		const struct rk_io_lwip_stats *s = rk_io_lwip_stats(l);
		const struct rk_io_dpdk_stats *ps = rk_io_dpdk_stats(io);

		printf("lwip_pair: lwIP rx %" PRIu64 " tx %" PRIu64 " tx_errors %" PRIu64
		       "; port rx_arp %" PRIu64 " tx_arp %" PRIu64 " rx_other %" PRIu64
		       " dropped_injected %" PRIu64 "\n", s->rx_frames, s->tx_frames,
		       s->tx_errors, ps->rx_arp, ps->tx_arp, ps->rx_other, ps->tx_dropped_injected);
	}
	if (t != NULL) {
		t->ops->close(t);
		/* Let the FIN leave: the client closes first, so it polls less. */
		for (uint64_t e = rk_io_dpdk_now_ns() + (server ? 300000000ull : 100000000ull);
		     rk_io_dpdk_now_ns() < e;)
			rk_io_lwip_poll(l);
	}
	/*
	 * The server's port goes first, while the client no longer polls its
	 * own: DPDK 22.11's memif unmaps the rings when the peer leaves, under
	 * a reader still in rte_eth_rx_burst (a server crash at the end of a
	 * run, as rk-perf's teardown notes).
	 */
	if (!server) {
		struct timespec ts = { .tv_sec = 1, .tv_nsec = 500000000 };

		nanosleep(&ts, NULL);
	}
	if (ls != NULL)
		rk_tcp_lwip_listener_close(ls);
	rk_io_lwip_detach(l);
	if (rk_io_dpdk_close(io) != 0)
		rc = 1;
	if (rc != 0)
		fprintf(stderr, "lwip_pair: failed (%" PRIu64 " of %" PRIu64 " bytes)\n", done, total);
	return rc;
}
