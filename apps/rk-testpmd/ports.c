/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-testpmd's ports: configuration (one RX and one TX queue each), start
 * and stop, MTU, link watch, statistics, xstats, the counter registry's
 * names, and a pcap recording of the frames received.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <pcap/pcap.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "rk_io_xstats.h"
#include "testpmd.h"

#define NB_DESC 1024

bool
rk_tp_port_valid(uint16_t port, FILE *out)
{
	if (port >= rk_tp.nb_ports || !rk_tp.ports[port].present) {
		fprintf(out, "Invalid port %u (ports: 0..%d)\n", port, (int)rk_tp.nb_ports - 1);
		rk_tp.cmd_failed = true;
		return false;
	}
	return true;
}

static int
port_configure(uint16_t port)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	/* Frames longer than an mbuf's room (the gen engine's jumbo streams)
	 * go out as chains where the driver takes them. */
	if (rte_eth_dev_info_get(port, &info) == 0 &&
	    (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		rk_tp.ports[port].multi_seg = true;
	}
	if ((rc = rte_eth_dev_configure(port, 1, 1, &conf)) < 0)
		return rc;
	if ((rc = rte_eth_rx_queue_setup(port, 0, NB_DESC, rte_eth_dev_socket_id(port), NULL,
					 rk_tp.pool)) < 0)
		return rc;
	return rte_eth_tx_queue_setup(port, 0, NB_DESC, rte_eth_dev_socket_id(port), NULL);
}

int
rk_tp_ports_init(uint64_t portmask)
{
	uint16_t p;
	unsigned int n = 0;

	RTE_ETH_FOREACH_DEV(p) {
		if (p >= RK_TP_MAX_PORTS)
			break;
		if (p + 1 > rk_tp.nb_ports)
			rk_tp.nb_ports = (uint16_t)(p + 1);
		if (!(portmask & (1ull << p)))
			continue;
		if (port_configure(p) < 0) {
			fprintf(stderr, "rk-testpmd: port %u: cannot configure\n", p);
			return -EIO;
		}
		rk_tp.ports[p].present = true;
		rte_eth_dev_get_mtu(p, &rk_tp.ports[p].mtu);
		n++;
	}
	return n == 0 ? -ENODEV : 0;
}

int
rk_tp_port_start(uint16_t port)
{
	struct rk_tp_port *pt = &rk_tp.ports[port];
	struct rte_eth_link link;
	int rc;

	if (pt->started)
		return 0;
	if ((rc = rte_eth_dev_start(port)) < 0)
		return rc;
	rte_eth_promiscuous_enable(port);
	pt->started = true;
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(port, &link);
	pt->link_up = link.link_status == RTE_ETH_LINK_UP;
	return 0;
}

int
rk_tp_port_stop(uint16_t port)
{
	struct rk_tp_port *pt = &rk_tp.ports[port];
	int rc;

	if (!pt->started)
		return 0;
	if ((rc = rte_eth_dev_stop(port)) < 0)
		return rc;
	pt->started = false;
	return 0;
}

int
rk_tp_port_set_mtu(uint16_t port, uint16_t mtu)
{
	int rc = rte_eth_dev_set_mtu(port, mtu);

	if (rc == 0)
		rk_tp.ports[port].mtu = mtu;
	return rc;
}

/* Report every started port whose link changed since the last look. */
void
rk_tp_check_links(FILE *out)
{
	for (uint16_t p = 0; p < rk_tp.nb_ports; p++) {
		struct rk_tp_port *pt = &rk_tp.ports[p];
		struct rte_eth_link link;
		bool up;

		if (!pt->present || !pt->started)
			continue;
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p, &link) != 0)
			continue;
		up = link.link_status == RTE_ETH_LINK_UP;
		if (up != pt->link_up)
			fprintf(out, "\nPort %u: link %s\n", p, up ? "up" : "down");
		pt->link_up = up;
	}
}

void
rk_tp_port_info(FILE *out, uint16_t port)
{
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	struct rk_tp_port *pt = &rk_tp.ports[port];
	char name[RTE_ETH_NAME_MAX_LEN] = "?";
	char macs[RTE_ETHER_ADDR_FMT_SIZE] = "?";

	rte_eth_dev_get_name_by_port(port, name);
	memset(&info, 0, sizeof(info));
	rte_eth_dev_info_get(port, &info);
	if (rte_eth_macaddr_get(port, &mac) == 0)
		rte_ether_format_addr(macs, sizeof(macs), &mac);
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(port, &link);
	fprintf(out, "********************* Infos for port %u *********************\n", port);
	fprintf(out, "Device name: %s\nDriver name: %s\nMAC address: %s\n", name,
		info.driver_name != NULL ? info.driver_name : "?", macs);
	fprintf(out, "Port state: %s\nLink status: %s\nLink speed: %u Mbps\n",
		pt->started ? "started" : "stopped",
		link.link_status == RTE_ETH_LINK_UP ? "up" : "down",
		link.link_speed);
	fprintf(out, "MTU: %u\n", pt->mtu);
	/* 0.0.0.0 would read as an address; the port has none until set ip */
	if ((pt->ip[0] | pt->ip[1] | pt->ip[2] | pt->ip[3]) == 0)
		fprintf(out, "IPv4 address: none (set ip %u <a.b.c.d>)\n", port);
	else
		fprintf(out, "IPv4 address: %u.%u.%u.%u\n", pt->ip[0], pt->ip[1], pt->ip[2],
			pt->ip[3]);
	fprintf(out, "VLAN: %u\n", pt->vlan);
	fprintf(out, "Recording: %s\n", pt->pcap != NULL ? "on" : "off");
}

void
rk_tp_port_stats(FILE *out, uint16_t port)
{
	struct rte_eth_stats st;

	memset(&st, 0, sizeof(st));
	rte_eth_stats_get(port, &st);
	fprintf(out, "  ######## NIC statistics for port %u ########\n", port);
	fprintf(out, "  RX-packets: %-12" PRIu64 " RX-missed: %-12" PRIu64 " RX-bytes: %" PRIu64 "\n",
		st.ipackets, st.imissed, st.ibytes);
	fprintf(out, "  RX-errors: %" PRIu64 "\n  RX-nombuf: %" PRIu64 "\n", st.ierrors, st.rx_nombuf);
	fprintf(out, "  TX-packets: %-12" PRIu64 " TX-errors: %-12" PRIu64 " TX-bytes: %" PRIu64 "\n",
		st.opackets, st.oerrors, st.obytes);
	fprintf(out, "  App: rx %" PRIu64 " forwarded %" PRIu64 " tx-dropped %" PRIu64 "\n",
		rk_tp.ports[port].rx, rk_tp.ports[port].fwd, rk_tp.ports[port].tx_dropped);
}

void
rk_tp_port_xstats(FILE *out, uint16_t port)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	int n = rte_eth_xstats_get_names(port, NULL, 0);

	fprintf(out, "###### NIC extended statistics for port %u\n", port);
	if (n <= 0)
		return;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names != NULL && vals != NULL && rte_eth_xstats_get_names(port, names, n) == n &&
	    rte_eth_xstats_get(port, vals, n) == n)
		for (int i = 0; i < n; i++)
			fprintf(out, "%s: %" PRIu64 "\n", names[vals[i].id].name, vals[i].value);
	free(names);
	free(vals);
}

/* The port counters under lib/io's registry names (mlx5/rxe style). */
void
rk_tp_show_counters(FILE *out)
{
	for (uint16_t p = 0; p < rk_tp.nb_ports; p++) {
		struct rk_io_port_xstats x;
		struct rte_eth_stats es;

		if (!rk_tp.ports[p].present)
			continue;
		memset(&x, 0, sizeof(x));
		memset(&es, 0, sizeof(es));
		rte_eth_stats_get(p, &es);
		x.st.rx_frames = es.ipackets;
		x.st.rx_bytes = es.ibytes;
		x.st.tx_frames = es.opackets;
		x.st.tx_bytes = es.obytes;
		x.st.tx_dropped_full = rk_tp.ports[p].tx_dropped;
		x.st.rx_too_long = es.ierrors;
		x.driver_tx_errors = es.oerrors;
		fprintf(out, "port %u:\n", p);
		for (unsigned int i = 0; i < rk_io_port_xstats.n; i++)
			fprintf(out, "  %-28s %" PRIu64 "\n", rk_io_port_xstats.desc[i].name,
				rk_xstat_value(&rk_io_port_xstats, i, &x));
	}
}

int
rk_tp_pcap_start(uint16_t port, const char *file)
{
	struct rk_tp_port *pt = &rk_tp.ports[port];
	pcap_t *h;
	pcap_dumper_t *d;

	if (pt->pcap != NULL)
		return -EBUSY;
	if ((h = pcap_open_dead(DLT_EN10MB, 65535)) == NULL)
		return -ENOMEM;
	errno = 0;
	if ((d = pcap_dump_open(h, file)) == NULL) {
		/* libpcap opens with fopen(): its errno says why (ENOENT, EISDIR, EACCES) */
		int err = errno != 0 ? errno : EIO;

		pcap_close(h);
		return -err;
	}
	pt->pcap_handle = h;
	__atomic_store_n(&pt->pcap, (struct pcap_dumper *)d, __ATOMIC_RELEASE);
	return 0;
}

void
rk_tp_pcap_stop(uint16_t port)
{
	struct rk_tp_port *pt = &rk_tp.ports[port];
	pcap_dumper_t *d = (pcap_dumper_t *)pt->pcap;

	if (d == NULL)
		return;
	/* The forwarding loop reads pt->pcap only while it runs: stop first. */
	__atomic_store_n(&pt->pcap, NULL, __ATOMIC_RELEASE);
	if (rk_tp.forwarding)
		rte_delay_ms(10);       /* a burst being written ends */
	pcap_dump_close(d);
	pcap_close(pt->pcap_handle);
	pt->pcap_handle = NULL;
}

void
rk_tp_pcap_frames(uint16_t port, struct rte_mbuf **m, uint16_t n)
{
	pcap_dumper_t *d = (pcap_dumper_t *)__atomic_load_n(&rk_tp.ports[port].pcap,
							     __ATOMIC_ACQUIRE);
	struct pcap_pkthdr h;
	struct timeval tv;

	if (d == NULL)
		return;
	gettimeofday(&tv, NULL);
	for (uint16_t i = 0; i < n; i++) {
		h.ts = tv;
		h.caplen = h.len = rte_pktmbuf_data_len(m[i]);
		pcap_dump((u_char *)d, &h, rte_pktmbuf_mtod(m[i], const u_char *));
	}
}
