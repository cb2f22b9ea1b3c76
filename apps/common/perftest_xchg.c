/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's exchange messages (rk_app_perftest.h): the preamble, the key
 * message in its text and binary forms, and the bw report.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_app_perftest.h"
#include "rk_byteorder.h"

void
rk_pt_keys_encode(const struct rk_pt_dest *d, char msg[RK_PT_KEY_LEN])
{
	int n = snprintf(msg, RK_PT_KEY_LEN, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":", d->lid,
			 d->out_reads, d->qpn, d->psn, d->rkey, d->vaddr);

	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, (size_t)(RK_PT_KEY_LEN - n), "%02x:", d->gid[i]);
	snprintf(msg + n, (size_t)(RK_PT_KEY_LEN - n), "%08x:", d->srqn);
}

int
rk_pt_keys_decode(struct rk_pt_dest *d, const char msg[RK_PT_KEY_LEN])
{
	char tmp[RK_PT_KEY_LEN + 1], *save = NULL, *tok;
	uint64_t f[23];
	int n = 0;

	if (memchr(msg, '\0', RK_PT_KEY_LEN) == NULL)
		return -EINVAL;
	memcpy(tmp, msg, RK_PT_KEY_LEN);
	tmp[RK_PT_KEY_LEN] = '\0';
	for (tok = strtok_r(tmp, ":", &save); tok != NULL && n < 23;
	     tok = strtok_r(NULL, ":", &save)) {
		char *end;

		f[n++] = strtoull(tok, &end, 16);
		if (*end != '\0')
			return -EINVAL;
	}
	if (n < 22)
		return -EINVAL;
	d->lid = (uint32_t)f[0];
	d->out_reads = (uint32_t)f[1];
	d->qpn = (uint32_t)f[2];
	d->psn = (uint32_t)f[3];
	d->rkey = (uint32_t)f[4];
	d->vaddr = f[5];
	for (int i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)f[6 + i];
	d->srqn = n > 22 ? (uint32_t)f[22] : 0;
	return d->qpn <= 0xffffff && d->psn <= 0xffffff ? 0 : -EINVAL;
}

int
rk_pt_keys_xchg(rk_pt_xchg_fn x, void *ctx, const struct rk_pt_dest *mine,
		struct rk_pt_dest *theirs, char bad[41])
{
	char m[RK_PT_KEY_LEN], t[RK_PT_KEY_LEN];
	struct rk_pt_dest got;

	rk_pt_keys_encode(mine, m);
	if (x(ctx, m, t, sizeof(m)) != 0)
		return -1;
	if (rk_pt_keys_decode(&got, t) != 0) {
		snprintf(bad, 41, "%.40s", t);
		return -EINVAL;
	}
	if (theirs != NULL)
		*theirs = got;
	return 0;
}

void
rk_pt_keys_bin_encode(const struct rk_pt_dest *d, uint8_t msg[RK_PT_KEY_BIN_LEN])
{
	memset(msg, 0, RK_PT_KEY_BIN_LEN);
	rk_put_be32(msg, d->lid);
	rk_put_be32(msg + 4, d->out_reads);
	rk_put_be32(msg + 8, d->qpn);
	rk_put_be32(msg + 12, d->psn);
	rk_put_be32(msg + 16, d->rkey);
	rk_put_be64(msg + 24, d->vaddr);
	memcpy(msg + 32, d->gid, 16);
	rk_put_be32(msg + 48, d->srqn);
	rk_put_be32(msg + 52, 1);
}

bool
rk_pt_keys_bin_decode(struct rk_pt_dest *d, const uint8_t msg[RK_PT_KEY_BIN_LEN])
{
	if (rk_get_be32(msg + 16) == 0 && rk_get_be64(msg + 24) == 0)
		return false;
	d->lid = rk_get_be32(msg);
	d->out_reads = rk_get_be32(msg + 4);
	d->qpn = rk_get_be32(msg + 8) & 0xffffff;
	d->psn = rk_get_be32(msg + 12) & 0xffffff;
	d->rkey = rk_get_be32(msg + 16);
	d->vaddr = rk_get_be64(msg + 24);
	memcpy(d->gid, msg + 32, 16);
	d->srqn = rk_get_be32(msg + 48);
	return true;
}

int
rk_pt_keys_bin_xchg(rk_pt_xchg_fn x, void *ctx, const struct rk_pt_dest *mine,
		    struct rk_pt_dest *theirs)
{
	uint8_t m[RK_PT_KEY_BIN_LEN] = { 0 }, t[RK_PT_KEY_BIN_LEN];

	if (mine != NULL)
		rk_pt_keys_bin_encode(mine, m);
	if (x(ctx, m, t, sizeof(m)) != 0)
		return -1;
	if (theirs != NULL)
		(void)rk_pt_keys_bin_decode(theirs, t);
	return 0;
}

int
rk_pt_preamble(rk_pt_xchg_fn x, void *ctx, const char mtu[2], char rmtu[3],
	       char rver[RK_PT_VERSION_LEN + 1], uint32_t *peer_cycle)
{
	char ver[RK_PT_VERSION_LEN] = RK_PT_VERSION;
	uint8_t mine[4], theirs[4];

	memset(rver, 0, RK_PT_VERSION_LEN + 1);
	memset(rmtu, 0, 3);
	if (x(ctx, ver, rver, RK_PT_VERSION_LEN) != 0)
		return -1;
	if (rver[0] < '5' || rver[0] > '9')
		return -EPROTO;
	rk_put_be32(mine, RK_PT_CYCLE);
	if (x(ctx, mine, theirs, 4) != 0)
		return -1;
	*peer_cycle = rk_get_be32(theirs);
	rk_put_be32(mine, RK_PT_CACHE_LINE);
	if (x(ctx, mine, theirs, 4) != 0)
		return -1;
	return x(ctx, mtu, rmtu, 2);
}

static void
put_double(uint8_t *b, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	rk_put_be64(b, v);
}

static double
get_double(const uint8_t *b)
{
	uint64_t v = rk_get_be64(b);
	double d;

	memcpy(&d, &v, 8);
	return d;
}

int
rk_pt_reports(rk_pt_xchg_fn x, void *ctx, const struct rk_pt_report *mine,
	      struct rk_pt_report *theirs)
{
	uint8_t m[5][8], t[5][8];

	rk_put_be64(m[0], mine->size);
	rk_put_be64(m[1], mine->iters);
	put_double(m[2], mine->peak_mbs);
	put_double(m[3], mine->avg_mbs);
	put_double(m[4], mine->mpps);
	for (int i = 0; i < 5; i++)
		if (x(ctx, m[i], t[i], 8) != 0)
			return -1;
	*theirs = (struct rk_pt_report){
		.size = rk_get_be64(t[0]), .iters = rk_get_be64(t[1]),
		.peak_mbs = get_double(t[2]), .avg_mbs = get_double(t[3]),
		.mpps = get_double(t[4]),
	};
	return 0;
}

uint64_t
rk_pt_word_sum(const uint8_t *b, size_t len)
{
	uint64_t s = 0, v;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		memcpy(&v, b + i, 8);
		s += v;
	}
	return s;
}
