/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Findings of the link, network and IBA transport layers.
 * RK_FINDING(enum symbol, stable ID, severity, spec reference, text)
 * Clause numbers are given only where verified (CA17-x from Annex A17,
 * C9-x where cited by Linux rxe); otherwise the section, or the chapter alone.
 * No include guard: this list is expanded several times.
 */
RK_FINDING(RK_F_FRAME_TRUNCATED, "frame.truncated", RK_SEV_NOTE,
	   "capture snap length",
	   "frame cut by the capture's snap length; later layers not checked")
RK_FINDING(RK_F_FRAME_MALFORMED, "frame.malformed", RK_SEV_ERROR,
	   "IEEE 802.3 / link layer",
	   "frame shorter than its link-layer header")
RK_FINDING(RK_F_IP_VERSION, "ip.version.mismatch", RK_SEV_ERROR,
	   "IBTA Annex A17 (CA17-27)",
	   "IP version field does not match the EtherType")
RK_FINDING(RK_F_IP_HDR_BAD, "ip.header.bad", RK_SEV_ERROR,
	   "RFC 791 / RFC 8200",
	   "IP header length or total length inconsistent with the frame")
RK_FINDING(RK_F_IPV4_OPTIONS, "ipv4.options", RK_SEV_ERROR,
	   "IBTA Annex A17 (CA17-3, CA17-24)",
	   "RoCEv2 IPv4 header carries options (IHL > 5)")
RK_FINDING(RK_F_IPV4_FRAGMENT, "ipv4.fragment", RK_SEV_ERROR,
	   "IBTA Annex A17 (CA17-7, CA17-8)",
	   "RoCEv2 packet is an IPv4 fragment")
RK_FINDING(RK_F_UDP_LEN, "udp.length.mismatch", RK_SEV_ERROR,
	   "IBTA Annex A17 (CA17-21)",
	   "UDP length does not match the IP payload length")
RK_FINDING(RK_F_TCP_HDR_BAD, "tcp.header.bad", RK_SEV_ERROR,
	   "RFC 9293 3.1",
	   "TCP data offset below 5 words or past the end of the IP payload")
RK_FINDING(RK_F_BTH_TOO_SHORT, "bth.headers.too_short", RK_SEV_ERROR,
	   "IBTA Vol1 9.2; IBTA Annex A17 A17.3",
	   "packet shorter than the BTH, the extended headers its opcode needs and the ICRC")
RK_FINDING(RK_F_BTH_TVER, "bth.tver.nonzero", RK_SEV_ERROR,
	   "IBTA Vol1 9.2; IBTA Annex A17 (CA17-23)",
	   "transport header version (TVer) is not 0")
RK_FINDING(RK_F_BTH_OPCODE_RESERVED, "bth.opcode.reserved", RK_SEV_ERROR,
	   "IBTA Vol1 9.2",
	   "opcode is reserved or undefined")
RK_FINDING(RK_F_BTH_OPCODE_UNSUPPORTED, "bth.opcode.unsupported_transport", RK_SEV_ERROR,
	   "IBTA Annex A17 A17.4",
	   "opcode belongs to a transport RoCE does not carry (RD or manufacturer-specific)")
RK_FINDING(RK_F_BTH_RESV, "bth.reserved.nonzero", RK_SEV_WARN,
	   "IBTA Vol1 9.2",
	   "reserved BTH bits (Resv7) set: senders must send 0")
RK_FINDING(RK_F_BTH_PADCNT, "bth.padcnt.invalid", RK_SEV_ERROR,
	   "IBTA Vol1 9.2; IBTA Vol1 ch. 9 (C9-92)",
	   "PadCnt not 0 on a FIRST, MIDDLE or payload-less packet, or larger than the payload")
RK_FINDING(RK_F_BTH_PAYLOAD_UNALIGNED, "bth.payload.unaligned", RK_SEV_ERROR,
	   "IBTA Vol1 9.2",
	   "payload plus pad is not a multiple of 4 bytes")
RK_FINDING(RK_F_BTH_PAYLOAD_OVER_PMTU, "bth.payload.over_pmtu", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 9 (C9-92)",
	   "payload larger than the path MTU")
RK_FINDING(RK_F_BTH_PAYLOAD_UNEXPECTED, "bth.payload.unexpected", RK_SEV_ERROR,
	   "IBTA Vol1 9.2",
	   "payload on an opcode that carries none (ACK, READ request, atomic, CNP)")
RK_FINDING(RK_F_BTH_PAYLOAD_MISSING, "bth.payload.missing", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 9 (C9-92)",
	   "FIRST or MIDDLE packet with no payload")
RK_FINDING(RK_F_BTH_DESTQP_ZERO, "bth.dest_qp.zero", RK_SEV_ERROR,
	   "IBTA Annex A17 (CA17-33)",
	   "DestQP 0 (QP0, subnet management) is not used on RoCE")
RK_FINDING(RK_F_ICRC_BAD, "icrc.bad", RK_SEV_ERROR,
	   "IBTA Annex A17 (CA17-22)",
	   "invariant CRC does not match the packet")
RK_FINDING(RK_F_AETH_SYNDROME_RESERVED, "aeth.syndrome.reserved", RK_SEV_ERROR,
	   "IBTA Vol1 9.3",
	   "AETH syndrome uses the reserved type (bits 6:5 = 10) or reserved bit 7")
RK_FINDING(RK_F_AETH_NAK_RESERVED, "aeth.nak.reserved", RK_SEV_ERROR,
	   "IBTA Vol1 9.3",
	   "NAK code is reserved, or Invalid RD Request on a transport without RD")
RK_FINDING(RK_F_RETH_DMALEN_OVER, "reth.dma_len.over_2g", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 9 (C9-94)",
	   "RDMA READ DMA length above 2^31 bytes")
RK_FINDING(RK_F_ATOMIC_VA_UNALIGNED, "atomic.va.unaligned", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 9",
	   "atomic VA is not 8-byte aligned")
RK_FINDING(RK_F_DETH_GSI_QKEY, "deth.q_key.gsi", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 13",
	   "datagram to QP1 with a Q_Key other than 0x80010000")
RK_FINDING(RK_F_MAD_TRUNCATED, "mad.truncated", RK_SEV_ERROR,
	   "IBTA Vol1 13.4.3",
	   "UD SEND to QP0/QP1 shorter than the 24-byte common MAD header")
RK_FINDING(RK_F_MAD_LENGTH, "mad.length.bad", RK_SEV_ERROR,
	   "IBTA Vol1 13.4.2",
	   "MAD payload is not 256 bytes")
RK_FINDING(RK_F_MAD_BASE_VERSION, "mad.base_version.unknown", RK_SEV_WARN,
	   "IBTA Vol1 13.4.3",
	   "MAD BaseVersion is not 1: its fields are not decoded")
RK_FINDING(RK_F_MAD_CM_ATTR, "mad.cm.attr.unknown", RK_SEV_WARN,
	   "IBTA Vol1 12.6",
	   "CM MAD with an AttributeID that names no CM message")
RK_FINDING(RK_F_CNP_FIELDS, "cnp.fields", RK_SEV_WARN,
	   "IBTA Annex A17 (CA17-44)",
	   "CNP with non-zero PSN, SE, M, PadCnt or reserved bytes")
RK_FINDING(RK_F_MSG_LEN_MISMATCH, "msg.length.mismatch", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 9 (C9-92)",
	   "bytes in a WRITE or READ response message differ from the DMA length requested")
RK_FINDING(RK_F_MSG_OPCODE_SEQUENCE, "msg.opcode.sequence", RK_SEV_ERROR,
	   "IBTA Vol1 ch. 9",
	   "MIDDLE or LAST without a FIRST, or a new message before the LAST, with no PSN gap")
RK_FINDING(RK_F_PFC_RESERVED, "pfc.reserved.nonzero", RK_SEV_WARN,
	   "IEEE 802.1Qbb 36.1.3",
	   "PFC class-enable vector has its reserved high byte set")
RK_FINDING(RK_F_MAC_CONTROL_OPCODE, "mac_control.opcode.unknown", RK_SEV_WARN,
	   "IEEE 802.3 annex 31A",
	   "MAC Control frame with an opcode other than PAUSE (0x0001) or PFC (0x0101)")
