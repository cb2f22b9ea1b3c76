/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_eth.h
 * Ethernet II header (IEEE 802.3 3.1.1, EtherType form), 14 bytes:
 *
 *     bytes 0-5    Destination Address
 *     bytes 6-11   Source Address
 *     bytes 12-13  EtherType (0x8100: an 802.1Q tag follows)
 *
 * 802.1Q tag (IEEE 802.1Q 9.6), the 4 bytes after an EtherType of 0x8100
 * (the TPID) or 0x88a8 (802.1ad S-tag):
 *
 *     bytes 0-1    PCP(15:13) DEI(12) VID(11:0)   (the TCI)
 *     bytes 2-3    EtherType of what follows
 *
 * Accessors take a pointer to the first byte of the header (for the tag:
 * the TCI), read or write exactly the field's bits, and leave every other
 * bit alone. Addresses are copied as 6 bytes.
 */
#ifndef RK_ETH_H
#define RK_ETH_H

#include <stdint.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_ETH_HLEN 14
#define RK_ETH_ALEN 6
#define RK_VLAN_HLEN 4
/** Shortest Ethernet frame without the FCS (IEEE 802.3 4.4.2). */
#define RK_ETH_FRAME_MIN 60

#define RK_ETHERTYPE_IPV4 0x0800
#define RK_ETHERTYPE_ARP 0x0806
#define RK_ETHERTYPE_VLAN 0x8100        /**< 802.1Q C-tag TPID */
#define RK_ETHERTYPE_QINQ 0x88a8        /**< 802.1ad S-tag TPID */
#define RK_ETHERTYPE_IPV6 0x86dd

#define RK_VLAN_PCP_MASK 0xe000
#define RK_VLAN_PCP_SHIFT 13
#define RK_VLAN_DEI 0x1000
#define RK_VLAN_VID_MASK 0x0fff

#define RK_ETH_DST_OFF 0
#define RK_ETH_SRC_OFF 6
#define RK_MAC48_MASK 0xffffffffffffull

/* Field lists, in wire order (rk_field.h explains the rows). */
#define RK_ETH_FIELDS(X, T)                                                        \
	T(eth, dst, "Destination Address", "dst", RK_ETH_DST_OFF, RK_ETH_ALEN,       \
	  RK_MAC48_MASK, void, "IEEE 802.3 3.2.3")                                       \
	T(eth, src, "Source Address", "src", RK_ETH_SRC_OFF, RK_ETH_ALEN,             \
	  RK_MAC48_MASK, void, "IEEE 802.3 3.2.4")                                       \
	X(eth, ethertype, "EtherType", "ethertype", 12, 2, 0xffff, uint16_t, "IEEE 802.3 3.2.6")
#define RK_VLAN_FIELDS(X, T)                                                       \
	X(vlan, pcp, "PCP", "pcp", 0, 2, RK_VLAN_PCP_MASK, uint8_t, "IEEE 802.1Q 9.6")  \
	X(vlan, dei, "DEI", "dei", 0, 2, RK_VLAN_DEI, uint8_t, "IEEE 802.1Q 9.6")        \
	X(vlan, vid, "VID", "vid", 0, 2, RK_VLAN_VID_MASK, uint16_t, "IEEE 802.1Q 9.6") \
	X(vlan, ethertype, "EtherType", "ethertype", 2, 2, 0xffff, uint16_t, "IEEE 802.1Q 9.5")

/* rk_eth_ethertype(), rk_vlan_pcp() ... and their setters. */
RK_ETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_VLAN_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/* Addresses are copied as 6 bytes. */
static inline void rk_eth_dst(const uint8_t *b, uint8_t mac[6]) { memcpy(mac, b + RK_ETH_DST_OFF, 6); }
static inline void rk_eth_src(const uint8_t *b, uint8_t mac[6]) { memcpy(mac, b + RK_ETH_SRC_OFF, 6); }
static inline void rk_eth_set_dst(uint8_t *b, const uint8_t mac[6]) { memcpy(b + RK_ETH_DST_OFF, mac, 6); }
static inline void rk_eth_set_src(uint8_t *b, const uint8_t mac[6]) { memcpy(b + RK_ETH_SRC_OFF, mac, 6); }

/** Whether the destination address is a group (multicast or broadcast) one. */
static inline int rk_eth_dst_is_group(const uint8_t *b) { return b[RK_ETH_DST_OFF] & 1; }

/** Whether @p type is the TPID of an 802.1Q or 802.1ad tag. */
static inline int
rk_ethertype_is_vlan(uint16_t type)
{
	return type == RK_ETHERTYPE_VLAN || type == RK_ETHERTYPE_QINQ;
}

/** The whole TCI (PCP, DEI and VID; bytes 0-1 of the tag). */
static inline uint16_t rk_vlan_tci(const uint8_t *t) { return rk_get_be16(t); }
static inline void rk_vlan_set_tci(uint8_t *t, uint16_t v) { rk_put_be16(t, v); }

/** The TCI of PCP @p pcp, DEI @p dei and VID @p vid (IEEE 802.1Q 9.6). */
static inline uint16_t
rk_vlan_make_tci(uint8_t pcp, uint8_t dei, uint16_t vid)
{
	return (uint16_t)(((pcp << RK_VLAN_PCP_SHIFT) & RK_VLAN_PCP_MASK) |
			  (dei ? RK_VLAN_DEI : 0) | (vid & RK_VLAN_VID_MASK));
}

/**
 * Write an Ethernet II header at @p b: @p dst, @p src and, when @p tag is
 * true, an 802.1Q tag (TPID 0x8100, TCI @p tci) before @p ethertype.
 * @return bytes written: RK_ETH_HLEN, or RK_ETH_HLEN + RK_VLAN_HLEN with a tag.
 */
static inline uint32_t
rk_eth_write(uint8_t *b, const uint8_t dst[6], const uint8_t src[6], int tag, uint16_t tci,
	     uint16_t ethertype)
{
	rk_eth_set_dst(b, dst);
	rk_eth_set_src(b, src);
	if (!tag) {
		rk_eth_set_ethertype(b, ethertype);
		return RK_ETH_HLEN;
	}
	rk_eth_set_ethertype(b, RK_ETHERTYPE_VLAN);
	rk_vlan_set_tci(b + RK_ETH_HLEN, tci);
	rk_vlan_set_ethertype(b + RK_ETH_HLEN, ethertype);
	return RK_ETH_HLEN + RK_VLAN_HLEN;
}

/** Field table of the Ethernet II header (IEEE 802.3 3.1.1). */
extern const struct rk_header_desc rk_eth_desc;
/** Field table of the 802.1Q tag after its TPID (IEEE 802.1Q 9.6). */
extern const struct rk_header_desc rk_vlan_desc;

#endif /* RK_ETH_H */
