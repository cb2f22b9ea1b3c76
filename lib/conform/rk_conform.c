/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runner of conformance cases: a fresh QP per case, frames sent with
 * their edits, bounded waits for answers, verdicts with reasons.
 */
#include "rk_conform.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_pkt.h"

#define FRAME_MAX 4608u
#define DEFAULT_TIMEOUT_NS 50000000ull
/* A case waits a few times; past this many it is stopped as a runaway. */
#define MAX_WAITS 64u

const char *
rk_conform_transport_name(enum rk_conform_transport t)
{
	switch (t) {
	case RK_CONFORM_RC: return "RC";
	case RK_CONFORM_UC: return "UC";
	case RK_CONFORM_UD: return "UD";
	case RK_CONFORM_IWARP: return "iWARP";
	case RK_CONFORM_CM: return "CM";
	}
	return "?";
}

const char *
rk_conform_verdict_name(enum rk_conform_verdict v)
{
	switch (v) {
	case RK_CONFORM_PASS: return "pass";
	case RK_CONFORM_FAIL: return "FAIL";
	case RK_CONFORM_NA: return "n/a";
	}
	return "?";
}

static void vset(struct rk_conform_run *r, enum rk_conform_verdict v, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void
vset(struct rk_conform_run *r, enum rk_conform_verdict v, const char *fmt, va_list ap)
{
	/* The first failure is the one that explains; keep it. */
	if (r->res->verdict != RK_CONFORM_PASS)
		return;
	r->res->verdict = v;
	vsnprintf(r->res->reason, sizeof(r->res->reason), fmt, ap);
}

bool
rk_conform_fail(struct rk_conform_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(r, RK_CONFORM_FAIL, fmt, ap);
	va_end(ap);
	return false;
}

void
rk_conform_na(struct rk_conform_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(r, RK_CONFORM_NA, fmt, ap);
	va_end(ap);
}

static uint64_t
now(const struct rk_conform_run *r)
{
	return r->env->ops->now_ns(r->env->io);
}

/* Apply @p m to a crafted frame; fix the ICRC after header edits. */
static int
mangle(uint8_t *f, uint32_t len, enum rk_conform_mangle m)
{
	struct rk_pkt p;
	uint8_t *bth;

	if (m == RK_CONFORM_M_NONE)
		return 0;
	if (rk_pkt_parse(&p, f, len, len, RK_LINK_ETHERNET, NULL) != 0 || p.bth_off == 0 ||
	    p.icrc_off == 0)
		return -EINVAL;
	bth = f + p.bth_off;
	switch (m) {
	case RK_CONFORM_M_BAD_ICRC:
		f[p.icrc_off] ^= 0x01;
		return 0;
	case RK_CONFORM_M_TVER:
		bth[1] = (uint8_t)((bth[1] & 0xf0) | 0x01);
		break;
	case RK_CONFORM_M_PKEY:
		bth[2] = 0x71;
		bth[3] = 0x23;
		break;
	case RK_CONFORM_M_MIGREQ:
		bth[1] |= 0x40;
		break;
	case RK_CONFORM_M_RESV_BTH:
		bth[8] |= 0x7f;         /* Resv7 after AckReq */
		break;
	case RK_CONFORM_M_BAD_QPN:
		bth[5] ^= 0x5a;
		break;
	case RK_CONFORM_M_ECN_CE:
	case RK_CONFORM_M_ECN_CE_BAD_ICRC:
		/* The ICRC masks the ECN bits (A17.3.3): only the IP checksum changes. */
		if (p.ip_version == 4) {
			rk_ipv4_set_ecn(f + p.l3_off, RK_ECN_CE);
			rk_ipv4_fill_csum(f + p.l3_off);
		} else {
			rk_ipv6_set_ecn(f + p.l3_off, RK_ECN_CE);
		}
		if (m == RK_CONFORM_M_ECN_CE_BAD_ICRC)
			f[p.icrc_off] ^= 0x01;
		return 0;
	case RK_CONFORM_M_FECN_BECN:
		rk_bth_set_fecn(bth, 1);
		rk_bth_set_becn(bth, 1);
		break;
	case RK_CONFORM_M_UDP_CSUM:
		/* Offset 6 of the UDP header; the ICRC masks it (A17.3.3). */
		f[p.l4_off + 6] = 0x12;
		f[p.l4_off + 7] = 0x34;
		return 0;
	default:
		return -EINVAL;
	}
	if (rk_pkt_parse(&p, f, len, len, RK_LINK_ETHERNET, NULL) != 0)
		return -EINVAL;
	return rk_pkt_fix_icrc(&p, f) == 0 ? 0 : -EINVAL;
}

int
rk_conform_send(struct rk_conform_run *r, const struct rk_probe_intent *in,
		enum rk_conform_mangle m)
{
	uint8_t buf[FRAME_MAX];
	int n = rk_probe_craft(&r->probe.target, in, buf, sizeof(buf));
	int rc;

	if (n < 0) {
		rk_conform_fail(r, "tester could not craft opcode 0x%02x: %s", in->opcode,
				strerror(-n));
		return n;
	}
	if ((rc = mangle(buf, (uint32_t)n, m)) != 0) {
		rk_conform_fail(r, "tester could not edit the frame");
		return rc;
	}
	if (r->env->on_frame != NULL)
		r->env->on_frame(r->env->frame_ctx, true, buf, (uint32_t)n, now(r));
	rc = r->env->ops->tx(r->env->io, buf, (uint32_t)n);
	if (r->env->ops->flush != NULL)
		r->env->ops->flush(r->env->io);
	r->res->frames_tx++;
	if (rc < 0)
		rk_conform_fail(r, "transmit failed: %s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

int
rk_conform_wait(struct rk_conform_run *r, struct rk_probe_answer *out, unsigned int max,
		unsigned int want)
{
	uint64_t timeout = r->env->timeout_ns ? r->env->timeout_ns : DEFAULT_TIMEOUT_NS;
	uint64_t deadline;
	uint8_t buf[FRAME_MAX];
	unsigned int got = 0;

	if (++r->waits > MAX_WAITS) {
		rk_conform_fail(r, "case waited more than %u times", MAX_WAITS);
		return -ETIMEDOUT;
	}
	deadline = now(r) + timeout;
	while (got < want && got < max) {
		int n = r->env->ops->rx(r->env->io, buf, sizeof(buf));
		struct rk_probe_answer a;

		if (n < 0) {
			rk_conform_fail(r, "receive failed: %s", strerror(-n));
			return n;
		}
		if (n > 0) {
			if (r->env->on_frame != NULL)
				r->env->on_frame(r->env->frame_ctx, false, buf, (uint32_t)n, now(r));
			r->res->frames_rx++;
			/* Frames of other flows, or garbage, are no answer of this QP. */
			if (rk_probe_answer(buf, (uint32_t)n, &a) == 0)
				out[got++] = a;
		}
		/* Checked after every read: a DUT that never stops sending ends too. */
		if (now(r) >= deadline)
			break;
	}
	return (int)got;
}

const char *
rk_conform_answer_str(const struct rk_probe_answer *a, unsigned int n, char *buf, size_t len)
{
	static const char *const nak[] = { "SEQ", "INV", "RACC", "ROP", "INV-RD" };
	size_t off = 0;

	if (n == 0) {
		snprintf(buf, len, "nothing");
		return buf;
	}
	buf[0] = 0;
	for (unsigned int i = 0; i < n && off + 24 < len; i++) {
		const char *sep = i ? ", " : "";
		int w;

		switch (a[i].kind) {
		case RK_PROBE_ACK:
			w = snprintf(buf + off, len - off, "%sACK psn 0x%06x", sep, a[i].psn);
			break;
		case RK_PROBE_NAK:
			w = snprintf(buf + off, len - off, "%sNAK-%s psn 0x%06x", sep,
				     a[i].code < 5 ? nak[a[i].code] : "?", a[i].psn);
			break;
		case RK_PROBE_RNR_NAK:
			w = snprintf(buf + off, len - off, "%sRNR-NAK(%u) psn 0x%06x", sep, a[i].code,
				     a[i].psn);
			break;
		case RK_PROBE_READ_RESP:
			w = snprintf(buf + off, len - off, "%sREAD-RESP psn 0x%06x", sep, a[i].psn);
			break;
		case RK_PROBE_ATOMIC_ACK:
			w = snprintf(buf + off, len - off, "%sATOMIC-ACK psn 0x%06x", sep, a[i].psn);
			break;
		case RK_PROBE_CNP:
			w = snprintf(buf + off, len - off, "%sCNP to QP 0x%06x", sep, a[i].dest_qp);
			break;
		default:
			w = snprintf(buf + off, len - off, "%sopcode 0x%02x", sep, a[i].opcode);
			break;
		}
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

void
rk_conform_aim(struct rk_conform_run *r)
{
	const struct rk_conform_env *env = r->env;

	r->probe.ops = env->ops;
	r->probe.io = env->io;
	memcpy(r->probe.target.src_mac, env->src_mac, 6);
	memcpy(r->probe.target.dst_mac, env->dst_mac, 6);
	memcpy(r->probe.target.src_ip, env->src_ip, 16);
	memcpy(r->probe.target.dst_ip, env->dst_ip, 16);
	r->probe.target.ip_version = env->ip_version;
	r->probe.target.dest_qp = r->dut.qpn;
	r->probe.target.epsn = r->dut.epsn;
}

int
rk_conform_run_case(const struct rk_conform_env *env, const struct rk_conform_case *c,
		    struct rk_conform_result *res)
{
	struct rk_conform_need need;
	struct rk_conform_run r;
	char why[160] = "";
	uint64_t t0;
	int rc;

	if (env == NULL || c == NULL || res == NULL)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.env = env;
	r.res = res;
	need = (struct rk_conform_need){ .transport = c->transport, .recvs = c->recvs,
					 .access = c->access, .cc = c->cc };
	if (c->transport == RK_CONFORM_IWARP && env->stream == NULL) {
		rk_conform_na(&r, "the DUT is reached by frames only, not by a stream");
		return 0;
	}
	if (c->transport == RK_CONFORM_CM && env->cm_service_id == 0) {
		rk_conform_na(&r, "no ServiceID of a CM listener on the DUT, nor a QP it connects");
		return 0;
	}
	t0 = env->ops->now_ns(env->io);
	rc = env->setup(env->ctx, &need, &r.dut, why, sizeof(why));
	if (rc != 0) {
		if (rc == -ENOTSUP)
			rk_conform_na(&r, "%s", why[0] ? why : "the DUT cannot set up this QP");
		else
			rk_conform_fail(&r, "setup failed: %s", why[0] ? why : strerror(-rc));
		res->setup_failed = rc != -ENOTSUP;
		return 0;
	}
	if (c->access & ~r.dut.access) {
		uint8_t miss = c->access & ~r.dut.access;

		rk_conform_na(&r, "the DUT %s",
			      miss & RK_CONFORM_ACC_WRITE ? "offers no remote write" :
			      miss & RK_CONFORM_ACC_READ ? "offers no remote read" :
			      miss & RK_CONFORM_ACC_ATOMIC ? "offers no atomics" :
			      miss & RK_CONFORM_ACC_RO ? "offers no read-only region" :
			      "has receives posted on its QP");
		if (env->teardown != NULL)
			env->teardown(env->ctx);
		return 0;
	}
	rk_conform_aim(&r);
	c->run(&r, c->arg);
	if (r.mpa != NULL) {
		rk_probe_mpa_fini(r.mpa);
		free(r.mpa);
	}
	if (env->teardown != NULL)
		env->teardown(env->ctx);
	res->elapsed_ns = env->ops->now_ns(env->io) - t0;
	return 0;
}

bool
rk_conform_id_match(const char *globs, const char *id)
{
	char one[128];

	if (globs == NULL)
		return true;
	while (*globs != 0) {
		size_t n = strcspn(globs, ",");

		if (n > 0 && n < sizeof(one)) {
			memcpy(one, globs, n);
			one[n] = 0;
			if (fnmatch(one, id, 0) == 0)
				return true;
		}
		globs += n + (globs[n] == ',');
	}
	return false;
}

int
rk_conform_markdown(void *file, const char *glob)
{
	FILE *f = file;
	unsigned int n, w = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	if (fprintf(f, "| ID | Transport | Rule | The DUT must |\n|---|---|---|---|\n") < 0)
		return -EIO;
	for (unsigned int i = 0; i < n; i++) {
		if (!rk_conform_id_match(glob, c[i].id))
			continue;
		if (fprintf(f, "| `%s` | %s | %s | %s |\n", c[i].id,
			    rk_conform_transport_name(c[i].transport), c[i].rule, c[i].must) < 0)
			return -EIO;
		w++;
	}
	return (int)w;
}
