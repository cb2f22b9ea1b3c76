/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-inspect's display filter (filter.h). */
#include "filter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_gen_stream.h"
#include "rk_opcode.h"

static int
parse_seconds(const char *arg, uint64_t *ns)
{
	char *end;
	double s = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(s >= 0 && s < 1e9))
		return -1;
	*ns = (uint64_t)(s * 1e9 + 0.5); /* to the nearest ns: 1.071338 is 1071338000 */
	return 0;
}

int
rk_insp_filter_parse(struct rk_insp_filter *f, const char *name, const char *arg, char *why,
		     size_t why_len)
{
	const char *bad = NULL;
	char *end;

	if (strcmp(name, "qp") == 0) {
		unsigned long v = strtoul(arg, &end, 0);

		if (end == arg || *end != '\0' || v > 0xffffff)
			bad = "a QP number 0..0xffffff";
		f->qp = (uint32_t)v;
		f->qp_set = true;
	} else if (strcmp(name, "host") == 0) {
		memset(f->host, 0, sizeof(f->host));
		if (inet_pton(AF_INET, arg, f->host + 12) == 1) {
			f->host[10] = f->host[11] = 0xff;
		} else if (inet_pton(AF_INET6, arg, f->host) != 1) {
			bad = "an IPv4 or IPv6 address";
		}
		f->host_set = true;
	} else if (strcmp(name, "opcode") == 0) {
		if (rk_gen_opcode_parse(arg, &f->opcode) != 0)
			bad = "an opcode number 0..255 or name (\"RC RDMA WRITE Only\", "
			      "RC_RDMA_WRITE_ONLY)";
		f->opcode_set = true;
	} else if (strcmp(name, "finding") == 0) {
		bool known = false;

		/* A typo would look like a capture without findings. */
		for (int i = 0; i < RK_F_COUNT && *arg != '\0'; i++)
			known = known || strncmp(rk_finding_info((enum rk_finding_id)i)->id, arg,
						 strlen(arg)) == 0;
		if (*arg == '\0' || strlen(arg) >= sizeof(f->finding) || !known)
			bad = "a finding ID or its start (icrc.bad, mpa.marker; --list-findings)";
		else
			snprintf(f->finding, sizeof(f->finding), "%s", arg);
	} else if (strcmp(name, "from") == 0 || strcmp(name, "to") == 0) {
		uint64_t *t = name[0] == 'f' ? &f->from_ns : &f->to_ns;

		if (parse_seconds(arg, t) != 0)
			bad = "seconds since the first frame, 0 or more";
		f->to_set |= name[0] == 't';
		if (bad == NULL && f->to_set && f->from_ns > f->to_ns)
			bad = "--from after --to: the window is empty";
	} else {
		bad = "an unknown filter";
	}
	if (bad != NULL) {
		snprintf(why, why_len, "--%s '%s': %s", name, arg, bad);
		return -1;
	}
	f->any = true;
	return 0;
}

bool
rk_insp_filter_frame(const struct rk_insp_filter *f, const struct rk_pkt *pkt, uint64_t ts_ns)
{
	if (!f->any)
		return true;
	if (ts_ns < f->from_ns || (f->to_set && ts_ns > f->to_ns))
		return false;
	if (f->host_set && memcmp(pkt->src_ip, f->host, 16) != 0 &&
	    memcmp(pkt->dst_ip, f->host, 16) != 0)
		return false;
	if ((f->qp_set || f->opcode_set) && !rk_pkt_has_bth(pkt))
		return false;
	if (f->qp_set && (rk_get_be32(rk_pkt_bth(pkt) + 4) & 0xffffff) != f->qp)
		return false;
	return !f->opcode_set || pkt->opcode == f->opcode;
}

bool
rk_insp_filter_findings(const struct rk_insp_filter *f, const struct rk_findings *found)
{
	size_t n = strlen(f->finding);

	if (n == 0)
		return true;
	for (unsigned int i = 0; i < found->count; i++)
		if (strncmp(rk_finding_info((enum rk_finding_id)found->list[i].id)->id, f->finding, n) == 0)
			return true;
	return false;
}
