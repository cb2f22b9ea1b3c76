/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Feeds a capture through the plugin's analysis without Wireshark (libpcap),
 * with message payloads kept, and checks the FPDU, message and spanning
 * counts against the OUT.expect file gen_gso writes; then frees everything,
 * so the sanitizer build's leak checker sees every reference count.
 *
 * usage: rkw_replay CAPTURE.pcap   (reads CAPTURE.pcap.expect)
 * exit 0 when the counts match, 1 when not, 2 on a usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "rkw_analysis.h"

int
main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE], path[4096], key[32];
	unsigned long want_fpdus = 0, want_msgs = 0, fpdus = 0, msgs = 0, with_data = 0;
	unsigned long num = 0, want_bytes[16], nwant = 0, found = 0;
	struct rkw_opts o = { .check_icrc = true, .keep_payload = true };
	struct pcap_pkthdr *h;
	const u_char *data;
	struct rkw_state *s;
	pcap_t *p;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: rkw_replay CAPTURE.pcap\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s.expect", argv[1]);
	f = fopen(path, "r");
	p = pcap_open_offline(argv[1], err);
	if (f == NULL || p == NULL) {
		fprintf(stderr, "rkw_replay: cannot read %s or %s\n", argv[1], path);
		return 2;
	}
	while (fscanf(f, "%31s", key) == 1) {
		char v1[64], v2[64];

		if (strcmp(key, "msglen") == 0 || strcmp(key, "taglen") == 0) {
			if (fscanf(f, "%63s %63s", v1, v2) == 2 && nwant < 16)
				want_bytes[nwant++] = strtoul(v2, NULL, 10);
		} else if (fscanf(f, "%63s", v1) == 1) {
			if (strcmp(key, "fpdus") == 0)
				want_fpdus = strtoul(v1, NULL, 10);
			else if (strcmp(key, "messages") == 0)
				want_msgs = strtoul(v1, NULL, 10);
		}
	}
	fclose(f);

	s = rkw_new(&o);
	while (pcap_next_ex(p, &h, &data) == 1) {
		struct rk_pkt pkt;

		rkw_feed(s, (uint32_t)++num, data, h->caplen, h->len, RK_LINK_ETHERNET,
			 (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * 1000u, &pkt);
	}
	pcap_close(p);
	rkw_finish(s);
	for (unsigned long i = 1; i <= num; i++) {
		const struct rkw_frame *r = rkw_lookup(s, (uint32_t)i);

		if (r == NULL)
			continue;
		fpdus += r->iw_fpdus;
		msgs += r->iw_msgs;
		for (uint32_t k = 0; k < r->nfpdu; k++) {
			const struct rkw_fpdu *u = &r->fpdu[k];

			if (u->msg_data == NULL)
				continue;
			with_data++;
			if (g_bytes_get_size(u->msg_data) != u->msg_len) {
				printf("FAIL frame %lu: %zu bytes kept for a %llu-byte message\n", i,
				       (size_t)g_bytes_get_size(u->msg_data),
				       (unsigned long long)u->msg_len);
				with_data = 0;
				break;
			}
			for (unsigned long w = 0; w < nwant; w++)
				found += u->msg_len == want_bytes[w];
		}
	}
	rkw_free(s);
	printf("FPDUs %lu (want %lu), messages %lu (want %lu), messages with data %lu, "
	       "listed lengths found %lu of %lu\n", fpdus, want_fpdus, msgs, want_msgs, with_data,
	       found, nwant);
	return fpdus == want_fpdus && msgs == want_msgs && with_data == msgs && found >= nwant &&
	       want_fpdus != 0 ? 0 : 1;
}
