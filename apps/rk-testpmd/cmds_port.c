/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port commands for librte_cmdline: port start|stop, show port
 * info|stats|xstats, set ip|vlan|mtu, pcap start|stop, show counters.
 * A port is a number or "all".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_etheraddr.h>
#include <cmdline_parse_ipaddr.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_common.h>
#include <rte_cycles.h>

#include "testpmd.h"

#define TOK(s, st, field, words) \
	static cmdline_parse_token_string_t s = TOKEN_STRING_INITIALIZER(struct st, field, words)

/* "all" (-1) or a port number; -2 and a line on stdout when neither. */
static int
port_arg(const char *s)
{
	char *end;
	unsigned long v;

	if (strcmp(s, "all") == 0)
		return -1;
	v = strtoul(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v >= RK_TP_MAX_PORTS || !rk_tp_port_valid((uint16_t)v, stdout)) {
		if (*end != '\0' || *s == '\0')
			rk_tp_cmd_err("Bad port \"%s\": a number or all\n", s);
		else if (v >= RK_TP_MAX_PORTS)
			rk_tp_cmd_err("Invalid port %s\n", s);
		return -2;
	}
	return (int)v;
}

/* Run fn on the port named, or on every port present. */
static void
each_port(const char *which, void (*fn)(uint16_t))
{
	int p = port_arg(which);

	if (p == -2)
		return;
	for (uint16_t i = 0; i < rk_tp.nb_ports; i++)
		if (rk_tp.ports[i].present && (p == -1 || p == i))
			fn(i);
	fflush(stdout);
}

/* ------------------------------------------------- port start|stop <p> */

struct cmd_port_result {
	cmdline_fixed_string_t port, action, which;
};
TOK(tok_port_port, cmd_port_result, port, "port");
TOK(tok_port_action, cmd_port_result, action, "start#stop");
TOK(tok_port_which, cmd_port_result, which, NULL);

static void
do_port_start(uint16_t p)
{
	int rc = rk_tp_port_start(p);

	if (rc < 0)
		rk_tp_cmd_err("Port %u: cannot start: %s\n", p, strerror(-rc));
	else
		printf("Port %u: started, link %s\n", p, rk_tp.ports[p].link_up ? "up" : "down");
}

static void
do_port_stop(uint16_t p)
{
	int rc = rk_tp_port_stop(p);

	if (rc < 0)
		rk_tp_cmd_err("Port %u: cannot stop: %s\n", p, strerror(-rc));
	else
		printf("Port %u: stopped\n", p);
}

static void
cmd_port_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_port_result *r = res;

	(void)cl;
	(void)data;
	if (rk_tp.forwarding) {
		rk_tp_cmd_err("Stop forwarding first (\"stop\")\n");
		return;
	}
	each_port(r->which, strcmp(r->action, "start") == 0 ? do_port_start : do_port_stop);
}

static cmdline_parse_inst_t cmd_port = {
	.f = cmd_port_parsed,
	.help_str = "port start|stop <port_id>|all: start or stop ports",
	.tokens = { (void *)&tok_port_port, (void *)&tok_port_action, (void *)&tok_port_which, NULL },
};

/* ------------------------------------- show port info|stats|xstats <p> */

struct cmd_show_port_result {
	cmdline_fixed_string_t show, port, what, which;
};
TOK(tok_sp_show, cmd_show_port_result, show, "show");
TOK(tok_sp_port, cmd_show_port_result, port, "port");
TOK(tok_sp_what, cmd_show_port_result, what, "info#stats#xstats");
TOK(tok_sp_which, cmd_show_port_result, which, NULL);

static void do_info(uint16_t p) { rk_tp_port_info(stdout, p); }
static void do_stats(uint16_t p) { rk_tp_port_stats(stdout, p); }
static void do_xstats(uint16_t p) { rk_tp_port_xstats(stdout, p); }

static void
cmd_show_port_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_show_port_result *r = res;

	(void)cl;
	(void)data;
	each_port(r->which, strcmp(r->what, "info") == 0 ? do_info
			    : strcmp(r->what, "stats") == 0 ? do_stats : do_xstats);
}

static cmdline_parse_inst_t cmd_show_port = {
	.f = cmd_show_port_parsed,
	.help_str = "show port info|stats|xstats <port_id>|all: port details, counters, driver xstats",
	.tokens = { (void *)&tok_sp_show, (void *)&tok_sp_port, (void *)&tok_sp_what,
		    (void *)&tok_sp_which, NULL },
};

/* ------------------------------------------------------- show counters */

struct cmd_show_counters_result {
	cmdline_fixed_string_t show, counters;
};
TOK(tok_sc_show, cmd_show_counters_result, show, "show");
TOK(tok_sc_counters, cmd_show_counters_result, counters, "counters");

static void
cmd_show_counters_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	rk_tp_show_counters(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_show_counters = {
	.f = cmd_show_counters_parsed,
	.help_str = "show counters: every port's counters under NIC (mlx5/rxe) names",
	.tokens = { (void *)&tok_sc_show, (void *)&tok_sc_counters, NULL },
};

/* ------------------------------------------------ set ip <port> <addr> */

struct cmd_set_ip_result {
	cmdline_fixed_string_t set, ip;
	uint16_t port;
	cmdline_ipaddr_t addr;
};
TOK(tok_si_set, cmd_set_ip_result, set, "set");
TOK(tok_si_ip, cmd_set_ip_result, ip, "ip");
static cmdline_parse_token_num_t tok_si_port = TOKEN_NUM_INITIALIZER(struct cmd_set_ip_result, port, RTE_UINT16);
static cmdline_parse_token_ipaddr_t tok_si_addr = TOKEN_IPV4_INITIALIZER(struct cmd_set_ip_result, addr);

static void
cmd_set_ip_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_set_ip_result *r = res;

	(void)cl;
	(void)data;
	const uint8_t *a = (const uint8_t *)&r->addr.addr.ipv4;

	if (!rk_tp_port_valid(r->port, stdout))
		return;
	/* a port's own address: RoCEv2 frames come from it, ARP answers for it */
	if ((a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0) || a[0] >= 224) {
		rk_tp_cmd_err("Bad IPv4 address %u.%u.%u.%u for a port: not a unicast address "
			      "(usage: set ip <port_id> <a.b.c.d>)\n", a[0], a[1], a[2], a[3]);
		return;
	}
	memcpy(rk_tp.ports[r->port].ip, &r->addr.addr.ipv4, 4);
	printf("Port %u: IPv4 %u.%u.%u.%u\n", r->port, rk_tp.ports[r->port].ip[0],
	       rk_tp.ports[r->port].ip[1], rk_tp.ports[r->port].ip[2], rk_tp.ports[r->port].ip[3]);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_set_ip = {
	.f = cmd_set_ip_parsed,
	.help_str = "set ip <port_id> <a.b.c.d>: the port's IPv4 address",
	.tokens = { (void *)&tok_si_set, (void *)&tok_si_ip, (void *)&tok_si_port,
		    (void *)&tok_si_addr, NULL },
};

/* ----------------------------------------- set eth-peer <port> <mac> */

struct cmd_set_peer_result {
	cmdline_fixed_string_t set, what;
	uint16_t port;
	struct rte_ether_addr mac;
};
TOK(tok_ep_set, cmd_set_peer_result, set, "set");
TOK(tok_ep_what, cmd_set_peer_result, what, "eth-peer");
static cmdline_parse_token_num_t tok_ep_port = TOKEN_NUM_INITIALIZER(struct cmd_set_peer_result, port, RTE_UINT16);
static cmdline_parse_token_etheraddr_t tok_ep_mac = TOKEN_ETHERADDR_INITIALIZER(struct cmd_set_peer_result, mac);

static void
cmd_set_peer_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_set_peer_result *r = res;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	(void)cl;
	(void)data;
	if (!rk_tp_port_valid(r->port, stdout))
		return;
	/* the QPs' frames go to one host: no group address (its I/G bit set) */
	if (r->mac.addr_bytes[0] & 1) {
		rte_ether_format_addr(mac, sizeof(mac), &r->mac);
		rk_tp_cmd_err("Bad peer MAC %s: a group (multicast or broadcast) address; give the "
			      "host's or its gateway's (usage: set eth-peer <port_id> <mac>)\n", mac);
		return;
	}
	memcpy(rk_tp.ports[r->port].eth_peer, r->mac.addr_bytes, 6);
	rk_tp.ports[r->port].eth_peer_set = true;
	rte_ether_format_addr(mac, sizeof(mac), &r->mac);
	printf("Port %u: peer MAC %s\n", r->port, mac);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_set_peer = {
	.f = cmd_set_peer_parsed,
	.help_str = "set eth-peer <port_id> <mac>: the MAC the port's QPs send to a remote "
		    "peer (\"qp connect ... perftest\"), as testpmd's",
	.tokens = { (void *)&tok_ep_set, (void *)&tok_ep_what, (void *)&tok_ep_port,
		    (void *)&tok_ep_mac, NULL },
};

/* ------------------------------------------- set vlan|mtu <port> <n> */

struct cmd_set_num_result {
	cmdline_fixed_string_t set, what;
	uint16_t port, value;
};
TOK(tok_sn_set, cmd_set_num_result, set, "set");
TOK(tok_sn_what, cmd_set_num_result, what, "vlan#mtu");
static cmdline_parse_token_num_t tok_sn_port = TOKEN_NUM_INITIALIZER(struct cmd_set_num_result, port, RTE_UINT16);
static cmdline_parse_token_num_t tok_sn_value = TOKEN_NUM_INITIALIZER(struct cmd_set_num_result, value, RTE_UINT16);

static void
cmd_set_num_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_set_num_result *r = res;
	int rc;

	(void)cl;
	(void)data;
	if (!rk_tp_port_valid(r->port, stdout))
		return;
	if (strcmp(r->what, "vlan") == 0) {
		if (r->value > 4094) {
			rk_tp_cmd_err("Bad VLAN %u: 0 (untagged) .. 4094\n", r->value);
			return;
		}
		rk_tp.ports[r->port].vlan = r->value;
		printf("Port %u: VLAN %u\n", r->port, r->value);
	} else if ((rc = rk_tp_port_set_mtu(r->port, r->value)) < 0) {
		rk_tp_cmd_err("Port %u: MTU %u refused: %s\n", r->port, r->value, strerror(-rc));
	} else {
		printf("Port %u: MTU %u\n", r->port, r->value);
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_set_num = {
	.f = cmd_set_num_parsed,
	.help_str = "set vlan|mtu <port_id> <n>: VLAN ID (0: untagged) or MTU in bytes",
	.tokens = { (void *)&tok_sn_set, (void *)&tok_sn_what, (void *)&tok_sn_port,
		    (void *)&tok_sn_value, NULL },
};

/* -------------------------------------- pcap start <port> <file> | stop */

struct cmd_pcap_result {
	cmdline_fixed_string_t pcap, action;
	uint16_t port;
	cmdline_fixed_string_t file;
};
TOK(tok_pc_pcap, cmd_pcap_result, pcap, "pcap");
TOK(tok_pc_start, cmd_pcap_result, action, "start");
TOK(tok_pc_stop, cmd_pcap_result, action, "stop");
static cmdline_parse_token_num_t tok_pc_port = TOKEN_NUM_INITIALIZER(struct cmd_pcap_result, port, RTE_UINT16);
TOK(tok_pc_file, cmd_pcap_result, file, NULL);

static void
cmd_pcap_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_pcap_result *r = res;
	int rc;

	(void)cl;
	(void)data;
	if (!rk_tp_port_valid(r->port, stdout))
		return;
	if (strcmp(r->action, "start") == 0) {
		if ((rc = rk_tp_pcap_start(r->port, r->file)) < 0)
			rk_tp_cmd_err("Port %u: cannot record to %s: %s\n", r->port, r->file,
				      rc == -EBUSY ? "already recording" : strerror(-rc));
		else
			printf("Port %u: recording received frames to %s\n", r->port, r->file);
	} else {
		bool was = rk_tp.ports[r->port].pcap != NULL;

		rk_tp_pcap_stop(r->port);
		printf(was ? "Port %u: recording stopped\n" : "Port %u: not recording\n", r->port);
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_pcap_start = {
	.f = cmd_pcap_parsed,
	.help_str = "pcap start <port_id> <file>: record the frames the port receives (pcap)",
	.tokens = { (void *)&tok_pc_pcap, (void *)&tok_pc_start, (void *)&tok_pc_port,
		    (void *)&tok_pc_file, NULL },
};

static cmdline_parse_inst_t cmd_pcap_stop = {
	.f = cmd_pcap_parsed,
	.help_str = "pcap stop <port_id>: end the port's recording",
	.tokens = { (void *)&tok_pc_pcap, (void *)&tok_pc_stop, (void *)&tok_pc_port, NULL },
};

void *rk_tp_cmds_port[] = {
	&cmd_port, &cmd_show_port, &cmd_show_counters, &cmd_set_ip, &cmd_set_peer, &cmd_set_num,
	&cmd_pcap_start, &cmd_pcap_stop, NULL,
};
