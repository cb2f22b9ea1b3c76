/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding commands for librte_cmdline: set fwd, start, stop, set
 * verbose, impair add|show|clear, help [<section>], quit; and the runner that reads
 * commands from the terminal or from a file through the same parser.
 */
/* cmdline_parse_check() is experimental in DPDK 22.11 */
#define ALLOW_EXPERIMENTAL_API
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_etheraddr.h>
#include <cmdline_parse_ipaddr.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "testpmd.h"

#define TOK(s, st, field, words) \
	static cmdline_parse_token_string_t s = TOKEN_STRING_INITIALIZER(struct st, field, words)

void
rk_tp_cmd_err(const char *fmt, ...)
{
	va_list ap;

	rk_tp.cmd_failed = true;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* ----------------------------------------------------- set fwd <engine> */

static char engine_words[256];          /* "io#mac#...", from rk_tp_engines[] */
static char fwd_help[512];

struct cmd_set_fwd_result {
	cmdline_fixed_string_t set, fwd, engine;
};
TOK(tok_sf_set, cmd_set_fwd_result, set, "set");
TOK(tok_sf_fwd, cmd_set_fwd_result, fwd, "fwd");
TOK(tok_sf_engine, cmd_set_fwd_result, engine, engine_words);

static void
cmd_set_fwd_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_set_fwd_result *r = res;

	(void)cl;
	(void)data;
	if (rk_tp.forwarding)
		rk_tp_cmd_err("Stop forwarding first (\"stop\")\n");
	else if (rk_tp_set_fwd(r->engine) != 0)
		rk_tp_cmd_err("Unknown engine %s\n", r->engine);
	else
		printf("Set %s packet forwarding mode\n", r->engine);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_set_fwd = {
	.f = cmd_set_fwd_parsed,
	.help_str = fwd_help,
	.tokens = { (void *)&tok_sf_set, (void *)&tok_sf_fwd, (void *)&tok_sf_engine, NULL },
};

/* ---------------------------------------------------------- start, stop */

struct cmd_word_result {
	cmdline_fixed_string_t word;
};
TOK(tok_start, cmd_word_result, word, "start");
TOK(tok_stop, cmd_word_result, word, "stop");
TOK(tok_quit, cmd_word_result, word, "quit");
TOK(tok_help, cmd_word_result, word, "help");

static void
cmd_start_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	rk_tp_cmd_rc(rk_tp_fwd_start(stdout));
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_start = {
	.f = cmd_start_parsed,
	.help_str = "start: forward with the engine set (Ctrl-C or stop ends it)",
	.tokens = { (void *)&tok_start, NULL },
};

static void
cmd_stop_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	rk_tp_fwd_stop(stdout);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_stop = {
	.f = cmd_stop_parsed,
	.help_str = "stop: end forwarding and print the forward statistics",
	.tokens = { (void *)&tok_stop, NULL },
};

static void
cmd_quit_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)data;
	rk_tp.quit = true;
	cmdline_quit(cl);
}

static cmdline_parse_inst_t cmd_quit = {
	.f = cmd_quit_parsed,
	.help_str = "quit: stop forwarding and the ports, and exit",
	.tokens = { (void *)&tok_quit, NULL },
};

/* ---------------------------------------------------- set verbose <0|1> */

struct cmd_verbose_result {
	cmdline_fixed_string_t set, verbose;
	uint8_t level;
};
TOK(tok_sv_set, cmd_verbose_result, set, "set");
TOK(tok_sv_verbose, cmd_verbose_result, verbose, "verbose");
static cmdline_parse_token_num_t tok_sv_level = TOKEN_NUM_INITIALIZER(struct cmd_verbose_result, level, RTE_UINT8);

static void
cmd_verbose_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_verbose_result *r = res;

	(void)cl;
	(void)data;
	if (r->level > 1) {
		rk_tp_cmd_err("Bad verbose level %u: 0 or 1\n", r->level);
	} else {
		printf("Change verbose level from %d to %u\n", rk_tp.verbose, r->level);
		rk_tp.verbose = r->level;
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_verbose = {
	.f = cmd_verbose_parsed,
	.help_str = "set verbose <0|1>: 1 decodes every frame received on one line",
	.tokens = { (void *)&tok_sv_set, (void *)&tok_sv_verbose, (void *)&tok_sv_level, NULL },
};

/* ------------------------------------------ impair add <rule>|show|clear */

struct cmd_impair_add_result {
	cmdline_fixed_string_t impair, add;
	cmdline_multi_string_t rule;
};
TOK(tok_ia_impair, cmd_impair_add_result, impair, "impair");
TOK(tok_ia_add, cmd_impair_add_result, add, "add");
TOK(tok_ia_rule, cmd_impair_add_result, rule, TOKEN_STRING_MULTI);

static void
cmd_impair_add_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_impair_add_result *r = res;
	char err[160];

	(void)cl;
	(void)data;
	if (rk_tp_impair_add(r->rule, err, sizeof(err)) != 0)
		rk_tp_cmd_err("Bad rule: %s\n", err);
	else
		printf("Rule %u added\n", rk_tp.nb_rules - 1);
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_impair_add = {
	.f = cmd_impair_add_parsed,
	.help_str = "impair add <key=value ...>: a rule: qp= opcode= psn= (N or N-M), "
		    "drop-every= loss= dup= corrupt= ecn-ce= delay= jitter= reorder=P:NS mtu= seed= "
		    "count= forge=nak-seq|nak-inv|nak-rae|nak-rop|rnr[:T]|cnp",
	.tokens = { (void *)&tok_ia_impair, (void *)&tok_ia_add, (void *)&tok_ia_rule, NULL },
};

struct cmd_impair_result {
	cmdline_fixed_string_t impair, what;
};
TOK(tok_ii_impair, cmd_impair_result, impair, "impair");
TOK(tok_ii_what, cmd_impair_result, what, "show#clear");

static void
cmd_impair_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_impair_result *r = res;

	(void)cl;
	(void)data;
	if (strcmp(r->what, "show") == 0) {
		rk_tp_impair_show(stdout);
	} else if (rk_tp.forwarding) {
		rk_tp_cmd_err("Stop forwarding first (\"stop\")\n");
	} else {
		rk_tp_impair_clear();
		printf("Rules cleared\n");
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_impair = {
	.f = cmd_impair_parsed,
	.help_str = "impair show|clear: the rules with their counters, or remove them all",
	.tokens = { (void *)&tok_ii_impair, (void *)&tok_ii_what, NULL },
};

/* ----------------------------------------------------------------- help */

static cmdline_parse_ctx_t ctx[64];

static void cmd_help_parsed(void *res, struct cmdline *cl, void *data);
static void cmd_help_section_parsed(void *res, struct cmdline *cl, void *data);

static cmdline_parse_inst_t cmd_help = {
	.f = cmd_help_parsed,
	.help_str = "help: this list",
	.tokens = { (void *)&tok_help, NULL },
};

struct cmd_help_section_result {
	cmdline_fixed_string_t help, section;
};
TOK(tok_hs_help, cmd_help_section_result, help, "help");
TOK(tok_hs_section, cmd_help_section_result, section, "port#fwd#gen#rdma#responder");

static cmdline_parse_inst_t cmd_help_section = {
	.f = cmd_help_section_parsed,
	.help_str = "help port|fwd|gen|rdma|responder: the commands of one group",
	.tokens = { (void *)&tok_hs_help, (void *)&tok_hs_section, NULL },
};

static void *cmds_fwd[] = {
	&cmd_set_fwd, &cmd_start, &cmd_stop, &cmd_verbose, &cmd_impair_add, &cmd_impair,
	&cmd_help, &cmd_help_section, &cmd_quit, NULL,
};

/* The command groups, in the order help lists them; "help <name>" one of them. */
static const struct {
	const char *name;
	void **cmds;
} sections[] = {
	{ "port", rk_tp_cmds_port }, { "fwd", cmds_fwd }, { "gen", rk_tp_cmds_gen },
	{ "rdma", rk_tp_cmds_rdma }, { "responder", rk_tp_cmds_resp },
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

/* A bare usage line (no ": what it does") is a variant's, listed already. */
static void
help_lines(void **cmds)
{
	for (unsigned int i = 0; cmds[i] != NULL; i++) {
		const cmdline_parse_inst_t *c = cmds[i];

		if (strchr(c->help_str, ':') != NULL)
			printf("  %s\n", c->help_str);
	}
}

/* The described commands whose usage begins with @p w: whether any did. */
static bool
help_word(const char *w)
{
	size_t n = strlen(w);
	bool any = false;

	for (unsigned int i = 0; i < NSECTIONS; i++)
		for (unsigned int k = 0; sections[i].cmds[k] != NULL; k++) {
			const cmdline_parse_inst_t *c = sections[i].cmds[k];

			if (strncmp(c->help_str, w, n) != 0 || c->help_str[n] != ' ' ||
			    strchr(c->help_str, ':') == NULL)
				continue;
			if (!any)
				printf("Commands beginning with %s:\n", w);
			printf("  %s\n", c->help_str);
			any = true;
		}
	fflush(stdout);
	return any;
}

static void
cmd_help_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)cl;
	(void)data;
	printf("Commands (Tab completes, ? lists the choices):\n");
	for (unsigned int i = 0; i < NSECTIONS; i++)
		help_lines(sections[i].cmds);
	fflush(stdout);
}

static void
cmd_help_section_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_help_section_result *r = res;

	(void)cl;
	(void)data;
	/* the token admits only the groups' names: one of them matches */
	for (unsigned int i = 0; i < NSECTIONS; i++)
		if (strcmp(r->section, sections[i].name) == 0) {
			printf("Commands of %s:\n", sections[i].name);
			help_lines(sections[i].cmds);
		}
	fflush(stdout);
}

/* ------------------------------------------------------------ catch-all */

/*
 * Last in the table, it takes any line no command took (librte_cmdline
 * would print a bare "Bad arguments" or "Command not found") and says in
 * one line what is wrong: a help group unknown, a command's bad arguments
 * with its usage, or a command unknown. Its one token takes the whole line,
 * but only a line the other commands refuse: librte_cmdline calls a line
 * two commands take ambiguous, and runs neither.
 */
static cmdline_parse_inst_t cmd_other;
static struct cmdline *other_cl;        /* the cmdline running: the check needs it */
static bool other_checking;             /* no line while the check runs (it asks this token too) */

struct cmd_other_result {
	cmdline_multi_string_t line;
};

static int
other_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res, unsigned int ressize)
{
	size_t len = strcspn(buf, "\r\n");
	char line[RK_TP_LINE_MAX + 2];
	bool taken;

	(void)tk;
	if (other_checking || other_cl == NULL || len == 0 || len >= sizeof(line))
		return -1;
	/* a whole line, newline included: without it the check sees half a line */
	snprintf(line, sizeof(line), "%.*s\n", (int)len, buf);
	other_checking = true;
	/* a line some command takes: its length (not CMDLINE_PARSE_SUCCESS); refused: < 0 */
	taken = cmdline_parse_check(other_cl, line) >= 0;
	other_checking = false;
	if (taken)
		return -1;
	if (res != NULL && ressize > len)
		snprintf(res, ressize, "%.*s", (int)len, buf);
	return (int)len;
}

static int
other_help(cmdline_parse_token_hdr_t *tk, char *buf, unsigned int size)
{
	(void)tk;
	snprintf(buf, size, "any other line");
	return 0;
}

static struct cmdline_token_ops other_ops = { .parse = other_parse, .get_help = other_help };
static cmdline_parse_token_hdr_t tok_other = { &other_ops, offsetof(struct cmd_other_result, line) };

/* Whether @p word is one of the '#'-separated choices of @p words. */
static bool
word_in(const char *word, const char *words)
{
	size_t n = strlen(word);

	for (const char *w = words;; w++) {
		size_t len = strcspn(w, "#");

		if (len == n && strncmp(w, word, n) == 0)
			return true;
		w += len;
		if (*w == '\0')
			return false;
	}
}

/*
 * The leading words of @p words[0..nw) that @p inst's fixed tokens take
 * ("set mtu" of "set mtu abc"), 0 when its first does not.
 */
static unsigned int
words_taken(const cmdline_parse_inst_t *inst, char words[][STR_TOKEN_SIZE], unsigned int nw)
{
	unsigned int k = 0;

	for (; k < nw && inst->tokens[k] != NULL; k++) {
		const cmdline_parse_token_string_t *t = (const void *)inst->tokens[k];

		if (t->hdr.ops != &cmdline_token_string_ops || t->string_data.str == NULL ||
		    t->string_data.str[0] == '\0' || !word_in(words[k], t->string_data.str))
			break;
	}
	return k;
}

/* The name of usage word @p k ("port_id" of "set mtu <port_id> <n>"), else "number". */
static const char *
usage_word(const char *h, unsigned int k)
{
	static char name[32];
	size_t len;

	for (; k > 0 && *h != '\0'; k--)
		h += strcspn(h, " ") + (h[strcspn(h, " ")] == ' ');
	len = strcspn(h, " :");
	/* a one-letter name ("<n>") says less than "number" */
	if (*h != '<' || len < 4 || h[len - 1] != '>' || len - 2 >= sizeof(name))
		return "number";
	snprintf(name, sizeof(name), "%.*s", (int)len - 2, h + 1);
	return name;
}

static uint64_t
num_max(const cmdline_parse_token_num_t *t)
{
	switch (t->num_data.type) {
	case RTE_UINT8: return UINT8_MAX;
	case RTE_UINT16: return UINT16_MAX;
	case RTE_UINT32: return UINT32_MAX;
	default: return UINT64_MAX;
	}
}

/*
 * The first of @p words[from..nw) that @p inst's MAC, IPv4 or number token
 * refuses, said in one line with the usage: true, or false when none does.
 */
static bool
bad_value(const cmdline_parse_inst_t *inst, char words[][STR_TOKEN_SIZE], unsigned int nw,
	  unsigned int from)
{
	const char *h = inst->help_str, *colon = strstr(h, ": ");
	int ulen = colon != NULL ? (int)(colon - h) : (int)strlen(h);

	for (unsigned int k = from; k < nw && inst->tokens[k] != NULL; k++) {
		cmdline_parse_token_hdr_t *tk = inst->tokens[k];
		const char *w = words[k];

		if (tk->ops->parse(tk, w, NULL, 0) >= 0)
			continue;
		if (tk->ops == &cmdline_token_etheraddr_ops)
			rk_tp_cmd_err("Bad MAC address \"%s\": not of the form aa:bb:cc:dd:ee:ff", w);
		else if (tk->ops == &cmdline_token_ipaddr_ops)
			rk_tp_cmd_err("Bad IPv4 address \"%s\": not of the form a.b.c.d", w);
		else if (tk->ops == &cmdline_token_num_ops)
			rk_tp_cmd_err("Bad %s \"%s\": a number, at most %" PRIu64, usage_word(h, k),
				      w, num_max((const cmdline_parse_token_num_t *)tk));
		else
			return false;
		printf(" (usage: %.*s)\n", ulen, h);
		return true;
	}
	return false;
}

static void
cmd_other_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_other_result *r = res;
	const cmdline_parse_inst_t *best = NULL;
	char words[4][STR_TOKEN_SIZE], *save = NULL;
	unsigned int nw = 0, most = 0;

	(void)cl;
	(void)data;
	for (char *w = strtok_r(r->line, " ", &save); w != NULL && nw < 4;
	     w = strtok_r(NULL, " ", &save))
		snprintf(words[nw++], sizeof(words[0]), "%.*s", STR_TOKEN_SIZE - 1, w);
	if (nw == 0)
		return;
	/* "help qp": the commands that begin with that word, whatever their group */
	if (strcmp(words[0], "help") == 0 && nw == 2 && help_word(words[1]))
		return;
	rk_tp.cmd_failed = true;
	if (strcmp(words[0], "help") == 0 && nw > 1) {
		/* "help port bogus": port is a group, the words after it are no topic */
		if (word_in(words[1], tok_hs_section.string_data.str)) {
			printf("help: no topic '");
			for (unsigned int k = 1; k < nw; k++)
				printf("%s%s", k > 1 ? " " : "", words[k]);
			printf("' (help takes one group:");
		} else {
			printf("help: no group '%s' (groups:", words[1]);
		}
		for (unsigned int i = 0; i < NSECTIONS; i++)
			printf(" %s", sections[i].name);
		printf(")\n");
		fflush(stdout);
		return;
	}
	/* the command whose fixed words take most of the line's; a described one first */
	for (unsigned int i = 0; ctx[i] != NULL && ctx[i] != (void *)&cmd_other; i++) {
		const cmdline_parse_inst_t *c = (const cmdline_parse_inst_t *)ctx[i];
		unsigned int k = words_taken(c, words, nw);

		if (k > most || (k == most && k > 0 && strchr(best->help_str, ':') == NULL &&
				 strchr(c->help_str, ':') != NULL)) {
			most = k;
			best = c;
		}
	}
	if (best == NULL) {
		printf("unknown command '%s' (help lists the commands)\n", words[0]);
	} else if (!bad_value(best, words, nw, most)) {
		printf("bad arguments for '");
		for (unsigned int k = 0; k < most; k++)
			printf("%s%s", k ? " " : "", words[k]);
		printf("': usage: %s\n", best->help_str);
	}
	fflush(stdout);
}

static cmdline_parse_inst_t cmd_other = {
	.f = cmd_other_parsed,
	.help_str = "an error saying what is wrong with it",
	.tokens = { &tok_other, NULL },
};

static void
build_ctx(void)
{
	unsigned int n = 0, len = 0;

	engine_words[0] = '\0';
	for (unsigned int i = 0; rk_tp_engines[i] != NULL; i++)
		len += (unsigned int)snprintf(engine_words + len, sizeof(engine_words) - len,
					      "%s%s", i ? "#" : "", rk_tp_engines[i]->name);
	snprintf(fwd_help, sizeof(fwd_help), "set fwd %s: the forwarding engine", engine_words);
	for (char *c = fwd_help + 8; *c != ':' && *c != '\0'; c++)
		if (*c == '#')
			*c = '|';
	for (unsigned int k = 0; k < NSECTIONS; k++)
		for (unsigned int i = 0; sections[k].cmds[i] != NULL; i++)
			ctx[n++] = sections[k].cmds[i];
	ctx[n++] = &cmd_other;
	ctx[n] = NULL;
}

/* A line that is a command: not blank, not a comment (librte_cmdline skips both). */
static bool
is_command(const char *line)
{
	line += strspn(line, " \t");
	return *line != '\0' && *line != '\r' && *line != '\n' && *line != '#';
}

/*
 * Run a command file (file != NULL), its commands counted in *nb_cmds, or
 * the prompt. The commands that failed (an error said), 0, or -1 when the
 * file cannot be read.
 */
int
rk_tp_cmdline_run(const char *file, bool interactive, unsigned int *nb_cmds)
{
	struct cmdline *cl;
	struct termios term;

	if (ctx[0] == NULL)
		build_ctx();
	if (file != NULL) {
		/* Line by line through cmdline_in(): a last line without its
		 * newline runs too, and nothing after "quit". Output to stdout:
		 * each command echoed with its answer or error. */
		FILE *f = fopen(file, "r");
		struct stat st;
		char *line = NULL;
		size_t cap = 0;
		unsigned int no = 0, failed = 0;
		bool counted;
		ssize_t got;
		int err = errno;

		if (f != NULL && (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode))) {
			fclose(f);
			f = NULL;
			err = EISDIR;
		}
		cl = f != NULL ? cmdline_new(ctx, "rk-testpmd> ", -1, STDOUT_FILENO) : NULL;
		other_cl = cl;
		if (cl == NULL) {
			if (f != NULL)
				fclose(f);
			fprintf(stderr, "rk-testpmd: cannot read command file %s: %s\n", file,
				strerror(f != NULL ? ENOMEM : err));
			return -1;
		}
		while (!rk_tp.quit && (got = getline(&line, &cap, f)) >= 0) {
			size_t len = strcspn(line, "\r\n");

			no++;
			counted = is_command(line);
			*nb_cmds += counted;
			/* The prompt's line buffer holds 512 bytes: a longer line
			 * would run as pieces, each a command of its own. */
			if (len > RK_TP_LINE_MAX) {
				printf("rk-testpmd: %s line %u: %zu characters, at most %u: skipped\n",
				       file, no, len, RK_TP_LINE_MAX);
				fflush(stdout);
				failed += counted;
				continue;
			}
			/* A tab would ask for completion. */
			for (size_t i = 0; i < len; i++)
				if (line[i] == '\t')
					line[i] = ' ';
			line[len] = '\n';
			rk_tp.cmd_failed = false;
			cmdline_in(cl, line, (int)len + 1);
			failed += counted && rk_tp.cmd_failed;
			fflush(stdout);
		}
		if (ferror(f))
			fprintf(stderr, "rk-testpmd: %s: read error after line %u\n", file, no);
		free(line);
		other_cl = NULL;
		cmdline_free(cl);
		fclose(f);
		printf("\nRead commands from %s\n", file);
		fflush(stdout);
		return (int)failed;
	}
	if (!interactive)
		return 0;
	cl = cmdline_stdin_new(ctx, "rk-testpmd> ");
	if (cl == NULL)
		return -1;
	other_cl = cl;
	/* The terminal's Ctrl-C raises SIGINT again: it stops forwarding, not the prompt. */
	if (tcgetattr(STDIN_FILENO, &term) == 0) {
		term.c_lflag |= ISIG;
		tcsetattr(STDIN_FILENO, TCSANOW, &term);
	}
	cmdline_interact(cl);
	other_cl = NULL;
	cmdline_stdin_exit(cl);
	return 0;
}
