/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apps/common's perftest exchange messages (rk_app_perftest.h): a key
 * message survives encode and decode; one key step (rk_pt_keys_xchg())
 * hands the peer's message through the exchange callback and decodes it,
 * says a malformed one is malformed (its start kept for the error), and
 * passes a failed step on; a QPN past 24 bits is refused. The binary
 * key step (-R): ours encoded or zeros, the peer's zeros leave the last
 * real keys in place. No EAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk_app_perftest.h"

static int failures;

#define CHECK(c, what) do { \
	if (c) { printf("ok   %s\n", what); } \
	else { printf("FAIL %s (line %d)\n", what, __LINE__); failures++; } } while (0)

/* The exchange: what we sent is kept, the canned answer returned (or a failure). */
struct fake {
	char sent[RK_PT_KEY_LEN];
	char answer[RK_PT_KEY_LEN];
	bool fail;
	int calls;
};

/* The binary key step's exchange: ours kept, the canned answer returned. */
static uint8_t bin_sent[RK_PT_KEY_BIN_LEN], bin_answer[RK_PT_KEY_BIN_LEN];

static int
bin_xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	(void)ctx;
	if (len != RK_PT_KEY_BIN_LEN)
		return -1;
	memcpy(bin_sent, mine, len);
	memcpy(theirs, bin_answer, len);
	return 0;
}

static int
fake_xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct fake *f = ctx;

	f->calls++;
	if (f->fail || len != RK_PT_KEY_LEN)
		return -1;
	memcpy(f->sent, mine, len);
	memcpy(theirs, f->answer, len);
	return 0;
}

int
main(void)
{
	struct rk_pt_dest a = { .lid = 0, .out_reads = 16, .qpn = 0xabcdef, .psn = 0x123456,
				.rkey = 0xdeadbeef, .vaddr = 0x5600deadbeef00ull, .srqn = 0,
				.gid = { [10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18, [15] = 11 } };
	struct rk_pt_dest b = { .out_reads = 4, .qpn = 0x11, .psn = 0x42, .rkey = 7, .vaddr = 64 };
	struct rk_pt_dest got, keep = { .qpn = 0x999 };
	struct fake f = { 0 };
	char bad[41];

	rk_pt_keys_encode(&a, f.answer);
	CHECK(rk_pt_keys_decode(&got, f.answer) == 0 && memcmp(&got, &a, sizeof(a)) == 0,
	      "a key message decodes to what was encoded");
	CHECK(strlen(f.answer) == RK_PT_KEY_LEN - 1, "the text key message fills 107 bytes and a NUL");

	CHECK(rk_pt_keys_xchg(fake_xchg, &f, &b, &got, bad) == 0 && f.calls == 1 &&
	      memcmp(&got, &a, sizeof(a)) == 0, "a key step: the peer's message decoded");
	CHECK(rk_pt_keys_decode(&got, f.sent) == 0 && got.qpn == 0x11 && got.out_reads == 4,
	      "a key step: ours sent encoded");
	CHECK(rk_pt_keys_xchg(fake_xchg, &f, &b, NULL, bad) == 0, "a key step without a result");

	memset(f.answer, 0, sizeof(f.answer));
	snprintf(f.answer, sizeof(f.answer), "0000:0010:zz1234:000042:");
	got = keep;
	CHECK(rk_pt_keys_xchg(fake_xchg, &f, &b, &got, bad) == -EINVAL &&
	      strcmp(bad, "0000:0010:zz1234:000042:") == 0 && got.qpn == 0x999,
	      "a malformed message: -EINVAL, its start kept, the result untouched");
	memset(f.answer, 'x', sizeof(f.answer));
	CHECK(rk_pt_keys_xchg(fake_xchg, &f, &b, &got, bad) == -EINVAL && strlen(bad) == 40,
	      "a message without its NUL: -EINVAL, 40 characters kept");
	a.qpn = 0x1000000;
	rk_pt_keys_encode(&a, f.answer);
	CHECK(rk_pt_keys_xchg(fake_xchg, &f, &b, &got, bad) == -EINVAL,
	      "a QPN past 24 bits: -EINVAL");
	f.fail = true;
	CHECK(rk_pt_keys_xchg(fake_xchg, &f, &b, &got, bad) == -1, "a failed step: -1");

	{
		static const uint8_t zeros[RK_PT_KEY_BIN_LEN];

		memset(bin_sent, 0xaa, sizeof(bin_sent));
		got = keep;
		CHECK(rk_pt_keys_bin_xchg(bin_xchg, NULL, NULL, &got) == 0 &&
		      memcmp(bin_sent, zeros, sizeof(zeros)) == 0 && got.qpn == 0x999,
		      "binary keys: no QP yet sends zeros; the peer's zeros keep the last keys");
		rk_pt_keys_bin_encode(&b, bin_answer);
		CHECK(rk_pt_keys_bin_xchg(bin_xchg, NULL, &b, &got) == 0 &&
		      memcmp(bin_sent, bin_answer, sizeof(bin_sent)) == 0 && got.qpn == 0x11 &&
		      got.rkey == 7 && got.vaddr == 64 && got.out_reads == 4,
		      "binary keys: ours sent encoded, the peer's real ones decoded");
		memset(bin_answer, 0, sizeof(bin_answer));
		CHECK(rk_pt_keys_bin_xchg(bin_xchg, NULL, &b, &got) == 0 && got.qpn == 0x11 &&
		      got.rkey == 7, "binary keys: later zeros keep the real ones");
		CHECK(rk_pt_keys_bin_xchg(bin_xchg, NULL, &b, NULL) == 0,
		      "binary keys: a step without a result");
	}
	return failures ? 1 : 0;
}
