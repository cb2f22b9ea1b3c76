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

static inline void rk_eth_dst(const uint8_t *b, uint8_t mac[6]) { memcpy(mac, b, 6); }
static inline void rk_eth_src(const uint8_t *b, uint8_t mac[6]) { memcpy(mac, b + 6, 6); }
static inline uint16_t rk_eth_ethertype(const uint8_t *b) { return rk_get_be16(b + 12); }
static inline void rk_eth_set_dst(uint8_t *b, const uint8_t mac[6]) { memcpy(b, mac, 6); }
static inline void rk_eth_set_src(uint8_t *b, const uint8_t mac[6]) { memcpy(b + 6, mac, 6); }
static inline void rk_eth_set_ethertype(uint8_t *b, uint16_t v) { rk_put_be16(b + 12, v); }

/** Whether the destination address is a group (multicast or broadcast) one. */
static inline int rk_eth_dst_is_group(const uint8_t *b) { return b[0] & 1; }

/** Whether @p type is the TPID of an 802.1Q or 802.1ad tag. */
static inline int
rk_ethertype_is_vlan(uint16_t type)
{
	return type == RK_ETHERTYPE_VLAN || type == RK_ETHERTYPE_QINQ;
}

static inline uint16_t rk_vlan_tci(const uint8_t *t) { return rk_get_be16(t); }
static inline uint8_t
rk_vlan_pcp(const uint8_t *t)
{
	return (uint8_t)((rk_get_be16(t) & RK_VLAN_PCP_MASK) >> RK_VLAN_PCP_SHIFT);
}
static inline uint8_t rk_vlan_dei(const uint8_t *t) { return !!(rk_get_be16(t) & RK_VLAN_DEI); }
static inline uint16_t rk_vlan_vid(const uint8_t *t) { return rk_get_be16(t) & RK_VLAN_VID_MASK; }
static inline uint16_t rk_vlan_ethertype(const uint8_t *t) { return rk_get_be16(t + 2); }

static inline void rk_vlan_set_tci(uint8_t *t, uint16_t v) { rk_put_be16(t, v); }
static inline void
rk_vlan_set_pcp(uint8_t *t, uint8_t v)
{
	rk_put_be16(t, (uint16_t)((rk_get_be16(t) & ~RK_VLAN_PCP_MASK) |
				  ((v << RK_VLAN_PCP_SHIFT) & RK_VLAN_PCP_MASK)));
}
static inline void
rk_vlan_set_dei(uint8_t *t, uint8_t v)
{
	rk_put_be16(t, (uint16_t)((rk_get_be16(t) & ~RK_VLAN_DEI) | (v ? RK_VLAN_DEI : 0)));
}
static inline void
rk_vlan_set_vid(uint8_t *t, uint16_t v)
{
	rk_put_be16(t, (uint16_t)((rk_get_be16(t) & ~RK_VLAN_VID_MASK) | (v & RK_VLAN_VID_MASK)));
}
static inline void rk_vlan_set_ethertype(uint8_t *t, uint16_t v) { rk_put_be16(t + 2, v); }

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
