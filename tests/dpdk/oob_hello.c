/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's out-of-band hello: an IPv4 hello is byte for byte the format
 * before the extension; an IPv6 hello carries the versioned extension and
 * round-trips; an older peer's range check refuses it; a bad extension is
 * -EPROTO. A server's refusal round-trips and is told from a hello by its
 * first 4 bytes; so does the abort message of a server that stops. No
 * EAL: the encoders are pure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "perf.h"

static int failures;

#define CHECK(c, what) do { \
	if (c) { printf("ok   %s\n", what); } \
	else { printf("FAIL %s (line %d)\n", what, __LINE__); failures++; } } while (0)

static void
sample(struct perf_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->verb = VERB_SEND;
	h->mode = MODE_LAT;
	h->verify = 1;
	h->mtu = 4096;
	h->qps = 3;
	h->tx_depth = 128;
	h->rx_depth = 512;
	h->nsizes = 2;
	h->sizes[0] = 64;
	h->sizes[1] = 1u << 20;
	h->iters = 20000;
	h->duration_ms = 1500;
	memcpy(h->ip, (uint8_t[]){ 198, 18, 0, 2 }, 4);
	memcpy(h->mac, (uint8_t[]){ 0x52, 0x54, 0, 0x18, 0, 2 }, 6);
	for (int i = 0; i < 3; i++) {
		h->qp[i].qpn = 0x11 + (uint32_t)i;
		h->qp[i].psn = 0xabcde0 + (uint32_t)i;
		h->qp[i].rkey = 0xfe6dd841u ^ (uint32_t)i;
		h->qp[i].va = 0x558080700000ull + (uint64_t)i * 4096;
		h->qp[i].len = 1u << 20;
	}
}

static int
same_base(const struct perf_hello *a, const struct perf_hello *b)
{
	return a->verb == b->verb && a->mode == b->mode && a->verify == b->verify &&
	       a->atomic_cas == b->atomic_cas && a->mtu == b->mtu && a->qps == b->qps &&
	       a->tx_depth == b->tx_depth && a->rx_depth == b->rx_depth &&
	       a->nsizes == b->nsizes && memcmp(a->sizes, b->sizes, sizeof(a->sizes)) == 0 &&
	       a->iters == b->iters && a->duration_ms == b->duration_ms &&
	       memcmp(a->ip, b->ip, 4) == 0 && memcmp(a->mac, b->mac, 6) == 0 &&
	       memcmp(a->qp, b->qp, sizeof(a->qp)) == 0;
}

int
main(void)
{
	static uint8_t old[OOB_HELLO_LEN], b[OOB_HELLO_MAX_LEN], x[OOB_HELLO_EXT_LEN];
	static const uint8_t v6[16] = { 0x20, 0x01, 0, 0x02, [15] = 2 };
	struct perf_hello h, d;
	size_t n;

	/* IPv4: the old format, unchanged. */
	sample(&h);
	h.ip_version = 4;
	oob_encode_hello(&h, old);
	n = oob_encode_hello_all(&h, b);
	CHECK(n == OOB_HELLO_LEN && memcmp(old, b, OOB_HELLO_LEN) == 0,
	      "IPv4 hello: the same bytes as the format without extension");
	CHECK(oob_hello_ext_len(b) == 0, "IPv4 hello announces no extension");
	oob_decode_hello(&d, b);
	CHECK(same_base(&h, &d) && !d.ext && d.ip_version == 0,
	      "IPv4 hello decodes (no extension, family left 0 = IPv4)");

	/* IPv6: base + versioned extension. */
	sample(&h);
	h.ip_version = 6;
	memcpy(h.ip6, v6, 16);
	n = oob_encode_hello_all(&h, b);
	CHECK(n == OOB_HELLO_MAX_LEN && oob_hello_ext_len(b) == OOB_HELLO_EXT_LEN,
	      "IPv6 hello: base and extension, announced in the mode byte");
	CHECK(b[1] > MODE_LAT, "an older peer sees a mode out of range (refuses, no misreading)");
	CHECK(memcmp(b + 2, old + 2, OOB_HELLO_LEN - 2) == 0 && b[0] == old[0],
	      "IPv6 hello: every base byte but the mode byte as in the IPv4 one");
	oob_decode_hello(&d, b);
	CHECK(same_base(&h, &d) && d.ext && d.mode == MODE_LAT,
	      "IPv6 hello: base fields decode, flag stripped from the mode");
	CHECK(oob_decode_hello_ext(&d, b + OOB_HELLO_LEN) == 0 && d.ip_version == 6 &&
	      memcmp(d.ip6, v6, 16) == 0, "IPv6 extension round-trips the address");
	CHECK(b[OOB_HELLO_LEN + 3] == 1 && !d.bidir,
	      "without -b the extension stays version 1 (an older peer reads it)");

	/* The old entry point never sets the flag, whatever the struct says. */
	oob_encode_hello(&h, old);
	CHECK(oob_hello_ext_len(old) == 0 && old[1] == MODE_LAT,
	      "oob_encode_hello writes the base format only");

	/* Bad extensions. */
	memcpy(x, b + OOB_HELLO_LEN, sizeof(x));
	x[3] = 3;
	CHECK(oob_decode_hello_ext(&d, x) == -EPROTO, "unknown extension version: -EPROTO");
	memcpy(x, b + OOB_HELLO_LEN, sizeof(x));
	x[3] = 2;
	x[5] = 0x02;
	CHECK(oob_decode_hello_ext(&d, x) == -EPROTO, "version 2, unknown flag: -EPROTO");
	memcpy(x, b + OOB_HELLO_LEN, sizeof(x));
	x[4] = 5;
	CHECK(oob_decode_hello_ext(&d, x) == -EPROTO, "ip_version 5: -EPROTO");
	memset(x, 0, sizeof(x));
	CHECK(oob_decode_hello_ext(&d, x) == -EPROTO, "zero bytes: -EPROTO");

	/* An extension asked for on IPv4 (ext set) says family 4. */
	sample(&h);
	h.ext = true;
	n = oob_encode_hello_all(&h, b);
	oob_decode_hello(&d, b);
	CHECK(n == OOB_HELLO_MAX_LEN && oob_decode_hello_ext(&d, b + OOB_HELLO_LEN) == 0 &&
	      d.ip_version == 4, "extension on an IPv4 hello: family 4");

	/* -b on IPv4: version 2 with its flag; an IPv6 hello keeps its address. */
	sample(&h);
	h.bidir = true;
	n = oob_encode_hello_all(&h, b);
	memset(&d, 0, sizeof(d));
	oob_decode_hello(&d, b);
	CHECK(n == OOB_HELLO_MAX_LEN && b[OOB_HELLO_LEN + 3] == 2 &&
	      b[OOB_HELLO_LEN + 5] == OOB_HELLO_X_BIDIR &&
	      oob_decode_hello_ext(&d, b + OOB_HELLO_LEN) == 0 && d.bidir && d.ip_version == 4,
	      "-b: extension version 2, the flag round-trips, family 4");
	h.ip_version = 6;
	memcpy(h.ip6, v6, 16);
	oob_encode_hello_all(&h, b);
	memset(&d, 0, sizeof(d));
	oob_decode_hello(&d, b);
	CHECK(oob_decode_hello_ext(&d, b + OOB_HELLO_LEN) == 0 && d.bidir && d.ip_version == 6 &&
	      memcmp(d.ip6, v6, 16) == 0, "-b over IPv6: flag and address");

	/* The refusal a server sends instead of its hello. */
	{
		static uint8_t r[OOB_REFUSE_LEN];
		struct perf_refusal in = { .reason = EADDRINUSE }, out;

		snprintf(in.text, sizeof(in.text), "TCP port 18516 is in use");
		oob_encode_refusal(&in, r);
		CHECK(oob_is_refusal(r) && oob_decode_refusal(&out, r) == 0 &&
		      out.version == OOB_REFUSE_VERSION && out.reason == EADDRINUSE &&
		      strcmp(out.text, in.text) == 0, "refusal round-trips reason and text");
		sample(&h);
		for (int v = VERB_WRITE; v <= VERB_ATOMIC; v++) {
			h.verb = (uint8_t)v;
			oob_encode_hello_all(&h, b);
			CHECK(!oob_is_refusal(b), "a hello is never taken for a refusal");
		}
		CHECK(r[0] > VERB_ATOMIC, "an older client sees no verb in a refusal");
		memset(in.text, 'x', sizeof(in.text));     /* no NUL: cut to 127 bytes */
		oob_encode_refusal(&in, r);
		CHECK(oob_decode_refusal(&out, r) == 0 && strlen(out.text) == sizeof(out.text) - 1,
		      "a text without NUL is cut, decoded with one");
		r[8] = '\n';
		r[9] = (uint8_t)0xc3;
		CHECK(oob_decode_refusal(&out, r) == 0 && out.text[0] == '?' && out.text[1] == '?',
		      "control and non-ASCII bytes of the peer's text are not printed");
		r[3] = 2;
		CHECK(oob_is_refusal(r) && oob_decode_refusal(&out, r) == -EPROTO && out.version == 2,
		      "a refusal of an unknown version: -EPROTO, version kept");
		memset(r, 0, sizeof(r));
		CHECK(!oob_is_refusal(r) && oob_decode_refusal(&out, r) == -EPROTO,
		      "zero bytes are no refusal");
	}

	/* The abort a server sends when it stops after its hello. */
	{
		static uint8_t mb[OOB_MSG_LEN];
		struct perf_msg in = { .type = MSG_ABORT, .status = 1 }, out;

		snprintf(in.text, sizeof(in.text), "interrupted");
		oob_encode_msg(&in, mb);
		oob_decode_msg(&out, mb);
		CHECK(out.type == MSG_ABORT && MSG_ABORT == 6 && out.status == 1 &&
		      strcmp(out.text, "interrupted") == 0, "abort round-trips type, status, text");
		mb[12 + 8 * PERF_MAX_QPS] = '\033';
		oob_decode_msg(&out, mb);
		CHECK(out.text[0] == '?' && strcmp(out.text + 1, "nterrupted") == 0,
		      "control bytes of a message's text are not printed");
	}

	printf("oob_hello: %s\n", failures == 0 ? "all checks passed" : "FAILED");
	return failures == 0 ? 0 : 1;
}
