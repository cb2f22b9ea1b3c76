/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's timing output: per flow duration, goodput, wire rate, ACK
 * RTT and READ latency percentiles (lib/analysis/rk_insp_timing.c), and
 * the --interval series as CSV, JSON and a gnuplot PNG.
 */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rk_cm.h"
#include "rk_insp_timing.h"

int
rk_insp_parse_interval(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s || errno != 0 || !isfinite(v) || v <= 0)
		return -EINVAL;
	/* 1 ns up to a day: anything else is a typo, or a series of nothing. */
	if (v < 1e-9 || v > 86400.0)
		return -ERANGE;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

void
rk_insp_timing_cm(struct rk_insp_timing *t, const struct rk_pkt *pkt)
{
	struct rk_cm_msg msg;

	if (pkt->payload_off + pkt->payload_len > pkt->caplen ||
	    rk_cm_decode(pkt->frame + pkt->payload_off, pkt->payload_len, &msg) != 0)
		return;
	/* Out of memory only loses the pairing. */
	if (msg.hdr.attr_id == RK_CM_REQ)
		(void)rk_insp_cm_req(&t->cm, pkt->src_ip, pkt->dst_ip, msg.req.local_comm_id,
				     msg.req.local_qpn);
	else if (msg.hdr.attr_id == RK_CM_REP)
		(void)rk_insp_cm_rep(&t->cm, msg.rep.remote_comm_id, msg.rep.local_qpn,
				     (uint8_t)pkt->kind);
}

/* Gb/s of @p bytes over @p ns (> 0). */
static double
gbps(uint64_t bytes, uint64_t ns)
{
	return (double)bytes * 8.0 / (double)ns;
}

static uint64_t
goodput_bytes(const struct rk_insp_flow *f)
{
	return f->payload_bytes > f->dup_payload_bytes ? f->payload_bytes - f->dup_payload_bytes
						       : 0;
}

static void
print_pctl(FILE *out, const char *what, const struct rk_hist *h)
{
	struct rk_insp_pctl p = rk_insp_pctl_of(h);

	if (p.count == 0)
		return;
	fprintf(out, "; %s p50/p99/max %.3f/%.3f/%.3f us (%" PRIu64 ")", what,
		(double)p.p50 / 1e3, (double)p.p99 / 1e3, (double)p.max / 1e3, p.count);
}

void
rk_insp_print_flow_timing(FILE *out, const struct rk_insp_flow *f)
{
	uint64_t d = f->last_ts_ns - f->first_ts_ns;

	fprintf(out, "    time %.6f s", (double)d / 1e9);
	if (d != 0)
		fprintf(out, ", goodput %.3f Gb/s, wire %.3f Gb/s", gbps(goodput_bytes(f), d),
			gbps(f->bytes, d));
	if (f->timing != NULL) {
		print_pctl(out, "ACK RTT", f->timing->rtt);
		print_pctl(out, "READ latency", f->timing->read);
	}
	fputc('\n', out);
}

static json_t *
pctl_json(const struct rk_hist *h)
{
	struct rk_insp_pctl p = rk_insp_pctl_of(h);

	if (p.count == 0)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I}", "count", (json_int_t)p.count,
			 "p50", (json_int_t)p.p50, "p99", (json_int_t)p.p99,
			 "max", (json_int_t)p.max);
}

json_t *
rk_insp_flow_timing_json(const struct rk_insp_flow *f)
{
	uint64_t d = f->last_ts_ns - f->first_ts_ns;
	json_t *o = json_object();

	json_object_set_new(o, "duration_ns", json_integer((json_int_t)d));
	json_object_set_new(o, "goodput_bytes", json_integer((json_int_t)goodput_bytes(f)));
	json_object_set_new(o, "goodput_gbps", d ? json_real(gbps(goodput_bytes(f), d))
						: json_null());
	json_object_set_new(o, "wire_gbps", d ? json_real(gbps(f->bytes, d)) : json_null());
	json_object_set_new(o, "ack_rtt_ns", pctl_json(f->timing ? f->timing->rtt : NULL));
	json_object_set_new(o, "read_latency_ns", pctl_json(f->timing ? f->timing->read : NULL));
	return o;
}

json_t *
rk_insp_timing_json(const struct rk_insp_timing *t)
{
	return json_pack("{s:I, s:I, s:I}", "flows_timed", (json_int_t)t->nflows,
			 "untimed_flows", (json_int_t)t->untimed_flows,
			 "unpaired_responses", (json_int_t)t->unpaired);
}

/* Start of interval @p i in seconds. */
static double
row_start(const struct rk_insp_series *s, uint64_t i)
{
	return (double)(i * s->interval_ns) / 1e9;
}

static void
csv_rows(FILE *out, const struct rk_insp_series *s)
{
	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_insp_series_row *r = &s->row[i];

		fprintf(out, "%.9g,%" PRIu64 ",%.6f,%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 "\n", row_start(s, i), r->frames,
			rk_insp_series_gbps(s, r->bytes), rk_insp_series_gbps(s, r->payload_bytes),
			r->rtx_frames, r->ce, r->cnps, r->pause_frames);
	}
}

#define CSV_HEADER "start_s,frames,wire_gbps,goodput_gbps,rtx_frames,ce,cnps,pause_frames\n"

void
rk_insp_series_csv(FILE *out, const struct rk_insp_series *s)
{
	fputs(CSV_HEADER, out);
	csv_rows(out, s);
}

json_t *
rk_insp_series_json(const struct rk_insp_series *s)
{
	json_t *a = json_array();

	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_insp_series_row *r = &s->row[i];

		json_array_append_new(a, json_pack(
			"{s:f, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I}",
			"start_s", row_start(s, i), "frames", (json_int_t)r->frames,
			"bytes", (json_int_t)r->bytes,
			"wire_gbps", rk_insp_series_gbps(s, r->bytes),
			"goodput_gbps", rk_insp_series_gbps(s, r->payload_bytes),
			"rtx_frames", (json_int_t)r->rtx_frames, "ce", (json_int_t)r->ce,
			"cnps", (json_int_t)r->cnps, "pause_frames", (json_int_t)r->pause_frames));
	}
	return a;
}

#define RK_INSP_NO_GNUPLOT \
	"--plot needs gnuplot, not found on the PATH (Debian: apt-get install gnuplot-nox)"

/* gnuplot on the PATH, into @p buf; false when there is none. */
static bool
find_gnuplot(char *buf, size_t len)
{
	const char *path = getenv("PATH");

	while (path != NULL && *path != '\0') {
		const char *c = strchr(path, ':');
		size_t n = c != NULL ? (size_t)(c - path) : strlen(path);

		if (n != 0 && (size_t)snprintf(buf, len, "%.*s/gnuplot", (int)n, path) < len &&
		    access(buf, X_OK) == 0)
			return true;
		path = c != NULL ? c + 1 : NULL;
	}
	return false;
}

/* @p s as a gnuplot string: single quotes, a quote doubled. */
static void
gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

int
rk_insp_series_write(const struct rk_insp_series *s, FILE *out, const char *csv,
		     const char *plot, const char *title, char *err, size_t elen)
{
	FILE *f;

	if (s->overflow) {
		snprintf(err, elen, "--interval: more than %u intervals (or out of memory): "
			 "take a longer interval", RK_INSP_SERIES_MAX);
		return -1;
	}
	if (csv != NULL && strcmp(csv, "-") == 0) {
		if (out != NULL)
			rk_insp_series_csv(out, s);
	} else if (csv != NULL) {
		f = fopen(csv, "w");
		if (f == NULL) {
			snprintf(err, elen, "--csv %s: %s", csv, strerror(errno));
			return -1;
		}
		rk_insp_series_csv(f, s);
		if (fclose(f) != 0) {
			snprintf(err, elen, "--csv %s: %s", csv, strerror(errno));
			return -1;
		}
	}
	if (plot != NULL)
		return rk_insp_series_plot(plot, s, title, err, elen);
	return 0;
}

int
rk_insp_gnuplot_check(char *err, size_t elen)
{
	char gp[4096];

	if (find_gnuplot(gp, sizeof(gp)))
		return 0;
	snprintf(err, elen, "%s", RK_INSP_NO_GNUPLOT);
	return -1;
}

int
rk_insp_series_plot(const char *png, const struct rk_insp_series *s, const char *title,
		    char *err, size_t elen)
{
	char gp[4096];
	int fds[2], status;
	pid_t pid;
	FILE *f;

	if (!find_gnuplot(gp, sizeof(gp))) {
		snprintf(err, elen, "%s", RK_INSP_NO_GNUPLOT);
		return -1;
	}
	if (strchr(png, '\n') != NULL) {
		snprintf(err, elen, "--plot: a file name with a newline cannot be given to gnuplot");
		return -1;
	}
	if (pipe(fds) != 0) {
		snprintf(err, elen, "--plot: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, elen, "--plot: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		/* gnuplot's chatter is not rk-inspect's output. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl(gp, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	/* A gnuplot that quits early must not kill rk-inspect by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	f = fdopen(fds[1], "w");
	if (f == NULL) {
		close(fds[1]);
	} else {
		fputs("set terminal png noenhanced size 1024,768\nset output ", f);
		gp_string(f, png);
		fputs("\nset datafile separator ','\n$d << EOD\n", f);
		csv_rows(f, s);
		/* Steps run from a row to the next: the last interval needs an end. */
		if (s->n != 0) {
			const struct rk_insp_series_row *r = &s->row[s->n - 1];

			fprintf(f, "%.9g,%" PRIu64 ",%.6f,%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 "\n", row_start(s, s->n), r->frames,
				rk_insp_series_gbps(s, r->bytes),
				rk_insp_series_gbps(s, r->payload_bytes), r->rtx_frames, r->ce,
				r->cnps, r->pause_frames);
		}
		/* Explicit ranges: gnuplot warns of an empty one when all is 0. */
		double gmax = 0, cmax = 0;

		for (uint64_t i = 0; i < s->n; i++) {
			const struct rk_insp_series_row *r = &s->row[i];
			double g = rk_insp_series_gbps(s, r->bytes);
			uint64_t c = r->rtx_frames > r->ce ? r->rtx_frames : r->ce;

			c = c > r->cnps ? c : r->cnps;
			c = c > r->pause_frames ? c : r->pause_frames;
			gmax = g > gmax ? g : gmax;
			cmax = (double)c > cmax ? (double)c : cmax;
		}
		fputs("EOD\nset multiplot layout 2,1 title ", f);
		gp_string(f, title);
		fprintf(f, "\nset key outside right\nset grid\n"
			"set lmargin at screen 0.1\nset rmargin at screen 0.78\n"
			"set xrange [0:%.9g]\nset xlabel 'time (s), "
			"intervals of %.9g s'\nset ylabel 'Gb/s'\nset yrange [0:%.9g]\n",
			row_start(s, s->n > 0 ? s->n : 1), (double)s->interval_ns / 1e9,
			gmax > 0 ? gmax * 1.1 : 1.0);
		fputs("plot $d using 1:3 with steps title 'wire', "
			"'' using 1:4 with steps title 'goodput'\n"
			"set ylabel 'frames per interval'\n", f);
		fprintf(f, "set yrange [0:%.9g]\n", cmax > 0 ? cmax * 1.1 : 1.0);
		fputs("plot $d using 1:5 with steps title 'retransmitted', "
			"'' using 1:6 with steps title 'CE', "
			"'' using 1:7 with steps title 'CNP', "
			"'' using 1:8 with steps title 'PAUSE/PFC'\n"
			"unset multiplot\nset output\n", f);
		fclose(f);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, elen, "--plot: waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, elen, "--plot %s: gnuplot failed (%s %d)", png,
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	return 0;
}
