/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_pkt.h
 * Parse one captured frame, once, into struct rk_pkt: the offset of every
 * header, the decoded L2/L3/L4 fields, the IBA opcode row, payload and pad
 * extents, the ICRC verdict and the stateless findings.
 *
 * Recognised: Ethernet II with up to two 802.1Q/802.1ad tags, Linux cooked
 * capture v1/v2, raw IP, ERF (Ethernet and InfiniBand records); IPv4 and
 * IPv6; RoCEv2 (UDP destination port 4791, IBTA Annex A17), RoCEv1
 * (EtherType 0x8915, GRH + BTH, Annex A16), native InfiniBand (LRH [+ GRH]
 * + BTH); TCP (its payload is handed to the iWARP stream deframer by the
 * caller); IEEE 802.3x PAUSE and 802.1Qbb PFC.
 *
 * Nothing is allocated; struct rk_pkt points into the caller's frame,
 * which must stay valid while the struct is used.
 */
#ifndef RK_PKT_H
#define RK_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_finding.h"
#include "rk_opcode.h"

/** Link types, numbered as libpcap's DLT_/LINKTYPE_ values. */
enum rk_linktype {
	RK_LINK_ETHERNET = 1,     /**< DLT_EN10MB */
	RK_LINK_RAW = 101,        /**< LINKTYPE_RAW: bare IPv4/IPv6 */
	RK_LINK_LINUX_SLL = 113,  /**< Linux cooked capture v1 */
	RK_LINK_ERF = 197,        /**< Endace ERF records */
	RK_LINK_LINUX_SLL2 = 276, /**< Linux cooked capture v2 */
	RK_LINK_IPV4 = 228,
	RK_LINK_IPV6 = 229,
};

/** What a frame turned out to be. */
enum rk_pkt_kind {
	RK_PKT_OTHER = 0,  /**< nothing rdmakit decodes */
	RK_PKT_ROCEV2,     /**< IP/UDP 4791 + BTH */
	RK_PKT_ROCEV1,     /**< EtherType 0x8915: GRH + BTH */
	RK_PKT_IB,         /**< native InfiniBand: LRH [+ GRH] + BTH */
	RK_PKT_TCP,        /**< TCP segment (iWARP candidate) */
	RK_PKT_PAUSE,      /**< IEEE 802.3x PAUSE */
	RK_PKT_PFC,        /**< IEEE 802.1Qbb priority flow control */
};

/** Layers present (bits of rk_pkt.layers). */
enum rk_layer {
	RK_L_ETH = 1u << 0,
	RK_L_VLAN = 1u << 1,
	RK_L_IPV4 = 1u << 2,
	RK_L_IPV6 = 1u << 3,
	RK_L_UDP = 1u << 4,
	RK_L_TCP = 1u << 5,
	RK_L_LRH = 1u << 6,
	RK_L_GRH = 1u << 7,
	RK_L_BTH = 1u << 8,
};

/** The UDP destination port of RoCEv2 (IBTA Annex A17.3.2). */
#define RK_ROCEV2_UDP_PORT 4791
/** The EtherType of RoCEv1 (Annex A16). */
#define RK_ETHERTYPE_ROCEV1 0x8915
/** The EtherType of MAC Control frames (PAUSE, PFC). */
#define RK_ETHERTYPE_MAC_CONTROL 0x8808

/** ICRC verdict of a RoCE/IB packet. */
enum rk_icrc_status {
	RK_ICRC_NOT_CHECKED = 0, /**< not a BTH packet, checking off, or truncated */
	RK_ICRC_GOOD,
	RK_ICRC_BAD,
};

/** Parse options. */
struct rk_parse_opts {
	bool check_icrc;        /**< verify the ICRC (default on) */
	uint32_t pmtu;          /**< path MTU for bth.payload.over_pmtu, bytes; 0 = 4096 */
};

/** One parsed frame. Offsets are bytes from the frame start. */
struct rk_pkt {
	const uint8_t *frame;
	uint32_t caplen;        /**< bytes captured */
	uint32_t wirelen;       /**< bytes on the wire */
	bool truncated;         /**< caplen < wirelen cut into a header or payload */

	enum rk_pkt_kind kind;
	uint32_t layers;        /**< enum rk_layer bits */

	/* L2 */
	uint32_t l2_off;        /**< Ethernet header (or LRH for native IB) */
	uint8_t n_vlan;
	uint16_t vlan_tci[2];
	uint16_t ethertype;     /**< innermost EtherType */
	uint8_t src_mac[6], dst_mac[6];

	/* L3 */
	uint32_t l3_off;        /**< IPv4/IPv6 header (RoCEv2) or GRH (v1, IB) */
	uint32_t l3_len;        /**< IP header length */
	uint8_t ip_version;     /**< 4 or 6; 0 when no IP */
	/* IPv4 DSCP/TTL, or the IPv6 header's / GRH's traffic class (upper 6
	 * bits) and Hop Limit (HopLmt). ECN: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE. */
	uint8_t dscp, ecn, ttl;
	uint8_t ip_proto;
	uint32_t flow_label;
	uint8_t src_ip[16], dst_ip[16]; /**< IPv4 as ::ffff:a.b.c.d (also GIDs of GRH) */
	uint16_t src_lid, dst_lid;      /**< native IB LRH */

	/* L4 */
	uint32_t l4_off;
	uint16_t src_port, dst_port;
	uint32_t tcp_seq, tcp_ack;
	uint8_t tcp_flags;      /**< FIN 0x01 SYN 0x02 RST 0x04 PSH 0x08 ACK 0x10 */
	uint16_t tcp_window;
	uint32_t l4_payload_off;
	uint32_t l4_payload_len; /**< bytes of UDP/TCP payload on the wire (per IP length) */

	/* IBA transport */
	uint32_t bth_off;
	uint8_t opcode;
	const struct rk_opcode_info *op;
	uint32_t payload_off;   /**< first payload byte, after all extended headers */
	uint32_t payload_len;   /**< payload bytes without pad */
	uint8_t pad_cnt;
	uint32_t icrc_off;      /**< offset of the 4-byte ICRC (0 if none) */
	uint32_t icrc;          /**< ICRC as carried (host value) */
	enum rk_icrc_status icrc_status;

	/* MAC control */
	uint16_t mac_control_opcode;
	uint16_t pause_quanta[8]; /**< PAUSE: [0]; PFC: per priority */
	uint8_t pfc_class_enable;

	struct rk_findings findings;
};

/**
 * Parse one frame.
 * @param pkt      zeroed or reused; fully overwritten
 * @param frame    captured bytes
 * @param caplen   bytes captured
 * @param wirelen  bytes on the wire (>= caplen; a smaller value is taken as caplen)
 * @param link     link type of the capture
 * @param opts     options, or NULL for the defaults (ICRC on, PMTU 4096)
 * @return 0 when parsed (findings may still be raised), -EINVAL when
 *         @p pkt or @p frame is NULL, -EPROTONOSUPPORT for an unknown link type.
 */
int rk_pkt_parse(struct rk_pkt *pkt, const uint8_t *frame, uint32_t caplen,
		 uint32_t wirelen, enum rk_linktype link,
		 const struct rk_parse_opts *opts);

/** Whether the parsed frame carries a BTH (RoCEv1, RoCEv2 or native IB). */
static inline bool
rk_pkt_has_bth(const struct rk_pkt *pkt)
{
	return (pkt->layers & RK_L_BTH) != 0;
}

/** Pointer to the BTH of a parsed packet (only when rk_pkt_has_bth). */
static inline const uint8_t *
rk_pkt_bth(const struct rk_pkt *pkt)
{
	return pkt->frame + pkt->bth_off;
}

/**
 * Pointer to extended header @p h, or NULL when the opcode has none or its
 * headers were not all captured. Inline: the datapath asks several times
 * per packet.
 */
static inline const uint8_t *
rk_pkt_xeth(const struct rk_pkt *pkt, enum rk_hdr h)
{
	const struct rk_opcode_info *op = pkt->op;

	if (op == NULL || (unsigned int)h >= RK_HDR_COUNT || !(op->hdrs & (1u << h)) ||
	    (uint64_t)pkt->bth_off + op->hdr_len > pkt->caplen)
		return NULL;
	return pkt->frame + pkt->bth_off + op->off[h];
}

/**
 * Compute the ICRC a RoCEv2 packet should carry (IBTA Annex A17.3.3,
 * CA17-22): CRC-32 over 8 bytes of 0xFF, the IP header with IPv4 TOS, TTL
 * and checksum (IPv6 traffic class, flow label, hop limit) set to ones, the
 * UDP header with its checksum set to ones, the BTH with byte 4 set to ones,
 * and everything up to the ICRC.
 * @param ip       first byte of the IPv4 or IPv6 header
 * @param len      bytes from @p ip to the ICRC (exclusive)
 * @return the CRC value, to be stored least significant byte first. For a
 *         header shorter than @p len allows, or not IPv4/IPv6, it returns 0
 *         without reading past @p len; 0 is also a possible CRC, so callers
 *         check the lengths first (rk_pkt_parse does).
 */
uint32_t rk_rocev2_icrc(const uint8_t *ip, uint32_t len);

/**
 * The ICRC of a RoCEv2 packet in pieces (Annex A17.3.3): the running
 * CRC-32 after its first @p len bytes from @p ip (the IP, UDP and BTH
 * headers, masked as rk_rocev2_icrc() does, and any bytes after them).
 * Feed the rest of the packet up to the ICRC with rk_crc32_update() and
 * finish with rk_crc32_final(): the result equals rk_rocev2_icrc() over
 * the same bytes. A builder uses it to take the payload's CRC from where
 * the payload lies instead of from the frame it is copied into.
 * @param ip   first byte of the IPv4 (no options) or IPv6 header
 * @param len  bytes from @p ip, at least IP + UDP (8) + BTH (12) headers
 * @return the running state, or the state of 0 bytes (rk_crc32_init())
 *         when @p len is shorter than the headers or @p ip is neither
 *         IPv4 nor IPv6 (callers build the headers, so check lengths).
 */
uint32_t rk_rocev2_icrc_begin(const uint8_t *ip, uint32_t len);

/**
 * Where the transport headers of a RoCEv2 frame end (IBTA Annex A17.4:
 * Ethernet, up to two 802.1Q/802.1ad tags, IPv4 with its options or IPv6
 * without extension headers, UDP to port 4791, then the BTH and the
 * extended headers its opcode carries, IBTA Vol 1 9.2.1, table "OpCode
 * field"). A recorder cuts frames there to keep every header and no payload.
 * @param frame  first byte of the Ethernet header
 * @param len    bytes available from @p frame
 * @return bytes from @p frame to the first payload byte (at most @p len:
 *         a frame that ends inside its headers gives @p len), or 0 when
 *         the frame is not RoCEv2 (or too short to tell).
 */
uint32_t rk_rocev2_hdrs_len(const uint8_t *frame, uint32_t len);

/**
 * Compute the ICRC of a packet starting with a GRH (RoCEv1, Annex A16) or an
 * LRH (native IB, IBTA Vol1 7.8.1): variant fields (LRH VL, GRH TClass,
 * FlowLabel, HopLmt, BTH byte 4) set to ones. When a GRH is present (RoCEv1,
 * or LRH with LNH = 3) 8 bytes of 0xFF stand in place of the whole LRH.
 * @param hdr      first byte of the LRH (@p lrh true) or GRH (@p lrh false)
 * @param len      bytes from @p hdr to the ICRC (exclusive)
 * @param lrh      whether @p hdr starts with an LRH
 * @return the CRC value, or 0 (also a possible CRC: check lengths first)
 *         when the headers do not fit in @p len.
 */
uint32_t rk_ib_icrc(const uint8_t *hdr, uint32_t len, bool lrh);

/**
 * Store the correct ICRC into a parsed RoCEv2, RoCEv1 or native IB packet.
 * @param pkt    the packet as parsed from @p frame (offsets are taken from it)
 * @param frame  the same bytes, writable
 * @return 0, or -EINVAL when @p pkt has no BTH, no ICRC or an ICRC outside
 *         the captured bytes.
 */
int rk_pkt_fix_icrc(struct rk_pkt *pkt, uint8_t *frame);

/** Name of a packet kind: "RoCEv2", "RoCEv1", "IB", "TCP", "PAUSE", "PFC", "other". */
const char *rk_pkt_kind_name(enum rk_pkt_kind kind);

#endif /* RK_PKT_H */
