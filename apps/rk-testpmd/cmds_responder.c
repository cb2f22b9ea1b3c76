/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's commands: responder start <port> [<tcp-port> [<size>]]
 * [rdma_cm] [uc|ud], responder stop, show responder, set responder clients <n>.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

#include "responder.h"
#include "rk_app_perftest.h"
#include "rdma.h"
#include "testpmd.h"

struct cmd_resp_result {
	cmdline_fixed_string_t word1, word2;
	cmdline_multi_string_t args;
};

static cmdline_parse_token_string_t tok_resp =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_result, word1, "responder");
static cmdline_parse_token_string_t tok_start =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_result, word2, "start");
static cmdline_parse_token_string_t tok_stop =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_result, word2, "stop");
static cmdline_parse_token_string_t tok_show =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_result, word1, "show");
static cmdline_parse_token_string_t tok_show_resp =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_result, word2, "responder");
static cmdline_parse_token_string_t tok_args =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_result, args, TOKEN_STRING_MULTI);

#define RESP_USAGE "responder start <port> [<tcp-port> [<size>]] [rdma_cm] [uc|ud]"

/* The words after the numbers: rdma_cm, uc, ud. */
static bool
is_word(const char *w)
{
	return strcmp(w, "rdma_cm") == 0 || strcmp(w, "uc") == 0 || strcmp(w, "ud") == 0;
}

static void
cmd_start_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_resp_result *r = res;
	char *w[6], *save = NULL;
	uint64_t port, tcp = RK_PT_TCP_PORT, size = 65536;
	bool cm = false, two_types = false;
	enum rk_qp_type type = RK_QPT_RC;
	int n = 0, nw, early = -1;

	(void)cl;
	(void)data;
	for (char *t = strtok_r(r->args, " \t", &save); t != NULL && n < 6;
	     t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	nw = n;
	/* perftest -R: the same port numbers, as its -p is the RDMA-CM port; -c UC|UD: uc, ud. */
	while (n > 0 && is_word(w[n - 1])) {
		if (strcmp(w[n - 1], "uc") == 0 || strcmp(w[n - 1], "ud") == 0) {
			two_types = two_types || type != RK_QPT_RC;
			type = w[n - 1][1] == 'c' ? RK_QPT_UC : RK_QPT_UD;
		} else {
			cm = true;
		}
		n--;
	}
	/* a word before the numbers would be taken for one of them ("Bad port \"ud\"") */
	for (int i = n - 1; i >= 0; i--)
		if (is_word(w[i]))
			early = i;
	if (n == 0 && nw > 0)
		rk_tp_cmd_err("Missing port before \"%s\": " RESP_USAGE "\n", w[0]);
	else if (early >= 0)
		rk_tp_cmd_err("Bad \"%s\" before \"%s\": rdma_cm, uc and ud come last: " RESP_USAGE "\n",
			      w[early], w[early + 1]);
	else if (n < 1 || n > 3)
		rk_tp_cmd_err("Usage: " RESP_USAGE "\n");
	else if (two_types)
		rk_tp_cmd_err("Bad \"uc\" with \"ud\": one QP type, as the clients' -c\n");
	else if (cm && type != RK_QPT_RC)
		rk_tp_cmd_err("Bad \"%s\" with \"rdma_cm\": %s clients over perftest's TCP exchange only\n",
			      type == RK_QPT_UC ? "uc" : "ud", rk_tp_qp_type_name(type));
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_PORTS - 1, "port", &port) &&
		 rk_tp_port_valid((uint16_t)port, stdout) &&
		 (n < 2 || rk_tp_arg_num(w[1], 65535, "TCP port", &tcp)) &&
		 (n < 3 || rk_tp_arg_num(w[2], RK_TP_RESP_MAX_SIZE, "size", &size))) {
		/* Port 0 would listen on a port the kernel picks, which no client knows. */
		if (tcp == 0)
			rk_tp_cmd_err("Bad %s \"0\": 1..65535\n", cm ? "RDMA-CM port" : "TCP port");
		else
			rk_tp_cmd_rc(rk_tp_resp_start(stdout, (uint16_t)port, (uint16_t)tcp,
						      (uint32_t)size, cm, type));
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_start = {
	.f = cmd_start_parsed,
	.help_str = "responder start <port> [<tcp-port> [<size>]] [rdma_cm] [uc|ud]: answer perftest "
		    "clients (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw; TCP exchange on "
		    "<tcp-port>, default 18515; with rdma_cm, their -R: RDMA-CM on that port), as "
		    "many at once as \"set responder clients\" allows, on the port's verbs device, messages up to <size> bytes "
		    "(default 65536); uc: their -c UC (write_bw, send_bw); ud: their -c UD (send_bw); -q N: "
		    "N QPs, up to 16 (TCP "
		    "exchange only); with \"set fwd responder\"",
	.tokens = { (void *)&tok_resp, (void *)&tok_start, (void *)&tok_args, NULL },
};

static cmdline_parse_inst_t cmd_start0 = {
	.f = cmd_start_parsed,
	.help_str = "responder start <port> [<tcp-port> [<size>]] [rdma_cm] [uc|ud]",
	.tokens = { (void *)&tok_resp, (void *)&tok_start, NULL },
};

static void
cmd_stop_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	rk_tp_resp_stop(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_stop = {
	.f = cmd_stop_parsed,
	.help_str = "responder stop: stop answering (the clients being served fail)",
	.tokens = { (void *)&tok_resp, (void *)&tok_stop, NULL },
};

static void
cmd_show_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	rk_tp_resp_show(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_show = {
	.f = cmd_show_parsed,
	.help_str = "show responder: the responder's clients (being served with their QPs, ok per "
		    "tool, failed, refused), ARP and CM counters",
	.tokens = { (void *)&tok_show, (void *)&tok_show_resp, NULL },
};

struct cmd_resp_set_result {
	cmdline_fixed_string_t word1, word2, word3, n;
};

static cmdline_parse_token_string_t tok_set =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_set_result, word1, "set");
static cmdline_parse_token_string_t tok_set_resp =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_set_result, word2, "responder");
static cmdline_parse_token_string_t tok_set_clients =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_set_result, word3, "clients");
static cmdline_parse_token_string_t tok_set_n =
	TOKEN_STRING_INITIALIZER(struct cmd_resp_set_result, n, NULL);

static void
cmd_set_clients_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_resp_set_result *r = res;
	uint64_t n;

	(void)cl;
	(void)data;
	char *end;

	errno = 0;
	n = strtoull(r->n, &end, 10);
	if (r->n[0] < '0' || r->n[0] > '9' || *end != '\0' || errno != 0 || n < 1 ||
	    n > RK_TP_RESP_CLIENTS)
		rk_tp_cmd_err("Bad number of clients \"%s\": 1..%u\n", r->n, RK_TP_RESP_CLIENTS);
	else
		rk_tp_resp_set_clients(stdout, (unsigned int)n);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_set_clients = {
	.f = cmd_set_clients_parsed,
	.help_str = "set responder clients <n>: the most clients the responder serves at once, "
		    "1..16 (default 16); more are refused",
	.tokens = { (void *)&tok_set, (void *)&tok_set_resp, (void *)&tok_set_clients,
		    (void *)&tok_set_n, NULL },
};

void *rk_tp_cmds_resp[] = { &cmd_start, &cmd_start0, &cmd_stop, &cmd_show, &cmd_set_clients,
			    NULL };
