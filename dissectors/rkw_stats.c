/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "-z rdmakit,qp[,filter]": one row per flow (a QP direction or an iWARP
 * connection direction) with packets, bytes, messages, loss and
 * retransmission counts, NAKs, RNR NAKs, CNPs, CRC errors and latency
 * percentiles (request to ACK; READ request to first response).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "rkw_plugin.h"

struct rkw_row {
	char label[160];
	bool iwarp;
	uint64_t packets, bytes, messages, msg_bytes, lost, rtx, gbn, naks, rnrs, cnps;
	uint64_t crc_bad, terms, fpdus;
	GArray *ack_rtt, *read_rt;   /* uint64_t ns */
};

struct rkw_stats {
	char *filter;
	GPtrArray *rows;             /* index = flow - 1, NULL when unseen */
};

static void
row_free(gpointer p)
{
	struct rkw_row *r = p;

	if (r == NULL)
		return;
	g_array_free(r->ack_rtt, TRUE);
	g_array_free(r->read_rt, TRUE);
	g_free(r);
}

static void
stats_reset(void *tapdata)
{
	struct rkw_stats *st = tapdata;

	g_ptr_array_set_size(st->rows, 0);
}

static struct rkw_row *
row_of(struct rkw_stats *st, uint32_t flow, bool iwarp)
{
	struct rkw_row *r;

	if (st->rows->len < flow)
		g_ptr_array_set_size(st->rows, flow);
	r = g_ptr_array_index(st->rows, flow - 1);
	if (r == NULL) {
		const struct rkw_flow_info *fi = rkw_plugin_flow(flow);

		r = g_new0(struct rkw_row, 1);
		g_strlcpy(r->label, fi != NULL ? fi->label : "?", sizeof(r->label));
		r->iwarp = iwarp;
		r->ack_rtt = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		r->read_rt = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		g_ptr_array_index(st->rows, flow - 1) = r;
	}
	return r;
}

static tap_packet_status
stats_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_, const void *data,
	     tap_flags_t flags _U_)
{
	struct rkw_stats *st = tapdata;
	const struct rkw_tapinfo *ti = data;
	struct rkw_row *r;

	if (ti->flow == 0)
		return TAP_PACKET_DONT_REDRAW;
	r = row_of(st, ti->flow, ti->iwarp);
	r->packets++;
	r->bytes += ti->bytes;
	r->messages += ti->msgs;
	r->msg_bytes += ti->msg_len;
	r->lost += ti->lost;
	/* Late packets take back what earlier frames reported lost. */
	r->lost -= ti->not_lost < r->lost ? ti->not_lost : r->lost;
	r->rtx += ti->rtx;
	r->gbn += ti->gbn;
	r->naks += ti->nak;
	r->rnrs += ti->rnr;
	r->cnps += ti->cnp;
	r->crc_bad += ti->crc_bad + ti->icrc_bad;
	r->terms += ti->terms;
	r->fpdus += ti->fpdus;
	/* Latencies belong to the requester's row. */
	if (ti->lat_flow != 0)
		r = row_of(st, ti->lat_flow, ti->iwarp);
	if (ti->has_ack_rtt)
		g_array_append_val(r->ack_rtt, ti->ack_rtt_ns);
	if (ti->has_read_rt)
		g_array_append_val(r->read_rt, ti->read_rt_ns);
	return TAP_PACKET_REDRAW;
}

static gint
cmp_u64(gconstpointer a, gconstpointer b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile, in microseconds; "-" without samples. */
static void
pct(GArray *a, double p, char *buf, size_t len)
{
	size_t rank;

	if (a->len == 0) {
		snprintf(buf, len, "-");
		return;
	}
	rank = (size_t)(p / 100.0 * a->len + 0.999999);
	if (rank == 0)
		rank = 1;
	if (rank > a->len)
		rank = a->len;
	snprintf(buf, len, "%.1f", (double)g_array_index(a, uint64_t, rank - 1) / 1000.0);
}

static void
stats_draw(void *tapdata)
{
	struct rkw_stats *st = tapdata;

	printf("\n==================================================================\n");
	printf("rdmakit per-QP / per-connection statistics%s%s\n",
	       st->filter != NULL ? "  Filter: " : "", st->filter != NULL ? st->filter : "");
	printf("Latency columns: microseconds, nearest-rank p50/p90/p99 "
	       "(ACK: request to its ACK; READ: request to first response)\n");
	for (guint i = 0; i < st->rows->len; i++) {
		struct rkw_row *r = g_ptr_array_index(st->rows, i);
		char a50[24], a90[24], a99[24], r50[24], r90[24], r99[24];

		if (r == NULL)
			continue;
		g_array_sort(r->ack_rtt, cmp_u64);
		g_array_sort(r->read_rt, cmp_u64);
		pct(r->ack_rtt, 50, a50, sizeof(a50));
		pct(r->ack_rtt, 90, a90, sizeof(a90));
		pct(r->ack_rtt, 99, a99, sizeof(a99));
		pct(r->read_rt, 50, r50, sizeof(r50));
		pct(r->read_rt, 90, r90, sizeof(r90));
		pct(r->read_rt, 99, r99, sizeof(r99));
		printf("flow %u: %s\n", i + 1, r->label);
		printf("  packets=%" PRIu64 " bytes=%" PRIu64 " messages=%" PRIu64
		       " message_bytes=%" PRIu64 "\n", r->packets, r->bytes, r->messages,
		       r->msg_bytes);
		if (r->iwarp) {
			printf("  fpdus=%" PRIu64 " crc_errors=%" PRIu64 " terminates=%" PRIu64 "\n",
			       r->fpdus, r->crc_bad, r->terms);
		} else {
			printf("  lost=%" PRIu64 " retransmissions=%" PRIu64 " go_back_n=%" PRIu64
			       " naks=%" PRIu64 " rnr_naks=%" PRIu64 " cnps=%" PRIu64
			       " icrc_errors=%" PRIu64 "\n", r->lost, r->rtx, r->gbn, r->naks,
			       r->rnrs, r->cnps, r->crc_bad);
			printf("  ack_latency_us n=%u p50=%s p90=%s p99=%s  read_latency_us n=%u "
			       "p50=%s p90=%s p99=%s\n", r->ack_rtt->len, a50, a90, a99,
			       r->read_rt->len, r50, r90, r99);
		}
	}
	printf("==================================================================\n");
}

static void
stats_finish(void *tapdata)
{
	struct rkw_stats *st = tapdata;

	g_ptr_array_free(st->rows, TRUE);
	g_free(st->filter);
	g_free(st);
}

static void
stats_init(const char *opt_arg, void *userdata _U_)
{
	struct rkw_stats *st = g_new0(struct rkw_stats, 1);
	const char *prefix = "rdmakit,qp,";
	GString *err;

	if (strncmp(opt_arg, prefix, strlen(prefix)) == 0 && opt_arg[strlen(prefix)] != '\0')
		st->filter = g_strdup(opt_arg + strlen(prefix));
	st->rows = g_ptr_array_new_with_free_func(row_free);
	err = register_tap_listener("rdmakit", st, st->filter, TL_REQUIRES_NOTHING, stats_reset,
				    stats_packet, stats_draw, stats_finish);
	if (err != NULL) {
		fprintf(stderr, "rdmakit: -z rdmakit,qp: %s\n", err->str);
		g_string_free(err, TRUE);
		g_ptr_array_free(st->rows, TRUE);
		g_free(st->filter);
		g_free(st);
		exit(1);
	}
}

static stat_tap_ui rkw_stat_ui = {
	REGISTER_STAT_GROUP_GENERIC,
	NULL,
	"rdmakit,qp",
	stats_init,
	0,
	NULL,
};

void
rkw_register_stats(void)
{
	register_stat_tap_ui(&rkw_stat_ui, NULL);
}
