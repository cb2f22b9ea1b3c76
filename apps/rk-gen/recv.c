/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's receive side: frames with a sequence slot accounted per stream
 * (lib/gen rk_gen_rx.h), a line a second while live, the final table or
 * JSON (jansson); and a capture read back with libpcap, the capture
 * timestamps taken as RX times.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gen.h"
#include "rk_app.h"

#define NS 1000000000ull

uint64_t
rk_gen_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

void
rk_gen_recv_init(struct rk_gen_recv *r, const struct rk_gen_recv_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	rk_gen_rx_init(&r->acc);
	if (o->interval_ns != 0 && (r->series = rk_gen_series_new(o->interval_ns)) == NULL)
		fprintf(stderr, "rk-gen: out of memory: no series\n");
}

void
rk_gen_recv_fini(struct rk_gen_recv *r)
{
	rk_gen_rx_fini(&r->acc);
	rk_gen_series_free(r->series);
	r->series = NULL;
}

void
rk_gen_recv_frame(struct rk_gen_recv *r, const uint8_t *frame, uint32_t len, uint64_t rx_ns)
{
	struct rk_gen_slot s;
	int rc;

	r->frames++;
	if (r->series != NULL)
		rk_gen_series_before(r->series, r, rx_ns);
	rc = rk_gen_slot_read(frame, len, r->o->seq_off, &s);
	if (rc == -EMSGSIZE)
		r->short_slot++;
	else if (rc < 0)
		r->no_slot++;
	else if ((rc = rk_gen_rx_add(&r->acc, &s, rx_ns)) == -ENOMEM)
		fprintf(stderr, "rk-gen: out of memory: stream %" PRIu32 " not counted\n",
			s.stream_id);
	if (r->series != NULL) {
		/* as the stream's latency counts it: first arrivals, none before their TX */
		uint64_t lat = rx_ns - s.tx_ns;
		bool first = rc == RK_GEN_RX_IN_ORDER || rc == RK_GEN_RX_REORDERED;

		rk_gen_series_frame(r->series, len, first && rx_ns >= s.tx_ns ? &lat : NULL);
	}
}

void
rk_gen_recv_totals(const struct rk_gen_recv *r, struct rk_gen_recv_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < r->acc.n; i++) {
		const struct rk_gen_rx_stream *st = r->acc.st[i];

		t->unique += st->unique;
		t->lost += rk_gen_rx_lost(st, 0);
		t->reordered += st->reordered;
		t->duplicates += st->duplicates;
		if (st->lat.max_ns > t->lat_max)
			t->lat_max = st->lat.max_ns;
	}
}

void
rk_gen_recv_tick(struct rk_gen_recv *r, uint64_t now_ns)
{
	struct rk_gen_recv_totals t;

	if (r->series != NULL)
		rk_gen_series_advance(r->series, r, now_ns);
	if (r->t0_ns == 0) {
		r->t0_ns = now_ns;
		r->next_line_ns = now_ns + NS;
		return;
	}
	if (now_ns < r->next_line_ns)
		return;
	r->next_line_ns += NS;
	rk_gen_recv_totals(r, &t);
	fprintf(stderr,
		"rk-gen: %.0f s: %" PRIu64 " frames (%" PRIu64 "/s), %" PRIu32 " stream%s, "
		"lost %" PRIu64 ", reordered %" PRIu64 ", duplicates %" PRIu64
		", latency max %" PRIu64 " ns\n",
		(double)(now_ns - r->t0_ns) / 1e9, r->frames, r->frames - r->last_frames,
		r->acc.n, r->acc.n == 1 ? "" : "s", t.lost, t.reordered, t.duplicates, t.lat_max);
	r->last_frames = r->frames;
}

/* The figures of one stream, as the table and the JSON give them. */
struct figures {
	uint64_t lost, p50, p99, p999, mean;
	double loss_pct;
};

static void
stream_figures(const struct rk_gen_recv *r, const struct rk_gen_rx_stream *st,
	       struct figures *f)
{
	uint64_t expected = r->o->expect ? r->o->expect : st->next_exp;

	f->lost = rk_gen_rx_lost(st, r->o->expect);
	f->loss_pct = expected ? 100.0 * (double)f->lost / (double)expected : 0.0;
	f->p50 = rk_hist_quantile(&st->lat, 50000);
	f->p99 = rk_hist_quantile(&st->lat, 99000);
	f->p999 = rk_hist_quantile(&st->lat, 99900);
	f->mean = st->lat.count ? st->lat.sum_ns / st->lat.count : 0;
}

static void report_table(const struct rk_gen_recv *r);

static json_t *
u64_json(uint64_t v)
{
	/* jansson's integers are signed 64-bit: larger values as decimal strings */
	char s[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(s, sizeof(s), "%" PRIu64, v);
	return json_string(s);
}

static void
report_json(const struct rk_gen_recv *r)
{
	json_t *j = json_object(), *streams = json_array();

	json_object_set_new(j, "frames", u64_json(r->frames));
	json_object_set_new(j, "no_slot", u64_json(r->no_slot));
	json_object_set_new(j, "short_slot", u64_json(r->short_slot));
	json_object_set_new(j, "other_streams", u64_json(r->acc.other_frames));
	json_object_set_new(j, "expect", u64_json(r->o->expect));
	for (uint32_t i = 0; i < r->acc.n; i++) {
		const struct rk_gen_rx_stream *st = r->acc.st[i];
		json_t *s = json_object(), *lat = json_object();
		struct figures f;

		stream_figures(r, st, &f);
		json_object_set_new(s, "stream_id", json_integer(st->stream_id));
		json_object_set_new(s, "frames", u64_json(st->frames));
		json_object_set_new(s, "unique", u64_json(st->unique));
		json_object_set_new(s, "lost", u64_json(f.lost));
		json_object_set_new(s, "loss_percent", json_real(f.loss_pct));
		json_object_set_new(s, "reordered", u64_json(st->reordered));
		json_object_set_new(s, "reorder_extent_max", u64_json(st->reorder_extent_max));
		json_object_set_new(s, "duplicates", u64_json(st->duplicates));
		json_object_set_new(s, "stale", u64_json(st->stale));
		json_object_set_new(s, "highest_seq",
				    st->next_exp ? u64_json(st->next_exp - 1) : json_null());
		json_object_set_new(lat, "count", u64_json(st->lat.count));
		json_object_set_new(lat, "negative", u64_json(st->lat_negative));
		json_object_set_new(lat, "min", u64_json(st->lat.min_ns));
		json_object_set_new(lat, "mean", u64_json(f.mean));
		json_object_set_new(lat, "p50", u64_json(f.p50));
		json_object_set_new(lat, "p99", u64_json(f.p99));
		json_object_set_new(lat, "p99_9", u64_json(f.p999));
		json_object_set_new(lat, "max", u64_json(st->lat.max_ns));
		json_object_set_new(s, "latency_ns", lat);
		json_array_append_new(streams, s);
	}
	json_object_set_new(j, "streams", streams);
	if (r->series != NULL) {
		json_object_set_new(j, "interval_s", json_real((double)r->o->interval_ns / 1e9));
		json_object_set_new(j, "series", rk_gen_series_json(r->series));
	}
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
}

int
rk_gen_recv_report(struct rk_gen_recv *r)
{
	if (r->series != NULL)
		rk_gen_series_finish(r->series, r);
	if (r->o->json)
		report_json(r);
	else if (r->o->csv == NULL || strcmp(r->o->csv, "-") != 0)
		report_table(r);
	if (r->series != NULL)
		return rk_gen_series_write(r->series, r->o,
					   r->o->pcap_in ? r->o->pcap_in : r->o->port);
	return r->o->interval_ns != 0 ? -1 : 0;
}

static void
report_table(const struct rk_gen_recv *r)
{
	printf("%10s %12s %12s %10s %8s %10s %10s %8s %12s %12s %12s %12s %12s\n", "stream",
	       "frames", "unique", "lost", "loss%", "reordered", "duplicates", "stale",
	       "lat_min_ns", "p50_ns", "p99_ns", "p99.9_ns", "max_ns");
	for (uint32_t i = 0; i < r->acc.n; i++) {
		const struct rk_gen_rx_stream *st = r->acc.st[i];
		struct figures f;

		stream_figures(r, st, &f);
		printf("%10" PRIu32 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %8.3f %10" PRIu64
		       " %10" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %12" PRIu64 " %12" PRIu64 "\n",
		       st->stream_id, st->frames, st->unique, f.lost, f.loss_pct, st->reordered,
		       st->duplicates, st->stale, st->lat.min_ns, f.p50, f.p99, f.p999,
		       st->lat.max_ns);
	}
	printf("frames %" PRIu64 ", without a slot %" PRIu64 " (not RoCEv2 %" PRIu64
	       ", payload too short %" PRIu64 "), of streams past %u: %" PRIu64 "\n",
	       r->frames, r->no_slot + r->short_slot, r->no_slot, r->short_slot,
	       RK_GEN_RX_STREAMS_MAX, r->acc.other_frames);
	for (uint32_t i = 0; i < r->acc.n; i++)
		if (r->acc.st[i]->lat_negative)
			printf("stream %" PRIu32 ": %" PRIu64 " frames received before their TX "
			       "time (clocks apart), kept out of the latency\n",
			       r->acc.st[i]->stream_id, r->acc.st[i]->lat_negative);
}

int
rk_gen_recv_pcap(const struct rk_gen_recv_opts *o)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct rk_gen_recv r;
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	int rc = 1, status = 0;

	/* pcap and pcapng alike; timestamps in ns whatever the file's resolution */
	p = pcap_open_offline_with_tstamp_precision(o->pcap_in, PCAP_TSTAMP_PRECISION_NANO,
						    errbuf);
	if (p == NULL) {
		/* libpcap names the file in some of its messages only */
		fprintf(stderr, "rk-gen: %s%s%s\n", strstr(errbuf, o->pcap_in) ? "" : o->pcap_in,
			strstr(errbuf, o->pcap_in) ? "" : ": ", errbuf);
		return 1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "rk-gen: %s: link type %s, not Ethernet\n", o->pcap_in,
			pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
		pcap_close(p);
		return 1;
	}
	rk_gen_recv_init(&r, o);
	while (!rk_app_stop && (rc = pcap_next_ex(p, &h, &data)) == 1)
		rk_gen_recv_frame(&r, data, h->caplen,
				  (uint64_t)h->ts.tv_sec * NS + (uint64_t)h->ts.tv_usec);
	if (!rk_app_stop && rc == PCAP_ERROR) {
		fprintf(stderr, "rk-gen: %s: after %" PRIu64 " frames: %s\n", o->pcap_in, r.frames,
			pcap_geterr(p));
		status = 1;
	}
	if (rk_gen_recv_report(&r) != 0)
		status = 1;
	rk_gen_recv_fini(&r);
	pcap_close(p);
	return status;
}
