/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs commands for librte_cmdline: mr reg|show|fill|check|dump,
 * qp create|connect|show, post write|read|send|recv|atomic, poll cq,
 * show rdma. The keywords are tokens (Tab completes them); the arguments
 * after them are read here, so a bad one is one line naming it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

#include "rdma.h"
#include "rk_app_perftest.h"
#include "responder.h"
#include "testpmd.h"

#define TOK(s, st, field, words) \
	static cmdline_parse_token_string_t s = TOKEN_STRING_INITIALIZER(struct st, field, words)

#define MAX_ARGS 8

/* The words of @p line into @p w (at most MAX_ARGS); their number, or -1 past it. */
static int
split(char *line, char **w)
{
	char *save = NULL;
	int n = 0;

	for (char *t = strtok_r(line, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_ARGS)
			return -1;
		w[n++] = t;
	}
	return n;
}

bool
rk_tp_arg_num(const char *s, uint64_t max, const char *what, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || *v > max) {
		rk_tp_cmd_err("Bad %s \"%s\": a number, at most %" PRIu64 "\n", what, s, max);
		return false;
	}
	return true;
}

/* "<mr>[:<offset>]" into *id, *off. */
static bool
mr_at(const char *s, const char *what, unsigned int *id, uint64_t *off)
{
	char buf[64], *colon;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", s);
	colon = strchr(buf, ':');
	*off = 0;
	if (colon != NULL) {
		*colon = '\0';
		if (!rk_tp_arg_num(colon + 1, UINT32_MAX, "offset", off))
			return false;
	}
	if (!rk_tp_arg_num(buf, RK_TP_MAX_MRS - 1, what, &v))
		return false;
	*id = (unsigned int)v;
	return true;
}

static void
usage(const cmdline_parse_inst_t *inst)
{
	/* the help line's usage ends at ": " (a "host:port" inside it is no end) */
	const char *h = inst->help_str, *colon = strstr(h, ": ");

	rk_tp_cmd_err("Usage: %.*s\n", colon != NULL ? (int)(colon - h) : (int)strlen(h), h);
}

/* --------------------------------------------- mr reg|fill|check|dump */

struct cmd_args_result {
	cmdline_fixed_string_t word1, word2;
	cmdline_multi_string_t args;
};

TOK(tok_mr, cmd_args_result, word1, "mr");
TOK(tok_mr_reg, cmd_args_result, word2, "reg");
TOK(tok_args, cmd_args_result, args, TOKEN_STRING_MULTI);

static cmdline_parse_inst_t cmd_mr_reg;

static void
cmd_mr_reg_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w), access = 0;
	uint64_t port, bytes;

	(void)cl;
	(void)data;
	if (n < 2 || n > 3) {
		usage(&cmd_mr_reg);
	} else if (rk_tp_arg_num(w[0], RK_TP_MAX_PORTS - 1, "port", &port) &&
		   rk_tp_arg_num(w[1], RK_TP_MR_MAX_BYTES, "length", &bytes)) {
		char flags[64], *save = NULL;

		snprintf(flags, sizeof(flags), "%s", n == 3 ? w[2] : "write,read,atomic");
		for (char *f = strtok_r(flags, ",", &save); f != NULL;
		     f = strtok_r(NULL, ",", &save)) {
			if (strcmp(f, "write") == 0)
				access |= RK_ACCESS_REMOTE_WRITE;
			else if (strcmp(f, "read") == 0)
				access |= RK_ACCESS_REMOTE_READ;
			else if (strcmp(f, "atomic") == 0)
				access |= RK_ACCESS_REMOTE_ATOMIC;
			else if (strcmp(f, "none") != 0) {
				rk_tp_cmd_err("Bad access \"%s\": write,read,atomic (any of them) or none\n",
					      f);
				access = -1;
				break;
			}
		}
		if (access >= 0)
			rk_tp_cmd_rc(rk_tp_mr_reg(stdout, (uint16_t)port, bytes, access));
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_mr_reg = {
	.f = cmd_mr_reg_parsed,
	.help_str = "mr reg <port> <bytes> [write,read,atomic|none]: register zeroed memory "
		    "(remote access: default all three); prints its id, VA, L_Key, R_Key",
	.tokens = { (void *)&tok_mr, (void *)&tok_mr_reg, (void *)&tok_args, NULL },
};

TOK(tok_mr_data, cmd_args_result, word2, "fill#check#dump");

static cmdline_parse_inst_t cmd_mr_data;

static void
cmd_mr_data_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	char op = r->word2[0];
	uint64_t id, off, len;

	(void)cl;
	(void)data;
	if (n != (op == 'd' ? 3 : 4))
		rk_tp_cmd_err("Usage: mr %s <mr> <offset> <len>%s\n", r->word2,
			      op == 'd' ? "" : " <byte>|inc[:START]");
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_MRS - 1, "MR", &id) &&
		 rk_tp_arg_num(w[1], RK_TP_MR_MAX_BYTES, "offset", &off) &&
		 rk_tp_arg_num(w[2], RK_TP_MR_MAX_BYTES, "length", &len))
		rk_tp_cmd_rc(rk_tp_mr_data(stdout, op, (unsigned int)id, off, len, op == 'd' ? NULL : w[3]));
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_mr_data = {
	.f = cmd_mr_data_parsed,
	.help_str = "mr fill|check|dump <mr> <offset> <len> [<byte>|inc[:START]]: write a "
		    "pattern (a byte, or START, START+1, ...), compare with it, or hex-dump "
		    "(256 bytes at most)",
	.tokens = { (void *)&tok_mr, (void *)&tok_mr_data, (void *)&tok_args, NULL },
};

/* ------------------------------------------------- mr show, qp show */

struct cmd_show_result {
	cmdline_fixed_string_t what, show;
};
TOK(tok_sh_what, cmd_show_result, what, "mr#qp");
TOK(tok_sh_show, cmd_show_result, show, "show");

static void
cmd_show_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_show_result *r = res;

	(void)cl;
	(void)data;
	if (strcmp(r->what, "mr") == 0)
		rk_tp_mr_show(stdout);
	else
		rk_tp_qp_show(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_show = {
	.f = cmd_show_parsed,
	.help_str = "mr|qp show: the MRs (VA, length, keys, access) or the QPs (QPN, state, "
		    "PSN, peer)",
	.tokens = { (void *)&tok_sh_what, (void *)&tok_sh_show, NULL },
};

/* ------------------------------------------- qp create|connect */

TOK(tok_qp, cmd_args_result, word1, "qp");
TOK(tok_qp_create, cmd_args_result, word2, "create");
TOK(tok_qp_connect, cmd_args_result, word2, "connect");
TOK(tok_qp_disconnect, cmd_args_result, word2, "disconnect");

static cmdline_parse_inst_t cmd_qp_create, cmd_qp_connect, cmd_qp_disconnect;

/* A perftest step's wait: a server on a busy RNIC host answers well within it. */
#define PT_TIMEOUT_S 10.0

/* "<qp> perftest <host>[:<tcp-port>] <mr> write|read|atomic|send [rdma_cm]" */
static void
qp_connect_perftest(char **w, int n)
{
	static const char *const tools[] = { "write", "read", "atomic", "send" };
	char host[256], *colon;
	uint64_t qp, mr, port = RK_PT_TCP_PORT;
	unsigned int t;
	bool cm = n == 6 && strcmp(w[5], "rdma_cm") == 0;

	if (n == 6 && !cm) {
		rk_tp_cmd_err("Bad \"%s\" after the tool: rdma_cm (the server's -R) or nothing\n",
			      w[5]);
		return;
	}
	if (n != 5 && !cm) {
		usage(&cmd_qp_connect);
		return;
	}
	snprintf(host, sizeof(host), "%s", w[2]);
	colon = strrchr(host, ':');
	/* an IPv6 address has more than one: no port of ours then */
	if (colon != NULL && strchr(host, ':') != colon)
		colon = NULL;
	if (colon != NULL) {
		*colon = '\0';
		if (!rk_tp_arg_num(colon + 1, 65535, "TCP port", &port))
			return;
		if (port == 0) {
			rk_tp_cmd_err("Bad TCP port \"0\": 1..65535\n");
			return;
		}
	}
	for (t = 0; t < RTE_DIM(tools) && strcmp(w[4], tools[t]) != 0; t++)
		;
	if (t == RTE_DIM(tools)) {
		rk_tp_cmd_err("Bad perftest tool \"%s\": write, read, atomic or send (the server's "
			      "ib_<tool>_bw)\n", w[4]);
		return;
	}
	if (rk_tp_arg_num(w[0], RK_TP_MAX_QPS - 1, "QP", &qp) &&
	    rk_tp_arg_num(w[3], RK_TP_MAX_MRS - 1, "MR", &mr))
		rk_tp_cmd_rc(rk_tp_pt_connect(stdout, (unsigned int)qp, host, (uint16_t)port,
					      (unsigned int)mr, (enum rk_tp_pt_tool)t, cm,
					      PT_TIMEOUT_S));
}

static void
cmd_qp_create_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	uint64_t port;

	(void)cl;
	(void)data;
	if (n != 2)
		usage(&cmd_qp_create);
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_PORTS - 1, "port", &port)) {
		if (strcmp(w[1], "rc") == 0)
			rk_tp_cmd_rc(rk_tp_qp_create(stdout, (uint16_t)port, RK_QPT_RC));
		else if (strcmp(w[1], "uc") == 0)
			rk_tp_cmd_rc(rk_tp_qp_create(stdout, (uint16_t)port, RK_QPT_UC));
		else if (strcmp(w[1], "ud") == 0)
			rk_tp_cmd_rc(rk_tp_qp_create(stdout, (uint16_t)port, RK_QPT_UD));
		else
			rk_tp_cmd_err("Bad QP type \"%s\": rc, uc or ud\n", w[1]);
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_qp_create = {
	.f = cmd_qp_create_parsed,
	.help_str = "qp create <port> rc|uc|ud: a QP in INIT with a CQ of its own; prints its "
		    "id, QPN and first PSN",
	.tokens = { (void *)&tok_qp, (void *)&tok_qp_create, (void *)&tok_args, NULL },
};

static void
cmd_qp_connect_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	uint64_t a, b;

	(void)cl;
	(void)data;
	if (n >= 2 && strcmp(w[1], "perftest") == 0)
		qp_connect_perftest(w, n);
	else if (n != 2)
		usage(&cmd_qp_connect);
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_QPS - 1, "QP", &a) && rk_tp_arg_num(w[1], RK_TP_MAX_QPS - 1, "QP", &b))
		rk_tp_cmd_rc(rk_tp_qp_connect(stdout, (unsigned int)a, (unsigned int)b));
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_qp_connect = {
	.f = cmd_qp_connect_parsed,
	.help_str = "qp connect <qp> <peer-qp> | <qp> perftest <host>[:<tcp-port>] <mr> "
		    "write|read|atomic|send [rdma_cm]: <qp> to RTR and RTS toward another QP of "
		    "this program (one direction: connect the peer back too), or as the client of "
		    "a remote perftest bw server (its region becomes a remote MR); with rdma_cm "
		    "its -R: RDMA-CM on that port, <host> an IPv4 address",
	.tokens = { (void *)&tok_qp, (void *)&tok_qp_connect, (void *)&tok_args, NULL },
};

static void
cmd_qp_disconnect_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	uint64_t qp;

	(void)cl;
	(void)data;
	if (n != 1)
		usage(&cmd_qp_disconnect);
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_QPS - 1, "QP", &qp))
		rk_tp_cmd_rc(rk_tp_pt_disconnect(stdout, (unsigned int)qp, PT_TIMEOUT_S));
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_qp_disconnect = {
	.f = cmd_qp_disconnect_parsed,
	.help_str = "qp disconnect <qp>: end the perftest exchange of a QP connected by "
		    "\"qp connect <qp> perftest\" (barrier, report, \"done\"; rdma_cm: DREQs "
		    "instead of \"done\"); the QP goes to ERR",
	.tokens = { (void *)&tok_qp, (void *)&tok_qp_disconnect, (void *)&tok_args, NULL },
};

/* ------------------------------------ post write|read|send|recv|atomic */

TOK(tok_post, cmd_args_result, word1, "post");
TOK(tok_post_op, cmd_args_result, word2, "write#read#send#recv");
TOK(tok_post_atomic, cmd_args_result, word2, "atomic");

static void
cmd_post_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	struct rk_tp_post p = { 0 };
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	bool rdma = strcmp(r->word2, "write") == 0 || strcmp(r->word2, "read") == 0;
	uint64_t qp, len;

	(void)cl;
	(void)data;
	p.op = r->word2[0] == 'w' ? RK_WR_RDMA_WRITE : strcmp(r->word2, "read") == 0 ?
	       RK_WR_RDMA_READ : RK_WR_SEND;
	p.recv = strcmp(r->word2, "recv") == 0;
	if (n != (rdma ? 4 : 3))
		rk_tp_cmd_err("Usage: post %s <qp> <mr>[:<offset>] <len>%s\n", r->word2,
			      rdma ? " <remote-mr>[:<offset>]" : "");
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_QPS - 1, "QP", &qp) && mr_at(w[1], "MR", &p.mr, &p.off) &&
		 rk_tp_arg_num(w[2], RK_TP_MR_MAX_BYTES, "length", &len) &&
		 (!rdma || mr_at(w[3], "remote MR", &p.rmr, &p.roff))) {
		p.qp = (unsigned int)qp;
		p.len = (uint32_t)len;
		rk_tp_cmd_rc(rk_tp_post(stdout, &p));
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_post = {
	.f = cmd_post_parsed,
	.help_str = "post write|read|send|recv <qp> <mr>[:<offset>] <len> [<remote-mr>[:<offset>]]: "
		    "a work request (WRITE and READ name the remote MR, another QP's MR here)",
	.tokens = { (void *)&tok_post, (void *)&tok_post_op, (void *)&tok_args, NULL },
};

static void
cmd_post_atomic_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	struct rk_tp_post p = { .len = 8 };
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	bool cswap = n > 0 && strcmp(w[0], "cswap") == 0;
	uint64_t qp;

	(void)cl;
	(void)data;
	p.op = cswap ? RK_WR_ATOMIC_CMP_AND_SWP : RK_WR_ATOMIC_FETCH_AND_ADD;
	if (n < 1 || (!cswap && strcmp(w[0], "fadd") != 0) || n != (cswap ? 6 : 5))
		rk_tp_cmd_err("Usage: post atomic fadd <qp> <mr>[:<offset>] <remote-mr>[:<offset>] <add>, "
			      "or post atomic cswap <qp> <mr>[:<offset>] <remote-mr>[:<offset>] "
			      "<compare> <swap>\n");
	else if (rk_tp_arg_num(w[1], RK_TP_MAX_QPS - 1, "QP", &qp) && mr_at(w[2], "MR", &p.mr, &p.off) &&
		 mr_at(w[3], "remote MR", &p.rmr, &p.roff) &&
		 rk_tp_arg_num(w[4], UINT64_MAX, cswap ? "compare value" : "add value", &p.add) &&
		 (!cswap || rk_tp_arg_num(w[5], UINT64_MAX, "swap value", &p.swap))) {
		p.qp = (unsigned int)qp;
		rk_tp_cmd_rc(rk_tp_post(stdout, &p));
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_post_atomic = {
	.f = cmd_post_atomic_parsed,
	.help_str = "post atomic fadd|cswap <qp> <mr>[:<off>] <remote-mr>[:<off>] <add>|<compare> "
		    "<swap>: an 8-byte atomic on the remote MR (8-byte aligned), the old value "
		    "into the local MR",
	.tokens = { (void *)&tok_post, (void *)&tok_post_atomic, (void *)&tok_args, NULL },
};

/* ------------------------------------------------------- poll cq <qp> */

TOK(tok_poll, cmd_args_result, word1, "poll");
TOK(tok_poll_cq, cmd_args_result, word2, "cq");

static cmdline_parse_inst_t cmd_poll_cq;

static void
cmd_poll_cq_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	uint64_t qp, want = 0, ms = 0;

	(void)cl;
	(void)data;
	if (n < 1 || n > 3)
		usage(&cmd_poll_cq);
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_QPS - 1, "QP", &qp) &&
		 (n < 2 || rk_tp_arg_num(w[1], 256, "count", &want)) &&
		 (n < 3 || rk_tp_arg_num(w[2], 60000, "wait (ms)", &ms))) {
		if (n == 2)
			ms = 1000;
		rk_tp_cmd_rc(rk_tp_poll_cq(stdout, (unsigned int)qp, (unsigned int)want, (unsigned int)ms));
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_poll_cq = {
	.f = cmd_poll_cq_parsed,
	.help_str = "poll cq <qp> [<count> [<ms>]]: print the QP's completions (wr_id, status, "
		    "opcode, byte_len); with a count, wait for that many (up to <ms>, default 1000)",
	.tokens = { (void *)&tok_poll, (void *)&tok_poll_cq, (void *)&tok_args, NULL },
};

/* -------------------------------------------------- show rdma <port> */

TOK(tok_show, cmd_args_result, word1, "show");
TOK(tok_show_rdma, cmd_args_result, word2, "rdma");

static cmdline_parse_inst_t cmd_show_rdma;

static void
cmd_show_rdma_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_args_result *r = res;
	char *w[MAX_ARGS];
	int n = split(r->args, w);
	uint64_t port;

	(void)cl;
	(void)data;
	if (n != 1)
		usage(&cmd_show_rdma);
	else if (rk_tp_arg_num(w[0], RK_TP_MAX_PORTS - 1, "port", &port) &&
		 rk_tp_port_valid((uint16_t)port, stdout))
	{
		rk_tp_rdma_show(stdout, (uint16_t)port);
		if (rk_tp_resp.running && rk_tp_resp.port == port)
			rk_tp_resp_show(stdout);
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_show_rdma = {
	.f = cmd_show_rdma_parsed,
	.help_str = "show rdma <port>: the port's verbs device: frames handed to it and sent, "
		    "its counters (NIC names; rx_dropped_unknown_qp: frames no QP wanted); the "
		    "responder's on its port",
	.tokens = { (void *)&tok_show, (void *)&tok_show_rdma, (void *)&tok_args, NULL },
};

void *rk_tp_cmds_rdma[] = {
	&cmd_mr_reg, &cmd_mr_data, &cmd_show, &cmd_qp_create, &cmd_qp_connect, &cmd_qp_disconnect, &cmd_post,
	&cmd_post_atomic, &cmd_poll_cq, &cmd_show_rdma, NULL,
};
