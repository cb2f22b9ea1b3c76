/* SPDX-License-Identifier: BSD-3-Clause */
/* The opcode table: header sets, lengths and roles against the spec. */
#include "rk_test.h"

#include "rk_opcode.h"
#include "rk_xeth.h"

static void
expect(uint8_t op, const char *name, uint8_t hdr_len, uint32_t flags)
{
	const struct rk_opcode_info *i = rk_opcode_info(op);

	assert_true(i->flags & RK_OPF_VALID);
	assert_string_equal(i->name, name);
	assert_int_equal(i->hdr_len, hdr_len);
	assert_int_equal(i->flags & flags, flags);
}

static void
test_rc_rows(void **state)
{
	(void)state;
	expect(0x00, "RC SEND First", 12, RK_OPF_FIRST | RK_OPF_SEND | RK_OPF_REQ);
	expect(0x03, "RC SEND Last with Immediate", 16, RK_OPF_LAST | RK_OPF_IMM);
	expect(0x06, "RC RDMA WRITE First", 28, RK_OPF_FIRST | RK_OPF_WRITE);
	expect(0x0b, "RC RDMA WRITE Only with Immediate", 32, RK_OPF_ONLY | RK_OPF_IMM | RK_OPF_RWQE);
	expect(0x0c, "RC RDMA READ Request", 28, RK_OPF_READ_REQ | RK_OPF_REQ);
	expect(0x0d, "RC RDMA READ Response First", 16, RK_OPF_READ_RESP | RK_OPF_FIRST | RK_OPF_RESP);
	expect(0x0e, "RC RDMA READ Response Middle", 12, RK_OPF_MIDDLE);
	expect(0x11, "RC Acknowledge", 16, RK_OPF_ACK | RK_OPF_RESP);
	expect(0x12, "RC ATOMIC Acknowledge", 24, RK_OPF_ATOMIC_ACK);
	expect(0x13, "RC CmpSwap", 40, RK_OPF_ATOMIC);
	expect(0x14, "RC FetchAdd", 40, RK_OPF_ATOMIC);
	expect(0x17, "RC SEND Only with Invalidate", 16, RK_OPF_INV | RK_OPF_ONLY);
	expect(0x1c, "RC FLUSH", 32, RK_OPF_FLUSH);
	assert_false(rk_opcode_info(0x15)->flags & RK_OPF_VALID);
	assert_false(rk_opcode_info(0x18)->flags & RK_OPF_VALID);
	assert_int_equal(rk_opcode_info(0x0b)->off[RK_HDR_RETH], 12);
	assert_int_equal(rk_opcode_info(0x0b)->off[RK_HDR_IMMDT], 28);
	assert_int_equal(rk_opcode_info(0x12)->off[RK_HDR_ATMACK], 16);
}

static void
test_other_transports(void **state)
{
	(void)state;
	expect(0x24, "UC SEND Only", 12, RK_OPF_ONLY);
	expect(0x2b, "UC RDMA WRITE Only with Immediate", 32, RK_OPF_IMM);
	assert_false(rk_opcode_info(0x2c)->flags & RK_OPF_VALID); /* no READ on UC */
	assert_false(rk_opcode_info(0x31)->flags & RK_OPF_VALID); /* no ACK on UC */
	expect(0x64, "UD SEND Only", 20, RK_OPF_ONLY | RK_OPF_SEND);
	expect(0x65, "UD SEND Only with Immediate", 24, RK_OPF_IMM);
	assert_int_equal(rk_opcode_info(0x65)->off[RK_HDR_IMMDT], 20);
	assert_false(rk_opcode_info(0x60)->flags & RK_OPF_VALID);
	expect(0x81, "CNP", 28, RK_OPF_CNP);
	expect(0x4a, "RD RDMA WRITE Only", 12 + 4 + 8 + 16, RK_OPF_WRITE);
	expect(0x51, "RD Acknowledge", 12 + 4 + 4, RK_OPF_ACK);
	expect(0x55, "RD RESYNC", 24, RK_OPF_RESYNC);
	expect(0xa4, "XRC SEND Only", 16, RK_OPF_ONLY);
	expect(0xb1, "XRC Acknowledge", 16, RK_OPF_ACK); /* responses carry no XRCETH */
	expect(0xac, "XRC RDMA READ Request", 32, RK_OPF_READ_REQ);
	assert_int_equal(rk_opcode_transport(0xc5), RK_TR_MFR);
	assert_int_equal(rk_opcode_transport(0xe0), RK_TR_MFR);
	assert_string_equal(rk_transport_name(RK_TR_XRC), "XRC");
	assert_string_equal(rk_hdr_name(RK_HDR_ATMACK), "AtomicAckETH");
}

static void
test_table_invariants(void **state)
{
	int valid = 0;

	(void)state;
	for (int op = 0; op < 256; op++) {
		const struct rk_opcode_info *i = rk_opcode_info((uint8_t)op);
		uint8_t len = 12;

		if (!(i->flags & RK_OPF_VALID)) {
			assert_null(i->name);
			continue;
		}
		valid++;
		assert_int_equal(i->transport, rk_opcode_transport((uint8_t)op));
		assert_true(!!(i->flags & RK_OPF_REQ) != !!(i->flags & RK_OPF_RESP) ||
			    (i->flags & RK_OPF_CNP));
		/* Offsets are increasing in wire order and sum to hdr_len. */
		static const uint8_t lens[RK_HDR_COUNT] = {
			RK_RDETH_LEN, RK_DETH_LEN, RK_XRCETH_LEN, RK_FETH_LEN, RK_RETH_LEN,
			RK_ATMETH_LEN, RK_AETH_LEN, RK_ATMACK_LEN, RK_IMMDT_LEN, RK_IETH_LEN,
			RK_CNP_RSVD_LEN,
		};
		for (int h = 0; h < RK_HDR_COUNT; h++) {
			if (!(i->hdrs & (1u << h)))
				continue;
			assert_int_equal(i->off[h], len);
			len = (uint8_t)(len + lens[h]);
		}
		assert_int_equal(i->hdr_len, len);
	}
	/* RC 25 (incl. FLUSH, ATOMIC WRITE), UC 12, RD 22, UD 2, CNP 1, XRC 23 */
	assert_int_equal(valid, 25 + 12 + 22 + 2 + 1 + 23);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_rows),
		cmocka_unit_test(test_other_transports),
		cmocka_unit_test(test_table_invariants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
