/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Re-animation of a recorded RC conversation against a live DUT (see
 * rk_conform_replay() in rk_conform.h): the requester's packets rewritten
 * to the DUT's fresh QP, sent in recorded order, each recorded answer
 * waited for and compared with the live one.
 */
#include "rk_conform.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_opcode.h"
#include "rk_pkt.h"

#define DIFF_MAX 16u            /* a replay that lost step stops here */
#define ANSWERS 16u

struct step {
	bool request;           /* else an answer of the recorded responder */
	uint32_t frame;         /* index in the recording, from 0 */
	struct rk_bth_fields bth;
	struct rk_xeth_fields x;
	const uint8_t *payload;
	uint32_t len;
	struct rk_probe_answer ans;
};

struct replay {
	struct rk_conform_replay_result *res;
	struct rk_conform_run run;
	struct step *s;
	unsigned int n;
	uint32_t psn0;          /* the first request's PSN */
	uint64_t va_min;        /* lowest VA the requests name */
	uint64_t va_span;       /* bytes from va_min to the end of the last access */
	uint32_t live_acked;    /* the live DUT's highest ACK, relative to psn0 */
	bool acked;
	uint32_t dqp, req_qp;   /* the conversation's DestQPs: responder's, requester's */
	bool req_qp_known;
};

static uint32_t
psn_rel(uint32_t psn, uint32_t psn0)
{
	return (psn - psn0) & 0xffffff;
}

static void
diff(struct replay *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
diff(struct replay *rp, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (rp->res->diffs++ == 0)
		snprintf(rp->res->first_diff, sizeof(rp->res->first_diff), "%s", line);
	if (rp->res->on_diff != NULL)
		rp->res->on_diff(rp->res->diff_ctx, line);
}

/*
 * Keep only the answers toward the requester's QP. A request names only
 * the responder's QP, so the requester's is the DestQP of the first
 * answer whose PSN lies among the requests' (@p psn_hi past the first):
 * answers to the requester's other QPs (a perftest -R recording's
 * RDMA-CM exchange beside its data QP) are left out.
 */
static void
answers_to_requester(struct replay *rp, uint32_t psn_hi)
{
	uint32_t req_qp = 0;
	bool found = false;
	unsigned int k = 0;

	for (unsigned int i = 0; i < rp->n && !found; i++) {
		if (!rp->s[i].request && psn_rel(rp->s[i].bth.psn, rp->psn0) <= psn_hi) {
			req_qp = rp->s[i].bth.dest_qp;
			found = true;
		}
	}
	for (unsigned int i = 0; i < rp->n; i++)
		if (rp->s[i].request || (found && rp->s[i].bth.dest_qp == req_qp))
			rp->s[k++] = rp->s[i];
	rp->n = k;
	rp->req_qp = req_qp;
	rp->req_qp_known = found;
}

static bool
cut(const struct rk_conform_rec_frame *f)
{
	return f->wire_len > f->len;
}

/*
 * Whether @p f is a whole RoCE frame of an RC opcode (IBTA Vol1 9.2) with
 * its BTH: then *@p p is parsed and @p src holds the IP source address
 * (IPv4 as ::ffff:a.b.c.d, IPv6 as is). What a conversation is made of,
 * for the replay and for the list of conversations alike.
 */
static bool
rc_frame(const struct rk_conform_rec_frame *f, struct rk_pkt *p, uint8_t src[16])
{
	const struct rk_opcode_info *oi;

	if (cut(f) || rk_pkt_parse(p, f->data, f->len, f->len, RK_LINK_ETHERNET, NULL) != 0 ||
	    !rk_pkt_has_bth(p) || p->l3_off == 0 || p->truncated || p->bth_off + 12 > f->len)
		return false;
	oi = rk_opcode_info(p->opcode);
	if (oi->transport != RK_TR_RC || !(oi->flags & RK_OPF_VALID))
		return false;
	memset(src, 0, 16);
	if ((f->data[p->l3_off] >> 4) == 4) {
		src[10] = src[11] = 0xff;
		memcpy(src + 12, f->data + p->l3_off + 12, 4);
	} else
		memcpy(src, f->data + p->l3_off + 8, 16);
	return true;
}

/*
 * Whether cut frame @p f may belong to the conversation: RC to either of
 * its QPs, or RoCEv2 cut before the BTH could be read. Those make the
 * replay n/a; the others are only counted.
 */
static bool
cut_in_conversation(const struct replay *rp, const struct rk_conform_rec_frame *f)
{
	const uint8_t *b;
	struct rk_pkt p;
	uint32_t qp;

	if (rk_pkt_parse(&p, f->data, f->len, f->wire_len, RK_LINK_ETHERNET, NULL) != 0)
		return true;    /* not even its headers read: in doubt */
	if (!rk_pkt_has_bth(&p) || p.bth_off + 8 > f->len)
		return p.l4_off != 0 && f->len >= p.l4_off + 4 &&
		       f->data[p.l4_off + 2] == 0x12 && f->data[p.l4_off + 3] == 0xb7;
	b = f->data + p.bth_off;
	if (rk_opcode_info(b[0])->transport != RK_TR_RC)
		return false;
	qp = rk_get_be24(b + 5);
	return qp == rp->dqp || (rp->req_qp_known && qp == rp->req_qp);
}

static uint32_t
mtu_up(uint32_t len)
{
	uint32_t m = 256;

	while (m < len && m < 4096)
		m <<= 1;
	return m;
}

/*
 * The recording's path MTU: a FIRST or MIDDLE packet carries exactly one
 * (IBTA Vol1 C9-92), so its payload says it; else the least MTU that
 * carries the largest ONLY or LAST payload, as every message the
 * recording holds then stays one packet or keeps its segments.
 */
static void
learn_pmtu(struct replay *rp)
{
	uint32_t exact = 0, least = 0;

	for (unsigned int i = 0; i < rp->n; i++) {
		uint32_t fl = rk_opcode_info(rp->s[i].bth.opcode)->flags;
		uint32_t len = rp->s[i].len;

		if ((fl & RK_OPF_MIDDLE) || (fl & RK_OPF_ONLY) == RK_OPF_FIRST)
			exact = len > exact ? len : exact;
		else
			least = len > least ? len : least;
	}
	rp->res->pmtu_exact = exact > 0;
	rp->res->pmtu = exact > 0 ? mtu_up(exact) : least > 0 ? mtu_up(least) : 0;
}

void
rk_conform_conv_addr(const uint8_t a[16], char *s, size_t len)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(a, v4mapped, 12) == 0)
		inet_ntop(AF_INET, a + 12, s, (socklen_t)len);
	else
		inet_ntop(AF_INET6, a, s, (socklen_t)len);
}

/*
 * The recorded conversation: RC requests from the requester (the source
 * of the first request, or of the first to res->dest_qp) to that DestQP,
 * and the answers toward the requester's QP.
 */
static int
load(struct replay *rp, const struct rk_conform_rec_frame *f, unsigned int n, char *why,
     size_t wlen)
{
	uint8_t req_ip[16] = { 0 };
	uint32_t dqp = rp->res->dest_qp, psn_hi = 0, seen[8];
	uint8_t from[4][16];            /* requesters to dqp, for the reason */
	unsigned int nseen = 0, nfrom = 0;
	bool have = false;

	rp->s = calloc(n ? n : 1, sizeof(*rp->s));
	if (rp->s == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_pkt p;
		struct step *st = &rp->s[rp->n];
		const struct rk_opcode_info *oi;
		uint8_t src[16];

		if (cut(&f[i])) {
			rp->res->cut++;
			continue;
		}
		if (!rc_frame(&f[i], &p, src))
			continue;
		oi = rk_opcode_info(p.opcode);
		if (rk_parse_ib_headers(f[i].data + p.bth_off, f[i].len - p.bth_off, &st->bth,
					&st->x) < 0)
			continue;
		if (oi->flags & RK_OPF_REQ) {
			if (!have) {
				unsigned int k = 0;

				while (k < nseen && seen[k] != st->bth.dest_qp)
					k++;
				if (k == nseen && nseen < 8)
					seen[nseen++] = st->bth.dest_qp;
				for (k = 0; k < nfrom && memcmp(from[k], src, 16) != 0; k++)
					;
				if (st->bth.dest_qp == dqp && k == nfrom && nfrom < 4)
					memcpy(from[nfrom++], src, 16);
				if ((dqp != 0 && st->bth.dest_qp != dqp) ||
				    (rp->res->requester_set && memcmp(src, rp->res->requester, 16)))
					continue;
				memcpy(req_ip, src, 16);
				dqp = st->bth.dest_qp;
				rp->psn0 = st->bth.psn;
				have = true;
			}
			if (memcmp(src, req_ip, 16) != 0 || st->bth.dest_qp != dqp)
				continue;
			if (psn_rel(st->bth.psn, rp->psn0) > psn_hi)
				psn_hi = psn_rel(st->bth.psn, rp->psn0);
			st->request = true;
			st->payload = f[i].data + p.payload_off;
			st->len = p.payload_len;
		} else if (have && memcmp(src, req_ip, 16) != 0 &&
			   rk_probe_answer(f[i].data, f[i].len, &st->ans) == 0) {
			st->request = false;
			st->len = p.payload_len;
		} else {
			continue;
		}
		st->frame = i;
		rp->n++;
	}
	if (!have && rp->res->cut > 0) {
		snprintf(why, wlen, "the recording holds no whole RC request%s; %u of its %u frames "
			 "cut by the capture's snaplen (caplen < len)",
			 rp->res->dest_qp ? " to that DestQP" : "", rp->res->cut, n);
		return -ENOENT;
	}
	if (!have && rp->res->dest_qp != 0 && nfrom > 0) {
		int at = snprintf(why, wlen, "the recording holds no RC request to DestQP 0x%06x "
				  "from that requester; its requests to it come from",
				  rp->res->dest_qp);

		for (unsigned int k = 0; k < nfrom && at > 0 && (size_t)at < wlen; k++) {
			char a[INET6_ADDRSTRLEN];

			rk_conform_conv_addr(from[k], a, sizeof(a));
			at += snprintf(why + at, wlen - (size_t)at, "%s %s", k ? "," : "", a);
		}
		return -ENOENT;
	}
	if (!have && rp->res->dest_qp != 0) {
		int at = snprintf(why, wlen, "the recording holds no RC request to DestQP 0x%06x;"
				  " its requests go to", rp->res->dest_qp);

		for (unsigned int k = 0; k < nseen && at > 0 && (size_t)at < wlen; k++)
			at += snprintf(why + at, wlen - (size_t)at, "%s 0x%06x", k ? "," : "",
				       seen[k]);
		if (nseen == 0 && at > 0 && (size_t)at < wlen)
			snprintf(why + at, wlen - (size_t)at, " no QP");
		return -ENOENT;
	}
	if (!have) {
		snprintf(why, wlen, "the recording holds no RC request");
		return -ENOENT;
	}
	rp->dqp = dqp;
	answers_to_requester(rp, psn_hi);
	learn_pmtu(rp);
	if (rp->res->cut > 0) {
		unsigned int in = 0;

		for (unsigned int i = 0; i < n; i++)
			in += cut(&f[i]) && cut_in_conversation(rp, &f[i]);
		if (in > 0) {
			snprintf(why, wlen, "%u frame%s of the conversation cut by the capture's "
				 "snaplen (caplen < len): %s cannot be replayed", in,
				 in == 1 ? "" : "s", in == 1 ? "it" : "they");
			return -ENOENT;
		}
	}
	for (unsigned int i = 0; i < rp->n; i++) {
		uint32_t fl;

		if (!rp->s[i].request)
			continue;
		/*
		 * A capture begun inside a message: the DUT never saw its First,
		 * so a Middle or Last is out of sequence to it (OPSEQ-01), not to
		 * the recorded peer. Nothing to tell of the DUT.
		 */
		fl = rk_opcode_info(rp->s[i].bth.opcode)->flags;
		if ((fl & RK_OPF_MIDDLE) || (fl & RK_OPF_ONLY) == RK_OPF_LAST) {
			snprintf(why, wlen, "the recording starts inside a message: its first "
				 "request (frame %u) is a %s", rp->s[i].frame + 1,
				 rk_opcode_info(rp->s[i].bth.opcode)->name);
			return -ENOENT;
		}
		break;
	}
	for (unsigned int i = 0; i < rp->n; i++)
		if (!rp->s[i].request)
			return 0;
	/* with no recorded answer nothing would be compared: not a pass */
	snprintf(why, wlen, "the recording holds no answer to the requests (nothing to compare)");
	return -ENOENT;
}

/* What the requests need of the DUT, and the span of VAs they name. */
static void
needs(struct replay *rp, struct rk_conform_need *need)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	*need = (struct rk_conform_need){ .transport = RK_CONFORM_RC };
	for (unsigned int i = 0; i < rp->n; i++) {
		const struct step *st = &rp->s[i];
		uint32_t fl = rk_opcode_info(st->bth.opcode)->flags;
		uint64_t va = 0, end = 0;

		if (!st->request)
			continue;
		if ((fl & RK_OPF_SEND) || ((fl & RK_OPF_WRITE) && (fl & RK_OPF_IMM)))
			need->recvs += (fl & RK_OPF_LAST) ? 1 : 0;
		if (fl & RK_OPF_WRITE)
			need->access |= RK_CONFORM_ACC_WRITE;
		if (fl & RK_OPF_READ_REQ)
			need->access |= RK_CONFORM_ACC_READ;
		if (fl & RK_OPF_ATOMIC)
			need->access |= RK_CONFORM_ACC_ATOMIC;
		if (rk_opcode_info(st->bth.opcode)->hdrs & (1u << RK_HDR_RETH)) {
			va = st->x.reth_va;
			end = va + st->x.reth_dma_len;
		} else if (fl & RK_OPF_ATOMIC) {
			va = st->x.atmeth_va;
			end = va + 8;
		} else {
			continue;
		}
		lo = va < lo ? va : lo;
		hi = end > hi ? end : hi;
	}
	rp->va_min = lo == UINT64_MAX ? 0 : lo;
	rp->va_span = hi > rp->va_min ? hi - rp->va_min : 0;
}

/*
 * The live VA of a recorded access of @p len bytes at @p va: the same
 * offset in the DUT's region, folded into it when the recording spans
 * more (the answers, not the bytes, are compared).
 */
static uint64_t
live_va(const struct replay *rp, uint64_t va, uint32_t len)
{
	uint64_t off = va - rp->va_min, room = rp->run.dut.len;

	/* Folded 64-byte aligned: an atomic stays 8-byte aligned. */
	if (off + len > room)
		off = len <= room ? (off % (room - len + 1)) & ~(uint64_t)63 : 0;
	return rp->run.dut.va + off;
}

static int
send_request(struct replay *rp, const struct step *st)
{
	const struct rk_opcode_info *oi = rk_opcode_info(st->bth.opcode);
	struct rk_xeth_fields x = st->x;
	struct rk_probe_intent in = {
		.opcode = st->bth.opcode, .psn_off = (int32_t)psn_rel(st->bth.psn, rp->psn0),
		.ack_req = st->bth.ack_req != 0, .x = &x, .payload = st->payload,
		.len = st->len, .pad_cnt = -1,
	};

	if (oi->hdrs & (1u << RK_HDR_RETH)) {
		x.reth_va = live_va(rp, x.reth_va, x.reth_dma_len);
		x.reth_r_key = rp->run.dut.r_key;
	}
	if (oi->flags & RK_OPF_ATOMIC) {
		x.atmeth_va = live_va(rp, x.atmeth_va, 8);
		x.atmeth_r_key = rp->run.dut.r_key;
	}
	rp->res->requests++;
	return rk_conform_send(&rp->run, &in, RK_CONFORM_M_NONE);
}

static const char *
ans_str(const struct rk_probe_answer *a, uint32_t psn, char *b, size_t len)
{
	struct rk_probe_answer c = *a;

	c.psn = psn;
	return rk_conform_answer_str(&c, 1, b, len);
}

/* Whether @p a, a PSN relative to the first request, is at or past @p b. */
static bool
psn_at_or_past(uint32_t a, uint32_t b)
{
	return ((a - b) & 0xffffff) < 0x800000;
}

/*
 * The live answer to recorded answer @p st. ACKs are coalesced as each
 * implementation likes (IBTA Vol1 9.7.5.1.1): a recorded ACK of PSN p is
 * matched by any live ACK at or past p, and the live ACKs before it are
 * taken in passing. Everything else must come alike: kind, opcode, NAK
 * code, PSN.
 */
static void
compare(struct replay *rp, const struct step *st)
{
	uint32_t rel = psn_rel(st->ans.psn, rp->psn0);
	uint32_t want = (rp->run.dut.epsn + rel) & 0xffffff;
	bool ack = st->ans.kind == RK_PROBE_ACK;
	struct rk_probe_answer a;
	char rb[64], lb[64];

	rp->res->answers++;
	ans_str(&st->ans, want, rb, sizeof(rb));
	if (ack && rp->acked && psn_at_or_past(rp->live_acked, rel)) {
		rp->res->matched++;
		return;
	}
	for (;;) {
		uint32_t lrel;

		if (rk_conform_wait(&rp->run, &a, 1, 1) <= 0) {
			diff(rp, "frame %u: recorded %s, live nothing within the timeout",
			     st->frame + 1, rb);
			return;
		}
		rp->run.waits = 0;
		lrel = (a.psn - rp->run.dut.epsn) & 0xffffff;
		if (a.kind == RK_PROBE_ACK) {
			rp->live_acked = lrel;
			rp->acked = true;
			if (!ack || !psn_at_or_past(lrel, rel))
				continue;       /* an earlier coalesced ACK */
			rp->res->matched++;
			return;
		}
		if (a.kind != st->ans.kind || a.opcode != st->ans.opcode || a.psn != want ||
		    ((a.kind == RK_PROBE_NAK || a.kind == RK_PROBE_RNR_NAK) &&
		     a.code != st->ans.code))
			diff(rp, "frame %u: recorded %s (opcode 0x%02x), live %s (opcode 0x%02x)",
			     st->frame + 1, rb, st->ans.opcode, ans_str(&a, a.psn, lb, sizeof(lb)),
			     a.opcode);
		else
			rp->res->matched++;
		return;
	}
}

int
rk_conform_replay(const struct rk_conform_env *env, const struct rk_conform_rec_frame *f,
		  unsigned int n, struct rk_conform_replay_result *res)
{
	struct replay rp = { .res = res };
	struct rk_conform_result cres = { 0 };
	struct rk_conform_need need;
	char why[160] = "";
	uint64_t t0;
	int rc;

	if (env == NULL || res == NULL || (f == NULL && n > 0) || env->ops == NULL)
		return -EINVAL;
	t0 = env->ops->now_ns(env->io);
	res->requests = res->answers = res->matched = res->diffs = res->extra = res->cut = 0;
	res->pmtu = 0;
	res->pmtu_exact = false;
	res->elapsed_ns = 0;
	res->verdict = RK_CONFORM_PASS;
	res->reason[0] = res->first_diff[0] = 0;
	rp.run.env = env;
	rp.run.res = &cres;
	if ((rc = load(&rp, f, n, why, sizeof(why))) != 0)
		goto na;
	needs(&rp, &need);
	need.pmtu = res->pmtu;
	if ((rc = env->setup(env->ctx, &need, &rp.run.dut, why, sizeof(why))) != 0)
		goto out;
	/* Another MTU segments READ responses and long requests otherwise. */
	if (res->pmtu != 0 && (res->pmtu_exact ? rp.run.dut.pmtu != res->pmtu :
			       rp.run.dut.pmtu < res->pmtu)) {
		snprintf(why, sizeof(why), "the DUT's QP has path MTU %u, the recording %s%u: "
			 "the segments would differ", rp.run.dut.pmtu,
			 res->pmtu_exact ? "" : "at least ", res->pmtu);
		if (env->teardown != NULL)
			env->teardown(env->ctx);
		rc = -ENOTSUP;
		goto out;
	}
	if (rp.va_span > 0 && rp.run.dut.len == 0) {
		snprintf(why, sizeof(why), "the DUT offers no region");
		rc = -ENOTSUP;
		goto out;
	}
	rk_conform_aim(&rp.run);
	for (unsigned int i = 0; i < rp.n && res->diffs < DIFF_MAX; i++) {
		/* The runner's bound on waits is per case; a replay waits per answer. */
		rp.run.waits = 0;
		if (rp.s[i].request) {
			if (send_request(&rp, &rp.s[i]) != 0)
				break;
		} else {
			compare(&rp, &rp.s[i]);
		}
	}
	if (res->diffs == 0 && cres.verdict == RK_CONFORM_PASS) {
		struct rk_probe_answer a[ANSWERS];
		int more;

		rp.run.waits = 0;
		more = rk_conform_wait(&rp.run, a, ANSWERS, ANSWERS);
		/* More ACKs are finer coalescing; anything else is a difference. */
		for (int i = 0; i < more; i++)
			res->extra += a[i].kind != RK_PROBE_ACK;
		if (res->extra > 0)
			diff(&rp, "the live DUT sent %u answer%s more than the recording (not ACKs)",
			     res->extra, res->extra == 1 ? "" : "s");
	}
	if (env->teardown != NULL)
		env->teardown(env->ctx);
	res->frames_tx = cres.frames_tx;
	res->frames_rx = cres.frames_rx;
	res->elapsed_ns = env->ops->now_ns(env->io) - t0;
	if (cres.verdict != RK_CONFORM_PASS) {
		res->verdict = RK_CONFORM_FAIL;
		snprintf(res->reason, sizeof(res->reason), "%s", cres.reason);
	} else if (res->diffs > 0) {
		res->verdict = RK_CONFORM_FAIL;
		snprintf(res->reason, sizeof(res->reason), "%u difference%s; first: %s", res->diffs,
			 res->diffs == 1 ? "" : "s", res->first_diff);
	}
	free(rp.s);
	return 0;
out:
	free(rp.s);
	res->elapsed_ns = env->ops->now_ns(env->io) - t0;
	res->verdict = rc == -ENOTSUP ? RK_CONFORM_NA : RK_CONFORM_FAIL;
	snprintf(res->reason, sizeof(res->reason), "%s%s", rc == -ENOTSUP ? "" : "setup failed: ",
		 why[0] ? why : strerror(-rc));
	return 0;
na:
	free(rp.s);
	if (rc == -ENOMEM)
		return rc;
	res->verdict = RK_CONFORM_NA;
	snprintf(res->reason, sizeof(res->reason), "%s", why);
	return 0;
}

unsigned int
rk_conform_replay_convs(const struct rk_conform_rec_frame *f, unsigned int n,
			struct rk_conform_conv *cv, unsigned int max, bool *more)
{
	unsigned int found = 0;

	if (more != NULL)
		*more = false;
	for (unsigned int i = 0; f != NULL && i < n; i++) {
		struct rk_conform_conv c;
		struct rk_pkt p;
		unsigned int k = 0;

		if (!rc_frame(&f[i], &p, c.requester) ||
		    !(rk_opcode_info(p.opcode)->flags & RK_OPF_REQ))
			continue;
		c.dest_qp = rk_get_be24(f[i].data + p.bth_off + 5);
		while (k < found && (cv[k].dest_qp != c.dest_qp ||
				     memcmp(cv[k].requester, c.requester, 16) != 0))
			k++;
		if (k < found)
			continue;
		if (found == max) {
			if (more != NULL)
				*more = true;
			continue;
		}
		cv[found++] = c;
	}
	return found;
}
