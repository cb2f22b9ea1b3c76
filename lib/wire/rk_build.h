/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_build.h
 * Packet builder: RoCEv2 frames (Ethernet [802.1Q] / IPv4 or IPv6 / UDP 4791
 * / BTH / extended headers / payload / pad / ICRC) from host-order fields,
 * driven by the opcode table. Used by tests, the simulator, generators and
 * the conformance tester; the fast datapath writes headers with the
 * accessors of rk_bth.h and rk_xeth.h instead.
 */
#ifndef RK_BUILD_H
#define RK_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_bth.h"

/** Addressing of a RoCEv2 frame. */
struct rk_roce_addr {
	uint8_t dst_mac[6], src_mac[6];
	bool vlan;              /**< add one 802.1Q tag */
	uint16_t vlan_tci;      /**< PCP(3) DEI(1) VID(12) */
	uint8_t ip_version;     /**< 4 or 6 */
	uint8_t src_ip[16], dst_ip[16]; /**< IPv4: last 4 bytes (::ffff:a.b.c.d form) */
	uint8_t dscp;           /**< 6 bits */
	uint8_t ecn;            /**< 2 bits: 0 Not-ECT, 2 ECT(0), 1 ECT(1), 3 CE */
	uint8_t ttl;            /**< hop limit; 0 means 64 */
	uint32_t flow_label;    /**< IPv6 only, 20 bits */
	uint16_t src_port;      /**< UDP source port (entropy, A17.3.2.1); 0 means 0xC000 */
	bool df;                /**< IPv4 don't-fragment flag */
	uint16_t ip_id;
};

/**
 * Every field of an Ethernet [802.1Q] / IPv4 or IPv6 / UDP header stack,
 * written as given (no defaults): a generator sets each one.
 */
struct rk_l2l4_hdr {
	uint8_t dst_mac[6], src_mac[6];
	bool vlan;              /**< add one 802.1Q tag (TPID 0x8100) */
	uint8_t pcp, dei;       /**< tag: priority (3 bits), drop eligible (1 bit) */
	uint16_t vid;           /**< tag: VLAN ID (12 bits) */
	uint8_t ip_version;     /**< 4 or 6 */
	uint8_t src_ip[16], dst_ip[16]; /**< IPv4: last 4 bytes (::ffff:a.b.c.d form) */
	uint8_t dscp;           /**< 6 bits (RFC 2474 3) */
	uint8_t ecn;            /**< 2 bits (RFC 3168 5): enum rk_ecn, CE = 3 */
	uint8_t ttl;            /**< IPv4 Time to Live, IPv6 Hop Limit */
	uint32_t flow_label;    /**< IPv6 only, 20 bits */
	bool df;                /**< IPv4 Don't Fragment */
	uint16_t ip_id;         /**< IPv4 Identification */
	uint16_t src_port, dst_port; /**< UDP ports */
};

/**
 * Write the Ethernet header (with the 802.1Q tag when @p h->vlan) and the
 * IPv4 (20 bytes, no options, header checksum computed, RFC 791 3.1) or
 * IPv6 (RFC 8200 3) header of a packet carrying @p l4_len bytes of
 * protocol @p proto after the IP header.
 * @return bytes written (the offset of the L4 header), -EINVAL for a bad
 *         ip_version, -EMSGSIZE when @p l4_len does not fit the IP length
 *         field, or -ENOSPC when @p cap is too small.
 */
int rk_build_ip_headers(uint8_t *out, uint32_t cap, const struct rk_l2l4_hdr *h,
			uint8_t proto, uint32_t l4_len);

/**
 * Write the Ethernet [802.1Q] / IP / UDP headers (RFC 768; checksum 0) of
 * a UDP datagram of @p payload_len payload bytes: rk_build_ip_headers()
 * with protocol 17, then the UDP header.
 * @return bytes written (the offset of the UDP payload), or the errors of
 *         rk_build_ip_headers().
 */
int rk_build_udp_headers(uint8_t *out, uint32_t cap, const struct rk_l2l4_hdr *h,
			 uint32_t payload_len);

/** Host-order values of every extended header; only those the opcode uses are written. */
struct rk_xeth_fields {
	uint32_t rdeth_ee_cnxt;
	uint32_t deth_q_key, deth_src_qp;
	uint32_t xrceth_xrc_srq;
	uint32_t feth;
	uint64_t reth_va;
	uint32_t reth_r_key, reth_dma_len;
	uint64_t atmeth_va, atmeth_swap_add, atmeth_compare;
	uint32_t atmeth_r_key;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint64_t atmack_orig_rem_dt;
	uint32_t imm;
	uint32_t ieth_r_key;
};

/**
 * Write the BTH and the extended headers of @p bth->opcode at @p out.
 * PadCnt is taken from @p bth as given.
 * @return header bytes written (RK_BTH_LEN plus extended headers), or
 *         -ENOSPC when @p cap is too small.
 */
int rk_build_ib_headers(uint8_t *out, uint32_t cap, const struct rk_bth_fields *bth,
			const struct rk_xeth_fields *x);

/**
 * Build a whole RoCEv2 frame: link, IP (with header checksum), UDP (length;
 * checksum 0 as A17.3.2.4 allows), BTH and extended headers, @p len payload
 * bytes, zero pad to 4 bytes (PadCnt set accordingly, overriding
 * @p bth->pad_cnt) and the ICRC (IBTA Annex A17.3.3).
 * @param payload  @p len bytes, or NULL to write zeros
 * @return frame length in bytes (no Ethernet FCS), -EINVAL for a bad
 *         ip_version, or -ENOSPC when @p cap is too small.
 */
int rk_build_rocev2(uint8_t *out, uint32_t cap, const struct rk_roce_addr *a,
		    const struct rk_bth_fields *bth, const struct rk_xeth_fields *x,
		    const void *payload, uint32_t len);

/**
 * Decode the BTH at @p bth and the extended headers its opcode carries into
 * host-order fields: the inverse of rk_build_ib_headers(). Fields of headers
 * the opcode lacks are left zero.
 * @param len  bytes readable at @p bth
 * @return header bytes decoded, -EINVAL for an undefined opcode (the BTH is
 *         still decoded), or -EMSGSIZE when @p len is shorter than the headers.
 */
int rk_parse_ib_headers(const uint8_t *bth, uint32_t len, struct rk_bth_fields *b,
			struct rk_xeth_fields *x);

/**
 * Build an IEEE 802.3x PAUSE frame (MAC Control opcode 0x0001, annex 31B)
 * to 01:80:C2:00:00:01, padded to the 60-byte minimum (no FCS).
 * @param quanta  pause time in units of 512 bit times
 * @return 60, or -ENOSPC when @p cap < 60.
 */
int rk_build_pause(uint8_t *out, uint32_t cap, const uint8_t src_mac[6], uint16_t quanta);

/**
 * Build an IEEE 802.1Qbb PFC frame (MAC Control opcode 0x0101): the
 * class-enable vector (bit n = priority n) and eight pause times in quanta,
 * padded to 60 bytes (no FCS).
 * @return 60, or -ENOSPC when @p cap < 60.
 */
int rk_build_pfc(uint8_t *out, uint32_t cap, const uint8_t src_mac[6],
		 uint8_t class_enable, const uint16_t quanta[8]);

/**
 * Internet checksum (RFC 1071) of @p len bytes, folded, not inverted: for
 * pseudo-header sums (TCP, ICMPv6). The IPv4 header checksum is
 * rk_ipv4_csum() of rk_ipv4.h.
 */
uint16_t rk_inet_csum_fold(const uint8_t *p, uint32_t len);

#endif /* RK_BUILD_H */
