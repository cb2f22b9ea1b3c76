/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/cm: the input is a run of 256-byte CM MADs as a
 * hostile peer would send them to QP1.
 *
 * Checked beyond "no crash":
 *  - a MAD that decodes re-encodes to a MAD that decodes and encodes to
 *    the same 256 bytes (encode is a fixed point after one round);
 *  - the A11 private data parser accepts only what it documents;
 *  - an active and a passive connection fed every MAD (with the timer
 *    running) only ever ask to send MADs that decode, and stay in a
 *    defined state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_out(int rc, const uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;

	if (rc > 0 && (rc & RK_CM_SEND) && rk_cm_decode(out, RK_MAD_LEN, &m) != 0)
		abort();        /* we would put an undecodable MAD on the wire */
}

static void
check_state(const struct rk_cm_conn *c)
{
	if ((unsigned int)c->state > RK_CM_CLOSED)
		abort();
}

static void
check_roundtrip(const struct rk_cm_msg *m)
{
	uint8_t a[RK_MAD_LEN], b[RK_MAD_LEN];
	struct rk_cm_msg m2;

	if (rk_cm_encode(m, a, sizeof(a)) != RK_MAD_LEN)
		abort();
	if (rk_cm_decode(a, sizeof(a), &m2) != 0)
		abort();
	if (rk_cm_encode(&m2, b, sizeof(b)) != RK_MAD_LEN || memcmp(a, b, sizeof(a)) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = 4791,
		.src_ip = { [12] = 198, 18, 0, 1 }, .dst_ip = { [12] = 198, 18, 0, 2 } };
	struct rk_cm_params p = { .qpn = 0x11, .psn = 0x123456, .responder_resources = 4,
		.initiator_depth = 4, .path_mtu = 3, .retry_count = 7, .rnr_retry_count = 7,
		.local_ack_timeout = 14 };
	struct rk_cm_conn act = { 0 }, pas = { 0 };
	uint8_t mad[RK_MAD_LEN], out[RK_MAD_LEN];
	uint64_t now = 1000;
	bool have_pas = false;
	int rc;

	rc = rk_cm_connect(&act, &p, rk_cm_service_id(RK_CM_PS_TCP, 7174), &ip, 0x1234, 1,
			   now, out);
	check_out(rc, out);
	for (size_t off = 0; off < size && off < 64 * RK_MAD_LEN; off += RK_MAD_LEN) {
		size_t n = size - off < RK_MAD_LEN ? size - off : RK_MAD_LEN;
		struct rk_cm_msg m;
		struct rk_cm_ip_pd pd;

		memset(mad, 0, sizeof(mad));
		memcpy(mad, data + off, n);
		now += (uint64_t)mad[255] << 20;        /* let timers fire sometimes */
		if (rk_cm_decode(mad, sizeof(mad), &m) != 0) {
			check_out(rk_cm_timer(&act, now, out), out);
			continue;
		}
		check_roundtrip(&m);
		if (m.hdr.attr_id == RK_CM_REQ &&
		    rk_cm_ip_pd_decode(m.req.private_data, &pd) == 0 &&
		    pd.ip_version != 4 && pd.ip_version != 6)
			abort();
		if (rk_cm_conn_match(&act, &m))
			check_out(rk_cm_rx(&act, &m, now, out), out);
		if (!have_pas && m.hdr.attr_id == RK_CM_REQ) {
			if (rk_cm_listen_req(&pas, &m, 0x5678, now) == RK_CM_EV_REQ) {
				have_pas = true;
				check_out(mad[254] & 1 ? rk_cm_reject(&pas, RK_CM_REJ_CONSUMER_REJECT, out)
						       : rk_cm_accept(&pas, &p, now, out), out);
			}
		} else if (have_pas && rk_cm_conn_match(&pas, &m)) {
			check_out(rk_cm_rx(&pas, &m, now, out), out);
		}
		if (act.state == RK_CM_ESTABLISHED && (mad[253] & 1))
			check_out(rk_cm_disconnect(&act, 2, now, out), out);
		check_out(rk_cm_timer(&act, now, out), out);
		if (have_pas)
			check_out(rk_cm_timer(&pas, now, out), out);
		check_state(&act);
		check_state(&pas);
	}
	return 0;
}
