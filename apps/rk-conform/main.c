/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-conform: the conformance catalog (lib/conform) run against a device
 * under test, with a verdict per case that cites its rule: a table on
 * stdout, and on request JSON, JUnit XML, and for each failing case a
 * pcap holding only that case's frames.
 *
 * DUTs: "self" is rdmakit's own RoCEv2 engine in process on a virtual
 * clock (no port, no peer); "perftest" a live DUT behind a DPDK port,
 * through its perftest bw servers (dut_perftest.h).
 */
#include <errno.h>
#include <libgen.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>

#include <jansson.h>

#include "expect.h"
#include "opts.h"
#include "replay.h"
#include "rk_cli.h"
#include "rk_cm.h"
#include "rk_conform.h"
#include "rk_conform_self.h"
#include "rk_app.h"
#ifdef RK_CONFORM_DPDK
#include "dut_perftest.h"
#ifdef RK_CONFORM_LWIP
#include "dut_iwarp.h"
#endif
#include "rk_app_oob.h"
#include "rk_app_rdma.h"
#endif

#ifdef RK_IB_MUTANTS
#include "rk_cm_mutant.h"
#include "rk_ib_mutant.h"
#include "rk_iw_mutant.h"
uint32_t rk_ib_mutants;
uint32_t rk_iw_mutants;
uint32_t rk_cm_mutants;
#endif

#define CASE_FRAMES 512u
#define FRAME_MAX 4608u

struct frame {
	uint8_t data[FRAME_MAX];
	uint32_t len;
	uint64_t ns;
};

/* The frames of the running case, for its pcap. */
struct capture {
	struct frame *f;
	unsigned int n;
	bool lost;              /* more than CASE_FRAMES: the pcap says so by its name */
};


#define outcome rk_cf_outcome

static void
on_frame(void *ctx, bool tx, const uint8_t *frame, uint32_t len, uint64_t ns)
{
	struct capture *cap = ctx;

	(void)tx;
	if (cap->n == CASE_FRAMES || len > FRAME_MAX) {
		cap->lost = true;
		return;
	}
	memcpy(cap->f[cap->n].data, frame, len);
	cap->f[cap->n].len = len;
	cap->f[cap->n].ns = ns;
	cap->n++;
}

/* DIR/ID.pcap of the case's frames; 0, or -1 with a message. */
static int
write_pcap(const char *dir, const char *id, const struct capture *cap, char *path, size_t len)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;

	size_t n = strlen(id);

	/* a replay's ID ends in its recording's name: no second ".pcap" */
	snprintf(path, len, "%s/%s%s", dir, id,
		 n > 5 && strcmp(id + n - 5, ".pcap") == 0 ? "" : ".pcap");
	if (p == NULL)
		return -1;
	d = pcap_dump_open(p, path);
	if (d == NULL) {
		fprintf(stderr, "rk-conform: cannot write %s: %s\n", path, pcap_geterr(p));
		pcap_close(p);
		path[0] = 0;
		return -1;
	}
	for (unsigned int i = 0; i < cap->n; i++) {
		struct pcap_pkthdr h = {
			.ts = { .tv_sec = (time_t)(cap->f[i].ns / 1000000000u),
				.tv_usec = (suseconds_t)(cap->f[i].ns % 1000000000u / 1000u) },
			.caplen = cap->f[i].len, .len = cap->f[i].len,
		};

		pcap_dump((u_char *)d, &h, cap->f[i].data);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

static int
write_json(const char *path, const char *dut, const struct outcome *out, unsigned int n,
	   const unsigned int count[3])
{
	json_t *root = json_object(), *arr = json_array();
	int rc;

	for (unsigned int i = 0; i < n; i++) {
		const struct outcome *o = &out[i];
		json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I}",
				      "id", o->c->id,
				      "transport", rk_conform_transport_name(o->c->transport),
				      "rule", o->c->rule, "must", o->c->must,
				      "verdict", rk_conform_verdict_name(o->res.verdict),
				      "reason", o->res.reason,
				      "frames_tx", (json_int_t)o->res.frames_tx,
				      "frames_rx", (json_int_t)o->res.frames_rx,
				      "elapsed_ns", (json_int_t)o->res.elapsed_ns);

		if (o->pcap[0])
			json_object_set_new(j, "pcap", json_string(o->pcap));
		json_array_append_new(arr, j);
	}
	json_object_set_new(root, "dut", json_string(dut));
	json_object_set_new(root, "cases", arr);
	json_object_set_new(root, "summary",
			    json_pack("{s:i, s:i, s:i}", "pass", count[RK_CONFORM_PASS], "fail",
				      count[RK_CONFORM_FAIL], "not_applicable",
				      count[RK_CONFORM_NA]));
	rc = json_dump_file(root, path, JSON_INDENT(2));
	json_decref(root);
	if (rc != 0)
		fprintf(stderr, "rk-conform: cannot write %s\n", path);
	return rc == 0 ? 0 : -1;
}

static void
xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

/* JUnit XML: one testsuite, a testcase per case, failure/skipped children. */
static int
write_junit(const char *path, const struct outcome *out, unsigned int n,
	    const unsigned int count[3])
{
	FILE *f = fopen(path, "w");
	uint64_t total_ns = 0;

	if (f == NULL) {
		fprintf(stderr, "rk-conform: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; i < n; i++)
		total_ns += out[i].res.elapsed_ns;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
		"  <testsuite name=\"rk-conform\" tests=\"%u\" failures=\"%u\" errors=\"0\" "
		"skipped=\"%u\" time=\"%.6f\">\n", n, count[RK_CONFORM_FAIL],
		count[RK_CONFORM_NA], (double)total_ns / 1e9);
	for (unsigned int i = 0; i < n; i++) {
		const struct outcome *o = &out[i];

		fprintf(f, "    <testcase classname=\"rk-conform.%s\" name=\"",
			rk_conform_transport_name(o->c->transport));
		xml_text(f, o->c->id);
		fprintf(f, "\" time=\"%.6f\">", (double)o->res.elapsed_ns / 1e9);
		if (o->res.verdict == RK_CONFORM_FAIL) {
			fputs("\n      <failure message=\"", f);
			xml_text(f, o->res.reason);
			fputs("\" type=\"", f);
			xml_text(f, o->c->rule);
			fputs("\">", f);
			xml_text(f, o->c->must);
			fputs("</failure>\n    ", f);
		} else if (o->res.verdict == RK_CONFORM_NA) {
			fputs("\n      <skipped message=\"", f);
			xml_text(f, o->res.reason);
			fputs("\"/>\n    ", f);
		}
		fputs("</testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	if (fclose(f) != 0) {
		fprintf(stderr, "rk-conform: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
list(const struct opts *o)
{
	unsigned int n;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	if (o->markdown)
		return rk_conform_markdown(stdout, o->cases) < 0 ? 1 : 0;
	for (unsigned int i = 0; i < n; i++)
		if (rk_conform_id_match(o->cases, c[i].id))
			printf("%-30s %-5s %-40s %s\n", c[i].id,
			       rk_conform_transport_name(c[i].transport), c[i].rule, c[i].must);
	return 0;
}

#ifdef RK_CONFORM_DPDK
/* The live DUT: EAL, the port, the exchange's namespace, the adapter. */
static int
live_open(const struct opts *o, const struct rk_io_dpdk_args *da, struct rk_conform_env *env,
	  struct rk_io_dpdk **io, struct rk_cpt **pt)
{
	struct rk_io_dpdk_cfg pcfg = { .port_name = o->port, .pcapng_path = o->record };
	struct rk_cpt_cfg cfg = { .server = o->server, .size = o->size, .mtu = o->mtu,
				  .min_rnr_timer = (uint8_t)o->min_rnr,
				  .connect_timeout_s = o->connect_timeout_s };
	char msg[160];
	int rc;

	inet_pton(AF_INET, o->ip, cfg.ip);
	if (o->cm_port != 0) {
		cfg.cm_port = o->cm_port;
		inet_pton(AF_INET, o->dut_ip, cfg.dut_ip);
		env->cm_service_id = rk_cm_service_id(RK_CM_PS_TCP, o->cm_port);
		/* a perftest -R server in a loop is away between its clients */
		env->cm_listen_wait_ns = (uint64_t)(o->connect_timeout_s * 1e9);
	}
	memcpy(pcfg.ip, cfg.ip, 4);
	memcpy(cfg.tcp_port, o->tcp_port, sizeof(cfg.tcp_port));
	cfg.one_server = o->one_server;
	if (!rk_app_recording_writable("rk-conform", o->record))
		return 2;
	if ((rc = rk_app_eal_init("rk-conform", da)) != 0)
		return rc;
	/* no such port (--port, or none given and no --vdev): a bad option */
	if ((*io = rk_app_port_open("rk-conform", &pcfg)) == NULL)
		return errno == ENODEV ? 2 : 1;
	if (rk_app_roce_frame_check(*io, o->mtu, "--mtu", msg, sizeof(msg)) != 0) {
		fprintf(stderr, "rk-conform: error: %s\n", msg);
		return 1;
	}
	/* a replay may offer its recording's path MTU: the largest the port carries */
	cfg.mtu_fixed = o->mtu_given;
	for (cfg.mtu_max = 4096; cfg.mtu_max > o->mtu; cfg.mtu_max >>= 1)
		if (rk_app_roce_frame_check(*io, cfg.mtu_max, "--mtu", msg, sizeof(msg)) == 0)
			break;
	if (o->oob_netns != NULL && (rc = rk_oob_enter_netns(o->oob_netns)) != 0) {
		fprintf(stderr, "rk-conform: cannot enter network namespace %s: %s\n",
			o->oob_netns, strerror(-rc));
		return 1;
	}
	/* a name that cannot resolve is a wrong option, not every case's ERROR */
	if ((rc = rk_oob_resolve(o->server)) != 0) {
		fprintf(stderr, "rk-conform: --server %s: %s\n", o->server, rk_oob_strerror(rc));
		return 2;
	}
	if ((*pt = rk_cpt_create(&cfg, *io, env)) == NULL) {
		fprintf(stderr, "rk-conform: out of memory\n");
		return 1;
	}
#ifdef RK_CONFORM_LWIP
	if (o->rping_port != 0) {
		struct rk_ciw_cfg icfg = { .dut_ip = o->dut_ip, .port = o->rping_port, .ip = o->ip,
					   .connect_timeout_s = o->connect_timeout_s };
		struct rk_ciw *w = rk_ciw_create(&icfg, *io, env, msg, sizeof(msg));

		if (w == NULL) {
			fprintf(stderr, "rk-conform: --serve rping=%u: %s\n", o->rping_port, msg);
			return 1;
		}
		rk_cpt_attach_iwarp(*pt, w);
	}
#endif
	return 0;
}
#endif

/* Conversations of one recording replayed in one run (--replay-qp all). */
#define REPLAYS_MAX 32u

/* The verdicts file's lines a replay run is compared with (--expect). */
static char replay_glob[112];
/* The recording ended inside a record: verdicts on part of it, exit 2. */
static bool replay_cut;

/*
 * --replay: one conversation (--replay-qp QPN, or the first), or each in
 * turn (--replay-qp all), an outcome each in out[0..*ran). A recording
 * that cannot be read is bad input: @return 2; else 0.
 */
static int
run_replays(const struct opts *o, const struct rk_conform_env *env, struct capture *cap,
	    struct outcome *out, unsigned int max, unsigned int count[3], unsigned int *ran)
{
	static struct rk_conform_case rcase[REPLAYS_MAX];
	static char rid[REPLAYS_MAX][96];
	struct rk_cf_recording rec = { 0 };
	struct rk_conform_conv cv[REPLAYS_MAX] = { { .dest_qp = o->replay_qp } };
	enum rk_cf_replay_name name[REPLAYS_MAX];
	unsigned int nq = 1;
	bool more = false, none = false;
	char *dup;

	if (rk_cf_recording_load(o->replay, &rec) != 0) {
		rk_cf_recording_free(&rec);
		return 2;
	}
	if (o->replay_all) {
		nq = rk_conform_replay_convs(rec.f, rec.n, cv, max, &more);
		printf("%u conversation%s in %s%s\n", nq, nq == 1 ? "" : "s", o->replay,
		       more ? " (and more: only these replayed)" : "");
	}
	/* none found: one replay, of the file, says why (no RC request) */
	if (nq == 0) {
		nq = 1;
		none = true;
	}
	if (o->replay_from_set)
		memcpy(cv[0].requester, o->replay_from, 16);
	/* The requester joins the ID only where two requesters' QPs share a number. */
	for (unsigned int k = 0; k < nq; k++) {
		name[k] = (o->replay_all && !none) || o->replay_qp != 0 ? RK_CF_NAME_QP :
			  RK_CF_NAME_FILE;
		if (o->replay_from_set)
			name[k] = RK_CF_NAME_QP_FROM;
		for (unsigned int j = 0; o->replay_all && j < nq; j++)
			if (j != k && cv[j].dest_qp == cv[k].dest_qp)
				name[k] = RK_CF_NAME_QP_FROM;
	}
	for (unsigned int k = 0; k < nq; k++) {
		cap->n = 0;
		cap->lost = false;
		if (rk_cf_replay(&rec, o->replay, &cv[k], name[k], env, &rcase[k], rid[k],
				 &out[k]) != 0) {
			rk_cf_recording_free(&rec);
			return 2;
		}
		/* A recording cut inside a record lacks the answers to its last
		 * requests: the DUT's extra answers are no fault of the DUT. */
		if (rec.truncated && out[k].res.verdict == RK_CONFORM_FAIL) {
			char why[sizeof(out[k].res.reason)];

			snprintf(why, sizeof(why), "%s", out[k].res.reason);
			out[k].res.verdict = RK_CONFORM_NA;
			snprintf(out[k].res.reason, sizeof(out[k].res.reason),
				 "the recording is cut inside a record, its last answers missing "
				 "(%.110s)", why);
		}
		count[out[k].res.verdict]++;
		if (out[k].res.verdict == RK_CONFORM_FAIL && o->pcap_dir != NULL)
			write_pcap(o->pcap_dir, rid[k], cap, out[k].pcap, sizeof(out[k].pcap));
	}
	*ran = nq;
	replay_cut = rec.truncated;
	rk_cf_recording_free(&rec);
	dup = strdup(o->replay);
	if (o->replay_all && !none && dup != NULL)
		snprintf(replay_glob, sizeof(replay_glob), "replay.%.70s.qp0x*", basename(dup));
	else
		snprintf(replay_glob, sizeof(replay_glob), "%s", out[0].c->id);
	free(dup);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct rk_conform_env env = { 0 };
	struct rk_conform_self *self = NULL;
	struct capture cap = { 0 };
	struct outcome *out;
	unsigned int n, ran = 0, count[3] = { 0 };
	const struct rk_conform_case *c = rk_conform_cases(&n);
	bool interrupted = false, stopped = false;
	unsigned int no_qp = 0;         /* cases in a row whose setup failed */
	int idw = 30;                   /* the ID column's width */
	int rc;
#ifdef RK_CONFORM_DPDK
	struct rk_io_dpdk_args da;
	struct rk_io_dpdk *io = NULL;
	struct rk_cpt *pt = NULL;

	/* "EAL options -- rk-conform options"; without "--", all are rk-conform's */
	rk_io_dpdk_split_args(argc, argv, "rk-conform", &da);
	argc = da.app_argc;
	argv = da.app_argv;
#endif
	rc = rk_cf_opts_parse(argc, argv, &o);
	if (rc != 0)
		return rc;
	if (o.list)
		return list(&o);
	rk_app_signals();
#ifdef RK_IB_MUTANTS
	if (getenv("RK_IB_MUTANTS") != NULL)
		rk_ib_mutants = (uint32_t)strtoul(getenv("RK_IB_MUTANTS"), NULL, 0);
	if (getenv("RK_IW_MUTANTS") != NULL)
		rk_iw_mutants = (uint32_t)strtoul(getenv("RK_IW_MUTANTS"), NULL, 0);
#endif
	if (o.pcap_dir != NULL && mkdir(o.pcap_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "rk-conform: --pcap-dir %s: %s\n", o.pcap_dir, strerror(errno));
		return 2;
	}
	out = calloc(n, sizeof(*out));
	cap.f = calloc(CASE_FRAMES, sizeof(*cap.f));
	if (out == NULL || cap.f == NULL) {
		fprintf(stderr, "rk-conform: out of memory\n");
		return 1;
	}
#ifdef RK_CONFORM_DPDK
	if (strcmp(o.dut, "perftest") == 0 && (rc = live_open(&o, &da, &env, &io, &pt)) != 0) {
		if (io != NULL)
			rk_io_dpdk_close(io);
		free(cap.f);
		free(out);
		return rc;
	}
#endif
	if (strcmp(o.dut, "self") == 0 && (self = rk_conform_self_create(&env)) == NULL) {
		fprintf(stderr, "rk-conform: out of memory\n");
		return 1;
	}
	env.timeout_ns = (uint64_t)(o.timeout_ms * 1e6);
	env.on_frame = on_frame;
	env.frame_ctx = &cap;
	if (o.replay != NULL) {
		rc = run_replays(&o, &env, &cap, out, n < REPLAYS_MAX ? n : REPLAYS_MAX, count, &ran);
		if (rc != 0)
			goto done;
		n = 0;          /* no catalog case runs */
	}
	/* a replay's IDs hold its file's name: the column grows to the longest */
	for (unsigned int k = 0; o.replay != NULL && k < ran; k++)
		if (strlen(out[k].c->id) > (size_t)idw)
			idw = (int)strlen(out[k].c->id);
	printf("%-*s %-7s %-40s %s\n", idw, "ID", "verdict", "rule", "reason");
	for (unsigned int k = 0; o.replay != NULL && k < ran; k++)
		printf("%-*s %-7s %-40s %s\n", idw, out[k].c->id,
		       rk_conform_verdict_name(out[k].res.verdict), out[k].c->rule,
		       out[k].res.reason);
	for (unsigned int i = 0; i < n; i++) {
		struct outcome *r = &out[ran];

		if (!rk_conform_id_match(o.cases, c[i].id))
			continue;
		/* Ctrl-C: the cases run so far still get their outputs. */
		if (rk_app_stop) {
			interrupted = true;
			break;
		}
		cap.n = 0;
		cap.lost = false;
		r->c = &c[i];
		rk_conform_run_case(&env, &c[i], &r->res);
		/* A case the signal cut short is no verdict on the DUT: left out. */
		if (rk_app_stop) {
			interrupted = true;
			break;
		}
		count[r->res.verdict]++;
		if (r->res.verdict == RK_CONFORM_FAIL && o.pcap_dir != NULL)
			write_pcap(o.pcap_dir, c[i].id, &cap, r->pcap, sizeof(r->pcap));
		printf("%-30s %-7s %-40s %s\n", c[i].id, rk_conform_verdict_name(r->res.verdict),
		       c[i].rule, r->res.reason);
		fflush(stdout);
		ran++;
		/* A DUT whose servers are gone fails every setup, each after the
		 * connect timeout: stop rather than wait that long per case. */
		no_qp = r->res.setup_failed ? no_qp + 1 : 0;
		if (o.max_setup_failures != 0 && no_qp >= o.max_setup_failures) {
			stopped = true;
			break;
		}
	}
	if (stopped)
		printf("stopped: %u cases in a row got no QP from the DUT (--max-setup-failures); "
		       "the outputs hold the %u case%s run\n", no_qp, ran, ran == 1 ? "" : "s");
	if (interrupted) {
		rk_app_stop_grace();
		printf("interrupted: the outputs hold the %u case%s run before the signal\n", ran,
		       ran == 1 ? "" : "s");
	}
	printf("%u case%s: %u pass, %u fail, %u not applicable\n", ran, ran == 1 ? "" : "s",
	       count[RK_CONFORM_PASS],
	       count[RK_CONFORM_FAIL], count[RK_CONFORM_NA]);
	rc = count[RK_CONFORM_FAIL] ? 1 : 0;
	if (o.expect != NULL) {
		/* A replay is compared with its own line of the file only. */
		int d = rk_cf_expect_check(o.expect, out, ran, o.replay != NULL ? replay_glob :
					   o.cases, stdout);

		if (d >= 0)
			printf("expected verdicts (%s): %d difference%s\n", o.expect, d,
			       d == 1 ? "" : "s");
		rc = d == 0 ? 0 : 1;
	}
	if (o.verdicts != NULL && rk_cf_verdicts_write(o.verdicts, o.dut, out, ran) != 0)
		rc = 1;
	if (o.json != NULL && write_json(o.json, o.dut, out, ran, count) != 0)
		rc = 1;
	if (o.junit != NULL && write_junit(o.junit, out, ran, count) != 0)
		rc = 1;
	if (interrupted)
		rc = 130;
	else if (replay_cut)
		rc = 2;
done:
	rk_conform_self_destroy(self);
#ifdef RK_CONFORM_DPDK
	if (pt != NULL) {
		printf("frames of other QPs dropped: %llu\n",
		       (unsigned long long)rk_cpt_foreign_frames(pt));
		rk_cpt_destroy(pt);
	}
	if (io != NULL && rk_app_port_close("rk-conform", io, o.record) != 0)
		rc = 1;
#endif
	free(cap.f);
	free(out);
	return rc;
}
