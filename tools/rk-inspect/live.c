/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's live input: an interface through libpcap, and the running
 * summary line of a live capture.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "live.h"

pcap_t *
rk_insp_live_open(const char *ifname, char *why, size_t len)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(ifname, errbuf);
	int rc;

	if (p == NULL) {
		snprintf(why, len, "%s: %s", ifname, errbuf);
		return NULL;
	}
	pcap_set_snaplen(p, 262144);
	pcap_set_promisc(p, 1);
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 100);
	/* Nanoseconds where the interface can; else libpcap scales. */
	if (pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) != 0)
		pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_MICRO);
	rc = pcap_activate(p);
	if (rc >= 0)
		return p;
	switch (rc) {
	case PCAP_ERROR_NO_SUCH_DEVICE:
		snprintf(why, len, "%s: no such interface", ifname);
		break;
	case PCAP_ERROR_PERM_DENIED:
		snprintf(why, len, "%s: no permission to capture (it needs CAP_NET_RAW: "
			 "run as root, or setcap cap_net_raw+ep on rk-inspect)", ifname);
		break;
	case PCAP_ERROR_IFACE_NOT_UP:
		snprintf(why, len, "%s: the interface is down", ifname);
		break;
	default:
		snprintf(why, len, "%s: %s", ifname, pcap_geterr(p));
		break;
	}
	pcap_close(p);
	return NULL;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
rk_insp_progress_start(struct rk_insp_progress *p, uint64_t every_ns)
{
	memset(p, 0, sizeof(*p));
	p->every_ns = every_ns;
	p->start_ns = mono_ns();
	p->next_ns = p->start_ns + every_ns;
}

int
rk_insp_progress_tick(struct rk_insp_progress *p, FILE *f,
		      const struct rk_insp_totals *tot, int force)
{
	uint64_t now, span;

	if (p->every_ns == 0)
		return 0;
	now = mono_ns();
	if (!force && now < p->next_ns)
		return 0;
	span = now - (p->next_ns - p->every_ns);
	if (span == 0)
		span = 1;
	fprintf(f, "rk-inspect: %.1f s: %" PRIu64 " frames (%" PRIu64 " RDMA), %" PRIu64
		" errors; last %.1f s: %" PRIu64 " frames, %.3f Gb/s\n",
		(double)(now - p->start_ns) / 1e9, tot->frames, tot->rdma_frames,
		tot->error_findings, (double)span / 1e9, tot->frames - p->last_frames,
		(double)(tot->bytes - p->last_bytes) * 8.0 / (double)span);
	fflush(f);
	p->last_frames = tot->frames;
	p->last_bytes = tot->bytes;
	p->next_ns = now + p->every_ns;
	p->lines++;
	return 1;
}
