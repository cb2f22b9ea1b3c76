/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gen engine's commands for librte_cmdline: load streams <file> (an
 * rk-gen stream file), show streams.
 */
#include <errno.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

#include "testpmd.h"

#define TOK(s, st, field, words) \
	static cmdline_parse_token_string_t s = TOKEN_STRING_INITIALIZER(struct st, field, words)

/* ------------------------------------------------- load streams <file> */

struct cmd_load_streams_result {
	cmdline_fixed_string_t load, streams, file;
};
TOK(tok_ls_load, cmd_load_streams_result, load, "load");
TOK(tok_ls_streams, cmd_load_streams_result, streams, "streams");
TOK(tok_ls_file, cmd_load_streams_result, file, NULL);

static void
cmd_load_streams_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_load_streams_result *r = res;
	char err[512];
	int rc;

	(void)cl;
	(void)data;
	rc = rk_tp_gen_load(r->file, err, sizeof(err));
	if (rc == -EINVAL)
		rk_tp_cmd_err("%s\n", err); /* "FILE:LINE: field 'x': reason", as rk-gen says it */
	else if (rc < 0)
		rk_tp_cmd_err("Cannot load streams: %s\n", err);
	else
		rk_tp_gen_show(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_load_streams = {
	.f = cmd_load_streams_parsed,
	.help_str = "load streams <file>: an rk-gen stream file (YAML) for the gen engine",
	.tokens = { (void *)&tok_ls_load, (void *)&tok_ls_streams, (void *)&tok_ls_file, NULL },
};

/* -------------------------------------------------------- show streams */

struct cmd_show_streams_result {
	cmdline_fixed_string_t show, streams;
};
TOK(tok_ss_show, cmd_show_streams_result, show, "show");
TOK(tok_ss_streams, cmd_show_streams_result, streams, "streams");

static void
cmd_show_streams_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	rk_tp_gen_show(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_show_streams = {
	.f = cmd_show_streams_parsed,
	.help_str = "show streams: the streams loaded for the gen engine",
	.tokens = { (void *)&tok_ss_show, (void *)&tok_ss_streams, NULL },
};

void *rk_tp_cmds_gen[] = {
	&cmd_load_streams, &cmd_show_streams, NULL,
};
