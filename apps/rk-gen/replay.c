/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's replay source: the frames of a pcap or pcapng capture (read by
 * libpcap), rewritten by lib/gen's maps, at the capture's timing divided
 * by a speed factor or at a fixed rate, looped.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

struct replay {
	const struct rk_gen_replay_opts *o;
	pcap_t *p;
	double line_rate_bps;
	uint64_t loop;          /* loops begun */
	uint64_t ts0_ns;        /* the capture's first timestamp, this loop */
	double base_ns;         /* when this loop starts */
	double last_ns;         /* the time of the frame before */
	bool first_of_loop;
	struct rk_gen_replay_stats st;
	uint8_t frame[RK_GEN_FRAME_MAX];
};

static pcap_t *
open_capture(const char *file)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO,
							     err);

	if (p == NULL) {
		size_t n = strlen(file);
		/* libpcap's "FILE: why" names the file a second time */
		const char *why = strncmp(err, file, n) == 0 && strncmp(err + n, ": ", 2) == 0 ?
				  err + n + 2 : err;

		fprintf(stderr, "rk-gen: --replay %s: %s\n", file, why);
		return NULL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "rk-gen: --replay %s: link type %s; rk-gen replays Ethernet "
			"captures only\n", file, pcap_datalink_val_to_name(pcap_datalink(p)) ?
			pcap_datalink_val_to_name(pcap_datalink(p)) : "unknown");
		pcap_close(p);
		return NULL;
	}
	return p;
}

/* The next frame of the capture, starting it over at its end while loops
 * are left: 1, 0 at the end, -1 on a read error (said). */
static int
read_frame(struct replay *r, struct pcap_pkthdr **h, const u_char **data)
{
	for (;;) {
		int rc = pcap_next_ex(r->p, h, data);

		if (rc == 1)
			return 1;
		if (rc != PCAP_ERROR_BREAK) {
			fprintf(stderr, "rk-gen: --replay %s: %s after %llu frames\n", r->o->file,
				pcap_geterr(r->p), (unsigned long long)r->st.read);
			return -1;
		}
		if (r->st.read == 0) {
			fprintf(stderr, "rk-gen: --replay %s: no frames\n", r->o->file);
			return -1;
		}
		if (r->o->loops != 0 && r->loop >= r->o->loops)
			return 0;
		pcap_close(r->p);
		if ((r->p = open_capture(r->o->file)) == NULL)
			return -1;
		r->loop++;
		r->first_of_loop = true;
	}
}

static int
replay_next(void *src, struct rk_gen_frame *f, double *t_ns)
{
	struct replay *r = src;
	uint8_t *frame = r->frame;
	uint32_t cap = sizeof(r->frame);
	int prev_len = f->len;
	const struct rk_gen_replay_opts *o = r->o;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t ts;
	int rc = read_frame(r, &h, &data);

	f->len = 0;
	if (rc <= 0)
		return rc;
	if (h->caplen > cap) {
		fprintf(stderr, "rk-gen: --replay %s: frame %llu has %u bytes; at most %u\n",
			o->file, (unsigned long long)r->st.read + 1, h->caplen, cap);
		return -1;
	}
	r->st.read++;
	if (h->caplen < h->len)
		r->st.cut++;
	memcpy(frame, data, h->caplen);
	rk_gen_rewrite_frame(&o->rw, frame, h->caplen, &r->st.rw);
	ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
	if (o->rate_unit != RK_GEN_RATE_NONE) {
		if (prev_len > 0)
			*t_ns += rk_gen_gap_ns(o->rate_unit, o->rate, (uint32_t)prev_len,
					       r->line_rate_bps);
	} else {
		if (r->first_of_loop) {
			/* A loop starts one frame time after the one before ends. */
			r->ts0_ns = ts;
			r->base_ns = prev_len > 0 ? r->last_ns + rk_gen_gap_ns(RK_GEN_RATE_PERCENT,
						    100, (uint32_t)prev_len, r->line_rate_bps) : 0;
		}
		/* A timestamp going back (merged captures) sends at once. */
		*t_ns = r->base_ns + (ts > r->ts0_ns ? (double)(ts - r->ts0_ns) : 0) / o->speed;
		if (*t_ns < r->last_ns)
			*t_ns = r->last_ns;
	}
	r->first_of_loop = false;
	r->last_ns = *t_ns;
	*f = (struct rk_gen_frame){ .data = frame, .len = (int)h->caplen, .tmpl = RK_GEN_TMPL_NONE };
	return f->len;
}

static void
replay_free(void *src)
{
	struct replay *r = src;

	if (r->o->stats != NULL)
		*r->o->stats = r->st;
	if (r->p != NULL)
		pcap_close(r->p);
	free(r);
}

static const struct rk_gen_source_ops replay_ops = {
	.next = replay_next,
	.free = replay_free,
};

int
rk_gen_replay_add(struct rk_gen_sched *s, const struct rk_gen_replay_opts *o)
{
	struct replay *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		fprintf(stderr, "rk-gen: out of memory\n");
		return -1;
	}
	r->o = o;
	r->line_rate_bps = s->line_rate_bps;
	r->loop = 1;
	r->first_of_loop = true;
	if ((r->p = open_capture(o->file)) == NULL) {
		free(r);
		return -1;
	}
	if (rk_gen_sched_add(s, &replay_ops, r, o->file) == -ENOMEM) {
		fprintf(stderr, "rk-gen: out of memory\n");
		return -1;
	}
	return s->failed ? -1 : 0;
}
