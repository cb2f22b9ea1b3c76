/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-conform --replay (see replay.h).
 */
#include "replay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_FRAMES_MAX 200000u
#define REC_FRAME_MAX 9216u

static void
print_diff(void *ctx, const char *line)
{
	(void)ctx;
	printf("DIFF %s\n", line);
}

/* Every Ethernet frame of @p path; those cut by the snaplen keep their wire length. */
int
rk_cf_recording_load(const char *path, struct rk_cf_recording *r)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t used = 0, cap = 1u << 20;
	int rc;

	if (p == NULL) {
		/* libpcap names the file in some errors, not in others. */
		if (strstr(err, path) != NULL)
			fprintf(stderr, "rk-conform: --replay: %s\n", err);
		else
			fprintf(stderr, "rk-conform: --replay %s: %s\n", path, err);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "rk-conform: --replay %s: link type %s, not Ethernet\n", path,
			pcap_datalink_val_to_name(pcap_datalink(p)));
		pcap_close(p);
		return -1;
	}
	r->f = calloc(REC_FRAMES_MAX, sizeof(*r->f));
	r->bytes = malloc(cap);
	if (r->f == NULL || r->bytes == NULL)
		goto nomem;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1 && r->n < REC_FRAMES_MAX) {
		if (h->caplen > REC_FRAME_MAX)
			continue;
		if (used + h->caplen > cap) {
			uint8_t *nb;

			cap *= 2;
			if ((nb = realloc(r->bytes, cap)) == NULL)
				goto nomem;
			r->bytes = nb;
		}
		memcpy(r->bytes + used, d, h->caplen);
		r->f[r->n].len = h->caplen;
		r->f[r->n].wire_len = h->len;
		/* Offsets now, pointers once the buffer stops moving. */
		r->f[r->n++].data = (const uint8_t *)(uintptr_t)used;
		used += h->caplen;
	}
	if (rc == -1) {
		r->truncated = true;
		fprintf(stderr, "rk-conform: --replay %s: %s (the verdicts are on the frames "
			"before it; exit status 2)\n", path, pcap_geterr(p));
	}
	pcap_close(p);
	for (unsigned int i = 0; i < r->n; i++)
		r->f[i].data = r->bytes + (uintptr_t)r->f[i].data;
	if (r->n == 0) {
		fprintf(stderr, "rk-conform: --replay %s: no frame in it\n", path);
		return -1;
	}
	return 0;
nomem:
	fprintf(stderr, "rk-conform: --replay %s: out of memory\n", path);
	pcap_close(p);
	return -1;
}

void
rk_cf_recording_free(struct rk_cf_recording *r)
{
	free(r->f);
	free(r->bytes);
	memset(r, 0, sizeof(*r));
}

int
rk_cf_replay(const struct rk_cf_recording *r, const char *path,
	     const struct rk_conform_conv *conv, enum rk_cf_replay_name name,
	     const struct rk_conform_env *env, struct rk_conform_case *c, char id[96],
	     struct rk_cf_outcome *out)
{
	struct rk_conform_replay_result res = { .on_diff = print_diff };
	char *dup = strdup(path), from[INET6_ADDRSTRLEN] = "";
	int rc;

	if (dup == NULL)
		return -1;
	if (conv != NULL) {
		res.dest_qp = conv->dest_qp;
		res.requester_set = name == RK_CF_NAME_QP_FROM;
		memcpy(res.requester, conv->requester, 16);
		rk_conform_conv_addr(conv->requester, from, sizeof(from));
	}
	/* Two conversations of one recording are two cases. */
	if (name == RK_CF_NAME_FILE)
		snprintf(id, 96, "replay.%s", basename(dup));
	else
		snprintf(id, 96, "replay.%.50s.qp0x%06x%s%s", basename(dup), res.dest_qp,
			 name == RK_CF_NAME_QP_FROM ? "@" : "",
			 name == RK_CF_NAME_QP_FROM ? from : "");
	free(dup);
	*c = (struct rk_conform_case){
		.id = id, .rule = "the recorded peer's answers",
		.must = "answer the recorded requests as the recorded peer did",
		.transport = RK_CONFORM_RC,
	};
	rc = rk_conform_replay(env, r->f, r->n, &res);
	if (rc != 0) {
		fprintf(stderr, "rk-conform: --replay %s: %s\n", path, strerror(-rc));
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->c = c;
	out->res.verdict = res.verdict;
	snprintf(out->res.reason, sizeof(out->res.reason), "%.191s", res.reason);
	out->res.frames_tx = res.frames_tx;
	out->res.frames_rx = res.frames_rx;
	out->res.elapsed_ns = res.elapsed_ns;
	printf("replayed %u requests of %s; %u of %u recorded answers alike, %u difference%s\n",
	       res.requests, path, res.matched, res.answers, res.diffs, res.diffs == 1 ? "" : "s");
	if (res.pmtu != 0)
		printf("path MTU %s%u, learnt from the recording's %s\n",
		       res.pmtu_exact ? "" : "at least ", res.pmtu,
		       res.pmtu_exact ? "FIRST or MIDDLE packets" : "largest payload");
	if (res.cut > 0)
		printf("%u frame%s cut by the capture's snaplen (caplen < len), not replayed\n",
		       res.cut, res.cut == 1 ? "" : "s");
	return 0;
}
